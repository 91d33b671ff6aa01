/*
 * symtable.c - a module's symbol table as symfile.c looks addresses up in
 * it (the sorted bounds of its symbols and sections, its sized symbols by
 * start, the starts of its sizeless ones), built once per binary and kept
 * in the cache; and the demangled forms of the names runs met.
 *
 * Building it walks libdwfl's whole table and sorts it, every run, for
 * every binary: on the suite's cc trace (gcc's cc1, 29,000 symbols, and
 * 11 other binaries) 59 M of a run's 322 M instructions, demangling
 * included.
 * So the table is one image, the same in memory and on disk: a header,
 * the arrays and the names (offsets into a string area), written to
 * CACHE_DIR/symbols/BUILD-ID when built; a later run maps that file and
 * looks addresses up in it as it is (no parsing, no sorting).  The
 * header names what the table was built from (the build-id, the size and
 * first global of libdwfl's table, the file it is in: the binary or its
 * debug file, and its bias), so a debug file installed since, or a binary
 * stripped under the same build-id, gets a table of its own; a file that
 * is short, foreign or damaged (checksums of the header and of the rest)
 * is never used, but rebuilt and written over.
 *
 * Demangling is done only for names that addresses resolve to (libiberty:
 * 4,000 instructions a C++ name); the forms found are kept in
 * CACHE_DIR/symbols/BUILD-ID.dem (mangled name -> demangled, by hash),
 * mapped when a name is first demangled, and rewritten with the names a
 * run added when its session ends.
 *
 * As every cache entry, these change what a run costs, never what it
 * resolves: the table from the cache is the one building it gives.
 */
#include <gelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sym_int.h"

static const char tab_magic[8] = "trsyms", dem_magic[8] = "trdemgl";
enum { TAB_VERSION = 1, DEM_VERSION = 1 };

typedef struct tab_hdr {
    char magic[8];
    uint32_t version, build_id_len;
    uint8_t build_id[64];
    /* what the table was built from: libdwfl's table (its size, first
     * global, the file it is in: 0 the binary, 1 its debug file, bias) */
    uint64_t nsyms;
    int64_t first_global;
    uint64_t source, bias;
    uint64_t nbounds, nsized, nsizeless, nstr;
    uint64_t size;     /* of the whole image */
    uint64_t body_sum; /* checksum of the image after the header */
    uint64_t hdr_sum;  /* checksum of the header up to here */
} tab_hdr;
SYM_SEALED(tab_hdr, size, hdr_sum);

/* A demangled name in the cache: the hash of its mangled form, both forms'
 * offsets into the strings (demangled NO_DEM: it stays as it is). */
typedef struct dem_entry {
    uint64_t hash;
    uint32_t mangled, demangled;
} dem_entry;
#define NO_DEM UINT32_MAX

typedef struct dem_hdr {
    char magic[8];
    uint64_t version, n, nstr, size, body_sum, hdr_sum;
} dem_hdr;
SYM_SEALED(dem_hdr, size, hdr_sum);

/* A name demangled in this run. */
struct sym_dem_new {
    uint64_t hash;
    size_t mangled;        /* offset in sym_symtable.addstr */
    const char *demangled; /* interned; NULL: as it is */
    int in_cache;          /* found in the cache's file */
};

/* ---- sorting ---- */

/* A stable radix sort: qsort's calls of a comparison were a tenth of a
 * run on a debug file's 30,000 symbols.  Inlined for each element size
 * sym_sort_by_key sees often, its copies are a few moves, not calls. */
