/* foldtrace.c - fold the stacks of a tr trace.
 *
 * Samples of one event (the first seen, or --event), weighed by count,
 * period or a field of the event (--weight, model/weight.h); off-CPU time
 * from sched:sched_switch samples; or syscalls, by count, time or argument.
 * Raw frames are symbolized with the symbolize library;
 * frame names then go through the same naming as perf script text, so
 * `tr-fold T` and `tr-cat T | tr-fold` agree. */
#include "fold.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbolize/symbolize.h"
#include "array.h"
#include "hashmap.h"
#include "offcpu.h"
#include "cli.h"
#include "procs.h"
#include "tr.h"
#include "weight.h"

struct tstate {
    struct fold *f;
    const struct fold_opts *o;
    tr_reader *r;
    sym_session *sym;
    struct pscript *ps, *sys_ps;
    struct smap sysmap;        /* syscall stacks, used when there are no samples */
    struct pscript *ev_ps;     /* tracepoint events (tr-rec-ftrace) by task and event */
    struct smap evmap;
    uint64_t events;
    /* comms, and maps for the modules of raw frames (model/procs.h): the symbolize
     * session's, or with --no-symbolize own_procs */
    const struct procs *procs;
    struct procs *own_procs;
    offcpu *off;               /* --offcpu: the waits, each counted in its map entry */
    weight *w;                 /* --weight */
    uint64_t weighed[3], unweighed[3]; /* records with and without the weight's field, by K_* */
    char event[256];           /* the event folded */
    int event_chosen;
    char other[256];
    uint64_t other_samples, samples, syscalls, first_time;
    int have_first;
    uint64_t unresolved;
    stacks_frames frames;      /* the stack being folded (--no-symbolize) */
    int no_symbolize;
    /* (root, stack, pid) -> map entry + 1 of the samples folded so far: a
     * sample of a stack seen before is counted without folding it again.
     * Emptied by every record that may change how frames resolve (maps,
     * comms, blobs, metadata, a stream's start, lost data: a new epoch).
     * A cache of FOLDED_SLOTS entries by stack id (a hash map emptied at
     * each of a compile's mmaps grew again from nothing: 3 % of tr-fold's
     * instructions on cc -g; an array by id zeroed a deep recursion's
     * 300,000 ids): a stack met again after another took its slot is
     * folded again. */
    struct folded { uint32_t stack, epoch, root; int32_t pid; uint32_t entry; } *folded;
    uint32_t epoch;            /* counts those emptyings: raw_memo entries of another are stale */
    /* Memos of what frames fold to, one for ps and one for sys_ps (each
     * folder has its own name ids).  Raw frames resolved one at a time
     * (add_raw_frames), by frame id: what sym_frame_seen gives it, and its
     * groups of elements as a return address or not (ret), in a root
     * starting "java" or not, for process pid in epoch; and the frames of
     * the symbolize library by their strings (fold_sym_frame).  So a frame
     * is resolved and named once, not per sample. */
    struct frame_memos {
        struct raw_memo {
            uint32_t epoch;
            int32_t pid;
            uint32_t seen;     /* sym_frame_seen's bits | RAW_SEEN; RAW_SET(ret, java): el[ret][java] */
            uint32_t el[2][2]; /* offset in groups */
        } *raw;
        size_t nraw;
        hashmap by_name;       /* (func, module) -> index + 1 in sym of the first of a chain */
        struct sym_memo {
            const char *file;
            uint64_t addr;
            uint32_t flags, line, java, el, next; /* el: offset in groups; next: index + 1 */
        } *sym;
        size_t nsym, capsym;
        stacks_ids groups;     /* at each offset: ngroups, then each group's n and n name ids */
    } memo[2];
};

enum { K_SAMPLES, K_SYSCALLS, K_EVENTS };

/* The weight of rec, a record of kind k being folded: 1 with *v set (with
 * --weight the value of its field, 0 leaving it out; else dflt), 0 when
 * it has no such field, -1 out of memory. */
