# Shared by the symbolize command-line cases: build the workload, record it.
set -eu
unset DEBUGINFOD_URLS
SRC="$CASE/../../prog.c"
# a skip only when the kernel has no perf events at all (read from /proc, not from the recorder)
need_recorder() {
    command -v tr-rec-perf >/dev/null || { echo "tr-rec-perf is not built" >&2; exit 1; }
    [ -e /proc/sys/kernel/perf_event_paranoid ] ||
        { echo "SKIP: the kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)"; exit 77; }
}
# build OUT [CFLAGS...]: without PLT stubs (-fno-plt), the one code of the program that has no
# symbol; a sample in a stub (the calls of read, the lazy binding of each function) would be a
# frame of the program that rightly stays [unknown], which the cases count as a failure
build() {
    local out=$1; shift
    cc -O2 -g -fno-plt "$@" -o "$out" "$SRC"
}
# record TRACE [tr-rec-perf options...] -- COMMAND...
record() {
    local t=$1; shift
    tr-rec-perf -q -o "$t" "$@" 2>rec.err || { cat rec.err >&2; exit 1; }
}
build_id() {
    readelf -n "$1" 2>/dev/null | awk '/Build ID/ {print $3}'
}
# Functions seen in the samples' frames of module MOD (basename), one per line.
funcs_of() {
    sym-dump -m "$1" | tr ';' '\n' | grep -F "[$2]" | sed 's/\[[^]]*\]$//; s/(inline)//' | sort -u
}
# "module BASENAME status=N" for module MOD (basename), and the detail's first word
status_of() {
    sym-dump -s "$1" | awk -v m="$2" '$1 == "module" { n = split($2, p, "/"); if (p[n] == m) print "module " m " " $3 }'
}
# check_funcs TRACE MOD F...: "F" or "F missing" for each F in the frames of
# module MOD, then "unknown: N" frames of MOD that did not resolve (robust
# against samples that land in other small functions)
check_funcs() {
    local t=$1 m=$2 f; shift 2
    funcs_of "$t" "$m" > .funcs
    for f in "$@"; do grep -qxF -- "$f" .funcs && echo "$f" || echo "$f missing"; done
    echo "unknown: $(grep -cxF '[unknown]' .funcs || true)"
}
