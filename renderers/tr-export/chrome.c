/* chrome.c - tr-export --chrome: Chrome trace event JSON, the object form
 * (what Perfetto and chrome://tracing open):
 *   traceEvents: syscalls and library calls as complete ("X") events on their
 *     thread (without arguments: viewers tell frames apart by name and
 *     arguments, and a call's return value would make each call a frame), tracepoint events as thread instants ("i"), sched_switch as the
 *     switched-out thread's state ("X" slices "[off-cpu S]" ... until it runs
 *     again, as tr-fold --offcpu counts them), process and thread names ("M");
 *   samples: stack samples (cpu, pid, tid, ts, name, sf, weight), when there are any;
 *   stackFrames: the frames of the samples' and calls' stacks, as a tree.
 * Timestamps are microseconds on the trace's clock.  Events and samples are
 * written as they are read (samples through a temporary file, their array
 * coming after the events'); memory grows with the distinct stack prefixes
 * and the threads, not with the trace's length. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "hashmap.h"
#include "json.h"
#include "keys.h"
#include "smap.h"
#include "tpformat.h"

struct chrome {
    struct exp *x;
    FILE *samples;           /* the samples array, written beside the events */
    uint64_t nevents, nsamples;
    struct smap nodes;       /* parent id (u32) + "func\0module" -> id - 1 */
    char *kbuf;
    size_t kcap;
    hashmap named;           /* tid -> the comm its thread_name event gave */
    offcpu *off;
    tpformat *tp;
    int nomem;
};

static void begin(struct chrome *c, const char *ph, const char *name, int32_t pid, int32_t tid)
{
    FILE *f = c->x->out;
    fputs(c->nevents++ ? ",\n{" : "\n{", f);
    fprintf(f, "\"ph\":\"%s\",\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"name\":", ph, pid, tid);
    exp_json(f, name);
}

/* The thread's (and for a main thread its process's) name, when new. */
static void name_thread(struct chrome *c, int32_t pid, int32_t tid)
{
    if (tid <= 0)
        return;
    const char *comm = procs_comm(c->x->procs, tid);
    if (!comm || hashmap_get(&c->named, (uint32_t)tid, 0) == comm)
        return;
    if (hashmap_put(&c->named, (uint32_t)tid, 0, (void *)(uintptr_t)comm) < 0)
        c->nomem = 1;
    for (int proc = 0; proc < 1 + (pid == tid); proc++) {
        begin(c, "M", proc ? "process_name" : "thread_name", pid, tid);
        fputs(",\"args\":{\"name\":", c->x->out);
        exp_json(c->x->out, comm);
        fputs("}}", c->x->out);
    }
}

/* The stackFrames node of frames fr[0..n) (leaf first), 0 for none. */
static uint64_t node_of(struct chrome *c, const sym_frame *fr, int n)
{
    uint32_t parent = 0;
    for (int i = n - 1; i >= 0; i--) {
        size_t fl = strlen(fr[i].func), ml = strlen(fr[i].module), len = 4 + fl + 1 + ml;
        if (len > c->kcap) {
            char *k = realloc(c->kbuf, len);
            if (!k)
                return c->nomem = 1, 0;
            c->kbuf = k, c->kcap = len;
        }
        memcpy(c->kbuf, &parent, 4);
        memcpy(c->kbuf + 4, fr[i].func, fl + 1);
        memcpy(c->kbuf + 5 + fl, fr[i].module, ml);
        struct smap_entry *e = smap_get(&c->nodes, c->kbuf, len);
        if (!e)
            return c->nomem = 1, 0;
        parent = (uint32_t)(e - c->nodes.e) + 1;
    }
    return parent;
}

static uint64_t stack_node(struct chrome *c, const tr_record *rec)
{
    const sym_frame *fr;
    int n = exp_frames(c->x, rec, &fr);
    if (n < 0)
        return c->nomem = 1, 0;
    return node_of(c, fr, n);
}

/* A wait ended: the thread's state from its switch-out (cookie: prev_state + 1). */
static void wait_ended(void *ctx, uint64_t state, int32_t tid, uint64_t start, uint64_t end)
{
    struct chrome *c = ctx;
    begin(c, "X", offcpu_state_name((int64_t)state - 1), procs_pid_of(c->x->procs, tid), tid);
    fputs(",\"cat\":\"sched\",\"ts\":", c->x->out);
    exp_us(c->x->out, start);
    fputs(",\"dur\":", c->x->out);
    exp_us(c->x->out, end - start);
    fputc('}', c->x->out);
}

static void *chrome_start(struct exp *x)
{
    struct chrome *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->x = x;
    smap_init(&c->nodes);
    if (!(c->samples = tmpfile()) || !(c->off = offcpu_new(wait_ended, c)) || tpformat_new(&c->tp) < 0) {
        if (c->samples)
            fclose(c->samples);
        offcpu_free(c->off);
        free(c);
        return NULL;
    }
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", x->out);
    return c;
}

static void call(struct chrome *c, const tr_record *rec)
{
    FILE *f = c->x->out;
    char buf[64];
    int lib = rec->type == TR_REC_LIBCALL;
    uint64_t node = stack_node(c, rec);
    begin(c, "X", exp_call_name(c->x, rec, buf, sizeof buf), rec->pid, rec->tid);
    fprintf(f, ",\"cat\":\"%s\",\"ts\":", lib ? "libcall" : "syscall");
    exp_us(f, rec->time);
    fputs(",\"dur\":", f);
    exp_us(f, lib ? rec->u.libcall.duration : rec->u.syscall.duration);
    if (node)
        fprintf(f, ",\"sf\":%" PRIu64, node);
    fputc('}', f);
}

