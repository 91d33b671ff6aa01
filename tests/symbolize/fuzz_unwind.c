/*
 * fuzz_unwind.c - the stack-copy path on arbitrary registers and stack
 * bytes: a real DWARF sample of this process (captured once with
 * perf_event_open) is XOR-ed with the input, then symbolized against this
 * process's real mappings.  No crash, no hang, bounded output.
 *
 * Built with libFuzzer by `make fuzz-symbolize`; fuzz_replay_sym.c runs the
 * kept corpus and past crashes under `make test`.
 *
 * Input: byte 0 = mode bits (0x80 other ABI, 0x40 mask from the input,
 * 0x20 nregs from the input, 0x10 pid of no process), byte 1 = nregs or
 * stack-length selector, then 8-byte words XOR-ed onto the registers,
 * then bytes XOR-ed onto the stack copy.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../model/symbolize/sym_int.h"
#include "selfsample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static sym_session *session;
static self_sample real;
static uint8_t *stack_buf;

__attribute__((noinline)) static void busy(void *arg)
{
    volatile unsigned long *x = arg;
    for (unsigned long i = 0; i < 30000000ul; i++)
        *x = *x * 3 + i;
}

static int build(tr_writer *w, void *arg)
{
    (void)arg;
    char *argv[] = { (char *)"fuzz_unwind", NULL };
    return tr_writer_meta_defaults(w, "fuzz_unwind", 1, argv) < 0 ? -1 : self_write_maps(w);
}

static void init(void)
{
    sym_options o;
    sym_options_init(&o);
    o.lines = 1;
    o.debuginfod = 0;
    o.running_kernel = 0;
    session = sym_new(&o);
    size_t len;
    void *buf = self_trace(build, NULL, &len);
    tr_reader *r;
    if (buf && tr_reader_open_mem(&r, buf, len, NULL) == 0) {
        tr_record rec;
        while (tr_reader_next(r, &rec) > 0)
            sym_observe(session, r, &rec);
        tr_reader_free(r);
    }
    free(buf);
    self_sample ss[64];
    volatile unsigned long x = 1;
    int n = self_sample_run(busy, (void *)&x, ss, 64);
    if (n > 0) {
        real = ss[n - 1];
        ss[n - 1].stack = NULL;
        self_sample_free(ss, n);
    } else { /* no perf: a made-up but plausible register set */
        real.regs_mask = ((1ull << 24) - 1) & ~(0xfull << 12);
        real.nregs = (uint32_t)__builtin_popcountll(real.regs_mask);
        real.regs[7] = (uintptr_t)__builtin_frame_address(0);
        real.regs[8] = (uintptr_t)&init;
        real.stack_len = 4096;
        real.stack = calloc(1, real.stack_len);
    }
    stack_buf = malloc(real.stack_len + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!session)
        init();
    if (!session || !real.stack)
        return 0;
    uint8_t mode = size > 0 ? data[0] : 0, sel = size > 1 ? data[1] : 0;
    size_t pos = size > 2 ? 2 : size;
    tr_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = TR_REC_SAMPLE;
    rec.pid = mode & 0x10 ? 999999 : getpid();
    rec.tid = rec.pid;
    rec.u.sample.abi = mode & 0x80 ? sel % 3 : 2;
    rec.u.sample.regs_mask = real.regs_mask;
    rec.u.sample.nregs = real.nregs;
    memcpy(rec.u.sample.regs, real.regs, sizeof real.regs);
    if ((mode & 0x40) && size - pos >= 8) {
        memcpy(&rec.u.sample.regs_mask, data + pos, 8);
        pos += 8;
    }
    if (mode & 0x20)
        rec.u.sample.nregs = sel % (TR_MAX_REGS + 8);
    for (uint32_t i = 0; i < TR_MAX_REGS && size - pos >= 8 && i < real.nregs; i++, pos += 8) {
        uint64_t v;
        memcpy(&v, data + pos, 8);
        rec.u.sample.regs[i] ^= v;
    }
    size_t len = real.stack_len;
    if (mode & 0x08)
        len = len * sel / 255;
    memcpy(stack_buf, real.stack, len);
    for (size_t i = 0; pos < size && i < len; i++, pos++)
        stack_buf[i] ^= data[pos];
    rec.u.sample.stack_copy = stack_buf;
    rec.u.sample.stack_copy_len = len;
    const sym_frame *f;
    size_t n;
    if (sym_resolve_stack(session, NULL, &rec, &f, &n) >= 0)
        for (size_t i = 0; i < n; i++)
            if (!f[i].func || !f[i].module)
                abort();
    while (sym_next_warning(session))
        ;
    return 0;
}
