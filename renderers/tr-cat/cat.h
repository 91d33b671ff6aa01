/*
 * cat.h - tr-cat's record renderers.  main.c parses the command line;
 * cat-run.c reads, filters and sends each record to a view (the table of
 * views is in cat-run.c); each view has its own module that prints its
 * records as text or JSON:
 *
 *   cat-sample.c   samples (perf script style) and counters (perf stat table)
 *   cat-syscall.c  syscalls, signals, exits in strace style; --summary as strace -c
 *   cat-ftrace.c   tracepoint and function events (trace-cmd report style)
 *   cat-libcall.c  library calls in ltrace style; --summary as ltrace -c
 *   cat-generic.c  definitions, metadata, process life, lost, symbols (tr-cat's own)
 *
 * A view's hook returns 0 when done, -1 on an output error.
 */
#ifndef TR_CAT_H
#define TR_CAT_H

#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "syscalls_decode.h"
#include "tr.h"

struct cat_opts {
    int json;          /* --json: JSON Lines */
    int summary;       /* -c/--summary: tables instead of records */
    int raw;           /* --raw: no decoding of arguments and payloads */
    /* strace-style display */
    int follow;        /* -f: pid prefix on every line (auto when >1 process) */
    int timestamps;    /* -t: 1 time of day, 2 (-tt) with us, 3 (-ttt) epoch */
    int relative;      /* -r: time since previous line */
    int show_time;     /* -T: time spent in each syscall */
    int decode_fds;    /* -y: paths for fds */
    int hex;           /* -x: 1 non-ASCII as hex, 2 (-xx) all as hex */
    uint32_t strsize;  /* -s: max string length shown (default 32) */
    int indent;        /* -n: spaces per nesting level of library calls (ltrace -n) */
    const char *sort_by; /* -S: summary sort key (strace: time calls errors name nothing) */
    int wall_clock;    /* -w: the syscall summary without its note on wall-clock time */
    /* the samples view's side-band records, shown only when asked (perf script's flags) */
    int show_task;     /* --show-task-events: comm, fork, exit */
    int show_mmap;     /* --show-mmap-events: mmap */
    int show_lost;     /* --show-lost-events: lost */
    int show_status;   /* --type module_status */
};

struct cat_ctx {
    tr_reader *r;
    FILE *out;
    const struct cat_opts *o;
    const char *file;     /* input name for messages */
    uint64_t first_time;  /* time of the first timed record, for relative output */
    uint32_t stream;      /* current stream */
    int multi_process;    /* more than one pid seen or -f: prefix pids */
    int info;             /* --info */
    struct procs *procs;  /* processes, threads, comms and maps (model/procs.h), fed by
                             cat_track when there is no symbolize session (else the session's) */
    struct sym_session *sym; /* text without --raw: raw frames symbolized on the fly (cat-sym.c) */
    void *map;            /* the input file mapped for the session's prescan, NULL none */
    size_t maplen;
    int prescanned;       /* the prescan ran (once, when a raw frame first needed it) */
    const struct cat_view *view; /* the current stream's view (cat-run.c), NULL until chosen */
    /* each view's state for the current stream, owned by its module */
    struct cat_sample_state *sample;   /* cat-sample.c */
    struct cat_syscall_state *syscall; /* cat-syscall.c */
    struct cat_ftrace_state *ftrace;   /* cat-ftrace.c */
    struct cat_libcall_state *libcall; /* cat-libcall.c */
    struct syscalls_buf text;          /* cat_text's result */
};

/* The views of a stream: how its records are shown.  A record of a view's
 * family (samples and counters; syscalls; tracepoint events and losses)
 * goes to that view in every stream; the generic records (comm, fork,
 * exit, mmap, signal, metadata ...) go to the stream's view, which prints
 * them in its recorder's style or leaves them to the generic printer.
 * The view of a stream is chosen once, when its metadata is first read,
 * from its META_VIEW key (model/keys.h), else from its "producer" (traces
 * written before the key existed); unknown: CAT_VIEW_GENERIC. */
