# lib.sh - sourced by trace cases: build the workload and record it.
need() { command -v "$1" >/dev/null || { echo "$1 is not built" >&2; exit 1; }; }
# a skip only when the kernel has no perf events at all (read from /proc, not from the recorder)
need_perf_events() {
    [ -e /proc/sys/kernel/perf_event_paranoid ] ||
        { echo "SKIP: the kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)"; exit 77; }
}
burn() { # burn N: a CPU-bound program with known functions (main, mid, leaf_a, leaf_b)
    cc -O0 -g -fno-omit-frame-pointer -o burn "$TR_ROOT/tests/fold/data/burn.c" || exit 1
}
record_burn() { # record_burn FILE [tr-rec-perf options]
    need tr-rec-perf
    need_perf_events
    burn
    local out=$1; shift
    tr-rec-perf -q -g "$@" -o "$out" ./burn 1500 > /dev/null 2> rec.err || { cat rec.err >&2; exit 1; }
}
# recorded CMD...: run a recorder, its messages shown when it fails
recorded() {
    "$@" > /dev/null 2> rec.err && return 0
    cat rec.err >&2
    exit 1
}
