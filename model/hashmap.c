/*
 * hashmap.c - the hash map, the string pool and growable arrays
 * (hashmap.h, array.h).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashmap.h"
#include "tr.h"

int array_reserve(void *arrp, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : first;
    while (ncap < n)
        ncap *= 2;
    void *arr;
    memcpy(&arr, arrp, sizeof arr);
    void *grown = realloc(arr, ncap * elem);
    if (!grown)
        return TR_E_NOMEM;
    tr_advise_huge(grown, ncap * elem);
    memcpy(arrp, &grown, sizeof grown);
    *cap = ncap;
    return 0;
}

int array_reserve_zeroed(void *arrp, size_t *cap, size_t n, size_t elem, size_t first)
{
    size_t old = *cap;
    if (array_reserve(arrp, cap, n, elem, first) < 0)
        return TR_E_NOMEM;
    char *arr;
    memcpy(&arr, arrp, sizeof arr);
    if (*cap > old)
        memset(arr + old * elem, 0, (*cap - old) * elem);
    return 0;
}

uint64_t hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h ^ (h >> 29);
}

uint64_t hash_words(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *b = data;
    uint64_t h = seed;
    for (; len >= 8; len -= 8, b += 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = (h + w) * 0x9e3779b97f4a7c15ull;
    }
    for (; len; len--)
        h = (h + *b++) * 0x9e3779b97f4a7c15ull;
    return h ^ h >> 29;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6));
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return h;
}

static hashmap_slot *map_slot(const hashmap *m, uint64_t a, uint64_t b)
{
    size_t mask = m->cap - 1;
    size_t i = mix(a, b) & mask;
    for (;;) {
        hashmap_slot *s = &m->slots[i];
        if (!s->val || (s->a == a && s->b == b))
            return s;
        i = (i + 1) & mask;
    }
}

void *hashmap_get(const hashmap *m, uint64_t a, uint64_t b)
{
    if (!m->cap)
        return NULL;
    return map_slot(m, a, b)->val;
}

/* The slots rebuilt at ncap (a power of two holding the entries). */
static int map_grow(hashmap *m, size_t ncap)
{
    hashmap n = { calloc(ncap, sizeof(hashmap_slot)), ncap, 0 };
    if (!n.slots)
        return TR_E_NOMEM;
    tr_advise_huge(n.slots, ncap * sizeof(hashmap_slot));
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].val) {
            *map_slot(&n, m->slots[i].a, m->slots[i].b) = m->slots[i];
            n.count++;
        }
    free(m->slots);
    *m = n;
    return 0;
}

int hashmap_reserve(hashmap *m, size_t n)
{
    size_t ncap = m->cap ? m->cap : 64;
    while ((n + 1) * 4 >= ncap * 3)
        ncap *= 2;
    return ncap == m->cap ? 0 : map_grow(m, ncap);
}

int hashmap_put(hashmap *m, uint64_t a, uint64_t b, void *val)
{
    if ((m->count + 1) * 4 >= m->cap * 3 && map_grow(m, m->cap ? m->cap * 2 : 64) < 0)
        return TR_E_NOMEM;
    hashmap_slot *s = map_slot(m, a, b);
    if (!s->val)
        m->count++;
    s->a = a;
    s->b = b;
    s->val = val;
    return 0;
}

void hashmap_del(hashmap *m, uint64_t a, uint64_t b)
{
    if (!m->cap)
        return;
    hashmap_slot *s = map_slot(m, a, b);
    if (!s->val)
        return;
    s->val = NULL;
    m->count--;
    /* re-insert the rest of the cluster (linear probing deletion) */
    size_t mask = m->cap - 1;
    size_t i = ((size_t)(s - m->slots) + 1) & mask;
    while (m->slots[i].val) {
        hashmap_slot t = m->slots[i];
        m->slots[i].val = NULL;
        *map_slot(m, t.a, t.b) = t;
        i = (i + 1) & mask;
    }
}

hashmap_slot *hashmap_next(const hashmap *m, size_t *i)
{
    for (; *i < m->cap; (*i)++)
        if (m->slots[*i].val)
            return &m->slots[(*i)++];
    return NULL;
}

void hashmap_free(hashmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static int pool_grow(strpool *p)
{
    size_t ncap = p->cap ? p->cap * 2 : 256;
    char **n = calloc(ncap, sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < p->cap; i++) {
        char *s = p->slots[i];
        if (!s)
            continue;
        size_t j = hash_bytes(s, strlen(s)) & (ncap - 1);
        while (n[j])
            j = (j + 1) & (ncap - 1);
        n[j] = s;
    }
    free(p->slots);
    p->slots = n;
    p->cap = ncap;
    return 0;
}

const char *strpool_intern(strpool *p, const char *s, size_t len)
{
    if ((p->count + 1) * 2 >= p->cap && pool_grow(p) < 0)
        return NULL;
    size_t mask = p->cap - 1;
    size_t i = hash_bytes(s, len) & mask;
    while (p->slots[i]) {
        const char *t = p->slots[i];
        if (strncmp(t, s, len) == 0 && t[len] == '\0')
            return t;
        i = (i + 1) & mask;
    }
    char *c = malloc(len + 1);
    if (!c)
        return NULL;
    memcpy(c, s, len);
    c[len] = '\0';
    p->slots[i] = c;
    p->count++;
    return c;
}

void strpool_free(strpool *p)
{
    for (size_t i = 0; i < p->cap; i++)
        free(p->slots[i]);
    free(p->slots);
    memset(p, 0, sizeof *p);
}
