/*
 * dwpart.c - the DWARF of a separate debug file whose sections are
 * compressed (as Debian's -dbg packages ship them), inflated only as far
 * as the addresses looked up need.
 *
 * libdw inflates every compressed debug section of a file when it opens
 * it: for libc's debug file that is about 10 MB, some 50 ms, even when the
 * samples touch one function of it.  Inline frames need only the unit
 * (CU) that holds the address, found through .debug_aranges.  So here
 * .debug_info is inflated as a stream up to the end of the last unit
 * needed (at least doubling each time, so a view is rebuilt O(log n)
 * times), and libdw is given an ELF image made in memory that holds that
 * prefix, the .debug_aranges sets of the units in it, and the small
 * sections units refer into (abbreviations, strings, ranges, addresses).
 * Location lists and line tables are left out: inline frames need
 * neither (with --lines the whole file is loaded by libdw as before).
 *
 * Where libdeflate is installed (loaded at run time), whole sections and
 * prefixes past a quarter of a section are inflated with it at once: it is
 * about three times as fast as zlib, but it does not stream.
 *
 * Used only when it fits: a 64-bit little-endian ELF, zlib-compressed
 * .debug_info, a .debug_aranges, no .gnu_debugaltlink (dwz), the same
 * load addresses as the binary.  Otherwise sym_dwpart_open returns NULL
 * and libdw loads the file whole.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <endian.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <elfutils/libdw.h>

#include "sym_int.h"

/* sections a unit refers into anywhere (kept whole, inflated once) */
static const char *const kept_names[] = {
    ".debug_str", ".debug_line_str", ".debug_str_offsets",
    ".debug_addr", ".debug_rnglists", ".debug_ranges",
};
#define NKEPT (sizeof kept_names / sizeof kept_names[0])

typedef struct arange {
    uint64_t lo, hi, cu;
} arange;

/* libdeflate's zlib decompression, loaded at run time (no build
 * dependency): 0 when in[0..inlen) inflated to exactly out[0..outlen). */
static int inflate_whole_fast(const void *in, size_t inlen, void *out, size_t outlen)
{
    typedef void *(*alloc_fn)(void);
    typedef int (*zlib_fn)(void *, const void *, size_t, void *, size_t, size_t *);
    typedef void (*free_fn)(void *);
    static int tried;
    static alloc_fn alloc;
    static zlib_fn zdec;
    static free_fn dfree;
    if (!tried) {
        tried = 1;
        void *h = dlopen("libdeflate.so.0", RTLD_LAZY | RTLD_LOCAL);
        if (h) {
            alloc = (alloc_fn)(uintptr_t)dlsym(h, "libdeflate_alloc_decompressor");
            zdec = (zlib_fn)(uintptr_t)dlsym(h, "libdeflate_zlib_decompress");
            dfree = (free_fn)(uintptr_t)dlsym(h, "libdeflate_free_decompressor");
        }
    }
    if (!alloc || !zdec || !dfree)
        return -1;
    void *d = alloc();
    if (!d)
        return -1;
    size_t got = 0;
    int rc = zdec(d, in, inlen, out, outlen, &got); /* 0: LIBDEFLATE_SUCCESS */
    dfree(d);
    return rc == 0 && got == outlen ? 0 : -1;
}

/* A compressed section inflated as far as asked. */
typedef struct zsec {
    const uint8_t *zin; /* the zlib stream, as in the file */
    size_t zin_len;
    z_stream z;
    int live, end;
    uint8_t *buf;
    size_t len, total; /* buf[0..len) inflated of total */
} zsec;

