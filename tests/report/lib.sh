# lib.sh - sourced by tr-report's cases that record.
# a skip only when the kernel has no perf events at all (read from /proc, not from a recorder)
need_perf_events() {
    [ -e /proc/sys/kernel/perf_event_paranoid ] ||
        { echo "SKIP: the kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)"; exit 77; }
}
shares() { cc -O0 -g -fno-omit-frame-pointer -o shares "$TR_ROOT/tests/report/data/shares.c"; }
# recorded CMD...: run a recorder, its messages shown when it fails
recorded() {
    "$@" > /dev/null 2> rec.err && return 0
    cat rec.err >&2
    exit 1
}
# napper: sleeps 10 ms 20 times (200 ms off the CPU), computing 2 ms after each sleep
napper() {
    cat > napper.c <<'C'
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(void)
{
    for (int i = 0; i < 20; i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, 0);
        double end = now() + 0.002;
        while (now() < end) {}
    }
    return 0;
}
C
    cc -O2 -g -fno-omit-frame-pointer -o napper napper.c
}
