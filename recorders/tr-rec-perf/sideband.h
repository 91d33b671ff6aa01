/*
 * sideband.h - what a trace needs to be symbolized elsewhere: build-ids of
 * mapped files (cached per path), the vDSO image, the kernel's symbols for
 * the sampled kernel addresses, JIT perf maps, and /proc state of processes
 * that were running before the recording (-p, -t, -a).
 */
#ifndef TRP_SIDEBAND_H
#define TRP_SIDEBAND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tr.h"

struct sideband;

#define SB_KEEP_MAX (256u << 20) /* the largest deleted binary stored in the trace */
#define SB_KEEP_FILES 1024       /* files held open at most (and a quarter of RLIMIT_NOFILE) */

struct sideband *sb_new(void);
void sb_free(struct sideband *sb);

/* The build-id of path as mapped by pid (cached); 0 when unknown. */
int sb_build_id(struct sideband *sb, pid_t pid, const char *path, uint8_t *id);

/* An executable mapping of the file at path ([start, start + len) of pid):
 * the file is held open (through /proc/PID/map_files while the process
 * maps it) so that sb_finish can store it by build-id if it is then gone
 * or replaced at path.  *idlen 0: id receives the file's build-id when
 * that gives one (a path deleted before it was looked up). */
void sb_keep_file(struct sideband *sb, pid_t pid, uint64_t start, uint64_t len, const char *path, uint8_t *id,
                  int *idlen);

/* Remember a kernel address that was sampled. */
void sb_note_kernel_addr(struct sideband *sb, uint64_t addr);
uint64_t sb_kernel_addrs(const struct sideband *sb);
/* Remember a pid that appeared (for perf maps at the end). */
void sb_note_pid(struct sideband *sb, pid_t pid);

/* A mapping of the vDSO at [start, start + len): *id receives the vDSO's
 * build-id (returns its length).  Its image goes into the trace (blob
 * "vdso", at the end) only when a sample's user address falls in one. */
int sb_vdso(struct sideband *sb, uint64_t start, uint64_t len, uint8_t *id);
/* Note user addresses of a sample (its user frames among the n at addrs,
 * its user registers' ip): whether one is in the vDSO. */
void sb_note_user_addrs(struct sideband *sb, const uint64_t *addrs, const uint32_t *flags, size_t n);
/* At the end: each file kept by sb_keep_file that is gone or replaced at
 * its path (blobs build-id/HEX, as tr-archive -o writes them; one over
 * SB_KEEP_MAX bytes is named on stderr and not stored), the vDSO image if a sample was in it, kernel symbols covering the sampled kernel addresses (blob
 * "kallsyms", /proc/kallsyms format), a "[kernel.kallsyms]" mapping with the
 * kernel build-id, and /tmp/perf-PID.map of every pid seen (blob
 * "perf-map:PID").  Returns 0 or a negative tr_error. */
int sb_finish(struct sideband *sb, tr_writer *w);

/* Existing state of a process: COMM of each thread and MMAP of each
 * executable mapping, from /proc.  time is the record time. */
int sb_synthesize_process(struct sideband *sb, tr_writer *w, pid_t pid, uint64_t time);

/* The kernel build-id from /sys/kernel/notes; its length or 0. */
int sb_kernel_build_id(uint8_t *id);

uint64_t sb_now_ns(void);

#endif
