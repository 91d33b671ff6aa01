#!/bin/bash
# bench/tr-fold/bench.sh - tr-fold against stackcollapse-perf.pl, side by side in one run, on the
# same inputs (see data.sh): the recording itself, its perf script text (>= 100 MB), and
# `perf script | ...` of a perf.data of the same workload.  Prints wall and CPU seconds, peak RSS,
# input throughput, and the ratios; compares with inferno-collapse-perf's published 180-620 MiB/s.
# tr-fold's times are the best of BENCH_RUNS runs (default 5: it takes a fraction of a second and
# the machine may be shared), stackcollapse-perf.pl's of PERL_RUNS (default 1: it takes seconds).
#   FLAMEGRAPH_DIR=/path/to/FlameGraph bash bench/tr-fold/bench.sh
set -u
. "$(dirname "$0")/data.sh"
make_data
N=${BENCH_RUNS:-5}
NPL=${PERL_RUNS:-1}
TXT=$W/perf.txt
[ -s "$TXT" ] || TXT=$W/rec.txt
txt_mb=$(mb "$TXT")
mibs() { awk -v m="$1" -v s="$2" 'BEGIN {printf "%.0f", ((s > 0) ? m / s : 0)}'; }
row() { printf "%-44s %8s %8s %8s %8s  %s\n" "$@"; }
echo
row "" "wall s" "CPU s" "RSS MiB" "MiB/s" "(best of)"
best "$N" fold-trace "$W/fold-trace.out" "$BIN/tr-fold" "$W/rec.tr" 2>/dev/null
row "tr-fold rec.tr (symbolizing)" "$(secs fold-trace)" "$(cpu fold-trace)" "$(rss fold-trace)" "-" \
    "($(runs fold-trace); $(awk -v n="$samples" -v s="$(secs fold-trace)" 'BEGIN {printf "%.0f", ((s > 0) ? n / s : 0)}') samples/s)"
best "$N" fold-cat /dev/null "$BIN/tr-fold" "$W/rec.txt" 2>/dev/null
row "tr-fold rec.txt (its tr-cat text)" "$(secs fold-cat)" "$(cpu fold-cat)" "$(rss fold-cat)" \
    "$(mibs "$(mb "$W/rec.txt")" "$(secs fold-cat)")" "($(runs fold-cat))"
best "$N" fold-text "$W/fold-text.out" "$BIN/tr-fold" "$TXT" 2>/dev/null
tr_text_mbs=$(mibs "$txt_mb" "$(secs fold-text)")
row "tr-fold $(basename "$TXT") (perf script text)" "$(secs fold-text)" "$(cpu fold-text)" "$(rss fold-text)" \
    "$tr_text_mbs" "($(runs fold-text))"
if [ -n "$FG" ]; then
    best "$NPL" pl-text "$W/pl-text.out" perl "$FG/stackcollapse-perf.pl" "$TXT" 2>/dev/null
    row "stackcollapse-perf.pl $(basename "$TXT")" "$(secs pl-text)" "$(cpu pl-text)" "$(rss pl-text)" \
        "$(mibs "$txt_mb" "$(secs pl-text)")" "($(runs pl-text))"
    cmp -s "$W/fold-text.out" "$W/pl-text.out" && same="identical output" || same="OUTPUT DIFFERS"
    echo "  => tr-fold is $(ratio "$(secs pl-text)" "$(secs fold-text)") faster on the text in wall time," \
        "$(ratio "$(cpu pl-text)" "$(cpu fold-text)") in CPU time (goal >= 20x), $same"
fi
echo "  => inferno-collapse-perf publishes 180-620 MiB/s; tr-fold here: $tr_text_mbs MiB/s"
if [ -s "$W/perf.data" ]; then
    run perf-script sh -c "perf script -i '$W/perf.data' > /dev/null 2>&1"
    run ps-fold sh -c "perf script -i '$W/perf.data' 2>/dev/null | '$BIN/tr-fold' > /dev/null 2>&1"
    row "perf script alone" "$(secs perf-script)" "$(cpu perf-script)" "" "" "(1)"
    row "perf script | tr-fold" "$(secs ps-fold)" "$(cpu ps-fold)" "" "" "(1)"
    if [ -n "$FG" ]; then
        run ps-pl sh -c "perf script -i '$W/perf.data' 2>/dev/null | perl '$FG/stackcollapse-perf.pl' > /dev/null 2>&1"
        row "perf script | stackcollapse-perf.pl" "$(secs ps-pl)" "$(cpu ps-pl)" "" "" "(1)"
        echo "  => the pipeline is $(ratio "$(secs ps-pl)" "$(secs ps-fold)") faster (perf script itself dominates)"
    fi
else
    echo "perf record failed or perf is missing: no perf script | ... comparison"
fi
