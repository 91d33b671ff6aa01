/* model/lathist.h: exact below 64, quantiles within 1/64 of the true value
 * above (a million values, from nanoseconds to minutes), min and max exact,
 * the size fixed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "lathist.h"

static void test_small_exact(void **state)
{
    (void)state;
    struct lathist h = {0};
    assert_int_equal(lathist_quantile(&h, 0.5), 0);
    for (uint64_t v = 1; v <= 63; v++)
        assert_int_equal(lathist_add(&h, v), 0);
    assert_int_equal(lathist_quantile(&h, 0.5), 32);
    assert_int_equal(lathist_quantile(&h, 0), 1);
    assert_int_equal(lathist_quantile(&h, 1), 63);
    assert_int_equal(h.n, 63);
    assert_int_equal(h.sum, 63 * 64 / 2);
    lathist_free(&h);
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_quantiles_bounded_error(void **state)
{
    (void)state;
    enum { N = 1000000 };
    uint64_t *v = malloc(N * sizeof *v), x = 88172645463325252ull;
    assert_non_null(v);
    struct lathist h = {0};
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = 1 + (x % 1000003) * (1ull << (x >> 58) % 36); /* spread over 2^0 .. 2^56 */
        assert_int_equal(lathist_add(&h, v[i]), 0);
    }
    qsort(v, N, sizeof *v, cmp);
    static const double qs[] = {0.01, 0.5, 0.9, 0.99, 0.999};
    for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
        uint64_t truth = v[(size_t)(qs[i] * N + 0.5) - 1], got = lathist_quantile(&h, qs[i]);
        double err = got > truth ? (double)(got - truth) : (double)(truth - got);
        assert_true(err <= (double)truth / 64 + 1);
    }
    assert_int_equal(h.max, v[N - 1]);
    assert_int_equal(h.min, v[0]);
    assert_int_equal(lathist_quantile(&h, 1), v[N - 1]);
    lathist_free(&h);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_exact),
        cmocka_unit_test(test_quantiles_bounded_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
