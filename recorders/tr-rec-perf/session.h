/*
 * session.h - the state of one sampling run, shared by record.c (opening
 * events, the run loop) and convert.c (perf records to tr records).
 */
#ifndef TRP_SESSION_H
#define TRP_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "perf.h"
#include "perfrec.h"
#include "perfregs.h"
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
    struct perf_frames fr; /* the sample being converted */
};

/* Remember the first writer error. */
static inline void werr(struct session *s, int rc)
{
    if (rc < 0 && !s->werr)
        s->werr = rc;
}

/* Read every ring, sort what was read by time, write what is old enough
 * (everything when final) (convert.c). */
void drain(struct session *s, int final);
/* An exit record. */
void write_exit(struct session *s, int32_t pid, int32_t tid, uint64_t time, int32_t cpu, int status,
                uint32_t flags);

#endif
