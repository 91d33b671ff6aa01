/* deep.c - benchmark workload: deep, varied call stacks.  Eight functions call each other along a
 * pseudo-random path (fixed seed: the same paths every run) down to a leaf loop, so that nearly
 * every sampled stack is new.  A call path of D calls gives about 2*D frames (f_n and next).
 *
 *   deep SECONDS [MIN MAX]    paths of MIN..MAX-1 calls (default 50 110: 100-220 frames);
 *                             bench/tr-fold's data uses 10 20 (20-40 frames)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static int mind = 50, spread = 60;
static void spin(unsigned s) { for (unsigned i = 0; i < 20000; i++) sink += i ^ s; }
#define DECL(n) __attribute__((noinline)) void f##n(int d, unsigned s);
DECL(0) DECL(1) DECL(2) DECL(3) DECL(4) DECL(5) DECL(6) DECL(7)
__attribute__((noinline)) static void next(int d, unsigned s)
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
    if (argc > 3) {
        mind = atoi(argv[2]);
        spread = atoi(argv[3]) - mind;
        if (mind < 1 || spread < 1) {
            fprintf(stderr, "deep: MIN must be >= 1 and MAX > MIN\n");
            return 2;
        }
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    unsigned seed = 1;
    do {
        for (int i = 0; i < 100; i++) {
            seed = seed * 1103515245 + 12345;
            next(mind + (int)(seed >> 16) % spread, seed);
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
    printf("%lu\n", sink);
    return 0;
}
