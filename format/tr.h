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
#define TR_VERSION_MINOR 4
/* Incompatible feature flags of a stream (its start frame): a reader
 * refuses a stream with a flag it does not know. */
#define TR_INCOMPAT_STACK_DELTA 1u /* stack copies may continue the thread's previous one (1.1) */
#define TR_INCOMPAT_STACK_RUNS 2u  /* stack nodes may be defined in runs (STACK_RUN records, 1.2) */
#define TR_INCOMPAT_STACK_ADDR 4u  /* stack copies placed by address in the thread's image (1.2) */
#define TR_INCOMPAT_STACK_CHAINS 8u /* STACK_CHAIN records, samples' stack ids relative (1.4) */
#define TR_INCOMPAT_KNOWN \
    (TR_INCOMPAT_STACK_DELTA | TR_INCOMPAT_STACK_RUNS | TR_INCOMPAT_STACK_ADDR | TR_INCOMPAT_STACK_CHAINS)
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
    /* 0x05 stack_run (1.2): a chain of stack nodes in one record; readers
     * deliver it as one TR_REC_STACK per node (spec/FORMAT.md 4.1) */
    TR_REC_STACK_RUN = 0x05,
    /* 1.4: a chain of new stack nodes with the frames they define, coded
     * against the chunk's earlier chains; delivered as FRAME and STACK
     * records (spec/FORMAT.md 4.1) */
    TR_REC_STACK_CHAIN = 0x06,
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
    TR_REC_SWITCH = 0x24, /* 1.3: the thread left (OUT) or took (in) a CPU */
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
        struct { uint32_t flags; } sw;                     /* TR_SWF_* */
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
            uint64_t stack_copy_addr; /* the address of stack_copy[0] (the user sp), 0 unknown */
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
/* Switch flags: OUT the thread left the CPU (else it was switched in), PREEMPT it left runnable */
enum { TR_SWF_OUT = 1u << 0, TR_SWF_PREEMPT = 1u << 1 };
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
    int level;              /* zstd level (negative: its --fast=N); 0 = default (3) */
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
    /* 2 instead of 1: place copies by address (TR_INCOMPAT_STACK_ADDR,
     * format 1.2): a copy whose stack_copy_addr is set keeps the bytes it
     * shares with the thread's last copy at the same addresses, wherever
     * the two end.  A thread's copies of a fixed size (perf's
     * sample_stack_user) do not end where its stack ends: 1 finds nothing
     * to keep in them. */
    /* 1: define new stack nodes in runs, one STACK_RUN record for a chain
     * of nodes each the parent of the next (TR_INCOMPAT_STACK_RUNS: the
     * stream then needs a format 1.2 reader).  A new stack usually adds a
     * chain below a node already defined: one record instead of one per
     * frame, and ids and parents implied instead of written.
     * 2: define them in STACK_CHAIN records instead, the frames first used
     * by a chain inside it, ids coded against the chunk's earlier chains,
     * and samples' stack ids relative to the last node defined
     * (TR_INCOMPAT_STACK_CHAINS, format 1.4): a third fewer bytes on a
     * compiler's -g profile, where nearly every sample adds a frame. */
    int stack_runs;
    /* Stack nodes the writer keeps to intern stacks; 0 = no limit.  When
     * more are interned, the next call that interns a stack forgets them
     * all first (tr_writer_forget_stacks), so memory stays bounded, in the
     * writer and in its readers, however many distinct stacks a long
     * recording has.  Only for callers that keep no stack ids of their own
     * across records (a recorder that interns each sample's stack as it
     * goes). */
    uint32_t stack_limit;
    /* 1: compress and write chunks on a thread of the writer's own, while
     * the caller goes on adding records to the next chunk (a recorder that
     * must drain kernel buffers while zstd works).  Chunks queue up to 64 MiB,
     * and the caller waits only past that; a compressor 8 MiB behind
     * compresses at zstd's --fast=20 until it catches up, and past 16 MiB the
     * caller compresses its chunks itself (at --fast=20) and queues them
     * compressed, for the thread only to write them.  The
     * output is otherwise the same; a write error is returned by a later
     * call; tr_writer_flush and tr_writer_finish return once all is written.
     * 2: the same, the thread at a nice value 10 above the caller's (a
     * recorder short of CPU drains its buffers first, compresses later). */
    int compress_thread;
    /* zstd level of chunks of less than 16 KiB (those of a slow recording,
     * ended by tr_writer_poll); 0 = level.  On such small chunks zstd's
     * strongest levels take 10% off the size, at a cost per chunk that
     * stays small because the chunk is. */
    int small_level;
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
/* tr_writer_frame for a caller that interns every frame of the stream
 * itself, by the same content (its fields as tr_writer_frame keeps them):
 * f is new, and gets a new id without a look-up.  Such a stream's frames
 * are never given to tr_writer_frame, nor to the calls that intern
 * addresses (tr_writer_stack_addrs ...). */
