/*
 * record.c - the calls through perf events on the uprobes' tracepoints.
 *
 * For each CPU, every probe's event is opened on the traced task (inherited
 * by its threads and children) and sent to one ring buffer per CPU; the first
 * event of each also brings mmap, comm and fork records.  Entries and returns
 * are read in batches, merged by time, and paired per thread: a call is
 * written as one libcall record (entry time, duration) when it returns.  A
 * call into a library counts only when it came from the main binary (its
 * return address lies in the binary's executable mappings), as ltrace counts
 * the calls through the binary's PLT; the library's own calls to the same
 * function are not the program's.
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
#define MAX_DEPTH 256

volatile int record_stop;

struct ring { int fd; void *base; size_t size; };

struct ev { uint64_t time, seq; uint32_t type; uint32_t off, len; };

struct frame {
    uint32_t fn;
    int keep;
    uint64_t time;
    uint64_t args[6];
    uint32_t nstr;
    struct { uint32_t arg, len, trunc; char *s; } str[6];
};

struct thread { int32_t pid, tid; uint32_t depth; struct frame f[MAX_DEPTH]; };
struct proc { int32_t pid; uint32_t n; struct { uint64_t start, end; } r[16]; };

struct state {
    tr_writer *w;
    const struct rec_opts *o;
    struct funcs *f;
    hashmap ids;       /* sample id -> (fn index * 2 + ret) + 1 */
    hashmap threads;   /* tid -> struct thread */
    hashmap procs;     /* pid -> struct proc */
    struct ring *rings; size_t nrings;
    int *fds; size_t nfds, capfds;
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

static int open_event(struct state *S, uint64_t config, pid_t pid, int cpu, int sideband, int on_exec,
                      int group_fd)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_TRACEPOINT;
    a.config = config;
    a.sample_period = 1;
    a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
    a.disabled = on_exec;
    a.enable_on_exec = on_exec;
    a.inherit = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.sample_id_all = 1;
    if (sideband) {
        a.mmap = 1;
        a.mmap2 = 1;
        a.comm = 1;
        a.comm_exec = 1;
        a.task = 1;
    }
    int fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (group_fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, group_fd) < 0) {
        close(fd);
        return -1;
    }
    if (S->nfds == S->capfds) {
        S->capfds = S->capfds ? S->capfds * 2 : 64;
        S->fds = realloc(S->fds, S->capfds * sizeof *S->fds);
    }
    S->fds[S->nfds++] = fd;
    return fd;
}

