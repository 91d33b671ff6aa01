/* smap.c - an open-addressing hash map from byte strings to counts (smap.h). */
#include "smap.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"

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

static inline uint64_t load64(const unsigned char *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

static inline uint64_t mix(uint64_t h)
{
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
}

/* The 1 to 7 bytes of a short key as one word, from whole loads (a
 * memcpy of a variable length to a local would stall its reload). */
static inline uint64_t load_short(const unsigned char *s, size_t n)
{
    if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + n - 4, 4);
        return (uint64_t)hi << 32 | lo;
    }
    return (uint64_t)s[0] << 16 | (uint64_t)s[n / 2] << 8 | s[n - 1];
}

/* Two independent lanes of 8 bytes each step, so that the multiplies of
 * a long key overlap; a tail is read as a whole word ending with the key
 * (it overlaps bytes already hashed); the length is hashed too. */
uint64_t smap_hash(const void *p, size_t len)
{
    const unsigned char *s = p;
    uint64_t a = 0x243f6a8885a308d3ull ^ (len * 0x9e3779b97f4a7c15ull);
    uint64_t b = 0x13198a2e03707344ull;
    if (len < 8) {
        if (len > 0)
            a = mix(a ^ load_short(s, len));
    } else {
        const unsigned char *end = s + len;
        for (; end - s >= 16; s += 16) {
            a = mix(a ^ load64(s));
            b = mix(b ^ load64(s + 8));
        }
        if (end - s > 8) {
            a = mix(a ^ load64(s));
            b = mix(b ^ load64(end - 8));
        } else if (end > s) {
            a = mix(a ^ load64(end - 8));
        }
    }
    uint64_t h = a ^ (b * 0xc4ceb9fe1a85ec53ull);
    h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static inline uint32_t tag_of(uint64_t h) { return (uint32_t)(h >> 32); }

static int grow_slots(struct smap *m)
{
    size_t ns = m->nslot ? m->nslot * 2 : 1024;
    struct smap_slot *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        size_t j = m->e[i].hash & (ns - 1);
        while (s[j].idx)
            j = (j + 1) & (ns - 1);
        s[j] = (struct smap_slot){(uint32_t)(i + 1), tag_of(m->e[i].hash)};
    }
    free(m->slot);
    m->slot = s;
    m->nslot = ns;
    return 0;
}

/* The slot of key in m: its entry's, or the empty one where it would go. */
static size_t find_slot(const struct smap *m, const void *key, size_t len, uint64_t h)
{
    size_t j = h & (m->nslot - 1);
    uint32_t tag = tag_of(h);
    for (; m->slot[j].idx; j = (j + 1) & (m->nslot - 1)) {
        if (m->slot[j].tag != tag)
            continue;
        const struct smap_entry *e = &m->e[m->slot[j].idx - 1];
        if (e->hash == h && e->len == len && !memcmp(m->keys + e->off, key, len))
            break;
    }
    return j;
}

struct smap_entry *smap_find(const struct smap *m, const void *key, size_t len)
{
    if (m->n == 0)
        return NULL;
    size_t j = find_slot(m, key, len, smap_hash(key, len));
    return m->slot[j].idx ? &m->e[m->slot[j].idx - 1] : NULL;
}

struct smap_entry *smap_get(struct smap *m, const void *key, size_t len)
{
    uint64_t h = smap_hash(key, len);
    if (m->n + 1 > m->nslot / 2 && grow_slots(m) < 0)
        return NULL;
    size_t j = find_slot(m, key, len, h);
    if (m->slot[j].idx)
        return &m->e[m->slot[j].idx - 1];
    if (m->n >= UINT32_MAX - 1)
        return NULL;
    if (array_reserve(&m->e, &m->cap, m->n + 1, sizeof *m->e, 1024) < 0 ||
        array_reserve(&m->keys, &m->keys_cap, m->keys_len + len + 1, 1, 1 << 16) < 0)
        return NULL;
    memcpy(m->keys + m->keys_len, key, len);
    m->keys[m->keys_len + len] = 0;
    struct smap_entry *e = &m->e[m->n];
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->off = m->keys_len;
    e->len = len;
    m->keys_len += len + 1;
    m->slot[j] = (struct smap_slot){(uint32_t)(++m->n), tag_of(h)};
    return e;
}

