/*
 * unwind.c - DWARF unwinding of samples that carry user registers and a
 * copy of the user stack (perf --call-graph dwarf), with libdwfl's
 * unwinder and our own thread callbacks: registers come from the sample,
 * memory from the stack copy (or from the mapped file for other reads).
 *
 * One Dwfl per process, rebuilt only when the process's mappings change:
 * building one per sample is what makes naive unwinders slow.
 *
 * Before libdwfl, a fast path for x86-64: the CFI rules of each address
 * (from the module's .eh_frame, through libdw) are reduced once to a small
 * record -- CFA = rsp or rbp + offset, return address and rbp saved at
 * CFA-relative offsets -- and cached per (module, address), so that each
 * frame of each sample costs a hash look-up and a few loads from the stack
 * copy.  A sample meeting anything else (rules beyond those forms, signal
 * frames, an address without .eh_frame) is unwound by libdwfl instead, as
 * before; where a register cannot be read, the chain ends as libdwfl
 * ends it.  The frames are the same (a unit test compares the two).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <dwarf.h>

#include "sym_int.h"

#define MAX_UNWIND 256

enum { ARCH_NONE, ARCH_X86_64, ARCH_AARCH64 };

static int session_arch(sym_session *s)
{
    if (s->arch_kind_gen == s->arch_gen + 1)
        return s->arch_kind; /* cached: arch did not change */
    const char *a = s->arch;
    struct utsname u;
    if (!a[0] && uname(&u) == 0)
        a = u.machine;
    int k = ARCH_NONE;
    if (strcmp(a, "x86_64") == 0)
        k = ARCH_X86_64;
    else if (strcmp(a, "aarch64") == 0 || strcmp(a, "arm64") == 0)
        k = ARCH_AARCH64;
    s->arch_kind = k;
    s->arch_kind_gen = s->arch_gen + 1;
    return k;
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
    procs_map *m = s->cur_proc ? sym_proc_find_map(s->cur_proc, addr) : NULL;
    if (m && sym_map_file(m) && m->end - addr >= sizeof *result) {
        uint64_t v;
        if (sym_symfile_read(sym_map_file(m), addr - m->start + m->pgoff, &v) == 0) {
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
    size_t reported = 0, it = 0;
    for (procs_map *m; p->pid >= 0 && (m = procs_maps_next(p->mp, &it));) {
        if (!sym_map_usable(m) || is_anon_path(m->path))
            continue;
        sym_symfile *f = sym_map_symfile(s, m);
        if (!f || f->fd < 0 || f->status == TR_MOD_CORRUPT)
            continue;
        /* one module per file: its first mapping decides the bias (maps
         * it does not use have no file) */
        int seen = 0;
        size_t jt = 0;
        for (procs_map *o; !seen && jt + 1 < it && (o = procs_maps_next(p->mp, &jt));)
            seen = sym_map_file(o) == f;
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
    if (array_reserve(&s->addrs, &s->addrcap, s->naddrs + 1, sizeof *s->addrs, 256) < 0 ||
        array_reserve(&s->adjust, &s->adjustcap, s->naddrs + 1, sizeof *s->adjust, 256) < 0)
        return -1;
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
    size_t it = 0;
    for (procs_proc *mp; (mp = procs_next(s->procs, &it));) {
        sym_proc *p = mp->user;
        if (p && p != keep && p->unwind && (!lru || p->unwind_used < lru->unwind_used))
            lru = p;
    }
    if (lru)
        sym_unwind_free(lru);
}

/* ---- the fast path: x86-64 CFI rules reduced and cached per address ---- */

enum { RULE_SAME, RULE_UNDEF, RULE_AT }; /* a register: unchanged, lost, saved at CFA + off */
enum { DW_X86_RBP = 6, DW_X86_RSP = 7, DW_X86_RA = 16 };

typedef struct sym_cfi_rule {
    uint8_t usable;  /* 0: not of the simple forms (libdwfl unwinds the sample) */
    uint8_t cfa_reg; /* the CFA is this DWARF register (rbp or rsp) + cfa_off */
    uint8_t rbp, ra; /* RULE_* of the caller's rbp and of the return address */
    int64_t cfa_off, rbp_off, ra_off;
} sym_cfi_rule;

void sym_unwind_cache_free(sym_session *s)
{
    for (size_t i = 0; i < s->cfi.cap; i++)
        free(s->cfi.slots[i].val);
    hashmap_free(&s->cfi);
}

static Dwarf_CFI *symfile_eh_cfi(sym_symfile *f, Dwarf_Addr *bias)
{
    if (!f->eh_tried) {
        f->eh_tried = 1;
        f->eh_cfi = f->mod ? dwfl_module_eh_cfi(f->mod, &f->eh_bias) : NULL;
    }
    *bias = f->eh_bias;
    return f->eh_cfi;
}

/* The rule of register regno in fr when it is one of the simple forms:
 * 0, or -1 when it is not. */
static int simple_reg_rule(Dwarf_Frame *fr, int regno, uint8_t *rule, int64_t *off)
{
    Dwarf_Op mem[3], *ops;
    size_t n;
    *off = 0;
    if (dwarf_frame_register(fr, regno, mem, &ops, &n) != 0)
        return -1;
    if (n == 0) { /* ops set: undefined; NULL: same value */
        *rule = ops ? RULE_UNDEF : RULE_SAME;
        return 0;
    }
    if (ops[0].atom != DW_OP_call_frame_cfa)
        return -1;
    *rule = RULE_AT;
    if (n == 1)
        return 0;
    if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
        *off = (int64_t)ops[1].number; /* negative offsets wrap around */
        return 0;
    }
    return -1;
}

/* Is the caller's rsp the CFA (the x86-64 ABI rule: val_offset(0))? */
static int rsp_is_cfa(Dwarf_Frame *fr)
{
    Dwarf_Op mem[3], *ops;
    size_t n;
    return dwarf_frame_register(fr, DW_X86_RSP, mem, &ops, &n) == 0 && n == 2 &&
           ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_stack_value;
}

static void compute_rule(sym_symfile *f, uint64_t vaddr, sym_cfi_rule *r)
{
    memset(r, 0, sizeof *r);
    Dwarf_Addr bias, start, end;
    Dwarf_CFI *cfi = symfile_eh_cfi(f, &bias);
    Dwarf_Frame *fr = NULL;
    if (!cfi || dwarf_cfi_addrframe(cfi, vaddr - bias, &fr) != 0 || !fr)
        return;
    bool signal = false;
    Dwarf_Op *ops;
    size_t n;
    int ra = dwarf_frame_info(fr, &start, &end, &signal);
    uint64_t cfa_reg = 99;
    int64_t cfa_off = 0;
    if (dwarf_frame_cfa(fr, &ops, &n) == 0 && n == 1) { /* CFA = register + offset */
        if (ops[0].atom == DW_OP_bregx) {
            cfa_reg = ops[0].number;
            cfa_off = (int64_t)ops[0].number2;
        } else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
            cfa_reg = ops[0].atom - DW_OP_breg0;
            cfa_off = (int64_t)ops[0].number;
        }
    }
    if (ra == DW_X86_RA && !signal && (cfa_reg == DW_X86_RBP || cfa_reg == DW_X86_RSP) &&
        rsp_is_cfa(fr) && simple_reg_rule(fr, DW_X86_RBP, &r->rbp, &r->rbp_off) == 0 &&
        simple_reg_rule(fr, DW_X86_RA, &r->ra, &r->ra_off) == 0 && r->ra != RULE_SAME) {
        r->cfa_reg = (uint8_t)cfa_reg;
        r->cfa_off = cfa_off;
        r->usable = 1;
    }
    free(fr);
}

