# Sourced by the tests/ftrace cases: skip rules, the bundled workload, the tracing state.
FTWORK=${TR_TESTBIN:-$TR_ROOT/build/release/tests}/ftwork
. "$TR_ROOT/tests/tracefs.sh"

# no sched:sched_switch tracepoint is a skip too.
need_tracing() {
    need_tracefs ftrace "$FTWORK"
    [ -d "$TRACING/events/sched/sched_switch" ] ||
        { echo "SKIP: the kernel has no sched:sched_switch tracepoint ($TRACING/events/sched)"; exit 77; }
}

# The top-level tracing state, as text: every setting file, the options, the enabled
# events, the event filters and triggers, the instances.
tracing_state() {
    (
        cd "$TRACING" || exit 1
        for f in tracing_on current_tracer set_event set_event_pid set_event_notrace_pid \
            set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_ftrace_notrace_pid \
            trace_clock trace_options buffer_size_kb buffer_percent buffer_subbuf_size_kb \
            tracing_cpumask tracing_thresh saved_cmdlines_size timestamp_mode error_log \
            dynamic_events uprobe_events events/enable; do
            [ -e "$f" ] || continue
            echo "== $f"
            cat "$f" 2>&1 || true
        done
        echo "== instances (but tr-rec-ftrace's own, counted by stale_instances)"
        ls instances | grep -v -E '^tr-rec-ftrace-[0-9]+(-[0-9a-f]+)?$' || true
        echo "== options"
        grep -H . options/* 2>&1 || true
        echo "== events"
        grep -H . events/*/*/enable events/*/*/filter events/*/*/trigger 2>/dev/null |
            grep -v -e ':0$' -e ':none$' -e ':# Available triggers:' -e ':# traceon' || true
    )
}

# Instances of tr-rec-ftrace runs that are gone (none should be left behind; other tests may
# be recording at the same time, their instances are not counted)
stale_instances() {
    local i
    for i in $(ls "$TRACING/instances" | grep '^tr-rec-ftrace-[0-9]*-[0-9a-f]*$'); do
        # a recorder removes its instance before it exits: a dead pid with the instance still
        # there is a leak, not a run that was just finishing (tr-rec-ftrace-PID-NONCE)
        local p=${i#tr-rec-ftrace-}
        kill -0 "${p%%-*}" 2>/dev/null || { [ -d "$TRACING/instances/$i" ] && echo "$i"; }
    done
}
