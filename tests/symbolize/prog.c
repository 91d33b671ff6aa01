/* prog - the symbolize tests' workload: a hot inlined loop under a chain
 * of calls, and optionally reads of /dev/zero for kernel time.
 *   prog [ROUNDS [READS]] */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long sink;

static inline __attribute__((always_inline)) void mix_inline(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink = sink * 6364136223846793005ul + i;
}

__attribute__((noinline)) void leaf_work(unsigned long n)
{
    mix_inline(n);
    sink++;
}

__attribute__((noinline)) void middle(unsigned long n)
{
    leaf_work(n);
    sink++;
}

__attribute__((noinline)) void do_reads(int n)
{
    static char buf[1 << 16];
    int fd = open("/dev/zero", O_RDONLY);
    for (int i = 0; i < n && fd >= 0; i++)
        if (read(fd, buf, sizeof buf) < 0)
            break;
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    for (unsigned long r = 0; r < rounds; r++)
        middle(200000);
    if (argc > 2)
        do_reads(atoi(argv[2]));
    return 0;
}
