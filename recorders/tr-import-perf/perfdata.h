/*
 * perfdata.h - a perf.data file (perf record's file mode, "PERFILE2"), read
 * in place: its events (attributes, ids, names), the feature sections
 * tr-import-perf uses (build-ids, host, release, arch, cpus, command line,
 * tracing data, clock) and its records put in time order, as perf script
 * orders them.
 */
#ifndef TRI_PERFDATA_H
#define TRI_PERFDATA_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct pd_event {
    struct perf_event_attr attr;
    const uint8_t *ids; /* nids u64s in the file */
    size_t nids;
    char name[256];     /* from HEADER_EVENT_DESC, or made up from the attribute */
};

struct pd_buildid {
    const char *path;   /* in the file, NUL-terminated within it */
    uint8_t id[20];
    uint8_t len;
};

struct pd_rec {
    uint64_t at;        /* offset of the record in the file, or in unz */
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
    size_t nbids;
    const char *host, *release, *arch; /* NULL when the file does not say */
    uint32_t ncpus;
    char *cmdline;      /* perf's own command line, words joined by spaces */
    const uint8_t *tracing; /* HEADER_TRACING_DATA */
    uint64_t tracing_len;
    int have_clock;     /* HEADER_CLOCK_DATA: a reading of the record clock and the wall clock */
    uint32_t clockid;
    uint64_t clock_wall_ns, clock_ns;
    struct pd_rec *recs;
    size_t nrecs;
    uint8_t *unz;       /* the records of the compressed records, decompressed */
    size_t unz_len, unz_cap, unz_done;
    struct ZSTD_DCtx_s *zd;
    uint64_t data_end;  /* where the readable records end */
    char damage[160];   /* "" or why the records end before the data section does */
};

/* Map and check path; on failure a one-line cause in why and -1.  The
 * records are listed in time order; a data section cut short reads up to
 * its last whole record, and damage says why. */
int pd_open(struct perfdata *pd, const char *path, char *why, size_t why_len);
void pd_close(struct perfdata *pd);

/* The event of a sample or other record (by its sample id when there are
 * several events), NULL when unknown. */
const struct pd_event *pd_event_of(const struct perfdata *pd, const struct perf_event_header *h);
/* The record r lists. */
const struct perf_event_header *pd_record(const struct perfdata *pd, const struct pd_rec *r);
/* The build-id perf stored for path, NULL (and *len 0) when none. */
const uint8_t *pd_build_id(const struct perfdata *pd, const char *path, size_t *len);

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
