/* cc-input.c - the input of the `cc` benchmark workload (bench/workloads/cc.sh): a frozen
 * concatenation of format/{error,util,record,reader,writer}.c as of issue 12, with their local
 * headers inlined once, so that it compiles on its own (`gcc -O2 -c cc-input.c`; needs only libc's
 * and libzstd's headers) and the compiler does the same work whatever happens to format/ later. */
#define _GNU_SOURCE
/* ==== format/error.c ==== */
/* error.c - the one message table. */
/* ---- format/internal.h ---- */
/* internal.h - shared by the library's own files; not installed.
 *
 * Names.  libtr exports only tr_ names: a program linking it may define
 * any other name (buf_free, idmap_get ...).  What this header declares
 * with external linkage is therefore named tr_internal_*, and declared
 * with hidden visibility: libtr.so does not export it (libtr.map exports
 * the public tr_ API of tr.h and nothing else). */
#ifndef TR_INTERNAL_H
#define TR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- format/tr.h ---- */
/*
 * tr.h - the tr trace format library.  This header is its manual.
 *
 * A trace is one or more *streams*, each written front to back by one
 * writer: a stream-start frame, then zstd-compressed *chunks* of records,
 * then a stream-end frame holding the stream's totals.  The byte layout is
 * specified in spec/FORMAT.md; this library is one implementation of it.
 *
 * The library never prints and never exits.  Every function that can fail
 * returns an int: 0 (TR_OK) or a positive count on success, a negative
 * tr_error on failure.  tr_strerror() turns it into a message; the reader
 * and writer keep details (byte offset, chunk) for the caller to report.
 *
 * Interning.  Strings, frames and stacks are written once per stream (per
 * key interval, see below) and referred to by a 32-bit id.  Id 0 means
 * "none".  A stack is a path in a tree: node (id, parent, frame); the
 * stack of a sample is a node id, its frames are found by following
 * parents from the leaf to the root.
 *
 * Key chunks.  Every key_interval bytes of raw records the writer starts a
 * key chunk: it re-emits the metadata and every "sticky" record (event
 * definitions, syscall tables, tracepoint formats) and forgets which
 * strings, frames and stacks it has emitted, so that they are defined again
 * on their next use.  A reader that lost a chunk therefore resolves every
 * reference again from the next key chunk on, and until then reports each
 * unresolved id instead of guessing.
 *
 * Threads: a tr_writer or tr_reader is used by one thread at a time;
 * different ones may be used in different threads at once (the library has
 * no global state that changes).
 *
 * Linking: `cc prog.c $(pkg-config --cflags --libs tr)` (add --static for
 * libtr.a).  The library defines only names that begin with tr_, so a
 * program may use any other name; libtr.so exports exactly the functions
 * declared here.
 */
#ifndef TR_H
#define TR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TR_VERSION_MAJOR 1 /* format version this library writes */
#define TR_VERSION_MINOR 1
/* Incompatible feature flags of a stream (its start frame): a reader
 * refuses a stream with a flag it does not know. */
#define TR_INCOMPAT_STACK_DELTA 1u /* stack copies may continue the thread's previous one (1.1) */
#define TR_LIB_VERSION "0.1.0" /* version of the tools and the library */

/* ------------------------------------------------------------------ */
/* Errors: one enum, stable numbers (never reused), one message table. */

typedef enum tr_error {
    TR_OK = 0,
    TR_E_NOMEM = -1,         /* out of memory */
    TR_E_IO = -2,            /* read or write failed (see errno) */
    TR_E_INVAL = -3,         /* invalid argument from the caller */
    TR_E_NOT_TRACE = -4,     /* input does not start with a tr stream */
    TR_E_VERSION = -5,       /* major version newer than this reader */
    TR_E_INCOMPAT = -6,      /* an incompatible feature flag is set */
    TR_E_TRUNCATED = -7,     /* input ended inside a stream (no end frame) */
    TR_E_CORRUPT_CHUNK = -8, /* a chunk failed its checks and was skipped */
    TR_E_CORRUPT_FRAME = -9, /* a frame header failed its checks; resynced */
    TR_E_TOO_LARGE = -10,    /* a length field exceeds the format's limits */
    TR_E_COMPRESS = -11,     /* zstd refused to compress */
    TR_E_CORRUPT_RECORD = -12, /* a record's body is malformed; skipped */
    TR_E_EPIPE = -13,        /* the reading end of the output went away */
    TR_E_NOSPC = -14,        /* no space left on the output device */
    TR_E_FINISHED = -15,     /* the writer was already finished */
    TR_E_LOST_CHUNKS = -16,  /* chunk sequence numbers skipped (lost data) */
    TR_E_GARBAGE = -17,      /* bytes between streams that are no tr frame */
    TR_E_STREAM_CUT = -18,   /* a stream ended without its end frame, another follows */
    TR_E_EMPTY = -19,        /* the input is empty */
    TR_E_LAST_ = -20
} tr_error;

/* The message for err ("truncated: no end of stream"), never NULL. */
const char *tr_strerror(int err);

/* 1 if a reader may continue after this error (it has resynchronised),
 * 0 if the error ends the input. */
int tr_error_recoverable(int err);

/* ------------------------------------------------------------------ */
/* Records. Type numbers are stable; spec/FORMAT.md defines each body. */

typedef enum tr_rec_type {
    /* definitions (interned) */
    TR_REC_STRING = 0x01,
    TR_REC_FRAME = 0x02,
    TR_REC_STACK = 0x03,
    TR_REC_EVENT_DEF = 0x04,
    /* description of the recording (sticky: repeated at key chunks) */
    TR_REC_META = 0x10,
    TR_REC_SYSCALL_TABLE = 0x11,
    TR_REC_BLOB = 0x12, /* named opaque data: tracepoint formats, kallsyms, perf maps */
    /* process and thread life */
    TR_REC_COMM = 0x20,
    TR_REC_FORK = 0x21,
    TR_REC_EXIT = 0x22,
    TR_REC_MMAP = 0x23,
    /* what was measured */
    TR_REC_SAMPLE = 0x30,
    TR_REC_COUNTER = 0x31,
    TR_REC_SYSCALL = 0x32,
    TR_REC_SIGNAL = 0x33,
    TR_REC_LIBCALL = 0x34,
    TR_REC_TRACE_EVENT = 0x35,
    TR_REC_FUNCTION = 0x36,
    TR_REC_LOST = 0x37,
    /* symbols, for self-contained traces */
    TR_REC_SYMBOL = 0x40,
    TR_REC_MODULE_STATUS = 0x41,
    /* synthesised by the reader from the stream frames, never in a chunk */
    TR_REC_STREAM_START = 0x7e,
    TR_REC_STREAM_END = 0x7f,
} tr_rec_type;

/* "sample", "syscall", ...; NULL for a type this library does not know. */
const char *tr_rec_type_name(uint32_t type);
/* The type named name, or 0. */
uint32_t tr_rec_type_from_name(const char *name);

/* Frame flags (tr_frame.flags) */
enum {
    TR_FRAME_KERNEL = 1u << 0,   /* kernel address */
    TR_FRAME_JIT = 1u << 1,      /* JIT-compiled code (perf map) */
    TR_FRAME_INLINE = 1u << 2,   /* an inlined function at this address */
    TR_FRAME_SYMBOLIZED = 1u << 3, /* func/module/offset are set */
    TR_FRAME_GUEST = 1u << 4,    /* hypervisor guest */
};

typedef struct tr_frame {
    uint64_t addr;    /* instruction address (0 when only a name is known) */
    uint32_t flags;   /* TR_FRAME_* */
    uint32_t func;    /* string id of the function name, 0 unknown */
    uint32_t module;  /* string id of the module (path or [kernel.kallsyms]) */
    uint32_t file;    /* string id of the source file, 0 unknown */
    uint64_t offset;  /* addr - function start */
    uint32_t line;    /* source line, 0 unknown */
} tr_frame;

/* Event kinds (tr_event_def.kind) */
enum {
    TR_EV_HARDWARE = 0, TR_EV_SOFTWARE = 1, TR_EV_TRACEPOINT = 2,
    TR_EV_HW_CACHE = 3, TR_EV_RAW = 4, TR_EV_SYSCALL = 5,
    TR_EV_FUNCTION = 6, TR_EV_LIBCALL = 7, TR_EV_OTHER = 8,
};
/* Event definition flags */
enum {
    TR_EVF_FREQ = 1u << 0,        /* sample_value is a frequency in Hz */
    TR_EVF_CALLCHAIN = 1u << 1,   /* samples carry stacks */
    TR_EVF_DWARF = 1u << 2,       /* samples carry registers and stack copies */
    TR_EVF_KERNEL_STACK = 1u << 3,/* kernel frames were requested */
};

typedef struct tr_event_def {
    uint32_t id;          /* stream-local event id, >= 1 */
    uint32_t kind;        /* TR_EV_* */
    uint64_t config;      /* perf config / tracepoint id / syscall nr */
    uint64_t sample_value;/* period, or frequency with TR_EVF_FREQ */
    uint32_t flags;       /* TR_EVF_* */
    const char *name;     /* "cpu-clock", "sched:sched_switch" */
    size_t name_len;
} tr_event_def;

/* Trace-event payload flags and memory access flags */
enum {
    TR_RAW_BIG_ENDIAN = 1u << 0, /* payload is big-endian */
    TR_RAW_32BIT = 1u << 1,      /* payload's long is 4 bytes */
};

/* Capture kinds of tr_capture.kind (syscall and library call arguments) */
enum {
    TR_CAP_STRING = 0,   /* NUL-terminated string read from the tracee */
    TR_CAP_BUFFER = 1,   /* bytes of a buffer */
    TR_CAP_STRUCT = 2,   /* bytes of a struct; tr_capture.struct_name says which */
    TR_CAP_FD_PATH = 3,  /* path behind an fd argument (strace -y) */
    TR_CAP_STRINGS = 4,  /* an array of strings (argv, envp): NUL-separated */
};
enum {
    TR_CAPF_TRUNCATED = 1u << 0, /* more bytes existed than were captured */
    TR_CAPF_EXIT = 1u << 1,      /* captured at syscall exit (else at entry) */
    TR_CAPF_FAULT = 1u << 2,     /* the tracee's memory could not be read */
};

typedef struct tr_capture {
    uint32_t arg;        /* argument index 0..5 (6 = return value area) */
    uint32_t kind;       /* TR_CAP_* */
    uint32_t flags;      /* TR_CAPF_* */
    uint32_t struct_name;/* string id for TR_CAP_STRUCT ("stat", "sockaddr") */
    const uint8_t *data;
    size_t len;
} tr_capture;

#define TR_MAX_CAPTURES 16
#define TR_MAX_REGS 64

/* Syscall flags */
enum {
    TR_SYSF_UNFINISHED = 1u << 0, /* the call never returned (exit, exec, detach) */
    TR_SYSF_RESTARTED = 1u << 1,  /* interrupted and restarted */
    TR_SYSF_HAS_RET = 1u << 2,    /* ret is valid */
};

/* One record as the reader delivers it or as a writer takes it.
 * Pointers point into the reader's buffers and stay valid until the next
 * call of tr_reader_next(); a writer copies what it needs. */
typedef struct tr_record {
    uint32_t type;     /* TR_REC_* */
    uint32_t stream;   /* 0-based stream index within the input (reader) */
    uint64_t time;     /* ns on the stream's clock; 0 when the type has none */
    int32_t pid, tid;  /* -1 when unknown or not applicable */
    int32_t cpu;       /* -1 when unknown */
    union {
        struct { uint32_t id; const char *str; size_t len; } string;
        struct { uint32_t id; tr_frame frame; } frame;
        struct { uint32_t id, parent, frame; } stack;
        tr_event_def event_def;
        struct { const char *key; size_t key_len; const char *value; size_t value_len; } meta;
        struct {
            const char *arch; size_t arch_len;
            uint32_t count;        /* entries in names */
            const uint8_t *entries;/* encoded (nr, name) list: use tr_syscall_table_iter */
            size_t entries_len;
        } syscall_table;
        struct { const char *name; size_t name_len; const uint8_t *data; size_t len; } blob;
        struct { const char *comm; size_t len; uint32_t exec; } comm;
        struct { int32_t ppid, ptid; } fork;
        struct { int32_t status; uint32_t flags; } exit;  /* status as wait(2) */
        struct {
            uint64_t start, len, pgoff;
            uint32_t prot, flags;
            const uint8_t *build_id; size_t build_id_len; /* 0..64 bytes */
            const char *path; size_t path_len;
        } mmap;
        struct {
            uint32_t event;        /* event def id */
            uint64_t period;       /* weight */
            uint32_t stack;        /* stack node id, 0 none */
            uint32_t abi;          /* perf_sample_regs_abi, 0 none */
            uint64_t regs_mask;
            uint32_t nregs;
            uint64_t regs[TR_MAX_REGS];
            const uint8_t *stack_copy; size_t stack_copy_len; /* user stack bytes */
            const uint8_t *raw; size_t raw_len; /* tracepoint payload (PERF_SAMPLE_RAW) */
            uint32_t raw_flags;    /* TR_RAW_* */
        } sample;
        struct {
            uint32_t event;
            uint64_t value, enabled, running; /* ns */
            uint32_t run;          /* repetition index (-r), 0-based */
            uint32_t flags;        /* TR_CNTF_* */
        } counter;
        struct {
            uint32_t nr;
            uint32_t flags;        /* TR_SYSF_* */
            int64_t ret;           /* raw return value (-errno on error) */
            uint64_t duration;     /* ns from entry to exit */
            uint32_t nargs;
            uint64_t args[6];
            uint32_t ncaptures;
            tr_capture captures[TR_MAX_CAPTURES];
            uint32_t stack;        /* stack node id, 0 none */
        } syscall;
        struct {
            uint32_t signo;
            int32_t code;
            uint32_t flags;        /* TR_SIGF_* */
            const uint8_t *siginfo; size_t siginfo_len; /* raw siginfo_t */
        } signal;
        struct {
            uint32_t func;         /* string id */
            uint32_t flags;        /* TR_SYSF_* */
            int64_t ret;
            uint64_t duration;
            uint32_t nargs;
            uint64_t args[6];
            uint32_t ncaptures;
            tr_capture captures[TR_MAX_CAPTURES];
            uint32_t stack;
        } libcall;
        struct {
            uint32_t event;        /* event def id */
            uint32_t flags;        /* TR_RAW_* */
            const uint8_t *data; size_t len; /* the raw record, common fields included */
        } trace_event;
        struct {
            uint64_t ip, parent_ip;
            uint32_t kind;         /* TR_FUNC_* */
            uint32_t depth;
            uint64_t duration;     /* for TR_FUNC_EXIT, ns */
        } function;
        struct {
            uint32_t event;        /* event def id, 0 for all */
            uint32_t kind;         /* TR_LOST_* */
            uint64_t count;
        } lost;
        struct {
            uint32_t module;       /* string id */
            uint64_t start, size;
            uint32_t name;         /* string id */
            uint32_t flags;        /* TR_FRAME_KERNEL, TR_FRAME_JIT */
        } symbol;
        struct {
            uint32_t module;       /* string id */
            uint32_t status;       /* TR_MOD_* */
            const uint8_t *build_id; size_t build_id_len;
            uint32_t detail;       /* string id of a human reason */
        } module_status;
        struct {
            uint32_t major, minor, flags; /* flags: the compatible feature flags */
            uint64_t offset;       /* byte offset of the stream in the input */
            uint32_t incompat;     /* TR_INCOMPAT_* */
        } stream_start;
        struct {
            uint64_t chunks, records, raw_bytes, compressed_bytes, lost;
            uint32_t complete;     /* 1: end frame read; 0: synthesised at truncation */
        } stream_end;
    } u;
} tr_record;

enum { TR_CNTF_INTERVAL = 1u << 0, TR_CNTF_NOT_SUPPORTED = 1u << 1, TR_CNTF_NOT_COUNTED = 1u << 2 };
enum { TR_SIGF_INJECTED = 1u << 0, TR_SIGF_STOP = 1u << 1, TR_SIGF_KILLED = 1u << 2 };
enum { TR_EXITF_SIGNALED = 1u << 0, TR_EXITF_THREAD = 1u << 1 };
enum { TR_FUNC_ENTRY = 0, TR_FUNC_EXIT = 1, TR_FUNC_CALL = 2 /* plain function tracer */ };
enum {
    TR_LOST_SAMPLES = 0,  /* ring buffer full: samples the kernel dropped */
    TR_LOST_OVERRUN = 1,  /* ftrace ring overrun */
    TR_LOST_EVENTS = 2,   /* events dropped by the recorder itself */
    TR_LOST_THROTTLE = 3, /* perf throttling */
};
enum {
    TR_MOD_RESOLVED = 0, TR_MOD_NOT_FOUND = 1, TR_MOD_BUILD_ID_MISMATCH = 2,
    TR_MOD_NO_SYMBOLS = 3, TR_MOD_CORRUPT = 4,
};

/* Iterate the entries of a syscall table record.  *pos starts at 0.
 * Returns 1 with *nr and *name set, 0 at the end, TR_E_CORRUPT_RECORD. */
int tr_syscall_table_iter(const tr_record *rec, size_t *pos, uint32_t *nr,
                          const char **name, size_t *name_len);

/* ------------------------------------------------------------------ */
/* Writer */

typedef struct tr_writer tr_writer;

typedef struct tr_writer_options {
    int level;              /* zstd level; 0 = default (3) */
    size_t chunk_size;      /* raw bytes per chunk; 0 = default (1 MiB); max 16 MiB */
    uint64_t key_interval;  /* raw bytes between key chunks; 0 = default (64 MiB) */
    uint32_t flush_ms;      /* tr_writer_poll flushes after this; 0 = default (100) */
    /* 1: write each sample's stack copy as the bytes in front of the end it
     * shares with the thread's earlier copies in the chunk, laid over one
     * another at their ends (TR_INCOMPAT_STACK_DELTA: the stream then needs
     * a format 1.1 reader; spec/FORMAT.md 4.4).  Readers deliver the whole
     * copy either way.  For recorders of DWARF stacks: a thread's copies
     * share their outer frames, so readers decompress a fraction of the
     * bytes. */
    int stack_delta;
} tr_writer_options;

/* Open a writer on fd (a file or a pipe; never seeks) and write the
 * stream-start frame.  opt may be NULL.  The fd stays the caller's. */
int tr_writer_open(tr_writer **out, int fd, const tr_writer_options *opt);

/* Metadata: sticky key/value pairs.  Keys are specified in spec/FORMAT.md
 * ("producer", "host", "kernel.release", "arch", "cmdline", "clock", ...).
 * Setting a key again replaces its value for later key chunks. */
int tr_writer_meta(tr_writer *w, const char *key, const char *value);
/* Fill the machine-describing keys: host, kernel.release, arch, page_size,
 * ncpus, time.* (a pair of clock readings), and producer/producer.version. */
int tr_writer_meta_defaults(tr_writer *w, const char *producer, int argc, char *const argv[]);

/* Intern: *id receives the stream-local id; the same content gives the
 * same id.  Definitions are written before the first record using them. */
int tr_writer_string(tr_writer *w, const char *s, size_t len, uint32_t *id);
int tr_writer_frame(tr_writer *w, const tr_frame *f, uint32_t *id);
/* frames[0] is the leaf (innermost), frames[n-1] the root (outermost). */
int tr_writer_stack(tr_writer *w, const uint32_t *frames, size_t n, uint32_t *id);
/* Convenience: intern n raw addresses (one tr_frame each with flags). */
int tr_writer_stack_addrs(tr_writer *w, const uint64_t *addrs, const uint32_t *flags,
                          size_t n, uint32_t *id);

/* Define an event; def->id is assigned when 0 and returned in *id.  Sticky. */
int tr_writer_event(tr_writer *w, const tr_event_def *def, uint32_t *id);
/* Sticky records: syscall tables, tracepoint formats, printk formats ... */
int tr_writer_syscall_table(tr_writer *w, const char *arch, const uint32_t *nrs,
                            const char *const *names, size_t n);
int tr_writer_blob(tr_writer *w, const char *name, const void *data, size_t len, int sticky);

/* Add one record (any type but definitions and stream frames, which have
 * their own calls above).  The record's ids must come from this writer. */
int tr_writer_add(tr_writer *w, const tr_record *rec);

/* End the current chunk and write it now. */
int tr_writer_flush(tr_writer *w);
/* Flush if the oldest unwritten record is older than flush_ms.  Call it
 * from the recording loop at least every flush_ms. */
int tr_writer_poll(tr_writer *w);
/* Write the last chunk and the stream-end frame with the totals.  lost is
 * the stream's total of lost events, for the end frame. */
int tr_writer_finish(tr_writer *w, uint64_t lost);
/* Free the writer (without finishing: a stream freed unfinished reads as
 * truncated, which is what a crash leaves too). */
void tr_writer_free(tr_writer *w);

typedef struct tr_writer_stats {
    uint64_t records, chunks, raw_bytes, compressed_bytes; /* bytes written so far */
} tr_writer_stats;
void tr_writer_get_stats(const tr_writer *w, tr_writer_stats *st);

/* ------------------------------------------------------------------ */
/* Reader */

typedef struct tr_reader tr_reader;

typedef struct tr_reader_options {
    size_t max_chunk;     /* reject chunks larger than this raw; 0 = 16 MiB */
    int keep_definitions; /* 1: also deliver STRING/FRAME/STACK/EVENT_DEF records */
} tr_reader_options;

/* Open a reader on fd (read front to back, never seeks).  The fd stays
 * the caller's. */
int tr_reader_open(tr_reader **out, int fd, const tr_reader_options *opt);
/* The same, for an fd from which the caller has already read head_len
 * bytes (to sniff them, see tr_is_trace): the reader reads head first, as
 * if it came from fd, then fd.  head is copied; it may be NULL when
 * head_len is 0.  Offsets in diagnostics count from head's first byte. */
int tr_reader_open_fd(tr_reader **out, int fd, const void *head, size_t head_len,
                      const tr_reader_options *opt);
/* Where a reader gets its bytes: like read(2), it stores at most len bytes
 * at buf and returns how many (short reads are fine), 0 at the end of the
 * input, or -1 with errno set.  -1 with EINTR is called again; any other
 * error ends the input (tr_reader_next returns TR_E_IO, the diag names
 * errno's message).  It is called from tr_reader_next only, with len of
 * at least 1. */
typedef ssize_t (*tr_read_fn)(void *ctx, void *buf, size_t len);
/* Open a reader on fn(ctx, ...), after the head_len bytes at head (copied;
 * NULL when head_len is 0): a decompressor, a socket, a ring buffer.
 * fn is never called before the first tr_reader_next(). */
int tr_reader_open_fn(tr_reader **out, tr_read_fn fn, void *ctx, const void *head,
                      size_t head_len, const tr_reader_options *opt);
/* Read from memory instead (the buffer stays the caller's). */
int tr_reader_open_mem(tr_reader **out, const void *buf, size_t len,
                       const tr_reader_options *opt);
void tr_reader_free(tr_reader *r);

