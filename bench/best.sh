# bench/best.sh - sourced by benchmarks: best CMD prints the best wall time of RUNS (default 3)
# runs of the shell command CMD, in seconds, its output thrown away.
best() {
    local b= t
    for _ in $(seq "${RUNS:-3}"); do
        t=$( { TIMEFORMAT=%R; time bash -c "$1" > /dev/null 2> /dev/null; } 2>&1 | tail -1)
        b=$(echo "${b:-$t} $t" | awk '{print ($2 < $1) ? $2 : $1}')
    done
    echo "$b"
}
