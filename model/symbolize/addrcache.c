/*
 * addrcache.c - the answers of a binary's addresses, kept from run to run.
 *
 * Resolving an address the first time costs what it takes to get there in
 * the binary's DWARF: its unit looked up, the children of every DIE on its
 * path indexed (symfile.c), the names of its scopes demangled: on the
 * suite's traces 5,000 to 11,000 instructions an address (cxx: 23 M of a
 * warm run's 73 M), and each run paid it again for the same addresses.
 * So the answers a run made are written, when its session ends, to
 * CACHE_DIR/addrs/BUILD-ID.dD.iI (D, I: the demangle and inlines options
 * they were made with): an image of the answers sorted by address (each
 * its frames: name, flags, offset; and the SYMBOL it names) and their
 * names.  A later run maps it when the binary first resolves and answers
 * the addresses it holds from it (a binary search and the names
 * interned); it rewrites the file, merged, only when it resolved
 * addresses the file lacked.
 *
 * The header names what the answers were made from: the build-id, how
 * the binary resolved (its status and detail: the file used and its debug
 * file; whether it had DWARF; the size of its symbol table), so that a
 * debug file installed or removed since gets answers of its own, and the
 * cache entries they were made through (symbols/, dwarf/: each one's
 * inode, size and time), so that when one of those changed (rebuilt,
 * grown, damaged) the answers are made again through it, which checks and
 * repairs it as a run without this file would.  A file that is short,
 * foreign or damaged (checksums of the header and of the rest) is not
 * used, and written over.  With --lines (a line per address) nothing is
 * kept, nor for a binary without DWARF: its symbol table (symtable.c,
 * cached too) answers as fast as this file would (cc1 on the cc trace:
 * 7.7 M instructions more to write the file cold, 5.5 M less warm).  As every cache entry, it changes what a run costs, never what it
 * resolves.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sym_int.h"

static const char ac_magic[8] = "traddrs";
enum { AC_VERSION = 1, AC_FRAMES = 2 };
#define AC_NONE UINT32_MAX /* no name: "[unknown]", or no SYMBOL */

typedef struct ac_hdr {
    char magic[8];
    uint32_t version, build_id_len;
    uint8_t build_id[64];
    uint64_t source;   /* checksum of how the binary resolved (source_sum) */
    uint64_t n, nstr;  /* answers, bytes of names */
    uint64_t size;     /* of the whole image */
    uint64_t body_sum; /* checksum of the image after the header */
    uint64_t hdr_sum;  /* checksum of the header up to here */
} ac_hdr;
SYM_SEALED(ac_hdr, size, hdr_sum);

/* One answer (64 bytes), then the names (NUL-terminated). */
typedef struct ac_entry {
    uint64_t vaddr;
    uint64_t sym_start, sym_size;
    uint32_t sym_name, n;             /* SYMBOL's name (AC_NONE: none); frames */
    struct { uint32_t func, flags; uint64_t offset; } f[AC_FRAMES];
} ac_entry;

/* An answer of this run, not in the file (its names interned). */
typedef struct ac_new {
    uint64_t vaddr;
    uint32_t n;
    struct { const char *func; uint32_t flags; uint64_t offset; } f[AC_FRAMES];
    const char *sym_name;
    uint64_t sym_start, sym_size;
} ac_new;

/* Where an answer of this run is, by address (sym_sort_by_key). */
typedef struct ac_at {
    uint64_t vaddr, i;
} ac_at;

struct sym_addrcache {
    const uint8_t *img; size_t len; /* the file mapped, NULL: none */
    const ac_entry *e; size_t n;    /* its answers, by address */
    const char *str; size_t nstr;   /* its names */
    hashmap names;                  /* name offset -> interned */
    ac_new *added; size_t nadded, addcap;
    const char *dir;
    char key[160], hex[129];
    uint64_t how;
};

