/*
 * cache.c - the on-disk cache's files: where it lives, the checksum its
 * entries carry, and writing an entry so that no reader sees a partial one.
 *
 * An entry is written to a temporary file in its final directory, then
 * renamed over its final name: concurrent runs each rename a whole file
 * and a killed run leaves at most a temporary file ("NAME.XXXXXX"),
 * never a partial file under the final name.  Every failure is silent:
 * the cache only ever saves time.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sym_int.h"

static char default_dir[PATH_MAX];

static void find_default_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = -1;
    if (xdg && xdg[0] == '/')
        n = snprintf(default_dir, sizeof default_dir, "%s/tr", xdg);
    else if (home && home[0] == '/')
        n = snprintf(default_dir, sizeof default_dir, "%s/.cache/tr", home);
    if (n < 0 || (size_t)n >= sizeof default_dir)
        default_dir[0] = '\0';
}

const char *sym_default_cache_dir(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_default_dir);
    return default_dir[0] ? default_dir : NULL;
}

/* mkdir -p with mode 0700 for the directories it creates: 0 or -1. */
static int make_dirs(char *path)
{
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        int rc = mkdir(path, 0700);
        *p = c;
        if (rc < 0 && errno != EEXIST)
            return -1;
        if (c == '\0')
            return 0;
    }
}

static int entry_path(char *buf, size_t size, const char *dir, const char *sub, const char *name)
{
    int n = snprintf(buf, size, "%s/%s/%s", dir, sub, name);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

int sym_cache_open(const char *dir, const char *sub, const char *name)
{
    char path[PATH_MAX];
    if (entry_path(path, sizeof path, dir, sub, name) < 0)
        return -1;
    return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO there must not block */
}

const void *sym_cache_map(const char *dir, const char *sub, const char *name, size_t *len)
{
    struct stat st;
    int fd = sym_cache_open(dir, sub, name);
    if (fd < 0)
        return NULL;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX)
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    *len = (size_t)st.st_size;
    return p;
}

void sym_cache_write(const char *dir, const char *sub, const char *name, const void *data,
                     size_t len)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    if (entry_path(path, sizeof path, dir, sub, name) < 0)
        return;
    snprintf(tmp, sizeof tmp, "%s/%s", dir, sub);
    if (make_dirs(tmp) < 0)
        return;
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC); /* mode 0600 */
    if (fd < 0)
        return;
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) < 0 || left || rename(tmp, path) < 0)
        unlink(tmp);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return (h ^ h >> 32) * 0xc2b2ae3d27d4eb4full;
}

/* Two 64-bit lanes (GCC's vector extension: SSE2 on x86_64). */
typedef uint64_t lanes2 __attribute__((vector_size(16)));

uint64_t sym_checksum(const void *data, size_t len, uint64_t seed)
{
    /* Fletcher's sums in four lanes of words, two lanes to a vector: as
     * fast as memory reads (two additions per 16 bytes) */
    const uint8_t *p = data;
    lanes2 a0 = { seed, 0 }, a1 = { 0, 0 }, b0 = { 0, 0 }, b1 = { 0, 0 }, w0, w1;
    size_t i = 0;
    for (; len - i >= 32; i += 32) {
        memcpy(&w0, p + i, 16);
        memcpy(&w1, p + i + 16, 16);
        a0 += w0;
        a1 += w1;
        b0 += a0;
        b1 += a1;
    }
    uint64_t w[4] = { 0, 0, 0, 0 };
    memcpy(w, p + i, len - i); /* the last words, zero-padded: always one such step */
    memcpy(&w0, w, 16);
    memcpy(&w1, w + 2, 16);
    a0 += w0;
    a1 += w1;
    b0 += a0;
    b1 += a1;
    uint64_t h = len;
    h = mix(mix(h, a0[0]), b0[0]);
    h = mix(mix(h, a0[1]), b0[1]);
    h = mix(mix(h, a1[0]), b1[0]);
    return mix(mix(h, a1[1]), b1[1]);
}

void sym_seal_image(void *img, size_t hdr_size, size_t size)
{
    uint8_t *p = img;
    uint64_t seal[2] = { size, sym_checksum(p + hdr_size, size - hdr_size, 0) };
    memcpy(p + hdr_size - 24, seal, sizeof seal);
    uint64_t hdr_sum = sym_checksum(p, hdr_size - 8, 0);
    memcpy(p + hdr_size - 8, &hdr_sum, 8);
}

int sym_image_sealed(const void *img, size_t len, size_t hdr_size)
{
    const uint8_t *p = img;
    uint64_t seal[3];
    if (len < hdr_size)
        return 0;
    memcpy(seal, p + hdr_size - 24, sizeof seal);
    return seal[0] == len && seal[2] == sym_checksum(p, hdr_size - 8, 0) &&
           seal[1] == sym_checksum(p + hdr_size, len - hdr_size, 0);
}