struct sym_dwpart {
    int fd;
    Elf *elf;
    struct { const char *name; uint8_t *data; size_t size; } kept[NKEPT];
    size_t nkept;
    /* .debug_info and .debug_abbrev inflated as far as needed */
    zsec info, abbrev;
    size_t complete;    /* info.buf[0..complete): whole units */
    size_t abbrev_need; /* the abbreviation tables of those units end here */
    size_t units_seen;  /* units up to here have their tables in abbrev_need */
    size_t abbrev_start;/* where the last table parsed starts */
    /* .debug_aranges, and address -> unit from it */
    uint8_t *aranges;
    size_t aranges_len;
    arange *ar;
    size_t nar;
    /* the view libdw reads */
    uint8_t *image;
    Elf *velf;
    Dwarf *dw;
    size_t covers; /* units of .debug_info in the view: [0, covers) */
};

/* A section's bytes, inflated when compressed (zlib only): malloc'd. */
static uint8_t *section_bytes(Elf_Scn *scn, const GElf_Shdr *sh, size_t *len)
{
    Elf_Data *d = elf_rawdata(scn, NULL);
    if (!d || !d->d_buf || sh->sh_type == SHT_NOBITS)
        return NULL;
    if (!(sh->sh_flags & SHF_COMPRESSED)) {
        uint8_t *b = malloc(d->d_size ? d->d_size : 1);
        if (b)
            memcpy(b, d->d_buf, d->d_size);
        *len = d->d_size;
        return b;
    }
    Elf64_Chdr ch;
    if (d->d_size < sizeof ch)
        return NULL;
    memcpy(&ch, d->d_buf, sizeof ch);
    if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > (1ull << 32))
        return NULL;
    uint8_t *b = malloc(ch.ch_size ? ch.ch_size : 1);
    uLongf out = (uLongf)ch.ch_size;
    if (!b)
        return NULL;
    if (inflate_whole_fast((const uint8_t *)d->d_buf + sizeof ch, d->d_size - sizeof ch, b, ch.ch_size) == 0) {
        *len = ch.ch_size;
        return b;
    }
    if (uncompress(b, &out, (const Bytef *)d->d_buf + sizeof ch, (uLong)(d->d_size - sizeof ch)) != Z_OK ||
        out != ch.ch_size) {
        free(b);
        return NULL;
    }
    *len = out;
    return b;
}

static int arange_cmp(const void *a, const void *b)
{
    const arange *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static uint64_t rd(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    memcpy(&v, p, n); /* little-endian host and file */
    return v;
}

/* One .debug_aranges set at off: its total size and unit offset, 0 when malformed. */
static size_t aranges_set(const uint8_t *a, size_t len, size_t off, uint64_t *cu, size_t *hdr,
                          unsigned *asz)
{
    if (len - off < 4)
        return 0;
    uint64_t ulen = rd(a + off, 4);
    size_t lsz = 4;
    if (ulen == 0xffffffffu) {
        if (len - off < 12)
            return 0;
        ulen = rd(a + off + 4, 8);
        lsz = 12;
    }
    if (ulen > len - off - lsz || ulen < 2 + (lsz == 4 ? 4 : 8) + 2)
        return 0;
    size_t osz = lsz == 4 ? 4 : 8;
    *cu = rd(a + off + lsz + 2, osz);
    *asz = a[off + lsz + 2 + osz];
    if (*asz != 8 || a[off + lsz + 2 + osz + 1] != 0)
        return 0;
    size_t h = lsz + 2 + osz + 2;
    h = (h + 15) & ~(size_t)15; /* tuples are aligned to twice the address size */
    *hdr = h;
    return lsz + (size_t)ulen;
}

static int parse_aranges(sym_dwpart *p)
{
    size_t cap = 0;
    for (size_t off = 0; off < p->aranges_len;) {
        uint64_t cu;
        size_t hdr;
        unsigned asz;
        size_t sz = aranges_set(p->aranges, p->aranges_len, off, &cu, &hdr, &asz);
        if (!sz)
            return -1;
        for (size_t t = off + hdr; t + 16 <= off + sz; t += 16) {
            uint64_t lo = rd(p->aranges + t, 8), n = rd(p->aranges + t + 8, 8);
            if (lo == 0 && n == 0)
                break;
            if (n == 0)
                continue;
            if (p->nar == cap) {
                cap = cap ? cap * 2 : 256;
                arange *na = realloc(p->ar, cap * sizeof *na);
                if (!na)
                    return -1;
                p->ar = na;
            }
            p->ar[p->nar++] = (arange){ lo, lo + n, cu };
        }
        off += sz;
    }
    qsort(p->ar, p->nar, sizeof *p->ar, arange_cmp);
    return p->nar ? 0 : -1;
}

static const arange *find_arange(const sym_dwpart *p, uint64_t addr)
{
    size_t lo = 0, hi = p->nar;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (addr < p->ar[mid].lo)
            hi = mid;
        else if (addr >= p->ar[mid].hi)
            lo = mid + 1;
        else
            return &p->ar[mid];
    }
    return NULL;
}

