/*
 * rewrite.c - copy a trace record by record, replacing every stack by a
 * stack of symbolized frames, and add MODULE_STATUS (and SYMBOL) records
 * at the end of each stream.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "rewrite.h"
#include "symbolize/sym_int.h"

struct rw {
    const struct rewrite_options *o;
    sym_session *sym;
    tr_reader *r;
    tr_writer *w;
    int out_fd;
    hashmap strids;   /* interned string pointer -> output string id + 1 */
    struct str_id { const char *s; uint32_t id; } *strcache; /* strids' last answers, by pointer */
    /* Each node of the input's stack tree mapped once, and each input frame
     * resolved once: by id, the memo generation and state they were for
     * (a process's generation changes when what its addresses mean may
     * change: a mapping, an exec; the nodes are dropped when the input's
     * writer forgot its stacks) */
    struct node_memo { uint32_t gen, state, out, depth; } *nodes; /* depth: of out */
    size_t nnodes;
    uint32_t node_base;  /* nodes[i] is input node node_base + i */
    uint64_t forgets;    /* the input's stack forgets seen */
    /* seen: sym_frame_seen's bits, and which fields are set: HAS_SEEN, HAS_IDS(ret) */
    struct frame_memo { uint32_t gen, seen; uint32_t n[2], first[2]; } *frames;
    hashmap gens;        /* pid -> its memo generation (low 32 bits) and the blob epoch it was given in */
    int32_t gen_pid;     /* the last pid memo_gen looked up, and its entry in gens */
    uint64_t gen_val;    /* (0: none) */
    uint32_t next_gen, blob_epoch;
    size_t nframes;
    uint32_t *outf;      /* the output frame ids the frame memos point into */
    size_t noutf, capoutf;
    /* memo: index in nodes; end: the output frames of the path down to it */
    struct path_node { uint32_t memo, frame, end; sym_frame_state state, seen; } *path;
    size_t path_cap;
    uint32_t *chain;     /* a path's output frames, root side first, then their stack nodes */
    size_t chain_cap;
    int begun;           /* sym_stack_begin called for the record */
    int memos_used;      /* a stream ended: its frame memos are to be forgotten */
    hashmap framesets;/* 128-bit hash of resolved frames -> output stack id + 1 (per stream) */
    struct frame_id *fr; /* the output frames written (per stream) */
    size_t nfr, capfr;
    uint32_t *frslot;    /* open addressing over fr: index + 1, 0 empty */
    size_t nfrslot;      /* a power of two, or 0 */
    uint32_t *fids;
    size_t fcap;
    int status;
    uint64_t samples, frames_in, stacks_new, stacks_memo, frames_written, nodes_mapped;
};

static void warn_cb(void *ctx, const char *msg)
{
    (void)ctx;
    cli_warn("%s", msg);
}

/* Write error: fatal, with the output's name. */
static int werr(struct rw *c, int rc)
{
    if (rc >= 0)
        return 0;
    if (rc == TR_E_EPIPE)
        exit(CLI_EXIT_FAIL);
    cli_die(CLI_EXIT_FAIL, "%s: %s", c->o->out_name, tr_strerror(rc));
}

#define STRCACHE 4096 /* slots of strcache (a power of two) */

static uint32_t out_string(struct rw *c, const char *s)
{
    if (!s)
        return 0;
    if (!c->strcache && !(c->strcache = calloc(STRCACHE, sizeof *c->strcache)))
        cli_die(CLI_EXIT_FAIL, "out of memory");
    /* most lookups are of a few thousand strings: one probe, no hashing */
    struct str_id *x = &c->strcache[((uintptr_t)s >> 4) & (STRCACHE - 1)];
    if (x->s == s)
        return x->id;
    uintptr_t v = (uintptr_t)hashmap_get(&c->strids, (uintptr_t)s, 0);
    uint32_t id = (uint32_t)(v - 1);
    if (!v) {
        werr(c, tr_writer_string(c->w, s, strlen(s), &id));
        if (hashmap_put(&c->strids, (uintptr_t)s, 0, (void *)(uintptr_t)(id + 1ull)) < 0)
            cli_die(CLI_EXIT_FAIL, "out of memory");
    }
    *x = (struct str_id){s, id};
    return id;
}

