/* smap.c - an open-addressing hash map from byte strings to counts. */
#include "folded.h"

#include <stdlib.h>
#include <string.h>

void smap_init(struct smap *m)
{
    memset(m, 0, sizeof *m);
}

void smap_free(struct smap *m)
{
    free(m->e);
    free(m->slot);
    free(m->keys);
    memset(m, 0, sizeof *m);
}

uint64_t smap_hash(const void *p, size_t len)
{
    const unsigned char *s = p;
    uint64_t h = 0x243f6a8885a308d3ull ^ (len * 0x9e3779b97f4a7c15ull);
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
        s += 8, len -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, len);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 32;
    return h;
}

static int grow_slots(struct smap *m)
{
    size_t ns = m->nslot ? m->nslot * 2 : 1024;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        size_t j = m->e[i].hash & (ns - 1);
        while (s[j])
            j = (j + 1) & (ns - 1);
        s[j] = (uint32_t)(i + 1);
    }
    free(m->slot);
    m->slot = s;
    m->nslot = ns;
    return 0;
}

struct smap_entry *smap_get(struct smap *m, const void *key, size_t len)
{
    uint64_t h = smap_hash(key, len);
    if (m->n + 1 > m->nslot / 2 && grow_slots(m) < 0)
        return NULL;
    size_t j = h & (m->nslot - 1);
    while (m->slot[j]) {
        struct smap_entry *e = &m->e[m->slot[j] - 1];
        if (e->hash == h && e->len == len && !memcmp(m->keys + e->off, key, len))
            return e;
        j = (j + 1) & (m->nslot - 1);
    }
    if (m->n >= UINT32_MAX - 1)
        return NULL;
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 1024;
        struct smap_entry *ne = realloc(m->e, nc * sizeof *ne);
        if (!ne)
            return NULL;
        m->e = ne;
        m->cap = nc;
    }
    if (m->keys_cap - m->keys_len < len + 1) {
        size_t nc = m->keys_cap ? m->keys_cap : 1 << 16;
        while (nc - m->keys_len < len + 1)
            nc *= 2;
        char *nk = realloc(m->keys, nc);
        if (!nk)
            return NULL;
        m->keys = nk;
        m->keys_cap = nc;
    }
    memcpy(m->keys + m->keys_len, key, len);
    m->keys[m->keys_len + len] = 0;
    struct smap_entry *e = &m->e[m->n];
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->off = m->keys_len;
    e->len = len;
    m->keys_len += len + 1;
    m->slot[j] = (uint32_t)(++m->n);
    return e;
}

static const struct smap *sort_map;

static int cmp_keys(const void *a, const void *b)
{
    const struct smap_entry *x = &sort_map->e[*(const size_t *)a];
    const struct smap_entry *y = &sort_map->e[*(const size_t *)b];
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(sort_map->keys + x->off, sort_map->keys + y->off, n);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

size_t *smap_sorted(const struct smap *m)
{
    size_t *idx = malloc((m->n ? m->n : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    for (size_t i = 0; i < m->n; i++)
        idx[i] = i;
    sort_map = m;
    qsort(idx, m->n, sizeof *idx, cmp_keys);
    return idx;
}
