/*
 * test_symbolize.c - the symbolize library against traces of this very
 * process: known function addresses, a real DWARF sample of an inlined
 * loop (perf_event_open of itself), corrupt registers and stacks, kernel
 * and JIT tables, build-id mismatches, demangling, the cache of inflated
 * debug info (this test's own, compressed) against damaged and forged
 * entries.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>

#include "../../model/symbolize/sym_int.h"
#include "selfsample.h"

/* ---- functions whose addresses the tests resolve ---- */

volatile unsigned long test_sink;

__attribute__((noinline)) unsigned long target_leaf(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        test_sink += i * 7;
    return test_sink;
}

__attribute__((noinline)) unsigned long target_mid(unsigned long n)
{
    unsigned long r = target_leaf(n) + 1;
    test_sink += r;
    return r;
}

static inline __attribute__((always_inline)) void inl_spin(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        test_sink = test_sink * 3 + i;
}

static uint64_t cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

__attribute__((noinline)) void outer_spin(void *arg)
{
    uint64_t until = cpu_ns() + *(uint64_t *)arg;
    do
        inl_spin(200000);
    while (cpu_ns() < until);
}

/* ---- helpers ---- */

struct frames {
    sym_frame f[64];
    size_t n;
};

struct result {
    struct frames *s; /* one per sample, in order */
    size_t n;
    char warnings[16][512];
    size_t nwarn;
    sym_module_info mods[16];
    size_t nmods;
};

static void result_free(struct result *r)
{
    free(r->s);
    memset(r, 0, sizeof *r);
}

static void collect_warning(void *ctx, const char *msg)
{
    struct result *r = ctx;
    if (r->nwarn < 16)
        snprintf(r->warnings[r->nwarn++], sizeof r->warnings[0], "%s", msg);
}

/* Read buf with a new session and keep the frames of every sample.  The
 * session is returned (strings stay valid) and freed by the caller. */
static sym_session *resolve_all(const void *buf, size_t len, sym_options *o, int prescan,
                                struct result *res)
{
    memset(res, 0, sizeof *res);
    o->warn = collect_warning;
    o->warn_ctx = res;
    sym_session *s = sym_new(o);
    assert_non_null(s);
    if (prescan == 1)
        assert_int_equal(sym_prescan(s, buf, len), 0);
    if (prescan == 2) /* as tr-symbolize does: the last chunks now, the rest if needed */
        assert_int_equal(sym_prescan_lazy(s, buf, len), 0);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, buf, len, NULL), 0);
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        assert_true(rc > 0);
        assert_int_equal(sym_observe(s, r, &rec), 0);
        if (rec.type != TR_REC_SAMPLE)
            continue;
        const sym_frame *f;
        size_t n;
        assert_true(sym_resolve_stack(s, r, &rec, &f, &n) >= 0);
        res->s = realloc(res->s, (res->n + 1) * sizeof *res->s);
        assert_non_null(res->s);
        struct frames *fr = &res->s[res->n++];
        fr->n = n < 64 ? n : 64;
        memcpy(fr->f, f, fr->n * sizeof *f);
    }
    tr_reader_free(r);
    sym_finish(s);
    while (res->nmods < 16 && sym_modules_take_new(s, &res->mods[res->nmods]))
        res->nmods++;
    return s;
}

static const char *exe_path(void)
{
    static char p[4096];
    ssize_t n = readlink("/proc/self/exe", p, sizeof p - 1);
    assert_true(n > 0);
    p[n] = '\0';
    return p;
}

static int add_sample(tr_writer *w, const uint64_t *addrs, const uint32_t *flags, size_t n,
                      const self_sample *ss)
{
    static uint32_t ev;
    tr_event_def d = { 0, TR_EV_SOFTWARE, 1, 250000, TR_EVF_CALLCHAIN | TR_EVF_DWARF, "task-clock", 10 };
    if (!ev && tr_writer_event(w, &d, &ev) < 0)
        return -1;
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_SAMPLE;
    r.pid = getpid();
    r.tid = gettid();
    r.cpu = 0;
    r.time = 1;
    r.u.sample.event = ev;
    r.u.sample.period = 1;
    if (n && tr_writer_stack_addrs(w, addrs, flags, n, &r.u.sample.stack) < 0)
        return -1;
    if (ss) {
        r.u.sample.abi = 2;
        r.u.sample.regs_mask = ss->regs_mask;
        r.u.sample.nregs = ss->nregs;
        memcpy(r.u.sample.regs, ss->regs, sizeof ss->regs);
        r.u.sample.stack_copy = ss->stack;
        r.u.sample.stack_copy_len = ss->stack_len;
    }
    return tr_writer_add(w, &r);
}

static int begin(tr_writer *w)
{
    char *argv[] = { (char *)"test_symbolize", NULL };
    return tr_writer_meta_defaults(w, "test_symbolize", 1, argv) < 0 ? -1 : self_write_maps(w);
}

/* ---- known functions (frame pointer style stacks) ---- */

static int build_known(tr_writer *w, void *arg)
{
    (void)arg;
    uint64_t a[2] = { (uint64_t)(uintptr_t)&target_leaf + 4, (uint64_t)(uintptr_t)&target_mid + 5 };
    uint32_t fl[2] = { 0, 0 };
    if (begin(w) < 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if (add_sample(w, a, fl, 2, NULL) < 0)
            return -1;
    return 0;
}

static void test_known_functions(void **state)
{
    (void)state;
    size_t len;
    void *buf = self_trace(build_known, NULL, &len);
    assert_non_null(buf);
    sym_options o;
    sym_options_init(&o);
    struct result r;
    sym_session *s = resolve_all(buf, len, &o, 0, &r);
    assert_int_equal(r.n, 3);
    for (size_t i = 0; i < r.n; i++) {
        assert_int_equal(r.s[i].n, 2);
        assert_string_equal(r.s[i].f[0].func, "target_leaf");
        assert_string_equal(r.s[i].f[1].func, "target_mid");
        assert_int_equal(r.s[i].f[0].offset, 4);
        assert_int_equal(r.s[i].f[1].offset, 5); /* return address: looked up at -1, shown as is */
        assert_string_equal(r.s[i].f[0].module, exe_path());
        assert_true(r.s[i].f[0].flags & TR_FRAME_SYMBOLIZED);
        assert_false(r.s[i].f[0].flags & (SYM_UNKNOWN | TR_FRAME_KERNEL));
        assert_ptr_equal(r.s[i].f[0].func, r.s[0].f[0].func); /* interned */
    }
    sym_stats st;
    sym_get_stats(s, &st);
    assert_true(st.cache_hits >= 4); /* samples 2 and 3 come from the cache */
    int found = 0;
    for (size_t i = 0; i < r.nmods; i++)
        if (strcmp(r.mods[i].module, exe_path()) == 0) {
            assert_int_equal(r.mods[i].status, TR_MOD_RESOLVED);
            found = 1;
        }
    assert_true(found);
    assert_int_equal(r.nwarn, 0);
    sym_free(s);
    result_free(&r);
    free(buf);
}

/* ---- the code of a module (sym_code_*, tr-annotate) ---- */

static void test_code(void **state)
{
    (void)state;
    size_t len;
    void *buf = self_trace(build_known, NULL, &len);
    assert_non_null(buf);
    sym_options o;
    sym_options_init(&o);
    struct result r;
    sym_session *s = resolve_all(buf, len, &o, 0, &r);
    uint64_t addr = (uintptr_t)&target_leaf + 4, vaddr = 0, start = 0, size = 0;
    sym_code *c = sym_code_at(s, getpid(), addr, &vaddr);
    assert_non_null(c);
    sym_module_info mi;
    const char *found = NULL;
    sym_code_info(c, &mi, &found);
    assert_int_equal(mi.status, TR_MOD_RESOLVED);
    assert_string_equal(mi.module, exe_path());
    assert_non_null(found);
    const char *name = NULL;
    assert_int_equal(sym_code_symbol(s, c, vaddr, &name, &start, &size), 0);
    assert_string_equal(name, "target_leaf");
    assert_int_equal(start, vaddr - 4);
    assert_true(size > 4);
    /* the file's bytes are the code this process runs */
    uint8_t code[16];
    assert_int_equal(sym_code_read(c, start, code, sizeof code), sizeof code);
    assert_memory_equal(code, (const void *)(uintptr_t)&target_leaf, sizeof code);
    const char *file = NULL;
    uint32_t line = 0;
    assert_int_equal(sym_code_line(s, c, vaddr, &file, &line), 0);
    assert_true(file[0] == '/' && strstr(file, "test_symbolize.c"));
    assert_true(line >= 35 && line < 45); /* target_leaf's lines */
    /* no file there: the stack */
    int local = 0;
    assert_null(sym_code_at(s, getpid(), (uintptr_t)&local, &vaddr));
    sym_free(s);
    result_free(&r);
    free(buf);
}

/* ---- a real DWARF sample of an inlined loop ---- */

#define MAX_SELF 400

struct dwarf_ctx {
    self_sample ss[MAX_SELF];
    int n;
    int corrupt; /* build_dwarf: mutate the samples */
};

static int build_dwarf(tr_writer *w, void *arg)
{
    struct dwarf_ctx *c = arg;
    if (begin(w) < 0)
        return -1;
    for (int i = 0; i < c->n; i++) {
        uint64_t ip = c->ss[i].ip;
        uint32_t fl = 0;
        if (add_sample(w, &ip, &fl, 1, &c->ss[i]) < 0)
            return -1;
    }
    return 0;
}

static int has_func(const struct frames *f, const char *name, size_t *at)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->f[i].func, name) == 0) {
            if (at)
                *at = i;
            return 1;
        }
    return 0;
}

static int capture(struct dwarf_ctx *c)
{
    uint64_t ns = 60 * 1000000ull;
    c->n = self_sample_run(outer_spin, &ns, c->ss, MAX_SELF);
    return c->n;
}

