/*
 * stacks.h - a sample's frames as every tool sees them, and the folding
 * rules that turn them into folded stacks ("root;caller;...;leaf COUNT"),
 * shared by tr-fold (trace and perf script text input), tr-diff (which
 * folds through tr-fold) and the views that show folded stacks.
 *
 * Frames.  A stacks_frame is one frame of a stack: its address, function,
 * module, source position, and what kind of code it is (user, kernel, JIT,
 * inlined).  stacks_frames_read() fills an array of them from a trace
 * record's stack as recorded: symbolized frames with their strings
 * resolved, raw frames with "[unknown]" functions and the module the caller
 * knows for the address.
 *
 *     stacks_frames fs = {0};
 *     int n = stacks_frames_read(&fs, r, &rec, module_of, ctx);   leaf first
 *     ... fs.v[0 .. n) ...
 *     stacks_frames_free(&fs);
 *
 * Folding, the rules of FlameGraph's stackcollapse-perf.pl (commit 41fee1f):
 *   - the root is the command name, "comm-PID" with --pid, "comm-PID/TID"
 *     with --tid; its spaces become '_'; a root starting "java" marks the
 *     sample as a Java process;
 *   - each frame becomes one element, or several when its function is an
 *     inline chain "a->b->c" (perf script): a trailing "+0x1f" offset is cut;
 *     a function starting with '(' drops the frame; "[unknown]" becomes
 *     "[module basename]" (the module-only fallback), "[unknown]" when the
 *     module is unknown too, with " <addr>" (hex) inside the brackets when
 *     addrs is set;
 *   - each element is sanitised (stacks_tidy): ';' becomes ':', the name is
 *     cut at its first '(' (argument lists) unless that starts
 *     "(anonymous namespace)" or the name is a Go method ".(...)."; quotes
 *     are dropped; in a Java process a name "Lpkg/Cls..." loses its 'L';
 *   - annotations: the inlined elements of a chain get "_[i]", and so do
 *     frames of kind STACKS_INLINE with mark_inline (as stackcollapse-perf.pl
 *     leaves the frames of its --inline unmarked); no_inline drops both kinds
 *     of inlined elements; kernel frames
 *     "_[k]" (kernel), JIT frames "_[j]" (jit); STACKS_FROM_MODULE takes the
 *     kind from the module as perf script prints it ("[...]" or "...vmlinux"
 *     is kernel unless it says "unknown"; "/tmp/perf-PID.map" is JIT);
 *   - a stack becomes the line root;outermost;...;leaf: the frames are
 *     given leaf first, the elements of one frame keep their order;
 *   - frames given by name (syscalls, tracepoint events, off-CPU states) are
 *     taken as they are, untidied.
 *
 *     stacks_folder f;
 *     stacks_folder_init(&f, &opts, &map);          map: line -> n += weight
 *     stacks_folder_begin(&f, comm, pid, tid, weight);
 *     for each frame, leaf first: stacks_folder_frame(&f, &frame);
 *     stacks_folder_end(&f);                       counts the line in map
 *     stacks_folder_free(&f);
 *
 * Element names are interned once (f.names); a sample is a list of name ids,
 * so no allocation happens per sample once the buffers have grown.  Never
 * prints or exits; functions return 0 or a negative tr_error (TR_E_NOMEM).
 */
#ifndef MODEL_STACKS_H
#define MODEL_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "array.h"
#include "hashmap.h"
#include "smap.h"
#include "tr.h"

/* ---- frames -------------------------------------------------------- */

/* What code a frame is, for its annotation. */
enum stacks_kind {
    STACKS_FROM_MODULE = 0, /* unknown: judged from the module name (perf script text) */
    STACKS_USER,
    STACKS_KERNEL,
    STACKS_JIT,
    STACKS_INLINE,          /* a function inlined at this address */
};

typedef struct stacks_frame {
    uint64_t addr;          /* instruction address as recorded */
    const char *func;       /* function name; "[unknown]" when not known */
    const char *module;     /* module path, "[kernel.kallsyms]", or "[unknown]" */
    const char *file;       /* source file, NULL when not known */
    uint32_t line;          /* source line, 0 when not known */
    uint64_t offset;        /* addr - function start (symbolized frames) */
    uint32_t flags;         /* TR_FRAME_*: TR_FRAME_SYMBOLIZED when func/module are the trace's */
    int kind;               /* enum stacks_kind */
} stacks_frame;

/* The kind of a frame with these TR_FRAME_* flags: inline before kernel
 * before JIT; else user. */