enum cat_view_id { CAT_VIEW_GENERIC, CAT_VIEW_SAMPLES, CAT_VIEW_SYSCALLS, CAT_VIEW_TRACEPOINTS, CAT_VIEW_LIBCALLS };

struct cat_view {
    enum cat_view_id id;
    const char *name; /* its META_VIEW value ("generic": none) */
    /* Print rec: a record of the view's family, a generic record of a
     * stream it shows, or the stream end (every view sees it, to print
     * what it held back).  1 printed, 0 not (the generic printer prints
     * it), -1 on an error.  NULL: prints nothing itself. */
    int (*record)(struct cat_ctx *c, const tr_record *rec);
    /* --summary: account a record of its family; its table after all input */
    int (*account)(struct cat_ctx *c, const tr_record *rec);
    int (*summary)(struct cat_ctx *c);
    /* at each stream start (not with --summary) and at the input's end:
     * free the view's state in the context */
    void (*reset)(struct cat_ctx *c);
};

/* The id of the current stream's view: CAT_VIEW_GENERIC until chosen. */
static inline enum cat_view_id cat_view(const struct cat_ctx *c)
{
    return c->view ? c->view->id : CAT_VIEW_GENERIC;
}

/* strace's and ltrace's -t (mode 1 "HH:MM:SS "), -tt (2, with ".us") and -ttt (3, epoch
 * "S.us ") of wall-clock time real (ns), appended to b (cat-run.c). */
void cat_time_of_day(struct syscalls_buf *b, int mode, uint64_t real);

/* Free what the context holds (the process model). */
void cat_free(struct cat_ctx *c);

/* Symbolizing on the fly (cat-sym.c), text output without --raw: a session
 * for the input open on fd (0 or -1 out of memory), freed by cat_sym_close;
 * cat_sym gives it with the input's end-of-stream blobs (kallsyms) found
 * first, the first time a raw frame or a kernel function address needs
 * them (an already symbolized trace never pays for that); NULL when there
 * is no session. */
int cat_sym_open(struct cat_ctx *c, int fd);
struct sym_session *cat_sym(struct cat_ctx *c);
void cat_sym_close(struct cat_ctx *c);
/* The name of kernel function address addr (*start: where the function
 * begins) from the session's kernel symbols (the trace's, found ahead in a
 * file; never this machine's loaded for it), NULL when unknown:
 * model/tpformat.h's resolver, ctx a struct cat_ctx. */
const char *cat_sym_kernel(void *ctx, uint64_t addr, uint64_t *start);

/* What the filters select (cat-run.c); all given conditions must hold. */
struct cat_filter {
    int32_t *pids, *tids;
    size_t npids, ntids;
    const char *comm;
    uint8_t types[256];
    int any_type;
    uint64_t since, until; /* ns after the first timed record */
    int has_since, has_until;
};

/* Read every record of r (input name for messages) through the filters to
 * the renderers; warnings go to stderr.  Returns 0, CLI_EXIT_TRUNCATED
 * (the input was damaged or cut) or CLI_EXIT_FAIL (unreadable, or an
 * output error). */
int cat_read(struct cat_ctx *c, tr_reader *r, const char *name, const struct cat_filter *f);
/* --info for the reader in c (cat-generic.c); same return values. */
int cat_info(struct cat_ctx *c);
/* The exit status of reader error rc: CLI_EXIT_FAIL when the input could not
 * be read at all (nothing read before: any_read 0) or memory ran out, else
 * CLI_EXIT_TRUNCATED (a later stream refused, damage, a read error midway). */
int cat_error_status(int rc, int any_read);

/* Generic helpers (cat-generic.c) */
int cat_generic_text(struct cat_ctx *c, const tr_record *rec);
int cat_generic_json(struct cat_ctx *c, const tr_record *rec);
/* The comm of a tid known from COMM records, or "-", as text (cat_text:
 * valid until the next call); cat_comm_raw: as recorded (filters, JSON). */