static void test_dwarf_unwind(void **state)
{
    (void)state;
    static struct dwarf_ctx c;
    if (capture(&c) < 0) {
        fprintf(stderr, "SKIP: the kernel refuses perf_event_open with user registers and stack: %s\n",
                strerror(errno));
        skip();
    }
    assert_true(c.n >= 20);
    size_t len;
    void *buf = self_trace(build_dwarf, &c, &len);
    assert_non_null(buf);
    sym_options o;
    sym_options_init(&o);
    o.lines = 1;
    struct result r;
    sym_session *s = resolve_all(buf, len, &o, 1, &r);
    assert_int_equal(r.n, (size_t)c.n);
    size_t full = 0, inlined = 0;
    for (size_t i = 0; i < r.n; i++) {
        const struct frames *f = &r.s[i];
        size_t at_outer, at_test;
        if (has_func(f, "outer_spin", &at_outer) && has_func(f, "test_dwarf_unwind", &at_test) &&
            at_test > at_outer)
            full++;
        if (f->n >= 2 && strcmp(f->f[0].func, "inl_spin") == 0) {
            assert_true(f->f[0].flags & TR_FRAME_INLINE);
            assert_string_equal(f->f[1].func, "outer_spin");
            assert_false(f->f[1].flags & TR_FRAME_INLINE);
            assert_int_equal(f->f[0].addr, f->f[1].addr); /* the same instruction */
            assert_non_null(f->f[0].file);
            assert_non_null(strstr(f->f[0].file, "test_symbolize.c"));
            assert_true(f->f[0].line > 0);
            assert_true(f->f[1].line > 0); /* the call site of inl_spin */
            inlined++;
        }
    }
    /* nearly all the time is spent in the inlined loop */
    assert_true(full * 10 >= r.n * 8);
    assert_true(inlined * 2 >= r.n);
    sym_stats st;
    sym_get_stats(s, &st);
    assert_int_equal(st.unwound_samples, (uint64_t)c.n);
    assert_true(st.processes == 1); /* one unwinding session for the process */
#if defined(__x86_64__)
    /* the cached rules unwound (nearly) every sample, without libdwfl */
    assert_true(st.unwound_fast * 10 >= st.unwound_samples * 9);
#endif
    /* and libdwfl alone unwinds every sample into the very same frames
     * (the first session stays: its frames' strings are its own) */
    o.fast_unwind = 0;
    struct result r2;
    sym_session *s2 = resolve_all(buf, len, &o, 1, &r2);
    sym_get_stats(s2, &st);
    assert_int_equal(st.unwound_fast, 0);
    assert_int_equal(r2.n, r.n);
    for (size_t i = 0; i < r.n; i++) {
        assert_int_equal(r2.s[i].n, r.s[i].n);
        for (size_t j = 0; j < r.s[i].n; j++) {
            assert_int_equal(r2.s[i].f[j].addr, r.s[i].f[j].addr);
            assert_string_equal(r2.s[i].f[j].func, r.s[i].f[j].func);
        }
    }
    sym_free(s2);
    sym_free(s);
    result_free(&r2);
    result_free(&r);

    /* without inlines: outer_spin is the leaf */
    sym_options_init(&o);
    o.inlines = 0;
    s = resolve_all(buf, len, &o, 0, &r);
    for (size_t i = 0; i < r.n; i++)
        assert_false(has_func(&r.s[i], "inl_spin", NULL));
    sym_free(s);
    result_free(&r);
    free(buf);
    self_sample_free(c.ss, c.n);
}

/* ---- the per-address cache of CFI rules: rows of one FDE ---- */

#if defined(__x86_64__)
/* uw_rows has four CFI rows in one FDE: at +0 the CFA is rsp+8, at +1
 * (after push %rbp) rsp+16, at +4 (after mov %rsp,%rbp) rbp+16, at +6
 * (after pop %rbp) rsp+8 again.  The uw_outer functions end a chain (the
 * return address undefined, as at _start); never called. */
__asm__(".text\n"
        ".globl uw_rows\n.type uw_rows,@function\nuw_rows:\n.cfi_startproc\n"
        "push %rbp\n.cfi_def_cfa_offset 16\n.cfi_offset rbp,-16\n"
        "mov %rsp,%rbp\n.cfi_def_cfa_register rbp\n"
        "nop\npop %rbp\n.cfi_def_cfa rsp,8\nret\n.cfi_endproc\n.size uw_rows,.-uw_rows\n"
        ".globl uw_outer1\n.type uw_outer1,@function\nuw_outer1:\n.cfi_startproc\n"
        ".cfi_undefined rip\nnop\nnop\nret\n.cfi_endproc\n.size uw_outer1,.-uw_outer1\n"
        ".globl uw_outer2\n.type uw_outer2,@function\nuw_outer2:\n.cfi_startproc\n"
        ".cfi_undefined rip\nnop\nnop\nret\n.cfi_endproc\n.size uw_outer2,.-uw_outer2\n"
        ".globl uw_outer3\n.type uw_outer3,@function\nuw_outer3:\n.cfi_startproc\n"
        ".cfi_undefined rip\nnop\nnop\nret\n.cfi_endproc\n.size uw_outer3,.-uw_outer3\n");
void uw_rows(void), uw_outer1(void), uw_outer2(void), uw_outer3(void);

/* Samples at each offset of uw_rows, in an order where a row's neighbour
 * is always met first; the stack holds a return address into uw_outer1,
 * uw_outer2, uw_outer3 at sp, sp+8 and sp+16, and rbp = sp+8, so that
 * each row finds a different caller. */
static const struct { unsigned off; const char *caller; } uw_row_samples[] = {
    { 1, "uw_outer2" }, { 0, "uw_outer1" }, { 4, "uw_outer3" }, { 5, "uw_outer3" },
    { 6, "uw_outer1" }, { 1, "uw_outer2" }, { 0, "uw_outer1" },
};

static int build_rows(tr_writer *w, void *arg)
{
    (void)arg;
    if (begin(w) < 0)
        return -1;
    uint64_t sp = 0x7ffc12340000ull, stack[4] = { (uintptr_t)&uw_outer1 + 1,
                                                  (uintptr_t)&uw_outer2 + 1,
                                                  (uintptr_t)&uw_outer3 + 1, 0 };
    for (size_t i = 0; i < sizeof uw_row_samples / sizeof uw_row_samples[0]; i++) {
        self_sample ss = { .ip = (uintptr_t)&uw_rows + uw_row_samples[i].off,
                           .regs_mask = 1u << 6 | 1u << 7 | 1u << 8, /* bp sp ip */
                           .nregs = 3,
                           .stack = (uint8_t *)stack,
                           .stack_len = sizeof stack };
        ss.regs[0] = sp + 8;
        ss.regs[1] = sp;
        ss.regs[2] = ss.ip;
        uint32_t fl = 0;
        if (add_sample(w, &ss.ip, &fl, 1, &ss) < 0)
            return -1;
    }
    return 0;
}
#endif

#if defined(__x86_64__) /* the CFI rows are x86-64 assembly */
static void test_unwind_rule_rows(void **state)
{
    (void)state;
    size_t len;
    void *buf = self_trace(build_rows, NULL, &len);
    assert_non_null(buf);
    for (int fast = 1; fast >= 0; fast--) { /* the cached rules, then libdwfl alone */
        sym_options o;
        sym_options_init(&o);
        o.fast_unwind = fast;
        struct result r;
        sym_session *s = resolve_all(buf, len, &o, 0, &r);
        assert_int_equal(r.n, sizeof uw_row_samples / sizeof uw_row_samples[0]);
        for (size_t i = 0; i < r.n; i++) {
            assert_int_equal(r.s[i].n, 2);
            assert_string_equal(r.s[i].f[0].func, "uw_rows");
            assert_int_equal(r.s[i].f[0].offset, uw_row_samples[i].off);
            assert_string_equal(r.s[i].f[1].func, uw_row_samples[i].caller);
        }
        sym_stats st;
        sym_get_stats(s, &st);
        assert_int_equal(st.unwound_fast, fast ? r.n : 0);
        sym_free(s);
        result_free(&r);
    }
    free(buf);
}
#endif

/* Corrupt registers and stack copies: no crash, no hang, bounded output. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Mutate one sample record the way a damaged trace could deliver it. */
static void mutate(tr_record *rec, uint8_t *stack, size_t cap, int how)
{
    size_t len = rec->u.sample.stack_copy_len < cap ? rec->u.sample.stack_copy_len : cap;
    memcpy(stack, rec->u.sample.stack_copy, len);
    rec->u.sample.stack_copy = stack;
    rec->u.sample.stack_copy_len = len;
    switch (how % 8) {
    case 0: /* random registers */
        for (uint32_t k = 0; k < rec->u.sample.nregs && k < TR_MAX_REGS; k++)
            if (rnd() % 3)
                rec->u.sample.regs[k] = rnd();
        break;
    case 1: /* truncated stack copy */
        rec->u.sample.stack_copy_len = rnd() % 24;
        break;
    case 2: /* garbage stack */
        for (size_t k = 0; k < len; k++)
            stack[k] = (uint8_t)rnd();
        break;
    case 3: /* return addresses and frame pointers pointing back into the stack */
        for (size_t k = 0; k + 8 <= len; k += 8) {
            uint64_t v = rec->u.sample.regs[7] + (rnd() % 64) * 8;
            memcpy(stack + k, &v, 8);
        }
        break;
    case 4: /* fewer registers than the mask says */
        rec->u.sample.nregs = (uint32_t)(rnd() % 4);
        break;
    case 5: /* more registers than exist */
        rec->u.sample.regs_mask = ~0ull;
        rec->u.sample.nregs = 1000;
        break;
    case 6: /* the wrong ABI, or none */
        rec->u.sample.abi = (uint32_t)(rnd() % 4 == 0 ? 2 : rnd() % 3);
        break;
    case 7: /* a stack copy but no registers */
        rec->u.sample.regs_mask = 0;
        break;
    }
}

static void test_corrupt_samples(void **state)
{
    (void)state;
    static struct dwarf_ctx c;
    if (capture(&c) < 0) {
        fprintf(stderr, "SKIP: the kernel refuses perf_event_open with user registers and stack: %s\n",
                strerror(errno));
        skip();
    }
    assert_true(c.n > 0);
    size_t len;
    void *buf = self_trace(build_dwarf, &c, &len);
    assert_non_null(buf);
    sym_options o;
    sym_options_init(&o);
    o.lines = 1;
    sym_session *s = sym_new(&o);
    assert_non_null(s);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, buf, len, NULL), 0);
    tr_record rec;
    int rc, how = 0;
    static uint8_t stack[16384];
    while ((rc = tr_reader_next(r, &rec)) > 0) {
        assert_int_equal(sym_observe(s, r, &rec), 0);
        if (rec.type != TR_REC_SAMPLE)
            continue;
        for (int k = 0; k < 8; k++) {
            tr_record m = rec;
            mutate(&m, stack, sizeof stack, how++);
            const sym_frame *f;
            size_t n;
            assert_true(sym_resolve_stack(s, r, &m, &f, &n) >= 1);
            assert_true(n <= 2000);
            for (size_t i = 0; i < n; i++) {
                assert_non_null(f[i].func);
                assert_non_null(f[i].module);
            }
        }
    }
    assert_int_equal(rc, 0);
    const char *w;
    while ((w = sym_next_warning(s)) != NULL)
        assert_true(strlen(w) > 0);
    tr_reader_free(r);
    sym_free(s);
    free(buf);
    self_sample_free(c.ss, c.n);
}

/* ---- kernel and JIT tables ---- */