/* Next record.  Returns 1 with *rec filled, 0 at the end of the input, or
 * a negative tr_error.  A recoverable error (tr_error_recoverable) means
 * data was skipped; call again to go on.  Any other error ends the input.
 * Definition records are absorbed into the tables below (and delivered
 * too with keep_definitions).  At the start and end of every stream a
 * TR_REC_STREAM_START / TR_REC_STREAM_END record is delivered; a stream
 * that ends without its end frame gets a synthesised STREAM_END with
 * complete = 0 before TR_E_TRUNCATED is returned (or TR_E_IO, when a read
 * failed inside it). */
int tr_reader_next(tr_reader *r, tr_record *rec);

/* Where the last error happened and what it cost. */
typedef struct tr_reader_diag {
    uint64_t offset;      /* byte offset in the input */
    uint32_t stream;      /* stream index */
    uint64_t chunk;       /* chunk sequence number involved */
    uint64_t lost_chunks; /* chunks lost in this event */
    uint64_t lost_bytes;  /* input bytes skipped in this event */
    char detail[160];     /* one line, no newline, e.g. "zstd: Data corruption" */
} tr_reader_diag;
const tr_reader_diag *tr_reader_last_diag(const tr_reader *r);

/* Totals over everything read so far. */
typedef struct tr_reader_stats {
    uint64_t streams, chunks, records, raw_bytes, compressed_bytes, input_bytes;
    uint64_t bad_chunks, lost_chunks, skipped_bytes, bad_records;
    uint64_t unresolved_refs; /* lookups of ids that were never defined */
    uint64_t per_type[128];   /* records per type number < 128 */
} tr_reader_stats;
void tr_reader_get_stats(const tr_reader *r, tr_reader_stats *st);

/* Look-ups in the current stream's tables.  NULL / negative when the id is
 * unknown (never defined, or defined in a lost chunk). */
const char *tr_reader_string(tr_reader *r, uint32_t id, size_t *len);
const tr_frame *tr_reader_frame(tr_reader *r, uint32_t id);
/* The frame ids of stack node id, leaf first.  Returns the depth (>= 0)
 * with *frames pointing to reader-owned memory valid until the stream
 * ends, or a negative tr_error. */
int tr_reader_stack(tr_reader *r, uint32_t id, const uint32_t **frames);
const tr_event_def *tr_reader_event(tr_reader *r, uint32_t id);
/* The value of a metadata key of the current stream, or NULL. */
const char *tr_reader_meta(tr_reader *r, const char *key);
/* Iterate all metadata of the current stream: i from 0 until it returns 0. */
int tr_reader_meta_at(tr_reader *r, size_t i, const char **key, const char **value);
/* The name of syscall nr in the current stream's table for arch (NULL: the
 * stream's "arch"), or NULL. */
const char *tr_reader_syscall_name(tr_reader *r, const char *arch, uint32_t nr);
/* The most recent blob of that name in the current stream, or NULL. */
const uint8_t *tr_reader_blob(tr_reader *r, const char *name, size_t *len);
/* Iterate blobs whose name starts with prefix: i from 0 until it returns 0. */
int tr_reader_blob_at(tr_reader *r, const char *prefix, size_t i, const char **name,
                      const uint8_t **data, size_t *len);

/* ------------------------------------------------------------------ */
/* Sniffing and frames, for tools that look at the bytes themselves. */

/* Bytes tr_is_trace looks at: the first frame's magic 5E 2A 4D 18. */
#define TR_SNIFF_BYTES 4
/* 1 if the len bytes at buf, the beginning of an input, begin a tr trace
 * (spec/FORMAT.md 6), else 0.  It needs TR_SNIFF_BYTES bytes: with fewer
 * it answers 0 (no trace is that short), so gather TR_SNIFF_BYTES unless
 * the input ends sooner.  A 1 says what the input claims to be, not that
 * it reads without errors: the reader reports what is damaged. */
int tr_is_trace(const void *buf, size_t len);

/* The frames a trace is made of (spec/FORMAT.md 2), for walking a trace in
 * memory without decompressing it (to find each stream's last chunks). */
enum {
    TR_SFRAME_START = 1,   /* a stream's start frame (TRST) */
    TR_SFRAME_CHUNK = 2,   /* a chunk frame (TRCH) and the zstd frame after it */
    TR_SFRAME_END = 3,     /* a stream's end frame (TREN) */
    TR_SFRAME_OTHER = 4,   /* a tr frame of a kind this library does not know */
    TR_SFRAME_FOREIGN = 5, /* another zstd skippable frame, skipped by readers */
};
typedef struct tr_stream_frame {
    uint32_t kind;  /* TR_SFRAME_* */
    size_t size;    /* its bytes (header, content, a chunk's zstd frame): the next frame's offset */
    uint32_t major, minor, compat, incompat;  /* TR_SFRAME_START */
    uint64_t seq, base_time;                  /* TR_SFRAME_CHUNK, as its header says: */
    uint32_t flags, csize, rsize, count;      /* csize bytes of zstd frame follow the header */
    uint64_t chunks, records, raw_bytes, bytes, lost; /* TR_SFRAME_END: the stream's totals */
} tr_stream_frame;
/* Parse the frame at buf, checking its magic, size and checksum (not the
 * zstd frame of a chunk).  Returns 1 with *f filled when the whole frame,
 * a chunk's zstd frame included, lies within the len bytes; 0 when len is
 * 0; TR_E_TRUNCATED when it goes on past len (f->size: the bytes it needs
 * at least, 0 if the header is cut too); TR_E_CORRUPT_FRAME when the bytes are no frame
 * (other magic, size out of range, checksum mismatch, too short for its
 * kind).  Walking a trace:
 *     for (size_t off = 0; off < len; off += f.size)
 *         if (tr_stream_frame_parse(buf + off, len - off, &f) != 1) break; */
int tr_stream_frame_parse(const void *buf, size_t len, tr_stream_frame *f);

/* ------------------------------------------------------------------ */
/* Low-level encoding helpers, shared with tools that build raw bodies. */

