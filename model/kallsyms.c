/* kallsyms.c - the part of a /proc/kallsyms text a trace needs. */
#include "kallsyms.h"

#include <stdlib.h>
#include <string.h>

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

/* The text symbols of all (t, T, w, W lines), in file order; *n their count. */
static struct ksym *text_symbols(const char *all, size_t *n, uint64_t *text, uint64_t *etext)
{
    size_t cap = 0;
    struct ksym *syms = NULL;
    *n = 0;
    if (array_reserve(&syms, &cap, 1 << 16, sizeof *syms, 1 << 16) < 0)
        return NULL;
    for (const char *p = all; syms && *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        char *end;
        uint64_t a = strtoull(p, &end, 16);
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
    struct ksym *syms = text_symbols(all, &nsyms, text, etext);
    char *keep = calloc(nsyms + 1, 1), *out = NULL;
    if (!syms || !keep)
        goto done;
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
