/* hist.c - the perf report table of a section's groups: entries by the sort
 * keys with Self and Children, their call graphs (perf's graph, fractal,
 * flat and folded printing), JSON, and perf diff's side-by-side table. */
#include "report_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "json.h"

/* A call graph node: one function under its parent. */
struct cnode {
    uint32_t sym, parent, child, next;   /* next: sibling; 0 none (node 0 is unused) */
    uint64_t hit, cumul;
};

struct hentry {
    uint32_t comm, sym, srcline;         /* what is shown: the first frame's and group's */
    int32_t pid, tid, cpu;
    uint64_t self, children, samples;
    size_t stamp;                        /* the last group walk that counted it (children) */
    uint64_t est;                        /* nodes its call graph may take at most */
    int batch;                           /* its graph is being built */
    uint32_t root;                       /* call graph root node, 0 none */
};

struct hist {
    struct report *r;
    struct rsection *sec;
    struct seqtab keys;                  /* entry i's key values */
    struct hentry *e;
    size_t ne, cape;
    struct cnode *n;
    size_t nn, capn;
    hashmap child;                       /* (parent, sym) -> node */
    uint32_t *order;                     /* entries in output order */
    size_t norder;
    int graph;                           /* call graphs printed */
    size_t stamps;                       /* group walks so far */
    size_t batch_start, batch_end;       /* order[start .. end) have their graphs built */
    size_t graph_end;                    /* order[graph_end ..] get no graph (not shown) */
};

static const char *S(const struct report *r, uint32_t id) { return r->str.v[id]; }

static uint32_t key_value(const struct report *r, int key, const struct rgroup *g, const struct rframe *f)
{
    switch (key) {
    case RK_COMM: return g->comm;
    case RK_PID: return (uint32_t)g->pid;
    case RK_TID: return (uint32_t)g->tid;
    case RK_DSO: return r->syms[f->sym].dso;
    case RK_SYM: return f->sym;
    case RK_SRCLINE: return f->srcline;
    default: return (uint32_t)g->cpu;
    }
}

/* The entry of group g at frame f: -1 out of memory. */
static int64_t entry_of(struct hist *h, const struct rgroup *g, uint32_t frame)
{
    const struct report_opts *o = &h->r->o;
    const struct rframe *f = &h->r->frames[frame];
    uint32_t v[REPORT_MAX_COLS];
    for (int i = 0; i < o->nsort; i++)
        v[i] = key_value(h->r, o->sort[i], g, f);
    int64_t id = seqtab_id(&h->keys, v, (uint32_t)o->nsort);
    if (id < 0 || (size_t)id < h->ne)
        return id;
    if (array_reserve(&h->e, &h->cape, h->ne + 1, sizeof *h->e, 256) < 0)
        return -1;
    h->e[h->ne] = (struct hentry){.comm = g->comm, .sym = f->sym, .srcline = f->srcline, .pid = g->pid,
                                  .tid = g->tid, .cpu = g->cpu};
    return (int64_t)h->ne++;
}

static int64_t node_child(struct hist *h, uint32_t parent, uint32_t sym)
{
    void *v = hashmap_get(&h->child, parent, sym);
    if (v)
        return (int64_t)(uintptr_t)v;
    if (array_reserve(&h->n, &h->capn, h->nn + 1, sizeof *h->n, 1024) < 0)
        return -1;
    uint32_t id = (uint32_t)h->nn++;
    h->n[id] = (struct cnode){.sym = sym, .parent = parent, .next = parent ? h->n[parent].child : 0};
    if (parent)
        h->n[parent].child = id;
    if (hashmap_put(&h->child, parent, sym, (void *)(uintptr_t)id) < 0)
        return -1;
    return id;
}

/* Add the chain stack[from], stack[from + step], ... (count frames) to e's graph. */
static int add_chain(struct hist *h, struct hentry *e, const uint32_t *stack, long from, long step, long count,
                     uint64_t period)
{
    if (!e->root) {
        int64_t root = node_child(h, 0, UINT32_MAX - (uint32_t)(e - h->e));
        if (root < 0)
            return -1;
        e->root = (uint32_t)root;
    }
    uint32_t at = e->root;
    for (long i = 0; i < count; i++) {
        int64_t c = node_child(h, at, h->r->frames[stack[from + i * step]].sym);
        if (c < 0)
            return -1;
        at = (uint32_t)c;
    }
    h->n[at].hit += period;
    return 0;
}

static uint64_t cumulate(struct hist *h, uint32_t n)
{
    uint64_t s = h->n[n].hit;
    for (uint32_t c = h->n[n].child; c; c = h->n[c].next)
        s += cumulate(h, c);
    return h->n[n].cumul = s;
}

static int by_name(const struct report *r, uint32_t a, uint32_t b)
{
    return strcmp(S(r, r->syms[a].name), S(r, r->syms[b].name));
}