static int weigh(struct tstate *t, const tr_record *rec, int k, uint64_t dflt, uint64_t *v)
{
    *v = dflt;
    if (!t->w)
        return 1;
    int rc = weight_of(t->w, t->r, rec, v);
    if (rc < 0)
        return -1;
    (rc ? t->weighed : t->unweighed)[k]++;
    return rc && *v;
}

#define RAW_SEEN 4u
#define RAW_SET(ret, java) (8u << ((ret) * 2 + (java)))
#define RAW_IDS (1u << 22)     /* frame ids memoised; groups kept until they hold this many ids */

static const char *comm_of(struct tstate *t, int32_t tid)
{
    const char *c = procs_comm(t->procs, tid);
    return c ? c : "-";
}

/* --no-symbolize: the module of a raw frame, from the maps recorded so far */
static const char *module_of(struct tstate *t, int32_t pid, uint64_t addr)
{
    const procs_map *m = procs_lookup(t->procs, pid, addr);
    return m ? m->path : "[unknown]";
}

static int wanted(struct tstate *t, const tr_record *rec)
{
    const struct fold_opts *o = t->o;
    if (o->pids.n) {
        size_t i = 0;
        while (i < o->pids.n && o->pids.v[i] != rec->pid)
            i++;
        if (i == o->pids.n)
            return 0;
    }
    if (o->tids.n) {
        size_t i = 0;
        while (i < o->tids.n && o->tids.v[i] != rec->tid)
            i++;
        if (i == o->tids.n)
            return 0;
    }
    if (o->ncomms) {
        const char *c = comm_of(t, rec->tid);
        size_t i = 0;
        while (i < o->ncomms && strcmp(o->comms[i], c))
            i++;
        if (i == o->ncomms)
            return 0;
    }
    if (o->have_from || o->have_to) {
        uint64_t rel = rec->time >= t->first_time ? rec->time - t->first_time : 0;
        if (o->have_from && rel < o->from_ns)
            return 0;
        if (o->have_to && rel > o->to_ns)
            return 0;
    }
    return 1;
}

/* The module of a raw frame, for stacks_frames_read (--no-symbolize). */
static const char *raw_module(void *ctx, int32_t pid, uint64_t addr)
{
    return module_of(ctx, pid, addr);
}

/* The recorded stack of rec: 1 when every frame is symbolized, 0 when some
 * are raw, -1 when the stack or a frame is unknown (lost definitions). */
static int stack_kind(struct tstate *t, uint32_t stack, const uint32_t **ids, int *n)
{
    *n = tr_reader_stack(t->r, stack, ids);
    if (*n < 0)
        return -1;
    int symbolized = 1;
    for (int i = 0; i < *n; i++) {
        const tr_frame *tf = tr_reader_frame(t->r, (*ids)[i]);
        if (!tf)
            return -1;
        if (!(tf->flags & TR_FRAME_SYMBOLIZED))
            symbolized = 0;
    }
    return symbolized;
}

/* A symbolize library frame as a folder frame. */
static stacks_frame folder_frame(const sym_frame *fr)
{
    return (stacks_frame){.addr = fr->addr, .func = fr->func ? fr->func : "[unknown]",
                          .module = fr->module ? fr->module : "[unknown]", .file = fr->file, .line = fr->line,
                          .offset = fr->offset, .flags = fr->flags, .kind = stacks_kind(fr->flags)};
}

/* Keep the groups sf got from group g0 on in fm->groups: 0 with *at their
 * offset, or -1 out of memory. */
