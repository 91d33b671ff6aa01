/* collect.c - the samples of a trace by function and address.
 *
 * A sample counts once, at its leaf address (the instruction it
 * interrupted; return addresses are not counted), in the function holding
 * that address: the outermost of the frames found there, so that inlined
 * functions do not count a sample twice.  Raw traces are symbolized on the
 * fly (model/symbolize); symbolized ones keep their names. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "annotate.h"
#include "array.h"
#include "cli.h"
#include "keys.h"
#include "tr.h"

static void warn_cb(void *ctx, const char *msg)
{
    (void)ctx;
    cli_warn("%s", msg);
}

int an_init(struct annotate *a, const struct an_opts *o)
{
    memset(a, 0, sizeof *a);
    a->o = o;
    sym_options so = o->sym;
    so.warn = warn_cb;
    so.each_process = o->verbose;
    so.lines = 1;
    so.unwind = 0; /* only leaf addresses count */
    a->sym = sym_new(&so);
    if (o->event) {
        snprintf(a->event, sizeof a->event, "%s", o->event);
        a->event_chosen = 1;
    }
    return a->sym ? 0 : -1;
}

void an_free(struct annotate *a)
{
    size_t i = 0;
    hashmap_slot *sl;
    while ((sl = hashmap_next(&a->hits, &i)) != NULL)
        free(sl->val);
    for (size_t k = 0; k < a->nfns; k++)
        free(a->list[k]);
    free(a->list);
    hashmap_free(&a->fns);
    hashmap_free(&a->hits);
    if (a->sym)
        sym_free(a->sym);
    for (size_t k = 0; k < a->nmaps; k++)
        munmap(a->maps[k].p, a->maps[k].len);
    free(a->maps);
}

/* Is the sample of the event annotated?  The first event sampled is, unless -e. */
static int wanted_event(struct annotate *a, tr_reader *r, const tr_record *rec)
{
    const tr_event_def *ev = tr_reader_event(r, rec->u.sample.event);
    char name[256];
    snprintf(name, sizeof name, "%.*s", ev ? (int)ev->name_len : 15, ev ? ev->name : "[unknown event]");
    if (!a->event_chosen) {
        snprintf(a->event, sizeof a->event, "%s", name);
        a->event_chosen = 1;
    }
    if (strcmp(name, a->event) == 0)
        return 1;
    if (!a->other[0])
        snprintf(a->other, sizeof a->other, "%s", name);
    a->other_samples++;
    return 0;
}

/* The frames at the sample's leaf address (the first frame of its stack
 * that is an address), the function holding it last: a raw address resolves
 * to its inlined functions and that function at once; a symbolized stack has
 * each inlined function as a frame of its own before its caller's. */
static int leaf_frames(struct annotate *a, tr_reader *r, const tr_record *rec, const sym_frame **f,
                       size_t *n)
{
    *n = 0;
    const uint32_t *ids;
    int depth = rec->u.sample.stack ? tr_reader_stack(r, rec->u.sample.stack, &ids) : 0;
    if (depth <= 0)
        return 0;
    if (sym_stack_begin(a->sym, r, rec->pid) < 0)
        return -1;
    for (int i = 0; i < depth; i++) {
        size_t k;
        const sym_frame *g;
        if (sym_resolve_frame(a->sym, r, ids[i], 0, &g, &k) < 0)
            return -1;
        if (k == 0)
            continue; /* a context marker */
        *f = g;
        *n = k;
        if (!(g[k - 1].flags & TR_FRAME_INLINE))
            break;
    }
    return 0;
}

