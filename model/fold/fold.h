/*
 * fold.h - tr-fold's engine, shared with tr-diff: read traces or perf
 * script text (detected by content) and sum their stacks into one map.
 */
#ifndef TR_FOLD_H
#define TR_FOLD_H

#include <stdio.h>

#include "lines.h"
#include "perfscript.h"
#include "smap.h"

struct id_set { int64_t *v; size_t n, cap; };

struct fold_opts {
    struct pscript_opts ps;  /* --pid --tid --kernel --jit --addrs --no-inline --mark-inline --event ... */
    int force_perf_script;
    int period;              /* weigh samples by period */
    int offcpu;              /* sched_switch off-CPU time */
    int syscall_time;        /* syscalls weighed by duration */
    const char *weight;      /* records weighed by a field (model/weight.h), NULL: counted */
    struct id_set pids, tids;
    char **comms;
    size_t ncomms, capcomms;
    uint64_t from_ns, to_ns;
    int have_from, have_to;
    size_t max_line;
    int quiet;               /* no notes on stderr */
    int verbose;             /* a warning per process (symbolize: each_process) */
    int no_symbolize;        /* fold trace frames as recorded */
    const char *cache_dir;   /* symbolization cache (NULL: the default one) */
    const char *symfs;       /* look for binaries under this root first (NULL none) */
    const char **debug_dirs; /* build-id trees to search, NULL-terminated (NULL none) */
    size_t ndebug_dirs;
    int no_cache;            /* no symbolization cache */
};

struct fold {
    const struct fold_opts *o;
    struct smap map;         /* stack -> count */
    int units_ns;            /* counts are ns: print microseconds */
    size_t last_entry;
    /* 1: the tool exits after the next input: what the symbolizer frees
     * one by one (an entry per address, a string per name) is left to the
     * exit (sym_free_at_exit) */
    int exits_after;
};

void fold_opts_init(struct fold_opts *o);
/* Frees the id sets and the comm list (not the strings: argv's). */
void fold_opts_free(struct fold_opts *o);
int fold_add_id(struct id_set *s, int64_t id);
int fold_add_comm(struct fold_opts *o, const char *comm);
int fold_init(struct fold *f, const struct fold_opts *o);
void fold_free(struct fold *f);
/* Fold one input (NULL or "-": stdin).  Returns a CLI_EXIT_* status;
 * errors are reported on stderr. */
int fold_input(struct fold *f, const char *path);
/* Fold a tr trace already open on fd (foldtrace.c). */
int fold_trace(struct fold *f, struct lines *l, const char *shown);
/* Fold perf script text from l. */
int fold_text_lines(struct fold *f, struct lines *l, const char *shown);
/* Print "stack count" lines sorted bytewise. */
void fold_print(struct fold *f, FILE *out);
/* The warning that samples of other events than the folded one were skipped
 * (unless quiet): n of them, other one of their names. */
void fold_warn_other_events(const struct fold *f, const char *shown, const char *event, uint64_t n,
                            const char *other);

#endif
