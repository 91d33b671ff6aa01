/*
 * export.h - tr-export's reading loop, shared by its formats: one trace
 * read front to back, each record handed to the format's writer with what
 * it needs to name it (frames symbolized on the fly, comms, event names,
 * the recording's clock).
 */
#ifndef TR_EXPORT_H
#define TR_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "offcpu.h"
#include "procs.h"
#include "symbolize/symbolize.h"
#include "tr.h"

struct exp {
    tr_reader *r;
    sym_session *sym;
    const struct procs *procs;
    FILE *out;
    const char *shown;       /* the input's name in messages */
    int no_inline;           /* drop inlined frames */
    int lines;               /* source files and lines resolved */
    const char *weight;      /* --weight: records also weighed by this field (model/weight.h) */
    uint64_t first, last;    /* times of the first and last timed records */
    int have_first;
    uint64_t unresolved;     /* stacks that could not be resolved */
    sym_frame *frames;       /* exp_frames' copy (no_inline) */
    size_t cap_frames;
};

/* One output format: the record handed over after the session has seen it;
 * finish writes what is left.  Each returns 0, or -1 out of memory / a
 * write error (errno; 0: an error the format reported). */
struct exp_format {
    void *(*start)(struct exp *x);
    int (*record)(void *st, struct exp *x, const tr_record *rec);
    int (*finish)(void *st, struct exp *x);
    void (*free)(void *st);
};
extern const struct exp_format exp_pprof, exp_chrome, exp_speedscope;

/* The frames of rec's stack (sample, syscall, libcall), leaf first, inlined
 * functions before their callers (none with no_inline).  The count (0: no
 * stack or unresolvable; counted in x->unresolved), -1 out of memory. */
int exp_frames(struct exp *x, const tr_record *rec, const sym_frame **fr);
/* The command name of tid, "-" unknown. */
const char *exp_comm(const struct exp *x, int32_t tid);
/* The name of event id of the current stream, "[unknown event]". */
const char *exp_event(struct exp *x, uint32_t id, const tr_event_def **def);
/* 1 when a sample of def weighs nanoseconds (cpu-clock, task-clock). */
int exp_period_is_ns(const tr_event_def *def);
/* Feed rec to the off-CPU waits o (model/offcpu.h): sched_switch samples and
 * trace events, every other event of a task, exits, stream starts.  Returns
 * 1 when rec is a switch whose task starts a wait (*sw filled, sw->prev the
 * task: the caller calls offcpu_switch_out with its cookie), else 0. */
int exp_offcpu(struct exp *x, offcpu *o, const tr_record *rec, offcpu_switch_info *sw);
/* The name of a syscall or libcall record ("openat", "syscall_512"), in buf
 * when made up. */
const char *exp_call_name(struct exp *x, const tr_record *rec, char *buf, size_t size);
/* The wall-clock time (ns since the epoch) of record time t, from the
 * stream's clock readings; 0 when it has none. */
uint64_t exp_wall_ns(struct exp *x, uint64_t t);
/* ns as microseconds with three decimals: "12.345" */
void exp_us(FILE *f, uint64_t ns);
/* A JSON string, quoted. */
void exp_json(FILE *f, const char *s);
/* Append all of tmp (a tmpfile(3) holding a JSON array written beside
 * another one) to out; 0 or -1 (errno). */
int exp_copy(FILE *out, FILE *tmp);

#endif
