/*
 * unwind.h - user stacks of syscalls (-k), unwound with libdwfl while the
 * thread is stopped (see unwind.c).
 */
#ifndef TR_STRACE_STACKS_H
#define TR_STRACE_STACKS_H

#include <stdint.h>
#include <sys/types.h>

#include "tr.h"

struct stacks;

/* NULL when out of memory. */
struct stacks *stacks_new(tr_writer *w);
/* The stack of thread tid of process tgid, stopped at a syscall, written
 * (with the MMAP records of its mappings not written yet): *stack_id, 0
 * when it cannot be unwound.  Returns 0 or the writer's error. */
int stacks_capture(struct stacks *s, pid_t tgid, pid_t tid, uint32_t *stack_id);
/* The mappings of tgid may have changed (a mmap-family syscall returned);
 * unmapped: ranges may have been unmapped or replaced. */
void stacks_maps_changed(struct stacks *s, pid_t tgid, int unmapped);
/* tgid exec'd or exited: forget it. */
void stacks_forget(struct stacks *s, pid_t tgid);
void stacks_free(struct stacks *s);

#endif
