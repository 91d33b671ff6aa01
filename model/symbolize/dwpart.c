/*
 * dwpart.c - the DWARF of a separate debug file whose sections are
 * compressed (as Debian's -dbg packages ship them), inflated once, off
 * the main thread.
 *
 * libdw inflates every compressed debug section of a file when it opens
 * it: for libc's debug file that is about 10 MB, some 50 ms, even when the
 * samples touch one function of it.  Inline frames need only the unit
 * (CU) that holds the address, found through .debug_aranges, with the
 * abbreviations and the small sections units refer into (strings,
 * ranges, addresses); location lists and line tables are left out (with
 * --lines the whole file is loaded by libdw as before).  libdw is given
 * an ELF image made in memory that holds those; the unit of an address is
 * the one our own table from .debug_aranges names.
 *
 * Opening the file (for an address to resolve, or ahead of the first:
 * see symfile.c) starts .debug_info inflating whole on a thread of its
 * own, straight into the image, and then the other sections; the first
 * address that needs a unit inflates those the thread has not come to
 * yet (each section is inflated by the first thread free to take it),
 * then waits for the thread (whole_start, whole_finish): the sampled units
 * lie all over a library (libc's first is 60% into its .debug_info, most
 * runs reach its last 5%), so inflating to the end costs hardly more than
 * to the last of them.  Otherwise (the
 * thread failed, or a cache entry holds a prefix of the units and an
 * address lies beyond it) .debug_info is inflated here as a stream up to
 * the end of the unit needed (at least doubling each time, so a view is
 * rebuilt O(log n) times).  Where libdeflate is installed (loaded at run
 * time), whole sections and prefixes past a quarter of a section are
 * inflated with it at once: it is about three times as fast as zlib, but
 * it does not stream.
 *
 * .debug_info is inflated on one thread: splitting it over two was
 * measured on libc's (issue 12) and does not pay.  A decoder started at a
 * block in the middle of the stream, whose output marks the bytes copied
 * from the unknown 32 KiB before it, never reaches 32 KiB free of marks:
 * from every split point (10% to 90%) 18-30% of its output is still
 * copied from that window at the end of the stream (DWARF repeats itself
 * over megabytes), so libdeflate can never take over.  Decoding the tail
 * twice with libdeflate instead (two windows coding each byte's index, to
 * find the copied bytes) costs two tails on the second CPU, plus the
 * block search and the merge: no faster than one thread.
 *
 * The views are cached on disk (sym_options.cache_dir), as perf's
 * ~/.debug and debuginfod's client cache keep files, in
 * CACHE_DIR/dwarf/BUILD-ID.debug: the whole view, written by its thread
 * once it has handed the image over, or else the last view built, when
 * the session ends.  The same ELF image,
 * which also holds that address -> unit table (".tr_aranges"),
 * checksums of .debug_info (".tr_sums") and a header (".tr_cache")
 * naming the build-id and the inflated size of .debug_info.  A later run
 * maps that file and answers from it without inflating anything; only an
 * address whose unit lies beyond the cached view inflates the debug file
 * again (from its start) and rewrites the cache with the larger view.  A
 * cache file is used only as far as it checks out (see cache_hdr).  The
 * table is the same from the cache or from the file, so an address always
 * gets the same unit: the cache changes the cost of a run, not its result.
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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>

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
 * dependency), once for all threads. */
typedef void *(*deflate_alloc_fn)(void);
typedef int (*deflate_zlib_fn)(void *, const void *, size_t, void *, size_t, size_t *);
typedef void (*deflate_free_fn)(void *);
static deflate_alloc_fn deflate_alloc;
static deflate_zlib_fn deflate_zlib;
static deflate_free_fn deflate_free;

static void load_libdeflate(void)
{
    void *h = dlopen("libdeflate.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (h) {
        deflate_alloc = (deflate_alloc_fn)(uintptr_t)dlsym(h, "libdeflate_alloc_decompressor");
        deflate_zlib = (deflate_zlib_fn)(uintptr_t)dlsym(h, "libdeflate_zlib_decompress");
        deflate_free = (deflate_free_fn)(uintptr_t)dlsym(h, "libdeflate_free_decompressor");
    }
}

/* 0 when in[0..inlen) inflated to exactly out[0..outlen) with libdeflate. */
static int inflate_whole_fast(const void *in, size_t inlen, void *out, size_t outlen)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_libdeflate);
    if (!deflate_alloc || !deflate_zlib || !deflate_free)
        return -1;
    void *d = deflate_alloc();
    if (!d)
        return -1;
    size_t got = 0;
    int rc = deflate_zlib(d, in, inlen, out, outlen, &got); /* 0: LIBDEFLATE_SUCCESS */
    deflate_free(d);
    return rc == 0 && got == outlen ? 0 : -1;
}

/* The zlib stream in[0..inlen) inflated to exactly out[0..outlen), with
 * libdeflate or else zlib: 0 or -1. */
