/* deep.c - benchmark workload: deep, varied call stacks (eight functions
 * calling each other 20 to 40 deep along a pseudo-random path).
 * deep SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static void spin(unsigned s) { for (unsigned i = 0; i < 20000; i++) sink += i ^ s; }
#define DECL(n) __attribute__((noinline)) void f##n(int d, unsigned s);
DECL(0) DECL(1) DECL(2) DECL(3) DECL(4) DECL(5) DECL(6) DECL(7)
static void next(int d, unsigned s)
{
    if (d == 0) {
        spin(s);
        return;
    }
    switch ((s >> (d % 13)) & 7) {
    case 0: f0(d - 1, s * 31 + 1); break;
    case 1: f1(d - 1, s * 31 + 2); break;
    case 2: f2(d - 1, s * 31 + 3); break;
    case 3: f3(d - 1, s * 31 + 4); break;
    case 4: f4(d - 1, s * 31 + 5); break;
    case 5: f5(d - 1, s * 31 + 6); break;
    case 6: f6(d - 1, s * 31 + 7); break;
    default: f7(d - 1, s * 31 + 8); break;
    }
    sink++;
}
#define DEF(n) void f##n(int d, unsigned s) { next(d, s ^ n); sink++; }
DEF(0) DEF(1) DEF(2) DEF(3) DEF(4) DEF(5) DEF(6) DEF(7)

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 5;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    unsigned seed = 1;
    do {
        for (int i = 0; i < 100; i++) {
            seed = seed * 1103515245 + 12345;
            next(10 + (int)(seed >> 16) % 10, seed); /* 10..19 calls, twice the frames */
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
    printf("%lu\n", sink);
    return 0;
}
