#!/bin/bash
# bench/tr-flame/compare-perl.sh - needs FLAMEGRAPH_DIR (a FlameGraph checkout, not a Debian
# package): tr-flame against flamegraph.pl itself under option sets.
set -u
R=$(cd "$(dirname "$0")/../.." && pwd); TR_ROOT=$R; export PATH="$R/build/release/bin:$PATH"
cd "$(mktemp -d)"
# Differential test against flamegraph.pl itself (FLAMEGRAPH_DIR): the reference folds
# (and a differential one) under option sets that change the frames or their numbers
# draw the same frames with the same counts, percentages and deltas.
[ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/flamegraph.pl" ] ||
    { echo "FLAMEGRAPH_DIR is not set (a FlameGraph checkout): nothing to compare"; exit 0; }
. "$R/tests/fold/ref.sh"
frames() { perl "$TR_ROOT/tests/flame/frames.pl" ${2:-} < "$1" | LC_ALL=C sort; }
fails=0
for name in perf-cycles-instructions-01 perf-java-stacks-01 perf-numa-stacks-01 perf-vertx-stacks-01; do
    f="$REF/expected/$name.folded"
    for opts in "--flamechart" "--reverse" "--inverted --minwidth 2%" "--factor 2 --countname bytes" \
                "--total 100000" "--minwidth 5" "--width 600 --minwidth 0.5"; do
        tr-flame $opts "$f" > a.svg
        perl "$FLAMEGRAPH_DIR/flamegraph.pl" $opts "$f" > b.svg 2>/dev/null
        cmp -s <(frames a.svg) <(frames b.svg) || { fails=$((fails + 1)); echo "differs: $name $opts" >&2; }
    done
done
d="$REF/expected/vertx-vs-example.diff.folded"
# (not --reverse: there flamegraph.pl loses frames, see case zero-width-collision)
for opts in "--negate" "--minwidth 0.5%" "--negate --inverted"; do
    tr-flame $opts "$d" > a.svg
    perl "$FLAMEGRAPH_DIR/flamegraph.pl" $opts "$d" > b.svg 2>/dev/null
    cmp -s <(frames a.svg --delta) <(frames b.svg --delta) || { fails=$((fails + 1)); echo "differs: diff $opts" >&2; }
done
echo "$fails differences"
[ $fails = 0 ]