static int zsec_open(zsec *z, Elf_Scn *scn, const GElf_Shdr *sh)
{
    Elf_Data *d = elf_rawdata(scn, NULL);
    Elf64_Chdr ch;
    if (!d || !d->d_buf || sh->sh_type == SHT_NOBITS)
        return -1;
    if (!(sh->sh_flags & SHF_COMPRESSED)) { /* stored as it is: all there */
        if (!(z->buf = malloc(d->d_size ? d->d_size : 1)))
            return -1;
        memcpy(z->buf, d->d_buf, d->d_size);
        z->len = z->total = d->d_size;
        z->end = 1;
        return 0;
    }
    if (d->d_size < sizeof ch)
        return -1;
    memcpy(&ch, d->d_buf, sizeof ch);
    if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > (1ull << 32) ||
        !(z->buf = malloc(ch.ch_size ? ch.ch_size : 1)))
        return -1;
    z->total = ch.ch_size;
    z->zin = (const uint8_t *)d->d_buf + sizeof ch;
    z->zin_len = d->d_size - sizeof ch;
    /* raw deflate after the 2-byte zlib header: the Adler-32 of the whole
     * stream cannot be checked on a prefix anyway (libdeflate checks it) */
    if (z->zin_len < 2 || (z->zin[0] & 0x0f) != Z_DEFLATED || (z->zin[1] & 0x20) /* FDICT */)
        return -1;
    z->z.next_in = (Bytef *)z->zin + 2;
    z->z.avail_in = (uInt)(z->zin_len - 2);
    if (inflateInit2(&z->z, -MAX_WBITS) != Z_OK)
        return -1;
    z->live = 1;
    return 0;
}

/* Inflate up to at least want bytes (or the end): 0 or -1. */
static int zsec_to(zsec *z, size_t want)
{
    if (want > z->total)
        want = z->total;
    if (z->len < want && !z->end && want > z->total / 4 &&
        inflate_whole_fast(z->zin, z->zin_len, z->buf, z->total) == 0) {
        z->len = z->total; /* all of it at once: cheaper than streaming on */
        z->end = 1;
        return 0;
    }
    while (z->len < want && !z->end) {
        z->z.next_out = z->buf + z->len;
        z->z.avail_out = (uInt)(want - z->len);
        int rc = inflate(&z->z, Z_SYNC_FLUSH);
        z->len = (size_t)(z->z.next_out - z->buf);
        if (rc == Z_STREAM_END)
            z->end = 1;
        else if (rc != Z_OK)
            return -1;
    }
    return 0;
}

static void zsec_free(zsec *z)
{
    if (z->live)
        inflateEnd(&z->z);
    free(z->buf);
}

