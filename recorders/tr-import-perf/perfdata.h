/*
 * perfdata.h - perf.data: its events (attributes, ids, names), the feature
 * sections tr-import-perf uses (build-ids, host, release, arch, cpus,
 * command line, tracing data, clock) and its records in time order, as perf
 * script orders them.  A file in file mode ("PERFILE2" with its sections) is
 * read in place and its records sorted whole; pipe mode (perf record -o -,
 * the header as records), from a file or a pipe, is read as a stream, its
 * records sorted round by round (FINISHED_ROUND) as perf sorts them.
 */
#ifndef TRI_PERFDATA_H
#define TRI_PERFDATA_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct pd_event {
    struct perf_event_attr attr;
    uint64_t *ids;      /* nids sample ids */
    size_t nids;
    char name[256];     /* from HEADER_EVENT_DESC, or made up from the attribute */
};

struct pd_buildid {
    char *path;
    uint8_t id[20];
    uint8_t len;
};

struct pd_rec {
    uint64_t at;        /* offset of the record in the file, in unz, or in q (pipe mode) */
    uint8_t unz;        /* 1: decompressed from a compressed record (perf record -z) */
    uint64_t time;      /* 0: none (takes the time of the record before) */
    uint64_t seq;
};

struct perfdata {
    const uint8_t *base;
    size_t size;
    struct pd_event *evs;
    size_t nevs;
    struct pd_buildid *bids;
    size_t nbids, bids_cap;
    char *host, *release, *arch; /* NULL when the file does not say */
    uint32_t ncpus;
    char *cmdline;      /* perf's own command line, words joined by spaces */
    const uint8_t *tracing; /* HEADER_TRACING_DATA */
    uint64_t tracing_len;
    uint8_t *tracing_own;   /* pipe mode: tracing points here */
    int have_clock;     /* HEADER_CLOCK_DATA: a reading of the record clock and the wall clock */
    uint32_t clockid;
    uint64_t clock_wall_ns, clock_ns;
    struct pd_rec *recs; /* the records in order (pipe mode: the ones queued) */
    size_t nrecs, recs_cap;
    size_t rnext, rflush; /* the next record pd_next gives, the end of those it may give */
    uint64_t seq;
    /* pipe mode */
    int pipe, fd, in_data, ended; /* in_data: the header records are read */
    uint64_t pos;       /* bytes read */
    uint8_t *ib;        /* the input buffer */
    size_t ib_pos, ib_len;
    uint8_t *rb;        /* the record being read */
    size_t rb_cap;
    uint8_t *q, *q2;    /* the bytes of the queued records */
    size_t q_len, q_cap, q2_cap;
    uint64_t max_time, next_flush; /* perf's ordered events: a round flushes up to the previous one's latest time */
    uint8_t *unz;       /* the records of the compressed records, decompressed */
    size_t unz_len, unz_cap, unz_done;
    struct ZSTD_DCtx_s *zd;
    uint64_t data_end;  /* where the readable records end */
    char damage[160];   /* "" or why the records end before the data section does */
};

/* Open path ("-": stdin) and read its header (pipe mode: up to the first
 * data record); on failure a one-line cause in why and -1.  Data cut short
 * reads up to its last whole record, and damage says why. */
int pd_open(struct perfdata *pd, const char *path, char *why, size_t why_len);
void pd_close(struct perfdata *pd);
/* The next record in time order and its time (0: none), NULL at the end.
 * It stays valid until the next call. */
const struct perf_event_header *pd_next(struct perfdata *pd, uint64_t *time);
/* The event of sample id id, NULL when unknown. */
const struct pd_event *pd_event_by_id(const struct perfdata *pd, uint64_t id);

/* The event of a sample or other record (by its sample id when there are
 * several events), NULL when unknown. */
const struct pd_event *pd_event_of(const struct perfdata *pd, const struct perf_event_header *h);
/* The build-id listed for path (*len 0: listed as having none), NULL (and
 * *len 0) when path is not listed. */
const uint8_t *pd_build_id(const struct perfdata *pd, const char *path, size_t *len);
/* List the build-id of path (len 0: it has none); 0, or -1 when out of memory. */
int pd_add_build_id(struct perfdata *pd, const char *path, const uint8_t *id, size_t len);

/* The sample_id_all trailer of a non-sample record, as the first event lays it out. */
struct pd_sample_id {
    int32_t pid, tid, cpu;
    uint64_t time, id;
};
int pd_trailer(const struct perfdata *pd, const struct perf_event_header *h, struct pd_sample_id *sid);

/* One tracepoint format of the tracing data: called with its system and its text. */
typedef int (*pd_format_fn)(void *ctx, const char *sys, const char *fmt, size_t len);
/* Walk the tracing data (HEADER_TRACING_DATA); -1 when it is malformed. */
int pd_tracing_formats(const struct perfdata *pd, pd_format_fn fn, void *ctx);

#endif
