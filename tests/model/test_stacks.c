/* test_stacks.c - model/stacks.h: the frames of raw and symbolized stacks read
 * from a trace built in memory, and each folding rule of stackcollapse-perf.pl
 * (root, [unknown] and module fallback, addresses, annotations, inline chains,
 * tidying, Java names, source lines, the ';'-joined line and its count). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "stacks.h"
#include "tr.h"

/* ---- a trace with a raw and a symbolized stack ------------------------ */

enum { PID = 42, TID = 43 };

struct trace {
    uint8_t *p;
    size_t len;
};

static uint32_t str(tr_writer *w, const char *s)
{
    uint32_t id;
    assert_int_equal(tr_writer_string(w, s, strlen(s), &id), 0);
    return id;
}

static uint32_t frame(tr_writer *w, const tr_frame *f)
{
    uint32_t id;
    assert_int_equal(tr_writer_frame(w, f, &id), 0);
    return id;
}

/* Samples: 1. raw, leaf first: a kernel frame, a user frame in a module the
 * caller knows (0x401000), one it does not (0x7f0000001000); 2. symbolized:
 * an inlined function, main (with a file), a JIT frame; then a syscall with
 * the raw stack and a COMM record (no stack). */
static struct trace make_trace(void)
{
    int fd = memfd_create("stacks", 0);
    assert_true(fd >= 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
    tr_event_def d = {.kind = TR_EV_SOFTWARE, .sample_value = 1000, .flags = TR_EVF_CALLCHAIN,
                      .name = "cpu-clock", .name_len = 9};
    uint32_t ev;
    assert_int_equal(tr_writer_event(w, &d, &ev), 0);

    uint32_t raw[3] = {
        frame(w, &(tr_frame){.addr = 0xffffffff81001234ull, .flags = TR_FRAME_KERNEL}),
        frame(w, &(tr_frame){.addr = 0x401000}),
        frame(w, &(tr_frame){.addr = 0x7f0000001000ull}),
    };
    uint32_t prog = str(w, "/usr/bin/prog"), file = str(w, "prog.c");
    uint32_t sym[3] = {
        frame(w, &(tr_frame){.addr = 0x401100, .flags = TR_FRAME_SYMBOLIZED | TR_FRAME_INLINE,
                             .func = str(w, "inlined"), .module = prog, .file = file, .line = 7,
                             .offset = 0x20}),
        frame(w, &(tr_frame){.addr = 0x401100, .flags = TR_FRAME_SYMBOLIZED, .func = str(w, "main"),
                             .module = prog, .file = file, .line = 12, .offset = 0x40}),
        frame(w, &(tr_frame){.addr = 0x9000, .flags = TR_FRAME_SYMBOLIZED | TR_FRAME_JIT,
                             .func = str(w, "jitted"), .module = str(w, "/tmp/perf-42.map")}),
    };
    uint32_t s_raw, s_sym;
    assert_int_equal(tr_writer_stack(w, raw, 3, &s_raw), 0);
    assert_int_equal(tr_writer_stack(w, sym, 3, &s_sym), 0);

    tr_record rec = {.type = TR_REC_SAMPLE, .time = 1000, .pid = PID, .tid = TID, .cpu = 0};
    rec.u.sample.event = ev;
    rec.u.sample.period = 1000;
    rec.u.sample.stack = s_raw;
    assert_int_equal(tr_writer_add(w, &rec), 0);
    rec.time = 2000;
    rec.u.sample.stack = s_sym;
    assert_int_equal(tr_writer_add(w, &rec), 0);
    tr_record sc = {.type = TR_REC_SYSCALL, .time = 3000, .pid = PID, .tid = TID, .cpu = 0};
    sc.u.syscall.nr = 1;
    sc.u.syscall.stack = s_raw;
    assert_int_equal(tr_writer_add(w, &sc), 0);
    tr_record cm = {.type = TR_REC_COMM, .time = 4000, .pid = PID, .tid = TID, .cpu = -1};
    cm.u.comm.comm = "prog";
    cm.u.comm.len = 4;
    assert_int_equal(tr_writer_add(w, &cm), 0);
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_free(w);

    struct trace t;
    t.len = (size_t)lseek(fd, 0, SEEK_END);
    t.p = malloc(t.len);
    assert_non_null(t.p);
    assert_int_equal(pread(fd, t.p, t.len, 0), (ssize_t)t.len);
    close(fd);
    return t;
}

static int module_calls;

/* The caller's knowledge of mappings: prog is mapped at 0x400000 in PID. */
static const char *module_of(void *ctx, int32_t pid, uint64_t addr)
{
    module_calls++;
    assert_ptr_equal(ctx, &module_calls);
    return pid == PID && addr >= 0x400000 && addr < 0x500000 ? "/usr/bin/prog" : NULL;
}

/* The records of the trace that carry a type of interest, in order. */
static int next_of(tr_reader *r, tr_record *rec)
{
    int rc;
    while ((rc = tr_reader_next(r, rec)) > 0)
        if (rec->type == TR_REC_SAMPLE || rec->type == TR_REC_SYSCALL || rec->type == TR_REC_COMM)
            return 1;
    return rc;
}

static void test_frames_of_raw_and_symbolized_stacks(void **state)
{
    (void)state;
    struct trace t = make_trace();
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, t.p, t.len, NULL), 0);
    stacks_frames fs = {0};
    tr_record rec;

    /* raw: kernel module by flag, user modules from the caller, else unknown */
    assert_int_equal(next_of(r, &rec), 1);
    assert_int_equal(rec.type, TR_REC_SAMPLE);
    module_calls = 0;
    assert_int_equal(stacks_frames_read(&fs, r, &rec, module_of, &module_calls), 3);
    assert_int_equal(fs.n, 3);
    assert_int_equal(module_calls, 2); /* not asked for the kernel frame */
    assert_int_equal(fs.v[0].addr, 0xffffffff81001234ull);
    assert_string_equal(fs.v[0].func, "[unknown]");
    assert_string_equal(fs.v[0].module, "[kernel.kallsyms]");
    assert_int_equal(fs.v[0].kind, STACKS_KERNEL);
    assert_int_equal(fs.v[1].addr, 0x401000);
    assert_string_equal(fs.v[1].module, "/usr/bin/prog");
    assert_int_equal(fs.v[1].kind, STACKS_USER);
    assert_string_equal(fs.v[2].module, "[unknown]");
    assert_null(fs.v[2].file);
    assert_false(fs.v[2].flags & TR_FRAME_SYMBOLIZED);
    /* without a module_of, every user frame's module is unknown */
    assert_int_equal(stacks_frames_read(&fs, r, &rec, NULL, NULL), 3);
    assert_string_equal(fs.v[1].module, "[unknown]");

    /* symbolized: the trace's strings, source position and kinds */
    assert_int_equal(next_of(r, &rec), 1);
    module_calls = 0;
    assert_int_equal(stacks_frames_read(&fs, r, &rec, module_of, &module_calls), 3);
    assert_int_equal(module_calls, 0);
    assert_string_equal(fs.v[0].func, "inlined");
    assert_int_equal(fs.v[0].kind, STACKS_INLINE);
    assert_string_equal(fs.v[0].file, "prog.c");
    assert_int_equal(fs.v[0].line, 7);
    assert_string_equal(fs.v[1].func, "main");
    assert_string_equal(fs.v[1].module, "/usr/bin/prog");
    assert_int_equal(fs.v[1].line, 12);
    assert_int_equal(fs.v[1].offset, 0x40);
    assert_int_equal(fs.v[1].kind, STACKS_USER);
    assert_true(fs.v[1].flags & TR_FRAME_SYMBOLIZED);
    assert_string_equal(fs.v[2].func, "jitted");
    assert_int_equal(fs.v[2].kind, STACKS_JIT);
    assert_null(fs.v[2].file);

    /* a syscall's stack; a record without one reads as no frames */
    assert_int_equal(next_of(r, &rec), 1);
    assert_int_equal(rec.type, TR_REC_SYSCALL);
    assert_int_equal(stacks_frames_read(&fs, r, &rec, module_of, &module_calls), 3);
    assert_int_equal(fs.v[0].kind, STACKS_KERNEL);
    assert_int_equal(next_of(r, &rec), 1);
    assert_int_equal(rec.type, TR_REC_COMM);
    assert_int_equal(stacks_frames_read(&fs, r, &rec, module_of, &module_calls), 0);
    assert_int_equal(fs.n, 0);

    /* a stack the trace never defined is lost, not an error */
    assert_int_equal(fs.lost, 0);
    tr_record bad = {.type = TR_REC_SAMPLE, .pid = PID, .tid = TID};
    bad.u.sample.stack = 99999;
    assert_int_equal(stacks_frames_read(&fs, r, &bad, module_of, &module_calls), 0);
    assert_int_equal(fs.lost, 1);

    stacks_frames_free(&fs);
    assert_null(fs.v);
    tr_reader_free(r);
    free(t.p);
}

