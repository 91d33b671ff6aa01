/* fuzz_perfscript.c - libFuzzer target: bytes through tr-fold's perf script
 * folding (model/fold/perfscript.c and the rules of model/stacks.h), with
 * options from the first byte.  Build and run: tests/flame/fuzz.sh [SECONDS];
 * make test replays the kept inputs (test_fuzz_perfscript_replay). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fold/perfscript.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        abort();
    if (size && write(fd, data, size) != (ssize_t)size)
        abort();
    lseek(fd, 0, SEEK_SET);
    uint8_t k = size ? data[0] : 0;
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