/* Sort the children of every node by cumulated hits, most first. */
static void sort_children(struct hist *h, uint32_t n)
{
    uint32_t list = h->n[n].child, sorted = 0;
    while (list) { /* insertion sort: children lists are short */
        uint32_t c = list;
        list = h->n[c].next;
        uint32_t *p = &sorted;
        while (*p && (h->n[*p].cumul > h->n[c].cumul ||
                      (h->n[*p].cumul == h->n[c].cumul && by_name(h->r, h->n[*p].sym, h->n[c].sym) <= 0)))
            p = &h->n[*p].next;
        h->n[c].next = *p;
        *p = c;
        sort_children(h, c);
    }
    h->n[n].child = sorted;
}

static struct hist *hist_cmp_ctx;

static int entry_cmp(const void *pa, const void *pb)
{
    const struct hist *h = hist_cmp_ctx;
    const struct hentry *a = &h->e[*(const uint32_t *)pa], *b = &h->e[*(const uint32_t *)pb];
    uint64_t ka = h->r->o.children ? a->children : a->self, kb = h->r->o.children ? b->children : b->self;
    if (ka != kb)
        return ka > kb ? -1 : 1;
    if (a->self != b->self)
        return a->self > b->self ? -1 : 1;
    for (int i = 0; i < h->r->o.nsort; i++) {
        int k = h->r->o.sort[i], c = 0;
        switch (k) {
        case RK_COMM: c = strcmp(S(h->r, a->comm), S(h->r, b->comm)); break;
        case RK_PID: c = (a->pid > b->pid) - (a->pid < b->pid); break;
        case RK_TID: c = (a->tid > b->tid) - (a->tid < b->tid); break;
        case RK_CPU: c = (a->cpu > b->cpu) - (a->cpu < b->cpu); break;
        case RK_DSO: c = strcmp(S(h->r, h->r->syms[a->sym].dso), S(h->r, h->r->syms[b->sym].dso)); break;
        case RK_SYM: c = by_name(h->r, a->sym, b->sym); break;
        default: c = strcmp(S(h->r, a->srcline), S(h->r, b->srcline)); break;
        }
        if (c)
            return c;
    }
    return 0;
}

static int list_has(const char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return 1;
    return 0;
}

/* Whether e passes --dsos, --symbols (and --percent-limit when limit). */
static int shown(const struct hist *h, const struct hentry *e, int limit)
{
    const struct report *r = h->r;
    const struct rsym *s = &r->syms[e->sym];
    if (r->o.ndsos && !list_has(r->o.dsos, r->o.ndsos, S(r, s->dso)))
        return 0;
    if (r->o.nsyms && !list_has(r->o.syms, r->o.nsyms, S(r, s->name)))
        return 0;
    double total = (double)h->sec->period;
    uint64_t v = r->o.children ? e->children : e->self;
    return !limit || !r->o.percent_limit || (total > 0 && v * 100.0 / total >= r->o.percent_limit);
}

enum { PASS_COUNT, PASS_GRAPH };

/* A chain of group stack st (count frames from `from`, by step) for entry e:
 * counted in est (PASS_COUNT), added to e's graph when e is in the batch. */
static int chain(struct hist *h, int pass, int64_t e, const uint32_t *st, long from, long step, long count,
                 uint64_t period)
{
    if (pass == PASS_COUNT) {
        h->e[e].est += (uint64_t)count + 1;
        return 0;
    }
    return h->e[e].batch ? add_chain(h, &h->e[e], st, from, step, count, period) : 0;
}

/* One walk over the section's groups: PASS_COUNT sums the entries (and
 * their graphs' sizes), PASS_GRAPH builds the graphs of the batch.  0 or -1. */
static int walk(struct hist *h, int pass)
{
    const struct report *r = h->r;
    const struct report_opts *o = &r->o;
    for (size_t gi = 0; gi < h->sec->ng; gi++) {
        const struct rgroup *g = &h->sec->g[gi];
        const uint32_t *st = seqtab_get(&r->stacks, g->stack);
        long d = (long)seqtab_len(&r->stacks, g->stack);
        if (d > o->max_stack && o->max_stack > 0)
            d = o->max_stack;
        int64_t leaf = entry_of(h, g, st[0]);
        if (leaf < 0)
            return -1;
        if (pass == PASS_COUNT) {
            h->e[leaf].self += g->period;
            h->e[leaf].samples += g->samples;
        }
        if (h->graph && chain(h, pass, leaf, st, o->caller ? d - 1 : 0, o->caller ? -1 : 1, d, g->period) < 0)
            return -1;
        if (!o->children)
            continue;
        size_t stamp = ++h->stamps;
        h->e[leaf].stamp = stamp;
        if (pass == PASS_COUNT)
            h->e[leaf].children += g->period;
        /* perf walks the chain in the graph's order: the first frame of an
         * entry gives its chain (to the leaf in caller order, to the root in callee) */
        for (long k = 0; k < d; k++) {
            long i = o->caller ? d - 1 - k : k;
            int64_t e = entry_of(h, g, st[i]);
            if (e < 0)
                return -1;
            if (h->e[e].stamp == stamp)
                continue;
            h->e[e].stamp = stamp;
            if (pass == PASS_COUNT)
                h->e[e].children += g->period;
            if (h->graph && (o->caller ? chain(h, pass, e, st, i, -1, i + 1, g->period)
                                       : chain(h, pass, e, st, i, 1, d - i, g->period)) < 0)
                return -1;
        }
    }
    return 0;
}