static inline __attribute__((always_inline)) int sort_by_key(void *base, size_t n, size_t size)
{
    uint8_t *a = base, *b = malloc(n * size + 1);
    if (!b)
        return -1;
    if (n < 64) { /* insertion sort, b holding the element moved */
        for (size_t i = 1; i < n; i++) {
            uint64_t k, kj;
            memcpy(&k, a + i * size, sizeof k);
            memcpy(b, a + i * size, size);
            size_t j = i;
            for (; j > 0 && (memcpy(&kj, a + (j - 1) * size, sizeof kj), kj > k); j--)
                memcpy(a + j * size, a + (j - 1) * size, size);
            memcpy(a + j * size, b, size);
        }
        free(b);
        return 0;
    }
    /* the bytes of the keys that differ somewhere: only those are sorted by */
    uint64_t k0, k, differ = 0;
    memcpy(&k0, a, sizeof k0);
    for (size_t i = 1; i < n; i++) {
        memcpy(&k, a + i * size, sizeof k);
        differ |= k ^ k0;
    }
    /* digits of 8 bits for small tables; for large ones as few passes as
     * digits of up to 13 bits allow (a library's 21-bit addresses in two
     * of 11 bits, cc1's 25 in two of 13) */
    unsigned top = 64 - (unsigned)__builtin_clzll(differ | 1), passes = (top + 12) / 13;
    const unsigned bits = n >= 4096 ? (top + passes - 1) / passes : 8;
    const uint64_t mask = ((uint64_t)1 << bits) - 1;
    size_t count[(1u << 13) + 1];
    for (unsigned shift = 0; shift < 64; shift += bits) {
        if (!((differ >> shift) & mask))
            continue;
        memset(count, 0, (mask + 2) * sizeof *count);
        for (size_t i = 0; i < n; i++) {
            memcpy(&k, a + i * size, sizeof k);
            count[((k >> shift) & mask) + 1]++;
        }
        for (size_t d = 0; d <= mask; d++)
            count[d + 1] += count[d];
        for (size_t i = 0; i < n; i++) {
            memcpy(&k, a + i * size, sizeof k);
            memcpy(b + count[(k >> shift) & mask]++ * size, a + i * size, size);
        }
        uint8_t *t = a;
        a = b;
        b = t;
    }
    if (a != base) { /* an odd number of passes: the result is in the buffer */
        memcpy(base, a, n * size);
        b = a;
    }
    free(b);
    return 0;
}

int sym_sort_by_key(void *base, size_t n, size_t size)
{
    switch (size) {
    case 8: return sort_by_key(base, n, 8);
    case sizeof(sym_rec): return sort_by_key(base, n, sizeof(sym_rec));
    default: return sort_by_key(base, n, size);
    }
}

/* ---- building ---- */

typedef struct builder {
    uint64_t *bounds; size_t nbounds, bcap;
    sym_rec *sized; size_t nsized, scap;
    uint64_t *sizeless; size_t nsizeless, lcap;
    const char *strtab; size_t nstrtab; /* names as offsets into the table's own strings, */
    char *str; size_t nstr, strcap;     /* or into copies of them */
} builder;

static void builder_free(builder *b)
{
    free(b->bounds);
    free(b->sized);
    free(b->sizeless);
    free(b->str);
}

/* Room for n symbols' records and bounds (and a few more): 0 or -1. */
static int builder_init(builder *b, size_t n)
{
    return array_reserve(&b->bounds, &b->bcap, 2 * n + 64, sizeof *b->bounds, 1) < 0 ||
           array_reserve(&b->sized, &b->scap, n + 1, sizeof *b->sized, 1) < 0 ||
           array_reserve(&b->sizeless, &b->lcap, n + 1, sizeof *b->sizeless, 1) < 0 ? -1 : 0;
}

static int add_bound(builder *b, uint64_t v)
{
    if (b->nbounds == b->bcap && array_reserve(&b->bounds, &b->bcap, b->nbounds + 1, sizeof *b->bounds, 64) < 0)
        return -1;
    b->bounds[b->nbounds++] = v;
    return 0;
}

/* libdwfl's preference of a symbol's binding. */
static unsigned binding_rank(unsigned bind)
{
    return bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_LOCAL ? 1 : 0;
}

/* Symbol index i of libdwfl's table (name, its address addr): its bounds,
 * and when libdwfl may choose it, its record (builder_init made room for
 * both).  0, or -1 when out of memory. */
