/* speedscope.c - tr-export --speedscope: speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json):
 *   a sampled profile: the stacks of the first sampled event (syscalls when
 *     there are no samples) of every thread, each under its command name as
 *     tr-fold roots them, weighed by their count;
 *   an evented profile per thread, in time order (speedscope's "Time Order"
 *     view): a sample's frames open at its time and stay open while the
 *     thread's next sample follows within two periods (cpu-clock,
 *     task-clock: else until its next sample), a syscall or library call
 *     (under its user stack when recorded) for its duration.
 * Times are nanoseconds from the trace's first record.  Memory grows with
 * the distinct frames and stacks and the threads: each thread's events go
 * to a temporary file in blocks, written out thread by thread at the end. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "export.h"
#include "hashmap.h"
#include "smap.h"

struct sev { uint64_t at; uint32_t frame, open; };
enum { BLOCK = 512 };

struct thr {
    int32_t pid, tid;
    const char *comm;
    uint32_t *open;          /* the frames open now, root first */
    size_t nopen, cap_open;
    uint64_t end, merge_until, last_at, first_at;
    int have;
    struct sev buf[BLOCK];
    size_t nbuf;
    long *blocks;            /* offsets of full blocks in the temporary file */
    size_t nblocks, cap_blocks;
};

struct ss {
    struct exp *x;
    struct smap frames;      /* "func\0file\0" + line -> index */
    struct smap stacks;      /* kind (0 sample, 1 call), frame indexes root first -> count */
    uint64_t nsamples;
    char event[256];         /* the sampled profile's event */
    hashmap tids;            /* tid -> thread index + 1 */
    struct thr **thr;
    size_t nthr, cap_thr;
    FILE *tmp;
    uint32_t *stack;         /* the stack being built, root first */
    size_t nstack, cap_stack;
    char *kbuf;
    size_t kcap;
    int nomem;
};

static uint32_t frame_index(struct ss *s, const char *func, const char *file, uint32_t line)
{
    size_t fl = strlen(func), ml = file ? strlen(file) : 0, len = fl + ml + 2 + 4;
    if (len > s->kcap) {
        char *k = realloc(s->kbuf, len);
        if (!k)
            return s->nomem = 1, 0;
        s->kbuf = k, s->kcap = len;
    }
    memcpy(s->kbuf, func, fl + 1);
    if (ml)
        memcpy(s->kbuf + fl + 1, file, ml);
    s->kbuf[fl + 1 + ml] = 0;
    memcpy(s->kbuf + fl + ml + 2, &line, 4);
    struct smap_entry *e = smap_get(&s->frames, s->kbuf, len);
    if (!e)
        return s->nomem = 1, 0;
    return (uint32_t)(e - s->frames.e);
}

static void push(struct ss *s, uint32_t f)
{
    if (array_reserve(&s->stack, &s->cap_stack, s->nstack + 1, sizeof *s->stack, 64) < 0)
        s->nomem = 1;
    else
        s->stack[s->nstack++] = f;
}

/* rec's frames onto s->stack, root first. */
static void push_frames(struct ss *s, const tr_record *rec)
{
    const sym_frame *fr;
    int n = exp_frames(s->x, rec, &fr);
    if (n < 0)
        s->nomem = 1;
    for (int i = n - 1; i >= 0; i--)
        push(s, frame_index(s, fr[i].func, fr[i].file ? fr[i].file : fr[i].module, fr[i].line));
}

static struct thr *thread_of(struct ss *s, const tr_record *rec)
{
    void *v = hashmap_get(&s->tids, (uint32_t)rec->tid, 0);
    if (v)
        return s->thr[(uintptr_t)v - 1];
    struct thr *t = calloc(1, sizeof *t);
    if (!t || array_reserve(&s->thr, &s->cap_thr, s->nthr + 1, sizeof *s->thr, 16) < 0 ||
        hashmap_put(&s->tids, (uint32_t)rec->tid, 0, (void *)(uintptr_t)(s->nthr + 1)) < 0) {
        free(t);
        s->nomem = 1;
        return NULL;
    }
    t->pid = rec->pid;
    t->tid = rec->tid;
    s->thr[s->nthr++] = t;
    return t;
}

static void emit(struct ss *s, struct thr *t, uint32_t frame, int open, uint64_t at)
{
    if (t->nbuf == BLOCK) {
        if (array_reserve(&t->blocks, &t->cap_blocks, t->nblocks + 1, sizeof *t->blocks, 16) < 0) {
            s->nomem = 1;
            return;
        }
        t->blocks[t->nblocks++] = ftell(s->tmp);
        fwrite(t->buf, sizeof t->buf, 1, s->tmp);
        t->nbuf = 0;
    }
    t->buf[t->nbuf++] = (struct sev){at, frame, (uint32_t)open};
    t->last_at = at;
}