static const char kallsyms[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000100 t do_thing\n"
    "ffffffff81000200 T other_thing\n"
    "ffffffff81000300 d some_data\n"
    "ffffffffc0000000 t ext4_fn\t[ext4]\n";

struct tab_ctx {
    int blobs_late;
    int flush; /* the late blobs in a chunk of their own */
    void *jit;
    size_t jit_len;
};

static int build_tables(tr_writer *w, void *arg)
{
    struct tab_ctx *c = arg;
    char name[64], map[256];
    if (begin(w) < 0)
        return -1;
    tr_record m;
    memset(&m, 0, sizeof m);
    m.type = TR_REC_MMAP;
    m.pid = m.tid = getpid();
    m.u.mmap.start = (uintptr_t)c->jit;
    m.u.mmap.len = c->jit_len;
    m.u.mmap.prot = PROT_READ | PROT_EXEC;
    m.u.mmap.path = "//anon";
    m.u.mmap.path_len = 6;
    if (tr_writer_add(w, &m) < 0)
        return -1;
    /* the spec's name, and the file name of /tmp/perf-PID.map */
    snprintf(name, sizeof name, c->blobs_late ? "perf-map:%d" : "perf-%d.map", (int)getpid());
    snprintf(map, sizeof map, "%llx 40 jitted_fn\n%llx 20 LazyCompile:~other file.js:1\n",
             (unsigned long long)(uintptr_t)c->jit, (unsigned long long)(uintptr_t)c->jit + 0x100);
    if (!c->blobs_late && (tr_writer_blob(w, "kallsyms", kallsyms, strlen(kallsyms), 1) < 0 ||
                           tr_writer_blob(w, name, map, strlen(map), 0) < 0))
        return -1;
    uint64_t a[5] = { 0xffffffff81000104ull, 0xffffffff81000208ull, 0xffffffffc0000010ull,
                      (uintptr_t)c->jit + 0x10, (uintptr_t)c->jit + 0x108 };
    uint32_t fl[5] = { TR_FRAME_KERNEL, TR_FRAME_KERNEL, TR_FRAME_KERNEL, 0, 0 };
    if (add_sample(w, a, fl, 5, NULL) < 0 || (c->flush && tr_writer_flush(w) < 0))
        return -1;
    if (c->blobs_late && (tr_writer_blob(w, "kallsyms", kallsyms, strlen(kallsyms), 0) < 0 ||
                          tr_writer_blob(w, name, map, strlen(map), 0) < 0))
        return -1;
    return 0;
}

static void check_tables(const struct frames *f)
{
    assert_int_equal(f->n, 5);
    assert_string_equal(f->f[0].func, "do_thing");
    assert_int_equal(f->f[0].offset, 4);
    assert_string_equal(f->f[0].module, "[kernel.kallsyms]");
    assert_true(f->f[0].flags & TR_FRAME_KERNEL);
    assert_string_equal(f->f[1].func, "other_thing");
    assert_int_equal(f->f[1].offset, 8);
    assert_string_equal(f->f[2].func, "ext4_fn");
    assert_string_equal(f->f[2].module, "[ext4]");
    assert_string_equal(f->f[3].func, "jitted_fn");
    assert_string_equal(f->f[3].module, "[jit]");
    assert_true(f->f[3].flags & TR_FRAME_JIT);
    assert_int_equal(f->f[3].offset, 0x10); /* the user ip under kernel frames */
    assert_string_equal(f->f[4].func, "LazyCompile:~other file.js:1");
    assert_int_equal(f->f[4].offset, 8); /* a return address: looked up at -1, shown as is */
}

static void test_kernel_and_jit(void **state)
{
    (void)state;
    struct tab_ctx c = { 0, 0, NULL, 4096 };
    c.jit = mmap(NULL, c.jit_len, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (c.jit == MAP_FAILED) /* W^X systems: a read-only map does as well for the trace */
        c.jit = mmap(NULL, c.jit_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(c.jit != MAP_FAILED);
    size_t len;
    void *buf = self_trace(build_tables, &c, &len);
    assert_non_null(buf);
    sym_options o;
    sym_options_init(&o);
    o.running_kernel = 0;
    struct result r;
    sym_session *s = resolve_all(buf, len, &o, 0, &r);
    assert_int_equal(r.n, 1);
    check_tables(&r.s[0]);
    sym_free(s);
    result_free(&r);
    free(buf);

    /* blobs written after the samples (as recorders do): prescan finds them */
    c.blobs_late = 1;
    buf = self_trace(build_tables, &c, &len);
    assert_non_null(buf);
    s = resolve_all(buf, len, &o, 0, &r);
    assert_string_equal(r.s[0].f[0].func, "[unknown]");
    assert_string_equal(r.s[0].f[0].module, "[kernel.kallsyms]");
    assert_true(r.s[0].f[0].flags & SYM_UNKNOWN);
    assert_string_equal(r.s[0].f[3].func, "[unknown]");
    assert_true(r.nwarn >= 1); /* kernel: no kallsyms */
    sym_free(s);
    result_free(&r);
    for (int prescan = 1; prescan <= 2; prescan++) {
        s = resolve_all(buf, len, &o, prescan, &r);
        check_tables(&r.s[0]);
        assert_int_equal(s->lazy_full_done, 0); /* the lazy one: the last chunk sufficed */
        sym_free(s);
        result_free(&r);
    }
    free(buf);
    /* the lazy prescan's skim of the last chunks: the blobs in the chunk
     * after the samples' */
    c.flush = 1;
    buf = self_trace(build_tables, &c, &len);
    assert_non_null(buf);
    s = resolve_all(buf, len, &o, 2, &r);
    check_tables(&r.s[0]);
    assert_int_equal(s->lazy_full_done, 0); /* found in the last chunks, not by reading all */
    sym_free(s);
    result_free(&r);
    /* the chunks it decompressed go to the reader that sym_observe names,
     * which does not decompress them again: a copy of the trace whose
     * chunks have a payload byte changed (their frames' crc does not cover
     * it) reads without an error */
    uint8_t *bad = malloc(len);
    assert_non_null(bad);
    memcpy(bad, buf, len);
    tr_stream_frame f;
    size_t chunks = 0;
    for (size_t off = 0; off < len; off += f.size) {
        assert_int_equal(tr_stream_frame_parse(bad + off, len - off, &f), 1);
        if (f.kind == TR_SFRAME_CHUNK && f.csize > 8) {
            bad[off + f.size - f.csize / 2] ^= 0x5a;
            chunks++;
        }
    }
    assert_int_equal(chunks, 2);
    s = sym_new(&o);
    assert_non_null(s);
    assert_int_equal(sym_prescan_lazy(s, buf, len), 0);
    tr_reader *rd;
    assert_int_equal(tr_reader_open_mem(&rd, bad, len, NULL), 0);
    tr_record rec;
    int rc;
    size_t samples = 0;
    while ((rc = tr_reader_next(rd, &rec)) != 0) {
        assert_int_equal(rc, 1);
        assert_int_equal(sym_observe(s, rd, &rec), 0);
        samples += rec.type == TR_REC_SAMPLE;
    }
    assert_int_equal(samples, 1);
    tr_reader_free(rd);
    sym_free(s);
    free(bad);
    free(buf);
    munmap(c.jit, c.jit_len);
}

/* ---- build-id mismatch, missing files, no mappings ---- */

static int build_mismatch(tr_writer *w, void *arg)
{
    (void)arg;
    char *argv[] = { (char *)"t", NULL };
    if (tr_writer_meta_defaults(w, "test_symbolize", 1, argv) < 0)
        return -1;
    tr_record m;
    memset(&m, 0, sizeof m);
    uint8_t wrong[20];
    memset(wrong, 0xab, sizeof wrong);
    m.type = TR_REC_MMAP;
    m.pid = m.tid = getpid();
    m.u.mmap.start = 0x400000;
    m.u.mmap.len = 0x10000;
    m.u.mmap.prot = PROT_READ | PROT_EXEC;
    m.u.mmap.path = exe_path();
    m.u.mmap.path_len = strlen(exe_path());
    m.u.mmap.build_id = wrong;
    m.u.mmap.build_id_len = sizeof wrong;
    if (tr_writer_add(w, &m) < 0)
        return -1;
    m.u.mmap.start = 0x500000;
    m.u.mmap.path = "/nonexistent/libgone.so";
    m.u.mmap.path_len = strlen(m.u.mmap.path);
    if (tr_writer_add(w, &m) < 0)
        return -1;
    uint64_t a[3] = { 0x400100, 0x500100, 0x900000 };
    uint32_t fl[3] = { 0, 0, 0 };
    for (int i = 0; i < 3; i++) {
        a[0] += 16;
        if (add_sample(w, a, fl, 3, NULL) < 0)
            return -1;
    }
    return 0;
}

static void test_build_id_mismatch(void **state)
{
    (void)state;
    size_t len;
    void *buf = self_trace(build_mismatch, NULL, &len);
    assert_non_null(buf);
    sym_options o;
    sym_options_init(&o);
    o.debuginfod = 0;
    struct result r;
    sym_session *s = resolve_all(buf, len, &o, 0, &r);
    assert_int_equal(r.n, 3);
    for (size_t i = 0; i < r.n; i++) {
        assert_string_equal(r.s[i].f[0].func, "[unknown]");
        assert_string_equal(r.s[i].f[0].module, exe_path());
        assert_string_equal(r.s[i].f[1].func, "[unknown]");
        assert_string_equal(r.s[i].f[1].module, "/nonexistent/libgone.so");
        assert_string_equal(r.s[i].f[2].module, "[unknown]");
    }
    /* one warning per module (and one for the address outside any mapping) */
    assert_int_equal(r.nwarn, 3);
    int seen = 0;
    for (size_t i = 0; i < r.nmods; i++) {
        if (strcmp(r.mods[i].module, exe_path()) == 0) {
            assert_int_equal(r.mods[i].status, TR_MOD_BUILD_ID_MISMATCH);
            assert_non_null(strstr(r.mods[i].detail, "build-id mismatch"));
            seen |= 1;
        }
        if (strcmp(r.mods[i].module, "/nonexistent/libgone.so") == 0) {
            assert_int_equal(r.mods[i].status, TR_MOD_NOT_FOUND);
            seen |= 2;
        }
    }
    assert_int_equal(seen, 3);
    sym_free(s);
    result_free(&r);
    free(buf);
}

/* ---- per-process warnings: one line with a count, each with each_process ---- */

static int build_unmapped_pids(tr_writer *w, void *arg)
{
    (void)arg;
    char *argv[] = { (char *)"t", NULL };
    if (tr_writer_meta_defaults(w, "test_symbolize", 1, argv) < 0)
        return -1;
    tr_event_def d = { 0, TR_EV_SOFTWARE, 1, 250000, TR_EVF_CALLCHAIN, "task-clock", 10 };
    uint32_t ev;
    if (tr_writer_event(w, &d, &ev) < 0)
        return -1;
    for (int i = 0; i < 5; i++) { /* 5 processes, no mappings: two samples each */
        tr_record r;
        memset(&r, 0, sizeof r);
        r.type = TR_REC_SAMPLE;
        r.pid = r.tid = 100 + i;
        r.time = 1;
        r.u.sample.event = ev;
        r.u.sample.period = 1;
        uint64_t a = 0x900000 + (uint64_t)i * 0x10;
        uint32_t fl = 0;
        if (tr_writer_stack_addrs(w, &a, &fl, 1, &r.u.sample.stack) < 0 || tr_writer_add(w, &r) < 0 ||
            tr_writer_add(w, &r) < 0)
            return -1;
    }
    return 0;
}

static void test_per_process_warnings(void **state)
{
    (void)state;
    size_t len;
    void *buf = self_trace(build_unmapped_pids, NULL, &len);
    assert_non_null(buf);
    sym_options o;
    sym_options_init(&o);
    o.debuginfod = 0;
    struct result r;
    sym_session *s = resolve_all(buf, len, &o, 0, &r);
    assert_int_equal(r.nwarn, 1);
    assert_string_equal(r.warnings[0], "pid 100: address 0x900000 is in no recorded mapping (the trace has no "
                                       "mappings for it) (and 4 other processes: --verbose lists each)");
    sym_free(s);
    result_free(&r);
    o.each_process = 1;
    s = resolve_all(buf, len, &o, 0, &r);
    assert_int_equal(r.nwarn, 5);
    assert_string_equal(r.warnings[4], "pid 104: address 0x900040 is in no recorded mapping (the trace has no "
                                       "mappings for it)");
    sym_free(s);
    result_free(&r);
    free(buf);
}

/* ---- frames already symbolized pass through: running twice changes nothing ---- */

static int build_symbolized(tr_writer *w, void *arg)
{
    (void)arg;
    if (begin(w) < 0)
        return -1;
    uint32_t fn, mod, file, ids[2];
    if (tr_writer_string(w, "already_named", 13, &fn) < 0 ||
        tr_writer_string(w, "/some/lib.so", 12, &mod) < 0 || tr_writer_string(w, "x.c", 3, &file) < 0)
        return -1;
    tr_frame f = { 0x1234, TR_FRAME_SYMBOLIZED | TR_FRAME_INLINE, fn, mod, file, 0x10, 42 };
    if (tr_writer_frame(w, &f, &ids[0]) < 0)
        return -1;
    f.flags = TR_FRAME_SYMBOLIZED;
    f.func = 0;
    if (tr_writer_frame(w, &f, &ids[1]) < 0)
        return -1;
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_SAMPLE;
    r.pid = r.tid = getpid();
    if (tr_writer_stack(w, ids, 2, &r.u.sample.stack) < 0)
        return -1;
    return tr_writer_add(w, &r);
}

static void test_symbolized_pass_through(void **state)
{
    (void)state;
    size_t len;
    void *buf = self_trace(build_symbolized, NULL, &len);
    assert_non_null(buf);
    sym_options o;
    sym_options_init(&o);
    struct result r;
    sym_session *s = resolve_all(buf, len, &o, 0, &r);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.s[0].n, 2);
    assert_string_equal(r.s[0].f[0].func, "already_named");
    assert_string_equal(r.s[0].f[0].module, "/some/lib.so");
    assert_string_equal(r.s[0].f[0].file, "x.c");
    assert_int_equal(r.s[0].f[0].line, 42);
    assert_int_equal(r.s[0].f[0].offset, 0x10);
    assert_int_equal(r.s[0].f[0].flags & 0xffff, TR_FRAME_SYMBOLIZED | TR_FRAME_INLINE);
    assert_string_equal(r.s[0].f[1].func, "[unknown]");
    assert_int_equal(r.nmods, 0);
    sym_free(s);
    result_free(&r);
    free(buf);
}

/* ---- fork copies mappings, exec forgets them ---- */

static int build_fork_exec(tr_writer *w, void *arg)
{
    (void)arg;
    if (begin(w) < 0)
        return -1;
    int32_t child = getpid() + 100000;
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_FORK;
    r.pid = r.tid = child;
    r.u.fork.ppid = r.u.fork.ptid = getpid();
    if (tr_writer_add(w, &r) < 0)
        return -1;
    uint64_t a = (uintptr_t)&target_leaf + 4;
    uint32_t fl = 0;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_SAMPLE;
    r.pid = r.tid = child;
    if (tr_writer_stack_addrs(w, &a, &fl, 1, &r.u.sample.stack) < 0 || tr_writer_add(w, &r) < 0)
        return -1;
    tr_record e;
    memset(&e, 0, sizeof e);
    e.type = TR_REC_COMM;
    e.pid = e.tid = child;
    e.u.comm.comm = "other";
    e.u.comm.len = 5;
    e.u.comm.exec = 1;
    if (tr_writer_add(w, &e) < 0)
        return -1;
    return tr_writer_add(w, &r);
}

/* The trace build writes resolved with the default options: the leaf
 * function of each of its n samples is want[i]. */
static void expect_leaves(int (*build)(tr_writer *, void *), const char *const *want, size_t n)
{
    size_t len;
    void *buf = self_trace(build, NULL, &len);
    assert_non_null(buf);
    sym_options o;
    sym_options_init(&o);
    struct result r;
    sym_session *s = resolve_all(buf, len, &o, 0, &r);
    assert_int_equal(r.n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(r.s[i].f[0].func, want[i]);
    sym_free(s);
    result_free(&r);
    free(buf);
}

static void test_fork_exec(void **state)
{
    (void)state;
    expect_leaves(build_fork_exec, (const char *const[]){ "target_leaf", "[unknown]" }, 2);
}

/* A pid taken by new processes one after another: each sample resolves in
 * the process its pid names at that point (the session's last process
 * found is dropped with the process it was). */
static int build_pid_reuse(tr_writer *w, void *arg)
{
    (void)arg;
    if (begin(w) < 0)
        return -1;
    int32_t child = getpid() + 100000;
    const int32_t parents[3] = { getpid(), getpid() + 200000, getpid() }; /* the second has no mappings */
    uint64_t a = (uintptr_t)&target_leaf + 4;
    uint32_t fl = 0;
    for (int i = 0; i < 3; i++) {
        tr_record r;
        memset(&r, 0, sizeof r);
        r.type = TR_REC_FORK;
        r.pid = r.tid = child;
        r.u.fork.ppid = r.u.fork.ptid = parents[i];
        if (tr_writer_add(w, &r) < 0)
            return -1;
        memset(&r, 0, sizeof r);
        r.type = TR_REC_SAMPLE;
        r.pid = r.tid = child;
        if (tr_writer_stack_addrs(w, &a, &fl, 1, &r.u.sample.stack) < 0 || tr_writer_add(w, &r) < 0)
            return -1;
    }
    return 0;
}

static void test_pid_reuse(void **state)
{
    (void)state;
    expect_leaves(build_pid_reuse, (const char *const[]){ "target_leaf", "[unknown]", "target_leaf" }, 3);
}

/* ---- names ---- */

static void test_demangle(void **state)
{
    (void)state;
    char *d = sym_demangle("_ZN3foo3barEi");
    assert_non_null(d);
    assert_string_equal(d, "foo::bar(int)");
    free(d);
    d = sym_demangle("_ZN4core3fmt5write17h0123456789abcdefE");
    assert_non_null(d);
    assert_string_equal(d, "core::fmt::write");
    free(d);
    d = sym_demangle("_ZN49_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$Drop$GT$4drop17h00112233445566ffE");
    assert_non_null(d);
    assert_string_equal(d, "<alloc::vec::Vec<T> as Drop>::drop");
    free(d);
    /* escapes our own clean-up of __cxa_demangle's output left ($u3d$, $u21$) */
    d = sym_demangle("_ZN4core3ptr128drop_in_place$LT$alloc..boxed..Box$LT$dyn$u20$core..ops..function..Fn$LT$$LP$i32$C$$RP$$GT$$u2b$Output$u20$$u3d$$u20$i64$GT$$GT$17ha1446c62cb574ae9E");
    assert_non_null(d);
    assert_string_equal(d, "core::ptr::drop_in_place<alloc::boxed::Box<dyn core::ops::function::Fn<(i32,)>+Output = i64>>");
    free(d);
    d = sym_demangle("_ZN78_$LT$$u21$$u20$as$u20$std..sys..thread_local..native..lazy..DestroyedState$GT$13register_dtor17h945253f8b43c0b30E");
    assert_non_null(d);
    assert_string_equal(d, "<! as std::sys::thread_local::native::lazy::DestroyedState>::register_dtor");
    free(d);
    assert_null(sym_demangle("main"));
    assert_null(sym_demangle("_Z"));               /* invalid: kept */
}

/* Rust v0 names, from the Rust standard library (checked against c++filt,
 * whose long form adds crate hashes), and malformed ones. */
static void test_demangle_rust_v0(void **state)
{
    (void)state;
    static const struct { const char *in, *out; } ok[] = {
        { "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal", "std::rt::lang_start_internal" },
        { "_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_",
          "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}" },
        { "_RNvXNtCsgEmfK2I1SDS_4core3anyReNtB2_3Any7type_idCsjrHSEGnQ3l9_3std",
          "<&str as core::any::Any>::type_id" },
        { "_RNvXNtNtNtCsgEmfK2I1SDS_4core3fmt3num3imphNtB6_7Display3fmt", "<u8 as core::fmt::Display>::fmt" },
        { "_RINvNtCsgEmfK2I1SDS_4core9panicking13assert_failedllECsjrHSEGnQ3l9_3std",
          "core::panicking::assert_failed::<i32, i32>" },
        { "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecINtNtB7_3vec3VechEE8grow_oneCsjrHSEGnQ3l9_3std",
          "<alloc::raw_vec::RawVec<alloc::vec::Vec<u8>>>::grow_one" },
        { "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecINtNtB7_5boxed3BoxDINtNtNtCsgEmfK2I1SDS_4core3ops"
          "8function5FnMutuEp6OutputINtNtB1c_6result6ResultuNtNtNtCsjrHSEGnQ3l9_3std2io5error5ErrorENtNtB1c_6marker"
          "4SyncNtB32_4SendEL_EE8grow_oneB2s_",
          "<alloc::raw_vec::RawVec<alloc::boxed::Box<dyn core::ops::function::FnMut<(), Output = "
          "core::result::Result<(), std::io::error::Error>> + core::marker::Sync + core::marker::Send>>>::grow_one" },
        { "_RINvMNtCsgEmfK2I1SDS_4core3stre18trim_start_matchesReECsgY6Mt91CT9J_14rustc_demangle",
          "<str>::trim_start_matches::<&str>" },
        { "_RINvNtCsgEmfK2I1SDS_4core6escape14escape_unicodeKja_ECsgY6Mt91CT9J_14rustc_demangle",
          "core::escape::escape_unicode::<10>" },
        /* higher-ranked lifetimes: our own decoder dropped the binder */
        { "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG0_INtNtNtB4_3ops"
          "8function2FnTRL1_INtNtCsjrHSEGnQ3l9_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4SyncNtB2N_"
          "4SendEL_EEB1T_",
          "core::ptr::drop_in_place::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<(&'a "
          "std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>" },
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char *d = sym_demangle(ok[i].in);
        assert_non_null(d);
        assert_string_equal(d, ok[i].out);
        free(d);
    }
    static const char *const bad[] = {
        "_R", "_RB_", "_RNvB0_3foo", "_RNvC3foo3bar9", "_RC99999999999999999999x", "_R1C3foo",
        "_RNvC3foos", "_RINvC1a1bKjffffffffffffffffff_E", "_RXC1aB1_C1b",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *d = sym_demangle(bad[i]);
        free(d); /* whatever it gives, it gives it without crashing */
    }
    /* deep nesting is refused, not followed */
    char deep[4096] = "_R";
    for (int i = 0; i < 1000; i++)
        strcat(deep, "I");
    strcat(deep, "C1a");
    assert_null(sym_demangle(deep));
    /* random mutations of a real name: no crash, bounded output */
    uint64_t x = 12345;
    for (int k = 0; k < 20000; k++) {
        char m[256];
        snprintf(m, sizeof m, "%s", ok[k % 7].in);
        size_t len = strlen(m);
        for (int j = 0; j < 3; j++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            m[2 + x % (len - 2)] = "0123456789_BCDEIKLMNOPQRSTXYabcdefghijlmnopstuvxyz"[(x >> 32) % 50];
        }
        char *d = sym_demangle(m);
        if (d)
            assert_true(strlen(d) < 4096);
        free(d);
    }
}

/* ---- the DWARF cache (dwpart.c): this program's debug info, compressed ---- */

extern char __executable_start;

struct dwcache {
    char dir[64], debug[96], cache[96], entry[256]; /* temporary dir, files in it */
    sym_symfile f;         /* what sym_dwpart_open reads of it: the load address */
    uint64_t vaddr[8];     /* addresses spread over the units, and one in none */
    long ref[8];           /* their unit DIE offsets without a cache, -1: none */
    size_t n;
    uint8_t *good;         /* an entry covering all of them */
    size_t good_len;
};

static void *read_whole(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    *len = (size_t)ftell(fp);
    rewind(fp);
    void *b = malloc(*len + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, *len, fp), *len);
    fclose(fp);
    return b;
}

static void write_whole(const char *path, const void *b, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(b, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

/* The header of section name in the ELF image b (one of ours), or NULL. */
static Elf64_Shdr *image_section(uint8_t *b, const char *name)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
    Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh->e_shoff);
    const char *str = (const char *)b + sh[eh->e_shstrndx].sh_offset;
    for (size_t i = 1; i < eh->e_shnum; i++)
        if (strcmp(str + sh[i].sh_name, name) == 0)
            return &sh[i];
    return NULL;
}

/* Make an entry's checksums right again (its layout: the sections of
 * layout, the good entry's): one per 64 KiB of .debug_info in .tr_sums,
 * and the header's last field, over all but the header and .debug_info. */
static void entry_resum(uint8_t *b, size_t len, uint8_t *layout)
{
    const Elf64_Shdr *h = image_section(layout, ".tr_cache"), *info = image_section(layout, ".debug_info"),
                     *sums = image_section(layout, ".tr_sums");
    size_t hdr = h->sh_offset, hdr_end = hdr + h->sh_size, at = info->sh_offset, size = info->sh_size;
    for (size_t off = 0, i = 0; off < size; off += 65536, i++) {
        uint64_t sum = sym_checksum(b + at + off, size - off < 65536 ? size - off : 65536, 0);
        memcpy(b + sums->sh_offset + 8 * i, &sum, 8);
    }
    uint64_t sum = sym_checksum(b, hdr, 0);
    sum = sym_checksum(b + hdr_end, at - hdr_end, sum);
    sum = sym_checksum(b + at + size, len - at - size, sum);
    memcpy(b + hdr_end - 8, &sum, 8);
}

static ino_t inode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_ino;
}

/* Look up the first n addresses with a fresh dwpart using the cache; each
 * result must be the reference unless check is 0 (forged entries). */
static void lookup_all(struct dwcache *c, size_t n, int check)
{
    sym_dwpart *p = sym_dwpart_open(c->debug, &c->f, c->cache);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) {
        Dwarf_Die die;
        long off = sym_dwpart_addrdie(p, c->vaddr[i], &die) == 0 ? (long)dwarf_dieoffset(&die) : -1;
        if (check)
            assert_int_equal(off, c->ref[i]);
        Dwarf_Die *scopes = NULL;
        if (off >= 0 && dwarf_getscopes(&die, c->vaddr[i], &scopes) > 0)
            (void)dwarf_diename(&scopes[0]);
        free(scopes);
    }
    sym_dwpart_free(p);
}

