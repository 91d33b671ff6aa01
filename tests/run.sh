#!/bin/bash
# tests/run.sh UNIT_TEST... -- CASE_DIR...
# Runs each cmocka binary from $TR_TESTBIN, then every command-line case
# under each CASE_DIR (or CASE_DIR itself when it is a case), and ends with
# one line: "N passed, N failed, N skipped".
#
# A command-line case is a directory holding:
#   cmd      a bash script, run with errexit and pipefail (bash -e -o pipefail)
#            in a fresh temporary directory with the tools on PATH and $CASE
#            set to the case directory: any command that fails, anywhere in a
#            pipeline, fails the case, unless the script tests its status (if,
#            while, &&, ||, !); an expected failure is written `cmd && s=0 || s=$?`
#   out      expected stdout, after tests/normalize.sh (optional)
#   err      expected stderr, after tests/normalize.sh (optional)
#   status   expected exit status (optional, default 0)
# XDG_CACHE_HOME points into that directory: a case starts with empty caches;
# the unit tests share one of their own, removed at the end (no test reads the
# user's ~/.cache/tr: the symbolization and kernel-symbol caches).
# A case that prints "SKIP: reason" as its first stdout line and exits 77 is
# skipped: only on a fact of the kernel (or machine) established without the
# tool under test, never because a tool or a test program is missing.
set -u
export PATH="$TR_BIN:$TR_TESTBIN:$PATH"
units=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do units+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
pass=0 fail=0 skip=0
failed=()
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

units_cache=$(mktemp -d -t tr-units.XXXXXX) || exit 1
trap 'rm -rf "$units_cache"' EXIT
for t in "${units[@]}"; do
    echo "== unit $t"
    out=$(XDG_CACHE_HOME="$units_cache" "$TR_TESTBIN/$t" 2>&1); rc=$?
    echo "$out" | grep -E '^\[ *(PASSED|FAILED|SKIPPED|  ERROR) *\]|^\[  FAILED  \]|SKIP' | sed 's/^/   /'
    p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
    f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
    s=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then fail=$((fail + 1)); echo "$out" | tail -20; failed+=("$t (exit $rc)"); fi
    [ "$f" -gt 0 ] && { echo "$out" | grep -B2 -A8 -E 'FAILED|ERROR|Failure' | head -60; failed+=("$t"); }
done

norm="$TR_ROOT/tests/normalize.sh"
for d in "$@"; do
    if [ -f "$TR_ROOT/$d/cmd" ]; then cases=$TR_ROOT/$d; else cases=$(find "$TR_ROOT/$d" -mindepth 1 -maxdepth 1 -type d | sort); fi
    for c in $cases; do
        [ -f "$c/cmd" ] || continue
        name="${c#$TR_ROOT/tests/}"
        tmp=$(mktemp -d)
        # errexit and pipefail; the command that ends a case so names its file and line in .where
        (cd "$tmp" && CASE="$c" XDG_CACHE_HOME="$tmp/.cache" TR_CASE_WHERE="$tmp/.where" timeout 300 \
            bash -E -e -o pipefail -c 'trap "echo \"\${BASH_SOURCE[0]#\$TR_ROOT/tests/}:\$LINENO: exit \$?\" > \"\$TR_CASE_WHERE\"" ERR
                . "$CASE/cmd"' >"$tmp/.out" 2>"$tmp/.err" </dev/null); rc=$?
        want=0; [ -f "$c/status" ] && want=$(cat "$c/status")
        if [ $rc -eq 77 ] && head -1 "$tmp/.out" | grep -q '^SKIP:'; then
            skip=$((skip + 1)); echo "   SKIP $name: $(head -1 "$tmp/.out" | sed 's/^SKIP: //')"
            rm -rf "$tmp"; continue
        fi
        ok=1; why=""
        if [ "$rc" != "$want" ]; then ok=0; why="exit $rc, expected $want"; fi
        if [ $ok = 1 ] && [ -f "$c/out" ] && ! diff -u "$c/out" <(bash "$norm" <"$tmp/.out") >"$tmp/.diff"; then ok=0; why="stdout differs"; fi
        if [ $ok = 1 ] && [ -f "$c/err" ] && ! diff -u "$c/err" <(bash "$norm" <"$tmp/.err") >"$tmp/.diff"; then ok=0; why="stderr differs"; fi
        if [ $ok = 1 ]; then pass=$((pass + 1)); else
            fail=$((fail + 1)); failed+=("$name")
            [ "$rc" != "$want" ] && [ -s "$tmp/.where" ] && why="$why; errexit at $(cat "$tmp/.where")"
            echo "   FAIL $name: $why"
            if [ -s "$tmp/.diff" ]; then head -40 "$tmp/.diff"; else echo "   --- stdout:"; head -40 "$tmp/.out"; fi
            echo "   --- stderr:"; head -20 "$tmp/.err"
        fi
        rm -rf "$tmp"
    done
done
for f in "${failed[@]}"; do echo "failed: $f"; done
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
