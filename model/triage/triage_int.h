/* triage_int.h - what triage.c (the analysis) and render.c (the report) share. */
#ifndef TR_TRIAGE_INT_H
#define TR_TRIAGE_INT_H

#include <stdint.h>

#include "triage.h"

#include "counters.h"
#include "hashmap.h"
#include "lathist.h"
#include "offcpu.h"
#include "smap.h"
#include "symbolize/symbolize.h"
#include "tpformat.h"
#include "tr.h"

#define TRIAGE_NERRNO 4

/* One syscall's calls, errors (all, and by errno for the first TRIAGE_NERRNO
 * errnos met) and latencies. */
struct tsys {
    uint32_t nr;
    char name[32];
    uint64_t calls, errors, ns;
    int err[TRIAGE_NERRNO];
    uint64_t errn[TRIAGE_NERRNO];
    struct lathist lat;
};

/* A target thread: its lifetime in the trace, its place in the scheduler
 * (run-queue latency) and its syscall under way. */
struct tthread {
    int32_t tid;
    uint64_t first, last;
    int running;
    uint64_t ready;            /* runnable since (woken, preempted), 0 none */
    int64_t enter_nr;          /* sys_enter seen, -1 none */
    uint64_t enter_time;
};

struct triage {
    struct triage_opts o;
    unsigned streams;
    uint64_t lost;
    int ncpus;
    /* counters (perf stat) */
    struct counters cnt;
    int have_counters;
    /* CPU: folded stacks of cpu-clock samples, counted */
    struct smap cpu;
    uint64_t cpu_samples, cpu_ns;
    /* off-CPU: folded stacks and "SYSCALL\tFUNCTION" blames, in ns */
    struct smap off, blame;
    uint64_t off_ns;
    /* syscalls */
    struct tsys *sys;
    size_t nsys, capsys;
    /* threads and the run queue */
    struct tthread *th;
    size_t nth, capth;
    hashmap thmap;             /* tid -> thread + 1 */
    uint64_t thread_ns;        /* the threads' lifetimes summed */
    size_t threads;            /* threads seen running */
    struct lathist runq;
    uint64_t first, last;      /* the target's first and last record */
    /* tr-triage's stream */
    char target[256];
    uint64_t wall_ns, rec_cpu, cmd_cpu, rss_first, rss_max, maps_first, maps_max, fds_max, fds_limit,
        threads_max, mem_total;
    int have_wall_ns, have_rec_cpu, have_cmd_cpu, have_rss_first, have_rss_max, have_maps_first,
        have_maps_max, have_fds_max, have_fds_limit, have_threads_max, have_mem_total;
};

#endif
