/*
 * convert.c - perf ring records to tr records: samples (stacks interned leaf
 * first, kernel frames flagged, dwarf registers and the valid part of the
 * stack copy, raw tracepoint payloads), mmap2 with build-ids, comm, fork,
 * exit, switch and lost records.  Each batch of all rings is sorted by time.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "buildid.h"
#include "session.h"
#include "sideband.h"

/* The index in evs of the event whose fd has sample id id, or -1. */
static int event_of_id(struct session *s, uint64_t id)
{
    const struct perf_ev *ev = hashmap_get(&s->event_by_id, id, 0);
    return ev ? (int)(ev - s->evs) : -1;
}

/* --- converting records ------------------------------------------------ */

struct sample_id { /* the sample_id_all trailer: TID TIME CPU IDENTIFIER */
    uint32_t pid, tid;
    uint64_t time;
    uint32_t cpu, res;
    uint64_t id;
};

static int trailer(const struct perf_event_header *h, struct sample_id *sid)
{
    if (h->size < sizeof(*h) + sizeof *sid)
        return -1;
    memcpy(sid, (const uint8_t *)h + h->size - sizeof *sid, sizeof *sid);
    return 0;
}

static uint64_t record_time(const struct perf_event_header *h)
{
    if (h->type == PERF_RECORD_SAMPLE) {
        uint64_t t = 0;
        if (h->size >= sizeof *h + 32)
            memcpy(&t, (const uint8_t *)h + sizeof *h + 24, 8);
        return t;
    }
    struct sample_id sid;
    return trailer(h, &sid) ? 0 : sid.time;
}

/* A probe on a function's first instruction with frame-pointer stacks: the
 * function has not pushed a frame yet, so the chain goes from its address to
 * its caller's caller.  The caller is the return address at the stack
 * pointer (the sample's 8-byte stack copy): put it after the user leaf,
 * unless the kernel already did (it does for a function starting with
 * push %rbp). */
static void caller_at_entry(struct perf_frames *f, size_t *n, size_t user, const tr_record *rec)
{
    uint64_t ret;
    if (!user || rec->u.sample.stack_copy_len < 8)
        return;
    memcpy(&ret, rec->u.sample.stack_copy, 8);
    size_t leaf = *n - user;
    if (leaf + 1 < *n && f->addrs[leaf + 1] == ret)
        return;
    memmove(f->addrs + leaf + 2, f->addrs + leaf + 1, (*n - leaf - 1) * sizeof *f->addrs);
    memmove(f->flags + leaf + 2, f->flags + leaf + 1, (*n - leaf - 1) * sizeof *f->flags);
    f->addrs[leaf + 1] = ret;
    f->flags[leaf + 1] = 0;
    (*n)++;
}

