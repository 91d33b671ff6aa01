/* synth.c - deterministic synthetic traces (see synth.h). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "synth.h"

#define T0 1000000000000ull /* 1000 s on the monotonic clock */

int synth_all_types(tr_writer *w)
{
    int e;
    uint32_t ev, ev_tp, s_main, s_mod, s_file, f1, f2, f3, stack, s_stat;
    static const uint32_t nrs[] = {0, 1, 2, 257};
    static const char *const names[] = {"read", "write", "open", "openat"};
    static const uint8_t bid[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    if ((e = tr_writer_meta(w, "producer", "synth")) || (e = tr_writer_meta(w, "producer.version", "1")) ||
        (e = tr_writer_meta(w, "host", "golden")) || (e = tr_writer_meta(w, "kernel.release", "6.18.0")) ||
        (e = tr_writer_meta(w, "arch", "x86_64")) || (e = tr_writer_meta(w, "clock", "monotonic")) ||
        (e = tr_writer_meta(w, "time.monotonic_ns", "1000000000000")) ||
        (e = tr_writer_meta(w, "time.realtime_ns", "1767225600000000000")) ||
        (e = tr_writer_meta(w, "cmdline", "synth --all 'a b'")))
        return e;
    tr_event_def d = {.kind = TR_EV_SOFTWARE, .config = 0, .sample_value = 999, .flags = TR_EVF_FREQ | TR_EVF_CALLCHAIN,
                      .name = "cpu-clock", .name_len = 9};
    if ((e = tr_writer_event(w, &d, &ev))) return e;
    tr_event_def tp = {.kind = TR_EV_TRACEPOINT, .config = 321, .sample_value = 1, .name = "sched:sched_switch",
                       .name_len = 18};
    if ((e = tr_writer_event(w, &tp, &ev_tp))) return e;
    if ((e = tr_writer_syscall_table(w, "x86_64", nrs, names, 4))) return e;
    if ((e = tr_writer_blob(w, "kallsyms", "ffffffff81000000 T _stext\n", 26, 1))) return e;
    if ((e = tr_writer_string(w, "main", 4, &s_main)) || (e = tr_writer_string(w, "/usr/bin/prog", 13, &s_mod)) ||
        (e = tr_writer_string(w, "prog.c", 6, &s_file)) || (e = tr_writer_string(w, "stat", 4, &s_stat)))
        return e;
    tr_frame fa = {.addr = 0x401136, .flags = TR_FRAME_SYMBOLIZED, .func = s_main, .module = s_mod, .file = s_file,
                   .offset = 0x16, .line = 42};
    tr_frame fb = {.addr = 0x401200, .flags = TR_FRAME_SYMBOLIZED | TR_FRAME_INLINE, .func = s_main, .module = s_mod,
                   .offset = 0x20};
    tr_frame fk = {.addr = 0xffffffff81001234ull, .flags = TR_FRAME_KERNEL};
    if ((e = tr_writer_frame(w, &fa, &f1)) || (e = tr_writer_frame(w, &fb, &f2)) || (e = tr_writer_frame(w, &fk, &f3)))
        return e;
    uint32_t chain[3] = {f3, f2, f1};
    if ((e = tr_writer_stack(w, chain, 3, &stack))) return e;

    tr_record r;
    memset(&r, 0, sizeof r);
    r.time = T0 + 1000, r.pid = 100, r.tid = 100, r.cpu = 0;
    r.type = TR_REC_COMM, r.u.comm.comm = "prog", r.u.comm.len = 4, r.u.comm.exec = 1;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time += 1000, r.type = TR_REC_MMAP;
    r.u.mmap.start = 0x400000, r.u.mmap.len = 0x2000, r.u.mmap.pgoff = 0, r.u.mmap.prot = 5;
    r.u.mmap.build_id = bid, r.u.mmap.build_id_len = 20, r.u.mmap.path = "/usr/bin/prog", r.u.mmap.path_len = 13;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time += 1000, r.type = TR_REC_FORK, r.tid = 101, r.u.fork.ppid = 100, r.u.fork.ptid = 100;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time += 1000, r.type = TR_REC_SAMPLE, r.cpu = 1;
    r.u.sample.event = ev, r.u.sample.period = 1001001, r.u.sample.stack = stack;
    if ((e = tr_writer_add(w, &r))) return e;
    static const uint8_t stackbytes[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    r.time += 500, r.u.sample.abi = 2, r.u.sample.regs_mask = 0x7, r.u.sample.nregs = 3;
    r.u.sample.regs[0] = 1, r.u.sample.regs[1] = 0x7ffd0000, r.u.sample.regs[2] = 0x401136;
    r.u.sample.stack_copy = stackbytes, r.u.sample.stack_copy_len = 16;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time -= 200, r.type = TR_REC_COUNTER, r.cpu = -1; /* time going backwards is allowed */
    r.u.counter.event = ev, r.u.counter.value = 123456, r.u.counter.enabled = 2000, r.u.counter.running = 1000;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time += 5000, r.type = TR_REC_SYSCALL, r.cpu = -1;
    r.u.syscall.nr = 257, r.u.syscall.ret = 3, r.u.syscall.duration = 2500, r.u.syscall.nargs = 4;
    r.u.syscall.args[0] = (uint64_t)-100, r.u.syscall.args[1] = 0x7ffd1000, r.u.syscall.args[2] = 0x80000;
    r.u.syscall.flags = TR_SYSF_HAS_RET;
    r.u.syscall.ncaptures = 2;
    r.u.syscall.captures[0] = (tr_capture){.arg = 1, .kind = TR_CAP_STRING, .data = (const uint8_t *)"/etc/hostname", .len = 13};
    r.u.syscall.captures[1] = (tr_capture){.arg = 6, .kind = TR_CAP_STRUCT, .flags = TR_CAPF_EXIT, .struct_name = s_stat,
                                           .data = stackbytes, .len = 16};
    r.u.syscall.stack = stack;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time += 100, r.type = TR_REC_SIGNAL, r.u.signal.signo = 17, r.u.signal.code = 1;
    r.u.signal.siginfo = stackbytes, r.u.signal.siginfo_len = 16;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time += 100, r.type = TR_REC_LIBCALL, r.u.libcall.func = s_main, r.u.libcall.ret = -1, r.u.libcall.nargs = 1;
    r.u.libcall.args[0] = 7, r.u.libcall.duration = 10;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    static const uint8_t payload[12] = {0x2a, 0, 1, 0, 0x64, 0, 0, 0, 'a', 'b', 'c', 0};
    r.time += 100, r.type = TR_REC_TRACE_EVENT, r.cpu = 1, r.u.trace_event.event = ev_tp;
    r.u.trace_event.data = payload, r.u.trace_event.len = 12;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time += 100, r.type = TR_REC_FUNCTION, r.u.function.ip = 0xffffffff81001234ull, r.u.function.parent_ip = 0xffffffff81000000ull;
    r.u.function.kind = TR_FUNC_EXIT, r.u.function.depth = 2, r.u.function.duration = 77;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time += 100, r.type = TR_REC_LOST, r.u.lost.event = ev, r.u.lost.kind = TR_LOST_SAMPLES, r.u.lost.count = 5;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.time += 100, r.type = TR_REC_EXIT, r.tid = 100, r.u.exit.status = 1 << 8;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r, 0, sizeof r);
    r.pid = r.tid = r.cpu = -1;
    r.type = TR_REC_SYMBOL, r.u.symbol.module = s_mod, r.u.symbol.start = 0x401120, r.u.symbol.size = 0x40;
    r.u.symbol.name = s_main;
    if ((e = tr_writer_add(w, &r))) return e;
    memset(&r.u, 0, sizeof r.u);
    r.type = TR_REC_MODULE_STATUS, r.u.module_status.module = s_mod, r.u.module_status.status = TR_MOD_BUILD_ID_MISMATCH;
    r.u.module_status.detail = s_file, r.u.module_status.build_id = bid, r.u.module_status.build_id_len = 20;
    return tr_writer_add(w, &r);
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int synth_samples(tr_writer *w, uint64_t n, uint64_t seed)
{
    int e;
    uint32_t ev, names[64], mod, frames[64], stacks[512];
    uint64_t s = seed | 1;
    tr_event_def d = {.kind = TR_EV_SOFTWARE, .sample_value = 999, .flags = TR_EVF_FREQ | TR_EVF_CALLCHAIN,
                      .name = "cpu-clock", .name_len = 9};
    if ((e = tr_writer_event(w, &d, &ev))) return e;
    if ((e = tr_writer_string(w, "/usr/bin/synth", 14, &mod))) return e;
    for (int i = 0; i < 64; i++) {
        char b[32];
        int l = snprintf(b, sizeof b, "function_%02d", i);
        if ((e = tr_writer_string(w, b, (size_t)l, &names[i]))) return e;
        tr_frame f = {.addr = 0x401000 + (uint64_t)i * 0x40 + 7, .flags = TR_FRAME_SYMBOLIZED, .func = names[i],
                      .module = mod, .offset = 7};
        if ((e = tr_writer_frame(w, &f, &frames[i]))) return e;
    }
    for (int i = 0; i < 512; i++) { /* call chains main -> ... of depth 4..19 */
        uint32_t chain[20];
        int depth = 4 + (int)(xorshift(&s) % 16);
        for (int k = 0; k < depth; k++) chain[k] = frames[(xorshift(&s) % 8) + (uint64_t)(k * 3 % 56)];
        chain[depth - 1] = frames[0];
        if ((e = tr_writer_stack(w, chain, (size_t)depth, &stacks[i]))) return e;
    }
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_SAMPLE;
    r.time = T0;
    for (uint64_t i = 0; i < n; i++) {
        r.pid = 1000 + (int32_t)(i % 3);
        r.tid = r.pid + (int32_t)(i % 2);
        r.cpu = (int32_t)(i % 2);
        r.time += 1001001 + xorshift(&s) % 2000;
        r.u.sample.event = ev;
        r.u.sample.period = 1001001;
        r.u.sample.stack = stacks[xorshift(&s) % 512 % (1 + (i % 512))];
        if ((e = tr_writer_add(w, &r))) return e;
    }
    return 0;
}

int synth_phase(tr_writer *w, const char *name, uint64_t n)
{
    int e;
    uint32_t ev, mod, fn[10], stacks[65];
    tr_event_def d = {.kind = TR_EV_SOFTWARE, .sample_value = 999, .flags = TR_EVF_FREQ | TR_EVF_CALLCHAIN,
                      .name = "cpu-clock", .name_len = 9};
    if ((e = tr_writer_event(w, &d, &ev)) || (e = tr_writer_string(w, "/usr/bin/phases", 15, &mod))) return e;
    for (int i = 0; i < 10; i++) { /* NAME_0 .. NAME_7, NAME_end, main */
        char b[64];
        int l = i == 9 ? snprintf(b, sizeof b, "main") : i == 8 ? snprintf(b, sizeof b, "%s_end", name)
                                                               : snprintf(b, sizeof b, "%s_%d", name, i);
        uint32_t s;
        if ((e = tr_writer_string(w, b, (size_t)l, &s))) return e;
        tr_frame f = {.addr = 0x401000 + (uint64_t)i * 0x40, .flags = TR_FRAME_SYMBOLIZED, .func = s, .module = mod};
        if ((e = tr_writer_frame(w, &f, &fn[i]))) return e;
    }
    for (int i = 0; i < 65; i++) { /* leaf first */
        uint32_t chain[3] = {fn[i % 8], fn[i / 8 % 8], fn[9]};
        if (i == 64) chain[0] = fn[8], chain[1] = fn[9];
        if ((e = tr_writer_stack(w, chain, i == 64 ? 2 : 3, &stacks[i]))) return e;
    }
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_SAMPLE;
    r.time = T0;
    r.pid = r.tid = 5000;
    for (uint64_t i = 0; i <= n; i++) {
        r.time += 1000000;
        r.u.sample.event = ev;
        r.u.sample.period = 1000000;
        r.u.sample.stack = stacks[i == n ? 64 : i % 64];
        if ((e = tr_writer_add(w, &r))) return e;
    }
    return 0;
}

int synth_stack_copies(tr_writer *w, uint64_t n, size_t max_copy, uint64_t seed)
{
    enum { NTHREADS = 3 };
    uint8_t stack[NTHREADS][65536];
    uint64_t s = seed | 1;
    uint32_t ev;
    int e;
    if (max_copy < 64 || max_copy > sizeof stack[0]) return TR_E_INVAL;
    tr_event_def d = {.kind = TR_EV_SOFTWARE, .sample_value = 999, .flags = TR_EVF_FREQ | TR_EVF_CALLCHAIN | TR_EVF_DWARF,
                      .name = "cpu-clock", .name_len = 9};
    if ((e = tr_writer_event(w, &d, &ev))) return e;
    for (int t = 0; t < NTHREADS; t++)
        for (size_t i = 0; i < max_copy; i++) stack[t][i] = (uint8_t)xorshift(&s);
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_SAMPLE;
    r.time = T0;
    r.pid = 2000;
    for (uint64_t i = 0; i < n; i++) {
        int t = (int)(xorshift(&s) % NTHREADS);
        uint8_t *st = stack[t];
        r.tid = 2000 + t;
        r.cpu = t & 1;
        r.time += 1000000;
        /* the stack pointer moves; frames below the outermost few change */
        size_t depth = 16 + xorshift(&s) % (max_copy - 16), len = depth;
        size_t changed = xorshift(&s) % (depth + 1);
        for (size_t k = 0; k < changed; k += 1 + xorshift(&s) % 8) st[max_copy - depth + k] = (uint8_t)xorshift(&s);
        if (i % 7 == 3) { /* a deep stack: the copy ends below the top, the end shifts */
            len = depth / 2;
        }
        r.u.sample.event = ev;
        r.u.sample.period = 1000000;
        r.u.sample.abi = 2;
        r.u.sample.regs_mask = 0x1c0; /* bp, sp, ip in perf's x86-64 numbering */
        r.u.sample.nregs = 3;
        r.u.sample.regs[0] = 0x7ffc0000 + depth;
        r.u.sample.regs[1] = 0x7ffd0000 - depth;
        r.u.sample.regs[2] = 0x401000 + i;
        r.u.sample.stack_copy = st + max_copy - depth;
        r.u.sample.stack_copy_len = len;
        r.u.sample.stack_copy_addr = r.u.sample.regs[1]; /* the sp */
        if ((e = tr_writer_add(w, &r))) return e;
    }
    return 0;
}

bytes synth_fd_bytes(int fd)
{
    bytes b = {NULL, 0};
    off_t end = lseek(fd, 0, SEEK_END);
    if (end >= 0 && (b.p = malloc((size_t)end + 1)) && pread(fd, b.p, (size_t)end, 0) == end) {
        b.len = (size_t)end;
    } else {
        free(b.p);
        b.p = NULL;
    }
    close(fd);
    return b;
}
