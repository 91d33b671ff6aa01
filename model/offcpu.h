/*
 * offcpu.h - off-CPU time from sched:sched_switch: how long each task waited
 * from its switch-out until it ran again (tr-fold --offcpu, tr-export).
 *
 * A task switching out (prev_pid of a sched_switch) starts a wait, which
 * the tool names with a cookie (its folded stack, its slice).  The wait ends:
 *   - at the task's recorded switch-in (next_pid): exact, when every switch
 *     was recorded (system-wide);
 *   - else when the task is seen running (any event of its own, its exit),
 *     at its recorded wakeup (sched_wakeup, sched_waking, sched_wakeup_new)
 *     when one came between, else then: an upper bound.  Kernels do not
 *     always trace the switches from the idle task.
 * Each ended wait is handed to the tool's end callback with its cookie.
 * The payload layouts come from the stream's formats (model/tpformat.h).
 *
 *     offcpu *o = offcpu_new(end, ctx);
 *     per record: STREAM_START: offcpu_reset(o);
 *       a sched_switch (sample raw payload or trace event):
 *         offcpu_switch(o, r, flags, data, len, &sw); offcpu_switch_in(o, sw.next, time);
 *         offcpu_running(o, tid of the record, time)   (a sample's own thread);
 *         if (offcpu_waits(sw.prev, sw.state)) offcpu_switch_out(o, sw.prev, time, cookie);
 *       another event of task tid: offcpu_running(o, tid, time); offcpu_wakeup(...);
 *
 * Memory grows with the number of tasks.  Never prints or exits.
 */
#ifndef MODEL_OFFCPU_H
#define MODEL_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

#include "tr.h"

typedef struct offcpu offcpu;
/* A wait ended: the task tid, from start to end (end >= start). */
typedef void (*offcpu_end_fn)(void *ctx, uint64_t cookie, int32_t tid, uint64_t start, uint64_t end);

/* NULL when out of memory. */
offcpu *offcpu_new(offcpu_end_fn end, void *ctx);
void offcpu_free(offcpu *o);
/* A new stream: waits do not continue into another recording, its formats are its own. */
void offcpu_reset(offcpu *o);

typedef struct offcpu_switch_info {
    int32_t prev, next; /* -1 when unreadable */
    int64_t state;      /* prev_state, -1 unknown */
} offcpu_switch_info;
/* The fields of a sched_switch payload (raw_flags TR_RAW_*) of r's stream:
 * 1 with *sw filled, 0 when the stream has no layout for it (*sw: -1s). */
int offcpu_switch(offcpu *o, tr_reader *r, uint32_t raw_flags, const uint8_t *data, size_t len,
                  offcpu_switch_info *sw);
/* 1 once a sched_switch layout was found in the stream. */
int offcpu_layout_known(const offcpu *o);
/* Whether a switch-out of task prev in state starts a wait: the idle task
 * (pid 0) waits for nothing, and a dying task (X, Z) runs no more. */
int offcpu_waits(int32_t prev, int64_t state);
/* tid leaves the CPU at time; its wait is named cookie.  0, or TR_E_NOMEM. */
int offcpu_switch_out(offcpu *o, int32_t tid, uint64_t time, uint64_t cookie);
/* tid's recorded switch-in at time ends its wait there. */
void offcpu_switch_in(offcpu *o, int32_t tid, uint64_t time);
/* tid is seen running at time: its wait ended by then, at its wakeup if one was seen. */
void offcpu_running(offcpu *o, int32_t tid, uint64_t time);
/* An event name (name, nl bytes: "sched:sched_waking") with payload: when it is a
 * wakeup, the woken task's wait ends there if its switch-in is not recorded. */
void offcpu_wakeup(offcpu *o, tr_reader *r, const char *name, size_t nl, const uint8_t *data,
                   size_t len, uint32_t raw_flags, uint64_t time);
/* The state a task left the CPU in, from prev_state: "[off-cpu S]" sleeping,
 * "[off-cpu R]" preempted, "[off-cpu D]" disk ..., "[off-cpu]" unknown. */
const char *offcpu_state_name(int64_t state);

#endif
