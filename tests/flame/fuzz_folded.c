/* fuzz_folded.c - libFuzzer target: folded text through tr-flame's reader
 * and SVG writer (tr-fold's perf script folding of the same bytes is
 * tests/fold/fuzz_perfscript.c).  Build and run: tests/flame/fuzz.sh [SECONDS]. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flame.h"

static int mem_fd(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        abort();
    if (size && write(fd, data, size) != (ssize_t)size)
        abort();
    lseek(fd, 0, SEEK_SET);
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    if (!null) {
        null = fopen("/dev/null", "w");
    }
    /* options from the first byte */
    struct flame_opts o;
    flame_opts_init(&o);
    uint8_t k = size ? data[0] : 0;
    o.reverse = k & 1;
    o.flamechart = (k >> 1) & 1;
    o.inverted = (k >> 2) & 1;
    o.lenient = (k >> 3) & 1;
    o.minwidth = (k >> 4) & 1 ? 0 : 0.1;
    o.color.pal = (k >> 5) % 17;
    o.max_line = 4096;
    int fd = mem_fd(data, size);
    struct flame f;
    if (flame_init(&f, &o) == 0) {
        if (flame_read(&f, fd, "fuzz") == 0)
            flame_svg(&f, null);
    }
    flame_free(&f);
    close(fd);
    return 0;
}
