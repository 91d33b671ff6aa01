/* selfsample.c - see selfsample.h */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "selfsample.h"

static size_t file_build_id(const char *path, uint8_t *id)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    size_t n = 0;
    const void *b;
    ssize_t l = e ? dwelf_elf_gnu_build_id(e, &b) : -1;
    if (l > 0 && l <= 64) {
        memcpy(id, b, (size_t)l);
        n = (size_t)l;
    }
    if (e)
        elf_end(e);
    close(fd);
    return n;
}

int self_write_maps(tr_writer *w)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return -1;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        unsigned long long start, end, off;
        char perms[8];
        int pos = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &pos) < 4)
            continue;
        if (perms[2] != 'x')
            continue;
        char *path = line + pos;
        path[strcspn(path, "\n")] = '\0';
        uint8_t id[64];
        tr_record r;
        memset(&r, 0, sizeof r);
        r.type = TR_REC_MMAP;
        r.pid = r.tid = getpid();
        r.cpu = -1;
        r.u.mmap.start = start;
        r.u.mmap.len = end - start;
        r.u.mmap.pgoff = off;
        r.u.mmap.prot = PROT_READ | PROT_EXEC;
        r.u.mmap.path = path;
        r.u.mmap.path_len = strlen(path);
        r.u.mmap.build_id = id;
        r.u.mmap.build_id_len = path[0] == '/' ? file_build_id(path, id) : 0;
        if (tr_writer_add(w, &r) < 0) {
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

#define STACK_BYTES 8192
#define RING_PAGES 64

static uint64_t regs_mask(void)
{
#if defined(__x86_64__)
    /* every register perf offers in 64-bit mode: AX..R15 without DS ES FS GS */
    return ((1ull << 24) - 1) & ~((1ull << 12) | (1ull << 13) | (1ull << 14) | (1ull << 15));
#else
    return 0;
#endif
}

static void ring_copy(const uint8_t *data, size_t size, uint64_t at, void *dst, size_t len)
{
    for (size_t i = 0; i < len; i++)
        ((uint8_t *)dst)[i] = data[(at + i) % size];
}

int self_sample_run(void (*fn)(void *), void *arg, self_sample *out, int max)
{
    if (!regs_mask()) {
        errno = ENOTSUP;
        return -1;
    }
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = 250000; /* ns of task clock */
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = regs_mask();
    a.sample_stack_user = STACK_BYTES;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0)
        return -1;
    long page = sysconf(_SC_PAGESIZE);
    size_t mlen = (size_t)page * (RING_PAGES + 1);
    void *m = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        close(fd);
        return -2;
    }
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    fn(arg);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    struct perf_event_mmap_page *mp = m;
    const uint8_t *data = (const uint8_t *)m + page;
    size_t size = (size_t)page * RING_PAGES;
    uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE), tail = mp->data_tail;
    int n = 0;
    unsigned nregs = (unsigned)__builtin_popcountll(regs_mask());
    while (tail < head && n < max) {
        struct perf_event_header h;
        ring_copy(data, size, tail, &h, sizeof h);
        if (h.size < sizeof h)
            break;
        if (h.type == PERF_RECORD_SAMPLE) {
            uint8_t *rec = malloc(h.size);
            if (!rec)
                break;
            ring_copy(data, size, tail, rec, h.size);
            const uint8_t *p = rec + sizeof h, *end = rec + h.size;
            self_sample s;
            memset(&s, 0, sizeof s);
            uint64_t abi, sz, dyn = 0;
            memcpy(&s.ip, p, 8);
            p += 8 + 8; /* ip, pid/tid */
            memcpy(&abi, p, 8);
            p += 8;
            if (abi) {
                s.regs_mask = regs_mask();
                s.nregs = nregs;
                memcpy(s.regs, p, 8 * nregs);
                p += 8 * nregs;
            }
            memcpy(&sz, p, 8);
            p += 8;
            if (sz && p + sz + 8 <= end) {
                memcpy(&dyn, p + sz, 8);
                if (dyn > sz)
                    dyn = sz;
                s.stack = malloc(dyn ? dyn : 1);
                if (s.stack) {
                    memcpy(s.stack, p, dyn);
                    s.stack_len = dyn;
                }
            }
            free(rec);
            if (abi && s.stack_len)
                out[n++] = s;
            else
                free(s.stack);
        }
        tail += h.size;
    }
    munmap(m, mlen);
    close(fd);
    return n;
}

void self_sample_free(self_sample *s, int n)
{
    for (int i = 0; i < n; i++)
        free(s[i].stack);
}

void *self_trace(int (*build)(tr_writer *w, void *arg), void *arg, size_t *len)
{
    int fd = memfd_create("trace", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    tr_writer *w;
    char *buf = NULL;
    if (tr_writer_open(&w, fd, NULL) < 0)
        goto out;
    if (build(w, arg) < 0 || tr_writer_finish(w, 0) < 0) {
        tr_writer_free(w);
        goto out;
    }
    tr_writer_free(w);
    off_t size = lseek(fd, 0, SEEK_END);
    buf = malloc(size > 0 ? (size_t)size : 1);
    if (buf && pread(fd, buf, (size_t)size, 0) != size) {
        free(buf);
        buf = NULL;
    }
    *len = (size_t)size;
out:
    close(fd);
    return buf;
}
