/* triage.c - tr-triage's analysis: one pass over the trace (raw frames
 * symbolized on the fly, as tr-fold does) into the tables, folded stacks and
 * numbers the report shows (render.c). */
#include "triage_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "fold/fold.h"
#include "keys.h"
#include "procs.h"
#include "syscalls.h"
#include "syscalls_decode.h"

struct triage *triage_new(const struct triage_opts *o)
{
    struct triage *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->o = *o;
    smap_init(&t->cpu);
    smap_init(&t->off);
    smap_init(&t->blame);
    return t;
}

void triage_free(struct triage *t)
{
    if (!t)
        return;
    smap_free(&t->cpu);
    smap_free(&t->off);
    smap_free(&t->blame);
    for (size_t i = 0; i < t->nsys; i++)
        lathist_free(&t->sys[i].lat);
    free(t->sys);
    free(t->th);
    hashmap_free(&t->thmap);
    lathist_free(&t->runq);
    counters_free(&t->cnt);
    free(t);
}

/* ---- the reading state ---------------------------------------------- */

struct rstate {
    struct triage *t;
    tr_reader *r;
    sym_session *sym;
    struct pscript *cpu_ps, *off_ps;
    size_t off_last;           /* the off-CPU map entry pscript_end added to */
    offcpu *off;
    tpformat *tp;
    int tp_used;
};

/* Recorders are not the target. */
static int excluded_comm(const char *c)
{
    return c && (!strncmp(c, "tr-rec-perf", 11) || !strncmp(c, "tr-triage", 9));
}

static const char *comm_of(struct rstate *s, int32_t tid)
{
    const char *c = procs_comm(sym_procs(s->sym), tid);
    return c ? c : "-";
}

static struct tthread *thread_of(struct triage *t, int32_t tid)
{
    void *v = hashmap_get(&t->thmap, (uint32_t)tid, 0);
    if (v)
        return &t->th[(uintptr_t)v - 1];
    if (array_reserve(&t->th, &t->capth, t->nth + 1, sizeof *t->th, 64) < 0 ||
        hashmap_put(&t->thmap, (uint32_t)tid, 0, (void *)(uintptr_t)(t->nth + 1)) < 0)
        return NULL;
    struct tthread *h = &t->th[t->nth++];
    memset(h, 0, sizeof *h);
    h->tid = tid;
    h->enter_nr = -1;
    return h;
}

/* tid of the target was seen at time: its lifetime grows. */
static struct tthread *seen(struct rstate *s, int32_t tid, uint64_t time)
{
    struct triage *t = s->t;
    if (tid <= 0 || excluded_comm(comm_of(s, tid)))
        return NULL;
    struct tthread *h = thread_of(t, tid);
    if (!h)
        return NULL;
    if (time) {
        if (!h->first || time < h->first)
            h->first = time;
        if (time > h->last)
            h->last = time;
        if (!t->first || time < t->first)
            t->first = time;
        if (time > t->last)
            t->last = time;
    }
    return h;
}

static struct tsys *sys_row(struct triage *t, uint32_t nr)
{
    for (size_t i = 0; i < t->nsys; i++)
        if (t->sys[i].nr == nr)
            return &t->sys[i];
    if (array_reserve(&t->sys, &t->capsys, t->nsys + 1, sizeof *t->sys, 32) < 0)
        return NULL;
    struct tsys *y = &t->sys[t->nsys++];
    memset(y, 0, sizeof *y);
    y->nr = nr;
    const char *n = syscalls_host_name(nr);
    if (n)
        snprintf(y->name, sizeof y->name, "%s", n);
    else
        snprintf(y->name, sizeof y->name, "syscall_%u", nr);
    return y;
}

/* ---- frames --------------------------------------------------------- */

static int is_kernel(const sym_frame *f) { return stacks_kind(f->flags) == STACKS_KERNEL; }

/* A frame of the program itself: user code outside the shared libraries,
 * the dynamic loader and the vDSO. */
static int is_program(const sym_frame *f)
{
    if (is_kernel(f) || !f->module || f->module[0] == '[')
        return 0;
    const char *b = strrchr(f->module, '/');
    b = b ? b + 1 : f->module;
    return !strstr(b, ".so") && strncmp(b, "ld-linux", 8);
}

