/*
 * tracee.h - one traced thread: its in-flight syscall and the bytes
 * captured from its memory for it, and a table of them by tid.
 */
#ifndef TR_STRACE_TRACEE_H
#define TR_STRACE_TRACEE_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "hashmap.h"
#include "tr.h"

struct cap {
    uint32_t arg, kind, flags;
    const char *struct_name;
    size_t off, len;      /* into the tracee's buffer */
};

struct tracee {
    pid_t tid, tgid;
    int startup;          /* the launched child before its execve: not recorded */
    int new_child;        /* waiting for its first (attach) stop */
    int seized;           /* attached with -p (not a child we followed) */
    int in_syscall;       /* entry seen, exit pending */
    int selected;         /* the in-flight syscall is recorded */
    int detached;         /* for the detach loop */
    pid_t exec_tid;       /* the thread that entered an execve now running as tgid */
    uint64_t t_entry;
    uint32_t nr;
    uint64_t args[6];
    uint64_t sp;          /* user stack pointer at entry */
    uint32_t stack;       /* -k */
    int stack_at_exit;    /* -k: the stack is taken when the call returns (the command's execve) */
    struct cap caps[TR_MAX_CAPTURES];
    uint32_t ncaps;
    uint8_t *buf;
    size_t buf_len, buf_cap;
};

/* The tracees by tid (a zeroed struct is empty).  A tracee stays where it
 * is until it is removed: pointers to it survive other additions. */
struct tracee_table {
    hashmap map;          /* (tid, 0) -> struct tracee */
    size_t count;
};

struct tracee *tracee_find(struct tracee_table *t, pid_t tid);
/* Find or add; NULL when out of memory. */
struct tracee *tracee_add(struct tracee_table *t, pid_t tid);
void tracee_remove(struct tracee_table *t, pid_t tid);
/* Iterate: *i from 0; NULL at the end.  Nothing may be added or removed meanwhile. */
struct tracee *tracee_next(const struct tracee_table *t, size_t *i);
void tracee_table_free(struct tracee_table *t);

/* Capture buffer helpers */
void tracee_reset_caps(struct tracee *tr);
/* Reserve n bytes for a new capture; returns a pointer or NULL (no room). */
uint8_t *tracee_cap_begin(struct tracee *tr, size_t n);
void tracee_cap_end(struct tracee *tr, uint32_t arg, uint32_t kind, uint32_t flags,
                    const char *struct_name, size_t len);

#endif
