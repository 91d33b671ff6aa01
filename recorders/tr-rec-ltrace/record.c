/*
 * record.c - the calls through perf events on the uprobes' tracepoints.
 *
 * For each CPU, every probe's event is opened on the traced task (inherited
 * by its threads and children) and sent to one ring buffer per CPU; a dummy
 * event per CPU brings the mmap, comm and fork records into a ring of its own
 * that wakes us at each one.  Entries and returns are read in batches, merged
 * by time, and paired per thread: a call is written as one libcall record
 * (entry time, duration) when it returns (-S: syscalls likewise, from the
 * raw_syscalls tracepoints).  A call into a library counts only when it came
 * from the main binary (its return address lies in the binary's executable
 * mappings), as ltrace counts the calls through the binary's PLT; the
 * library's own calls to the same function are not the program's.  A library
 * mapped later (dlopen), or the program a process execs, gets its probes
 * then (add_object).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "hashmap.h"
#include "ltrace.h"

#define RING_PAGES 256
#define SIDE_PAGES 16
#define MAX_DEPTH 256
#define SYS_TAG ((uintptr_t)1 << 40) /* ids: raw_syscalls sys_enter, + 1 sys_exit */

volatile int record_stop;

struct ring { int fd; void *base; size_t size; };

struct ev { uint64_t time, seq; uint32_t type; uint32_t off, len; };

struct frame {
    uint32_t fn;
    int keep;
    uint64_t time;
    uint64_t args[6];
    uint64_t va_stack[VA_STACK]; /* a printf's stack words */
    uint32_t nstr;
    struct { uint32_t arg, len, trunc; char *s; } str[14]; /* arg: 8 + n for variadic slot n */
};

struct thread {
    int32_t pid, tid;
    uint32_t depth;
    struct frame f[MAX_DEPTH];
    int64_t sys_nr;        /* -S: the syscall entered, -1 none */
    uint64_t sys_time, sys_args[6];
};
/* A process: its main binary (the one exec'd last) and where it is mapped. */
struct proc {
    int32_t pid;
    const char *exe;   /* one of state.seen */
    int want_exe;      /* exec'd: its next executable mapping is the new main binary */
    uint32_t n;
    struct { uint64_t start, end; } r[16];
};

struct state {
    tr_writer *w;
    const struct rec_opts *o;
    struct funcs *f;
    hashmap ids;       /* sample id -> (fn index * 2 + ret) + 1 */
    hashmap threads;   /* tid -> struct thread */
    hashmap procs;     /* pid -> struct proc */
    hashmap callers;   /* (fn index, program) -> string id of "PROG->NAME" + 1 (-e, -l) */
    struct ring *rings, *side; size_t nrings; /* per CPU: the calls', the side band's */
    struct pollfd *poll; size_t npoll;        /* npoll 0: to make again */
    int *fds; size_t nfds, capfds;
    char **seen; size_t nseen;                /* the files whose functions were selected */
    struct ev *evs; size_t nev, capev;
    uint8_t *buf; size_t blen, bcap;
    uint64_t seq;
    pid_t root;
    struct rec_result *res;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_event(struct state *S, uint32_t type, uint64_t config, pid_t pid, int cpu, int on_exec)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.sample_period = 1;
    a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
    a.disabled = on_exec;
    a.enable_on_exec = on_exec;
    a.inherit = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.sample_id_all = 1;
    if (type == PERF_TYPE_SOFTWARE) {
        /* the side band, in its own ring that wakes us at every record: a library mapped
         * is probed as soon as we can */
        a.sample_type &= ~(uint64_t)PERF_SAMPLE_RAW;
        a.mmap = 1;
        a.mmap2 = 1;
        a.comm = 1;
        a.comm_exec = 1;
        a.task = 1;
        a.watermark = 1;
        a.wakeup_watermark = 1;
    }
    int fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (S->nfds == S->capfds) {
        S->capfds = S->capfds ? S->capfds * 2 : 64;
        S->fds = realloc(S->fds, S->capfds * sizeof *S->fds);
    }
    S->fds[S->nfds++] = fd;
    return fd;
}

