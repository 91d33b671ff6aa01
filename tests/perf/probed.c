/* probed.c - the program of tr-rec-perf's user probe cases (tests/perf/cases/uprobe-*):
 * main calls outer(i), which calls leaf(i, name) and returns its value plus one, n times;
 * after each call an SDT probe trtest:tick with its semaphore fires when probed.  It prints
 * the sum and the largest semaphore value it saw (0 unless probed), and with a second
 * argument says "sleeping" and sleeps 30 seconds. */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

volatile unsigned short trtest_tick_semaphore __attribute__((section(".probes")));

__attribute__((noinline)) long leaf(long size, const char *name)
{
    return size * 2 + (long)strlen(name);
}

__attribute__((noinline)) long outer(long i)
{
    static const char *const names[] = {"alpha", "beta"};
    return leaf(i, names[i % 2]) + 1;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10, sum = 0;
    unsigned seen = 0;
    for (long i = 0; i < n; i++) {
        sum += outer(i);
        if (trtest_tick_semaphore) {
            seen = trtest_tick_semaphore > seen ? trtest_tick_semaphore : seen;
            STAP_PROBE2(trtest, tick, i, sum);
        }
    }
    printf("sum %ld semaphore %u\n", sum, seen);
    if (argc > 2) {
        printf("sleeping\n");
        fflush(stdout);
        sleep(30);
    }
    return 0;
}