static int add_symbol(builder *b, uint32_t i, const GElf_Sym *sym, uint64_t addr, const char *name)
{
    b->bounds[b->nbounds++] = addr;
    if (sym->st_size)
        b->bounds[b->nbounds++] = addr + sym->st_size;
    /* the symbols libdwfl may choose (counted generously: a doubt asks libdwfl) */
    int type = GELF_ST_TYPE(sym->st_info);
    if (sym->st_name == 0 || sym->st_shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE)
        return 0;
    if (!sym->st_size) {
        b->sizeless[b->nsizeless++] = addr;
        return 0;
    }
    size_t off = (size_t)(name - b->strtab);
    if (!b->strtab) {
        size_t len = strlen(name) + 1;
        if (b->nstr + len > UINT32_MAX || array_reserve(&b->str, &b->strcap, b->nstr + len, 1, 65536) < 0)
            return -1;
        memcpy(b->str + b->nstr, name, len);
        off = b->nstr;
        b->nstr += len;
    }
    b->sized[b->nsized++] = (sym_rec){ addr, addr + sym->st_size, 0, (uint32_t)off,
                                       i << 2 | binding_rank(GELF_ST_BIND(sym->st_info)) };
    return 0;
}

/* The section of elf libdwfl's table is (load_symtab's choice: the last
 * SHT_SYMTAB, else the last SHT_DYNSYM), or NULL. */
static Elf_Scn *table_section(Elf *elf, GElf_Shdr *out)
{
    Elf_Scn *scn = NULL, *best = NULL;
    GElf_Shdr sh;
    int have_symtab = 0;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_entsize == 0)
            continue;
        if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !have_symtab)) {
            have_symtab |= sh.sh_type == SHT_SYMTAB;
            best = scn;
            *out = sh;
        }
    }
    return best;
}

/* A table read straight from its section, with what libdwfl needs to
 * give a symbol's address. */
typedef struct raw_table {
    const Elf64_Sym *syms;
    const char *str; size_t nstr;
    const uint8_t *alloc; size_t nsec; /* is section i allocated (libdwfl adds the bias) */
    GElf_Addr bias;
} raw_table;

/* Symbol k as dwfl_module_getsym_info gives it: 0, or -1 when only libdwfl
 * can tell (an extended section index). */
static int raw_symbol(const raw_table *r, int k, GElf_Sym *sym, GElf_Addr *addr, const char **name)
{
    const Elf64_Sym *e = &r->syms[k];
    *sym = (GElf_Sym){ e->st_name, e->st_info, e->st_other, e->st_shndx, e->st_value, e->st_size };
    *name = e->st_name < r->nstr ? r->str + e->st_name : NULL;
    *addr = e->st_value;
    uint16_t x = e->st_shndx;
    if (x == SHN_XINDEX)
        return -1;
    if (x != SHN_ABS && x != SHN_UNDEF && x != SHN_COMMON &&
        (x >= SHN_LORESERVE || x >= r->nsec || r->alloc[x]))
        *addr += r->bias;
    return 0;
}

/* libdwfl's table of n symbols read straight from its section in elf (the
 * file its symbol 0 is in, at bias), as dwfl_module_getsym_info gives
 * each, at a fraction of its cost.  1 when done, 0 when the file does not
 * suit (nothing added: ask libdwfl for each), -1 when out of memory. */