/* Entries and their sums from the section's groups, in output order.  0 or -1. */
static int hist_build(struct hist *h, struct report *r, struct rsection *sec, int graph)
{
    memset(h, 0, sizeof *h);
    h->r = r;
    h->sec = sec;
    h->graph = graph && sec->stacks;
    if (walk(h, PASS_COUNT) < 0 || !(h->order = malloc((h->ne ? h->ne : 1) * sizeof *h->order)))
        return -1;
    for (size_t i = 0; i < h->ne; i++)
        if (shown(h, &h->e[i], 1))
            h->order[h->norder++] = (uint32_t)i;
    hist_cmp_ctx = h;
    qsort(h->order, h->norder, sizeof *h->order, entry_cmp);
    h->graph_end = h->norder;
    return 0;
}

/* Call graphs are built for a batch of entries at a time, as many as
 * GRAPH_BUDGET nodes hold (about 60 MB with their index): with children every entry holds the
 * chains through it, which for deep stacks is the stack depth times more
 * than the stacks themselves. */
#define GRAPH_BUDGET (1u << 20)

/* The graph of order[i] is built (and those of a batch after it).  0 or -1. */
static int graph_ready(struct hist *h, size_t i)
{
    if (i < h->batch_end)
        return 0;
    for (size_t k = h->batch_start; k < h->batch_end; k++)
        h->e[h->order[k]].batch = 0, h->e[h->order[k]].root = 0;
    hashmap_free(&h->child);
    if (array_reserve(&h->n, &h->capn, 1, sizeof *h->n, 1024) < 0)
        return -1;
    h->nn = 1;
    uint64_t sum = 0;
    size_t j = i;
    for (; j < h->graph_end && (j == i || sum + h->e[h->order[j]].est <= GRAPH_BUDGET); j++) {
        sum += h->e[h->order[j]].est;
        h->e[h->order[j]].batch = 1;
    }
    h->batch_start = i, h->batch_end = j;
    if (walk(h, PASS_GRAPH) < 0)
        return -1;
    for (size_t k = i; k < j; k++) {
        const struct hentry *e = &h->e[h->order[k]];
        if (e->root) {
            cumulate(h, e->root);
            sort_children(h, e->root);
        }
    }
    return 0;
}

static void hist_free(struct hist *h)
{
    seqtab_free(&h->keys);
    free(h->e);
    free(h->n);
    hashmap_free(&h->child);
    free(h->order);
}

/* ---- columns -------------------------------------------------------------- */

static int columns(const struct report_opts *o, int *cols)
{
    if (o->ncols) {
        memcpy(cols, o->cols, (size_t)o->ncols * sizeof *cols);
        return o->ncols;
    }
    int n = 0;
    if (o->children)
        cols[n++] = RC_CHILDREN;
    cols[n++] = RC_SELF;
    if (o->show_samples)
        cols[n++] = RC_SAMPLES;
    if (o->show_period)
        cols[n++] = RC_PERIOD;
    for (int i = 0; i < o->nsort && n < REPORT_MAX_COLS; i++)
        cols[n++] = o->sort[i];
    return n;
}

static const char *col_header(const struct report_opts *o, int c)
{
    switch (c) {
    case RK_COMM: return "Command";
    case RK_PID: return "    Pid:Command";
    case RK_TID: return "    Tid:Command";
    case RK_DSO: return "Shared Object";
    case RK_SYM: return "Symbol";
    case RK_SRCLINE: return "Source:Line";
    case RK_CPU: return "CPU";
    case RC_CHILDREN: return "Children";
    case RC_SELF: return o->children ? "Self" : "Overhead";
    case RC_SAMPLES: return "Samples";
    default: return "Period";
    }
}

static int col_right(int c) { return c >= RC_CHILDREN || c == RK_CPU; }

/* The text of column c of entry e into buf. */
static void cell(const struct hist *h, const struct hentry *e, int c, char *buf, size_t size, int width)
{
    const struct report *r = h->r;
    double total = h->sec->period ? (double)h->sec->period : 1;
    const struct rsym *s = &r->syms[e->sym];
    switch (c) {
    case RK_COMM: snprintf(buf, size, "%s", S(r, e->comm)); break;
    case RK_PID: snprintf(buf, size, "%7d:%s", e->pid, S(r, e->comm)); break;
    case RK_TID: snprintf(buf, size, "%7d:%s", e->tid, S(r, e->comm)); break;
    case RK_DSO: snprintf(buf, size, "%s", S(r, s->dso)); break;
    case RK_SYM: snprintf(buf, size, "[%c] %s", s->kernel ? 'k' : '.', S(r, s->name)); break;
    case RK_SRCLINE: snprintf(buf, size, "%s", S(r, e->srcline)); break;
    case RK_CPU: snprintf(buf, size, "%*.*d", width, width, e->cpu); break;
    case RC_CHILDREN: snprintf(buf, size, "%7.2f%%", (double)e->children * 100.0 / total); break;
    case RC_SELF: snprintf(buf, size, "%7.2f%%", (double)e->self * 100.0 / total); break;
    case RC_SAMPLES: snprintf(buf, size, "%llu", (unsigned long long)e->samples); break;
    default: snprintf(buf, size, "%llu", (unsigned long long)e->self); break;
    }
}

