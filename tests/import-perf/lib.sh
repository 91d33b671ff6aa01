# lib.sh - sourced by the tr-import-perf cases.
W="$TR_BIN/../workloads"
need_perf_events() { # a skip only when the kernel has no perf events at all (read from /proc)
    [ -e /proc/sys/kernel/perf_event_paranoid ] ||
        { echo "SKIP: the kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)"; exit 77; }
}
# perf_record FILE ARGS...: Debian's perf records, its messages shown when it fails
perf_record() {
    local out=$1; shift
    perf record -q -o "$out" "$@" > /dev/null 2> rec.err || { cat rec.err >&2; exit 1; }
}
# samples_of_script: the sample header lines of perf script text (stdin) as "comm tid event"
script_samples() { awk '/^[^ \t].*:  *[0-9]+ [^ ]+:/ || /^ *[^ \t].* [0-9]+ +[0-9.]+: +[0-9]+ [^ ]+:/' ; }
