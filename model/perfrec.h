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

#include <linux/perf_event.h>

#include "array.h"
#include "perfregs.h"
#include "tr.h"

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

/* PERF_SAMPLE_CALLCHAIN at c into f: frames leaf first, the context markers
 * dropped, frames after PERF_CONTEXT_KERNEL (and before any marker when
 * kernel_mode) flagged TR_FRAME_KERNEL, with room for extra frames more.
 * *n frames, *user of them user frames.  0; -1 out of memory; an overrun
 * sets c->bad. */
static inline int perf_callchain(struct perf_cursor *c, struct perf_frames *f, int kernel_mode, size_t extra,
                                 size_t *n, size_t *user)
{
    uint64_t nr = perf_take64(c);
    *n = *user = 0;
    const uint8_t *ips = nr <= (uint64_t)(c->end - c->p) / 8 ? perf_take(c, nr * 8) : perf_take(c, UINT64_MAX);
    if (!ips)
        return 0;
    if (perf_frames_reserve(f, nr + extra) < 0)
        return -1;
    int kernel = kernel_mode;
    for (uint64_t i = 0; i < nr; i++) {
        uint64_t a;
        memcpy(&a, ips + i * 8, 8);
        if (a >= (uint64_t)PERF_CONTEXT_MAX) {
            kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
            continue;
        }
        f->addrs[*n] = a;
        f->flags[(*n)++] = kernel ? TR_FRAME_KERNEL : 0;
        *user += !kernel;
    }
    return 0;
}

/* The sample fields after the callchain that a tr sample keeps, into rec:
 * RAW (the payload), BRANCH_STACK (skipped; branch_hw_index: it has the
 * hw_idx word), REGS_USER (the registers of regs_mask) and STACK_USER (its
 * valid part, at the user stack pointer's address). */
static inline void perf_sample_rest(struct perf_cursor *c, uint64_t st, int branch_hw_index, uint64_t regs_mask,
                                    tr_record *rec)
{
    if (st & PERF_SAMPLE_RAW) {
        const uint8_t *szp = perf_take(c, 4);
        uint32_t sz = 0;
        if (szp)
            memcpy(&sz, szp, 4);
        rec->u.sample.raw = perf_take(c, sz);
        rec->u.sample.raw_len = rec->u.sample.raw ? sz : 0;
    }
    if (st & PERF_SAMPLE_BRANCH_STACK) {
        uint64_t nr = perf_take64(c);
        if (branch_hw_index)
            perf_take64(c);
        perf_take(c, nr <= (uint64_t)(c->end - c->p) / 24 ? nr * 24 : UINT64_MAX);
    }
    if (st & PERF_SAMPLE_REGS_USER) {
        rec->u.sample.abi = (uint32_t)perf_take64(c);
        if (rec->u.sample.abi) {
            uint32_t nregs = (uint32_t)__builtin_popcountll(regs_mask);
            rec->u.sample.regs_mask = regs_mask;
            rec->u.sample.nregs = nregs < TR_MAX_REGS ? nregs : TR_MAX_REGS;
            for (uint32_t i = 0; i < nregs; i++) {
                uint64_t v = perf_take64(c);
                if (i < TR_MAX_REGS)
                    rec->u.sample.regs[i] = v;
            }
        }
    }
    if (st & PERF_SAMPLE_STACK_USER) {
        uint64_t size = perf_take64(c);
        if (size) {
            const uint8_t *data = perf_take(c, size);
            uint64_t dyn = perf_take64(c);
            if (data) {
                rec->u.sample.stack_copy = data;
                rec->u.sample.stack_copy_len = dyn < size ? dyn : size;
                rec->u.sample.stack_copy_addr = dwarf_user_sp(rec);
            }
        }
    }
}

#endif
