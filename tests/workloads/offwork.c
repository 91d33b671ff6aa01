/* offwork.c - threads of known time off the CPU (tr-fold --offcpu, --stat --per-thread):
 * "sleeper" sleeps 200 ms in nanosleep 5 times, "reader" blocks on a pipe
 * until main writes to it 600 ms later, "burner" computes for 1 s (off the
 * CPU only when preempted).  Each thread names itself, then prints
 * "NAME TID OFF_US BLOCKED_US RUNQ_US": its time off the CPU measured from
 * inside, its wall time less its CPU time (CLOCK_THREAD_CPUTIME_ID), the
 * part of it spent in its blocking calls (nanosleep, read; 0 for burner),
 * and its time waiting on a runqueue as the kernel counts it
 * (/proc/thread-self/schedstat; -1 without it).  A preempted thread's wait
 * is the last: wall less CPU time also holds what the vCPU lost to the host
 * (steal) and to interrupts, which no task switch shows. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int fds[2];

static long long ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

struct span { long long wall, cpu, blocked, runq; };

/* The thread's time on a runqueue so far (ns), -1 when not known. */
static long long runq_ns(void)
{
    long long on_cpu, waited = -1;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f) {
        if (fscanf(f, "%lld %lld", &on_cpu, &waited) != 2)
            waited = -1;
        fclose(f);
    }
    return waited;
}

static long long off_since(const struct span *s)
{
    return (ns(CLOCK_MONOTONIC) - s->wall) - (ns(CLOCK_THREAD_CPUTIME_ID) - s->cpu);
}

static struct span start(const char *name)
{
    if (name)
        pthread_setname_np(pthread_self(), name);
    return (struct span){ns(CLOCK_MONOTONIC), ns(CLOCK_THREAD_CPUTIME_ID), 0, runq_ns()};
}

/* A blocking call's time off the CPU, since b started, added to s. */
static void blocked(struct span *s, const struct span *b)
{
    s->blocked += off_since(b);
}

static void report(const char *name, const struct span *s)
{
    long long runq = runq_ns();
    printf("%s %d %lld %lld %lld\n", name, gettid(), off_since(s) / 1000, s->blocked / 1000,
           runq >= 0 && s->runq >= 0 ? (runq - s->runq) / 1000 : -1);
}

static void *sleeper(void *a)
{
    struct span s = start(a);
    for (int i = 0; i < 5; i++) {
        struct timespec ts = {0, 200000000};
        struct span b = start(NULL);
        nanosleep(&ts, 0);
        blocked(&s, &b);
    }
    report(a, &s);
    return 0;
}

static void *reader(void *a)
{
    struct span s = start(a), b = start(NULL);
    char c;
    if (read(fds[0], &c, 1) != 1)
        return 0;
    blocked(&s, &b);
    report(a, &s);
    return 0;
}

static void *burner(void *a)
{
    struct span s = start(a);
    volatile unsigned long x = 0;
    while (ns(CLOCK_MONOTONIC) - s.wall < 1000000000LL)
        x++;
    report(a, &s);
    return 0;
}

int main(void)
{
    static void *(*const fn[3])(void *) = {sleeper, reader, burner};
    static const char *const names[3] = {"sleeper", "reader", "burner"};
    pthread_t t[3];
    setvbuf(stdout, 0, _IOLBF, 0);
    if (pipe(fds))
        return 1;
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], 0, fn[i], (void *)names[i]);
    struct timespec ts = {0, 600000000};
    nanosleep(&ts, 0);
    if (write(fds[1], "x", 1) != 1)
        return 1;
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], 0);
    return 0;
}