static void trace_event(struct chrome *c, const tr_record *rec)
{
    FILE *f = c->x->out;
    const uint8_t *d = rec->u.trace_event.data;
    size_t n = rec->u.trace_event.len;
    begin(c, "i", exp_event(c->x, rec->u.trace_event.event, NULL), rec->pid, rec->tid);
    fputs(",\"cat\":\"tracepoint\",\"s\":\"t\",\"ts\":", f);
    exp_us(f, rec->time);
    const tpformat_event *ev = NULL;
    if (tpformat_use(c->tp, c->x->r, rec->u.trace_event.flags) >= 0)
        ev = tpformat_event_of(c->tp, d, n);
    const char *text = ev ? tpformat_print(c->tp, ev, rec->time, rec->cpu, d, n) : NULL;
    if (text) {
        fputs(",\"args\":{\"fields\":", f);
        exp_json(f, text);
        fputc('}', f);
    }
    fputc('}', f);
}

static void sample(struct chrome *c, const tr_record *rec)
{
    FILE *f = c->samples;
    uint64_t node = stack_node(c, rec);
    fprintf(f, "%s{\"cpu\":%" PRId32 ",\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"ts\":", c->nsamples++ ? ",\n" : "\n",
            rec->cpu, rec->pid, rec->tid);
    exp_us(f, rec->time);
    fputs(",\"name\":", f);
    exp_json(f, exp_event(c->x, rec->u.sample.event, NULL));
    if (node)
        fprintf(f, ",\"sf\":%" PRIu64, node);
    fprintf(f, ",\"weight\":%" PRIu64 "}", rec->u.sample.period);
}

static int chrome_record(void *st, struct exp *x, const tr_record *rec)
{
    struct chrome *c = st;
    offcpu_switch_info sw;
    if (rec->type == TR_REC_STREAM_START)
        tpformat_reset(c->tp);
    int waits = exp_offcpu(x, c->off, rec, &sw);
    switch (rec->type) {
    case TR_REC_SYSCALL:
    case TR_REC_LIBCALL:
        name_thread(c, rec->pid, rec->tid);
        call(c, rec);
        break;
    case TR_REC_TRACE_EVENT:
        name_thread(c, rec->pid, rec->tid);
        trace_event(c, rec);
        break;
    case TR_REC_SAMPLE:
        name_thread(c, rec->pid, rec->tid);
        sample(c, rec);
        break;
    case TR_REC_COMM:
        name_thread(c, rec->pid, rec->tid);
        break;
    default:
        break;
    }
    if (waits && offcpu_switch_out(c->off, sw.prev, rec->time, (uint64_t)(sw.state + 1)) < 0)
        c->nomem = 1;
    if (c->nomem)
        return errno = ENOMEM, -1;
    return ferror(x->out) || ferror(c->samples) ? -1 : 0;
}

static void other_data(FILE *f, struct exp *x, const char *key, const char *name)
{
    const char *v = tr_reader_meta(x->r, key);
    if (!v)
        return;
    fprintf(f, ",\"%s\":", name);
    exp_json(f, v);
}

static int chrome_finish(void *st, struct exp *x)
{
    struct chrome *c = st;
    FILE *f = x->out;
    fputs("\n]", f);
    /* (speedscope reads a file with samples as its samples only, per thread,
     * and one with no samples as its events: the key only when there are some) */
    if (c->nsamples) {
        fputs(",\"samples\":[", f);
        if (exp_copy(f, c->samples) < 0)
            return -1;
        fputs("\n]", f);
    }
    fputs(",\"stackFrames\":{", f);
    for (size_t i = 0; i < c->nodes.n; i++) {
        const char *k = smap_key(&c->nodes, &c->nodes.e[i]);
        uint32_t parent;
        memcpy(&parent, k, 4);
        const char *func = k + 4, *module = func + strlen(func) + 1;
        fprintf(f, "%s\"%zu\":{\"name\":", i ? ",\n" : "\n", i + 1);
        exp_json(f, func);
        fputs(",\"category\":", f);
        exp_json(f, module);
        if (parent)
            fprintf(f, ",\"parent\":\"%" PRIu32 "\"", parent);
        fputc('}', f);
    }
    fputs("\n},\"otherData\":{\"exporter\":\"tr-export\",\"source\":", f);
    exp_json(f, x->shown);
    other_data(f, x, META_COMMAND, "command");
    other_data(f, x, META_CMDLINE, "recorded_with");
    other_data(f, x, META_HOST, "host");
    other_data(f, x, META_CLOCK, "clock");
    fputs("}}\n", f);
    return ferror(f) ? -1 : 0;
}

static void chrome_free(void *st)
{
    struct chrome *c = st;
    fclose(c->samples);
    smap_free(&c->nodes);
    hashmap_free(&c->named);
    offcpu_free(c->off);
    tpformat_free(c->tp);
    free(c->kbuf);
    free(c);
}

const struct exp_format exp_chrome = {chrome_start, chrome_record, chrome_finish, chrome_free};