size_t tr_varint_put(uint8_t *p, uint64_t v);  /* returns bytes written, <= 10 */
uint32_t tr_crc32c(uint32_t crc, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* TR_H */

#pragma GCC visibility push(hidden)

/* ---- the frames around chunks (spec/FORMAT.md, "Frames") ---- */
#define TR_SKIP_MAGIC 0x184D2A5Eu  /* zstd skippable frame, nibble E */
#define TR_ZSTD_MAGIC 0xFD2FB528u
#define TR_KIND_START 0x54535254u  /* "TRST" */
#define TR_KIND_CHUNK 0x48435254u  /* "TRCH" */
#define TR_KIND_END 0x4E455254u    /* "TREN" */
#define TR_START_SIZE 28u          /* content sizes in version 1.0 */
#define TR_CHUNK_SIZE 40u
#define TR_END_SIZE 48u
#define TR_FRAME_MAX 4096u         /* largest frame content a reader accepts */
#define TR_CHUNK_KEY 1u            /* chunk flag: key chunk */
#define TR_RAW_MAX (16u << 20)     /* hard limit on a chunk's raw size */
#define TR_MAX_DEPTH 4096          /* frames of a stack a reader materialises */

/* ---- little-endian fixed-width fields ---- */
static inline void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void put_le64(uint8_t *p, uint64_t v) { put_le32(p, (uint32_t)v); put_le32(p + 4, (uint32_t)(v >> 32)); }
static inline void put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t get_le64(const uint8_t *p) { return get_le32(p) | (uint64_t)get_le32(p + 4) << 32; }
static inline uint16_t get_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* ---- varints: LEB128, at most 10 bytes; signed values zigzag-encoded ---- */
static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* A cursor over a record body.  Reading past the end sets bad. */
typedef struct cur {
    const uint8_t *p, *end;
    int bad;
} cur;

uint64_t tr_internal_cur_varint_slow(cur *c);
static inline uint64_t cur_varint(cur *c)
{
    const uint8_t *p = c->p;
    ptrdiff_t left = c->end - p;
    if (left >= 1 && p[0] < 0x80) { /* the short forms, unrolled */
        c->p = p + 1;
        return p[0];
    }
    if (left >= 2 && p[1] < 0x80) {
        c->p = p + 2;
        return (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
    }
    if (left >= 3 && p[2] < 0x80) {
        c->p = p + 3;
        return (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
    }
    if (left >= 4 && p[3] < 0x80) {
        c->p = p + 4;
        return (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)(p[2] & 0x7f) << 14 |
               (uint64_t)p[3] << 21;
    }
    return tr_internal_cur_varint_slow(c);
}
static inline int64_t cur_svarint(cur *c) { return unzigzag(cur_varint(c)); }
static inline uint32_t cur_u32(cur *c)
{
    uint64_t v = cur_varint(c);
    if (v > UINT32_MAX) c->bad = 1;
    return (uint32_t)v;
}
static inline int32_t cur_s32(cur *c)
{
    int64_t v = cur_svarint(c);
    if (v < INT32_MIN || v > INT32_MAX) c->bad = 1;
    return (int32_t)v;
}
/* n bytes, or NULL (and bad) when fewer remain */
static inline const uint8_t *cur_bytes(cur *c, uint64_t n)
{
    if (n > (uint64_t)(c->end - c->p)) {
        c->bad = 1;
        c->p = c->end;
        return NULL;
    }
    const uint8_t *p = c->p;
    c->p += n;
    return p;
}
static inline size_t cur_left(const cur *c) { return (size_t)(c->end - c->p); }

/* ---- a growable byte buffer ---- */
typedef struct buf {
    uint8_t *p;
    size_t len, cap;
} buf;
int tr_internal_buf_reserve(buf *b, size_t more);
static inline int buf_put(buf *b, const void *d, size_t n)
{
    if (b->cap - b->len < n && tr_internal_buf_reserve(b, n)) return TR_E_NOMEM;
    if (n) memcpy(b->p + b->len, d, n);
    b->len += n;
    return 0;
}
static inline int buf_varint(buf *b, uint64_t v)
{
    if (b->cap - b->len < 10 && tr_internal_buf_reserve(b, 10)) return TR_E_NOMEM;
    b->len += tr_varint_put(b->p + b->len, v);
    return 0;
}
static inline int buf_svarint(buf *b, int64_t v) { return buf_varint(b, zigzag(v)); }
void tr_internal_buf_free(buf *b);

/* ---- growable arrays (the library's own array_reserve: libtr links
 * nothing of model/) ----
 * Grow the array *arrp (the address of the array pointer; elements of elem
 * bytes) to hold at least n elements, doubling from first.  0, or
 * TR_E_NOMEM with the array and *cap unchanged. */
int tr_internal_array_reserve(void *arrp, size_t *cap, size_t n, size_t elem, size_t first);

/* ---- hash maps with 64-bit keys to 32-bit values (0 = absent) ---- */
typedef struct idmap {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n;
} idmap;
uint32_t tr_internal_idmap_get(const idmap *m, uint64_t key);
int tr_internal_idmap_put(idmap *m, uint64_t key, uint32_t val);
void tr_internal_idmap_free(idmap *m);

/* ids to values: a dense array for ids near the number defined (writers
 * assign them in order), a hash map for the rest (hostile or lost ids), so
 * memory follows the number of definitions, never the size of an id. */
typedef struct idtab {
    uint32_t *dense;
    size_t ndense, count;
    idmap sparse;
} idtab;
static inline uint32_t idtab_get(const idtab *t, uint32_t id)
{
    if (id < t->ndense && t->dense[id]) return t->dense[id];
    return t->sparse.n ? tr_internal_idmap_get(&t->sparse, id) : 0;
}
int tr_internal_idtab_put(idtab *t, uint32_t id, uint32_t val);
void tr_internal_idtab_free(idtab *t);
uint64_t tr_internal_hash64(const void *p, size_t n, uint64_t seed);

/* ---- stack images (format 1.1, STACK_DELTA) ----
 * Each thread's stack copies of the open chunk laid over one another,
 * aligned at their ends, kept at the end of a buffer: a copy that ends
 * with the image's last bytes is completed in place, by writing only the
 * bytes before them.  Writer and reader keep the same images; both empty
 * them at every chunk. */
typedef struct stack_image {
    uint8_t *p;      /* the image is p[cap - len, cap) */
    size_t cap, len;
} stack_image;
typedef struct stack_images {
    stack_image *v;
    size_t n, capv, bytes; /* bytes: sum of the buffers' sizes */
    idmap index;           /* (pid, tid) -> index + 1 into v */
    uint32_t anon;         /* the same for pid = tid = -1 (the idmap's empty key) */
} stack_images;
/* The image of thread (pid, tid), made empty when new; NULL: out of memory. */
stack_image *tr_internal_stack_image_get(stack_images *t, int32_t pid, int32_t tid);
/* Make room for a copy of n bytes, keeping the image at the end. */
int tr_internal_stack_image_reserve(stack_images *t, stack_image *im, size_t n);
/* A copy of fresh[0..f) followed by the image's last kept bytes (kept <=
 * len; reserved for f + kept) is laid over the image: where it starts. */
const uint8_t *tr_internal_stack_image_put(stack_image *im, const uint8_t *fresh, size_t f, size_t kept);
/* The length of the longest common suffix of s[0..n) and the image. */
size_t tr_internal_stack_image_suffix(const stack_image *im, const uint8_t *s, size_t n);
/* A new chunk: every image empty (buffers kept unless they grew large). */
void tr_internal_stack_images_reset(stack_images *t);
void tr_internal_stack_images_free(stack_images *t);

/* ---- record bodies (record.c) ---- */
/* Does type t start with the event prefix (dt, pid, tid, cpu)? */
static inline int type_has_prefix(uint32_t t) { return (t & 0x20) != 0; }
/* Encode rec's body (after the prefix for event types) into b.  kept: the
 * last kept bytes of a sample's stack copy are not written but taken from
 * the thread's stack image (sflags bit 3); 0 for every other record. */
int tr_internal_rec_encode_body(buf *b, const tr_record *rec, size_t kept);
/* Decode a body (after the prefix) into rec; 0 or TR_E_CORRUPT_RECORD.
 * A sample whose stack copy continues in the thread's stack image gets
 * only its written bytes in stack_copy and the rest's length in *kept
 * (0 otherwise): the reader completes it. */
int tr_internal_rec_decode_body(cur *c, tr_record *rec, size_t *kept);

#pragma GCC visibility pop

#endif

static const char *const messages[] = {
    [0] = "no error",
    [-TR_E_NOMEM] = "out of memory",
    [-TR_E_IO] = "input/output error",
    [-TR_E_INVAL] = "invalid argument",
    [-TR_E_NOT_TRACE] = "not a tr trace",
    [-TR_E_VERSION] = "trace format version is newer than this reader",
    [-TR_E_INCOMPAT] = "trace uses a feature this reader does not know",
    [-TR_E_TRUNCATED] = "truncated: the stream ends without its end frame",
    [-TR_E_CORRUPT_CHUNK] = "corrupt chunk skipped",
    [-TR_E_CORRUPT_FRAME] = "corrupt frame header skipped",
    [-TR_E_TOO_LARGE] = "length field exceeds the format's limits",
    [-TR_E_COMPRESS] = "compression failed",
    [-TR_E_CORRUPT_RECORD] = "malformed record",
    [-TR_E_EPIPE] = "broken pipe: the reader of the output went away",
    [-TR_E_NOSPC] = "no space left on device",
    [-TR_E_FINISHED] = "the stream is already finished",
    [-TR_E_LOST_CHUNKS] = "chunks missing from the stream",
    [-TR_E_GARBAGE] = "bytes that are no part of a trace skipped",
    [-TR_E_STREAM_CUT] = "stream cut short: no end frame before the next stream",
    [-TR_E_EMPTY] = "empty input",
};

const char *tr_strerror(int err)
{
    if (err > 0) err = 0;
    if (err <= TR_E_LAST_ || !messages[-err]) return "unknown error";
    return messages[-err];
}

int tr_error_recoverable(int err)
{
    switch (err) {
    case TR_E_CORRUPT_CHUNK:
    case TR_E_CORRUPT_FRAME:
    case TR_E_CORRUPT_RECORD:
    case TR_E_LOST_CHUNKS:
    case TR_E_GARBAGE:
    case TR_E_STREAM_CUT:
    case TR_E_TOO_LARGE:
        return 1;
    default:
        return 0;
    }
}
/* ==== format/util.c ==== */
/* util.c - varints, CRC-32C, buffers and hash maps. */
#include <endian.h>


size_t tr_varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

uint64_t tr_internal_cur_varint_slow(cur *c)
{
    const uint8_t *p = c->p;
    uint64_t v = 0;
    if (c->end - p >= 8) { /* up to 8 bytes (56 bits): the 7-bit groups packed in a word */
        uint64_t w;
        memcpy(&w, p, 8);
        w = le64toh(w);
        uint64_t stops = ~w & 0x8080808080808080ull;
        if (stops) {
            int n = __builtin_ctzll(stops) / 8 + 1;
            uint64_t x = (n == 8 ? w : w & ((1ull << (8 * n)) - 1)) & 0x7f7f7f7f7f7f7f7full;
            x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
            x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
            x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
            c->p = p + n;
            return x;
        }
    }
    for (int shift = 0; shift < 70; shift += 7) {
        if (p >= c->end) break;
        uint8_t b = *p++;
        if (shift == 63 && b > 1) break; /* overflows 64 bits */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            c->p = p;
            return v;
        }
    }
    c->bad = 1;
    c->p = c->end;
    return 0;
}

/* CRC-32C (Castagnoli), reflected, as in iSCSI and ext4: a constant table,
 * safe in any number of threads. */
/* ---- format/crc32c_table.h ---- */
/* crc32c_table.h - the CRC-32C (Castagnoli, reflected polynomial 0x82F63B78)
 * tables for slicing by 8, included by util.c only.  table[0][i] is the CRC
 * register after byte i; table[t][i] = (table[t-1][i] >> 8) ^
 * table[0][table[t-1][i] & 0xff].  Constant data: no initialisation, so two
 * threads may compute CRCs at once.  Generated once (the polynomial never
 * changes); test_format checks tr_crc32c against a bitwise CRC-32C. */
static const uint32_t crc_table[8][256] = {
    {
        0x00000000u, 0xf26b8303u, 0xe13b70f7u, 0x1350f3f4u, 0xc79a971fu, 0x35f1141cu,
        0x26a1e7e8u, 0xd4ca64ebu, 0x8ad958cfu, 0x78b2dbccu, 0x6be22838u, 0x9989ab3bu,
        0x4d43cfd0u, 0xbf284cd3u, 0xac78bf27u, 0x5e133c24u, 0x105ec76fu, 0xe235446cu,
        0xf165b798u, 0x030e349bu, 0xd7c45070u, 0x25afd373u, 0x36ff2087u, 0xc494a384u,
        0x9a879fa0u, 0x68ec1ca3u, 0x7bbcef57u, 0x89d76c54u, 0x5d1d08bfu, 0xaf768bbcu,
        0xbc267848u, 0x4e4dfb4bu, 0x20bd8edeu, 0xd2d60dddu, 0xc186fe29u, 0x33ed7d2au,
        0xe72719c1u, 0x154c9ac2u, 0x061c6936u, 0xf477ea35u, 0xaa64d611u, 0x580f5512u,
        0x4b5fa6e6u, 0xb93425e5u, 0x6dfe410eu, 0x9f95c20du, 0x8cc531f9u, 0x7eaeb2fau,
        0x30e349b1u, 0xc288cab2u, 0xd1d83946u, 0x23b3ba45u, 0xf779deaeu, 0x05125dadu,
        0x1642ae59u, 0xe4292d5au, 0xba3a117eu, 0x4851927du, 0x5b016189u, 0xa96ae28au,
        0x7da08661u, 0x8fcb0562u, 0x9c9bf696u, 0x6ef07595u, 0x417b1dbcu, 0xb3109ebfu,
        0xa0406d4bu, 0x522bee48u, 0x86e18aa3u, 0x748a09a0u, 0x67dafa54u, 0x95b17957u,
        0xcba24573u, 0x39c9c670u, 0x2a993584u, 0xd8f2b687u, 0x0c38d26cu, 0xfe53516fu,
        0xed03a29bu, 0x1f682198u, 0x5125dad3u, 0xa34e59d0u, 0xb01eaa24u, 0x42752927u,
        0x96bf4dccu, 0x64d4cecfu, 0x77843d3bu, 0x85efbe38u, 0xdbfc821cu, 0x2997011fu,
        0x3ac7f2ebu, 0xc8ac71e8u, 0x1c661503u, 0xee0d9600u, 0xfd5d65f4u, 0x0f36e6f7u,
        0x61c69362u, 0x93ad1061u, 0x80fde395u, 0x72966096u, 0xa65c047du, 0x5437877eu,
        0x4767748au, 0xb50cf789u, 0xeb1fcbadu, 0x197448aeu, 0x0a24bb5au, 0xf84f3859u,
        0x2c855cb2u, 0xdeeedfb1u, 0xcdbe2c45u, 0x3fd5af46u, 0x7198540du, 0x83f3d70eu,
        0x90a324fau, 0x62c8a7f9u, 0xb602c312u, 0x44694011u, 0x5739b3e5u, 0xa55230e6u,
        0xfb410cc2u, 0x092a8fc1u, 0x1a7a7c35u, 0xe811ff36u, 0x3cdb9bddu, 0xceb018deu,
        0xdde0eb2au, 0x2f8b6829u, 0x82f63b78u, 0x709db87bu, 0x63cd4b8fu, 0x91a6c88cu,
        0x456cac67u, 0xb7072f64u, 0xa457dc90u, 0x563c5f93u, 0x082f63b7u, 0xfa44e0b4u,
        0xe9141340u, 0x1b7f9043u, 0xcfb5f4a8u, 0x3dde77abu, 0x2e8e845fu, 0xdce5075cu,
        0x92a8fc17u, 0x60c37f14u, 0x73938ce0u, 0x81f80fe3u, 0x55326b08u, 0xa759e80bu,
        0xb4091bffu, 0x466298fcu, 0x1871a4d8u, 0xea1a27dbu, 0xf94ad42fu, 0x0b21572cu,
        0xdfeb33c7u, 0x2d80b0c4u, 0x3ed04330u, 0xccbbc033u, 0xa24bb5a6u, 0x502036a5u,
        0x4370c551u, 0xb11b4652u, 0x65d122b9u, 0x97baa1bau, 0x84ea524eu, 0x7681d14du,
        0x2892ed69u, 0xdaf96e6au, 0xc9a99d9eu, 0x3bc21e9du, 0xef087a76u, 0x1d63f975u,
        0x0e330a81u, 0xfc588982u, 0xb21572c9u, 0x407ef1cau, 0x532e023eu, 0xa145813du,
        0x758fe5d6u, 0x87e466d5u, 0x94b49521u, 0x66df1622u, 0x38cc2a06u, 0xcaa7a905u,
        0xd9f75af1u, 0x2b9cd9f2u, 0xff56bd19u, 0x0d3d3e1au, 0x1e6dcdeeu, 0xec064eedu,
        0xc38d26c4u, 0x31e6a5c7u, 0x22b65633u, 0xd0ddd530u, 0x0417b1dbu, 0xf67c32d8u,
        0xe52cc12cu, 0x1747422fu, 0x49547e0bu, 0xbb3ffd08u, 0xa86f0efcu, 0x5a048dffu,
        0x8ecee914u, 0x7ca56a17u, 0x6ff599e3u, 0x9d9e1ae0u, 0xd3d3e1abu, 0x21b862a8u,
        0x32e8915cu, 0xc083125fu, 0x144976b4u, 0xe622f5b7u, 0xf5720643u, 0x07198540u,
        0x590ab964u, 0xab613a67u, 0xb831c993u, 0x4a5a4a90u, 0x9e902e7bu, 0x6cfbad78u,
        0x7fab5e8cu, 0x8dc0dd8fu, 0xe330a81au, 0x115b2b19u, 0x020bd8edu, 0xf0605beeu,
        0x24aa3f05u, 0xd6c1bc06u, 0xc5914ff2u, 0x37faccf1u, 0x69e9f0d5u, 0x9b8273d6u,
        0x88d28022u, 0x7ab90321u, 0xae7367cau, 0x5c18e4c9u, 0x4f48173du, 0xbd23943eu,
        0xf36e6f75u, 0x0105ec76u, 0x12551f82u, 0xe03e9c81u, 0x34f4f86au, 0xc69f7b69u,
        0xd5cf889du, 0x27a40b9eu, 0x79b737bau, 0x8bdcb4b9u, 0x988c474du, 0x6ae7c44eu,
        0xbe2da0a5u, 0x4c4623a6u, 0x5f16d052u, 0xad7d5351u,
    },
    {
        0x00000000u, 0x13a29877u, 0x274530eeu, 0x34e7a899u, 0x4e8a61dcu, 0x5d28f9abu,
        0x69cf5132u, 0x7a6dc945u, 0x9d14c3b8u, 0x8eb65bcfu, 0xba51f356u, 0xa9f36b21u,
        0xd39ea264u, 0xc03c3a13u, 0xf4db928au, 0xe7790afdu, 0x3fc5f181u, 0x2c6769f6u,
        0x1880c16fu, 0x0b225918u, 0x714f905du, 0x62ed082au, 0x560aa0b3u, 0x45a838c4u,
        0xa2d13239u, 0xb173aa4eu, 0x859402d7u, 0x96369aa0u, 0xec5b53e5u, 0xfff9cb92u,
        0xcb1e630bu, 0xd8bcfb7cu, 0x7f8be302u, 0x6c297b75u, 0x58ced3ecu, 0x4b6c4b9bu,
        0x310182deu, 0x22a31aa9u, 0x1644b230u, 0x05e62a47u, 0xe29f20bau, 0xf13db8cdu,
        0xc5da1054u, 0xd6788823u, 0xac154166u, 0xbfb7d911u, 0x8b507188u, 0x98f2e9ffu,
        0x404e1283u, 0x53ec8af4u, 0x670b226du, 0x74a9ba1au, 0x0ec4735fu, 0x1d66eb28u,
        0x298143b1u, 0x3a23dbc6u, 0xdd5ad13bu, 0xcef8494cu, 0xfa1fe1d5u, 0xe9bd79a2u,
        0x93d0b0e7u, 0x80722890u, 0xb4958009u, 0xa737187eu, 0xff17c604u, 0xecb55e73u,
        0xd852f6eau, 0xcbf06e9du, 0xb19da7d8u, 0xa23f3fafu, 0x96d89736u, 0x857a0f41u,
        0x620305bcu, 0x71a19dcbu, 0x45463552u, 0x56e4ad25u, 0x2c896460u, 0x3f2bfc17u,
        0x0bcc548eu, 0x186eccf9u, 0xc0d23785u, 0xd370aff2u, 0xe797076bu, 0xf4359f1cu,
        0x8e585659u, 0x9dface2eu, 0xa91d66b7u, 0xbabffec0u, 0x5dc6f43du, 0x4e646c4au,
        0x7a83c4d3u, 0x69215ca4u, 0x134c95e1u, 0x00ee0d96u, 0x3409a50fu, 0x27ab3d78u,
        0x809c2506u, 0x933ebd71u, 0xa7d915e8u, 0xb47b8d9fu, 0xce1644dau, 0xddb4dcadu,
        0xe9537434u, 0xfaf1ec43u, 0x1d88e6beu, 0x0e2a7ec9u, 0x3acdd650u, 0x296f4e27u,
        0x53028762u, 0x40a01f15u, 0x7447b78cu, 0x67e52ffbu, 0xbf59d487u, 0xacfb4cf0u,
        0x981ce469u, 0x8bbe7c1eu, 0xf1d3b55bu, 0xe2712d2cu, 0xd69685b5u, 0xc5341dc2u,
        0x224d173fu, 0x31ef8f48u, 0x050827d1u, 0x16aabfa6u, 0x6cc776e3u, 0x7f65ee94u,
        0x4b82460du, 0x5820de7au, 0xfbc3faf9u, 0xe861628eu, 0xdc86ca17u, 0xcf245260u,
        0xb5499b25u, 0xa6eb0352u, 0x920cabcbu, 0x81ae33bcu, 0x66d73941u, 0x7575a136u,
        0x419209afu, 0x523091d8u, 0x285d589du, 0x3bffc0eau, 0x0f186873u, 0x1cbaf004u,
        0xc4060b78u, 0xd7a4930fu, 0xe3433b96u, 0xf0e1a3e1u, 0x8a8c6aa4u, 0x992ef2d3u,
        0xadc95a4au, 0xbe6bc23du, 0x5912c8c0u, 0x4ab050b7u, 0x7e57f82eu, 0x6df56059u,
        0x1798a91cu, 0x043a316bu, 0x30dd99f2u, 0x237f0185u, 0x844819fbu, 0x97ea818cu,
        0xa30d2915u, 0xb0afb162u, 0xcac27827u, 0xd960e050u, 0xed8748c9u, 0xfe25d0beu,
        0x195cda43u, 0x0afe4234u, 0x3e19eaadu, 0x2dbb72dau, 0x57d6bb9fu, 0x447423e8u,
        0x70938b71u, 0x63311306u, 0xbb8de87au, 0xa82f700du, 0x9cc8d894u, 0x8f6a40e3u,
        0xf50789a6u, 0xe6a511d1u, 0xd242b948u, 0xc1e0213fu, 0x26992bc2u, 0x353bb3b5u,
        0x01dc1b2cu, 0x127e835bu, 0x68134a1eu, 0x7bb1d269u, 0x4f567af0u, 0x5cf4e287u,
        0x04d43cfdu, 0x1776a48au, 0x23910c13u, 0x30339464u, 0x4a5e5d21u, 0x59fcc556u,
        0x6d1b6dcfu, 0x7eb9f5b8u, 0x99c0ff45u, 0x8a626732u, 0xbe85cfabu, 0xad2757dcu,
        0xd74a9e99u, 0xc4e806eeu, 0xf00fae77u, 0xe3ad3600u, 0x3b11cd7cu, 0x28b3550bu,
        0x1c54fd92u, 0x0ff665e5u, 0x759baca0u, 0x663934d7u, 0x52de9c4eu, 0x417c0439u,
        0xa6050ec4u, 0xb5a796b3u, 0x81403e2au, 0x92e2a65du, 0xe88f6f18u, 0xfb2df76fu,
        0xcfca5ff6u, 0xdc68c781u, 0x7b5fdfffu, 0x68fd4788u, 0x5c1aef11u, 0x4fb87766u,
        0x35d5be23u, 0x26772654u, 0x12908ecdu, 0x013216bau, 0xe64b1c47u, 0xf5e98430u,
        0xc10e2ca9u, 0xd2acb4deu, 0xa8c17d9bu, 0xbb63e5ecu, 0x8f844d75u, 0x9c26d502u,
        0x449a2e7eu, 0x5738b609u, 0x63df1e90u, 0x707d86e7u, 0x0a104fa2u, 0x19b2d7d5u,
        0x2d557f4cu, 0x3ef7e73bu, 0xd98eedc6u, 0xca2c75b1u, 0xfecbdd28u, 0xed69455fu,
        0x97048c1au, 0x84a6146du, 0xb041bcf4u, 0xa3e32483u,
    },
    {
        0x00000000u, 0xa541927eu, 0x4f6f520du, 0xea2ec073u, 0x9edea41au, 0x3b9f3664u,
        0xd1b1f617u, 0x74f06469u, 0x38513ec5u, 0x9d10acbbu, 0x773e6cc8u, 0xd27ffeb6u,
        0xa68f9adfu, 0x03ce08a1u, 0xe9e0c8d2u, 0x4ca15aacu, 0x70a27d8au, 0xd5e3eff4u,
        0x3fcd2f87u, 0x9a8cbdf9u, 0xee7cd990u, 0x4b3d4beeu, 0xa1138b9du, 0x045219e3u,
        0x48f3434fu, 0xedb2d131u, 0x079c1142u, 0xa2dd833cu, 0xd62de755u, 0x736c752bu,
        0x9942b558u, 0x3c032726u, 0xe144fb14u, 0x4405696au, 0xae2ba919u, 0x0b6a3b67u,
        0x7f9a5f0eu, 0xdadbcd70u, 0x30f50d03u, 0x95b49f7du, 0xd915c5d1u, 0x7c5457afu,
        0x967a97dcu, 0x333b05a2u, 0x47cb61cbu, 0xe28af3b5u, 0x08a433c6u, 0xade5a1b8u,
        0x91e6869eu, 0x34a714e0u, 0xde89d493u, 0x7bc846edu, 0x0f382284u, 0xaa79b0fau,
        0x40577089u, 0xe516e2f7u, 0xa9b7b85bu, 0x0cf62a25u, 0xe6d8ea56u, 0x43997828u,
        0x37691c41u, 0x92288e3fu, 0x78064e4cu, 0xdd47dc32u, 0xc76580d9u, 0x622412a7u,
        0x880ad2d4u, 0x2d4b40aau, 0x59bb24c3u, 0xfcfab6bdu, 0x16d476ceu, 0xb395e4b0u,
        0xff34be1cu, 0x5a752c62u, 0xb05bec11u, 0x151a7e6fu, 0x61ea1a06u, 0xc4ab8878u,
        0x2e85480bu, 0x8bc4da75u, 0xb7c7fd53u, 0x12866f2du, 0xf8a8af5eu, 0x5de93d20u,
        0x29195949u, 0x8c58cb37u, 0x66760b44u, 0xc337993au, 0x8f96c396u, 0x2ad751e8u,
        0xc0f9919bu, 0x65b803e5u, 0x1148678cu, 0xb409f5f2u, 0x5e273581u, 0xfb66a7ffu,
        0x26217bcdu, 0x8360e9b3u, 0x694e29c0u, 0xcc0fbbbeu, 0xb8ffdfd7u, 0x1dbe4da9u,
        0xf7908ddau, 0x52d11fa4u, 0x1e704508u, 0xbb31d776u, 0x511f1705u, 0xf45e857bu,
        0x80aee112u, 0x25ef736cu, 0xcfc1b31fu, 0x6a802161u, 0x56830647u, 0xf3c29439u,
        0x19ec544au, 0xbcadc634u, 0xc85da25du, 0x6d1c3023u, 0x8732f050u, 0x2273622eu,
        0x6ed23882u, 0xcb93aafcu, 0x21bd6a8fu, 0x84fcf8f1u, 0xf00c9c98u, 0x554d0ee6u,
        0xbf63ce95u, 0x1a225cebu, 0x8b277743u, 0x2e66e53du, 0xc448254eu, 0x6109b730u,
        0x15f9d359u, 0xb0b84127u, 0x5a968154u, 0xffd7132au, 0xb3764986u, 0x1637dbf8u,
        0xfc191b8bu, 0x595889f5u, 0x2da8ed9cu, 0x88e97fe2u, 0x62c7bf91u, 0xc7862defu,
        0xfb850ac9u, 0x5ec498b7u, 0xb4ea58c4u, 0x11abcabau, 0x655baed3u, 0xc01a3cadu,
        0x2a34fcdeu, 0x8f756ea0u, 0xc3d4340cu, 0x6695a672u, 0x8cbb6601u, 0x29faf47fu,
        0x5d0a9016u, 0xf84b0268u, 0x1265c21bu, 0xb7245065u, 0x6a638c57u, 0xcf221e29u,
        0x250cde5au, 0x804d4c24u, 0xf4bd284du, 0x51fcba33u, 0xbbd27a40u, 0x1e93e83eu,
        0x5232b292u, 0xf77320ecu, 0x1d5de09fu, 0xb81c72e1u, 0xccec1688u, 0x69ad84f6u,
        0x83834485u, 0x26c2d6fbu, 0x1ac1f1ddu, 0xbf8063a3u, 0x55aea3d0u, 0xf0ef31aeu,
        0x841f55c7u, 0x215ec7b9u, 0xcb7007cau, 0x6e3195b4u, 0x2290cf18u, 0x87d15d66u,
        0x6dff9d15u, 0xc8be0f6bu, 0xbc4e6b02u, 0x190ff97cu, 0xf321390fu, 0x5660ab71u,
        0x4c42f79au, 0xe90365e4u, 0x032da597u, 0xa66c37e9u, 0xd29c5380u, 0x77ddc1feu,
        0x9df3018du, 0x38b293f3u, 0x7413c95fu, 0xd1525b21u, 0x3b7c9b52u, 0x9e3d092cu,
        0xeacd6d45u, 0x4f8cff3bu, 0xa5a23f48u, 0x00e3ad36u, 0x3ce08a10u, 0x99a1186eu,
        0x738fd81du, 0xd6ce4a63u, 0xa23e2e0au, 0x077fbc74u, 0xed517c07u, 0x4810ee79u,
        0x04b1b4d5u, 0xa1f026abu, 0x4bdee6d8u, 0xee9f74a6u, 0x9a6f10cfu, 0x3f2e82b1u,
        0xd50042c2u, 0x7041d0bcu, 0xad060c8eu, 0x08479ef0u, 0xe2695e83u, 0x4728ccfdu,
        0x33d8a894u, 0x96993aeau, 0x7cb7fa99u, 0xd9f668e7u, 0x9557324bu, 0x3016a035u,
        0xda386046u, 0x7f79f238u, 0x0b899651u, 0xaec8042fu, 0x44e6c45cu, 0xe1a75622u,
        0xdda47104u, 0x78e5e37au, 0x92cb2309u, 0x378ab177u, 0x437ad51eu, 0xe63b4760u,
        0x0c158713u, 0xa954156du, 0xe5f54fc1u, 0x40b4ddbfu, 0xaa9a1dccu, 0x0fdb8fb2u,
        0x7b2bebdbu, 0xde6a79a5u, 0x3444b9d6u, 0x91052ba8u,
    },
    {
        0x00000000u, 0xdd45aab8u, 0xbf672381u, 0x62228939u, 0x7b2231f3u, 0xa6679b4bu,
        0xc4451272u, 0x1900b8cau, 0xf64463e6u, 0x2b01c95eu, 0x49234067u, 0x9466eadfu,
        0x8d665215u, 0x5023f8adu, 0x32017194u, 0xef44db2cu, 0xe964b13du, 0x34211b85u,
        0x560392bcu, 0x8b463804u, 0x924680ceu, 0x4f032a76u, 0x2d21a34fu, 0xf06409f7u,
        0x1f20d2dbu, 0xc2657863u, 0xa047f15au, 0x7d025be2u, 0x6402e328u, 0xb9474990u,
        0xdb65c0a9u, 0x06206a11u, 0xd725148bu, 0x0a60be33u, 0x6842370au, 0xb5079db2u,
        0xac072578u, 0x71428fc0u, 0x136006f9u, 0xce25ac41u, 0x2161776du, 0xfc24ddd5u,
        0x9e0654ecu, 0x4343fe54u, 0x5a43469eu, 0x8706ec26u, 0xe524651fu, 0x3861cfa7u,
        0x3e41a5b6u, 0xe3040f0eu, 0x81268637u, 0x5c632c8fu, 0x45639445u, 0x98263efdu,
        0xfa04b7c4u, 0x27411d7cu, 0xc805c650u, 0x15406ce8u, 0x7762e5d1u, 0xaa274f69u,
        0xb327f7a3u, 0x6e625d1bu, 0x0c40d422u, 0xd1057e9au, 0xaba65fe7u, 0x76e3f55fu,
        0x14c17c66u, 0xc984d6deu, 0xd0846e14u, 0x0dc1c4acu, 0x6fe34d95u, 0xb2a6e72du,
        0x5de23c01u, 0x80a796b9u, 0xe2851f80u, 0x3fc0b538u, 0x26c00df2u, 0xfb85a74au,
        0x99a72e73u, 0x44e284cbu, 0x42c2eedau, 0x9f874462u, 0xfda5cd5bu, 0x20e067e3u,
        0x39e0df29u, 0xe4a57591u, 0x8687fca8u, 0x5bc25610u, 0xb4868d3cu, 0x69c32784u,
        0x0be1aebdu, 0xd6a40405u, 0xcfa4bccfu, 0x12e11677u, 0x70c39f4eu, 0xad8635f6u,
        0x7c834b6cu, 0xa1c6e1d4u, 0xc3e468edu, 0x1ea1c255u, 0x07a17a9fu, 0xdae4d027u,
        0xb8c6591eu, 0x6583f3a6u, 0x8ac7288au, 0x57828232u, 0x35a00b0bu, 0xe8e5a1b3u,
        0xf1e51979u, 0x2ca0b3c1u, 0x4e823af8u, 0x93c79040u, 0x95e7fa51u, 0x48a250e9u,
        0x2a80d9d0u, 0xf7c57368u, 0xeec5cba2u, 0x3380611au, 0x51a2e823u, 0x8ce7429bu,
        0x63a399b7u, 0xbee6330fu, 0xdcc4ba36u, 0x0181108eu, 0x1881a844u, 0xc5c402fcu,
        0xa7e68bc5u, 0x7aa3217du, 0x52a0c93fu, 0x8fe56387u, 0xedc7eabeu, 0x30824006u,
        0x2982f8ccu, 0xf4c75274u, 0x96e5db4du, 0x4ba071f5u, 0xa4e4aad9u, 0x79a10061u,
        0x1b838958u, 0xc6c623e0u, 0xdfc69b2au, 0x02833192u, 0x60a1b8abu, 0xbde41213u,
        0xbbc47802u, 0x6681d2bau, 0x04a35b83u, 0xd9e6f13bu, 0xc0e649f1u, 0x1da3e349u,
        0x7f816a70u, 0xa2c4c0c8u, 0x4d801be4u, 0x90c5b15cu, 0xf2e73865u, 0x2fa292ddu,
        0x36a22a17u, 0xebe780afu, 0x89c50996u, 0x5480a32eu, 0x8585ddb4u, 0x58c0770cu,
        0x3ae2fe35u, 0xe7a7548du, 0xfea7ec47u, 0x23e246ffu, 0x41c0cfc6u, 0x9c85657eu,
        0x73c1be52u, 0xae8414eau, 0xcca69dd3u, 0x11e3376bu, 0x08e38fa1u, 0xd5a62519u,
        0xb784ac20u, 0x6ac10698u, 0x6ce16c89u, 0xb1a4c631u, 0xd3864f08u, 0x0ec3e5b0u,
        0x17c35d7au, 0xca86f7c2u, 0xa8a47efbu, 0x75e1d443u, 0x9aa50f6fu, 0x47e0a5d7u,
        0x25c22ceeu, 0xf8878656u, 0xe1873e9cu, 0x3cc29424u, 0x5ee01d1du, 0x83a5b7a5u,
        0xf90696d8u, 0x24433c60u, 0x4661b559u, 0x9b241fe1u, 0x8224a72bu, 0x5f610d93u,
        0x3d4384aau, 0xe0062e12u, 0x0f42f53eu, 0xd2075f86u, 0xb025d6bfu, 0x6d607c07u,
        0x7460c4cdu, 0xa9256e75u, 0xcb07e74cu, 0x16424df4u, 0x106227e5u, 0xcd278d5du,
        0xaf050464u, 0x7240aedcu, 0x6b401616u, 0xb605bcaeu, 0xd4273597u, 0x09629f2fu,
        0xe6264403u, 0x3b63eebbu, 0x59416782u, 0x8404cd3au, 0x9d0475f0u, 0x4041df48u,
        0x22635671u, 0xff26fcc9u, 0x2e238253u, 0xf36628ebu, 0x9144a1d2u, 0x4c010b6au,
        0x5501b3a0u, 0x88441918u, 0xea669021u, 0x37233a99u, 0xd867e1b5u, 0x05224b0du,
        0x6700c234u, 0xba45688cu, 0xa345d046u, 0x7e007afeu, 0x1c22f3c7u, 0xc167597fu,
        0xc747336eu, 0x1a0299d6u, 0x782010efu, 0xa565ba57u, 0xbc65029du, 0x6120a825u,
        0x0302211cu, 0xde478ba4u, 0x31035088u, 0xec46fa30u, 0x8e647309u, 0x5321d9b1u,
        0x4a21617bu, 0x9764cbc3u, 0xf54642fau, 0x2803e842u,
    },
    {
        0x00000000u, 0x38116facu, 0x7022df58u, 0x4833b0f4u, 0xe045beb0u, 0xd854d11cu,
        0x906761e8u, 0xa8760e44u, 0xc5670b91u, 0xfd76643du, 0xb545d4c9u, 0x8d54bb65u,
        0x2522b521u, 0x1d33da8du, 0x55006a79u, 0x6d1105d5u, 0x8f2261d3u, 0xb7330e7fu,
        0xff00be8bu, 0xc711d127u, 0x6f67df63u, 0x5776b0cfu, 0x1f45003bu, 0x27546f97u,
        0x4a456a42u, 0x725405eeu, 0x3a67b51au, 0x0276dab6u, 0xaa00d4f2u, 0x9211bb5eu,
        0xda220baau, 0xe2336406u, 0x1ba8b557u, 0x23b9dafbu, 0x6b8a6a0fu, 0x539b05a3u,
        0xfbed0be7u, 0xc3fc644bu, 0x8bcfd4bfu, 0xb3debb13u, 0xdecfbec6u, 0xe6ded16au,
        0xaeed619eu, 0x96fc0e32u, 0x3e8a0076u, 0x069b6fdau, 0x4ea8df2eu, 0x76b9b082u,
        0x948ad484u, 0xac9bbb28u, 0xe4a80bdcu, 0xdcb96470u, 0x74cf6a34u, 0x4cde0598u,
        0x04edb56cu, 0x3cfcdac0u, 0x51eddf15u, 0x69fcb0b9u, 0x21cf004du, 0x19de6fe1u,
        0xb1a861a5u, 0x89b90e09u, 0xc18abefdu, 0xf99bd151u, 0x37516aaeu, 0x0f400502u,
        0x4773b5f6u, 0x7f62da5au, 0xd714d41eu, 0xef05bbb2u, 0xa7360b46u, 0x9f2764eau,
        0xf236613fu, 0xca270e93u, 0x8214be67u, 0xba05d1cbu, 0x1273df8fu, 0x2a62b023u,
        0x625100d7u, 0x5a406f7bu, 0xb8730b7du, 0x806264d1u, 0xc851d425u, 0xf040bb89u,
        0x5836b5cdu, 0x6027da61u, 0x28146a95u, 0x10050539u, 0x7d1400ecu, 0x45056f40u,
        0x0d36dfb4u, 0x3527b018u, 0x9d51be5cu, 0xa540d1f0u, 0xed736104u, 0xd5620ea8u,
        0x2cf9dff9u, 0x14e8b055u, 0x5cdb00a1u, 0x64ca6f0du, 0xccbc6149u, 0xf4ad0ee5u,
        0xbc9ebe11u, 0x848fd1bdu, 0xe99ed468u, 0xd18fbbc4u, 0x99bc0b30u, 0xa1ad649cu,
        0x09db6ad8u, 0x31ca0574u, 0x79f9b580u, 0x41e8da2cu, 0xa3dbbe2au, 0x9bcad186u,
        0xd3f96172u, 0xebe80edeu, 0x439e009au, 0x7b8f6f36u, 0x33bcdfc2u, 0x0badb06eu,
        0x66bcb5bbu, 0x5eadda17u, 0x169e6ae3u, 0x2e8f054fu, 0x86f90b0bu, 0xbee864a7u,
        0xf6dbd453u, 0xcecabbffu, 0x6ea2d55cu, 0x56b3baf0u, 0x1e800a04u, 0x269165a8u,
        0x8ee76becu, 0xb6f60440u, 0xfec5b4b4u, 0xc6d4db18u, 0xabc5decdu, 0x93d4b161u,
        0xdbe70195u, 0xe3f66e39u, 0x4b80607du, 0x73910fd1u, 0x3ba2bf25u, 0x03b3d089u,
        0xe180b48fu, 0xd991db23u, 0x91a26bd7u, 0xa9b3047bu, 0x01c50a3fu, 0x39d46593u,
        0x71e7d567u, 0x49f6bacbu, 0x24e7bf1eu, 0x1cf6d0b2u, 0x54c56046u, 0x6cd40feau,
        0xc4a201aeu, 0xfcb36e02u, 0xb480def6u, 0x8c91b15au, 0x750a600bu, 0x4d1b0fa7u,
        0x0528bf53u, 0x3d39d0ffu, 0x954fdebbu, 0xad5eb117u, 0xe56d01e3u, 0xdd7c6e4fu,
        0xb06d6b9au, 0x887c0436u, 0xc04fb4c2u, 0xf85edb6eu, 0x5028d52au, 0x6839ba86u,
        0x200a0a72u, 0x181b65deu, 0xfa2801d8u, 0xc2396e74u, 0x8a0ade80u, 0xb21bb12cu,
        0x1a6dbf68u, 0x227cd0c4u, 0x6a4f6030u, 0x525e0f9cu, 0x3f4f0a49u, 0x075e65e5u,
        0x4f6dd511u, 0x777cbabdu, 0xdf0ab4f9u, 0xe71bdb55u, 0xaf286ba1u, 0x9739040du,
        0x59f3bff2u, 0x61e2d05eu, 0x29d160aau, 0x11c00f06u, 0xb9b60142u, 0x81a76eeeu,
        0xc994de1au, 0xf185b1b6u, 0x9c94b463u, 0xa485dbcfu, 0xecb66b3bu, 0xd4a70497u,
        0x7cd10ad3u, 0x44c0657fu, 0x0cf3d58bu, 0x34e2ba27u, 0xd6d1de21u, 0xeec0b18du,
        0xa6f30179u, 0x9ee26ed5u, 0x36946091u, 0x0e850f3du, 0x46b6bfc9u, 0x7ea7d065u,
        0x13b6d5b0u, 0x2ba7ba1cu, 0x63940ae8u, 0x5b856544u, 0xf3f36b00u, 0xcbe204acu,
        0x83d1b458u, 0xbbc0dbf4u, 0x425b0aa5u, 0x7a4a6509u, 0x3279d5fdu, 0x0a68ba51u,
        0xa21eb415u, 0x9a0fdbb9u, 0xd23c6b4du, 0xea2d04e1u, 0x873c0134u, 0xbf2d6e98u,
        0xf71ede6cu, 0xcf0fb1c0u, 0x6779bf84u, 0x5f68d028u, 0x175b60dcu, 0x2f4a0f70u,
        0xcd796b76u, 0xf56804dau, 0xbd5bb42eu, 0x854adb82u, 0x2d3cd5c6u, 0x152dba6au,
        0x5d1e0a9eu, 0x650f6532u, 0x081e60e7u, 0x300f0f4bu, 0x783cbfbfu, 0x402dd013u,
        0xe85bde57u, 0xd04ab1fbu, 0x9879010fu, 0xa0686ea3u,
    },
    {
        0x00000000u, 0xef306b19u, 0xdb8ca0c3u, 0x34bccbdau, 0xb2f53777u, 0x5dc55c6eu,
        0x697997b4u, 0x8649fcadu, 0x6006181fu, 0x8f367306u, 0xbb8ab8dcu, 0x54bad3c5u,
        0xd2f32f68u, 0x3dc34471u, 0x097f8fabu, 0xe64fe4b2u, 0xc00c303eu, 0x2f3c5b27u,
        0x1b8090fdu, 0xf4b0fbe4u, 0x72f90749u, 0x9dc96c50u, 0xa975a78au, 0x4645cc93u,
        0xa00a2821u, 0x4f3a4338u, 0x7b8688e2u, 0x94b6e3fbu, 0x12ff1f56u, 0xfdcf744fu,
        0xc973bf95u, 0x2643d48cu, 0x85f4168du, 0x6ac47d94u, 0x5e78b64eu, 0xb148dd57u,
        0x370121fau, 0xd8314ae3u, 0xec8d8139u, 0x03bdea20u, 0xe5f20e92u, 0x0ac2658bu,
        0x3e7eae51u, 0xd14ec548u, 0x570739e5u, 0xb83752fcu, 0x8c8b9926u, 0x63bbf23fu,
        0x45f826b3u, 0xaac84daau, 0x9e748670u, 0x7144ed69u, 0xf70d11c4u, 0x183d7addu,
        0x2c81b107u, 0xc3b1da1eu, 0x25fe3eacu, 0xcace55b5u, 0xfe729e6fu, 0x1142f576u,
        0x970b09dbu, 0x783b62c2u, 0x4c87a918u, 0xa3b7c201u, 0x0e045bebu, 0xe13430f2u,
        0xd588fb28u, 0x3ab89031u, 0xbcf16c9cu, 0x53c10785u, 0x677dcc5fu, 0x884da746u,
        0x6e0243f4u, 0x813228edu, 0xb58ee337u, 0x5abe882eu, 0xdcf77483u, 0x33c71f9au,
        0x077bd440u, 0xe84bbf59u, 0xce086bd5u, 0x213800ccu, 0x1584cb16u, 0xfab4a00fu,
        0x7cfd5ca2u, 0x93cd37bbu, 0xa771fc61u, 0x48419778u, 0xae0e73cau, 0x413e18d3u,
        0x7582d309u, 0x9ab2b810u, 0x1cfb44bdu, 0xf3cb2fa4u, 0xc777e47eu, 0x28478f67u,
        0x8bf04d66u, 0x64c0267fu, 0x507ceda5u, 0xbf4c86bcu, 0x39057a11u, 0xd6351108u,
        0xe289dad2u, 0x0db9b1cbu, 0xebf65579u, 0x04c63e60u, 0x307af5bau, 0xdf4a9ea3u,
        0x5903620eu, 0xb6330917u, 0x828fc2cdu, 0x6dbfa9d4u, 0x4bfc7d58u, 0xa4cc1641u,
        0x9070dd9bu, 0x7f40b682u, 0xf9094a2fu, 0x16392136u, 0x2285eaecu, 0xcdb581f5u,
        0x2bfa6547u, 0xc4ca0e5eu, 0xf076c584u, 0x1f46ae9du, 0x990f5230u, 0x763f3929u,
        0x4283f2f3u, 0xadb399eau, 0x1c08b7d6u, 0xf338dccfu, 0xc7841715u, 0x28b47c0cu,
        0xaefd80a1u, 0x41cdebb8u, 0x75712062u, 0x9a414b7bu, 0x7c0eafc9u, 0x933ec4d0u,
        0xa7820f0au, 0x48b26413u, 0xcefb98beu, 0x21cbf3a7u, 0x1577387du, 0xfa475364u,
        0xdc0487e8u, 0x3334ecf1u, 0x0788272bu, 0xe8b84c32u, 0x6ef1b09fu, 0x81c1db86u,
        0xb57d105cu, 0x5a4d7b45u, 0xbc029ff7u, 0x5332f4eeu, 0x678e3f34u, 0x88be542du,
        0x0ef7a880u, 0xe1c7c399u, 0xd57b0843u, 0x3a4b635au, 0x99fca15bu, 0x76ccca42u,
        0x42700198u, 0xad406a81u, 0x2b09962cu, 0xc439fd35u, 0xf08536efu, 0x1fb55df6u,
        0xf9fab944u, 0x16cad25du, 0x22761987u, 0xcd46729eu, 0x4b0f8e33u, 0xa43fe52au,
        0x90832ef0u, 0x7fb345e9u, 0x59f09165u, 0xb6c0fa7cu, 0x827c31a6u, 0x6d4c5abfu,
        0xeb05a612u, 0x0435cd0bu, 0x308906d1u, 0xdfb96dc8u, 0x39f6897au, 0xd6c6e263u,
        0xe27a29b9u, 0x0d4a42a0u, 0x8b03be0du, 0x6433d514u, 0x508f1eceu, 0xbfbf75d7u,
        0x120cec3du, 0xfd3c8724u, 0xc9804cfeu, 0x26b027e7u, 0xa0f9db4au, 0x4fc9b053u,
        0x7b757b89u, 0x94451090u, 0x720af422u, 0x9d3a9f3bu, 0xa98654e1u, 0x46b63ff8u,
        0xc0ffc355u, 0x2fcfa84cu, 0x1b736396u, 0xf443088fu, 0xd200dc03u, 0x3d30b71au,
        0x098c7cc0u, 0xe6bc17d9u, 0x60f5eb74u, 0x8fc5806du, 0xbb794bb7u, 0x544920aeu,
        0xb206c41cu, 0x5d36af05u, 0x698a64dfu, 0x86ba0fc6u, 0x00f3f36bu, 0xefc39872u,
        0xdb7f53a8u, 0x344f38b1u, 0x97f8fab0u, 0x78c891a9u, 0x4c745a73u, 0xa344316au,
        0x250dcdc7u, 0xca3da6deu, 0xfe816d04u, 0x11b1061du, 0xf7fee2afu, 0x18ce89b6u,
        0x2c72426cu, 0xc3422975u, 0x450bd5d8u, 0xaa3bbec1u, 0x9e87751bu, 0x71b71e02u,
        0x57f4ca8eu, 0xb8c4a197u, 0x8c786a4du, 0x63480154u, 0xe501fdf9u, 0x0a3196e0u,
        0x3e8d5d3au, 0xd1bd3623u, 0x37f2d291u, 0xd8c2b988u, 0xec7e7252u, 0x034e194bu,
        0x8507e5e6u, 0x6a378effu, 0x5e8b4525u, 0xb1bb2e3cu,
    },
    {
        0x00000000u, 0x68032cc8u, 0xd0065990u, 0xb8057558u, 0xa5e0c5d1u, 0xcde3e919u,
        0x75e69c41u, 0x1de5b089u, 0x4e2dfd53u, 0x262ed19bu, 0x9e2ba4c3u, 0xf628880bu,
        0xebcd3882u, 0x83ce144au, 0x3bcb6112u, 0x53c84ddau, 0x9c5bfaa6u, 0xf458d66eu,
        0x4c5da336u, 0x245e8ffeu, 0x39bb3f77u, 0x51b813bfu, 0xe9bd66e7u, 0x81be4a2fu,
        0xd27607f5u, 0xba752b3du, 0x02705e65u, 0x6a7372adu, 0x7796c224u, 0x1f95eeecu,
        0xa7909bb4u, 0xcf93b77cu, 0x3d5b83bdu, 0x5558af75u, 0xed5dda2du, 0x855ef6e5u,
        0x98bb466cu, 0xf0b86aa4u, 0x48bd1ffcu, 0x20be3334u, 0x73767eeeu, 0x1b755226u,
        0xa370277eu, 0xcb730bb6u, 0xd696bb3fu, 0xbe9597f7u, 0x0690e2afu, 0x6e93ce67u,
        0xa100791bu, 0xc90355d3u, 0x7106208bu, 0x19050c43u, 0x04e0bccau, 0x6ce39002u,
        0xd4e6e55au, 0xbce5c992u, 0xef2d8448u, 0x872ea880u, 0x3f2bddd8u, 0x5728f110u,
        0x4acd4199u, 0x22ce6d51u, 0x9acb1809u, 0xf2c834c1u, 0x7ab7077au, 0x12b42bb2u,
        0xaab15eeau, 0xc2b27222u, 0xdf57c2abu, 0xb754ee63u, 0x0f519b3bu, 0x6752b7f3u,
        0x349afa29u, 0x5c99d6e1u, 0xe49ca3b9u, 0x8c9f8f71u, 0x917a3ff8u, 0xf9791330u,
        0x417c6668u, 0x297f4aa0u, 0xe6ecfddcu, 0x8eefd114u, 0x36eaa44cu, 0x5ee98884u,
        0x430c380du, 0x2b0f14c5u, 0x930a619du, 0xfb094d55u, 0xa8c1008fu, 0xc0c22c47u,
        0x78c7591fu, 0x10c475d7u, 0x0d21c55eu, 0x6522e996u, 0xdd279cceu, 0xb524b006u,
        0x47ec84c7u, 0x2fefa80fu, 0x97eadd57u, 0xffe9f19fu, 0xe20c4116u, 0x8a0f6ddeu,
        0x320a1886u, 0x5a09344eu, 0x09c17994u, 0x61c2555cu, 0xd9c72004u, 0xb1c40cccu,
        0xac21bc45u, 0xc422908du, 0x7c27e5d5u, 0x1424c91du, 0xdbb77e61u, 0xb3b452a9u,
        0x0bb127f1u, 0x63b20b39u, 0x7e57bbb0u, 0x16549778u, 0xae51e220u, 0xc652cee8u,
        0x959a8332u, 0xfd99affau, 0x459cdaa2u, 0x2d9ff66au, 0x307a46e3u, 0x58796a2bu,
        0xe07c1f73u, 0x887f33bbu, 0xf56e0ef4u, 0x9d6d223cu, 0x25685764u, 0x4d6b7bacu,
        0x508ecb25u, 0x388de7edu, 0x808892b5u, 0xe88bbe7du, 0xbb43f3a7u, 0xd340df6fu,
        0x6b45aa37u, 0x034686ffu, 0x1ea33676u, 0x76a01abeu, 0xcea56fe6u, 0xa6a6432eu,
        0x6935f452u, 0x0136d89au, 0xb933adc2u, 0xd130810au, 0xccd53183u, 0xa4d61d4bu,
        0x1cd36813u, 0x74d044dbu, 0x27180901u, 0x4f1b25c9u, 0xf71e5091u, 0x9f1d7c59u,
        0x82f8ccd0u, 0xeafbe018u, 0x52fe9540u, 0x3afdb988u, 0xc8358d49u, 0xa036a181u,
        0x1833d4d9u, 0x7030f811u, 0x6dd54898u, 0x05d66450u, 0xbdd31108u, 0xd5d03dc0u,
        0x8618701au, 0xee1b5cd2u, 0x561e298au, 0x3e1d0542u, 0x23f8b5cbu, 0x4bfb9903u,
        0xf3feec5bu, 0x9bfdc093u, 0x546e77efu, 0x3c6d5b27u, 0x84682e7fu, 0xec6b02b7u,
        0xf18eb23eu, 0x998d9ef6u, 0x2188ebaeu, 0x498bc766u, 0x1a438abcu, 0x7240a674u,
        0xca45d32cu, 0xa246ffe4u, 0xbfa34f6du, 0xd7a063a5u, 0x6fa516fdu, 0x07a63a35u,
        0x8fd9098eu, 0xe7da2546u, 0x5fdf501eu, 0x37dc7cd6u, 0x2a39cc5fu, 0x423ae097u,
        0xfa3f95cfu, 0x923cb907u, 0xc1f4f4ddu, 0xa9f7d815u, 0x11f2ad4du, 0x79f18185u,
        0x6414310cu, 0x0c171dc4u, 0xb412689cu, 0xdc114454u, 0x1382f328u, 0x7b81dfe0u,
        0xc384aab8u, 0xab878670u, 0xb66236f9u, 0xde611a31u, 0x66646f69u, 0x0e6743a1u,
        0x5daf0e7bu, 0x35ac22b3u, 0x8da957ebu, 0xe5aa7b23u, 0xf84fcbaau, 0x904ce762u,
        0x2849923au, 0x404abef2u, 0xb2828a33u, 0xda81a6fbu, 0x6284d3a3u, 0x0a87ff6bu,
        0x17624fe2u, 0x7f61632au, 0xc7641672u, 0xaf673abau, 0xfcaf7760u, 0x94ac5ba8u,
        0x2ca92ef0u, 0x44aa0238u, 0x594fb2b1u, 0x314c9e79u, 0x8949eb21u, 0xe14ac7e9u,
        0x2ed97095u, 0x46da5c5du, 0xfedf2905u, 0x96dc05cdu, 0x8b39b544u, 0xe33a998cu,
        0x5b3fecd4u, 0x333cc01cu, 0x60f48dc6u, 0x08f7a10eu, 0xb0f2d456u, 0xd8f1f89eu,
        0xc5144817u, 0xad1764dfu, 0x15121187u, 0x7d113d4fu,
    },
    {
        0x00000000u, 0x493c7d27u, 0x9278fa4eu, 0xdb448769u, 0x211d826du, 0x6821ff4au,
        0xb3657823u, 0xfa590504u, 0x423b04dau, 0x0b0779fdu, 0xd043fe94u, 0x997f83b3u,
        0x632686b7u, 0x2a1afb90u, 0xf15e7cf9u, 0xb86201deu, 0x847609b4u, 0xcd4a7493u,
        0x160ef3fau, 0x5f328eddu, 0xa56b8bd9u, 0xec57f6feu, 0x37137197u, 0x7e2f0cb0u,
        0xc64d0d6eu, 0x8f717049u, 0x5435f720u, 0x1d098a07u, 0xe7508f03u, 0xae6cf224u,
        0x7528754du, 0x3c14086au, 0x0d006599u, 0x443c18beu, 0x9f789fd7u, 0xd644e2f0u,
        0x2c1de7f4u, 0x65219ad3u, 0xbe651dbau, 0xf759609du, 0x4f3b6143u, 0x06071c64u,
        0xdd439b0du, 0x947fe62au, 0x6e26e32eu, 0x271a9e09u, 0xfc5e1960u, 0xb5626447u,
        0x89766c2du, 0xc04a110au, 0x1b0e9663u, 0x5232eb44u, 0xa86bee40u, 0xe1579367u,
        0x3a13140eu, 0x732f6929u, 0xcb4d68f7u, 0x827115d0u, 0x593592b9u, 0x1009ef9eu,
        0xea50ea9au, 0xa36c97bdu, 0x782810d4u, 0x31146df3u, 0x1a00cb32u, 0x533cb615u,
        0x8878317cu, 0xc1444c5bu, 0x3b1d495fu, 0x72213478u, 0xa965b311u, 0xe059ce36u,
        0x583bcfe8u, 0x1107b2cfu, 0xca4335a6u, 0x837f4881u, 0x79264d85u, 0x301a30a2u,
        0xeb5eb7cbu, 0xa262caecu, 0x9e76c286u, 0xd74abfa1u, 0x0c0e38c8u, 0x453245efu,
        0xbf6b40ebu, 0xf6573dccu, 0x2d13baa5u, 0x642fc782u, 0xdc4dc65cu, 0x9571bb7bu,
        0x4e353c12u, 0x07094135u, 0xfd504431u, 0xb46c3916u, 0x6f28be7fu, 0x2614c358u,
        0x1700aeabu, 0x5e3cd38cu, 0x857854e5u, 0xcc4429c2u, 0x361d2cc6u, 0x7f2151e1u,
        0xa465d688u, 0xed59abafu, 0x553baa71u, 0x1c07d756u, 0xc743503fu, 0x8e7f2d18u,
        0x7426281cu, 0x3d1a553bu, 0xe65ed252u, 0xaf62af75u, 0x9376a71fu, 0xda4ada38u,
        0x010e5d51u, 0x48322076u, 0xb26b2572u, 0xfb575855u, 0x2013df3cu, 0x692fa21bu,
        0xd14da3c5u, 0x9871dee2u, 0x4335598bu, 0x0a0924acu, 0xf05021a8u, 0xb96c5c8fu,
        0x6228dbe6u, 0x2b14a6c1u, 0x34019664u, 0x7d3deb43u, 0xa6796c2au, 0xef45110du,
        0x151c1409u, 0x5c20692eu, 0x8764ee47u, 0xce589360u, 0x763a92beu, 0x3f06ef99u,
        0xe44268f0u, 0xad7e15d7u, 0x572710d3u, 0x1e1b6df4u, 0xc55fea9du, 0x8c6397bau,
        0xb0779fd0u, 0xf94be2f7u, 0x220f659eu, 0x6b3318b9u, 0x916a1dbdu, 0xd856609au,
        0x0312e7f3u, 0x4a2e9ad4u, 0xf24c9b0au, 0xbb70e62du, 0x60346144u, 0x29081c63u,
        0xd3511967u, 0x9a6d6440u, 0x4129e329u, 0x08159e0eu, 0x3901f3fdu, 0x703d8edau,
        0xab7909b3u, 0xe2457494u, 0x181c7190u, 0x51200cb7u, 0x8a648bdeu, 0xc358f6f9u,
        0x7b3af727u, 0x32068a00u, 0xe9420d69u, 0xa07e704eu, 0x5a27754au, 0x131b086du,
        0xc85f8f04u, 0x8163f223u, 0xbd77fa49u, 0xf44b876eu, 0x2f0f0007u, 0x66337d20u,
        0x9c6a7824u, 0xd5560503u, 0x0e12826au, 0x472eff4du, 0xff4cfe93u, 0xb67083b4u,
        0x6d3404ddu, 0x240879fau, 0xde517cfeu, 0x976d01d9u, 0x4c2986b0u, 0x0515fb97u,
        0x2e015d56u, 0x673d2071u, 0xbc79a718u, 0xf545da3fu, 0x0f1cdf3bu, 0x4620a21cu,
        0x9d642575u, 0xd4585852u, 0x6c3a598cu, 0x250624abu, 0xfe42a3c2u, 0xb77edee5u,
        0x4d27dbe1u, 0x041ba6c6u, 0xdf5f21afu, 0x96635c88u, 0xaa7754e2u, 0xe34b29c5u,
        0x380faeacu, 0x7133d38bu, 0x8b6ad68fu, 0xc256aba8u, 0x19122cc1u, 0x502e51e6u,
        0xe84c5038u, 0xa1702d1fu, 0x7a34aa76u, 0x3308d751u, 0xc951d255u, 0x806daf72u,
        0x5b29281bu, 0x1215553cu, 0x230138cfu, 0x6a3d45e8u, 0xb179c281u, 0xf845bfa6u,
        0x021cbaa2u, 0x4b20c785u, 0x906440ecu, 0xd9583dcbu, 0x613a3c15u, 0x28064132u,
        0xf342c65bu, 0xba7ebb7cu, 0x4027be78u, 0x091bc35fu, 0xd25f4436u, 0x9b633911u,
        0xa777317bu, 0xee4b4c5cu, 0x350fcb35u, 0x7c33b612u, 0x866ab316u, 0xcf56ce31u,
        0x14124958u, 0x5d2e347fu, 0xe54c35a1u, 0xac704886u, 0x7734cfefu, 0x3e08b2c8u,
        0xc451b7ccu, 0x8d6dcaebu, 0x56294d82u, 0x1f1530a5u,
    },
};

uint32_t tr_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    crc = ~crc;
    while (len >= 8) {
        uint32_t lo = get_le32(p) ^ crc, hi = get_le32(p + 4);
        crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
              crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
              crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--) crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
    return ~crc;
}

int tr_internal_buf_reserve(buf *b, size_t more)
{
    size_t need = b->len + more;
    if (need < b->len) return TR_E_NOMEM;
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) return TR_E_NOMEM;
    b->p = p;
    b->cap = cap;
    return 0;
}