static void test_kinds(void **state)
{
    (void)state;
    assert_int_equal(stacks_kind(0), STACKS_USER);
    assert_int_equal(stacks_kind(TR_FRAME_SYMBOLIZED), STACKS_USER);
    assert_int_equal(stacks_kind(TR_FRAME_KERNEL), STACKS_KERNEL);
    assert_int_equal(stacks_kind(TR_FRAME_JIT), STACKS_JIT);
    /* inline wins over kernel, kernel over JIT */
    assert_int_equal(stacks_kind(TR_FRAME_INLINE | TR_FRAME_KERNEL), STACKS_INLINE);
    assert_int_equal(stacks_kind(TR_FRAME_KERNEL | TR_FRAME_JIT), STACKS_KERNEL);
}

/* ---- folding ------------------------------------------------------------ */

struct fold {
    stacks_fold_opts o;
    struct smap map;
    stacks_folder f;
};

static void fold_init(struct fold *x, stacks_fold_opts o)
{
    x->o = o;
    smap_init(&x->map);
    stacks_folder_init(&x->f, &x->o, &x->map);
}

static void fold_free(struct fold *x)
{
    stacks_folder_free(&x->f);
    smap_free(&x->map);
}

static stacks_frame fr(const char *func, const char *module, int kind, uint64_t addr)
{
    return (stacks_frame){.addr = addr, .func = func, .module = module, .kind = kind};
}

