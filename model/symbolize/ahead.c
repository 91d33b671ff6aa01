/*
 * ahead.c - the addresses of the records ahead, resolved while the run
 * waits for a debug file's view to inflate.
 *
 * A cold run's first address in libc waits for the thread inflating
 * libc's .debug_info (dwpart.c): 10-11 ms, most of a small trace's run,
 * and early, since libc is at the root of every stack.  While it waits,
 * the main thread reads the trace again from its start (the input
 * sym_prescan_lazy was given, in memory), with a reader and a model of
 * processes of its own, and looks up the user addresses of the stacks in
 * every module whose answer does not need a view still inflating.  A
 * module met for the first time is opened, which starts its own debug
 * file inflating beside the one waited for.
 *
 * An answer found ahead is kept until the run comes to its address
 * (sym_ahead_take), which then does what a look-up of its own does: push
 * the SYMBOL, add it to the address cache.  The run meets the addresses
 * in the order they were looked up ahead (stacks in trace order, each from
 * its root, modules opened as met), so its output, the order of its
 * SYMBOL and MODULE_STATUS records and its warnings are the same with or
 * without this: only the time spent waiting changes.  An answer the run
 * never takes (a frame it counts as a return address while this did not,
 * in a node shared by stacks of different processes) is work lost, no
 * more.  Kernel addresses, JIT maps and samples unwound from stack copies
 * are left to the run.
 */
#include <stdlib.h>
#include <string.h>

#include "sym_int.h"

struct sym_ahead {
    tr_reader *r;
    struct procs *procs;
    int done;             /* the reader came to the end of the first stream (or failed) */
    uint64_t forgets;     /* the reader's stack forgets seen */
    uint8_t *walked;      /* a bit per input stack node whose path to the root was looked up */
    size_t nwalked;       /* bytes */
    hashmap found;        /* (file id, vaddr) -> 1 + index in ans */
    struct ahead_answer { sym_entry *e; sym_symbol_info sym; } *ans;
    size_t nans, anscap;
    struct ahead_node { uint32_t frame; sym_frame_state seen; int ret; } *path;
    size_t pathcap;
};

enum { AHEAD_RECORDS = 256,        /* records read per step: the wait checks the view between */
       AHEAD_MAX_NODES = 1u << 26, /* nodes memoised (8 MiB of bits) */
       AHEAD_MAX_DEPTH = 4096 };

static sym_ahead *ahead_new(sym_session *s)
{
    sym_ahead *a = calloc(1, sizeof *a);
    tr_reader_options ro = { .keep_definitions = 3 };
    if (!a || !(a->procs = procs_new(NULL)) ||
        tr_reader_open_mem(&a->r, s->lazy_buf, s->lazy_len, &ro) < 0) {
        sym_ahead_free(a);
        return NULL;
    }
    return a;
}

void sym_ahead_free(sym_ahead *a)
{
    if (!a)
        return;
    tr_reader_free(a->r);
    procs_free(a->procs);
    free(a->walked);
    hashmap_free(&a->found);
    free(a->ans);
    free(a->path);
    free(a);
}

/* Look up vaddr-to-be of user address addr of process pid, when its module
 * answers without waiting and nothing has answered it yet. */
static void look_ahead(sym_session *s, sym_ahead *a, int32_t pid, uint64_t addr)
{
    procs_map *m = procs_find_map(procs_proc_get(a->procs, pid), addr);
    if (!m || !sym_map_usable(m) || (!m->user && sym_path_is_anon(m->path)))
        return;
    sym_symfile *f = sym_map_symfile(s, m);
    if (!f)
        return;
    uint64_t vaddr = sym_symfile_vaddr(f, addr - m->start + m->pgoff);
    if (hashmap_get(&s->cache, f->id, vaddr) || hashmap_get(&a->found, f->id, vaddr) ||
        sym_symfile_waits(f, vaddr))
        return;
    sym_symbol_info sym;
    sym_entry *e = sym_symfile_lookup(s, f, vaddr, &sym);
    if (!e || array_reserve(&a->ans, &a->anscap, a->nans + 1, sizeof *a->ans, 256) < 0 ||
        hashmap_put(&a->found, f->id, vaddr, (void *)(uintptr_t)(a->nans + 1)) < 0)
        return;
    a->ans[a->nans++] = (struct ahead_answer){ e, sym };
}

