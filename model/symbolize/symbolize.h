/*
 * symbolize.h - turn the raw addresses of a tr trace into readable frames.
 *
 * One sym_session follows one trace as it is read: feed it every record
 * with sym_observe() (it keeps what it needs: the processes and their maps,
 * in a model/procs.h model fed MMAP, COMM (exec), FORK and EXIT records, of
 * which it resolves in the executable maps; the "kallsyms", "vdso" and JIT map
 * blobs ("perf-PID.map" or "perf-map:PID"), the stream's metadata), and
 * ask it for the frames of a record that carries a stack with
 * sym_resolve_stack().  A reader reading a file can call sym_prescan()
 * first (see below).
 *
 *     sym_options o; sym_options_init(&o); o.lines = 1;
 *     sym_session *s = sym_new(&o);
 *     while ((rc = tr_reader_next(r, &rec)) != 0) {
 *         if (rc < 0) { ... }
 *         sym_observe(s, r, &rec);
 *         if (rec.type == TR_REC_SAMPLE) {
 *             const sym_frame *f; size_t n;
 *             if (sym_resolve_stack(s, r, &rec, &f, &n) >= 0)
 *                 for (size_t i = 0; i < n; i++) use(f[i].func, f[i].module);
 *         }
 *         const char *w; while ((w = sym_next_warning(s)) != NULL) warn(w);
 *     }
 *     sym_finish(s); ... drain the warnings again ...
 *     sym_free(s);
 *
 * Binaries are found by build-id, never by path alone (see sym_options).
 * Samples that carry registers and a user stack copy (perf --call-graph
 * dwarf) are unwound here with libdwfl, one unwinding session per process.
 * Look-ups are cached per address, so memory grows with the number of
 * distinct addresses, not with the number of samples.
 *
 * The reader passed with a record must be the one that delivered it; the
 * session does not keep it between calls.  It works with or without the
 * reader's keep_definitions: metadata and blobs are also looked up in the
 * reader's tables.  r may be NULL (then only the record itself is used:
 * no stack ids, no blob look-ups).
 *
 * The library never prints and never exits: warnings (one per module or
 * per cause, not per sample; the per-process ones summed up in one line
 * per cause by sym_finish() unless opt->each_process) go to opt->warn when
 * set, otherwise into a queue drained with sym_next_warning().  A session is used by one thread
 * at a time.
 */
#ifndef TR_SYMBOLIZE_H
#define TR_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "tr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sym_session sym_session;
struct procs; /* model/procs.h */

typedef struct sym_options {
    /* A root holding copies of the recording machine's files: a recorded
     * path P is looked up as SYMFS/P first.  NULL: none. */
    const char *symfs;
    /* Build-id trees searched in order (DIR/.build-id/xx/rest[.debug]) and
     * for .gnu_debuglink files; /usr/lib/debug is searched after them
     * unless no_default_debug_dir.  NULL-terminated array or NULL. */
    const char *const *debug_dirs;
    int no_default_debug_dir;
    int demangle;      /* 1 (default): C++, Rust legacy and v0 names demangled
                          (libiberty) */
    int lines;         /* 1: fill file and line (default 0: cheaper) */
    int inlines;       /* 1 (default): inlined functions as their own frames */
    int unwind;        /* 1 (default): DWARF-unwind samples with regs + stack copy */
    int debuginfod;    /* 1 (default): ask debuginfod for binaries when
                          DEBUGINFOD_URLS is set.  libdw's own search for
                          separate debug info follows DEBUGINFOD_URLS
                          regardless: unset it to keep libdw off the net */
    int running_kernel;/* 1 (default): use /proc/kallsyms when the trace has no
                          kallsyms blob and its kernel.release is this kernel's */
    int fast_unwind;   /* 1 (default): x86-64 samples are unwound with the CFI
                          rules of each address reduced once and cached, and
                          libdwfl only where they are not of the simple forms;
                          0: libdwfl for every sample (the same frames, slower) */
    /* A directory the session may keep files in to save work in later
     * runs (NULL, the default: none; sym_default_cache_dir() is the usual
     * one).  Today: CACHE_DIR/dwarf/BUILD-ID.debug, the part of a
     * compressed separate debug file's DWARF that inline frames needed,
     * stored uncompressed (an ELF file), so that the next run reads it
     * mapped instead of inflating the debug file again (libc's costs
     * 10-30 ms a run).  Created 0700 as needed; entries are written whole
     * (a temporary file renamed over), checked (checksums included) before
     * what is read of them is used (a damaged, truncated or foreign file
     * is ignored and replaced), and grown when a later run needs more.
     * Also CACHE_DIR/symbols/ (symbol tables) and CACHE_DIR/addrs/ (the
     * frames addresses resolved to, answered from there by the next run).
     * The cache never changes what resolves, only what it costs; failures
     * to read or write it are silent, and it can be deleted at any time. */
    const char *cache_dir;
    /* Warnings: called with one line (no tool name, no newline).  NULL:
     * queue them for sym_next_warning(). */
    void (*warn)(void *ctx, const char *msg);
    void *warn_ctx;
    /* 1: a warning for each process whose addresses are in no recorded
     * mapping or that cannot be unwound, as met; 0 (default): for each of
     * these causes, one line at sym_finish() (the first process's warning
     * and how many other processes had it: a system-wide recording can
     * have hundreds) */
    int each_process;
} sym_options;