/* A file vaddr in the last unit .debug_aranges names (this program's). */
static uint64_t last_unit_vaddr(void)
{
    int fd = open(exe_path(), O_RDONLY);
    Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
    Dwarf_Aranges *ar;
    size_t n;
    Dwarf_Off last = 0;
    Dwarf_Addr addr = 0;
    assert_non_null(dw);
    assert_int_equal(dwarf_getaranges(dw, &ar, &n), 0);
    for (size_t i = 0; i < n; i++) {
        Dwarf_Addr start;
        Dwarf_Word len;
        Dwarf_Off off;
        if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &start, &len, &off) == 0 && len && off >= last) {
            last = off;
            addr = start;
        }
    }
    dwarf_end(dw);
    close(fd);
    return addr;
}

static int dwcache_setup(void **state)
{
    static struct dwcache c;
    char cmd[4400];
    memset(&c, 0, sizeof c);
    strcpy(c.dir, "/tmp/tr-sym-cache-XXXXXX");
    assert_non_null(mkdtemp(c.dir));
    snprintf(c.debug, sizeof c.debug, "%s/self.debug", c.dir);
    snprintf(c.cache, sizeof c.cache, "%s/cache", c.dir);
    snprintf(cmd, sizeof cmd, "objcopy --only-keep-debug --compress-debug-sections=zlib '%s' '%s'",
             exe_path(), c.debug);
    assert_int_equal(system(cmd), 0);
    elf_version(EV_CURRENT);
    int fd = open(exe_path(), O_RDONLY);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    size_t nph;
    assert_non_null(e);
    assert_int_equal(elf_getphdrnum(e, &nph), 0);
    for (size_t i = 0; i < nph && !c.f.nseg; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
            c.f.seg[0].vaddr = ph.p_vaddr;
            c.f.nseg = 1;
        }
    }
    const void *bid;
    ssize_t blen = dwelf_elf_gnu_build_id(e, &bid);
    assert_in_range(blen, 1, 64);
    char *q = c.entry + snprintf(c.entry, sizeof c.entry, "%s/dwarf/", c.cache);
    for (ssize_t i = 0; i < blen; i++)
        q += sprintf(q, "%02x", ((const uint8_t *)bid)[i]);
    strcpy(q, ".debug");
    elf_end(e);
    close(fd);
    /* this file's unit, later ones, back, the last one, none */
    const void *fns[] = { (void *)target_leaf, (void *)sym_demangle, (void *)hash_bytes,
                          (void *)target_mid, (void *)tr_strerror, (void *)sym_checksum };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        c.vaddr[c.n++] = (uintptr_t)fns[i] - (uintptr_t)&__executable_start + c.f.seg[0].vaddr;
    c.vaddr[c.n++] = last_unit_vaddr();
    c.vaddr[c.n++] = 1;
    sym_dwpart *p = sym_dwpart_open(c.debug, &c.f, NULL);
    assert_non_null(p);
    for (size_t i = 0; i < c.n; i++) {
        Dwarf_Die die;
        c.ref[i] = sym_dwpart_addrdie(p, c.vaddr[i], &die) == 0 ? (long)dwarf_dieoffset(&die) : -1;
        assert_true(c.ref[i] >= 0 || i == c.n - 1);
    }
    sym_dwpart_free(p);
    *state = &c;
    return 0;
}

