/*
 * perfrec.h - reading perf records (a ring's, or perf.data's) field by field
 * without overrunning them, and the frames of one sample, leaf first, as
 * tr_writer_thread_stack takes them.  Shared by tr-rec-perf and
 * tr-import-perf.
 */
#ifndef TR_MODEL_PERFREC_H
#define TR_MODEL_PERFREC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/* The bytes [p, end) of a record; bad is set by the first read past end,
 * which then returns 0 / NULL and leaves the cursor at end. */
struct perf_cursor {
    const uint8_t *p, *end;
    int bad;
};

static inline const uint8_t *perf_take(struct perf_cursor *c, uint64_t n)
{
    if ((uint64_t)(c->end - c->p) < n) {
        c->bad = 1;
        c->p = c->end;
        return NULL;
    }
    const uint8_t *p = c->p;
    c->p += n;
    return p;
}

static inline uint64_t perf_take64(struct perf_cursor *c)
{
    uint64_t v = 0;
    const uint8_t *p = perf_take(c, 8);
    if (p)
        memcpy(&v, p, 8);
    return v;
}

/* A sample's frames: addresses and TR_FRAME_* flags, one capacity for both. */
struct perf_frames {
    uint64_t *addrs;
    uint32_t *flags;
    size_t cap;
};

/* Room for n frames: 0, or -1 when out of memory. */
static inline int perf_frames_reserve(struct perf_frames *f, size_t n)
{
    size_t ca = f->cap, cf = f->cap;
    if (array_reserve(&f->addrs, &ca, n, sizeof *f->addrs, 256) < 0 ||
        array_reserve(&f->flags, &cf, n, sizeof *f->flags, 256) < 0)
        return -1;
    f->cap = ca; /* == cf: both grew from the same capacity */
    return 0;
}

static inline void perf_frames_free(struct perf_frames *f)
{
    free(f->addrs);
    free(f->flags);
    memset(f, 0, sizeof *f);
}

#endif
