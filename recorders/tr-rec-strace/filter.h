/*
 * filter.h - strace's -e trace=, -e status= and -P, and the seccomp-bpf
 * program that makes the kernel stop the tracee only for selected syscalls.
 */
#ifndef TR_STRACE_FILTER_H
#define TR_STRACE_FILTER_H

#include <stdint.h>
#include <linux/filter.h>

#include "syscalls.h"

enum {
    ST_SUCCESSFUL = 1u << 0, ST_FAILED = 1u << 1, ST_UNFINISHED = 1u << 2,
    ST_UNAVAILABLE = 1u << 3, ST_DETACHED = 1u << 4, ST_ALL = 0x1f,
};

struct filter {
    uint8_t trace[SYSCALLS_NR_MAX]; /* 1: record this syscall number */
    int restricted;            /* some -e trace= excluded syscalls */
    int seen_trace;            /* a -e trace= was given */
    uint32_t status;           /* ST_* to record */
    char **paths;              /* -P: as given and resolved */
    size_t npaths, paths_cap;
};

void filter_init(struct filter *f);
void filter_free(struct filter *f);
/* Parse one -e argument ("trace=open,%file", "status=failed", "!write").
 * Returns 0, or -1 with a message in err. */
int filter_parse_e(struct filter *f, const char *expr, char *err, size_t errlen);
/* Add a -P path (kept as given and as resolved by realpath). */
void filter_add_path(struct filter *f, const char *path);
/* After parsing: 1 when the traced set excludes something. */
int filter_restricted(const struct filter *f);
static inline int filter_selects(const struct filter *f, uint32_t nr)
{
    return nr < SYSCALLS_NR_MAX ? f->trace[nr] : !f->restricted;
}
int filter_path_matches(const struct filter *f, const char *path, size_t len);

/* Build the seccomp program: RET_TRACE for selected x86_64 syscalls (and
 * for any other ABI), RET_ALLOW for the rest.  *prog is malloc'd. */
int filter_bpf(const struct filter *f, struct sock_filter **prog, unsigned short *len);

#endif