static int read_section(builder *b, Dwfl_Module *mod, int n, Elf *elf, GElf_Addr bias)
{
    GElf_Ehdr eh;
    GElf_Shdr sh = { 0 };
    Elf_Scn *scn;
    Elf_Data *data, *strs;
    raw_table r = { .bias = bias };
    /* x86-64 and AArch64 only: elsewhere libdwfl may move a function's
     * value (descriptors, Thumb bits) */
    if (n <= 0 || !gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type == ET_REL ||
        (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64) || !(scn = table_section(elf, &sh)) ||
        sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_size / sh.sh_entsize != (uint64_t)n ||
        !(data = elf_getdata(scn, NULL)) || data->d_type != ELF_T_SYM || !data->d_buf ||
        data->d_size < (size_t)n * sizeof(Elf64_Sym) ||
        !(strs = elf_getdata(elf_getscn(elf, sh.sh_link), NULL)) || !strs->d_buf ||
        elf_getshdrnum(elf, &r.nsec) != 0)
        return 0;
    r.syms = data->d_buf;
    r.str = strs->d_buf;
    r.nstr = strs->d_size;
    uint8_t *alloc = malloc(r.nsec + 1);
    if (!alloc)
        return -1;
    for (size_t i = 0; i < r.nsec; i++) {
        GElf_Shdr s2;
        Elf_Scn *x = elf_getscn(elf, i);
        alloc[i] = !x || !gelf_getshdr(x, &s2) || (s2.sh_flags & SHF_ALLOC);
    }
    r.alloc = alloc;
    /* a few symbols asked of libdwfl too: the same answers, or libdwfl for all */
    int rc = 1;
    for (int k = 0; k <= 4 && rc; k++) {
        int i = (int)((int64_t)(n - 1) * k / 4);
        GElf_Sym want, got;
        GElf_Addr wa, ga;
        Elf *we = NULL;
        const char *wn = dwfl_module_getsym_info(mod, i, &want, &wa, NULL, &we, NULL), *gn;
        if (raw_symbol(&r, i, &got, &ga, &gn) < 0 || !wn || we != elf || wn != gn || wa != ga ||
            memcmp(&want, &got, sizeof want) != 0)
            rc = 0;
    }
    /* the names: offsets into the section's strings, kept whole */
    if (rc && r.nstr < UINT32_MAX && r.nstr > 0 && r.str[r.nstr - 1] == '\0') {
        b->strtab = r.str;
        b->nstrtab = r.nstr;
    }
    for (int i = 0; i < n && rc > 0; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name;
        if (raw_symbol(&r, i, &sym, &addr, &name) < 0) {
            name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
            if (name && b->strtab && (name < b->strtab || name >= b->strtab + b->nstrtab))
                rc = 0; /* a name elsewhere: ask libdwfl for all */
        }
        if (rc && name && add_symbol(b, (uint32_t)i, &sym, addr, name) < 0)
            rc = -1;
    }
    if (rc == 0) { /* start again */
        b->nbounds = b->nsized = b->nsizeless = 0;
        b->strtab = NULL;
    }
    free(alloc);
    return rc;
}

static int build(builder *b, Dwfl_Module *mod, int n, Elf *elf0, GElf_Addr bias0)
{
    if (builder_init(b, (size_t)n) < 0)
        return -1;
    int rc = elf0 ? read_section(b, mod, n, elf0, bias0) : 0;
    if (rc < 0)
        return -1;
    for (int i = 0; i < n && rc == 0; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
        if (name && add_symbol(b, (uint32_t)i, &sym, addr, name) < 0)
            return -1;
    }
    if (sym_sort_by_key(b->sized, b->nsized, sizeof *b->sized) < 0 ||
        sym_sort_by_key(b->sizeless, b->nsizeless, sizeof *b->sizeless) < 0)
        return -1;
    for (size_t i = 0; i < b->nsized; i++)
        b->sized[i].maxend = i && b->sized[i - 1].maxend > b->sized[i].end ? b->sized[i - 1].maxend
                                                                          : b->sized[i].end;
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    Elf_Scn *scn = NULL;
    while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
            (add_bound(b, sh.sh_addr + bias) < 0 || add_bound(b, sh.sh_addr + bias + sh.sh_size) < 0))
            return -1;
    }
    if (sym_sort_by_key(b->bounds, b->nbounds, sizeof *b->bounds) < 0)
        return -1;
    size_t w = 0;
    for (size_t i = 0; i < b->nbounds; i++)
        if (w == 0 || b->bounds[w - 1] != b->bounds[i])
            b->bounds[w++] = b->bounds[i];
    b->nbounds = w;
    return 0;
}

/* ---- the image ---- */