/* The folded line of one sample of comm with frames (leaf first). */
static const char *fold_one(struct fold *x, const char *comm, const stacks_frame *frames, size_t n)
{
    stacks_folder_begin(&x->f, comm, PID, TID, 1);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(stacks_folder_frame(&x->f, &frames[i]), 0);
    const char *line;
    size_t len;
    assert_int_equal(stacks_folder_text(&x->f, &line, &len), 0);
    assert_int_equal(strlen(line), len);
    return line;
}

/* The folded element of one frame (the root is "r"). */
static const char *elem(struct fold *x, stacks_frame f)
{
    const char *line = fold_one(x, "r", &f, 1);
    assert_true(!strncmp(line, "r;", 2) || !strcmp(line, "r"));
    return line[1] ? line + 2 : "";
}

static void test_root(void **state)
{
    (void)state;
    struct fold x;
    stacks_frame f = fr("f", "/bin/p", STACKS_USER, 1);
    fold_init(&x, (stacks_fold_opts){0});
    assert_string_equal(fold_one(&x, "my prog", &f, 1), "my_prog;f");
    fold_free(&x);
    fold_init(&x, (stacks_fold_opts){.pid = 1});
    assert_string_equal(fold_one(&x, "prog", &f, 1), "prog-42;f");
    fold_free(&x);
    fold_init(&x, (stacks_fold_opts){.tid = 1});
    assert_string_equal(fold_one(&x, "prog", &f, 1), "prog-42/43;f");
    /* from perf script text: the fields as written */
    stacks_folder_begin_text(&x.f, (stacks_text){"a b", 3}, (stacks_text){"?", 1}, (stacks_text){"7", 1}, 1);
    const char *line;
    size_t len;
    assert_int_equal(stacks_folder_text(&x.f, &line, &len), 0);
    assert_string_equal(line, "a_b-?/7");
    fold_free(&x);
}

