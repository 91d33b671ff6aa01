# lib.sh - sourced by tr-top's cases that record.
. "$TR_ROOT/tests/report/lib.sh"
# spinner: the shares program (main calls fifty, thirty, twenty; burn is the leaf), long enough
# to outlive any case: tr-top's recorder ends it
spinner() { shares; }
# wait_for WHAT TEST...: run TEST every 0.1 s, up to 20 s, until it passes; else say what did not come
wait_for() {
    local what=$1 i; shift
    for i in $(seq 200); do "$@" && return 0; sleep 0.1; done
    echo "never: $what"; return 1
}
