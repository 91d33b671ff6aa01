/*
 * cat-libcall.c - library calls as ltrace prints them, and --summary as
 * ltrace -c.
 *
 * A tr-rec-ltrace trace holds one record per call (entry time and duration),
 * written when it returned.  ltrace prints a line when a call enters and
 * finishes it when it returns: a call entered while another line is open
 * (a nested call, another thread's) cuts that line with "<unfinished ...>",
 * and the cut call ends on a "<... NAME resumed>" line.  As for syscalls,
 * the stream's records are held, turned into entry and exit events, sorted
 * by time and replayed; a call that never returned ends "<no return ...>".
 * Arguments are shown from prototypes (model/libproto.h): the trace's own
 * (tr-rec-ltrace -F), else the built-in ones.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array.h"
#include "cat.h"
#include "keys.h"
#include "libproto.h"

#define ALIGN 48 /* ltrace's column of " = " */

struct lc_item {
    uint64_t time, dur;
    int32_t pid, tid;
    uint32_t flags;     /* TR_SYSF_*; for an exit record: TR_REC_EXIT in type */
    uint32_t type;
    int64_t ret;
    char *name;
    struct syscalls_buf args, retv; /* formatted at read time */
    int cut;            /* its line was cut: the return is a resumed line */
    int entry_done, done; /* printed: its entry line, all of it */
};

struct lc_event { uint64_t time, seq; size_t item; int exit; };

struct cat_libcall_state {
    struct lc_item *items;
    size_t n, cap;
    struct libprotos protos;
    int protos_read;
    int timestamps, show_time, indent;
    uint32_t strsize;
    int64_t real_minus_mono;
    int have_real;
    int32_t first_tid;
    int32_t *forked; size_t nforked; /* processes forked in the trace: their execs are shown */
    int multi;          /* more than one thread: "[pid TID] " prefixes, as ltrace */
    struct syscalls_buf line;
    size_t written;     /* of line: printed already (the open call's entry) */
    size_t open;        /* the item whose line is open, (size_t)-1 none */
    struct { int32_t tid; unsigned depth; } depth[64]; /* nesting per thread */
    size_t ndepth;
    int live;           /* reading a pipe: 1, a file: 0, not known yet: -1 */
    uint64_t newest, oldest; /* times: the newest record's end, the oldest event held */
    /* summary */
    struct lc_count { char *name; uint64_t calls, ns; } *counts;
    size_t ncounts;
};

static struct cat_libcall_state *state_of(struct cat_ctx *c)
{
    if (!c->libcall && (c->libcall = calloc(1, sizeof *c->libcall))) {
        struct cat_libcall_state *S = c->libcall;
        S->timestamps = c->o->timestamps;
        S->show_time = c->o->show_time;
        S->indent = c->o->indent;
        S->strsize = c->o->strsize ? c->o->strsize : 32;
        S->open = (size_t)-1;
        S->live = -1;
        S->oldest = UINT64_MAX;
    }
    return c->libcall;
}

/* What tr-rec-ltrace recorded (-t, -T, -n, -F), as if given to tr-cat. */
static void read_stream(struct cat_ctx *c, struct cat_libcall_state *S)
{
    if (S->protos_read)
        return;
    S->protos_read = 1;
    const char *v = tr_reader_meta(c->r, META_LTRACE_TIMESTAMPS);
    if (v && v[0] >= '1' && v[0] <= '3' && v[0] - '0' > S->timestamps)
        S->timestamps = v[0] - '0';
    v = tr_reader_meta(c->r, META_LTRACE_CALL_TIMES);
    S->show_time |= v && v[0] == '1';
    v = tr_reader_meta(c->r, META_LTRACE_STRSIZE);
    if (v && c->o->strsize == 32) /* tr-cat's default: the recorded -s */
        S->strsize = (uint32_t)atoi(v);
    v = tr_reader_meta(c->r, META_LTRACE_INDENT);
    if (v && !c->o->indent)
        S->indent = atoi(v);
    const char *m = tr_reader_meta(c->r, META_TIME_MONOTONIC_NS), *r = tr_reader_meta(c->r, META_TIME_REALTIME_NS);
    if (m && r) {
        S->real_minus_mono = (int64_t)(strtoull(r, NULL, 10) - strtoull(m, NULL, 10));
        S->have_real = 1;
    }
    size_t len;
    const uint8_t *p = tr_reader_blob(c->r, BLOB_LTRACE_PROTOS, &len);
    unsigned bad;
    if (p)
        libprotos_add_text(&S->protos, (const char *)p, len, &bad);
}

