/* ltwork - a workload of known libc calls for the tr-rec-ltrace cases and bench.
 *   ltwork            the calls the cases count (see tests/ltrace/cases)
 *   ltwork loop N     N calls of strlen (the bench's call-heavy loop)
 *   ltwork sleep S    sleep S seconds between two calls (to be signalled meanwhile)
 *   ltwork threads    two threads, each making 3 malloc and free calls
 * Built with -fno-builtin so each call in the source is a call into libc. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
