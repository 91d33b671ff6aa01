#!/bin/bash
# bench/tr-rec-ftrace/bench.sh [CALLS] - tr-rec-ftrace side by side with trace-cmd record.
#
# Workload: ftwork storm CALLS RATE (tests/ftrace/ftwork.c): getppid() in a loop, paced to RATE
# calls per second (0 = flat out); recorded events: syscalls:sys_enter_getppid and
# sys_exit_getppid of that process only (tr-rec-ftrace -- CMD, trace-cmd record -F CMD), so
# 2 * CALLS events are expected.  Both get the same per-CPU buffer (BUF KiB, default the
# kernel's 1410).  Measured per rate: events captured (and lost), events per second of the
# workload's run, bytes per event in the output file, recorder CPU time (user+sys of the
# recorder and its helpers minus the workload's own).  Then the cost of getting text:
# `tr-rec-ftrace | tr-cat` against `trace-cmd record` followed by `trace-cmd report`.
#
# Needs root, tracefs, trace-cmd, unshare, and a built tree (`make`).  trace-cmd cannot open
# the function-tracer files on a kernel that refuses the function tracer, so it runs in a
# private mount namespace with those files replaced by /dev/null; it works on the top-level
# buffer and leaves settings behind (buffer_size_kb, tracing_on): this script puts them back
# after every trace-cmd run and checks the top-level state at the end.
set -u
R=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${TR_BIN:-$R/build/release/bin}
W=${FTWORK:-$R/build/release/tests/ftwork}
CALLS=${1:-1000000}
BUF=${BUF:-1410}
RATES=${RATES:-"250000 500000 1000000 0"}
T=/sys/kernel/tracing
EV="-e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid"

[ "$(id -u)" = 0 ] || { echo "bench: needs root" >&2; exit 1; }
command -v trace-cmd >/dev/null || { echo "bench: trace-cmd is not installed" >&2; exit 1; }
[ -x "$BIN/tr-rec-ftrace" ] && [ -x "$W" ] ||
    { echo "bench: run make build/release/bin/tr-rec-ftrace build/release/tests/ftwork first" >&2; exit 1; }
"$BIN/tr-rec-ftrace" -l 'syscalls:sys_enter_getppid' | grep -q . || exit 1

work=$(mktemp -d)
TR_ROOT=$R TR_TESTBIN=$(dirname "$W")
. "$R/tests/ftrace/lib.sh"
tracing_state > "$work/state.before"
saved_on=$(cat $T/tracing_on) saved_kb=$(cat $T/buffer_size_kb) saved_clock=$(sed 's/.*\[\(.*\)\].*/\1/' $T/trace_clock)
saved_fork=$(cat $T/options/event-fork) saved_events=$(cat $T/set_event)
restore() {
    echo "$saved_kb" > $T/buffer_size_kb
    echo "$saved_clock" > $T/trace_clock
    echo "$saved_fork" > $T/options/event-fork
    : > $T/set_event_pid
    [ -z "$saved_events" ] && : > $T/set_event
    echo "$saved_on" > $T/tracing_on
}
trap 'restore; rm -rf "$work"' EXIT

cat > "$work/tcwrap.sh" <<'EOF'
#!/bin/sh
T=/sys/kernel/tracing
for f in set_ftrace_filter set_ftrace_notrace set_graph_function set_graph_notrace set_ftrace_pid set_ftrace_notrace_pid; do
    [ -e $T/$f ] && mount --bind /dev/null $T/$f
done
exec "$@"
EOF
chmod +x "$work/tcwrap.sh"

# time_of CMD...: runs CMD under /usr/bin/time; sets WALL (s), CPU (s, with children)
time_of() {
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$@"
    read -r WALL u s < "$work/time"
    CPU=$(echo "$u + $s" | bc -l)
}
# workload's own CPU seconds and run time from its stderr line
work_of() {
    read -r _ wu ws wwall < <(grep '^ftwork-cpu-us' "$1" | tail -1)
    WCPU=$(echo "($wu + $ws) / 1000000" | bc -l)
    WRUN=$(echo "$wwall / 1000000" | bc -l)
}

run_tr() { # rate
    rm -f "$work/t.tr"
    time_of "$BIN/tr-rec-ftrace" -q -b "$BUF" -o "$work/t.tr" $EV -- env FTWORK_RUSAGE=1 "$W" storm "$CALLS" "$1" 2> "$work/err"
    work_of "$work/err"
    GOT=$("$BIN/tr-cat" --summary "$work/t.tr" | awk '$2 == "total" { print $1; exit }')
    BYTES=$(stat -c %s "$work/t.tr")
}