/* The function's name, or ltrace -S's SYS_NAME of a syscall (SYS_NR where ltrace 0.7.3's
 * table ends, at 311; its names pread and pwrite). */
static const char *func_name(struct cat_ctx *c, const tr_record *rec, char *buf, size_t size)
{
    if (rec->type == TR_REC_SYSCALL) {
        uint32_t nr = rec->u.syscall.nr;
        const char *n = nr <= 311 ? tr_reader_syscall_name(c->r, NULL, nr) : NULL;
        if (n && !strcmp(n, "pread64"))
            n = "pread";
        else if (n && !strcmp(n, "pwrite64"))
            n = "pwrite";
        if (n)
            snprintf(buf, size, "SYS_%s", n);
        else
            snprintf(buf, size, "SYS_%u", nr);
        return buf;
    }
    size_t len;
    const char *s = tr_reader_string(c->r, rec->u.libcall.func, &len);
    return s ? s : "?";
}

int cat_libcall_account(struct cat_ctx *c, const tr_record *rec)
{
    struct cat_libcall_state *S = state_of(c);
    if (!S)
        return -1;
    if (rec->type != TR_REC_LIBCALL && rec->type != TR_REC_SYSCALL)
        return 0;
    char buf[64];
    const char *name = func_name(c, rec, buf, sizeof buf), *arrow = strstr(name, "->");
    if (arrow) /* ltrace -c counts CALLER->NAME as NAME */
        name = arrow + 2;
    size_t i = 0;
    while (i < S->ncounts && strcmp(S->counts[i].name, name))
        i++;
    if (i == S->ncounts) {
        struct lc_count *nv = realloc(S->counts, (S->ncounts + 1) * sizeof *nv);
        if (!nv)
            return -1;
        S->counts = nv;
        nv[i].name = strdup(name);
        nv[i].calls = nv[i].ns = 0;
        S->ncounts++;
    }
    S->counts[i].calls++;
    S->counts[i].ns += rec->type == TR_REC_SYSCALL ? rec->u.syscall.duration : rec->u.libcall.duration;
    return 0;
}

