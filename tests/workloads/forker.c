/*
 * forker - one process, one thread and one child, each spinning in its own
 * function, for testing that children and threads are followed:
 *   main thread   parent_spin
 *   pthread       thread_spin
 *   fork()ed      child_spin (then the child exits 0)
 *
 *   forker [UNITS]     work per function (default 100)
 * Exits 0 after the thread and the child are done.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNIT 250000u

volatile unsigned long sink;
static unsigned long units = 100;

/* Not a leaf (it calls publish): gcc 12 omits the frame pointer of leaf
 * functions even with -fno-omit-frame-pointer, which would hide the caller. */
__attribute__((noinline)) void publish(unsigned long x) { sink = x; }

__attribute__((noinline)) static unsigned long burn(unsigned long n, unsigned long x)
{
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    publish(x);
    return x;
}

__attribute__((noinline)) void parent_spin(void) { sink += burn(units * UNIT, sink); }
__attribute__((noinline)) void child_spin(void) { sink += burn(units * UNIT, sink); }
__attribute__((noinline)) void thread_spin(void) { sink += burn(units * UNIT, sink); }

static void *thread_main(void *arg)
{
    (void)arg;
    thread_spin();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        units = strtoul(argv[1], NULL, 10);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        child_spin();
        _exit(0);
    }
    pthread_t t;
    pthread_create(&t, NULL, thread_main, NULL);
    parent_spin();
    pthread_join(t, NULL);
    int st = 0;
    waitpid(pid, &st, 0);
    printf("forker: done\n");
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
