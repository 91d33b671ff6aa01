/* foldtrace.c - fold the stacks of a tr trace.
 *
 * Samples of one event (the first seen, or --event), weighed by count or
 * period; off-CPU time from sched:sched_switch samples; or syscalls, by
 * count or time.  Raw frames are symbolized with the symbolize library;
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
#include "cli.h"
#include "procs.h"
#include "tpformat.h"
#include "tr.h"

/* A task off the CPU since time, its wait counted in entry; woken: when a
 * wakeup of it was seen (0 none). */
struct pending { uint64_t time, woken; size_t entry; int used; };

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
    struct smap off;           /* tid -> index into pend (off-CPU) */
    struct pending *pend;
    size_t npend, cap_pend;
    char event[256];           /* the event folded */
    int event_chosen;
    char other[256];
    uint64_t other_samples, samples, syscalls, first_time;
    int have_first;
    /* sched_switch payload layout, from the stream's formats */
    tpformat *tp;
    tpformat_field sw_next, sw_prev, sw_state;
    int sw_known, sw_has_state;
    /* the "pid" field of sched_wakeup, sched_waking, sched_wakeup_new: 1 known, 0 unknown,
     * -1 not looked up */
    tpformat_field wk[3];
    int wk_known[3];
    uint64_t unresolved;
    stacks_frames frames;      /* the stack being folded (--no-symbolize) */
    int no_symbolize;
    /* (root, stack, pid) -> map entry + 1 of the samples folded so far: a
     * sample of a stack seen before is counted without folding it again.
     * Emptied by every record that may change how frames resolve (maps,
     * comms, blobs, metadata, a stream's start, lost data). */
    hashmap folded;
};

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

/* Add the frames of rec's stack to ps (leaf first).  Returns 1 when its
 * stack and frames were all defined, 0 when some were not, -1 out of memory. */