static void test_unknown_and_module_fallback(void **state)
{
    (void)state;
    struct fold x;
    fold_init(&x, (stacks_fold_opts){0});
    assert_string_equal(elem(&x, fr("[unknown]", "/usr/lib/libc.so.6", STACKS_USER, 0x1234)), "[libc.so.6]");
    assert_string_equal(elem(&x, fr("[unknown]", "libz.so", STACKS_USER, 0x1234)), "[libz.so]");
    assert_string_equal(elem(&x, fr("[unknown]", "[unknown]", STACKS_USER, 0x1234)), "[unknown]");
    fold_free(&x);
    /* addrs: the address inside the brackets, in hex; named frames keep their name */
    fold_init(&x, (stacks_fold_opts){.addrs = 1});
    assert_string_equal(elem(&x, fr("[unknown]", "/usr/lib/libc.so.6", STACKS_USER, 0x7f12ab)),
                        "[libc.so.6 <7f12ab>]");
    assert_string_equal(elem(&x, fr("[unknown]", "[unknown]", STACKS_USER, 0)), "[unknown <0>]");
    assert_string_equal(elem(&x, fr("main", "/bin/p", STACKS_USER, 0x10)), "main");
    fold_free(&x);
}

static void test_annotations(void **state)
{
    (void)state;
    struct fold x;
    fold_init(&x, (stacks_fold_opts){0});
    assert_string_equal(elem(&x, fr("schedule", "[kernel.kallsyms]", STACKS_KERNEL, 1)), "schedule");
    assert_string_equal(elem(&x, fr("jitted", "/tmp/perf-1.map", STACKS_JIT, 1)), "jitted");
    /* inline frames unmarked, as stackcollapse-perf.pl --inline leaves them */
    assert_string_equal(elem(&x, fr("inl", "/bin/p", STACKS_INLINE, 1)), "inl");
    fold_free(&x);
    fold_init(&x, (stacks_fold_opts){.mark_inline = 1});
    assert_string_equal(elem(&x, fr("inl", "/bin/p", STACKS_INLINE, 1)), "inl_[i]");
    assert_string_equal(elem(&x, fr("inl_[i]", "/bin/p", STACKS_INLINE, 1)), "inl_[i]"); /* not twice */
    fold_free(&x);
    fold_init(&x, (stacks_fold_opts){.kernel = 1, .jit = 1});
    assert_string_equal(elem(&x, fr("schedule", "[kernel.kallsyms]", STACKS_KERNEL, 1)), "schedule_[k]");
    assert_string_equal(elem(&x, fr("jitted", "/tmp/perf-1.map", STACKS_JIT, 1)), "jitted_[j]");
    assert_string_equal(elem(&x, fr("f_[j]", "x", STACKS_JIT, 1)), "f_[j]"); /* not twice */
    assert_string_equal(elem(&x, fr("user", "/bin/p", STACKS_USER, 1)), "user");
    /* kind from the module name, as perf script text prints it */
    assert_string_equal(elem(&x, fr("k", "[kernel.kallsyms]", STACKS_FROM_MODULE, 1)), "k_[k]");
    assert_string_equal(elem(&x, fr("k", "/boot/vmlinux", STACKS_FROM_MODULE, 1)), "k_[k]");
    assert_string_equal(elem(&x, fr("k", "[unknown]", STACKS_FROM_MODULE, 1)), "k");
    assert_string_equal(elem(&x, fr("j", "/tmp/perf-123.map", STACKS_FROM_MODULE, 1)), "j_[j]");
    assert_string_equal(elem(&x, fr("j", "/tmp/perf-x.map", STACKS_FROM_MODULE, 1)), "j");
    fold_free(&x);
    /* no_inline drops inlined frames */
    fold_init(&x, (stacks_fold_opts){.no_inline = 1});
    stacks_frame two[2] = {fr("inl", "/bin/p", STACKS_INLINE, 1), fr("main", "/bin/p", STACKS_USER, 1)};
    assert_string_equal(fold_one(&x, "r", two, 2), "r;main");
    fold_free(&x);
}