int stacks_kind(uint32_t flags);

/* The module of a raw user frame at addr of process pid, or NULL when not
 * known (the frame's module is then "[unknown]"). */
typedef const char *stacks_module_fn(void *ctx, int32_t pid, uint64_t addr);

/* A reusable array of frames: v[0 .. n), leaf first.  A zeroed struct is
 * empty.  lost counts the stacks and frames whose definitions were missing
 * (lost chunks), over all reads, for the caller to report. */
typedef struct stacks_frames {
    stacks_frame *v;
    size_t n, cap;
    uint64_t lost;
} stacks_frames;

/* The recorded stack of rec (TR_REC_SAMPLE, TR_REC_SYSCALL, TR_REC_LIBCALL;
 * other records have none) into fs->v, leaf first, replacing what was there.
 * Symbolized frames take func, module and file from the trace's strings
 * ("[unknown]" for a missing func or module); raw frames get func
 * "[unknown]" and module "[kernel.kallsyms]" (kernel frames), else
 * module_of's answer (module_of may be NULL), else "[unknown]".  The strings
 * belong to r (valid until its stream ends) or to module_of.  An unknown
 * stack reads as no frames and an unknown frame is left out; each counts in
 * fs->lost.  Returns the number of frames, or TR_E_NOMEM. */
int stacks_frames_read(stacks_frames *fs, tr_reader *r, const tr_record *rec,
                       stacks_module_fn *module_of, void *ctx);
void stacks_frames_free(stacks_frames *fs);

/* ---- folding --------------------------------------------------------- */

/* The folding options (tr-fold's --pid --tid --kernel --jit --addrs
 * --no-inline --mark-inline --srcline). */
typedef struct stacks_fold_opts {
    int pid, tid;        /* root "comm-pid", "comm-pid/tid" */
    int kernel, jit;     /* _[k], _[j] annotations */
    int addrs;           /* [module <addr>] for unknown symbols */
    int no_inline;       /* drop inlined elements ("a->b" after the first, STACKS_INLINE) */
    int mark_inline;     /* "_[i]" on STACKS_INLINE frames too */
    int srcline;         /* stacks_folder_frame: ":file:line" of frames with a line (else
                            ":module"), as stackcollapse-perf.pl --srcline on perf script -F+srcline */
} stacks_fold_opts;

/* A piece of text, not NUL-terminated. */
typedef struct stacks_text {
    const char *p;
    size_t n;
} stacks_text;

/* A frame's source line for its element (perf script -F+srcline): called
 * once per element when given; sets *line, *len to the raw line (its
 * "[...]" parts are removed and it is trimmed in place) and returns 1, or
 * returns 0 for none, or a negative tr_error that stops the folding. */
typedef int stacks_srcline_fn(void *ctx, char **line, size_t *len);

typedef struct stacks_buf {
    char *p;
    size_t n, cap;
} stacks_buf;

typedef struct stacks_ids {
    uint32_t *v;
    size_t n, cap;
} stacks_ids;

/* The folder: one sample at a time, counted into a map of folded lines.
 * Its fields are open for stacks_folder_add_ids (a reader's cache of the
 * elements a text line gave) and for tests; change them only through the
 * functions here. */
typedef struct stacks_folder {
    const stacks_fold_opts *o;
    struct smap *map;        /* folded line -> e->n, the summed weights */
    struct smap names;       /* element and root names -> id (the entry's index) */
    stacks_ids elems;        /* the sample's elements, leaf first, as name ids */
    size_t *groups;          /* the first element of each frame */
    size_t ngroups, capgroups;
    stacks_buf root, line, tmp;
    uint32_t root_id;
    int have_root;           /* a sample is open */
    int java;                /* its root starts with "java" */
    uint64_t weight;
    uint64_t samples;        /* samples counted by stacks_folder_end */
    size_t *last_entry;      /* when set: the index of the map entry the last sample went to */
    int oom;                 /* sticky: a call ran out of memory */
    /* the elements of trace frames by (frame id, Java-ness): stacks_folder_trace_frame */
    struct stacks_cached_frame { uint32_t off, n; uint8_t set, group; } *cached;
    size_t ncached;
    stacks_ids cached_ids;   /* the elements of the cached frames, one run each */
    /* the last root interned (its text before '_' and its id): a thread's
     * samples come together */
    stacks_buf last_root;
    uint32_t last_root_id;
    int have_last_root;
    /* the lines folded so far by what makes them (the root, the elements
     * and their groups): a line met again is found without writing and
     * hashing its text.  (hash, elements) -> index + 1 in seqs */
    hashmap by_ids;
    struct stacks_seq {
        size_t off, goff, entry; /* in seq_ids, in seq_groups; the map's entry */
        size_t nelems, ngroups;
        uint32_t root;
    } *seqs;
    size_t nseqs, capseqs;
    stacks_ids seq_ids;
    struct { size_t *v, n, cap; } seq_groups;
} stacks_folder;

