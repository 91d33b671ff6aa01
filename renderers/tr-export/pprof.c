/* pprof.c - tr-export --pprof: profile.proto (github.com/google/pprof,
 * proto/profile.proto), gzipped.
 *
 * Samples are summed by (event, comm, pid, locations) as they are read, so
 * memory grows with the distinct stacks and frames, not with the trace's
 * length.  A location is an address in a mapping with its lines: the
 * inlined functions first, the function they were inlined into last.  Each
 * event gives two sample types, "samples:EVENT" (count) and "EVENT" (the
 * summed periods: nanoseconds for cpu-clock and task-clock, else events);
 * sched:sched_switch also "off-cpu" (nanoseconds blocked, as tr-fold
 * --offcpu counts them); syscalls and library calls are "samples:syscalls"
 * and "syscalls" (nanoseconds in the call), the call the leaf frame.  With
 * --weight, each event whose records have the field also "bytes:EVENT"
 * (model/weight.h, as tr-fold --weight weighs them). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "array.h"
#include "cli.h"
#include "export.h"
#include "hashmap.h"
#include "keys.h"
#include "pb.h"
#include "smap.h"
#include "weight.h"

struct pevent { int ns, offcpu, have_period, weighed; uint64_t period; };
/* a sample's values; exe: the mapping id of its process's executable (0 unknown) */
struct pvals { uint64_t count, period, blocked, exe, bytes; };

struct pprof {
    struct smap strs;      /* string -> its index in the string table (the entry's) */
    struct smap funcs;     /* (name, file) -> id - 1 */
    struct smap maps;      /* (start, limit, offset, file, build-id) -> id - 1 */
    struct smap locs;      /* (mapping, address, (function, line)...) -> id - 1 */
    struct smap samples;   /* (event, comm, pid, location ids...) -> index */
    struct smap events;    /* name -> index */
    struct pevent *ev;
    size_t cap_ev;
    struct pvals *v;
    size_t cap_v;
    hashmap cache;         /* (event << 32 | stack, pid << 32 | tid) -> sample index + 1 */
    hashmap exe;           /* (pid, 0) -> the mapping id of its executable + 1 (0: none) */
    offcpu *off;
    weight *w;             /* --weight */
    uint64_t *key;         /* the sample key being built */
    size_t nkey, cap_key;
    uint64_t *lkey;        /* a location's key */
    size_t cap_lkey;
    int nomem;
};

static uint64_t str(struct pprof *p, const char *s)
{
    struct smap_entry *e = smap_get(&p->strs, s, strlen(s));
    if (!e)
        return p->nomem = 1, 0;
    return (uint64_t)(e - p->strs.e);
}

/* The entry index of key k[0..n) in m (created when new), or -1. */
static int64_t intern(struct pprof *p, struct smap *m, const uint64_t *k, size_t n)
{
    struct smap_entry *e = smap_get(m, k, n * sizeof *k);
    if (!e)
        return p->nomem = 1, -1;
    return e - m->e;
}

static void push(struct pprof *p, uint64_t v)
{
    if (array_reserve(&p->key, &p->cap_key, p->nkey + 1, sizeof *p->key, 64) < 0)
        p->nomem = 1;
    else
        p->key[p->nkey++] = v;
}

