/*
 * symfile.c - find the binary behind a mapping by build-id and resolve
 * addresses in it (symbol table, DWARF inline scopes, line table).
 *
 * Order of the search (the first file whose build-id matches wins; a file
 * whose build-id differs is never used):
 *   SYMFS/PATH, PATH, DIR/.build-id/xx/rest and .../rest.debug for each
 *   debug dir (then /usr/lib/debug), the trace's archive (tr-archive's
 *   build-id blobs), debuginfod (DEBUGINFOD_URLS), and for [vdso] this
 *   machine's vDSO image.
 * Separate debug info (.gnu_debuglink, build-id trees) is libdwfl's
 * standard search over the same directories.
 */
#include <dlfcn.h>
#include <dwarf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>

#include "sym_int.h"

void sym_hexstr(char *out, const uint8_t *b, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hx[b[i] >> 4];
        out[2 * i + 1] = hx[b[i] & 15];
    }
    out[2 * n] = '\0';
}

/* An open candidate file. */
typedef struct cand {
    int fd;
    Elf *elf;
    const void *bid;
    ssize_t bid_len;
} cand;

static void cand_close(cand *c)
{
    if (c->elf)
        elf_end(c->elf);
    if (c->fd >= 0)
        close(c->fd);
    c->elf = NULL;
    c->fd = -1;
}

static int cand_open_fd(cand *c, int fd)
{
    c->fd = fd;
    c->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!c->elf || elf_kind(c->elf) != ELF_K_ELF) {
        cand_close(c);
        return -1;
    }
    c->bid_len = dwelf_elf_gnu_build_id(c->elf, &c->bid);
    return 0;
}

/* 1: use it; 0: not there or unusable; -1: build-id mismatch (noted). */
static int try_file(sym_session *s, sym_symfile *f, const char *path, cand *c, char *why,
                    size_t whylen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    if (cand_open_fd(c, fd) < 0) {
        if (!why[0])
            snprintf(why, whylen, "%s is not an ELF file", path);
        return 0;
    }
    (void)s;
    if (f->build_id_len == 0)
        return 1;
    if (c->bid_len == (ssize_t)f->build_id_len && memcmp(c->bid, f->build_id, f->build_id_len) == 0)
        return 1;
    char have[129] = "none";
    if (c->bid_len > 0 && c->bid_len <= 64)
        sym_hexstr(have, c->bid, (size_t)c->bid_len);
    snprintf(why, whylen, "build-id mismatch: %s has %s", path, have);
    cand_close(c);
    return -1;
}

/* debuginfod_find_executable through libdebuginfod, loaded at run time. */
static int debuginfod_executable(const sym_symfile *f, char **path)
{
    typedef void *(*begin_fn)(void);
    typedef int (*find_fn)(void *, const unsigned char *, int, char **);
    typedef void (*end_fn)(void *);
    static void *h;
    static int tried;
    if (!tried) {
        tried = 1;
        h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL);
    }
    if (!h)
        return -1;
    begin_fn begin = (begin_fn)(uintptr_t)dlsym(h, "debuginfod_begin");
    find_fn find = (find_fn)(uintptr_t)dlsym(h, "debuginfod_find_executable");
    end_fn end = (end_fn)(uintptr_t)dlsym(h, "debuginfod_end");
    if (!begin || !find || !end)
        return -1;
    void *client = begin();
    if (!client)
        return -1;
    int fd = find(client, f->build_id, (int)f->build_id_len, path);
    end(client);
    return fd;
}

int sym_memfd(const void *img, size_t size)
{
    int fd = memfd_create("tr-image", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (write(fd, img, size) != (ssize_t)size) {
        close(fd);
        return -1;
    }
    return fd;
}

/* This machine's vDSO image, or NULL. */
static const void *own_vdso(size_t *size)
{
    const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    if (!img || memcmp(img, ELFMAG, SELFMAG) != 0 || img[EI_CLASS] != ELFCLASS64)
        return NULL;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    *size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    if (*size < sizeof *eh || *size > (1u << 24))
        return NULL;
    return img;
}

static int try_image(sym_symfile *f, const void *img, size_t size, cand *c)
{
    int fd = img ? sym_memfd(img, size) : -1;
    if (fd < 0 || cand_open_fd(c, fd) < 0)
        return 0;
    if (f->build_id_len == 0 ||
        (c->bid_len == (ssize_t)f->build_id_len && memcmp(c->bid, f->build_id, f->build_id_len) == 0))
        return 1;
    cand_close(c);
    return -1;
}

static int find_binary(sym_session *s, sym_symfile *f, cand *c, char *why, size_t whylen,
                       char **found)
{
    char buf[4096];
    const char *path = f->path;
    int r;
    size_t plen = strlen(path);
    char *clean = strndup(path, plen);
    if (!clean)
        return TR_E_NOMEM;
    if (plen > 10 && strcmp(clean + plen - 10, " (deleted)") == 0)
        clean[plen - 10] = '\0';
    *found = NULL;
    int is_file = clean[0] == '/';

    if (is_file && s->opt.symfs) {
        snprintf(buf, sizeof buf, "%s%s", s->opt.symfs, clean);
        if ((r = try_file(s, f, buf, c, why, whylen)) == 1)
            goto ok;
    }
    if (is_file && (r = try_file(s, f, clean, c, why, whylen)) == 1) {
        snprintf(buf, sizeof buf, "%s", clean);
        goto ok;
    }
    if (f->build_id_len) {
        char hex[129];
        sym_hexstr(hex, f->build_id, f->build_id_len);
        static const char *const suffix[] = { "", ".debug" };
        for (const char *const *d = s->opt.debug_dirs; d && *d; d++)
            for (int k = 0; k < 2; k++) {
                snprintf(buf, sizeof buf, "%s/.build-id/%.2s/%s%s", *d, hex, hex + 2, suffix[k]);
                if ((r = try_file(s, f, buf, c, why, whylen)) == 1)
                    goto ok;
            }
        /* /usr/lib/debug under the symfs root, then this machine's: the
         * build-id check makes either safe */
        for (int root = s->opt.symfs ? 0 : 1; root < 2 && !s->opt.no_default_debug_dir; root++)
            for (int k = 0; k < 2; k++) {
                snprintf(buf, sizeof buf, "%s/usr/lib/debug/.build-id/%.2s/%s%s",
                         root == 0 ? s->opt.symfs : "", hex, hex + 2, suffix[k]);
                if ((r = try_file(s, f, buf, c, why, whylen)) == 1)
                    goto ok;
            }
        /* an archive in the trace (tr-archive) */
        size_t alen;
        const void *img = sym_archived(s, hex, &alen);
        if (img && try_image(f, img, alen, c) == 1) {
            snprintf(buf, sizeof buf, "the trace's archive");
            goto ok;
        }
        if (s->opt.debuginfod && getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS")) {
            char *p = NULL;
            int fd = debuginfod_executable(f, &p);
            if (fd >= 0 && cand_open_fd(c, fd) == 0) { /* cand_open_fd closes fd on failure */
                snprintf(buf, sizeof buf, "%s", p ? p : "debuginfod");
                free(p);
                goto ok;
            }
            free(p);
        }
    }
    if (strcmp(clean, "[vdso]") == 0) {
        size_t size = 0;
        const void *img;
        /* this machine's vDSO when its build-id is the recorded one (the
         * same image), else the trace's, which may come later in it */
        if (!s->vdso && f->build_id_len && (img = own_vdso(&size)) &&
            try_image(f, img, size, c) == 1) {
            snprintf(buf, sizeof buf, "vDSO of this machine");
            goto ok;
        }
        if (!s->vdso)
            sym_need_prescan(s);
        if ((r = try_image(f, s->vdso, s->vdso_len, c)) == 1) {
            snprintf(buf, sizeof buf, "vDSO image in the trace");
            goto ok;
        }
        if (r < 0)
            snprintf(why, whylen, "build-id mismatch: the trace's vDSO image has another build-id");
        if ((img = own_vdso(&size)) && (r = try_image(f, img, size, c)) == 1) {
            snprintf(buf, sizeof buf, "vDSO of this machine");
            goto ok;
        }
        if (r < 0 && !why[0])
            snprintf(why, whylen, "build-id mismatch: this machine's vDSO has another build-id");
    }
    free(clean);
    return 0;
ok:
    free(clean);
    *found = strdup(buf);
    return *found ? 1 : TR_E_NOMEM;
}

static void read_segments(sym_symfile *f, Elf *elf)
{
    GElf_Ehdr eh;
    size_t n = 0;
    if (gelf_getehdr(elf, &eh))
        f->is_exec = eh.e_type == ET_EXEC;
    if (elf_getphdrnum(elf, &n) != 0)
        return;
    for (size_t i = 0; i < n && f->nseg < sizeof f->seg / sizeof f->seg[0]; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
            f->seg[f->nseg].off = ph.p_offset;
            f->seg[f->nseg].vaddr = ph.p_vaddr;
            f->seg[f->nseg].filesz = ph.p_filesz;
            f->nseg++;
        }
    }
}

