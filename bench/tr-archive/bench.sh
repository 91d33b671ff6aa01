#!/bin/bash
# bench/tr-archive/bench.sh: tr-archive against its anchor, perf archive, on a recording of the same
# program (hot3, -g, 999 Hz): wall time best of RUNS (default 3), and what each holds: the bytes of
# the archive and whether libc's separate debug file (libc6-dbg, when installed) is in it.
set -eu
R=$(cd "$(dirname "$0")/../.." && pwd)
B=${TR_BIN:-$R/build/release/bin}
W=$B/../workloads
export PATH=$B:$PATH
RUNS=${RUNS:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
. "$R/bench/best.sh"
perf record -q -g -o p.data "$W/hot3-fp" 300 > /dev/null 2>&1
tr-rec-perf -q -g -o t.tr "$W/hot3-fp" 300 > /dev/null
a=$(best "perf archive p.data"); perf archive p.data > /dev/null 2>&1
b=$(best "tr-archive -o a.tr t.tr"); tr-archive -o a.tr t.tr 2> /dev/null
c=$(best "rm -rf t.tr.debug; tr-archive t.tr")
libc=$(ldd "$W/hot3-fp" | awk '/libc.so/ {print $3}')
has_dbg() { tar tjf p.data.tar.bz2 2> /dev/null | grep -c 'debug' || true; }
printf '%-26s %8s %12s %s\n' "" wall bytes "libc debug file"
printf '%-26s %7.2fs %12d %s\n' "perf archive (tar.bz2)" "$a" "$(stat -c %s p.data.tar.bz2)" \
    "$( [ "$(has_dbg)" -gt 0 ] && echo yes || echo no)"
printf '%-26s %7.2fs %12d %s\n' "tr-archive -o (blobs)" "$b" "$(stat -c %s a.tr)" \
    "$(tr-cat -i a.tr | grep -c 'blob build-id/.*\.debug' | awk '{print ($1 > 0) ? "yes" : "no"}')"
printf '%-26s %7.2fs %12d %s\n' "tr-archive -d (tree)" "$c" "$(du -sb t.tr.debug | cut -f1)" \
    "$(ls t.tr.debug/.build-id/*/ | grep -c '\.debug$' | awk '{print ($1 > 0) ? "yes" : "no"}')"
echo "ratio tr-archive -o / perf archive wall: $(echo "$b $a" | awk '{printf "%.2f", $1 / $2}') (libc $libc)"
