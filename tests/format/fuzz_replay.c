/* fuzz_replay.c - run the fuzz target over files (the kept corpus and past
 * crashes) under the normal build: make test runs it, SAN=1 with ASan+UBSan. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[8192];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) continue;
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        unsigned char *buf = malloc(1 << 24);
        size_t len = fread(buf, 1, 1 << 24, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

static void test_fuzz_corpus_and_vectors_replay_cleanly(void **state)
{
    (void)state;
    const char *root = getenv("TR_ROOT") ? getenv("TR_ROOT") : ".";
    char p[4096];
    int n = 0;
    const char *dirs[] = {"tests/format/fuzz-corpus", "tests/format/fuzz-blobs", "spec/vectors/pass", "spec/vectors/fail",
                          "tests/golden"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        n += replay_dir(p);
    }
    assert_true(n >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fuzz_corpus_and_vectors_replay_cleanly)};
    return cmocka_run_group_tests_name("fuzz replay", tests, NULL, NULL);
}
