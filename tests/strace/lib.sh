# lib.sh - helpers for the tr-rec-strace command-line cases (sourced by each cmd).
# The cases compare tr-cat's rendering of a tr-rec-strace trace with strace's
# own output of the same command, after strace-norm.py (pids, addresses,
# interleaving of threads).
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NORM="$LIB_DIR/strace-norm.py"

# What the cases need is installed by .ci/run: missing, it is a failure,
# never a skip (a skip would hide a broken recorder).
need_ptrace() {
    command -v python3 >/dev/null || { echo "python3 is not installed" >&2; exit 1; }
}

need_strace() {
    need_ptrace
    command -v strace >/dev/null || { echo "strace is not installed" >&2; exit 1; }
}

# compare [-s SKIP,LIST] [-x REGEX] [-o "TR-CAT OPTIONS"] [-r "RECORDER OPTIONS"] [-S "STRACE OPTIONS"] -- CMD...
# -x: normalised lines matching REGEX (grep -E) are left out of the comparison
# Two runs of a program can differ where it races with itself (a SIGCHLD before or after
# wait4 in a shell, two children's SIGCHLDs delivered as one): a difference is retried up to
# 6 times (on a loaded machine one try in three can differ so); a real one persists.
compare() {
    local try
    for try in 1 2 3 4 5 6; do
        compare_once "$@" >compare.log && return 0
        [ -s tr.norm ] || break
    done
    cat compare.log
    return 1
}

compare_once() {
    local skip="" catopts="" recopts="" straceopts="" exclude=""
    while [ "$1" != "--" ]; do
        case "$1" in
        -s) skip=$2; shift 2 ;;
        -x) exclude=$2; shift 2 ;;
        -o) catopts=$2; shift 2 ;;
        -r) recopts=$2; shift 2 ;;
        -S) straceopts=$2; shift 2 ;;
        *) echo "compare: bad option $1" >&2; return 2 ;;
        esac
    done
    shift
    rm -f tr.norm
    strace -f $straceopts -o strace.out "$@" >cmd.out 2>cmd.err </dev/null
    local s1=$?
    tr-rec-strace -f $recopts -o trace.tr "$@" >cmd.out 2>cmd.err </dev/null
    local s2=$?
    if [ $s1 != $s2 ]; then
        echo "exit status differs: strace run $s1, tr-rec-strace run $s2"; cat cmd.err; return 1
    fi
    tr-cat $catopts trace.tr >tr.out || { echo "tr-cat failed"; return 1; }
    python3 "$NORM" ${skip:+--skip "$skip"} strace.out >strace.norm
    python3 "$NORM" ${skip:+--skip "$skip"} tr.out >tr.norm
    if [ -n "$exclude" ]; then
        grep -vE "$exclude" strace.norm >strace.kept; mv strace.kept strace.norm
        grep -vE "$exclude" tr.norm >tr.kept; mv tr.kept tr.norm
    fi
    if ! diff -u strace.norm tr.norm >norm.diff; then
        echo "tr-cat differs from strace for: $*"; head -60 norm.diff; return 1
    fi
    [ "$(wc -l <tr.norm)" -gt 3 ] || { echo "too few lines compared"; cat tr.norm; return 1; }
    return 0
}