static void convert_sample(struct session *s, const struct perf_event_header *h, int cpu_idx)
{
    struct perf_cursor c = {(const uint8_t *)(h + 1), (const uint8_t *)h + h->size, 0};
    uint64_t id = perf_take64(&c);
    int ev = event_of_id(s, id);
    if (ev < 0)
        return;
    uint64_t st = s->sample_type[ev];
    tr_record rec = {.type = TR_REC_SAMPLE};
    uint64_t ip = perf_take64(&c);
    uint64_t pidtid = perf_take64(&c);
    rec.pid = (int32_t)(uint32_t)pidtid;
    rec.tid = (int32_t)(uint32_t)(pidtid >> 32);
    rec.time = perf_take64(&c);
    rec.cpu = (int32_t)(uint32_t)perf_take64(&c);
    rec.u.sample.event = s->evid[ev];
    rec.u.sample.period = perf_take64(&c);
    int kernel_mode = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
    size_t n = 0, user = 0;
    if ((st & PERF_SAMPLE_CALLCHAIN) && perf_callchain(&c, &s->fr, kernel_mode, 1, &n, &user) < 0)
        return;
    int entry_probe = s->o->callgraph != CG_DWARF && s->evs[ev].at_entry;
    perf_sample_rest(&c, st, 0, entry_probe ? 1ULL << PERF_REG_X86_SP : dwarf_regs_mask(), &rec);
    if (entry_probe) {
        caller_at_entry(&s->fr, &n, user, &rec);
        rec.u.sample.abi = 0, rec.u.sample.nregs = 0, rec.u.sample.regs_mask = 0;
        rec.u.sample.stack_copy = NULL, rec.u.sample.stack_copy_len = 0, rec.u.sample.stack_copy_addr = 0;
    }
    if (rec.u.sample.raw) {
        uint64_t fa[TPFORMAT_FUNCS_MAX];
        int nf = tpformat_funcs_read(&s->funcs[ev], 0, rec.u.sample.raw, rec.u.sample.raw_len, fa);
        for (int i = 0; i < nf; i++)
            sb_note_kernel_addr(s->sb, fa[i]); /* named in the trace's kallsyms */
    }
    if (c.bad)
        return;
    if (s->o->callgraph == CG_DWARF && !kernel_mode) {
        /* user frames come from unwinding later; keep the sampled user ip */
        if (perf_frames_reserve(&s->fr, n + 1))
            return;
        s->fr.addrs[n] = ip;
        s->fr.flags[n++] = 0;
    }
    if (n == 0) {
        if (perf_frames_reserve(&s->fr, 1))
            return;
        s->fr.addrs[0] = ip;
        s->fr.flags[0] = kernel_mode ? TR_FRAME_KERNEL : 0;
        n = 1;
    }
    for (size_t i = 0; i < n; i++)
        if (s->fr.flags[i] & TR_FRAME_KERNEL) {
            sb_note_kernel_addr(s->sb, s->fr.addrs[i]);
            s->any_kernel = 1;
        }
    sb_note_user_addrs(s->sb, s->fr.addrs, s->fr.flags, n);
    uint64_t uip = sample_user_reg(&rec, PERF_REG_X86_IP); /* dwarf: where unwinding starts */
    if (uip)
        sb_note_user_addrs(s->sb, &uip, &(uint32_t){0}, 1);
    int rc = tr_writer_thread_stack(s->w, rec.pid, rec.tid, s->fr.addrs, s->fr.flags, n, &rec.u.sample.stack);
    if (rc >= 0)
        rc = tr_writer_add(s->w, &rec);
    werr(s, rc);
    s->samples++;
    (void)cpu_idx;
}

static void convert_mmap2(struct session *s, const struct perf_event_header *h)
{
    struct mm {
        uint32_t pid, tid;
        uint64_t addr, len, pgoff;
        union {
            struct { uint32_t maj, min; uint64_t ino, ino_gen; } f;
            struct { uint8_t size, r1; uint16_t r2; uint8_t id[20]; } b;
        } u;
        uint32_t prot, flags;
    } m;
    struct sample_id sid;
    if (h->size < sizeof *h + sizeof m + sizeof sid || trailer(h, &sid))
        return;
    memcpy(&m, h + 1, sizeof m);
    const char *path = (const char *)(h + 1) + sizeof m;
    size_t maxlen = h->size - sizeof *h - sizeof m - sizeof sid;
    size_t plen = strnlen(path, maxlen);
    uint8_t id[BUILD_ID_MAX];
    int idlen = 0;
    int vdso = plen == 6 && !memcmp(path, "[vdso]", 6);
    if (vdso)
        idlen = sb_vdso(s->sb, m.addr, m.len, id);
    char p[4096];
    int file = !vdso && plen && plen < sizeof p;
    if (file) {
        memcpy(p, path, plen);
        p[plen] = 0;
    }
    if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && m.u.b.size && m.u.b.size <= 20) {
        idlen = m.u.b.size;
        memcpy(id, m.u.b.id, (size_t)idlen);
    } else if (file) {
        idlen = sb_build_id(s->sb, (pid_t)m.pid, p, id);
    }
    if (file && (m.prot & PROT_EXEC)) /* stored at the end if then deleted or replaced */
        sb_keep_file(s->sb, (pid_t)m.pid, m.addr, m.len, p, id, &idlen);
    tr_record rec = {.type = TR_REC_MMAP, .time = sid.time, .pid = (int32_t)m.pid,
                     .tid = (int32_t)m.tid, .cpu = (int32_t)sid.cpu};
    rec.u.mmap.start = m.addr;
    rec.u.mmap.len = m.len;
    rec.u.mmap.pgoff = m.pgoff;
    rec.u.mmap.prot = m.prot;
    rec.u.mmap.flags = m.flags;
    rec.u.mmap.build_id = id;
    rec.u.mmap.build_id_len = idlen > 0 ? (size_t)idlen : 0;
    rec.u.mmap.path = path;
    rec.u.mmap.path_len = plen;
    werr(s, tr_writer_add(s->w, &rec));
}

