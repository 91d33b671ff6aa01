/*
 * triage.h - a first look at a slow program from one trace (tr-triage):
 * the perf stat counters, the CPU and off-CPU profiles, the syscalls with
 * their errors and latencies, the run-queue latency, threads and memory,
 * the USE checklist and findings in plain words, each pointing at its
 * evidence.
 *
 * The trace is what tr-triage records (spec/tr-triage.md): streams of
 * tr-rec-perf (cpu-clock samples with stacks, sched:sched_switch and
 * sched:sched_wakeup with stacks; raw_syscalls:sys_enter/sys_exit without;
 * --stat counters) and tr-triage's own stream of metadata (its recorders'
 * CPU time, the target's memory, descriptors and threads as /proc showed
 * them).  Any of them may be missing: what is absent is reported absent.
 * Tasks named tr-rec-perf or tr-triage (the recorders) are left out.
 *
 *     struct triage *t = triage_new(&opts);
 *     status = triage_input(t, path);     CLI_EXIT_* status, warnings by cli_warn
 *     triage_text(t, stdout); or triage_json, triage_html
 *     triage_free(t);
 *
 * Like report.h it writes its warnings with cli_warn and its output to the
 * FILE given; it never exits.
 */
#ifndef TR_TRIAGE_H
#define TR_TRIAGE_H

#include <stdio.h>

/* tr-triage's own stream: metadata keys (spec/tr-triage.md) */
#define TRIAGE_META_TARGET "triage.target"           /* "command 'ls -l'", "process 12", "system" */
#define TRIAGE_META_WALL "triage.wall_ns"            /* the recording's wall time */
#define TRIAGE_META_REC_CPU "triage.recorders_cpu_ns" /* CPU time of the recorders */
#define TRIAGE_META_CMD_CPU "triage.command_cpu_ns"  /* of the command (-- CMD), from its rusage */
#define TRIAGE_META_RSS_FIRST "triage.rss_first_kb"   /* the target's resident memory, first seen */
#define TRIAGE_META_RSS_MAX "triage.rss_max_kb"       /* its peak (VmHWM, summed over processes) */
#define TRIAGE_META_MAPS_FIRST "triage.maps_first"    /* its memory mappings, first seen */
#define TRIAGE_META_MAPS_MAX "triage.maps_max"
#define TRIAGE_META_FDS_MAX "triage.fds_max"          /* open file descriptors, most seen */
#define TRIAGE_META_FDS_LIMIT "triage.fds_limit"      /* RLIMIT_NOFILE (soft) */
#define TRIAGE_META_THREADS_MAX "triage.threads_max"  /* threads, most seen at once */
#define TRIAGE_META_MEM_TOTAL "triage.mem_total_kb"   /* MemTotal */

struct triage_opts {
    int quiet;              /* no warnings from the symbolizer */
    int no_cache;
    const char *cache_dir;  /* NULL: the default */
};

struct triage;
struct triage *triage_new(const struct triage_opts *o);
void triage_free(struct triage *t);
/* Read a trace (NULL or "-": stdin) into t: a CLI_EXIT_* status. */
int triage_input(struct triage *t, const char *path);
/* The report: plain text for a terminal, one JSON object, or one
 * self-contained HTML page (inline style, script and flame graphs). */
void triage_text(struct triage *t, FILE *out);
void triage_json(struct triage *t, FILE *out);
void triage_html(struct triage *t, FILE *out);

#endif