uint64_t sym_symfile_vaddr(const sym_symfile *f, uint64_t off)
{
    for (size_t i = 0; i < f->nseg; i++)
        if (off >= f->seg[i].off && off - f->seg[i].off < f->seg[i].filesz)
            return off - f->seg[i].off + f->seg[i].vaddr;
    /* not inside a segment's file bytes: assume the first mapping's rule */
    if (f->nseg)
        return off - f->seg[0].off + f->seg[0].vaddr;
    return off;
}

int sym_symfile_read(sym_symfile *f, uint64_t off, uint64_t *val)
{
    if (f->fd < 0)
        return -1;
    return pread(f->fd, val, sizeof *val, (off_t)off) == (ssize_t)sizeof *val ? 0 : -1;
}

static Dwarf *module_dwarf(sym_symfile *f)
{
    Dwarf_Addr bias;
    Dwarf *dw = f->mod ? dwfl_module_getdwarf(f->mod, &bias) : NULL;
    f->dwarf_tried = 1;
    f->has_dwarf = dw != NULL;
    return dw;
}

/* ---- debug files opened ahead ----
 *
 * A module's first address needs its DWARF at once: with no cache entry,
 * that is inflating all of its debug file's .debug_info (libc's 5.8 MB),
 * and the run waits for it.  So a module a stream is mapped with before
 * its first sample (the processes a recording attached to) starts the
 * inflating of its separate debug file, found by build-id as libdw finds
 * it (the mapping's, else the file's), beside everything the run does
 * until its first address there; modules mapped together (libc and
 * ld.so) inflate at once.  The prescan finds those mappings in the start
 * of each stream's first chunk (session.c), before it decompresses the
 * rest of the trace; the reader's records find them again (no second
 * opening) when there was no prescan.  Mappings made later (new processes, dlopen)
 * are opened when first sampled, as before: many are never sampled (cxx
 * maps libm, unused).  Nothing else of the module is opened ahead: its
 * status and warnings are as before.  A debug file no module takes is
 * dropped at the end, and its view is not written to the cache. */
struct sym_prefetch {
    const char *path;  /* interned: the mapping's, when it had no build-id */
    uint8_t build_id[64];
    size_t build_id_len;
    char *debugfile;   /* NULL: none opened */
    sym_dwpart *part;  /* until a module takes it */
};

enum { MAX_PREFETCH = 64 }; /* mappings looked at */

/* The debug file of pf's build-id where libdw's build-id search finds it
 * (each absolute directory of its path), opened ahead into pf. */
static void prefetch_debugfile(sym_session *s, struct sym_prefetch *pf)
{
    char hex[140], buf[4096];
    sym_hexstr(hex, pf->build_id, pf->build_id_len);
    strcat(hex, ".debug"); /* its cache entry's name too */
    int fd = s->opt.cache_dir ? sym_cache_open(s->opt.cache_dir, "dwarf", hex) : -1;
    if (fd >= 0) { /* opening it for the module reads the entry */
        close(fd);
        return;
    }
    for (const char *p = s->debuginfo_path; p && *p;) {
        const char *end = strchr(p, ':');
        int len = end ? (int)(end - p) : (int)strlen(p);
        if (len > 0 && p[0] == '/' &&
            snprintf(buf, sizeof buf, "%.*s/.build-id/%.2s/%s", len, p, hex, hex + 2) < (int)sizeof buf &&
            access(buf, R_OK) == 0) {
            if ((pf->part = sym_dwpart_open(buf, NULL, s->opt.cache_dir)) != NULL &&
                !(pf->debugfile = strdup(buf))) {
                sym_dwpart_free(pf->part);
                pf->part = NULL;
            }
            return;
        }
        p = end ? end + 1 : NULL;
    }
}

void sym_symfile_prefetch(sym_session *s, const char *path, size_t plen, const uint8_t *build_id,
                          size_t build_id_len)
{
    if (!s->opt.inlines || s->opt.lines || s->archived_seen || s->nprefetch >= MAX_PREFETCH ||
        build_id_len > 64 || (!build_id_len && (!plen || path[0] != '/')))
        return;
    const char *ip = NULL;
    cand c = { -1, NULL, NULL, 0 };
    if (!build_id_len) { /* the file's build-id, once per path */
        char buf[4096];
        if (!(ip = strpool_intern(&s->strings, path, plen)))
            return;
        for (size_t i = 0; i < s->nprefetch; i++)
            if (s->prefetch[i].path == ip)
                return;
        snprintf(buf, sizeof buf, "%s%s", s->opt.symfs ? s->opt.symfs : "", ip);
        int fd = open(buf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0 && cand_open_fd(&c, fd) == 0 && c.bid_len > 0 && c.bid_len <= 64) {
            build_id = c.bid;
            build_id_len = (size_t)c.bid_len;
        }
    }
    for (size_t i = 0; i < s->nprefetch && build_id_len; i++)
        if (s->prefetch[i].build_id_len == build_id_len &&
            memcmp(s->prefetch[i].build_id, build_id, build_id_len) == 0)
            build_id_len = 0; /* met already: only its path is new */
    if ((build_id_len || ip) &&
        array_reserve(&s->prefetch, &s->prefetchcap, s->nprefetch + 1, sizeof *s->prefetch, 8) == 0) {
        struct sym_prefetch *pf = &s->prefetch[s->nprefetch++];
        memset(pf, 0, sizeof *pf);
        pf->path = ip;
        if (build_id_len)
            memcpy(pf->build_id, build_id, build_id_len);
        pf->build_id_len = build_id_len;
        if (build_id_len)
            prefetch_debugfile(s, pf);
    }
    cand_close(&c);
}

/* The debug file at path opened ahead for f, or sym_dwpart_open's. */
static sym_dwpart *open_part(sym_session *s, sym_symfile *f, const char *path)
{
    for (size_t i = 0; i < s->nprefetch; i++) {
        struct sym_prefetch *pf = &s->prefetch[i];
        if (pf->part && strcmp(pf->debugfile, path) == 0) {
            sym_dwpart *p = sym_dwpart_adopt(pf->part, f);
            pf->part = NULL;
            s->stats.dwarf_ahead += p != NULL;
            return p;
        }
    }
    return sym_dwpart_open(path, f, s->opt.cache_dir);
}

