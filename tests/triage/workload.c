/* workload.c - tr-triage's test workloads, each with one known behaviour:
 *   cpu     CPU-bound in burn_cpu (about 0.4 s)
 *   lock    4 threads contending one mutex in worker_loop (futex waits)
 *   sleep   waiting in nanosleep from wait_for_io (0.3 s, 30 sleeps)
 *   enoent  opening 1,200 (or argv[2]) missing files from open_missing (ENOENT)
 *   spin    burn_cpu until killed (for -p, -a and Ctrl-C) */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

__attribute__((noinline)) static void burn_cpu(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    sink = x;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void *worker_loop(void *arg)
{
    (void)arg;
    for (int i = 0; i < 40; i++) {
        pthread_mutex_lock(&lock);
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL); /* holds the lock while "working" off-CPU */
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

__attribute__((noinline)) static void wait_for_io(void)
{
    for (int i = 0; i < 30; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

__attribute__((noinline)) static int open_missing(int n)
{
    int failed = 0;
    char path[64];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "/nonexistent-tr-triage/%d", i);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            failed++;
        else
            close(fd);
    }
    return failed;
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    if (!strcmp(w, "cpu")) {
        burn_cpu(400L * 1000 * 1000);
    } else if (!strcmp(w, "lock")) {
        pthread_t t[4];
        for (int i = 0; i < 4; i++)
            pthread_create(&t[i], NULL, worker_loop, NULL);
        for (int i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
    } else if (!strcmp(w, "sleep")) {
        wait_for_io();
    } else if (!strcmp(w, "spin")) {
        for (;;)
            burn_cpu(10L * 1000 * 1000);
    } else if (!strcmp(w, "enoent")) {
        int n = argc > 2 ? atoi(argv[2]) : 1200;
        return open_missing(n) == n ? 0 : 1;
    } else {
        fprintf(stderr, "usage: workload cpu|lock|sleep|enoent|spin\n");
        return 2;
    }
    return 0;
}
