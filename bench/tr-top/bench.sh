#!/bin/bash
# bench/tr-top/bench.sh - tr-top's CPU use while it follows the whole system (-a) at 999 Hz
# with call graphs, side by side with perf top's.
#
# Workload: hot3 (tests/workloads/hot3.c, frame pointers) busy on one CPU for the whole run.
# Each tool shows its table every second for SECONDS (default 15) and is then stopped with
# SIGINT; /usr/bin/time gives its CPU time, user + system, its recorder included (tr-top's
# tr-rec-perf is its child, perf top records in its own process):
#   perf top --stdio -a -g -F 999 -d 1        (stdin a silent pipe: no key help loop)
#   tr-top --stdio -a -g -F 999 -d 1
# RUNS (default 2) alternated runs of each; best and median, the ratio perf / tr (goal: >= 1),
# and the samples per second each showed last.
#   SECONDS_=15 RUNS=2 bash bench/tr-top/bench.sh
# Needs perf and a built tree (make bench-tr-top).
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TR_BIN:-$R/build/release/bin}
DUR=${SECONDS_:-15}
RUNS=${RUNS:-2}
export PATH="$BIN:$PATH"
unset DEBUGINFOD_URLS
command -v perf >/dev/null || { echo "bench: perf is not installed" >&2; exit 1; }
command -v tr-top >/dev/null || { echo "bench: tr-top is not built (make bench-tr-top)" >&2; exit 1; }
work=$(mktemp -d)
spin=
trap '[ -n "$spin" ] && kill $spin 2>/dev/null; rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
cc -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o "$work/hot3" "$R/tests/workloads/hot3.c"
"$work/hot3" 100000000 & spin=$!

# run NAME CMD HEADER: CPU seconds (user + system) of CMD followed for DUR seconds; its output in NAME.out
run() {
    sleep $((DUR + 2)) | /usr/bin/time -f "%U %S" -o "$work/time" timeout -s INT "$DUR" bash -c "$2" \
        > "$work/$1.out" 2> "$work/$1.err"
    grep -aq "$3" "$work/$1.out" || { echo "bench: $1 showed no table:" >&2; cat "$work/$1.err" >&2; exit 1; }
    tail -1 "$work/time" | awk '{ printf "%.3f\n", $1 + $2 }'
}
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f %.3f", v[1], v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }
p=() t=()
for i in $(seq "$RUNS"); do
    p+=("$(run perf "exec perf top --stdio -a -g -F 999 -d 1" PerfTop:)") || exit 1
    t+=("$(run tr "exec tr-top --stdio -a -g -F 999 -d 1" tr-top:)") || exit 1
done
ps=$(printf '%s\n' "${p[@]}" | stats) ts=$(printf '%s\n' "${t[@]}" | stats)
prate=$(grep -a 'PerfTop:' "$work/perf.out" | tail -1 | awk '{ print $2 }')
trate=$(grep -a 'tr-top:' "$work/tr.out" | tail -1 | awk '{ print $2 }')
echo "tr-top against perf top following -a -g at 999 Hz for $DUR s, hot3 busy on one CPU (CPU time, $RUNS runs)"
echo "  perf top --stdio  best ${ps% *} s, median ${ps#* } s  (last: $prate samples/s)"
echo "  tr-top --stdio    best ${ts% *} s, median ${ts#* } s  (last: $trate samples/s)"
echo "  ratio perf/tr: CPU $(ratio "${ps% *}" "${ts% *}")x (median $(ratio "${ps#* }" "${ts#* }")x)"