static void convert_comm(struct session *s, const struct perf_event_header *h)
{
    struct sample_id sid;
    if (h->size < sizeof *h + 8 + sizeof sid || trailer(h, &sid))
        return;
    uint32_t pt[2];
    memcpy(pt, h + 1, 8);
    const char *comm = (const char *)(h + 1) + 8;
    size_t len = strnlen(comm, h->size - sizeof *h - 8 - sizeof sid);
    tr_record rec = {.type = TR_REC_COMM, .time = sid.time, .pid = (int32_t)pt[0],
                     .tid = (int32_t)pt[1], .cpu = (int32_t)sid.cpu};
    rec.u.comm.comm = comm;
    rec.u.comm.len = len;
    rec.u.comm.exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? 1 : 0;
    sb_note_pid(s->sb, (pid_t)pt[0]);
    werr(s, tr_writer_add(s->w, &rec));
}

void write_exit(struct session *s, int32_t pid, int32_t tid, uint64_t time, int32_t cpu,
                       int status, uint32_t flags)
{
    tr_record rec = {.type = TR_REC_EXIT, .time = time, .pid = pid, .tid = tid, .cpu = cpu};
    rec.u.exit.status = status;
    rec.u.exit.flags = flags;
    werr(s, tr_writer_add(s->w, &rec));
}

static void convert_task(struct session *s, const struct perf_event_header *h)
{
    struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } t;
    struct sample_id sid;
    if (h->size < sizeof *h + sizeof t + sizeof sid || trailer(h, &sid))
        return;
    memcpy(&t, h + 1, sizeof t);
    if (h->type == PERF_RECORD_FORK) {
        tr_record rec = {.type = TR_REC_FORK, .time = t.time, .pid = (int32_t)t.pid,
                         .tid = (int32_t)t.tid, .cpu = (int32_t)sid.cpu};
        rec.u.fork.ppid = (int32_t)t.ppid;
        rec.u.fork.ptid = (int32_t)t.ptid;
        sb_note_pid(s->sb, (pid_t)t.pid);
        werr(s, tr_writer_add(s->w, &rec));
        return;
    }
    if (s->have_child && (pid_t)t.pid == s->child.pid && t.pid == t.tid) {
        /* the command's own exit: written with its wait status at the end */
        s->child_exit_seen = 1;
        s->child_exit_time = t.time;
        return;
    }
    write_exit(s, (int32_t)t.pid, (int32_t)t.tid, t.time, (int32_t)sid.cpu, 0,
               t.pid != t.tid ? TR_EXITF_THREAD : 0);
}

/* A thread took (switch-in) or left the CPU: PERF_RECORD_SWITCH of a task's
 * event, PERF_RECORD_SWITCH_CPU_WIDE of a CPU's (whose other task is not kept). */
static void convert_switch(struct session *s, const struct perf_event_header *h)
{
    struct sample_id sid;
    if (trailer(h, &sid))
        return;
    tr_record rec = {.type = TR_REC_SWITCH, .time = sid.time, .pid = (int32_t)sid.pid,
                     .tid = (int32_t)sid.tid, .cpu = (int32_t)sid.cpu};
    rec.u.sw.flags = (h->misc & PERF_RECORD_MISC_SWITCH_OUT ? TR_SWF_OUT : 0) |
                     (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ? TR_SWF_PREEMPT : 0);
    werr(s, tr_writer_add(s->w, &rec));
}

