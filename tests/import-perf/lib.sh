# lib.sh - sourced by the tr-import-perf cases.
W="$TR_BIN/../workloads"
# perf's build-id cache (~/.debug) is the case's own: perf record -N writes nothing there, and
# perf script and tr-import-perf read nothing of other runs' (perf 6.1 aborts now and then in its
# build-id cache code when several perf processes use one cache at once)
export HOME=$PWD/home
mkdir -p "$HOME"
need_perf_events() { # a skip only when the kernel has no perf events at all (read from /proc)
    [ -e /proc/sys/kernel/perf_event_paranoid ] ||
        { echo "SKIP: the kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)"; exit 77; }
}
# perf_record FILE ARGS...: Debian's perf records, its messages shown when it fails
perf_record() {
    local out=$1; shift
    perf record -q -N -o "$out" "$@" > /dev/null 2> rec.err || { cat rec.err >&2; exit 1; }
}
# perf_record_pipe ARGS...: perf record -o - (pipe mode) to stdout; the workload must not write to stdout
perf_record_pipe() {
    perf record -q -N -o - "$@" 2> rec.err || { cat rec.err >&2; exit 1; }
}
# perf_samples FILE: perf script's samples of FILE as "tid time:" (pipe mode prints callchains even then)
perf_samples() {
    perf script -i "$1" -F tid,time 2>/dev/null | awk 'NF == 2 && $2 ~ /^[0-9]+\.[0-9]+:$/ {print $1, $2}'
}
# tr_samples TRACE: its samples as "tid time:", as perf script -F tid,time prints them
# (the command name, which may hold spaces, left out)
tr_samples() {
    tr-cat --type sample "$1" | sed -nE 's/^.* [0-9]+\/([0-9]+) +\[[-0-9]+\] +([0-9]+\.[0-9]+:) .*/\1 \2/p'
}
