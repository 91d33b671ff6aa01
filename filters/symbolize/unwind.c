/*
 * unwind.c - DWARF unwinding of samples that carry user registers and a
 * copy of the user stack (perf --call-graph dwarf), with libdwfl's
 * unwinder and our own thread callbacks: registers come from the sample,
 * memory from the stack copy (or from the mapped file for other reads).
 *
 * One Dwfl per process, rebuilt only when the process's mappings change:
 * building one per sample is what makes naive unwinders slow.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sym_int.h"

#define MAX_UNWIND 256

enum { ARCH_NONE, ARCH_X86_64, ARCH_AARCH64 };

static int session_arch(const sym_session *s)
{
    const char *a = s->arch;
    struct utsname u;
    if (!a[0] && uname(&u) == 0)
        a = u.machine;
    if (strcmp(a, "x86_64") == 0)
        return ARCH_X86_64;
    if (strcmp(a, "aarch64") == 0 || strcmp(a, "arm64") == 0)
        return ARCH_AARCH64;
    return ARCH_NONE;
}

/* Value of perf register idx of the sample: regs[] holds the registers of
 * regs_mask in bit order (as perf delivers them); a trace that stores them
 * indexed by bit number (nregs > popcount) is accepted too. */
static int sample_reg(const tr_record *rec, unsigned idx, uint64_t *val)
{
    uint64_t mask = rec->u.sample.regs_mask;
    uint32_t nregs = rec->u.sample.nregs > TR_MAX_REGS ? TR_MAX_REGS : rec->u.sample.nregs;
    if (idx >= 64 || !(mask >> idx & 1))
        return -1;
    unsigned pop = (unsigned)__builtin_popcountll(mask);
    unsigned at = nregs == pop ? (unsigned)__builtin_popcountll(mask & ((1ull << idx) - 1)) : idx;
    if (at >= nregs)
        return -1;
    *val = rec->u.sample.regs[at];
    return 0;
}

/* perf_regs.h numbering */
enum { X86_AX, X86_BX, X86_CX, X86_DX, X86_SI, X86_DI, X86_BP, X86_SP, X86_IP, X86_FLAGS,
       X86_R8 = 16 };
enum { ARM64_SP = 31, ARM64_PC = 32 };

static int sample_sp_ip(int arch, const tr_record *rec, uint64_t *sp, uint64_t *ip)
{
    if (arch == ARCH_X86_64)
        return sample_reg(rec, X86_SP, sp) | sample_reg(rec, X86_IP, ip);
    if (arch == ARCH_AARCH64)
        return sample_reg(rec, ARM64_SP, sp) | sample_reg(rec, ARM64_PC, ip);
    return -1;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **targ)
{
    (void)dwfl;
    sym_session *s = arg;
    if (*targ)
        return 0;
    *targ = arg;
    return s->cur_sample->tid > 0 ? s->cur_sample->tid : 1;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **targ)
{
    (void)dwfl;
    (void)tid;
    *targ = arg;
    return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    (void)dwfl;
    sym_session *s = arg;
    const tr_record *rec = s->cur_sample;
    uint64_t sp = s->cur_sp, len = rec->u.sample.stack_copy_len;
    if (addr >= sp && addr - sp <= len && len - (addr - sp) >= sizeof *result) {
        memcpy(result, rec->u.sample.stack_copy + (addr - sp), sizeof *result);
        return true;
    }
    sym_mapping *m = s->cur_proc ? sym_proc_find_map(s->cur_proc, addr) : NULL;
    if (m && m->file && m->end - addr >= sizeof *result) {
        uint64_t v;
        if (sym_symfile_read(m->file, addr - m->start + m->pgoff, &v) == 0) {
            *result = v;
            return true;
        }
    }
    return false;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
    sym_session *s = arg;
    const tr_record *rec = s->cur_sample;
    uint64_t v;
    if (s->cur_arch_ok == ARCH_X86_64) {
        /* DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
        static const unsigned perf_of_dwarf[16] = { X86_AX, X86_DX, X86_CX, X86_BX, X86_SI,
                                                    X86_DI, X86_BP, X86_SP };
        for (unsigned i = 0; i < 16; i++) {
            unsigned pr = i < 8 ? perf_of_dwarf[i] : X86_R8 + (i - 8);
            if (sample_reg(rec, pr, &v) == 0) {
                Dwarf_Word w = v;
                if (!dwfl_thread_state_registers(thread, (int)i, 1, &w))
                    return false;
            }
        }
        if (sample_reg(rec, X86_IP, &v) < 0)
            return false;
        dwfl_thread_state_register_pc(thread, v);
        return true;
    }
    if (s->cur_arch_ok == ARCH_AARCH64) {
        for (unsigned i = 0; i <= 31; i++)
            if (sample_reg(rec, i, &v) == 0) {
                Dwarf_Word w = v;
                if (!dwfl_thread_state_registers(thread, (int)i, 1, &w))
                    return false;
            }
        if (sample_reg(rec, ARM64_PC, &v) < 0)
            return false;
        dwfl_thread_state_register_pc(thread, v);
        return true;
    }
    return false;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = cb_next_thread,
    .get_thread = cb_get_thread,
    .memory_read = cb_memory_read,
    .set_initial_registers = cb_set_initial_registers,
};

static int is_anon_path(const char *p)
{
    return p[0] != '/' && strcmp(p, "[vdso]") != 0;
}

/* Unwinding uses .eh_frame only: libdwfl would otherwise load a module's
 * whole separate debug info (decompressing it) for .debug_frame whenever
 * .eh_frame ends a chain (as at _start), once per process. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
    (void)debuglink_file, (void)debuglink_crc;
    *debuginfo_file_name = NULL;
    return -1;
}

static const Dwfl_Callbacks unwind_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = no_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* Report every mapped file at its load bias and attach our callbacks. */
static Dwfl *build_session(sym_session *s, sym_proc *p)
{
    Dwfl *d = dwfl_begin(&unwind_callbacks);
    if (!d)
        return NULL;
    dwfl_report_begin(d);
    size_t reported = 0;
    for (size_t i = 0; i < p->nmaps; i++) {
        sym_mapping *m = &p->maps[i];
        if (is_anon_path(m->path))
            continue;
        if (!m->looked_up) {
            m->looked_up = 1;
            m->file = sym_symfile_get(s, m->path, m->build_id, m->build_id_len);
        }
        sym_symfile *f = m->file;
        if (!f || f->fd < 0 || f->status == TR_MOD_CORRUPT)
            continue;
        /* one module per file: its first mapping decides the bias */
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = p->maps[j].file == f;
        if (seen)
            continue;
        uint64_t bias = m->start - sym_symfile_vaddr(f, m->pgoff);
        int fd = dup(f->fd);
        if (fd < 0)
            continue;
        const char *name = strrchr(m->path, '/');
        Dwfl_Module *mod = dwfl_report_elf(d, name ? name + 1 : m->path, f->found, fd,
                                           f->is_exec ? 0 : bias, true);
        if (!mod)
            close(fd);
        else
            reported++;
    }
    dwfl_report_end(d, NULL, NULL);
    if (!reported || !dwfl_attach_state(d, NULL, p->pid > 0 ? p->pid : 1, &thread_callbacks, s)) {
        dwfl_end(d);
        return NULL;
    }
    return d;
}

void sym_unwind_free(sym_proc *p)
{
    if (p->unwind) {
        dwfl_end(p->unwind);
        p->session->live_unwind--;
    }
    p->unwind = NULL;
    p->unwind_failed = 0;
}

static int push_addr(sym_session *s, uint64_t a, int adjust)
{
    if (s->naddrs == s->addrcap) {
        size_t ncap = s->addrcap ? s->addrcap * 2 : 256;
        uint64_t *n = realloc(s->addrs, ncap * sizeof *n);
        if (!n)
            return -1;
        s->addrs = n;
        uint8_t *j = realloc(s->adjust, ncap);
        if (!j)
            return -1;
        s->adjust = j;
        s->addrcap = ncap;
    }
    s->addrs[s->naddrs] = a;
    s->adjust[s->naddrs++] = (uint8_t)adjust;
    return 0;
}

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
    sym_session *s = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(frame, &pc, &activation))
        return DWARF_CB_ABORT;
    if (pc == 0 || push_addr(s, pc, !activation) < 0 || s->naddrs >= MAX_UNWIND)
        return DWARF_CB_ABORT;
    return DWARF_CB_OK;
}