/* An empty folder adding to map (the caller's), with options o (kept by
 * pointer). */
void stacks_folder_init(stacks_folder *f, const stacks_fold_opts *o, struct smap *map);
void stacks_folder_free(stacks_folder *f);

/* Begin a sample of thread tid of process pid named comm, of weight w
 * (what stacks_folder_end adds to its line's count).  Forgets an unended
 * sample. */
void stacks_folder_begin(stacks_folder *f, const char *comm, int32_t pid, int32_t tid, uint64_t w);
/* The same from perf script text: comm, pid and tid as written there. */
void stacks_folder_begin_text(stacks_folder *f, stacks_text comm, stacks_text pid, stacks_text tid,
                              uint64_t w);

/* Add the next frame (leaf first) of the sample: its elements by the rules
 * above.  0, or TR_E_NOMEM. */
int stacks_folder_frame(stacks_folder *f, const stacks_frame *fr);
/* The same from perf script text: pc is the address as written (shown with
 * addrs), func as written (with "+0x.." and inline chains), mod the module;
 * srcline (may be NULL) gives each element's source line.  0, TR_E_NOMEM,
 * or srcline's error. */
int stacks_folder_frame_text(stacks_folder *f, stacks_text pc, stacks_text func, stacks_text mod,
                             int kind, stacks_srcline_fn *srcline, void *ctx);
/* Add the next frame (leaf first, as stacks_folder_frame) given by its
 * element name, untouched by the rules: a syscall, an event, an off-CPU
 * state.  0, or TR_E_NOMEM. */
int stacks_folder_name(stacks_folder *f, const char *name);

/* Add the next frame (leaf first) of the sample: frame id of reader r's
 * current stream, tf its definition, symbolized (TR_FRAME_SYMBOLIZED), taken
 * as stacks_frames_read takes it.  Its elements are found by the rules once
 * per id (and per Java-ness of the root) and kept in the folder: a stream's
 * ids keep their definitions.  0, or TR_E_NOMEM. */
int stacks_folder_trace_frame(stacks_folder *f, tr_reader *r, uint32_t id, const tr_frame *tf);
/* Forget the frames stacks_folder_trace_frame kept: at a stream's start
 * (frame ids are the stream's). */
void stacks_folder_forget_frames(stacks_folder *f);

/* The folded line of the sample so far (root;...;leaf) in *line, *len,
 * valid until the next call; 0, or TR_E_NOMEM. */
int stacks_folder_text(stacks_folder *f, const char **line, size_t *len);
/* End the sample: add its weight to its line's count (when one was begun)
 * and start over.  0, or TR_E_NOMEM. */
int stacks_folder_end(stacks_folder *f);
/* End the sample as one whose line is already entry (an index into the
 * map, from last_entry after an earlier sample of the same stack): its
 * weight is added there without building the line.  0, or TR_E_NOMEM. */
int stacks_folder_end_at(stacks_folder *f, size_t entry);

/* Sanitise one element name in place (name[len] must be writable): ';' to
 * ':', cut at the first '(' but "(anonymous namespace)" unless a Go method,
 * quotes dropped.  Returns the new length. */
size_t stacks_tidy(char *name, size_t len);

/* Start a frame whose elements are the ids[0 .. n) of f->names (elements a
 * frame gave before, kept by the caller).  0, or TR_E_NOMEM. */
static inline int stacks_folder_add_ids(stacks_folder *f, const uint32_t *ids, size_t n)
{
    /* capacity checked here first: this runs once per line of perf script text */
    if ((f->ngroups == f->capgroups &&
         array_reserve(&f->groups, &f->capgroups, f->ngroups + 1, sizeof *f->groups, 256) < 0) ||
        (f->elems.cap - f->elems.n < n &&
         array_reserve(&f->elems.v, &f->elems.cap, f->elems.n + n, sizeof *f->elems.v, 256) < 0)) {
        f->oom = 1;
        return TR_E_NOMEM;
    }
    f->groups[f->ngroups++] = f->elems.n;
    for (size_t k = 0; k < n; k++)
        f->elems.v[f->elems.n++] = ids[k];
    return 0;
}

#endif