static int dwcache_teardown(void **state)
{
    struct dwcache *c = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->dir);
    free(c->good);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_dwarf_cache(void **state)
{
    struct dwcache *c = *state;
    size_t len;
    /* the first unit: an entry written, then read and left as it is */
    lookup_all(c, 1, 1);
    ino_t ino = inode_of(c->entry);
    lookup_all(c, 1, 1);
    assert_int_equal(inode_of(c->entry), ino);
    /* an entry of the units up to the first address's, as a run without
     * libdeflate (which inflates small sections whole) writes it: unless
     * it is that already, .debug_info and the header's covers (third
     * field from the end) cut there */
    uint8_t *b = read_whole(c->entry, &len);
    Elf64_Shdr *info = image_section(b, ".debug_info"), *h = image_section(b, ".tr_cache");
    uint64_t covers = 0;
    while (covers <= (uint64_t)c->ref[0]) { /* past the unit of vaddr[0] (32-bit DWARF) */
        uint32_t unit;
        memcpy(&unit, b + info->sh_offset + covers, 4);
        covers += (uint64_t)unit + 4;
    }
    assert_true(covers <= info->sh_size);
    if (covers < info->sh_size) {
        info->sh_size = covers;
        image_section(b, ".tr_sums")->sh_size = (covers + 65535) / 65536 * 8;
        memcpy(b + h->sh_offset + h->sh_size - 24, &covers, 8);
        entry_resum(b, len, b);
        write_whole(c->entry, b, len);
    }
    free(b);
    ino = inode_of(c->entry);
    lookup_all(c, 1, 1);
    assert_int_equal(inode_of(c->entry), ino);
    /* units beyond it: the same units as without a cache, the entry grown */
    lookup_all(c, c->n, 1);
    assert_int_not_equal(inode_of(c->entry), ino);
    b = read_whole(c->entry, &len);
    assert_true(image_section(b, ".debug_info")->sh_size > covers);
    free(b);
    ino = inode_of(c->entry);
    lookup_all(c, c->n, 1);
    assert_int_equal(inode_of(c->entry), ino);
}

/* A debug file opened (its .debug_info starts inflating on a thread) and
 * closed before any unit is needed: the thread is joined, nothing is
 * written; the next run that needs a unit writes an entry holding every
 * unit (the whole .debug_info). */
static void test_dwarf_cache_unused(void **state)
{
    struct dwcache *c = *state;
    struct stat st;
    sym_dwpart *p = sym_dwpart_open(c->debug, &c->f, c->cache);
    assert_non_null(p);
    sym_dwpart_free(p);
    assert_int_not_equal(stat(c->entry, &st), 0);
    lookup_all(c, 1, 1);
    size_t len;
    uint8_t *b = read_whole(c->entry, &len);
    const Elf64_Shdr *h = image_section(b, ".tr_cache"), *info = image_section(b, ".debug_info");
    uint64_t total, covers;
    memcpy(&total, b + h->sh_offset + h->sh_size - 32, 8); /* info_total, covers, size, checksum */
    memcpy(&covers, b + h->sh_offset + h->sh_size - 24, 8);
    assert_true(total == covers && covers == info->sh_size);
    free(b);
}

/* The debug files of a stream's first mappings, opened ahead: a trace of
 * this program stripped of its DWARF (dir/prog), its debug file in a
 * build-id tree (dir/dbg).  sample_first: a sample before the mapping. */
struct ahead {
    struct dwcache *c;
    char prog[160];
    uint8_t bid[64];
    size_t bid_len;
    int sample_first, samples;
};

static int build_ahead(tr_writer *w, void *arg)
{
    struct ahead *a = arg;
    char *argv[] = { (char *)"t", NULL };
    uint64_t addr = (uintptr_t)&target_leaf + 4, none = 16; /* in no mapping */
    uint32_t fl = 0;
    if (tr_writer_meta_defaults(w, "test_symbolize", 1, argv) < 0 ||
        (a->sample_first && add_sample(w, &none, &fl, 1, NULL) < 0))
        return -1;
    tr_record m;
    memset(&m, 0, sizeof m);
    m.type = TR_REC_MMAP;
    m.pid = m.tid = getpid();
    m.u.mmap.start = (uintptr_t)&__executable_start; /* file offsets are vaddrs (PIE) */
    m.u.mmap.len = (uintptr_t)&target_leaf - (uintptr_t)&__executable_start + 65536;
    m.u.mmap.prot = PROT_READ | PROT_EXEC;
    m.u.mmap.path = a->prog;
    m.u.mmap.path_len = strlen(a->prog);
    m.u.mmap.build_id = a->bid;
    m.u.mmap.build_id_len = a->bid_len;
    if (tr_writer_add(w, &m) < 0)
        return -1;
    for (int i = 0; i < a->samples; i++)
        if (add_sample(w, &addr, &fl, 1, NULL) < 0)
            return -1;
    return 0;
}

/* The trace of a (malloc'd, *len bytes), and in *o the options that find
 * its debug file in dbg (room for the path) through dirs (two pointers). */