static void close_to(struct ss *s, struct thr *t, size_t k, uint64_t at)
{
    if (at < t->last_at)
        at = t->last_at;
    while (t->nopen > k)
        emit(s, t, t->open[--t->nopen], 0, at);
}

/* Thread t is in stack s->stack from time (ns from the start) at until end,
 * its frames kept open for a next stack that comes before merge_until. */
static void thread_in(struct ss *s, struct thr *t, uint64_t at, uint64_t end, uint64_t merge_until)
{
    if (!t->have)
        t->first_at = at;
    if (t->have && at > t->merge_until)
        close_to(s, t, 0, t->end);
    size_t k = 0;
    while (k < t->nopen && k < s->nstack && t->open[k] == s->stack[k])
        k++;
    close_to(s, t, k, at);
    if (array_reserve(&t->open, &t->cap_open, s->nstack, sizeof *t->open, 64) < 0) {
        s->nomem = 1;
        return;
    }
    if (at < t->last_at)
        at = t->last_at;
    for (; k < s->nstack; k++)
        emit(s, t, t->open[t->nopen++] = s->stack[k], 1, at);
    t->end = end > at ? end : at;
    t->merge_until = merge_until;
    t->have = 1;
}

/* The sampled profile's stack: kind, the comm, the frames after it. */
static void count_stack(struct ss *s, uint32_t kind, const char *comm, size_t from)
{
    size_t n = s->nstack - from + 2;
    uint32_t *k = malloc(n * sizeof *k);
    if (!k) {
        s->nomem = 1;
        return;
    }
    k[0] = kind;
    k[1] = frame_index(s, comm, NULL, 0);
    memcpy(k + 2, s->stack + from, (n - 2) * sizeof *k);
    struct smap_entry *e = smap_get(&s->stacks, k, n * sizeof *k);
    if (!e)
        s->nomem = 1;
    else
        e->n++;
    free(k);
}

static void *ss_start(struct exp *x)
{
    struct ss *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->x = x;
    smap_init(&s->frames);
    smap_init(&s->stacks);
    if (!(s->tmp = tmpfile())) {
        free(s);
        return NULL;
    }
    return s;
}

static int ss_record(void *st, struct exp *x, const tr_record *rec)
{
    struct ss *s = st;
    if (rec->type != TR_REC_SAMPLE && rec->type != TR_REC_SYSCALL && rec->type != TR_REC_LIBCALL)
        return 0;
    struct thr *t = thread_of(s, rec);
    if (!t)
        return errno = ENOMEM, -1;
    t->comm = exp_comm(x, rec->tid);
    uint64_t at = rec->time > x->first ? rec->time - x->first : 0;
    s->nstack = 0;
    push_frames(s, rec);
    if (rec->type == TR_REC_SAMPLE) {
        const tr_event_def *def;
        const char *name = exp_event(x, rec->u.sample.event, &def);
        if (!s->event[0])
            snprintf(s->event, sizeof s->event, "%s", name);
        if (!strcmp(s->event, name)) {
            count_stack(s, 0, t->comm, 0);
            s->nsamples++;
        }
        uint64_t d = exp_period_is_ns(def) ? rec->u.sample.period : 0;
        thread_in(s, t, at, at + d, d ? at + 2 * d : UINT64_MAX);
    } else {
        char buf[64];
        uint64_t d = rec->type == TR_REC_SYSCALL ? rec->u.syscall.duration : rec->u.libcall.duration;
        push(s, frame_index(s, exp_call_name(x, rec, buf, sizeof buf), NULL, 0));
        count_stack(s, 1, t->comm, 0);
        thread_in(s, t, at, at + d, at + d);
    }
    if (s->nomem)
        return errno = ENOMEM, -1;
    return ferror(s->tmp) ? -1 : 0;
}

static void events(FILE *f, const struct sev *e, size_t n, int *first)
{
    for (size_t i = 0; i < n; i++, *first = 0)
        fprintf(f, "%s{\"type\":\"%c\",\"frame\":%" PRIu32 ",\"at\":%" PRIu64 "}", *first ? "" : ",",
                e[i].open ? 'O' : 'C', e[i].frame, e[i].at);
}

