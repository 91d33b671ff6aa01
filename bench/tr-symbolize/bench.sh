#!/bin/bash
# bench/tr-symbolize/bench.sh - tr-symbolize side by side with `perf script`
# on the very same recordings.
#
# Workload: hot3 (tests/workloads/hot3.c) built with frame pointers and with
# -fomit-frame-pointer, recorded by Debian's perf at FREQ Hz (default 10000)
# with -g and with --call-graph dwarf; ROUNDS (default 1800) gives about
# 25,000 samples each.  perfdata2tr turns each perf.data into a tr trace
# holding the same samples, registers and stack copies, so both tools
# resolve the same data.  Measured per mode (best of RUNS, default 3):
#   perf script                      (symbolize + text)
#   tr-symbolize                     (symbolize + unwind, binary trace out)
#   tr-symbolize | tr-cat            (text, like perf script)
# wall time, max RSS, and the ratio perf/tr; then how often the two agree on
# the leaf function and on the whole call chain of a sample.  Then names
# with source lines: perf script -F ...,srcline against tr-symbolize --lines.  Finally the
# same workload recorded by tr-rec-perf, symbolized, and memory against
# sample count (half and full recording).  At scale: about a million
# frame-pointer samples (BIG_ROUNDS, default 6000; 0 skips it).
#
# Needs perf, a built tree (make; make build/release/tests/perfdata2tr
# build/release/tests/sym-dump, or make bench-symbolize).
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TR_BIN:-$R/build/release/bin}
TB=${TR_TESTBIN:-$R/build/release/tests}
FREQ=${FREQ:-10000}
ROUNDS=${ROUNDS:-1800}
RUNS=${RUNS:-3}
export PATH="$BIN:$TB:$PATH"
unset DEBUGINFOD_URLS

