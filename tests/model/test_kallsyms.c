/* model/kallsyms.h: the kernel symbols a trace keeps, from the boot's cache of the core kernel's
 * text symbols (read in one pass, in blocks) the same lines as kallsyms_subset finds in the whole
 * text: the symbol covering each address and the one after it, aliases and all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kallsyms.h"

static char dir[64];

/* A cache of this boot holding text (after its first line). */
static void write_cache(const char *text)
{
    char id[64] = "", path[128];
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    assert_non_null(f);
    assert_non_null(fgets(id, sizeof id, f));
    fclose(f);
    snprintf(path, sizeof path, "%s/tr", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/tr/kallsyms", dir);
    assert_non_null(f = fopen(path, "w"));
    fprintf(f, "# boot %s%s", id, text);
    fclose(f);
}

static void check(const char *text, const uint64_t *addrs, size_t n)
{
    hashmap m = {0};
    uint64_t sorted[64];
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(hashmap_put(&m, addrs[i], 0, (void *)1), 0);
        sorted[i] = addrs[i];
    }
    size_t want_len, got_len;
    uint64_t t, e, t2, e2;
    char *want = kallsyms_subset(text, sorted, n, &want_len, &t, &e);
    char *got = kallsyms_of(&m, &got_len, &t2, &e2);
    assert_non_null(want);
    assert_non_null(got);
    assert_string_equal(got, want);
    assert_int_equal(got_len, want_len);
    assert_int_equal(t2, t);
    assert_int_equal(e2, e);
    free(want);
    free(got);
    hashmap_free(&m);
}

static void test_from_the_cache(void **state)
{
    (void)state;
    /* long lines, so that the cache is read in many blocks */
    char *text = malloc(4 << 20), name[300];
    size_t o = 0;
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = 0;
    o += (size_t)sprintf(text + o, "ffffffff81000000 T _text\n");
    for (uint64_t i = 0; i < 10000; i++) {
        uint64_t a = 0xffffffff81000000ull + 0x40 * (i / 2); /* two aliases at each address */
        o += (size_t)sprintf(text + o, "%016llx %c f%llu_%s\n", (unsigned long long)a, "tTwW"[i % 4],
                             (unsigned long long)i, name + (i % 200));
        if (i % 1000 == 0)
            o += (size_t)sprintf(text + o, "%016llx d data%llu\n", (unsigned long long)a + 8, (unsigned long long)i);
    }
    o += (size_t)sprintf(text + o, "ffffffff81050000 T _etext\n");
    write_cache(text);
    const uint64_t base = 0xffffffff81000000ull;
    uint64_t one[] = {base + 0x100};
    check(text, one, 1);
    uint64_t many[] = {base, base + 1, base + 0x40, base + 0x41, base + 0x7f, base + 0x1000, base + 0x1001,
                       base + 0x3fff0, base + 0x3ffff, base + 0x20000};
    check(text, many, sizeof many / sizeof *many);
    uint64_t last[] = {base + 0x4fff8}; /* past the last function, before _etext */
    check(text, last, 1);
    free(text);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tr-test-kallsyms-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_the_cache),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}
