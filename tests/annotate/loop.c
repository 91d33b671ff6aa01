/*
 * loop - tr-annotate's test program: the time of hot() is in one inner
 * loop, whose body calls the inlined mix().  The lines of the loop end in
 * "LOOP" comments (mix's line in "MIX"): the cases find their addresses in
 * the binary's own line table.
 *
 *   loop [ROUNDS]      hot() ROUNDS times (default 300), a million iterations each
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
    return x * 6364136223846793005ul + 1442695040888963407ul; /* MIX */
}

__attribute__((noinline)) unsigned long hot(unsigned long n, unsigned long x)
{
    unsigned long setup = x ^ (x >> 7);
    sink = setup;
    for (unsigned long i = 0; i < n; i++)   /* LOOP */
        x = mix(x) ^ (x >> 3);              /* LOOP */
    sink += x * 3;
    return x;
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 300, x = 1;
    for (unsigned long r = 0; r < rounds; r++)
        x = hot(1000000, x + r);
    printf("loop: %lu\n", x & 1);
    return 0;
}
