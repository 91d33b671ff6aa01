/* model/offcpu.h and model/json.h: a wait runs from a task's switch-out to its switch-in,
 * or to when it is seen running; each ends once, with its cookie; a new stream forgets the
 * waits; the state names; JSON string escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "offcpu.h"

struct ended { uint64_t cookie, start, end; int32_t tid; int n; };

static void ended(void *ctx, uint64_t cookie, int32_t tid, uint64_t start, uint64_t end)
{
    struct ended *e = ctx;
    *e = (struct ended){cookie, start, end, tid, e->n + 1};
}

static void test_waits(void **state)
{
    (void)state;
    struct ended e = {0};
    offcpu *o = offcpu_new(ended, &e);
    assert_non_null(o);
    assert_int_equal(offcpu_switch_out(o, 42, 1000, 7), 0);
    offcpu_switch_in(o, 43, 1500);      /* another task */
    assert_int_equal(e.n, 0);
    offcpu_switch_in(o, 42, 1800);
    assert_int_equal(e.n, 1);
    assert_int_equal(e.cookie, 7);
    assert_int_equal(e.tid, 42);
    assert_int_equal(e.start, 1000);
    assert_int_equal(e.end, 1800);
    offcpu_switch_in(o, 42, 1900);      /* ended already */
    offcpu_running(o, 42, 2000);
    assert_int_equal(e.n, 1);
    /* seen running without its switch-in: ends then */
    assert_int_equal(offcpu_switch_out(o, 42, 3000, 8), 0);
    offcpu_running(o, 42, 3500);
    assert_int_equal(e.n, 2);
    assert_int_equal(e.cookie, 8);
    assert_int_equal(e.end, 3500);
    /* times out of order never give a negative wait */
    assert_int_equal(offcpu_switch_out(o, 5, 4000, 9), 0);
    offcpu_switch_in(o, 5, 3999);
    assert_int_equal(e.end - e.start, 0);
    /* a new stream forgets the open waits */
    assert_int_equal(offcpu_switch_out(o, 6, 5000, 10), 0);
    offcpu_reset(o);
    offcpu_switch_in(o, 6, 6000);
    assert_int_equal(e.n, 3);
    assert_int_equal(offcpu_layout_known(o), 0);
    offcpu_free(o);
}

static void test_states(void **state)
{
    (void)state;
    assert_true(offcpu_waits(42, 1));
    assert_false(offcpu_waits(0, 1));      /* the idle task */
    assert_false(offcpu_waits(42, 0x10));  /* X: dying */
    assert_false(offcpu_waits(42, 0x20));  /* Z */
    assert_true(offcpu_waits(42, -1));
    assert_string_equal(offcpu_state_name(0), "[off-cpu R]");
    assert_string_equal(offcpu_state_name(1), "[off-cpu S]");
    assert_string_equal(offcpu_state_name(2), "[off-cpu D]");
    assert_string_equal(offcpu_state_name(0x402), "[off-cpu D]");
    assert_string_equal(offcpu_state_name(-1), "[off-cpu]");
}

static void test_json(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    const char s[] = "a\"b\\c\n\t\x01\xc3\xa9\xff";
    json_str(f, s, sizeof s - 1);
    fclose(f);
    assert_string_equal(buf, "a\\\"b\\\\c\\n\\t\\u0001\xc3\xa9\\u00ff");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waits),
        cmocka_unit_test(test_states),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
