/*
 * report.h - a trace summed up as perf report, perf diff, perf sched latency
 * and strace -c summarise it (tr-report; tr-top reuses the aggregation).
 *
 * One pass over a trace (raw frames symbolized on the fly, as tr-fold does)
 * sums what it holds:
 *   - samples, per event, into groups of equal (stack, pid, tid, comm, cpu):
 *     memory grows with the distinct stacks and frames, never with the
 *     samples; the table (Children/Self per --sort key) and the call graphs
 *     are built from the groups when printed;
 *   - off-CPU time: sched:sched_switch samples weighed by the time the task
 *     was blocked, through model/fold's off-CPU computation;
 *   - syscalls (tr-rec-strace): count, errors and a latency histogram
 *     (log-linear buckets: bounded memory, quantiles within 1/32) per
 *     syscall and per process;
 *   - tracepoint events (tr-rec-ftrace): counts per event and task, and the
 *     run-queue latency per task from sched_wakeup/sched_switch.
 *
 *     struct report_opts o; report_opts_init(&o); ...
 *     struct report *r = report_new(&o);
 *     status = report_input(r, path);            CLI_EXIT_* status
 *     report_print(r, stdout);                   or report_print_json
 *     report_diff(reports, n, names, stdout);    several traces side by side
 *     report_free(r);
 *
 * Like fold.h, it writes its warnings with cli_warn and its output to the
 * FILE given; it never exits.
 */
#ifndef TR_REPORT_H
#define TR_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "lathist.h"
#include "tr.h"

/* perf's sort keys */
enum report_key { RK_COMM, RK_PID, RK_TID, RK_DSO, RK_SYM, RK_SRCLINE, RK_CPU, RK_NKEYS };
/* columns other than keys (-F) */
enum report_col { RC_CHILDREN = RK_NKEYS, RC_SELF, RC_SAMPLES, RC_PERIOD };
#define REPORT_MAX_COLS 16

enum report_graph { RG_NONE, RG_GRAPH, RG_FRACTAL, RG_FLAT, RG_FOLDED };

struct report_opts {
    int children;              /* Children column (default 1 when stacks were recorded) */
    int children_set;          /* --children / --no-children given */
    int sort[REPORT_MAX_COLS], nsort;  /* keys, default comm,dso,sym */
    int sort_given;            /* --sort was given */
    int cols[REPORT_MAX_COLS], ncols;  /* -F: columns in order (0: default) */
    int show_samples, show_period;     /* -n, --show-period */
    double percent_limit;
    int graph;                 /* enum report_graph (-g) */
    int graph_set;
    double graph_min;          /* percent (default 0.5) */
    int caller, order_set;     /* -g caller|callee */
    int max_stack;             /* frames nearest the leaf kept (default 127) */
    int json;
    int offcpu;                /* off-CPU report (auto for a file of sched_switch samples) */
    const char *event;         /* only this event's section */
    const char *weight;        /* samples weighed by this field instead of their period (model/weight.h) */
    /* filters */
    int32_t *pids, *tids; size_t npids, ntids;
    const char **comms, **dsos, **syms; size_t ncomms, ndsos, nsyms;
    uint64_t time_from, time_to; int have_from, have_to;  /* absolute, ns */
    int no_symbolize, no_cache, quiet;
    const char *cache_dir;
    const char *symfs;              /* look for the recorded binaries under this root first */
    const char **debug_dirs;        /* build-id trees to search, NULL-terminated (NULL: none) */
    size_t ndebug_dirs;
};

void report_opts_init(struct report_opts *o);
void report_opts_free(struct report_opts *o);
/* Parse "comm,dso,sym" (--sort) or "overhead,sample,comm" (-F) into o:
 * 0, or -1 with *bad the unknown word (a pointer into a static copy). */
int report_parse_sort(struct report_opts *o, const char *s, const char **bad);
int report_parse_fields(struct report_opts *o, const char *s, const char **bad);
/* -g's argument: "graph,0.5,caller", "fractal", "flat", "folded", "none",
 * "caller", "callee" in any order: 0 or -1. */
int report_parse_graph(struct report_opts *o, const char *s);

struct report;
struct report *report_new(const struct report_opts *o);
void report_free(struct report *r);
/* Read one trace (NULL or "-": stdin) into r.  Returns a CLI_EXIT_* status;
 * messages on stderr name shown (the path). */
int report_input(struct report *r, const char *path);
/* Whether anything was read (samples, syscalls or events). */
int report_empty(const struct report *r);
void report_print(struct report *r, FILE *out);
void report_print_json(struct report *r, FILE *out);
/* perf diff: the first report is the baseline; names label the data files. */
void report_diff(struct report **r, size_t n, const char *const *names, FILE *out);

/* ---- a live view (tr-top) -------------------------------------------------
 * The report is read as the trace comes: report_follow reads through fn,
 * which may draw the view between its reads (the report is consistent
 * whenever fn is called); report_decay ages the counts between views and
 * report_rows gives the busiest event's entries in order. */

/* Read one trace through fn(ctx, ...) (as tr_reader_open_fn does) into r,
 * without the prescan and the off-CPU pass a file gets: a CLI_EXIT_* status. */
int report_follow(struct report *r, tr_read_fn fn, void *ctx, const char *shown);
/* The options used when printing, to change between views (sort keys,
 * children, graph, caller order). */
struct report_opts *report_options(struct report *r);
/* Multiply every count by num/den (perf top's decay is 7/8; 0 forgets):
 * the samples left in the event with the most (report_rows' event). */
uint64_t report_decay(struct report *r, unsigned num, unsigned den);

/* What a report holds: its memory grows with these. */
struct report_stats { size_t groups, stacks, frames, symbols, strings; };
void report_stats(const struct report *r, struct report_stats *s);

/* Free the groups that decayed away (counts of zero) and the stacks,
 * frames, symbols and strings only they used, once they are as many as the
 * live ones, so that memory follows what is shown, not all that was ever
 * seen.  The strings of earlier report_rows are freed with them.  0, or -1
 * out of memory (the report unchanged). */
int report_compact(struct report *r);

struct report_row {
    const char *comm, *dso, *sym;  /* the report's strings: valid until report_free or report_compact */
    int32_t pid, tid;
    int kernel;
    double self, children;         /* percent of the event's period */
    uint64_t samples;
    char *graph;                   /* its call graph as report_print prints it, or NULL */
};
struct report_zoom {
    int32_t pid, tid;              /* only this process, this thread (0: any) */
    const char *dso;               /* only this DSO's entries (NULL: any) */
};
/* The rows of the event with the most samples, in the order report_print
 * prints them (the first `graphs` ones with their call graphs when the
 * options ask for them: those shown), and the event's name and samples: 0,
 * or -1 out of memory.  Free with report_rows_free. */
int report_rows(struct report *r, const struct report_zoom *z, size_t graphs, struct report_row **rows,
                size_t *n, const char **event, uint64_t *samples);
void report_rows_free(struct report_row *rows, size_t n);

#endif