static int inflate_whole(const void *in, size_t inlen, void *out, size_t outlen)
{
    uLongf got = (uLongf)outlen;
    if (inflate_whole_fast(in, inlen, out, outlen) == 0)
        return 0;
    return uncompress(out, &got, in, (uLong)inlen) == Z_OK && got == outlen ? 0 : -1;
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

/* The ".tr_cache" section of a cached view.  Its fields are each checked
 * against what they must be; the rest of the image is checked by
 * checksums: of each CHUNK bytes of .debug_info in ".tr_sums" (checked
 * as libdw comes to read them), of everything else here. */
#define CACHE_MAGIC "trdwarf" /* 8 bytes with its NUL */
enum { CACHE_VERSION = 1, CHUNK = 65536 };
typedef struct cache_hdr {
    char magic[8];
    uint32_t version, build_id_len;
    uint8_t build_id[64];
    uint64_t info_total; /* inflated size of the debug file's .debug_info */
    uint64_t covers;     /* this image's .debug_info: its units [0, covers) */
    uint64_t size;       /* of the whole image */
    uint64_t checksum;   /* of the image but this header and .debug_info */
} cache_hdr;

/* Where a cached image's parts are (file offsets and sizes). */
typedef struct image_parts {
    size_t hdr, info, info_size, sums, ar, ar_size;
} image_parts;

static uint64_t rest_checksum(const uint8_t *img, size_t size, const image_parts *ip)
{
    size_t hdr_end = ip->hdr + sizeof(cache_hdr), info_end = ip->info + ip->info_size;
    uint64_t h = sym_checksum(img, ip->hdr, 0);
    h = sym_checksum(img + hdr_end, ip->info - hdr_end, h);
    return sym_checksum(img + info_end, size - info_end, h);
}

/* The checksum of chunk i of .debug_info (size bytes at info). */
static uint64_t chunk_checksum(const uint8_t *info, size_t size, size_t i)
{
    size_t off = i * (size_t)CHUNK;
    return sym_checksum(info + off, size - off < CHUNK ? size - off : CHUNK, 0);
}

static size_t nchunks(size_t size)
{
    return (size + CHUNK - 1) / CHUNK;
}

/* A section as the file holds it: its bytes, zlib-compressed or not. */
typedef struct raw_sec {
    const uint8_t *z; /* the zlib stream, or the bytes themselves */
    size_t zlen, size; /* size: inflated */
    int compressed;
} raw_sec;

struct sym_dwpart {
    int fd;
    Elf *elf;
    uint8_t build_id[64];
    size_t build_id_len;
    const char *cache_dir; /* NULL: no cache */
    char cache_name[140];  /* BUILD-ID.debug */
    /* the debug file's sections, inflated only when a view is built */
    Elf_Scn *info_scn, *abbrev_scn, *aranges_scn, *kept_scn[NKEPT];
    size_t info_total;     /* inflated size of .debug_info */
    int cold;              /* the sections below: 0 not yet, 1 ready, -1 failed */
    struct { const char *name; uint8_t *data; size_t size; } kept[NKEPT];
    size_t nkept;
    /* .debug_info and .debug_abbrev inflated as far as needed */
    zsec info, abbrev;
    size_t complete;    /* info.buf[0..complete): whole units */
    size_t abbrev_need; /* the abbreviation tables of those units end here */
    size_t units_seen;  /* units up to here have their tables in abbrev_need */
    size_t abbrev_start;/* where the last table parsed starts */
    /* address -> unit, from .debug_aranges (sorted by lo: so in the cache) */
    arange *ar;
    size_t nar;
    /* the view libdw reads: built in memory (image) or a cache file mapped (view_fd) */
    uint8_t *image;
    int view_fd;
    Elf *velf;
    Dwarf *dw;
    size_t covers; /* units of .debug_info in the view: [0, covers) */
    /* a cache file's .debug_info and .tr_sums, and how far they were checked */
    const uint8_t *vinfo, *vsums;
    size_t checked;
    size_t image_size;
    int unsaved;   /* image was built here: written to the cache when done */
    /* the whole view, made once beside the main thread (whole_start) */
    struct whole {
        int tried, started;
        pthread_t tid;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        /* the other sections (abbrev, then the kept ones) are claimed one
         * at a time by whichever thread comes first */
        size_t nsecs, claimed, copied;
        int failed;  /* a section did not inflate */
        int state;   /* the thread's: 1 img is ready, -1 failed */
        int verdict; /* the main thread's: 1 img is used (write it), -1 never */
        uint8_t *img;
        size_t size, off[NKEPT + 6]; /* where its sections are */
        raw_sec info, abbrev, kept[NKEPT];
        size_t nkept;
        int (*work)(void *ctx); /* sym_dwpart_on_wait's, done while waiting */
        void *work_ctx;
        struct whole_layout *layout; /* the image's, for the thread to write first */
    } whole;
};

static int section_raw(Elf_Scn *scn, raw_sec *r)
{
    GElf_Shdr sh;
    Elf_Data *d = gelf_getshdr(scn, &sh) ? elf_rawdata(scn, NULL) : NULL;
    Elf64_Chdr ch;
    if (!d || !d->d_buf || sh.sh_type == SHT_NOBITS)
        return -1;
    r->compressed = (sh.sh_flags & SHF_COMPRESSED) != 0;
    r->z = d->d_buf;
    r->zlen = r->size = d->d_size;
    if (!r->compressed)
        return 0;
    if (d->d_size < sizeof ch)
        return -1;
    memcpy(&ch, d->d_buf, sizeof ch);
    if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > (1ull << 32))
        return -1;
    r->z += sizeof ch;
    r->zlen -= sizeof ch;
    r->size = ch.ch_size;
    return 0;
}