void sym_symfile_prefetch_free(sym_session *s)
{
    for (size_t i = 0; i < s->nprefetch; i++) {
        sym_dwpart_free(s->prefetch[i].part);
        free(s->prefetch[i].debugfile);
    }
    free(s->prefetch);
    s->prefetch = NULL;
    s->nprefetch = s->prefetchcap = 0;
}

static int open_symfile(sym_session *s, sym_symfile *f)
{
    cand c = { -1, NULL, NULL, 0 };
    char why[600] = "";
    char *found = NULL;
    int r = find_binary(s, f, &c, why, sizeof why, &found);
    if (r < 0)
        return r;
    if (r == 0) {
        int mismatch = strncmp(why, "build-id mismatch", 17) == 0;
        f->status = mismatch ? TR_MOD_BUILD_ID_MISMATCH : TR_MOD_NOT_FOUND;
        char hex[129] = "";
        sym_hexstr(hex, f->build_id, f->build_id_len);
        char d[900];
        if (why[0])
            snprintf(d, sizeof d, "%s", why);
        else
            snprintf(d, sizeof d, "not found%s%s", f->build_id_len ? " by build-id " : " (no build-id recorded)",
                     f->build_id_len ? hex : "");
        f->detail = strpool_intern(&s->strings, d, strlen(d));
        sym_warnf(s, "%s: %s", f->path, d);
        return 0;
    }
    f->found = found;
    read_segments(f, c.elf);
    f->fd = dup(c.fd);
    f->dwfl = dwfl_begin(&s->dwfl_callbacks);
    if (!f->dwfl) {
        cand_close(&c);
        return TR_E_NOMEM;
    }
    const char *base = strrchr(f->path, '/');
    dwfl_report_begin(f->dwfl);
    /* the Dwfl takes the fd; base 0: module addresses are file vaddrs */
    int fd = dup(c.fd);
    f->mod = fd >= 0 ? dwfl_report_elf(f->dwfl, base ? base + 1 : f->path, found, fd, 0, true) : NULL;
    if (!f->mod && fd >= 0)
        close(fd);
    dwfl_report_end(f->dwfl, NULL, NULL);
    void **userdata = NULL;
    if (f->mod && dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL) && userdata)
        *userdata = s; /* for sym_find_debuginfo */
    cand_close(&c);
    char d[900];
    if (!f->mod) {
        f->status = TR_MOD_CORRUPT;
        snprintf(d, sizeof d, "%s: %s", found, dwfl_errmsg(-1));
        f->detail = strpool_intern(&s->strings, d, strlen(d));
        sym_warnf(s, "%s: %s", f->path, d);
        return 0;
    }
    int nsym = dwfl_module_getsymtab(f->mod);
    /* DWARF is loaded when needed (inlines, lines, or no symbol table):
     * for big libraries with compressed debug info that is the most
     * expensive step of all, so for inline frames alone a compressed
     * separate debug file is inflated only as far as the addresses met
     * need (dwpart.c) */
    Dwarf *dw = NULL;
    const char *debugfile = NULL;
    dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
    if (nsym > 0 && s->opt.inlines && !s->opt.lines && debugfile && strcmp(debugfile, found) != 0 &&
        (f->part = open_part(s, f, debugfile)) != NULL) {
        f->dwarf_tried = 1;
        f->has_dwarf = 1;
        sym_dwpart_on_wait(f->part, sym_ahead_step, s);
    }
    if (!f->part && (nsym <= 0 || s->opt.inlines || s->opt.lines)) {
        dw = module_dwarf(f);
        dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
    }
    if (nsym <= 0 && !dw) {
        f->status = TR_MOD_NO_SYMBOLS;
        snprintf(d, sizeof d, "%s has no symbols and no debug info", found);
        sym_warnf(s, "%s: %s", f->path, d);
    } else {
        f->status = TR_MOD_RESOLVED;
        if (debugfile && strcmp(debugfile, found) != 0)
            snprintf(d, sizeof d, "%s, debug info %s", found, debugfile);
        else
            snprintf(d, sizeof d, "%s%s", found, dw || f->part ? "" : ", no debug info");
    }
    f->detail = strpool_intern(&s->strings, d, strlen(d));
    return f->detail ? 0 : TR_E_NOMEM;
}

sym_symfile *sym_symfile_get(sym_session *s, const char *path, const uint8_t *build_id,
                             size_t build_id_len)
{
    char key[4096 + 130];
    if (build_id_len > 64)
        build_id_len = 64;
    char hex[129];
    sym_hexstr(hex, build_id, build_id_len);
    int klen = snprintf(key, sizeof key, "%s:%s", hex, path);
    if (klen < 0 || (size_t)klen >= sizeof key)
        klen = (int)sizeof key - 1;
    const char *k = strpool_intern(&s->strings, key, (size_t)klen);
    if (!k)
        return NULL;
    sym_symfile *f = hashmap_get(&s->files, (uintptr_t)k, 0);
    if (f)
        return f;
    f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->fd = -1;
    f->reported = UINT64_MAX;
    f->id = ++s->next_owner_id;
    f->path = strpool_intern(&s->strings, path, strlen(path));
    if (build_id_len)
        memcpy(f->build_id, build_id, build_id_len);
    f->build_id_len = build_id_len;
    if (array_reserve(&s->filelist, &s->filecap, s->nfiles + 1, sizeof *s->filelist, 32) < 0) {
        free(f);
        return NULL;
    }
    if (!f->path || hashmap_put(&s->files, (uintptr_t)k, 0, f) < 0) {
        free(f);
        return NULL;
    }
    s->filelist[s->nfiles++] = f;
    s->stats.modules++;
    if (open_symfile(s, f) < 0)
        return NULL;
    return f;
}

struct unit_walk;
static void unit_walk_free(struct unit_walk *u);

void sym_symfile_free(sym_symfile *f)
{
    if (!f)
        return;
    sym_dwpart_free(f->part);
    sym_symtable_free(&f->tab);
    free(f->isyms);
    hashmap_free(&f->interval_syms);
    free(f->bucket);
    size_t i;
    hashmap_slot *sl;
    for (i = 0; (sl = hashmap_next(&f->child_index, &i)) != NULL;)
        free(sl->val);
    hashmap_free(&f->child_index);
    hashmap_free(&f->scope_ids);
    for (i = 0; (sl = hashmap_next(&f->walk_units, &i)) != NULL;)
        unit_walk_free(sl->val);
    hashmap_free(&f->walk_units);
    free(f->scopes);
    sym_addrcache_free(f); /* after the entries it depends on are written */
    if (f->dwfl)
        dwfl_end(f->dwfl);
    if (f->fd >= 0)
        close(f->fd);
    free((void *)f->found);
    free(f);
}

/* ---- the symbol of an address ----
 *
 * libdwfl searches the whole symbol table for every address
 * (dwfl_module_addrinfo is linear in the symbols: a debug file's table of
 * 10,000 symbols costs ~100 us per address).  Its choice depends only on
 * how the address compares with the symbols' starts and ends and with the
 * sections' bounds, so between two consecutive such bounds every address
 * gets the same symbol: the bounds are sorted once per binary (and kept
 * in the cache, symtable.c), and the symbol is found once per interval
 * met.  Where sized symbols hold the
 * interval, libdwfl's answer is the one its search would keep (held_by),
 * unless a sizeless symbol could win; where nothing holds it and no
 * sizeless symbol lies below, there is no symbol; only the other intervals
 * ask libdwfl. */

