/* profile.c - read a trace into a report: samples grouped by (stack, pid,
 * tid, comm, cpu), off-CPU time through model/fold, syscalls and
 * tracepoint events handed to events.c. */
#include "report_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "fold/fold.h"
#include "procs.h"
#include "stacks.h"
#include "symbolize/symbolize.h"
#include "weight.h"

/* ---- options ------------------------------------------------------------ */

void report_opts_init(struct report_opts *o)
{
    memset(o, 0, sizeof *o);
    o->children = 1;
    o->sort[0] = RK_COMM, o->sort[1] = RK_DSO, o->sort[2] = RK_SYM, o->nsort = 3;
    o->graph = RG_GRAPH;
    o->graph_min = 0.5;
    o->max_stack = 127;
}

void report_opts_free(struct report_opts *o)
{
    free(o->pids);
    free(o->tids);
    free(o->comms);
    free(o->dsos);
    free(o->syms);
    free(o->debug_dirs);
}

static const char *const key_names[] = {"comm", "pid", "tid", "dso", "sym", "srcline", "cpu"};

static int word_key(const char *w)
{
    for (int k = 0; k < RK_NKEYS; k++)
        if (!strcmp(w, key_names[k]))
            return k;
    if (!strcmp(w, "symbol"))
        return RK_SYM;
    if (!strcmp(w, "overhead"))
        return RC_SELF;
    if (!strcmp(w, "overhead_children") || !strcmp(w, "children"))
        return RC_CHILDREN;
    if (!strcmp(w, "sample") || !strcmp(w, "samples"))
        return RC_SAMPLES;
    if (!strcmp(w, "period"))
        return RC_PERIOD;
    return -1;
}

/* Split s at commas into words of (*out)[..]: their columns; keys_only
 * refuses the non-key columns. */
static int parse_list(const char *s, int *out, int *n, int keys_only, const char **bad)
{
    static char word[64];
    *n = 0;
    while (*s) {
        size_t l = strcspn(s, ",");
        snprintf(word, sizeof word, "%.*s", (int)l, s);
        int k = word_key(word);
        if (k < 0 || (keys_only && k >= RK_NKEYS) || *n >= REPORT_MAX_COLS) {
            *bad = word;
            return -1;
        }
        out[(*n)++] = k;
        s += l + (s[l] == ',');
    }
    if (!*n) {
        *bad = "";
        return -1;
    }
    return 0;
}

int report_parse_sort(struct report_opts *o, const char *s, const char **bad)
{
    return parse_list(s, o->sort, &o->nsort, 1, bad);
}

int report_parse_fields(struct report_opts *o, const char *s, const char **bad)
{
    if (parse_list(s, o->cols, &o->ncols, 0, bad) < 0)
        return -1;
    int keys[REPORT_MAX_COLS], nk = 0;
    for (int i = 0; i < o->ncols; i++)
        if (o->cols[i] < RK_NKEYS)
            keys[nk++] = o->cols[i];
    if (nk) {
        memcpy(o->sort, keys, sizeof keys);
        o->nsort = nk;
    }
    return 0;
}

int report_parse_graph(struct report_opts *o, const char *s)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *w = strtok(buf, ","); w; w = strtok(NULL, ",")) {
        char *end;
        double v = strtod(w, &end);
        if (end != w && !*end && v >= 0 && v <= 100) o->graph_min = v;
        else if (!strcmp(w, "graph")) o->graph = RG_GRAPH;
        else if (!strcmp(w, "fractal")) o->graph = RG_FRACTAL;
        else if (!strcmp(w, "flat")) o->graph = RG_FLAT;
        else if (!strcmp(w, "folded")) o->graph = RG_FOLDED;
        else if (!strcmp(w, "none")) o->graph = RG_NONE;
        else if (!strcmp(w, "caller")) o->caller = 1, o->order_set = 1;
        else if (!strcmp(w, "callee")) o->caller = 0, o->order_set = 1;
        else if (!strcmp(w, "function") || !strcmp(w, "percent")) continue;
        else return -1;
    }
    o->graph_set = 1;
    return 0;
}

/* ---- tables --------------------------------------------------------------- */

int64_t strtab_id(struct strtab *t, const char *s, size_t len)
{
    const char *p = strpool_intern(&t->pool, s, len);
    if (!p)
        return -1;
    void *v = hashmap_get(&t->ids, (uintptr_t)p, 0);
    if (v)
        return (int64_t)((uintptr_t)v - 1);
    if (array_reserve(&t->v, &t->cap, t->n + 1, sizeof *t->v, 64) < 0 ||
        hashmap_put(&t->ids, (uintptr_t)p, 0, (void *)(uintptr_t)(t->n + 1)) < 0)
        return -1;
    t->v[t->n] = p;
    return (int64_t)t->n++;
}

