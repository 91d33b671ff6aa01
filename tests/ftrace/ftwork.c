/* ftwork - a workload with known system calls, for tr-rec-ftrace's tests and benchmark.
 *   ftwork openat N DIR   N openat(77, "ftwork.N", O_CREAT) calls with dirfd 77 = DIR, plus N
 *                         openat(AT_FDCWD, DIR) calls that a "dfd == 77" filter leaves out
 *   ftwork storm N [RATE] N getppid() calls, at most RATE per second (0 or absent: flat out)
 *   ftwork sleep MS       sleep MS milliseconds (a task that blocks)
 * Prints nothing (with FTWORK_RUSAGE set: "ftwork-cpu-us USER SYS WALL" on stderr); exits 0. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int do_openat(long n, const char *dir)
{
    int d = open(dir, O_RDONLY | O_DIRECTORY);
    if (d < 0 || dup2(d, 77) < 0) {
        perror(dir);
        return 1;
    }
    for (long i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "ftwork.%ld", i);
        int fd = openat(77, name, O_RDONLY | O_CREAT, 0600);
        if (fd >= 0)
            close(fd);
        fd = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY);
        if (fd >= 0)
            close(fd);
    }
    return 0;
}

static int do_storm(long n, long rate)
{
    unsigned long long start = now_ns();
    for (long i = 0; i < n; i++) {
        syscall(SYS_getppid);
        if (rate > 0 && (i & 63) == 63) {
            unsigned long long due = start + (unsigned long long)i * 1000000000ull / (unsigned long long)rate;
            while (now_ns() < due)
                ;
        }
    }
    return 0;
}

static unsigned long long started;

static int report(int rc)
{
    if (getenv("FTWORK_RUSAGE")) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        fprintf(stderr, "ftwork-cpu-us %lld %lld %llu\n",
                (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
                (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec,
                (now_ns() - started) / 1000);
    }
    return rc;
}

int main(int argc, char **argv)
{
    started = now_ns();
    if (argc >= 4 && !strcmp(argv[1], "openat"))
        return report(do_openat(atol(argv[2]), argv[3]));
    if (argc >= 3 && !strcmp(argv[1], "storm"))
        return report(do_storm(atol(argv[2]), argc > 3 ? atol(argv[3]) : 0));
    if (argc >= 3 && !strcmp(argv[1], "sleep")) {
        usleep((useconds_t)atol(argv[2]) * 1000);
        return report(0);
    }
    fprintf(stderr, "usage: ftwork openat N DIR | storm N [RATE] | sleep MS\n");
    return 2;
}
