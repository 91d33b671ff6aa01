/* burn.c - a CPU-bound test program with known functions: main -> mid ->
 * leaf_a always, leaf_b every M-th iteration.  burn [N [M]] */
#include <stdio.h>
#include <stdlib.h>
static volatile double sink;
__attribute__((noinline)) double leaf_a(int n) { double s = 0; for (int i = 0; i < n; i++) s += i * 0.5; return s; }
__attribute__((noinline)) double leaf_b(int n) { double s = 1; for (int i = 0; i < n; i++) s *= 1.0000001; return s; }
__attribute__((noinline)) void mid(int k, int m)
{
    for (int i = 0; i < k; i++) {
        sink += leaf_a(100000);
        if (i % m == 0)
            sink += leaf_b(100000);
    }
}
int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 2000, m = argc > 2 ? atoi(argv[2]) : 3;
    mid(k, m > 0 ? m : 1);
    printf("%f\n", sink);
    return 0;
}
