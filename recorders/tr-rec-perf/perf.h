/*
 * perf.h - tr-rec-perf's options and its two modes: sampling (record.c)
 * and counting (stat.c).  Targets (a command, -p, -t, -a) live in target.c.
 */
#ifndef TRP_PERF_H
#define TRP_PERF_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"

#define PERF_MAX_EVENTS 1024 /* syscalls:sys_enter_* is some 350 */
#define PERF_MAX_PIDS 64

enum { CG_NONE = 0, CG_FP = 1, CG_DWARF = 2 };

struct perf_opts {
    struct perf_ev evs[PERF_MAX_EVENTS];
    int nevs;               /* 0: the default (cycles, else cpu-clock) */
    uint64_t freq;          /* -F; 0 when -c */
    uint64_t period;        /* -c */
    int callgraph;          /* CG_* */
    uint32_t dwarf_size;    /* bytes of user stack per sample (dwarf) */
    const char *output;     /* -o; NULL: stdout, or trace.tr on a terminal */
    pid_t pids[PERF_MAX_PIDS]; /* -p (processes) */
    int npids;
    pid_t tids[PERF_MAX_PIDS]; /* -t (threads only) */
    int ntids;
    int system_wide;        /* -a */
    uint64_t duration_ns;   /* -d: record for this long (with -p, -t or -a) */
    size_t mmap_pages;      /* -m: data pages per ring (power of two) */
    int no_inherit;         /* -i */
    int quiet;              /* -q: no end line, no notes */
    /* counting */
    int stat;               /* --stat */
    unsigned repeat;        /* -r */
    uint64_t interval_ms;   /* -I */
    int detailed;           /* --stat -d: perf stat -d's events besides the default ones */
    int per_thread;         /* --stat --per-thread: a count per thread (-p, -t, -a) */
    /* the command and the recorder's own command line */
    char **cmd;
    int cmd_argc;
    int argc;
    char **argv;
};

/* A command given with -p, -t or -a only times the recording (perf's
 * "-p PID -- sleep 5"): it is not itself recorded. */
static inline int perf_cmd_is_timer(const struct perf_opts *o)
{
    return o->cmd_argc > 0 && (o->system_wide || o->npids || o->ntids);
}

/* Sampling and counting; both return the exit status. */
int perf_record(struct perf_opts *o);
int perf_stat(struct perf_opts *o);

/* --- targets (target.c) --- */
struct perf_child {
    pid_t pid;
    int go_fd;   /* write a byte to let the child exec */
    int err_fd;  /* reads errno if exec failed, EOF on success */
};
/* Fork the command stopped before exec; its stdout goes to stderr when
 * stdout_to_stderr.  Signals in block_mask are unblocked in the child. */
int target_fork(struct perf_child *c, char **argv, int stdout_to_stderr, const sigset_t *unblock);
/* Let the child exec; 0, or the errno of a failed exec (the child exits 127). */
int target_go(struct perf_child *c);
/* Threads of pid from /proc/PID/task; returns the count (<= max), -1 if gone. */
int target_threads(pid_t pid, pid_t *tids, int max);
/* Whether a -p process or -t thread is still there (zombies included). */
int target_alive(const struct perf_opts *o);
/* Online CPU numbers; returns the count. */
int target_cpus(int *cpus, int max);
/* Parse "1,2,3" into pids; returns the count or -1. */
int target_parse_pids(const char *s, pid_t *pids, int max);
/* "cmd arg arg" joined with spaces into buf. */
void target_join(char *buf, size_t len, char **argv, int argc);
/* "command", "pid", "tid" or "system": the meta key "target". */
const char *perf_target_kind(const struct perf_opts *o);
/* The thread group (process) of a thread, or tid itself when unknown. */
pid_t target_tgid(pid_t tid);
/* Wait status to a shell-style exit code (128+signal). */
int target_exit_code(int status);

#endif
