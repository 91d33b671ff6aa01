#!/bin/sh
# cc.sh - benchmark workload: a compiler run.  `gcc -O2 -c` of tr's own format library
# (format/{error,util,record,reader,writer}.c, about 3,000 lines) again and again for SECONDS: a
# real C source, each compile the same work within one benchmark run (the suite compares tr and
# perf side by side in the same run, so later edits of format/ change both sides alike).  Objects
# go to /dev/null (nothing is left behind when the benchmark kills the loop).
#   cc.sh SECONDS [GCC]
secs=${1:-5}
gcc=${2:-gcc}
src=$(cd "$(dirname "$0")/../../format" && pwd) || exit 1
end=$(($(date +%s%N) + $(awk -v s="$secs" 'BEGIN { printf "%d", s * 1e9 }')))
n=0
while :; do
    for f in error util record reader writer; do
        "$gcc" -std=c11 -D_GNU_SOURCE -O2 -I"$src" -c "$src/$f.c" -o /dev/null || exit 1
    done
    n=$((n + 1))
    [ "$(date +%s%N)" -lt "$end" ] || break
done
echo "cc: $n compiles"