static void test_inline_chains_and_offsets(void **state)
{
    (void)state;
    struct fold x;
    fold_init(&x, (stacks_fold_opts){0});
    /* an "a->b->c" chain: one element each, all but the first inlined */
    assert_string_equal(elem(&x, fr("outer->mid->inner", "/bin/p", STACKS_FROM_MODULE, 1)),
                        "outer;mid_[i];inner_[i]");
    assert_string_equal(elem(&x, fr("a->", "/bin/p", STACKS_FROM_MODULE, 1)), "a");
    /* the "+0x.." offset of perf script is cut, other suffixes stay */
    assert_string_equal(elem(&x, fr("main+0x1f", "/bin/p", STACKS_FROM_MODULE, 1)), "main");
    assert_string_equal(elem(&x, fr("main+12", "/bin/p", STACKS_FROM_MODULE, 1)), "main+12");
    /* a function starting with '(' gives no element */
    assert_string_equal(elem(&x, fr("(deleted)", "/bin/p", STACKS_FROM_MODULE, 1)), "");
    fold_free(&x);
    fold_init(&x, (stacks_fold_opts){.no_inline = 1});
    assert_string_equal(elem(&x, fr("outer->mid->inner", "/bin/p", STACKS_FROM_MODULE, 1)), "outer");
    fold_free(&x);
}

static const char *tidy(const char *s)
{
    static char buf[256];
    size_t n = strlen(s);
    assert_true(n < sizeof buf);
    memcpy(buf, s, n + 1);
    n = stacks_tidy(buf, n);
    buf[n] = 0;
    return buf;
}

static void test_tidy(void **state)
{
    (void)state;
    assert_string_equal(tidy("plain_name"), "plain_name");
    assert_string_equal(tidy("a;b"), "a:b");
    assert_string_equal(tidy("f(int, char*)"), "f");
    assert_string_equal(tidy("ns::f(int) const"), "ns::f");
    assert_string_equal(tidy("(anonymous namespace)::g(int)"), "(anonymous namespace)::g");
    assert_string_equal(tidy("main.(*T).Method"), "main.(*T).Method");
    assert_string_equal(tidy("say \"hi\" 'x'"), "say hi x");
    /* in a folded line too, and Java names lose their 'L' in a java process */
    struct fold x;
    fold_init(&x, (stacks_fold_opts){0});
    stacks_frame j = fr("Lcom/ex/Cls;::run", "/tmp/perf-9.map", STACKS_JIT, 1);
    assert_string_equal(fold_one(&x, "java", &j, 1), "java;com/ex/Cls:::run");
    assert_string_equal(fold_one(&x, "javac", &j, 1), "javac;com/ex/Cls:::run");
    assert_string_equal(fold_one(&x, "python", &j, 1), "python;Lcom/ex/Cls:::run");
    fold_free(&x);
}

static int srcline_calls;

static int srcline(void *ctx, char **line, size_t *len)
{
    static char text[64];
    srcline_calls++;
    snprintf(text, sizeof text, "  %s [inlined]  ", (const char *)ctx);
    *line = text;
    *len = strlen(text);
    return 1;
}