/* r's bytes into out (r->size bytes): 0 or -1. */
static int section_copy(const raw_sec *r, uint8_t *out)
{
    if (r->compressed)
        return inflate_whole(r->z, r->zlen, out, r->size);
    memcpy(out, r->z, r->size);
    return 0;
}

/* A section's bytes, inflated when compressed (zlib only): malloc'd. */
static uint8_t *section_bytes(Elf_Scn *scn, size_t *len)
{
    raw_sec r;
    if (section_raw(scn, &r) < 0)
        return NULL;
    uint8_t *b = malloc(r.size ? r.size : 1);
    if (b && section_copy(&r, b) < 0) {
        free(b);
        return NULL;
    }
    *len = r.size;
    return b;
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

static int parse_aranges(sym_dwpart *p, const uint8_t *a, size_t len)
{
    size_t cap = 0;
    for (size_t off = 0; off < len;) {
        uint64_t cu;
        size_t hdr;
        unsigned asz;
        size_t sz = aranges_set(a, len, off, &cu, &hdr, &asz);
        if (!sz)
            return -1;
        for (size_t t = off + hdr; t + 16 <= off + sz; t += 16) {
            uint64_t lo = rd(a + t, 8), n = rd(a + t + 8, 8);
            if (lo == 0 && n == 0)
                break;
            if (n == 0 || lo + n < lo)
                continue;
            if (array_reserve(&p->ar, &cap, p->nar + 1, sizeof *p->ar, 256) < 0)
                return -1;
            p->ar[p->nar++] = (arange){ lo, lo + n, cu };
        }
        off += sz;
    }
    /* by lo, stably: the order glibc's qsort (a merge sort) gave the
     * entries of earlier versions of the cache */
    return p->nar && sym_sort_by_key(p->ar, p->nar, sizeof *p->ar) == 0 ? 0 : -1;
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

static int zsec_open(zsec *z, Elf_Scn *scn)
{
    raw_sec r;
    if (section_raw(scn, &r) < 0 || !(z->buf = malloc(r.size ? r.size : 1)))
        return -1;
    z->total = r.size;
    if (!r.compressed) { /* stored as it is: all there */
        memcpy(z->buf, r.z, r.size);
        z->len = r.size;
        z->end = 1;
        return 0;
    }
    tr_advise_huge(z->buf, r.size); /* libc's 5.8 MB: 3 faults instead of 1,400 */
    z->zin = r.z;
    z->zin_len = r.zlen;
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
    const void *data; /* NULL: zeros; LATER: the caller fills them in */
    size_t size;
} view_sec;
static const char later_mark;
#define LATER ((const void *)&later_mark)

/* Make (elf, dw) the view, dropping the previous one; image (malloc'd)
 * or fd (a cache file) is what elf reads. */
static void set_view(sym_dwpart *p, uint8_t *image, int fd, Elf *elf, Dwarf *dw, size_t covers)
{
    if (p->dw)
        dwarf_end(p->dw);
    if (p->velf)
        elf_end(p->velf);
    free(p->image);
    if (p->view_fd >= 0)
        close(p->view_fd);
    p->image = image;
    p->view_fd = fd;
    p->velf = elf;
    p->dw = dw;
    p->covers = covers;
    p->vinfo = p->vsums = NULL;
    p->checked = 0;
    p->unsaved = 0;
}

/* Where the parts of an ELF image of sections sec[0..ns) go: header,
 * section data, .shstrtab, section headers. */
typedef struct image_layout {
    size_t ns, total, shoff, shlen;
    size_t off[NKEPT + 6];      /* of each section's data, then of .shstrtab */
    size_t name_off[NKEPT + 6]; /* in shstr */
    char shstr[256];
    unsigned char ident[EI_NIDENT];
    Elf64_Half type, machine;   /* the debug file's */
} image_layout;

static void image_lay_out(const sym_dwpart *p, const view_sec *sec, size_t ns, image_layout *l)
{
    l->ns = ns;
    l->shlen = 1;
    l->shstr[0] = '\0';
    for (size_t i = 0; i <= ns; i++) {
        const char *name = i < ns ? sec[i].name : ".shstrtab";
        size_t len = strlen(name) + 1;
        l->name_off[i] = l->shlen;
        memcpy(l->shstr + l->shlen, name, len);
        l->shlen += len;
    }
    size_t off = sizeof(Elf64_Ehdr);
    for (size_t i = 0; i < ns; i++) {
        off = (off + 7) & ~(size_t)7;
        l->off[i] = off;
        off += sec[i].size;
    }
    l->off[ns] = off;
    off += l->shlen;
    l->shoff = (off + 7) & ~(size_t)7;
    l->total = l->shoff + (ns + 2) * sizeof(Elf64_Shdr);
    GElf_Ehdr oe;
    gelf_getehdr(p->elf, &oe);
    memcpy(l->ident, oe.e_ident, EI_NIDENT);
    l->type = (Elf64_Half)oe.e_type;
    l->machine = (Elf64_Half)oe.e_machine;
}

/* Write the image laid out as l (l->total bytes at img): all but the LATER
 * sections' data. */
static void image_fill(uint8_t *img, const view_sec *sec, const image_layout *l)
{
    size_t ns = l->ns;
    memset(img, 0, l->off[0]);
    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, l->ident, EI_NIDENT);
    eh.e_type = l->type;
    eh.e_machine = l->machine;
    eh.e_version = EV_CURRENT;
    eh.e_ehsize = sizeof eh;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shoff = l->shoff;
    eh.e_shnum = (Elf64_Half)(ns + 2);
    eh.e_shstrndx = (Elf64_Half)(ns + 1);
    memcpy(img, &eh, sizeof eh);
    Elf64_Shdr *sh = (Elf64_Shdr *)(img + l->shoff);
    for (size_t i = 0; i < ns; i++) {
        size_t end = l->off[i] + sec[i].size;
        if (sec[i].data != LATER) {
            if (sec[i].data)
                memcpy(img + l->off[i], sec[i].data, sec[i].size);
            else
                memset(img + l->off[i], 0, sec[i].size);
        }
        memset(img + end, 0, l->off[i + 1] - end); /* the padding to the next */
        sh[i + 1] = (Elf64_Shdr){ .sh_name = (Elf64_Word)l->name_off[i], .sh_type = SHT_PROGBITS,
                                  .sh_offset = l->off[i], .sh_size = sec[i].size,
                                  .sh_addralign = 1 };
    }
    memcpy(img + l->off[ns], l->shstr, l->shlen);
    memset(img + l->off[ns] + l->shlen, 0, l->shoff - l->off[ns] - l->shlen);
    memset(sh, 0, sizeof *sh); /* the null section */
    sh[ns + 1] = (Elf64_Shdr){ .sh_name = (Elf64_Word)l->name_off[ns], .sh_type = SHT_STRTAB,
                               .sh_offset = l->off[ns], .sh_size = l->shlen, .sh_addralign = 1 };
}

/* Room for an image of l->total bytes (malloc'd), on huge pages where the
 * system has them.  Not calloc: a whole view is megabytes the inflating
 * thread fills in, and zeroing them first faulted them in on the main
 * thread. */
static uint8_t *image_alloc(const image_layout *l)
{
    uint8_t *img = malloc(l->total);
    if (img)
        tr_advise_huge(img, l->total);
    return img;
}

/* An ELF image of sections sec[0..ns) (malloc'd, *size bytes; data_off:
 * where each section's data is). */
static uint8_t *elf_image(const sym_dwpart *p, const view_sec *sec, size_t ns, size_t *size,
                          size_t *data_off)
{
    image_layout l;
    image_lay_out(p, sec, ns, &l);
    uint8_t *img = image_alloc(&l);
    if (!img)
        return NULL;
    image_fill(img, sec, &l);
    memcpy(data_off, l.off, (ns + 1) * sizeof *data_off);
    *size = l.total;
    return img;
}

/* The first sections of a view (its kept sections follow): the header
 * and the checksums are filled in by seal_view, LATER data by the caller. */
static size_t view_head(const sym_dwpart *p, view_sec *sec, const void *info, size_t covers,
                        const void *abbrev, size_t abbrev_len)
{
    sec[0] = (view_sec){ ".tr_cache", NULL, sizeof(cache_hdr) };
    sec[1] = (view_sec){ ".debug_info", info, covers };
    sec[2] = (view_sec){ ".tr_sums", NULL, nchunks(covers) * 8 };
    sec[3] = (view_sec){ ".debug_abbrev", abbrev, abbrev_len };
    sec[4] = (view_sec){ ".tr_aranges", p->ar, p->nar * sizeof *p->ar };
    return 5;
}

/* Write the checksums and the header of a view image (total bytes, its
 * sections at off as view_head lays them out), for the cache. */
static void seal_view(const sym_dwpart *p, uint8_t *img, size_t total, const size_t *off,
                      size_t covers)
{
    cache_hdr h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CACHE_MAGIC, sizeof h.magic);
    h.version = CACHE_VERSION;
    h.build_id_len = (uint32_t)p->build_id_len;
    memcpy(h.build_id, p->build_id, p->build_id_len);
    h.info_total = p->info_total;
    h.covers = covers;
    h.size = total;
    if (p->cache_dir) {
        for (size_t i = 0; i < nchunks(covers); i++) {
            uint64_t sum = chunk_checksum(img + off[1], covers, i);
            memcpy(img + off[2] + 8 * i, &sum, 8);
        }
        image_parts ip = { .hdr = off[0], .info = off[1], .info_size = covers };
        h.checksum = rest_checksum(img, total, &ip);
    }
    memcpy(img + off[0], &h, sizeof h);
}

