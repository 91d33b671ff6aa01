/*
 * procs.c - processes, threads, command names and memory maps (procs.h).
 *
 * A process's maps now are a sorted sequence of chunks, each a small sorted
 * array (at most CHUNK maps): a look-up is a binary search over the chunks
 * and one in a chunk, an mmap moves at most a chunk's maps and, when one
 * fills, the chunk pointers.  What an mmap or an exec takes away is kept as
 * pieces with their lifetimes [born, died) in the process's history; a time
 * query indexes the history and the maps now in a segment tree over time
 * whose nodes each hold the pieces alive through the node's span (pairwise
 * disjoint, so sorted by address they are searched by bisection).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashmap.h"
#include "procs.h"

#define CHUNK 32

struct chunk {
    uint32_t n, cap;
    procs_map m[];
};

struct piece {
    procs_map m;
    uint64_t died;
};

/* The time index of one process (see the top). */
struct tindex {
    uint64_t gen;          /* maps_gen it was built at */
    struct piece *p;       /* sorted by start */
    size_t np;
    uint64_t *x;           /* the distinct times, sorted */
    size_t nx, leaves;     /* leaves: power of two >= nx */
    uint32_t *off, *list;  /* node k's pieces: list[off[k] .. off[k + 1]) */
};

struct procs_proc_priv {
    struct chunk **c;
    size_t nc, capc;
    size_t last_c, last_i; /* the map found last */
    struct piece *hist;
    size_t nhist, caphist;
    uint64_t changed;      /* time of the last change of the maps */
    procs_proc *older;     /* the process this pid was before its FORK */
    int archived;
    struct tindex *ix;
};

struct proc_full {
    procs_proc pub;
    struct procs_proc_priv priv;
};

struct comm_change {
    uint64_t time;
    const char *name;
};

struct procs_thread_priv {
    struct comm_change *hist;
    size_t n, cap;
};

struct thread_full {
    procs_thread pub;
    struct procs_thread_priv priv;
};

struct procs {
    procs_options opt;
    hashmap procs;   /* pid -> its process now */
    hashmap threads; /* tid -> thread */
    strpool strings; /* kept over resets: names handed out stay valid */
    uint64_t now;
    uint64_t nmaps, nhist;
};

/* ---- model ---------------------------------------------------------- */

struct procs *procs_new(const procs_options *opt)
{
    struct procs *pm = calloc(1, sizeof *pm);
    if (pm && opt)
        pm->opt = *opt;
    return pm;
}

static void index_free(struct tindex *ix)
{
    if (!ix)
        return;
    free(ix->p);
    free(ix->x);
    free(ix->off);
    free(ix->list);
    free(ix);
}

static void free_chunks(struct procs_proc_priv *q)
{
    for (size_t i = 0; i < q->nc; i++)
        free(q->c[i]);
    free(q->c);
    q->c = NULL;
    q->nc = q->capc = 0;
    q->last_c = q->last_i = 0;
}

static void drop_user(struct procs *pm, procs_proc *p)
{
    if (p->user && pm->opt.user_free)
        pm->opt.user_free(p->user, pm->opt.ctx);
    p->user = NULL;
}

static void proc_destroy(struct procs *pm, procs_proc *p)
{
    while (p) {
        procs_proc *older = p->priv->older;
        drop_user(pm, p);
        free_chunks(p->priv);
        free(p->priv->hist);
        index_free(p->priv->ix);
        free(p);
        p = older;
    }
}

void procs_reset(struct procs *pm)
{
    size_t it = 0;
    for (hashmap_slot *s; (s = hashmap_next(&pm->procs, &it));)
        proc_destroy(pm, s->val);
    hashmap_free(&pm->procs);
    it = 0;
    for (hashmap_slot *s; (s = hashmap_next(&pm->threads, &it));) {
        struct thread_full *t = s->val;
        free(t->priv.hist);
        free(t);
    }
    hashmap_free(&pm->threads);
    pm->now = 0;
    pm->nmaps = pm->nhist = 0;
}

