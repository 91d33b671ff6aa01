/* selfsample.h - build test traces of the running process: its mappings
 * (with build-ids) and real DWARF samples of itself (perf_event_open with
 * PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER). */
#ifndef SELFSAMPLE_H
#define SELFSAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "tr.h"

typedef struct self_sample {
    uint64_t ip;
    uint64_t regs_mask;
    uint32_t nregs;
    uint64_t regs[TR_MAX_REGS];
    uint8_t *stack;
    size_t stack_len;
} self_sample;

/* Write an MMAP record for every executable file mapping of this process. */
int self_write_maps(tr_writer *w);
/* Sample this thread's user registers and stack while fn(arg) runs.
 * Returns the number of samples (up to max), -1 when perf_event_open is
 * refused (errno set), -2 on another failure. */
int self_sample_run(void (*fn)(void *), void *arg, self_sample *out, int max);
void self_sample_free(self_sample *s, int n);
/* A whole trace in memory: the bytes written to a memfd by build(w, arg). */
void *self_trace(int (*build)(tr_writer *w, void *arg), void *arg, size_t *len);

#endif
