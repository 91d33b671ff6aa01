/* model/libproto.h: ltrace's prototype lines parsed, and calls formatted as ltrace prints them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "libproto.h"

static void test_parse(void **state)
{
    (void)state;
    struct libproto p;
    assert_int_equal(libproto_parse("addr realloc(addr,ulong);", &p), 0);
    assert_string_equal(p.name, "realloc");
    assert_int_equal(p.ret, LP_ADDR);
    assert_int_equal(p.nargs, 2);
    assert_int_equal(p.args[1], LP_ULONG);
    assert_int_equal(libproto_parse("int open(string,int,octal);\t\t; a comment", &p), 0);
    assert_int_equal(p.args[2], LP_OCT);
    assert_int_equal(libproto_parse("long write(int, string3, ulong);", &p), 0);
    assert_int_equal(p.args[1], LP_STRING);
    assert_int_equal(libproto_parse("int rand(void);", &p), 0);
    assert_int_equal(p.nargs, 0);
    assert_int_equal(libproto_parse("char* f(const_thing);", &p), -1);
    assert_int_equal(libproto_parse("int f(int", &p), -1);
    assert_int_equal(libproto_parse("; comment", &p), 1);
    assert_int_equal(libproto_parse("", &p), 1);
}

static void test_added_win(void **state)
{
    (void)state;
    struct libprotos t = {0};
    unsigned bad = 0;
    const char text[] = "# mine\nint malloc(int);\nvoid myfunc(string, hex);\n";
    assert_int_equal(libprotos_add_text(&t, text, strlen(text), &bad), 0);
    assert_int_equal(libproto_find(&t, "malloc")->ret, LP_INT);
    assert_non_null(libproto_find(&t, "myfunc"));
    assert_int_equal(libproto_find(NULL, "malloc")->ret, LP_ADDR);
    assert_null(libproto_find(&t, "no_such_function"));
    const char badtext[] = "int a(int);\nint b(nosuchtype);\n";
    assert_int_equal(libprotos_add_text(&t, badtext, strlen(badtext), &bad), -1);
    assert_int_equal(bad, 2);
    libprotos_free(&t);
}

static void check(const char *proto, const uint64_t *args, unsigned nargs, const tr_capture *caps, unsigned ncaps,
                  int64_t ret, uint32_t strsize, const char *want_args, const char *want_ret)
{
    struct libproto p;
    assert_int_equal(libproto_parse(proto, &p), 0);
    struct syscalls_buf a = {0}, r = {0};
    libproto_format_args(&a, &p, args, nargs, caps, ncaps, strsize);
    libproto_format_ret(&r, &p, ret, caps, ncaps, strsize);
    assert_string_equal(a.p ? a.p : "", want_args);
    assert_string_equal(r.p, want_ret);
    syscalls_buf_free(&a);
    syscalls_buf_free(&r);
}

static void test_format(void **state)
{
    (void)state;
    uint64_t a[6] = {16};
    check("addr malloc(ulong);", a, 1, NULL, 0, 0x55d0deadbeef, 32, "16", "0x55d0deadbeef");
    /* ltrace 0.7.3: free(0), memcpy(0, nil, 0) = 0 */
    check("void free(addr);", (uint64_t[]){0}, 1, NULL, 0, 0, 32, "0", "<void>");
    check("addr memcpy(addr, string, ulong);", (uint64_t[]){0, 0, 0}, 3, NULL, 0, 0, 32, "0, nil, 0", "0");
    tr_capture c[2] = {{.arg = 0, .kind = TR_CAP_STRING, .data = (const uint8_t *)"hi\n\"x\"", .len = 6},
                       {.arg = 6, .kind = TR_CAP_STRING, .flags = TR_CAPF_EXIT, .data = (const uint8_t *)"v", .len = 1}};
    check("string getenv(string);", (uint64_t[]){0x1000}, 1, c, 2, 0x2000, 32, "\"hi\\n\\\"x\\\"\"", "\"v\"");
    check("string getenv(string);", (uint64_t[]){0x1000}, 1, c, 1, 0, 32, "\"hi\\n\\\"x\\\"\"", "nil");
    check("ulong strlen(string);", (uint64_t[]){0x1000}, 1, c, 1, 7, 3, "\"hi\\n\"...", "7");
    check("addr memset(addr, char, long);", (uint64_t[]){0x1000, 'a', 4}, 3, NULL, 0, 0x1000, 32,
          "0x1000, 'a', 4", "0x1000");
    check("int open(string, int, oct);", (uint64_t[]){0, 2, 0644}, 3, NULL, 0, -1, 32, "nil, 2, 0644", "-1");
    /* ltrace's unknown function: four registers, small values in decimal */
    const struct libproto *u = libproto_unknown();
    struct syscalls_buf b = {0};
    libproto_format_args(&b, u, (uint64_t[]){0x55ca708a3012, 11, (uint64_t)-1, 95}, 4, NULL, 0, 32);
    assert_string_equal(b.p, "0x55ca708a3012, 11, -1, 95");
    syscalls_buf_reset(&b);
    /* up to 10000 either way in decimal, as ltrace 0.7.3 (plugx(9999, 10000, 0x2711, -10000)) */
    libproto_format_args(&b, u, (uint64_t[]){9999, 10000, 10001, (uint64_t)-10000}, 4, NULL, 0, 32);
    assert_string_equal(b.p, "9999, 10000, 0x2711, -10000");
    syscalls_buf_reset(&b);
    libproto_format_args(&b, u, (uint64_t[]){0xb4e3, (uint64_t)-10001, 0xffffff9c, 0}, 4, NULL, 0, 32);
    assert_string_equal(b.p, "0xb4e3, 0xffffffffffffd8ef, 0xffffff9c, 0");
    syscalls_buf_reset(&b);
    /* and its return value the same way: strcmp without prototype = 0xfffffff0 */
    libproto_format_ret(&b, u, 0xfffffff0, NULL, 0, 32);
    assert_string_equal(b.p, "0xfffffff0");
    syscalls_buf_free(&b);
}