/* The syscall a blocked stack is in, from its kernel frames
 * (__x64_sys_futex -> futex; where the entry point was tail-called away,
 * its helper: ksys_read -> read, __sys_recvfrom -> recvfrom), or NULL. */
static const char *syscall_of(const sym_frame *f, size_t n, char *buf, size_t len)
{
    static const char *const pfx[2][4] = {{"__x64_sys_", "__ia32_sys_", "__do_sys_", "__se_sys_"},
                                          {"ksys_", "__sys_", "do_sys_", NULL}};
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            if (!is_kernel(&f[i]) || !f[i].func)
                continue;
            for (size_t k = 0; k < 4 && pfx[pass][k]; k++) {
                size_t pl = strlen(pfx[pass][k]);
                if (!strncmp(f[i].func, pfx[pass][k], pl)) {
                    snprintf(buf, len, "%s", f[i].func + pl);
                    return buf;
                }
            }
        }
    return NULL;
}

/* The blame of an off-CPU stack, "SYSCALL\tFUNCTION": the syscall it waits
 * in (else "preempted" or "kernel") and the nearest named frame of the
 * program (else the program's module, "[dash]", when it has no symbols; else
 * the nearest named user frame, in a library; else "[kernel]"). */
static void blame_of(const sym_frame *f, size_t n, int64_t state, char *buf, size_t len)
{
    char sys[64];
    const char *s = syscall_of(f, n, sys, sizeof sys);
    if (!s)
        s = state == 0 ? "preempted" : "kernel";
    const char *fn = NULL, *user = NULL, *module = NULL;
    for (size_t i = 0; i < n && !fn; i++) {
        int named = f[i].func && f[i].func[0] != '[';
        if (!user && named && !is_kernel(&f[i]))
            user = f[i].func;
        if (is_program(&f[i])) {
            if (named)
                fn = f[i].func;
            else if (!module && f[i].module)
                module = f[i].module;
        }
    }
    if (fn)
        snprintf(buf, len, "%s\t%s", s, fn);
    else if (module) {
        const char *b = strrchr(module, '/');
        snprintf(buf, len, "%s\t[%s]", s, b ? b + 1 : module);
    } else
        snprintf(buf, len, "%s\t%s", s, user ? user : "[kernel]");
}

/* Fold the resolved frames into ps's map (the root: the task's comm). */
static int fold_frames(struct rstate *s, struct pscript *ps, const tr_record *rec, const sym_frame *fr, size_t n,
                       uint64_t weight)
{
    pscript_begin(ps, comm_of(s, rec->tid), rec->pid, rec->tid, weight);
    stacks_folder *sf = pscript_folder(ps);
    for (size_t i = 0; i < n; i++) {
        stacks_frame f = {.addr = fr[i].addr, .func = fr[i].func ? fr[i].func : "[unknown]",
                          .module = fr[i].module ? fr[i].module : "[unknown]", .file = fr[i].file,
                          .line = fr[i].line, .offset = fr[i].offset, .flags = fr[i].flags,
                          .kind = stacks_kind(fr[i].flags)};
        if (stacks_folder_frame(sf, &f) < 0)
            return -1;
    }
    return pscript_end(ps);
}

/* ---- off-CPU (model/offcpu.h) --------------------------------------- */

/* A wait ended: its time goes to its folded stack and its blame (the
 * cookie holds both entries). */
static void wait_ended(void *ctx, uint64_t cookie, int32_t tid, uint64_t start, uint64_t end)
{
    struct triage *t = ctx;
    (void)tid;
    t->off.e[cookie >> 32].n += end - start;
    t->blame.e[(uint32_t)cookie].n += end - start;
    t->off_ns += end - start;
}

/* The frames of rec's stack, leaf first (none when they cannot be had). */
static size_t frames_of(struct rstate *s, const tr_record *rec, const sym_frame **fr)
{
    size_t n = 0;
    if (!rec->u.sample.stack || sym_resolve_stack(s->sym, s->r, rec, fr, &n) < 0)
        return 0;
    return n;
}