/* ---- sorting ---------------------------------------------------------
 * Multikey quicksort (Bentley and Sedgewick) on 8-byte words: partition
 * by the word at depth d, then sort the middle part by the next word.
 * Folded stacks share long prefixes, which a comparison sort compares
 * again in every comparison; here each word is read about log n times. */

struct skey { const unsigned char *p; size_t len, idx; };

/* The bytes [d, d+8) of a key as a big-endian number (0 past its end)
 * and how many of them it has: compared in this order (word, then count),
 * keys are in bytewise order, a prefix first. */
struct word { uint64_t w; size_t n; };

static inline struct word word_at(const struct skey *k, size_t d)
{
    struct word r = {0, d < k->len ? k->len - d : 0};
    if (r.n >= 8) {
        memcpy(&r.w, k->p + d, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        r.w = __builtin_bswap64(r.w);
#endif
        r.n = 8;
    } else {
        for (size_t i = 0; i < r.n; i++)
            r.w |= (uint64_t)k->p[d + i] << (56 - 8 * i);
    }
    return r;
}

static inline int cmp_words(struct word x, struct word y)
{
    if (x.w != y.w)
        return x.w < y.w ? -1 : 1;
    return x.n < y.n ? -1 : x.n > y.n;
}

static inline void swap_keys(struct skey *a, struct skey *b)
{
    struct skey t = *a;
    *a = *b;
    *b = t;
}

/* Bytewise order of keys equal in their first d bytes. */
static int cmp_from(const struct skey *x, const struct skey *y, size_t d)
{
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->p + d, y->p + d, n - d);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static void insertion_sort(struct skey *a, size_t n, size_t d)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cmp_from(&a[j - 1], &a[j], d) > 0; j--)
            swap_keys(&a[j - 1], &a[j]);
}

static size_t median3(const struct skey *a, size_t i, size_t j, size_t k, size_t d)
{
    struct word x = word_at(&a[i], d), y = word_at(&a[j], d), z = word_at(&a[k], d);
    if (cmp_words(x, y) < 0)
        return cmp_words(y, z) < 0 ? j : cmp_words(x, z) < 0 ? k : i;
    return cmp_words(x, z) < 0 ? i : cmp_words(y, z) < 0 ? k : j;
}

/* Sort a[0..n), distinct keys equal in their first d bytes.  It recurses
 * into the two smaller of the three parts and loops on the largest, so
 * the recursion is at most log2(n) deep. */
static void mkqsort(struct skey *a, size_t n, size_t d)
{
    while (n > 1) {
        if (n < 12) {
            insertion_sort(a, n, d);
            return;
        }
        swap_keys(&a[0], &a[median3(a, 0, n / 2, n - 1, d)]);
        struct word v = word_at(&a[0], d);
        size_t lt = 0, i = 1, gt = n; /* [0,lt) < v, [lt,i) == v, [gt,n) > v */
        while (i < gt) {
            int c = cmp_words(word_at(&a[i], d), v);
            if (c < 0)
                swap_keys(&a[lt++], &a[i++]);
            else if (c > 0)
                swap_keys(&a[i], &a[--gt]);
            else
                i++;
        }
        size_t nl = lt, ne = gt - lt, ng = n - gt;
        if (v.n < 8) /* the one key that ends here is in place */
            ne = 0;
        if (ne >= nl && ne >= ng) {
            mkqsort(a, nl, d);
            mkqsort(a + gt, ng, d);
            a += lt, n = ne, d += 8;
        } else if (nl >= ng) {
            mkqsort(a + gt, ng, d);
            mkqsort(a + lt, ne, d + 8);
            n = nl;
        } else {
            mkqsort(a, nl, d);
            mkqsort(a + lt, ne, d + 8);
            a += gt, n = ng;
        }
    }
}

size_t *smap_sorted(const struct smap *m)
{
    size_t *idx = malloc((m->n ? m->n : 1) * sizeof *idx);
    struct skey *k = malloc((m->n ? m->n : 1) * sizeof *k);
    if (!idx || !k) {
        free(idx);
        free(k);
        return NULL;
    }
    for (size_t i = 0; i < m->n; i++)
        k[i] = (struct skey){(const unsigned char *)m->keys + m->e[i].off, m->e[i].len, i};
    mkqsort(k, m->n, 0);
    for (size_t i = 0; i < m->n; i++)
        idx[i] = k[i].idx;
    free(k);
    return idx;
}