static int keep_groups(struct frame_memos *fm, const stacks_folder *sf, size_t g0, uint32_t *at)
{
    size_t ng = sf->ngroups - g0, n = fm->groups.n, e0 = ng ? sf->groups[g0] : sf->elems.n;
    if (array_reserve(&fm->groups.v, &fm->groups.cap, n + 1 + ng + (sf->elems.n - e0), sizeof *fm->groups.v,
                      1024) < 0)
        return -1;
    uint32_t *v = fm->groups.v + n;
    *v++ = (uint32_t)ng;
    for (size_t g = g0; g < sf->ngroups; g++) {
        size_t end = g + 1 < sf->ngroups ? sf->groups[g + 1] : sf->elems.n;
        *v++ = (uint32_t)(end - sf->groups[g]);
        for (size_t e = sf->groups[g]; e < end; e++)
            *v++ = sf->elems.v[e];
    }
    *at = (uint32_t)n;
    fm->groups.n = (size_t)(v - fm->groups.v);
    return 0;
}

/* Add the groups kept at offset at to sf: 0, or -1 out of memory (inline:
 * once per frame of a sample). */
static inline int add_groups(const struct frame_memos *fm, stacks_folder *sf, uint32_t at)
{
    const uint32_t *v = fm->groups.v + at;
    for (uint32_t g = 0, ng = *v++; g < ng; g++, v += 1 + *v)
        if (stacks_folder_add_ids(sf, v + 1, *v) < 0)
            return -1;
    return 0;
}

/* Forget every memo of fm when its groups hold more than RAW_IDS ids (the
 * frames of processes taking turns). */
static void memos_bound(struct tstate *t, struct frame_memos *fm)
{
    if (fm->groups.n <= RAW_IDS)
        return;
    t->epoch++;
    hashmap_free(&fm->by_name);
    fm->nsym = fm->groups.n = 0;
}

/* Add the elements of frame fr of the symbolize library to sf, folded
 * once per distinct frame (its strings are the session's, interned: their
 * pointers stand for them) and java-ness of the root.  0, or -1 out of
 * memory. */
static int fold_sym_frame(struct frame_memos *fm, stacks_folder *sf, const sym_frame *fr)
{
    uint64_t addr = sf->o->addrs ? fr->addr : 0;
    const char *file = sf->o->srcline ? fr->file : NULL;
    uint32_t line = sf->o->srcline ? fr->line : 0, java = sf->java != 0;
    uintptr_t head = (uintptr_t)hashmap_get(&fm->by_name, (uintptr_t)fr->func, (uintptr_t)fr->module);
    for (uintptr_t i = head; i; i = fm->sym[i - 1].next) {
        const struct sym_memo *x = &fm->sym[i - 1];
        if (x->flags == fr->flags && x->java == java && x->addr == addr && x->file == file && x->line == line)
            return add_groups(fm, sf, x->el);
    }
    size_t g0 = sf->ngroups;
    stacks_frame f = folder_frame(fr);
    uint32_t at;
    if (stacks_folder_frame(sf, &f) < 0 || keep_groups(fm, sf, g0, &at) < 0 ||
        array_reserve(&fm->sym, &fm->capsym, fm->nsym + 1, sizeof *fm->sym, 256) < 0)
        return -1;
    fm->sym[fm->nsym++] = (struct sym_memo){file, addr, fr->flags, line, java, at, (uint32_t)head};
    return hashmap_put(&fm->by_name, (uintptr_t)fr->func, (uintptr_t)fr->module, (void *)(uintptr_t)fm->nsym);
}

/* The memo of raw frame id for process pid in fm, reset when stale; NULL
 * past RAW_IDS. */
static struct raw_memo *raw_memo(struct tstate *t, struct frame_memos *fm, uint32_t id, int32_t pid)
{
    if (id >= RAW_IDS || (id >= fm->nraw && array_reserve_zeroed(&fm->raw, &fm->nraw, (size_t)id + 1, sizeof *fm->raw, 1024) < 0))
        return NULL;
    struct raw_memo *m = &fm->raw[id];
    if (m->epoch != t->epoch || m->pid != pid || !(m->seen & RAW_SEEN)) {
        m->epoch = t->epoch;
        m->pid = pid;
        m->seen = RAW_SEEN | sym_frame_seen(t->sym, t->r, id);
    }
    return m;
}

/* Add the frames of a stack of raw frames ids[0 .. n) (leaf first) of a
 * record of process pid to sf (with memos fm), each frame resolved and
 * folded once (per process, as a return address or not, and java-ness of
 * the root): as sym_resolve_stack resolves it frame by frame.  0, or -1 out
 * of memory. */
