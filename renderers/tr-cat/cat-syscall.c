/*
 * cat-syscall.c - syscalls, signals and exits as strace prints them, and
 * --summary as strace -c.
 *
 * A tr-rec-strace trace holds one record per completed syscall (entry time
 * and duration), written when it returned.  strace prints a line when a
 * syscall enters and finishes it when it returns, splitting it into
 * "<unfinished ...>" and "<... resumed>" halves when another thread's line
 * comes in between.  To print the same, records are buffered, turned into
 * entry and exit events, sorted by time and replayed through the same state
 * machine strace uses.  The buffer is flushed at the end of each stream (and
 * in halves when it grows large).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "array.h"
#include "cat-syscall-format.h"
#include "cat.h"
#include "keys.h"
#include "syscount.h"

#define WINDOW_MAX 50000 /* buffered records before a partial flush */

struct event {
    uint64_t time;
    uint64_t seq;
    size_t item;
    int exit;             /* 0: entry (or a one-line event), 1: syscall exit */
};

/* The view's state for the current stream (c->syscall), allocated by the
 * first hook that needs it and freed by cat_syscall_reset. */
struct cat_syscall_state {
    struct syscalls_table table; /* the stream's numbers to names and descriptors */
    char unknown[32];     /* "syscall_0x1c3" of a number the table lacks */
    int live;             /* 1 reading a pipe, 0 not, -1 not known yet */
    int follow_read;      /* follow_meta was read from the stream's metadata */
    int follow_meta;
    int timestamps;       /* -t as given, or as recorded (tr-rec-strace -tt) when more */
    int show_time;        /* -T given or recorded */
    int64_t real_minus_mono;
    int have_real;
    struct sc_item *items;
    size_t n, cap;
    uint64_t seq;
    int32_t open_tid;     /* tid whose line is open, 0 none */
    size_t open_item;
    int32_t tids[2];
    int ntids;
    int prefix;           /* print pid prefixes */
    uint64_t last_line_time;
    uint64_t oldest;      /* entry time of the oldest buffered record */
    uint64_t newest;      /* time of the newest record */
    int32_t rs_tid[64];   /* threads whose call returned ERESTART_RESTARTBLOCK ... */
    uint32_t rs_nr[64];   /* ... and that call, for restart_syscall's comment */
    unsigned rs_next;
    int have_last_line;
    struct syscalls_buf line;
    struct syscount count; /* -c */
};

/* ---- the stream's syscall table ------------------------------------------------- */

const struct syscalls_entry *sc_entry(struct cat_ctx *c, uint32_t nr)
{
    struct cat_syscall_state *S = c->syscall;
    return S ? syscalls_table_lookup(&S->table, c->r, nr) : NULL;
}

const char *sc_sys_name(struct cat_ctx *c, uint32_t nr)
{
    struct cat_syscall_state *S = c->syscall;
    const struct syscalls_entry *e = sc_entry(c, nr);
    if (e)
        return e->name;
    snprintf(S->unknown, sizeof S->unknown, "syscall_%#x", nr);
    return S->unknown;
}

/* The family of nr's descriptor, SYSCALL_FAMILY_COUNT when it has none. */
static int family_of(struct cat_ctx *c, uint32_t nr)
{
    const struct syscalls_entry *e = sc_entry(c, nr);
    return e && e->desc ? e->desc->family : SYSCALL_FAMILY_COUNT;
}

/* The view's state, allocated at the first record of a stream; NULL when out of memory. */
static struct cat_syscall_state *state_of(struct cat_ctx *c)
{
    if (!c->syscall && (c->syscall = calloc(1, sizeof *c->syscall))) {
        c->syscall->live = -1;
        c->syscall->timestamps = c->o->timestamps;
        c->syscall->show_time = c->o->show_time;
    }
    return c->syscall;
}

/* ---- output lines -------------------------------------------------------------- */

int sc_show_time(const struct cat_ctx *c)
{
    return c->syscall ? c->syscall->show_time : c->o->show_time;
}