static void convert_lost(struct session *s, const struct perf_event_header *h, int cpu_idx)
{
    uint64_t id = 0, lost = 0;
    struct sample_id sid;
    if (trailer(h, &sid))
        return;
    if (h->type == PERF_RECORD_LOST) {
        memcpy(&id, h + 1, 8);
        memcpy(&lost, (const uint8_t *)(h + 1) + 8, 8);
    } else {
        memcpy(&lost, h + 1, 8);
        id = sid.id;
    }
    int ev = event_of_id(s, id);
    tr_record rec = {.type = TR_REC_LOST, .time = sid.time, .pid = -1, .tid = -1,
                     .cpu = s->cpus[cpu_idx]};
    rec.u.lost.event = ev >= 0 ? s->evid[ev] : 0;
    rec.u.lost.kind = TR_LOST_SAMPLES;
    rec.u.lost.count = lost;
    s->lost += lost;
    s->lost_cpu[cpu_idx] += lost;
    werr(s, tr_writer_add(s->w, &rec));
}

/* The kernel throttled an event (too many samples per tick): one lost record
 * of kind THROTTLE per throttling, count 1 (the kernel does not say how many). */
static void convert_throttle(struct session *s, const struct perf_event_header *h, int cpu_idx)
{
    struct { uint64_t time, id, stream_id; } t;
    if (h->size < sizeof *h + sizeof t)
        return;
    memcpy(&t, h + 1, sizeof t);
    int ev = event_of_id(s, t.id);
    tr_record rec = {.type = TR_REC_LOST, .time = t.time, .pid = -1, .tid = -1, .cpu = s->cpus[cpu_idx]};
    rec.u.lost.event = ev >= 0 ? s->evid[ev] : 0;
    rec.u.lost.kind = TR_LOST_THROTTLE;
    rec.u.lost.count = 1;
    s->throttled++;
    werr(s, tr_writer_add(s->w, &rec));
}

static void convert(struct session *s, const struct perf_event_header *h, int cpu_idx)
{
    switch (h->type) {
    case PERF_RECORD_SAMPLE: convert_sample(s, h, cpu_idx); break;
    case PERF_RECORD_MMAP2: convert_mmap2(s, h); break;
    case PERF_RECORD_COMM: convert_comm(s, h); break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: convert_task(s, h); break;
    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES: convert_lost(s, h, cpu_idx); break;
    case PERF_RECORD_THROTTLE: convert_throttle(s, h, cpu_idx); break;
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE: convert_switch(s, h); break;
    default: break; /* unthrottling and others: not recorded */
    }
}

/* --- the batch: every ring's records, in time order -------------------- */

/* Records of different CPUs reach their rings in any order, each ring in
 * its CPU's time order; a record can only be written once no other CPU can
 * still deliver an older one.  The horizon is a clock reading taken before
 * the rings are read, less 1 ms for records being written at that moment.
 * The rings are merged where they lie, oldest record first, and each
 * record's room is given back to the kernel as soon as it is written; the
 * younger ones stay in their rings for the next batch (or the final one). */
void drain(struct session *s, int final)
{
    uint64_t now = sb_now_ns();
    uint64_t horizon = final ? UINT64_MAX : now > 1000000 ? now - 1000000 : 0;
    const struct perf_event_header *next[s->ncpus];
    uint64_t t[s->ncpus];
    for (int c = 0; c < s->ncpus; c++) {
        next[c] = NULL;
        if (s->ring_fd[c] < 0 || !ring_begin(&s->rings[c]))
            continue;
        if ((next[c] = ring_next(&s->rings[c])))
            t[c] = record_time(next[c]);
    }
    while (!s->werr) {
        int c = -1;
        for (int k = 0; k < s->ncpus; k++)
            if (next[k] && t[k] <= horizon && (c < 0 || t[k] < t[c]))
                c = k;
        if (c < 0)
            break;
        convert(s, next[c], c);
        ring_end(&s->rings[c]);
        if ((next[c] = ring_next(&s->rings[c])))
            t[c] = record_time(next[c]);
    }
    for (int c = 0; c < s->ncpus; c++) {
        if (s->ring_fd[c] < 0)
            continue;
        if (next[c])
            ring_unread(&s->rings[c], next[c]);
        ring_end(&s->rings[c]);
    }
}