static int add_raw_frames(struct tstate *t, stacks_folder *sf, struct frame_memos *fm, int32_t pid,
                          const uint32_t *ids, int n)
{
    memos_bound(t, fm);
    if (sym_stack_begin(t->sym, t->r, pid) < 0)
        return -1;
    int java = sf->java != 0;
    sym_frame_state st = 0;
    for (int i = 0; i < n; i++) {
        struct raw_memo *m = raw_memo(t, fm, ids[i], pid);
        sym_frame_state seen = m ? m->seen & (SYM_SEEN_KERNEL | SYM_SEEN_USER) : sym_frame_seen(t->sym, t->r, ids[i]);
        int ret = (st & seen) != 0;
        st |= seen;
        if (m && (m->seen & RAW_SET(ret, java))) {
            if (add_groups(fm, sf, m->el[ret][java]) < 0)
                return -1;
            continue;
        }
        const sym_frame *fr;
        size_t nf, g0 = sf->ngroups;
        if (sym_resolve_frame(t->sym, t->r, ids[i], ret, &fr, &nf) < 0)
            return -1;
        for (size_t k = 0; k < nf; k++)
            if (fold_sym_frame(fm, sf, &fr[k]) < 0)
                return -1;
        if (m) {
            if (keep_groups(fm, sf, g0, &m->el[ret][java]) < 0)
                return -1;
            m->seen |= RAW_SET(ret, java);
        }
    }
    return 0;
}

/* Add the frames of rec's stack to ps (leaf first).  Returns 1 when its
 * stack and frames were all defined, 0 when some were not, -1 out of memory. */
static int add_frames(struct tstate *t, struct pscript *ps, const tr_record *rec)
{
    stacks_folder *sf = pscript_folder(ps);
    uint32_t stack = rec->type == TR_REC_SAMPLE ? rec->u.sample.stack : rec->u.syscall.stack;
    const uint32_t *ids;
    int n = 0, kind = stack ? stack_kind(t, stack, &ids, &n) : 0;
    if (kind == 1) {
        /* symbolized already: each frame's elements are found once (as the
         * symbolize library and stacks_frames_read pass such frames on) */
        for (int i = 0; i < n; i++)
            if (stacks_folder_trace_frame(sf, t->r, ids[i], tr_reader_frame(t->r, ids[i])) < 0)
                return -1;
        return 1;
    }
    int complete = kind >= 0;
    struct frame_memos *fm = &t->memo[ps == t->sys_ps];
    int copy = rec->type == TR_REC_SAMPLE && rec->u.sample.nregs && rec->u.sample.stack_copy_len;
    if (!t->no_symbolize && kind == 0 && !copy) /* raw frames, not unwound */
        return add_raw_frames(t, sf, fm, rec->pid, ids, n) < 0 ? -1 : 1;
    if (!t->no_symbolize) {
        const sym_frame *fr;
        size_t nfr = 0;
        int rc = sym_resolve_stack(t->sym, t->r, rec, &fr, &nfr);
        if (rc < 0) {
            t->unresolved++;
            return 0;
        }
        memos_bound(t, fm);
        for (size_t i = 0; i < nfr; i++)
            if (fold_sym_frame(fm, sf, &fr[i]) < 0)
                return -1;
        return complete;
    }
    n = stacks_frames_read(&t->frames, t->r, rec, raw_module, t);
    t->unresolved += t->frames.lost;
    t->frames.lost = 0;
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (stacks_folder_frame(sf, &t->frames.v[i]) < 0)
            return -1;
    return complete;
}

/* ---- off-CPU (model/offcpu.h) ---------------------------------------- */

/* A wait ended: counted in the map entry of its stack. */
static void wait_ended(void *ctx, uint64_t entry, int32_t tid, uint64_t start, uint64_t end)
{
    (void)tid;
    ((struct fold *)ctx)->map.e[entry].n += end - start;
}