/* Send event fd's records to the CPU's ring of its kind: the first event makes it. */
static int to_ring(struct state *S, int fd, int cpu, int side)
{
    struct ring **rings = side ? &S->side : &S->rings;
    if ((size_t)cpu >= S->nrings) {
        size_t n = (size_t)cpu + 1;
        S->rings = realloc(S->rings, n * sizeof *S->rings);
        S->side = realloc(S->side, n * sizeof *S->side);
        memset(S->rings + S->nrings, 0, (n - S->nrings) * sizeof *S->rings);
        memset(S->side + S->nrings, 0, (n - S->nrings) * sizeof *S->side);
        S->nrings = n;
    }
    struct ring *rg = &(*rings)[cpu];
    if (rg->size)
        return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rg->fd);
    rg->size = (1 + (side ? SIDE_PAGES : RING_PAGES)) * (size_t)sysconf(_SC_PAGESIZE);
    rg->base = mmap(NULL, rg->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (rg->base == MAP_FAILED) {
        fprintf(stderr, "%s: mmap of the ring buffer: %s\n", cli_name(), strerror(errno));
        rg->size = 0;
        return -1;
    }
    rg->fd = fd;
    S->npoll = 0; /* the poll set changed */
    return 0;
}

/* The events of task pid on every CPU: the side band when sideband, the entry and return
 * events of functions from..S->f->n (one after the other, each on every CPU before the
 * next), the syscalls' when syscalls. */
static int open_task(struct state *S, pid_t pid, int on_exec, int sideband, size_t from, int syscalls)
{
    int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
    for (int cpu = 0; cpu < ncpu && sideband; cpu++) {
        int fd = open_event(S, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, pid, cpu, on_exec);
        if (fd < 0 && errno == ENODEV)
            continue; /* an offline CPU */
        if (fd < 0 || to_ring(S, fd, cpu, 1) < 0) {
            fprintf(stderr, "%s: perf_event_open on cpu %d: %s\n", cli_name(), cpu, strerror(errno));
            return -1;
        }
    }
    size_t n = S->f->n + (syscalls ? 1 : 0);
    for (size_t i = from; i < n; i++) {
        struct func *fn = i < S->f->n ? &S->f->v[i] : NULL;
        if (fn && !fn->id_entry)
            continue;
        for (int cpu = 0; cpu < ncpu; cpu++)
            for (int r = 0; r < 2 - (fn && fn->no_ret); r++) {
                uint64_t config = fn ? (r ? fn->id_ret : fn->id_entry) : S->o->sys_id[r];
                int fd = open_event(S, PERF_TYPE_TRACEPOINT, config, pid, cpu, on_exec);
                if (fd < 0 && (errno == ENODEV || (errno == ESRCH && !sideband)))
                    break; /* an offline CPU; a thread that ended before its probes for a new library */
                if (fd < 0 || to_ring(S, fd, cpu, 0) < 0) {
                    fprintf(stderr, "%s: perf_event_open of %s on cpu %d: %s\n", cli_name(),
                            fn ? fn->name : "raw_syscalls", cpu, strerror(errno));
                    return -1;
                }
                uint64_t id;
                uintptr_t v = fn ? i * 2 + (size_t)r + 1 : SYS_TAG + (uintptr_t)r;
                if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 || hashmap_put(&S->ids, id, 0, (void *)v) < 0)
                    return -1;
            }
    }
    return 0;
}

static struct proc *proc_get(struct state *S, int32_t pid)
{
    struct proc *p = hashmap_get(&S->procs, (uint64_t)pid, 0);
    if (!p && (p = calloc(1, sizeof *p))) {
        p->pid = pid;
        hashmap_put(&S->procs, (uint64_t)pid, 0, p);
    }
    return p;
}

static int traced(const struct state *S, int32_t pid)
{
    return S->o->follow || S->root <= 0 || pid == S->root;
}

static struct thread *thread_get(struct state *S, int32_t pid, int32_t tid)
{
    struct thread *t = hashmap_get(&S->threads, (uint64_t)tid, 0);
    if (!t && (t = calloc(1, sizeof *t))) {
        t->tid = tid;
        t->sys_nr = -1;
        hashmap_put(&S->threads, (uint64_t)tid, 0, t);
    }
    if (t)
        t->pid = pid;
    return t;
}

static int from_main(struct state *S, int32_t pid, uint64_t ra)
{
    struct proc *p = hashmap_get(&S->procs, (uint64_t)pid, 0);
    for (uint32_t i = 0; p && i < p->n; i++)
        if (ra >= p->r[i].start && ra < p->r[i].end)
            return 1;
    return 0;
}

