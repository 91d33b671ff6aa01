#!/bin/bash
# bench/tr-import-perf/bench.sh: tr-import-perf against its anchor, perf script, on the same
# perf.data (Debian's perf records the hot3 workload at FREQ Hz, -g and --call-graph dwarf, and -g
# in pipe mode, perf record -o - saved to a file):
#   perf script > /dev/null                 against  tr-import-perf > trace
#   perf script | tr-fold (the flame graph)  against  tr-import-perf | tr-fold
# wall time best of RUNS (default 3), and the trace's size against perf.data's.
set -eu
R=$(cd "$(dirname "$0")/../.." && pwd)
B=${TR_BIN:-$R/build/release/bin}
W=$B/../workloads
export PATH=$B:$PATH
FREQ=${FREQ:-10000} ROUNDS=${ROUNDS:-1200} RUNS=${RUNS:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
. "$R/bench/best.sh"
printf '%-7s %8s | %10s %10s %6s | %12s %12s %6s | %9s\n' mode samples "perf script" import x \
    "perf|fold" "import|fold" x "bytes tr/perf"
for mode in fp dwarf fp-pipe; do
    case $mode in fp | fp-pipe) cg=-g; wl=hot3-fp ;; dwarf) cg="--call-graph dwarf"; wl=hot3-nofp ;; esac
    d=$work/$mode.data
    if [ $mode = fp-pipe ]; then
        perf record -q $cg -e cpu-clock -F "$FREQ" -o - "$W/$wl" "$ROUNDS" > "$d" 2> /dev/null
    else
        perf record -q $cg -e cpu-clock -F "$FREQ" -o "$d" "$W/$wl" "$ROUNDS" > /dev/null 2>&1
    fi
    tr-import-perf -q "$d" > "$work/$mode.tr"
    n=$(tr-cat --type sample "$work/$mode.tr" | grep -c 'cpu-clock:$' || true)
    a=$(best "perf script -i $d"); b=$(best "tr-import-perf -q $d")
    c=$(best "perf script -i $d | tr-fold"); e=$(best "tr-import-perf -q $d | tr-fold")
    printf '%-7s %8d | %9.2fs %9.2fs %5.1fx | %11.2fs %11.2fs %5.1fx | %9.3f\n' "$mode" "$n" "$a" "$b" \
        "$(echo "$a $b" | awk '{print $1 / ($2 > 0 ? $2 : 0.01)}')" "$c" "$e" \
        "$(echo "$c $e" | awk '{print $1 / ($2 > 0 ? $2 : 0.01)}')" \
        "$(echo "$(stat -c %s "$work/$mode.tr") $(stat -c %s "$d")" | awk '{print $1 / $2}')"
done
