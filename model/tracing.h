/*
 * tracing.h - where tracefs is, and a tracefs event's id and format, for every tool that reads
 * them (tr-rec-perf, tr-rec-ftrace, model/uprobe).  The names are not libtracefs's
 * (tracefs_*): tr-rec-ftrace links both.
 */
#ifndef TR_MODEL_TRACING_H
#define TR_MODEL_TRACING_H

#include <stddef.h>
#include <stdint.h>

/* The tracefs directory: /sys/kernel/tracing, else /sys/kernel/debug/tracing, the first with
 * events/ in it; when neither has, tracefs mounted at /sys/kernel/tracing, which
 * tracing_release undoes.  NULL, errno set, when there is none and it cannot be mounted. */
const char *tracing_dir(void);
/* Unmount what tracing_dir mounted, in the process that mounted it (a forked child's exit
 * leaves it); else nothing.  A recorder calls it on every way out (atexit), after removing
 * what it made in tracefs. */
void tracing_release(void);
/* buf <- DIR/events/SYSTEM/NAME/FILE ("id", "format"), for messages; returns buf. */
const char *tracing_event_path(char *buf, size_t len, const char *dir, const char *system,
                               const char *name, const char *file);
/* The perf tracepoint id of event SYSTEM/NAME (a tracepoint, a uprobe) of tracefs at dir into
 * *id: 0, or TR_E_IO with errno set (ENOENT: no such event). */
int tracing_event_id(const char *dir, const char *system, const char *name, uint64_t *id);
/* The text of its format file (malloc'd, NUL-terminated, its length in *len when len is not
 * NULL), or NULL with errno set. */
char *tracing_event_format(const char *dir, const char *system, const char *name, size_t *len);

#endif