static void frame_free(struct frame *fr)
{
    for (uint32_t i = 0; i < fr->nstr; i++)
        free(fr->str[i].s);
    fr->nstr = 0;
}

/* A tracefs __data_loc string field at off of raw: its bytes without the NUL. */
static const char *data_loc(const uint8_t *raw, uint32_t rawlen, uint32_t off, uint32_t *len)
{
    uint32_t loc;
    if (off + 4 > rawlen)
        return NULL;
    memcpy(&loc, raw + off, 4);
    uint32_t o = loc & 0xffff, n = loc >> 16;
    if (o + n > rawlen)
        return NULL;
    while (n && raw[o + n - 1] == 0)
        n--;
    *len = n;
    return (const char *)raw + o;
}

static tr_record rec_of(uint32_t type, uint64_t time, const struct thread *t)
{
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = type;
    r.time = time;
    r.pid = t->pid;
    r.tid = t->tid;
    r.cpu = -1;
    return r;
}

static void write_call(struct state *S, const struct thread *t, struct frame *fr, int finished, int64_t ret,
                       uint64_t end, const char *rs, uint32_t rslen)
{
    const struct func *fn = &S->f->v[fr->fn];
    tr_record r = rec_of(TR_REC_LIBCALL, fr->time, t);
    r.u.libcall.func = fn->name_id;
    const struct proc *p = hashmap_get(&S->procs, (uint64_t)t->pid, 0);
    if (select_named(S->o->sel) && !fn->in_main && p && p->exe) {
        /* ltrace under -e and -l: the caller's name first, CALLER->NAME */
        uintptr_t id = (uintptr_t)hashmap_get(&S->callers, fr->fn, (uintptr_t)p->exe);
        if (!id) {
            char name[512];
            const char *base = strrchr(p->exe, '/') ? strrchr(p->exe, '/') + 1 : p->exe;
            int n = snprintf(name, sizeof name, "%s->%s", base, fn->name);
            uint32_t sid;
            if (n > 0 && (size_t)n < sizeof name && tr_writer_string(S->w, name, (size_t)n, &sid) == 0) {
                id = (uintptr_t)sid + 1;
                hashmap_put(&S->callers, fr->fn, (uintptr_t)p->exe, (void *)id);
            }
        }
        if (id)
            r.u.libcall.func = (uint32_t)(id - 1);
    }
    r.u.libcall.flags = finished ? TR_SYSF_HAS_RET : TR_SYSF_UNFINISHED;
    r.u.libcall.ret = finished ? ret : 0;
    r.u.libcall.duration = finished && end > fr->time ? end - fr->time : 0;
    r.u.libcall.nargs = fn->nargs;
    memcpy(r.u.libcall.args, fr->args, sizeof fr->args);
    uint32_t nc = 0;
    for (uint32_t i = 0; i < fr->nstr; i++) {
        tr_capture *c = &r.u.libcall.captures[nc++];
        c->arg = fr->str[i].arg;
        c->kind = TR_CAP_STRING;
        c->flags = fr->str[i].trunc ? TR_CAPF_TRUNCATED : 0;
        c->data = (const uint8_t *)fr->str[i].s;
        c->len = fr->str[i].len;
    }
    if (rs) {
        tr_capture *c = &r.u.libcall.captures[nc++];
        c->arg = 6;
        c->kind = TR_CAP_STRING;
        c->flags = TR_CAPF_EXIT | (rslen > S->o->strsize ? TR_CAPF_TRUNCATED : 0);
        c->data = (const uint8_t *)rs;
        c->len = rslen > S->o->strsize ? S->o->strsize : rslen;
    }
    if (fn->format && nc < TR_MAX_CAPTURES) { /* a printf's stack words, for its variadic arguments */
        tr_capture *c = &r.u.libcall.captures[nc++];
        c->arg = 7;
        c->kind = TR_CAP_BUFFER;
        c->data = (const uint8_t *)fr->va_stack;
        c->len = sizeof fr->va_stack;
    }
    r.u.libcall.ncaptures = nc;
    tr_writer_add(S->w, &r);
    S->res->calls++;
}