static void line_prefix(struct cat_ctx *c, int32_t tid, uint64_t t, struct syscalls_buf *b)
{
    struct cat_syscall_state *S = c->syscall;
    if (S->prefix)
        syscalls_buf_printf(b, "%-5d ", tid);
    const struct cat_opts *o = c->o;
    if (S->timestamps)
        cat_time_of_day(b, S->timestamps, S->have_real ? (uint64_t)((int64_t)t + S->real_minus_mono) : t);
    if (o->relative) {
        uint64_t d = S->have_last_line && t >= S->last_line_time ? t - S->last_line_time : 0;
        syscalls_buf_printf(b, "%6" PRIu64 ".%06" PRIu64 " ", d / 1000000000u, d % 1000000000u / 1000u);
        S->last_line_time = t;
        S->have_last_line = 1;
    }
}

static void out_line(struct cat_ctx *c)
{
    struct cat_syscall_state *S = c->syscall;
    syscalls_buf_putc(&S->line, '\n');
    fwrite(S->line.p, 1, S->line.len, c->out);
    syscalls_buf_reset(&S->line);
}

/* close an open line of another thread */
static void cut_open_line(struct cat_ctx *c)
{
    struct cat_syscall_state *S = c->syscall;
    if (!S->open_tid)
        return;
    syscalls_buf_puts(&S->line, " <unfinished ...>");
    out_line(c);
    S->items[S->open_item].interrupted = 1;
    S->open_tid = 0;
}

static void emit_entry(struct cat_ctx *c, size_t idx)
{
    struct cat_syscall_state *S = c->syscall;
    struct sc_item *it = &S->items[idx];
    cut_open_line(c);
    line_prefix(c, it->tid, it->time, &S->line);
    sc_format_entry(c, it, &S->line);
    if (!c->o->raw && family_of(c, it->nr) == SYSCALL_FAMILY_RESTART)
        for (unsigned k = 0; k < 64; k++)
            if (S->rs_tid[k] == it->tid) {
                syscalls_buf_printf(&S->line, "<... resuming interrupted %s ...>", sc_sys_name(c, S->rs_nr[k]));
                S->rs_tid[k] = 0;
                break;
            }
    S->open_tid = it->tid;
    S->open_item = idx;
    it->interrupted = 0;
}

/* The finished line of a syscall, then its stack (-k), as strace -k prints them. */
static void out_call_line(struct cat_ctx *c, const struct sc_item *it)
{
    out_line(c);
    if (it->stack)
        fputs(it->stack, c->out);
}

static void emit_exit(struct cat_ctx *c, size_t idx)
{
    struct cat_syscall_state *S = c->syscall;
    struct sc_item *it = &S->items[idx];
    if ((it->flags & TR_SYSF_HAS_RET) && it->ret == -516) {
        S->rs_tid[S->rs_next % 64] = it->tid;
        S->rs_nr[S->rs_next % 64] = it->nr;
        S->rs_next++;
    }
    if (it->detached && !c->o->raw) {
        /* strace: "read(0,  <detached ...>" */
        if (!(S->open_tid == it->tid && S->open_item == idx && !it->interrupted)) {
            cut_open_line(c);
            line_prefix(c, it->tid, it->time + it->dur, &S->line);
            syscalls_buf_printf(&S->line, "<... %s resumed>", sc_sys_name(c, it->nr));
        }
        syscalls_buf_puts(&S->line, " <detached ...>");
        out_call_line(c, it);
        S->open_tid = 0;
        return;
    }
    if (S->open_tid == it->tid && S->open_item == idx && !it->interrupted) {
        size_t start = 0;
        sc_format_exit(c, it, &S->line, start);
        out_call_line(c, it);
        S->open_tid = 0;
        return;
    }
    cut_open_line(c);
    int32_t who = it->tid;
    const char *name = sc_sys_name(c, it->nr);
    if (it->tid != it->pid && (it->flags & TR_SYSF_HAS_RET) && it->ret == 0 &&
        family_of(c, it->nr) == SYSCALL_FAMILY_EXEC) {
        /* a thread exec'd: it continues as the thread group leader */
        line_prefix(c, it->pid, it->time + it->dur, &S->line);
        syscalls_buf_printf(&S->line, "+++ superseded by execve in pid %d +++", it->tid);
        out_line(c);
        who = it->pid;
    }
    line_prefix(c, who, it->time + it->dur, &S->line);
    syscalls_buf_printf(&S->line, "<... %s resumed>", name);
    sc_format_exit(c, it, &S->line, 0);
    out_call_line(c, it);
}

