/*
 * memuser - memory of known sizes by function, for memory flame graphs:
 *   map_small   mmaps 3 x 64 KiB  (196608 bytes)
 *   map_large   mmaps 5 x 128 KiB (655360 bytes)
 *   grow_heap   moves the break up by 3 x 16 KiB with sbrk (49152 bytes)
 *   alloc_small mallocs 10 x 1000 bytes, alloc_large 4 x 5000 bytes (30000 in all)
 * The mappings are never touched (no page faults) and nothing is freed.  On
 * x86-64 the map functions make the mmap system call themselves (no libc
 * frame in between, whose missing frame pointer would hide them), so a
 * frame-pointer stack of each call starts in map_small or map_large.
 *
 *   memuser
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* always inlined: the system call is made in map_small's and map_large's own frames */
static inline __attribute__((always_inline)) void map(unsigned long len)
{
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = MAP_PRIVATE | MAP_ANONYMOUS;
    register long r8 __asm__("r8") = -1;
    register long r9 __asm__("r9") = 0;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)SYS_mmap), "D"(0L), "S"(len), "d"((long)(PROT_READ | PROT_WRITE)),
                       "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    if (ret < 0 && ret > -4096) {
#else
    if (mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED) {
#endif
        fputs("memuser: mmap failed\n", stderr);
        exit(1);
    }
}

__attribute__((noinline)) void map_small(void)
{
    for (int i = 0; i < 3; i++)
        map(64 << 10);
}

__attribute__((noinline)) void map_large(void)
{
    for (int i = 0; i < 5; i++)
        map(128 << 10);
}

__attribute__((noinline)) void grow_heap(void)
{
    for (int i = 0; i < 3; i++)
        if (sbrk(16 << 10) == (void *)-1) {
            perror("memuser: sbrk");
            exit(1);
        }
}

static void *volatile keep[14];

__attribute__((noinline)) void alloc_small(void)
{
    for (int i = 0; i < 10; i++)
        keep[i] = malloc(1000);
}

__attribute__((noinline)) void alloc_large(void)
{
    for (int i = 0; i < 4; i++)
        keep[10 + i] = malloc(5000);
}

int main(void)
{
    map_small();
    map_large();
    grow_heap();
    alloc_small();
    alloc_large();
    printf("memuser: 851968 bytes mapped, 49152 of heap grown, 30000 allocated\n");
    return 0;
}