/* Every probe's entry and return events on task pid, on every CPU. */
static int open_all(struct state *S, pid_t pid, int on_exec)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (int cpu = 0; cpu < ncpu; cpu++) {
        int lead = -1;
        for (size_t i = 0; i < S->f->n; i++) {
            struct func *fn = &S->f->v[i];
            if (!fn->id_entry)
                continue;
            for (int r = 0; r < 2 - fn->no_ret; r++) {
                int sideband = lead < 0;
                int group = lead;
                if (lead < 0 && (size_t)cpu < S->nrings && S->rings[cpu].size)
                    group = S->rings[cpu].fd; /* the CPU's ring, of the first task opened */
                int fd = open_event(S, r ? fn->id_ret : fn->id_entry, pid, cpu, sideband, on_exec, group);
                if (fd < 0) {
                    if (lead < 0 && errno == ENODEV)
                        goto next_cpu; /* an offline CPU */
                    fprintf(stderr, "%s: perf_event_open of %s on cpu %d: %s\n", cli_name(), fn->name, cpu,
                            strerror(errno));
                    return -1;
                }
                uint64_t id;
                if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 ||
                    hashmap_put(&S->ids, id, 0, (void *)(uintptr_t)(i * 2 + (size_t)r + 1)) < 0)
                    return -1;
                if (lead < 0) {
                    lead = fd;
                    if (group < 0) {
                        if ((size_t)cpu >= S->nrings) {
                            S->rings = realloc(S->rings, (size_t)(cpu + 1) * sizeof *S->rings);
                            memset(S->rings + S->nrings, 0, (size_t)(cpu + 1 - (int)S->nrings) * sizeof *S->rings);
                            S->nrings = (size_t)cpu + 1;
                        }
                        struct ring *rg = &S->rings[cpu];
                        rg->size = (1 + RING_PAGES) * page;
                        rg->base = mmap(NULL, rg->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                        if (rg->base == MAP_FAILED) {
                            fprintf(stderr, "%s: mmap of the ring buffer: %s\n", cli_name(), strerror(errno));
                            rg->size = 0;
                            return -1;
                        }
                        rg->fd = fd;
                    }
                }
            }
        }
    next_cpu:;
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

static struct thread *thread_get(struct state *S, int32_t pid, int32_t tid)
{
    struct thread *t = hashmap_get(&S->threads, (uint64_t)tid, 0);
    if (!t && (t = calloc(1, sizeof *t))) {
        t->tid = tid;
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

static void write_call(struct state *S, const struct thread *t, struct frame *fr, int finished, int64_t ret,
                       uint64_t end, const char *rs, uint32_t rslen)
{
    const struct func *fn = &S->f->v[fr->fn];
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_LIBCALL;
    r.time = fr->time;
    r.pid = t->pid;
    r.tid = t->tid;
    r.cpu = -1;
    r.u.libcall.func = fn->name_id;
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
    r.u.libcall.ncaptures = nc;
    tr_writer_add(S->w, &r);
    S->res->calls++;
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
    if (!S->o->follow && pid != S->root && S->root > 0)
        return;
    uint32_t fi = (uint32_t)((v - 1) / 2);
    int is_ret = (int)((v - 1) & 1);
    const struct func *fn = &S->f->v[fi];
    struct thread *t = thread_get(S, pid, tid);
    if (!t)
        return;
    if (!is_ret) {
        /* header 8, ip 8, the registers, the return address, the strings' data_loc */
        uint32_t need = 16 + 8 * fn->nargs + 8;
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
        uint32_t off = need;
        for (unsigned a = 0; a < fn->nargs; a++) {
            if (!libproto_is_string(p->args[a]))
                continue;
            uint32_t n;
            const char *s = data_loc(raw, rawlen, off, &n);
            off += 4;
            if (!s || !fr->args[a])
                continue;
            uint32_t k = fr->nstr++;
            fr->str[k].arg = a;
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
    while (t->depth > 0) {
        struct frame *fr = &t->f[--t->depth];
        if (fr->keep)
            write_call(S, t, fr, 0, 0, 0, NULL, 0);
        frame_free(fr);
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
    if (!(prot & PROT_EXEC) || !memchr(name, 0, len - 64) || strcmp(name, S->o->exe))
        return;
    struct proc *p = proc_get(S, pid);
    if (p && p->n < 16) {
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
        if (p)
            p->n = 0;
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
    for (size_t i = 0; i < S->nrings; i++) {
        struct ring *rg = &S->rings[i];
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
        if (perms[2] == 'x' && !strcmp(name, S->o->exe) && p->n < 16) {
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
    if (child > 0) {
        rc = open_all(&S, child, 1);
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
                    rc = open_all(&S, (pid_t)atoi(de->d_name), 0);
            if (d)
                closedir(d);
            else
                rc = open_all(&S, pids[i], 0);
        }
    }
    if (go_fd >= 0)
        close(go_fd);
    struct pollfd *pfd = calloc(S.nrings + 1, sizeof *pfd);
    size_t np = 0;
    for (size_t i = 0; i < S.nrings; i++)
        if (S.rings[i].size) {
            pfd[np].fd = S.rings[i].fd;
            pfd[np].events = POLLIN;
            np++;
        }
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
        poll(pfd, np, 100);
    }
    free(pfd);
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
    for (size_t i = 0; i < S.nrings; i++)
        if (S.rings[i].size)
            munmap(S.rings[i].base, S.rings[i].size);
    for (size_t i = 0; i < S.nfds; i++)
        close(S.fds[i]);
    it = 0;
    for (hashmap_slot *s; (s = hashmap_next(&S.procs, &it));)
        free(s->val);
    hashmap_free(&S.procs);
    hashmap_free(&S.threads);
    hashmap_free(&S.ids);
    free(S.fds);
    free(S.rings);
    free(S.evs);
    free(S.buf);
    return rc;
}