int tr_internal_array_reserve(void *arrp, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n <= *cap) return 0;
    size_t ncap = *cap ? *cap : first;
    while (ncap < n) ncap *= 2;
    if (ncap > SIZE_MAX / elem) return TR_E_NOMEM;
    void *arr;
    memcpy(&arr, arrp, sizeof arr);
    void *grown = realloc(arr, ncap * elem);
    if (!grown) return TR_E_NOMEM;
    memcpy(arrp, &grown, sizeof grown);
    *cap = ncap;
    return 0;
}

void tr_internal_buf_free(buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- hashing: a 64-bit mix (splitmix over 8-byte words) ---- */
static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t tr_internal_hash64(const void *p, size_t n, uint64_t seed)
{
    const uint8_t *s = p;
    uint64_t h = mix(seed ^ n);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = mix(h ^ w) + 0x9e3779b97f4a7c15ull;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    return mix(h ^ w ^ ((uint64_t)n << 56));
}

/* open addressing, linear probing; key 0 is stored as a flag-free value by
 * adding 1 inside (keys are mixed, collisions with the empty marker avoided) */
#define EMPTY UINT64_MAX

static size_t slot_of(const idmap *m, uint64_t key) { return (size_t)(mix(key) & (m->cap - 1)); }

uint32_t tr_internal_idmap_get(const idmap *m, uint64_t key)
{
    if (!m->cap || key == EMPTY) return 0;
    for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) return m->vals[i];
        if (m->keys[i] == EMPTY) return 0;
    }
}