/* Make the image (total bytes at img, covering units [0, covers)) the
 * view: 0, or -1 (img untouched). */
static int use_image(sym_dwpart *p, uint8_t *img, size_t total, size_t covers, int owned)
{
    Elf *e = elf_memory((char *)img, total);
    Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
    if (!dw) {
        if (e)
            elf_end(e);
        return -1;
    }
    set_view(p, owned ? img : NULL, -1, e, dw, covers);
    p->image_size = total;
    return 0;
}

/* The view libdw reads: the .debug_info prefix of whole units, the
 * abbreviations they use, the kept sections, and for the cache the
 * checksums, the address -> unit table and the header.  Written to the
 * cache when the session ends. */
static int build_view(sym_dwpart *p)
{
    view_sec sec[NKEPT + 5];
    size_t ns = view_head(p, sec, p->info.buf, p->complete, p->abbrev.buf, p->abbrev_need);
    size_t total, data_off[NKEPT + 6];
    for (size_t i = 0; i < p->nkept; i++)
        sec[ns++] = (view_sec){ p->kept[i].name, p->kept[i].data, p->kept[i].size };
    uint8_t *img = elf_image(p, sec, ns, &total, data_off);
    if (!img)
        return -1;
    seal_view(p, img, total, data_off, p->complete);
    if (use_image(p, img, total, p->complete, 1) < 0) {
        free(img);
        return -1;
    }
    p->unsaved = p->cache_dir != NULL;
    return 0;
}