/* Live unwinding sessions hold every mapped file open: past this many,
 * the least recently used one is closed (it is rebuilt when needed). */
#ifndef SYM_MAX_LIVE_SESSIONS
#define SYM_MAX_LIVE_SESSIONS 64
#endif

static void limit_sessions(sym_session *s, sym_proc *keep)
{
    if (s->live_unwind < SYM_MAX_LIVE_SESSIONS)
        return;
    sym_proc *lru = NULL;
    for (size_t i = 0; i < s->procs.cap; i++) {
        sym_proc *p = s->procs.slots[i].val;
        if (p && p != keep && p->unwind && (!lru || p->unwind_used < lru->unwind_used))
            lru = p;
    }
    if (lru)
        sym_unwind_free(lru);
}

size_t sym_unwind(sym_session *s, sym_proc *p, const tr_record *rec)
{
    s->naddrs = 0;
    int arch = session_arch(s);
    uint64_t sp, ip;
    if (!p || arch == ARCH_NONE || rec->u.sample.abi != 2 /* PERF_SAMPLE_REGS_ABI_64 */ ||
        sample_sp_ip(arch, rec, &sp, &ip) < 0)
        return 0;
    if (p->unwind && p->unwind_gen != p->maps_gen)
        sym_unwind_free(p);
    if (!p->unwind) {
        if (p->unwind_failed && p->unwind_gen == p->maps_gen)
            return 0;
        limit_sessions(s, p);
        p->unwind = build_session(s, p);
        if (p->unwind)
            s->live_unwind++;
        p->unwind_gen = p->maps_gen;
        if (!p->unwind) {
            p->unwind_failed = 1;
            sym_warnf(s, "pid %d: cannot unwind: %s", (int)p->pid,
                      p->nmaps ? dwfl_errmsg(-1) : "no mappings recorded");
            return 0;
        }
    }
    p->unwind_used = ++s->unwind_clock;
    s->cur_sample = rec;
    s->cur_proc = p;
    s->cur_sp = sp;
    s->cur_arch_ok = arch;
    /* the stack may end early: what was unwound until then is kept */
    dwfl_getthread_frames(p->unwind, rec->tid > 0 ? rec->tid : (p->pid > 0 ? p->pid : 1), frame_cb, s);
    s->cur_sample = NULL;
    return s->naddrs;
}
