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
# speedscope's web app (its npm package, installed once into build/npm: registry.npmjs.org)
speedscope_app() {
    local d="$TR_ROOT/build/npm"
    if ! [ -f "$d/node_modules/speedscope/dist/release/index.html" ]; then
        mkdir -p "$d" && (cd "$d" && npm install --no-audit --no-fund --prefix "$d" speedscope > npm.log 2>&1) ||
            { cat "$d/npm.log" >&2; exit 1; }
    fi
    echo "$d/node_modules/speedscope/dist/release"
}
# speedscope FILE: what speedscope shows of FILE in headless Chromium
speedscope() { timeout 150 node "$TR_ROOT/tests/tr-export/speedscope.js" "$(speedscope_app)" "$1"; }