static void test_srcline(void **state)
{
    (void)state;
    struct fold x;
    fold_init(&x, (stacks_fold_opts){0});
    stacks_folder_begin(&x.f, "r", PID, TID, 1);
    stacks_text pc = {"401000", 6}, fn = {"main+0x4", 8}, mod = {"/bin/p", 6};
    srcline_calls = 0;
    assert_int_equal(stacks_folder_frame_text(&x.f, pc, fn, mod, STACKS_FROM_MODULE, srcline, (void *)"p.c:12"), 0);
    /* a fully unknown frame has no source line to read */
    stacks_text unk = {"[unknown]", 9};
    assert_int_equal(stacks_folder_frame_text(&x.f, pc, unk, unk, STACKS_FROM_MODULE, srcline, (void *)"x.c:1"), 0);
    assert_int_equal(srcline_calls, 1);
    const char *line;
    size_t len;
    assert_int_equal(stacks_folder_text(&x.f, &line, &len), 0);
    assert_string_equal(line, "r;[unknown];main:p.c:12");
    fold_free(&x);
}

/* Lines met again are found by what makes them (the root, the elements and
 * their groups): random samples of a few stacks and roots count as their
 * texts say, a root with a space is tidied each time, and the same text
 * made of other elements or groups is the same line. */
static void test_lines_found_again(void **state)
{
    (void)state;
    static const char *const comms[] = {"prog", "my prog", "other"};
    static const char *const funcs[] = {"main", "mid", "leaf", "a", "b"};
    for (int opt = 0; opt < 2; opt++) {
        struct fold x;
        fold_init(&x, (stacks_fold_opts){.pid = opt});
        uint64_t r = 7;
        uint64_t want[3][32] = {{0}};
        for (int k = 0; k < 3000; k++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            int c = (int)(r >> 60) % 3, st = (int)(r >> 40) % 32, w = 1 + (int)(r >> 20) % 3;
            stacks_folder_begin(&x.f, comms[c], PID, TID, (uint64_t)w);
            for (int i = 0; i < 5; i++) /* stack st: the functions of its bits, leaf first */
                if (st >> i & 1) {
                    stacks_frame f = fr(funcs[i], "/bin/p", STACKS_USER, (uint64_t)i);
                    assert_int_equal(stacks_folder_frame(&x.f, &f), 0);
                }
            assert_int_equal(stacks_folder_end(&x.f), 0);
            want[c][st] += (uint64_t)w;
        }
        for (int c = 0; c < 3; c++)
            for (int st = 0; st < 32; st++) {
                char line[128];
                int n = snprintf(line, sizeof line, "%s%s", c == 1 ? "my_prog" : comms[c], opt ? "-" : "");
                if (opt)
                    n += snprintf(line + n, sizeof line - (size_t)n, "%d", PID);
                for (int i = 5; i-- > 0;)
                    if (st >> i & 1)
                        n += snprintf(line + n, sizeof line - (size_t)n, ";%s", funcs[i]);
                const struct smap_entry *e = smap_find(&x.map, line, (size_t)n);
                assert_true(want[c][st] ? e && e->n == want[c][st] : !e);
            }
        /* "main;x" by name, and main then x as two frames: one line */
        stacks_frame fx = fr("x", "/bin/p", STACKS_USER, 9), fm = fr("main", "/bin/p", STACKS_USER, 0);
        for (int k = 0; k < 4; k++) {
            stacks_folder_begin(&x.f, "prog", PID, TID, 1);
            if (k % 2) {
                assert_int_equal(stacks_folder_name(&x.f, "main;x"), 0);
            } else {
                assert_int_equal(stacks_folder_frame(&x.f, &fx), 0);
                assert_int_equal(stacks_folder_frame(&x.f, &fm), 0);
            }
            assert_int_equal(stacks_folder_end(&x.f), 0);
        }
        char line[64];
        int n = opt ? snprintf(line, sizeof line, "prog-%d;main;x", PID) : snprintf(line, sizeof line, "prog;main;x");
        const struct smap_entry *e = smap_find(&x.map, line, (size_t)n);
        assert_non_null(e);
        assert_int_equal(e->n, 4);
        fold_free(&x);
    }
}