static int col_width(const struct hist *h, int c)
{
    int w = (int)strlen(col_header(&h->r->o, c));
    if (c == RC_SAMPLES || c == RC_PERIOD)
        return 12;
    if (c == RC_CHILDREN || c == RC_SELF)
        return 8;
    if (c == RK_CPU)
        return w;
    char buf[1024];
    for (size_t i = 0; i < h->ne; i++) { /* as perf: entries below --percent-limit count too */
        if (!shown(h, &h->e[i], 0))
            continue;
        cell(h, &h->e[i], c, buf, sizeof buf, 0);
        int l = (int)strlen(buf);
        if (l > w)
            w = l;
    }
    return w;
}

/* ---- call graphs, as perf's ui/stdio/hist.c prints them ------------------- */

struct gprint {
    const struct hist *h;
    FILE *out;
    int mode;                  /* RG_GRAPH or RG_FRACTAL */
    uint64_t min_abs;          /* graph: hits below this are not shown */
};

/* The last node of the run starting at n: nodes with no hits of their own
 * and one child are one perf callchain node with their child. */
static uint32_t run_end(const struct hist *h, uint32_t n)
{
    while (!h->n[n].hit && h->n[n].child && !h->n[h->n[n].child].next)
        n = h->n[n].child;
    return n;
}

static const char *node_name(const struct hist *h, uint32_t n)
{
    return S(h->r, h->r->syms[h->n[n].sym].name);
}

static void margin(FILE *out, int left) { fprintf(out, "            %*s", left, ""); }

/* The least hits of a child of n that is shown (children are sorted by
 * their hits: the shown ones come first). */
static uint64_t min_shown(const struct gprint *p, uint32_t n)
{
    if (p->mode != RG_FRACTAL)
        return p->min_abs;
    uint64_t ch = p->h->n[n].cumul - p->h->n[n].hit;
    return (uint64_t)ceil((double)ch * p->h->r->o.graph_min / 100.0);
}

static uint32_t shown_next(const struct gprint *p, uint32_t c, uint64_t min)
{
    return c && p->h->n[c].cumul >= min ? c : 0;
}

static int graph_level(const struct gprint *p, uint32_t parent, uint64_t total, int depth, int mask, int left)
{
    int lines = 0;
    const struct hist *h = p->h;
    FILE *out = p->out;
    uint64_t remaining = total, min = min_shown(p, parent);
    int new_mask = mask;
    for (uint32_t c = shown_next(p, h->n[parent].child, min); c; c = shown_next(p, h->n[c].next, min)) {
        remaining -= h->n[c].cumul;
        if (!shown_next(p, h->n[c].next, min) && (p->mode != RG_FRACTAL || !remaining))
            new_mask &= ~(1 << (depth - 1));
        margin(out, left);
        for (int j = 0; j < depth; j++)
            fputs(mask & (1 << j) ? "|          " : "           ", out);
        fputc('\n', out);
        uint32_t end = run_end(h, c);
        int k = 0;
        for (uint32_t m = c;; m = h->n[m].child, k++) {
            margin(out, left);
            for (int j = 0; j < depth; j++) {
                fputc(new_mask & (1 << j) ? '|' : ' ', out);
                if (!k && j == depth - 1)
                    fprintf(out, "--%.2f%%--", total ? (double)h->n[c].cumul * 100.0 / (double)total : 0.0);
                else
                    fputs("          ", out);
            }
            fprintf(out, "%s\n", node_name(h, m));
            lines++;
            if (m == end)
                break;
        }
        lines += graph_level(p, end, p->mode == RG_FRACTAL ? h->n[end].cumul - h->n[end].hit : total, depth + 1,
                    new_mask | (1 << depth), left);
    }
    if (p->mode == RG_FRACTAL && remaining && remaining != total) {
        new_mask &= ~(1 << (depth - 1));
        margin(out, left);
        for (int j = 0; j < depth; j++) {
            fputc(new_mask & (1 << j) ? '|' : ' ', out);
            if (j == depth - 1)
                fprintf(out, "--%.2f%%--", (double)remaining * 100.0 / (double)total);
            else
                fputs("          ", out);
        }
        fputs("[...]\n", out);
        lines++;
    }
    return lines;
}

static void print_graph(const struct hist *h, const struct hentry *e, FILE *out)
{
    const struct report_opts *o = &h->r->o;
    uint64_t total = h->sec->period, parent = o->children ? e->children : e->self;
    struct gprint p = {.h = h, .out = out, .mode = o->graph,
                       .min_abs = (uint64_t)((double)total * o->graph_min / 100.0)};
    uint32_t root = e->root;
    uint64_t min = min_shown(&p, root);
    uint32_t first_kid = shown_next(&p, h->n[root].child, min);
    int left = 0, printed = 0;
    if (first_kid && !shown_next(&p, h->n[first_kid].next, min) && h->n[first_kid].cumul == parent) {
        uint32_t end = run_end(h, first_kid);
        int first = 1;
        for (uint32_t m = first_kid;; m = h->n[m].child) {
            if (!(first && !o->ncols && o->nsort && o->sort[0] == RK_SYM && o->sort_given)) {
                margin(out, left);
                if (!printed) {
                    fputs("|\n", out);
                    margin(out, left);
                    fputs("---", out);
                    left += 3;
                    printed = 1;
                }
                fprintf(out, "%s\n", node_name(h, m));
            }
            first = 0;
            if (m == end)
                break;
        }
        root = end;
    }
    if (graph_level(&p, root, o->graph == RG_FRACTAL ? parent : total, 1, 1, left) || printed)
        fputc('\n', out);
}

