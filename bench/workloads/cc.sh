#!/bin/sh
# cc.sh - benchmark workload: a compiler run.  `gcc -O2 -c cc-input.c` (a frozen, self-contained
# concatenation of some of tr's own sources, about 3,700 lines) again and again for SECONDS: each
# compile is the same work.  The object goes to /dev/null (nothing is left behind when the
# benchmark kills the loop).
#   cc.sh SECONDS [GCC]
secs=${1:-5}
gcc=${2:-gcc}
src=$(dirname "$0")/cc-input.c
end=$(($(date +%s%N) + $(awk -v s="$secs" 'BEGIN { printf "%d", s * 1e9 }')))
n=0
while :; do
    "$gcc" -O2 -c "$src" -o /dev/null || exit 1
    n=$((n + 1))
    [ "$(date +%s%N)" -lt "$end" ] || break
done
echo "cc: $n compiles"