static void *ahead_input(struct ahead *a, sym_options *o, char *dbg, size_t dbglen, const char **dirs,
                         size_t *len)
{
    snprintf(dbg, dbglen, "%s/dbg", a->c->dir);
    dirs[0] = dbg;
    dirs[1] = NULL;
    void *buf = self_trace(build_ahead, a, len);
    assert_non_null(buf);
    sym_options_init(o);
    o->debuginfod = 0;
    o->debug_dirs = dirs;
    o->no_default_debug_dir = 1;
    o->cache_dir = a->c->cache;
    return buf;
}

/* Resolve the trace of a into r: the session (freed by the caller), and
 * at *n how many debug files were taken from those opened ahead. */
static sym_session *resolve_ahead(struct ahead *a, struct result *r, uint64_t *n)
{
    char dbg[128];
    const char *dirs[2];
    size_t len;
    sym_options o;
    void *buf = ahead_input(a, &o, dbg, sizeof dbg, dirs, &len);
    sym_session *s = resolve_all(buf, len, &o, 0, r);
    sym_stats st;
    sym_get_stats(s, &st);
    free(buf);
    *n = st.dwarf_ahead;
    return s;
}

/* How many of the stream's first mappings sym_prescan_lazy alone opened
 * ahead, before the trace is read. */
static size_t prescan_ahead_n(struct ahead *a)
{
    char dbg[128];
    const char *dirs[2];
    size_t len;
    sym_options o;
    void *buf = ahead_input(a, &o, dbg, sizeof dbg, dirs, &len);
    sym_session *s = sym_new(&o);
    assert_int_equal(sym_prescan_lazy(s, buf, len), 0);
    size_t n = s->nprefetch;
    sym_free(s);
    free(buf);
    return n;
}

/* The same, the session freed. */
static uint64_t resolve_ahead_n(struct ahead *a)
{
    struct result r;
    uint64_t n;
    sym_free(resolve_ahead(a, &r, &n));
    result_free(&r);
    return n;
}

static void test_dwarf_ahead(void **state)
{
    struct ahead a = { .c = *state, .samples = 3 };
    struct stat st;
    char cmd[5000];
    /* the build-id tree: dbg/.build-id/XX/REST.debug */
    const char *hex = strrchr(a.c->entry, '/') + 1;
    snprintf(a.prog, sizeof a.prog, "%s/prog", a.c->dir);
    snprintf(cmd, sizeof cmd, "objcopy --strip-all '%s' '%s' && mkdir -p '%s/dbg/.build-id/%.2s' && "
             "cp '%s' '%s/dbg/.build-id/%.2s/%s'", exe_path(), a.prog, a.c->dir, hex, a.c->debug,
             a.c->dir, hex, hex + 2);
    assert_int_equal(system(cmd), 0);
    for (size_t i = 0; hex[2 * i] != '.'; i++)
        sscanf(hex + 2 * i, "%2hhx", &a.bid[a.bid_len++]);
    /* mapped before the first sample: opened ahead, taken, the same
     * frames (inline ones too) as when opened at the first address, its
     * whole view written */
    struct result r1, r2;
    uint64_t n1, n2;
    assert_int_equal(prescan_ahead_n(&a), 1); /* from the prescan's look at the first chunk */
    sym_session *s1 = resolve_ahead(&a, &r1, &n1);
    a.sample_first = 1;
    assert_int_equal(prescan_ahead_n(&a), 0);
    sym_session *s2 = resolve_ahead(&a, &r2, &n2);
    assert_int_equal(n1, 1);
    assert_int_equal(n2, 0);
    assert_int_equal(r1.n, 3);
    assert_int_equal(r2.n, 4);
    for (size_t i = 0; i < r1.n; i++) {
        assert_int_equal(r1.s[i].n, r2.s[i + 1].n);
        for (size_t k = 0; k < r1.s[i].n; k++) {
            assert_string_equal(r1.s[i].f[k].func, r2.s[i + 1].f[k].func);
            assert_int_equal(r1.s[i].f[k].flags, r2.s[i + 1].f[k].flags);
        }
    }
    assert_string_equal(r1.s[0].f[r1.s[0].n - 1].func, "target_leaf");
    sym_free(s1);
    sym_free(s2);
    result_free(&r1);
    result_free(&r2);
    assert_int_equal(stat(a.c->entry, &st), 0);
    /* with an entry in the cache: read from it, nothing opened ahead */
    a.sample_first = 0;
    assert_int_equal(resolve_ahead_n(&a), 0);
    /* mapped, never sampled: dropped, no entry written */
    assert_int_equal(unlink(a.c->entry), 0);
    a.samples = 0;
    assert_int_equal(resolve_ahead_n(&a), 0);
    assert_int_not_equal(stat(a.c->entry, &st), 0);
}

/* An entry covering all the addresses into c->good; returns the size of
 * its header (at *hdr). */
static size_t good_entry(struct dwcache *c, size_t *hdr)
{
    lookup_all(c, c->n, 1);
    c->good = read_whole(c->entry, &c->good_len);
    Elf64_Shdr *h = image_section(c->good, ".tr_cache");
    assert_non_null(h);
    *hdr = h->sh_offset;
    return h->sh_size;
}

/* Damaged entries: never another unit, and replaced by the good one. */
static void test_dwarf_cache_damaged(void **state)
{
    struct dwcache *c = *state;
    size_t hdr = 0, hsize = good_entry(c, &hdr);
    uint8_t *b = malloc(c->good_len + 64);
    assert_non_null(b);
    rng_state = 12345;
    for (int i = 0; i < 120; i++) {
        size_t len = c->good_len;
        memcpy(b, c->good, len);
        switch (i % 5) {
        case 0: len = rnd() % len; break;                              /* truncated */
        case 1: b[rnd() % len] ^= (uint8_t)(1 + rnd() % 255); break;  /* one byte */
        case 2: b[hdr + rnd() % hsize] ^= (uint8_t)(1 + rnd() % 255); break; /* its header */
        case 3: memset(b + rnd() % (len - 64), 0, 64); break;          /* zeros */
        case 4: memset(b + len, 'x', 64); len += 64; break;            /* grown */
        }
        if (len == c->good_len && memcmp(b, c->good, len) == 0)
            continue;
        write_whole(c->entry, b, len);
        lookup_all(c, c->n, 1);
        size_t got;
        uint8_t *now = read_whole(c->entry, &got);
        assert_true(got == c->good_len && memcmp(now, c->good, got) == 0);
        free(now);
    }
    free(b);
}

/* Forged entries (damage with the checksum made right again): whatever
 * they say, no crash, no read outside them (ASan). */
static void test_dwarf_cache_forged(void **state)
{
    struct dwcache *c = *state;
    size_t hdr = 0, hsize = good_entry(c, &hdr);
    uint8_t *b = malloc(c->good_len);
    assert_non_null(b);
    rng_state = 777;
    for (int i = 0; i < 200; i++) {
        memcpy(b, c->good, c->good_len);
        for (int k = 0; k < 1 + i % 8; k++) {
            size_t at = rnd() % c->good_len;
            if (at >= hdr && at < hdr + hsize && i % 2)
                continue; /* mostly keep the header good, to reach the DWARF */
            b[at] ^= (uint8_t)(1 + rnd() % 255);
        }
        entry_resum(b, c->good_len, c->good); /* where its parts were */
        write_whole(c->entry, b, c->good_len);
        lookup_all(c, c->n, 0);
    }
    free(b);
}

/* sym_checksum as the cache files of every earlier version computed it
 * (Fletcher's sums in four lanes of 64-bit words, the last ones
 * zero-padded, mixed): a faster one must give the same sums. */
static uint64_t checksum_mix(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return (h ^ h >> 32) * 0xc2b2ae3d27d4eb4full;
}

static void test_checksum_sums(void **state)
{
    (void)state;
    uint8_t data[300];
    rng_state = 99;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)rnd();
    for (size_t len = 0; len + 3 <= sizeof data; len++) {
        uint64_t a[4] = { len * 7, 0, 0, 0 }, b[4] = { 0, 0, 0, 0 }, w[4];
        for (size_t i = 0;; i += 32) {
            size_t n = len - i < 32 ? len - i : 32;
            memset(w, 0, sizeof w);
            memcpy(w, data + 3 + i, n);
            for (int k = 0; k < 4; k++) {
                a[k] += w[k];
                b[k] += a[k];
            }
            if (n < 32)
                break;
        }
        uint64_t h = len;
        for (int k = 0; k < 4; k++)
            h = checksum_mix(checksum_mix(h, a[k]), b[k]);
        assert_int_equal(sym_checksum(data + 3, len, len * 7), h);
    }
}

static void test_tables_parse(void **state)
{
    (void)state;
    strpool p = { 0 };
    sym_tab *t = sym_tab_kallsyms(&p, kallsyms, strlen(kallsyms));
    assert_non_null(t);
    assert_int_equal(t->n, 4); /* the data symbol is not code */
    assert_null(sym_tab_find(t, 0xffffffff80000000ull));
    assert_string_equal(sym_tab_find(t, 0xffffffff810000ffull)->name, "_stext");
    sym_tab_free(t);
    static const char junk[] = "zz\n\n0 0 x\nffffffffffffffffff T toolong\n 12 T\n";
    t = sym_tab_kallsyms(&p, junk, sizeof junk - 1);
    assert_non_null(t);
    assert_int_equal(t->n, 0);
    sym_tab_free(t);
    t = sym_tab_perfmap(&p, junk, sizeof junk - 1);
    assert_non_null(t);
    sym_tab_free(t);
    strpool_free(&p);
}


/* ---- symbols and inline scopes against libdwfl's own answers ---- */

/* a global alias of a local function (two symbols hold its addresses) and
 * an assembler label without a size: the cases the interval table leaves
 * to libdwfl */
__attribute__((noinline)) static unsigned long aliased_local(unsigned long n)
{
    return target_leaf(n) * 3;
}
extern unsigned long aliased_global(unsigned long n) __attribute__((alias("aliased_local")));
__asm__(".text\n.globl sizeless_label\nsizeless_label:\n nop\n nop\n ret\n");

/* The inline frame dwarf_getscopes gives (its innermost inlined instance
 * before the function), the way symfile.c read it before: NULL if none. */
static const char *getscopes_inline(Dwfl_Module *mod, uint64_t vaddr)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, vaddr, &bias), *scopes = NULL;
    int n = cu ? dwarf_getscopes(cu, vaddr - bias, &scopes) : 0;
    const char *name = NULL;
    for (int i = 0; i < n; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram)
            break;
        if (tag == DW_TAG_inlined_subroutine) {
            Dwarf_Attribute a;
            name = dwarf_attr_integrate(&scopes[i], DW_AT_name, &a) ? dwarf_formstring(&a) : "?";
            break;
        }
    }
    free(scopes);
    return name;
}

/* tr's symbol of every sized function's edges and of a sweep of .text in
 * the program at path is libdwfl's; full: 1 the test program itself, with
 * its DWARF and symbol table, 0 a stripped copy (only .dynsym), 2 a
 * library (its symbols only), 3 another program with its DWARF. */
