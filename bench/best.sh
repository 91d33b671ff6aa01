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
# best_ns CMD [ARG...]: the best wall time of REPS (default 3) runs of the command, in ns, its
# output thrown away.
best_ns() {
    local b= t0 t1
    for _ in $(seq "${REPS:-3}"); do
        t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N)
        if [ -z "$b" ] || [ $((t1 - t0)) -lt "$b" ]; then b=$((t1 - t0)); fi
    done
    echo "$b"
}
