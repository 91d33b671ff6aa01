# lib.sh - sourced by tr-top's cases: tr-report's helpers (need_perf_events, shares: main calls
# fifty, thirty, twenty; burn is the leaf) and wait_for.
. "$TR_ROOT/tests/report/lib.sh"
# wait_for WHAT TEST...: run TEST every 0.1 s, up to 20 s, until it passes; else say what did not come
wait_for() {
    local what=$1 i; shift
    for i in $(seq 200); do "$@" && return 0; sleep 0.1; done
    echo "never: $what"; return 1
}