struct interval_sym {
    const char *name; /* interned (demangled unless told), NULL: none */
    uint64_t start, size;
};
typedef struct interval_sym interval_sym;

/* How many of the n elements (size bytes each, sorted by the uint64_t
 * each begins with) have a key <= x. */
static size_t count_le(const void *base, size_t n, size_t size, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        memcpy(&k, (const uint8_t *)base + mid * size, sizeof k);
        if (k <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const char *intern_name(sym_session *s, sym_symfile *f, const char *name);

#define MAX_HOLDERS 16

/* The sized symbol libdwfl chooses for the interval starting at lo, when
 * sized symbols hold it and no sizeless one can be chosen instead; NULL:
 * ask libdwfl.  libdwfl searches its global symbols first (in table
 * order), its local ones only when no global holds the address and no
 * global sizeless symbol starts exactly there; a holder replaces the one
 * kept when it starts later or binds more strongly, or, starting at the
 * same place, is shorter and binds at least as strongly.  Once a sized
 * symbol is kept, sizeless ones no longer count. */
static const sym_rec *held_by(const sym_symtable *t, uint64_t lo)
{
    const sym_rec *h[MAX_HOLDERS];
    size_t nh = 0, a = count_le(t->sized, t->nsized, sizeof *t->sized, lo);
    int globals = 0;
    for (size_t i = a; i-- > 0 && t->sized[i].maxend > lo;) {
        if (t->sized[i].end <= lo)
            continue;
        if (nh == MAX_HOLDERS)
            return NULL;
        const sym_rec *r = &t->sized[i];
        size_t j = nh++; /* kept in table order */
        for (; j > 0 && SYM_REC_INDEX(h[j - 1]) > SYM_REC_INDEX(r); j--)
            h[j] = h[j - 1];
        h[j] = r;
        globals += SYM_REC_INDEX(r) >= (uint32_t)t->first_global;
    }
    if (!nh)
        return NULL;
    if (!globals) { /* the locals are searched unless a sizeless symbol starts right here */
        size_t k = count_le(t->sizeless, t->nsizeless, sizeof *t->sizeless, lo);
        if (k && t->sizeless[k - 1] == lo)
            return NULL;
    }
    const sym_rec *kept = NULL;
    for (size_t i = 0; i < nh; i++) {
        const sym_rec *r = h[i];
        if (globals && SYM_REC_INDEX(r) < (uint32_t)t->first_global)
            continue; /* the local pass does not happen */
        if (!kept || kept->start < r->start || SYM_REC_RANK(kept) < SYM_REC_RANK(r) ||
            (kept->start == r->start && kept->end - kept->start > r->end - r->start &&
             SYM_REC_RANK(kept) <= SYM_REC_RANK(r)))
            kept = r;
    }
    /* a name out of the strings (a damaged cache file): ask libdwfl */
    return kept && kept->name < t->nstr ? kept : NULL;
}

/* Does no symbol hold the interval starting at lo, and no sizeless one
 * start where libdwfl could take it?  Then libdwfl has nothing to choose:
 * no symbol.  A sizeless symbol (a label) is only taken at or after the
 * end of every sized one starting before the address: in the gaps of a
 * stripped program (cc1) nothing is there, and past a function holding a
 * label the label is out of the running. */
static int nothing_holds(const sym_symtable *t, uint64_t lo)
{
    size_t a = count_le(t->sized, t->nsized, sizeof *t->sized, lo);
    for (size_t i = a; i-- > 0 && t->sized[i].maxend > lo;)
        if (t->sized[i].end > lo)
            return 0;
    size_t k = count_le(t->sizeless, t->nsizeless, sizeof *t->sizeless, lo);
    return !k || (a && t->sizeless[k - 1] < t->sized[a - 1].maxend);
}

/* A big table's bounds are found through buckets of 2^shift addresses
 * (about as many as bounds): bucket[i], the bounds below the i-th bucket's
 * start; a binary search over 60,000 bounds of cc1 was 2 % of a warm cc -g
 * run, for 12,000 addresses. */
#define BUCKETS_FROM 4096
#define BUCKETS_AFTER 256 /* binary searches */

static void bucket_build(sym_symfile *f)
{
    const sym_symtable *t = &f->tab;
    uint64_t lo = t->bounds[0], range = t->bounds[t->nbounds - 1] - lo;
    unsigned shift = 0;
    while ((range >> shift) >= t->nbounds)
        shift++;
    size_t nb = (size_t)(range >> shift) + 1;
    uint32_t *b = malloc((nb + 1) * sizeof *b);
    if (!b)
        return;
    size_t j = 0;
    for (size_t i = 0; i <= nb; i++) {
        uint64_t start = lo + ((uint64_t)i << shift);
        while (j < t->nbounds && t->bounds[j] < start)
            j++;
        b[i] = (uint32_t)j;
    }
    f->bucket = b;
    f->nbucket = nb;
    f->bucket_shift = shift;
}

/* The number of f's bounds <= vaddr. */
static size_t bounds_le(sym_symfile *f, uint64_t vaddr)
{
    const sym_symtable *t = &f->tab;
    /* built once it pays: a table of many bounds, and many addresses in it */
    if (!f->bucket && (t->nbounds < BUCKETS_FROM || t->nbounds >= UINT32_MAX || ++f->searches < BUCKETS_AFTER))
        return count_le(t->bounds, t->nbounds, sizeof *t->bounds, vaddr);
    if (!f->bucket)
        bucket_build(f);
    if (!f->bucket || vaddr < t->bounds[0] || vaddr >= t->bounds[t->nbounds - 1])
        return count_le(t->bounds, t->nbounds, sizeof *t->bounds, vaddr);
    size_t i = (size_t)((vaddr - t->bounds[0]) >> f->bucket_shift), a = f->bucket[i];
    return a + count_le(t->bounds + a, f->bucket[i + 1] - a, sizeof *t->bounds, vaddr);
}

/* The intervals met: the symbol of interval lo, NULL when not met
 * (isyms by index + 1 in the map: no allocation per interval). */
static interval_sym *isym_find(sym_symfile *f, size_t lo)
{
    uintptr_t v = (uintptr_t)hashmap_get(&f->interval_syms, lo, 0);
    return v ? &f->isyms[v - 1] : NULL;
}

/* Interval lo's symbol is is: kept, and returned (NULL: out of memory). */
static interval_sym *isym_add(sym_symfile *f, size_t lo, const interval_sym *is)
{
    if (array_reserve(&f->isyms, &f->isymcap, f->nisyms + 1, sizeof *f->isyms, 256) < 0 ||
        hashmap_put(&f->interval_syms, lo, 0, (void *)(uintptr_t)(f->nisyms + 1)) < 0)
        return NULL;
    f->isyms[f->nisyms] = *is;
    return &f->isyms[f->nisyms++];
}

static const interval_sym *symbol_of(sym_session *s, sym_symfile *f, uint64_t vaddr, interval_sym *tmp)
{
    const sym_symtable *t = &f->tab;
    if (!f->tab_done) {
        f->tab_done = 1;
        sym_symtable_open(&f->tab, f->mod, s->opt.cache_dir);
    }
    const int has_tab = t->image != NULL; /* else libdwfl answers every address */
    /* the interval: the number of bounds <= vaddr (0 .. nbounds) */
    size_t lo = has_tab ? bounds_le(f, vaddr) : 0;
    interval_sym *is = has_tab ? isym_find(f, lo) : NULL;
    if (is)
        return is;
    GElf_Sym sym;
    GElf_Off off = 0;
    const sym_rec *one = has_tab && lo ? held_by(t, t->bounds[lo - 1]) : NULL;
    int none = !one && has_tab && nothing_holds(t, lo ? t->bounds[lo - 1] : 0);
    const char *n = one ? t->str + one->name : none ? NULL : dwfl_module_addrinfo(f->mod, vaddr, &off, &sym, NULL, NULL, NULL);
    if (one) {
        off = vaddr - one->start;
        sym.st_size = one->end - one->start;
    } else if (!none) {
        f->symtab_lookups++;
    }
    *tmp = (interval_sym){ n && *n ? intern_name(s, f, n) : NULL, vaddr - off, sym.st_size };
    if (!n || !*n)
        tmp->start = tmp->size = 0;
    if (!has_tab || !(is = isym_add(f, lo, tmp)))
        return tmp;
    return is;
}

int sym_symfile_symbol(sym_session *s, sym_symfile *f, uint64_t vaddr, const char **name,
                       uint64_t *start, uint64_t *size)
{
    interval_sym tmp;
    const interval_sym *is = f->mod ? symbol_of(s, f, vaddr, &tmp) : NULL;
    if (!is || !is->name)
        return -1;
    *name = is->name;
    *start = is->start;
    *size = is->size;
    return 0;
}

/* ---- the inline scope of an address ----
 *
 * dwarf_getscopes walks the unit's DIEs from its start for every address,
 * and then again to find the abstract origin of an inlined instance: in
 * the big units of an interpreter (CPython's ceval.c) milliseconds an
 * address.  What the frames take of its answer is the path it finds (at
 * each level the first child whose ranges hold the address, descending
 * into scopes): its innermost inlined subroutine, or when there is none
 * its innermost subprogram.  The same path is found here with an index
 * by address of the children of each DIE on it (the unit's top-level
 * DIEs, the lexical blocks and inlined calls of a big function), built
 * once per DIE met. */

typedef struct child_entry {
    uint64_t lo, hi, off; /* [lo, hi) of a child at offset off */
    uint64_t maxhi;       /* the largest hi of the entries up to this one */
    uint32_t order;       /* its place among the children */
} child_entry;

typedef struct child_index {
    size_t n;
    child_entry e[];
} child_index;

/* Tags that may have code addresses (DW_AT_high_pc, DW_AT_ranges: DWARF 5,
 * table A.1): the others, types and variables, the most of a unit's
 * children, are not asked for ranges. */
static int pc_tag(int tag)
{
    switch (tag) {
    case DW_TAG_subprogram: case DW_TAG_inlined_subroutine: case DW_TAG_lexical_block:
    case DW_TAG_compile_unit: case DW_TAG_partial_unit: case DW_TAG_skeleton_unit:
    case DW_TAG_module: case DW_TAG_try_block: case DW_TAG_catch_block: case DW_TAG_with_stmt:
    case DW_TAG_entry_point: case DW_TAG_namespace:
        return 1;
    default:
        return 0;
    }
}

/* ---- walking a unit's DIEs without libdw ----
 *
 * libdw's dwarf_siblingof and dwarf_tag look the abbreviation of every
 * DIE up again and read its attributes one by one (~900 instructions a
 * DIE), and a scope's children are mostly parameters, variables and call
 * sites.  Here each abbreviation of a unit is asked of libdw once (its
 * tag, children flag and forms), and the DIEs are stepped over by their
 * forms; only the children that may have code get libdw's dwarf_ranges.
 * A form not known here makes the walk give up: libdw's walk then does it. */

typedef struct abbrev_spec {
    uint32_t tag, first; /* first: its forms in unit_walk.forms */
    uint16_t nforms, sibling; /* sibling: the index of DW_AT_sibling, or nforms */
    uint8_t children, known;
    int32_t size;        /* of its attributes when all forms are of fixed size, else -1 */
    uint32_t sib_at;     /* then where the value of DW_AT_sibling is among them */
    uint32_t low_at, high_at; /* and those of DW_AT_low_pc and DW_AT_high_pc, when pc_fast */
    uint16_t high_form;
    uint8_t pc_fast;     /* its range is low_pc (an address) to high_pc (one, or a length) */
    uint8_t no_pc;       /* it has none of low_pc, high_pc and ranges: no range */
} abbrev_spec;

typedef struct unit_walk {
    uint64_t start, end; /* the unit's bounds (offsets in its section); end 0: not walked here */
    uint8_t addr_size, offset_size, version;
    abbrev_spec *ab;     /* by abbreviation code */
    size_t nab;
    uint16_t *forms;
    size_t nforms, capforms;
} unit_walk;

static void unit_walk_free(unit_walk *u)
{
    if (u) {
        free(u->ab);
        free(u->forms);
        free(u);
    }
}

/* The walk data of the unit of die, made on first use (by its offset and
 * its Dwarf: a split unit's offsets are those of another section): NULL
 * when the unit is not one walked here (or out of memory). */
static unit_walk *unit_walk_of(sym_symfile *f, Dwarf_Die *die)
{
    Dwarf_Die cudie;
    Dwarf_Half version;
    uint8_t asz, osz;
    if (!dwarf_cu_die(die->cu, &cudie, &version, NULL, &asz, &osz, NULL, NULL))
        return NULL;
    uint64_t start = dwarf_dieoffset(&cudie) - dwarf_cuoffset(&cudie);
    Dwarf *dw = dwarf_cu_getdwarf(die->cu);
    unit_walk *u = hashmap_get(&f->walk_units, start, (uintptr_t)dw);
    if (u)
        return u->end ? u : NULL;
    Dwarf_Off next;
    if (!(u = calloc(1, sizeof *u)))
        return NULL;
    if (version >= 2 && version <= 5 && (asz == 4 || asz == 8) && (osz == 4 || osz == 8) &&
        dwarf_next_unit(dw, start, &next, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
        u->start = start;
        u->end = next;
        u->version = (uint8_t)version;
        u->addr_size = asz;
        u->offset_size = osz;
    }
    if (hashmap_put(&f->walk_units, start, (uintptr_t)dw, u) < 0) {
        free(u);
        return NULL;
    }
    return u->end ? u : NULL;
}

static const uint8_t *skip_leb(const uint8_t *p, const uint8_t *end)
{
    while (p < end && (*p & 0x80))
        p++;
    return p < end ? p + 1 : NULL;
}

static const uint8_t *read_uleb(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
        uint8_t c = *p++;
        if (shift < 64)
            *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return p;
    }
    return NULL;
}

/* The size of a value of form when it is fixed, else -1 (also for a form
 * not known here). */
static int form_size(const unit_walk *u, unsigned form)
{
    switch (form) {
    case DW_FORM_flag_present: case DW_FORM_implicit_const:
        return 0;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1: case DW_FORM_addrx1:
        return 1;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
        return 2;
    case DW_FORM_strx3: case DW_FORM_addrx3:
        return 3;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4:
        return 4;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
        return 8;
    case DW_FORM_data16:
        return 16;
    case DW_FORM_addr:
        return u->addr_size;
    case DW_FORM_ref_addr:
        return u->version <= 2 ? u->addr_size : u->offset_size;
    case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
        return u->offset_size;
    default:
        return -1;
    }
}

/* Past an attribute value of form at p: NULL when the form is not known
 * here or the value runs past end. */
static const uint8_t *skip_form(const unit_walk *u, unsigned form, const uint8_t *p, const uint8_t *end)
{
    uint64_t n;
    int fixed = form_size(u, form);
    if (fixed >= 0) {
        n = (uint64_t)fixed;
    } else {
        switch (form) {
        case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
        case DW_FORM_rnglistx: case DW_FORM_loclistx: case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
            return skip_leb(p, end);
        case DW_FORM_string: {
            const uint8_t *z = memchr(p, 0, (size_t)(end - p));
            return z ? z + 1 : NULL;
        }
        case DW_FORM_block1:
            if (p >= end)
                return NULL;
            n = 1 + (uint64_t)*p;
            break;
        case DW_FORM_block2:
            if (end - p < 2)
                return NULL;
            n = 2 + (uint64_t)(p[0] | p[1] << 8);
            break;
        case DW_FORM_block4:
            if (end - p < 4)
                return NULL;
            n = 4 + ((uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24);
            break;
        case DW_FORM_block: case DW_FORM_exprloc:
            if (!(p = read_uleb(p, end, &n)))
                return NULL;
            break;
        case DW_FORM_indirect: {
            uint64_t f2;
            if (!(p = read_uleb(p, end, &f2)) || f2 == DW_FORM_indirect || f2 == DW_FORM_implicit_const)
                return NULL;
            return skip_form(u, (unsigned)f2, p, end);
        }
        default:
            return NULL;
        }
    }
    return n <= (uint64_t)(end - p) ? p + n : NULL;
}

/* The abbreviation of code, the DIE at addr (in the unit of cu) being one
 * of them: asked of libdw the first time.  NULL when it cannot be. */
static const abbrev_spec *abbrev_of(unit_walk *u, uint64_t code, void *addr, struct Dwarf_CU *cu)
{
    if (code < u->nab && u->ab[code].known)
        return &u->ab[code];
    if (code > 65535)
        return NULL;
    Dwarf_Die d = { .addr = addr, .cu = cu };
    int tag = dwarf_tag(&d);
    if (tag <= 0 || !d.abbrev || d.abbrev == (Dwarf_Abbrev *)-1l || dwarf_getabbrevcode(d.abbrev) != code)
        return NULL;
    if (code >= u->nab) {
        size_t n = u->nab ? u->nab : 64;
        while (n <= code)
            n *= 2;
        abbrev_spec *ab = realloc(u->ab, n * sizeof *ab);
        if (!ab)
            return NULL;
        memset(ab + u->nab, 0, (n - u->nab) * sizeof *ab);
        u->ab = ab;
        u->nab = n;
    }
    /* its forms, up to the end of its list (libdw's dwarf_getattrcnt
     * miscounts lists with implicit constants) */
    size_t cnt = 0, sibling = SIZE_MAX, low = SIZE_MAX, high = SIZE_MAX, ranges = SIZE_MAX;
    unsigned name, form;
    for (; dwarf_getabbrevattr_data(d.abbrev, cnt, &name, &form, NULL, NULL) == 0; cnt++) {
        if (name == DW_AT_sibling && sibling == SIZE_MAX)
            sibling = cnt;
        if (name == DW_AT_low_pc && low == SIZE_MAX)
            low = cnt;
        if (name == DW_AT_high_pc && high == SIZE_MAX)
            high = cnt;
        if (name == DW_AT_ranges)
            ranges = cnt;
        if (cnt == 65535 || form > 65535 ||
            array_reserve(&u->forms, &u->capforms, u->nforms + cnt + 1, sizeof *u->forms, 256) < 0)
            return NULL;
        u->forms[u->nforms + cnt] = (uint16_t)form;
    }
    abbrev_spec *a = &u->ab[code];
    a->tag = (uint32_t)tag;
    a->children = dwarf_abbrevhaschildren(d.abbrev) > 0;
    a->first = (uint32_t)u->nforms;
    a->nforms = (uint16_t)cnt;
    a->sibling = (uint16_t)(sibling < cnt ? sibling : cnt);
    a->size = 0;
    for (size_t i = 0; i < cnt && a->size >= 0; i++) {
        int n = form_size(u, u->forms[a->first + i]);
        if (i == a->sibling)
            a->sib_at = (uint32_t)a->size;
        if (i == low)
            a->low_at = (uint32_t)a->size;
        if (i == high)
            a->high_at = (uint32_t)a->size;
        a->size = n < 0 ? -1 : a->size + n;
    }
    a->no_pc = low == SIZE_MAX && high == SIZE_MAX && ranges == SIZE_MAX;
    /* what dwarf_ranges reads first: then it is the whole answer */
    if (a->size >= 0 && u->version >= 4 && low < cnt && high < cnt && u->forms[a->first + low] == DW_FORM_addr) {
        a->high_form = u->forms[a->first + high];
        a->pc_fast = a->high_form == DW_FORM_addr || a->high_form == DW_FORM_data1 ||
                     a->high_form == DW_FORM_data2 || a->high_form == DW_FORM_data4 ||
                     a->high_form == DW_FORM_data8;
    }
    u->nforms += cnt;
    a->known = 1;
    return a;
}

/* A reference of form at p as an offset in the section: 0 when it is
 * not one read here. */
static uint64_t ref_value(const unit_walk *u, unsigned form, const uint8_t *p, const uint8_t *end)
{
    uint64_t v = 0;
    switch (form) {
    case DW_FORM_ref1: v = p[0]; break;
    case DW_FORM_ref2: v = (uint64_t)p[0] | (uint64_t)p[1] << 8; break;
    case DW_FORM_ref4: memcpy(&v, p, 4); v = le64toh(v); break;
    case DW_FORM_ref8: memcpy(&v, p, 8); v = le64toh(v); break;
    case DW_FORM_ref_udata: if (!read_uleb(p, end, &v)) return 0; break;
    default: return 0;
    }
    return u->start + v;
}

/* The DIE at *pp: its abbreviation (*pp moved past its attributes, *sib
 * the offset its DW_AT_sibling gives or 0), or NULL for the null entry
 * ending a list of siblings (*pp past it) or, with *pp set to NULL, when
 * it cannot be read here. */
static const abbrev_spec *next_die(unit_walk *u, struct Dwarf_CU *cu, const uint8_t **pp,
                                   const uint8_t *end, uint64_t *sib)
{
    const uint8_t *p = *pp;
    uint64_t code;
    if (!(p = read_uleb(p, end, &code)) || code == 0) {
        *pp = p;
        return NULL;
    }
    const abbrev_spec *a = abbrev_of(u, code, (void *)*pp, cu);
    if (!a) {
        *pp = NULL;
        return NULL;
    }
    const uint16_t *fm = u->forms + a->first;
    *sib = 0;
    if (a->size >= 0) { /* the common case: step over them at once */
        if ((uint64_t)a->size > (uint64_t)(end - p)) {
            *pp = NULL;
            return NULL;
        }
        if (a->sibling < a->nforms)
            *sib = ref_value(u, fm[a->sibling], p + a->sib_at, end);
        *pp = p + a->size;
        return a;
    }
    for (size_t i = 0; i < a->nforms && p; i++) {
        if (i == a->sibling)
            *sib = ref_value(u, fm[i], p, end);
        p = skip_form(u, fm[i], p, end);
    }
    *pp = p;
    return p ? a : NULL;
}

/* The children of die with code addresses, as children_of's entries (in
 * *e, n of them): 0, or -1 when the walk cannot be done here.  A child's
 * DW_AT_sibling is followed past its descendants, as libdw does. */
static int walk_children(sym_symfile *f, Dwarf_Die *die, child_entry **e, size_t *n, size_t *cap)
{
    unit_walk *u = unit_walk_of(f, die);
    if (!u)
        return -1;
    const uint8_t *base = (const uint8_t *)die->addr - dwarf_dieoffset(die), *end = base + u->end;
    const uint8_t *p = die->addr;
    uint64_t sib;
    const abbrev_spec *a = next_die(u, die->cu, &p, end, &sib);
    if (!a)
        return -1;
    if (!a->children)
        return 0;
    for (uint32_t order = 0; p < end; order++) {
        const uint8_t *at = p;
        if (!(a = next_die(u, die->cu, &p, end, &sib)))
            return p ? 0 : -1; /* the end of the children, or a DIE not read here */
        if (a->pc_fast && pc_tag((int)a->tag)) {
            uint64_t lo = 0, hi = 0;
            const uint8_t *attrs = p - a->size;
            memcpy(&lo, attrs + a->low_at, u->addr_size);
            memcpy(&hi, attrs + a->high_at, a->high_form == DW_FORM_addr ? u->addr_size
                                            : (size_t)form_size(u, a->high_form));
            lo = le64toh(lo);
            hi = le64toh(hi) + (a->high_form == DW_FORM_addr ? 0 : lo);
            if (array_reserve(e, cap, *n + 1, sizeof **e, 64) < 0)
                return -1;
            (*e)[(*n)++] = (child_entry){ lo, hi, (uint64_t)(at - base), 0, order };
        } else if (!a->no_pc && pc_tag((int)a->tag)) {
            Dwarf_Die child = { .addr = (void *)at, .cu = die->cu };
            Dwarf_Addr rbase, start, stop;
            ptrdiff_t off = 0;
            while ((off = dwarf_ranges(&child, off, &rbase, &start, &stop)) > 0) {
                if (array_reserve(e, cap, *n + 1, sizeof **e, 64) < 0)
                    return -1;
                (*e)[(*n)++] = (child_entry){ start, stop, (uint64_t)(at - base), 0, order };
            }
        }
        if (sib > (uint64_t)(at - base) && sib < u->end) { /* as libdw, children or not */
            p = base + sib;
            continue;
        }
        for (size_t depth = a->children; depth && p < end;) { /* past its descendants */
            const abbrev_spec *d = next_die(u, die->cu, &p, end, &sib);
            if (!p)
                return -1;
            depth = d ? depth + d->children : depth - 1;
        }
    }
    return 0;
}

/* The index of the children of die (a unit or a scope). */
static child_index *children_of(sym_symfile *f, Dwarf_Die *die)
{
    uint64_t key = dwarf_dieoffset(die);
    child_index *ui = hashmap_get(&f->child_index, key, 0);
    if (ui)
        return ui;
    size_t n = 0, cap = 0;
    child_entry *e = NULL;
    Dwarf_Die child;
    uint32_t order = 0;
    if (dwarf_tag(die) == DW_TAG_compile_unit || dwarf_tag(die) == DW_TAG_partial_unit)
        f->unit_walks++;
    if (walk_children(f, die, &e, &n, &cap) < 0 && (n = 0, ++f->libdw_walks, dwarf_child(die, &child) == 0)) {
        do {
            Dwarf_Addr base, start, end;
            ptrdiff_t off = pc_tag(dwarf_tag(&child)) ? 0 : -1;
            while (off >= 0 && (off = dwarf_ranges(&child, off, &base, &start, &end)) > 0) {
                if (array_reserve(&e, &cap, n + 1, sizeof *e, 64) < 0) {
                    free(e);
                    return NULL;
                }
                e[n++] = (child_entry){ start, end, dwarf_dieoffset(&child), 0, order };
            }
            order++;
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    size_t sorted = 1;
    while (sorted < n && e[sorted - 1].lo <= e[sorted].lo) /* as a scope's children mostly are */
        sorted++;
    if (sorted < n && sym_sort_by_key(e, n, sizeof *e) < 0) { /* stable: by lo, then in the DIEs' order */
        free(e);
        return NULL;
    }
    ui = malloc(sizeof *ui + n * sizeof *e);
    if (!ui) {
        free(e);
        return NULL;
    }
    ui->n = n;
    uint64_t maxhi = 0;
    for (size_t i = 0; i < n; i++) {
        ui->e[i] = e[i];
        maxhi = e[i].hi > maxhi ? e[i].hi : maxhi;
        ui->e[i].maxhi = maxhi;
    }
    free(e);
    if (hashmap_put(&f->child_index, key, 0, ui) < 0) {
        free(ui);
        return NULL;
    }
    return ui;
}

/* Tags dwarf_getscopes descends into. */
static int scope_tag(int tag)
{
    switch (tag) {
    case DW_TAG_compile_unit: case DW_TAG_module: case DW_TAG_lexical_block:
    case DW_TAG_with_stmt: case DW_TAG_catch_block: case DW_TAG_try_block:
    case DW_TAG_entry_point: case DW_TAG_inlined_subroutine: case DW_TAG_subprogram:
    case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type:
    case DW_TAG_imported_unit:
        return 1;
    default:
        return 0;
    }
}

/* The first child of die (in its order) whose ranges hold pc: 1, 0 when
 * none, -1 when out of memory. */
static int first_holder(sym_symfile *f, Dwarf_Die *die, uint64_t pc, Dwarf_Die *child)
{
    child_index *ui = children_of(f, die);
    if (!ui)
        return -1;
    size_t lo = count_le(ui->e, ui->n, sizeof *ui->e, pc);
    const child_entry *best = NULL;
    for (size_t i = lo; i-- > 0 && ui->e[i].maxhi > pc;)
        if (pc < ui->e[i].hi && (!best || ui->e[i].order < best->order))
            best = &ui->e[i];
    if (!best)
        return 0;
    /* in die's unit: the DIE dwarf_offdie would make, without its search */
    *child = (Dwarf_Die){ .addr = (char *)die->addr + (best->off - dwarf_dieoffset(die)), .cu = die->cu };
    return 1;
}

/* *scope: the innermost inlined subroutine on pc's path in unit cu, else
 * its innermost subprogram.  1 when found, 0 when none, -1 when out of
 * memory. */
static int inline_scope(sym_symfile *f, Dwarf_Die *cu, uint64_t pc, Dwarf_Die *scope)
{
    Dwarf_Die cur;
    int found = 0, inl = 0, rc = first_holder(f, cu, pc, &cur);
    while (rc > 0) {
        int tag = dwarf_tag(&cur);
        if (tag == DW_TAG_inlined_subroutine || (tag == DW_TAG_subprogram && !inl)) {
            *scope = cur;
            found = 1;
            inl |= tag == DW_TAG_inlined_subroutine;
        }
        if (!scope_tag(tag) || !dwarf_haschildren(&cur))
            break;
        Dwarf_Die parent = cur;
        rc = first_holder(f, &parent, pc, &cur);
    }
    if (rc < 0)
        return -1;
    /* an inlined instance whose abstract origin is in another unit (LTO):
     * dwarf_getscopes looks for the origin in this unit only and, not
     * finding it, gives no scopes at all; the same here */
    Dwarf_Attribute a;
    if (inl && dwarf_attr(scope, DW_AT_abstract_origin, &a) && dwarf_whatform(&a) == DW_FORM_ref_addr)
        return 0;
    return found;
}

/* ---- resolution ---- */

#define MAX_CHAIN 32

typedef struct chain {
    sym_frame f[MAX_CHAIN];
    size_t n;
} chain;

/* The name to show: without a symbol version ("@@GLIBC_2.34"), demangled
 * unless told not to. */
static const char *intern_name(sym_session *s, sym_symfile *f, const char *name)
{
    if (!name || !*name)
        return NULL;
    const char *at = strchr(name, '@');
    size_t len = at && at > name ? (size_t)(at - name) : strlen(name);
    if (s->opt.demangle && (strncmp(name, "_Z", 2) == 0 || strncmp(name, "_R", 2) == 0)) {
        char tmp[1024];
        if (len < sizeof tmp) {
            memcpy(tmp, name, len);
            tmp[len] = '\0';
            const char *d = sym_symtable_demangle(&f->tab, &s->strings, tmp, len);
            if (d)
                return d;
        }
    }
    return strpool_intern(&s->strings, name, len);
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *n = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
        n = dwarf_formstring(&a);
    if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
        n = dwarf_formstring(&a);
    return n;
}

static void call_site(sym_session *s, Dwarf_Die *cu, Dwarf_Die *inl, const char **file,
                      uint32_t *line)
{
    Dwarf_Attribute a;
    Dwarf_Word v;
    *file = NULL;
    *line = 0;
    if (dwarf_attr(inl, DW_AT_call_line, &a) && dwarf_formudata(&a, &v) == 0)
        *line = (uint32_t)v;
    Dwarf_Files *files;
    size_t nfiles;
    if (dwarf_attr(inl, DW_AT_call_file, &a) && dwarf_formudata(&a, &v) == 0 &&
        dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles) {
        const char *fn = dwarf_filesrc(files, v, NULL, NULL);
        if (fn)
            *file = strpool_intern(&s->strings, fn, strlen(fn));
    }
}

static uint64_t die_entry(Dwarf_Die *die)
{
    Dwarf_Addr a = 0;
    if (dwarf_entrypc(die, &a) != 0 && dwarf_lowpc(die, &a) != 0)
        return 0;
    return a;
}

/* What a frame takes of a scope DIE: its name (interned, NULL: none) and
 * entry, found once per scope (the addresses of a function come in
 * clusters: following the abstract origin and demangling were most of
 * the cost of an inline frame). */
struct sym_scope_info {
    const char *name;
    uint64_t entry;
};

static struct sym_scope_info scope_info(sym_session *s, sym_symfile *f, Dwarf_Die *die)
{
    uint64_t off = dwarf_dieoffset(die);
    uintptr_t v = (uintptr_t)hashmap_get(&f->scope_ids, off, 0);
    if (v)
        return f->scopes[v - 1];
    struct sym_scope_info si = { intern_name(s, f, die_name(die)), die_entry(die) };
    if (array_reserve(&f->scopes, &f->scopecap, f->nscopes + 1, sizeof *f->scopes, 64) == 0 &&
        hashmap_put(&f->scope_ids, off, 0, (void *)(uintptr_t)(f->nscopes + 1)) == 0)
        f->scopes[f->nscopes++] = si;
    return si;
}

sym_entry *sym_symfile_resolve(sym_session *s, sym_symfile *f, uint64_t vaddr)
{
    sym_symbol_info sym;
    const sym_entry *a = sym_symfile_lookup(s, f, vaddr, &sym);
    size_t size = a ? sizeof *a + a->n * sizeof(sym_frame) : 0;
    sym_entry *e = a ? malloc(size) : NULL;
    if (e)
        memcpy(e, a, size);
    if (e && sym.name)
        sym_push_symbol(s, f->id, f->path, sym.name, sym.start, sym.size, 0);
    return e;
}

int sym_symfile_waits(const sym_symfile *f, uint64_t vaddr)
{
    return f->part && sym_dwpart_waits(f->part, vaddr);
}

sym_entry *sym_symfile_lookup(sym_session *s, sym_symfile *f, uint64_t vaddr, sym_symbol_info *sym)
{
    chain c;
    c.n = 0;
    *sym = (sym_symbol_info){ 0 };
    const char *outer_name = NULL;
    uint64_t outer_off = 0;
    Dwarf_Die scopes[1];
    int nscopes = 0;
    Dwarf_Addr bias = 0;
    Dwarf_Die cudie, *cu = NULL;

    if (f->mod) {
        interval_sym tmp;
        const interval_sym *is = symbol_of(s, f, vaddr, &tmp);
        if (is && is->name) {
            outer_name = is->name;
            outer_off = vaddr - is->start;
            *sym = (sym_symbol_info){ f->path, outer_name, is->start, is->size, 0 };
        }
        if ((s->opt.inlines || s->opt.lines || !outer_name) && f->has_dwarf) {
            Dwarf_Die *d = NULL;
            if (f->part)
                d = sym_dwpart_addrdie(f->part, vaddr, &cudie) == 0 ? &cudie : NULL;
            else
                d = dwfl_module_addrdie(f->mod, vaddr, &bias);
            if (d) {
                cudie = *d;
                cu = &cudie;
                nscopes = inline_scope(f, cu, vaddr - bias, &scopes[0]) > 0;
            }
        }
    }
    /* the inline frame, then the function it is in */
    int i;
    for (i = 0; i < nscopes && c.n < MAX_CHAIN - 1; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram)
            break;
        if (tag != DW_TAG_inlined_subroutine || !s->opt.inlines)
            continue;
        sym_frame *fr = &c.f[c.n++];
        memset(fr, 0, sizeof *fr);
        fr->flags = TR_FRAME_SYMBOLIZED | TR_FRAME_INLINE;
        struct sym_scope_info si = scope_info(s, f, &scopes[i]);
        fr->func = si.name;
        if (!fr->func) {
            fr->func = s->s_unknown;
            fr->flags |= SYM_UNKNOWN;
        }
        fr->offset = si.entry && vaddr - bias >= si.entry ? vaddr - bias - si.entry : 0;
    }
    if (!outer_name && i < nscopes && dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
        struct sym_scope_info si = scope_info(s, f, &scopes[i]);
        outer_name = si.name;
        outer_off = si.entry && vaddr - bias >= si.entry ? vaddr - bias - si.entry : 0;
    }
    sym_frame *fr = &c.f[c.n++];
    memset(fr, 0, sizeof *fr);
    fr->flags = TR_FRAME_SYMBOLIZED;
    fr->func = outer_name;
    fr->offset = outer_off;
    if (!fr->func) {
        fr->func = s->s_unknown;
        fr->flags |= SYM_UNKNOWN;
        fr->offset = 0;
    }
    /* lines: the innermost from the line table, each outer one from the
     * call site of the inlined function inside it */
    if (s->opt.lines && f->mod) {
        Dwfl_Line *l = dwfl_module_getsrc(f->mod, vaddr);
        int lineno = 0;
        const char *file = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
        if (file) {
            c.f[0].file = strpool_intern(&s->strings, file, strlen(file));
            c.f[0].line = (uint32_t)lineno;
        }
        size_t k = 0;
        for (int j = 0; j < nscopes && k + 1 < c.n; j++) {
            if (dwarf_tag(&scopes[j]) != DW_TAG_inlined_subroutine)
                continue;
            call_site(s, cu, &scopes[j], &c.f[k + 1].file, &c.f[k + 1].line);
            k++;
        }
    }
    for (size_t j = 0; j < c.n; j++)
        c.f[j].module = f->path;
    sym_entry *e = sym_entry_new(s, (uint32_t)c.n);
    if (!e)
        return NULL;
    memcpy(e->f, c.f, c.n * sizeof(sym_frame));
    return e;
}
