/* fuzz_fold_trace.c - tr-fold on hostile traces: the stacks of samples and
 * syscalls folded through the symbolize session (kallsyms, vDSO and perf-map
 * blobs, mappings, unwinding), off-CPU time from sched_switch payloads
 * through libtraceevent, syscall time, the raw frames, and weights read from
 * tracepoint payloads and syscall arguments (--weight).  Built with
 * libFuzzer and the record mutator by `make fuzz-fold-trace`; make test
 * replays the trace corpora with it (test_fuzz_fold_trace_replay). */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fold/fold.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fold_once(const uint8_t *data, size_t size, int mode)
{
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "w");
    int fd = memfd_create("fuzz", 0);
    if (fd < 0) return;
    if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return;
    }
    struct fold_opts o;
    fold_opts_init(&o);
    o.quiet = 1;
    o.no_cache = 1;
    o.offcpu = mode == 1;
    o.syscall_time = mode == 2;
    o.no_symbolize = mode == 3;
    o.weight = mode == 4 ? "len,brk,4096<<order,prev_pid*3,ret" : NULL;
    struct fold f;
    struct lines l;
    const char *head;
    size_t hl;
    if (fold_init(&f, &o) == 0) {
        lines_init(&l, fd, 0);
        if (lines_peek(&l, TR_SNIFF_BYTES, &head, &hl) >= 0 && tr_is_trace(head, hl)) {
            fold_trace(&f, &l, "fuzz");
            fold_print(&f, devnull);
        }
        lines_free(&l);
        fold_free(&f);
    }
    fold_opts_free(&o);
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int mode = 0; mode < 5; mode++) fold_once(data, size, mode);
    return 0;
}