command -v perf >/dev/null || { echo "bench: perf is not installed" >&2; exit 1; }
for t in tr-symbolize tr-cat tr-rec-perf perfdata2tr sym-dump; do
    command -v $t >/dev/null || { echo "bench: $t is not built (make bench-symbolize)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -g -fno-omit-frame-pointer -o "$work/hot3-fp" "$R/tests/workloads/hot3.c"
cc -O2 -g -fomit-frame-pointer -o "$work/hot3-nofp" "$R/tests/workloads/hot3.c"

# best TIME and its RSS over RUNS runs of a shell command: "seconds maxrss_kb"
measure() {
    local best="" i
    for i in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -o "$work/time" bash -c "$1" >/dev/null 2>"$work/err" || {
            echo "bench: failed: $1" >&2; cat "$work/err" >&2; exit 1; }
        local t; t=$(cat "$work/time")
        if [ -z "$best" ] || awk -v a="${t% *}" -v b="${best% *}" 'BEGIN { exit !(a < b) }'; then best=$t; fi
    done
    echo "$best"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }'; }

printf '%-6s %7s | %-16s | %-16s | %-16s | %9s %9s | %s\n' mode samples "perf script" "tr-symbolize" "tr-sym | tr-cat" "perf/sym" "perf/text" "agreement leaf / chain"
for mode in fp dwarf; do
    if [ $mode = fp ]; then prog=$work/hot3-fp popt=-g
    else prog=$work/hot3-nofp popt="--call-graph dwarf"; fi
    perf record -q -F "$FREQ" $popt -o "$work/$mode.data" "$prog" "$ROUNDS" >/dev/null 2>"$work/err" ||
        { cat "$work/err" >&2; exit 1; }
    perfdata2tr "$work/$mode.data" > "$work/$mode.tr"
    n=$(sym-dump "$work/$mode.tr" | wc -l)
    p=$(measure "perf script -i $work/$mode.data")
    s=$(measure "tr-symbolize $work/$mode.tr")
    c=$(measure "tr-symbolize $work/$mode.tr | tr-cat")
    # agreement: perf script's chains against ours, sample by sample
    # (perf names some frames by the function inlined there only, so chains are
    # compared from main down, without inline frames)
    perf script -i "$work/$mode.data" -F ip,sym 2>/dev/null | awk '
        /^$/ { if (n) print line; line = ""; n = 0; next }
        NF >= 2 && $3 != "(inlined)" { sub(/\+0x[0-9a-f]+$/, "", $2); line = n ? $2 ";" line : $2; n++ }
        END { if (n) print line }' | sed 's/.*;main;/main;/' > "$work/perf.chains"
    tr-symbolize "$work/$mode.tr" | sym-dump | awk -F';' '{
        out = ""; for (i = 1; i <= NF; i++) { if ($i ~ /\(inline\)$/) continue; f = $i; sub(/\[[kj]\]$/, "", f); out = out (out == "" ? "" : ";") f }
        print out }' | sed 's/.*;main;/main;/' > "$work/tr.chains"
    agree=$(paste -d'|' "$work/perf.chains" "$work/tr.chains" | awk -F'|' '
        { n++; a = $1; b = $2; la = a; sub(/.*;/, "", la); lb = b; sub(/.*;/, "", lb)
          if (la == lb) leaf++; if (a == b) chain++ }
        END { if (n) printf "%.1f%% / %.1f%%", 100 * leaf / n, 100 * chain / n }')
    printf '%-6s %7s | %6ss %6sMB | %6ss %6sMB | %6ss %6sMB | %8sx %8sx | %s\n' $mode "$n" \
        "${p% *}" $(( ${p#* } / 1024 )) "${s% *}" $(( ${s#* } / 1024 )) "${c% *}" $(( ${c#* } / 1024 )) \
        "$(ratio "${p% *}" "${s% *}")" "$(ratio "${p% *}" "${c% *}")" "$agree"
done

echo
echo "with source lines (fp recording): perf script -F ip,sym,srcline against tr-symbolize --lines | tr-cat"
p=$(RUNS=1 measure "perf script -i $work/fp.data -F comm,tid,time,ip,sym,srcline")
c=$(measure "tr-symbolize --lines $work/fp.tr | tr-cat")
printf '  perf script %6ss %6sMB | tr-symbolize --lines | tr-cat %6ss %6sMB | ratio %sx\n' \
    "${p% *}" $(( ${p#* } / 1024 )) "${c% *}" $(( ${c#* } / 1024 )) "$(ratio "${p% *}" "${c% *}")"

if [ "${BIG_ROUNDS:-6000}" != 0 ]; then
    echo
    echo "at scale (fp, perf record -F 40000, BIG_ROUNDS=${BIG_ROUNDS:-6000}): per-sample costs dominate"
    perf record -q -F 40000 -g -o "$work/big.data" "$work/hot3-fp" "${BIG_ROUNDS:-6000}" >/dev/null 2>&1
    perfdata2tr "$work/big.data" > "$work/big.tr"
    n=$(sym-dump "$work/big.tr" | wc -l)
    p=$(measure "perf script -i $work/big.data")
    s=$(measure "tr-symbolize $work/big.tr")
    c=$(measure "tr-symbolize $work/big.tr | tr-cat")
    printf '  %7s samples: perf script %6ss %6sMB | tr-symbolize %6ss %6sMB (%sx), piped to tr-cat %6ss (%sx)\n' "$n" \
        "${p% *}" $(( ${p#* } / 1024 )) "${s% *}" $(( ${s#* } / 1024 )) "$(ratio "${p% *}" "${s% *}")" \
        "${c% *}" "$(ratio "${p% *}" "${c% *}")"
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
    printf '  %-6s %6ss %6sMB  %s\n' $mode "${s% *}" $(( ${s#* } / 1024 )) "$st"
done

echo
echo "memory against samples (dwarf: a perf recording of half the rounds, and the full one):"
half=$(( ROUNDS / 2 ))
perf record -q -F "$FREQ" --call-graph dwarf -o "$work/half.data" "$work/hot3-nofp" "$half" >/dev/null 2>&1
perfdata2tr "$work/half.data" > "$work/half.tr"
for f in half dwarf; do
    n=$(sym-dump "$work/$f.tr" | wc -l)
    s=$(measure "tr-symbolize $work/$f.tr")
    d=$(tr-symbolize --stats "$work/$f.tr" 2>&1 >/dev/null | sed -n 's/.*(\([0-9]*\) cache hits, \([0-9]*\) distinct).*/\2/p')
    printf '  %7s samples: max RSS %6s MB, %s distinct addresses\n' "$n" $(( ${s#* } / 1024 )) "$d"
done
