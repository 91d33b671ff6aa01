/* archive.h - the files a trace's later analysis needs, found by build-id. */
#ifndef TRA_ARCHIVE_H
#define TRA_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "tr.h"

struct module {
    char *path;            /* as recorded */
    uint8_t id[64];
    size_t idlen;
    int32_t pid;           /* a process that mapped it, and where: /proc/PID/map_files */
    uint64_t start, end;
    char *binary, *debug;  /* found files (malloc'd), NULL none */
    const struct trace_file *in_trace; /* the binary as blobs of the trace (tr-rec-perf: deleted) */
};

struct trace_file {        /* blobs build-id/KEY of the trace, KEY "HEX[.debug]", parts joined */
    char *key;
    uint8_t *data;
    size_t len, nparts, got; /* got == nparts: whole */
};

struct archive {
    struct module *mods;
    size_t nmods, cap;
    size_t no_build_id;    /* sampled modules without a recorded build-id */
    uint8_t *vdso;         /* the trace's vDSO image (copied) */
    size_t vdso_len;
    struct trace_file *files;
    size_t nfiles, capfiles;
    const char *symfs;
    const char *const *debug_dirs;
    size_t ndebug_dirs;
};

/* Read a trace from r, noting every module its samples (and syscalls with
 * stacks) ran in: the user frames' maps, every executable map of a process
 * whose samples carry stack copies (unwinding may reach any of them).
 * Returns 0, or the reader's error (after what could be read). */
int archive_scan(struct archive *a, tr_reader *r);
/* Look for each module's binary (first among the trace's own blobs) and separate debug file, by build-id. */
void archive_find(struct archive *a);
void archive_free(struct archive *a);

#endif
