/* synth.h - deterministic synthetic traces for tests, golden files and bench. */
#ifndef TR_SYNTH_H
#define TR_SYNTH_H
#include <stdint.h>
#include "tr.h"

/* One record of every type the format defines, with fixed times and ids. */
int synth_all_types(tr_writer *w);
/* n stack samples over a few hundred distinct stacks (xorshift with seed). */
int synth_samples(tr_writer *w, uint64_t n, uint64_t seed);
/* A program's phase: n samples over 64 stacks main -> NAME_a -> NAME_b
 * (a, b in 0..7) of process 5000, then one of main -> NAME_end. */
int synth_phase(tr_writer *w, const char *name, uint64_t n);
/* n samples with registers and user stack copies from three threads whose
 * stacks keep their outer frames while the inner ones change, as DWARF
 * call graphs give (copies of up to max_copy bytes). */
int synth_stack_copies(tr_writer *w, uint64_t n, size_t max_copy, uint64_t seed);
/* Print every decoded field of every record (dump.c); 1 if errors were met. */
int synth_dump(tr_reader *r);
/* A trace in memory. */
typedef struct {
    uint8_t *p;
    size_t len;
} bytes;
/* What fd holds (p NULL when it cannot be read), and fd closed. */
bytes synth_fd_bytes(int fd);
#endif
