/* test_stack_image.c - a stack copy matched against its thread's image
 * (STACK_ADDR): the longest run of equal words at the same addresses, the
 * first (highest) of equal length, is what tr_internal_stack_image_match_at
 * finds, 64 bytes at a time and stopping early, as the plain word-by-word
 * scan below does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static uint64_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* The scan the fast one must agree with: word by word down from the top of
 * the overlap, the run's start kept when it first gets longer than the best. */
static void reference(const stack_image *im, const uint8_t *s, size_t n, uint64_t addr, size_t min, size_t *kept,
                      size_t *tail)
{
    *kept = *tail = 0;
    uint64_t e1 = addr + n, e0 = im->end, a0 = e0 - im->len;
    uint64_t m = e1 < e0 ? e1 : e0, lo = addr > a0 ? addr : a0;
    if (m <= lo) return;
    size_t max = (size_t)(m - lo), best = 0, top = 0, run = 0;
    const uint8_t *a = s + (m - addr), *b = im->p + im->cap - (e0 - m);
    for (size_t k = 8; k <= max; k += 8) {
        run = memcmp(a - k, b - k, 8) ? 0 : run + 8;
        if (run > best) best = run, top = k - run;
    }
    if (best < min) return;
    *kept = best;
    *tail = (size_t)(e1 - m) + top;
}

static void test_longest_run_as_the_word_scan_finds_it(void **state)
{
    (void)state;
    enum { SPAN = 12288 };
    static uint8_t mem[SPAN], img[SPAN];
    uint64_t seed = 12;
    stack_images t = {0};
    for (int round = 0; round < 4000; round++) {
        /* the image: a copy of mem at [base + off0, base + SPAN) */
        for (size_t i = 0; i < SPAN; i++) mem[i] = (uint8_t)rnd(&seed);
        size_t off0 = rnd(&seed) % 4096 & ~(size_t)(round % 3 ? 7 : 0), off1 = rnd(&seed) % 4096;
        uint64_t base = 0x7ffd00000000ull;
        stack_image *im = tr_internal_stack_image_get(&t, 1, 1);
        assert_non_null(im);
        assert_int_equal(tr_internal_stack_image_reserve(&t, im, SPAN), 0);
        tr_internal_stack_image_put_at(im, mem + off0, SPAN - off0, 0, 0, base + off0);
        /* the copy: the same memory with runs of changed bytes (a few long, many short), or
         * with one word in P or P + 1 changed (runs of equal or nearly equal length, the
         * longest anywhere), ending at or below the image's end */
        memcpy(img, mem, SPAN);
        if (round % 4 == 3) {
            size_t p = 2 + rnd(&seed) % 20;
            for (size_t w = SPAN / 8 - 1 - rnd(&seed) % p; w < SPAN / 8; w -= p + (rnd(&seed) % 8 == 0)) img[8 * w] ^= 1;
        } else {
            int changes = (int)(rnd(&seed) % 40);
            for (int c = 0; c < changes; c++) {
                size_t at = rnd(&seed) % SPAN, len = rnd(&seed) % (c % 4 ? 16 : 700);
                for (size_t i = at; i < at + len && i < SPAN; i++) img[i] ^= (uint8_t)(1 + rnd(&seed) % 255);
            }
        }
        size_t end = SPAN - (round % 5 ? 0 : rnd(&seed) % 2048), n = end > off1 ? end - off1 : 0;
        size_t min = round % 2 ? 16 : 0, kept, tail, rkept, rtail;
        tr_internal_stack_image_match_at(im, img + off1, n, base + off1, min, &kept, &tail);
        reference(im, img + off1, n, base + off1, min, &rkept, &rtail);
        assert_int_equal(kept, rkept);
        assert_int_equal(tail, rtail);
    }
    tr_internal_stack_images_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_longest_run_as_the_word_scan_finds_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
