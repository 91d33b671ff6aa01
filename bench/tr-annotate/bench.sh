#!/bin/bash
# bench/tr-annotate/bench.sh - tr-annotate against `perf annotate --stdio`, side by side in one
# run, on the very same recording: perf record of tests/annotate/loop.c (one hot loop, with
# frame-pointer call graphs), its perf.data turned into a tr trace by tr-import-perf.  Both annotate
# the function hot; the instructions' shares are checked to agree (within 0.01), then CPU time
# (user + system, children included: perf annotate runs objdump) is measured over RUNS alternated
# runs (median), at two recording sizes.
#   bash bench/tr-annotate/bench.sh [RUNS]      (default 5)
set -eu
RUNS=${1:-5}
export PATH="$TR_BIN:$TR_TESTBIN:$PATH"
SRC=$(cd "$(dirname "$0")/../.." && pwd)/tests/annotate/loop.c
W=$(mktemp -d /tmp/tr-annotate-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
cc -O2 -g -fno-omit-frame-pointer -o loop "$SRC"
# cpu SECONDS of a command (user + system, its children included), its output discarded
cpu() { local t; t=$( { TIMEFORMAT='%U %S'; time "$@" > /dev/null 2>&1; } 2>&1 ); echo "$t" | awk '{ printf "%.3f", $1 + $2 }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf "%-34s %10s %10s %9s  %s\n" "recording" "perf (s)" "tr (s)" "perf/tr" "shares"
for rounds in 300 3000; do
    perf record -q -e cpu-clock -F 20000 -g -o perf.data ./loop $rounds > /dev/null 2>&1
    tr-import-perf perf.data > t.tr
    n=$(tr-annotate --json t.tr | jq .samples)
    # the same shares: perf's instruction rows against tr-annotate's
    perf annotate --stdio -i perf.data hot 2>/dev/null | sed -n 's/^ *\([0-9.]*\) : *\([0-9a-f]*\):.*/\2 \1/p' | sort > p.insns
    tr-annotate --json -s hot t.tr | jq -r '.functions[0].instructions[] | "\(.addr | ltrimstr("0x")) \(.percent)"' | sort > t.insns
    same=$(join -a1 -a2 -e x -o 0,1.2,2.2 p.insns t.insns | awk '{ d = $2 - $3; if (d < 0) d = -d; if ($2 == "x" || $3 == "x" || d > 0.011) bad++ }
        END { print bad ? bad " instructions differ" : "same instruction shares" }')
    : > p.t; : > t.t
    for i in $(seq "$RUNS"); do # alternated
        cpu perf annotate --stdio -i perf.data hot >> p.t; echo >> p.t
        cpu tr-annotate -s hot t.tr >> t.t; echo >> t.t
    done
    pt=$(median < p.t); tt=$(median < t.t)
    printf "%-34s %10s %10s %9s  %s\n" "loop $rounds ($n samples, -g)" "$pt" "$tt" \
        "$(awk -v p="$pt" -v t="$tt" 'BEGIN { printf (t > 0 ? "%.1fx" : "inf"), (t > 0 ? p / t : 0) }')" "$same"
done