static void strtab_free(struct strtab *t)
{
    strpool_free(&t->pool);
    hashmap_free(&t->ids);
    free(t->v);
}

int64_t seqtab_id(struct seqtab *t, const uint32_t *v, uint32_t len)
{
    uint64_t h = hash_words(v, len * sizeof *v, len);
    for (;; h++) {
        void *p = hashmap_get(&t->map, h, len);
        if (!p)
            break;
        uint32_t id = (uint32_t)((uintptr_t)p - 1);
        if (!memcmp(seqtab_get(t, id), v, len * sizeof *v))
            return id;
    }
    if (array_reserve(&t->data, &t->capdata, t->ndata + len, sizeof *t->data, 1024) < 0 ||
        array_reserve(&t->off, &t->cap, t->n + 2, sizeof *t->off, 64) < 0 ||
        hashmap_put(&t->map, h, len, (void *)(uintptr_t)(t->n + 1)) < 0)
        return -1;
    if (len)
        memcpy(t->data + t->ndata, v, len * sizeof *v);
    t->off[t->n] = t->ndata;
    t->ndata += len;
    t->off[t->n + 1] = t->ndata;
    return (int64_t)t->n++;
}

void seqtab_free(struct seqtab *t)
{
    free(t->data);
    free(t->off);
    hashmap_free(&t->map);
}

struct report *report_new(const struct report_opts *o)
{
    struct report *r = calloc(1, sizeof *r);
    if (r)
        r->o = *o;
    return r;
}

void report_free(struct report *r)
{
    if (!r)
        return;
    strtab_free(&r->str);
    seqtab_free(&r->stacks);
    free(r->syms);
    hashmap_free(&r->symmap);
    free(r->frames);
    hashmap_free(&r->framemap);
    for (size_t i = 0; i < r->nsec; i++) {
        hashmap_free(&r->sec[i].groups);
        free(r->sec[i].g);
    }
    free(r->sec);
    report_events_free(r);
    free(r);
}

int report_empty(const struct report *r)
{
    return !r->nsec && !r->systotal.lat.n && !r->events;
}

/* ---- frames --------------------------------------------------------------- */

static const char *base_name(const char *p)
{
    if (p[0] == '[')
        return p;
    const char *s = strrchr(p, '/');
    return s && s[1] ? s + 1 : p;
}

/* The symbol of these (string ids) and the frame of a symbol at a source
 * line (string id, 0 none): their ids, -1 out of memory. */
static int64_t sym_of(struct report *r, uint32_t name, uint32_t dso, uint64_t addr, int kernel, int unknown)
{
    uint64_t ka = (uint64_t)name << 32 | dso, kb = unknown ? addr : 0;
    void *v = hashmap_get(&r->symmap, ka, kb);
    if (v)
        return (int64_t)((uintptr_t)v - 1);
    if (array_reserve(&r->syms, &r->capsyms, r->nsyms + 1, sizeof *r->syms, 256) < 0 ||
        hashmap_put(&r->symmap, ka, kb, (void *)(uintptr_t)(r->nsyms + 1)) < 0)
        return -1;
    r->syms[r->nsyms] = (struct rsym){.name = name, .dso = dso, .addr = addr, .kernel = kernel, .unknown = unknown};
    return (int64_t)r->nsyms++;
}

static int64_t frame_of(struct report *r, uint32_t sym, uint32_t srcline)
{
    uint64_t fa = (uint64_t)sym << 32 | srcline;
    void *v = hashmap_get(&r->framemap, fa, 0);
    if (v)
        return (int64_t)((uintptr_t)v - 1);
    if (array_reserve(&r->frames, &r->capframes, r->nframes + 1, sizeof *r->frames, 256) < 0 ||
        hashmap_put(&r->framemap, fa, 0, (void *)(uintptr_t)(r->nframes + 1)) < 0)
        return -1;
    r->frames[r->nframes] = (struct rframe){.sym = sym, .srcline = srcline};
    return (int64_t)r->nframes++;
}

/* The frame id of a resolved frame: -1 out of memory. */
static int64_t frame_id(struct report *r, const char *func, const char *module, const char *file,
                        uint32_t line, uint64_t addr, uint64_t offset, int kernel, int srcline)
{
    int unknown = !func || !strcmp(func, "[unknown]");
    char buf[64];
    if (unknown) {
        snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)addr);
        func = buf;
    }
    const char *dso = base_name(module ? module : "[unknown]");
    int64_t name = strtab_id(&r->str, func, strlen(func)), d = strtab_id(&r->str, dso, strlen(dso));
    if (name < 0 || d < 0)
        return -1;
    int64_t sym = sym_of(r, (uint32_t)name, (uint32_t)d, addr, kernel, unknown);
    if (sym < 0)
        return -1;
    int64_t sl = 0;
    if (srcline) {
        char line_buf[512];
        if (file && line)
            snprintf(line_buf, sizeof line_buf, "%s:%u", base_name(file), line);
        else if (unknown)
            snprintf(line_buf, sizeof line_buf, "%s", func);
        else
            snprintf(line_buf, sizeof line_buf, "%s+%llu", func, (unsigned long long)offset);
        if ((sl = strtab_id(&r->str, line_buf, strlen(line_buf))) < 0)
            return -1;
    }
    return frame_of(r, (uint32_t)sym, (uint32_t)sl);
}