/* Point t's arrays into image (len bytes, header h checked). */
static void use_image(sym_symtable *t, const void *image, size_t len, const tab_hdr *h)
{
    const uint8_t *p = (const uint8_t *)image + sizeof *h;
    t->image = image;
    t->len = len;
    t->first_global = (int)h->first_global;
    t->bounds = (const uint64_t *)p;
    t->nbounds = h->nbounds;
    p += h->nbounds * sizeof *t->bounds;
    t->sized = (const sym_rec *)p;
    t->nsized = h->nsized;
    p += h->nsized * sizeof *t->sized;
    t->sizeless = (const uint64_t *)p;
    t->nsizeless = h->nsizeless;
    p += h->nsizeless * sizeof *t->sizeless;
    t->str = (const char *)p;
    t->nstr = h->nstr;
}

static uint8_t *put(uint8_t *p, const void *src, size_t n)
{
    if (n)
        memcpy(p, src, n);
    return p + n;
}

/* The image of b under header h (filled in here): malloc'd, or NULL. */
static void *make_image(const builder *b, tab_hdr *h, size_t *len)
{
    const char *str = b->strtab ? b->strtab : b->str;
    size_t nstr = b->strtab ? b->nstrtab : b->nstr;
    h->nbounds = b->nbounds;
    h->nsized = b->nsized;
    h->nsizeless = b->nsizeless;
    h->nstr = (nstr + 8) / 8 * 8; /* NULs of its own at the end */
    h->size = sizeof *h + b->nbounds * 8 + b->nsized * sizeof(sym_rec) + b->nsizeless * 8 + h->nstr;
    uint8_t *img = malloc(h->size), *p = img + sizeof *h;
    if (!img)
        return NULL;
    p = put(p, b->bounds, b->nbounds * 8);
    p = put(p, b->sized, b->nsized * sizeof(sym_rec));
    p = put(p, b->sizeless, b->nsizeless * 8);
    p = put(p, str, nstr);
    memset(p, 0, h->nstr - nstr);
    memcpy(img, h, sizeof *h);
    sym_seal_image(img, sizeof *h, h->size);
    memcpy(h, img, sizeof *h);
    *len = h->size;
    return img;
}

/* Is the cache's image (len bytes) one of the table header want describes? */
static int image_ok(const void *img, size_t len, const tab_hdr *want)
{
    tab_hdr h;
    if (!sym_image_sealed(img, len, sizeof h))
        return 0;
    memcpy(&h, img, sizeof h);
    if (memcmp(h.magic, want->magic, offsetof(tab_hdr, nbounds)) != 0)
        return 0;
    /* the counts: each within the file first, so that no sum overflows */
    uint64_t room = (len - sizeof h) / 8;
    if (h.nbounds > room || h.nsized > room / 4 || h.nsizeless > room || h.nstr > len ||
        sizeof h + 8 * (h.nbounds + h.nsizeless) + sizeof(sym_rec) * h.nsized + h.nstr != len ||
        h.nstr == 0 || ((const char *)img)[len - 1] != '\0')
        return 0;
    return 1;
}

int sym_symtable_open(sym_symtable *t, Dwfl_Module *mod, const char *cache_dir)
{
    memset(t, 0, sizeof *t);
    int n = dwfl_module_getsymtab(mod), fg = dwfl_module_getsymtab_first_global(mod);
    if (n < 0 || fg < 0 || (uint64_t)n >= 1u << 30)
        return -1;
    tab_hdr h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, tab_magic, sizeof h.magic);
    h.version = TAB_VERSION;
    h.nsyms = (uint64_t)n;
    h.first_global = fg;
    /* the file libdwfl's table is in: the binary, or its debug file */
    GElf_Sym sym;
    GElf_Addr addr, bias = 0, mbias;
    Elf *elf0 = NULL;
    if (n > 0)
        dwfl_module_getsym_info(mod, 0, &sym, &addr, NULL, &elf0, &bias);
    h.source = elf0 && elf0 != dwfl_module_getelf(mod, &mbias);
    h.bias = bias;
    const unsigned char *bits;
    GElf_Addr vaddr;
    int blen = dwfl_module_build_id(mod, &bits, &vaddr);
    if (blen > 0 && blen <= 64) {
        h.build_id_len = (uint32_t)blen;
        memcpy(h.build_id, bits, (size_t)blen);
        sym_hexstr(t->key, bits, (size_t)blen);
    }
    t->cache_dir = t->key[0] ? cache_dir : NULL;
    if (t->cache_dir) {
        size_t len;
        const void *img = sym_cache_map(t->cache_dir, "symbols", t->key, &len);
        if (img && image_ok(img, len, &h)) {
            memcpy(&h, img, sizeof h);
            use_image(t, img, len, &h);
            t->mapped = 1;
            t->from_cache = 1;
            return 0;
        }
        if (img)
            munmap((void *)img, len);
    }
    builder b;
    memset(&b, 0, sizeof b);
    size_t len = 0;
    void *img = build(&b, mod, n, elf0, bias) == 0 ? make_image(&b, &h, &len) : NULL;
    builder_free(&b);
    if (!img)
        return -1;
    if (t->cache_dir)
        sym_cache_write(t->cache_dir, "symbols", t->key, img, len);
    use_image(t, img, len, &h);
    return 0;
}