static void emit_signal(struct cat_ctx *c, struct sc_item *it)
{
    struct cat_syscall_state *S = c->syscall;
    cut_open_line(c);
    line_prefix(c, it->tid, it->time, &S->line);
    if (it->flags & TR_SIGF_STOP) {
        syscalls_buf_puts(&S->line, "--- stopped by ");
        syscalls_print_signal(&S->line, (int)it->nr);
        syscalls_buf_puts(&S->line, " ---");
    } else {
        syscalls_buf_puts(&S->line, "--- ");
        syscalls_print_signal(&S->line, (int)it->nr);
        syscalls_buf_putc(&S->line, ' ');
        if (it->data_len)
            syscalls_print_siginfo(&S->line, it->data, it->data_len);
        else
            syscalls_buf_puts(&S->line, "{}");
        syscalls_buf_puts(&S->line, " ---");
    }
    out_line(c);
}

static void emit_exit_record(struct cat_ctx *c, struct sc_item *it)
{
    struct cat_syscall_state *S = c->syscall;
    cut_open_line(c);
    line_prefix(c, it->tid, it->time, &S->line);
    int st = (int)it->ret;
    if ((st & 0x7f) == 0) {
        syscalls_buf_printf(&S->line, "+++ exited with %d +++", (st >> 8) & 0xff);
    } else {
        syscalls_buf_puts(&S->line, "+++ killed by ");
        syscalls_print_signal(&S->line, st & 0x7f);
        syscalls_buf_puts(&S->line, (st & 0x80) ? " (core dumped) +++" : " +++");
    }
    out_line(c);
}

