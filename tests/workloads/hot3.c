/*
 * hot3 - a CPU-bound workload whose time splits 1:2:3 between three
 * functions: spin_one, spin_two and spin_three.  Each round calls
 * spin_one(1 unit), spin_two(2 units), spin_three(3 units); every unit is
 * the same loop of UNIT iterations through the shared leaf burn().
 *
 *   hot3 [ROUNDS]      default 200 rounds (about 0.3-0.5 s on a 2020s CPU)
 *
 * With HOT3_REPORT set in the environment it also prints its own run time
 * on stderr ("hot3: elapsed 1.234567 s"), for benchmarks of recorder overhead.
 *
 * So a profile shows burn as the leaf under spin_one/two/three in the
 * proportions 1/6, 2/6, 3/6, all under run_rounds <- main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT 250000u

volatile unsigned long sink;

/* Not a leaf (it calls publish): gcc 12 omits the frame pointer of leaf
 * functions even with -fno-omit-frame-pointer, which would hide the caller. */
__attribute__((noinline)) void publish(unsigned long x) { sink = x; }

__attribute__((noinline)) unsigned long burn(unsigned long n, unsigned long x)
{
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    publish(x);
    return x;
}

__attribute__((noinline)) void spin_one(void) { sink += burn(1 * UNIT, sink); }
__attribute__((noinline)) void spin_two(void) { sink += burn(2 * UNIT, sink); }
__attribute__((noinline)) void spin_three(void) { sink += burn(3 * UNIT, sink); }

__attribute__((noinline)) void run_rounds(unsigned long rounds)
{
    for (unsigned long r = 0; r < rounds; r++) {
        spin_one();
        spin_two();
        spin_three();
    }
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_rounds(rounds);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (getenv("HOT3_REPORT"))
        fprintf(stderr, "hot3: elapsed %.6f s\n",
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    printf("hot3: %lu rounds done\n", rounds);
    return 0;
}
