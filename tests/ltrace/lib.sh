# Sourced by the tests/ltrace cases: skip rules, the bundled workloads, the probe list.
TRACING=/sys/kernel/tracing
UPROBES=$TRACING/uprobe_events

# A skip only on what the kernel offers, read from tracefs itself (never from tr-rec-ltrace):
# no tracefs, or a kernel without uprobe events.
need_uprobes() {
    [ "$(id -u)" = 0 ] || { echo "the ltrace cases run as root (as CI does)" >&2; exit 1; }
    command -v ltwork >/dev/null && command -v ltwork-noplt >/dev/null ||
        { echo "ltwork is not built (make tools)" >&2; exit 1; }
    grep -qw tracefs /proc/filesystems ||
        { echo "SKIP: the kernel has no tracefs (not in /proc/filesystems)"; exit 77; }
    [ -d "$TRACING/events" ] ||
        { echo "tracefs is not mounted at $TRACING (make test mounts it)" >&2; exit 1; }
    [ -e "$UPROBES" ] ||
        { echo "SKIP: the kernel has no uprobe events ($UPROBES)"; exit 77; }
}

# ltrace is in TEST_DEB_PACKAGES: the anchor is never missing.
need_ltrace() {
    command -v ltrace >/dev/null || { echo "ltrace is not installed (make test-deps)" >&2; exit 1; }
}

# ltrace -c's and tr-cat -c's tables as "function calls" lines, sorted.
calls_of() {
    awk '$1 != "%" && $1 !~ /^-/ && $NF != "total" && NF == 5 { print $5, $4 }' "$1" | sort
}

# Addresses vary from run to run.
norm_addrs() {
    sed -E 's/0x[0-9a-f]+/ADDR/g'
}

# wait_for WHAT TEST...: run TEST every 0.1 s, up to 20 s, until it passes; else say what did not come
wait_for() {
    local what=$1 i; shift
    for i in $(seq 200); do "$@" && return 0; sleep 0.1; done
    echo "never: $what"; return 1
}