static void write_syscall(struct state *S, struct thread *t, int finished, int64_t ret, uint64_t end)
{
    tr_record r = rec_of(TR_REC_SYSCALL, t->sys_time, t);
    r.u.syscall.nr = (uint32_t)t->sys_nr;
    r.u.syscall.flags = finished ? TR_SYSF_HAS_RET : TR_SYSF_UNFINISHED;
    r.u.syscall.ret = ret;
    r.u.syscall.duration = finished && end > t->sys_time ? end - t->sys_time : 0;
    r.u.syscall.nargs = 6;
    memcpy(r.u.syscall.args, t->sys_args, sizeof t->sys_args);
    tr_writer_add(S->w, &r);
    t->sys_nr = -1;
}

/* -S: raw_syscalls sys_enter (id at 8, args at 16) and sys_exit (id at 8, ret at 16), one
 * syscall record when it returns (execve's return in a new image included). */
static void on_syscall(struct state *S, struct thread *t, int enter, const uint8_t *raw, uint32_t rawlen,
                       uint64_t time)
{
    int64_t nr, ret;
    if (rawlen < (enter ? 64u : 24u))
        return;
    memcpy(&nr, raw + 8, 8);
    if (nr == 335 || nr == 336)
        return; /* x86_64's uretprobe and uprobe: our probes' own trampolines, not the program's */
    if (enter) {
        if (t->sys_nr >= 0) /* a syscall that did not return */
            write_syscall(S, t, 0, 0, 0);
        t->sys_nr = nr;
        t->sys_time = time;
        memcpy(t->sys_args, raw + 16, sizeof t->sys_args);
    } else if (t->sys_nr == nr && nr >= 0) {
        memcpy(&ret, raw + 16, 8);
        write_syscall(S, t, 1, ret, time);
    }
}

static void on_sample(struct state *S, const uint8_t *d, uint32_t len)
{
    /* identifier, pid/tid, time, raw size, raw */
    if (len < 32)
        return;
    uint64_t id, time;
    int32_t pid, tid;
    uint32_t rawlen;
    memcpy(&id, d, 8);
    memcpy(&pid, d + 8, 4);
    memcpy(&tid, d + 12, 4);
    memcpy(&time, d + 16, 8);
    memcpy(&rawlen, d + 24, 4);
    const uint8_t *raw = d + 28;
    if (28 + (uint64_t)rawlen > len)
        return;
    uintptr_t v = (uintptr_t)hashmap_get(&S->ids, id, 0);
    if (!v)
        return;
    struct thread *t = traced(S, pid) ? thread_get(S, pid, tid) : NULL;
    if (!t)
        return;
    if (v >= SYS_TAG) {
        on_syscall(S, t, v == SYS_TAG, raw, rawlen, time);
        return;
    }
    uint32_t fi = (uint32_t)((v - 1) / 2);
    int is_ret = (int)((v - 1) & 1);
    const struct func *fn = &S->f->v[fi];
    if (!is_ret) {
        /* header 8, ip 8, the registers, the return address, a printf's stack words, the
         * strings' data_loc: the prototype's, then from a printf's variadic slots */
        uint32_t need = 16 + 8 * fn->nargs + 8 + (fn->format ? 8 * VA_STACK : 0);
        if (rawlen < need || t->depth == MAX_DEPTH)
            return;
        struct frame *fr = &t->f[t->depth++];
        memset(fr, 0, sizeof *fr);
        fr->fn = fi;
        fr->time = time;
        memcpy(fr->args, raw + 16, 8 * fn->nargs);
        uint64_t ra;
        memcpy(&ra, raw + 16 + 8 * fn->nargs, 8);
        fr->keep = fn->in_main || from_main(S, pid, ra);
        if (!fr->keep) {
            if (fn->no_ret)
                t->depth--;
            return;
        }
        const struct libproto *p = fn->proto ? fn->proto : libproto_unknown();
        if (fn->format)
            memcpy(fr->va_stack, raw + 16 + 8 * fn->nargs + 8, sizeof fr->va_stack);
        uint32_t off = need, nva = fn->format ? 6 - fn->format + VA_STACK : 0;
        for (unsigned a = 0; a < fn->nargs + nva; a++) {
            int va = a >= fn->nargs;
            if (!va && (a >= p->nargs || !libproto_is_string(p->args[a])))
                continue;
            uint32_t n;
            const char *s = data_loc(raw, rawlen, off, &n);
            off += 4;
            if (!s || (!va && !fr->args[a]) || (va && !n) || fr->nstr == sizeof fr->str / sizeof fr->str[0])
                continue;
            uint32_t k = fr->nstr++;
            fr->str[k].arg = va ? 8 + a - fn->nargs : a;
            fr->str[k].trunc = n > S->o->strsize;
            fr->str[k].len = n > S->o->strsize ? S->o->strsize : n;
            fr->str[k].s = malloc(fr->str[k].len + 1);
            if (fr->str[k].s)
                memcpy(fr->str[k].s, s, fr->str[k].len);
            else
                fr->nstr--;
        }
        if (fn->no_ret) { /* no return to wait for: recorded now, as a call that did not return */
            write_call(S, t, fr, 0, 0, 0, NULL, 0);
            frame_free(fr);
            t->depth--;
        }
        return;
    }
    /* header 8, func 8, return ip 8, $retval, the returned string */
    if (rawlen < 32)
        return;
    uint32_t k = t->depth;
    while (k > 0 && t->f[k - 1].fn != fi)
        k--;
    if (!k)
        return; /* entered before we looked */
    while (t->depth > k) /* frames left by a longjmp */
        frame_free(&t->f[--t->depth]);
    struct frame *fr = &t->f[--t->depth];
    if (fr->keep) {
        int64_t ret;
        memcpy(&ret, raw + 24, 8);
        uint32_t rslen = 0;
        const char *rs = fn->ret_string && ret ? data_loc(raw, rawlen, 32, &rslen) : NULL;
        write_call(S, t, fr, 1, ret, time, rs, rslen);
    }
    frame_free(fr);
}

