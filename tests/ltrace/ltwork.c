/* ltwork - a workload of known libc calls for the tr-rec-ltrace cases and bench.
 *   ltwork            the calls the cases count (see tests/ltrace/cases)
 *   ltwork loop N     N calls of strlen (the bench's call-heavy loop)
 *   ltwork sleep S    sleep S seconds between two calls (to be signalled meanwhile)
 *   ltwork threads    two threads, each making 3 malloc and free calls
 *   ltwork dlopen LIB load LIB (libltplug.so) and call its plug_add and plug_len
 *   ltwork forkexec   a child that execs ltwork-child (this file built with LTWORK_CHILD)
 *   ltwork printf     a printf with variadic arguments in registers and on the stack
 * Built with -fno-builtin so each call in the source is a call into libc. */
#include <dlfcn.h>
#include <sys/wait.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sleep without a library call (the workload's calls are what the cases count). */
static void pause_100us(void)
{
    struct timespec { long s, ns; } ts = {0, 100000};
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(35L /* nanosleep */), "D"(&ts), "S"(0L) : "rcx", "r11", "memory");
    (void)ret;
}

/* Wait (at most 10 s) until a tracer's breakpoint is on fn: its first byte an int3, which is
 * ltrace's breakpoint or the kernel's uprobe.  A tracer that probes a library mapped after the
 * start, or a program exec'd, does it while the program runs; tr-rec-ltrace opens the events of
 * the new functions one after the other, each on every CPU before the next (the -x ones last, in
 * file order), so that once the last function (fn, never called) has its breakpoint the ones
 * before it are traced. */
static void wait_probed(void (*fn)(void))
{
    const volatile unsigned char *p = (const volatile unsigned char *)(uintptr_t)fn;
    for (int i = 0; i < 100000 && *p != 0xcc; i++)
        pause_100us();
}

#ifdef LTWORK_CHILD
/* ltwork-child: calls that ltwork makes nowhere, probed for this image once exec'd.  The
 * -x functions are probed after the imports: wait for ltwork_ready's (-x ltwork_ready). */
__attribute__((noinline)) void ltwork_ready(void)
{
    __asm__ volatile("");
}

int main(void)
{
    wait_probed(ltwork_ready);
    return abs(-3) == 3 && rand() >= 0 ? 0 : 1;
}
#else
__attribute__((noinline)) int work_nest(int n)
{
    void *p = malloc((size_t)n);
    free(p);
    return n + 1;
}

static void *thread_work(void *arg)
{
    for (int i = 0; i < 3; i++)
        free(malloc(32));
    return arg;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "threads")) {
        pthread_t t[2];
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, thread_work, NULL);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "loop")) {
        long n = atol(argv[2]);
        const char *volatile s = argv[0];
        size_t sum = 0;
        for (long i = 0; i < n; i++)
            sum += strlen(s);
        return sum == 0;
    }
    if (argc > 2 && !strcmp(argv[1], "dlopen")) {
        void *h = dlopen(argv[2], RTLD_NOW);
        if (!h)
            return 2;
        int (*add)(int, int) = (int (*)(int, int))dlsym(h, "plug_add");
        size_t (*len)(const char *) = (size_t (*)(const char *))dlsym(h, "plug_len");
        void (*ready)(void) = (void (*)(void))dlsym(h, "plug_ready");
        if (!add || !len || !ready)
            return 2;
        wait_probed(ready);
        return add(2, 3) == 5 && len("hello") == 5 ? 0 : 1;
    }
    if (argc > 1 && !strcmp(argv[1], "printf")) {
        printf("%d %s %c %x %lu %p %%|%s %s %s\n", -42, "str", 'c', 255, 7UL, (void *)0x1234, "a", "b", "c");
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "forkexec")) {
        pid_t pid = fork();
        if (pid == 0) {
            execlp("ltwork-child", "ltwork-child", (char *)NULL);
            _exit(127);
        }
        int st;
        return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    }
    if (argc > 2 && !strcmp(argv[1], "sleep")) {
        puts("sleeping");
        fflush(stdout);
        sleep((unsigned)atoi(argv[2]));
        puts("woke");
        return 0;
    }
    size_t n = 0;
    for (int i = 0; i < 3; i++) {
        char *p = malloc(16);
        strcpy(p, "hello");
        n += strlen(p);
        free(p);
    }
    char *e = getenv("LTWORK_UNSET");
    void *q = calloc(2, 8);
    free(q);
    int c = strcmp("abc", "abd");
    int k = work_nest(7);
    puts(e ? e : "done");
    return (int)n + c + k == 15 + -1 + 8 ? 0 : 1;
}
#endif