/* ---- demangled names ---- */

/* The cache's demangled names, mapped on first need: 0 or -1 (none). */
static int dem_map(sym_symtable *t)
{
    if (t->dem_tried)
        return t->dem ? 0 : -1;
    t->dem_tried = 1;
    char name[140];
    dem_hdr h;
    size_t len;
    if (!t->cache_dir)
        return -1;
    snprintf(name, sizeof name, "%s.dem", t->key);
    const void *img = sym_cache_map(t->cache_dir, "symbols", name, &len);
    if (!img)
        return -1;
    int ok = sym_image_sealed(img, len, sizeof h);
    if (ok) {
        memcpy(&h, img, sizeof h);
        ok = memcmp(h.magic, dem_magic, sizeof h.magic) == 0 && h.version == DEM_VERSION &&
             h.n <= (len - sizeof h) / sizeof(dem_entry) && h.nstr == len - sizeof h - h.n * sizeof(dem_entry) &&
             h.nstr > 0 && ((const char *)img)[len - 1] == '\0';
    }
    if (!ok) {
        munmap((void *)img, len);
        return -1;
    }
    t->dem = img;
    t->dem_len = len;
    return 0;
}

/* The cache's entry of name (hash hash), or NULL. */
static const dem_entry *dem_find(const sym_symtable *t, uint64_t hash, const char *name)
{
    const dem_hdr *h = t->dem;
    const dem_entry *e = (const dem_entry *)(h + 1);
    const char *str = (const char *)(e + h->n);
    size_t lo = 0, hi = h->n;
    while (lo < hi) { /* the first entry of hash >= hash */
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].hash < hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < h->n && e[lo].hash == hash; lo++)
        if (e[lo].mangled < h->nstr && strcmp(str + e[lo].mangled, name) == 0 &&
            (e[lo].demangled == NO_DEM || e[lo].demangled < h->nstr))
            return &e[lo];
    return NULL;
}

const char *sym_symtable_demangle(sym_symtable *t, strpool *pool, const char *name, size_t len)
{
    uint64_t hash = hash_bytes(name, len);
    /* met before in this run (inline frames name a function at each address) */
    uintptr_t seen = (uintptr_t)hashmap_get(&t->seen, hash, 0);
    if (seen && strcmp(t->addstr + t->added[seen - 1].mangled, name) == 0)
        return t->added[seen - 1].demangled;
    const dem_entry *e = dem_map(t) == 0 ? dem_find(t, hash, name) : NULL;
    const char *r = NULL;
    t->dem_found += e != NULL;
    if (e && e->demangled != NO_DEM) {
        const char *d = (const char *)t->dem + sizeof(dem_hdr) + ((const dem_hdr *)t->dem)->n * sizeof(dem_entry) +
                        e->demangled;
        if (!(r = strpool_intern(pool, d, strlen(d))))
            return NULL;
    } else if (!e) {
        char *d = sym_demangle(name);
        r = d ? strpool_intern(pool, d, strlen(d)) : NULL;
        free(d);
        if (d && !r)
            return NULL;
    }
    if (!seen && array_reserve(&t->added, &t->addcap, t->nadded + 1, sizeof *t->added, 64) == 0 &&
        array_reserve(&t->addstr, &t->addstrcap, t->naddstr + len + 1, 1, 4096) == 0 &&
        hashmap_put(&t->seen, hash, 0, (void *)(uintptr_t)(t->nadded + 1)) == 0) {
        memcpy(t->addstr + t->naddstr, name, len + 1);
        t->added[t->nadded++] = (sym_dem_new){ hash, t->naddstr, r, e != NULL };
        t->naddstr += len + 1;
        t->nnew += !e;
    }
    return r;
}