/* The kind of stacks entry i (its first word; key bytes are unaligned). */
static uint32_t stack_kind(const struct ss *s, size_t i)
{
    uint32_t k;
    memcpy(&k, smap_key(&s->stacks, &s->stacks.e[i]), sizeof k);
    return k;
}

static int ss_finish(void *st, struct exp *x)
{
    struct ss *s = st;
    FILE *f = x->out;
    const char *base = strrchr(x->shown, '/') ? strrchr(x->shown, '/') + 1 : x->shown;
    fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"tr-export\",\"name\":", f);
    exp_json(f, base);
    fputs(",\"activeProfileIndex\":0,\"profiles\":[", f);
    int nprof = 0;
    uint32_t kind = s->nsamples ? 0 : 1;
    uint64_t total = 0;
    for (size_t i = 0; i < s->stacks.n; i++)
        if (stack_kind(s, i) == kind)
            total += s->stacks.e[i].n;
    if (total) {
        char name[300];
        snprintf(name, sizeof name, "%s: all threads", kind ? "syscalls" : s->event);
        fputs("\n{\"type\":\"sampled\",\"name\":", f);
        exp_json(f, name);
        fprintf(f, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[", total);
        int first = 1;
        for (size_t i = 0; i < s->stacks.n; i++) {
            if (stack_kind(s, i) != kind)
                continue;
            fputs(first ? "[" : ",[", f);
            first = 0;
            const char *k = smap_key(&s->stacks, &s->stacks.e[i]);
            for (size_t j = 1; j < s->stacks.e[i].len / 4; j++) {
                uint32_t fr;
                memcpy(&fr, k + 4 * j, sizeof fr);
                fprintf(f, "%s%" PRIu32, j > 1 ? "," : "", fr);
            }
            fputc(']', f);
        }
        fputs("],\"weights\":[", f);
        first = 1;
        for (size_t i = 0; i < s->stacks.n; i++)
            if (stack_kind(s, i) == kind) {
                fprintf(f, "%s%" PRIu64, first ? "" : ",", s->stacks.e[i].n);
                first = 0;
            }
        fputs("]}", f);
        nprof++;
    }
    struct sev *blk = malloc(sizeof ((struct thr *)0)->buf);
    if (!blk || fflush(s->tmp) != 0) {
        free(blk);
        return -1;
    }
    for (size_t i = 0; i < s->nthr; i++) {
        struct thr *t = s->thr[i];
        close_to(s, t, 0, t->end);
        fputs(nprof++ ? ",\n{\"type\":\"evented\",\"name\":" : "\n{\"type\":\"evented\",\"name\":", f);
        char name[64];
        snprintf(name, sizeof name, "%s (%" PRId32 "/%" PRId32 ")", t->comm, t->pid, t->tid);
        exp_json(f, name);
        fprintf(f, ",\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64 ",\"endValue\":%" PRIu64 ",\"events\":[",
                t->first_at, t->last_at);
        int first = 1;
        for (size_t b = 0; b < t->nblocks; b++) {
            if (fseek(s->tmp, t->blocks[b], SEEK_SET) != 0 || fread(blk, sizeof t->buf, 1, s->tmp) != 1) {
                free(blk);
                return -1;
            }
            events(f, blk, BLOCK, &first);
        }
        events(f, t->buf, t->nbuf, &first);
        fputs("]}", f);
    }
    free(blk);
    fputs("\n],\"shared\":{\"frames\":[", f);
    for (size_t i = 0; i < s->frames.n; i++) {
        const char *func = smap_key(&s->frames, &s->frames.e[i]), *file = func + strlen(func) + 1;
        uint32_t line;
        memcpy(&line, file + strlen(file) + 1, 4);
        fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
        exp_json(f, func);
        if (*file) {
            fputs(",\"file\":", f);
            exp_json(f, file);
        }
        if (line)
            fprintf(f, ",\"line\":%" PRIu32, line);
        fputc('}', f);
    }
    fputs("\n]}}\n", f);
    return s->nomem ? (errno = ENOMEM, -1) : ferror(f) ? -1 : 0;
}

static void ss_free(void *st)
{
    struct ss *s = st;
    for (size_t i = 0; i < s->nthr; i++) {
        free(s->thr[i]->open);
        free(s->thr[i]->blocks);
        free(s->thr[i]);
    }
    free(s->thr);
    hashmap_free(&s->tids);
    smap_free(&s->frames);
    smap_free(&s->stacks);
    fclose(s->tmp);
    free(s->stack);
    free(s->kbuf);
    free(s);
}

const struct exp_format exp_speedscope = {ss_start, ss_record, ss_finish, ss_free};