/* ---- sections and groups ------------------------------------------------- */

static struct rsection *section_of(struct report *r, const char *name, size_t len)
{
    int64_t id = strtab_id(&r->str, name, len);
    if (id < 0)
        return NULL;
    const char *s = r->str.v[id];
    for (size_t i = 0; i < r->nsec; i++)
        if (r->sec[i].name == s)
            return &r->sec[i];
    if (array_reserve(&r->sec, &r->capsec, r->nsec + 1, sizeof *r->sec, 4) < 0)
        return NULL;
    struct rsection *sec = &r->sec[r->nsec++];
    memset(sec, 0, sizeof *sec);
    sec->name = s;
    return sec;
}

/* Add to the group of these; returns its index, or -1 out of memory. */
static int64_t group_add(struct rsection *sec, uint32_t stack, uint32_t comm, int32_t pid, int32_t tid,
                     int32_t cpu, uint64_t samples, uint64_t period)
{
    uint64_t a = (uint64_t)stack << 32 | (uint32_t)tid;
    uint64_t b = ((uint64_t)(uint32_t)pid << 32 | comm) * 0x9e3779b97f4a7c15ull ^ (uint32_t)cpu;
    for (;; a += 1ull << 63 | 1) { /* collisions probe elsewhere */
        void *v = hashmap_get(&sec->groups, a, b);
        if (!v)
            break;
        struct rgroup *g = &sec->g[(uintptr_t)v - 1];
        if (g->stack == stack && g->comm == comm && g->pid == pid && g->tid == tid && g->cpu == cpu) {
            g->samples += samples;
            g->period += period;
            sec->samples += samples;
            sec->period += period;
            return (int64_t)((uintptr_t)v - 1);
        }
    }
    if (array_reserve(&sec->g, &sec->capg, sec->ng + 1, sizeof *sec->g, 64) < 0 ||
        hashmap_put(&sec->groups, a, b, (void *)(uintptr_t)(sec->ng + 1)) < 0)
        return -1;
    sec->g[sec->ng] = (struct rgroup){.stack = stack, .comm = comm, .pid = pid, .tid = tid, .cpu = cpu,
                                      .samples = samples, .period = period};
    sec->samples += samples;
    sec->period += period;
    return (int64_t)sec->ng++;
}

/* ---- a live report sheds what decayed away ---------------------------------- */

/* Copies what live groups use from r into n, each id once (map: old id -> new + 1). */
struct compact {
    struct report *r, *n;
    uint32_t *strs, *frames;
    int keep_strs;             /* syscalls or events hold string ids: strings stay */
};

static int64_t keep_str(struct compact *c, uint32_t id)
{
    if (c->keep_strs)
        return id;
    if (!c->strs[id]) {
        const char *s = c->r->str.v[id];
        int64_t k = strtab_id(&c->n->str, s, strlen(s));
        if (k < 0)
            return -1;
        c->strs[id] = (uint32_t)k + 1;
    }
    return c->strs[id] - 1;
}

static int64_t keep_frame(struct compact *c, uint32_t id)
{
    if (!c->frames[id]) {
        const struct rframe *f = &c->r->frames[id];
        const struct rsym *s = &c->r->syms[f->sym];
        int64_t name = keep_str(c, s->name), dso = keep_str(c, s->dso), sl = f->srcline ? keep_str(c, f->srcline) : 0;
        int64_t sym = name < 0 || dso < 0 ? -1 : sym_of(c->n, (uint32_t)name, (uint32_t)dso, s->addr, s->kernel, s->unknown);
        int64_t k = sym < 0 || sl < 0 ? -1 : frame_of(c->n, (uint32_t)sym, (uint32_t)sl);
        if (k < 0)
            return -1;
        c->frames[id] = (uint32_t)k + 1;
    }
    return c->frames[id] - 1;
}

/* The groups of sec that did not decay away, into to (their ids n's). */
static int keep_groups(struct compact *c, const struct rsection *sec, struct rsection *to, uint32_t **ids, size_t *cap)
{
    for (size_t k = 0; k < sec->ng; k++) {
        const struct rgroup *g = &sec->g[k];
        if (!g->samples && !g->period)
            continue;
        uint32_t len = seqtab_len(&c->r->stacks, g->stack);
        const uint32_t *st = seqtab_get(&c->r->stacks, g->stack);
        if (array_reserve(ids, cap, len, sizeof **ids, 64) < 0)
            return -1;
        for (uint32_t i = 0; i < len; i++) {
            int64_t f = keep_frame(c, st[i]);
            if (f < 0)
                return -1;
            (*ids)[i] = (uint32_t)f;
        }
        int64_t sid = seqtab_id(&c->n->stacks, *ids, len), comm = keep_str(c, g->comm);
        if (sid < 0 || comm < 0 ||
            group_add(to, (uint32_t)sid, (uint32_t)comm, g->pid, g->tid, g->cpu, g->samples, g->period) < 0)
            return -1;
    }
    return 0;
}

