#!/bin/bash
# bench/tr-export/bench.sh - tr-export on about a million samples, side by side with what
# a perf user runs to get the same profile out of the same recording:
#   --pprof       against  perf script | tr-fold -p  (the stackcollapse pipeline: a summed
#                          profile; FLAMEGRAPH_DIR set: stackcollapse-perf.pl itself)
#   --chrome      against  perf data convert --to-json  (perf's own JSON export)
#   --speedscope  against  perf script > file  (the text speedscope imports)
# Workload: two copies of hot3 (tests/workloads/hot3.c, frame pointers) recorded by perf
# record -g on cpu-clock every PERIOD ns (default 25000), ROUNDS rounds each (default 4000:
# about a million samples; SMALL_ROUNDS, default 400, for the memory comparison).
# tr-import-perf turns each perf.data into a tr trace of the same samples.  Measured once
# each (CPU time user+sys from /usr/bin/time, max RSS, output bytes), then ratios
# perf/tr (time) and tr/perf (memory, bytes); then tr-export's max RSS at the small and
# the big recording: flat in the trace's length.
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TR_BIN:-$R/build/release/bin}
TB=${TR_TESTBIN:-$R/build/release/tests}
PERIOD=${PERIOD:-25000}
ROUNDS=${ROUNDS:-4000}
SMALL_ROUNDS=${SMALL_ROUNDS:-400}
export PATH="$BIN:$TB:$PATH"
unset DEBUGINFOD_URLS
command -v perf >/dev/null || { echo "bench: perf is not installed" >&2; exit 1; }
for t in tr-export tr-fold tr-import-perf; do
    command -v $t >/dev/null || { echo "bench: $t is not built (make bench-tr-export)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
cc -O2 -g -fno-omit-frame-pointer -o "$work/hot3" "$R/tests/workloads/hot3.c"

record() { # record NAME ROUNDS
    perf record -q -e cpu-clock -c "$PERIOD" -g -o "$work/$1.data" -- \
        sh -c "'$work/hot3' $2 & '$work/hot3' $2; wait" > /dev/null 2>&1 || { echo "bench: perf record failed" >&2; exit 1; }
    tr-import-perf "$work/$1.data" > "$work/$1.tr" || exit 1
}
# run OUT CMD: "cpu_seconds maxrss_kb bytes" of the shell command CMD writing OUT
run() {
    /usr/bin/time -f "%U %S %M" -o "$work/time" bash -c "$2" 2> "$work/err" > /dev/null ||
        { echo "bench: failed: $2" >&2; cat "$work/err" >&2; exit 1; }
    awk -v b="$(stat -c %s "$1")" '{ printf "%.2f %d %d\n", $1 + $2, $3, b }' "$work/time"
}
record small "$SMALL_ROUNDS"
record big "$ROUNDS"
n=$(perf script -i "$work/big.data" -F event 2>/dev/null | wc -l)
echo "samples: $n (big), $(perf script -i "$work/small.data" -F event 2>/dev/null | wc -l) (small)"
if [ -n "${FLAMEGRAPH_DIR:-}" ]; then collapse="$FLAMEGRAPH_DIR/stackcollapse-perf.pl"; else collapse="tr-fold -p"; fi
d=$work/big
printf "%-12s %-42s %8s %9s %12s\n" format "command" "CPU s" "RSS MB" "bytes"
row() { # row FORMAT LABEL "cpu rss bytes"
    set -- "$1" "$2" $3
    printf "%-12s %-42s %8.2f %9.1f %12d\n" "$1" "$2" "$3" "$(echo "$4 / 1024" | bc -l)" "$5"
}
ratios() { # ratios "tr" "perf"
    set -- $1 $2
    awk -v a="$1" -v b="$4" -v ra="$2" -v rb="$5" -v ba="$3" -v bb="$6" \
        'BEGIN { printf "%-12s perf/tr time %.1fx, tr/perf RSS %.2f, tr/perf bytes %.3f\n", "", b / a, ra / rb, ba / bb }'
}
t=$(run "$d.pb.gz" "tr-export --pprof -o '$d.pb.gz' '$d.tr'")
p=$(run "$d.folded" "perf script -i '$d.data' 2>/dev/null | $collapse > '$d.folded'")
row pprof "tr-export --pprof" "$t"; row "" "perf script | ${collapse##*/}" "$p"; ratios "$t" "$p"
t=$(run "$d.chrome" "tr-export --chrome -o '$d.chrome' '$d.tr'")
p=$(run "$d.json" "perf data convert -i '$d.data' --to-json '$d.json' 2>/dev/null")
row chrome "tr-export --chrome" "$t"; row "" "perf data convert --to-json" "$p"; ratios "$t" "$p"
t=$(run "$d.ss" "tr-export --speedscope -o '$d.ss' '$d.tr'")
p=$(run "$d.perf" "perf script -i '$d.data' > '$d.perf' 2>/dev/null")
row speedscope "tr-export --speedscope" "$t"; row "" "perf script > file" "$p"; ratios "$t" "$p"
echo "tr-export max RSS, small -> big recording:"
for f in pprof chrome speedscope; do
    a=$(run "$work/o" "tr-export --$f -o '$work/o' '$work/small.tr'" | awk '{print $2}')
    b=$(run "$work/o" "tr-export --$f -o '$work/o' '$work/big.tr'" | awk '{print $2}')
    awk -v f=$f -v a="$a" -v b="$b" 'BEGIN { printf "  %-11s %.1f -> %.1f MB (%.2fx)\n", f, a / 1024, b / 1024, b / a }'
done