static int cmp_event(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void free_item(struct sc_item *it)
{
    free(it->data);
    free(it->stack);
    it->data = NULL;
    it->stack = NULL;
}

/* At the end of a stream: an unfinished call after which its thread shows nothing more
 * (no exit, no later call) was cut by a detach. */
static void mark_detached(struct cat_syscall_state *S)
{
    for (size_t i = 0; i < S->n; i++) {
        struct sc_item *it = &S->items[i];
        if (it->type != TR_REC_SYSCALL || (it->flags & TR_SYSF_HAS_RET))
            continue;
        uint64_t end = it->time + it->dur;
        int later = 0;
        for (size_t j = 0; j < S->n && !later; j++)
            if (j != i && (S->items[j].tid == it->tid || S->items[j].pid == it->tid) &&
                S->items[j].time + S->items[j].dur >= end)
                later = 1;
        it->detached = !later;
    }
}

/* Replay the buffered records' events up to time cutoff (all: every event); what is
 * not finished stays buffered.  A syscall whose entry was printed keeps entry_done. */
static void flush_items(struct cat_ctx *c, int all, uint64_t cutoff)
{
    struct cat_syscall_state *S = c->syscall;
    if (!S->n)
        return;
    if (!S->prefix && (c->o->follow || S->follow_meta || S->ntids > 1 || c->multi_process))
        S->prefix = 1;
    if (all)
        mark_detached(S);
    struct event *ev = malloc(2 * S->n * sizeof *ev);
    if (!ev)
        return;
    size_t ne = 0;
    for (size_t i = 0; i < S->n; i++) {
        struct sc_item *it = &S->items[i];
        if (!it->entry_done)
            ev[ne++] = (struct event){ it->time, 2 * (uint64_t)i, i, 0 };
        if (it->type == TR_REC_SYSCALL)
            ev[ne++] = (struct event){ it->time + it->dur, 2 * (uint64_t)i + 1, i, 1 };
    }
    qsort(ev, ne, sizeof *ev, cmp_event);
    for (size_t k = 0; k < ne; k++) {
        if (!all && ev[k].time > cutoff)
            break;
        struct sc_item *it = &S->items[ev[k].item];
        if (it->type == TR_REC_SIGNAL) {
            emit_signal(c, it);
            it->done = 1;
        } else if (it->type == TR_REC_EXIT) {
            emit_exit_record(c, it);
            it->done = 1;
        } else if (!ev[k].exit) {
            emit_entry(c, ev[k].item);
            it->entry_done = 1;
        } else {
            emit_exit(c, ev[k].item);
            it->done = 1;
        }
    }
    free(ev);
    size_t j = 0;
    for (size_t i = 0; i < S->n; i++) {
        if (S->items[i].done) {
            free_item(&S->items[i]);
            continue;
        }
        if (S->open_tid && S->open_item == i)
            S->open_item = j;
        S->items[j++] = S->items[i];
    }
    S->n = j;
    if (all && S->open_tid) {
        out_line(c); /* cannot happen: every syscall has its exit event */
        S->open_tid = 0;
    }
    fflush(c->out);
}

/* Reading a pipe (tr-rec-strace ... | tr-cat): print as the trace comes, a little late.
 * Files are replayed exactly (a call blocked longer than the lag would print late). */
static int is_live(struct cat_ctx *c)
{
    struct cat_syscall_state *S = c->syscall;
    if (S->live < 0)
        S->live = cat_input_live(c);
    return S->live;
}

static void note_oldest(struct cat_syscall_state *S)
{
    S->oldest = UINT64_MAX;
    for (size_t i = 0; i < S->n; i++)
        if (S->items[i].time < S->oldest)
            S->oldest = S->items[i].time;
}

/* Keep the buffer small and a live pipe moving: print what is old enough. */
static void flush_some(struct cat_ctx *c, uint64_t newest)
{
    struct cat_syscall_state *S = c->syscall;
    if (newest > S->newest)
        S->newest = newest;
    if (S->n >= WINDOW_MAX) {
        /* the oldest half of the events */
        uint64_t lo = UINT64_MAX, hi = 0;
        for (size_t i = 0; i < S->n; i++) {
            if (S->items[i].time < lo) lo = S->items[i].time;
            if (S->items[i].time > hi) hi = S->items[i].time;
        }
        flush_items(c, 0, lo + (hi - lo) / 2);
    } else if (is_live(c) && newest > CAT_LIVE_LAG_NS && newest - CAT_LIVE_LAG_NS > S->oldest && S->n) {
        flush_items(c, 0, newest - CAT_LIVE_LAG_NS);
        note_oldest(S);
    }
}

void cat_syscall_idle(struct cat_ctx *c)
{
    struct cat_syscall_state *S = c->syscall;
    if (!S || !S->n || c->o->json || !is_live(c))
        return;
    uint64_t until = cat_idle_until(S->newest, S->oldest);
    if (!until)
        return;
    flush_items(c, 0, until);
    note_oldest(S);
}

static struct sc_item *new_item(struct cat_syscall_state *S)
{
    if (array_reserve(&S->items, &S->cap, S->n + 1, sizeof *S->items, 1024) < 0)
        return NULL;
    struct sc_item *it = &S->items[S->n++];
    memset(it, 0, sizeof *it);
    return it;
}

static void note_tid(struct cat_syscall_state *S, int32_t tid)
{
    if (S->ntids < 2 && (S->ntids == 0 || S->tids[0] != tid))
        S->tids[S->ntids++] = tid;
}

/* The stack of a syscall as strace -k prints it: one " > " line per frame,
 * leaf first, "module(function+0xoffset) [0xaddress in the file]" (the
 * address itself when its mapping is unknown; "module()" when the frame
 * has no name: run tr-symbolize first).  NULL when there is none. */
static char *stack_lines(struct cat_ctx *c, const tr_record *rec)
{
    const uint32_t *fr;
    int n = rec->u.syscall.stack ? tr_reader_stack(c->r, rec->u.syscall.stack, &fr) : 0;
    if (n <= 0)
        return NULL;
    struct syscalls_buf b = {0};
    for (int i = 0; i < n; i++) {
        const tr_frame *f = tr_reader_frame(c->r, fr[i]);
        if (!f) {
            syscalls_buf_puts(&b, " > [frame lost]\n");
            continue;
        }
        uint64_t off = f->addr;
        const char *mod = cat_module_of(c, rec->pid, f->addr, &off);
        const char *fn = NULL;
        if (f->flags & TR_FRAME_SYMBOLIZED) {
            const char *m = tr_reader_string(c->r, f->module, NULL);
            fn = tr_reader_string(c->r, f->func, NULL);
            mod = m ? m : mod;
            if (fn && !strcmp(fn, "[unknown]"))
                fn = NULL; /* no symbol there: "module()", as strace prints it */
        }
        syscalls_buf_printf(&b, " > %s(", cat_text(c, mod ? mod : "[unknown]"));
        if (fn)
            syscalls_buf_printf(&b, "%s+0x%" PRIx64, cat_text(c, fn), f->offset);
        syscalls_buf_printf(&b, ") [0x%" PRIx64 "]%s\n", off, f->flags & TR_FRAME_INLINE ? " (inlined)" : "");
    }
    return b.p;
}

static int copy_syscall(struct cat_ctx *c, struct sc_item *it, const tr_record *rec)
{
    it->type = rec->type;
    it->time = rec->time;
    it->pid = rec->pid;
    it->tid = rec->tid;
    it->nr = rec->u.syscall.nr;
    it->flags = rec->u.syscall.flags;
    it->ret = rec->u.syscall.ret;
    it->dur = rec->u.syscall.duration;
    it->nargs = rec->u.syscall.nargs;
    memcpy(it->args, rec->u.syscall.args, sizeof it->args);
    size_t total = 0;
    uint32_t n = rec->u.syscall.ncaptures < TR_MAX_CAPTURES ? rec->u.syscall.ncaptures : TR_MAX_CAPTURES;
    for (uint32_t i = 0; i < n; i++)
        total += rec->u.syscall.captures[i].len;
    it->data = total ? malloc(total) : NULL;
    if (total && !it->data)
        return -1;
    size_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        const tr_capture *cp = &rec->u.syscall.captures[i];
        it->cap[i] = (struct sc_cap){ cp->arg, cp->kind, cp->flags, off, cp->len };
        if (cp->len)
            memcpy(it->data + off, cp->data, cp->len);
        off += cp->len;
    }
    it->ncap = n;
    it->stack = stack_lines(c, rec);
    return 0;
}

