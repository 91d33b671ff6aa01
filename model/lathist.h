/*
 * lathist.h - a latency histogram of bounded size: values below 64 kept
 * exactly, above in 32 buckets per power of two (log-linear), so a quantile
 * is within 1/64 of the true value (the middle of its bucket) whatever the
 * number of values, in 7.6 KB.  tr-report's syscall latency percentiles.
 * A zeroed struct is empty; never prints or exits.
 */
#ifndef MODEL_LATHIST_H
#define MODEL_LATHIST_H

#include <stdint.h>

#define LATHIST_SUB 32
#define LATHIST_BUCKETS (64 + 58 * LATHIST_SUB)
struct lathist {
    uint32_t *b;               /* LATHIST_BUCKETS counts, allocated at the first add */
    uint64_t n, sum, max, min;
};
/* Count v: 0, or TR_E_NOMEM. */
int lathist_add(struct lathist *h, uint64_t v);
/* The q-quantile (0..1, nearest rank): the middle of its bucket, within
 * [min, max]; 0 when empty. */
uint64_t lathist_quantile(const struct lathist *h, double q);
void lathist_free(struct lathist *h);

#endif
