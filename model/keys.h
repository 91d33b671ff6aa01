/*
 * keys.h - the names of metadata keys and blobs that recorders write and
 * readers look up: one constant each, as spec/FORMAT.md lists them.
 */
#ifndef MODEL_KEYS_H
#define MODEL_KEYS_H

/* "view": how the recorder expects the stream to be shown, one of the
 * VIEW_* values; tr-cat picks its view of a stream from it. */
#define META_VIEW "view"
#define VIEW_SAMPLES "samples"         /* samples and counters: perf script, perf stat */
#define VIEW_SYSCALLS "syscalls"       /* syscalls and signals: strace */
#define VIEW_TRACEPOINTS "tracepoints" /* trace events: trace-cmd report */

#endif