#define SWAP(a, b) do { __typeof__(a) swap_ = (a); (a) = (b); (b) = swap_; } while (0)

int report_compact(struct report *r)
{
    size_t all = 0, dead = 0;
    for (size_t i = 0; i < r->nsec; i++)
        for (size_t k = 0; k < r->sec[i].ng; k++)
            all++, dead += !r->sec[i].g[k].samples && !r->sec[i].g[k].period;
    if (!dead || dead * 2 < all) /* each group is copied once per group that died */
        return 0;
    struct compact c = {.r = r, .n = report_new(&r->o), .strs = calloc(r->str.n + 1, sizeof *c.strs),
                        .frames = calloc(r->nframes + 1, sizeof *c.frames),
                        .keep_strs = r->nsys || r->nproc || r->nev || r->nst};
    struct rsection *secs = calloc(r->nsec + 1, sizeof *secs);
    uint32_t *ids = NULL;
    size_t capids = 0;
    int rc = c.n && c.strs && c.frames && secs ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < r->nsec; i++) { /* the names first: string 0 stays a section's */
        void *v = hashmap_get(&r->str.ids, (uintptr_t)r->sec[i].name, 0);
        int64_t k = v ? keep_str(&c, (uint32_t)((uintptr_t)v - 1)) : -1;
        if (k < 0)
            rc = -1;
        else
            secs[i].name = c.keep_strs ? r->sec[i].name : c.n->str.v[k];
    }
    for (size_t i = 0; rc == 0 && i < r->nsec; i++)
        rc = keep_groups(&c, &r->sec[i], &secs[i], &ids, &capids);
    for (size_t i = 0; i < r->nsec; i++) {
        if (rc == 0) {
            r->sec[i].name = secs[i].name;
            SWAP(r->sec[i].groups, secs[i].groups);
            SWAP(r->sec[i].g, secs[i].g);
            SWAP(r->sec[i].ng, secs[i].ng);
            SWAP(r->sec[i].capg, secs[i].capg);
        }
        hashmap_free(&secs[i].groups);
        free(secs[i].g);
    }
    if (rc == 0) {
        if (!c.keep_strs)
            SWAP(r->str, c.n->str);
        SWAP(r->stacks, c.n->stacks);
        SWAP(r->syms, c.n->syms); SWAP(r->nsyms, c.n->nsyms); SWAP(r->capsyms, c.n->capsyms);
        SWAP(r->symmap, c.n->symmap);
        SWAP(r->frames, c.n->frames); SWAP(r->nframes, c.n->nframes); SWAP(r->capframes, c.n->capframes);
        SWAP(r->framemap, c.n->framemap);
        r->gen++;
    }
    report_free(c.n);
    free(c.strs);
    free(c.frames);
    free(secs);
    free(ids);
    return rc;
}

/* ---- reading a trace ------------------------------------------------------ */

struct rstate {
    struct report *r;
    tr_reader *rd;
    sym_session *sym;
    struct procs *own_procs;
    const struct procs *procs;
    tpformat *tp;
    hashmap cache;             /* (trace stack, pid) -> stack + 1 */
    stacks_frames frames;
    uint32_t *ids;
    size_t capids;
    uint32_t last_event;       /* the event def of last_sec */
    struct rsection *last_sec;
    uint64_t unresolved, switch_samples, other_samples;
    char comm_buf[16];
    hashmap commids;           /* procs' interned comm -> its strtab id + 1 (this stream's) */
    /* each thread's last sample (by tid modulo 64): a sample like it adds to
     * its group without a look-up; emptied with cache */
    struct last {
        const struct rsection *sec;
        const char *comm;
        int32_t tid, pid, cpu;
        uint32_t stack;            /* the trace's */
        size_t group;
    } last[64];
    int filtered;              /* --pid, --tid or --comm given */
    unsigned gen;              /* the report's gen the caches hold ids of */
    weight *w;                 /* --weight */
    uint64_t weighed, unweighed; /* samples with and without its field */
};

int report_wanted_comm(const struct report *r, const char *comm)
{
    if (!r->o.ncomms)
        return 1;
    for (size_t i = 0; i < r->o.ncomms; i++)
        if (!strcmp(r->o.comms[i], comm))
            return 1;
    return 0;
}

