/* lathist.c - the bounded latency histogram (lathist.h). */
#include "lathist.h"

#include <stdlib.h>

#include "tr.h"

static size_t bucket_of(uint64_t v)
{
    if (v < 64)
        return (size_t)v;
    int e = 63 - __builtin_clzll(v);                     /* 6 .. 63 */
    uint64_t sub = (v >> (e - 5)) & (LATHIST_SUB - 1);   /* the 5 bits after the top one */
    return 64 + (size_t)(e - 6) * LATHIST_SUB + (size_t)sub;
}

/* The least value of bucket b and the first of the next. */
static void bucket_range(size_t b, uint64_t *lo, uint64_t *hi)
{
    if (b < 64) {
        *lo = b, *hi = b + 1;
        return;
    }
    int e = (int)((b - 64) / LATHIST_SUB) + 6;
    uint64_t sub = (b - 64) % LATHIST_SUB;
    *lo = (1ull << e) + (sub << (e - 5));
    *hi = *lo + (1ull << (e - 5));
}

int lathist_add(struct lathist *h, uint64_t v)
{
    if (!h->b && !(h->b = calloc(LATHIST_BUCKETS, sizeof *h->b)))
        return TR_E_NOMEM;
    h->b[bucket_of(v)]++;
    if (!h->n || v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->n++;
    h->sum += v;
    return 0;
}

uint64_t lathist_quantile(const struct lathist *h, double q)
{
    if (!h->n)
        return 0;
    uint64_t rank = (uint64_t)(q * (double)h->n + 0.5), seen = 0;
    if (rank < 1)
        rank = 1;
    for (size_t b = 0; b < LATHIST_BUCKETS; b++) {
        seen += h->b[b];
        if (seen >= rank) {
            uint64_t lo, hi;
            bucket_range(b, &lo, &hi);
            uint64_t mid = lo + (hi - lo - 1) / 2;
            return mid > h->max ? h->max : mid < h->min ? h->min : mid;
        }
    }
    return h->max;
}

void lathist_free(struct lathist *h)
{
    free(h->b);
    h->b = NULL;
}