/* Copy the sections of the whole view other than .debug_info that no
 * thread has claimed yet, one at a time. */
static void whole_copy_sections(struct whole *w)
{
    for (;;) {
        pthread_mutex_lock(&w->mu);
        size_t i = w->claimed < w->nsecs ? w->claimed++ : SIZE_MAX;
        pthread_mutex_unlock(&w->mu);
        if (i == SIZE_MAX)
            return;
        int ok = i == 0 ? section_copy(&w->abbrev, w->img + w->off[3]) == 0
                        : section_copy(&w->kept[i - 1], w->img + w->off[5 + i - 1]) == 0;
        pthread_mutex_lock(&w->mu);
        w->copied++;
        w->failed |= !ok;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
    }
}

/* The whole view's thread: .debug_info inflated into the image, then the
 * other sections not claimed by the main thread yet; once the main thread
 * has taken the image (the verdict), the image sealed and written to the
 * cache. */
/* The whole view's sections and layout: the main thread lays the image
 * out, its thread writes the headers (faulting in the pages they are on:
 * milliseconds for a fresh image on this VM's memory) before inflating. */
struct whole_layout {
    view_sec sec[NKEPT + 5];
    image_layout lay;
};

static void *whole_thread(void *arg)
{
    sym_dwpart *p = arg;
    struct whole *w = &p->whole;
    image_fill(w->img, w->layout->sec, &w->layout->lay);
    free(w->layout); /* the main thread uses only w->off and w->size */
    w->layout = NULL;
    int ok = section_copy(&w->info, w->img + w->off[1]) == 0;
    whole_copy_sections(w);
    pthread_mutex_lock(&w->mu);
    while (w->copied < w->nsecs)
        pthread_cond_wait(&w->cv, &w->mu);
    w->state = ok && !w->failed ? 1 : -1;
    pthread_cond_broadcast(&w->cv);
    while (!w->verdict)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
    /* libdw reads the DWARF sections from here on, never the header and
     * the checksums: the entry is sealed and written beside it */
    if (w->state > 0 && w->verdict > 0 && p->cache_dir) {
        seal_view(p, w->img, w->size, w->off, p->info_total);
        sym_cache_write(p->cache_dir, "dwarf", p->cache_name, w->img, w->size);
    }
    return NULL;
}

/* Start making the view of all of .debug_info (see the top): its
 * thread inflates the sections into the image laid out here. */
static void whole_start(sym_dwpart *p)
{
    struct whole *w = &p->whole;
    size_t ns;
    w->tried = 1;
    if (section_raw(p->info_scn, &w->info) < 0 || w->info.size != p->info_total ||
        section_raw(p->abbrev_scn, &w->abbrev) < 0)
        return;
    struct whole_layout *l = malloc(sizeof *l);
    if (!l)
        return;
    view_sec *sec = l->sec;
    ns = view_head(p, sec, LATER, p->info_total, LATER, w->abbrev.size);
    for (size_t i = 0; i < NKEPT; i++) {
        if (!p->kept_scn[i])
            continue;
        if (section_raw(p->kept_scn[i], &w->kept[w->nkept]) < 0) {
            free(l);
            return;
        }
        sec[ns++] = (view_sec){ kept_names[i], LATER, w->kept[w->nkept++].size };
    }
    w->nsecs = 1 + w->nkept;
    image_lay_out(p, sec, ns, &l->lay);
    if (!(w->img = image_alloc(&l->lay))) {
        free(l);
        return;
    }
    w->size = l->lay.total;
    memcpy(w->off, l->lay.off, (ns + 1) * sizeof *w->off);
    w->layout = l;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->tid, NULL, whole_thread, p) == 0)
        w->started = 1;
    else {
        free(l);
        w->layout = NULL;
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
    }
}