static int on_switch_sample(struct rstate *s, const tr_record *rec)
{
    offcpu_switch_info sw;
    offcpu_switch(s->off, s->r, rec->u.sample.raw_flags, rec->u.sample.raw, rec->u.sample.raw_len, &sw);
    offcpu_switch_in(s->off, sw.next, rec->time);
    offcpu_running(s->off, rec->tid, rec->time);
    if (!offcpu_waits(rec->tid, sw.state) || !seen(s, rec->tid, rec->time))
        return 0;
    const sym_frame *fr = NULL;
    size_t n = frames_of(s, rec, &fr);
    char b[256];
    blame_of(fr, n, sw.state, b, sizeof b);
    struct smap_entry *e = smap_get(&s->t->blame, b, strlen(b));
    if (!e || fold_frames(s, s->off_ps, rec, fr, n, 0) < 0)
        return -1;
    uint64_t cookie = (uint64_t)s->off_last << 32 | (uint32_t)(e - s->t->blame.e);
    return offcpu_switch_out(s->off, rec->tid, rec->time, cookie);
}

/* ---- syscalls and wakeups (tracepoint payloads) ---------------------- */

static int field(struct rstate *s, const tr_record *rec, const char *name, int64_t *v)
{
    if (!s->tp_used) {
        if (tpformat_use(s->tp, s->r, rec->u.sample.raw_flags) < 0)
            return -1;
        s->tp_used = 1;
    }
    const tpformat_event *ev = tpformat_event_of(s->tp, rec->u.sample.raw, rec->u.sample.raw_len);
    tpformat_field f;
    uint64_t u;
    if (!ev || !tpformat_field_find(ev, name, &f) ||
        tpformat_read(&f, rec->u.sample.raw_flags, rec->u.sample.raw, rec->u.sample.raw_len, &u) < 0)
        return 0;
    *v = (int64_t)u;
    return 1;
}

/* Count errno e among the first TRIAGE_NERRNO met (errors counts them all). */
static void add_errno(struct tsys *y, int e)
{
    for (int i = 0; i < TRIAGE_NERRNO; i++) {
        if (y->err[i] == e || !y->errn[i]) {
            y->err[i] = e;
            y->errn[i]++;
            return;
        }
    }
}

static int on_syscall_event(struct rstate *s, const tr_record *rec, int enter)
{
    struct triage *t = s->t;
    struct tthread *h = seen(s, rec->tid, rec->time);
    int64_t id, ret;
    if (!h || field(s, rec, "id", &id) != 1 || id < 0)
        return 0;
    if (enter) {
        h->enter_nr = id;
        h->enter_time = rec->time;
        return 0;
    }
    if (field(s, rec, "ret", &ret) != 1)
        return 0;
    struct tsys *y = sys_row(t, (uint32_t)id);
    if (!y)
        return -1;
    y->calls++;
    if (ret < 0 && ret >= -4095) {
        y->errors++;
        add_errno(y, (int)-ret);
    }
    if (h->enter_nr == id && rec->time >= h->enter_time) {
        uint64_t d = rec->time - h->enter_time;
        y->ns += d;
        if (lathist_add(&y->lat, d) < 0)
            return -1;
    }
    h->enter_nr = -1;
    return 0;
}

/* A wakeup of a target thread: it waits in the run queue from now until
 * its switch-in. */
static int on_wakeup(struct rstate *s, const tr_record *rec)
{
    int64_t pid;
    if (field(s, rec, "pid", &pid) != 1 || pid <= 0)
        return 0;
    void *v = hashmap_get(&s->t->thmap, (uint32_t)pid, 0); /* a target thread seen before */
    struct tthread *h = v ? &s->t->th[(uintptr_t)v - 1] : NULL;
    if (h && !h->running && !h->ready)
        h->ready = rec->time;
    return 0;
}

/* A traced thread's own switch (tr-rec-perf's switch records): off the CPU
 * preempted it waits in the run queue; back on it, its wait ends. */
static int on_switch(struct rstate *s, const tr_record *rec)
{
    if (!(rec->u.sw.flags & TR_SWF_OUT))
        offcpu_switch_in(s->off, rec->tid, rec->time);
    struct tthread *h = seen(s, rec->tid, rec->time);
    if (!h)
        return 0;
    if (rec->u.sw.flags & TR_SWF_OUT) {
        h->running = 0;
        if ((rec->u.sw.flags & TR_SWF_PREEMPT) && !h->ready)
            h->ready = rec->time;
        return 0;
    }
    h->running = 1;
    if (h->ready && rec->time >= h->ready && lathist_add(&s->t->runq, rec->time - h->ready) < 0)
        return -1;
    h->ready = 0;
    return 0;
}

