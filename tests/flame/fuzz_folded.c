/* fuzz_folded.c - libFuzzer target: folded text through tr-flame's reader
 * and SVG writer, and the same bytes through tr-fold's perf script folding.
 * Build and run: tests/flame/fuzz.sh [SECONDS]. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flame.h"
#include "perfscript.h"

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
    /* perf script folding */
    lseek(fd, 0, SEEK_SET);
    struct lines l;
    lines_init(&l, fd, 4096);
    struct pscript_opts po;
    memset(&po, 0, sizeof po);
    po.fold.pid = k & 1;
    po.fold.tid = (k >> 1) & 1;
    po.fold.kernel = po.fold.jit = (k >> 2) & 1;
    po.fold.addrs = (k >> 3) & 1;
    po.srcline = (k >> 4) & 1;
    struct smap m;
    smap_init(&m);
    struct pscript_stats st;
    pscript_fold(&l, &po, &m, &st);
    size_t *idx = smap_sorted(&m);
    free(idx);
    smap_free(&m);
    lines_free(&l);
    close(fd);
    return 0;
}