static void note_clock(struct cat_ctx *c)
{
    struct cat_syscall_state *S = c->syscall;
    if (S->have_real || !c->r)
        return;
    const char *m = tr_reader_meta(c->r, META_TIME_MONOTONIC_NS);
    const char *r = tr_reader_meta(c->r, META_TIME_REALTIME_NS);
    if (m && r) {
        S->real_minus_mono = (int64_t)(strtoull(r, NULL, 10) - strtoull(m, NULL, 10));
        S->have_real = 1;
    }
}

/* ---- JSON ------------------------------------------------------------------------ */

static const char *cap_kind_name(uint32_t k)
{
    static const char *const n[] = { "string", "buffer", "struct", "fd_path", "strings" };
    return k < 5 ? n[k] : "unknown";
}

static void json_hex(FILE *f, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%02x", p[i]);
}

static int json_syscall(struct cat_ctx *c, const tr_record *rec)
{
    struct sc_item it;
    memset(&it, 0, sizeof it);
    if (copy_syscall(c, &it, rec) < 0)
        return -1;
    FILE *f = c->out;
    const char *name = sc_sys_name(c, it.nr);
    struct syscalls_buf b = {0};
    sc_format_entry(c, &it, &b);
    sc_format_exit(c, &it, &b, 0);
    /* the padding belongs to the text form */
    char *eq = strstr(b.p, ") ");
    fprintf(f, "{\"type\":\"syscall\",\"time\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"nr\":%u,\"name\":\"",
            it.time, it.pid, it.tid, it.nr);
    json_str(f, name, strlen(name));
    fprintf(f, "\",\"args\":[");
    for (unsigned i = 0; i < it.nargs && i < 6; i++)
        fprintf(f, "%s%" PRIu64, i ? "," : "", it.args[i]);
    fprintf(f, "]");
    if (it.flags & TR_SYSF_HAS_RET) {
        fprintf(f, ",\"ret\":%" PRId64, it.ret);
        if (sc_is_err(it.ret)) {
            const char *en = syscalls_errno_name((int)-it.ret);
            fprintf(f, ",\"errno\":\"%s\"", en ? en : "");
        }
    } else {
        fprintf(f, ",\"ret\":null,\"unfinished\":true");
    }
    fprintf(f, ",\"duration_ns\":%" PRIu64, it.dur);
    if (rec->u.syscall.stack) {
        const uint32_t *fr;
        int depth = tr_reader_stack(c->r, rec->u.syscall.stack, &fr);
        fprintf(f, ",\"stack\":%u,\"frames\":[", rec->u.syscall.stack);
        for (int k = 0; k < depth; k++) {
            const tr_frame *fm = tr_reader_frame(c->r, fr[k]);
            fprintf(f, "%s\"%#llx\"", k ? "," : "", fm ? (unsigned long long)fm->addr : 0ull);
        }
        fputc(']', f);
    }
    fprintf(f, ",\"captures\":[");
    for (uint32_t i = 0; i < it.ncap; i++) {
        const struct sc_cap *cp = &it.cap[i];
        fprintf(f, "%s{\"arg\":%u,\"kind\":\"%s\",\"exit\":%s,\"truncated\":%s,\"hex\":\"", i ? "," : "",
                cp->arg, cap_kind_name(cp->kind), (cp->flags & TR_CAPF_EXIT) ? "true" : "false",
                (cp->flags & TR_CAPF_TRUNCATED) ? "true" : "false");
        json_hex(f, it.data + cp->off, cp->len);
        fprintf(f, "\"}");
    }
    fprintf(f, "],\"decoded\":\"");
    if (eq) {
        /* collapse the alignment spaces before "= " */
        size_t head = (size_t)(eq - b.p) + 1;
        json_str(f, b.p, head);
        const char *rest = b.p + head;
        while (*rest == ' ')
            rest++;
        fputc(' ', f);
        json_str(f, rest, strlen(rest));
    } else {
        json_str(f, b.p, b.len);
    }
    fprintf(f, "\"}\n");
    syscalls_buf_free(&b);
    free_item(&it);
    return 0;
}