/* Defaults: demangle, inlines, unwind, debuginfod, running_kernel, fast_unwind on;
 * no cache_dir. */
void sym_options_init(sym_options *opt);

/* The usual cache directory: "$XDG_CACHE_HOME/tr" when XDG_CACHE_HOME is
 * set and absolute, else "$HOME/.cache/tr" when HOME is absolute, else
 * NULL.  Read from the environment at the first call; the string stays
 * valid for the process's life. */
const char *sym_default_cache_dir(void);

/* A new session, or NULL when out of memory.  opt may be NULL (defaults).
 * The options' strings must stay valid for the session's life. */
sym_session *sym_new(const sym_options *opt);
void sym_free(sym_session *s);
/* sym_free for a tool about to exit: what the session writes (its files'
 * caches) is written, but its per-address entries and strings, which the
 * exit frees at once, are left allocated (reachable, for leak checkers). */
void sym_free_at_exit(sym_session *s);

/* Feed one record as read (every record; those it does not need are
 * ignored).  STREAM_START forgets the previous stream's processes.
 * Returns 0, or TR_E_NOMEM. */
int sym_observe(sym_session *s, tr_reader *r, const tr_record *rec);
/* The processes, threads, comms and maps sym_observe has fed (model/procs.h),
 * for a tool that needs them too: the session's, valid until sym_free. */
const struct procs *sym_procs(const sym_session *s);

/* Optional, before reading: scan a whole trace held in memory for what
 * recorders write at its end (the "kallsyms" blob, "perf-PID.map" /
 * "perf-map:PID" JIT maps, the "vdso" image), so that frames met before
 * those blobs resolve too.  Each stream's tables are installed when
 * sym_observe() sees that stream's STREAM_START.  Without it the session
 * still resolves kernel frames from /proc/kallsyms when the trace's
 * kernel.release is this machine's.  Returns 0 or TR_E_NOMEM; a damaged
 * trace is scanned as far as it reads. */
int sym_prescan(sym_session *s, const void *buf, size_t len);
/* The same, reading fd from its current offset to its end (the caller
 * rewinds it, e.g. lseek(fd, 0, SEEK_SET), before reading it again). */
int sym_prescan_fd(sym_session *s, int fd);
/* The same, cheaper, for a whole trace in memory that stays there (mapped
 * or read) until sym_free(): only each stream's last chunks are read now
 * (recorders write those blobs last); the whole trace is scanned later,
 * once, only if a frame needs a table those chunks lack (a kernel address
 * without kallsyms, a JIT address without its map, a vDSO without its
 * image).  What resolves is the same as with sym_prescan().  Called after
 * the reading began (a reader that prescans only when a frame needs it),
 * the stream under way gets its tables at once.  The chunks it decompresses
 * (up to 8 MiB of them) go to the reader that the next sym_observe() names,
 * the reader of this same input from its first byte, which then does not
 * decompress them again (tr_reader_adopt_chunk). */