static int idmap_grow(idmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return TR_E_NOMEM;
    }
    memset(keys, 0xff, cap * sizeof *keys);
    idmap old = *m;
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    m->n = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i] != EMPTY) tr_internal_idmap_put(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
    return 0;
}

int tr_internal_idmap_put(idmap *m, uint64_t key, uint32_t val)
{
    if (key == EMPTY) return TR_E_INVAL;
    if ((m->n + 1) * 4 > m->cap * 3 && idmap_grow(m)) return TR_E_NOMEM;
    for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return 0;
        }
        if (m->keys[i] == EMPTY) {
            m->keys[i] = key;
            m->vals[i] = val;
            m->n++;
            return 0;
        }
    }
}

void tr_internal_idmap_free(idmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

int tr_internal_idtab_put(idtab *t, uint32_t id, uint32_t val)
{
    t->count++;
    if (id >= t->ndense && (uint64_t)id < 2 * (uint64_t)t->count + 65536) {
        size_t n = t->ndense ? t->ndense : 1024;
        while (n <= id) n *= 2;
        uint32_t *d = realloc(t->dense, n * sizeof *d);
        if (!d) return TR_E_NOMEM;
        memset(d + t->ndense, 0, (n - t->ndense) * sizeof *d);
        t->dense = d;
        t->ndense = n;
    }
    if (id < t->ndense) {
        t->dense[id] = val;
        return 0;
    }
    return tr_internal_idmap_put(&t->sparse, id, val);
}

void tr_internal_idtab_free(idtab *t)
{
    free(t->dense);
    tr_internal_idmap_free(&t->sparse);
    memset(t, 0, sizeof *t);
}

/* ---- stack images ---- */

/* Images are kept between chunks for their buffers, unless they add up to
 * more than this or there are more than STACK_IMAGES_KEPT of them. */
#define STACK_IMAGE_BYTES_KEPT (32u << 20)
#define STACK_IMAGES_KEPT 1024u

stack_image *tr_internal_stack_image_get(stack_images *t, int32_t pid, int32_t tid)
{
    uint64_t key = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
    uint32_t i = key == EMPTY ? t->anon : tr_internal_idmap_get(&t->index, key);
    if (i) return &t->v[i - 1];
    if (tr_internal_array_reserve(&t->v, &t->capv, t->n + 1, sizeof *t->v, 16)) return NULL;
    if (key == EMPTY)
        t->anon = (uint32_t)t->n + 1;
    else if (tr_internal_idmap_put(&t->index, key, (uint32_t)t->n + 1))
        return NULL;
    stack_image *im = &t->v[t->n++];
    memset(im, 0, sizeof *im);
    return im;
}

int tr_internal_stack_image_reserve(stack_images *t, stack_image *im, size_t n)
{
    if (n <= im->cap) return 0;
    size_t cap = im->cap ? im->cap : 4096;
    while (cap < n) cap *= 2;
    uint8_t *p = malloc(cap);
    if (!p) return TR_E_NOMEM;
    if (im->len) memcpy(p + cap - im->len, im->p + im->cap - im->len, im->len);
    free(im->p);
    t->bytes += cap - im->cap;
    im->p = p;
    im->cap = cap;
    return 0;
}

const uint8_t *tr_internal_stack_image_put(stack_image *im, const uint8_t *fresh, size_t f, size_t kept)
{
    uint8_t *start = im->p + im->cap - (f + kept);
    if (f) memcpy(start, fresh, f);
    if (f + kept > im->len) im->len = f + kept;
    return start;
}

size_t tr_internal_stack_image_suffix(const stack_image *im, const uint8_t *s, size_t n)
{
    size_t max = n < im->len ? n : im->len, k = 0;
    const uint8_t *a = s + n, *b = im->p + im->cap;
    while (k + 8 <= max) {
        uint64_t x, y;
        memcpy(&x, a - k - 8, 8);
        memcpy(&y, b - k - 8, 8);
        if (x != y) break;
        k += 8;
    }
    while (k < max && a[-(ptrdiff_t)k - 1] == b[-(ptrdiff_t)k - 1]) k++;
    return k;
}

void tr_internal_stack_images_reset(stack_images *t)
{
    if (t->bytes > STACK_IMAGE_BYTES_KEPT || t->n > STACK_IMAGES_KEPT) {
        tr_internal_stack_images_free(t);
        return;
    }
    for (size_t i = 0; i < t->n; i++) t->v[i].len = 0;
}

void tr_internal_stack_images_free(stack_images *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->v[i].p);
    free(t->v);
    tr_internal_idmap_free(&t->index);
    memset(t, 0, sizeof *t);
}
/* ==== format/record.c ==== */
/* record.c - record bodies: one encoder and one decoder per type, and the
 * type names.  Layouts are specified in spec/FORMAT.md, "Records". */

/* The type names by type number: constant, so any number of threads read
 * them at once. */
static const char *const type_names[128] = {
    [TR_REC_STRING] = "string",       [TR_REC_FRAME] = "frame",
    [TR_REC_STACK] = "stack",         [TR_REC_EVENT_DEF] = "event",
    [TR_REC_META] = "meta",           [TR_REC_SYSCALL_TABLE] = "syscall_table",
    [TR_REC_BLOB] = "blob",           [TR_REC_COMM] = "comm",
    [TR_REC_FORK] = "fork",           [TR_REC_EXIT] = "exit",
    [TR_REC_MMAP] = "mmap",           [TR_REC_SAMPLE] = "sample",
    [TR_REC_COUNTER] = "counter",     [TR_REC_SYSCALL] = "syscall",
    [TR_REC_SIGNAL] = "signal",       [TR_REC_LIBCALL] = "libcall",
    [TR_REC_TRACE_EVENT] = "trace_event", [TR_REC_FUNCTION] = "function",
    [TR_REC_LOST] = "lost",           [TR_REC_SYMBOL] = "symbol",
    [TR_REC_MODULE_STATUS] = "module_status",
    [TR_REC_STREAM_START] = "stream_start", [TR_REC_STREAM_END] = "stream_end",
};

const char *tr_rec_type_name(uint32_t type)
{
    return type < 128 ? type_names[type] : NULL;
}

uint32_t tr_rec_type_from_name(const char *name)
{
    for (uint32_t t = 1; t < 128; t++)
        if (type_names[t] && !strcmp(type_names[t], name)) return t;
    return 0;
}

/* ---- encoding ---- */

#define PUT(x) do { int e_ = buf_varint(b, (x)); if (e_) return e_; } while (0)
#define PUTS(x) do { int e_ = buf_svarint(b, (x)); if (e_) return e_; } while (0)
#define PUTB(p, n) do { int e_ = buf_put(b, (p), (n)); if (e_) return e_; } while (0)
#define PUTLB(p, n) do { PUT(n); PUTB(p, n); } while (0)

static int put_captures(buf *b, uint32_t n, const tr_capture *caps)
{
    if (n > TR_MAX_CAPTURES) return TR_E_INVAL;
    PUT(n);
    for (uint32_t i = 0; i < n; i++) {
        PUT(caps[i].arg);
        PUT(caps[i].kind);
        PUT(caps[i].flags);
        PUT(caps[i].struct_name);
        PUTLB(caps[i].data, caps[i].len);
    }
    return 0;
}

static int put_args(buf *b, uint32_t n, const uint64_t *args)
{
    if (n > 6) return TR_E_INVAL;
    PUT(n);
    for (uint32_t i = 0; i < n; i++) PUT(args[i]);
    return 0;
}

int tr_internal_rec_encode_body(buf *b, const tr_record *rec, size_t kept)
{
    const __typeof__(rec->u) *u = &rec->u;
    switch (rec->type) {
    case TR_REC_STRING:
        PUT(u->string.id);
        PUTB(u->string.str, u->string.len);
        return 0;
    case TR_REC_FRAME: {
        const tr_frame *f = &u->frame.frame;
        PUT(u->frame.id);
        PUT(f->flags);
        PUT(f->addr);
        if (f->flags & TR_FRAME_SYMBOLIZED) {
            PUT(f->func);
            PUT(f->module);
            PUT(f->file);
            PUT(f->offset);
            PUT(f->line);
        }
        return 0;
    }
    case TR_REC_STACK:
        PUT(u->stack.id);
        PUT(u->stack.parent);
        PUT(u->stack.frame);
        return 0;
    case TR_REC_EVENT_DEF:
        PUT(u->event_def.id);
        PUT(u->event_def.kind);
        PUT(u->event_def.config);
        PUT(u->event_def.sample_value);
        PUT(u->event_def.flags);
        PUTB(u->event_def.name, u->event_def.name_len);
        return 0;
    case TR_REC_META:
        PUTLB(u->meta.key, u->meta.key_len);
        PUTB(u->meta.value, u->meta.value_len);
        return 0;
    case TR_REC_SYSCALL_TABLE:
        PUTLB(u->syscall_table.arch, u->syscall_table.arch_len);
        PUT(u->syscall_table.count);
        PUTB(u->syscall_table.entries, u->syscall_table.entries_len);
        return 0;
    case TR_REC_BLOB:
        PUTLB(u->blob.name, u->blob.name_len);
        PUTB(u->blob.data, u->blob.len);
        return 0;
    case TR_REC_COMM:
        PUT(u->comm.exec);
        PUTB(u->comm.comm, u->comm.len);
        return 0;
    case TR_REC_FORK:
        PUTS(u->fork.ppid);
        PUTS(u->fork.ptid);
        return 0;
    case TR_REC_EXIT:
        PUTS(u->exit.status);
        PUT(u->exit.flags);
        return 0;
    case TR_REC_MMAP:
        if (u->mmap.build_id_len > 64) return TR_E_INVAL;
        PUT(u->mmap.start);
        PUT(u->mmap.len);
        PUT(u->mmap.pgoff);
        PUT(u->mmap.prot);
        PUT(u->mmap.flags);
        PUTLB(u->mmap.build_id, u->mmap.build_id_len);
        PUTB(u->mmap.path, u->mmap.path_len);
        return 0;
    case TR_REC_SAMPLE: {
        if (kept > u->sample.stack_copy_len) return TR_E_INVAL;
        size_t written = u->sample.stack_copy_len - kept;
        uint32_t f = (u->sample.abi ? 1u : 0) | (written ? 2u : 0) | (u->sample.raw_len ? 4u : 0) |
                     (kept ? 8u : 0);
        PUT(u->sample.event);
        PUT(u->sample.period);
        PUT(u->sample.stack);
        PUT(f);
        if (f & 1) {
            int n = __builtin_popcountll(u->sample.regs_mask);
            if ((uint32_t)n != u->sample.nregs) return TR_E_INVAL;
            PUT(u->sample.abi);
            PUT(u->sample.regs_mask);
            for (int i = 0; i < n; i++) PUT(u->sample.regs[i]);
        }
        if (f & 2) PUTLB(u->sample.stack_copy, written);
        if (f & 4) {
            PUT(u->sample.raw_flags);
            PUTLB(u->sample.raw, u->sample.raw_len);
        }
        if (f & 8) PUT(kept);
        return 0;
    }
    case TR_REC_COUNTER:
        PUT(u->counter.event);
        PUT(u->counter.value);
        PUT(u->counter.enabled);
        PUT(u->counter.running);
        PUT(u->counter.run);
        PUT(u->counter.flags);
        return 0;
    case TR_REC_SYSCALL: {
        int e;
        PUT(u->syscall.nr);
        PUT(u->syscall.flags);
        PUTS(u->syscall.ret);
        PUT(u->syscall.duration);
        if ((e = put_args(b, u->syscall.nargs, u->syscall.args))) return e;
        PUT(u->syscall.stack);
        return put_captures(b, u->syscall.ncaptures, u->syscall.captures);
    }
    case TR_REC_SIGNAL:
        PUT(u->signal.signo);
        PUTS(u->signal.code);
        PUT(u->signal.flags);
        PUTLB(u->signal.siginfo, u->signal.siginfo_len);
        return 0;
    case TR_REC_LIBCALL: {
        int e;
        PUT(u->libcall.func);
        PUT(u->libcall.flags);
        PUTS(u->libcall.ret);
        PUT(u->libcall.duration);
        if ((e = put_args(b, u->libcall.nargs, u->libcall.args))) return e;
        PUT(u->libcall.stack);
        return put_captures(b, u->libcall.ncaptures, u->libcall.captures);
    }
    case TR_REC_TRACE_EVENT:
        PUT(u->trace_event.event);
        PUT(u->trace_event.flags);
        PUTB(u->trace_event.data, u->trace_event.len);
        return 0;
    case TR_REC_FUNCTION:
        PUT(u->function.ip);
        PUT(u->function.parent_ip);
        PUT(u->function.kind);
        PUT(u->function.depth);
        PUT(u->function.duration);
        return 0;
    case TR_REC_LOST:
        PUT(u->lost.event);
        PUT(u->lost.kind);
        PUT(u->lost.count);
        return 0;
    case TR_REC_SYMBOL:
        PUT(u->symbol.module);
        PUT(u->symbol.start);
        PUT(u->symbol.size);
        PUT(u->symbol.name);
        PUT(u->symbol.flags);
        return 0;
    case TR_REC_MODULE_STATUS:
        if (u->module_status.build_id_len > 64) return TR_E_INVAL;
        PUT(u->module_status.module);
        PUT(u->module_status.status);
        PUT(u->module_status.detail);
        PUTLB(u->module_status.build_id, u->module_status.build_id_len);
        return 0;
    default:
        return TR_E_INVAL;
    }
}

/* ---- decoding ---- */

#define LBYTES(ptr, lenv) do { (lenv) = cur_varint(c); (ptr) = (const void *)cur_bytes(c, (lenv)); } while (0)
#define REST(ptr, lenv) do { (lenv) = cur_left(c); (ptr) = (const void *)c->p; c->p = c->end; } while (0)

static void get_captures(cur *c, uint32_t *n, tr_capture *caps)
{
    uint64_t k = cur_varint(c);
    if (k > TR_MAX_CAPTURES) {
        c->bad = 1;
        k = 0;
    }
    *n = (uint32_t)k;
    for (uint32_t i = 0; i < *n && !c->bad; i++) {
        caps[i].arg = cur_u32(c);
        caps[i].kind = cur_u32(c);
        caps[i].flags = cur_u32(c);
        caps[i].struct_name = cur_u32(c);
        LBYTES(caps[i].data, caps[i].len);
    }
}

static void get_args(cur *c, uint32_t *n, uint64_t *args)
{
    uint64_t k = cur_varint(c);
    if (k > 6) {
        c->bad = 1;
        k = 0;
    }
    *n = (uint32_t)k;
    for (uint32_t i = 0; i < *n; i++) args[i] = cur_varint(c);
    for (uint32_t i = *n; i < 6; i++) args[i] = 0;
}

int tr_internal_rec_decode_body(cur *c, tr_record *rec, size_t *kept)
{
    __typeof__(rec->u) *u = &rec->u;
    *kept = 0;
    switch (rec->type) {
    case TR_REC_STRING:
        u->string.id = cur_u32(c);
        REST(u->string.str, u->string.len);
        break;
    case TR_REC_FRAME: {
        tr_frame *f = &u->frame.frame;
        memset(f, 0, sizeof *f);
        u->frame.id = cur_u32(c);
        f->flags = cur_u32(c);
        f->addr = cur_varint(c);
        if (f->flags & TR_FRAME_SYMBOLIZED) {
            f->func = cur_u32(c);
            f->module = cur_u32(c);
            f->file = cur_u32(c);
            f->offset = cur_varint(c);
            f->line = cur_u32(c);
        }
        break;
    }
    case TR_REC_STACK:
        u->stack.id = cur_u32(c);
        u->stack.parent = cur_u32(c);
        u->stack.frame = cur_u32(c);
        break;
    case TR_REC_EVENT_DEF:
        u->event_def.id = cur_u32(c);
        u->event_def.kind = cur_u32(c);
        u->event_def.config = cur_varint(c);
        u->event_def.sample_value = cur_varint(c);
        u->event_def.flags = cur_u32(c);
        REST(u->event_def.name, u->event_def.name_len);
        break;
    case TR_REC_META:
        LBYTES(u->meta.key, u->meta.key_len);
        REST(u->meta.value, u->meta.value_len);
        break;
    case TR_REC_SYSCALL_TABLE:
        LBYTES(u->syscall_table.arch, u->syscall_table.arch_len);
        u->syscall_table.count = cur_u32(c);
        REST(u->syscall_table.entries, u->syscall_table.entries_len);
        break;
    case TR_REC_BLOB:
        LBYTES(u->blob.name, u->blob.name_len);
        REST(u->blob.data, u->blob.len);
        break;
    case TR_REC_COMM:
        u->comm.exec = cur_u32(c);
        REST(u->comm.comm, u->comm.len);
        break;
    case TR_REC_FORK:
        u->fork.ppid = cur_s32(c);
        u->fork.ptid = cur_s32(c);
        break;
    case TR_REC_EXIT:
        u->exit.status = cur_s32(c);
        u->exit.flags = cur_u32(c);
        break;
    case TR_REC_MMAP:
        u->mmap.start = cur_varint(c);
        u->mmap.len = cur_varint(c);
        u->mmap.pgoff = cur_varint(c);
        u->mmap.prot = cur_u32(c);
        u->mmap.flags = cur_u32(c);
        LBYTES(u->mmap.build_id, u->mmap.build_id_len);
        if (u->mmap.build_id_len > 64) c->bad = 1;
        REST(u->mmap.path, u->mmap.path_len);
        break;
    case TR_REC_SAMPLE: {
        u->sample.event = cur_u32(c);
        u->sample.period = cur_varint(c);
        u->sample.stack = cur_u32(c);
        uint32_t f = cur_u32(c);
        u->sample.abi = 0;
        u->sample.regs_mask = 0;
        u->sample.nregs = 0;
        u->sample.stack_copy = NULL;
        u->sample.stack_copy_len = 0;
        u->sample.raw = NULL;
        u->sample.raw_len = 0;
        u->sample.raw_flags = 0;
        if (f & 1) {
            u->sample.abi = cur_u32(c);
            u->sample.regs_mask = cur_varint(c);
            u->sample.nregs = (uint32_t)__builtin_popcountll(u->sample.regs_mask);
            for (uint32_t i = 0; i < u->sample.nregs; i++) u->sample.regs[i] = cur_varint(c);
        }
        if (f & 2) LBYTES(u->sample.stack_copy, u->sample.stack_copy_len);
        if (f & 4) {
            u->sample.raw_flags = cur_u32(c);
            LBYTES(u->sample.raw, u->sample.raw_len);
        }
        if (f & 8) {
            uint64_t k = cur_varint(c);
            if (k == 0 || k > TR_RAW_MAX) c->bad = 1;
            *kept = (size_t)k;
        }
        break;
    }
    case TR_REC_COUNTER:
        u->counter.event = cur_u32(c);
        u->counter.value = cur_varint(c);
        u->counter.enabled = cur_varint(c);
        u->counter.running = cur_varint(c);
        u->counter.run = cur_u32(c);
        u->counter.flags = cur_u32(c);
        break;
    case TR_REC_SYSCALL:
        u->syscall.nr = cur_u32(c);
        u->syscall.flags = cur_u32(c);
        u->syscall.ret = cur_svarint(c);
        u->syscall.duration = cur_varint(c);
        get_args(c, &u->syscall.nargs, u->syscall.args);
        u->syscall.stack = cur_u32(c);
        get_captures(c, &u->syscall.ncaptures, u->syscall.captures);
        break;
    case TR_REC_SIGNAL:
        u->signal.signo = cur_u32(c);
        u->signal.code = cur_s32(c);
        u->signal.flags = cur_u32(c);
        LBYTES(u->signal.siginfo, u->signal.siginfo_len);
        break;
    case TR_REC_LIBCALL:
        u->libcall.func = cur_u32(c);
        u->libcall.flags = cur_u32(c);
        u->libcall.ret = cur_svarint(c);
        u->libcall.duration = cur_varint(c);
        get_args(c, &u->libcall.nargs, u->libcall.args);
        u->libcall.stack = cur_u32(c);
        get_captures(c, &u->libcall.ncaptures, u->libcall.captures);
        break;
    case TR_REC_TRACE_EVENT:
        u->trace_event.event = cur_u32(c);
        u->trace_event.flags = cur_u32(c);
        REST(u->trace_event.data, u->trace_event.len);
        break;
    case TR_REC_FUNCTION:
        u->function.ip = cur_varint(c);
        u->function.parent_ip = cur_varint(c);
        u->function.kind = cur_u32(c);
        u->function.depth = cur_u32(c);
        u->function.duration = cur_varint(c);
        break;
    case TR_REC_LOST:
        u->lost.event = cur_u32(c);
        u->lost.kind = cur_u32(c);
        u->lost.count = cur_varint(c);
        break;
    case TR_REC_SYMBOL:
        u->symbol.module = cur_u32(c);
        u->symbol.start = cur_varint(c);
        u->symbol.size = cur_varint(c);
        u->symbol.name = cur_u32(c);
        u->symbol.flags = cur_u32(c);
        break;
    case TR_REC_MODULE_STATUS:
        u->module_status.module = cur_u32(c);
        u->module_status.status = cur_u32(c);
        u->module_status.detail = cur_u32(c);
        LBYTES(u->module_status.build_id, u->module_status.build_id_len);
        if (u->module_status.build_id_len > 64) c->bad = 1;
        break;
    default:
        return 0; /* unknown: the caller skips it */
    }
    return c->bad ? TR_E_CORRUPT_RECORD : 0;
}