/* Extend complete over the whole units inflated so far. */
static void advance_complete(sym_dwpart *p)
{
    const uint8_t *b = p->info.buf;
    size_t len = p->info.len;
    for (;;) {
        size_t off = p->complete;
        if (len - off < 4)
            return;
        uint64_t ulen = rd(b + off, 4);
        size_t lsz = 4;
        if (ulen == 0xffffffffu) {
            if (len - off < 12)
                return;
            ulen = rd(b + off + 4, 8);
            lsz = 12;
        }
        if (ulen > len - off - lsz)
            return;
        p->complete = off + lsz + (size_t)ulen;
    }
}

static int read_uleb(zsec *z, size_t *pos, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*pos >= z->len && (zsec_to(z, *pos + 4096) < 0 || *pos >= z->len))
            return -1;
        uint8_t c = z->buf[(*pos)++];
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return 0;
    }
    return -1;
}

/* The end of the abbreviation table at off, inflating as needed: 0 or -1. */
static int abbrev_table_end(zsec *z, size_t off, size_t *end)
{
    size_t pos = off;
    for (;;) {
        uint64_t code, tag, name, form, c;
        if (read_uleb(z, &pos, &code) < 0)
            return -1;
        if (code == 0) {
            *end = pos;
            return 0;
        }
        if (read_uleb(z, &pos, &tag) < 0 || read_uleb(z, &pos, &c) < 0) /* children: one byte */
            return -1;
        do {
            if (read_uleb(z, &pos, &name) < 0 || read_uleb(z, &pos, &form) < 0)
                return -1;
            if (form == DW_FORM_implicit_const && read_uleb(z, &pos, &c) < 0) /* sleb: same length */
                return -1;
        } while (name || form);
    }
}

/* Make abbrev_need cover the tables of the units in [units_seen, complete):
 * tables are laid out one after the other, so the end of the one that
 * starts last is the end of them all. */
static int cover_abbrevs(sym_dwpart *p)
{
    const uint8_t *b = p->info.buf;
    uint64_t last = 0;
    int any = 0;
    while (p->units_seen < p->complete) {
        size_t off = p->units_seen;
        uint64_t ulen = rd(b + off, 4), aoff;
        size_t lsz = 4, osz = 4;
        if (ulen == 0xffffffffu) {
            ulen = rd(b + off + 4, 8);
            lsz = 12;
            osz = 8;
        }
        if (ulen < 2 + 1 + 1 + osz)
            return -1;
        unsigned version = (unsigned)rd(b + off + lsz, 2);
        if (version >= 5) /* unit_type, address_size, abbrev_offset */
            aoff = rd(b + off + lsz + 4, osz);
        else if (version >= 2) /* abbrev_offset, address_size */
            aoff = rd(b + off + lsz + 2, osz);
        else
            return -1;
        if (aoff >= p->abbrev.total)
            return -1;
        if (aoff >= last) {
            last = aoff;
            any = 1;
        }
        p->units_seen = off + lsz + (size_t)ulen;
    }
    size_t end;
    if (any && last >= p->abbrev_start) {
        if (abbrev_table_end(&p->abbrev, (size_t)last, &end) < 0)
            return -1;
        p->abbrev_start = (size_t)last;
        if (end > p->abbrev_need)
            p->abbrev_need = end;
    }
    return 0;
}

typedef struct view_sec {
    const char *name;
    const uint8_t *data;
    size_t size;
} view_sec;

/* The ELF image libdw reads: the kept sections, the .debug_info prefix of
 * whole units and the aranges sets of those units. */