run_tc() { # rate
    rm -f "$work/t.dat"
    time_of unshare -m "$work/tcwrap.sh" trace-cmd record -q -d -b "$BUF" -o "$work/t.dat" $EV \
        -F env FTWORK_RUSAGE=1 "$W" storm "$CALLS" "$1" > /dev/null 2> "$work/err"
    restore
    work_of "$work/err"
    GOT=$(trace-cmd report -i "$work/t.dat" 2>/dev/null | grep -c 'sys_e[a-z]*_getppid')
    BYTES=$(stat -c %s "$work/t.dat")
}

ratio() { [ "$(echo "$2 == 0" | bc)" = 1 ] && echo "-" || printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }

want=$((2 * CALLS))
echo "# sys_enter/sys_exit_getppid storm: $CALLS calls ($want events) per run, buffer ${BUF} KiB/CPU, $(nproc) CPUs"
printf '%-9s %-14s %10s %8s %12s %9s %10s\n' rate tool captured lost events/s bytes/ev rec-cpu-s
for rate in $RATES; do
    label=$([ "$rate" = 0 ] && echo max || echo "$rate/s")
    run_tr "$rate"; tr_got=$GOT tr_bytes=$BYTES tr_cpu=$(echo "$CPU - $WCPU" | bc -l) tr_run=$WRUN
    run_tc "$rate"; tc_got=$GOT tc_bytes=$BYTES tc_cpu=$(echo "$CPU - $WCPU" | bc -l) tc_run=$WRUN
    for t in tr tc; do
        eval "got=\$${t}_got bytes=\$${t}_bytes cpu=\$${t}_cpu run=\$${t}_run"
        name=$([ $t = tr ] && echo tr-rec-ftrace || echo trace-cmd)
        printf '%-9s %-14s %10d %8d %12.0f %9.2f %10.3f\n' "$label" "$name" "$got" $((want - got)) \
            "$(echo "$got / $run" | bc -l)" "$(echo "$bytes / ($got + ($got == 0))" | bc -l)" "$cpu"
    done
    tr_bpe=$(echo "$tr_bytes / ($tr_got + ($tr_got == 0))" | bc -l) tc_bpe=$(echo "$tc_bytes / ($tc_got + ($tc_got == 0))" | bc -l)
    echo "  ratios tr/trace-cmd: captured $(ratio "$tr_got" "$tc_got"), bytes/event $(ratio "$tr_bpe" "$tc_bpe"), recorder cpu $(ratio "$tr_cpu" "$tc_cpu")"
done

echo
echo "# text pipeline, max rate: tr-rec-ftrace | tr-cat  vs  trace-cmd record; trace-cmd report"
time_of bash -c "'$BIN/tr-rec-ftrace' -q -b $BUF $EV -- env FTWORK_RUSAGE=1 '$W' storm $CALLS 2> '$work/err' | '$BIN/tr-cat' > '$work/tr.txt'"
work_of "$work/err"; p_tr_wall=$WALL p_tr_cpu=$(echo "$CPU - $WCPU" | bc -l)
p_tr_lines=$(grep -c 'sys_e[a-z]*_getppid:' "$work/tr.txt")
time_of bash -c "unshare -m '$work/tcwrap.sh' trace-cmd record -q -d -b $BUF -o '$work/p.dat' $EV -F env FTWORK_RUSAGE=1 '$W' storm $CALLS > /dev/null 2> '$work/err'; trace-cmd report -i '$work/p.dat' > '$work/tc.txt' 2>/dev/null"
restore
work_of "$work/err"; p_tc_wall=$WALL p_tc_cpu=$(echo "$CPU - $WCPU" | bc -l)
p_tc_lines=$(grep -c 'sys_e[a-z]*_getppid:' "$work/tc.txt")
printf '%-34s %10s %10s %10s\n' pipeline lines wall-s cpu-s
printf '%-34s %10d %10.2f %10.2f\n' "tr-rec-ftrace | tr-cat" "$p_tr_lines" "$p_tr_wall" "$p_tr_cpu"
printf '%-34s %10d %10.2f %10.2f\n' "trace-cmd record + trace-cmd report" "$p_tc_lines" "$p_tc_wall" "$p_tc_cpu"
echo "  ratios tr/trace-cmd: wall $(ratio "$p_tr_wall" "$p_tc_wall"), cpu $(ratio "$p_tr_cpu" "$p_tc_cpu")"

restore
tracing_state > "$work/state.after"
if cmp -s "$work/state.before" "$work/state.after"; then
    echo "# top-level tracing state: restored"
else
    echo "# top-level tracing state: DIFFERS after trace-cmd runs:"; diff "$work/state.before" "$work/state.after" | head
fi
