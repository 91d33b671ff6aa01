/*
 * fuzz_session.c - the session on arbitrary record sequences: the input is
 * a list of operations (mappings with odd bounds and paths, forks, execs,
 * exits, kallsyms / perf-map / vdso blobs of arbitrary text, stream starts,
 * address look-ups, samples with registers and stack bytes) applied to one
 * session.  No crash, no hang, every frame named.
 *
 * Built with libFuzzer by `make fuzz-symbolize`; fuzz_replay_sym.c replays
 * tests/symbolize/fuzz-session-corpus under `make test`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../model/symbolize/sym_int.h"

int LLVMFuzzerTestOneInput_session(const uint8_t *data, size_t size);

struct in {
    const uint8_t *p, *end;
};
static uint64_t take(struct in *in, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && in->p < in->end; i++)
        v |= (uint64_t)*in->p++ << (8 * i);
    return v;
}

static const char *path_of(unsigned k)
{
    static char self[4096];
    if (!self[0]) {
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0)
            self[n] = '\0';
    }
    static const char *const paths[] = {
        NULL, "/bin/true", "/nonexistent/lib.so", "[vdso]", "//anon", "", "[heap]",
        "/dev/zero", "/proc/self/maps", "/usr/lib/x86_64-linux-gnu/libc.so.6 (deleted)",
        "[kernel.kallsyms]_text", "/memfd:jit (deleted)",
    };
    k %= sizeof paths / sizeof paths[0];
    return k == 0 ? self : paths[k];
}

int LLVMFuzzerTestOneInput_session(const uint8_t *data, size_t size)
{
    sym_options o;
    sym_options_init(&o);
    o.lines = data && size && (data[0] & 1);
    o.debuginfod = 0;
    o.running_kernel = 0;
    sym_session *s = sym_new(&o);
    if (!s)
        return 0;
    struct in in = { data, data + size };
    uint8_t stack[512];
    for (int ops = 0; in.p < in.end && ops < 200; ops++) {
        tr_record r;
        memset(&r, 0, sizeof r);
        int op = (int)take(&in, 1) % 10;
        r.pid = (int32_t)(take(&in, 1) % 4);
        r.tid = r.pid + (int32_t)(take(&in, 1) % 2);
        switch (op) {
        case 0:
            r.type = TR_REC_STREAM_START;
            break;
        case 1: {
            r.type = TR_REC_MMAP;
            r.u.mmap.start = take(&in, 8);
            r.u.mmap.len = take(&in, 4);
            r.u.mmap.pgoff = take(&in, 4);
            r.u.mmap.prot = (uint32_t)take(&in, 1) & 7;
            const char *p = path_of((unsigned)take(&in, 1));
            r.u.mmap.path = p;
            r.u.mmap.path_len = strlen(p);
            uint8_t bid[20];
            size_t bl = take(&in, 1) % 21;
            for (size_t i = 0; i < bl; i++)
                bid[i] = (uint8_t)take(&in, 1);
            r.u.mmap.build_id = bid;
            r.u.mmap.build_id_len = bl;
            sym_observe(s, NULL, &r);
            continue;
        }
        case 2:
            r.type = TR_REC_FORK;
            r.u.fork.ppid = (int32_t)(take(&in, 1) % 4);
            break;
        case 3:
            r.type = TR_REC_COMM;
            r.u.comm.comm = "x";
            r.u.comm.len = 1;
            r.u.comm.exec = (uint32_t)take(&in, 1) & 1;
            break;
        case 4:
            r.type = TR_REC_EXIT;
            r.u.exit.flags = (uint32_t)take(&in, 1) & TR_EXITF_THREAD;
            break;
        case 5: case 6: { /* a blob of the input's next bytes */
            static const char *const names[] = { "kallsyms", "perf-1.map", "perf-map:2", "vdso" };
            size_t len = take(&in, 1);
            r.type = TR_REC_BLOB;
            r.u.blob.name = names[take(&in, 1) % 4];
            if (len > (size_t)(in.end - in.p))
                len = (size_t)(in.end - in.p);
            r.u.blob.name_len = strlen(r.u.blob.name);
            r.u.blob.data = in.p;
            r.u.blob.len = len;
            in.p += len;
            break;
        }
        case 7: case 8: { /* look up an address: near a mapping, kernel, or anything */
            uint64_t a = take(&in, 8);
            uint32_t flags = (uint32_t)take(&in, 1) & TR_FRAME_KERNEL;
            sym_frame f[8];
            int n = sym_resolve_addr(s, r.pid, a, flags, f, 8);
            for (int i = 0; i < n; i++)
                if (!f[i].func || !f[i].module)
                    abort();
            continue;
        }
        case 9: { /* a sample with registers and stack bytes */
            r.type = TR_REC_SAMPLE;
            r.u.sample.abi = 2;
            r.u.sample.regs_mask = take(&in, 4) | (1u << 7) | (1u << 8);
            r.u.sample.nregs = (uint32_t)__builtin_popcountll(r.u.sample.regs_mask);
            for (uint32_t i = 0; i < r.u.sample.nregs && i < TR_MAX_REGS; i++)
                r.u.sample.regs[i] = take(&in, 8);
            size_t len = take(&in, 1) * 2 % sizeof stack;
            for (size_t i = 0; i < len; i++)
                stack[i] = (uint8_t)take(&in, 1);
            r.u.sample.stack_copy = stack;
            r.u.sample.stack_copy_len = len;
            const sym_frame *f;
            size_t n;
            if (sym_resolve_stack(s, NULL, &r, &f, &n) >= 0)
                for (size_t i = 0; i < n; i++)
                    if (!f[i].func || !f[i].module)
                        abort();
            continue;
        }
        }
        sym_observe(s, NULL, &r);
    }
    sym_module_info mi;
    while (sym_modules_take_new(s, &mi))
        if (!mi.module || !mi.detail)
            abort();
    sym_symbol_info si;
    while (sym_symbols_take_new(s, &si))
        ;
    while (sym_next_warning(s))
        ;
    sym_free(s);
    return 0;
}

#ifdef FUZZ_SESSION_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return LLVMFuzzerTestOneInput_session(data, size);
}
#endif