static int id_in(const int32_t *v, size_t n, int32_t id)
{
    if (!n)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (v[i] == id)
            return 1;
    return 0;
}

/* The thread's command name; ":TID" when it is not known, as perf shows it. */
static const char *comm_of(struct rstate *t, int32_t tid)
{
    const char *c = procs_comm(t->procs, tid);
    if (c)
        return c;
    snprintf(t->comm_buf, sizeof t->comm_buf, ":%d", tid);
    return t->comm_buf;
}

static int in_time(const struct report_opts *o, uint64_t time)
{
    return (!o->have_from || time >= o->time_from) && (!o->have_to || time <= o->time_to);
}

/* Passes the --pid --tid --comm filters (the --time one is checked first:
 * what it leaves out is not counted at all, as perf report does). */
static int wanted(struct rstate *t, const tr_record *rec)
{
    const struct report_opts *o = &t->r->o;
    return id_in(o->pids, o->npids, rec->pid) && id_in(o->tids, o->ntids, rec->tid) &&
           report_wanted_comm(t->r, comm_of(t, rec->tid));
}

static const char *raw_module(void *ctx, int32_t pid, uint64_t addr)
{
    struct rstate *t = ctx;
    const procs_map *m = procs_lookup(t->procs, pid, addr);
    return m ? m->path : NULL;
}

static int push_id(struct rstate *t, size_t *n, int64_t id)
{
    if (id < 0 || array_reserve(&t->ids, &t->capids, *n + 1, sizeof *t->ids, 64) < 0)
        return -1;
    t->ids[(*n)++] = (uint32_t)id;
    return 0;
}

static int has_key(const struct report_opts *o, int key)
{
    for (int i = 0; i < o->nsort; i++)
        if (o->sort[i] == key)
            return 1;
    return 0;
}

/* The stack id of a sample: its frames, leaf first, inlined functions left
 * out (perf report shows the function holding the address).  -1 out of memory. */
static int64_t sample_stack(struct rstate *t, const tr_record *rec)
{
    struct report *r = t->r;
    int srcline = has_key(&r->o, RK_SRCLINE);
    size_t n = 0;
    if (t->sym) {
        const sym_frame *fr;
        size_t nfr = 0;
        if (sym_resolve_stack(t->sym, t->rd, rec, &fr, &nfr) < 0) {
            t->unresolved++;
            nfr = 0;
        }
        for (size_t i = 0; i < nfr; i++)
            if (!(fr[i].flags & TR_FRAME_INLINE) &&
                push_id(t, &n, frame_id(r, fr[i].func, fr[i].module, fr[i].file, fr[i].line, fr[i].addr,
                                        fr[i].offset, !!(fr[i].flags & TR_FRAME_KERNEL), srcline)) < 0)
                return -1;
    } else {
        int nf = stacks_frames_read(&t->frames, t->rd, rec, raw_module, t);
        t->unresolved += t->frames.lost;
        t->frames.lost = 0;
        if (nf < 0)
            return -1;
        for (int i = 0; i < nf; i++) {
            const stacks_frame *f = &t->frames.v[i];
            if (f->kind != STACKS_INLINE &&
                push_id(t, &n, frame_id(r, f->func, f->module, f->file, f->line, f->addr, f->offset,
                                        f->kind == STACKS_KERNEL, srcline)) < 0)
                return -1;
        }
    }
    if (!n && push_id(t, &n, frame_id(r, NULL, NULL, NULL, 0, 0, 0, 0, srcline)) < 0)
        return -1;
    return seqtab_id(&r->stacks, t->ids, (uint32_t)n);
}

/* The trace's stacks are looked up again (their report stacks and groups). */
static void forget_stacks(struct rstate *t)
{
    hashmap_free(&t->cache);
    memset(t->last, 0, sizeof t->last);
}

