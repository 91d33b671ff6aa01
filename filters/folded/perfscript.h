/*
 * perfscript.h - fold `perf script` text exactly as FlameGraph's
 * stackcollapse-perf.pl does (commit 41fee1f), without its --inline.
 */
#ifndef TR_PERFSCRIPT_H
#define TR_PERFSCRIPT_H

#include "lines.h"
#include "smap.h"

struct pscript_opts {
    int pid, tid;        /* root frame "comm-pid", "comm-pid/tid" */
    int kernel, jit;     /* _[k], _[j] annotations */
    int addrs;           /* [module <addr>] for unknown symbols */
    int srcline;         /* input has perf script -F+srcline lines */
    int no_inline;       /* drop "a->b" inline frames after the first */
    const char *event;   /* only this event; NULL: the first seen */
};

struct pscript_stats {
    uint64_t records, filtered, unrecognized, first_unrecognized_line;
    int unterminated;         /* input ended inside a sample: it was dropped */
    char event[256];          /* the event used */
    char other_event[256];    /* another event that was skipped, if any */
};

/* Fold all lines of l into map (key: stack, entry->n: summed periods).
 * Returns 0, or -1 / -2 as lines_next() (read error, line too long). */
int pscript_fold(struct lines *l, const struct pscript_opts *o, struct smap *map,
                 struct pscript_stats *st);

/* The same folding fed from structured samples (tr traces): begin a
 * sample (root frame from comm, pid, tid; weight), add its frames leaf
 * first, end it.  kind says how to annotate a frame. */
enum { PS_FROM_MODULE = 0, PS_USER, PS_KERNEL, PS_JIT, PS_INLINE };
struct pscript;
struct pscript *pscript_new(const struct pscript_opts *o, struct smap *map);
void pscript_free(struct pscript *p);
void pscript_begin(struct pscript *p, const char *comm, int32_t pid, int32_t tid, uint64_t weight);
int pscript_frame(struct pscript *p, uint64_t addr, const char *func, const char *mod, int kind);
int pscript_leaf(struct pscript *p, const char *name);
int pscript_end(struct pscript *p);
/* After pscript_end(), *last_entry is the index of the map entry it added to. */
void pscript_track_last(struct pscript *p, size_t *last_entry);

#endif