static void test_lines_and_counts(void **state)
{
    (void)state;
    struct fold x;
    fold_init(&x, (stacks_fold_opts){0});
    size_t last = SIZE_MAX;
    x.f.last_entry = &last;
    /* leaf first in, root first out */
    stacks_frame fs[3] = {fr("leaf", "/bin/p", STACKS_USER, 1), fr("mid", "/bin/p", STACKS_USER, 2),
                          fr("main", "/bin/p", STACKS_USER, 3)};
    for (int i = 0; i < 2; i++) {
        stacks_folder_begin(&x.f, "prog", PID, TID, 5);
        for (int k = 0; k < 3; k++)
            assert_int_equal(stacks_folder_frame(&x.f, &fs[k]), 0);
        assert_int_equal(stacks_folder_end(&x.f), 0);
    }
    /* a frame given by name is taken as it is (no tidying), in its place */
    stacks_folder_begin(&x.f, "prog", PID, TID, 3);
    assert_int_equal(stacks_folder_name(&x.f, "read(2);x"), 0);
    assert_int_equal(stacks_folder_frame(&x.f, &fs[2]), 0);
    assert_int_equal(stacks_folder_end(&x.f), 0);
    /* an ended sample is gone; ending again counts nothing */
    assert_int_equal(stacks_folder_end(&x.f), 0);
    assert_int_equal(x.f.samples, 3);
    assert_int_equal(x.map.n, 2);
    const struct smap_entry *a = smap_find(&x.map, "prog;main;mid;leaf", 18);
    const struct smap_entry *b = smap_find(&x.map, "prog;main;read(2);x", 19);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->n, 10);
    assert_int_equal(b->n, 3);
    assert_int_equal(last, (size_t)(b - x.map.e));
    /* begin forgets a sample that was not ended */
    stacks_folder_begin(&x.f, "prog", PID, TID, 1);
    assert_int_equal(stacks_folder_frame(&x.f, &fs[0]), 0);
    stacks_folder_begin(&x.f, "other", PID, TID, 1);
    const char *line;
    size_t len;
    assert_int_equal(stacks_folder_text(&x.f, &line, &len), 0);
    assert_string_equal(line, "other");
    /* cached elements of a frame, as a text reader replays them: here the
     * id of "mid" twice, as one frame of two elements */
    assert_int_equal(stacks_folder_frame(&x.f, &fs[1]), 0);
    assert_int_equal(x.f.elems.n, 1);
    uint32_t ids[2] = {x.f.elems.v[0], x.f.elems.v[0]};
    assert_int_equal(stacks_folder_add_ids(&x.f, ids, 2), 0);
    assert_int_equal(stacks_folder_text(&x.f, &line, &len), 0);
    assert_string_equal(line, "other;mid;mid;mid");
    fold_free(&x);
}

/* The trace's samples folded: what tr-fold --no-symbolize makes of them. */
static void test_fold_trace(void **state)
{
    (void)state;
    struct trace t = make_trace();
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, t.p, t.len, NULL), 0);
    struct fold x;
    fold_init(&x, (stacks_fold_opts){.kernel = 1, .jit = 1, .addrs = 1, .mark_inline = 1});
    stacks_frames fs = {0};
    tr_record rec;
    while (next_of(r, &rec) > 0) {
        if (rec.type != TR_REC_SAMPLE)
            continue;
        int n = stacks_frames_read(&fs, r, &rec, module_of, &module_calls);
        assert_true(n > 0);
        stacks_folder_begin(&x.f, "prog", rec.pid, rec.tid, rec.u.sample.period);
        for (int i = 0; i < n; i++)
            assert_int_equal(stacks_folder_frame(&x.f, &fs.v[i]), 0);
        assert_int_equal(stacks_folder_end(&x.f), 0);
    }
    assert_int_equal(x.map.n, 2);
    const struct smap_entry *e =
        smap_find(&x.map, "prog;[unknown <7f0000001000>];[prog <401000>];[[kernel.kallsyms] <ffffffff81001234>]_[k]",
                  strlen("prog;[unknown <7f0000001000>];[prog <401000>];[[kernel.kallsyms] <ffffffff81001234>]_[k]"));
    assert_non_null(e);
    assert_int_equal(e->n, 1000);
    e = smap_find(&x.map, "prog;jitted_[j];main;inlined_[i]", strlen("prog;jitted_[j];main;inlined_[i]"));
    assert_non_null(e);
    assert_int_equal(e->n, 1000);
    stacks_frames_free(&fs);
    fold_free(&x);
    tr_reader_free(r);
    free(t.p);
}