/* flat and folded: every chain with hits of its own, most first */
struct fchain { uint32_t node; uint64_t hit; };

static int fchain_cmp(const void *a, const void *b)
{
    const struct fchain *x = a, *y = b;
    return x->hit != y->hit ? (x->hit > y->hit ? -1 : 1) : (x->node > y->node) - (x->node < y->node);
}

static int collect(const struct hist *h, uint32_t n, uint64_t min, struct fchain **v, size_t *k, size_t *cap)
{
    if (h->n[n].hit && h->n[n].hit >= min) {
        if (array_reserve(v, cap, *k + 1, sizeof **v, 16) < 0)
            return -1;
        (*v)[(*k)++] = (struct fchain){n, h->n[n].hit};
    }
    for (uint32_t c = h->n[n].child; c; c = h->n[c].next)
        if (collect(h, c, min, v, k, cap) < 0)
            return -1;
    return 0;
}

static void path(const struct hist *h, uint32_t n, uint32_t root, FILE *out, int folded, int *first)
{
    if (h->n[n].parent != root)
        path(h, h->n[n].parent, root, out, folded, first);
    if (folded)
        fprintf(out, "%s%s", *first ? "" : ";", node_name(h, n));
    else
        fprintf(out, "                %s\n", node_name(h, n));
    *first = 0;
}

static void print_flat(const struct hist *h, const struct hentry *e, FILE *out)
{
    const struct report_opts *o = &h->r->o;
    uint64_t total = h->sec->period ? h->sec->period : 1;
    struct fchain *v = NULL;
    size_t k = 0, cap = 0;
    if (collect(h, e->root, (uint64_t)((double)total * o->graph_min / 100.0), &v, &k, &cap) < 0)
        return;
    if (k)
        qsort(v, k, sizeof *v, fchain_cmp);
    for (size_t i = 0; i < k; i++) {
        int first = 1;
        if (o->graph == RG_FOLDED) {
            fprintf(out, "%.2f%% ", (double)v[i].hit * 100.0 / (double)total);
            path(h, v[i].node, e->root, out, 1, &first);
            fputc('\n', out);
        } else {
            fprintf(out, "           %.2f%%\n", (double)h->n[v[i].node].cumul * 100.0 / (double)total);
            path(h, v[i].node, e->root, out, 0, &first);
            fputc('\n', out);
        }
    }
    free(v);
}

/* ---- the table ------------------------------------------------------------ */

static void convert_unit(uint64_t v, uint64_t *out, char *unit)
{
    *unit = ' ';
    if (v > 1000) v /= 1000, *unit = 'K';
    if (v > 1000) v /= 1000, *unit = 'M';
    if (v > 1000) v /= 1000, *unit = 'G';
    *out = v;
}

static void print_section(struct report *r, struct rsection *sec, FILE *out)
{
    struct hist h;
    const struct report_opts *o = &r->o;
    if (hist_build(&h, r, sec, o->graph != RG_NONE) < 0) {
        hist_free(&h);
        fprintf(out, "# out of memory\n");
        return;
    }
    uint64_t ns;
    char unit;
    convert_unit(sec->samples, &ns, &unit);
    fprintf(out, "# Samples: %llu%c of event '%s'%s\n", (unsigned long long)ns, unit, sec->name,
            sec->offcpu ? " (off-CPU: event count is ns blocked)" : "");
    fprintf(out, "# Event count (approx.): %llu\n#\n", (unsigned long long)sec->period);
    int cols[REPORT_MAX_COLS], nc = columns(o, cols), w[REPORT_MAX_COLS];
    fputs("#", out);
    for (int i = 0; i < nc; i++) {
        w[i] = col_width(&h, cols[i]);
        fprintf(out, " %s%*s", i ? " " : "", col_right(cols[i]) ? w[i] : -w[i], col_header(o, cols[i]));
    }
    fputs("\n#", out);
    for (int i = 0; i < nc; i++) {
        fprintf(out, " %s", i ? " " : "");
        for (int j = 0; j < w[i]; j++)
            fputc('.', out);
    }
    fputs("\n#\n", out);
    char buf[2048];
    for (size_t i = 0; i < h.norder; i++) {
        const struct hentry *e = &h.e[h.order[i]];
        fputs(" ", out);
        for (int c = 0; c < nc; c++) {
            cell(&h, e, cols[c], buf, sizeof buf, w[c]);
            if (c + 1 == nc && !col_right(cols[c]))
                fprintf(out, " %s%s", c ? " " : "", buf);
            else
                fprintf(out, " %s%*s", c ? " " : "", col_right(cols[c]) ? w[c] : -w[c], buf);
        }
        fputc('\n', out);
        if (h.graph && graph_ready(&h, i) < 0) {
            fprintf(out, "# out of memory\n");
            break;
        }
        if (h.graph && e->root) {
            if (o->graph == RG_FLAT || o->graph == RG_FOLDED)
                print_flat(&h, e, out);
            else
                print_graph(&h, e, out);
        }
    }
    fputs("\n\n", out);
    hist_free(&h);
}