/* Tell the thread whether its image is used (1) or not (-1). */
static void whole_verdict(struct whole *w, int v)
{
    pthread_mutex_lock(&w->mu);
    w->verdict = v;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* The sections the thread has not come to yet, then the view once the
 * thread has inflated the rest: 0, or -1 (then views are grown as far as
 * needed on this thread). */
static int whole_finish(sym_dwpart *p)
{
    struct whole *w = &p->whole;
    whole_copy_sections(w);
    pthread_mutex_lock(&w->mu);
    for (int more = w->work != NULL; !w->state;) {
        if (!more) {
            pthread_cond_wait(&w->cv, &w->mu);
            continue;
        }
        pthread_mutex_unlock(&w->mu);
        more = w->work(w->work_ctx);
        pthread_mutex_lock(&w->mu);
    }
    int ok = w->state > 0;
    pthread_mutex_unlock(&w->mu);
    whole_verdict(w, ok ? 1 : -1);
    /* the image stays the thread's (it may be writing it) until freed */
    return ok ? use_image(p, w->img, w->size, p->info_total, 0) : -1;
}

/* Check a cache file's image (size bytes at raw, read by e), all but its
 * .debug_info: 0 with where its parts are, or -1. */
static int check_cache(const sym_dwpart *p, Elf *e, const uint8_t *raw, size_t size,
                       image_parts *ip)
{
    GElf_Ehdr eh;
    size_t shstrndx, sums_size = 0;
    int nhdr = 0, ninfo = 0, nsums = 0, nar = 0;
    cache_hdr h;
    if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || elf_getshdrstrndx(e, &shstrndx) != 0)
        return -1;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
        GElf_Shdr sh;
        const char *name;
        if (!gelf_getshdr(scn, &sh) || sh.sh_flags != 0 ||
            (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_STRTAB) || sh.sh_offset > size ||
            sh.sh_size > size - sh.sh_offset || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
            return -1;
        if (strcmp(name, ".tr_cache") == 0) {
            if (nhdr++ || sh.sh_size != sizeof h)
                return -1;
            memcpy(&h, raw + sh.sh_offset, sizeof h);
            ip->hdr = sh.sh_offset;
        } else if (strcmp(name, ".debug_info") == 0) {
            if (ninfo++)
                return -1;
            ip->info = sh.sh_offset;
            ip->info_size = sh.sh_size;
        } else if (strcmp(name, ".tr_sums") == 0) {
            if (nsums++)
                return -1;
            ip->sums = sh.sh_offset;
            sums_size = sh.sh_size;
        } else if (strcmp(name, ".tr_aranges") == 0) {
            if (nar++)
                return -1;
            ip->ar = sh.sh_offset;
            ip->ar_size = sh.sh_size;
        }
    }
    if (nhdr != 1 || ninfo != 1 || nsums != 1 || nar != 1 ||
        memcmp(h.magic, CACHE_MAGIC, sizeof h.magic) != 0 || h.version != CACHE_VERSION ||
        h.build_id_len != p->build_id_len || memcmp(h.build_id, p->build_id, sizeof h.build_id) != 0 ||
        h.info_total != p->info_total || h.covers != ip->info_size || h.covers > h.info_total ||
        h.size != size || ip->hdr + sizeof h > ip->info || sums_size != nchunks(ip->info_size) * 8)
        return -1;
    return rest_checksum(raw, size, ip) == h.checksum ? 0 : -1;
}

/* A cached view is checked as libdw comes to read it: before it reads the
 * unit at cu, .debug_info up to the end of that unit (libdw reads the
 * units before it too), a chunk at a time.  0, or -1 when damaged. */
static int check_prefix(sym_dwpart *p, uint64_t cu)
{
    const uint8_t *b = p->vinfo;
    size_t size = p->covers, lsz = 4;
    if (!b)
        return 0;
    if (size - cu < 4)
        return -1;
    uint64_t len = rd(b + cu, 4);
    if (len == 0xffffffffu) {
        if (size - cu < 12)
            return -1;
        len = rd(b + cu + 4, 8);
        lsz = 12;
    }
    if (len > size - cu - lsz)
        return -1;
    /* the length read is inside what is checked, so a damaged one shows */
    for (size_t end = cu + lsz + (size_t)len; p->checked < end;) {
        size_t i = p->checked / CHUNK;
        if (chunk_checksum(b, size, i) != rd(p->vsums + 8 * i, 8))
            return -1;
        p->checked = size - i * (size_t)CHUNK < CHUNK ? size : (i + 1) * (size_t)CHUNK;
    }
    return 0;
}