/* A switch: the task switching out (the sample's thread, with its stack)
 * waits from now until it runs again (model/offcpu.h). */
static int offcpu_sample(struct tstate *t, const tr_record *rec)
{
    offcpu_switch_info sw;
    offcpu_switch(t->off, t->r, rec->u.sample.raw_flags, rec->u.sample.raw, rec->u.sample.raw_len, &sw);
    offcpu_switch_in(t->off, sw.next, rec->time);
    offcpu_running(t->off, rec->tid, rec->time);
    if (!offcpu_waits(rec->tid, sw.state) || !wanted(t, rec))
        return 0;
    pscript_begin(t->ps, comm_of(t, rec->tid), rec->pid, rec->tid, 0);
    if (add_frames(t, t->ps, rec) < 0 || pscript_end(t->ps) < 0)
        return -1;
    return offcpu_switch_out(t->off, rec->tid, rec->time, t->f->last_entry);
}

#define FOLDED_SLOTS 16384u /* a power of two */

/* The slot of stack id in the folded cache (made on first use), NULL when
 * out of memory. */
static struct folded *folded_of(struct tstate *t, uint32_t stack)
{
    if (!t->folded && !(t->folded = calloc(FOLDED_SLOTS, sizeof *t->folded)))
        return NULL;
    return &t->folded[stack & (FOLDED_SLOTS - 1)]; /* the last ids given: a slot each */
}

static int on_sample(struct tstate *t, const tr_record *rec)
{
    const tr_event_def *ev = tr_reader_event(t->r, rec->u.sample.event);
    const char *name = ev ? ev->name : "[unknown event]";
    size_t nl = ev ? ev->name_len : strlen(name);
    if (!t->event_chosen) {
        snprintf(t->event, sizeof t->event, "%.*s", (int)nl, name);
        t->event_chosen = 1;
    }
    if (strlen(t->event) != nl || memcmp(t->event, name, nl)) {
        if (t->o->offcpu) {
            offcpu_running(t->off, rec->tid, rec->time); /* it is running */
            offcpu_wakeup(t->off, t->r, name, nl, rec->u.sample.raw, rec->u.sample.raw_len,
                          rec->u.sample.raw_flags, rec->time);
        }
        if (!t->other[0])
            snprintf(t->other, sizeof t->other, "%.*s", (int)nl, name);
        t->other_samples++;
        return 0;
    }
    if (t->o->offcpu)
        return offcpu_sample(t, rec);
    if (!wanted(t, rec))
        return 0;
    t->samples++;
    uint64_t weight;
    int rc = weigh(t, rec, K_SAMPLES, t->o->period ? rec->u.sample.period : 1, &weight);
    if (rc <= 0)
        return rc;
    pscript_begin(t->ps, comm_of(t, rec->tid), rec->pid, rec->tid, weight);
    stacks_folder *sf = pscript_folder(t->ps);
    uint32_t stack = rec->u.sample.stack;
    /* a sample with a stack copy is unwound: its frames are its own */
    int cached = stack && !(rec->u.sample.nregs && rec->u.sample.stack_copy_len);
    struct folded *fo = cached ? folded_of(t, stack) : NULL;
    if (fo && fo->entry && fo->stack == stack && fo->epoch == t->epoch && fo->root == sf->root_id &&
        fo->pid == rec->pid)
        return stacks_folder_end_at(sf, fo->entry - 1);
    int complete = add_frames(t, t->ps, rec);
    if (complete < 0 || pscript_end(t->ps) < 0)
        return -1;
    /* lost definitions may come again at a key chunk: not kept */
    if (fo && complete && t->f->last_entry < UINT32_MAX)
        *fo = (struct folded){stack, t->epoch, sf->root_id, rec->pid, (uint32_t)t->f->last_entry + 1};
    return 0;
}

