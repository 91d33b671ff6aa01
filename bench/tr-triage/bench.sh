#!/bin/bash
# bench/tr-triage/bench.sh - what tr-triage costs the program it watches.
#
# Workloads: tests/triage/workload.c, each with one known behaviour: cpu (burn_cpu, 0.4 s of
# CPU), lock (4 threads on one mutex), sleep (30 x 10 ms), enoent (N opens of missing files,
# default 100,000: a syscall storm).  Each runs RUNS (default 3) times alternated:
#   plain:      ./wl W                                  its wall time
#   tr-triage:  tr-triage -q --json ./wl W              the command's own run time as the
#               counting recorder measured it (duration_time), and tr-triage's wall time in all
#               (recorders started and stopped, trace joined, report written)
# and the command's CPU time (task-clock: what the kernel does for the recorders in the
# command's context counts there, and a loaded machine's waits do not) under
#   tr-rec-perf --stat ./wl W  against  tr-triage ./wl W
# and, for the syscall recording alone on enoent, the whole wall time of
#   tr-rec-perf -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit ./wl enoent N   (tr-triage's)
#   tr-rec-strace ./wl enoent N                                                     (ptrace)
# Medians; ratios against plain (1.00: no slowdown).  The load of the machine is printed first:
# wall times on a shared machine are noisy, CPU times less so.
#   RUNS=3 ENOENT=100000 bash bench/tr-triage/bench.sh
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TR_BIN:-$R/build/release/bin}
RUNS=${RUNS:-3}
N=${ENOENT:-100000}
export PATH="$BIN:$PATH"
unset DEBUGINFOD_URLS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
cd "$work"
cc -O1 -g -fno-omit-frame-pointer -pthread -o wl "$R/tests/triage/workload.c"
now() { date +%s.%N; }
# wall CMD...: seconds CMD took
wall() { local a b; a=$(now); "$@" >/dev/null 2>&1; b=$(now); awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f\n", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.4f", v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $RUNS runs each, medians"
printf "%-8s %10s %12s %7s %14s %7s %11s %11s %7s\n" workload "plain s" "traced s" ratio "tr-triage s" ratio \
    "CPU ms" "traced ms" ratio
for w in cpu lock sleep "enoent $N"; do
    p=() c=() t=() u=() v=()
    for i in $(seq "$RUNS"); do
        p+=("$(wall ./wl $w)")
        u+=("$(tr-rec-perf -q --stat -o u.tr ./wl $w 2>&1 >/dev/null | awk '/task-clock/ { print $1; exit }')")
        a=$(now)
        tr-triage -q -o t.tr --json ./wl $w > t.json 2>/dev/null
        b=$(now)
        t+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f\n", b - a }')")
        c+=("$(jq '.run_ns / 1e9' t.json)")
        v+=("$(jq '.counters[] | select(.event == "task-clock") | .value / 1e6' t.json)")
    done
    pm=$(printf '%s\n' "${p[@]}" | median) cm=$(printf '%s\n' "${c[@]}" | median) tm=$(printf '%s\n' "${t[@]}" | median)
    um=$(printf '%s\n' "${u[@]}" | median) vm=$(printf '%s\n' "${v[@]}" | median)
    printf "%-8s %10s %12s %7s %14s %7s %11.1f %11.1f %7s\n" "${w%% *}" "$pm" "$cm" "$(ratio "$cm" "$pm")" "$tm" \
        "$(ratio "$tm" "$pm")" "$um" "$vm" "$(ratio "$vm" "$um")"
done
p=() s=() q=()
for i in $(seq "$RUNS"); do
    p+=("$(wall ./wl enoent "$N")")
    s+=("$(wall tr-rec-perf -q -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -o s.tr ./wl enoent "$N")")
    q+=("$(wall tr-rec-strace -o q.tr ./wl enoent "$N")")
done
pm=$(printf '%s\n' "${p[@]}" | median) sm=$(printf '%s\n' "${s[@]}" | median) qm=$(printf '%s\n' "${q[@]}" | median)
echo "syscall recording, enoent $N (wall, median of $RUNS): plain $pm s, raw_syscalls tracepoints $sm s ($(ratio "$sm" "$pm")x), tr-rec-strace $qm s ($(ratio "$qm" "$pm")x); strace/tracepoints $(ratio "$qm" "$sm")x"