int tr_writer_frame_new(tr_writer *w, const tr_frame *f, uint32_t *id);
/* frames[0] is the leaf (innermost), frames[n-1] the root (outermost). */
int tr_writer_stack(tr_writer *w, const uint32_t *frames, size_t n, uint32_t *id);
/* The stack of frame below the stack parent (0: the root side): a stack a
 * frame at a time, from the root, for a tool that builds stacks node by
 * node.  The same ids as tr_writer_stack. */
int tr_writer_stack_node(tr_writer *w, uint32_t parent, uint32_t frame, uint32_t *id);
/* The same for n frames at once, root side first: ids[i] is the stack of
 * frames[i] below ids[i - 1] (below parent for i = 0), as n calls of
 * tr_writer_stack_node would give; below a node just made none is looked
 * up.  ids may be frames.  On an error the ids before it are set. */
int tr_writer_stack_nodes(tr_writer *w, uint32_t parent, const uint32_t *frames, size_t n, uint32_t *ids);
/* Convenience: intern n raw addresses (one tr_frame each with flags). */
int tr_writer_stack_addrs(tr_writer *w, const uint64_t *addrs, const uint32_t *flags,
                          size_t n, uint32_t *id);
/* The same for a sample of thread (pid, tid): the writer remembers each
 * thread's last stack (a bounded number of threads), and the outer frames
 * this one shares with it cost no look-up.  Same ids as
 * tr_writer_stack_addrs. */
int tr_writer_thread_stack(tr_writer *w, int32_t pid, int32_t tid, const uint64_t *addrs,
                           const uint32_t *flags, size_t n, uint32_t *id);

/* Room for `frames` more frames and `nodes` more stack nodes without
 * growing the writer's tables (a caller that knows about how many it will
 * intern: a filter rewriting a trace).  Changes nothing written.  0, or
 * TR_E_NOMEM / TR_E_INVAL. */
int tr_writer_reserve(tr_writer *w, size_t frames, size_t nodes);

/* Forget every stack interned so far: they are never referred to again
 * (the caller drops the stack ids it holds), later stacks get new ids.
 * Ends the chunk; the next one is a key chunk flagged FORGET, from which
 * on readers drop their stack nodes too (spec/FORMAT.md 5). */