static int add_frames(struct tstate *t, struct pscript *ps, const tr_record *rec)
{
    stacks_folder *sf = pscript_folder(ps);
    uint32_t stack = rec->type == TR_REC_SAMPLE ? rec->u.sample.stack : rec->u.syscall.stack;
    const uint32_t *ids;
    int n, kind = stack ? stack_kind(t, stack, &ids, &n) : 0;
    if (kind == 1) {
        /* symbolized already: each frame's elements are found once (as the
         * symbolize library and stacks_frames_read pass such frames on) */
        for (int i = 0; i < n; i++)
            if (stacks_folder_trace_frame(sf, t->r, ids[i], tr_reader_frame(t->r, ids[i])) < 0)
                return -1;
        return 1;
    }
    int complete = kind >= 0;
    if (!t->no_symbolize) {
        const sym_frame *fr;
        size_t nfr = 0;
        int rc = sym_resolve_stack(t->sym, t->r, rec, &fr, &nfr);
        if (rc < 0) {
            t->unresolved++;
            return 0;
        }
        for (size_t i = 0; i < nfr; i++) {
            stacks_frame f = {.addr = fr[i].addr, .func = fr[i].func ? fr[i].func : "[unknown]",
                              .module = fr[i].module ? fr[i].module : "[unknown]",
                              .file = fr[i].file, .line = fr[i].line, .offset = fr[i].offset,
                              .flags = fr[i].flags, .kind = stacks_kind(fr[i].flags)};
            if (stacks_folder_frame(sf, &f) < 0)
                return -1;
        }
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

/* ---- sched_switch payload ------------------------------------------- */

/* The sched_switch fields by name, from the stream's formats (payloads
 * recorded with raw_flags). */
static void load_switch_format(struct tstate *t, uint32_t raw_flags)
{
    const tpformat_event *ev = NULL;
    if (tpformat_use(t->tp, t->r, raw_flags) >= 0)
        ev = tpformat_event_by_name(t->tp, "sched", "sched_switch");
    t->sw_known = ev && tpformat_field_find(ev, "next_pid", &t->sw_next) &&
                  tpformat_field_find(ev, "prev_pid", &t->sw_prev);
    t->sw_has_state = ev && tpformat_field_find(ev, "prev_state", &t->sw_state);
}

/* The integer field f of a payload, -1 when it cannot be read. */
static int64_t payload_int(const tpformat_field *f, uint32_t raw_flags, const uint8_t *data, size_t len)
{
    uint64_t v;
    return tpformat_read(f, raw_flags, data, len, &v) < 0 ? -1 : (int64_t)v;
}

static struct pending *pending_of(struct tstate *t, int32_t tid, int create)
{
    struct smap_entry *e = smap_get(&t->off, &tid, sizeof tid);
    if (!e)
        return NULL;
    if (!e->n) {
        if (!create)
            return NULL;
        if (array_reserve(&t->pend, &t->cap_pend, t->npend + 1, sizeof *t->pend, 64) < 0)
            return NULL;
        memset(&t->pend[t->npend], 0, sizeof *t->pend);
        e->n = ++t->npend;
    }
    return &t->pend[e->n - 1];
}

/* tid leaves the CPU at time: its wait is counted in the entry just added
 * (or found) for its stack, the last key built.  0, or -1 out of memory. */
static int open_pending(struct tstate *t, int32_t tid, uint64_t time)
{
    struct pending *p = pending_of(t, tid, 1);
    if (!p)
        return -1;
    *p = (struct pending){.time = time, .entry = t->f->last_entry, .used = 1};
    return 0;
}

static void end_wait(struct tstate *t, struct pending *p, uint64_t time)
{
    t->f->map.e[p->entry].n += time > p->time ? time - p->time : 0;
    p->used = 0;
}

/* tid runs again now: its recorded switch-in ends its wait. */
static void close_pending(struct tstate *t, int32_t tid, uint64_t time)
{
    struct pending *p = pending_of(t, tid, 0);
    if (p && p->used)
        end_wait(t, p, time);
}

/* tid is seen running (an event of its own) without its switch-in on
 * record: its wait ended by now, at its wakeup when one was seen. */
static void close_pending_running(struct tstate *t, int32_t tid, uint64_t time)
{
    struct pending *p = pending_of(t, tid, 0);
    if (p && p->used)
        end_wait(t, p, p->woken && p->woken < time ? p->woken : time);
}

/* A wakeup event (name, raw payload): the woken task's wait ends there if
 * its switch-in turns out not to be recorded. */
static void note_wakeup(struct tstate *t, const char *name, size_t nl, const uint8_t *data, size_t len,
                        uint32_t raw_flags, uint64_t time)
{
    static const char *const events[3] = {"sched_wakeup", "sched_waking", "sched_wakeup_new"};
    int i = 0;
    if (nl < 6 || memcmp(name, "sched:", 6))
        return;
    while (i < 3 && (nl - 6 != strlen(events[i]) || memcmp(name + 6, events[i], nl - 6)))
        i++;
    if (i == 3)
        return;
    if (t->wk_known[i] < 0) {
        const tpformat_event *ev = NULL;
        if (tpformat_use(t->tp, t->r, raw_flags) >= 0)
            ev = tpformat_event_by_name(t->tp, "sched", events[i]);
        t->wk_known[i] = ev && tpformat_field_find(ev, "pid", &t->wk[i]);
    }
    int32_t pid = t->wk_known[i] ? (int32_t)payload_int(&t->wk[i], raw_flags, data, len) : -1;
    struct pending *p = pid > 0 ? pending_of(t, pid, 0) : NULL;
    if (p && p->used && !p->woken)
        p->woken = time;
}

/* Whether a switch-out of task prev, in state (prev_state, -1 unknown),
 * starts a wait: the idle task (pid 0) waits for nothing, and a dying task
 * (X, Z: its last switch, in do_task_dead) runs no more. */
static int switch_waits(int32_t prev, int64_t state)
{
    return prev > 0 && !(state > 0 && (state & 0x30));
}

/* A switch: the task switching out (the sample's thread, with its stack)
 * waits from now until it runs again: until a recorded switch-in (next_pid,
 * exact; every switch is recorded system-wide), else until its next sample
 * of any event (it ran by then: an upper bound). */
static int offcpu_sample(struct tstate *t, const tr_record *rec)
{
    if (!t->sw_known)
        load_switch_format(t, rec->u.sample.raw_flags);
    int64_t state = -1;
    if (t->sw_known) {
        uint32_t fl = rec->u.sample.raw_flags;
        const uint8_t *d = rec->u.sample.raw;
        size_t n = rec->u.sample.raw_len;
        int32_t next = (int32_t)payload_int(&t->sw_next, fl, d, n);
        if (next > 0)
            close_pending(t, next, rec->time);
        if (t->sw_has_state)
            state = payload_int(&t->sw_state, fl, d, n);
    }
    close_pending_running(t, rec->tid, rec->time);
    if (!switch_waits(rec->tid, state) || !wanted(t, rec))
        return 0;
    pscript_begin(t->ps, comm_of(t, rec->tid), rec->pid, rec->tid, 0);
    if (add_frames(t, t->ps, rec) < 0 || pscript_end(t->ps) < 0)
        return -1;
    return open_pending(t, rec->tid, rec->time);
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
            close_pending_running(t, rec->tid, rec->time); /* it is running */
            note_wakeup(t, name, nl, rec->u.sample.raw, rec->u.sample.raw_len, rec->u.sample.raw_flags,
                        rec->time);
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
    pscript_begin(t->ps, comm_of(t, rec->tid), rec->pid, rec->tid,
                  t->o->period ? rec->u.sample.period : 1);
    stacks_folder *sf = pscript_folder(t->ps);
    uint32_t stack = rec->u.sample.stack;
    /* a sample with a stack copy is unwound: its frames are its own */
    int cached = stack && !(rec->u.sample.nregs && rec->u.sample.stack_copy_len);
    uint64_t key = (uint64_t)sf->root_id << 32 | stack, pid = (uint32_t)rec->pid;
    void *v = cached ? hashmap_get(&t->folded, key, pid) : NULL;
    if (v)
        return stacks_folder_end_at(sf, (size_t)((uintptr_t)v - 1));
    int complete = add_frames(t, t->ps, rec);
    if (complete < 0 || pscript_end(t->ps) < 0)
        return -1;
    /* lost definitions may come again at a key chunk: not kept */
    if (cached && complete && hashmap_put(&t->folded, key, pid, (void *)(uintptr_t)(t->f->last_entry + 1)) < 0)
        return -1;
    return 0;
}

/* Whether frames may resolve differently after a record of this type:
 * anything but what is measured (maps, comms, blobs, metadata ...). */
static int changes_frames(uint32_t type)
{
    switch (type) {
    case TR_REC_SAMPLE:
    case TR_REC_COUNTER:
    case TR_REC_SYSCALL:
    case TR_REC_SIGNAL:
    case TR_REC_LIBCALL:
    case TR_REC_TRACE_EVENT:
    case TR_REC_FUNCTION:
    case TR_REC_LOST:
        return 0;
    default:
        return 1;
    }
}

static int on_syscall(struct tstate *t, const tr_record *rec)
{
    if (!wanted(t, rec))
        return 0;
    t->syscalls++;
    char buf[32];
    const char *name = tr_reader_syscall_name(t->r, NULL, rec->u.syscall.nr);
    if (!name) {
        snprintf(buf, sizeof buf, "syscall_%u", rec->u.syscall.nr);
        name = buf;
    }
    pscript_begin(t->sys_ps, comm_of(t, rec->tid), rec->pid, rec->tid,
                  t->o->syscall_time ? rec->u.syscall.duration : 1);
    /* the syscall is the leaf, above the user frames that made it (frames go in
     * leaf first) */
    if (pscript_leaf(t->sys_ps, name) < 0)
        return -1;
    if (rec->u.syscall.stack && add_frames(t, t->sys_ps, rec) < 0)
        return -1;
    return pscript_end(t->sys_ps);
}

/* The state a task left the CPU in, from sched_switch's prev_state, as the
 * leaf of its off-CPU stack: "R" preempted, "S" sleeping, "D" disk ... */
static const char *switch_state(int64_t state)
{
    static const char *const names[] = {"[off-cpu S]", "[off-cpu D]", "[off-cpu T]", "[off-cpu t]",
                                        "[off-cpu X]", "[off-cpu Z]", "[off-cpu P]", "[off-cpu I]"};
    if (state < 0) return "[off-cpu]";
    if ((state & 0xff) == 0) return "[off-cpu R]";
    for (int i = 0; i < 8; i++)
        if (state & (1 << i)) return names[i];
    return "[off-cpu]";
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
            close_pending_running(t, rec->tid, rec->time);
        if (strcmp(name, "sched:sched_switch")) {
            note_wakeup(t, name, strlen(name), rec->u.trace_event.data, rec->u.trace_event.len,
                        rec->u.trace_event.flags, rec->time);
            return 0;
        }
        uint32_t fl = rec->u.trace_event.flags;
        if (!t->sw_known)
            load_switch_format(t, fl);
        if (!t->sw_known)
            return 0;
        const uint8_t *d = rec->u.trace_event.data;
        size_t n = rec->u.trace_event.len;
        int32_t prev = (int32_t)payload_int(&t->sw_prev, fl, d, n);
        int32_t next = (int32_t)payload_int(&t->sw_next, fl, d, n);
        if (next > 0)
            close_pending(t, next, rec->time);
        int64_t state = t->sw_has_state ? payload_int(&t->sw_state, fl, d, n) : -1;
        if (!switch_waits(prev, state) || !wanted(t, rec))
            return 0;
        t->events++;
        pscript_begin(t->ps, comm_of(t, prev), rec->pid, prev, 0);
        if (pscript_leaf(t->ps, switch_state(state)) < 0 ||
            pscript_end(t->ps) < 0)
            return -1;
        return open_pending(t, prev, rec->time);
    }
    if (t->o->ps.event && strcmp(t->o->ps.event, name))
        return 0;
    if (!wanted(t, rec))
        return 0;
    t->events++;
    pscript_begin(t->ev_ps, comm_of(t, rec->tid), rec->pid, rec->tid, 1);
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
    for (int i = 0; i < 3; i++)
        t.wk_known[i] = -1;
    t.f = f;
    t.o = f->o;
    t.no_symbolize = f->o->no_symbolize;
    smap_init(&t.sysmap);
    smap_init(&t.evmap);
    smap_init(&t.off);
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
    int rc = tr_reader_open_fd(&t.r, fd, pre, prelen, NULL);
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
    if ((!t.no_symbolize && !(t.sym = sym_new(&so))) || tpformat_new(&t.tp) < 0 ||
        (t.no_symbolize && !(t.own_procs = procs_new(NULL)))) {
        if (t.sym)
            sym_free(t.sym);
        tpformat_free(t.tp);
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
            const tr_reader_diag *d = tr_reader_last_diag(t.r);
            if (tr_error_recoverable(rc)) {
                hashmap_free(&t.folded); /* definitions were lost: they may come again */
                if (!warned++)
                    cli_warn("%s: %s at byte %llu%s%s; continuing", shown, tr_strerror(rc),
                             (unsigned long long)d->offset, d->detail[0] ? ": " : "", d->detail);
                status = CLI_EXIT_TRUNCATED;
                continue;
            }
            cli_warn("%s: %s%s%s", shown, tr_strerror(rc), d->detail[0] ? ": " : "", d->detail);
            /* a stream was read before (a later one refused, a read error midway): damaged, not unreadable */
            tr_reader_stats st;
            tr_reader_get_stats(t.r, &st);
            status = rc != TR_E_NOMEM && (rc == TR_E_TRUNCATED || st.streams > 0) ? CLI_EXIT_TRUNCATED : CLI_EXIT_FAIL;
            break;
        }
        if (t.sym ? sym_observe(t.sym, t.r, &rec) < 0 : procs_feed(t.own_procs, &rec) < 0) {
            cli_warn("out of memory");
            status = CLI_EXIT_FAIL;
            break;
        }
        if (changes_frames(rec.type) && t.folded.count)
            hashmap_free(&t.folded);
        if (rec.type == TR_REC_STREAM_START) {
            stacks_folder_forget_frames(pscript_folder(t.ps)); /* frame ids are the stream's */
            stacks_folder_forget_frames(pscript_folder(t.sys_ps));
            t.sw_known = 0;
            tpformat_reset(t.tp);
            for (int i = 0; i < 3; i++)
                t.wk_known[i] = -1;
            smap_free(&t.off); /* waits do not continue into another recording */
            smap_init(&t.off);
            t.npend = 0;
            continue;
        }
        if (rec.time && !t.have_first) {
            t.first_time = rec.time;
            t.have_first = 1;
        }
        if (f->o->offcpu && rec.type == TR_REC_EXIT)
            close_pending_running(&t, rec.tid, rec.time); /* it ran until its exit */
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
    if ((only_syscalls || (t.samples == 0 && !f->o->offcpu)) && t.sysmap.n > 0) {
        /* a syscall trace: fold the syscalls */
        if (merge_map(&f->map, &t.sysmap) < 0)
            status = CLI_EXIT_FAIL;
        f->units_ns = f->o->syscall_time;
    } else if (t.samples == 0 && !f->o->offcpu && t.evmap.n > 0) {
        /* a tracepoint trace: events by task and event */
        if (merge_map(&f->map, &t.evmap) < 0)
            status = CLI_EXIT_FAIL;
    } else if (f->o->offcpu) {
        f->units_ns = 1;
        if (!t.sw_known && !f->o->quiet)
            cli_warn("%s: no sched_switch payload layout in the trace: off-CPU time runs to the "
                     "thread's next sample", shown);
    }
out:
    if (t.sym)
        sym_finish(t.sym);
    pscript_free(t.ps);
    pscript_free(t.sys_ps);
    pscript_free(t.ev_ps);
    if (t.sym)
        sym_free(t.sym);
    if (map)
        munmap(map, maplen);
    tpformat_free(t.tp);
    tr_reader_free(t.r);
    smap_free(&t.sysmap);
    smap_free(&t.evmap);
    smap_free(&t.off);
    free(t.pend);
    procs_free(t.own_procs);
    stacks_frames_free(&t.frames);
    hashmap_free(&t.folded);
    return status;
}