static int on_syscall(struct tstate *t, const tr_record *rec)
{
    if (!wanted(t, rec))
        return 0;
    t->syscalls++;
    uint64_t v;
    int rc = weigh(t, rec, K_SYSCALLS, t->o->syscall_time ? rec->u.syscall.duration : 1, &v);
    if (rc <= 0)
        return rc;
    char buf[32];
    const char *name = tr_reader_syscall_name(t->r, NULL, rec->u.syscall.nr);
    if (!name) {
        snprintf(buf, sizeof buf, "syscall_%u", rec->u.syscall.nr);
        name = buf;
    }
    pscript_begin(t->sys_ps, comm_of(t, rec->tid), rec->pid, rec->tid, v);
    /* the syscall is the leaf, above the user frames that made it (frames go in
     * leaf first) */
    if (pscript_leaf(t->sys_ps, name) < 0)
        return -1;
    if (rec->u.syscall.stack && add_frames(t, t->sys_ps, rec) < 0)
        return -1;
    return pscript_end(t->sys_ps);
}

/* Tracepoint events of tr-rec-ftrace.  Folded by task and event (the event
 * the leaf, under the task); with --offcpu, sched:sched_switch events give
 * each task's time off the CPU: from its switch-out to its next switch-in,
 * exactly when every switch was recorded.  Kernels do not always trace the
 * switches from the idle task (CPU 1 of our CI's VM traces none); then the
 * wait ends at the task's wakeup when one was recorded, else at its next
 * event: an upper bound. */
static int on_trace_event(struct tstate *t, const tr_record *rec)
{
    const tr_event_def *ev = tr_reader_event(t->r, rec->u.trace_event.event);
    char name[256];
    snprintf(name, sizeof name, "%.*s", ev ? (int)ev->name_len : 15, ev ? ev->name : "[unknown event]");
    if (t->o->offcpu) {
        /* any event of a task shows it running: a wait whose switch-in was
         * not recorded ends here at the latest (at its wakeup if seen) */
        if (rec->tid > 0)
            offcpu_running(t->off, rec->tid, rec->time);
        const uint8_t *d = rec->u.trace_event.data;
        size_t n = rec->u.trace_event.len;
        uint32_t fl = rec->u.trace_event.flags;
        if (strcmp(name, "sched:sched_switch")) {
            offcpu_wakeup(t->off, t->r, name, strlen(name), d, n, fl, rec->time);
            return 0;
        }
        offcpu_switch_info sw;
        if (!offcpu_switch(t->off, t->r, fl, d, n, &sw))
            return 0;
        offcpu_switch_in(t->off, sw.next, rec->time);
        if (!offcpu_waits(sw.prev, sw.state) || !wanted(t, rec))
            return 0;
        t->events++;
        pscript_begin(t->ps, comm_of(t, sw.prev), rec->pid, sw.prev, 0);
        if (pscript_leaf(t->ps, offcpu_state_name(sw.state)) < 0 ||
            pscript_end(t->ps) < 0)
            return -1;
        return offcpu_switch_out(t->off, sw.prev, rec->time, t->f->last_entry);
    }
    if (t->o->ps.event && strcmp(t->o->ps.event, name))
        return 0;
    if (!wanted(t, rec))
        return 0;
    t->events++;
    uint64_t v;
    int rc = weigh(t, rec, K_EVENTS, 1, &v);
    if (rc <= 0)
        return rc;
    pscript_begin(t->ev_ps, comm_of(t, rec->tid), rec->pid, rec->tid, v);
    if (pscript_leaf(t->ev_ps, name) < 0)
        return -1;
    return pscript_end(t->ev_ps);
}

/* Add every entry of src to dst. */
static int merge_map(struct smap *dst, const struct smap *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct smap_entry *e = &src->e[i];
        struct smap_entry *d = smap_get(dst, smap_key(src, e), e->len);
        if (!d)
            return -1;
        d->n += e->n;
    }
    return 0;
}

static void sym_warn(void *ctx, const char *msg)
{
    (void)ctx;
    cli_warn("%s", msg);
}

