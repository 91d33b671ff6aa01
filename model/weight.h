/*
 * weight.h - what a record weighs when it is weighed by a field instead of
 * counted: memory flame graphs (tr-fold, tr-export and tr-report --weight).
 *
 * The weight is an expression over one field, optionally scaled by a
 * constant N (decimal or 0x hex):
 *
 *     FIELD   FIELD*N   N*FIELD   FIELD<<N   N<<FIELD
 *
 * 4096<<order is the bytes of kmem:mm_page_alloc's 2^order pages.  Several
 * expressions separated by commas are alternatives: a record weighs by the
 * first one whose field it has ("len,brk": mmap's length, brk's growth).
 *
 * The fields of a record:
 *   - a sample with a tracepoint payload (tr-rec-perf -e SYSTEM:EVENT, user
 *     probes, whose arguments are tracepoint fields) or a trace_event record
 *     (tr-rec-ftrace): the integer fields of its event's format in the trace
 *     (model/tpformat.h), common fields too;
 *   - a syscall record (tr-rec-strace): `ret`, its return value, and the
 *     arguments of the memory syscalls, named as the kernel's syscall
 *     tracepoints name them (syscalls:sys_enter_mmap's addr len prot flags
 *     fd off), so that one expression weighs both kinds of recordings.
 *     brk's argument `brk` weighs the growth of the break: the break it
 *     returned less the break of the process before (its last brk, inherited
 *     over fork, forgotten at exec); a shrink, a failed call, and the first
 *     brk of a process that is seen (the C library's brk(NULL) at start) weigh 0.
 *     A syscall that failed or never returned weighs 0.
 * A negative value (a signed field, a failed call's ret) weighs 0; a product
 * that overflows weighs UINT64_MAX.
 *
 *     weight *w; weight_new("len", &w);
 *     every record, in order: weight_observe(w, r, &rec);  (streams, forks, execs, breaks)
 *     a record folded: weight_of(w, r, &rec, &v): 1 weighs v, 0 has no such field
 *     nothing weighed at the end: weight_why(w) says why, for the message
 *
 * Never prints or exits.
 */
#ifndef MODEL_WEIGHT_H
#define MODEL_WEIGHT_H

#include <stdint.h>

#include "tr.h"

typedef struct weight weight;

/* What a tool's usage message says --weight takes. */
#define WEIGHT_SYNTAX "FIELD, FIELD*N, N*FIELD, FIELD<<N or N<<FIELD (alternatives separated by commas)"

/* Parse spec into *out: 0, TR_E_INVAL (not an expression as above), TR_E_NOMEM. */
int weight_new(const char *spec, weight **out);
/* 1 when spec is an expression as above. */
int weight_valid(const char *spec);
void weight_free(weight *w);

/* Every record of the input, in order, before weight_of: a stream's start
 * forgets the last one's formats and breaks; forks, execs, exits and brk
 * calls move the processes' breaks (r: the reader, for syscall names).  0 or
 * TR_E_NOMEM. */
int weight_observe(weight *w, tr_reader *r, const tr_record *rec);
/* The weight of rec (a sample, trace_event or syscall record of r's current
 * stream) into *v: 1 when rec has a field of the expression (*v may be 0),
 * 0 when it has none (not weighed: weight_why says why for the first such
 * record), TR_E_NOMEM. */
int weight_of(weight *w, tr_reader *r, const tr_record *rec, uint64_t *v);
/* Why the first record that was not weighed was not: "event 'cpu-clock' has
 * no tracepoint format ...", "syscall 'openat' has no argument 'len' ...",
 * "field 'comm' of event 'sched:sched_switch' is not an integer"; "" when
 * every record was. */
const char *weight_why(const weight *w);

#endif
