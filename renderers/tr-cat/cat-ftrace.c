/* cat-ftrace.c - tracepoint events (TR_REC_TRACE_EVENT) decoded with the stream's
 * tracepoint formats (model/tpformat.h: ftrace/header_page, ftrace/format/SYS/EVENT,
 * ftrace/printk_formats, ftrace/saved_cmdlines); kernel functions in fields named from
 * the stream's kallsyms, found ahead in a file; nothing is read from the running machine.
 * Text is trace-cmd report's: "comm-pid [cpu] time: event: fields". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cat.h"
#include "hashmap.h"
#include "keys.h"
#include "tpformat.h"

struct ev_count {
    char *name;
    uint64_t n;
};
struct task_count {
    int32_t tid;
    char comm[32];
    uint64_t n;
};

/* The view's state for the current stream (c->ftrace). */
struct cat_ftrace_state {
    tpformat *tp;          /* the stream's tracepoint formats, shared with cat-sample.c */
    /* --summary */
    struct ev_count *ev;
    size_t nev, capev;
    hashmap ev_by_name;    /* (hash, length) of a name -> index + 1 in ev */
    struct task_count *tasks;
    size_t ntasks, captasks;
    hashmap task_by_tid;   /* tid -> index + 1 in tasks */
    uint64_t lost, events;
};

static struct cat_ftrace_state *state(struct cat_ctx *c)
{
    if (!c->ftrace)
        c->ftrace = calloc(1, sizeof *c->ftrace);
    return c->ftrace;
}

struct tpformat *cat_tpformat(struct cat_ctx *c)
{
    struct cat_ftrace_state *f = state(c);
    if (f && !f->tp) {
        if (tpformat_new(&f->tp) < 0)
            return NULL;
        if (c->sym) /* kernel functions named from the kallsyms found ahead in a file */
            tpformat_set_resolver(f->tp, cat_sym_kernel, c);
    }
    return f ? f->tp : NULL;
}

/* The event of a tracepoint record, from a tr-rec-ftrace stream's formats
 * (its header page stored: a stream without one prints generic lines). */
static const tpformat_event *event_for(struct cat_ctx *c, const tr_record *rec)
{
    tpformat *tp = cat_tpformat(c);
    if (!tp || tpformat_use(tp, c->r, rec->u.trace_event.flags) < 0 || !tpformat_has_header_page(tp) ||
        rec->u.trace_event.len < 8)
        return NULL;
    return tpformat_event_of(tp, rec->u.trace_event.data, rec->u.trace_event.len);
}

static const char *comm_of(struct cat_ctx *c, int32_t tid)
{
    const char *s = cat_comm_raw(c, tid);
    if (strcmp(s, "-"))
        return s;
    if (tid == 0)
        return "<idle>";
    if (c->ftrace && c->ftrace->tp && (s = tpformat_comm(c->ftrace->tp, tid)))
        return s;
    return "<...>";
}

static int print_text(struct cat_ctx *c, const tr_record *rec, const tpformat_event *ev)
{
    const char *info = tpformat_print(c->ftrace->tp, ev, rec->time, rec->cpu, rec->u.trace_event.data,
                                      rec->u.trace_event.len);
    FILE *f = c->out;
    fprintf(f, "%16s-%-7d [%03d] ", cat_text(c, comm_of(c, rec->tid)), rec->tid, rec->cpu);
    cat_time(f, rec->time);
    fprintf(f, ": %s: ", tpformat_event_name(ev));
    fprintf(f, "%s\n", info ? cat_text(c, info) : "");
    return ferror(f) ? -1 : 1;
}

/* ---- JSON: the parsed fields by name ---- */

static int64_t sign_extend(uint64_t v, int size)
{
    if (size >= 8 || size <= 0)
        return (int64_t)v;
    unsigned bits = (unsigned)size * 8;
    uint64_t m = 1ull << (bits - 1);
    return (int64_t)((v ^ m) - m);
}

static void json_number(FILE *f, const tpformat_field *fd, uint32_t flags, const uint8_t *p, int size)
{
    uint64_t v = tpformat_number(flags, p, size);
    if (fd->flags & TPF_POINTER)
        fprintf(f, "\"0x%" PRIx64 "\"", v);
    else if (fd->flags & TPF_SIGNED)
        fprintf(f, "%" PRId64, sign_extend(v, size));
    else
        fprintf(f, "%" PRIu64, v);
}

static void json_cstring(FILE *f, const uint8_t *p, size_t max)
{
    size_t n = 0;
    while (n < max && p[n])
        n++;
    fputc('"', f);
    json_str(f, (const char *)p, n);
    fputc('"', f);
}