static void match_libdwfl(const char *path, int full)
{
    sym_options o;
    sym_options_init(&o);
    o.demangle = 0;
    sym_session *s = sym_new(&o);
    assert_non_null(s);
    sym_symfile *f = sym_symfile_get(s, path, NULL, 0);
    assert_non_null(f);
    assert_int_equal(f->status, TR_MOD_RESOLVED);
    assert_non_null(f->mod);
    /* every sized function's first, second, middle and last byte, and a
     * sweep of the whole text (addresses between functions, padding) */
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(f->mod, &bias);
    assert_non_null(elf);
    uint64_t tlo = 0, thi = 0;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        size_t shstr;
        elf_getshdrstrndx(elf, &shstr);
        if (gelf_getshdr(scn, &sh) && strcmp(elf_strptr(elf, shstr, sh.sh_name), ".text") == 0) {
            tlo = sh.sh_addr;
            thi = sh.sh_addr + sh.sh_size;
        }
    }
    assert_true(thi > tlo);
    size_t cap = 4096, n = 0;
    uint64_t *addrs = malloc(cap * sizeof *addrs);
    assert_non_null(addrs);
    int nsym = dwfl_module_getsymtab(f->mod);
    for (int i = 0; i < nsym; i++) {
        GElf_Sym sym;
        GElf_Addr a;
        if (!dwfl_module_getsym_info(f->mod, i, &sym, &a, NULL, NULL, NULL) ||
            GELF_ST_TYPE(sym.st_info) != STT_FUNC || a < tlo || a >= thi)
            continue;
        uint64_t pts[4] = { a, a + 1, a + sym.st_size / 2, a + (sym.st_size ? sym.st_size - 1 : 0) };
        for (int k = 0; k < 4; k++) {
            if (n == cap)
                assert_non_null(addrs = realloc(addrs, (cap *= 2) * sizeof *addrs));
            addrs[n++] = pts[k];
        }
    }
    for (uint64_t a = tlo; a < thi; a += 61) {
        if (n == cap)
            assert_non_null(addrs = realloc(addrs, (cap *= 2) * sizeof *addrs));
        addrs[n++] = a;
    }
    size_t with_inline = 0;
    for (size_t i = 0; i < n; i++) {
        sym_entry *e = sym_symfile_resolve(s, f, addrs[i]);
        assert_non_null(e);
        GElf_Sym sym;
        GElf_Off off = 0;
        const char *want = dwfl_module_addrinfo(f->mod, addrs[i], &off, &sym, NULL, NULL, NULL);
        const sym_frame *outer = &e->f[e->n - 1];
        if (want && *want) {
            size_t len = strchr(want, '@') ? (size_t)(strchr(want, '@') - want) : strlen(want);
            if (strlen(outer->func) != len || strncmp(outer->func, want, len) != 0 || outer->offset != off)
                fail_msg("0x%llx: %s+0x%llx, libdwfl says %s+0x%llx", (unsigned long long)addrs[i],
                         outer->func, (unsigned long long)outer->offset, want, (unsigned long long)off);
        } else if (!(outer->flags & SYM_UNKNOWN) && e->n == 1) {
            /* no symbol: the name can only come from DWARF */
            assert_true(dwfl_module_addrdie(f->mod, addrs[i], &bias) != NULL);
        }
        const char *inl = full == 2 ? NULL : getscopes_inline(f->mod, addrs[i]);
        if (full == 2) {
            /* the symbols only: a library's inline chains are deeper */
        } else if (inl) {
            with_inline++;
            assert_int_equal(e->n, 2);
            assert_string_equal(e->f[0].func, inl);
            assert_true(e->f[0].flags & TR_FRAME_INLINE);
        } else {
            assert_int_equal(e->n, 1);
        }
        free(e);
    }
    if (full == 2) {
        /* a library's aliases are chosen as libdwfl would: it is asked
         * only where a sizeless symbol could win */
        assert_true(f->symtab_lookups * 10000 < n);
        free(addrs);
        sym_free(s);
        return;
    }
    if (full == 3) {
        /* every scope's children were read by stepping over the DIEs */
        assert_true(with_inline > 0);
        assert_int_equal(f->libdw_walks, 0);
        free(addrs);
        sym_free(s);
        return;
    }
    if (!full) {
        /* .text is gaps between the few exported symbols: libdwfl has
         * nothing to choose there, and is not asked */
        assert_int_equal(f->symtab_lookups, 0);
        free(addrs);
        sym_free(s);
        return;
    }
    assert_true(with_inline > 0); /* inl_spin in outer_spin at least */
    /* libdwfl searched its table for few of the intervals (the aliases, the
     * label), not once per address; each unit was indexed once at most */
    Dwarf *dw = dwfl_module_getdwarf(f->mod, &bias);
    size_t units = 0, hsize;
    Dwarf_Off cu = 0, next;
    while (dwarf_nextcu(dw, cu, &next, &hsize, NULL, NULL, NULL) == 0) {
        units++;
        cu = next;
    }
    assert_true(f->symtab_lookups > 0);
    assert_true(f->symtab_lookups * 20 < n);
    assert_true(f->unit_walks <= units);
    (void)aliased_global;
    free(addrs);
    sym_free(s);
}

static void test_symbols_match_libdwfl(void **state)
{
    (void)state;
    match_libdwfl(exe_path(), 1);
}

/* A stripped program (as gcc's cc1: only its exported symbols, in
 * .dynsym): the same answers as libdwfl's in the gaps between them. */
static void test_stripped_symbols_match_libdwfl(void **state)
{
    (void)state;
    char dir[] = "/tmp/tr-strip-XXXXXX", path[64], cmd[4200];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/stripped", dir);
    snprintf(cmd, sizeof cmd, "objcopy --strip-all '%s' '%s'", exe_path(), path);
    assert_int_equal(system(cmd), 0);
    match_libdwfl(path, 0);
    unlink(path);
    rmdir(dir);
}

/* The symbolize workload built with DWARF 4 and with DWARF 5 (their
 * forms differ: strp and data against line_strp, implicit constants and
 * rnglists): a scope's children are read by stepping over its DIEs by
 * their abbreviations, libdw's walk never needed, and the inline frames
 * are dwarf_getscopes'. */
static void test_inline_scopes_dwarf_versions(void **state)
{
    (void)state;
    const char *slash = strrchr(__FILE__, '/');
    int dirlen = slash ? (int)(slash - __FILE__) : 1;
    for (int v = 4; v <= 5; v++) {
        char dir[] = "/tmp/tr-dwv-XXXXXX", path[64], cmd[4400];
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/prog", dir);
        snprintf(cmd, sizeof cmd, "cc -O2 -gdwarf-%d -fno-plt -o '%s' '%.*s/prog.c'", v, path, dirlen,
                 slash ? __FILE__ : ".");
        assert_int_equal(system(cmd), 0);
        match_libdwfl(path, 3);
        unlink(path);
        rmdir(dir);
    }
}

/* The C library this test runs with, a real library's symbol table: its
 * aliases (memcpy and __memcpy, a weak name and a global one on the same
 * bytes) get libdwfl's answers without libdwfl searching its table. */
static void test_library_symbols_match_libdwfl(void **state)
{
    (void)state;
    char line[4096], path[4096] = "";
    FILE *maps = fopen("/proc/self/maps", "r");
    assert_non_null(maps);
    while (!path[0] && fgets(line, sizeof line, maps)) {
        char *p = strchr(line, '/');
        if (p && strstr(p, "/libc.so")) {
            p[strcspn(p, "\n")] = '\0';
            snprintf(path, sizeof path, "%s", p);
        }
    }
    fclose(maps);
    assert_true(path[0] != '\0');
    match_libdwfl(path, 2);
}

/* ---- the symbol-table cache (symtable.c) ---- */

/* The outer frame (function+offset) of every sized function's start and
 * middle and of a sweep of the text of the program at path, as text, with
 * the cache in cache (NULL: none); *from_cache: was the table mapped. */
static char *sweep_symbols(const char *path, const char *cache, int *from_cache)
{
    sym_options o;
    sym_options_init(&o);
    o.demangle = 0;
    o.cache_dir = cache;
    sym_session *s = sym_new(&o);
    assert_non_null(s);
    sym_symfile *f = sym_symfile_get(s, path, NULL, 0);
    assert_non_null(f);
    assert_int_equal(f->status, TR_MOD_RESOLVED);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(f->mod, &bias);
    Elf_Scn *scn = NULL;
    uint64_t lo = 0, hi = 0;
    size_t shstr;
    assert_int_equal(elf_getshdrstrndx(elf, &shstr), 0);
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && strcmp(elf_strptr(elf, shstr, sh.sh_name), ".text") == 0) {
            lo = sh.sh_addr;
            hi = sh.sh_addr + sh.sh_size;
        }
    }
    assert_true(hi > lo);
    for (uint64_t a = lo; a < hi; a += 13) {
        sym_entry *e = sym_symfile_resolve(s, f, a);
        assert_non_null(e);
        const sym_frame *fr = &e->f[e->n - 1];
        if (cap - len < 300)
            assert_non_null(out = realloc(out, cap *= 2));
        len += (size_t)snprintf(out + len, cap - len, "%llx %s+%llx\n", (unsigned long long)a,
                                (fr->flags & SYM_UNKNOWN) ? "?" : fr->func, (unsigned long long)fr->offset);
        free(e);
    }
    *from_cache = f->tab.from_cache;
    sym_free(s);
    return out;
}

/* The build-id of the ELF file at path, in hex, and where its bytes are. */
static void file_build_id(const char *path, char *hex, off_t *at)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    assert_non_null(elf);
    const void *bid;
    ssize_t n = dwelf_elf_gnu_build_id(elf, &bid);
    assert_true(n > 0);
    for (ssize_t i = 0; i < n; i++)
        sprintf(hex + 2 * i, "%02x", ((const unsigned char *)bid)[i]);
    size_t size;
    const char *raw = elf_rawfile(elf, &size), *p = memmem(raw, size, bid, (size_t)n);
    assert_non_null(p);
    *at = p - raw;
    elf_end(elf);
    close(fd);
}

static void copy_file(const char *from, const char *to)
{
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    assert_int_equal(system(cmd), 0);
}

/* A run builds the table and writes it; the next maps it and resolves the
 * same; a file that is damaged, short, empty, garbage or another
 * binary's is not used but rebuilt (the same answers) and replaced; the
 * binary stripped under the same build-id, and one with another build-id,
 * get tables of their own. */
