# Sourced by the cases that use tracefs (tests/ftrace, tests/ltrace, tests/perf's user probes):
# where it is, and the skip rules, read from tracefs itself (never from the tool under test).
# make test mounts tracefs at $TRACING when it is not.
TRACING=/sys/kernel/tracing
UPROBES=$TRACING/uprobe_events

# need_tracefs WHO [FILE...]: root (as CI), FILE... built, and a mounted tracefs; a skip only when
# the kernel has none.
need_tracefs() {
    local who=$1 f; shift
    [ "$(id -u)" = 0 ] || { echo "the $who cases run as root (as CI does)" >&2; exit 1; }
    for f; do command -v "$f" > /dev/null || { echo "$f is not built (make tools)" >&2; exit 1; }; done
    grep -qw tracefs /proc/filesystems ||
        { echo "SKIP: the kernel has no tracefs (not in /proc/filesystems)"; exit 77; }
    [ -d "$TRACING/events" ] ||
        { echo "tracefs is not mounted at $TRACING (make test mounts it)" >&2; exit 1; }
}

# need_uprobe_events WHO [FILE...]: need_tracefs, and a skip when the kernel has no uprobe events.
need_uprobe_events() {
    need_tracefs "$@"
    [ -e "$UPROBES" ] || { echo "SKIP: the kernel has no uprobe events ($UPROBES)"; exit 77; }
}