/* A string id of the input, re-interned in the output. */
static uint32_t copy_string(struct rw *c, uint32_t id)
{
    if (!id)
        return 0;
    size_t len;
    const char *s = tr_reader_string(c->r, id, &len);
    if (!s)
        return 0;
    uint32_t out;
    werr(c, tr_writer_string(c->w, s, len, &out));
    return out;
}

static uint32_t resolve_and_write(struct rw *c, const tr_record *rec);

/* An output frame written: its frame and its id in the output stream. */
struct frame_id {
    sym_frame f;
    uint32_t id;
};

static void forget_frame_ids(struct rw *c)
{
    free(c->fr);
    free(c->frslot);
    c->fr = NULL;
    c->frslot = NULL;
    c->nfr = c->capfr = c->nfrslot = 0;
}

/* The flags a frame is written with: two frames the same but for the
 * others (SYM_UNKNOWN) are one frame of the output. */
#define OUT_FLAGS(f) ((f)->flags & 0xffffu)

/* Strings are interned, so their pointers stand for them. */
static size_t frame_hash(const sym_frame *f)
{
    uint64_t h = (f->addr ^ (uint64_t)OUT_FLAGS(f) << 48) * 0x9e3779b97f4a7c15ull ^ (uintptr_t)f->func;
    h = (h ^ (h >> 29) ^ f->offset) * 0xbf58476d1ce4e5b9ull ^ (uintptr_t)f->module;
    h = (h ^ (h >> 32) ^ (uintptr_t)f->file ^ (uint64_t)f->line << 40) * 0x94d049bb133111ebull;
    return (size_t)(h ^ (h >> 31));
}

static int same_frame(const sym_frame *a, const sym_frame *b)
{
    return a->addr == b->addr && a->func == b->func && OUT_FLAGS(a) == OUT_FLAGS(b) && a->module == b->module &&
           a->offset == b->offset && a->file == b->file && a->line == b->line;
}

/* n slots (a power of two, more than twice the frames), the frames placed again. */
static void frame_slots_grow(struct rw *c, size_t n)
{
    uint32_t *s = calloc(n, sizeof *s);
    if (!s)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    for (size_t i = 0; i < c->nfr; i++) {
        size_t h = frame_hash(&c->fr[i].f) & (n - 1);
        while (s[h])
            h = (h + 1) & (n - 1);
        s[h] = (uint32_t)i + 1;
    }
    free(c->frslot);
    c->frslot = s;
    c->nfrslot = n;
}

/* The output id of frame f: written once per stream.  Every output frame
 * is interned here, by the content the writer keeps (OUT_FLAGS, strings
 * by their interned pointers: one id each), so the writer is told it is
 * new instead of looking it up again. */