int sym_prescan_lazy(sym_session *s, const void *buf, size_t len);
/* The input fd, a regular file of which exactly the first `read` bytes
 * were read so far, mapped for the prescan (*len its size; munmap(p, *len)
 * after sym_free); NULL when it is no such file (a pipe, a file read from
 * elsewhere) or cannot be mapped. */
void *sym_map_input(int fd, size_t read, size_t *len);

/* Flags of sym_frame: the TR_FRAME_* bits (TR_FRAME_KERNEL, TR_FRAME_JIT,
 * TR_FRAME_INLINE, TR_FRAME_SYMBOLIZED) plus SYM_UNKNOWN. */
enum { SYM_UNKNOWN = 1u << 16 /* no symbol: func is "[unknown]" */ };

typedef struct sym_frame {
    uint64_t addr;       /* the instruction address as recorded */
    uint32_t flags;      /* TR_FRAME_* | SYM_UNKNOWN; TR_FRAME_SYMBOLIZED always */
    const char *func;    /* function name (demangled unless told), "[unknown]" */
    const char *module;  /* recorded path of the module, "[kernel.kallsyms]",
                            "[jit]", "[vdso]", or "[unknown]" */
    uint64_t offset;     /* addr - start of func (0 when unknown) */
    const char *file;    /* source file, NULL when unknown or lines off */
    uint32_t line;       /* source line, 0 unknown */
} sym_frame;
/* All strings of a sym_frame belong to the session and stay valid until
 * sym_free(); equal strings are the same pointer (interned), so callers
 * may compare and hash the pointers. */

/* The frames of the stack of rec (TR_REC_SAMPLE, TR_REC_SYSCALL or
 * TR_REC_LIBCALL), leaf first, kernel frames before user frames as the
 * trace records them, each inlined function as its own frame before the
 * function it was inlined into.  A sample with registers and a user stack
 * copy is unwound (its recorded user frames are used when unwinding gives
 * fewer).  Frames the trace already has symbolized are returned as they
 * are (so running twice changes nothing).  *out points into the session
 * and stays valid until the next call.  Returns the number of frames
 * (0: the record has no stack) or a negative tr_error. */
int sym_resolve_stack(sym_session *s, tr_reader *r, const tr_record *rec,
                      const sym_frame **out, size_t *n);

/* The same, a frame at a time, for a tool that maps a stack tree node by
 * node and so resolves each node once, whatever the number of stacks
 * through it.  sym_stack_begin() once for the record (process pid); then
 * for each frame id of its stack, from the leaf up: the leaf frames of the
 * kernel part and of the user part are looked up as they are, the others
 * as return addresses (ret), so a frame's frames depend on what is below
 * it: a state, 0 at the leaf, or-ed with sym_frame_seen() of each frame,
 * and ret = (state & sym_frame_seen()) != 0 before it.  sym_resolve_frame
 * gives in *out the frame's frames (none for a context marker or a zero,
 * inlined functions first) as sym_resolve_stack() would, valid until the
 * next call. */
typedef unsigned sym_frame_state;
enum { SYM_SEEN_KERNEL = 1u, SYM_SEEN_USER = 2u };
int sym_stack_begin(sym_session *s, tr_reader *r, int32_t pid);
sym_frame_state sym_frame_seen(const sym_session *s, tr_reader *r, uint32_t frame);
int sym_resolve_frame(sym_session *s, tr_reader *r, uint32_t frame, int ret, const sym_frame **out, size_t *n);

/* Take the reader's metadata (kernel.release) and blobs (kallsyms, vdso)
 * now, as sym_resolve_stack() does itself: before sym_resolve_addr() on a
 * reader whose records sym_observe() was fed.  0 or TR_E_NOMEM. */
int sym_sync(sym_session *s, tr_reader *r);

/* Whether kernel addresses would resolve now without reading this
 * machine's /proc/kallsyms: the trace's kallsyms is known (from the reader,
 * or found ahead by the prescan, which this may run), or the running
 * kernel's was loaded already for a frame.  1 or 0. */
int sym_kernel_known(sym_session *s);

/* Resolve a single address of process pid (kernel when flags has
 * TR_FRAME_KERNEL).  Fills up to max frames (inlined functions first),
 * returns how many (>= 1) or a negative tr_error. */
