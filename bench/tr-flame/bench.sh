#!/bin/bash
# bench/tr-flame/bench.sh - tr-flame against flamegraph.pl, side by side in one run: the fold of
# the recording (small) and big.folded (>= 100 MB, see bench/tr-fold/data.sh), both at the
# default minwidth.  Prints seconds, peak RSS and SVG size, the ratios, and whether the frames
# (parsed titles: count, percent, name) are the same.
#   FLAMEGRAPH_DIR=/path/to/FlameGraph bash bench/tr-flame/bench.sh
set -u
. "$(dirname "$0")/../tr-fold/data.sh"
make_data
"$BIN/tr-fold" "$W/rec.tr" > "$W/rec.folded" 2>/dev/null
frames() { perl "$ROOT/tests/flame/frames.pl" < "$1" | LC_ALL=C sort; }
for input in rec.folded big.folded; do
    echo
    echo "$input: $(mb "$W/$input") MiB, $(wc -l < "$W/$input") lines"
    printf "%-24s %9s %9s %10s\n" "" "seconds" "RSS MiB" "SVG KiB"
    run flame "$BIN/tr-flame" "$W/$input" > "$W/flame.svg"
    printf "%-24s %9s %9s %10s\n" "tr-flame" "$(secs flame)" "$(rss flame)" "$(( $(stat -c %s "$W/flame.svg") / 1024 ))"
    if [ -n "$FG" ]; then
        run flame-pl perl "$FG/flamegraph.pl" "$W/$input" > "$W/flame-pl.svg" 2>/dev/null
        printf "%-24s %9s %9s %10s\n" "flamegraph.pl" "$(secs flame-pl)" "$(rss flame-pl)" "$(( $(stat -c %s "$W/flame-pl.svg") / 1024 ))"
        cmp -s <(frames "$W/flame.svg") <(frames "$W/flame-pl.svg") && same="the same frames" || same="frames differ (merged siblings?)"
        echo "  => $(ratio "$(secs flame-pl)" "$(secs flame)") faster (goal >= 10x), $(ratio "$(rss flame-pl)" "$(rss flame)") less memory," \
             "SVG $(ratio "$(stat -c %s "$W/flame-pl.svg")" "$(stat -c %s "$W/flame.svg")") smaller; $same"
    fi
done