/* Children is on by default only where stacks were recorded (perf does so too). */
static void settle_children(struct report *r)
{
    int stacks = 0;
    for (size_t i = 0; i < r->nsec; i++)
        stacks |= r->sec[i].stacks;
    if (!r->o.children_set)
        r->o.children = stacks;
    if (r->o.ncols && !r->o.children_set) { /* -F: children only when its column is asked for */
        r->o.children = 0;
        for (int i = 0; i < r->o.ncols; i++)
            if (r->o.cols[i] == RC_CHILDREN)
                r->o.children = 1;
    }
    if (!r->o.order_set)
        r->o.caller = r->o.children; /* perf: caller order with children, callee without */
}

void report_print(struct report *r, FILE *out)
{
    settle_children(r);
    int any = 0;
    for (size_t i = 0; i < r->nsec; i++) {
        struct rsection *sec = &r->sec[i];
        if (!sec->ng && !sec->samples)
            continue;
        if (!any++)
            fprintf(out, "#\n#\n# Total Lost Samples: %llu\n#\n", (unsigned long long)r->lost);
        print_section(r, sec, out);
    }
    if (!r->o.event || !strcmp(r->o.event, "syscalls"))
        report_print_syscalls(r, out);
    report_print_events(r, out);
}

/* ---- JSON ------------------------------------------------------------------ */

void report_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    json_str(out, s, strlen(s)); /* model/json.h: stray bytes escaped, the output stays UTF-8 */
    fputc('"', out);
}

static void json_graph(const struct hist *h, uint32_t n, uint64_t total, FILE *out)
{
    int first = 1;
    fputc('[', out);
    for (uint32_t c = h->n[n].child; c; c = h->n[c].next) {
        if (h->n[c].cumul * 100.0 < (double)total * h->r->o.graph_min)
            break;
        fprintf(out, "%s{\"symbol\":", first ? "" : ",");
        report_json_str(out, node_name(h, c));
        fprintf(out, ",\"period\":%llu,\"percent\":%.4f,\"children\":", (unsigned long long)h->n[c].cumul,
                total ? h->n[c].cumul * 100.0 / (double)total : 0.0);
        json_graph(h, c, total, out);
        fputc('}', out);
        first = 0;
    }
    fputc(']', out);
}

static void json_section(struct report *r, struct rsection *sec, FILE *out)
{
    struct hist h;
    const struct report_opts *o = &r->o;
    if (hist_build(&h, r, sec, o->graph != RG_NONE) < 0) {
        hist_free(&h);
        return;
    }
    fputs("{\"type\":\"profile\",\"event\":", out);
    report_json_str(out, sec->name);
    fprintf(out, ",\"samples\":%llu,\"event_count\":%llu,\"offcpu\":%s,\"entries\":[",
            (unsigned long long)sec->samples, (unsigned long long)sec->period, sec->offcpu ? "true" : "false");
    double total = sec->period ? (double)sec->period : 1;
    for (size_t i = 0; i < h.norder; i++) {
        const struct hentry *e = &h.e[h.order[i]];
        const struct rsym *s = &r->syms[e->sym];
        fprintf(out, "%s{\"self\":%.4f,", i ? "," : "", e->self * 100.0 / total);
        if (o->children)
            fprintf(out, "\"children\":%.4f,", e->children * 100.0 / total);
        fprintf(out, "\"samples\":%llu,\"period\":%llu", (unsigned long long)e->samples, (unsigned long long)e->self);
        for (int k = 0; k < o->nsort; k++) {
            switch (o->sort[k]) {
            case RK_COMM: fputs(",\"comm\":", out); report_json_str(out, S(r, e->comm)); break;
            case RK_PID: fprintf(out, ",\"pid\":%d", e->pid); break;
            case RK_TID: fprintf(out, ",\"tid\":%d", e->tid); break;
            case RK_CPU: fprintf(out, ",\"cpu\":%d", e->cpu); break;
            case RK_DSO: fputs(",\"dso\":", out); report_json_str(out, S(r, s->dso)); break;
            case RK_SYM:
                fputs(",\"symbol\":", out);
                report_json_str(out, S(r, s->name));
                fprintf(out, ",\"kernel\":%s", s->kernel ? "true" : "false");
                break;
            default: fputs(",\"srcline\":", out); report_json_str(out, S(r, e->srcline)); break;
            }
        }
        if (h.graph && graph_ready(&h, i) == 0 && e->root) {
            fputs(",\"callchains\":", out);
            json_graph(&h, e->root, sec->period, out);
        }
        fputc('}', out);
    }
    fputs("]}\n", out);
    hist_free(&h);
}

