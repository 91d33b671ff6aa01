/* kallsyms.c - the part of a /proc/kallsyms text a trace needs. */
#include "kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"

struct ksym {
    uint64_t addr;
    const char *line;
    size_t len; /* without the newline */
};

static int ksym_cmp(const void *a, const void *b)
{
    const struct ksym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The hex number at p (strtoull's work without its locale and its checks,
 * for 120,000 lines); *end after it. */
static uint64_t hex(const char *p, const char **end)
{
    uint64_t v = 0;
    for (;; p++) {
        unsigned d = (unsigned char)*p - '0';
        if (d > 9) {
            d = ((unsigned char)*p | 0x20) - 'a';
            if (d > 5)
                break;
            d += 10;
        }
        v = v << 4 | d;
    }
    *end = p;
    return v;
}

/* The text symbols of all (t, T, w, W lines), in file order; *n their count,
 * *sorted whether their addresses never decrease (/proc/kallsyms's do not). */
static struct ksym *text_symbols(const char *all, size_t *n, int *sorted, uint64_t *text, uint64_t *etext)
{
    size_t cap = 0;
    struct ksym *syms = NULL;
    *n = 0;
    if (array_reserve(&syms, &cap, 1 << 16, sizeof *syms, 1 << 16) < 0)
        return NULL;
    for (const char *p = all; syms && *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        const char *end;
        uint64_t a = hex(p, &end);
        char type = end != p && end[0] == ' ' ? end[1] : 0;
        if (text && !strncmp(end, " T _text", 8) && (end[8] == '\n' || !end[8]))
            *text = a;
        if (etext && !strncmp(end, " T _etext", 9) && (end[9] == '\n' || !end[9]))
            *etext = a;
        if (a && (type == 't' || type == 'T' || type == 'w' || type == 'W')) {
            if (array_reserve(&syms, &cap, *n + 1, sizeof *syms, 1 << 16) < 0) {
                free(syms);
                return NULL;
            }
            if (*n && a < syms[*n - 1].addr)
                *sorted = 0;
            syms[(*n)++] = (struct ksym){a, p, l};
        }
        p += l + (nl ? 1 : 0);
    }
    return syms;
}

char *kallsyms_subset(const char *all, uint64_t *addrs, size_t n, size_t *out_len, uint64_t *text,
                      uint64_t *etext)
{
    if (text)
        *text = 0;
    if (etext)
        *etext = 0;
    size_t nsyms;
    int sorted = 1;
    struct ksym *syms = text_symbols(all, &nsyms, &sorted, text, etext);
    char *keep = calloc(nsyms + 1, 1), *out = NULL;
    if (!syms || !keep)
        goto done;
    if (!sorted)
        qsort(syms, nsyms, sizeof *syms, ksym_cmp);
    qsort(addrs, n, sizeof *addrs, u64_cmp);
    for (size_t i = 0, j = 0; i < n && nsyms; i++) {
        while (j + 1 < nsyms && syms[j + 1].addr <= addrs[i])
            j++;
        if (syms[j].addr <= addrs[i])
            keep[j] = keep[j + 1] = 1;
    }
    size_t len = 0;
    for (size_t i = 0; i < nsyms; i++)
        if (keep[i])
            len += syms[i].len + 1;
    if (!(out = malloc(len + 1)))
        goto done;
    size_t o = 0;
    for (size_t i = 0; i < nsyms; i++)
        if (keep[i]) {
            memcpy(out + o, syms[i].line, syms[i].len);
            o += syms[i].len;
            out[o++] = '\n';
        }
    out[o] = 0;
    *out_len = o;
done:
    free(keep);
    free(syms);
    return out;
}

/* The whole of the file at path (a /proc file too: its size is not known
 * before reading), NUL-terminated; NULL when it cannot be read. */
static char *read_all(const char *path, size_t *out_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *all = NULL;
    size_t len = 0, cap = 0;
    ssize_t got = -1;
    if (fd < 0)
        return NULL;
    while (array_reserve(&all, &cap, len + 65537, 1, 1 << 20) == 0) {
        got = read(fd, all + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    int e = errno;
    close(fd);
    if (got != 0) { /* a read error, or out of memory */
        free(all);
        errno = e;
        return NULL;
    }
    all[len] = 0;
    *out_len = len;
    return all;
}

/* ---- the cache of the core kernel's text symbols ----
 *
 * Reading /proc/kallsyms costs the kernel about 40 ms (it formats 120,000
 * lines), a tenth of what a recorder spends on a second of samples at
 * 20 kHz.  The core kernel's text symbols, from _text to _etext, stay what
 * they are until the next boot: their lines are kept in one file of the
 * cache directory, $XDG_CACHE_HOME/tr/kallsyms (else ~/.cache/tr/kallsyms),
 * under a first line "# boot BOOT-ID", and a recording of the same boot
 * whose kernel addresses are all in that range reads them from there.  Other
 * addresses (modules, BPF programs, trampolines) are always looked up in
 * /proc/kallsyms, which also writes the file again when it is of another
 * boot or missing.  Every failure of the cache is silent: it only saves
 * time. */

#define CACHE_HEAD "# boot "

static int cache_path(char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = -1;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/tr/kallsyms", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, size, "%s/.cache/tr/kallsyms", home);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* The cache's first line for this boot, or "" when the boot id is unknown. */
static void cache_head(char *head, size_t size)
{
    char id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    head[0] = 0;
    if (!f)
        return;
    if (fgets(id, sizeof id, f) && strlen(id) > 1 && id[strlen(id) - 1] == '\n')
        snprintf(head, size, CACHE_HEAD "%s", id);
    fclose(f);
}

/* mkdir -p of path's directory, mode 0700 for what it creates: 0 or -1. */
static int make_parent_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int rc = mkdir(path, 0700);
        *p = '/';
        if (rc < 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

/* Write head and the text symbols of all from text to etext to path, whole
 * (a temporary file renamed over it: concurrent recorders each rename a whole
 * file). */
static void cache_write(char *path, const char *head, const char *all, uint64_t text, uint64_t etext)
{
    size_t nsyms, len = strlen(head), cap = 0;
    int sorted = 1;
    struct ksym *syms = text_symbols(all, &nsyms, &sorted, NULL, NULL);
    char *out = NULL, tmp[PATH_MAX + 8];
    if (!syms || array_reserve(&out, &cap, len + 1, 1, 1 << 20) < 0)
        goto done;
    memcpy(out, head, len);
    for (size_t i = 0; i < nsyms; i++) {
        if (syms[i].addr < text || syms[i].addr > etext)
            continue;
        if (array_reserve(&out, &cap, len + syms[i].len + 1, 1, 1 << 20) < 0)
            goto done;
        memcpy(out + len, syms[i].line, syms[i].len);
        len += syms[i].len;
        out[len++] = '\n';
    }
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = make_parent_dirs(path) < 0 ? -1 : mkostemp(tmp, O_CLOEXEC); /* mode 0600 */
    if (fd < 0)
        goto done;
    size_t o = 0;
    while (o < len) {
        ssize_t w = write(fd, out + o, len - o);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        o += (size_t)w;
    }
    if (close(fd) < 0 || o < len || rename(tmp, path) < 0)
        unlink(tmp);
done:
    free(syms);
    free(out);
}

/* out with line and a newline appended; NULL (out freed) when out of memory. */
static char *emit_line(char *out, size_t *len, size_t *cap, const char *line, size_t n)
{
    if (!out || array_reserve(&out, cap, *len + n + 2, 1, 1 << 12) < 0) {
        free(out);
        return NULL;
    }
    memcpy(out + *len, line, n);
    *len += n;
    out[(*len)++] = '\n';
    out[*len] = 0;
    return out;
}

/* kallsyms_subset's lines, in one pass over a kallsyms text read from fd in
 * blocks, for the sorted addresses a: no copy of the text (the cache is 5 MB,
 * and a recorder reads it when it ends, at its peak memory), no table of its
 * symbols.  The text must begin with head (else -2: a cache of another boot)
 * and its text symbols be in address order (else -3: kallsyms_subset sorts
 * them); -1 when it cannot be read or out of memory. */
static int subset_stream(int fd, const char *head, const uint64_t *a, size_t na, char **out, size_t *out_len,
                         uint64_t *text, uint64_t *etext)
{
    size_t cap = 0, len = 0, bcap = 0, have = 0, pcap = 0, plen = 0, i = 0, hlen = strlen(head);
    char *o = NULL, *blk = NULL, *prev = NULL;
    uint64_t paddr = 0;
    int rc = -1, prev_out = 0, have_prev = 0, first = 1;
    *text = *etext = 0;
    if (array_reserve(&o, &cap, 1, 1, 1 << 12) < 0)
        return -1;
    o[0] = 0;
    for (int eof = 0; !eof;) {
        if (array_reserve(&blk, &bcap, have + 65537, 1, 1 << 16) < 0)
            goto done;
        ssize_t got = read(fd, blk + have, bcap - have - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            goto done;
        eof = got == 0;
        have += (size_t)got;
        blk[have] = 0;
        if (first && (have >= hlen || eof)) {
            if (have < hlen || memcmp(blk, head, hlen)) {
                rc = -2;
                goto done;
            }
            first = 0;
        }
        if (first)
            continue;
        char *p = blk, *end = blk + have;
        for (;;) {
            char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl && !(eof && p < end))
                break; /* a partial line: the next block ends it */
            size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
            const char *e;
            uint64_t ad = hex(p, &e);
            char type = e != p && e[0] == ' ' ? e[1] : 0;
            if (!strncmp(e, " T _text", 8) && (e[8] == '\n' || !e[8]))
                *text = ad;
            if (!strncmp(e, " T _etext", 9) && (e[9] == '\n' || !e[9]))
                *etext = ad;
            if (ad && (type == 't' || type == 'T' || type == 'w' || type == 'W')) {
                if (have_prev && ad < paddr) {
                    rc = -3;
                    goto done;
                }
                int cover = 0; /* prev is the last symbol at or below an address under this one */
                for (; i < na && a[i] < ad; i++)
                    cover |= have_prev && paddr <= a[i];
                if (cover && !prev_out && !(o = emit_line(o, &len, &cap, prev, plen)))
                    goto done;
                if (cover && !(o = emit_line(o, &len, &cap, p, l)))
                    goto done;
                if (array_reserve(&prev, &pcap, l + 1, 1, 256) < 0)
                    goto done;
                memcpy(prev, p, l);
                plen = l, paddr = ad, prev_out = cover, have_prev = 1;
            }
            p += l + (nl ? 1 : 0);
            if (!nl)
                break;
        }
        have = (size_t)(end - p);
        memmove(blk, p, have);
    }
    if (have_prev && !prev_out && i < na && paddr <= a[na - 1] && !(o = emit_line(o, &len, &cap, prev, plen)))
        goto done;
    rc = 0;
done:
    free(blk);
    free(prev);
    if (rc)
        free(o);
    *out = rc ? NULL : o;
    *out_len = rc ? 0 : len;
    return rc;
}

char *kallsyms_of(const hashmap *addrs, size_t *out_len, uint64_t *text, uint64_t *etext)
{
    char path[PATH_MAX], head[96], *all = NULL, *out = NULL;
    size_t len = 0, na = 0, it = 0;
    uint64_t t = 0, e = 0;
    uint64_t *a = malloc((addrs->count + 1) * sizeof *a);
    if (!a)
        return NULL;
    for (hashmap_slot *k; (k = hashmap_next(addrs, &it));)
        a[na++] = k->a;
    int cache = cache_path(path, sizeof path) == 0;
    if (cache)
        cache_head(head, sizeof head);
    cache = cache && head[0];
    qsort(a, na, sizeof *a, u64_cmp);
    int fd = cache ? open(path, O_RDONLY | O_CLOEXEC) : -1, fresh = 0;
    if (fd >= 0) {
        fresh = subset_stream(fd, head, a, na, &out, out_len, &t, &e) != -2;
        close(fd);
    }
    if (out && t && na && a[0] >= t && a[na - 1] < e)
        goto done;
    free(out);
    out = NULL;
    if (!(all = read_all("/proc/kallsyms", &len)))
        goto done;
    out = kallsyms_subset(all, a, na, out_len, &t, &e);
    if (cache && !fresh && t && e > t)
        cache_write(path, head, all, t, e);
done:
    if (text)
        *text = out ? t : 0;
    if (etext)
        *etext = out ? e : 0;
    free(all);
    free(a);
    return out;
}