/* The table of a cache file (len bytes at a) into p->ar: 0, or -1 when it
 * is not one parse_aranges makes. */
static int load_aranges(sym_dwpart *p, const uint8_t *a, size_t len)
{
    size_t n = len / sizeof *p->ar;
    if (n == 0 || len % sizeof *p->ar || !(p->ar = malloc(len)))
        return -1;
    memcpy(p->ar, a, len);
    p->nar = n;
    for (size_t i = 0; i < n; i++)
        if (p->ar[i].lo >= p->ar[i].hi || (i && p->ar[i].lo < p->ar[i - 1].lo))
            return -1;
    return 0;
}

/* Use the cached view of this debug file, mapped, when there is a good
 * one: 0 (with the address -> unit table from it), or -1. */
static int load_cache(sym_dwpart *p)
{
    int fd = sym_cache_open(p->cache_dir, "dwarf", p->cache_name);
    struct stat st;
    Elf *e = NULL;
    Dwarf *dw = NULL;
    const uint8_t *raw;
    size_t size = 0;
    image_parts ip;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr) ||
        !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) || !(raw = (const uint8_t *)elf_rawfile(e, &size)) ||
        size != (size_t)st.st_size || check_cache(p, e, raw, size, &ip) < 0 ||
        load_aranges(p, raw + ip.ar, ip.ar_size) < 0 || !(dw = dwarf_begin_elf(e, DWARF_C_READ, NULL)))
        goto fail;
    set_view(p, NULL, fd, e, dw, ip.info_size);
    p->vinfo = raw + ip.info;
    p->vsums = raw + ip.sums;
    return 0;
fail:
    free(p->ar);
    p->ar = NULL;
    p->nar = 0;
    if (e)
        elf_end(e);
    close(fd);
    return -1;
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

/* Find the sections a view is made of, inflating none: 0, or -1 when the
 * file does not suit. */
static int find_sections(sym_dwpart *p)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(p->elf, &shstrndx) != 0)
        return -1;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(p->elf, scn)) != NULL;) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            return -1;
        const char *name = elf_strptr(p->elf, shstrndx, sh.sh_name);
        if (!name || sh.sh_type == SHT_NOBITS)
            continue;
        if (strcmp(name, ".gnu_debugaltlink") == 0 || strcmp(name, ".debug_types") == 0 ||
            strcmp(name, ".debug_info.dwo") == 0)
            return -1; /* units elsewhere: leave it to libdw */
        Elf_Scn **slot = NULL;
        if (strcmp(name, ".debug_info") == 0)
            slot = &p->info_scn;
        else if (strcmp(name, ".debug_abbrev") == 0)
            slot = &p->abbrev_scn;
        else if (strcmp(name, ".debug_aranges") == 0)
            slot = &p->aranges_scn;
        for (size_t i = 0; i < NKEPT && !slot; i++)
            if (strcmp(name, kept_names[i]) == 0)
                slot = &p->kept_scn[i];
        if (slot && *slot)
            return -1; /* twice */
        if (slot)
            *slot = scn;
    }
    /* .debug_info not compressed: libdw maps it at no cost, nothing to gain */
    raw_sec r;
    if (!p->info_scn || !p->abbrev_scn || !p->aranges_scn || section_raw(p->info_scn, &r) < 0 ||
        !r.compressed)
        return -1;
    p->info_total = r.size;
    return 0;
}

/* Set up inflating the debug file's sections, once: 0 or -1. */
static int cold_init(sym_dwpart *p)
{
    if (p->cold)
        return p->cold > 0 ? 0 : -1;
    p->cold = -1;
    if (zsec_open(&p->info, p->info_scn) < 0 || p->info.total != p->info_total ||
        zsec_open(&p->abbrev, p->abbrev_scn) < 0)
        return -1;
    for (size_t i = 0; i < NKEPT; i++) {
        if (!p->kept_scn[i])
            continue;
        size_t len = 0;
        uint8_t *b = section_bytes(p->kept_scn[i], &len);
        if (!b)
            return -1;
        p->kept[p->nkept].name = kept_names[i];
        p->kept[p->nkept].data = b;
        p->kept[p->nkept++].size = len;
    }
    p->cold = 1;
    return 0;
}