const char *cat_comm(struct cat_ctx *c, int32_t tid);
const char *cat_comm_raw(struct cat_ctx *c, int32_t tid);
/* s safe on a terminal: s itself when it is printable ASCII, else its bytes
 * escaped as syscall strings are ("\33"), in c until the next call.  Every
 * name a traced program chose (its comm, paths) goes through it in text. */
const char *cat_text(struct cat_ctx *c, const char *s);
const char *cat_textn(struct cat_ctx *c, const char *s, size_t len); /* always escaped */
/* Every record, selected or not, before it is printed: the process model
 * (c->procs, created on first use), whose comms and maps the families show. */
void cat_track(struct cat_ctx *c, const tr_record *rec);
/* "12345.678901" seconds of time on the stream clock */
void cat_time(FILE *f, uint64_t ns);
/* Frame as "addr func+0xoff (module)" into buf */
void cat_frame(struct cat_ctx *c, uint32_t frame_id, char *buf, size_t len);
/* The module (path) mapped at addr in process pid by the MMAP records seen
 * so far (the model cat_track feeds), with addr's offset in its file; NULL
 * when none. */
const char *cat_module_of(struct cat_ctx *c, int32_t pid, uint64_t addr, uint64_t *file_off);

/* View hooks (struct cat_view): *_record prints rec as text or, with o->json, as one JSON
 * line; it returns 1 if it printed rec, 0 if not (generic output is used), -1 on error.
 * *_summary prints the view's summary table (after all input), 0 or -1. */
int cat_sample_record(struct cat_ctx *c, const tr_record *rec);
int cat_sample_summary(struct cat_ctx *c);
int cat_sample_account(struct cat_ctx *c, const tr_record *rec); /* --summary input */
/* Whether the samples view leaves rec out of its text: the side-band records
 * perf script shows only when asked (--show-task-events ..., --type). */
int cat_sample_sideband_hidden(const struct cat_ctx *c, const tr_record *rec);
int cat_syscall_record(struct cat_ctx *c, const tr_record *rec);
int cat_syscall_summary(struct cat_ctx *c);
int cat_syscall_account(struct cat_ctx *c, const tr_record *rec);
/* A pipe being read has had nothing to read for a while: print what it
 * holds back for ordering that is older than a recorder on this machine can
 * still send (a live pipe's lines need no later record to come out). */
void cat_syscall_idle(struct cat_ctx *c);
void cat_libcall_idle(struct cat_ctx *c); /* the same for library calls */
/* Whether the input is a pipe (a recorder writing as it goes): the views print as it comes. */
int cat_input_live(const struct cat_ctx *c);
/* Live: events this much older than the newest record print. */
#define CAT_LIVE_LAG_NS 2000000000ull
/* Live and quiet (the recorder writes what it has every 100 ms): events this much older than now print. */
#define CAT_IDLE_LAG_NS 300000000ull
/* The time up to which a quiet live view prints what it holds (now less CAT_IDLE_LAG_NS), or 0:
 * when the recorder's clock is not this one (CLOCK_MONOTONIC of the same machine: its newest
 * record is in the future or a minute old), or nothing held (oldest) is that old. */
uint64_t cat_idle_until(uint64_t newest, uint64_t oldest);
int cat_ftrace_record(struct cat_ctx *c, const tr_record *rec);
int cat_ftrace_summary(struct cat_ctx *c);
int cat_ftrace_account(struct cat_ctx *c, const tr_record *rec);
/* The current stream's tracepoint formats (model/tpformat.h), one for every
 * family; NULL out of memory.  Held in c->ftrace, freed by cat_ftrace_reset. */
struct tpformat *cat_tpformat(struct cat_ctx *c);
/* Called at each stream start and at the end; free what the view holds */
void cat_sample_reset(struct cat_ctx *c);
void cat_syscall_reset(struct cat_ctx *c);
int cat_libcall_record(struct cat_ctx *c, const tr_record *rec);
int cat_libcall_summary(struct cat_ctx *c);
int cat_libcall_account(struct cat_ctx *c, const tr_record *rec);
void cat_libcall_reset(struct cat_ctx *c);
void cat_ftrace_reset(struct cat_ctx *c);

#endif