/* The calls of thread t that never returned (exit, a killed thread). */
static void flush_thread(struct state *S, struct thread *t)
{
    if (t->sys_nr >= 0)
        write_syscall(S, t, 0, 0, 0);
    while (t->depth > 0) {
        struct frame *fr = &t->f[--t->depth];
        if (fr->keep)
            write_call(S, t, fr, 0, 0, 0, NULL, 0);
        frame_free(fr);
    }
}

/* The entry of path in the seen files, added when add (as the kernel names a mapped file:
 * a library found as /lib/x86_64-linux-gnu/libc.so.6 is mapped as /usr/lib/...). */
static const char *seen(struct state *S, const char *path, int add)
{
    char real[PATH_MAX];
    if (add && realpath(path, real))
        path = real;
    for (size_t i = 0; i < S->nseen; i++)
        if (!strcmp(S->seen[i], path))
            return S->seen[i];
    if (!add)
        return NULL;
    char **nv = realloc(S->seen, (S->nseen + 1) * sizeof *nv);
    if (!nv || !(path = strdup(path)))
        return NULL;
    S->seen = nv;
    return S->seen[S->nseen++] = (char *)path;
}

/* The order new functions are probed in: the chosen ones (-e, -l, imports), then the -x ones,
 * each in file order (a test's workload waits for the last one's breakpoint). */
