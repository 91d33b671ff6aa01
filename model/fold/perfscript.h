/*
 * perfscript.h - fold `perf script` text exactly as FlameGraph's
 * stackcollapse-perf.pl does (commit 41fee1f), without its --inline; the
 * folding rules themselves are model/stacks.h, shared with trace input.
 */
#ifndef TR_PERFSCRIPT_H
#define TR_PERFSCRIPT_H

#include "lines.h"
#include "smap.h"
#include "stacks.h"

struct pscript_opts {
    stacks_fold_opts fold; /* --pid --tid --kernel --jit --addrs --no-inline --mark-inline */
    int srcline;         /* input has perf script -F+srcline lines */
    const char *event;   /* only this event; NULL: the first seen */
};

struct pscript_stats {
    uint64_t records, filtered, unrecognized, first_unrecognized_line;
    int unterminated;         /* input ended inside a sample: it was dropped */
    char event[256];          /* the event used */
    char other_event[256];    /* another event that was skipped, if any */
};

/* Fold all lines of l into map (key: stack, entry->n: summed periods).
 * Returns 0, an error of lines_next() (TR_E_IO, TR_E_TOO_LARGE), or
 * TR_E_NOMEM. */
int pscript_fold(struct lines *l, const struct pscript_opts *o, struct smap *map,
                 struct pscript_stats *st);

/* The same folding fed from structured samples (tr traces, foldtrace.c): a
 * folder (model/stacks.h) counting into map.  Begin a sample (root from
 * comm, pid, tid; weight), add its frames leaf first through
 * pscript_folder() and stacks_folder_frame(), or a leaf by name, end it. */
struct pscript;
struct pscript *pscript_new(const struct pscript_opts *o, struct smap *map);
void pscript_free(struct pscript *p);
stacks_folder *pscript_folder(struct pscript *p);
void pscript_begin(struct pscript *p, const char *comm, int32_t pid, int32_t tid, uint64_t weight);
int pscript_leaf(struct pscript *p, const char *name);
int pscript_end(struct pscript *p);
/* After pscript_end(), *last_entry is the index of the map entry it added to. */
void pscript_track_last(struct pscript *p, size_t *last_entry);

#endif