/* The stack of a record ahead: the nodes from its leaf up to the first
 * one walked before, their frames looked up from the root side, each a
 * return address when a frame of its kind is below it (as rewrite.c and
 * sym_resolve_stack count them). */
static void stack_ahead(sym_session *s, sym_ahead *a, int32_t pid, uint32_t node)
{
    uint64_t forgets = tr_reader_stack_forgets(a->r);
    if (forgets != a->forgets) { /* the input's node ids are given out again */
        a->forgets = forgets;
        memset(a->walked, 0, a->nwalked);
    }
    size_t n = 0;
    sym_frame_state below = 0;
    for (uint32_t v = node, parent, frame; v && n < AHEAD_MAX_DEPTH; v = parent) {
        if (v < AHEAD_MAX_NODES) {
            if (v / 8 >= a->nwalked && array_reserve_zeroed(&a->walked, &a->nwalked, v / 8 + 1, 1, 4096) < 0)
                return;
            if (a->walked[v / 8] & (1u << (v % 8)))
                break;
            a->walked[v / 8] |= (uint8_t)(1u << (v % 8));
        }
        if (tr_reader_stack_node(a->r, v, &parent, &frame) < 0 ||
            array_reserve(&a->path, &a->pathcap, n + 1, sizeof *a->path, 256) < 0)
            break;
        sym_frame_state seen = sym_frame_seen(s, a->r, frame);
        a->path[n++] = (struct ahead_node){ frame, seen, (below & seen) != 0 };
        below |= seen;
    }
    for (size_t i = n; i-- > 0;) {
        if (a->path[i].seen != SYM_SEEN_USER)
            continue;
        const tr_frame *f = tr_reader_frame(a->r, a->path[i].frame);
        look_ahead(s, a, pid, a->path[i].ret ? f->addr - 1 : f->addr);
    }
}

int sym_ahead_step(void *session)
{
    sym_session *s = session;
    if (s->in_ahead || !s->lazy_buf || (s->ahead && s->ahead->done))
        return 0;
    if (!s->ahead && !(s->ahead = ahead_new(s)))
        return 0;
    sym_ahead *a = s->ahead;
    s->in_ahead = 1;
    tr_record rec;
    for (int i = 0; i < AHEAD_RECORDS && !a->done; i++) {
        int rc = tr_reader_next(a->r, &rec);
        if (rc < 0 && tr_error_recoverable(rc))
            continue;
        if (rc <= 0 || rec.type == TR_REC_STREAM_END) {
            a->done = 1;
            break;
        }
        if (procs_feed(a->procs, &rec) < 0) {
            a->done = 1;
            break;
        }
        uint32_t stack = rec.type == TR_REC_SAMPLE ? (rec.u.sample.stack_copy_len ? 0 : rec.u.sample.stack)
                       : rec.type == TR_REC_SYSCALL ? rec.u.syscall.stack
                       : rec.type == TR_REC_LIBCALL ? rec.u.libcall.stack : 0;
        if (stack && rec.pid >= 0)
            stack_ahead(s, a, rec.pid, stack);
    }
    s->in_ahead = 0;
    return !a->done;
}

int sym_ahead_take(sym_session *s, sym_symfile *f, uint64_t vaddr, sym_entry **e, sym_symbol_info *sym)
{
    uintptr_t i = s->ahead ? (uintptr_t)hashmap_get(&s->ahead->found, f->id, vaddr) : 0;
    if (!i)
        return 0;
    *e = s->ahead->ans[i - 1].e;
    *sym = s->ahead->ans[i - 1].sym;
    return 1;
}