static uint32_t out_frame(struct rw *c, const sym_frame *f)
{
    if (2 * (c->nfr + 1) > c->nfrslot)
        frame_slots_grow(c, c->nfrslot ? 2 * c->nfrslot : 1024);
    size_t mask = c->nfrslot - 1, h = frame_hash(f) & mask;
    for (uint32_t v; (v = c->frslot[h]) != 0; h = (h + 1) & mask)
        if (same_frame(&c->fr[v - 1].f, f))
            return c->fr[v - 1].id;
    tr_frame fr = {
        .addr = f->addr,
        .flags = OUT_FLAGS(f),
        .func = out_string(c, f->func),
        .module = out_string(c, f->module),
        .file = out_string(c, f->file),
        .offset = f->offset,
        .line = f->line,
    };
    if (array_reserve(&c->fr, &c->capfr, c->nfr + 1, sizeof *c->fr, 1024) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    struct frame_id *x = &c->fr[c->nfr];
    werr(c, tr_writer_frame_new(c->w, &fr, &x->id));
    c->frames_written++;
    x->f = *f;
    c->frslot[h] = (uint32_t)++c->nfr;
    return x->id;
}

static uint32_t out_stack(struct rw *c, const sym_frame *f, size_t n)
{
    if (n == 0)
        return 0;
    if (array_reserve(&c->fids, &c->fcap, n, sizeof *c->fids, 64) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    for (size_t i = 0; i < n; i++)
        c->fids[i] = out_frame(c, &f[i]);
    uint32_t id;
    werr(c, tr_writer_stack(c->w, c->fids, n, &id));
    return id;
}

/* The stack nodes of a trace of n frames, about: on the suite's -g traces
 * 1.5 to 2.5 per frame (but on deep recursions, where they grow) */
#define NODES_HINT(n) ((n) * 5 / 2)
#define MAX_DEPTH 4096     /* frames a reader materialises (spec/FORMAT.md 8) */
#define MAX_MEMO (1u << 24) /* ids past this far are mapped afresh each time */
#define MAX_OUTF (1u << 22) /* output frame ids kept for the frame memos */
#define MEMO_SET 8u         /* a node memo's state: set */
#define HAS_IDS(ret) (4u << (ret)) /* a frame memo's n[ret], first[ret]: set */
#define HAS_SEEN 16u        /* a frame memo's seen bits: set */

/* A memo array of n elements grown (zeroed) to hold index idx < MAX_MEMO. */
static void memo_grow(void **arr, size_t *n, size_t size, uint32_t idx)
{
    if (array_reserve_zeroed(arr, n, (size_t)idx + 1, size, 1024) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
}

/* The slot of id in a memo array of n elements, grown to hold it, or NULL
 * past MAX_MEMO (inline: several times per stack node). */
static inline void *memo_slot(void **arr, size_t *n, size_t size, uint32_t idx)
{
    if (idx >= MAX_MEMO)
        return NULL;
    if (idx >= *n)
        memo_grow(arr, n, size, idx);
    return (uint8_t *)*arr + (size_t)idx * size;
}

/* What an address means may have changed: resolve every frame again. */
static void forget_memos(struct rw *c)
{
    if (c->nodes)
        memset(c->nodes, 0, c->nnodes * sizeof *c->nodes);
    if (c->frames)
        memset(c->frames, 0, c->nframes * sizeof *c->frames);
    c->noutf = 0;
}

/* The input's stack nodes are gone (a new stream, or its writer forgot
 * them): the next node id starts the memo anew. */
static void forget_nodes(struct rw *c)
{
    free(c->nodes);
    c->nodes = NULL;
    c->nnodes = 0;
}

/* The memo generation of process pid: memos made for another generation
 * do not count.  Each generation is given once (never 0). */
static uint32_t memo_gen(struct rw *c, int32_t pid)
{
    if (!c->gen_val || c->gen_pid != pid) { /* records of a process come together */
        c->gen_pid = pid;
        c->gen_val = (uintptr_t)hashmap_get(&c->gens, (uint32_t)pid, 0);
    }
    uintptr_t v = c->gen_val;
    if (v && (uint32_t)(v >> 32) == c->blob_epoch)
        return (uint32_t)v;
    if (++c->next_gen == 0) { /* 4 billion generations: the memos start anew */
        forget_memos(c);
        c->next_gen = 1;
    }
    uint64_t nv = (uint64_t)c->blob_epoch << 32 | c->next_gen;
    if (hashmap_put(&c->gens, (uint32_t)pid, 0, (void *)(uintptr_t)nv) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    c->gen_pid = pid;
    c->gen_val = nv;
    return c->next_gen;
}

/* What process pid's addresses mean may have changed (a mapping, an exec,
 * a fork making it): its memos no longer count. */
static void memo_bump(struct rw *c, int32_t pid)
{
    c->gen_val = 0;
    if (hashmap_get(&c->gens, (uint32_t)pid, 0) && /* a blob epoch never current: */
        hashmap_put(&c->gens, (uint32_t)pid, 0, (void *)(uintptr_t)((uint64_t)UINT32_MAX << 32)) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
}

/* The output frame ids of input frame `frame` of a process of memo
 * generation gen, as a return address (ret) or not: *ids, n of them,
 * inlined functions first. */
static size_t frame_ids(struct rw *c, uint32_t gen, uint32_t frame, int ret, const uint32_t **ids)
{
    struct frame_memo *m = memo_slot((void **)&c->frames, &c->nframes, sizeof *c->frames, frame);
    if (m && m->gen == gen && (m->seen & HAS_IDS(ret))) {
        *ids = c->outf + m->first[ret];
        return m->n[ret];
    }
    const sym_frame *f;
    size_t nf;
    if (sym_resolve_frame(c->sym, c->r, frame, ret, &f, &nf) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    if (c->noutf + nf > MAX_OUTF) { /* frames resolved again and again for processes taking turns */
        forget_memos(c);
        m = memo_slot((void **)&c->frames, &c->nframes, sizeof *c->frames, frame);
    }
    if (array_reserve(&c->outf, &c->capoutf, c->noutf + nf, sizeof *c->outf, 256) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    size_t first = c->noutf;
    for (size_t k = 0; k < nf; k++)
        c->outf[c->noutf++] = out_frame(c, &f[k]);
    if (m) {
        if (m->gen != gen)
            m->seen = 0;
        m->gen = gen;
        m->seen |= HAS_IDS(ret);
        m->first[ret] = (uint32_t)first;
        m->n[ret] = (uint32_t)nf;
    }
    *ids = c->outf + first;
    return nf;
}

/* The state sym_frame_seen gives input frame `frame`, memoised with it. */
static sym_frame_state frame_seen(struct rw *c, uint32_t gen, uint32_t frame)
{
    struct frame_memo *m = memo_slot((void **)&c->frames, &c->nframes, sizeof *c->frames, frame);
    if (m && m->gen == gen && (m->seen & HAS_SEEN))
        return m->seen & (SYM_SEEN_KERNEL | SYM_SEEN_USER);
    sym_frame_state seen = sym_frame_seen(c->sym, c->r, frame);
    if (m) {
        if (m->gen != gen)
            m->seen = 0;
        m->gen = gen;
        m->seen |= HAS_SEEN | seen;
    }
    return seen;
}

/* The output stack of input stack node `in` of a record of process pid:
 * from the nearest node below the root already mapped (for the same
 * process and state), each node's frames appended under its parent's
 * output stack.  A node's state is what the frames below it have seen
 * (sym_frame_seen): a node is mapped once per process and state. */
static uint32_t map_node(struct rw *c, int32_t pid, uint32_t in)
{
    if (!c->nnodes) {
        c->node_base = in; /* ids are given out from here, mostly in order */
        if (c->sym->frames_hint) /* about as many as the writer's nodes (start_stream), at once */
            memo_grow((void **)&c->nodes, &c->nnodes, sizeof *c->nodes, (uint32_t)NODES_HINT(c->sym->frames_hint));
    }
    uint32_t gen = memo_gen(c, pid);
    size_t n = 0;
    sym_frame_state st = 0;
    uint32_t out = 0, depth = 0;
    int begun = c->begun;
    if (c->path_cap < MAX_DEPTH && array_reserve(&c->path, &c->path_cap, MAX_DEPTH, sizeof *c->path, MAX_DEPTH) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory"); /* the longest path, at once */
    for (uint32_t v = in; v;) {
        uint32_t idx = v >= c->node_base && v - c->node_base < MAX_MEMO ? v - c->node_base : UINT32_MAX;
        struct node_memo *m = idx != UINT32_MAX ? memo_slot((void **)&c->nodes, &c->nnodes, sizeof *c->nodes, idx)
                                                : NULL;
        if (m && m->gen == gen && m->state == (st | MEMO_SET)) {
            out = m->out;
            depth = m->depth;
            c->stacks_memo++;
            break;
        }
        uint32_t parent, frame;
        if (!begun) {
            if (sym_stack_begin(c->sym, c->r, pid) < 0)
                cli_die(CLI_EXIT_FAIL, "%s: out of memory", c->o->in_name);
            begun = c->begun = 1;
        }
        if (tr_reader_stack_node(c->r, v, &parent, &frame) < 0 || n == MAX_DEPTH)
            break; /* defined in a lost chunk: the stack ends here, as tr_reader_stack's does */
        sym_frame_state seen = frame_seen(c, gen, frame);
        c->path[n++] = (struct path_node){idx, frame, 0, st, seen};
        st |= seen;
        v = parent;
    }
    /* from the root side down, each node's output frames (the function
     * others were inlined into first), made stack nodes below out in one
     * call, then each node's memo */
    size_t nall = 0;
    for (size_t i = n; i-- > 0;) {
        struct path_node *p = &c->path[i];
        const uint32_t *ids;
        size_t nf = frame_ids(c, gen, p->frame, (p->state & p->seen) != 0, &ids);
        if (nall + nf > c->chain_cap && array_reserve(&c->chain, &c->chain_cap, nall + nf, sizeof *c->chain, 256) < 0)
            cli_die(CLI_EXIT_FAIL, "out of memory");
        if (nf == 1) /* the common case, without a loop */
            c->chain[nall++] = ids[0];
        else
            for (size_t k = nf; k-- > 0;)
                c->chain[nall++] = ids[k];
        p->end = (uint32_t)nall;
    }
    if (nall)
        werr(c, tr_writer_stack_nodes(c->w, out, c->chain, nall, c->chain));
    c->nodes_mapped += n;
    while (n--) {
        const struct path_node *p = &c->path[n];
        if (p->end)
            out = c->chain[p->end - 1];
        if (p->memo != UINT32_MAX) /* its slot was made on the way up (parents have smaller ids) */
            c->nodes[p->memo] = (struct node_memo){gen, p->state | MEMO_SET, out, depth + p->end};
    }
    depth += (uint32_t)nall;
    c->frames_in += depth; /* the frames of the symbolized stack */
    return out;
}

static uint32_t resolved_stack(struct rw *c, const tr_record *rec)
{
    uint32_t in = rec->type == TR_REC_SAMPLE ? rec->u.sample.stack
                : rec->type == TR_REC_SYSCALL ? rec->u.syscall.stack : rec->u.libcall.stack;
    int unwinds = rec->type == TR_REC_SAMPLE && rec->u.sample.nregs &&
                  rec->u.sample.stack_copy_len && c->o->sym.unwind;
    if (unwinds)
        return resolve_and_write(c, rec);
    c->stacks_new++;
    if (!in)
        return 0;
    uint64_t forgets = tr_reader_stack_forgets(c->r);
    if (forgets != c->forgets) { /* the input's nodes are gone: so are their output stacks */
        c->forgets = forgets;
        forget_nodes(c);
        werr(c, tr_writer_forget_stacks(c->w));
    }
    c->begun = 0;
    return map_node(c, rec->pid, in);
}

/* Two independent 64-bit hashes of the frames (strings are interned:
 * their pointers stand for them): a multiply-rotate chain, and a sum of
 * the words times odd constants that depend on their position. */
static void frames_hash(const sym_frame *f, size_t n, uint64_t *a, uint64_t *b)
{
    uint64_t x = 0x243f6a8885a308d3ull ^ n, y = 0x13198a2e03707344ull + n;
    for (size_t i = 0; i < n; i++) {
        uint64_t v[7] = { f[i].addr, f[i].flags, (uintptr_t)f[i].func, (uintptr_t)f[i].module,
                          f[i].offset, (uintptr_t)f[i].file, f[i].line };
        for (int k = 0; k < 7; k++) {
            x = (x ^ v[k]) * 0x9e3779b97f4a7c15ull;
            x ^= x >> 29;
            y += (v[k] + 0x632be59bd9b4e019ull) * (0xbf58476d1ce4e5b9ull + 2 * (uint64_t)(i * 7 + k));
        }
    }
    *a = x;
    *b = y ^ (y >> 31);
}

/* An unwound sample's stack: unwound samples repeat the same frames under
 * new addresses, so each distinct stack is written once. */
static uint32_t resolve_and_write(struct rw *c, const tr_record *rec)
{
    const sym_frame *f;
    size_t n;
    int rc = sym_resolve_stack(c->sym, c->r, rec, &f, &n);
    if (rc < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", c->o->in_name, tr_strerror(rc));
    c->frames_in += n;
    c->stacks_new++;
    if (n == 0)
        return 0;
    uint64_t ha, hb;
    frames_hash(f, n, &ha, &hb);
    uintptr_t v = (uintptr_t)hashmap_get(&c->framesets, ha, hb);
    if (v)
        return (uint32_t)(v - 1);
    uint32_t id = out_stack(c, f, n);
    if (hashmap_put(&c->framesets, ha, hb, (void *)(uintptr_t)(id + 1ull)) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    return id;
}

static void copy_captures(struct rw *c, tr_capture *caps, uint32_t n)
{
    for (uint32_t i = 0; i < n && i < TR_MAX_CAPTURES; i++)
        caps[i].struct_name = copy_string(c, caps[i].struct_name);
}

static void end_stream(struct rw *c, uint64_t lost)
{
    if (!c->w)
        return;
    sym_module_info mi;
    while (sym_modules_take_new(c->sym, &mi)) {
        tr_record m;
        memset(&m, 0, sizeof m);
        m.type = TR_REC_MODULE_STATUS;
        m.pid = m.tid = m.cpu = -1;
        m.u.module_status.module = out_string(c, mi.module);
        m.u.module_status.status = mi.status;
        m.u.module_status.build_id = mi.build_id;
        m.u.module_status.build_id_len = mi.build_id_len;
        m.u.module_status.detail = out_string(c, mi.detail);
        werr(c, tr_writer_add(c->w, &m));
    }
    sym_symbol_info si;
    while (sym_symbols_take_new(c->sym, &si)) {
        if (!c->o->symbols)
            continue;
        tr_record m;
        memset(&m, 0, sizeof m);
        m.type = TR_REC_SYMBOL;
        m.pid = m.tid = m.cpu = -1;
        m.u.symbol.module = out_string(c, si.module);
        m.u.symbol.name = out_string(c, si.name);
        m.u.symbol.start = si.start;
        m.u.symbol.size = si.size;
        m.u.symbol.flags = si.flags;
        werr(c, tr_writer_add(c->w, &m));
    }
    werr(c, tr_writer_finish(c->w, lost));
    tr_writer_free(c->w);
    c->w = NULL;
    hashmap_free(&c->strids);
    free(c->strcache); /* the ids were the stream's */
    c->strcache = NULL;
    hashmap_free(&c->framesets);
    forget_frame_ids(c);
    forget_nodes(c);
    c->forgets = 0;
    c->memos_used = 1; /* forgotten if another stream comes (not at the end) */
}

static void start_stream(struct rw *c)
{
    end_stream(c, 0);
    if (c->memos_used)
        forget_memos(c);
    /* chunks of 128 KiB: a reader down the pipe (tr-cat, tr-fold) starts
     * while this one still resolves, and they compress as well.  zstd runs
     * on the writer's thread, beside the symbolizing, at level 1: on the
     * suite's python, cc and deep -g outputs 3-10% smaller than level -1
     * (--fast=1) for 3-19% more instructions, 6-19% cheaper than level 3
     * (spec/tr-symbolize.md) */
    tr_writer_options wo = {.stack_delta = c->o->keep_stack_copy ? 2 : 0, .stack_runs = 2, .chunk_size = 128u << 10,
                            .level = 1, .compress_thread = 1};
    werr(c, tr_writer_open(&c->w, c->out_fd, &wo));
    /* about as many frames out as the prescan counted in: their table
     * made once, not grown */
    size_t hint = c->sym->frames_hint, n = 1024;
    if (hint) {
        if (array_reserve(&c->fr, &c->capfr, hint, sizeof *c->fr, 1024) < 0)
            cli_die(CLI_EXIT_FAIL, "out of memory");
        while (n < 2 * hint)
            n *= 2;
        frame_slots_grow(c, n);
        /* and the writer's: its frames, and stack nodes */
        werr(c, tr_writer_reserve(c->w, hint, NODES_HINT(hint)));
    }
}

static char *dupn(const char *s, size_t n)
{
    char *d = strndup(s ? s : "", s ? n : 0);
    if (!d)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    return d;
}

static void copy_syscall_table(struct rw *c, const tr_record *rec)
{
    size_t pos = 0, n = 0, cap = rec->u.syscall_table.count + 1;
    uint32_t *nrs = calloc(cap, sizeof *nrs);
    char **names = calloc(cap, sizeof *names);
    if (!nrs || !names)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    uint32_t nr;
    const char *name;
    size_t len;
    int rc;
    while (n < cap && (rc = tr_syscall_table_iter(rec, &pos, &nr, &name, &len)) == 1) {
        nrs[n] = nr;
        names[n++] = dupn(name, len);
    }
    char *arch = dupn(rec->u.syscall_table.arch, rec->u.syscall_table.arch_len);
    werr(c, tr_writer_syscall_table(c->w, arch, nrs, (const char *const *)names, n));
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(nrs);
    free(arch);
}

/* Write record rec, changed in place (the reader fills every field of the
 * next one it delivers; copying the record cost more than the rest here). */
static void copy_record(struct rw *c, tr_record *rec)
{
    switch (rec->type) {
    case TR_REC_STRING:
    case TR_REC_FRAME:
    case TR_REC_STACK:
        return; /* definitions are written as they are used */
    case TR_REC_EVENT_DEF: {
        uint32_t id;
        werr(c, tr_writer_event(c->w, &rec->u.event_def, &id));
        return;
    }
    case TR_REC_META: {
        char *k = dupn(rec->u.meta.key, rec->u.meta.key_len);
        char *v = dupn(rec->u.meta.value, rec->u.meta.value_len);
        werr(c, tr_writer_meta(c->w, k, v));
        free(k);
        free(v);
        return;
    }
    case TR_REC_SYSCALL_TABLE:
        copy_syscall_table(c, rec);
        return;
    case TR_REC_BLOB: {
        char *n = dupn(rec->u.blob.name, rec->u.blob.name_len);
        werr(c, tr_writer_blob(c->w, n, rec->u.blob.data, rec->u.blob.len, 0));
        free(n);
        return;
    }
    case TR_REC_SAMPLE:
        c->samples++;
        rec->u.sample.stack = resolved_stack(c, rec);
        if (!c->o->keep_stack_copy) {
            rec->u.sample.abi = 0;
            rec->u.sample.regs_mask = 0;
            rec->u.sample.nregs = 0;
            rec->u.sample.stack_copy = NULL;
            rec->u.sample.stack_copy_len = 0;
        }
        break;
    case TR_REC_SYSCALL:
        rec->u.syscall.stack = resolved_stack(c, rec);
        copy_captures(c, rec->u.syscall.captures, rec->u.syscall.ncaptures);
        break;
    case TR_REC_LIBCALL:
        rec->u.libcall.stack = resolved_stack(c, rec);
        rec->u.libcall.func = copy_string(c, rec->u.libcall.func);
        copy_captures(c, rec->u.libcall.captures, rec->u.libcall.ncaptures);
        break;
    case TR_REC_SYMBOL:
        rec->u.symbol.module = copy_string(c, rec->u.symbol.module);
        rec->u.symbol.name = copy_string(c, rec->u.symbol.name);
        break;
    case TR_REC_MODULE_STATUS:
        rec->u.module_status.module = copy_string(c, rec->u.module_status.module);
        rec->u.module_status.detail = copy_string(c, rec->u.module_status.detail);
        break;
    default:
        break;
    }
    werr(c, tr_writer_add(c->w, rec));
}

/* The whole input in memory (mapped when it is a regular file). */
static void *slurp(int fd, size_t *len, int *mapped)
{
    void *p = sym_map_input(fd, 0, len);
    if ((*mapped = p != NULL))
        return p;
    size_t cap = 0, n = 0;
    char *buf = NULL;
    for (;;) {
        if (array_reserve(&buf, &cap, n + 1, 1, 1 << 20) < 0) {
            free(buf);
            return NULL;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(buf);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    *len = n;
    return buf;
}

static void print_stats(struct rw *c)
{
    sym_stats st;
    sym_get_stats(c->sym, &st);
    cli_warn("%llu samples, %llu stacks symbolized (%llu frames, %llu written) and %llu repeated, "
             "%llu addresses looked up (%llu cache hits, %llu distinct), "
             "%llu modules, %llu processes, %llu samples unwound (%llu failed, %llu by cached rules), "
             "%llu symbol table searches, %llu DWARF units indexed, %llu addresses resolved ahead",
             (unsigned long long)c->samples, (unsigned long long)c->stacks_new,
             (unsigned long long)c->frames_in, (unsigned long long)c->frames_written,
             (unsigned long long)c->stacks_memo,
             (unsigned long long)st.frames, (unsigned long long)st.cache_hits,
             (unsigned long long)st.addr_cache_entries, (unsigned long long)st.modules,
             (unsigned long long)st.processes, (unsigned long long)st.unwound_samples,
             (unsigned long long)st.unwind_failures, (unsigned long long)st.unwound_fast,
             (unsigned long long)st.symbol_searches, (unsigned long long)st.unit_indexes,
             (unsigned long long)st.resolved_ahead);
}

int rewrite_trace(const struct rewrite_options *o, int in_fd, int out_fd)
{
    struct rw c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.out_fd = out_fd;
    sym_options so = o->sym;
    so.warn = warn_cb;
    c.sym = sym_new(&so);
    if (!c.sym)
        cli_die(CLI_EXIT_FAIL, "out of memory");

    void *buf = NULL;
    size_t len = 0;
    int mapped = 0, rc;
    /* strings, frames and stack nodes are looked up when used, the other
     * definitions delivered to be copied; chunks decompressed ahead on a
     * thread */
    tr_reader_options ro = { .keep_definitions = 3, .decompress_thread = 1 };
    if (!o->stream) {
        /* look ahead for blobs written at the end: in the file, mapped (only
         * the pages looked at are read; the records are read from the file
         * as before), or in the whole pipe held in memory */
        buf = slurp(in_fd, &len, &mapped);
        if (!buf)
            cli_die(CLI_EXIT_FAIL, "%s: %s", o->in_name, strerror(errno ? errno : ENOMEM));
        if (sym_prescan_lazy(c.sym, buf, len) < 0)
            cli_die(CLI_EXIT_FAIL, "out of memory");
        if (mapped)
            rc = tr_reader_open(&c.r, in_fd, &ro);
        else
            rc = tr_reader_open_mem(&c.r, buf, len, &ro);
    } else {
        rc = tr_reader_open(&c.r, in_fd, &ro);
    }
    if (rc < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", o->in_name, tr_strerror(rc));
    if (c.sym->frames_hint) /* a memo for each input frame id, made once */
        memo_grow((void **)&c.frames, &c.nframes, sizeof *c.frames, (uint32_t)c.sym->frames_hint);

    tr_record rec;
    int any = 0;
    while ((rc = tr_reader_next(c.r, &rec)) != 0) {
        if (rc < 0) {
            const tr_reader_diag *d = tr_reader_last_diag(c.r);
            if (!any && !tr_error_recoverable(rc)) /* nothing of a trace was read */
                cli_die(CLI_EXIT_FAIL, "%s: %s%s%s", o->in_name, tr_strerror(rc),
                        d->detail[0] ? ": " : "", d->detail);
            cli_warn("%s: %s at byte %llu%s%s", o->in_name, tr_strerror(rc),
                     (unsigned long long)d->offset, d->detail[0] ? ": " : "", d->detail);
            c.status = CLI_EXIT_TRUNCATED;
            if (tr_error_recoverable(rc))
                continue;
            break;
        }
        any = 1;
        if (sym_observe(c.sym, c.r, &rec) < 0)
            cli_die(CLI_EXIT_FAIL, "out of memory");
        /* what an address means may have changed: for one process, or for all */
        if (rec.type == TR_REC_MMAP || (rec.type == TR_REC_COMM && rec.u.comm.exec))
            memo_bump(&c, rec.pid);
        else if (rec.type == TR_REC_FORK && rec.pid != rec.u.fork.ppid) /* a new process */
            memo_bump(&c, rec.pid);
        else if (rec.type == TR_REC_BLOB)
            c.blob_epoch++;
        if (rec.type == TR_REC_STREAM_START) {
            start_stream(&c);
            continue;
        }
        if (rec.type == TR_REC_STREAM_END) {
            end_stream(&c, rec.u.stream_end.lost);
            continue;
        }
        if (c.w)
            copy_record(&c, &rec);
    }
    end_stream(&c, 0);
    if (o->stats)
        print_stats(&c);
    tr_reader_free(c.r);
    if (buf) {
        if (mapped)
            munmap(buf, len);
        else
            free(buf);
    }
    sym_finish(c.sym);
    sym_free_at_exit(c.sym); /* main returns next */
    free(c.fids);
    hashmap_free(&c.strids);
    free(c.strcache);
    hashmap_free(&c.framesets);
    hashmap_free(&c.gens);
    forget_frame_ids(&c);
    free(c.nodes);
    free(c.frames);
    free(c.outf);
    free(c.path);
    free(c.chain);
    return c.status;
}
