# Sourced by the tests/ltrace cases: skip rules, the bundled workloads, the probe list.
. "$TR_ROOT/tests/tracefs.sh"
need_uprobes() { need_uprobe_events ltrace ltwork ltwork-noplt; }

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
