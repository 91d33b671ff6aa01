# lib.sh - sourced by the tr-export cases.
. "$TR_ROOT/tests/fold/lib.sh"
export PPROF_TMPDIR=$PWD GOCACHE=$PWD/gocache HOME=$PWD
# pprof FILE ARGS...: go tool pprof (Debian's golang-go, in TEST_DEB_PACKAGES)
pprof() {
    command -v go > /dev/null || { echo "go is not installed (golang-go)" >&2; exit 1; }
    go tool pprof "$@" 2> pprof.err || { cat pprof.err >&2; exit 1; }
}
# leaves: "count function" of folded lines on stdin, by the leaf, largest first
leaves() { awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); s[f[k]] += n } END { for (l in s) print s[l], l }' | sort -k1,1nr -k2; }
# speedscope's web app: its npm package, which `make test` fetches into build/npm
# (tests/tr-export/test.mk)
speedscope_app() {
    local d="$TR_ROOT/build/npm/node_modules/speedscope/dist/release"
    [ -f "$d/index.html" ] ||
        { echo "speedscope's web app is not in build/npm: make test fetches it (tests/tr-export/test.mk)" >&2; exit 1; }
    echo "$d"
}
# speedscope FILE: what speedscope shows of FILE in headless Chromium
speedscope() {
    local app
    app=$(speedscope_app) || exit 1
    timeout 150 node "$TR_ROOT/tests/tr-export/speedscope.js" "$app" "$1"
}
