#!/bin/bash
# bench/tr-fold/compare-perl.sh - needs FLAMEGRAPH_DIR (a FlameGraph checkout, not a Debian
# package): tr-fold against stackcollapse-perf.pl itself on 200 random inputs.
set -u
R=$(cd "$(dirname "$0")/../.." && pwd); TR_ROOT=$R; export PATH="$R/build/release/bin:$PATH"
cd "$(mktemp -d)"
# Differential test against stackcollapse-perf.pl itself (FLAMEGRAPH_DIR): 200 random
# perf-script-like inputs full of the shapes its regular expressions treat specially,
# four option sets each: tr-fold must print exactly what the Perl script prints.
[ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ] ||
    { echo "FLAMEGRAPH_DIR is not set (a FlameGraph checkout): nothing to compare"; exit 0; }
fails=0
for seed in $(seq 1 200); do
    perl "$TR_ROOT/tests/fold/gen-perf-script.pl" $seed > in.txt
    for o in "" --all "--tid --addrs" "--pid --jit"; do
        tr-fold $o in.txt 2>/dev/null > a
        perl "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" $o in.txt 2>/dev/null > b
        cmp -s a b || { fails=$((fails + 1)); [ $fails -le 3 ] && { echo "seed $seed $o:" >&2; diff a b >&2; }; }
    done
done
echo "$fails differences"
[ $fails = 0 ]