static int on_sample(struct rstate *t, const tr_record *rec)
{
    struct report *r = t->r;
    if (t->gen != r->gen) { /* compacted: the ids cached are no more */
        forget_stacks(t);
        hashmap_free(&t->commids);
        t->gen = r->gen;
    }
    if (!t->last_sec || t->last_event != rec->u.sample.event) {
        const tr_event_def *ev = tr_reader_event(t->rd, rec->u.sample.event);
        const char *name = ev ? ev->name : "[unknown event]";
        size_t nl = ev ? ev->name_len : strlen(name);
        if (!(t->last_sec = section_of(r, name, nl)))
            return -1;
        t->last_event = rec->u.sample.event;
    }
    struct rsection *sec = t->last_sec;
    if (r->o.event && strcmp(r->o.event, sec->name))
        return 0;
    uint64_t period = rec->u.sample.period;
    if (t->w) { /* weighed by a field: a sample without it is not in the profile */
        int rc = weight_of(t->w, t->rd, rec, &period);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            t->unweighed++;
            return 0;
        }
        t->weighed++;
    }
    if (!strcmp(sec->name, "sched:sched_switch"))
        t->switch_samples++;
    else
        t->other_samples++;
    if (!in_time(&r->o, rec->time))
        return 0;
    if (t->filtered && !wanted(t, rec)) { /* still counted in the total (perf's --percentage absolute) */
        sec->samples++;
        sec->period += period;
        return 0;
    }
    const char *comm = procs_comm(t->procs, rec->tid);
    uint32_t stack = rec->u.sample.stack;
    /* a sample with a stack copy is unwound: its frames are its own */
    int cached = stack && !(rec->u.sample.nregs && rec->u.sample.stack_copy_len);
    struct last *l = &t->last[(uint32_t)rec->tid % 64];
    if (cached && comm && l->sec == sec && l->comm == comm && l->tid == rec->tid && l->pid == rec->pid &&
        l->cpu == rec->cpu && l->stack == stack) {
        sec->g[l->group].samples++;
        sec->g[l->group].period += period;
        sec->samples++;
        sec->period += period;
        return 0;
    }
    void *cv = comm ? hashmap_get(&t->commids, (uintptr_t)comm, 0) : NULL;
    int64_t cid;
    if (cv) {
        cid = (int64_t)((uintptr_t)cv - 1);
    } else {
        if (!comm)
            comm = comm_of(t, rec->tid);
        if ((cid = strtab_id(&r->str, comm, strlen(comm))) < 0)
            return -1;
        if (procs_comm(t->procs, rec->tid) == comm &&
            hashmap_put(&t->commids, (uintptr_t)comm, 0, (void *)(uintptr_t)(cid + 1)) < 0)
            return -1;
    }
    void *v = cached ? hashmap_get(&t->cache, stack, (uint32_t)rec->pid) : NULL;
    int64_t sid;
    if (v) {
        sid = (int64_t)((uintptr_t)v - 1);
    } else {
        uint64_t before = t->unresolved;
        if ((sid = sample_stack(t, rec)) < 0)
            return -1;
        cached = cached && before == t->unresolved; /* lost definitions may come again */
        if (cached && hashmap_put(&t->cache, stack, (uint32_t)rec->pid, (void *)(uintptr_t)(sid + 1)) < 0)
            return -1;
    }
    if (seqtab_len(&r->stacks, (uint32_t)sid) > 1)
        sec->stacks = 1;
    int64_t g = group_add(sec, (uint32_t)sid, (uint32_t)cid, rec->pid, rec->tid, rec->cpu, 1, period);
    if (g < 0)
        return -1;
    if (cached && comm == procs_comm(t->procs, rec->tid))
        *l = (struct last){.sec = sec, .comm = comm, .tid = rec->tid, .pid = rec->pid, .cpu = rec->cpu,
                           .stack = stack, .group = (size_t)g};
    return 0;
}

static void sym_warn(void *ctx, const char *msg)
{
    (void)ctx;
    cli_warn("%s", msg);
}

/* One pass over a trace: the file or pipe fd (a file mapped and prescanned),
 * or what fn reads (a live view: samples alone, nothing prescanned).  A
 * CLI_EXIT_* status. */