static uint64_t map_id(struct pprof *p, const procs_map *m)
{
    char hex[2 * PROCS_BUILD_ID_MAX + 1];
    for (size_t i = 0; i < m->build_id_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
    hex[2 * m->build_id_len] = 0;
    uint64_t k[5] = {m->start, m->end, m->pgoff, str(p, m->path), str(p, hex)};
    return (uint64_t)(intern(p, &p->maps, k, 5) + 1);
}

static uint64_t mapping_id(struct pprof *p, struct exp *x, int32_t pid, uint64_t addr)
{
    const procs_map *m = procs_lookup(x->procs, pid, addr);
    return m ? map_id(p, m) : 0;
}

/* The mapping id of the executable of process pid now, 0 unknown: its
 * lowest executable map of a file (the program is mapped below its
 * libraries, ld.so included), found once per pid until the maps change. */
static uint64_t exe_id(struct pprof *p, struct exp *x, int32_t pid)
{
    void *hit = hashmap_get(&p->exe, (uint32_t)pid, 0);
    if (hit)
        return (uint64_t)(uintptr_t)hit - 1;
    procs_proc *pr = procs_proc_get(x->procs, pid);
    procs_map *m;
    uint64_t id = 0;
    for (size_t it = 0; pr && (m = procs_maps_next(pr, &it));)
        if (m->path[0] == '/' && m->path[1] != '/' && (!m->prot || (m->prot & PROT_EXEC))) {
            id = map_id(p, m);
            break;
        }
    if (hashmap_put(&p->exe, (uint32_t)pid, 0, (void *)(uintptr_t)(id + 1)) < 0)
        p->nomem = 1;
    return id;
}

static uint64_t function_id(struct pprof *p, const char *name, const char *file)
{
    uint64_t k[2] = {str(p, name), file ? str(p, file) : 0};
    return (uint64_t)(intern(p, &p->funcs, k, 2) + 1);
}

/* The location of frames fr[0..n): one address, its inlined functions first. */
static uint64_t location_id(struct pprof *p, struct exp *x, int32_t pid, const sym_frame *fr, size_t n)
{
    if (array_reserve(&p->lkey, &p->cap_lkey, 2 + 2 * n, sizeof *p->lkey, 16) < 0)
        return p->nomem = 1, 0;
    uint64_t *k = p->lkey;
    size_t nk = 2;
    k[0] = mapping_id(p, x, pid, fr[n - 1].addr);
    k[1] = fr[n - 1].addr;
    for (size_t i = 0; i < n; i++) {
        if (fr[i].flags & SYM_UNKNOWN)
            continue; /* no function: pprof shows the address in its mapping */
        k[nk++] = function_id(p, fr[i].func, fr[i].file);
        k[nk++] = fr[i].line;
    }
    return (uint64_t)(intern(p, &p->locs, k, nk) + 1);
}

/* A location of a made-up function (a syscall's name) without an address. */
static uint64_t name_location(struct pprof *p, const char *name)
{
    uint64_t k[4] = {0, 0, function_id(p, name, NULL), 0};
    return (uint64_t)(intern(p, &p->locs, k, 4) + 1);
}

static int64_t event_index(struct pprof *p, const char *name, const tr_event_def *def)
{
    size_t before = p->events.n;
    struct smap_entry *e = smap_get(&p->events, name, strlen(name));
    if (!e || array_reserve(&p->ev, &p->cap_ev, p->events.n, sizeof *p->ev, 8) < 0)
        return p->nomem = 1, -1;
    size_t i = (size_t)(e - p->events.e);
    if (p->events.n > before) {
        struct pevent *ev = &p->ev[i];
        *ev = (struct pevent){.ns = !def || exp_period_is_ns(def), .offcpu = !strcmp(name, "sched:sched_switch")};
        if (def && !(def->flags & TR_EVF_FREQ))
            ev->period = def->sample_value, ev->have_period = 1;
        else if (def && ev->ns && def->sample_value)
            ev->period = 1000000000u / def->sample_value, ev->have_period = 1;
    }
    return (int64_t)i;
}

/* The sample index of the key built for process pid, its values made. */
static int64_t sample_index(struct pprof *p, struct exp *x, int32_t pid)
{
    if (p->nomem)
        return -1;
    size_t before = p->samples.n;
    int64_t i = intern(p, &p->samples, p->key, p->nkey);
    if (i < 0 || array_reserve(&p->v, &p->cap_v, (size_t)i + 1, sizeof *p->v, 256) < 0)
        return p->nomem = 1, -1;
    if (p->samples.n > before) /* a new one (not the last one again) */
        p->v[i] = (struct pvals){.exe = exe_id(p, x, pid)};
    return p->nomem ? -1 : i;
}

/* The key of a record's sample: event, comm, pid, then its locations, leaf first. */
static int build_key(struct pprof *p, struct exp *x, const tr_record *rec, int64_t ev, const char *leaf)
{
    p->nkey = 0;
    push(p, (uint64_t)ev);
    push(p, str(p, exp_comm(x, rec->tid)));
    push(p, (uint32_t)rec->pid);
    if (leaf)
        push(p, name_location(p, leaf));
    const sym_frame *fr;
    int n = exp_frames(x, rec, &fr);
    if (n < 0)
        return -1;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && (fr[j].flags & TR_FRAME_INLINE))
            j++;
        push(p, location_id(p, x, rec->pid, fr + i, (size_t)(j - i + 1)));
        i = j + 1;
    }
    return p->nomem ? -1 : 0;
}

static void wait_ended(void *ctx, uint64_t sample, int32_t tid, uint64_t start, uint64_t end)
{
    (void)tid;
    ((struct pprof *)ctx)->v[sample].blocked += end - start;
}

