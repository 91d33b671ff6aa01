#!/bin/bash
# bench/tr-rec-ltrace/bench.sh - tr-rec-ltrace side by side with ltrace, in one run.
#
# Workload: tests/ltrace/ltwork's loop of strlen calls (a call-heavy loop of small libc calls,
# PLT build, where ltrace works).  The per-call overhead is the slope of the traced run's time
# over the number of calls, less the untraced run's: (T(N2) - T(N1)) / (N2 - N1), so that
# neither tool's start (ltrace's symbol loading, tr-rec-ltrace's probes) counts.  ltrace is
# slow per call, so it runs fewer calls.  Also the bytes per call: trace against ltrace's text.
#
#   bench.sh [N]        (default 200000: tr-rec-ltrace runs N/10 and N calls, ltrace N/100 and N/10)
#   TR_BIN=build/release/bin TR_TESTBIN=build/release/tests REPS=3
set -u
N=${1:-200000}
REPS=${REPS:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TR_BIN:-$ROOT/build/release/bin}
WORK=${TR_TESTBIN:-$ROOT/build/release/tests}/ltwork
REC="$BIN/tr-rec-ltrace"
command -v ltrace >/dev/null || { echo "bench: ltrace is not installed" >&2; exit 1; }
[ -x "$REC" ] && [ -x "$WORK" ] || { echo "bench: $REC or $WORK not built (make tools)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

. "$ROOT/bench/best.sh"
best() { best_ns "$@"; }
# ns per call between n1 and n2 calls of: "$@" (the loop's count appended)
slope() {
    local n1=$1 n2=$2; shift 2
    local a b; a=$(best "$@" loop "$n1"); b=$(best "$@" loop "$n2")
    awk -v a="$a" -v b="$b" -v n1="$n1" -v n2="$n2" 'BEGIN { printf "%.1f", (b - a) / (n2 - n1) }'
}
row() { printf '%-36s %14s %14s\n' "$@"; }

echo "== ltwork loop: strlen calls ($WORK)"
"$WORK" loop 1000 # warm the caches
base_t=$(slope $((N / 10)) "$N" "$WORK")
base_l=$(slope $((N / 100)) $((N / 10)) "$WORK")
tr=$(slope $((N / 10)) "$N" "$REC" -o "$TMP/t.tr" "$WORK")
lt=$(slope $((N / 100)) $((N / 10)) ltrace -o "$TMP/l.txt" "$WORK")
ov_tr=$(awk -v a="$tr" -v b="$base_t" 'BEGIN { printf "%.1f", a - b }')
ov_lt=$(awk -v a="$lt" -v b="$base_l" 'BEGIN { printf "%.1f", a - b }')
row "run" "ns per call" "overhead ns"
row "untraced" "$base_t" "0"
row "ltrace -o FILE" "$lt" "$ov_lt"
row "tr-rec-ltrace -o FILE" "$tr" "$ov_tr"
echo "   overhead per call: ltrace / tr-rec-ltrace = $(awk -v a="$ov_lt" -v b="$ov_tr" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }') (goal: at least 10x)"

# bytes per call, at N/10 calls each
"$REC" -o "$TMP/t.tr" "$WORK" loop $((N / 10)) >/dev/null 2>&1
ltrace -o "$TMP/l.txt" "$WORK" loop $((N / 10)) >/dev/null 2>&1
tb=$(stat -c %s "$TMP/t.tr"); lb=$(stat -c %s "$TMP/l.txt")
echo "   bytes per call: ltrace text $(awk -v b="$lb" -v n=$((N / 10)) 'BEGIN { printf "%.1f", b / n }'), tr trace $(awk -v b="$tb" -v n=$((N / 10)) 'BEGIN { printf "%.2f", b / n }'): $(awk -v a="$lb" -v b="$tb" 'BEGIN { printf "%.0fx", a / b }') smaller"