/* How f resolves: answers made another way are not these. */
static uint64_t how_sum(const sym_symfile *f)
{
    uint64_t h = sym_checksum(f->detail ? f->detail : "", f->detail ? strlen(f->detail) : 0, f->status);
    uint64_t how[2] = { (uint64_t)f->has_dwarf << 1 | (f->part != NULL),
                        (uint64_t)(int64_t)dwfl_module_getsymtab(f->mod) };
    return sym_checksum(how, sizeof how, h);
}

/* how, and the cache entries the answers were made through (the symbol
 * table, its names, the debug info: which file, of what size and time):
 * one changed since (rebuilt, grown, damaged) and the answers are made
 * again, through it, and so it is checked and repaired as without them. */
static uint64_t source_sum(const struct sym_addrcache *ac, const char *hex)
{
    static const char *const entry[][2] = { { "symbols", "" }, { "symbols", ".dem" }, { "dwarf", ".debug" } };
    uint64_t h = ac->how;
    for (size_t i = 0; i < sizeof entry / sizeof *entry; i++) {
        char path[4096];
        struct stat st;
        uint64_t v[5] = { 0, 0, 0, 0, 0 };
        snprintf(path, sizeof path, "%s/%s/%s%s", ac->dir, entry[i][0], hex, entry[i][1]);
        if (stat(path, &st) == 0) {
            v[0] = 1;
            v[1] = st.st_ino;
            v[2] = (uint64_t)st.st_size;
            v[3] = (uint64_t)st.st_mtim.tv_sec;
            v[4] = (uint64_t)st.st_mtim.tv_nsec;
        }
        h = sym_checksum(v, sizeof v, h);
    }
    return h;
}

/* Map the file, when there is one and it is f's, of answers made as f's are now. */
static void ac_load(struct sym_addrcache *ac, const sym_symfile *f)
{
    size_t len;
    const uint8_t *img = sym_cache_map(ac->dir, "addrs", ac->key, &len);
    ac_hdr h;
    if (!img)
        return;
    if (!sym_image_sealed(img, len, sizeof h)) {
        munmap((void *)img, len);
        return;
    }
    memcpy(&h, img, sizeof h);
    if (memcmp(h.magic, ac_magic, sizeof ac_magic) != 0 || h.version != AC_VERSION ||
        h.build_id_len != f->build_id_len || memcmp(h.build_id, f->build_id, f->build_id_len) != 0 ||
        h.source != source_sum(ac, ac->hex) || h.n > (len - sizeof h) / sizeof(ac_entry) ||
        h.nstr != len - sizeof h - h.n * sizeof(ac_entry) || (h.nstr && img[len - 1] != '\0')) {
        munmap((void *)img, len);
        return;
    }
    ac->img = img;
    ac->len = len;
    ac->e = (const ac_entry *)(img + sizeof h);
    ac->n = h.n;
    ac->str = (const char *)(ac->e + h.n);
    ac->nstr = h.nstr;
}

/* f's cache, made on first use: NULL when its answers are not kept. */
static struct sym_addrcache *ac_of(sym_session *s, sym_symfile *f)
{
    if (f->ac || f->ac_none)
        return f->ac;
    if (!s->opt.cache_dir || s->opt.lines || !f->build_id_len || !f->mod || !f->has_dwarf || !(f->ac = calloc(1, sizeof *f->ac))) {
        f->ac_none = 1;
        return NULL;
    }
    struct sym_addrcache *ac = f->ac;
    sym_hexstr(ac->hex, f->build_id, f->build_id_len);
    snprintf(ac->key, sizeof ac->key, "%s.d%d.i%d", ac->hex, s->opt.demangle != 0, s->opt.inlines != 0);
    ac->dir = s->opt.cache_dir;
    ac->how = how_sum(f);
    ac_load(ac, f);
    return ac;
}

