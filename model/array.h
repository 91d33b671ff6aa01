/*
 * array.h - growable arrays of any element type.
 *
 *     struct item *items = NULL; size_t n = 0, cap = 0;
 *     if (array_reserve(&items, &cap, n + 1, sizeof *items, 16) < 0)
 *         return TR_E_NOMEM;
 *     items[n++] = x;
 *
 * Like every module of model/, it never prints or exits.
 */
#ifndef MODEL_ARRAY_H
#define MODEL_ARRAY_H

#include <stddef.h>

/* Grow the array *arrp (arrp is the address of the array pointer; elements
 * of elem bytes) to hold at least n elements, doubling from first (a table
 * of several MiB on huge pages: tr_advise_huge).  0, or TR_E_NOMEM with the
 * array and *cap unchanged. */
int array_reserve(void *arrp, size_t *cap, size_t n, size_t elem, size_t first);
/* The same, the elements it adds zeroed (an array indexed by id). */
int array_reserve_zeroed(void *arrp, size_t *cap, size_t n, size_t elem, size_t first);


#endif
