/* test_folded.c - the folded-line parser, the bounded line reader and the
 * string map shared by tr-fold, tr-flame and tr-diff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "folded.h"
#include "lines.h"
#include "smap.h"

static int parse(const char *s, int want, struct folded_line *fl)
{
    return folded_parse(s, strlen(s), want, fl);
}

static void test_one_count(void **state)
{
    (void)state;
    struct folded_line fl;
    assert_int_equal(parse("a;b;c 31", 0, &fl), FOLDED_OK);
    assert_int_equal(fl.ncounts, 1);
    assert_int_equal(fl.len, 5);
    assert_true(fl.count[0] == 31);
    /* frame names keep their spaces; the stack keeps all but one blank */
    assert_int_equal(parse("V8 WorkerThread;x y  7", 0, &fl), FOLDED_OK);
    assert_int_equal(fl.len, strlen("V8 WorkerThread;x y "));
    assert_true(fl.count[0] == 7);
    assert_int_equal(parse("a\t1.5", 0, &fl), FOLDED_OK);
    assert_true(fl.count[0] == 1.5);
    assert_int_equal(parse("a 12.", 0, &fl), FOLDED_OK);
    assert_true(fl.count[0] == 12);
    assert_int_equal(parse("a;b 5 \t", 0, &fl), FOLDED_OK);
    assert_int_equal(fl.len, 3);
    assert_true(fl.count[0] == 5);
    assert_int_equal(parse("a 0", 0, &fl), FOLDED_OK);
    assert_true(fl.count[0] == 0);
    assert_int_equal(parse("a 123456789012345678901", 0, &fl), FOLDED_OK);
    assert_true(fl.count[0] > 1.2e20);
}

static void test_two_counts(void **state)
{
    (void)state;
    struct folded_line fl;
    assert_int_equal(parse("a;b 3 5", 0, &fl), FOLDED_OK);
    assert_int_equal(fl.ncounts, 2);
    assert_int_equal(fl.len, 3);
    assert_true(fl.count[0] == 3 && fl.count[1] == 5);
    /* want = 1: the first number belongs to the stack */
    assert_int_equal(parse("a;b 3 5", 1, &fl), FOLDED_OK);
    assert_int_equal(fl.ncounts, 1);
    assert_int_equal(fl.len, 5);
    assert_true(fl.count[0] == 5);
}

static void test_bad_lines(void **state)
{
    (void)state;
    struct folded_line fl;
    assert_int_equal(parse("", 0, &fl), FOLDED_BLANK);
    assert_int_equal(parse("   \t", 0, &fl), FOLDED_BLANK);
    assert_int_equal(parse("a;b;c", 0, &fl), FOLDED_E_NOCOUNT);
    assert_int_equal(parse("12", 0, &fl), FOLDED_E_NOCOUNT);
    assert_int_equal(parse("a;b -3", 0, &fl), FOLDED_E_NEGATIVE);
    assert_int_equal(parse("a;b x3", 0, &fl), FOLDED_E_NOTNUM);
    assert_int_equal(parse("a;b 1e5", 0, &fl), FOLDED_E_NOTNUM);
    assert_int_equal(parse("a;b 1.2.3", 0, &fl), FOLDED_E_NOTNUM);
    assert_int_equal(parse("a;b .5", 0, &fl), FOLDED_E_NOTNUM);
    assert_int_equal(parse(" 5", 0, &fl), FOLDED_E_EMPTY);
    assert_int_equal(parse("   5", 0, &fl), FOLDED_E_EMPTY);
    assert_int_equal(parse(" 4 5", 0, &fl), FOLDED_E_EMPTY);
    assert_int_equal(folded_parse("a\0b 5", 5, 0, &fl), FOLDED_E_NUL);
    char big[400];
    memset(big, '9', sizeof big - 1);
    big[0] = 'a', big[1] = ' ';
    big[sizeof big - 1] = 0;
    assert_int_equal(parse(big, 0, &fl), FOLDED_E_RANGE);
    for (int e = FOLDED_E_RANGE; e <= FOLDED_BLANK; e++)
        assert_non_null(folded_strerror(e));
}

static int pipe_with(const char *data, size_t len)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], data, len), (ssize_t)len);
    close(p[1]);
    return p[0];
}

static void test_lines(void **state)
{
    (void)state;
    const char data[] = "one\r\ntwo\n\nthree";
    int fd = pipe_with(data, sizeof data - 1);
    struct lines l;
    lines_init(&l, fd, 0);
    char *s;
    size_t n;
    assert_int_equal(lines_next(&l, &s, &n), 1);
    assert_string_equal(s, "one");
    assert_int_equal(lines_next(&l, &s, &n), 1);
    assert_string_equal(s, "two");
    assert_int_equal(lines_next(&l, &s, &n), 1);
    assert_int_equal(n, 0);
    assert_int_equal(lines_next(&l, &s, &n), 1);
    assert_string_equal(s, "three");
    assert_int_equal(l.line_no, 4);
    assert_int_equal(lines_next(&l, &s, &n), 0);
    lines_free(&l);
    close(fd);
}