static void json_array(FILE *f, const tpformat_field *fd, uint32_t flags, const uint8_t *p, size_t len)
{
    int es = fd->elementsize > 0 && fd->elementsize <= 8 ? fd->elementsize : 1;
    fputc('[', f);
    for (size_t i = 0; i + (size_t)es <= len; i += (size_t)es) {
        if (i)
            fputc(',', f);
        json_number(f, fd, flags, p + i, es);
    }
    fputc(']', f);
}

static void json_field(FILE *f, const tpformat_field *fd, uint32_t flags, const uint8_t *data, size_t len)
{
    const uint8_t *p;
    size_t n;
    if (tpformat_field_bytes(fd, flags, data, len, &p, &n) < 0) {
        fputs("null", f);
        return;
    }
    if (fd->flags & (TPF_DYNAMIC | TPF_ARRAY)) {
        if (fd->flags & TPF_STRING)
            json_cstring(f, p, n);
        else
            json_array(f, fd, flags, p, n);
        return;
    }
    if (fd->size > 8) {
        json_array(f, fd, flags, p, n);
        return;
    }
    json_number(f, fd, flags, p, fd->size);
}

static int print_json(struct cat_ctx *c, const tr_record *rec, const tpformat_event *ev)
{
    FILE *f = c->out;
    fprintf(f, "{\"type\":\"trace_event\",\"stream\":%u,\"time\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"cpu\":%d,",
            rec->stream, rec->time, rec->pid, rec->tid, rec->cpu);
    const char *comm = comm_of(c, rec->tid);
    fputs("\"comm\":\"", f);
    json_str(f, comm, strlen(comm));
    fputs("\",\"event\":\"", f);
    const char *sys = tpformat_event_system(ev), *name = tpformat_event_name(ev);
    json_str(f, sys, strlen(sys));
    fputc(':', f);
    json_str(f, name, strlen(name));
    fprintf(f, "\",\"flags\":%u,\"hex\":\"", rec->u.trace_event.flags);
    for (size_t i = 0; i < rec->u.trace_event.len; i++)
        fprintf(f, "%02x", rec->u.trace_event.data[i]);
    fputs("\",\"fields\":{", f);
    tpformat_field fd;
    for (size_t i = 0; tpformat_field_at(ev, i, &fd); i++) {
        fprintf(f, "%s\"", i ? "," : "");
        json_str(f, fd.name, strlen(fd.name));
        fputs("\":", f);
        json_field(f, &fd, rec->u.trace_event.flags, rec->u.trace_event.data, rec->u.trace_event.len);
    }
    fputs("}}\n", f);
    return ferror(f) ? -1 : 1;
}

int cat_ftrace_record(struct cat_ctx *c, const tr_record *rec)
{
    if ((rec->type == TR_REC_COMM || rec->type == TR_REC_LOST || rec->type == TR_REC_EXIT) && !c->o->json &&
        !c->o->raw) {
        if (cat_view(c) != CAT_VIEW_TRACEPOINTS)
            return 0;
        /* tr-rec-ftrace names tasks with COMM records as it first sees them,
         * and ends with the command's EXIT; trace-cmd report prints no such
         * lines (the exit status shows in --json and --info), and losses as it does */
        if (rec->type == TR_REC_LOST)
            fprintf(c->out, "CPU:%d [LOST %" PRIu64 " EVENTS]\n", rec->cpu, rec->u.lost.count);
        return ferror(c->out) ? -1 : 1;
    }
    if (rec->type != TR_REC_TRACE_EVENT || c->o->raw)
        return 0;
    const tpformat_event *ev = event_for(c, rec);
    if (!ev)
        return 0; /* no stored format: the generic line with the raw size */
    return c->o->json ? print_json(c, rec, ev) : print_text(c, rec, ev);
}

/* ---- --summary: counts per event and per task ---- */

static const char *event_name(struct cat_ctx *c, const tr_record *rec, char *buf, size_t len)
{
    const tr_event_def *d = tr_reader_event(c->r, rec->u.trace_event.event);
    if (d && d->name)
        snprintf(buf, len, "%.*s", (int)d->name_len, d->name);
    else
        snprintf(buf, len, "event#%u", rec->u.trace_event.event);
    return buf;
}

/* The index of the count of event name in f->ev, a new one when needed; -1 out of memory. */
static long ev_index(struct cat_ftrace_state *f, const char *name)
{
    size_t len = strlen(name);
    uint64_t h = hash_bytes(name, len);
    uintptr_t k = (uintptr_t)hashmap_get(&f->ev_by_name, h, len);
    if (k && !strcmp(f->ev[k - 1].name, name))
        return (long)k - 1;
    if (k) /* another name of the same hash: look it up the long way */
        for (size_t i = 0; i < f->nev; i++)
            if (!strcmp(f->ev[i].name, name))
                return (long)i;
    if (array_reserve(&f->ev, &f->capev, f->nev + 1, sizeof *f->ev, 16) < 0)
        return -1;
    struct ev_count *e = &f->ev[f->nev];
    e->name = strdup(name);
    e->n = 0;
    if (!e->name)
        return -1;
    f->nev++;
    if (!k && hashmap_put(&f->ev_by_name, h, len, (void *)(uintptr_t)f->nev) < 0)
        return -1;
    return (long)f->nev - 1;
}