int fold_trace(struct fold *f, struct lines *l, const char *shown)
{
    int fd = l->fd;
    struct tstate t;
    memset(&t, 0, sizeof t);
    t.f = f;
    t.o = f->o;
    t.no_symbolize = f->o->no_symbolize;
    smap_init(&t.sysmap);
    smap_init(&t.evmap);
    int status = CLI_EXIT_OK;
    void *map = NULL; /* the input file, for the symbolizer's prescan */
    size_t maplen = 0;
    if (f->o->offcpu && !f->o->ps.event)
        snprintf(t.event, sizeof t.event, "sched:sched_switch"), t.event_chosen = 1;
    else if (f->o->ps.event)
        snprintf(t.event, sizeof t.event, "%s", f->o->ps.event), t.event_chosen = 1;
    int only_syscalls = t.event_chosen && !strcmp(t.event, "syscalls");
    /* the lines reader may hold bytes already read: hand them over */
    const uint8_t *pre = (const uint8_t *)l->buf + l->start;
    size_t prelen = l->end - l->start;
    tr_reader_options ro = { .decompress_thread = 1 }; /* chunks decompressed ahead on a thread */
    int rc = tr_reader_open_fd(&t.r, fd, pre, prelen, &ro);
    if (rc < 0) {
        cli_warn("%s: %s", shown, tr_strerror(rc));
        return CLI_EXIT_FAIL;
    }
    sym_options so;
    sym_options_init(&so);
    so.inlines = 1;
    so.lines = f->o->ps.srcline;
    so.cache_dir = f->o->no_cache ? NULL : f->o->cache_dir ? f->o->cache_dir : sym_default_cache_dir();
    so.warn = f->o->quiet ? NULL : sym_warn;
    so.each_process = f->o->verbose;
    so.symfs = f->o->symfs;
    so.debug_dirs = f->o->debug_dirs;
    if ((!t.no_symbolize && !(t.sym = sym_new(&so))) || !(t.off = offcpu_new(wait_ended, f)) ||
        (t.no_symbolize && !(t.own_procs = procs_new(NULL))) ||
        (f->o->weight && weight_new(f->o->weight, &t.w) < 0)) {
        if (t.sym)
            sym_free(t.sym);
        offcpu_free(t.off);
        weight_free(t.w);
        tr_reader_free(t.r);
        cli_warn("out of memory");
        return CLI_EXIT_FAIL;
    }
    t.procs = t.sym ? sym_procs(t.sym) : t.own_procs;
    /* a file: the blobs recorders write at the end of a stream (kallsyms) are
     * found first, as tr-symbolize finds them, instead of this machine's
     * /proc/kallsyms being read for the first kernel frame */
    if (t.sym && (map = sym_map_input(fd, prelen, &maplen)) && sym_prescan_lazy(t.sym, map, maplen) < 0) {
        cli_warn("out of memory");
        status = CLI_EXIT_FAIL;
        goto out;
    }
    t.ps = pscript_new(&f->o->ps, &f->map);
    t.sys_ps = pscript_new(&f->o->ps, &t.sysmap);
    t.ev_ps = pscript_new(&f->o->ps, &t.evmap);
    if (!t.ps || !t.sys_ps || !t.ev_ps) {
        status = CLI_EXIT_FAIL;
        goto out;
    }
    pscript_track_last(t.ps, &f->last_entry);
    tr_record rec;
    int warned = 0;
    while ((rc = tr_reader_next(t.r, &rec)) != 0) {
        if (rc < 0) {
            if (!cli_read_error(t.r, rc, shown, &warned, &status))
                break;
            t.epoch++; /* definitions were lost: they may come again */
            continue;
        }
        if ((t.sym ? sym_observe(t.sym, t.r, &rec) < 0 : procs_feed(t.own_procs, &rec) < 0) ||
            (t.w && weight_observe(t.w, t.r, &rec) < 0)) {
            cli_warn("out of memory");
            status = CLI_EXIT_FAIL;
            break;
        }
        if (procs_may_remap(rec.type))
            t.epoch++;
        if (rec.type == TR_REC_STREAM_START) {
            stacks_folder_forget_frames(pscript_folder(t.ps)); /* frame ids are the stream's */
            stacks_folder_forget_frames(pscript_folder(t.sys_ps));
            offcpu_reset(t.off); /* waits do not continue into another recording */
            continue;
        }
        if (rec.time && !t.have_first) {
            t.first_time = rec.time;
            t.have_first = 1;
        }
        if (f->o->offcpu && rec.type == TR_REC_EXIT)
            offcpu_running(t.off, rec.tid, rec.time); /* it ran until its exit */
        if (f->o->offcpu && rec.type == TR_REC_SWITCH && !(rec.u.sw.flags & TR_SWF_OUT))
            offcpu_switch_in(t.off, rec.tid, rec.time); /* a traced thread's switch-in (tr-rec-perf) */
        int r2 = 0;
        if (rec.type == TR_REC_SAMPLE && !only_syscalls)
            r2 = on_sample(&t, &rec);
        else if (rec.type == TR_REC_SYSCALL && !f->o->offcpu)
            r2 = on_syscall(&t, &rec);
        else if (rec.type == TR_REC_TRACE_EVENT && !only_syscalls)
            r2 = on_trace_event(&t, &rec);
        if (r2 < 0) {
            cli_warn("out of memory");
            status = CLI_EXIT_FAIL;
            break;
        }
    }
    if (t.other[0])
        fold_warn_other_events(f, shown, t.event, t.other_samples, t.other);
    if (t.unresolved && !f->o->quiet)
        cli_warn("%s: %llu stacks or frames could not be resolved (lost definitions)", shown,
                 (unsigned long long)t.unresolved);
    int kind = K_SAMPLES;
    if ((only_syscalls || (t.samples == 0 && !f->o->offcpu)) && t.syscalls > 0) {
        /* a syscall trace: fold the syscalls */
        kind = K_SYSCALLS;
        if (merge_map(&f->map, &t.sysmap) < 0)
            status = CLI_EXIT_FAIL;
        f->units_ns = f->o->syscall_time;
    } else if (t.samples == 0 && !f->o->offcpu && t.events > 0) {
        /* a tracepoint trace: events by task and event */
        kind = K_EVENTS;
        if (merge_map(&f->map, &t.evmap) < 0)
            status = CLI_EXIT_FAIL;
    } else if (f->o->offcpu) {
        f->units_ns = 1;
        if (!offcpu_layout_known(t.off) && !f->o->quiet)
            cli_warn("%s: no sched_switch payload layout in the trace: off-CPU time runs to the "
                     "thread's next sample", shown);
    }
    if (t.w && t.unweighed[kind]) {
        static const char *const what[] = {"samples", "syscalls", "events"};
        if (!t.weighed[kind]) { /* nothing had the field: no profile */
            cli_warn("%s: %s", shown, weight_why(t.w));
            status = CLI_EXIT_FAIL;
        } else if (!f->o->quiet) {
            cli_warn("%s: %llu %s left out, not weighed: %s", shown, (unsigned long long)t.unweighed[kind],
                     what[kind], weight_why(t.w));
        }
    }
out:
    if (t.sym)
        sym_finish(t.sym);
    pscript_free(t.ps);
    pscript_free(t.sys_ps);
    pscript_free(t.ev_ps);
    if (t.sym && f->exits_after)
        sym_free_at_exit(t.sym);
    else if (t.sym)
        sym_free(t.sym);
    if (map)
        munmap(map, maplen);
    offcpu_free(t.off);
    weight_free(t.w);
    tr_reader_free(t.r);
    smap_free(&t.sysmap);
    smap_free(&t.evmap);
    procs_free(t.own_procs);
    stacks_frames_free(&t.frames);
    free(t.folded);
    for (int i = 0; i < 2; i++) {
        free(t.memo[i].raw);
        hashmap_free(&t.memo[i].by_name);
        free(t.memo[i].sym);
        free(t.memo[i].groups.v);
    }
    return status;
}
