/* vdsoprog - spends its time in the vDSO: clock_gettime in a loop. */
#include <stdlib.h>
#include <time.h>

volatile long sink;

__attribute__((noinline)) void read_clocks(long n)
{
    struct timespec t;
    for (long i = 0; i < n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        sink += t.tv_nsec;
    }
}

int main(int argc, char **argv)
{
    read_clocks(argc > 1 ? atol(argv[1]) : 3000000);
    return 0;
}