int tr_syscall_table_iter(const tr_record *rec, size_t *pos, uint32_t *nr, const char **name,
                          size_t *name_len)
{
    if (rec->type != TR_REC_SYSCALL_TABLE) return TR_E_INVAL;
    const uint8_t *e = rec->u.syscall_table.entries;
    size_t len = rec->u.syscall_table.entries_len;
    if (*pos >= len) return 0;
    cur c = {e + *pos, e + len, 0};
    *nr = cur_u32(&c);
    uint64_t n = cur_varint(&c);
    *name = (const char *)cur_bytes(&c, n);
    *name_len = (size_t)n;
    if (c.bad) return TR_E_CORRUPT_RECORD;
    *pos = (size_t)(c.p - e);
    return 1;
}
/* ==== format/reader.c ==== */
/* reader.c - reading streams front to back: frames, chunks, records,
 * definitions, and precise reports of what was lost. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <zstd.h>


/* ---- an arena whose blocks never move: returned pointers stay valid ---- */
typedef struct block {
    struct block *next;
    size_t used, cap;
    _Alignas(16) uint8_t data[];
} block;

static void *arena_alloc(block **head, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    block *b = *head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = *head;
        *head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

static void arena_free(block **head)
{
    while (*head) {
        block *n = (*head)->next;
        free(*head);
        *head = n;
    }
}

typedef struct node {
    uint32_t parent, frame;
    int32_t depth;      /* -1 until materialised */
    uint32_t *frames;   /* leaf first, in the arena */
} node;

typedef struct meta_kv {
    char *key, *value;
} meta_kv;

typedef struct blob_ent {
    char *name;
    uint8_t *data;
    size_t len;
} blob_ent;

typedef struct systab {
    char *arch;
    idmap names; /* nr+1 -> index into sys_names */
} systab;

enum { S_OUTSIDE, S_IN_STREAM, S_DONE };

struct tr_reader {
    tr_read_fn read;  /* where the bytes come from (own_buf) */
    void *read_ctx;
    int fd;           /* tr_reader_open's, for fd_read */
    int read_errno;   /* errno of the read that failed */
    int own_buf;
    uint8_t *in;
    size_t in_len, in_pos, in_cap;
    int eof;
    uint64_t in_off; /* input offset of in[0] */
    tr_reader_options opt;
    ZSTD_DCtx *dctx;

    buf chunk;
    size_t cpos;
    uint64_t time;
    uint64_t chunk_seq;
    uint64_t chunk_off; /* input offset of the loaded chunk's frame */

    int state;
    int any_stream;
    uint32_t stream;     /* index of the current stream, counted from 0 */
    uint64_t stream_off;
    uint64_t expect_seq;
    int pending;         /* error to return before reading on */

    /* tables of the current stream */
    block *arena;
    idtab str_ids;  /* id -> index+1 into strs */
    struct { const char *s; size_t len; } *strs;
    size_t nstrs, capstrs;
    idtab frame_ids; /* id -> index+1 into frames */
    tr_frame **frames;
    size_t nframes, capframes;
    idtab node_ids;
    node *nodes;
    size_t nnodes, capnodes;
    idtab event_ids;
    tr_event_def **events;
    size_t nevents, capevents;
    meta_kv *meta;
    size_t nmeta;
    blob_ent *blobs;
    size_t nblobs;
    systab *systabs;
    size_t nsystabs;
    const char **sys_names;
    size_t nsys_names, capsys_names;

    uint32_t incompat;     /* the current stream's TR_INCOMPAT_* flags */
    stack_images images;   /* STACK_DELTA: each thread's stack image in the chunk */

    tr_reader_stats st;
    tr_reader_diag diag;
};

/* ---- input ---- */

/* Make n bytes available at in+in_pos; returns how many are (less at EOF). */
static size_t need(tr_reader *r, size_t n)
{
    while (r->in_len - r->in_pos < n && !r->eof && r->own_buf) {
        if (r->in_pos) {
            memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
            r->in_len -= r->in_pos;
            r->in_off += r->in_pos;
            r->in_pos = 0;
        }
        size_t want = n > (1u << 20) ? n : (1u << 20);
        if (r->in_cap < want) {
            uint8_t *p = realloc(r->in, want);
            if (!p) break;
            r->in = p;
            r->in_cap = want;
        }
        size_t room = r->in_cap - r->in_len;
        ssize_t k = r->read(r->read_ctx, r->in + r->in_len, room);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 || (size_t)k > room) {
            r->read_errno = k < 0 ? errno : EIO;
            r->eof = -1;
            break;
        }
        if (k == 0) {
            r->eof = 1;
            break;
        }
        r->in_len += (size_t)k;
        r->st.input_bytes += (uint64_t)k;
    }
    size_t have = r->in_len - r->in_pos;
    return have < n ? have : n;
}

static uint64_t offset(const tr_reader *r) { return r->in_off + r->in_pos; }

static void consume(tr_reader *r, size_t n) { r->in_pos += n; }

/* Skip n bytes without keeping them (a foreign skippable frame). */
static size_t skip_bytes(tr_reader *r, uint64_t n)
{
    uint64_t done = 0;
    while (done < n) {
        size_t step = n - done > (1u << 20) ? (1u << 20) : (size_t)(n - done);
        size_t k = need(r, step);
        consume(r, k);
        done += k;
        if (k < step) break;
    }
    return (size_t)done;
}

static int set_diag(tr_reader *r, int err, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int set_diag(tr_reader *r, int err, uint64_t off, const char *fmt, ...)
{
    r->diag.offset = off;
    r->diag.stream = r->stream;
    r->diag.chunk = r->chunk_seq;
    r->diag.lost_chunks = 0;
    r->diag.lost_bytes = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->diag.detail, sizeof r->diag.detail, fmt, ap);
    va_end(ap);
    return err;
}

/* Scan forward for the next tr frame magic; returns bytes skipped. */
static uint64_t resync(tr_reader *r, size_t from)
{
    uint64_t skipped = 0;
    consume(r, from);
    skipped += from;
    for (;;) {
        size_t have = need(r, 4);
        if (have < 4) {
            consume(r, have);
            return skipped + have;
        }
        const uint8_t *p = r->in + r->in_pos, *end = r->in + r->in_len;
        const uint8_t *m = memmem(p, (size_t)(end - p), "\x5e\x2a\x4d\x18", 4);
        if (m) {
            consume(r, (size_t)(m - p));
            return skipped + (uint64_t)(m - p);
        }
        size_t keep = 3, drop = (size_t)(end - p) - keep;
        consume(r, drop);
        skipped += drop;
        if (r->eof) {
            skipped += need(r, 3);
            consume(r, need(r, 3));
            return skipped;
        }
        need(r, 4 + keep);
    }
}

/* ---- tables ---- */

static void tables_clear(tr_reader *r)
{
    arena_free(&r->arena);
    tr_internal_idtab_free(&r->str_ids);
    tr_internal_idtab_free(&r->frame_ids);
    tr_internal_idtab_free(&r->node_ids);
    tr_internal_idtab_free(&r->event_ids);
    r->nstrs = r->nframes = r->nnodes = r->nevents = 0;
    for (size_t i = 0; i < r->nmeta; i++) {
        free(r->meta[i].key);
        free(r->meta[i].value);
    }
    free(r->meta);
    r->meta = NULL;
    r->nmeta = 0;
    for (size_t i = 0; i < r->nblobs; i++) {
        free(r->blobs[i].name);
        free(r->blobs[i].data);
    }
    free(r->blobs);
    r->blobs = NULL;
    r->nblobs = 0;
    for (size_t i = 0; i < r->nsystabs; i++) {
        free(r->systabs[i].arch);
        tr_internal_idmap_free(&r->systabs[i].names);
    }
    free(r->systabs);
    r->systabs = NULL;
    r->nsystabs = 0;
    r->nsys_names = 0;
}

/* room for one more element in arr */
#define PUSH(arr, n, cap) \
    ((n) < (cap) ? 0 : tr_internal_array_reserve(&(arr), &(cap), (n) + 1, sizeof *(arr), 64))

static char *arena_str(tr_reader *r, const void *s, size_t len)
{
    char *p = arena_alloc(&r->arena, len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = 0;
    return p;
}

static char *dup_n(const void *s, size_t len)
{
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = 0;
    }
    return p;
}

static int absorb(tr_reader *r, const tr_record *rec)
{
    const __typeof__(rec->u) *u = &rec->u;
    switch (rec->type) {
    case TR_REC_STRING: {
        if (!u->string.id || idtab_get(&r->str_ids, u->string.id)) return 0; /* first definition wins */
        if (PUSH(r->strs, r->nstrs, r->capstrs)) return TR_E_NOMEM;
        char *s = arena_str(r, u->string.str, u->string.len);
        if (!s) return TR_E_NOMEM;
        r->strs[r->nstrs].s = s;
        r->strs[r->nstrs].len = u->string.len;
        r->nstrs++;
        return tr_internal_idtab_put(&r->str_ids, u->string.id, (uint32_t)r->nstrs);
    }
    case TR_REC_FRAME: {
        if (!u->frame.id || idtab_get(&r->frame_ids, u->frame.id)) return 0;
        if (PUSH(r->frames, r->nframes, r->capframes)) return TR_E_NOMEM;
        tr_frame *f = arena_alloc(&r->arena, sizeof *f);
        if (!f) return TR_E_NOMEM;
        *f = u->frame.frame;
        r->frames[r->nframes++] = f;
        return tr_internal_idtab_put(&r->frame_ids, u->frame.id, (uint32_t)r->nframes);
    }
    case TR_REC_STACK: {
        /* parents come first: parent < id rules out cycles */
        if (!u->stack.id || u->stack.parent >= u->stack.id || idtab_get(&r->node_ids, u->stack.id)) return 0;
        if (PUSH(r->nodes, r->nnodes, r->capnodes)) return TR_E_NOMEM;
        r->nodes[r->nnodes++] = (node){u->stack.parent, u->stack.frame, -1, NULL};
        return tr_internal_idtab_put(&r->node_ids, u->stack.id, (uint32_t)r->nnodes);
    }
    case TR_REC_EVENT_DEF: {
        if (!u->event_def.id || idtab_get(&r->event_ids, u->event_def.id)) return 0;
        if (PUSH(r->events, r->nevents, r->capevents)) return TR_E_NOMEM;
        tr_event_def *d = arena_alloc(&r->arena, sizeof *d);
        if (!d) return TR_E_NOMEM;
        *d = u->event_def;
        if (!(d->name = arena_str(r, u->event_def.name, u->event_def.name_len))) return TR_E_NOMEM;
        r->events[r->nevents++] = d;
        return tr_internal_idtab_put(&r->event_ids, d->id, (uint32_t)r->nevents);
    }
    case TR_REC_META: {
        char *k = dup_n(u->meta.key, u->meta.key_len), *v = dup_n(u->meta.value, u->meta.value_len);
        if (!k || !v) {
            free(k);
            free(v);
            return TR_E_NOMEM;
        }
        for (size_t i = 0; i < r->nmeta; i++)
            if (!strcmp(r->meta[i].key, k)) {
                free(k);
                free(r->meta[i].value);
                r->meta[i].value = v;
                return 0;
            }
        meta_kv *m = realloc(r->meta, (r->nmeta + 1) * sizeof *m);
        if (!m) {
            free(k);
            free(v);
            return TR_E_NOMEM;
        }
        r->meta = m;
        r->meta[r->nmeta++] = (meta_kv){k, v};
        return 0;
    }
    case TR_REC_BLOB: {
        char *n = dup_n(u->blob.name, u->blob.name_len);
        uint8_t *d = malloc(u->blob.len ? u->blob.len : 1);
        if (!n || !d) {
            free(n);
            free(d);
            return TR_E_NOMEM;
        }
        memcpy(d, u->blob.data, u->blob.len);
        for (size_t i = 0; i < r->nblobs; i++)
            if (!strcmp(r->blobs[i].name, n)) { /* the latest copy replaces */
                free(n);
                free(r->blobs[i].data);
                r->blobs[i].data = d;
                r->blobs[i].len = u->blob.len;
                return 0;
            }
        blob_ent *b = realloc(r->blobs, (r->nblobs + 1) * sizeof *b);
        if (!b) {
            free(n);
            free(d);
            return TR_E_NOMEM;
        }
        r->blobs = b;
        r->blobs[r->nblobs++] = (blob_ent){n, d, u->blob.len};
        return 0;
    }
    case TR_REC_SYSCALL_TABLE: {
        systab *t = NULL;
        for (size_t i = 0; i < r->nsystabs; i++)
            if (strlen(r->systabs[i].arch) == u->syscall_table.arch_len &&
                !memcmp(r->systabs[i].arch, u->syscall_table.arch, u->syscall_table.arch_len))
                t = &r->systabs[i];
        if (t) return 0; /* repeated at a key chunk */
        systab *n = realloc(r->systabs, (r->nsystabs + 1) * sizeof *n);
        if (!n) return TR_E_NOMEM;
        r->systabs = n;
        t = &r->systabs[r->nsystabs++];
        memset(t, 0, sizeof *t);
        if (!(t->arch = dup_n(u->syscall_table.arch, u->syscall_table.arch_len))) return TR_E_NOMEM;
        size_t pos = 0;
        uint32_t nr;
        const char *name;
        size_t len;
        int e;
        while ((e = tr_syscall_table_iter(rec, &pos, &nr, &name, &len)) == 1) {
            if (PUSH(r->sys_names, r->nsys_names, r->capsys_names)) return TR_E_NOMEM;
            if (!(r->sys_names[r->nsys_names] = arena_str(r, name, len))) return TR_E_NOMEM;
            r->nsys_names++;
            if (nr == UINT32_MAX || tr_internal_idmap_put(&t->names, (uint64_t)nr + 1, (uint32_t)r->nsys_names))
                return TR_E_NOMEM;
        }
        return e < 0 ? e : 0;
    }
    default:
        return 0;
    }
}

/* ---- frames ---- */

/* What next_frame did, besides an error (< 0) or the end of input (0). */
enum { NF_RECORD = 1, NF_CHUNK = 2, NF_SKIPPED = 3 };

static int start_stream(tr_reader *r, tr_record *rec, uint32_t major, uint32_t minor, uint32_t flags,
                        uint32_t incompat, uint64_t off)
{
    tables_clear(r);
    r->incompat = incompat;
    if (r->any_stream) r->stream++;
    r->any_stream = 1;
    r->state = S_IN_STREAM;
    r->expect_seq = 0;
    r->stream_off = off;
    r->chunk.len = r->cpos = 0;
    r->st.streams++;
    memset(rec, 0, sizeof *rec);
    rec->type = TR_REC_STREAM_START;
    rec->stream = r->stream;
    rec->pid = rec->tid = rec->cpu = -1;
    rec->u.stream_start.major = major;
    rec->u.stream_start.minor = minor;
    rec->u.stream_start.flags = flags;
    rec->u.stream_start.incompat = incompat;
    rec->u.stream_start.offset = off;
    return NF_RECORD;
}

static void end_record(tr_reader *r, tr_record *rec, int complete)
{
    memset(rec, 0, sizeof *rec);
    rec->type = TR_REC_STREAM_END;
    rec->stream = r->stream;
    rec->pid = rec->tid = rec->cpu = -1;
    rec->u.stream_end.complete = (uint32_t)complete;
    r->state = S_OUTSIDE;
}

/* The fields of the tr frame whose content c (size >= 8 bytes, checksum
 * verified) follows its header, into *f: 1, or TR_E_CORRUPT_FRAME when it
 * is too short for its kind. */
static int frame_fields(const uint8_t *c, uint32_t size, tr_stream_frame *f)
{
    memset(f, 0, sizeof *f);
    f->size = 8 + (size_t)size;
    switch (get_le32(c)) {
    case TR_KIND_START:
        if (size < TR_START_SIZE) return TR_E_CORRUPT_FRAME;
        f->kind = TR_SFRAME_START;
        f->major = get_le16(c + 4);
        f->minor = get_le16(c + 6);
        f->compat = get_le32(c + 8);
        f->incompat = get_le32(c + 12);
        return 1;
    case TR_KIND_CHUNK:
        if (size < TR_CHUNK_SIZE) return TR_E_CORRUPT_FRAME;
        f->kind = TR_SFRAME_CHUNK;
        f->seq = get_le64(c + 4);
        f->flags = get_le32(c + 12);
        f->csize = get_le32(c + 16);
        f->rsize = get_le32(c + 20);
        f->count = get_le32(c + 24);
        f->base_time = get_le64(c + 28);
        f->size += f->csize;
        return 1;
    case TR_KIND_END:
        if (size < TR_END_SIZE) return TR_E_CORRUPT_FRAME;
        f->kind = TR_SFRAME_END;
        f->chunks = get_le64(c + 4);
        f->records = get_le64(c + 12);
        f->raw_bytes = get_le64(c + 20);
        f->bytes = get_le64(c + 28);
        f->lost = get_le64(c + 36);
        return 1;
    default:
        f->kind = TR_SFRAME_OTHER;
        return 1;
    }
}

int tr_stream_frame_parse(const void *buf, size_t len, tr_stream_frame *f)
{
    const uint8_t *p = buf;
    if (!f || (!buf && len)) return TR_E_INVAL;
    memset(f, 0, sizeof *f);
    if (!len) return 0;
    if (len < 8) {
        /* the first bytes of a skippable frame's magic (50..5f 2a 4d 18), or no frame */
        static const uint8_t magic_tail[3] = {0x2a, 0x4d, 0x18};
        if ((p[0] & 0xf0) != 0x50 || memcmp(p + 1, magic_tail, (len < 4 ? len : 4) - 1))
            return TR_E_CORRUPT_FRAME;
        return TR_E_TRUNCATED;
    }
    uint32_t magic = get_le32(p), size = get_le32(p + 4);
    if ((magic & 0xFFFFFFF0u) != 0x184D2A50u) return TR_E_CORRUPT_FRAME;
    if (magic != TR_SKIP_MAGIC) { /* another skippable frame: its size is all there is */
        f->kind = TR_SFRAME_FOREIGN;
        f->size = 8 + (size_t)size;
        return len - 8 < size ? TR_E_TRUNCATED : 1;
    }
    if (size < 8 || size > TR_FRAME_MAX) return TR_E_CORRUPT_FRAME;
    if (len - 8 < size) {
        f->size = 8 + (size_t)size;
        return TR_E_TRUNCATED;
    }
    const uint8_t *c = p + 8;
    if (get_le32(c + size - 4) != tr_crc32c(0, c, size - 4)) return TR_E_CORRUPT_FRAME;
    int e = frame_fields(c, size, f);
    if (e < 0) return e;
    if (len < f->size) return TR_E_TRUNCATED; /* a chunk's zstd frame is cut */
    return 1;
}

int tr_is_trace(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    /* spec/FORMAT.md 6: a trace begins with the tr frame magic */
    return p && len >= TR_SNIFF_BYTES && get_le32(p) == TR_SKIP_MAGIC;
}

/* Read the next frame: a stream record in *rec (NF_RECORD), a chunk loaded
 * (NF_CHUNK), a frame skipped (NF_SKIPPED), 0 at the end of input, or an error. */