static int build_view(sym_dwpart *p)
{
    /* aranges of the units in the prefix */
    uint8_t *ar = malloc(p->aranges_len ? p->aranges_len : 1);
    size_t arlen = 0;
    if (!ar)
        return -1;
    for (size_t off = 0; off < p->aranges_len;) {
        uint64_t cu;
        size_t hdr;
        unsigned asz;
        size_t sz = aranges_set(p->aranges, p->aranges_len, off, &cu, &hdr, &asz);
        if (!sz)
            break;
        if (cu < p->complete) {
            memcpy(ar + arlen, p->aranges + off, sz);
            arlen += sz;
        }
        off += sz;
    }
    view_sec sec[NKEPT + 3];
    size_t ns = 0;
    sec[ns++] = (view_sec){ ".debug_info", p->info.buf, p->complete };
    sec[ns++] = (view_sec){ ".debug_abbrev", p->abbrev.buf, p->abbrev_need };
    sec[ns++] = (view_sec){ ".debug_aranges", ar, arlen };
    for (size_t i = 0; i < p->nkept; i++)
        sec[ns++] = (view_sec){ p->kept[i].name, p->kept[i].data, p->kept[i].size };
    /* layout: header, section data, .shstrtab, section headers */
    char shstr[256];
    size_t shlen = 1, name_off[NKEPT + 4];
    shstr[0] = '\0';
    for (size_t i = 0; i < ns; i++) {
        name_off[i] = shlen;
        size_t l = strlen(sec[i].name) + 1;
        memcpy(shstr + shlen, sec[i].name, l);
        shlen += l;
    }
    name_off[ns] = shlen;
    memcpy(shstr + shlen, ".shstrtab", 10);
    shlen += 10;
    size_t off = sizeof(Elf64_Ehdr), data_off[NKEPT + 4];
    for (size_t i = 0; i < ns; i++) {
        off = (off + 7) & ~(size_t)7;
        data_off[i] = off;
        off += sec[i].size;
    }
    data_off[ns] = off;
    off += shlen;
    off = (off + 7) & ~(size_t)7;
    size_t shoff = off, nsh = ns + 2;
    size_t total = shoff + nsh * sizeof(Elf64_Shdr);
    uint8_t *img = calloc(1, total);
    if (!img) {
        free(ar);
        return -1;
    }
    GElf_Ehdr oe;
    gelf_getehdr(p->elf, &oe);
    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, oe.e_ident, EI_NIDENT);
    eh.e_type = oe.e_type;
    eh.e_machine = oe.e_machine;
    eh.e_version = EV_CURRENT;
    eh.e_ehsize = sizeof eh;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shoff = shoff;
    eh.e_shnum = (Elf64_Half)nsh;
    eh.e_shstrndx = (Elf64_Half)(ns + 1);
    memcpy(img, &eh, sizeof eh);
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + shoff);
    for (size_t i = 0; i < ns; i++) {
        if (sec[i].size)
            memcpy(img + data_off[i], sec[i].data, sec[i].size);
        sh[i + 1] = (Elf64_Shdr){ .sh_name = (Elf64_Word)name_off[i], .sh_type = SHT_PROGBITS,
                                  .sh_offset = data_off[i], .sh_size = sec[i].size,
                                  .sh_addralign = 1 };
    }
    memcpy(img + data_off[ns], shstr, shlen);
    sh[ns + 1] = (Elf64_Shdr){ .sh_name = (Elf64_Word)name_off[ns], .sh_type = SHT_STRTAB,
                               .sh_offset = data_off[ns], .sh_size = shlen, .sh_addralign = 1 };
    free(ar);
    Elf *e = elf_memory((char *)img, total);
    Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
    if (!dw) {
        if (e)
            elf_end(e);
        free(img);
        return -1;
    }
    if (p->dw)
        dwarf_end(p->dw);
    if (p->velf)
        elf_end(p->velf);
    free(p->image);
    p->image = img;
    p->velf = e;
    p->dw = dw;
    p->covers = p->complete;
    return 0;
}

static int load_addrs_match(Elf *dbg, const sym_symfile *f)
{
    size_t n;
    if (f->nseg == 0 || elf_getphdrnum(dbg, &n) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(dbg, (int)i, &ph) && ph.p_type == PT_LOAD)
            return ph.p_vaddr == f->seg[0].vaddr;
    }
    return 0;
}