static void test_line_bound(void **state)
{
    (void)state;
    size_t len = 300000;
    char *data = malloc(len + 16);
    memcpy(data, "ok 1\n", 5);
    memset(data + 5, 'x', len);
    /* write from a child: the pipe is smaller than the data */
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        ssize_t w = write(p[1], data, len + 5);
        _exit(w < 0);
    }
    close(p[1]);
    struct lines l;
    lines_init(&l, p[0], 1000);
    char *s;
    size_t n;
    assert_int_equal(lines_next(&l, &s, &n), 1);
    assert_int_equal(lines_next(&l, &s, &n), TR_E_TOO_LARGE);
    assert_int_equal(l.line_no, 2);
    char msg[160];
    assert_int_equal(lines_error(&l, TR_E_TOO_LARGE, msg, sizeof msg), 1);
    assert_string_equal(msg, ":2: line longer than 1000 bytes");
    assert_int_equal(lines_error(&l, 1, msg, sizeof msg), 0);
    assert_int_equal(lines_error(&l, 0, msg, sizeof msg), 0);
    lines_free(&l);
    close(p[0]);
    free(data);
}

static void test_smap(void **state)
{
    (void)state;
    struct smap m;
    smap_init(&m);
    char key[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "k%d", i % 2500);
        struct smap_entry *e = smap_get(&m, key, strlen(key));
        assert_non_null(e);
        e->n++;
    }
    assert_int_equal(m.n, 2500);
    size_t *idx = smap_sorted(&m);
    for (size_t i = 0; i + 1 < m.n; i++) {
        const char *a = smap_key(&m, &m.e[idx[i]]), *b = smap_key(&m, &m.e[idx[i + 1]]);
        assert_true(strcmp(a, b) < 0);
        assert_int_equal(m.e[idx[i]].n, 2);
    }
    free(idx);
    /* a prefix sorts first, bytes compare unsigned */
    struct smap m2;
    smap_init(&m2);
    smap_get(&m2, "a;b\xc3", 4);
    smap_get(&m2, "a;b", 3);
    smap_get(&m2, "a;b c", 5);
    idx = smap_sorted(&m2);
    assert_string_equal(smap_key(&m2, &m2.e[idx[0]]), "a;b");
    assert_string_equal(smap_key(&m2, &m2.e[idx[1]]), "a;b c");
    free(idx);
    smap_free(&m2);
    smap_free(&m);
}

/* The frames of s joined by '|', as folded_next_frame splits them. */
static const char *frames(const char *s)
{
    static char out[128];
    size_t o = 0;
    const char *f;
    for (size_t at = 0, n, k = 0; folded_next_frame(s, strlen(s), &at, &f, &n); k++) {
        assert_true(f >= s && f + n <= s + strlen(s));
        assert_true(o + n + 2 < sizeof out);
        if (k)
            out[o++] = '|';
        memcpy(out + o, f, n);
        o += n;
    }
    out[o] = 0;
    return out;
}

static void test_frames(void **state)
{
    (void)state;
    assert_string_equal(frames("main;f;g"), "main|f|g");
    assert_string_equal(frames("one"), "one");
    /* empty frames are kept, a trailing one too (the caller drops those) */
    assert_string_equal(frames("a;;b;"), "a||b|");
    assert_string_equal(frames(";"), "|");
    /* an empty stack is one empty frame */
    size_t at = 0, n = 9;
    const char *f;
    assert_int_equal(folded_next_frame("", 0, &at, &f, &n), 1);
    assert_int_equal(n, 0);
    assert_int_equal(folded_next_frame("", 0, &at, &f, &n), 0);
}

static void test_counts(void **state)
{
    (void)state;
    char b[64];
    folded_format_count(b, sizeof b, 12);
    assert_string_equal(b, "12");
    folded_format_count(b, sizeof b, 1.5);
    assert_string_equal(b, "1.5");
    folded_format_count(b, sizeof b, 0);
    assert_string_equal(b, "0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_count), cmocka_unit_test(test_two_counts),
        cmocka_unit_test(test_bad_lines), cmocka_unit_test(test_lines),
        cmocka_unit_test(test_line_bound), cmocka_unit_test(test_smap),
        cmocka_unit_test(test_counts), cmocka_unit_test(test_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