int tr_writer_forget_stacks(tr_writer *w);

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
    /* keep_definitions 3: as 2, but STRING and FRAME records are only
     * absorbed too (a tool that looks them up as the records using them
     * come: tr-symbolize) */
    int keep_definitions; /* 1: also deliver STRING/FRAME/STACK/EVENT_DEF records; 2: the same
                             but stack nodes (STACK, STACK_RUN records) are only absorbed, for a
                             tool that looks them up (tr_reader_stack_node) instead */
    /* 1: decompress the chunks that follow the current one (up to four) on a
     * thread of the reader's own while the caller consumes the current
     * one's records; their buffers are reused.  The records, errors and
     * diagnostics are the same, at the same places.  The thread starts when
     * a second chunk is met (a trace of one chunk gets none).  Only what the
     * input has now is read ahead: a pipe is never waited for, and a
     * tr_read_fn is called no sooner than without. */
    int decompress_thread;
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
/* A chunk the caller has decompressed already, looking ahead in the same
 * input (tr_stream_frame_parse): chunk is its len bytes as they are in the
 * input at byte offset off (the chunk frame and its zstd frame), raw its
 * content, which the caller checked decompresses whole (rsize bytes; the
 * zstd checksum verified, as ZSTD_decompress does), from malloc.  raw
 * becomes the reader's: when the reader meets that chunk, at offset off
 * with the same header and zstd checksum, it takes raw instead of
 * decompressing the chunk a second time.  Returns 0, or TR_E_INVAL (not
 * one whole chunk) / TR_E_NOMEM, raw freed. */
int tr_reader_adopt_chunk(tr_reader *r, uint64_t off, const void *chunk, size_t len, void *raw);
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
 * with *frames pointing to reader-owned memory valid until the next call
 * of tr_reader_stack or tr_reader_next, or a negative tr_error.  The
 * reader keeps 8 bytes per node, not the frames of every stack. */
int tr_reader_stack(tr_reader *r, uint32_t id, const uint32_t **frames);
/* How many times the current stream's writer has forgotten its stacks so
 * far (tr_writer_forget_stacks): node ids from before each time are never
 * referred to again, and the reader has dropped them.  A tool that keeps
 * data per stack node drops it when this changes, and so stays within the
 * memory the writer's stack_limit allows. */
uint64_t tr_reader_stack_forgets(const tr_reader *r);
/* A number that changes whenever what tr_reader_meta() and tr_reader_blob()
 * answer may have changed (a META or BLOB record absorbed, a new stream),
 * never the same for two readers of one process: a caller that looked
 * them up need not look again while it stays the same. */
uint64_t tr_reader_defs_gen(const tr_reader *r);
/* One node of the stack tree: its frame id and its parent's node id (0:
 * the root side ends here).  Returns 0, or TR_E_CORRUPT_RECORD when id is
 * not defined.  For tools that work once per node instead of per stack:
 * a node's parent always has a smaller id. */
int tr_reader_stack_node(tr_reader *r, uint32_t id, uint32_t *parent, uint32_t *frame);
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
/* Decode the record at buf in a chunk's decompressed content (len bytes
 * from there to the content's end) without a reader, for a tool that skims
 * a chunk for a few types (tr-symbolize looks for blobs and mappings
 * before it reads the trace): *rec as tr_reader_next delivers it, except
 * that rec->time is the delta from the record before it (the reader sums
 * them), a stack id written relative to a chain is left relative, a stack
 * copy is not completed from the samples before it, and records that
 * only the reader can decode (stack runs and chains) come with their type
 * alone.  Its fields point into buf.  Returns the record's size in buf
 * (> 0), 0 when len is 0, or TR_E_CORRUPT_RECORD (the record overruns len,
 * or its body is malformed). */
int tr_record_skim(const void *buf, size_t len, tr_record *rec);

/* ------------------------------------------------------------------ */
/* Low-level encoding helpers, shared with tools that build raw bodies. */

size_t tr_varint_put(uint8_t *p, uint64_t v);  /* returns bytes written, <= 10 */
uint32_t tr_crc32c(uint32_t crc, const void *buf, size_t len);

/* Memory: ask for transparent huge pages for a table of several MiB about
 * to be filled (one fault per 2 MiB instead of per 4 KiB; advice only, a
 * smaller table is left alone).  The library's own tables get it; tools
 * call it for theirs. */
void tr_advise_huge(void *p, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* TR_H */
