/*
 * session.h - the state of one sampling run, shared by record.c (opening
 * events, the run loop) and convert.c (perf records to tr records).
 */
#ifndef TRP_SESSION_H
#define TRP_SESSION_H

#include <asm/perf_regs.h>
#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "perf.h"
#include "ring.h"
#include "sideband.h"
#include "tpformat.h"
#include "tr.h"

#define MAX_CPUS 1024

struct evfd {
    int fd;
    int ev;       /* index into s->evs */
    uint64_t id;  /* kernel event id */
};

struct session {
    struct perf_opts *o;
    tr_writer *w;
    int out_fd;
    const char *out_name;
    struct perf_ev *evs;
    int nevs;
    uint32_t evid[PERF_MAX_EVENTS];
    uint64_t sample_type[PERF_MAX_EVENTS];
    int cpus[MAX_CPUS];
    int ncpus;
    struct perf_ring *rings; /* one per CPU */
    int *ring_fd;
    struct evfd *fds;
    size_t nfds, capfds;
    hashmap event_by_id; /* kernel sample id -> its event in evs */
    struct sideband *sb;
    struct perf_child child;
    int have_child, child_done, child_status;
    uint64_t child_exit_time;
    int child_exit_seen;
    uint64_t samples, lost, *lost_cpu, throttled;
    int werr; /* first writer error */
    int any_kernel;
    /* the kernel functions in tracepoint fields (hrtimer_start's function=%ps), per
     * event, from its format: their symbols go into the kallsyms blob */
    tpformat *tp;
    tpformat_funcs funcs[PERF_MAX_EVENTS];
    /* batch */
    uint64_t *addrs;
    uint32_t *flags;
    size_t addr_cap;
};

/* Remember the first writer error. */
static inline void werr(struct session *s, int rc)
{
    if (rc < 0 && !s->werr)
        s->werr = rc;
}

/* The user registers taken in dwarf mode: all but the segment registers. */
static inline uint64_t dwarf_regs_mask(void)
{
    uint64_t m = (1ull << PERF_REG_X86_64_MAX) - 1;
    m &= ~((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) | (1ull << PERF_REG_X86_FS) |
           (1ull << PERF_REG_X86_GS));
    return m;
}

/* The user stack pointer of a dwarf sample (where its stack copy starts), 0 unknown. */
static inline uint64_t dwarf_user_sp(const tr_record *rec)
{
    uint64_t m = rec->u.sample.regs_mask;
    if (!rec->u.sample.abi || !(m & (1ull << PERF_REG_X86_SP))) return 0;
    return rec->u.sample.regs[__builtin_popcountll(m & ((1ull << PERF_REG_X86_SP) - 1))];
}

/* Read every ring, sort what was read by time, write what is old enough
 * (everything when final) (convert.c). */
void drain(struct session *s, int final);
/* An exit record. */
void write_exit(struct session *s, int32_t pid, int32_t tid, uint64_t time, int32_t cpu, int status,
                uint32_t flags);

#endif