/* Two streams in one buffer, each with a sample of one symbolized frame
 * (the same id in both): a Java method name in the first, "beta" in the second. */
static struct trace make_two_streams(void)
{
    int fd = memfd_create("streams", 0);
    assert_true(fd >= 0);
    const char *names[2] = {"Lcom/ex/Main;.run", "beta"};
    for (int i = 0; i < 2; i++) {
        tr_writer *w;
        assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
        tr_frame f = {.addr = 0x401000, .flags = TR_FRAME_SYMBOLIZED, .func = str(w, names[i]),
                      .module = str(w, "/usr/bin/prog")};
        uint32_t id = frame(w, &f), stack;
        assert_int_equal(id, 1);
        assert_int_equal(tr_writer_stack(w, &id, 1, &stack), 0);
        tr_record rec = {.type = TR_REC_SAMPLE, .time = 1000, .pid = PID, .tid = TID};
        rec.u.sample.stack = stack;
        assert_int_equal(tr_writer_add(w, &rec), 0);
        assert_int_equal(tr_writer_finish(w, 0), 0);
        tr_writer_free(w);
    }
    struct trace t;
    t.len = (size_t)lseek(fd, 0, SEEK_END);
    t.p = malloc(t.len);
    assert_non_null(t.p);
    assert_int_equal(pread(fd, t.p, t.len, 0), (ssize_t)t.len);
    close(fd);
    return t;
}

/* The line of one sample of frame id 1 folded by stacks_folder_trace_frame. */
static const char *fold_frame_id(struct fold *x, tr_reader *r, const char *comm)
{
    stacks_folder_begin(&x->f, comm, PID, TID, 1);
    const tr_frame *tf = tr_reader_frame(r, 1);
    assert_non_null(tf);
    assert_int_equal(stacks_folder_trace_frame(&x->f, r, 1, tf), 0);
    const char *line;
    size_t len;
    assert_int_equal(stacks_folder_text(&x->f, &line, &len), 0);
    return line;
}

/* A trace frame's elements are kept per id and per Java-ness of the root,
 * and forgotten at a stream's start, where ids are defined anew. */
static void test_trace_frames_kept(void **state)
{
    (void)state;
    struct trace t = make_two_streams();
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, t.p, t.len, NULL), 0);
    struct fold x;
    fold_init(&x, (stacks_fold_opts){0});
    tr_record rec;
    int streams = 0;
    while (tr_reader_next(r, &rec) > 0) {
        if (rec.type != TR_REC_SAMPLE)
            continue;
        if (streams++ == 0) {
            assert_string_equal(fold_frame_id(&x, r, "prog"), "prog;Lcom/ex/Main:.run");
            assert_string_equal(fold_frame_id(&x, r, "java"), "java;com/ex/Main:.run");
            assert_string_equal(fold_frame_id(&x, r, "prog"), "prog;Lcom/ex/Main:.run");
            assert_string_equal(fold_frame_id(&x, r, "java"), "java;com/ex/Main:.run");
            stacks_folder_forget_frames(&x.f);
        } else {
            assert_string_equal(fold_frame_id(&x, r, "prog"), "prog;beta");
        }
    }
    assert_int_equal(streams, 2);
    fold_free(&x);
    tr_reader_free(r);
    free(t.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_of_raw_and_symbolized_stacks),
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_root),
        cmocka_unit_test(test_unknown_and_module_fallback),
        cmocka_unit_test(test_annotations),
        cmocka_unit_test(test_inline_chains_and_offsets),
        cmocka_unit_test(test_tidy),
        cmocka_unit_test(test_srcline),
        cmocka_unit_test(test_lines_and_counts),
        cmocka_unit_test(test_lines_found_again),
        cmocka_unit_test(test_fold_trace),
        cmocka_unit_test(test_trace_frames_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