sym_dwpart *sym_dwpart_open(const char *path, const sym_symfile *f, const char *cache_dir)
{
    sym_dwpart *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->view_fd = -1;
    p->fd = open(path, O_RDONLY | O_CLOEXEC);
    p->elf = p->fd >= 0 ? elf_begin(p->fd, ELF_C_READ_MMAP, NULL) : NULL;
    GElf_Ehdr eh;
    if (!p->elf || elf_kind(p->elf) != ELF_K_ELF || !gelf_getehdr(p->elf, &eh) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        BYTE_ORDER != LITTLE_ENDIAN || (f && !load_addrs_match(p->elf, f)) || find_sections(p) < 0)
        goto fail;
    const void *bid;
    ssize_t n = dwelf_elf_gnu_build_id(p->elf, &bid);
    if (cache_dir && n > 0 && n <= (ssize_t)sizeof p->build_id) {
        static const char hx[] = "0123456789abcdef";
        p->build_id_len = (size_t)n;
        memcpy(p->build_id, bid, p->build_id_len);
        for (size_t i = 0; i < p->build_id_len; i++) {
            p->cache_name[2 * i] = hx[p->build_id[i] >> 4];
            p->cache_name[2 * i + 1] = hx[p->build_id[i] & 15];
        }
        strcpy(p->cache_name + 2 * p->build_id_len, ".debug");
        p->cache_dir = cache_dir;
    }
    if (f && p->cache_dir && load_cache(p) == 0)
        return p;
    size_t len = 0;
    uint8_t *a = section_bytes(p->aranges_scn, &len);
    int rc = a ? parse_aranges(p, a, len) : -1;
    free(a);
    if (rc < 0)
        goto fail;
    /* no entry: an address of the file is being resolved, and its symbol
     * is looked up before its unit is needed */
    whole_start(p);
    if (!f && !p->whole.started)
        goto fail;
    return p;
fail:
    sym_dwpart_free(p);
    return NULL;
}

sym_dwpart *sym_dwpart_adopt(sym_dwpart *p, const sym_symfile *f)
{
    if (load_addrs_match(p->elf, f))
        return p;
    sym_dwpart_free(p);
    return NULL;
}

/* Inflate .debug_info past the unit at cu (and past what the view holds)
 * and build a view of it: 0 or -1. */
static int grow_view(sym_dwpart *p, uint64_t cu)
{
    if (!p->whole.tried)
        whole_start(p);
    if (p->whole.started && !p->whole.verdict && whole_finish(p) == 0)
        return 0;
    if (cold_init(p) < 0)
        return -1;
    /* at least double the view, so that views are rebuilt rarely, and
     * past the unit's start at once (zsec_to then chooses how) */
    size_t have = p->info.len > p->covers ? p->info.len : p->covers;
    size_t want = have * 2 > 65536 ? have * 2 : 65536;
    if (want < cu + 65536)
        want = cu + 65536;
    while ((cu >= p->complete || p->complete < p->covers) && p->info.len < p->info.total) {
        if (zsec_to(&p->info, want) < 0)
            return -1;
        advance_complete(p);
        want = p->info.len + 65536;
    }
    if (cu >= p->complete || cover_abbrevs(p) < 0)
        return -1;
    return build_view(p);
}

int sym_dwpart_addrdie(sym_dwpart *p, uint64_t vaddr, Dwarf_Die *cu)
{
    const arange *a = find_arange(p, vaddr);
    if (!a || a->cu >= p->info_total)
        return -1;
    if (a->cu < p->covers && check_prefix(p, a->cu) < 0)
        set_view(p, NULL, -1, NULL, NULL, 0); /* a damaged cache file: built again */
    if (a->cu >= p->covers && grow_view(p, a->cu) < 0)
        return -1;
    /* the unit .debug_aranges names, whatever the view holds besides */
    Dwarf_Off next;
    size_t hsize;
    if (dwarf_next_unit(p->dw, a->cu, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) != 0)
        return -1;
    return dwarf_offdie(p->dw, a->cu + hsize, cu) ? 0 : -1;
}

int sym_dwpart_waits(sym_dwpart *p, uint64_t vaddr)
{
    const arange *a = find_arange(p, vaddr);
    if (!a || a->cu >= p->info_total || a->cu < p->covers)
        return 0;
    struct whole *w = &p->whole;
    if (!w->started || w->verdict)
        return 1; /* inflated here */
    pthread_mutex_lock(&w->mu);
    int ready = w->state != 0;
    pthread_mutex_unlock(&w->mu);
    return !ready;
}

void sym_dwpart_on_wait(sym_dwpart *p, int (*work)(void *ctx), void *ctx)
{
    p->whole.work = work;
    p->whole.work_ctx = ctx;
}

void sym_dwpart_free(sym_dwpart *p)
{
    if (!p)
        return;
    if (p->whole.started) {
        if (!p->whole.verdict) /* never needed */
            whole_verdict(&p->whole, -1);
        pthread_join(p->whole.tid, NULL);
        pthread_mutex_destroy(&p->whole.mu);
        pthread_cond_destroy(&p->whole.cv);
    }
    if (p->unsaved && p->image) /* the last view built: it holds every unit used */
        sym_cache_write(p->cache_dir, "dwarf", p->cache_name, p->image, p->image_size);
    set_view(p, NULL, -1, NULL, NULL, 0);
    free(p->whole.img);
    zsec_free(&p->info);
    zsec_free(&p->abbrev);
    free(p->ar);
    for (size_t i = 0; i < p->nkept; i++)
        free(p->kept[i].data);
    if (p->elf)
        elf_end(p->elf);
    if (p->fd >= 0)
        close(p->fd);
    free(p);
}
