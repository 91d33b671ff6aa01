# data.sh - sourced by the tr-fold, tr-flame and tr-diff benchmarks: builds the
# shared inputs once in $W (default /tmp/tr-fold-bench; reused when present):
#   rec.tr        a tr-rec-perf -g recording of >= 100,000 samples (bench/workloads/deep.c 13 10 20,
#                 two processes, cpu-clock every 50 us)
#   rec.txt       its perf script text (tr-cat), >= 100 MB
#   perf.data     perf record -g of the same workload, and perf.txt its `perf script` text
#                 (>= 100 MB; stackcollapse-perf.pl cannot read tr-cat's right-aligned comms)
#   big.folded    >= 100 MB of folded stacks (synthetic: random walks over 3000 Java-like names,
#                 depth 15..45, fixed seed); big2.folded the same with another seed
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${B:-$ROOT/build/release}
BIN=$B/bin
W=${W:-/tmp/tr-fold-bench}
FG=${FLAMEGRAPH_DIR:-}
mkdir -p "$W"
if [ -z "$FG" ] || [ ! -f "$FG/flamegraph.pl" ]; then
    echo "FLAMEGRAPH_DIR is not set (or has no flamegraph.pl): the comparisons with the FlameGraph"
    echo "Perl scripts are skipped; set it to a FlameGraph checkout to run them."
    FG=""
fi

mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN {printf "%.1f", b / 1048576}'; }
# run NAME CMD...: time one command (wall seconds, peak RSS KiB, user and system seconds) into
# $W/NAME.time
run() {
    local name=$1; shift
    /usr/bin/time -f "%e %M %U %S" -o "$W/$name.time" "$@"
}
# best N NAME OUT CMD...: run it N times, stdout to OUT each time; the timings of every run are
# kept in $W/NAME.time, and secs/cpu report the best run (the machine may be shared)
best() {
    local n=$1 name=$2 out=$3 i; shift 3
    rm -f "$W/$name.time"
    for i in $(seq "$n"); do
        /usr/bin/time -a -f "%e %M %U %S" -o "$W/$name.time" "$@" > "$out"
    done
}
# the timing lines of NAME (time adds a "Command exited ..." line on failure)
times_of() { awk '$1 ~ /^[0-9.]+$/' "$W/$1.time"; }
secs() { times_of "$1" | awk 'NR == 1 || $1 < m {m = $1} END {print m}'; }
cpu() { times_of "$1" | awk '{c = $3 + $4} NR == 1 || c < m {m = c} END {printf "%.2f", m}'; }
rss() { times_of "$1" | awk '$2 > m {m = $2} END {printf "%.0f", m / 1024}'; }
runs() { times_of "$1" | wc -l; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1fx", ((b > 0) ? a / b : 0)}'; }

make_data() {
    if [ ! -s "$W/rec.tr" ]; then
        cc -O1 -g -fno-omit-frame-pointer -o "$W/deep" "$ROOT/bench/workloads/deep.c"
        "$BIN/tr-rec-perf" -q -g -c 50000 -o "$W/rec.tr" -- sh -c "$W/deep 13 10 20 & $W/deep 13 10 20; wait" >/dev/null
        "$BIN/tr-cat" "$W/rec.tr" > "$W/rec.txt"
        if command -v perf >/dev/null; then
            perf record -q -g -c 50000 -o "$W/perf.data" -- sh -c "$W/deep 13 10 20 & $W/deep 13 10 20; wait" \
                >/dev/null 2>&1 || rm -f "$W/perf.data"
            [ -s "$W/perf.data" ] && perf script -i "$W/perf.data" > "$W/perf.txt" 2>/dev/null
        fi
    fi
    if [ ! -s "$W/big.folded" ]; then
        for seed in 1 2; do
            awk -v seed=$seed 'BEGIN {
                srand(seed);
                for (i = 0; i < 3000; i++)
                    name[i] = sprintf("org/example/pkg%d/Service%d:.handleRequestNumber%d_withSomeLongerSuffix", i % 37, i % 211, i);
                size = 0;
                while (size < 105 * 1048576) {
                    depth = 15 + int(rand() * 31);
                    f = int(rand() * 40); line = "java";
                    for (d = 0; d < depth; d++) {
                        f = (f * 7 + int(rand() * (d < 10 ? 3 : 60))) % 3000;
                        line = line ";" name[f];
                    }
                    line = line " " (1 + int(rand() * 100));
                    print line; size += length(line) + 1;
                }
            }' > "$W/big$([ $seed = 2 ] && echo 2).folded"
        done
    fi
    samples=$("$BIN/tr-cat" -i "$W/rec.tr" | awk '$1 == "sample" {print $2}')
    echo "data: rec.tr $samples samples ($(mb "$W/rec.tr") MiB), rec.txt $(mb "$W/rec.txt") MiB of perf script text (tr-cat),"
    [ -s "$W/perf.txt" ] && echo "      perf.data $(grep -c "^[^ #	]" "$W/perf.txt") samples, perf.txt $(mb "$W/perf.txt") MiB (perf script)"
    echo "      big.folded $(mb "$W/big.folded") MiB ($(wc -l < "$W/big.folded") lines); in $W"
}