static int next_frame(tr_reader *r, tr_record *rec)
{
    uint64_t off = offset(r);
    size_t have = need(r, 8);
    if (r->eof < 0 && have < 8) {
        int e = set_diag(r, TR_E_IO, off, "read error: %s", strerror(r->read_errno));
        if (r->state != S_IN_STREAM) return e;
        end_record(r, rec, 0); /* the open stream ends first, incomplete */
        r->pending = e;
        r->state = S_DONE;
        return NF_RECORD;
    }
    if (have == 0) {
        r->state = r->state == S_IN_STREAM ? S_IN_STREAM : S_DONE;
        if (r->state == S_IN_STREAM) {
            end_record(r, rec, 0);
            r->pending = set_diag(r, TR_E_TRUNCATED, off, "input ends after %llu complete chunks, without the end frame",
                                  (unsigned long long)r->expect_seq);
            r->state = S_DONE;
            return NF_RECORD;
        }
        if (!r->any_stream) return set_diag(r, TR_E_EMPTY, 0, "no data");
        return 0;
    }
    const uint8_t *p = r->in + r->in_pos;
    uint32_t magic = have >= 4 ? get_le32(p) : 0;
    if (have >= 8 && (magic & 0xFFFFFFF0u) == 0x184D2A50u && magic != TR_SKIP_MAGIC) {
        uint64_t size = get_le32(p + 4); /* a foreign skippable frame: ignore */
        consume(r, 8);
        if (skip_bytes(r, size) < size) goto truncated;
        return NF_SKIPPED;
    }
    if (magic != TR_SKIP_MAGIC || have < 8) {
        if (!r->any_stream && off == 0)
            return set_diag(r, TR_E_NOT_TRACE, 0, "it begins with %02x %02x %02x %02x, not a tr frame's 5e 2a 4d 18",
                            p[0], have > 1 ? p[1] : 0, have > 2 ? p[2] : 0, have > 3 ? p[3] : 0);
        if (have < 8 && r->eof && magic == TR_SKIP_MAGIC) goto truncated;
        uint64_t n = resync(r, 1);
        r->st.skipped_bytes += n;
        int e = set_diag(r, TR_E_GARBAGE, off, "%llu bytes that are no tr frame", (unsigned long long)n);
        r->diag.lost_bytes = n;
        return e;
    }
    uint32_t size = get_le32(p + 4);
    if (size < 8 || size > TR_FRAME_MAX) {
        uint64_t n = resync(r, 1);
        r->st.skipped_bytes += n;
        int e = set_diag(r, TR_E_CORRUPT_FRAME, off, "frame size %u out of range; skipped %llu bytes", size,
                         (unsigned long long)n);
        r->diag.lost_bytes = n;
        return e;
    }
    if (need(r, 8 + (size_t)size) < 8 + (size_t)size) goto truncated;
    p = r->in + r->in_pos;
    const uint8_t *c = p + 8;
    if (get_le32(c + size - 4) != tr_crc32c(0, c, size - 4)) {
        /* even a damaged stream header: its chunks are found by their magic */
        uint64_t n = resync(r, 1);
        r->st.skipped_bytes += n;
        int e = set_diag(r, TR_E_CORRUPT_FRAME, off, "frame checksum mismatch; skipped %llu bytes",
                         (unsigned long long)n);
        r->diag.lost_bytes = n;
        return e;
    }
    tr_stream_frame sf;
    if (frame_fields(c, size, &sf) < 0) goto bad_frame;
    if (sf.kind == TR_SFRAME_START) {
        uint32_t major = sf.major, minor = sf.minor, compat = sf.compat, incompat = sf.incompat;
        if (major > TR_VERSION_MAJOR || major == 0)
            return set_diag(r, TR_E_VERSION, off, "stream version %u.%u; this reader knows %d.x", major, minor,
                            TR_VERSION_MAJOR);
        if (incompat & ~TR_INCOMPAT_STACK_DELTA)
            return set_diag(r, TR_E_INCOMPAT, off, "incompatible feature flags 0x%x", incompat);
        if (r->state == S_IN_STREAM) {
            /* deliver the end of the cut stream first, then come back here */
            end_record(r, rec, 0);
            r->pending = set_diag(r, TR_E_STREAM_CUT, off, "stream %u has no end frame; stream %u follows",
                                  r->stream, r->stream + 1);
            return NF_RECORD;
        }
        consume(r, 8 + size);
        return start_stream(r, rec, major, minor, compat, incompat, off);
    }
    if (sf.kind == TR_SFRAME_END) {
        consume(r, 8 + size);
        if (r->state != S_IN_STREAM) {
            return set_diag(r, TR_E_GARBAGE, off, "end frame outside a stream");
        }
        end_record(r, rec, 1);
        rec->u.stream_end.chunks = sf.chunks;
        rec->u.stream_end.records = sf.records;
        rec->u.stream_end.raw_bytes = sf.raw_bytes;
        rec->u.stream_end.compressed_bytes = sf.bytes;
        rec->u.stream_end.lost = sf.lost;
        return NF_RECORD;
    }
    if (sf.kind == TR_SFRAME_CHUNK) {
        uint64_t seq = sf.seq;
        uint32_t csize = sf.csize, rsize = sf.rsize;
        uint64_t base = sf.base_time;
        r->chunk_seq = seq;
        r->chunk_off = off;
        if (r->state != S_IN_STREAM) {
            /* the stream's start frame was lost: go on with a stream of our own */
            /* its flags are unknown: keep stack images (harmless without them) */
            start_stream(r, rec, TR_VERSION_MAJOR, 0, 0, TR_INCOMPAT_STACK_DELTA, off);
            return NF_RECORD;
        }
        size_t max = r->opt.max_chunk ? r->opt.max_chunk : TR_RAW_MAX;
        if (rsize > max || csize > ZSTD_compressBound(max)) {
            consume(r, 8 + size);
            uint64_t skipped = skip_bytes(r, csize);
            r->st.bad_chunks++;
            r->expect_seq = seq + 1;
            int e = set_diag(r, TR_E_TOO_LARGE, off, "chunk %llu claims %u raw bytes (limit %zu); skipped",
                             (unsigned long long)seq, rsize, max);
            r->diag.lost_bytes = skipped;
            r->diag.lost_chunks = 1;
            return e;
        }
        size_t avail = need(r, 8 + (size_t)size + csize);
        if (avail < 8 + (size_t)size + csize) {
            /* cut short: if another frame begins inside the claimed payload
             * (a killed writer's file with more appended), go on from there */
            const uint8_t *pl = r->in + r->in_pos + 8 + size;
            if (avail <= 8 + (size_t)size || !memmem(pl, avail - 8 - size, "\x5e\x2a\x4d\x18", 4)) goto truncated;
            consume(r, 8 + size);
            uint64_t n = resync(r, 0);
            r->st.bad_chunks++;
            r->expect_seq = seq + 1;
            int e = set_diag(r, TR_E_CORRUPT_CHUNK, off, "chunk %llu is cut short after %llu of its %u bytes",
                             (unsigned long long)seq, (unsigned long long)n, csize);
            r->diag.lost_chunks = 1;
            r->diag.lost_bytes = 8 + size + n;
            return e;
        }
        const uint8_t *z = r->in + r->in_pos + 8 + size;
        r->chunk.len = r->cpos = 0;
        if (tr_internal_buf_reserve(&r->chunk, rsize ? rsize : 1)) return TR_E_NOMEM;
        size_t got = ZSTD_decompressDCtx(r->dctx, r->chunk.p, rsize, z, csize);
        int lost = seq > r->expect_seq;
        uint64_t nlost = seq - r->expect_seq;
        r->expect_seq = seq + 1;
        if (ZSTD_isError(got) || got != rsize) {
            /* resynchronise from the header on: the payload may hold the
             * start of a stream appended to a killed writer's output */
            consume(r, 8 + (size_t)size);
            uint64_t n = resync(r, 0);
            r->st.bad_chunks++;
            int e = set_diag(r, TR_E_CORRUPT_CHUNK, off, "chunk %llu: %s", (unsigned long long)seq,
                             ZSTD_isError(got) ? ZSTD_getErrorName(got) : "size differs from its header");
            r->diag.lost_chunks = 1 + (lost ? nlost : 0);
            r->diag.lost_bytes = 8 + (uint64_t)size + n;
            return e;
        }
        consume(r, 8 + (size_t)size + csize);
        r->st.compressed_bytes += 8 + (uint64_t)size + csize;
        r->chunk.len = rsize;
        tr_internal_stack_images_reset(&r->images);
        r->time = base;
        r->st.chunks++;
        r->st.raw_bytes += rsize;
        if (lost) {
            r->st.lost_chunks += nlost;
            int e = set_diag(r, TR_E_LOST_CHUNKS, off, "chunks %llu to %llu are missing",
                             (unsigned long long)(seq - nlost), (unsigned long long)(seq - 1));
            r->diag.lost_chunks = nlost;
            return e; /* the chunk stays loaded: its records follow */
        }
        return NF_CHUNK;
    }
    /* a tr frame of a kind this reader does not know: skip it */
    consume(r, 8 + size);
    return NF_SKIPPED;

bad_frame:
    consume(r, 8 + size);
    return set_diag(r, TR_E_CORRUPT_FRAME, off, "frame too short for its kind");
truncated: {
        size_t left = skip_bytes(r, UINT64_MAX);
        r->diag.lost_bytes = left;
        if (r->eof < 0) { /* not the end of the input: a read failed */
            if (r->state == S_IN_STREAM) {
                end_record(r, rec, 0);
                r->pending = set_diag(r, TR_E_IO, off, "read error inside chunk %llu: %s",
                                      (unsigned long long)r->expect_seq, strerror(r->read_errno));
                r->diag.lost_bytes = left;
                r->state = S_DONE;
                return NF_RECORD;
            }
            r->state = S_DONE;
            return set_diag(r, TR_E_IO, off, "read error inside a frame: %s", strerror(r->read_errno));
        }
        if (r->state == S_IN_STREAM) {
            end_record(r, rec, 0);
            r->pending = set_diag(r, TR_E_TRUNCATED, off,
                                  "input ends inside chunk %llu: its %zu bytes are lost",
                                  (unsigned long long)r->expect_seq, left);
            r->diag.lost_bytes = left;
            r->diag.lost_chunks = 1;
            r->state = S_DONE;
            return NF_RECORD;
        }
        r->state = S_DONE;
        return set_diag(r, TR_E_TRUNCATED, off, "input ends inside a frame (%zu bytes)", left);
    }
}

/* ---- records ---- */

/* STACK_DELTA: a sample's stack copy is the bytes written in the record
 * followed by the last kept bytes of its thread's stack image (spec/FORMAT.md
 * 4.4).  Completes rec's stack copy and lays it over the image. */
static int complete_stack_copy(tr_reader *r, tr_record *rec, size_t kept)
{
    size_t f = rec->u.sample.stack_copy_len;
    if (!f && !kept) return 0;
    stack_image *im = tr_internal_stack_image_get(&r->images, rec->pid, rec->tid);
    if (!im) return TR_E_NOMEM;
    if (kept > im->len) return TR_E_CORRUPT_RECORD;
    if (f > TR_RAW_MAX) return TR_E_CORRUPT_RECORD; /* cannot be: the chunk holds it */
    if (tr_internal_stack_image_reserve(&r->images, im, f + kept)) return TR_E_NOMEM;
    rec->u.sample.stack_copy = tr_internal_stack_image_put(im, rec->u.sample.stack_copy, f, kept);
    rec->u.sample.stack_copy_len = f + kept;
    return 0;
}

/* Decode the next record of the loaded chunk: 1 delivered, 0 absorbed or
 * skipped, <0 error (the rest of the chunk is dropped). */
static int next_record(tr_reader *r, tr_record *rec)
{
    cur c = {r->chunk.p + r->cpos, r->chunk.p + r->chunk.len, 0};
    uint64_t type = cur_varint(&c);
    uint64_t len = cur_varint(&c);
    const uint8_t *body = cur_bytes(&c, len);
    if (c.bad || type > UINT32_MAX) {
        r->cpos = r->chunk.len;
        r->st.bad_records++;
        return set_diag(r, TR_E_CORRUPT_RECORD, r->chunk_off, "chunk %llu: record header overruns the chunk",
                        (unsigned long long)r->chunk_seq);
    }
    r->cpos = (size_t)(c.p - r->chunk.p);
    r->st.records++;
    if (type < 128) r->st.per_type[type]++;
    rec->type = (uint32_t)type;
    rec->stream = r->stream;
    cur b = {body, body + len, 0};
    if (type_has_prefix((uint32_t)type)) {
        r->time += (uint64_t)cur_svarint(&b);
        rec->time = r->time;
        rec->pid = cur_s32(&b);
        rec->tid = cur_s32(&b);
        rec->cpu = cur_s32(&b);
    } else {
        rec->time = 0;
        rec->pid = rec->tid = rec->cpu = -1;
    }
    if (type == TR_REC_STREAM_START || type == TR_REC_STREAM_END) b.bad = 1;
    const char *name = tr_rec_type_name((uint32_t)type);
    size_t kept = 0;
    int e = b.bad ? TR_E_CORRUPT_RECORD : name ? tr_internal_rec_decode_body(&b, rec, &kept) : 0;
    if (!e && type == TR_REC_SAMPLE && (r->incompat & TR_INCOMPAT_STACK_DELTA))
        e = complete_stack_copy(r, rec, kept);
    else if (kept)
        e = TR_E_CORRUPT_RECORD; /* a continued stack copy in a stream without them */
    if (e == TR_E_NOMEM) return e;
    if (e) {
        /* a bad prefix breaks the time chain: drop the rest of the chunk */
        r->cpos = r->chunk.len;
        r->st.bad_records++;
        return set_diag(r, TR_E_CORRUPT_RECORD, r->chunk_off, "chunk %llu: malformed %s record",
                        (unsigned long long)r->chunk_seq, name ? name : "unknown");
    }
    if (!name) return 0; /* unknown type: skipped, as the spec says */
    switch (type) {
    case TR_REC_STRING: case TR_REC_FRAME: case TR_REC_STACK: case TR_REC_EVENT_DEF:
    case TR_REC_META: case TR_REC_SYSCALL_TABLE:
        if ((e = absorb(r, rec))) return e;
        return r->opt.keep_definitions;
    case TR_REC_BLOB:
        if ((e = absorb(r, rec))) return e;
        return r->opt.keep_definitions;
    default:
        return 1;
    }
}

int tr_reader_next(tr_reader *r, tr_record *rec)
{
    if (!r || !rec) return TR_E_INVAL;
    for (;;) {
        while (r->cpos < r->chunk.len) {
            int e = next_record(r, rec);
            if (e) return e;
        }
        if (r->pending) {
            int e = r->pending;
            r->pending = 0;
            if (e == TR_E_TRUNCATED) r->state = S_DONE;
            return e;
        }
        if (r->state == S_DONE) return 0;
        int e = next_frame(r, rec);
        if (e == NF_CHUNK || e == NF_SKIPPED) continue;
        if (e == TR_E_TOO_LARGE || e == TR_E_CORRUPT_CHUNK) r->st.lost_chunks += r->diag.lost_chunks;
        if (e < 0 && !tr_error_recoverable(e)) r->state = S_DONE;
        return e;
    }
}

/* ---- look-ups ---- */

const char *tr_reader_string(tr_reader *r, uint32_t id, size_t *len)
{
    uint32_t i = id ? idtab_get(&r->str_ids, id) : 0;
    if (!i) {
        if (id) r->st.unresolved_refs++;
        return NULL;
    }
    if (len) *len = r->strs[i - 1].len;
    return r->strs[i - 1].s;
}

const tr_frame *tr_reader_frame(tr_reader *r, uint32_t id)
{
    uint32_t i = id ? idtab_get(&r->frame_ids, id) : 0;
    if (!i) {
        if (id) r->st.unresolved_refs++;
        return NULL;
    }
    return r->frames[i - 1];
}

int tr_reader_stack(tr_reader *r, uint32_t id, const uint32_t **frames)
{
    static const uint32_t none[1];
    *frames = none;
    if (!id) return 0;
    uint32_t i = idtab_get(&r->node_ids, id);
    if (!i) {
        r->st.unresolved_refs++;
        return TR_E_CORRUPT_RECORD;
    }
    node *n = &r->nodes[i - 1];
    if (n->depth < 0) {
        uint32_t tmp[TR_MAX_DEPTH];
        int32_t d = 0;
        int broken = 0;
        for (uint32_t v = id; v && d < TR_MAX_DEPTH;) {
            uint32_t k = idtab_get(&r->node_ids, v);
            if (!k) {
                broken = 1;
                break;
            }
            tmp[d++] = r->nodes[k - 1].frame;
            v = r->nodes[k - 1].parent;
        }
        uint32_t *f = arena_alloc(&r->arena, (size_t)(d ? d : 1) * sizeof *f);
        if (!f) return TR_E_NOMEM;
        memcpy(f, tmp, (size_t)d * sizeof *f);
        n = &r->nodes[i - 1];
        n->frames = f;
        n->depth = d;
        if (broken) r->st.unresolved_refs++;
    }
    *frames = n->frames;
    return n->depth;
}

const tr_event_def *tr_reader_event(tr_reader *r, uint32_t id)
{
    uint32_t i = id ? idtab_get(&r->event_ids, id) : 0;
    if (!i) {
        if (id) r->st.unresolved_refs++;
        return NULL;
    }
    return r->events[i - 1];
}

const char *tr_reader_meta(tr_reader *r, const char *key)
{
    for (size_t i = 0; i < r->nmeta; i++)
        if (!strcmp(r->meta[i].key, key)) return r->meta[i].value;
    return NULL;
}

int tr_reader_meta_at(tr_reader *r, size_t i, const char **key, const char **value)
{
    if (i >= r->nmeta) return 0;
    *key = r->meta[i].key;
    *value = r->meta[i].value;
    return 1;
}

const char *tr_reader_syscall_name(tr_reader *r, const char *arch, uint32_t nr)
{
    if (!arch) arch = tr_reader_meta(r, "arch");
    for (size_t i = 0; i < r->nsystabs; i++) {
        if (arch && strcmp(r->systabs[i].arch, arch) && r->nsystabs > 1) continue;
        uint32_t k = tr_internal_idmap_get(&r->systabs[i].names, (uint64_t)nr + 1);
        if (k) return r->sys_names[k - 1];
    }
    return NULL;
}

const uint8_t *tr_reader_blob(tr_reader *r, const char *name, size_t *len)
{
    for (size_t i = 0; i < r->nblobs; i++)
        if (!strcmp(r->blobs[i].name, name)) {
            if (len) *len = r->blobs[i].len;
            return r->blobs[i].data;
        }
    return NULL;
}

int tr_reader_blob_at(tr_reader *r, const char *prefix, size_t i, const char **name, const uint8_t **data,
                      size_t *len)
{
    size_t plen = strlen(prefix);
    for (size_t k = 0; k < r->nblobs; k++) {
        if (strncmp(r->blobs[k].name, prefix, plen)) continue;
        if (i--) continue;
        *name = r->blobs[k].name;
        *data = r->blobs[k].data;
        *len = r->blobs[k].len;
        return 1;
    }
    return 0;
}

/* ---- life cycle ---- */

static int reader_new(tr_reader **out, const tr_reader_options *opt)
{
    tr_reader *r = calloc(1, sizeof *r);
    if (!r) return TR_E_NOMEM;
    if (opt) r->opt = *opt;
    r->dctx = ZSTD_createDCtx();
    if (!r->dctx) {
        free(r);
        return TR_E_NOMEM;
    }
    r->fd = -1;
    *out = r;
    return 0;
}

static ssize_t fd_read(void *ctx, void *buf, size_t len)
{
    const tr_reader *r = ctx;
    return read(r->fd, buf, len);
}

int tr_reader_open_fn(tr_reader **out, tr_read_fn fn, void *ctx, const void *head, size_t head_len,
                      const tr_reader_options *opt)
{
    if (!out || !fn || (!head && head_len)) return TR_E_INVAL;
    int e = reader_new(out, opt);
    if (e) return e;
    tr_reader *r = *out;
    r->read = fn;
    r->read_ctx = ctx;
    r->own_buf = 1;
    if (head_len) {
        /* the bytes already read come first, as if read now */
        size_t cap = head_len > (1u << 20) ? head_len : (1u << 20);
        if (!(r->in = malloc(cap))) {
            tr_reader_free(r);
            *out = NULL;
            return TR_E_NOMEM;
        }
        memcpy(r->in, head, head_len);
        r->in_cap = cap;
        r->in_len = head_len;
        r->st.input_bytes = head_len;
    }
    return 0;
}

int tr_reader_open_fd(tr_reader **out, int fd, const void *head, size_t head_len,
                      const tr_reader_options *opt)
{
    if (!out || fd < 0) return TR_E_INVAL;
    int e = tr_reader_open_fn(out, fd_read, NULL, head, head_len, opt);
    if (e) return e;
    (*out)->fd = fd;
    (*out)->read_ctx = *out;
    return 0;
}

int tr_reader_open(tr_reader **out, int fd, const tr_reader_options *opt)
{
    return tr_reader_open_fd(out, fd, NULL, 0, opt);
}

int tr_reader_open_mem(tr_reader **out, const void *data, size_t len, const tr_reader_options *opt)
{
    if (!out || (!data && len)) return TR_E_INVAL;
    int e = reader_new(out, opt);
    if (e) return e;
    tr_reader *r = *out;
    r->in = (uint8_t *)data;
    r->in_len = len;
    r->eof = 1;
    r->st.input_bytes = len;
    return 0;
}

void tr_reader_free(tr_reader *r)
{
    if (!r) return;
    tables_clear(r);
    tr_internal_stack_images_free(&r->images);
    free(r->strs);
    free(r->frames);
    free(r->nodes);
    free(r->events);
    free(r->sys_names);
    if (r->own_buf) free(r->in);
    tr_internal_buf_free(&r->chunk);
    ZSTD_freeDCtx(r->dctx);
    free(r);
}

const tr_reader_diag *tr_reader_last_diag(const tr_reader *r) { return &r->diag; }

void tr_reader_get_stats(const tr_reader *r, tr_reader_stats *st) { *st = r->st; }
/* ==== format/writer.c ==== */
/* writer.c - writing a stream: interning, chunking, key chunks, frames. */
#include <errno.h>
#include <stdio.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>


typedef struct sticky {
    uint32_t type;
    char *key; /* meta key or blob name: a later one of the same key replaces it */
    buf body;
} sticky;

struct tr_writer {
    int fd;
    tr_writer_options opt;
    ZSTD_CCtx *cctx;
    int err;      /* first write error: every later call returns it */
    int finished;

    buf chunk;    /* raw records of the open chunk */
    buf zout;     /* its compressed form */
    buf body;     /* one record body being encoded */
    uint64_t seq;
    uint32_t chunk_records;
    uint64_t base_time, last_time;
    int have_time;
    uint32_t chunk_flags;
    uint64_t raw_since_key;
    uint32_t epoch;
    int sticky_just_emitted;
    struct timespec opened; /* when the open chunk got its first record */

    /* interned definitions, ids from 1; *_epoch[id] says whether emitted */
    buf str_data;
    struct { size_t off, len; } *strs;
    uint32_t *str_epoch;
    uint32_t nstr, capstr;
    idmap str_map;

    tr_frame *frames;
    uint32_t *frame_epoch;
    uint32_t nframe, capframe;
    idmap frame_map;

    struct { uint32_t parent, frame; } *stacks;
    uint32_t *stack_epoch;
    uint32_t nstack, capstack;
    idmap stack_map;

    uint32_t nevents;
    sticky *sticky;
    size_t nsticky, capsticky;

    stack_images images; /* opt.stack_delta: each thread's stack image in the chunk */

    tr_writer_stats st;
};

/* ---- output ---- */

static int write_all(tr_writer *w, const struct iovec *iov, int n)
{
    struct iovec v[4];
    memcpy(v, iov, (size_t)n * sizeof *v);
    int i = 0;
    while (i < n) {
        ssize_t k = writev(w->fd, v + i, n - i);
        if (k < 0) {
            if (errno == EINTR) continue;
            w->err = errno == EPIPE ? TR_E_EPIPE : errno == ENOSPC ? TR_E_NOSPC : TR_E_IO;
            return w->err;
        }
        while (i < n && (size_t)k >= v[i].iov_len) k -= (ssize_t)v[i++].iov_len;
        if (i < n) {
            v[i].iov_base = (char *)v[i].iov_base + k;
            v[i].iov_len -= (size_t)k;
        }
    }
    return 0;
}

/* A tr frame: skippable-frame header, content, CRC-32C of the content. */
static int write_frame(tr_writer *w, uint8_t *content, uint32_t size, const void *extra, size_t extra_len)
{
    uint8_t hdr[8];
    put_le32(hdr, TR_SKIP_MAGIC);
    put_le32(hdr + 4, size);
    put_le32(content + size - 4, tr_crc32c(0, content, size - 4));
    struct iovec v[3] = {{hdr, 8}, {content, size}, {(void *)extra, extra_len}};
    return write_all(w, v, extra_len ? 3 : 2);
}

static int flush_chunk(tr_writer *w)
{
    if (w->err) return w->err;
    if (!w->chunk.len) return 0;
    size_t bound = ZSTD_compressBound(w->chunk.len);
    w->zout.len = 0;
    if (tr_internal_buf_reserve(&w->zout, bound)) return w->err = TR_E_NOMEM;
    size_t z = ZSTD_compress2(w->cctx, w->zout.p, bound, w->chunk.p, w->chunk.len);
    if (ZSTD_isError(z)) return w->err = TR_E_COMPRESS;
    uint8_t c[TR_CHUNK_SIZE];
    put_le32(c, TR_KIND_CHUNK);
    put_le64(c + 4, w->seq);
    put_le32(c + 12, w->chunk_flags);
    put_le32(c + 16, (uint32_t)z);
    put_le32(c + 20, (uint32_t)w->chunk.len);
    put_le32(c + 24, w->chunk_records);
    put_le64(c + 28, w->base_time);
    int e = write_frame(w, c, TR_CHUNK_SIZE, w->zout.p, z);
    if (e) return e;
    w->st.chunks++;
    w->st.raw_bytes += w->chunk.len;
    w->st.compressed_bytes += z + 8 + TR_CHUNK_SIZE;
    w->raw_since_key += w->chunk.len;
    w->seq++;
    tr_internal_stack_images_reset(&w->images);
    w->chunk.len = 0;
    w->chunk_records = 0;
    w->have_time = 0;
    return 0;
}

/* ---- appending records to the open chunk ---- */

static int put_record(tr_writer *w, uint32_t type, const uint8_t *pre, size_t npre, const buf *body)
{
    int e;
    if ((e = buf_varint(&w->chunk, type)) || (e = buf_varint(&w->chunk, npre + body->len)) ||
        (e = buf_put(&w->chunk, pre, npre)) || (e = buf_put(&w->chunk, body->p, body->len)))
        return w->err = e;
    w->chunk_records++;
    w->st.records++;
    return 0;
}

