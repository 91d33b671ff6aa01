#!/bin/bash
# bench/tr-fold/bench.sh - tr-fold against stackcollapse-perf.pl, side by side in one run, on the
# same inputs (see data.sh): the recording itself, its perf script text (>= 100 MB), and
# `perf script | ...` of a perf.data of the same workload.  Prints wall seconds, peak RSS, input
# throughput, and the ratios; compares with inferno-collapse-perf's published 180-620 MiB/s.
#   FLAMEGRAPH_DIR=/path/to/FlameGraph bash bench/tr-fold/bench.sh
set -u
. "$(dirname "$0")/data.sh"
make_data
TXT=$W/perf.txt
[ -s "$TXT" ] || TXT=$W/rec.txt
txt_mb=$(mb "$TXT")
echo
printf "%-44s %9s %9s %10s\n" "tr-fold" "seconds" "RSS MiB" "MiB/s"
run fold-trace "$BIN/tr-fold" "$W/rec.tr" > "$W/fold-trace.out" 2>/dev/null
printf "%-44s %9s %9s %10s  (%s samples/s)\n" "tr-fold rec.tr (symbolizing)" "$(secs fold-trace)" "$(rss fold-trace)" "-" \
    "$(awk -v n="$samples" -v s="$(secs fold-trace)" 'BEGIN {printf "%.0f", ((s > 0) ? n / s : 0)}')"
run fold-cat "$BIN/tr-fold" "$W/rec.txt" > /dev/null 2>&1
printf "%-44s %9s %9s %10s\n" "tr-fold rec.txt (its tr-cat text)" "$(secs fold-cat)" "$(rss fold-cat)" \
    "$(awk -v m="$(mb "$W/rec.txt")" -v s="$(secs fold-cat)" 'BEGIN {printf "%.0f", ((s > 0) ? m / s : 0)}')"
run fold-text "$BIN/tr-fold" "$TXT" > "$W/fold-text.out" 2>/dev/null
tr_text_mbs=$(awk -v m="$txt_mb" -v s="$(secs fold-text)" 'BEGIN {printf "%.0f", ((s > 0) ? m / s : 0)}')
printf "%-44s %9s %9s %10s\n" "tr-fold $(basename "$TXT") (perf script text)" "$(secs fold-text)" "$(rss fold-text)" "$tr_text_mbs"
if [ -n "$FG" ]; then
    run pl-text perl "$FG/stackcollapse-perf.pl" "$TXT" > "$W/pl-text.out" 2>/dev/null
    printf "%-44s %9s %9s %10s\n" "stackcollapse-perf.pl $(basename "$TXT")" "$(secs pl-text)" "$(rss pl-text)" \
        "$(awk -v m="$txt_mb" -v s="$(secs pl-text)" 'BEGIN {printf "%.0f", ((s > 0) ? m / s : 0)}')"
    cmp -s "$W/fold-text.out" "$W/pl-text.out" && same="identical output" || same="OUTPUT DIFFERS"
    echo "  => tr-fold is $(ratio "$(secs pl-text)" "$(secs fold-text)") faster on the text (goal >= 20x), $same"
fi
echo "  => inferno-collapse-perf publishes 180-620 MiB/s; tr-fold here: $tr_text_mbs MiB/s"
if [ -s "$W/perf.data" ]; then
    run perf-script sh -c "perf script -i '$W/perf.data' > /dev/null 2>&1"
    run ps-fold sh -c "perf script -i '$W/perf.data' 2>/dev/null | '$BIN/tr-fold' > /dev/null 2>&1"
    printf "%-44s %9s\n" "perf script alone" "$(secs perf-script)"
    printf "%-44s %9s\n" "perf script | tr-fold" "$(secs ps-fold)"
    if [ -n "$FG" ]; then
        run ps-pl sh -c "perf script -i '$W/perf.data' 2>/dev/null | perl '$FG/stackcollapse-perf.pl' > /dev/null 2>&1"
        printf "%-44s %9s\n" "perf script | stackcollapse-perf.pl" "$(secs ps-pl)"
        echo "  => the pipeline is $(ratio "$(secs ps-pl)" "$(secs ps-fold)") faster (perf script itself dominates)"
    fi
else
    echo "perf record failed or perf is missing: no perf script | ... comparison"
fi
