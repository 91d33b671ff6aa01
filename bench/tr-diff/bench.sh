#!/bin/bash
# bench/tr-diff/bench.sh - tr-diff against difffolded.pl, side by side in one run, on two folded
# files of >= 100 MB each (bench/tr-fold/data.sh), plain and with -n; checks the lines agree
# (difffolded.pl's output sorted).
#   FLAMEGRAPH_DIR=/path/to/FlameGraph bash bench/tr-diff/bench.sh
set -u
. "$(dirname "$0")/../tr-fold/data.sh"
make_data
A=$W/big.folded
Bf=$W/big2.folded
echo "inputs: $(mb "$A") MiB and $(mb "$Bf") MiB"
printf "%-24s %9s %9s\n" "" "seconds" "RSS MiB"
for opt in "" -n; do
    run diff "$BIN/tr-diff" $opt "$A" "$Bf" > "$W/diff.out"
    printf "%-24s %9s %9s\n" "tr-diff $opt" "$(secs diff)" "$(rss diff)"
    if [ -n "$FG" ]; then
        run diff-pl perl "$FG/difffolded.pl" $opt "$A" "$Bf" > "$W/diff-pl.raw"
        printf "%-24s %9s %9s\n" "difffolded.pl $opt" "$(secs diff-pl)" "$(rss diff-pl)"
        LC_ALL=C sort "$W/diff-pl.raw" | cmp -s - "$W/diff.out" && same="identical lines" || same="LINES DIFFER"
        echo "  => $(ratio "$(secs diff-pl)" "$(secs diff)") faster, $(ratio "$(rss diff-pl)" "$(rss diff)") less memory; $same"
    fi
done
run report "$BIN/tr-diff" --report "$A" "$Bf" > /dev/null
printf "%-24s %9s %9s\n" "tr-diff --report" "$(secs report)" "$(rss report)"