/* Shorter common ends are written out: the kept length costs a varint. */
#define STACK_KEPT_MIN 16

/* Encode rec's body into w->body.  A sample's stack copy, when delta-coding,
 * is checked against its thread's image: *im is that image (NULL when the
 * record has none) and *kept how many of the copy's last bytes it holds. */
static int encode(tr_writer *w, const tr_record *rec, stack_image **im, size_t *kept)
{
    int e;
    *im = NULL;
    *kept = 0;
    if (w->opt.stack_delta && rec->type == TR_REC_SAMPLE && rec->u.sample.stack_copy_len) {
        size_t n = rec->u.sample.stack_copy_len;
        if (!(*im = tr_internal_stack_image_get(&w->images, rec->pid, rec->tid)) ||
            tr_internal_stack_image_reserve(&w->images, *im, n))
            return w->err = TR_E_NOMEM;
        *kept = tr_internal_stack_image_suffix(*im, rec->u.sample.stack_copy, n);
        if (*kept < STACK_KEPT_MIN) *kept = 0;
    }
    w->body.len = 0;
    if ((e = tr_internal_rec_encode_body(&w->body, rec, *kept))) return e == TR_E_NOMEM ? (w->err = e) : e;
    return 0;
}

/* Encode and append one record.  The body is encoded first, so that a chunk
 * that would pass the hard size limit is ended before the time prefix,
 * which depends on the chunk, is computed (and a stack copy is encoded
 * again: the new chunk starts with empty images). */
static int append(tr_writer *w, const tr_record *rec)
{
    int e;
    stack_image *im;
    size_t kept;
    if ((e = encode(w, rec, &im, &kept))) return e;
    if (w->body.len > TR_RAW_MAX / 2) return TR_E_TOO_LARGE;
    if (w->chunk.len + w->body.len + 64 > TR_RAW_MAX) {
        if ((e = flush_chunk(w))) return e;
        if (im && (e = encode(w, rec, &im, &kept))) return e;
        if (w->body.len > TR_RAW_MAX / 2) return TR_E_TOO_LARGE; /* written whole, it is too large */
    }
    uint8_t pre[40];
    size_t n = 0;
    if (type_has_prefix(rec->type)) {
        int64_t dt = w->have_time ? (int64_t)(rec->time - w->last_time) : 0;
        n += tr_varint_put(pre + n, zigzag(dt));
        n += tr_varint_put(pre + n, zigzag(rec->pid));
        n += tr_varint_put(pre + n, zigzag(rec->tid));
        n += tr_varint_put(pre + n, zigzag(rec->cpu));
        if (!w->have_time) w->base_time = rec->time;
        w->have_time = 1;
        w->last_time = rec->time;
    }
    if ((e = put_record(w, rec->type, pre, n, &w->body))) return e;
    if (im) {
        size_t len = rec->u.sample.stack_copy_len;
        tr_internal_stack_image_put(im, rec->u.sample.stack_copy, len - kept, kept);
    }
    return 0;
}

static int append_raw(tr_writer *w, uint32_t type, const buf *body)
{
    int e;
    if (w->chunk.len + body->len + 64 > TR_RAW_MAX && (e = flush_chunk(w))) return e;
    return put_record(w, type, NULL, 0, body);
}

/* Called before each group of records (definitions + the record using
 * them): groups are never split across chunks.  Opens a chunk, key or not. */
static int begin_group(tr_writer *w)
{
    int e;
    w->sticky_just_emitted = 0;
    if (w->err) return w->err;
    if (w->finished) return TR_E_FINISHED;
    if (w->chunk.len >= w->opt.chunk_size && (e = flush_chunk(w))) return e;
    if (w->chunk.len) return 0;
    clock_gettime(CLOCK_MONOTONIC, &w->opened);
    w->chunk_flags = 0;
    if (w->seq == 0 || w->raw_since_key >= w->opt.key_interval) {
        w->chunk_flags = TR_CHUNK_KEY;
        w->raw_since_key = 0;
        w->epoch++;
        for (size_t i = 0; i < w->nsticky; i++)
            if ((e = append_raw(w, w->sticky[i].type, &w->sticky[i].body))) return e;
        w->sticky_just_emitted = 1;
    }
    return 0;
}

/* ---- sticky records ---- */

static int sticky_add(tr_writer *w, const tr_record *rec, const char *key)
{
    int e;
    sticky *s = NULL;
    if (key)
        for (size_t i = 0; i < w->nsticky; i++)
            if (w->sticky[i].key && w->sticky[i].type == rec->type && !strcmp(w->sticky[i].key, key)) {
                s = &w->sticky[i];
                s->body.len = 0;
            }
    if (!s) {
        if (tr_internal_array_reserve(&w->sticky, &w->capsticky, w->nsticky + 1, sizeof *w->sticky, 16))
            return TR_E_NOMEM;
        s = &w->sticky[w->nsticky];
        memset(s, 0, sizeof *s);
        s->type = rec->type;
        if (key && !(s->key = strdup(key))) return TR_E_NOMEM;
        w->nsticky++;
    }
    if ((e = tr_internal_rec_encode_body(&s->body, rec, 0))) return e;
    if ((e = begin_group(w))) return e;
    if (!w->sticky_just_emitted) return append_raw(w, rec->type, &s->body);
    return 0;
}

int tr_writer_meta(tr_writer *w, const char *key, const char *value)
{
    if (!w || !key || !value || !*key) return TR_E_INVAL;
    tr_record r = {.type = TR_REC_META};
    r.u.meta.key = key;
    r.u.meta.key_len = strlen(key);
    r.u.meta.value = value;
    r.u.meta.value_len = strlen(value);
    return sticky_add(w, &r, key);
}

int tr_writer_event(tr_writer *w, const tr_event_def *def, uint32_t *id)
{
    if (!w || !def) return TR_E_INVAL;
    tr_record r = {.type = TR_REC_EVENT_DEF};
    r.u.event_def = *def;
    if (!r.u.event_def.id) r.u.event_def.id = ++w->nevents;
    else if (r.u.event_def.id > w->nevents) w->nevents = r.u.event_def.id;
    char key[16];
    snprintf(key, sizeof key, "%u", r.u.event_def.id);
    if (id) *id = r.u.event_def.id;
    return sticky_add(w, &r, key);
}

int tr_writer_syscall_table(tr_writer *w, const char *arch, const uint32_t *nrs, const char *const *names,
                            size_t n)
{
    if (!w || !arch || (n && (!nrs || !names)) || n > UINT32_MAX) return TR_E_INVAL;
    buf e = {0};
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(names[i]);
        if (buf_varint(&e, nrs[i]) || buf_varint(&e, l) || buf_put(&e, names[i], l)) {
            tr_internal_buf_free(&e);
            return TR_E_NOMEM;
        }
    }
    tr_record r = {.type = TR_REC_SYSCALL_TABLE};
    r.u.syscall_table.arch = arch;
    r.u.syscall_table.arch_len = strlen(arch);
    r.u.syscall_table.count = (uint32_t)n;
    r.u.syscall_table.entries = e.p;
    r.u.syscall_table.entries_len = e.len;
    int rc = sticky_add(w, &r, arch);
    tr_internal_buf_free(&e);
    return rc;
}

int tr_writer_blob(tr_writer *w, const char *name, const void *data, size_t len, int is_sticky)
{
    if (!w || !name || (len && !data)) return TR_E_INVAL;
    if (len > TR_RAW_MAX / 2) return TR_E_TOO_LARGE;
    tr_record r = {.type = TR_REC_BLOB};
    r.u.blob.name = name;
    r.u.blob.name_len = strlen(name);
    r.u.blob.data = data;
    r.u.blob.len = len;
    if (is_sticky) return sticky_add(w, &r, name);
    int e = begin_group(w);
    return e ? e : append(w, &r);
}

/* ---- interning ---- */

#define GROW(arr, eparr, n, cap)                                                          \
    do {                                                                                  \
        if ((n) + 1 >= (cap)) {                                                           \
            uint32_t nc_ = (cap) ? (cap) * 2 : 256;                                       \
            void *a_ = realloc((arr), nc_ * sizeof *(arr));                               \
            if (!a_) return TR_E_NOMEM;                                                   \
            (arr) = a_;                                                                   \
            void *e_ = realloc((eparr), nc_ * sizeof *(eparr));                           \
            if (!e_) return TR_E_NOMEM;                                                   \
            (eparr) = e_;                                                                 \
            (cap) = nc_;                                                                  \
        }                                                                                 \
    } while (0)

int tr_writer_string(tr_writer *w, const char *s, size_t len, uint32_t *id)
{
    if (!w || (!s && len) || !id) return TR_E_INVAL;
    for (uint64_t seed = 0;; seed++) {
        uint64_t h = tr_internal_hash64(s, len, seed);
        uint32_t v = tr_internal_idmap_get(&w->str_map, h);
        if (!v) {
            GROW(w->strs, w->str_epoch, w->nstr, w->capstr);
            v = ++w->nstr;
            w->strs[v].off = w->str_data.len;
            w->strs[v].len = len;
            w->str_epoch[v] = 0;
            if (buf_put(&w->str_data, s, len) || tr_internal_idmap_put(&w->str_map, h, v)) return TR_E_NOMEM;
            *id = v;
            return 0;
        }
        if (w->strs[v].len == len && !memcmp(w->str_data.p + w->strs[v].off, s, len)) {
            *id = v;
            return 0;
        }
    }
}

static void frame_norm(tr_frame *n, const tr_frame *f)
{
    memset(n, 0, sizeof *n);
    n->addr = f->addr;
    n->flags = f->flags;
    if (f->flags & TR_FRAME_SYMBOLIZED) {
        n->func = f->func;
        n->module = f->module;
        n->file = f->file;
        n->offset = f->offset;
        n->line = f->line;
    }
}

int tr_writer_frame(tr_writer *w, const tr_frame *f, uint32_t *id)
{
    if (!w || !f || !id) return TR_E_INVAL;
    tr_frame n;
    frame_norm(&n, f);
    if ((n.func && n.func > w->nstr) || (n.module && n.module > w->nstr) || (n.file && n.file > w->nstr))
        return TR_E_INVAL;
    for (uint64_t seed = 0;; seed++) {
        uint64_t h = tr_internal_hash64(&n, sizeof n, seed);
        uint32_t v = tr_internal_idmap_get(&w->frame_map, h);
        if (!v) {
            GROW(w->frames, w->frame_epoch, w->nframe, w->capframe);
            v = ++w->nframe;
            w->frames[v] = n;
            w->frame_epoch[v] = 0;
            if (tr_internal_idmap_put(&w->frame_map, h, v)) return TR_E_NOMEM;
            *id = v;
            return 0;
        }
        if (!memcmp(&w->frames[v], &n, sizeof n)) {
            *id = v;
            return 0;
        }
    }
}

int tr_writer_stack(tr_writer *w, const uint32_t *frames, size_t n, uint32_t *id)
{
    if (!w || (!frames && n) || !id) return TR_E_INVAL;
    uint32_t parent = 0;
    for (size_t i = n; i-- > 0;) {
        if (!frames[i] || frames[i] > w->nframe) return TR_E_INVAL;
        uint64_t key = (uint64_t)parent << 32 | frames[i];
        uint32_t v = tr_internal_idmap_get(&w->stack_map, key);
        if (!v) {
            GROW(w->stacks, w->stack_epoch, w->nstack, w->capstack);
            v = ++w->nstack;
            w->stacks[v].parent = parent;
            w->stacks[v].frame = frames[i];
            w->stack_epoch[v] = 0;
            if (tr_internal_idmap_put(&w->stack_map, key, v)) return TR_E_NOMEM;
        }
        parent = v;
    }
    *id = parent;
    return 0;
}

int tr_writer_stack_addrs(tr_writer *w, const uint64_t *addrs, const uint32_t *flags, size_t n, uint32_t *id)
{
    uint32_t small[256], *ids = n <= 256 ? small : malloc(n * sizeof *ids);
    if (!ids) return TR_E_NOMEM;
    int e = 0;
    for (size_t i = 0; i < n && !e; i++) {
        tr_frame f = {.addr = addrs[i], .flags = flags ? flags[i] & ~TR_FRAME_SYMBOLIZED : 0};
        e = tr_writer_frame(w, &f, &ids[i]);
    }
    if (!e) e = tr_writer_stack(w, ids, n, id);
    if (ids != small) free(ids);
    return e;
}

/* ---- emitting definitions on first use in the epoch ---- */

static int emit_string(tr_writer *w, uint32_t id)
{
    if (!id || id > w->nstr || w->str_epoch[id] == w->epoch) return 0;
    w->str_epoch[id] = w->epoch;
    tr_record r = {.type = TR_REC_STRING};
    r.u.string.id = id;
    r.u.string.str = (const char *)w->str_data.p + w->strs[id].off;
    r.u.string.len = w->strs[id].len;
    return append(w, &r);
}

static int emit_frame(tr_writer *w, uint32_t id)
{
    if (!id || id > w->nframe || w->frame_epoch[id] == w->epoch) return 0;
    const tr_frame *f = &w->frames[id];
    int e;
    if ((e = emit_string(w, f->func)) || (e = emit_string(w, f->module)) || (e = emit_string(w, f->file)))
        return e;
    w->frame_epoch[id] = w->epoch;
    tr_record r = {.type = TR_REC_FRAME};
    r.u.frame.id = id;
    r.u.frame.frame = *f;
    return append(w, &r);
}

static int emit_stack(tr_writer *w, uint32_t id)
{
    if (!id || id > w->nstack || w->stack_epoch[id] == w->epoch) return 0;
    /* find the emitted ancestor, then emit from the root side down */
    uint32_t path[TR_MAX_DEPTH], n = 0, v = id;
    while (v && w->stack_epoch[v] != w->epoch) {
        if (n == TR_MAX_DEPTH) return TR_E_TOO_LARGE;
        path[n++] = v;
        v = w->stacks[v].parent;
    }
    while (n--) {
        uint32_t s = path[n];
        int e = emit_frame(w, w->stacks[s].frame);
        if (e) return e;
        w->stack_epoch[s] = w->epoch;
        tr_record r = {.type = TR_REC_STACK};
        r.u.stack.id = s;
        r.u.stack.parent = w->stacks[s].parent;
        r.u.stack.frame = w->stacks[s].frame;
        if ((e = append(w, &r))) return e;
    }
    return 0;
}

static int emit_references(tr_writer *w, const tr_record *rec)
{
    int e = 0;
    switch (rec->type) {
    case TR_REC_SAMPLE:
        return emit_stack(w, rec->u.sample.stack);
    case TR_REC_SYSCALL:
        for (uint32_t i = 0; i < rec->u.syscall.ncaptures && i < TR_MAX_CAPTURES && !e; i++)
            e = emit_string(w, rec->u.syscall.captures[i].struct_name);
        return e ? e : emit_stack(w, rec->u.syscall.stack);
    case TR_REC_LIBCALL:
        for (uint32_t i = 0; i < rec->u.libcall.ncaptures && i < TR_MAX_CAPTURES && !e; i++)
            e = emit_string(w, rec->u.libcall.captures[i].struct_name);
        if (!e) e = emit_string(w, rec->u.libcall.func);
        return e ? e : emit_stack(w, rec->u.libcall.stack);
    case TR_REC_SYMBOL:
        if ((e = emit_string(w, rec->u.symbol.module))) return e;
        return emit_string(w, rec->u.symbol.name);
    case TR_REC_MODULE_STATUS:
        if ((e = emit_string(w, rec->u.module_status.module))) return e;
        return emit_string(w, rec->u.module_status.detail);
    default:
        return 0;
    }
}

int tr_writer_add(tr_writer *w, const tr_record *rec)
{
    if (!w || !rec) return TR_E_INVAL;
    switch (rec->type) {
    case TR_REC_COMM: case TR_REC_FORK: case TR_REC_EXIT: case TR_REC_MMAP:
    case TR_REC_SAMPLE: case TR_REC_COUNTER: case TR_REC_SYSCALL: case TR_REC_SIGNAL:
    case TR_REC_LIBCALL: case TR_REC_TRACE_EVENT: case TR_REC_FUNCTION: case TR_REC_LOST:
    case TR_REC_SYMBOL: case TR_REC_MODULE_STATUS: case TR_REC_BLOB:
        break;
    default:
        return TR_E_INVAL; /* definitions and stream frames have their own calls */
    }
    int e;
    if ((e = begin_group(w)) || (e = emit_references(w, rec))) return e;
    return append(w, rec);
}

/* ---- life cycle ---- */

int tr_writer_open(tr_writer **out, int fd, const tr_writer_options *opt)
{
    if (!out || fd < 0) return TR_E_INVAL;
    *out = NULL;
    tr_writer *w = calloc(1, sizeof *w);
    if (!w) return TR_E_NOMEM;
    w->fd = fd;
    if (opt) w->opt = *opt;
    if (!w->opt.level) w->opt.level = 3;
    if (!w->opt.chunk_size) w->opt.chunk_size = 1u << 20;
    if (w->opt.chunk_size > TR_RAW_MAX / 2) w->opt.chunk_size = TR_RAW_MAX / 2;
    if (!w->opt.key_interval) w->opt.key_interval = 64ull << 20;
    if (!w->opt.flush_ms) w->opt.flush_ms = 100;
    w->cctx = ZSTD_createCCtx();
    if (!w->cctx) {
        free(w);
        return TR_E_NOMEM;
    }
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->opt.level);
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1);

    uint8_t s[TR_START_SIZE];
    memset(s, 0, sizeof s);
    put_le32(s, TR_KIND_START);
    put_le16(s + 4, TR_VERSION_MAJOR);
    put_le16(s + 6, TR_VERSION_MINOR);
    put_le32(s + 8, 0);  /* compatible feature flags */
    put_le32(s + 12, w->opt.stack_delta ? TR_INCOMPAT_STACK_DELTA : 0); /* incompatible feature flags */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    put_le64(s + 16, tr_internal_hash64(&ts, sizeof ts, (uint64_t)getpid())); /* stream id */
    int e = write_frame(w, s, TR_START_SIZE, NULL, 0);
    if (e) {
        tr_writer_free(w);
        return e;
    }
    w->st.compressed_bytes += 8 + TR_START_SIZE;
    *out = w;
    return 0;
}

static void shell_quote(buf *b, const char *s)
{
    int plain = *s != 0;
    for (const char *p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *p)) plain = 0;
    if (plain) {
        buf_put(b, s, strlen(s));
        return;
    }
    buf_put(b, "'", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '\'') buf_put(b, "'\\''", 4);
        else buf_put(b, p, 1);
    }
    buf_put(b, "'", 1);
}

int tr_writer_meta_defaults(tr_writer *w, const char *producer, int argc, char *const argv[])
{
    struct utsname u;
    char tmp[64];
    int e = 0;
    if (!w || !producer) return TR_E_INVAL;
    e = tr_writer_meta(w, "producer", producer);
    if (!e) e = tr_writer_meta(w, "producer.version", TR_LIB_VERSION);
    if (!e && uname(&u) == 0) {
        if (!e) e = tr_writer_meta(w, "host", u.nodename);
        if (!e) e = tr_writer_meta(w, "kernel.release", u.release);
        if (!e) e = tr_writer_meta(w, "kernel.version", u.version);
        if (!e) e = tr_writer_meta(w, "arch", u.machine);
    }
    if (!e) e = tr_writer_meta(w, "byte_order", "little");
    snprintf(tmp, sizeof tmp, "%zu", sizeof(long) * 8);
    if (!e) e = tr_writer_meta(w, "word_size", tmp);
    snprintf(tmp, sizeof tmp, "%ld", sysconf(_SC_PAGESIZE));
    if (!e) e = tr_writer_meta(w, "page_size", tmp);
    snprintf(tmp, sizeof tmp, "%ld", sysconf(_SC_NPROCESSORS_CONF));
    if (!e) e = tr_writer_meta(w, "ncpus", tmp);
    if (!e) e = tr_writer_meta(w, "clock", "monotonic");
    struct timespec m, r;
    clock_gettime(CLOCK_MONOTONIC, &m);
    clock_gettime(CLOCK_REALTIME, &r);
    snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)m.tv_sec * 1000000000ull + (unsigned long long)m.tv_nsec);
    if (!e) e = tr_writer_meta(w, "time.monotonic_ns", tmp);
    snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)r.tv_sec * 1000000000ull + (unsigned long long)r.tv_nsec);
    if (!e) e = tr_writer_meta(w, "time.realtime_ns", tmp);
    if (!e && argc > 0 && argv) {
        buf b = {0};
        for (int i = 0; i < argc && argv[i]; i++) {
            if (i) buf_put(&b, " ", 1);
            shell_quote(&b, argv[i]);
        }
        buf_put(&b, "", 1);
        e = b.p ? tr_writer_meta(w, "cmdline", (const char *)b.p) : TR_E_NOMEM;
        tr_internal_buf_free(&b);
    }
    return e;
}

int tr_writer_flush(tr_writer *w)
{
    if (!w) return TR_E_INVAL;
    if (w->finished) return TR_E_FINISHED;
    return flush_chunk(w);
}

int tr_writer_poll(tr_writer *w)
{
    if (!w) return TR_E_INVAL;
    if (w->err || w->finished || !w->chunk.len) return w->err;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (now.tv_sec - w->opened.tv_sec) * 1000 + (now.tv_nsec - w->opened.tv_nsec) / 1000000;
    return ms >= (int64_t)w->opt.flush_ms ? flush_chunk(w) : 0;
}

int tr_writer_finish(tr_writer *w, uint64_t lost)
{
    if (!w) return TR_E_INVAL;
    if (w->finished) return TR_E_FINISHED;
    int e = flush_chunk(w);
    if (e) return e;
    w->finished = 1;
    uint8_t c[TR_END_SIZE];
    put_le32(c, TR_KIND_END);
    put_le64(c + 4, w->st.chunks);
    put_le64(c + 12, w->st.records);
    put_le64(c + 20, w->st.raw_bytes);
    put_le64(c + 28, w->st.compressed_bytes);
    put_le64(c + 36, lost);
    e = write_frame(w, c, TR_END_SIZE, NULL, 0);
    if (!e) w->st.compressed_bytes += 8 + TR_END_SIZE;
    return e;
}

void tr_writer_get_stats(const tr_writer *w, tr_writer_stats *st)
{
    if (w && st) *st = w->st;
}

void tr_writer_free(tr_writer *w)
{
    if (!w) return;
    ZSTD_freeCCtx(w->cctx);
    tr_internal_buf_free(&w->chunk);
    tr_internal_buf_free(&w->zout);
    tr_internal_buf_free(&w->body);
    tr_internal_buf_free(&w->str_data);
    free(w->strs);
    free(w->str_epoch);
    tr_internal_idmap_free(&w->str_map);
    free(w->frames);
    free(w->frame_epoch);
    tr_internal_idmap_free(&w->frame_map);
    free(w->stacks);
    free(w->stack_epoch);
    tr_internal_idmap_free(&w->stack_map);
    for (size_t i = 0; i < w->nsticky; i++) {
        free(w->sticky[i].key);
        tr_internal_buf_free(&w->sticky[i].body);
    }
    free(w->sticky);
    tr_internal_stack_images_free(&w->images);
    free(w);
}