void report_print_json(struct report *r, FILE *out)
{
    settle_children(r);
    for (size_t i = 0; i < r->nsec; i++)
        if (r->sec[i].ng || r->sec[i].samples)
            json_section(r, &r->sec[i], out);
    if (!r->o.event || !strcmp(r->o.event, "syscalls"))
        report_json_syscalls(r, out);
    report_json_events(r, out);
}

/* ---- perf diff ------------------------------------------------------------- */

/* The self share of each entry of r's section named event, by "dso\nsym". */
struct dentry { const char *dso, *sym; int kernel; double pct[8]; int has[8]; };

static struct dentry *diff_find(struct dentry **v, size_t *n, size_t *cap, hashmap *m, const char *dso,
                                const char *sym)
{
    uint64_t a = hash_bytes(dso, strlen(dso)), b = hash_bytes(sym, strlen(sym));
    for (;; a++) {
        void *p = hashmap_get(m, a, b);
        if (!p)
            break;
        struct dentry *d = &(*v)[(uintptr_t)p - 1];
        if (!strcmp(d->dso, dso) && !strcmp(d->sym, sym))
            return d;
    }
    if (array_reserve(v, cap, *n + 1, sizeof **v, 64) < 0 || hashmap_put(m, a, b, (void *)(uintptr_t)(*n + 1)) < 0)
        return NULL;
    struct dentry *d = &(*v)[(*n)++];
    memset(d, 0, sizeof *d);
    d->dso = dso, d->sym = sym;
    return d;
}

static int dentry_cmp(const void *a, const void *b)
{
    const struct dentry *x = a, *y = b;
    if (x->pct[0] != y->pct[0])
        return x->pct[0] > y->pct[0] ? -1 : 1;
    if (x->has[1] && y->has[1] && x->pct[1] != y->pct[1])
        return x->pct[1] > y->pct[1] ? -1 : 1;
    int c = strcmp(x->dso, y->dso);
    return c ? c : strcmp(x->sym, y->sym);
}

void report_diff(struct report **rs, size_t n, const char *const *names, FILE *out)
{
    if (n > 8)
        n = 8;
    struct report *base = rs[0];
    for (size_t s = 0; s < base->nsec; s++) {
        const char *event = base->sec[s].name;
        struct dentry *v = NULL;
        size_t nv = 0, cap = 0;
        hashmap dm = {0};
        struct hist hs[8];
        size_t built = 0;
        int ok = 1;
        for (size_t i = 0; i < n && ok; i++) {
            struct report *r = rs[i];
            r->o.children = 0;
            r->o.nsort = 2, r->o.sort[0] = RK_DSO, r->o.sort[1] = RK_SYM;
            struct rsection *sec = NULL;
            for (size_t k = 0; k < r->nsec; k++)
                if (!strcmp(r->sec[k].name, event))
                    sec = &r->sec[k];
            if (!sec)
                continue;
            if (hist_build(&hs[built], r, sec, 0) < 0) {
                hist_free(&hs[built]);
                ok = 0;
                break;
            }
            struct hist *h = &hs[built++];
            for (size_t k = 0; k < h->norder; k++) {
                const struct hentry *e = &h->e[h->order[k]];
                const struct rsym *sy = &r->syms[e->sym];
                struct dentry *d = diff_find(&v, &nv, &cap, &dm, S(r, sy->dso), S(r, sy->name));
                if (!d) {
                    ok = 0;
                    break;
                }
                d->kernel = sy->kernel;
                d->pct[i] = sec->period ? e->self * 100.0 / (double)sec->period : 0;
                d->has[i] = 1;
            }
        }
        if (ok) {
            if (nv)
                qsort(v, nv, sizeof *v, dentry_cmp);
            int wdso = 13, wsym = 6;
            for (size_t i = 0; i < nv; i++) {
                int a = (int)strlen(v[i].dso), b = (int)strlen(v[i].sym) + 4;
                wdso = a > wdso ? a : wdso;
                wsym = b > wsym ? b : wsym;
            }
            fprintf(out, "# Event '%s'\n#\n", event);
            if (n > 2) {
                fputs("# Data files:\n", out);
                for (size_t i = 0; i < n; i++)
                    fprintf(out, "#  [%zu] %s %s\n", i, names[i], i ? "" : "(Baseline)");
                fputs("#\n", out);
            }
            char hb[32];
            int wb = n > 2 ? 10 : 8, wd = n > 2 ? 11 : 9;
            fprintf(out, "# %*s", wb, n > 2 ? "Baseline/0" : "Baseline");
            for (size_t i = 1; i < n; i++) {
                snprintf(hb, sizeof hb, n > 2 ? "Delta Abs/%zu" : "Delta Abs", i);
                fprintf(out, "  %*s", wd, hb);
            }
            fprintf(out, "  %-*s  %-*s\n# ", wdso, "Shared Object", wsym, "Symbol");
            int ws[10] = {wb};
            for (size_t i = 1; i < n; i++)
                ws[i] = wd;
            ws[n] = wdso, ws[n + 1] = wsym;
            for (size_t i = 0; i < n + 2; i++) {
                fputs(i ? "  " : "", out);
                for (int j = 0; j < ws[i]; j++)
                    fputc('.', out);
            }
            fputs("\n#\n", out);
            for (size_t i = 0; i < nv; i++) {
                char cellb[32];
                if (v[i].has[0])
                    snprintf(cellb, sizeof cellb, "%.2f%%", v[i].pct[0]);
                else
                    cellb[0] = 0;
                fprintf(out, "  %*s", wb, cellb);
                for (size_t k = 1; k < n; k++) {
                    if (v[i].has[k])
                        snprintf(cellb, sizeof cellb, "%+.2f%%", v[i].pct[k] - v[i].pct[0]);
                    else
                        cellb[0] = 0;
                    fprintf(out, "  %*s", wd, cellb);
                }
                fprintf(out, "  %-*s  [%c] %s\n", wdso, v[i].dso, v[i].kernel ? 'k' : '.', v[i].sym);
            }
            fputs("\n", out);
        }
        for (size_t i = 0; i < built; i++)
            hist_free(&hs[i]);
        free(v);
        hashmap_free(&dm);
    }
}