static void test_symbol_cache(void **state)
{
    (void)state;
    char dir[] = "/tmp/tr-symcache-XXXXXX", prog[64], cache[64], entry[256], good[64], cmd[600];
    assert_non_null(mkdtemp(dir));
    snprintf(prog, sizeof prog, "%s/prog", dir);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    snprintf(good, sizeof good, "%s/good", dir);
    copy_file(exe_path(), prog);
    char hex[129];
    off_t bid_at;
    file_build_id(prog, hex, &bid_at);
    snprintf(entry, sizeof entry, "%s/symbols/%s", cache, hex);

    int fc;
    char *ref = sweep_symbols(prog, NULL, &fc);
    assert_false(fc);
    assert_int_equal(access(entry, F_OK), -1); /* no cache: nothing written */
    char *out = sweep_symbols(prog, cache, &fc);
    assert_false(fc);
    assert_string_equal(out, ref);
    free(out);
    assert_int_equal(access(entry, F_OK), 0);
    copy_file(entry, good);
    out = sweep_symbols(prog, cache, &fc);
    assert_true(fc); /* warm: mapped */
    assert_string_equal(out, ref);
    free(out);

    struct stat st;
    assert_int_equal(stat(good, &st), 0);
    const char *damage[] = {
        "printf '\\001' | dd of=%s bs=1 seek=%lld conv=notrunc status=none", /* a byte of the arrays */
        "printf '\\377' | dd of=%s bs=1 seek=12 conv=notrunc status=none",   /* the header's length of the build-id */
        "truncate -s %2$lld %1$s",                                            /* short */
        ": > %s",                                                              /* empty */
        "head -c %2$lld /dev/zero | tr '\\0' x > %1$s",                        /* garbage */
    };
    for (size_t k = 0; k < sizeof damage / sizeof *damage; k++) {
        copy_file(good, entry);
        snprintf(cmd, sizeof cmd, damage[k], entry, (long long)st.st_size / 2);
        assert_int_equal(system(cmd), 0);
        out = sweep_symbols(prog, cache, &fc);
        assert_false(fc); /* not used, */
        assert_string_equal(out, ref); /* the same answers */
        free(out);
        snprintf(cmd, sizeof cmd, "cmp -s %s %s", entry, good);
        assert_int_equal(system(cmd), 0); /* and replaced by a good one */
    }

    /* stripped under the same build-id: another table (as without the cache) */
    snprintf(cmd, sizeof cmd, "objcopy --strip-all %s", prog);
    assert_int_equal(system(cmd), 0);
    char *sref = sweep_symbols(prog, NULL, &fc);
    assert_string_not_equal(sref, ref);
    out = sweep_symbols(prog, cache, &fc);
    assert_false(fc);
    assert_string_equal(out, sref);
    free(out);
    out = sweep_symbols(prog, cache, &fc);
    assert_true(fc);
    assert_string_equal(out, sref);
    free(out);

    /* another build-id: a table of its own beside the first */
    copy_file(exe_path(), prog);
    int fd = open(prog, O_RDWR);
    assert_true(fd >= 0);
    unsigned char b;
    assert_int_equal(pread(fd, &b, 1, bid_at), 1);
    b ^= 0xff;
    assert_int_equal(pwrite(fd, &b, 1, bid_at), 1);
    close(fd);
    char hex2[129];
    file_build_id(prog, hex2, &bid_at);
    assert_string_not_equal(hex, hex2);
    out = sweep_symbols(prog, cache, &fc);
    assert_false(fc);
    assert_string_equal(out, ref);
    free(out);
    snprintf(entry, sizeof entry, "%s/symbols/%s", cache, hex2);
    assert_int_equal(access(entry, F_OK), 0);
    out = sweep_symbols(prog, cache, &fc);
    assert_true(fc);
    free(out);

    free(ref);
    free(sref);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* ---- the answers kept from run to run (addrcache.c) ---- */

/* Samples at a sweep of outer_spin (inl_spin inlined in it) and what
 * follows it, each under target_mid (a return address). */
static int build_sweep(tr_writer *w, void *arg)
{
    (void)arg;
    if (begin(w) < 0)
        return -1;
    for (uint64_t k = 0; k < 4096; k += 7) {
        uint64_t a[2] = { (uint64_t)(uintptr_t)&outer_spin + k, (uint64_t)(uintptr_t)&target_mid + 5 };
        uint32_t fl[2] = { 0, 0 };
        if (add_sample(w, a, fl, 2, NULL) < 0)
            return -1;
    }
    return 0;
}

/* The frames of every sample of buf and the SYMBOLs pushed, as text, with
 * the cache in cache (NULL: none); the session's statistics in *st. */
static char *addr_cache_run(const void *buf, size_t len, const char *cache, sym_stats *st)
{
    sym_options o;
    sym_options_init(&o);
    o.cache_dir = cache;
    struct result r;
    sym_session *s = resolve_all(buf, len, &o, 0, &r);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    for (size_t i = 0; i < r.n; i++) {
        for (size_t k = 0; k < r.s[i].n; k++) {
            const sym_frame *f = &r.s[i].f[k];
            if (cap - n < 600)
                assert_non_null(out = realloc(out, cap *= 2));
            n += (size_t)snprintf(out + n, cap - n, "%s+%llx %x %s;", f->func, (unsigned long long)f->offset,
                                  f->flags, f->module);
        }
        out[n++] = '\n';
    }
    sym_symbol_info si;
    while (sym_symbols_take_new(s, &si)) {
        if (cap - n < 600)
            assert_non_null(out = realloc(out, cap *= 2));
        n += (size_t)snprintf(out + n, cap - n, "symbol %s %s %llx %llx\n", si.module, si.name,
                              (unsigned long long)si.start, (unsigned long long)si.size);
    }
    out[n] = '\0';
    sym_get_stats(s, st);
    result_free(&r);
    sym_free(s);
    return out;
}

/* A run keeps its answers in CACHE/addrs/BUILD-ID.d1.i1; the next answers
 * from them (no DWARF unit indexed) the same frames and SYMBOLs; a file
 * damaged or short is not used (the same answers, made again) and
 * replaced. */
static void test_addr_cache(void **state)
{
    (void)state;
    char dir[] = "/tmp/tr-addrcache-XXXXXX", entry[300], good[64], cmd[700], hex[129];
    assert_non_null(mkdtemp(dir));
    off_t at;
    file_build_id(exe_path(), hex, &at);
    snprintf(entry, sizeof entry, "%s/addrs/%s.d1.i1", dir, hex);
    snprintf(good, sizeof good, "%s/good", dir);
    size_t len;
    void *buf = self_trace(build_sweep, NULL, &len);
    assert_non_null(buf);
    sym_stats st;
    char *ref = addr_cache_run(buf, len, NULL, &st);
    assert_non_null(strstr(ref, "inl_spin")); /* inline frames among them */
    assert_true(st.unit_indexes > 0);

    char *out = addr_cache_run(buf, len, dir, &st);
    assert_string_equal(out, ref);
    free(out);
    assert_int_equal(access(entry, F_OK), 0);
    copy_file(entry, good);
    out = addr_cache_run(buf, len, dir, &st);
    assert_string_equal(out, ref);
    assert_int_equal(st.unit_indexes, 0); /* answered from the file */
    free(out);

    struct stat sb;
    assert_int_equal(stat(good, &sb), 0);
    const char *damage[] = {
        "printf '\\001' | dd of=%s bs=1 seek=%lld conv=notrunc status=none", /* a byte of the answers */
        "truncate -s %2$lld %1$s",                                            /* short */
    };
    for (size_t k = 0; k < sizeof damage / sizeof *damage; k++) {
        copy_file(good, entry);
        snprintf(cmd, sizeof cmd, damage[k], entry, (long long)sb.st_size / 2);
        assert_int_equal(system(cmd), 0);
        out = addr_cache_run(buf, len, dir, &st);
        assert_string_equal(out, ref); /* the same answers, */
        assert_true(st.unit_indexes > 0); /* made again */
        free(out);
        snprintf(cmd, sizeof cmd, "cmp -s %s %s", entry, good);
        assert_int_equal(system(cmd), 0); /* and the file replaced by a good one */
    }
    free(ref);
    free(buf);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Demangled names kept in the cache: a later table finds them there; a
 * damaged file is not used (the names demangled again) and replaced. */
static void test_demangle_cache(void **state)
{
    (void)state;
    char dir[] = "/tmp/tr-demcache-XXXXXX", entry[128], good[128], cmd[400];
    assert_non_null(mkdtemp(dir));
    snprintf(entry, sizeof entry, "%s/symbols/00ff.dem", dir);
    snprintf(good, sizeof good, "%s/good", dir);
    static const char *const names[][2] = {
        { "_ZN3foo3barEi", "foo::bar(int)" },
        { "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
        { "_Z", NULL }, /* not a name: kept as it is, and that kept too */
    };
    const size_t n = sizeof names / sizeof *names;
    /* run: look every name up (twice) with a fresh table; how many were in the cache */
    size_t found[6];
    for (int run = 0; run < 6; run++) {
        if (run == 3 || run == 4) {
            snprintf(cmd, sizeof cmd, run == 3 ? "printf x | dd of=%s bs=1 seek=70 conv=notrunc status=none"
                                               : "truncate -s 60 %s", entry);
            assert_int_equal(system(cmd), 0);
        }
        sym_symtable t;
        memset(&t, 0, sizeof t);
        t.cache_dir = dir;
        strcpy(t.key, "00ff");
        strpool pool;
        memset(&pool, 0, sizeof pool);
        for (int twice = 0; twice < 2; twice++)
            for (size_t i = 0; i < n; i++) {
                const char *d = sym_symtable_demangle(&t, &pool, names[i][0], strlen(names[i][0]));
                if (names[i][1])
                    assert_string_equal(d, names[i][1]);
                else
                    assert_null(d);
            }
        found[run] = t.dem_found;
        sym_symtable_free(&t);
        strpool_free(&pool);
        if (run == 0)
            copy_file(entry, good);
        snprintf(cmd, sizeof cmd, "cmp -s %s %s", entry, good);
        assert_int_equal(system(cmd), 0); /* the file: good, rewritten only when damaged */
    }
    assert_int_equal(found[0], 0);
    assert_int_equal(found[1], n); /* each name once: the second time from this run's */
    assert_int_equal(found[2], n);
    assert_int_equal(found[3], 0);
    assert_int_equal(found[4], 0);
    assert_int_equal(found[5], n);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_functions),
        cmocka_unit_test(test_code),
        cmocka_unit_test(test_dwarf_unwind),
#if defined(__x86_64__)
        cmocka_unit_test(test_unwind_rule_rows),
#endif
        cmocka_unit_test(test_corrupt_samples),
        cmocka_unit_test(test_kernel_and_jit),
        cmocka_unit_test(test_build_id_mismatch),
        cmocka_unit_test(test_per_process_warnings),
        cmocka_unit_test(test_symbolized_pass_through),
        cmocka_unit_test(test_fork_exec),
        cmocka_unit_test(test_pid_reuse),
        cmocka_unit_test(test_demangle),
        cmocka_unit_test(test_demangle_rust_v0),
        cmocka_unit_test(test_tables_parse),
        cmocka_unit_test(test_symbols_match_libdwfl),
        cmocka_unit_test(test_stripped_symbols_match_libdwfl),
        cmocka_unit_test(test_inline_scopes_dwarf_versions),
        cmocka_unit_test(test_library_symbols_match_libdwfl),
        cmocka_unit_test(test_symbol_cache),
        cmocka_unit_test(test_addr_cache),
        cmocka_unit_test(test_demangle_cache),
        cmocka_unit_test_setup_teardown(test_dwarf_cache, dwcache_setup, dwcache_teardown),
        cmocka_unit_test_setup_teardown(test_dwarf_cache_unused, dwcache_setup, dwcache_teardown),
        cmocka_unit_test_setup_teardown(test_dwarf_ahead, dwcache_setup, dwcache_teardown),
        cmocka_unit_test_setup_teardown(test_dwarf_cache_damaged, dwcache_setup, dwcache_teardown),
        cmocka_unit_test(test_checksum_sums),
        cmocka_unit_test_setup_teardown(test_dwarf_cache_forged, dwcache_setup, dwcache_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