int sym_resolve_addr(sym_session *s, int32_t pid, uint64_t addr, uint32_t flags,
                     sym_frame *out, size_t max);

/* At the end of the input: the per-process warnings summed up (see
 * each_process), to opt->warn or the queue.  Call it once, before sym_free. */
void sym_finish(sym_session *s);
/* The next queued warning (valid until the next call), or NULL. */
const char *sym_next_warning(sym_session *s);

/* Modules that resolved addresses in the current stream, with how they
 * resolved (once per module per stream). */
typedef struct sym_module_info {
    const char *module;        /* as in sym_frame.module */
    uint32_t status;           /* TR_MOD_* */
    const uint8_t *build_id; size_t build_id_len;
    const char *detail;        /* why, or which file was used; never NULL */
} sym_module_info;
/* Iterate the modules whose status is not yet reported: returns 1 with
 * *info filled and marks it reported, 0 when there are no more.  Call at
 * the end of a stream (tr-symbolize writes MODULE_STATUS records). */
int sym_modules_take_new(sym_session *s, sym_module_info *info);

/* Functions resolved since the last call (for SYMBOL records): returns 1
 * with *sym filled (start and size in the module's address space for user
 * code, absolute for kernel and JIT), 0 when there are no more. */
typedef struct sym_symbol_info {
    const char *module, *name;
    uint64_t start, size;
    uint32_t flags;            /* TR_FRAME_KERNEL, TR_FRAME_JIT */
} sym_symbol_info;
int sym_symbols_take_new(sym_session *s, sym_symbol_info *sym);

/* ---- The code of a module: for a tool that reads the instructions at
 * sampled addresses (tr-annotate) ---- */
/* A module's binary as the session found it (by build-id, as for
 * resolving: never a second search): one per module, valid until sym_free. */
typedef struct sym_symfile sym_code;
/* The module holding user address addr of process pid by the maps observed
 * so far (call it as the records come, as for resolving), its binary looked
 * up on first use; *vaddr gets addr as an address of the module's file (its
 * ELF virtual address).  NULL when addr is in no file's executable mapping
 * (kernel, JIT, anonymous memory) or out of memory. */
sym_code *sym_code_at(sym_session *s, int32_t pid, uint64_t addr, uint64_t *vaddr);
/* How the module's binary was found (or why not): the module's recorded
 * path, TR_MOD_* status, the file used or the reason, its build-id; the
 * file used (NULL when none; valid until sym_free) in *found. */
void sym_code_info(const sym_code *c, sym_module_info *info, const char **found);
/* The ELF symbol holding vaddr: its name (demangled unless told; interned),
 * start and size (file addresses).  0, or -1 when there is none (or no
 * binary). */
int sym_code_symbol(sym_session *s, sym_code *c, uint64_t vaddr, const char **name, uint64_t *start,
                    uint64_t *size);
/* Up to len bytes of the file's code from vaddr on into buf: how many (no
 * more than the section holds from there), 0 when the binary has none there
 * (not found, or a separate debug file whose sections hold no bytes). */
size_t sym_code_read(sym_code *c, uint64_t vaddr, uint8_t *buf, size_t len);
/* The line table's source file (joined to the unit's compilation directory
 * when relative; interned) and line of vaddr: 0, or -1 when the module has
 * no line for it. */
int sym_code_line(sym_session *s, sym_code *c, uint64_t vaddr, const char **file, uint32_t *line);

/* Statistics, for --stats and the benchmark. */
typedef struct sym_stats {
    uint64_t frames, cache_hits, unwound_samples, unwind_failures;
    uint64_t addr_cache_entries, modules, processes;
    uint64_t unwound_fast; /* of unwound_samples: by the cached x86-64 rules, not libdwfl */
    uint64_t symbol_searches; /* of addr_cache_entries: libdwfl symbol table searches */
    uint64_t unit_indexes;    /* DWARF units whose top-level DIEs were indexed */
    uint64_t dwarf_ahead;     /* separate debug files opened ahead of need, then used */
    uint64_t resolved_ahead;  /* of addr_cache_entries: resolved while a debug file inflated */
} sym_stats;
void sym_get_stats(const sym_session *s, sym_stats *st);

#ifdef __cplusplus
}
#endif
#endif /* TR_SYMBOLIZE_H */