/* ltrace.conf's typedefs and enums in -F text: a typedef names a type for the lines after it;
 * an enum shows a value by its name (ltrace: setlocale(LC_ALL, "")), another as a number. */
static void test_typedef_enum(void **state)
{
    (void)state;
    struct libprotos t = {0};
    unsigned bad = 0;
    const char text[] = "typedef mode = oct;\n"
                        "typedef category = enum(LC_CTYPE, LC_NUMERIC, LC_ALL = 6);\n"
                        "int mkfifo(string, mode);\n"
                        "string setlocale(category, string);\n"
                        "enum(ZERO, ONE) two(enum(A = -1, B));\n";
    assert_int_equal(libprotos_add_text(&t, text, strlen(text), &bad), 0);
    struct syscalls_buf b = {0};
    libproto_format_args(&b, libproto_find(&t, "mkfifo"), (uint64_t[]){0, 0644}, 2, NULL, 0, 32);
    assert_string_equal(b.p, "nil, 0644");
    syscalls_buf_reset(&b);
    libproto_format_args(&b, libproto_find(&t, "setlocale"), (uint64_t[]){6, 0}, 2, NULL, 0, 32);
    assert_string_equal(b.p, "LC_ALL, nil");
    syscalls_buf_reset(&b);
    libproto_format_args(&b, libproto_find(&t, "setlocale"), (uint64_t[]){1, 0}, 2, NULL, 0, 32);
    assert_string_equal(b.p, "LC_NUMERIC, nil");
    syscalls_buf_reset(&b);
    libproto_format_args(&b, libproto_find(&t, "setlocale"), (uint64_t[]){3, 0}, 2, NULL, 0, 32);
    assert_string_equal(b.p, "3, nil");
    syscalls_buf_reset(&b);
    libproto_format_args(&b, libproto_find(&t, "two"), (uint64_t[]){(uint64_t)-1}, 1, NULL, 0, 32);
    assert_string_equal(b.p, "A");
    syscalls_buf_reset(&b);
    libproto_format_ret(&b, libproto_find(&t, "two"), 1, NULL, 0, 32);
    assert_string_equal(b.p, "ONE");
    syscalls_buf_free(&b);
    const char badtext[] = "typedef x = nosuchtype;\n";
    assert_int_equal(libprotos_add_text(&t, badtext, strlen(badtext), &bad), -1);
    libprotos_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_added_win),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_typedef_enum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
