#!/bin/bash
# bench/tr-symbolize/bench.sh - tr-symbolize side by side with `perf script`
# on the very same recordings.
#
# Workload: hot3 (tests/workloads/hot3.c) built with frame pointers and with
# -fomit-frame-pointer, recorded by Debian's perf at FREQ Hz (default 10000)
# with -g (mode fp) and with --call-graph dwarf (mode dwarf); ROUNDS
# (default 1800) gives about 30,000 samples each (at least 20,000 is
# checked).  tr-import-perf turns each perf.data into a tr trace holding the
# same samples, registers and stack copies (and, as tr-rec-perf does, the
# kallsyms lines of the sampled kernel functions), so both tools resolve
# the same data.  Measured per mode, wall time best of RUNS (default 5)
# and the median, max RSS:
#   perf script                      (names, perf's default output)
#   tr-symbolize, cold cache         (names + inline frames, binary trace out,
#                                     its DWARF cache emptied before each run)
#   tr-symbolize                     (the same, the cache filled by an earlier run)
#   tr-symbolize --no-inline         (names only, as perf script shows them)
#   tr-symbolize | tr-cat            (text, like perf script)
# and the ratio perf/tr; then how often the two agree on the leaf function
# and on the whole call chain of a sample.  Then names with source lines:
# perf script -F ...,srcline against tr-symbolize --lines.  At scale: about
# a million frame-pointer samples (BIG_ROUNDS, default 6000; 0 skips it).
# Finally the same workload recorded by tr-rec-perf, and memory against
# sample count (half and full dwarf recording).
#
# Needs perf, a built tree (make; make
# build/release/tests/sym-dump, or make bench-symbolize).
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TR_BIN:-$R/build/release/bin}
TB=${TR_TESTBIN:-$R/build/release/tests}
FREQ=${FREQ:-10000}
ROUNDS=${ROUNDS:-1800}
RUNS=${RUNS:-5}
MIN_SAMPLES=20000
export PATH="$BIN:$TB:$PATH"
unset DEBUGINFOD_URLS

command -v perf >/dev/null || { echo "bench: perf is not installed" >&2; exit 1; }
for t in tr-symbolize tr-cat tr-rec-perf tr-import-perf sym-dump; do
    command -v $t >/dev/null || { echo "bench: $t is not built (make bench-symbolize)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache  # tr-symbolize's DWARF cache: this run's own
cc -O2 -g -fno-omit-frame-pointer -o "$work/hot3-fp" "$R/tests/workloads/hot3.c"
cc -O2 -g -fomit-frame-pointer -o "$work/hot3-nofp" "$R/tests/workloads/hot3.c"

# measure CMD: "best median maxrss_kb" -- wall seconds of RUNS runs of a
# shell command (timed in this shell, microsecond clock), and its max RSS
# (largest process of it, from one more run under /usr/bin/time)
measure() {
    local i a b ts=()
    for i in $(seq "$RUNS"); do
        a=$EPOCHREALTIME
        eval "$1" >/dev/null 2>"$work/err" || { echo "bench: failed: $1" >&2; cat "$work/err" >&2; exit 1; }
        b=$EPOCHREALTIME
        ts+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b - a }')")
    done
    /usr/bin/time -f "%M" -o "$work/time" bash -c "$1" >/dev/null 2>/dev/null
    printf '%s\n' "${ts[@]}" | sort -g | awk -v rss="$(tail -1 "$work/time")" '
        { v[NR] = $1 } END { printf "%.4f %.4f %d\n", v[1], v[int((NR + 1) / 2)], rss }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }'; }