static int cmp_func_off(const void *a, const void *b)
{
    const struct func *x = a, *y = b;
    if (x->in_main != y->in_main)
        return x->in_main - y->in_main;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Probes on what a process mapped after the start: a library it dlopen'ed, or the program a
 * followed process exec'd (is_exe: its imports and its libraries).  The new events are opened
 * on every thread of the traced processes; a call made before they are in place is missed. */
static void add_object(struct state *S, const char *path, int is_exe)
{
    size_t from = S->f->n;
    char err[512];
    int rc;
    if (is_exe) {
        char **libs = NULL;
        size_t nlibs = 0;
        rc = select_resolve(S->o->sel, path, NULL, 0, S->o->protos, S->f, &libs, &nlibs, err, sizeof err);
        for (size_t i = 0; i < nlibs; i++) {
            seen(S, libs[i], 1);
            free(libs[i]);
        }
        free(libs);
    } else {
        rc = select_library(S->o->sel, path, S->o->protos, S->f);
    }
    if (rc < 0 || S->f->n == from)
        return;
    qsort(S->f->v + from, S->f->n - from, sizeof *S->f->v, cmp_func_off);
    if (probes_create(S->f, from, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s: %s\n", cli_name(), path, err);
        return;
    }
    for (size_t i = from; i < S->f->n; i++)
        tr_writer_string(S->w, S->f->v[i].name, strlen(S->f->v[i].name), &S->f->v[i].name_id);
    size_t it = 0;
    for (hashmap_slot *sl; (sl = hashmap_next(&S->procs, &it));) {
        const struct proc *p = sl->val;
        char dir[64];
        snprintf(dir, sizeof dir, "/proc/%d/task", (int)p->pid);
        DIR *d = traced(S, p->pid) ? opendir(dir) : NULL;
        for (struct dirent *de; d && (de = readdir(d));)
            if (de->d_name[0] != '.' && open_task(S, (pid_t)atoi(de->d_name), 0, 0, from, 0) < 0)
                break;
        if (d)
            closedir(d);
    }
}

static void on_mmap2(struct state *S, const uint8_t *d, uint32_t len)
{
    /* pid, tid, addr, len, pgoff, maj/min/ino/ino_gen (or build id), prot, flags, filename */
    if (len < 72)
        return;
    int32_t pid;
    uint64_t addr, mlen;
    uint32_t prot;
    memcpy(&pid, d, 4);
    memcpy(&addr, d + 8, 8);
    memcpy(&mlen, d + 16, 8);
    memcpy(&prot, d + 56, 4);
    const char *name = (const char *)d + 64;
    if (!(prot & PROT_EXEC) || !memchr(name, 0, len - 64) || name[0] != '/' || !traced(S, pid))
        return;
    struct proc *p = proc_get(S, pid);
    if (!p)
        return;
    if (p->want_exe) { /* the program it exec'd */
        p->want_exe = 0;
        if (!seen(S, name, 0) && seen(S, name, 1))
            add_object(S, name, 1);
        p->exe = seen(S, name, 0);
    } else if (!seen(S, name, 0) && seen(S, name, 1)) {
        add_object(S, name, 0);
    }
    if (p->exe && !strcmp(name, p->exe) && p->n < 16) {
        p->r[p->n].start = addr;
        p->r[p->n].end = addr + mlen;
        p->n++;
    }
}

static void on_task(struct state *S, uint32_t type, const uint8_t *d, uint32_t len, uint64_t time)
{
    if (len < 24)
        return;
    int32_t pid, ppid, tid, ptid;
    memcpy(&pid, d, 4);
    memcpy(&ppid, d + 4, 4);
    memcpy(&tid, d + 8, 4);
    memcpy(&ptid, d + 12, 4);
    if (!S->o->follow && pid != S->root)
        return;
    if (type == PERF_RECORD_FORK) {
        if (pid != ppid) { /* a new process: a copy of its parent's mappings */
            struct proc *parent = hashmap_get(&S->procs, (uint64_t)ppid, 0), *p = proc_get(S, pid);
            if (parent && p) {
                *p = *parent;
                p->pid = pid;
            }
        }
        tr_record r = {.type = TR_REC_FORK, .time = time, .pid = pid, .tid = tid, .cpu = -1};
        r.u.fork.ppid = ppid;
        r.u.fork.ptid = ptid;
        tr_writer_add(S->w, &r);
    } else {
        struct thread *t = hashmap_get(&S->threads, (uint64_t)tid, 0);
        if (t)
            flush_thread(S, t);
    }
}

static void on_comm(struct state *S, const uint8_t *d, uint32_t len, uint16_t misc, uint64_t time)
{
    if (len < 9 || !memchr(d + 8, 0, len - 8))
        return;
    int32_t pid, tid;
    memcpy(&pid, d, 4);
    memcpy(&tid, d + 4, 4);
    if (!S->o->follow && pid != S->root)
        return;
    if (misc & PERF_RECORD_MISC_COMM_EXEC) {
        struct proc *p = proc_get(S, pid);
        if (p) {
            p->n = 0;
            p->want_exe = 1;
        }
    }
    tr_record r = {.type = TR_REC_COMM, .time = time, .pid = pid, .tid = tid, .cpu = -1};
    r.u.comm.comm = (const char *)d + 8;
    r.u.comm.len = strlen(r.u.comm.comm);
    r.u.comm.exec = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
    tr_writer_add(S->w, &r);
}

static int cmp_ev(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Copy what the rings hold into the batch. */
static void read_rings(struct state *S)
{
    for (size_t i = 0; i < 2 * S->nrings; i++) {
        struct ring *rg = i < S->nrings ? &S->rings[i] : &S->side[i - S->nrings];
        if (!rg->size)
            continue;
        struct perf_event_mmap_page *mp = rg->base;
        uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = mp->data_tail;
        uint8_t *data = (uint8_t *)rg->base + mp->data_offset;
        uint64_t size = mp->data_size;
        while (tail < head) {
            struct perf_event_header h;
            for (size_t k = 0; k < sizeof h; k++)
                ((uint8_t *)&h)[k] = data[(tail + k) % size];
            if (h.size < sizeof h)
                break;
            if (S->blen + h.size > S->bcap) {
                S->bcap = (S->blen + h.size) * 2;
                S->buf = realloc(S->buf, S->bcap);
            }
            if (S->nev == S->capev) {
                S->capev = S->capev ? S->capev * 2 : 4096;
                S->evs = realloc(S->evs, S->capev * sizeof *S->evs);
            }
            uint8_t *dst = S->buf + S->blen;
            uint64_t o = tail % size;
            if (o + h.size <= size)
                memcpy(dst, data + o, h.size);
            else {
                memcpy(dst, data + o, size - o);
                memcpy(dst + size - o, data, h.size - (size - o));
            }
            struct ev *e = &S->evs[S->nev++];
            e->type = h.type;
            e->off = (uint32_t)S->blen;
            e->len = h.size;
            e->seq = S->seq++;
            e->time = 0;
            if (h.type == PERF_RECORD_SAMPLE && h.size >= 32)
                memcpy(&e->time, dst + 8 + 16, 8);
            else if (h.size >= 8 + 24) /* the sample_id trailer: pid/tid, time, identifier */
                memcpy(&e->time, dst + h.size - 16, 8);
            S->blen += h.size;
            tail += h.size;
        }
        __atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
    }
}

/* Handle the batch's events older than cut in time order; keep the rest. */
static void process(struct state *S, uint64_t cut)
{
    if (S->nev)
        qsort(S->evs, S->nev, sizeof *S->evs, cmp_ev);
    size_t i = 0;
    for (; i < S->nev && S->evs[i].time < cut; i++) {
        const struct ev *e = &S->evs[i];
        const uint8_t *d = S->buf + e->off + 8;
        uint32_t len = e->len - 8;
        uint16_t misc;
        memcpy(&misc, S->buf + e->off + 4, 2);
        switch (e->type) {
        case PERF_RECORD_SAMPLE: on_sample(S, d, len); break;
        case PERF_RECORD_MMAP2: on_mmap2(S, d, len); break;
        case PERF_RECORD_FORK: case PERF_RECORD_EXIT: on_task(S, e->type, d, len, e->time); break;
        case PERF_RECORD_COMM: on_comm(S, d, len, misc, e->time); break;
        case PERF_RECORD_LOST:
            if (len >= 16) {
                uint64_t n;
                memcpy(&n, d + 8, 8);
                S->res->lost += n;
                tr_record r = {.type = TR_REC_LOST, .time = e->time, .pid = -1, .tid = -1, .cpu = -1};
                r.u.lost.kind = TR_LOST_SAMPLES;
                r.u.lost.count = n;
                tr_writer_add(S->w, &r);
            }
            break;
        default: break;
        }
    }
    /* keep the rest, compacted */
    size_t keep = S->nev - i, bytes = 0;
    uint8_t *nb = keep ? malloc(S->blen + 1) : NULL;
    for (size_t k = 0; k < keep; k++) {
        struct ev e = S->evs[i + k];
        memcpy(nb + bytes, S->buf + e.off, e.len);
        e.off = (uint32_t)bytes;
        bytes += e.len;
        S->evs[k] = e;
    }
    if (keep) {
        memcpy(S->buf, nb, bytes);
        free(nb);
    }
    S->blen = bytes;
    S->nev = keep;
}

/* -p: the binary's executable mappings of a running process. */
static void read_maps(struct state *S, pid_t pid)
{
    char path[64], line[PATH_MAX + 128];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *fp = fopen(path, "re");
    if (!fp)
        return;
    struct proc *p = proc_get(S, pid);
    while (p && fgets(line, sizeof line, fp)) {
        unsigned long long a, b;
        char perms[8];
        int n = 0;
        if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perms, &n) < 3 || !n)
            continue;
        char *name = line + n;
        name[strcspn(name, "\n")] = 0;
        if (perms[2] == 'x' && !strcmp(name, p->exe) && p->n < 16) {
            p->r[p->n].start = a;
            p->r[p->n].end = b;
            p->n++;
        }
    }
    fclose(fp);
}

int record_run(tr_writer *w, const struct rec_opts *o, struct funcs *f, pid_t child, int go_fd,
               const pid_t *pids, size_t npids, struct rec_result *res)
{
    struct state S;
    memset(&S, 0, sizeof S);
    S.w = w;
    S.o = o;
    S.f = f;
    S.res = res;
    S.root = child > 0 ? child : (npids == 1 ? pids[0] : -1);
    res->status = -1;
    int rc = 0;
    for (size_t i = 0; i < f->n; i++)
        tr_writer_string(w, f->v[i].name, strlen(f->v[i].name), &f->v[i].name_id);
    const char *exe = seen(&S, o->exe, 1);
    for (size_t i = 0; i < o->nlibs; i++)
        seen(&S, o->libs[i], 1);
    for (size_t i = 0; i < (child > 0 ? 1 : npids); i++) {
        struct proc *p = proc_get(&S, child > 0 ? child : pids[i]);
        if (p)
            p->exe = exe;
    }
    if (child > 0) {
        rc = open_task(&S, child, 1, 1, 0, o->syscalls);
        if (rc == 0 && write(go_fd, "g", 1) != 1)
            rc = -1;
    } else {
        for (size_t i = 0; i < npids && rc == 0; i++) {
            read_maps(&S, pids[i]);
            /* every thread the process has now; later ones inherit */
            char dir[64];
            snprintf(dir, sizeof dir, "/proc/%d/task", (int)pids[i]);
            DIR *d = opendir(dir);
            for (struct dirent *de; rc == 0 && d && (de = readdir(d));)
                if (de->d_name[0] != '.')
                    rc = open_task(&S, (pid_t)atoi(de->d_name), 0, 1, 0, o->syscalls);
            if (d)
                closedir(d);
            else
                rc = open_task(&S, pids[i], 0, 1, 0, o->syscalls);
        }
    }
    if (go_fd >= 0)
        close(go_fd);
    while (rc == 0) {
        int done = record_stop;
        if (child > 0 && !done) {
            int st;
            pid_t r = waitpid(child, &st, WNOHANG);
            if (r == child) {
                res->status = st;
                done = 1;
            }
        } else if (!done) {
            done = 1;
            for (size_t i = 0; i < npids; i++)
                if (kill(pids[i], 0) == 0)
                    done = 0;
        }
        uint64_t cut = done ? UINT64_MAX : now_ns();
        read_rings(&S);
        process(&S, cut);
        tr_writer_poll(w);
        if (done)
            break;
        if (!S.npoll) {
            S.poll = realloc(S.poll, 2 * S.nrings * sizeof *S.poll);
            for (size_t i = 0; i < 2 * S.nrings; i++) {
                const struct ring *rg = i < S.nrings ? &S.rings[i] : &S.side[i - S.nrings];
                if (rg->size)
                    S.poll[S.npoll++] = (struct pollfd){.fd = rg->fd, .events = POLLIN};
            }
        }
        poll(S.poll, S.npoll, 100);
    }
    free(S.poll);
    /* calls that never returned, then the command's end */
    size_t it = 0;
    for (hashmap_slot *s; (s = hashmap_next(&S.threads, &it));) {
        flush_thread(&S, s->val);
        free(s->val);
    }
    if (res->status >= 0) {
        tr_record r = {.type = TR_REC_EXIT, .time = now_ns(), .pid = child, .tid = child, .cpu = -1};
        r.u.exit.status = res->status;
        tr_writer_add(w, &r);
    }
    for (size_t i = 0; i < S.nrings; i++) {
        if (S.rings[i].size)
            munmap(S.rings[i].base, S.rings[i].size);
        if (S.side[i].size)
            munmap(S.side[i].base, S.side[i].size);
    }
    for (size_t i = 0; i < S.nseen; i++)
        free(S.seen[i]);
    free(S.seen);
    free(S.side);
    for (size_t i = 0; i < S.nfds; i++)
        close(S.fds[i]);
    it = 0;
    for (hashmap_slot *s; (s = hashmap_next(&S.procs, &it));)
        free(s->val);
    hashmap_free(&S.procs);
    hashmap_free(&S.callers);
    hashmap_free(&S.threads);
    hashmap_free(&S.ids);
    free(S.fds);
    free(S.rings);
    free(S.evs);
    free(S.buf);
    return rc;
}
