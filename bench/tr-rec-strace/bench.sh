#!/bin/bash
# bench/tr-rec-strace/bench.sh - tr-rec-strace side by side with strace, in one run.
#
# Workloads: a syscall-heavy loop (dd bs=1: two syscalls per byte) and a file-tree walk
# (find over /usr/share).  Modes: every syscall traced, and a filter (-e trace=...) that
# selects few calls (strace with --seccomp-bpf, tr-rec-strace uses its filter by default).
# Output: wall time of the traced workload (best of $REPS), its ratio to the untraced run,
# tr/strace time ratios, and the trace size against strace's text of the same run.
#
#   bench.sh [DD_BYTES] [TREE]      (defaults: 20000 /usr/share; a traced dd of 200,000 bytes
#                                   takes over 35 s a run, and each is run 4 x REPS times)
#   TR_BIN=build/release/bin REPS=3
set -u
DD_BYTES=${1:-20000}
TREE=${2:-/usr/share}
REPS=${REPS:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TR_BIN:-$ROOT/build/release/bin}
REC="$BIN/tr-rec-strace"
command -v strace >/dev/null || { echo "bench: strace is not installed" >&2; exit 1; }
[ -x "$REC" ] || { echo "bench: $REC not built (make)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

. "$ROOT/bench/best.sh"
# best wall time in seconds of REPS runs of "$@"
best() { awk -v n="$(best_ns "$@")" 'BEGIN { printf "%.3f", n / 1e9 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }

row() { printf '%-44s %9s %9s %10s\n' "$@"; }

run_workload() {
    local name=$1 filter=$2; shift 2
    echo
    echo "== $name: $*"
    "$@" >/dev/null 2>&1 # warm the caches
    local base; base=$(best "$@")
    row "run" "seconds" "x untraced" "tr/strace"
    row "untraced" "$base" "1.00" ""
    # everything traced
    local s_null s_file t_null t_file
    s_null=$(best strace -f -o /dev/null "$@")
    t_null=$(best "$REC" -f -o /dev/null "$@")
    s_file=$(best strace -f -o "$TMP/s.txt" "$@")
    t_file=$(best "$REC" -f -o "$TMP/t.tr" "$@")
    row "strace -f -o /dev/null" "$s_null" "$(ratio "$s_null" "$base")" ""
    row "tr-rec-strace -f -o /dev/null" "$t_null" "$(ratio "$t_null" "$base")" "$(ratio "$t_null" "$s_null")"
    row "strace -f -o FILE" "$s_file" "$(ratio "$s_file" "$base")" ""
    row "tr-rec-strace -f -o FILE" "$t_file" "$(ratio "$t_file" "$base")" "$(ratio "$t_file" "$s_file")"
    local ss ts; ss=$(size "$TMP/s.txt"); ts=$(size "$TMP/t.tr")
    echo "   trace size: strace text $ss bytes, tr $ts bytes: $(ratio "$ss" "$ts")x smaller"
    # with a filter
    local sf_null tf_null sf_file tf_file
    sf_null=$(best strace -f --seccomp-bpf -e "trace=$filter" -o /dev/null "$@")
    tf_null=$(best "$REC" -f -e "trace=$filter" -o /dev/null "$@")
    sf_file=$(best strace -f --seccomp-bpf -e "trace=$filter" -o "$TMP/sf.txt" "$@")
    tf_file=$(best "$REC" -f -e "trace=$filter" -o "$TMP/tf.tr" "$@")
    row "strace --seccomp-bpf -e trace=$filter" "$sf_null" "$(ratio "$sf_null" "$base")" ""
    row "tr-rec-strace -e trace=$filter" "$tf_null" "$(ratio "$tf_null" "$base")" "$(ratio "$tf_null" "$sf_null")"
    row "  (both to a file)" "$tf_file" "$(ratio "$tf_file" "$base")" "$(ratio "$tf_file" "$sf_file")"
    ss=$(size "$TMP/sf.txt"); ts=$(size "$TMP/tf.tr")
    echo "   filtered trace size: strace text $ss bytes, tr $ts bytes: $(ratio "$ss" "$ts")x smaller"
}

echo "tr-rec-strace vs strace ($(strace -V | head -1)), best of $REPS, $(nproc) cpus, $(uname -r)"
run_workload "syscall-heavy loop" "openat,close" dd if=/dev/zero of=/dev/null bs=1 count="$DD_BYTES"
run_workload "file-tree walk" "%file" find "$TREE" -xdev

# -k: a user stack per syscall (both unwind with libdw; strace also names the
# frames as it goes, tr-rec-strace leaves that to tr-symbolize, measured apart)
echo
echo "== stacks (-k): ls -R $TREE/doc"
k_base=$(best ls -R "$TREE/doc")
k_s=$(best strace -k -o "$TMP/k.txt" ls -R "$TREE/doc")
k_t=$(best "$REC" -k -o "$TMP/k.tr" ls -R "$TREE/doc")
k_y=$(best sh -c "'$BIN/tr-symbolize' '$TMP/k.tr' | '$BIN/tr-cat' > '$TMP/k.out'")
row "run" "seconds" "x untraced" "tr/strace"
row "untraced" "$k_base" "1.00" ""
row "strace -k -o FILE" "$k_s" "$(ratio "$k_s" "$k_base")" ""
row "tr-rec-strace -k -o FILE" "$k_t" "$(ratio "$k_t" "$k_base")" "$(ratio "$k_t" "$k_s")"
row "  + tr-symbolize | tr-cat (after the run)" "$k_y" "" "$(ratio "$(awk -v a="$k_t" -v b="$k_y" 'BEGIN { print a + b }')" "$k_s")"
echo "   trace size: strace text $(size "$TMP/k.txt") bytes, tr $(size "$TMP/k.tr") bytes"