/* The name at offset off of the file (checked), interned: NULL when out of memory. */
static const char *ac_name(sym_session *s, struct sym_addrcache *ac, uint32_t off)
{
    const char *n = hashmap_get(&ac->names, off, 0);
    if (!n && (n = strpool_intern(&s->strings, ac->str + off, strlen(ac->str + off))) &&
        hashmap_put(&ac->names, off, 0, (void *)n) < 0)
        return NULL;
    return n;
}

int sym_addrcache_get(sym_session *s, sym_symfile *f, uint64_t vaddr, sym_entry **out)
{
    struct sym_addrcache *ac = ac_of(s, f);
    if (!ac || !ac->n)
        return 0;
    size_t lo = 0, hi = ac->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ac->e[mid].vaddr < vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    const ac_entry *a = lo < ac->n && ac->e[lo].vaddr == vaddr ? &ac->e[lo] : NULL;
    if (!a || a->n == 0 || a->n > AC_FRAMES || (a->sym_name != AC_NONE && a->sym_name >= ac->nstr))
        return 0;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->f[i].func != AC_NONE && a->f[i].func >= ac->nstr)
            return 0; /* not one this file's writer made: resolved afresh */
    sym_entry *e = sym_entry_new(s, a->n);
    *out = e;
    if (!e)
        return 1;
    for (uint32_t i = 0; i < a->n; i++) {
        const char *fn = a->f[i].func == AC_NONE ? s->s_unknown : ac_name(s, ac, a->f[i].func);
        if (!fn) {
            *out = NULL;
            return 1;
        }
        e->f[i] = (sym_frame){ 0, a->f[i].flags, fn, f->path, a->f[i].offset, NULL, 0 };
    }
    const char *sn = a->sym_name == AC_NONE ? NULL : ac_name(s, ac, a->sym_name);
    if (sn)
        sym_push_symbol(s, f->id, f->path, sn, a->sym_start, a->sym_size, 0);
    return 1;
}

void sym_addrcache_add(sym_session *s, sym_symfile *f, uint64_t vaddr, const sym_frame *fr, size_t n,
                       const sym_symbol_info *sym)
{
    struct sym_addrcache *ac = ac_of(s, f);
    if (!ac || n == 0 || n > AC_FRAMES || ac->nadded >= (1u << 22) ||
        array_reserve(&ac->added, &ac->addcap, ac->nadded + 1, sizeof *ac->added, 256) < 0)
        return;
    ac_new *a = &ac->added[ac->nadded++];
    a->vaddr = vaddr;
    a->n = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        a->f[i].func = fr[i].flags & SYM_UNKNOWN ? NULL : fr[i].func; /* the session's "[unknown]" */
        a->f[i].flags = fr[i].flags;
        a->f[i].offset = fr[i].offset;
    }
    a->sym_name = sym->name;
    a->sym_start = sym->start;
    a->sym_size = sym->size;
}

/* ---- writing the file, merged with what it held ---- */

typedef struct ac_writer {
    ac_entry *e; size_t n;
    char *str; size_t nstr, strcap; /* the file's names as they were, then the new ones */
    hashmap at;                     /* an interned name -> 1 + its offset */
} ac_writer;

/* The offset of name (interned) in the names: AC_NONE when none or out of
 * memory (then the answer is left out). */
static uint32_t w_name(ac_writer *w, const char *name)
{
    if (!name)
        return AC_NONE;
    uintptr_t v = (uintptr_t)hashmap_get(&w->at, (uintptr_t)name, 0);
    if (v)
        return (uint32_t)(v - 1);
    size_t len = strlen(name) + 1;
    if (w->nstr + len >= AC_NONE || array_reserve(&w->str, &w->strcap, w->nstr + len, 1, 4096) < 0 ||
        hashmap_put(&w->at, (uintptr_t)name, 0, (void *)(uintptr_t)(w->nstr + 1)) < 0)
        return AC_NONE;
    memcpy(w->str + w->nstr, name, len);
    w->nstr += len;
    return (uint32_t)(w->nstr - len);
}

