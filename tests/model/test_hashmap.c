/* model/hashmap.h and model/array.h: the map keeps every key through growth and deletion
 * (linear-probing clusters re-inserted), iterates each entry once, and the pool interns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "array.h"
#include "hashmap.h"

static void test_map_grow_delete_iterate(void **state)
{
    (void)state;
    hashmap m = {0};
    static int vals[5000];
    for (uint64_t i = 0; i < 5000; i++)
        assert_int_equal(hashmap_put(&m, i, i * 7, &vals[i]), 0);
    assert_int_equal(m.count, 5000);
    for (uint64_t i = 0; i < 5000; i += 2)
        hashmap_del(&m, i, i * 7);
    assert_int_equal(m.count, 2500);
    for (uint64_t i = 0; i < 5000; i++)
        assert_ptr_equal(hashmap_get(&m, i, i * 7), i % 2 ? &vals[i] : NULL);
    assert_null(hashmap_get(&m, 1, 8));
    size_t it = 0, seen = 0;
    for (hashmap_slot *s; (s = hashmap_next(&m, &it));) {
        assert_true(s->a % 2 == 1);
        assert_ptr_equal(s->val, &vals[s->a]);
        seen++;
    }
    assert_int_equal(seen, 2500);
    hashmap_free(&m);
    assert_null(hashmap_get(&m, 1, 7));
}

/* A map reserved for n entries takes them without moving its slots, and
 * keeps what it held before the reserve. */
static void test_map_reserve(void **state)
{
    (void)state;
    hashmap m = {0};
    static int vals[3000];
    for (uint64_t i = 0; i < 100; i++)
        assert_int_equal(hashmap_put(&m, i, 1, &vals[i]), 0);
    assert_int_equal(hashmap_reserve(&m, 3000), 0);
    const hashmap_slot *slots = m.slots;
    size_t cap = m.cap;
    for (uint64_t i = 100; i < 3000; i++)
        assert_int_equal(hashmap_put(&m, i, 1, &vals[i]), 0);
    assert_ptr_equal(m.slots, slots);
    assert_int_equal(m.cap, cap);
    assert_int_equal(hashmap_reserve(&m, 10), 0); /* never shrinks */
    assert_int_equal(m.cap, cap);
    for (uint64_t i = 0; i < 3000; i++)
        assert_ptr_equal(hashmap_get(&m, i, 1), &vals[i]);
    assert_int_equal(m.count, 3000);
    hashmap_free(&m);
}

static void test_strpool(void **state)
{
    (void)state;
    strpool p = {0};
    const char *a = strpool_intern(&p, "main.c:12", 6);
    assert_string_equal(a, "main.c");
    char buf[32];
    for (int i = 0; i < 1000; i++) {
        int n = snprintf(buf, sizeof buf, "s%d", i);
        assert_non_null(strpool_intern(&p, buf, (size_t)n));
    }
    assert_ptr_equal(strpool_intern(&p, "main.c", 6), a);
    assert_int_equal(p.count, 1001);
    strpool_free(&p);
}

static void test_array_reserve(void **state)
{
    (void)state;
    int *a = NULL;
    size_t cap = 0;
    for (size_t n = 0; n < 1000; n++) {
        assert_int_equal(array_reserve(&a, &cap, n + 1, sizeof *a, 4), 0);
        assert_true(cap >= n + 1);
        a[n] = (int)n;
    }
    assert_int_equal(cap, 1024);
    assert_int_equal(a[999], 999);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_grow_delete_iterate),
        cmocka_unit_test(test_map_reserve),
        cmocka_unit_test(test_strpool),
        cmocka_unit_test(test_array_reserve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