static long task_index(struct cat_ftrace_state *f, int32_t tid)
{
    uintptr_t k = (uintptr_t)hashmap_get(&f->task_by_tid, (uint64_t)(uint32_t)tid, 0);
    if (k)
        return (long)k - 1;
    if (array_reserve(&f->tasks, &f->captasks, f->ntasks + 1, sizeof *f->tasks, 16) < 0)
        return -1;
    struct task_count *t = &f->tasks[f->ntasks++];
    t->tid = tid;
    t->n = 0;
    t->comm[0] = 0;
    if (hashmap_put(&f->task_by_tid, (uint64_t)(uint32_t)tid, 0, (void *)(uintptr_t)f->ntasks) < 0)
        return -1;
    return (long)f->ntasks - 1;
}

int cat_ftrace_account(struct cat_ctx *c, const tr_record *rec)
{
    if (rec->type != TR_REC_TRACE_EVENT && !(rec->type == TR_REC_LOST && rec->u.lost.kind == TR_LOST_OVERRUN))
        return 0;
    struct cat_ftrace_state *f = state(c);
    if (!f)
        return -1;
    if (rec->type == TR_REC_LOST) {
        f->lost += rec->u.lost.count;
        return 0;
    }
    f->events++;
    char name[256];
    event_name(c, rec, name, sizeof name);
    long i = ev_index(f, name);
    if (i < 0)
        return -1;
    f->ev[i].n++;
    if ((i = task_index(f, rec->tid)) < 0)
        return -1;
    struct task_count *t = &f->tasks[i];
    if (!t->comm[0] || !strcmp(t->comm, "<...>"))
        snprintf(t->comm, sizeof t->comm, "%s", comm_of(c, rec->tid));
    t->n++;
    return 0;
}

static int cmp_ev(const void *a, const void *b)
{
    const struct ev_count *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int cmp_task(const void *a, const void *b)
{
    const struct task_count *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int cat_ftrace_summary(struct cat_ctx *c)
{
    struct cat_ftrace_state *st = c->ftrace;
    if (!st || !st->events)
        return 0;
    FILE *f = c->out;
    qsort(st->ev, st->nev, sizeof *st->ev, cmp_ev);
    qsort(st->tasks, st->ntasks, sizeof *st->tasks, cmp_task);
    if (c->o->json) {
        for (size_t i = 0; i < st->nev; i++) {
            fputs("{\"type\":\"trace_event_count\",\"event\":\"", f);
            json_str(f, st->ev[i].name, strlen(st->ev[i].name));
            fprintf(f, "\",\"count\":%" PRIu64 "}\n", st->ev[i].n);
        }
        for (size_t i = 0; i < st->ntasks; i++) {
            fputs("{\"type\":\"trace_task_count\",\"comm\":\"", f);
            json_str(f, st->tasks[i].comm, strlen(st->tasks[i].comm));
            fprintf(f, "\",\"tid\":%d,\"count\":%" PRIu64 "}\n", st->tasks[i].tid, st->tasks[i].n);
        }
        fprintf(f, "{\"type\":\"trace_event_total\",\"count\":%" PRIu64 ",\"lost\":%" PRIu64 "}\n", st->events,
                st->lost);
        return ferror(f) ? -1 : 0;
    }
    fprintf(f, "%12s  %s\n", "events", "tracepoint");
    for (size_t i = 0; i < st->nev; i++)
        fprintf(f, "%12" PRIu64 "  %s\n", st->ev[i].n, st->ev[i].name);
    fprintf(f, "%12" PRIu64 "  total\n", st->events);
    if (st->lost)
        fprintf(f, "%12" PRIu64 "  lost (ring buffer overruns)\n", st->lost);
    fprintf(f, "\n%12s  %s\n", "events", "task");
    for (size_t i = 0; i < st->ntasks; i++)
        fprintf(f, "%12" PRIu64 "  %s-%d\n", st->tasks[i].n, cat_text(c, st->tasks[i].comm), st->tasks[i].tid);
    return ferror(f) ? -1 : 0;
}

void cat_ftrace_reset(struct cat_ctx *c)
{
    struct cat_ftrace_state *f = c->ftrace;
    if (!f)
        return;
    tpformat_free(f->tp);
    for (size_t i = 0; i < f->nev; i++)
        free(f->ev[i].name);
    free(f->ev);
    hashmap_free(&f->ev_by_name);
    free(f->tasks);
    hashmap_free(&f->task_by_tid);
    free(f);
    c->ftrace = NULL;
}