/* Per process, the rules of the addresses met last, by address: one probe
 * instead of a mapping search and a hash look-up (valid while the
 * process's mappings stay as they were). */
#define RULE_SLOT_BITS 11
struct sym_rule_slot {
    uint64_t addr, gen; /* gen: maps_gen + 1 when filled */
    const sym_cfi_rule *rule;
};

static const sym_cfi_rule *rule_lookup(sym_session *s, sym_proc *p, uint64_t addr);

/* The cached rule at addr of p, NULL when there is no module or no memory. */
static const sym_cfi_rule *rule_at(sym_session *s, sym_proc *p, uint64_t addr)
{
    size_t h = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> (64 - RULE_SLOT_BITS));
    uint64_t gen = p->mp->maps_gen + 1;
    struct sym_rule_slot *slot = p->rules ? &p->rules[h] : NULL;
    if (slot && slot->gen == gen && slot->addr == addr)
        return slot->rule;
    const sym_cfi_rule *r = rule_lookup(s, p, addr);
    if (r && !p->rules)
        p->rules = calloc((size_t)1 << RULE_SLOT_BITS, sizeof *p->rules);
    if (r && p->rules)
        p->rules[h] = (struct sym_rule_slot){ addr, gen, r };
    return r;
}

static const sym_cfi_rule *rule_lookup(sym_session *s, sym_proc *p, uint64_t addr)
{
    procs_map *m = sym_proc_find_map(p, addr);
    if (!m || is_anon_path(m->path)) /* no file to unwind through */
        return NULL;
    sym_symfile *f = sym_map_symfile(s, m);
    if (!f || f->fd < 0 || !f->mod)
        return NULL;
    uint64_t vaddr = sym_symfile_vaddr(f, addr - m->start + m->pgoff);
    sym_cfi_rule *r = hashmap_get(&s->cfi, f->id, vaddr);
    if (r)
        return r;
    r = malloc(sizeof *r);
    if (!r)
        return NULL;
    compute_rule(f, vaddr, r);
    if (hashmap_put(&s->cfi, f->id, vaddr, r) < 0) {
        free(r);
        return NULL;
    }
    return r;
}

