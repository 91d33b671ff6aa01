# lib.sh - sourced by trace cases: build the workload and record it.
need() { command -v "$1" >/dev/null || { echo "$1 is not built" >&2; exit 1; }; }
burn() { # burn N: a CPU-bound program with known functions (main, mid, leaf_a, leaf_b)
    cc -O0 -g -fno-omit-frame-pointer -o burn "$TR_ROOT/tests/fold/data/burn.c" || exit 1
}
record_burn() { # record_burn FILE [tr-rec-perf options]
    need tr-rec-perf
    burn
    local out=$1; shift
    tr-rec-perf -q -g "$@" -o "$out" ./burn 1500 > /dev/null 2> rec.err ||
        { if grep -qi "not supported" rec.err; then echo "SKIP: the kernel does not support this perf event: $(head -1 rec.err)"; exit 77; fi; cat rec.err >&2; exit 1; }
}
# recorded CMD...: run a recorder; skip only when the kernel lacks the feature
recorded() {
    "$@" > /dev/null 2> rec.err && return 0
    if grep -qi "not supported\|no such device" rec.err; then echo "SKIP: the kernel does not support this perf event: $(head -1 rec.err)"; exit 77; fi
    cat rec.err >&2
    exit 1
}