static int json_signal_or_exit(struct cat_ctx *c, const tr_record *rec)
{
    FILE *f = c->out;
    struct syscalls_buf b = {0};
    if (rec->type == TR_REC_SIGNAL) {
        const char *sname = syscalls_signal_name((int)rec->u.signal.signo);
        fprintf(f, "{\"type\":\"signal\",\"time\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"signo\":%u,\"code\":%d,\"flags\":%u,\"name\":\"%s\"",
                rec->time, rec->pid, rec->tid, rec->u.signal.signo, rec->u.signal.code,
                rec->u.signal.flags, sname ? sname : "");
        if (rec->u.signal.siginfo_len) {
            syscalls_print_siginfo(&b, rec->u.signal.siginfo, rec->u.signal.siginfo_len);
            fprintf(f, ",\"decoded\":\"");
            json_str(f, b.p, b.len);
            fprintf(f, "\"");
        }
        fprintf(f, "}\n");
    } else {
        int st = rec->u.exit.status;
        fprintf(f, "{\"type\":\"exit\",\"time\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"status\":%d", rec->time,
                rec->pid, rec->tid, st);
        if ((st & 0x7f) == 0)
            fprintf(f, ",\"exit_code\":%d}\n", (st >> 8) & 0xff);
        else
            fprintf(f, ",\"signal\":\"%s\",\"core_dumped\":%s}\n",
                    syscalls_signal_name(st & 0x7f) ? syscalls_signal_name(st & 0x7f) : "",
                    (st & 0x80) ? "true" : "false");
    }
    syscalls_buf_free(&b);
    return 0;
}

/* ---- hooks ------------------------------------------------------------------------- */

/* 1 for a stream of tr-rec-strace (its -f read once from the metadata). */
static int strace_stream(struct cat_ctx *c)
{
    struct cat_syscall_state *S = c->syscall;
    if (cat_view(c) != CAT_VIEW_SYSCALLS)
        return 0;
    if (!S->follow_read) {
        const char *f = tr_reader_meta(c->r, META_STRACE_FOLLOW);
        S->follow_meta = f && f[0] == '1';
        /* what tr-rec-strace -t/-T recorded, as if given to tr-cat */
        const char *t = tr_reader_meta(c->r, META_STRACE_TIMESTAMPS);
        if (t && t[0] >= '1' && t[0] <= '3' && t[0] - '0' > S->timestamps)
            S->timestamps = t[0] - '0';
        t = tr_reader_meta(c->r, META_STRACE_SYSCALL_TIMES);
        S->show_time = c->o->show_time || (t && t[0] == '1');
        S->follow_read = 1;
    }
    return 1;
}