/* ---- the rest ------------------------------------------------------- */

static void on_counter(struct rstate *s, const tr_record *rec)
{
    if (rec->u.counter.flags & TR_CNTF_INTERVAL)
        return;
    const tr_event_def *ev = tr_reader_event(s->r, rec->u.counter.event);
    char name[128];
    snprintf(name, sizeof name, "%.*s", ev ? (int)ev->name_len : 15, ev ? ev->name : "[unknown event]");
    counters_add(&s->t->cnt, name, rec->u.counter.value, rec->u.counter.enabled, rec->u.counter.running,
                 rec->u.counter.flags, rec->u.counter.run);
    s->t->have_counters = 1;
}

static uint64_t meta_u64(tr_reader *r, const char *key, int *have)
{
    const char *v = tr_reader_meta(r, key);
    if (!v)
        return 0;
    *have = 1;
    return strtoull(v, NULL, 10);
}

/* tr-triage's own stream, and what the others say of the machine */
static void on_meta(struct rstate *s)
{
    struct triage *t = s->t;
    tr_reader *r = s->r;
    const char *v = tr_reader_meta(r, TRIAGE_META_TARGET);
    if (v)
        snprintf(t->target, sizeof t->target, "%s", v);
    if ((v = tr_reader_meta(r, META_NCPUS)))
        t->ncpus = atoi(v);
    int have = 0;
    uint64_t x;
#define M(field, key) if ((x = meta_u64(r, key, &have)) || have) t->field = x, t->have_##field = 1, have = 0
    M(wall_ns, TRIAGE_META_WALL);
    M(rec_cpu, TRIAGE_META_REC_CPU);
    M(cmd_cpu, TRIAGE_META_CMD_CPU);
    M(rss_first, TRIAGE_META_RSS_FIRST);
    M(rss_max, TRIAGE_META_RSS_MAX);
    M(maps_first, TRIAGE_META_MAPS_FIRST);
    M(maps_max, TRIAGE_META_MAPS_MAX);
    M(fds_max, TRIAGE_META_FDS_MAX);
    M(fds_limit, TRIAGE_META_FDS_LIMIT);
    M(threads_max, TRIAGE_META_THREADS_MAX);
    M(mem_total, TRIAGE_META_MEM_TOTAL);
#undef M
}

static int on_sample(struct rstate *s, const tr_record *rec)
{
    const tr_event_def *ev = tr_reader_event(s->r, rec->u.sample.event);
    const char *name = ev ? ev->name : "";
    size_t nl = ev ? ev->name_len : 0;
#define IS(lit) (nl == sizeof lit - 1 && !memcmp(name, lit, nl))
    if (IS("raw_syscalls:sys_enter") || IS("raw_syscalls:sys_exit"))
        return on_syscall_event(s, rec, IS("raw_syscalls:sys_enter"));
    int sw = IS("sched:sched_switch");
    if (!sw) {
        offcpu_running(s->off, rec->tid, rec->time);
        offcpu_wakeup(s->off, s->r, name, nl, rec->u.sample.raw, rec->u.sample.raw_len, rec->u.sample.raw_flags,
                      rec->time);
        if (IS("sched:sched_wakeup") || IS("sched:sched_waking") || IS("sched:sched_wakeup_new"))
            return on_wakeup(s, rec);
    }
    int cpu = IS("cpu-clock") || IS("task-clock") || IS("cycles");
#undef IS
    if (!sw && !cpu)
        return 0;
    if (sw)
        return on_switch_sample(s, rec);
    if (!seen(s, rec->tid, rec->time))
        return 0;
    const sym_frame *fr = NULL;
    size_t n = frames_of(s, rec, &fr);
    s->t->cpu_samples++;
    if (rec->u.sample.period && ev && ev->kind == TR_EV_SOFTWARE)
        s->t->cpu_ns += rec->u.sample.period; /* cpu-clock: the period is ns */
    return fold_frames(s, s->cpu_ps, rec, fr, n, 1);
}

static void sym_warn(void *ctx, const char *msg)
{
    (void)ctx;
    cli_warn("%s", msg);
}

