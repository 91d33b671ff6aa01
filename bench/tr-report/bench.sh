#!/bin/bash
# bench/tr-report/bench.sh - tr-report side by side with `perf report --stdio` on the very same
# recordings, at about 100,000 and 1,000,000 samples.
#
# Workload: two copies of hot3 (tests/workloads/hot3.c, frame pointers) under one perf record -g
# at FREQ Hz (default 20000), ROUNDS rounds each (scaled to the sample count aimed at);
# tr-import-perf turns each perf.data into a tr trace holding the same samples,
# so both tools read the same data.  Then, for each recording, CPU time (user + system) best and
# median of RUNS (default 3) runs, and max RSS, of:
#   perf report --stdio                    (children, call graphs: its defaults)
#   tr-report                              (the same defaults)
#   perf report --stdio --no-children -g none, and tr-report the same
# and the ratios perf / tr (goal: tr 10x faster, its memory flat in the sample count).
#   SAMPLES="100000 1000000" FREQ=20000 RUNS=3 bash bench/tr-report/bench.sh
# Needs perf and a built tree (make bench-tr-report builds what it needs).
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TR_BIN:-$R/build/release/bin}
TB=${TR_TESTBIN:-$R/build/release/tests}
FREQ=${FREQ:-20000}
RUNS=${RUNS:-3}
SAMPLES=${SAMPLES:-100000 1000000}
export PATH="$BIN:$TB:$PATH"
unset DEBUGINFOD_URLS
command -v perf >/dev/null || { echo "bench: perf is not installed" >&2; exit 1; }
for t in tr-report tr-import-perf; do
    command -v $t >/dev/null || { echo "bench: $t is not built (make bench-tr-report)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
cc -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o "$work/hot3" "$R/tests/workloads/hot3.c"

# measure CMD: "best median maxrss_kb": CPU seconds (user + system) of RUNS runs, max RSS
measure() {
    local i ts=() rss=0 line
    for i in $(seq "$RUNS"); do
        /usr/bin/time -f "%U %S %M" -o "$work/time" bash -c "$1" >/dev/null 2>"$work/err" ||
            { echo "bench: failed: $1" >&2; cat "$work/err" >&2; exit 1; }
        line=$(tail -1 "$work/time")
        ts+=("$(echo "$line" | awk '{ printf "%.3f", $1 + $2 }')")
        rss=$(echo "$line" | awk -v r="$rss" '{ print ($3 > r ? $3 : r) }')
    done
    printf '%s\n' "${ts[@]}" | sort -g | awk -v rss="$rss" '{ v[NR] = $1 } END { printf "%.3f %.3f %d\n", v[1], v[int((NR + 1) / 2)], rss }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }'; }
best() { echo "${1%% *}"; }
median() { local x=${1#* }; echo "${x%% *}"; }
kb() { echo "${1##* }"; }
show() { printf '%8.3f s (median %8.3f) %5d MB' "$(best "$1")" "$(median "$1")" "$(( $(kb "$1") / 1024 ))"; }

echo "tr-report against perf report --stdio on the same recordings (CPU time best of $RUNS, max RSS)"
for n in $SAMPLES; do
    # a hot3 round is about 2 ms of CPU: 40 samples at 20 kHz; two copies
    rounds=$(( n / 2 * 20000 / FREQ / 40 + 1 ))
    perf record -q -N -F "$FREQ" -g -o "$work/p.data" -- sh -c "'$work/hot3' $rounds & '$work/hot3' $rounds; wait" \
        >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
    tr-import-perf "$work/p.data" > "$work/p.tr"
    got=$(perf report -i "$work/p.data" --stdio --no-children -g none --sort comm 2>/dev/null | awk '/^# Samples/ { print $3 }')
    echo
    echo "== about $n samples (perf: $got; perf.data $(( $(stat -c %s "$work/p.data") / 1048576 )) MB, trace $(( $(stat -c %s "$work/p.tr") / 1048576 )) MB)"
    for opts in "" "--no-children -g none"; do
        p=$(measure "perf report -i '$work/p.data' --stdio $opts")
        t=$(measure "tr-report $opts '$work/p.tr'")
        echo "  options: ${opts:-(defaults)}"
        echo "    perf report  $(show "$p")"
        echo "    tr-report    $(show "$t")"
        echo "    ratio perf/tr: CPU $(ratio "$(best "$p")" "$(best "$t")")x (median $(ratio "$(median "$p")" "$(median "$t")")x), RSS $(ratio "$(kb "$p")" "$(kb "$t")")x"
    done
    # the same shares: the top rows of both
    perf report -i "$work/p.data" --stdio --no-children -g none --percent-limit 5 2>/dev/null | grep -v '^#' | grep . > "$work/perf.txt"
    tr-report -q --no-children -g none --percent-limit 5 "$work/p.tr" | grep -v '^#' | grep . > "$work/tr.txt"
    cmp -s "$work/perf.txt" "$work/tr.txt" && echo "  rows above 5%: the same as perf report's" ||
        { echo "  rows above 5% differ:"; diff "$work/perf.txt" "$work/tr.txt" | head; }
done