/* The word at addr: from the sample's stack copy (copy, len: the copy
 * of the stack from s->cur_sp), else (rarely) as cb_memory_read finds it.
 * 0 when it cannot be read. */
static inline int read_word(sym_session *s, const uint8_t *copy, uint64_t len, uint64_t addr,
                            uint64_t *val)
{
    uint64_t off = addr - s->cur_sp;
    if (off <= len && len - off >= sizeof *val) {
        memcpy(val, copy + off, sizeof *val);
        return 1;
    }
    Dwarf_Word w;
    if (!cb_memory_read(NULL, addr, &w, s))
        return 0;
    *val = w;
    return 1;
}

/* Unwind with cached rules: 1 when done (s->addrs holds the frames), 0
 * when a frame needs libdwfl (the caller unwinds the sample again). */
static int fast_unwind(sym_session *s, sym_proc *p, const tr_record *rec, uint64_t sp, uint64_t ip)
{
    if (array_reserve(&s->addrs, &s->addrcap, MAX_UNWIND, sizeof *s->addrs, MAX_UNWIND) < 0 ||
        array_reserve(&s->adjust, &s->adjustcap, MAX_UNWIND, sizeof *s->adjust, MAX_UNWIND) < 0)
        return 1; /* no memory: no frames */
    uint64_t *addrs = s->addrs, rbp = 0, pc = ip, len = rec->u.sample.stack_copy_len;
    uint8_t *adjust = s->adjust;
    const uint8_t *copy = rec->u.sample.stack_copy;
    int rbp_ok = sample_reg(rec, X86_BP, &rbp) == 0, done = 1;
    size_t n = 0;
    for (int first = 1; pc != 0; first = 0) {
        addrs[n] = pc;
        adjust[n++] = (uint8_t)!first;
        if (n >= MAX_UNWIND)
            break;
        const sym_cfi_rule *r = rule_at(s, p, first ? pc : pc - 1);
        if (!r || !r->usable) {
            done = 0;
            break;
        }
        /* where libdwfl cannot compute the return address (the CFA from an
         * unknown rbp, a return address beyond the stack copy) it ends the
         * chain there, as it does for an undefined one (_start) */
        if (r->ra == RULE_UNDEF || (r->cfa_reg == DW_X86_RBP && !rbp_ok))
            break;
        uint64_t cfa = (r->cfa_reg == DW_X86_RSP ? sp : rbp) + (uint64_t)r->cfa_off;
        if (!read_word(s, copy, len, cfa + (uint64_t)r->ra_off, &pc))
            break;
        if (r->rbp == RULE_AT) /* a saved rbp that cannot be read is unknown */
            rbp_ok = read_word(s, copy, len, cfa + (uint64_t)r->rbp_off, &rbp);
        else if (r->rbp == RULE_UNDEF)
            rbp_ok = 0;
        sp = cfa;
    }
    s->naddrs = n;
    return done;
}

size_t sym_unwind(sym_session *s, sym_proc *p, const tr_record *rec)
{
    s->naddrs = 0;
    int arch = session_arch(s);
    uint64_t sp = 0, ip = 0;
    if (!p || arch == ARCH_NONE || rec->u.sample.abi != 2 /* PERF_SAMPLE_REGS_ABI_64 */ ||
        sample_sp_ip(arch, rec, &sp, &ip) < 0)
        return 0;
    if (arch == ARCH_X86_64 && s->opt.fast_unwind) {
        s->cur_sample = rec;
        s->cur_proc = p;
        s->cur_sp = sp;
        int done = fast_unwind(s, p, rec, sp, ip);
        s->cur_sample = NULL;
        if (done) {
            s->fast_unwinds++;
            return s->naddrs;
        }
        s->naddrs = 0;
    }
    s->slow_unwinds++;
    if (p->unwind && p->unwind_gen != p->mp->maps_gen)
        sym_unwind_free(p);
    if (!p->unwind) {
        if (p->unwind_failed && p->unwind_gen == p->mp->maps_gen)
            return 0;
        limit_sessions(s, p);
        p->unwind = build_session(s, p);
        if (p->unwind)
            s->live_unwind++;
        p->unwind_gen = p->mp->maps_gen;
        if (!p->unwind) {
            p->unwind_failed = 1;
            sym_warn_pid(s, SYM_PW_UNWIND, "pid %d: cannot unwind: %s", (int)p->pid,
                      p->mp->nmaps ? dwfl_errmsg(-1) : "no mappings recorded");
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
