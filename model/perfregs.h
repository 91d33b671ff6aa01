/*
 * perfregs.h - the user registers of a perf dwarf sample (x86_64): which
 * registers are taken, and where the stack pointer and instruction pointer
 * sit in a tr sample's regs[] (one entry per set bit of regs_mask, lowest
 * bit first).  Shared by tr-rec-perf (which records them) and
 * tr-import-perf (which reads them from perf.data).
 */
#ifndef TR_MODEL_PERFREGS_H
#define TR_MODEL_PERFREGS_H

#include <asm/perf_regs.h>
#include <stdint.h>

#include "tr.h"

/* The user registers taken in dwarf mode, as perf record --call-graph
 * dwarf takes them: all but the segment registers. */
static inline uint64_t dwarf_regs_mask(void)
{
    uint64_t m = (1ull << PERF_REG_X86_64_MAX) - 1;
    m &= ~((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) | (1ull << PERF_REG_X86_FS) |
           (1ull << PERF_REG_X86_GS));
    return m;
}

/* Register r of a sample's user registers, 0 when it was not taken. */
static inline uint64_t sample_user_reg(const tr_record *rec, unsigned r)
{
    uint64_t m = rec->u.sample.regs_mask;
    if (!rec->u.sample.abi || !(m & (1ull << r)))
        return 0;
    unsigned i = (unsigned)__builtin_popcountll(m & ((1ull << r) - 1));
    return i < rec->u.sample.nregs ? rec->u.sample.regs[i] : 0;
}

/* The user stack pointer of a dwarf sample (where its stack copy starts), 0 unknown. */
static inline uint64_t dwarf_user_sp(const tr_record *rec)
{
    return sample_user_reg(rec, PERF_REG_X86_SP);
}

#endif
