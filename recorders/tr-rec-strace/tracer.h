/*
 * tracer.h - the ptrace engine: start or attach, follow, record.
 */
#ifndef TR_STRACE_TRACER_H
#define TR_STRACE_TRACER_H

#include <stdint.h>
#include <sys/types.h>

#include "capture.h"
#include "filter.h"
#include "syscount.h"
#include "tr.h"

struct tracer_opts {
    int follow;           /* -f */
    int seccomp;          /* install the seccomp filter when the filter is restricted */
    int stacks;           /* -k */
    struct capture_opts cap;
    struct filter *filter;
    struct syscount *count; /* -c: the calls that returned are counted here */
};

struct tracer_result {
    uint64_t syscalls;    /* recorded */
    uint64_t processes;   /* distinct processes seen */
    int status;           /* wait status of the launched command, -1 none */
    int detached;         /* ended by a signal to the tracer (detached) */
};

/* Run cmd (argv[0] searched in PATH) under the tracer.  Returns 0, or -1
 * after printing an error (cli_warn). */
int tracer_run_command(tr_writer *w, const struct tracer_opts *o, char **argv,
                       struct tracer_result *res);
/* Attach to the processes pids[0..n) (all their threads) until they exit or
 * the tracer gets SIGINT/SIGTERM/SIGHUP, then detach. */
int tracer_attach(tr_writer *w, const struct tracer_opts *o, const pid_t *pids, size_t n,
                  struct tracer_result *res);

#endif
