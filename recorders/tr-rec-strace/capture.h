/*
 * capture.h - copying syscall arguments out of the tracee: strings and
 * input buffers at entry, output buffers and structs at exit, by the
 * capture rules of each argument kind (model/syscalls.h).
 */
#ifndef TR_STRACE_CAPTURE_H
#define TR_STRACE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "syscalls.h"
#include "tracee.h"

struct capture_opts {
    uint32_t strsize;  /* -s */
    int decode_fds;    /* -y */
};

/* Bytes read from the tracee's memory at addr (fewer at an unmapped page). */
size_t mem_read(pid_t tid, uint64_t addr, void *buf, size_t len);
/* A NUL-terminated string of at most max bytes (without the NUL); *complete
 * is 1 when the NUL was found.  Returns the length, or -1 on a fault. */
long mem_read_str(pid_t tid, uint64_t addr, char *buf, size_t max, int *complete);

/* What d's arguments capture at entry (tr's captures are reset first) and at
 * exit (with the return value ret), into tr's capture buffer. */
void capture_entry(struct tracee *tr, const struct syscall_desc *d, const struct capture_opts *o);
void capture_exit(struct tracee *tr, const struct syscall_desc *d, int64_t ret, const struct capture_opts *o);
/* The path of fd in tid's table into buf; length or -1. */
long fd_path(pid_t tid, long fd, char *buf, size_t len);

#endif
