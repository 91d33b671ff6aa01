/*
 * keys.h - the names of metadata keys and blobs that recorders write and
 * readers look up: one constant each, as spec/FORMAT.md lists them (section
 * 4.2; tests/model/test_keys.c checks that every string here is there).
 *
 * Values of metadata are text.  A name with a part that varies (a pid, a
 * tracepoint) has a printf format (..._FMT) and, for readers that iterate
 * blobs, its fixed start (..._PREFIX).
 */
#ifndef MODEL_KEYS_H
#define MODEL_KEYS_H

/* ---- metadata keys (tr_writer_meta, tr_reader_meta) ---- */

/* written by tr_writer_meta_defaults for every recorder */
#define META_PRODUCER "producer"                 /* the tool that wrote the stream */
#define META_PRODUCER_VERSION "producer.version" /* and its version */
#define META_HOST "host"                         /* host name */
#define META_KERNEL_RELEASE "kernel.release"     /* uname -r */
#define META_KERNEL_VERSION "kernel.version"     /* uname -v */
#define META_ARCH "arch"                         /* uname -m: names the syscall table */
#define META_BYTE_ORDER "byte_order"             /* "little" / "big" */
#define META_WORD_SIZE "word_size"               /* "64" / "32" */
#define META_PAGE_SIZE "page_size"
#define META_NCPUS "ncpus"
#define META_CLOCK "clock"                       /* clock of record times: CLOCK_MONOTONIC_NAME */
#define CLOCK_MONOTONIC_NAME "monotonic"
#define META_TIME_MONOTONIC_NS "time.monotonic_ns" /* a reading of the record clock ... */
#define META_TIME_REALTIME_NS "time.realtime_ns"   /* ... and of the wall clock, together */
#define META_CMDLINE "cmdline"                   /* the recorder's command line, shell-quoted */

/* what was recorded, and how */
#define META_KERNEL_BUILD_ID "kernel.build_id"   /* hex */
#define META_CALLGRAPH "callgraph"               /* "none", "fp", "dwarf" */
#define META_MODE "mode"                         /* "record", "stat" */
#define META_TARGET "target"                     /* "command", "pid", "tid", "system" */
#define META_COMMAND "command"                   /* the traced command, words joined by spaces */
#define META_STAT_LABEL "stat.label"             /* what a counting run measured (perf stat's header) */
#define META_STAT_START "stat.start"             /* record-clock ns at which a counting run began */
#define META_STRACE_FOLLOW "strace.follow"       /* "1": children were followed (-f) */
#define META_STRACE_TIMESTAMPS "strace.timestamps" /* -t given at record time: "1" -t, "2" -tt, "3" -ttt */
#define META_STRACE_SYSCALL_TIMES "strace.syscall_times" /* "1": -T given at record time */
#define META_STRACE_STRSIZE "strace.strsize"     /* bytes of strings captured (-s) */
#define META_LTRACE_STRSIZE "ltrace.strsize"     /* tr-rec-ltrace: bytes of strings captured (-s) */
#define META_LTRACE_TIMESTAMPS "ltrace.timestamps" /* tr-rec-ltrace: -t given: "1" -t, "2" -tt, "3" -ttt */
#define META_LTRACE_CALL_TIMES "ltrace.call_times" /* tr-rec-ltrace: "1": -T given */
#define META_LTRACE_INDENT "ltrace.indent"       /* tr-rec-ltrace: -n, spaces per nesting level */
#define META_FTRACE_CLOCK "ftrace.clock"         /* the tracing instance's trace_clock */
#define META_FTRACE_LONG_SIZE "ftrace.long_size" /* the kernel's long, 4 or 8 */
#define META_FTRACE_SUBBUF_SIZE "ftrace.subbuf_size" /* ring-buffer sub-buffer bytes */
#define META_PERF_CMDLINE "perf.cmdline"     /* tr-import-perf: the perf record command line of the file */

/* "view": how the recorder expects the stream to be shown, one of the
 * VIEW_* values; tr-cat picks its view of a stream from it. */
#define META_VIEW "view"
#define VIEW_SAMPLES "samples"         /* samples and counters: perf script, perf stat */
#define VIEW_SYSCALLS "syscalls"       /* syscalls and signals: strace */
#define VIEW_TRACEPOINTS "tracepoints" /* trace events: trace-cmd report */
#define VIEW_LIBCALLS "libcalls"       /* library calls: ltrace */

/* ---- blob names (tr_writer_blob, tr_reader_blob, tr_reader_blob_at) ---- */

#define BLOB_KALLSYMS "kallsyms"       /* /proc/kallsyms lines (tr-rec-perf: the sampled symbols) */
#define BLOB_VDSO "vdso"               /* the vDSO image */
#define BLOB_LTRACE_PROTOS "ltrace/prototypes" /* tr-rec-ltrace -F: prototype lines, as the file given */
/* a JIT map, /tmp/perf-PID.map: snprintf(name, n, BLOB_PERF_MAP_FMT, (int)pid) */
#define BLOB_PERF_MAP_FMT "perf-map:%d"
#define BLOB_PERF_MAP_PREFIX "perf-map:"
#define BLOB_PERF_MAP_OLD_FMT "perf-%d.map" /* the older name of the same, still read */
/* an ELF file by its build-id (tr-archive; tr-rec-perf for a deleted or replaced binary):
 * BLOB_BUILD_ID_PREFIX "HEX" the binary, "HEX.debug" its separate debug file; a file over
 * BLOB_BUILD_ID_PART bytes in parts "HEX[.debug]:K/N" (model/buildid.h build_id_blob_name) */
#define BLOB_BUILD_ID_PREFIX "build-id/"
#define BLOB_BUILD_ID_PART ((8u << 20) - 4096)

/* tracepoint formats: "ftrace/format/SYSTEM/EVENT", the tracefs format file
 * (tr-rec-perf and tr-rec-ftrace); model/tpformat.h reads them */
#define BLOB_FTRACE_FORMAT_FMT "ftrace/format/%s/%s"
#define BLOB_FTRACE_FORMAT_PREFIX "ftrace/format/"
/* the older name "format:SYSTEM:EVENT", still read */
#define BLOB_FORMAT_OLD_FMT "format:%s:%s"
#define BLOB_FORMAT_OLD_PREFIX "format:"
/* tr-rec-ftrace's tracefs files */
#define BLOB_FTRACE_HEADER_PAGE "ftrace/header_page"   /* events/header_page */
#define BLOB_FTRACE_HEADER_EVENT "ftrace/header_event" /* events/header_event */
#define BLOB_FTRACE_PRINTK_FORMATS "ftrace/printk_formats"
#define BLOB_FTRACE_KALLSYMS "ftrace/kallsyms"         /* /proc/kallsyms (function tracing) */
#define BLOB_FTRACE_SAVED_CMDLINES "ftrace/saved_cmdlines" /* "PID COMM" lines */
#define BLOB_FTRACE_SAVED_TGIDS "ftrace/saved_tgids"       /* "TID TGID" lines */

#endif