static struct an_fn *get_fn(struct annotate *a, const sym_frame *fr, int32_t pid)
{
    struct an_fn *fn = hashmap_get(&a->fns, (uintptr_t)fr->func, (uintptr_t)fr->module);
    if (fn)
        return fn;
    if (array_reserve(&a->list, &a->capfns, a->nfns + 1, sizeof *a->list, 64) < 0 ||
        !(fn = calloc(1, sizeof *fn)))
        return NULL;
    fn->func = fr->func;
    fn->module = fr->module;
    fn->unknown = (fr->flags & SYM_UNKNOWN) != 0;
    fn->kernel = (fr->flags & TR_FRAME_KERNEL) != 0;
    fn->addr_start = fr->addr - fr->offset;
    uint64_t vaddr = 0;
    if (!fn->kernel && (fn->code = sym_code_at(a->sym, pid, fr->addr, &vaddr)) && !fn->unknown &&
        vaddr >= fr->offset) {
        fn->start = vaddr - fr->offset;
        fn->have_start = 1;
    }
    if (hashmap_put(&a->fns, (uintptr_t)fr->func, (uintptr_t)fr->module, fn) < 0) {
        free(fn);
        return NULL;
    }
    a->list[a->nfns++] = fn;
    return fn;
}

static int on_sample(struct annotate *a, tr_reader *r, const tr_record *rec)
{
    if (!wanted_event(a, r, rec))
        return 0;
    const sym_frame *f;
    size_t n;
    if (leaf_frames(a, r, rec, &f, &n) < 0)
        return -1;
    if (n == 0)
        return 0; /* no address recorded */
    const sym_frame *fr = &f[n - 1]; /* the function the inlined ones are in */
    uint64_t w = a->o->samples || !rec->u.sample.period ? 1 : rec->u.sample.period;
    struct an_fn *fn = get_fn(a, fr, rec->pid);
    if (!fn)
        return -1;
    /* no symbol: the address in its module when it is a file's (the same in
     * every process), else as recorded */
    uint64_t key = fr->offset, vaddr;
    if (fn->unknown)
        key = fn->code && sym_code_at(a->sym, rec->pid, fr->addr, &vaddr) == fn->code ? vaddr : fr->addr;
    struct an_hit *h = hashmap_get(&a->hits, (uintptr_t)fn, key);
    if (!h) {
        if (!(h = calloc(1, sizeof *h)) || hashmap_put(&a->hits, (uintptr_t)fn, key, h) < 0) {
            free(h);
            return -1;
        }
        h->key = key;
        h->next = fn->hits;
        fn->hits = h;
        fn->nhits++;
    }
    h->samples++;
    h->weight += w;
    fn->samples++;
    fn->weight += w;
    a->samples++;
    a->weight += w;
    return 0;
}

int an_input(struct annotate *a, const char *path)
{
    const char *shown;
    int fd = cli_open_input(path, &shown);
    /* a file: mapped before it is read, for the session's look-ahead at the
     * blobs recorders write last (kallsyms), as tr-symbolize does */
    size_t maplen = 0;
    void *map = sym_map_input(fd, 0, &maplen);
    tr_reader *r;
    int rc = tr_reader_open(&r, fd, NULL);
    if (rc < 0) {
        cli_warn("%s: %s", shown, tr_strerror(rc));
        if (map)
            munmap(map, maplen);
        if (fd != 0)
            close(fd);
        return CLI_EXIT_FAIL;
    }
    /* the session reads the mapped file until it is freed */
    if (map && array_reserve(&a->maps, &a->capmaps, a->nmaps + 1, sizeof *a->maps, 4) == 0)
        a->maps[a->nmaps++] = (struct an_map){ map, maplen };
    else if (map)
        munmap(map, maplen), map = NULL;
    int status = CLI_EXIT_OK, warned = 0;
    if (map && sym_prescan_lazy(a->sym, map, maplen) < 0) {
        cli_warn("out of memory");
        status = CLI_EXIT_FAIL;
        goto out;
    }
    tr_record rec;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            if (cli_read_error(r, rc, shown, &warned, &status))
                continue;
            break;
        }
        if (sym_observe(a->sym, r, &rec) < 0 ||
            (rec.type == TR_REC_SAMPLE && on_sample(a, r, &rec) < 0)) {
            cli_warn("out of memory");
            status = CLI_EXIT_FAIL;
            break;
        }
        if (!a->arch[0] && rec.type != TR_REC_STREAM_START) {
            const char *arch = tr_reader_meta(r, META_ARCH);
            if (arch)
                snprintf(a->arch, sizeof a->arch, "%s", arch);
        }
    }
out:
    tr_reader_free(r);
    if (fd != 0)
        close(fd);
    return status;
}
