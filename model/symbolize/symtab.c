/*
 * symtab.c - sorted address tables: the kernel's kallsyms and JIT perf maps.
 */
#include <stdlib.h>
#include <string.h>

#include "sym_int.h"

static uint64_t next_table_id = 1;

static int cmp_entry(const void *a, const void *b)
{
    const sym_tab_entry *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static sym_tab *tab_new(const char *text, size_t len)
{
    sym_tab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->id = __atomic_fetch_add(&next_table_id, 1, __ATOMIC_RELAXED) | (1ull << 63);
    t->crc = tr_crc32c(0, text, len);
    t->text_len = len;
    return t;
}

static int tab_push(sym_tab *t, size_t *cap, const sym_tab_entry *e)
{
    if (array_reserve(&t->e, cap, t->n + 1, sizeof *t->e, 1024) < 0)
        return -1;
    t->e[t->n++] = *e;
    return 0;
}

static uint64_t parse_hex(const char **p, const char *end, int *ok)
{
    uint64_t v = 0;
    int digits = 0;
    const char *s = *p;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    for (; s < end; s++, digits++) {
        char c = *s;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            break;
        v = v << 4 | (uint64_t)d;
    }
    *ok = digits > 0 && digits <= 16;
    *p = s;
    return v;
}

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static void tab_finish(sym_tab *t, int fill_sizes)
{
    size_t i = 1;
    while (i < t->n && t->e[i - 1].start <= t->e[i].start)
        i++;
    if (i < t->n) /* /proc/kallsyms is nearly always sorted already */
        qsort(t->e, t->n, sizeof *t->e, cmp_entry);
    if (!fill_sizes)
        return;
    for (size_t i = 0; i + 1 < t->n; i++)
        if (t->e[i + 1].start > t->e[i].start)
            t->e[i].size = t->e[i + 1].start - t->e[i].start;
}

/* Names point into the table's own copy of the text (NUL-terminated in
 * place): 100,000s of kernel symbols cost one allocation, not one each. */
sym_tab *sym_tab_kallsyms(strpool *pool, const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, text, len);
    return sym_tab_kallsyms_take(pool, copy, len);
}

sym_tab *sym_tab_kallsyms_take(strpool *pool, char *copy, size_t len)
{
    sym_tab *t = tab_new(copy, len);
    size_t cap = 0;
    if (!t) {
        free(copy);
        return NULL;
    }
    copy[len] = '\0';
    t->text = copy;
    const char *kernel = strpool_intern(pool, "[kernel.kallsyms]", 17);
    if (!kernel)
        goto nomem;
    const char *last_mod = NULL, *last_mod_name = NULL;
    size_t last_mod_len = 0;
    for (char *p = copy, *end = copy + len; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *eol = nl ? nl : end;
        int ok;
        const char *q = p;
        uint64_t addr = parse_hex(&q, eol, &ok);
        p = (char *)skip_blank(q, eol);
        char type = p < eol ? *p++ : 0;
        p = (char *)skip_blank(p, eol);
        char *name = p;
        while (p < eol && *p != ' ' && *p != '\t')
            p++;
        char *name_end = p;
        p = (char *)skip_blank(p, eol);
        if (ok && addr && name_end > name && (type == 't' || type == 'T' || type == 'w' || type == 'W')) {
            sym_tab_entry e = { addr, 0, name, kernel };
            if (p < eol && *p == '[') {
                const char *r = memchr(p, ']', (size_t)(eol - p));
                if (r) {
                    size_t ml = (size_t)(r - p + 1);
                    if (!last_mod || ml != last_mod_len || memcmp(last_mod_name, p, ml) != 0) {
                        last_mod = strpool_intern(pool, p, ml);
                        last_mod_name = last_mod;
                        last_mod_len = ml;
                    }
                    e.module = last_mod;
                }
            }
            *name_end = '\0';
            if (!e.module || tab_push(t, &cap, &e) < 0)
                goto nomem;
        }
        p = nl ? nl + 1 : end;
    }
    tab_finish(t, 1);
    return t;
nomem:
    sym_tab_free(t);
    return NULL;
}

sym_tab *sym_tab_perfmap(strpool *pool, const char *text, size_t len)
{
    sym_tab *t = tab_new(text, len);
    size_t cap = 0;
    if (!t)
        return NULL;
    const char *jit = strpool_intern(pool, "[jit]", 5);
    if (!jit)
        goto nomem;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        int ok1, ok2;
        uint64_t start = parse_hex(&p, eol, &ok1);
        p = skip_blank(p, eol);
        uint64_t size = parse_hex(&p, eol, &ok2);
        p = skip_blank(p, eol);
        const char *name_end = eol;
        while (name_end > p && (name_end[-1] == '\r' || name_end[-1] == ' '))
            name_end--;
        if (ok1 && ok2 && size && name_end > p) {
            sym_tab_entry e = { start, size, strpool_intern(pool, p, (size_t)(name_end - p)), jit };
            if (!e.name || tab_push(t, &cap, &e) < 0)
                goto nomem;
        }
        p = nl ? nl + 1 : end;
    }
    tab_finish(t, 0);
    return t;
nomem:
    sym_tab_free(t);
    return NULL;
}

const sym_tab_entry *sym_tab_find(const sym_tab *t, uint64_t addr)
{
    if (!t || !t->n || addr < t->e[0].start)
        return NULL;
    size_t lo = 0, hi = t->n; /* find the last entry with start <= addr */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->e[mid].start <= addr)
            lo = mid;
        else
            hi = mid;
    }
    /* perf maps may overlap (code regenerated): prefer an entry that covers */
    for (size_t i = lo + 1; i-- > 0 && lo - i < 8;) {
        const sym_tab_entry *e = &t->e[i];
        if (e->size == 0 ? i == lo : addr - e->start < e->size)
            return e;
    }
    return NULL;
}

void sym_tab_free(sym_tab *t)
{
    if (!t)
        return;
    free(t->e);
    free(t->text);
    free(t);
}