int triage_input(struct triage *t, const char *path)
{
    const char *shown = path && strcmp(path, "-") ? path : "stdin";
    int fd = path && strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
    if (fd < 0) {
        cli_warn("%s: %s", shown, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    struct rstate s;
    memset(&s, 0, sizeof s);
    s.t = t;
    int status = CLI_EXIT_OK, rc = tr_reader_open(&s.r, fd, NULL);
    if (rc < 0) {
        cli_warn("%s: %s", shown, tr_strerror(rc));
        if (fd)
            close(fd);
        return CLI_EXIT_FAIL;
    }
    sym_options so;
    sym_options_init(&so);
    so.inlines = 1;
    so.cache_dir = t->o.no_cache ? NULL : t->o.cache_dir ? t->o.cache_dir : sym_default_cache_dir();
    so.warn = t->o.quiet ? NULL : sym_warn;
    struct pscript_opts po;
    memset(&po, 0, sizeof po);
    void *map = NULL;
    size_t maplen = 0;
    s.sym = sym_new(&so);
    s.off = offcpu_new(wait_ended, t);
    s.cpu_ps = pscript_new(&po, &t->cpu);
    s.off_ps = pscript_new(&po, &t->off);
    if (!s.sym || !s.off || !s.cpu_ps || !s.off_ps || tpformat_new(&s.tp) < 0) {
        cli_warn("out of memory");
        status = CLI_EXIT_FAIL;
        goto out;
    }
    pscript_track_last(s.off_ps, &s.off_last);
    if ((map = sym_map_input(fd, 0, &maplen)) && sym_prescan_lazy(s.sym, map, maplen) < 0) {
        cli_warn("out of memory");
        status = CLI_EXIT_FAIL;
        goto out;
    }
    tr_record rec;
    int warned = 0;
    while ((rc = tr_reader_next(s.r, &rec)) != 0) {
        if (rc < 0) {
            if (!cli_read_error(s.r, rc, shown, &warned, &status))
                break;
            continue;
        }
        if (sym_observe(s.sym, s.r, &rec) < 0) {
            status = CLI_EXIT_FAIL;
            break;
        }
        int r2 = 0;
        switch (rec.type) {
        case TR_REC_STREAM_START:
            stacks_folder_forget_frames(pscript_folder(s.cpu_ps)); /* frame ids are the stream's */
            stacks_folder_forget_frames(pscript_folder(s.off_ps));
            offcpu_reset(s.off);
            tpformat_reset(s.tp);
            s.tp_used = 0;
            /* threads' states are the stream's too */
            for (size_t i = 0; i < t->nth; i++)
                t->th[i].running = 0, t->th[i].ready = 0, t->th[i].enter_nr = -1;
            t->streams++;
            break;
        case TR_REC_STREAM_END: /* the stream's metadata is all known by now */
            on_meta(&s);
            t->lost += rec.u.stream_end.lost;
            break;
        case TR_REC_LOST: t->lost += rec.u.lost.count; break;
        case TR_REC_FORK: seen(&s, rec.tid, rec.time); break;
        case TR_REC_EXIT:
            offcpu_running(s.off, rec.tid, rec.time); /* it ran until its exit */
            seen(&s, rec.tid, rec.time);
            break;
        case TR_REC_SWITCH: r2 = on_switch(&s, &rec); break;
        case TR_REC_COUNTER: on_counter(&s, &rec); break;
        case TR_REC_SAMPLE: r2 = on_sample(&s, &rec); break;
        default: break;
        }
        if (r2 < 0) {
            cli_warn("out of memory");
            status = CLI_EXIT_FAIL;
            break;
        }
    }
    for (size_t i = 0; i < t->nth; i++) {
        t->thread_ns += t->th[i].last - t->th[i].first;
        t->threads += t->th[i].first != 0;
    }
out:
    if (s.sym)
        sym_finish(s.sym);
    pscript_free(s.cpu_ps);
    pscript_free(s.off_ps);
    if (s.sym)
        sym_free(s.sym);
    if (map)
        munmap(map, maplen);
    offcpu_free(s.off);
    tpformat_free(s.tp);
    tr_reader_free(s.r);
    if (fd)
        close(fd);
    return status;
}
