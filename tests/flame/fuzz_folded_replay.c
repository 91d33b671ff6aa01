/* fuzz_folded_replay.c - run a fuzz target over the kept regression inputs and
 * the perf script quirks under the normal build: linked with fuzz_folded.c
 * (test_fuzz_folded_replay) and with tests/fold/fuzz_perfscript.c
 * (test_fuzz_perfscript_replay); make test runs both, SAN=1 with ASan+UBSan. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char *buf = malloc(1 << 22);
    size_t len = fread(buf, 1, 1 << 22, f);
    fclose(f);
    /* every option combination the target derives from the first byte */
    for (int k = 0; k < 256; k += 17) {
        unsigned char *copy = malloc(len + 1);
        memcpy(copy + 1, buf, len);
        copy[0] = (unsigned char)k;
        LLVMFuzzerTestOneInput(copy, len + 1);
        free(copy);
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 1;
}

static void test_regressions_replay_cleanly(void **state)
{
    (void)state;
    const char *root = getenv("TR_ROOT") ? getenv("TR_ROOT") : ".";
    char p[4096];
    int n = 0;
    snprintf(p, sizeof p, "%s/tests/flame/fuzz-regress", root);
    DIR *d = opendir(p);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", p, e->d_name);
        n += replay_file(path);
    }
    closedir(d);
    snprintf(p, sizeof p, "%s/tests/fold/data/quirks.txt", root);
    n += replay_file(p);
    assert_true(n >= 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_regressions_replay_cleanly)};
    return cmocka_run_group_tests_name("folded fuzz replay", tests, NULL, NULL);
}
