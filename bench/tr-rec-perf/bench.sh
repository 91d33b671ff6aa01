#!/bin/bash
# bench/tr-rec-perf/bench.sh - tr-rec-perf against Debian's `perf record` / `perf stat`, side by side in
# one run, same workload (tests/workloads/hot3), same event (cpu-clock) and frequency.
#
#   bash bench/tr-rec-perf/bench.sh [ROUNDS] [REPEATS]      (default 1000 rounds, 5 repeats)
#
# Prints, per mode (fp = -g, dwarf = --call-graph dwarf):
#   slowdown      the workload's own run time under the recorder / bare (hot3 reports it; goal <= perf's)
#   bytes/sample  output bytes / samples (perf.data written with -o, trace written with -o)
#   cpu/sample    recorder's own CPU time (user+sys of the recorder minus the workload's) / samples
# and start/stop: the wall time of `RECORDER -- true` (what a user waits for around a tiny command).
# Medians of REPEATS runs.  Needs: perf, a built tree (make), root or perf_event_paranoid <= 1.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$ROOT/build/release}
TRP=$B/bin/tr-rec-perf
TRCAT=$B/bin/tr-cat
WL=$B/workloads/hot3-fp
WLN=$B/workloads/hot3-nofp
ROUNDS=${1:-1000}
REPS=${2:-5}
FREQ=999
command -v perf >/dev/null || { echo "bench: perf is not installed" >&2; exit 1; }
[ -x "$TRP" ] && [ -x "$WL" ] || { echo "bench: build first (make)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

measure() { # prints "wall cpu workload" for the command (cpu = user+sys of it and all its children;
             # workload = the run time hot3 reports for itself, 0 for other commands)
    HOT3_REPORT=1 python3 - "$@" <<'PY'
import os, re, resource, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
t1 = time.monotonic()
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
m = re.search(rb"hot3: elapsed ([0-9.]+) s", p.stderr)
print(f"{t1 - t0:.6f} {ru.ru_utime + ru.ru_stime:.6f} {float(m.group(1)) if m else 0:.6f}")
PY
}

samples_tr() { "$TRCAT" -i "$1" | awk '$1 == "sample" {print $2}'; }
samples_perf() { perf script -i "$1" -F period 2>/dev/null | wc -l; }

st_tr=(); st_perf=()
for i in $(seq "$REPS"); do
    read -r w c < <(measure "$TRP" -q -o "$tmp/t.tr" -- true); st_tr+=("$w")
    read -r w c < <(measure perf record -q -o "$tmp/p.data" -- true); st_perf+=("$w")
done
S_TR=$(printf '%s\n' "${st_tr[@]}" | median); S_PERF=$(printf '%s\n' "${st_perf[@]}" | median)

# Interleaved: each repetition runs bare, then every tool and mode once, so that load changes on the
# machine hit all of them alike.
declare -A W C N Z
bare_wall=(); bare_cpu=()
for i in $(seq "$REPS"); do
    read -r x c e < <(measure "$WL" "$ROUNDS"); bare_wall+=("$e"); bare_cpu+=("$c")
    for mode in fp dwarf; do
        if [ $mode = fp ]; then flag=(-g); wl=$WL; else flag=(--call-graph dwarf); wl=$WLN; fi
        for tool in tr perf; do
            out=$tmp/$tool.$mode
            rm -f "$out"
            if [ $tool = tr ]; then
                read -r x c w < <(measure "$TRP" -q -e cpu-clock -F $FREQ "${flag[@]}" -o "$out" -- "$wl" "$ROUNDS")
                n=$(samples_tr "$out")
            else
                read -r x c w < <(measure perf record -q -e cpu-clock -F $FREQ "${flag[@]}" -o "$out" -- "$wl" "$ROUNDS")
                n=$(samples_perf "$out")
            fi
            [ "${n:-0}" -gt 0 ] || n=1
            W[$tool.$mode]+="$w "; C[$tool.$mode]+="$c "; N[$tool.$mode]+="$n "
            Z[$tool.$mode]+="$(stat -c %s "$out") "
        done
    done
done
BW=$(printf '%s\n' "${bare_wall[@]}" | median); BC=$(printf '%s\n' "${bare_cpu[@]}" | median)
printf 'workload: %s %s (%.3f s bare, cpu-clock at %d Hz, median of %d)\n\n' "$(basename "$WL")" "$ROUNDS" "$BW" "$FREQ" "$REPS"

declare -A R
for k in tr.fp perf.fp tr.dwarf perf.dwarf; do
    w=(${W[$k]}); c=(${C[$k]}); n=(${N[$k]}); z=(${Z[$k]})
    # the workload's slowdown: its own run time (hot3 measures it) under the recorder / bare
    R[$k.slow]=$(echo "$(printf '%s\n' "${w[@]}" | median) / $BW" | bc -l)
    R[$k.bps]=$(for j in "${!z[@]}"; do echo "${z[$j]} / ${n[$j]}" | bc -l; done | median)
    # recorder cpu = everything minus the workload's own cpu when run bare
    R[$k.cps]=$(for j in "${!c[@]}"; do echo "(${c[$j]} - $BC) / ${n[$j]} * 1000000" | bc -l; done | median)
done

stat_tr=(); stat_perf=()
for i in $(seq "$REPS"); do
    read -r w c < <(measure "$TRP" --stat -o "$tmp/s.tr" -- "$WL" 50); stat_tr+=("$w")
    read -r w c < <(measure perf stat -o "$tmp/s.txt" -- "$WL" 50); stat_perf+=("$w")
done
ST_TR=$(printf '%s\n' "${stat_tr[@]}" | median); ST_PERF=$(printf '%s\n' "${stat_perf[@]}" | median)

printf '%-28s %14s %14s %10s\n' "" "tr-rec-perf" "perf" "tr/perf"
for mode in fp dwarf; do
    printf '%-28s %14.3f %14.3f %10.2f\n' "slowdown ($mode)" "${R[tr.$mode.slow]}" "${R[perf.$mode.slow]}" \
        "$(echo "${R[tr.$mode.slow]} / ${R[perf.$mode.slow]}" | bc -l)"
    printf '%-28s %14.1f %14.1f %10.3f\n' "bytes/sample ($mode)" "${R[tr.$mode.bps]}" "${R[perf.$mode.bps]}" \
        "$(echo "${R[tr.$mode.bps]} / ${R[perf.$mode.bps]}" | bc -l)"
    printf '%-28s %14.1f %14.1f %10.2f\n' "recorder cpu us/sample ($mode)" "${R[tr.$mode.cps]}" "${R[perf.$mode.cps]}" \
        "$(echo "${R[tr.$mode.cps]} / ${R[perf.$mode.cps]}" | bc -l)"
done
printf '%-28s %14.4f %14.4f %10.2f\n' "start+stop, s (-- true)" "$S_TR" "$S_PERF" "$(echo "$S_TR / $S_PERF" | bc -l)"
printf '%-28s %14.4f %14.4f %10.2f\n' "stat wall, s (hot3 50)" "$ST_TR" "$ST_PERF" "$(echo "$ST_TR / $ST_PERF" | bc -l)"