sym_dwpart *sym_dwpart_open(const char *path, const sym_symfile *f)
{
    sym_dwpart *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->fd = open(path, O_RDONLY | O_CLOEXEC);
    p->elf = p->fd >= 0 ? elf_begin(p->fd, ELF_C_READ_MMAP, NULL) : NULL;
    GElf_Ehdr eh;
    size_t shstrndx;
    if (!p->elf || elf_kind(p->elf) != ELF_K_ELF || !gelf_getehdr(p->elf, &eh) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        BYTE_ORDER != LITTLE_ENDIAN || elf_getshdrstrndx(p->elf, &shstrndx) != 0 ||
        !load_addrs_match(p->elf, f))
        goto fail;
    Elf_Scn *scn = NULL;
    int have_info = 0, have_abbrev = 0;
    while ((scn = elf_nextscn(p->elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            goto fail;
        const char *name = elf_strptr(p->elf, shstrndx, sh.sh_name);
        if (!name)
            continue;
        if (strcmp(name, ".gnu_debugaltlink") == 0 || strcmp(name, ".debug_types") == 0 ||
            strcmp(name, ".debug_info.dwo") == 0)
            goto fail; /* units elsewhere: leave it to libdw */
        if (strcmp(name, ".debug_info") == 0) {
            /* not compressed: libdw maps it at no cost, nothing to gain */
            if (!(sh.sh_flags & SHF_COMPRESSED) || have_info++ || zsec_open(&p->info, scn, &sh) < 0)
                goto fail;
        } else if (strcmp(name, ".debug_abbrev") == 0) {
            if (have_abbrev++ || zsec_open(&p->abbrev, scn, &sh) < 0)
                goto fail;
        } else if (strcmp(name, ".debug_aranges") == 0) {
            if (p->aranges || !(p->aranges = section_bytes(scn, &sh, &p->aranges_len)))
                goto fail;
        } else {
            for (size_t i = 0; i < NKEPT; i++)
                if (strcmp(name, kept_names[i]) == 0 && sh.sh_type != SHT_NOBITS) {
                    size_t len = 0;
                    uint8_t *b = section_bytes(scn, &sh, &len);
                    if (!b)
                        goto fail;
                    p->kept[p->nkept].name = kept_names[i];
                    p->kept[p->nkept].data = b;
                    p->kept[p->nkept++].size = len;
                }
        }
    }
    if (!have_info || !have_abbrev || !p->aranges || parse_aranges(p) < 0)
        goto fail;
    return p;
fail:
    sym_dwpart_free(p);
    return NULL;
}

int sym_dwpart_addrdie(sym_dwpart *p, uint64_t vaddr, Dwarf_Die *cu)
{
    const arange *a = find_arange(p, vaddr);
    if (!a || a->cu >= p->info.total)
        return -1;
    if (a->cu >= p->complete) {
        /* at least double what is inflated, so views are rebuilt rarely */
        size_t want = p->info.len * 2 > 65536 ? p->info.len * 2 : 65536;
        while (a->cu >= p->complete && p->info.len < p->info.total) {
            if (zsec_to(&p->info, want) < 0)
                return -1;
            advance_complete(p);
            want = p->info.len + 65536;
        }
        if (a->cu >= p->complete)
            return -1;
    }
    if (a->cu >= p->covers && (cover_abbrevs(p) < 0 || build_view(p) < 0))
        return -1;
    return dwarf_addrdie(p->dw, vaddr, cu) ? 0 : -1;
}

void sym_dwpart_free(sym_dwpart *p)
{
    if (!p)
        return;
    if (p->dw)
        dwarf_end(p->dw);
    if (p->velf)
        elf_end(p->velf);
    free(p->image);
    zsec_free(&p->info);
    zsec_free(&p->abbrev);
    free(p->aranges);
    free(p->ar);
    for (size_t i = 0; i < p->nkept; i++)
        free(p->kept[i].data);
    if (p->elf)
        elf_end(p->elf);
    if (p->fd >= 0)
        close(p->fd);
    free(p);
}