void procs_free(struct procs *pm)
{
    if (!pm)
        return;
    procs_reset(pm);
    strpool_free(&pm->strings);
    free(pm);
}

procs_proc *procs_proc_get(const struct procs *pm, int32_t pid)
{
    return hashmap_get(&pm->procs, (uint32_t)pid, 0);
}

static procs_proc *proc_alloc(int32_t pid)
{
    struct proc_full *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->pub.pid = pid;
    f->pub.ppid = -1;
    f->pub.priv = &f->priv;
    return &f->pub;
}

procs_proc *procs_proc_make(struct procs *pm, int32_t pid)
{
    procs_proc *p = procs_proc_get(pm, pid);
    if (p)
        return p;
    if (!(p = proc_alloc(pid)))
        return NULL;
    if (hashmap_put(&pm->procs, (uint32_t)pid, 0, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

procs_proc *procs_next(const struct procs *pm, size_t *it)
{
    hashmap_slot *s = hashmap_next(&pm->procs, it);
    return s ? s->val : NULL;
}

const procs_thread *procs_thread_get(const struct procs *pm, int32_t tid)
{
    return hashmap_get(&pm->threads, (uint32_t)tid, 0);
}

static struct thread_full *thread_make(struct procs *pm, int32_t tid, int32_t pid)
{
    struct thread_full *t = hashmap_get(&pm->threads, (uint32_t)tid, 0);
    if (t)
        return t;
    if (!(t = calloc(1, sizeof *t)))
        return NULL;
    t->pub.tid = tid;
    t->pub.pid = pid;
    t->pub.priv = &t->priv;
    if (hashmap_put(&pm->threads, (uint32_t)tid, 0, t) < 0) {
        free(t);
        return NULL;
    }
    return t;
}

const char *procs_comm(const struct procs *pm, int32_t tid)
{
    const procs_thread *t = procs_thread_get(pm, tid);
    return t ? t->comm : NULL;
}

const char *procs_comm_at(const struct procs *pm, int32_t tid, uint64_t time)
{
    const procs_thread *t = procs_thread_get(pm, tid);
    if (!t)
        return NULL;
    const struct procs_thread_priv *q = t->priv;
    size_t lo = 0, hi = q->n; /* the first change after time */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (q->hist[mid].time <= time)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? q->hist[lo - 1].name : NULL;
}

int32_t procs_pid_of(const struct procs *pm, int32_t tid)
{
    const procs_thread *t = procs_thread_get(pm, tid);
    return t ? t->pid : -1;
}

/* thread t is called name from now on */
static int set_comm(struct procs *pm, struct thread_full *t, const char *name)
{
    struct procs_thread_priv *q = &t->priv;
    t->pub.comm = name;
    if (q->n && q->hist[q->n - 1].time == pm->now) {
        q->hist[q->n - 1].name = name; /* the later of two at one time */
        return 0;
    }
    if (array_reserve(&q->hist, &q->cap, q->n + 1, sizeof *q->hist, 2) < 0)
        return TR_E_NOMEM;
    q->hist[q->n++] = (struct comm_change){pm->now, name};
    return 0;
}

/* ---- the maps of a process now ---------------------------------------- */

/* The position of the last map starting at or before addr: chunk *ci, index
 * *mi in it; 0 when none does (then *ci = 0 and the first map is after). */
static int locate(const struct procs_proc_priv *q, uint64_t addr, size_t *ci, size_t *mi)
{
    size_t lo = 0, hi = q->nc;
    while (lo < hi) { /* the first chunk starting after addr */
        size_t mid = lo + (hi - lo) / 2;
        if (q->c[mid]->m[0].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo) {
        *ci = *mi = 0;
        return 0;
    }
    const struct chunk *k = q->c[lo - 1];
    size_t a = 0, b = k->n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (k->m[mid].start <= addr)
            a = mid + 1;
        else
            b = mid;
    }
    *ci = lo - 1;
    *mi = a - 1; /* a >= 1: the chunk's first starts at or before addr */
    return 1;
}

procs_map *procs_find_map(procs_proc *p, uint64_t addr)
{
    if (!p)
        return NULL;
    struct procs_proc_priv *q = p->priv;
    if (q->last_c < q->nc && q->last_i < q->c[q->last_c]->n) {
        procs_map *m = &q->c[q->last_c]->m[q->last_i];
        if (addr >= m->start && addr < m->end)
            return m;
    }
    size_t ci, mi;
    if (!locate(q, addr, &ci, &mi))
        return NULL;
    procs_map *m = &q->c[ci]->m[mi];
    if (addr >= m->end)
        return NULL;
    q->last_c = ci;
    q->last_i = mi;
    return m;
}

const procs_map *procs_lookup(const struct procs *pm, int32_t pid, uint64_t addr)
{
    const procs_map *m = procs_find_map(procs_proc_get(pm, pid), addr);
    if (!m && pid != -1)
        m = procs_find_map(procs_proc_get(pm, -1), addr);
    return m;
}

procs_map *procs_maps_next(procs_proc *p, size_t *it)
{
    /* *it counts maps; walk the chunks to the position (chunks are few) */
    struct procs_proc_priv *q = p->priv;
    size_t k = *it;
    for (size_t i = 0; i < q->nc; i++) {
        if (k < q->c[i]->n) {
            (*it)++;
            return &q->c[i]->m[k];
        }
        k -= q->c[i]->n;
    }
    return NULL;
}

/* Keep piece [start, end) of m, gone from now on, in the history. */
static int archive(struct procs *pm, struct procs_proc_priv *q, const procs_map *m, uint64_t start,
                   uint64_t end)
{
    if (array_reserve(&q->hist, &q->caphist, q->nhist + 1, sizeof *q->hist, 8) < 0)
        return TR_E_NOMEM;
    struct piece *h = &q->hist[q->nhist++];
    h->m = *m;
    h->m.pgoff += start - m->start;
    h->m.start = start;
    h->m.end = end;
    h->died = pm->now;
    pm->nhist++;
    return 0;
}

static void remove_at(struct procs *pm, procs_proc *p, size_t ci, size_t mi)
{
    struct procs_proc_priv *q = p->priv;
    struct chunk *k = q->c[ci];
    memmove(&k->m[mi], &k->m[mi + 1], (k->n - mi - 1) * sizeof *k->m);
    k->n--;
    p->nmaps--;
    pm->nmaps--;
    if (!k->n) {
        free(k);
        memmove(&q->c[ci], &q->c[ci + 1], (q->nc - ci - 1) * sizeof *q->c);
        q->nc--;
    }
}

/* Insert m, which overlaps no map now. */
static int insert(struct procs *pm, procs_proc *p, const procs_map *m)
{
    struct procs_proc_priv *q = p->priv;
    size_t ci, mi;
    if (!q->nc) {
        if (array_reserve(&q->c, &q->capc, 1, sizeof *q->c, 4) < 0)
            return TR_E_NOMEM;
        struct chunk *k = malloc(sizeof *k + 4 * sizeof *k->m);
        if (!k)
            return TR_E_NOMEM;
        k->n = 0;
        k->cap = 4;
        q->c[q->nc++] = k;
        ci = 0, mi = 0;
    } else {
        mi = locate(q, m->start, &ci, &mi) ? mi + 1 : 0;
    }
    struct chunk *k = q->c[ci];
    if (k->n == CHUNK && (mi == 0 || mi == CHUNK)) { /* at an edge: a new chunk beside it */
        if (array_reserve(&q->c, &q->capc, q->nc + 1, sizeof *q->c, 4) < 0)
            return TR_E_NOMEM;
        struct chunk *r = malloc(sizeof *r + 4 * sizeof *r->m);
        if (!r)
            return TR_E_NOMEM;
        r->n = 0;
        r->cap = 4;
        ci += mi ? 1 : 0;
        memmove(&q->c[ci + 1], &q->c[ci], (q->nc - ci) * sizeof *q->c);
        q->c[ci] = k = r;
        q->nc++;
        mi = 0;
    } else if (k->n == CHUNK) { /* split it in two halves */
        if (array_reserve(&q->c, &q->capc, q->nc + 1, sizeof *q->c, 4) < 0)
            return TR_E_NOMEM;
        struct chunk *r = malloc(sizeof *r + CHUNK * sizeof *r->m);
        if (!r)
            return TR_E_NOMEM;
        r->n = CHUNK / 2;
        r->cap = CHUNK;
        memcpy(r->m, &k->m[CHUNK / 2], CHUNK / 2 * sizeof *k->m);
        k->n = CHUNK / 2;
        memmove(&q->c[ci + 2], &q->c[ci + 1], (q->nc - ci - 1) * sizeof *q->c);
        q->c[ci + 1] = r;
        q->nc++;
        if (mi > CHUNK / 2) {
            ci++;
            mi -= CHUNK / 2;
            k = r;
        }
    } else if (k->n == k->cap) {
        uint32_t cap = k->cap * 2 > CHUNK ? CHUNK : k->cap * 2;
        struct chunk *g = realloc(k, sizeof *g + cap * sizeof *g->m);
        if (!g)
            return TR_E_NOMEM;
        g->cap = cap;
        q->c[ci] = k = g;
    }
    memmove(&k->m[mi + 1], &k->m[mi], (k->n - mi) * sizeof *k->m);
    k->m[mi] = *m;
    k->n++;
    p->nmaps++;
    pm->nmaps++;
    return 0;
}

/* Map m in p: what it overlaps is cut or removed (kept in the history). */
static int map_in(struct procs *pm, procs_proc *p, const procs_map *m)
{
    struct procs_proc_priv *q = p->priv;
    uint64_t s = m->start, e = m->end;
    size_t ci, mi;
    if (!locate(q, s, &ci, &mi))
        ci = 0, mi = 0; /* from the first map on */
    else if (q->c[ci]->m[mi].end <= s && ++mi == q->c[ci]->n)
        ci++, mi = 0;
    procs_map tail;
    int have_tail = 0, rc = 0;
    while (ci < q->nc) {
        procs_map *o = &q->c[ci]->m[mi];
        if (o->start >= e)
            break;
        if (o->start < s) {
            uint64_t cut_end = o->end < e ? o->end : e;
            if ((rc = archive(pm, q, o, s, cut_end)) < 0)
                return rc;
            if (o->end > e) { /* m falls inside o: o's right part stays too */
                tail = *o;
                tail.pgoff += e - o->start;
                tail.start = e;
                have_tail = 1;
            }
            o->end = s;
            if (have_tail)
                break;
        } else if (o->end > e) { /* o's left part goes */
            if ((rc = archive(pm, q, o, o->start, e)) < 0)
                return rc;
            o->pgoff += e - o->start;
            o->start = e;
            break;
        } else { /* all of o goes */
            if ((rc = archive(pm, q, o, o->start, o->end)) < 0)
                return rc;
            remove_at(pm, p, ci, mi);
            if (ci < q->nc && mi == q->c[ci]->n)
                ci++, mi = 0;
            continue;
        }
        if (++mi == q->c[ci]->n)
            ci++, mi = 0;
    }
    q->last_c = q->last_i = 0;
    if ((rc = insert(pm, p, m)) < 0 || (have_tail && (rc = insert(pm, p, &tail)) < 0))
        return rc;
    return 0;
}

/* Every map of p goes (exec, or p is forgotten), into the history. */
static int unmap_all(struct procs *pm, procs_proc *p)
{
    struct procs_proc_priv *q = p->priv;
    for (size_t i = 0; i < q->nc; i++)
        for (uint32_t j = 0; j < q->c[i]->n; j++) {
            const procs_map *o = &q->c[i]->m[j];
            if (archive(pm, q, o, o->start, o->end) < 0)
                return TR_E_NOMEM;
        }
    pm->nmaps -= p->nmaps;
    p->nmaps = 0;
    free_chunks(q);
    return 0;
}

static void maps_changed(struct procs *pm, procs_proc *p)
{
    p->maps_gen++;
    p->priv->changed = pm->now;
}

static int copy_maps(struct procs *pm, procs_proc *to, const procs_proc *from)
{
    const struct procs_proc_priv *f = from->priv;
    struct procs_proc_priv *q = to->priv;
    if (!f->nc)
        return 0;
    if (array_reserve(&q->c, &q->capc, f->nc, sizeof *q->c, 4) < 0)
        return TR_E_NOMEM;
    for (size_t i = 0; i < f->nc; i++) {
        size_t sz = sizeof *f->c[i] + f->c[i]->cap * sizeof *f->c[i]->m;
        struct chunk *k = malloc(sz);
        if (!k)
            return TR_E_NOMEM;
        memcpy(k, f->c[i], sz);
        for (uint32_t j = 0; j < k->n; j++)
            k->m[j].born = pm->now;
        q->c[q->nc++] = k;
        pm->nmaps += k->n;
    }
    to->nmaps = from->nmaps;
    return 0;
}

/* ---- records ---------------------------------------------------------- */

static int on_comm_rec(struct procs *pm, const tr_record *rec)
{
    size_t len = rec->u.comm.comm ? strnlen(rec->u.comm.comm, rec->u.comm.len) : 0;
    if (len > PROCS_COMM_MAX)
        len = PROCS_COMM_MAX;
    const char *name = strpool_intern(&pm->strings, len ? rec->u.comm.comm : "", len);
    struct thread_full *t = name ? thread_make(pm, rec->tid, rec->pid) : NULL;
    procs_proc *p = t ? procs_proc_make(pm, rec->pid) : NULL;
    if (!p)
        return TR_E_NOMEM;
    t->pub.pid = rec->pid;
    t->pub.comm_recorded = name;
    int rc = set_comm(pm, t, name);
    if (rec->u.comm.exec) {
        if (unmap_all(pm, p) < 0)
            rc = TR_E_NOMEM;
        p->exec_time = pm->now;
        maps_changed(pm, p);
    }
    return rc;
}

static int on_fork_rec(struct procs *pm, const tr_record *rec)
{
    int32_t pid = rec->pid, ppid = rec->u.fork.ppid;
    procs_proc *p;
    if (pid != ppid) { /* a new process */
        procs_proc *old = procs_proc_get(pm, pid);
        if (!(p = proc_alloc(pid)))
            return TR_E_NOMEM;
        if (hashmap_put(&pm->procs, (uint32_t)pid, 0, p) < 0) {
            free(p);
            return TR_E_NOMEM;
        }
        if (old) { /* kept for time queries */
            unmap_all(pm, old);
            drop_user(pm, old);
            old->priv->archived = 1;
            p->priv->older = old;
        }
        p->ppid = ppid;
        p->born = pm->now;
        p->priv->changed = pm->now;
        const procs_proc *parent = procs_proc_get(pm, ppid);
        if (parent && parent->nmaps) {
            int rc = copy_maps(pm, p, parent);
            maps_changed(pm, p);
            if (rc < 0)
                return rc;
        }
    } else if (!(p = procs_proc_make(pm, pid))) {
        return TR_E_NOMEM;
    }
    struct thread_full *t = thread_make(pm, rec->tid, pid);
    if (!t)
        return TR_E_NOMEM;
    t->pub.pid = pid;
    t->pub.born = pm->now;
    t->pub.exited = 0;
    t->pub.exit_time = 0;
    const char *pc = procs_comm(pm, rec->u.fork.ptid);
    return pc && rec->tid != rec->u.fork.ptid ? set_comm(pm, t, pc) : 0;
}

static void on_exit_rec(struct procs *pm, const tr_record *rec)
{
    procs_thread *t = hashmap_get(&pm->threads, (uint32_t)rec->tid, 0);
    if (t) {
        t->exited = 1;
        t->exit_time = pm->now;
    }
    if (!(rec->u.exit.flags & TR_EXITF_THREAD) && rec->pid == rec->tid) {
        procs_proc *p = procs_proc_get(pm, rec->pid);
        if (p) {
            p->exited = 1;
            p->exit_time = pm->now;
        }
    }
}

static int on_mmap_rec(struct procs *pm, const tr_record *rec)
{
    const __typeof__(rec->u.mmap) *u = &rec->u.mmap;
    if (u->len == 0 || u->start + u->len < u->start)
        return 0;
    procs_map m;
    memset(&m, 0, sizeof m);
    m.start = u->start;
    m.end = u->start + u->len;
    m.pgoff = u->pgoff;
    m.prot = u->prot;
    m.flags = u->flags;
    m.path = strpool_intern(&pm->strings, u->path ? u->path : "", u->path ? u->path_len : 0);
    size_t bl = u->build_id && u->build_id_len ? u->build_id_len : 0;
    if (bl > PROCS_BUILD_ID_MAX)
        bl = PROCS_BUILD_ID_MAX;
    if (bl)
        memcpy(m.build_id, u->build_id, bl);
    m.build_id_len = (uint8_t)bl;
    m.born = pm->now;
    procs_proc *p = m.path ? procs_proc_make(pm, rec->pid) : NULL;
    if (!p)
        return TR_E_NOMEM;
    int rc = map_in(pm, p, &m);
    maps_changed(pm, p);
    return rc;
}

int procs_feed(struct procs *pm, const tr_record *rec)
{
    if (rec->time > pm->now)
        pm->now = rec->time;
    switch (rec->type) {
    case TR_REC_STREAM_START:
        procs_reset(pm);
        return 0;
    case TR_REC_COMM:
        return on_comm_rec(pm, rec);
    case TR_REC_FORK:
        return on_fork_rec(pm, rec);
    case TR_REC_EXIT:
        on_exit_rec(pm, rec);
        return 0;
    case TR_REC_MMAP:
        return on_mmap_rec(pm, rec);
    default:
        return 0;
    }
}

/* ---- time queries ----------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_piece(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    return x->m.start < y->m.start ? -1 : x->m.start > y->m.start;
}

/* The index of the first of x[0..n) not below v. */
static size_t lower(const uint64_t *x, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Call add(k) for each node k of the tree covering leaves [lo, hi). */
#define FOR_NODES(ix, lo, hi, add)                                                      \
    for (size_t l_ = (lo) + (ix)->leaves, r_ = (hi) + (ix)->leaves; l_ < r_; l_ >>= 1, r_ >>= 1) { \
        if (l_ & 1) { size_t k = l_++; add; }                                            \
        if (r_ & 1) { size_t k = --r_; add; }                                            \
    }

static struct tindex *build_index(const procs_proc *p)
{
    const struct procs_proc_priv *q = p->priv;
    struct tindex *ix = calloc(1, sizeof *ix);
    if (!ix)
        return NULL;
    ix->gen = p->maps_gen;
    size_t n = q->nhist;
    for (size_t i = 0; i < q->nc; i++)
        n += q->c[i]->n;
    ix->p = malloc((n ? n : 1) * sizeof *ix->p);
    ix->x = malloc((2 * n + 1) * sizeof *ix->x);
    if (!ix->p || !ix->x)
        goto nomem;
    if (q->nhist)
        memcpy(ix->p, q->hist, q->nhist * sizeof *ix->p);
    ix->np = q->nhist;
    for (size_t i = 0; i < q->nc; i++)
        for (uint32_t j = 0; j < q->c[i]->n; j++)
            ix->p[ix->np++] = (struct piece){q->c[i]->m[j], UINT64_MAX};
    qsort(ix->p, ix->np, sizeof *ix->p, cmp_piece);
    for (size_t i = 0; i < ix->np; i++) {
        ix->x[ix->nx++] = ix->p[i].m.born;
        if (ix->p[i].died != UINT64_MAX)
            ix->x[ix->nx++] = ix->p[i].died;
    }
    qsort(ix->x, ix->nx, sizeof *ix->x, cmp_u64);
    size_t w = 0;
    for (size_t i = 0; i < ix->nx; i++)
        if (!w || ix->x[w - 1] != ix->x[i])
            ix->x[w++] = ix->x[i];
    ix->nx = w;
    ix->leaves = 1;
    while (ix->leaves < ix->nx)
        ix->leaves *= 2;
    ix->off = calloc(2 * ix->leaves + 1, sizeof *ix->off);
    if (!ix->off)
        goto nomem;
    /* count, then place: pieces go in address order into each node */
    for (size_t i = 0; i < ix->np; i++) {
        size_t lo = lower(ix->x, ix->nx, ix->p[i].m.born);
        size_t hi = ix->p[i].died == UINT64_MAX ? ix->nx : lower(ix->x, ix->nx, ix->p[i].died);
        FOR_NODES(ix, lo, hi, ix->off[k + 1]++);
    }
    for (size_t k = 1; k <= 2 * ix->leaves; k++)
        ix->off[k] += ix->off[k - 1];
    ix->list = malloc((ix->off[2 * ix->leaves] + 1) * sizeof *ix->list);
    uint32_t *fill = malloc(2 * ix->leaves * sizeof *fill);
    if (!ix->list || !fill) {
        free(fill);
        goto nomem;
    }
    memcpy(fill, ix->off, 2 * ix->leaves * sizeof *fill);
    for (size_t i = 0; i < ix->np; i++) {
        size_t lo = lower(ix->x, ix->nx, ix->p[i].m.born);
        size_t hi = ix->p[i].died == UINT64_MAX ? ix->nx : lower(ix->x, ix->nx, ix->p[i].died);
        FOR_NODES(ix, lo, hi, ix->list[fill[k]++] = (uint32_t)i);
    }
    free(fill);
    return ix;
nomem:
    index_free(ix);
    return NULL;
}

static const procs_map *index_find(const struct tindex *ix, uint64_t addr, uint64_t time)
{
    size_t leaf = lower(ix->x, ix->nx, time);
    if (leaf == ix->nx || ix->x[leaf] != time) { /* the leaf of the last time before */
        if (!leaf)
            return NULL;
        leaf--;
    }
    for (size_t k = leaf + ix->leaves; k >= 1; k >>= 1) {
        const uint32_t *l = ix->list + ix->off[k];
        size_t lo = 0, hi = ix->off[k + 1] - ix->off[k];
        while (lo < hi) { /* the first piece starting after addr */
            size_t mid = lo + (hi - lo) / 2;
            if (ix->p[l[mid]].m.start <= addr)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo && addr < ix->p[l[lo - 1]].m.end)
            return &ix->p[l[lo - 1]].m;
    }
    return NULL;
}

const procs_map *procs_map_at(struct procs *pm, int32_t pid, uint64_t addr, uint64_t time)
{
    procs_proc *p = procs_proc_get(pm, pid);
    while (p && time < p->born)
        p = p->priv->older;
    if (!p)
        return NULL;
    struct procs_proc_priv *q = p->priv;
    if (!q->archived && time >= q->changed)
        return procs_find_map(p, addr);
    if (!q->ix || q->ix->gen != p->maps_gen) {
        index_free(q->ix);
        if (!(q->ix = build_index(p)))
            return NULL;
    }
    return index_find(q->ix, addr, time);
}

void procs_get_stats(const struct procs *pm, procs_stats *st)
{
    st->processes = pm->procs.count;
    st->threads = pm->threads.count;
    st->maps = pm->nmaps;
    st->history = pm->nhist;
}

int procs_may_remap(uint32_t type)
{
    switch (type) {
    case TR_REC_SAMPLE: case TR_REC_COUNTER: case TR_REC_SYSCALL: case TR_REC_SIGNAL:
    case TR_REC_LIBCALL: case TR_REC_TRACE_EVENT: case TR_REC_FUNCTION: case TR_REC_LOST:
    case TR_REC_SWITCH:
        return 0;
    default:
        return 1;
    }
}