static int read_trace(struct report *r, struct rstate *t, int fd, tr_read_fn fn, void *ctx, const char *shown)
{
    const struct report_opts *o = &r->o;
    t->r = r;
    int rc = fn ? tr_reader_open_fn(&t->rd, fn, ctx, NULL, 0, NULL) : tr_reader_open_fd(&t->rd, fd, NULL, 0, NULL);
    if (rc < 0) {
        cli_warn("%s: %s", shown, tr_strerror(rc));
        return CLI_EXIT_FAIL;
    }
    int status = CLI_EXIT_OK;
    t->filtered = o->npids || o->ntids || o->ncomms;
    void *map = NULL;
    size_t maplen = 0;
    sym_options so;
    sym_options_init(&so);
    so.inlines = 0;
    so.lines = has_key(o, RK_SRCLINE);
    so.cache_dir = o->no_cache ? NULL : o->cache_dir ? o->cache_dir : sym_default_cache_dir();
    so.warn = o->quiet ? NULL : sym_warn;
    so.symfs = o->symfs;
    so.debug_dirs = o->debug_dirs;
    if ((!o->no_symbolize && !(t->sym = sym_new(&so))) || tpformat_new(&t->tp) < 0 ||
        (o->no_symbolize && !(t->own_procs = procs_new(NULL))) ||
        (o->weight && weight_new(o->weight, &t->w) < 0)) {
        cli_warn("out of memory");
        status = CLI_EXIT_FAIL;
        goto out;
    }
    t->procs = t->sym ? sym_procs(t->sym) : t->own_procs;
    if (t->sym && !fn && (map = sym_map_input(fd, 0, &maplen)) && sym_prescan_lazy(t->sym, map, maplen) < 0) {
        cli_warn("out of memory");
        status = CLI_EXIT_FAIL;
        goto out;
    }
    tr_record rec;
    int warned = 0;
    while ((rc = tr_reader_next(t->rd, &rec)) != 0) {
        if (rc < 0) {
            if (!cli_read_error(t->rd, rc, shown, &warned, &status))
                break;
            forget_stacks(t); /* definitions were lost: they may come again */
            continue;
        }
        if ((t->sym ? sym_observe(t->sym, t->rd, &rec) < 0 : procs_feed(t->own_procs, &rec) < 0) ||
            (t->w && weight_observe(t->w, t->rd, &rec) < 0)) {
            rc = TR_E_NOMEM;
            goto nomem;
        }
        if (procs_may_remap(rec.type) && t->cache.count)
            forget_stacks(t);
        if (rec.type == TR_REC_STREAM_START) {
            hashmap_free(&t->commids); /* the stream's processes are forgotten */
            tpformat_reset(t->tp);
            t->last_sec = NULL;
            continue;
        }
        if (rec.time) {
            if (!r->first_time || rec.time < r->first_time)
                r->first_time = rec.time;
            if (rec.time > r->last_time)
                r->last_time = rec.time;
        }
        rc = 0;
        if (rec.type == TR_REC_SAMPLE)
            rc = on_sample(t, &rec);
        else if (rec.type == TR_REC_LOST && rec.u.lost.kind == TR_LOST_SAMPLES)
            r->lost += rec.u.lost.count;
        else if (fn) /* a live view shows the samples */
            continue;
        else if (rec.type == TR_REC_SYSCALL && in_time(o, rec.time) && (!t->filtered || wanted(t, &rec)))
            rc = report_syscall(r, t->rd, &rec, comm_of(t, rec.tid));
        else if (rec.type == TR_REC_TRACE_EVENT && in_time(o, rec.time))
            rc = report_trace_event(r, t->rd, t->tp, &rec, rec.tid > 0 ? comm_of(t, rec.tid) : "swapper");
    nomem:
        if (rc < 0) {
            cli_warn("out of memory");
            status = CLI_EXIT_FAIL;
            break;
        }
    }
    if (t->unresolved && !o->quiet)
        cli_warn("%s: %llu stacks or frames could not be resolved (lost definitions)", shown,
                 (unsigned long long)t->unresolved);
    if (t->unweighed && !t->weighed) { /* as tr-fold --weight */
        cli_warn("%s: %s", shown, weight_why(t->w));
        status = CLI_EXIT_FAIL;
    } else if (t->unweighed && !o->quiet) {
        cli_warn("%s: %llu samples left out, not weighed: %s", shown, (unsigned long long)t->unweighed,
                 weight_why(t->w));
    }
out:
    if (t->sym) {
        sym_finish(t->sym);
        sym_free(t->sym);
    }
    if (map)
        munmap(map, maplen);
    tpformat_free(t->tp);
    weight_free(t->w);
    tr_reader_free(t->rd);
    procs_free(t->own_procs);
    stacks_frames_free(&t->frames);
    hashmap_free(&t->cache);
    hashmap_free(&t->commids);
    free(t->ids);
    return status;
}

/* ---- off-CPU: model/fold's waits, folded "comm-pid/tid;root;...;leaf NS" --- */

static int parse_folded(struct report *r, struct rsection *sec, const char *key, size_t len, uint64_t ns)
{
    const char *end = key + len, *semi = memchr(key, ';', len);
    const char *root_end = semi ? semi : end;
    const char *slash = NULL, *dash = NULL;
    for (const char *p = root_end; p > key; p--) {
        if (!slash && p[-1] == '/')
            slash = p - 1;
        else if (slash && p[-1] == '-') {
            dash = p - 1;
            break;
        }
    }
    if (!slash || !dash)
        return 0;
    int32_t pid = (int32_t)strtol(dash + 1, NULL, 10), tid = (int32_t)strtol(slash + 1, NULL, 10);
    int64_t cid = strtab_id(&r->str, key, (size_t)(dash - key));
    if (cid < 0)
        return -1;
    if (!id_in(r->o.pids, r->o.npids, pid) || !id_in(r->o.tids, r->o.ntids, tid) ||
        !report_wanted_comm(r, r->str.v[cid])) {
        sec->period += ns;
        return 0;
    }
    /* frames root first in the line: leaf first in the stack */
    uint32_t ids[1024];
    size_t n = 0;
    for (const char *p = end; p > root_end && n < 1024;) {
        const char *q = p;
        while (q > root_end && q[-1] != ';')
            q--;
        size_t l = (size_t)(p - q);
        int kernel = l > 4 && !memcmp(p - 4, "_[k]", 4);
        char name[1024];
        snprintf(name, sizeof name, "%.*s", (int)(kernel ? l - 4 : l), q);
        int64_t id = frame_id(r, name, kernel ? "[kernel.kallsyms]" : "[unknown]", NULL, 0, 0, 0, kernel,
                              has_key(&r->o, RK_SRCLINE));
        if (id < 0)
            return -1;
        ids[n++] = (uint32_t)id;
        p = q - 1;
    }
    if (!n) {
        int64_t id = frame_id(r, NULL, NULL, NULL, 0, 0, 0, 0, 0);
        if (id < 0)
            return -1;
        ids[n++] = (uint32_t)id;
    }
    int64_t sid = seqtab_id(&r->stacks, ids, (uint32_t)n);
    if (sid < 0)
        return -1;
    if (n > 1)
        sec->stacks = 1;
    return group_add(sec, (uint32_t)sid, (uint32_t)cid, pid, tid, -1, 0, ns) < 0 ? -1 : 0;
}