static int cmp_count(const void *a, const void *b)
{
    const struct lc_count *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns > y->ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* ltrace -c's table */
int cat_libcall_summary(struct cat_ctx *c)
{
    struct cat_libcall_state *S = c->libcall;
    if (!S || !S->ncounts)
        return 0;
    qsort(S->counts, S->ncounts, sizeof *S->counts, cmp_count);
    uint64_t total = 0, calls = 0;
    for (size_t i = 0; i < S->ncounts; i++) {
        total += S->counts[i].ns;
        calls += S->counts[i].calls;
    }
    FILE *f = c->out;
    if (c->o->json) {
        for (size_t i = 0; i < S->ncounts; i++)
            fprintf(f, "{\"type\":\"libcall_summary\",\"function\":\"%s\",\"calls\":%" PRIu64 ",\"ns\":%" PRIu64 "}\n",
                    S->counts[i].name, S->counts[i].calls, S->counts[i].ns);
        return 0;
    }
    fprintf(f, "%% time     seconds  usecs/call     calls      function\n");
    fprintf(f, "------ ----------- ----------- --------- --------------------\n");
    for (size_t i = 0; i < S->ncounts; i++) {
        const struct lc_count *k = &S->counts[i];
        fprintf(f, "%6.2f %4" PRIu64 ".%06" PRIu64 " %11" PRIu64 " %9" PRIu64 " %s\n",
                total ? 100.0 * (double)k->ns / (double)total : 0.0, k->ns / 1000000000u,
                k->ns % 1000000000u / 1000u, k->ns / 1000u / k->calls, k->calls, k->name);
    }
    fprintf(f, "------ ----------- ----------- --------- --------------------\n");
    fprintf(f, "100.00 %4" PRIu64 ".%06" PRIu64 "             %9" PRIu64 " total\n", total / 1000000000u,
            total % 1000000000u / 1000u, calls);
    return 0;
}

static void prefix(struct cat_ctx *c, const struct lc_item *it, uint64_t t, unsigned depth)
{
    struct cat_libcall_state *S = c->libcall;
    struct syscalls_buf *b = &S->line;
    if (S->multi || c->o->follow)
        syscalls_buf_printf(b, "[pid %d] ", it->tid);
    if (S->timestamps)
        cat_time_of_day(b, S->timestamps, S->have_real ? (uint64_t)((int64_t)t + S->real_minus_mono) : t);
    for (unsigned i = 0; i < depth * (unsigned)S->indent; i++)
        syscalls_buf_putc(b, ' ');
}

static void out_line(struct cat_ctx *c)
{
    struct cat_libcall_state *S = c->libcall;
    syscalls_buf_putc(&S->line, '\n');
    fwrite(S->line.p + S->written, 1, S->line.len - S->written, c->out);
    syscalls_buf_reset(&S->line);
    S->written = 0;
}

static void finish_ret(struct cat_ctx *c, const struct lc_item *it)
{
    struct cat_libcall_state *S = c->libcall;
    while (S->line.len < ALIGN)
        syscalls_buf_putc(&S->line, ' ');
    syscalls_buf_puts(&S->line, " = ");
    syscalls_buf_put(&S->line, it->retv.p ? it->retv.p : "", it->retv.len);
    if (S->show_time)
        syscalls_buf_printf(&S->line, " <%" PRIu64 ".%06" PRIu64 ">", it->dur / 1000000000u,
                            it->dur % 1000000000u / 1000u);
    out_line(c);
}

static int cmp_event(const void *a, const void *b)
{
    const struct lc_event *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Print the held records' events up to time cutoff (all: every one) as ltrace's lines; what
 * is not finished stays held, a call whose entry was printed marked entry_done. */
static int flush(struct cat_ctx *c, int all, uint64_t cutoff)
{
    struct cat_libcall_state *S = c->libcall;
    if (!S || !S->n)
        return 0;
    struct lc_event *ev = calloc(2 * S->n, sizeof *ev);
    if (!ev)
        return -1;
    size_t ne = 0;
    for (size_t i = 0; i < S->n; i++) {
        const struct lc_item *it = &S->items[i];
        if (!it->entry_done)
            ev[ne++] = (struct lc_event){it->time, 2 * i, i, 0};
        if (it->type != TR_REC_EXIT && it->type != TR_REC_COMM && (it->flags & TR_SYSF_HAS_RET))
            ev[ne++] = (struct lc_event){it->time + it->dur, 2 * i + 1, i, 1};
    }
    qsort(ev, ne, sizeof *ev, cmp_event);
    for (size_t e = 0; e < ne && (all || ev[e].time <= cutoff); e++) {
        struct lc_item *it = &S->items[ev[e].item];
        unsigned *d = NULL;
        for (size_t k = 0; k < S->ndepth && !d; k++)
            if (S->depth[k].tid == it->tid)
                d = &S->depth[k].depth;
        if (!d && S->ndepth < 64) {
            S->depth[S->ndepth].tid = it->tid;
            S->depth[S->ndepth].depth = 0;
            d = &S->depth[S->ndepth++].depth;
        }
        static unsigned none;
        if (!d)
            d = &none;
        if (S->open != (size_t)-1 && S->open != ev[e].item) {
            syscalls_buf_puts(&S->line, " <unfinished ...>");
            out_line(c);
            S->items[S->open].cut = 1;
            S->open = (size_t)-1;
        }
        it->done = 1;
        if (it->type == TR_REC_COMM) {
            prefix(c, it, it->time, 0);
            syscalls_buf_puts(&S->line, "--- Called exec() ---");
            out_line(c);
            continue;
        }
        if (it->type == TR_REC_EXIT) {
            prefix(c, it, it->time, 0);
            int st = (int)it->ret;
            if ((st & 0x7f) == 0)
                syscalls_buf_printf(&S->line, "+++ exited (status %d) +++", (st >> 8) & 0xff);
            else
                syscalls_buf_printf(&S->line, "+++ killed by %s +++",
                                    syscalls_signal_name(st & 0x7f) ? syscalls_signal_name(st & 0x7f) : "?");
            out_line(c);
            continue;
        }
        if (!ev[e].exit) {
            prefix(c, it, it->time, *d);
            syscalls_buf_printf(&S->line, "%s(", it->name);
            syscalls_buf_put(&S->line, it->args.p ? it->args.p : "", it->args.len);
            if (!(it->flags & TR_SYSF_HAS_RET)) {
                syscalls_buf_puts(&S->line, " <no return ...>");
                out_line(c);
                continue;
            }
            it->done = 0;
            it->entry_done = 1;
            (*d)++;
            S->open = ev[e].item;
            continue;
        }
        if (*d)
            (*d)--;
        if (S->open == ev[e].item) {
            syscalls_buf_putc(&S->line, ')');
        } else {
            prefix(c, it, it->time + it->dur, *d);
            syscalls_buf_printf(&S->line, "<... %s resumed> )", it->name);
        }
        S->open = (size_t)-1;
        finish_ret(c, it);
    }
    free(ev);
    if (all && S->open != (size_t)-1) {
        out_line(c);
        S->open = (size_t)-1;
    } else if (S->line.len > S->written) { /* the open line so far, ended later */
        fwrite(S->line.p + S->written, 1, S->line.len - S->written, c->out);
        S->written = S->line.len;
    }
    size_t j = 0;
    for (size_t i = 0; i < S->n; i++) {
        struct lc_item *it = &S->items[i];
        if (it->done) {
            free(it->name);
            syscalls_buf_free(&it->args);
            syscalls_buf_free(&it->retv);
            continue;
        }
        if (S->open == i)
            S->open = j;
        S->items[j++] = *it;
    }
    S->n = j;
    S->oldest = UINT64_MAX; /* of the events still to print */
    for (size_t i = 0; i < S->n; i++) {
        uint64_t t = S->items[i].time + (S->items[i].entry_done ? S->items[i].dur : 0);
        if (t < S->oldest)
            S->oldest = t;
    }
    return ferror(c->out) ? -1 : 0;
}

/* Reading a pipe (tr-rec-ltrace's terminal view, tr-rec-ltrace ... | tr-cat): print as the
 * trace comes, a little late, as the syscall view does: a call still running when its time
 * comes prints late.  Files are replayed exactly. */
static int is_live(struct cat_ctx *c)
{
    struct cat_libcall_state *S = c->libcall;
    if (S->live < 0)
        S->live = cat_input_live(c);
    return S->live;
}

void cat_libcall_idle(struct cat_ctx *c)
{
    struct cat_libcall_state *S = c->libcall;
    if (!S || !S->n || c->o->json || !is_live(c))
        return;
    uint64_t until = cat_idle_until(S->newest, S->oldest);
    if (until)
        flush(c, 0, until);
}

static struct lc_item *new_item(struct cat_libcall_state *S, const tr_record *rec)
{
    if (array_reserve(&S->items, &S->cap, S->n + 1, sizeof *S->items, 256) < 0)
        return NULL;
    struct lc_item *it = &S->items[S->n++];
    memset(it, 0, sizeof *it);
    it->type = rec->type;
    it->time = rec->time;
    it->pid = rec->pid;
    it->tid = rec->tid;
    if (!S->first_tid)
        S->first_tid = rec->tid;
    else if (rec->tid != S->first_tid)
        S->multi = 1;
    return it;
}

/* A record held, written at time end: a live pipe prints what is old enough. */
static int held(struct cat_ctx *c, uint64_t end)
{
    struct cat_libcall_state *S = c->libcall;
    if (S->items[S->n - 1].time < S->oldest)
        S->oldest = S->items[S->n - 1].time;
    if (end > S->newest)
        S->newest = end;
    if (is_live(c) && S->newest > CAT_LIVE_LAG_NS && S->newest - CAT_LIVE_LAG_NS > S->oldest)
        return flush(c, 0, S->newest - CAT_LIVE_LAG_NS) < 0 ? -1 : 1;
    return 1;
}

int cat_libcall_record(struct cat_ctx *c, const tr_record *rec)
{
    struct cat_libcall_state *S = state_of(c);
    if (!S)
        return -1;
    int ours = cat_view(c) == CAT_VIEW_LIBCALLS;
    switch (rec->type) {
    case TR_REC_STREAM_END:
        if (!c->o->json && flush(c, 1, 0) < 0)
            return -1;
        return ours && !c->o->json ? 1 : 0;
    case TR_REC_LIBCALL:
    case TR_REC_SYSCALL:
        break;
    case TR_REC_EXIT:
        if (!ours || c->o->json)
            return 0;
        break;
    case TR_REC_STREAM_START:
        return 0;
    case TR_REC_FORK: /* not shown; a child's exec will be */
        if (ours && rec->pid != rec->u.fork.ppid) {
            int32_t *nv = realloc(S->forked, (S->nforked + 1) * sizeof *nv);
            if (!nv)
                return -1;
            S->forked = nv;
            S->forked[S->nforked++] = rec->pid;
        }
        return ours && !c->o->json ? 1 : 0;
    case TR_REC_COMM: { /* ltrace -f shows a child's exec, not the command's own */
        int child = 0;
        for (size_t i = 0; i < S->nforked && !child; i++)
            child = S->forked[i] == rec->pid;
        if (ours && !c->o->json && rec->u.comm.exec && child)
            return new_item(S, rec) ? held(c, rec->time) : -1;
        return ours && !c->o->json ? 1 : 0;
    }
    default: /* ltrace prints no metadata, comms or forks */
        return ours && !c->o->json ? 1 : 0;
    }
    if (c->o->json)
        return 0; /* the generic printer's raw fields */
    read_stream(c, S);
    struct lc_item *it = new_item(S, rec);
    if (!it)
        return -1;
    if (rec->type == TR_REC_EXIT) {
        it->ret = rec->u.exit.status;
        return held(c, it->time);
    }
    char buf[64];
    const char *name = func_name(c, rec, buf, sizeof buf);
    /* a syscall record's fields as a library call's (ltrace -S shows them alike) */
    const uint64_t *args = rec->u.libcall.args;
    const tr_capture *caps = rec->u.libcall.captures;
    uint32_t nargs = rec->u.libcall.nargs, ncaps = rec->u.libcall.ncaptures;
    it->name = strdup(name);
    it->dur = rec->u.libcall.duration;
    it->flags = rec->u.libcall.flags;
    it->ret = rec->u.libcall.ret;
    if (rec->type == TR_REC_SYSCALL) {
        args = rec->u.syscall.args;
        caps = rec->u.syscall.captures;
        nargs = rec->u.syscall.nargs;
        ncaps = rec->u.syscall.ncaptures;
        it->dur = rec->u.syscall.duration;
        it->flags = rec->u.syscall.flags;
        it->ret = rec->u.syscall.ret;
    }
    /* the prototype of the function named as ltrace names it: CALLER->NAME, NAME@LIB */
    const char *arrow = strstr(name, "->"), *fname = arrow ? arrow + 2 : name;
    char bare[256];
    snprintf(bare, sizeof bare, "%.*s", (int)strcspn(fname, "@"), fname);
    const struct libproto *p = libproto_find(&S->protos, bare);
    if (!p)
        p = libproto_unknown();
    libproto_format_args(&it->args, p, args, nargs, caps, ncaps, S->strsize);
    libproto_format_ret(&it->retv, p, it->ret, caps, ncaps, S->strsize);
    if (!it->name)
        return -1;
    return held(c, it->time + it->dur);
}

void cat_libcall_reset(struct cat_ctx *c)
{
    struct cat_libcall_state *S = c->libcall;
    if (!S)
        return;
    flush(c, 1, 0);
    free(S->items);
    free(S->forked);
    libprotos_free(&S->protos);
    syscalls_buf_free(&S->line);
    for (size_t i = 0; i < S->ncounts; i++)
        free(S->counts[i].name);
    free(S->counts);
    free(S);
    c->libcall = NULL;
}
