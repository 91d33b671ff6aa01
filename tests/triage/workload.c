/* workload.c - tr-triage's test workloads, each with one known behaviour:
 *   cpu     CPU-bound in burn_cpu (about 0.4 s)
 *   lock    4 threads contending one mutex in worker_loop (futex waits)
 *   sleep   waiting in nanosleep from wait_for_io (0.3 s, 30 sleeps)
 *   io      reading a pipe in wait_for_input that a child feeds a line each 10 ms (30 lines)
 *   enoent  opening 1,200 (or argv[2]) missing files from open_missing (ENOENT)
 *   spin    burn_cpu until killed (for -p, -a and Ctrl-C) */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
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

/* The reader's side of a slow producer: blocked in read(2) on the pipe. */
__attribute__((noinline)) static int wait_for_input(int fd)
{
    char buf[64];
    int lines = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        lines += (int)n / 5;
    return lines;
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
    } else if (!strcmp(w, "io")) {
        int p[2];
        if (pipe(p) < 0)
            return 1;
        pid_t c = fork();
        if (c == 0) {
            close(p[0]);
            for (int i = 0; i < 30; i++) {
                struct timespec ts = {0, 10 * 1000 * 1000};
                nanosleep(&ts, NULL);
                if (write(p[1], "line\n", 5) != 5)
                    _exit(1);
            }
            _exit(0);
        }
        close(p[1]);
        int lines = wait_for_input(p[0]);
        waitpid(c, NULL, 0);
        return lines == 30 ? 0 : 1;
    } else if (!strcmp(w, "spin")) {
        for (;;)
            burn_cpu(10L * 1000 * 1000);
    } else if (!strcmp(w, "enoent")) {
        int n = argc > 2 ? atoi(argv[2]) : 1200;
        return open_missing(n) == n ? 0 : 1;
    } else {
        fprintf(stderr, "usage: workload cpu|lock|sleep|io|enoent|spin\n");
        return 2;
    }
    return 0;
}
