/*
 * faulter - touches N fresh anonymous pages in touch_pages(), so N more
 * minor page faults than `faulter 0` (the kernel never maps the zero page
 * for writes, and THP is avoided with MADV_NOHUGEPAGE).
 *
 *   faulter [N]        default 1000
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) void touch_pages(char *p, unsigned long n, long page)
{
    for (unsigned long i = 0; i < n; i++)
        p[i * (unsigned long)page] = 1;
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    long page = sysconf(_SC_PAGESIZE);
    if (n) {
        char *p = mmap(NULL, n * (unsigned long)page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("faulter: mmap");
            return 1;
        }
        madvise(p, n * (unsigned long)page, MADV_NOHUGEPAGE);
        touch_pages(p, n, page);
    }
    printf("faulter: %lu pages touched\n", n);
    return 0;
}
