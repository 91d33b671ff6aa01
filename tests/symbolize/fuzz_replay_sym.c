/* fuzz_replay_sym.c - run fuzz_unwind over the kept corpus and past crashes
 * (tests/symbolize/fuzz-corpus) and over generated inputs, under the
 * normal build: make test runs it, SAN=1 with ASan+UBSan. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput_session(const uint8_t *data, size_t size);

static int replay(const char *sub, int (*target)(const uint8_t *, size_t))
{
    const char *root = getenv("TR_ROOT") ? getenv("TR_ROOT") : ".";
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/symbolize/%s", root, sub);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    static uint8_t buf[1 << 20];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        target(buf, len);
        n++;
    }
    closedir(d);
    return n;
}

static void test_corpus_replays_cleanly(void **state)
{
    (void)state;
    assert_true(replay("fuzz-corpus", LLVMFuzzerTestOneInput) >= 5);
}

static void test_session_corpus_replays_cleanly(void **state)
{
    (void)state;
    assert_true(replay("fuzz-session-corpus", LLVMFuzzerTestOneInput_session) >= 3);
}

/* A deterministic sweep: every mode, random words. */
static void test_generated_inputs(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    static uint8_t buf[4096];
    for (int i = 0; i < 3000; i++) {
        size_t len = (size_t)(i * 7919 % sizeof buf);
        for (size_t k = 0; k < len; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            /* mostly small changes, so the unwinder gets deep */
            buf[k] = (x & 0xff) < 24 ? (uint8_t)(x >> 8) : 0;
        }
        if (len)
            buf[0] = (uint8_t)i;
        LLVMFuzzerTestOneInput(buf, len);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_replays_cleanly),
        cmocka_unit_test(test_session_corpus_replays_cleanly),
        cmocka_unit_test(test_generated_inputs),
    };
    return cmocka_run_group_tests_name("symbolize fuzz replay", tests, NULL, NULL);
}