best() { echo "${1%% *}"; }
median() { local x=${1#* }; echo "${x%% *}"; }
mb() { echo $(( ${1##* } / 1024 )); }
ms() { awk -v s="$1" 'BEGIN { printf "%.1f", s * 1000 }'; }
# "12.3 ms (median 13.0) 25 MB"
show() { printf '%7s ms (median %7s) %4s MB' "$(ms "$(best "$1")")" "$(ms "$(median "$1")")" "$(mb "$1")"; }

echo "tr-symbolize against perf script on the same recordings (wall time best of $RUNS runs, max RSS)"
for mode in fp dwarf; do
    if [ $mode = fp ]; then prog=$work/hot3-fp popt=-g
    else prog=$work/hot3-nofp popt="--call-graph dwarf"; fi
    perf record -q -F "$FREQ" $popt -o "$work/$mode.data" "$prog" "$ROUNDS" >/dev/null 2>"$work/err" ||
        { cat "$work/err" >&2; exit 1; }
    tr-import-perf -q "$work/$mode.data" > "$work/$mode.tr"
    n=$(sym-dump "$work/$mode.tr" | wc -l)
    [ "$n" -ge $MIN_SAMPLES ] || echo "bench: only $n samples in mode $mode (fewer than $MIN_SAMPLES: raise ROUNDS)" >&2
    p=$(measure "perf script -i $work/$mode.data")
    k=$(measure "rm -rf $XDG_CACHE_HOME; tr-symbolize $work/$mode.tr")
    s=$(measure "tr-symbolize $work/$mode.tr")
    q=$(measure "tr-symbolize --no-inline $work/$mode.tr")
    c=$(measure "tr-symbolize $work/$mode.tr | tr-cat")
    # agreement: perf script's chains against ours, sample by sample
    # (perf names some frames by the function inlined there only, so chains are
    # compared from main down, without inline frames)
    perf script -i "$work/$mode.data" -F ip,sym 2>/dev/null | awk '
        /^$/ { if (n) print line; line = ""; n = 0; next }
        NF >= 2 && $3 != "(inlined)" { sub(/\+0x[0-9a-f]+$/, "", $2); line = n ? $2 ";" line : $2; n++ }
        END { if (n) print line }' | sed 's/.*;main;/main;/' > "$work/perf.chains"
    tr-symbolize "$work/$mode.tr" 2>/dev/null | sym-dump | awk -F';' '{
        out = ""; for (i = 1; i <= NF; i++) { if ($i ~ /\(inline\)$/) continue; f = $i; sub(/\[[kj]\]$/, "", f); out = out (out == "" ? "" : ";") f }
        print out }' | sed 's/.*;main;/main;/' > "$work/tr.chains"
    agree=$(paste -d'|' "$work/perf.chains" "$work/tr.chains" | awk -F'|' '
        { n++; a = $1; b = $2; la = a; sub(/.*;/, "", la); lb = b; sub(/.*;/, "", lb)
          if (la == lb) leaf++; if (a == b) chain++ }
        END { if (n) printf "%.2f%% / %.2f%%", 100 * leaf / n, 100 * chain / n }')
    r=$(ratio "$(best "$p")" "$(best "$s")")
    echo
    echo "mode $mode ($popt): $n samples, agreement with perf on leaf / whole chain: $agree"
    printf '  %-36s %s\n' "perf script" "$(show "$p")"
    printf '  %-36s %s  perf/tr %5sx (median %sx)\n' "tr-symbolize, cold DWARF cache" "$(show "$k")" \
        "$(ratio "$(best "$p")" "$(best "$k")")" "$(ratio "$(median "$p")" "$(median "$k")")"
    printf '  %-36s %s  perf/tr %5sx (median %sx)\n' "tr-symbolize (names + inline frames)" "$(show "$s")" \
        "$r" "$(ratio "$(median "$p")" "$(median "$s")")"
    printf '  %-36s %s  perf/tr %5sx (median %sx)\n' "tr-symbolize --no-inline (names)" "$(show "$q")" \
        "$(ratio "$(best "$p")" "$(best "$q")")" "$(ratio "$(median "$p")" "$(median "$q")")"
    printf '  %-36s %s  perf/tr %5sx\n' "tr-symbolize | tr-cat (text)" "$(show "$c")" \
        "$(ratio "$(best "$p")" "$(best "$c")")"
    printf '  %-36s %s\n' "goal perf/tr >= 10x (default options)" \
        "$(awk -v r="$r" 'BEGIN { print (r >= 10 ? "met" : "NOT met") }') (cache filled; cold: the first run per build-id)"
done
echo
echo "with source lines (fp recording): perf script -F ...,srcline against tr-symbolize --lines | tr-cat"
p=$(RUNS=1 measure "perf script -i $work/fp.data -F comm,tid,time,ip,sym,srcline")
c=$(measure "tr-symbolize --lines $work/fp.tr | tr-cat")
printf '  %-36s %s\n' "perf script -F ...,srcline (1 run)" "$(show "$p")"
printf '  %-36s %s  perf/tr %5sx\n' "tr-symbolize --lines | tr-cat" "$(show "$c")" "$(ratio "$(best "$p")" "$(best "$c")")"

if [ "${BIG_ROUNDS:-6000}" != 0 ]; then
    echo
    echo "at scale (fp, perf record -F 40000, BIG_ROUNDS=${BIG_ROUNDS:-6000}): per-sample costs dominate"
    perf record -q -F 40000 -g -o "$work/big.data" "$work/hot3-fp" "${BIG_ROUNDS:-6000}" >/dev/null 2>&1
    tr-import-perf -q "$work/big.data" > "$work/big.tr"
    n=$(sym-dump "$work/big.tr" | wc -l)
    p=$(RUNS=3 measure "perf script -i $work/big.data")
    s=$(RUNS=3 measure "tr-symbolize $work/big.tr")
    c=$(RUNS=3 measure "tr-symbolize $work/big.tr | tr-cat")
    echo "  $n samples:"
    printf '  %-36s %s\n' "perf script" "$(show "$p")"
    printf '  %-36s %s  perf/tr %5sx\n' "tr-symbolize" "$(show "$s")" "$(ratio "$(best "$p")" "$(best "$s")")"
    printf '  %-36s %s  perf/tr %5sx\n' "tr-symbolize | tr-cat" "$(show "$c")" "$(ratio "$(best "$p")" "$(best "$c")")"
    rm -f "$work/big.data" "$work/big.tr"
fi

echo
echo "tr-rec-perf recordings of the same workload (tr-symbolize --stats):"
for mode in fp dwarf; do
    if [ $mode = fp ]; then prog=$work/hot3-fp topt=-g
    else prog=$work/hot3-nofp topt="--call-graph dwarf"; fi
    tr-rec-perf -q -F "$FREQ" $topt -o "$work/rec-$mode.tr" "$prog" "$ROUNDS" >/dev/null 2>"$work/err" ||
        { echo "  $mode: tr-rec-perf failed: $(head -1 "$work/err")"; continue; }
    s=$(measure "tr-symbolize $work/rec-$mode.tr")
    st=$(tr-symbolize --stats "$work/rec-$mode.tr" 2>&1 >/dev/null | tail -1 | sed 's/^tr-symbolize: //')
    printf '  %-6s %s\n         %s\n' $mode "$(show "$s")" "$st"
done

echo
echo "memory against samples (dwarf: a perf recording of half the rounds, and the full one):"
half=$(( ROUNDS / 2 ))
perf record -q -F "$FREQ" --call-graph dwarf -o "$work/half.data" "$work/hot3-nofp" "$half" >/dev/null 2>&1
tr-import-perf -q "$work/half.data" > "$work/half.tr"
for f in half dwarf; do
    n=$(sym-dump "$work/$f.tr" | wc -l)
    s=$(RUNS=1 measure "tr-symbolize $work/$f.tr")
    p=$(RUNS=1 measure "perf script -i $work/$f.data")
    d=$(tr-symbolize --stats "$work/$f.tr" 2>&1 >/dev/null | sed -n 's/.*(\([0-9]*\) cache hits, \([0-9]*\) distinct).*/\2/p')
    printf '  %7s samples: tr-symbolize max RSS %4s MB (%s distinct addresses); perf script %4s MB\n' \
        "$n" "$(mb "$s")" "$d" "$(mb "$p")"
done