/* Append the answer a of this run: 0, or -1 when a name could not be kept. */
static int w_new(ac_writer *w, const ac_new *a)
{
    ac_entry *x = &w->e[w->n];
    memset(x, 0, sizeof *x);
    x->vaddr = a->vaddr;
    x->n = a->n;
    x->sym_start = a->sym_start;
    x->sym_size = a->sym_size;
    x->sym_name = w_name(w, a->sym_name);
    if (a->sym_name && x->sym_name == AC_NONE)
        return -1;
    for (uint32_t i = 0; i < a->n; i++) {
        x->f[i].func = w_name(w, a->f[i].func);
        x->f[i].flags = a->f[i].flags;
        x->f[i].offset = a->f[i].offset;
        if (a->f[i].func && x->f[i].func == AC_NONE)
            return -1;
    }
    w->n++;
    return 0;
}

static void ac_save(struct sym_addrcache *ac, const sym_symfile *f)
{
    if (!ac->nadded)
        return;
    ac_writer w = { 0 };
    ac_at *at = malloc(ac->nadded * sizeof *at);
    if (!at)
        return;
    for (size_t k = 0; k < ac->nadded; k++)
        at[k] = (ac_at){ ac->added[k].vaddr, k };
    if (sym_sort_by_key(at, ac->nadded, sizeof *at) < 0 || !(w.e = malloc((ac->n + ac->nadded) * sizeof *w.e)) ||
        array_reserve(&w.str, &w.strcap, ac->nstr + 1, 1, 4096) < 0)
        goto out;
    /* the file's names stay where they are (its answers are copied as they
     * are); those this run met are found there by their interned copies */
    if (ac->nstr)
        memcpy(w.str, ac->str, ac->nstr);
    w.nstr = ac->nstr;
    size_t i = 0, j = 0;
    hashmap_slot *sl;
    while ((sl = hashmap_next(&ac->names, &i)) != NULL)
        if (hashmap_put(&w.at, (uintptr_t)sl->val, 0, (void *)(uintptr_t)(sl->a + 1)) < 0)
            goto out;
    i = 0;
    while (i < ac->n || j < ac->nadded) {
        int take_old = j == ac->nadded || (i < ac->n && ac->e[i].vaddr <= at[j].vaddr);
        uint64_t v = take_old ? ac->e[i].vaddr : at[j].vaddr;
        if (w.n && w.e[w.n - 1].vaddr == v) { /* resolved twice: once */
            i += take_old;
            j += !take_old;
        } else if (take_old) {
            w.e[w.n++] = ac->e[i++];
        } else if (w_new(&w, &ac->added[at[j++].i]) < 0) {
            goto out;
        }
    }
    ac_hdr h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, ac_magic, sizeof ac_magic);
    h.version = AC_VERSION;
    h.build_id_len = (uint32_t)f->build_id_len;
    memcpy(h.build_id, f->build_id, f->build_id_len);
    h.source = source_sum(ac, ac->hex);
    h.n = w.n;
    h.nstr = w.nstr;
    size_t size = sizeof h + w.n * sizeof *w.e + w.nstr;
    uint8_t *img = malloc(size);
    if (!img)
        goto out;
    memcpy(img + sizeof h, w.e, w.n * sizeof *w.e);
    if (w.nstr)
        memcpy(img + sizeof h + w.n * sizeof *w.e, w.str, w.nstr);
    memcpy(img, &h, sizeof h);
    sym_seal_image(img, sizeof h, size);
    sym_cache_write(ac->dir, "addrs", ac->key, img, size);
    free(img);
out:
    free(at);
    free(w.e);
    free(w.str);
    hashmap_free(&w.at);
}

void sym_addrcache_free(sym_symfile *f)
{
    struct sym_addrcache *ac = f->ac;
    if (!ac)
        return;
    ac_save(ac, f);
    if (ac->img)
        munmap((void *)ac->img, ac->len);
    hashmap_free(&ac->names);
    free(ac->added);
    free(ac);
    f->ac = NULL;
}