int cat_syscall_record(struct cat_ctx *c, const tr_record *rec)
{
    struct cat_syscall_state *S = state_of(c);
    if (!S)
        return -1;
    int strace = strace_stream(c);
    switch (rec->type) {
    case TR_REC_META: /* strace prints no metadata */
    case TR_REC_SYSCALL_TABLE:
    case TR_REC_BLOB:
    case TR_REC_COMM:
    case TR_REC_FORK:
    case TR_REC_MMAP: /* -k: the mappings of its stacks */
    case TR_REC_MODULE_STATUS:
        return strace && !c->o->json ? 1 : 0;
    case TR_REC_STREAM_START:
        return 0;
    case TR_REC_STREAM_END:
        if (!c->o->json)
            flush_items(c, 1, 0);
        return strace && !c->o->json ? 1 : 0;
    case TR_REC_SYSCALL:
    case TR_REC_SIGNAL:
    case TR_REC_EXIT:
        break;
    default:
        return 0;
    }
    if (rec->type != TR_REC_SYSCALL && !strace)
        return 0; /* signals and exits of other recorders: generic output */
    if (c->o->json)
        return (rec->type == TR_REC_SYSCALL ? json_syscall(c, rec) : json_signal_or_exit(c, rec)) < 0 ? -1 : 1;
    note_clock(c);
    struct sc_item *it = new_item(S);
    if (!it)
        return -1;
    note_tid(S, rec->tid);
    if (rec->type == TR_REC_SYSCALL) {
        if (copy_syscall(c, it, rec) < 0) {
            S->n--;
            return -1;
        }
    } else {
        it->type = rec->type;
        it->time = rec->time;
        it->pid = rec->pid;
        it->tid = rec->tid;
        if (rec->type == TR_REC_SIGNAL) {
            it->nr = rec->u.signal.signo;
            it->flags = rec->u.signal.flags;
            it->code = rec->u.signal.code;
            if (rec->u.signal.siginfo_len) {
                it->data = malloc(rec->u.signal.siginfo_len);
                if (it->data) {
                    memcpy(it->data, rec->u.signal.siginfo, rec->u.signal.siginfo_len);
                    it->data_len = rec->u.signal.siginfo_len;
                }
            }
        } else {
            it->ret = rec->u.exit.status;
            it->flags = rec->u.exit.flags;
        }
    }
    if (S->n == 1 || it->time < S->oldest)
        S->oldest = it->time;
    flush_some(c, rec->time);
    return 1;
}

/* ---- summary (strace -c) --------------------------------------------------------- */

int cat_syscall_account(struct cat_ctx *c, const tr_record *rec)
{
    if (rec->type != TR_REC_SYSCALL)
        return 0;
    if (!(rec->u.syscall.flags & TR_SYSF_HAS_RET))
        return 1; /* strace -c counts the calls that returned */
    struct cat_syscall_state *S = state_of(c);
    if (!S)
        return -1;
    uint32_t nr = rec->u.syscall.nr;
    if (syscount_add(&S->count, nr, sc_sys_name(c, nr), sc_is_err(rec->u.syscall.ret),
                     rec->u.syscall.duration) < 0)
        return -1;
    return 1;
}

int cat_syscall_summary(struct cat_ctx *c)
{
    struct cat_syscall_state *S = c->syscall;
    if (!S || !S->count.nrows)
        return 0;
    syscount_sort(&S->count, c->o->sort_by);
    syscalls_buf_reset(&S->line);
    if (c->o->json)
        syscount_format_json(&S->count, &S->line);
    else if (!c->o->wall_clock) /* strace -c shows system time, which traces do not hold */
        fputs("wall-clock time in syscalls, as strace -c -w (the trace holds no system time)\n", c->out);
    if (!c->o->json)
        syscount_format(&S->count, &S->line);
    fputs(S->line.p, c->out);
    syscalls_buf_reset(&S->line);
    return ferror(c->out) ? -1 : 0;
}

void cat_syscall_reset(struct cat_ctx *c)
{
    struct cat_syscall_state *S = c->syscall;
    if (!S)
        return;
    if (S->n && !c->o->json)
        flush_items(c, 1, 0);
    for (size_t i = 0; i < S->n; i++)
        free_item(&S->items[i]);
    free(S->items);
    syscount_free(&S->count);
    syscalls_buf_free(&S->line);
    syscalls_table_free(&S->table);
    free(S);
    c->syscall = NULL;
}