/* ---- a live view (tr-top) ---------------------------------------------------- */

uint64_t report_decay(struct report *r, unsigned num, unsigned den)
{
    uint64_t most = 0;
    for (size_t i = 0; i < r->nsec; i++) {
        struct rsection *sec = &r->sec[i];
        /* a group weighing less than 1/16 of a sample is gone: views skip it */
        uint64_t least = sec->samples ? sec->period / sec->samples / 16 : 0;
        sec->samples = sec->period = 0;
        for (size_t k = 0; k < sec->ng; k++) {
            struct rgroup *g = &sec->g[k];
            g->samples = g->samples * num / den;
            g->period = g->period * num / den;
            if (g->period < least)
                g->samples = g->period = 0;
            sec->samples += g->samples;
            sec->period += g->period;
        }
        if (sec->samples > most)
            most = sec->samples;
    }
    return most;
}

void report_rows_free(struct report_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(rows[i].graph);
    free(rows);
}

int report_rows(struct report *r, const struct report_zoom *z, size_t graphs, struct report_row **rows,
                size_t *n, const char **event, uint64_t *samples)
{
    *rows = NULL;
    *n = 0;
    *event = NULL;
    *samples = 0;
    struct rsection *busiest = NULL;
    for (size_t i = 0; i < r->nsec; i++)
        if (!busiest || r->sec[i].samples > busiest->samples)
            busiest = &r->sec[i];
    if (!busiest)
        return 0;
    settle_children(r);
    *event = busiest->name;
    *samples = busiest->samples;
    /* the groups that have not decayed away; a zoom into a process or
     * thread: its groups alone, shares still of the whole event (as perf
     * top zooms) */
    struct rsection sec = *busiest;
    if (!(sec.g = malloc((busiest->ng ? busiest->ng : 1) * sizeof *sec.g)))
        return -1;
    sec.ng = 0;
    for (size_t i = 0; i < busiest->ng; i++) {
        const struct rgroup *g = &busiest->g[i];
        if (g->period && (!z->pid || g->pid == z->pid) && (!z->tid || g->tid == z->tid))
            sec.g[sec.ng++] = *g;
    }
    struct hist h;
    int rc = hist_build(&h, r, &sec, r->o.graph != RG_NONE);
    /* the rows: the entries of the zoom's DSO with counts left; graphs for the first ones */
    size_t shown = 0;
    for (size_t i = 0; rc == 0 && i < h.norder; i++) {
        const struct hentry *e = &h.e[h.order[i]];
        if ((!z->dso || !strcmp(z->dso, S(r, r->syms[e->sym].dso))) && (e->self || e->children))
            h.order[shown++] = h.order[i];
    }
    h.norder = shown;
    h.graph_end = graphs < shown ? graphs : shown;
    double total = sec.period ? (double)sec.period : 1;
    for (size_t i = 0; rc == 0 && i < h.norder; i++) {
        const struct hentry *e = &h.e[h.order[i]];
        const struct rsym *s = &r->syms[e->sym];
        if (*n % 64 == 0) {
            struct report_row *v = realloc(*rows, (*n + 64) * sizeof **rows);
            if (!v) {
                rc = -1;
                break;
            }
            *rows = v;
        }
        struct report_row *row = &(*rows)[(*n)++];
        *row = (struct report_row){.comm = S(r, e->comm), .dso = S(r, s->dso), .sym = S(r, s->name),
                                   .pid = e->pid, .tid = e->tid, .kernel = s->kernel,
                                   .self = (double)e->self * 100.0 / total,
                                   .children = (double)e->children * 100.0 / total, .samples = e->samples};
        if (i >= h.graph_end)
            continue;
        if (h.graph && graph_ready(&h, i) < 0) {
            rc = -1;
            break;
        }
        if (h.graph && e->root) {
            size_t len;
            FILE *f = open_memstream(&row->graph, &len);
            if (!f) {
                rc = -1;
                break;
            }
            if (r->o.graph == RG_FLAT || r->o.graph == RG_FOLDED)
                print_flat(&h, e, f);
            else
                print_graph(&h, e, f);
            if (fclose(f) != 0)
                rc = -1;
        }
    }
    hist_free(&h);
    free(sec.g);
    if (rc < 0) {
        report_rows_free(*rows, *n);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}
