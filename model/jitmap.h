/*
 * jitmap.h - a JIT's perf map (DIR/perf-PID.map, the file perf script reads
 * for JIT frames) stored in a trace as the blob perf-map:PID.  Shared by
 * tr-rec-perf (at the end of a recording) and tr-import-perf.
 */
#ifndef TR_MODEL_JITMAP_H
#define TR_MODEL_JITMAP_H

#include <stdint.h>

#include "tr.h"

/* Write DIR/perf-PID.map as the blob perf-map:PID when the file exists:
 * 0 (also when it does not), or the writer's negative tr_error. */
int jitmap_blob(tr_writer *w, const char *dir, int32_t pid);

#endif