static int offcpu_pass(struct report *r, const char *path, uint64_t switches)
{
    struct fold_opts fo;
    fold_opts_init(&fo);
    fo.offcpu = 1;
    fo.quiet = 1;
    fo.ps.fold.tid = 1;
    fo.ps.fold.kernel = 1;
    fo.no_symbolize = r->o.no_symbolize;
    fo.no_cache = r->o.no_cache;
    fo.cache_dir = r->o.cache_dir;
    fo.symfs = r->o.symfs;
    fo.debug_dirs = r->o.debug_dirs;
    fo.ndebug_dirs = r->o.ndebug_dirs;
    struct fold f;
    if (fold_init(&f, &fo) < 0) {
        cli_warn("out of memory");
        return CLI_EXIT_FAIL;
    }
    int status = fold_input(&f, path);
    struct rsection *sec = section_of(r, "sched:sched_switch", 18);
    if (!sec) {
        status = CLI_EXIT_FAIL;
    } else {
        /* the samples' groups give way to the waits' */
        hashmap_free(&sec->groups);
        sec->ng = 0;
        sec->samples = sec->period = 0;
        sec->offcpu = 1;
        for (size_t i = 0; i < f.map.n && status != CLI_EXIT_FAIL; i++)
            if (f.map.e[i].n && parse_folded(r, sec, smap_key(&f.map, &f.map.e[i]), f.map.e[i].len, f.map.e[i].n) < 0)
                status = CLI_EXIT_FAIL;
        sec->samples = switches;
    }
    fold_free(&f);
    fo.debug_dirs = NULL; /* the report's own, freed with its options */
    fold_opts_free(&fo);
    return status;
}

/* A pipe read for --offcpu: copied into a memory file, read twice. */
static int spool(int fd)
{
    int m = memfd_create("tr-report", MFD_CLOEXEC);
    if (m < 0)
        return -1;
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t w = 0, k; w < n; w += k)
            if ((k = write(m, buf + w, (size_t)(n - w))) < 0) {
                close(m);
                return -1;
            }
    if (n < 0 || lseek(m, 0, SEEK_SET) < 0) {
        close(m);
        return -1;
    }
    return m;
}

int report_input(struct report *r, const char *path)
{
    const char *shown;
    int fd = cli_open_input(path, &shown);
    struct stat sb;
    int regular = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
    if (!regular && r->o.offcpu) {
        int m = spool(fd);
        if (m < 0) {
            cli_warn("%s: %s", shown, strerror(errno));
            if (fd)
                close(fd);
            return CLI_EXIT_FAIL;
        }
        if (fd)
            close(fd);
        fd = m;
        regular = 1;
    }
    struct rstate t;
    memset(&t, 0, sizeof t);
    int status = read_trace(r, &t, fd, NULL, NULL, shown);
    int offcpu = r->o.offcpu || (!r->o.event && !r->o.weight && t.switch_samples && !t.other_samples);
    if (status != CLI_EXIT_FAIL && offcpu && t.switch_samples) {
        if (!regular) {
            if (!r->o.quiet)
                cli_warn("%s: sched_switch samples counted, not weighed by blocked time: --offcpu "
                         "reads a pipe for that", shown);
        } else {
            char p[64];
            snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
            int s = offcpu_pass(r, p, t.switch_samples);
            if (s > status)
                status = s;
        }
    }
    if (fd)
        close(fd);
    return status;
}

/* ---- a live view: read through a function, nothing prescanned -------------- */

int report_follow(struct report *r, tr_read_fn fn, void *ctx, const char *shown)
{
    struct rstate t;
    memset(&t, 0, sizeof t);
    return read_trace(r, &t, -1, fn, ctx, shown);
}

void report_stats(const struct report *r, struct report_stats *s)
{
    *s = (struct report_stats){.stacks = r->stacks.n, .frames = r->nframes, .symbols = r->nsyms, .strings = r->str.n};
    for (size_t i = 0; i < r->nsec; i++)
        s->groups += r->sec[i].ng;
}

struct report_opts *report_options(struct report *r)
{
    return &r->o;
}