/* Append s (NUL-terminated) to the strings: its offset. */
static uint32_t put_str(char *str, size_t *nstr, const char *s)
{
    size_t len = strlen(s) + 1, off = *nstr;
    memcpy(str + off, s, len);
    *nstr += len;
    return (uint32_t)off;
}

/* Write the cache's names and this run's, merged by hash, over the
 * cache's file. */
static void dem_save(sym_symtable *t)
{
    const dem_hdr *old = t->dem;
    const dem_entry *oe = old ? (const dem_entry *)(old + 1) : NULL;
    const char *ostr = old ? (const char *)(oe + old->n) : NULL;
    size_t w = 0, nstr = old ? old->nstr : 0;
    for (size_t i = 0; i < t->nadded; i++) /* the new ones */
        if (!t->added[i].in_cache) {
            t->added[w++] = t->added[i];
            nstr += strlen(t->addstr + t->added[i].mangled) + 1 +
                    (t->added[i].demangled ? strlen(t->added[i].demangled) + 1 : 0);
        }
    t->nadded = w;
    size_t on = old ? old->n : 0, n = on + t->nadded;
    if (sym_sort_by_key(t->added, t->nadded, sizeof *t->added) < 0)
        return;
    nstr += (8 - nstr % 8) % 8 + 8; /* NULs at the end */
    if (nstr > UINT32_MAX)
        return;
    dem_hdr h;
    memset(&h, 0, sizeof h);
    size_t size = sizeof h + n * sizeof(dem_entry) + nstr;
    uint8_t *img = calloc(1, size);
    if (!img)
        return;
    dem_entry *e = (dem_entry *)(img + sizeof h);
    char *str = (char *)(e + n);
    size_t used = 0, i = 0, j = 0, k = 0;
    while (i < on || j < t->nadded) {
        if (j == t->nadded || (i < on && oe[i].hash <= t->added[j].hash)) {
            e[k].hash = oe[i].hash; /* checked by dem_map: within the old strings */
            e[k].mangled = put_str(str, &used, ostr + oe[i].mangled);
            e[k++].demangled = oe[i].demangled == NO_DEM ? NO_DEM : put_str(str, &used, ostr + oe[i].demangled);
            i++;
        } else {
            const sym_dem_new *a = &t->added[j++];
            e[k].hash = a->hash;
            e[k].mangled = put_str(str, &used, t->addstr + a->mangled);
            e[k++].demangled = a->demangled ? put_str(str, &used, a->demangled) : NO_DEM;
        }
    }
    memcpy(h.magic, dem_magic, sizeof h.magic);
    h.version = DEM_VERSION;
    h.n = n;
    h.nstr = nstr;
    memcpy(img, &h, sizeof h);
    sym_seal_image(img, sizeof h, size);
    char name[140];
    snprintf(name, sizeof name, "%s.dem", t->key);
    sym_cache_write(t->cache_dir, "symbols", name, img, size);
    free(img);
}

void sym_symtable_free(sym_symtable *t)
{
    if (t->nnew && t->cache_dir)
        dem_save(t);
    free(t->added);
    free(t->addstr);
    hashmap_free(&t->seen);
    if (t->dem)
        munmap((void *)t->dem, t->dem_len);
    if (t->mapped)
        munmap((void *)t->image, t->len);
    else
        free((void *)t->image);
    memset(t, 0, sizeof *t);
}
