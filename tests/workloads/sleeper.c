/*
 * sleeper - sleeps N times for 1 ms in sleepy_wait() (off-CPU time): each
 * sleep is a context switch, so sched:sched_switch samples with kernel
 * stacks land under sleepy_wait <- main.  On x86-64 sleepy_wait makes the
 * nanosleep system call itself (no libc frame in between, whose missing
 * frame pointer would hide sleepy_wait), so the user part of every stack
 * starts in sleepy_wait.
 *
 *   sleeper [N]        default 50
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

__attribute__((noinline)) void sleepy_wait(void)
{
    struct timespec ts = {0, 1000000};
#if defined(__x86_64__)
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)SYS_nanosleep), "D"(&ts), "S"((void *)0)
                     : "rcx", "r11", "memory");
    (void)ret;
#else
    nanosleep(&ts, NULL);
#endif
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 50;
    for (unsigned long i = 0; i < n; i++)
        sleepy_wait();
    printf("sleeper: %lu sleeps done\n", n);
    return 0;
}