static void *pprof_start(struct exp *x)
{
    struct pprof *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    smap_init(&p->strs);
    smap_init(&p->funcs);
    smap_init(&p->maps);
    smap_init(&p->locs);
    smap_init(&p->samples);
    smap_init(&p->events);
    if (!(p->off = offcpu_new(wait_ended, p)) || !smap_get(&p->strs, "", 0) ||
        (x->weight && weight_new(x->weight, &p->w) < 0)) {
        offcpu_free(p->off);
        smap_free(&p->strs);
        free(p);
        return NULL;
    }
    return p;
}

/* With --weight, rec's weight added to sample i of event ev. */
static int add_weight(struct pprof *p, struct exp *x, const tr_record *rec, int64_t ev, int64_t i)
{
    uint64_t v;
    int rc = p->w ? weight_of(p->w, x->r, rec, &v) : 0;
    if (rc > 0) {
        p->ev[ev].weighed = 1;
        p->v[i].bytes += v;
    }
    return rc < 0 ? -1 : 0;
}

static int pprof_record(void *st, struct exp *x, const tr_record *rec)
{
    struct pprof *p = st;
    if (procs_may_remap(rec->type)) {
        hashmap_free(&p->cache);
        hashmap_free(&p->exe);
    }
    if (p->w && weight_observe(p->w, x->r, rec) < 0)
        return errno = ENOMEM, -1;
    offcpu_switch_info sw;
    int waits = exp_offcpu(x, p->off, rec, &sw);
    int64_t i;
    if (rec->type == TR_REC_SAMPLE) {
        const tr_event_def *def;
        const char *name = exp_event(x, rec->u.sample.event, &def);
        int64_t ev = event_index(p, name, def);
        if (ev < 0)
            return errno = ENOMEM, -1;
        uint32_t stack = rec->u.sample.stack;
        /* a sample with a stack copy is unwound: its frames are its own */
        int cached = stack && !(rec->u.sample.nregs && rec->u.sample.stack_copy_len);
        uint64_t a = (uint64_t)ev << 32 | stack, b = (uint64_t)(uint32_t)rec->pid << 32 | (uint32_t)rec->tid;
        void *hit = cached ? hashmap_get(&p->cache, a, b) : NULL;
        if (hit) {
            i = (int64_t)((uintptr_t)hit - 1);
        } else {
            if (build_key(p, x, rec, ev, NULL) < 0 || (i = sample_index(p, x, rec->pid)) < 0 ||
                (cached && hashmap_put(&p->cache, a, b, (void *)(uintptr_t)(i + 1)) < 0))
                return errno = ENOMEM, -1;
        }
        p->v[i].count++;
        p->v[i].period += rec->u.sample.period;
        if ((waits && offcpu_switch_out(p->off, rec->tid, rec->time, (uint64_t)i) < 0) ||
            add_weight(p, x, rec, ev, i) < 0)
            return errno = ENOMEM, -1;
    } else if (rec->type == TR_REC_SYSCALL || rec->type == TR_REC_LIBCALL) {
        char buf[64];
        int64_t ev = event_index(p, "syscalls", NULL);
        if (ev < 0 || build_key(p, x, rec, ev, exp_call_name(x, rec, buf, sizeof buf)) < 0 ||
            (i = sample_index(p, x, rec->pid)) < 0)
            return errno = ENOMEM, -1;
        p->v[i].count++;
        p->v[i].period += rec->type == TR_REC_SYSCALL ? rec->u.syscall.duration : rec->u.libcall.duration;
        if (add_weight(p, x, rec, ev, i) < 0)
            return errno = ENOMEM, -1;
    }
    return 0;
}

/* ---- writing ---------------------------------------------------------- */

/* The key of entry i of m as words (smap keeps key bytes unaligned), in p->key;
 * *n of them.  NULL out of memory. */
static const uint64_t *key_at(struct pprof *p, const struct smap *m, size_t i, size_t *n)
{
    *n = m->e[i].len / sizeof *p->key;
    if (array_reserve(&p->key, &p->cap_key, *n + 1, sizeof *p->key, 64) < 0)
        return p->nomem = 1, NULL;
    memcpy(p->key, smap_key(m, &m->e[i]), m->e[i].len);
    return p->key;
}

static void value_type(struct pb *m, struct pprof *p, unsigned f, const char *type, const char *unit, struct pb *sub)
{
    pb_clear(sub);
    pb_uint(sub, 1, str(p, type));
    pb_uint(sub, 2, str(p, unit));
    pb_bytes(m, f, sub->b, sub->n);
}

