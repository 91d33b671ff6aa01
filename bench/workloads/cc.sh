#!/bin/sh
# cc.sh - benchmark workload: a compiler run.  `gcc -O2 -c cc-input.c` (a frozen, self-contained
# concatenation of some of tr's own sources, about 3,700 lines) again and again for SECONDS: each
# compile is the same work.  The object goes to a temporary file, removed at the end.
#   cc.sh SECONDS [GCC]
secs=${1:-5}
gcc=${2:-gcc}
src=$(dirname "$0")/cc-input.c
obj=$(mktemp) || exit 1
trap 'rm -f "$obj"' EXIT
end=$(($(date +%s%N) + $(awk -v s="$secs" 'BEGIN { printf "%d", s * 1e9 }')))
n=0
while :; do
    "$gcc" -O2 -c "$src" -o "$obj" || exit 1
    n=$((n + 1))
    [ "$(date +%s%N)" -lt "$end" ] || break
done
echo "cc: $n compiles"