static void comment(struct pprof *p, struct exp *x, struct pb *m, const char *what, const char *key)
{
    const char *v = tr_reader_meta(x->r, key);
    if (!v || !*v)
        return;
    size_t n = strlen(what) + strlen(v) + 3;
    char *s = malloc(n);
    if (!s) {
        p->nomem = 1;
        return;
    }
    snprintf(s, n, "%s: %s", what, v);
    pb_uint(m, 13, str(p, s));
    free(s);
}

static int pprof_finish(void *st, struct exp *x)
{
    struct pprof *p = st;
    struct gz g;
    struct pb m = {0}, sub = {0}, scratch = {0};
    uint64_t *vals = NULL, *types = NULL;
    size_t nev = p->events.n, ntypes = 0;
    int rc = -1, weighed = 0;
    for (size_t e = 0; e < nev; e++)
        weighed |= p->ev[e].weighed;
    if (p->w && !weighed && *weight_why(p->w)) { /* no record had the field: no profile of it */
        cli_warn("%s: %s", x->shown, weight_why(p->w));
        return errno = 0, -1;
    }
    if (!(types = calloc(nev + 1, sizeof *types)))
        return errno = ENOMEM, -1;
    for (size_t e = 0; e < nev; e++) {
        types[e] = ntypes;
        ntypes += 2 + (size_t)p->ev[e].offcpu + (size_t)p->ev[e].weighed;
    }
    if (!(vals = calloc(ntypes + 1, sizeof *vals)) || gz_open(&g, x->out) < 0) {
        free(types);
        free(vals);
        return errno = ENOMEM, -1;
    }
    uint64_t comm_key = str(p, "comm"), pid_key = str(p, "pid");
    /* samples */
    for (size_t i = 0; i < p->samples.n; i++) {
        size_t nk;
        const uint64_t *k = key_at(p, &p->samples, i, &nk);
        if (!k)
            goto out;
        const struct pevent *ev = &p->ev[k[0]];
        size_t t = types[k[0]];
        memset(vals, 0, ntypes * sizeof *vals);
        vals[t] = p->v[i].count;
        vals[t + 1] = p->v[i].period;
        if (ev->offcpu)
            vals[t + 2] = p->v[i].blocked;
        if (ev->weighed)
            vals[t + 2 + ev->offcpu] = p->v[i].bytes;
        pb_clear(&m);
        pb_packed(&m, 1, k + 3, nk - 3);
        pb_packed(&m, 2, vals, ntypes);
        pb_clear(&sub);
        pb_uint(&sub, 1, comm_key);
        pb_uint(&sub, 2, k[1]);
        pb_bytes(&m, 3, sub.b, sub.n);
        pb_clear(&sub);
        pb_uint(&sub, 1, pid_key);
        pb_uint(&sub, 3, k[2]);
        pb_bytes(&m, 3, sub.b, sub.n);
        if (sub.nomem || gz_field(&g, &scratch, 2, &m) < 0)
            goto out;
    }
    /* mappings, the main binary first (pprof's "File:"): the executable of the
     * processes of most samples */
    size_t first = 0;
    if (p->maps.n) {
        uint64_t *w = calloc(p->maps.n + 1, sizeof *w);
        if (!w)
            goto out;
        for (size_t i = 0; i < p->samples.n; i++)
            w[p->v[i].exe] += p->v[i].count;
        for (size_t i = 1; i < p->maps.n; i++)
            if (w[i + 1] > w[first + 1])
                first = i;
        free(w);
    }
    for (size_t j = 0; j < p->maps.n; j++) {
        size_t i = j == 0 ? first : j - 1 < first ? j - 1 : j, nk;
        const uint64_t *k = key_at(p, &p->maps, i, &nk);
        if (!k)
            goto out;
        pb_clear(&m);
        pb_uint(&m, 1, i + 1);
        pb_uint(&m, 2, k[0]);
        pb_uint(&m, 3, k[1]);
        pb_uint(&m, 4, k[2]);
        pb_uint(&m, 5, k[3]);
        pb_uint(&m, 6, k[4]);
        pb_uint(&m, 7, 1); /* has_functions */
        pb_uint(&m, 8, (uint64_t)x->lines); /* has_filenames */
        pb_uint(&m, 9, (uint64_t)x->lines); /* has_line_numbers */
        pb_uint(&m, 10, !x->no_inline);
        if (gz_field(&g, &scratch, 3, &m) < 0)
            goto out;
    }
    /* locations */
    for (size_t i = 0; i < p->locs.n; i++) {
        size_t nk;
        const uint64_t *k = key_at(p, &p->locs, i, &nk);
        if (!k)
            goto out;
        pb_clear(&m);
        pb_uint(&m, 1, i + 1);
        if (k[0])
            pb_uint(&m, 2, k[0]);
        if (k[1])
            pb_uint(&m, 3, k[1]);
        for (size_t j = 2; j + 1 < nk; j += 2) {
            pb_clear(&sub);
            pb_uint(&sub, 1, k[j]);
            pb_uint(&sub, 2, k[j + 1]);
            pb_bytes(&m, 4, sub.b, sub.n);
        }
        if (sub.nomem || gz_field(&g, &scratch, 4, &m) < 0)
            goto out;
    }
    /* functions */
    for (size_t i = 0; i < p->funcs.n; i++) {
        size_t nk;
        const uint64_t *k = key_at(p, &p->funcs, i, &nk);
        if (!k)
            goto out;
        pb_clear(&m);
        pb_uint(&m, 1, i + 1);
        pb_uint(&m, 2, k[0]);
        pb_uint(&m, 3, k[0]);
        pb_uint(&m, 4, k[1]);
        if (gz_field(&g, &scratch, 5, &m) < 0)
            goto out;
    }
    /* sample types, time, period, comments (their strings go into the table last) */
    pb_clear(&m);
    uint64_t deflt = 0, bytes = 0; /* the default type: the first event's, or the bytes of the first weighed */
    for (size_t e = 0; e < nev; e++) {
        const char *name = smap_key(&p->events, &p->events.e[e]);
        char *s = malloc(strlen(name) + 9);
        if (!s)
            goto out;
        sprintf(s, "samples:%s", name);
        value_type(&m, p, 1, s, "count", &sub);
        value_type(&m, p, 1, name, p->ev[e].ns ? "nanoseconds" : "events", &sub);
        if (p->ev[e].offcpu)
            value_type(&m, p, 1, "off-cpu", "nanoseconds", &sub);
        if (p->ev[e].weighed) {
            sprintf(s, "bytes:%s", name);
            value_type(&m, p, 1, s, "bytes", &sub);
            if (!bytes)
                bytes = str(p, s);
        }
        free(s);
        if (e == 0) {
            deflt = str(p, p->ev[e].offcpu ? "off-cpu" : name);
            if (p->ev[e].have_period) {
                value_type(&m, p, 11, name, p->ev[e].ns ? "nanoseconds" : "events", &sub);
                pb_uint(&m, 12, p->ev[e].period);
            }
        }
    }
    if (bytes)
        deflt = bytes;
    if (x->have_first) {
        uint64_t wall = exp_wall_ns(x, x->first);
        if (wall)
            pb_uint(&m, 9, wall);
        pb_uint(&m, 10, x->last - x->first);
    }
    comment(p, x, &m, "command", META_COMMAND);
    comment(p, x, &m, "recorded with", META_CMDLINE);
    comment(p, x, &m, "host", META_HOST);
    comment(p, x, &m, "kernel", META_KERNEL_RELEASE);
    comment(p, x, &m, "trace", "producer");
    char shown[4096];
    snprintf(shown, sizeof shown, "exported by tr-export from %s", x->shown);
    pb_uint(&m, 13, str(p, shown));
    if (deflt)
        pb_uint(&m, 14, deflt);
    if (p->nomem || m.nomem || gz_write(&g, m.b, m.n) < 0)
        goto out;
    /* the string table */
    for (size_t i = 0; i < p->strs.n; i++) {
        pb_clear(&m);
        pb_bytes(&m, 6, smap_key(&p->strs, &p->strs.e[i]), p->strs.e[i].len);
        if (m.nomem || gz_write(&g, m.b, m.n) < 0)
            goto out;
    }
    rc = 0;
out:
    if (gz_close(&g) < 0)
        rc = -1;
    if (rc < 0 && (p->nomem || m.nomem || sub.nomem))
        errno = ENOMEM;
    pb_free(&m);
    pb_free(&sub);
    pb_free(&scratch);
    free(vals);
    free(types);
    return rc;
}

static void pprof_free(void *st)
{
    struct pprof *p = st;
    smap_free(&p->strs);
    smap_free(&p->funcs);
    smap_free(&p->maps);
    smap_free(&p->locs);
    smap_free(&p->samples);
    smap_free(&p->events);
    free(p->ev);
    free(p->v);
    free(p->key);
    free(p->lkey);
    hashmap_free(&p->cache);
    hashmap_free(&p->exe);
    offcpu_free(p->off);
    weight_free(p->w);
    free(p);
}

const struct exp_format exp_pprof = {pprof_start, pprof_record, pprof_finish, pprof_free};
