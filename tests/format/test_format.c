/* test_format.c - the trace library: round trips, interning, streaming,
 * truncation, corruption, concatenation, versions, forward compatibility. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <cmocka.h>

#include "synth.h"
#include "tr.h"

/* ---- helpers ---- */

/* Run fill() against a writer on a memfd and return the bytes written. */
static bytes write_trace(int (*fill)(tr_writer *, void *), void *arg, const tr_writer_options *o, int finish)
{
    int fd = memfd_create("t", 0);
    assert_true(fd >= 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, o), 0);
    assert_int_equal(fill(w, arg), 0);
    if (finish) assert_int_equal(tr_writer_finish(w, 7), 0);
    else assert_int_equal(tr_writer_flush(w), 0);
    tr_writer_free(w);
    bytes b = synth_fd_bytes(fd);
    assert_non_null(b.p);
    return b;
}

static int fill_all(tr_writer *w, void *arg)
{
    (void)arg;
    return synth_all_types(w);
}

static int fill_samples(tr_writer *w, void *arg)
{
    int e = synth_all_types(w);
    return e ? e : synth_samples(w, *(uint64_t *)arg, 42);
}

/* Read everything; count delivered records by type and errors. */
typedef struct {
    int records, samples, starts, ends, complete_ends;
    int errors[32];
    int last_error;
    int unresolved_stacks;
    int fatal;
} summary;

static summary read_all(const bytes *b)
{
    summary s = {0};
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, b->p, b->len, NULL), 0);
    tr_record rec;
    int rc, guard = 0;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        assert_true(++guard < 10000000);
        if (rc < 0) {
            assert_true(rc > TR_E_LAST_);
            s.errors[-rc]++;
            s.last_error = rc;
            if (!tr_error_recoverable(rc)) {
                s.fatal = rc;
                break;
            }
            continue;
        }
        s.records++;
        if (rec.type == TR_REC_STREAM_START) s.starts++;
        if (rec.type == TR_REC_STREAM_END) {
            s.ends++;
            s.complete_ends += (int)rec.u.stream_end.complete;
        }
        if (rec.type == TR_REC_SAMPLE) {
            s.samples++;
            const uint32_t *fr;
            int n = tr_reader_stack(r, rec.u.sample.stack, &fr);
            if (n < 0) s.unresolved_stacks++;
            for (int i = 0; i < n; i++)
                if (!tr_reader_frame(r, fr[i])) s.unresolved_stacks++;
        }
    }
    tr_reader_free(r);
    return s;
}

/* ---- tests ---- */

/* stack_runs 2: stack nodes and the frames they use (symbolized, inline)
 * in STACK_CHAIN records, samples' stack ids relative: read the same */
static void round_trip_every_type(int stack_runs)
{
    tr_writer_options o = {.stack_runs = stack_runs};
    bytes b = write_trace(fill_all, NULL, &o, 1);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
    tr_record rec;
    int seen[128] = {0};
    uint64_t last_time = 0;
    while (tr_reader_next(r, &rec) == 1) {
        seen[rec.type]++;
        switch (rec.type) {
        case TR_REC_COMM:
            assert_int_equal(rec.time, 1000000001000ull);
            assert_int_equal(rec.pid, 100);
            assert_memory_equal(rec.u.comm.comm, "prog", 4);
            assert_int_equal(rec.u.comm.exec, 1);
            break;
        case TR_REC_MMAP:
            assert_int_equal(rec.u.mmap.start, 0x400000);
            assert_int_equal(rec.u.mmap.build_id_len, 20);
            assert_int_equal(rec.u.mmap.build_id[0], 0xde);
            assert_memory_equal(rec.u.mmap.path, "/usr/bin/prog", 13);
            break;
        case TR_REC_FORK:
            assert_int_equal(rec.tid, 101);
            assert_int_equal(rec.u.fork.ppid, 100);
            break;
        case TR_REC_SAMPLE: {
            const tr_event_def *d = tr_reader_event(r, rec.u.sample.event);
            assert_non_null(d);
            assert_string_equal(d->name, "cpu-clock");
            assert_int_equal(rec.u.sample.period, 1001001);
            const uint32_t *fr;
            assert_int_equal(tr_reader_stack(r, rec.u.sample.stack, &fr), 3);
            const tr_frame *leaf = tr_reader_frame(r, fr[0]), *root = tr_reader_frame(r, fr[2]);
            assert_true(leaf->flags & TR_FRAME_KERNEL);
            assert_int_equal(leaf->addr, 0xffffffff81001234ull);
            assert_string_equal(tr_reader_string(r, root->func, NULL), "main");
            assert_string_equal(tr_reader_string(r, root->file, NULL), "prog.c");
            assert_int_equal(root->line, 42);
            assert_true(tr_reader_frame(r, fr[1])->flags & TR_FRAME_INLINE);
            if (seen[TR_REC_SAMPLE] == 2) {
                assert_int_equal(rec.u.sample.nregs, 3);
                assert_int_equal(rec.u.sample.regs[2], 0x401136);
                assert_int_equal(rec.u.sample.stack_copy_len, 16);
                assert_int_equal(rec.u.sample.stack_copy[15], 16);
            }
            break;
        }
        case TR_REC_COUNTER:
            assert_true(rec.time < last_time); /* backwards in time survives the deltas */
            assert_int_equal(rec.u.counter.value, 123456);
            assert_int_equal(rec.u.counter.running, 1000);
            assert_int_equal(rec.cpu, -1);
            break;
        case TR_REC_SYSCALL:
            assert_string_equal(tr_reader_syscall_name(r, NULL, rec.u.syscall.nr), "openat");
            assert_int_equal(rec.u.syscall.args[0], (uint64_t)-100);
            assert_int_equal(rec.u.syscall.ret, 3);
            assert_int_equal(rec.u.syscall.ncaptures, 2);
            assert_memory_equal(rec.u.syscall.captures[0].data, "/etc/hostname", 13);
            assert_string_equal(tr_reader_string(r, rec.u.syscall.captures[1].struct_name, NULL), "stat");
            break;
        case TR_REC_LIBCALL:
            assert_int_equal(rec.u.libcall.ret, -1);
            assert_string_equal(tr_reader_string(r, rec.u.libcall.func, NULL), "main");
            break;
        case TR_REC_TRACE_EVENT:
            assert_int_equal(rec.u.trace_event.len, 12);
            assert_string_equal(tr_reader_event(r, rec.u.trace_event.event)->name, "sched:sched_switch");
            break;
        case TR_REC_FUNCTION:
            assert_int_equal(rec.u.function.duration, 77);
            break;
        case TR_REC_LOST:
            assert_int_equal(rec.u.lost.count, 5);
            break;
        case TR_REC_EXIT:
            assert_int_equal(rec.u.exit.status, 256);
            break;
        case TR_REC_SYMBOL:
            assert_int_equal(rec.u.symbol.size, 0x40);
            assert_int_equal(rec.time, 0);
            break;
        case TR_REC_MODULE_STATUS:
            assert_int_equal(rec.u.module_status.status, TR_MOD_BUILD_ID_MISMATCH);
            break;
        case TR_REC_STREAM_END:
            assert_int_equal(rec.u.stream_end.complete, 1);
            assert_int_equal(rec.u.stream_end.lost, 7);
            break;
        }
        if (rec.time) last_time = rec.time;
    }
    static const int expect[] = {TR_REC_COMM, TR_REC_MMAP, TR_REC_FORK, TR_REC_COUNTER, TR_REC_SYSCALL,
                                 TR_REC_SIGNAL, TR_REC_LIBCALL, TR_REC_TRACE_EVENT, TR_REC_FUNCTION, TR_REC_LOST,
                                 TR_REC_EXIT, TR_REC_SYMBOL, TR_REC_MODULE_STATUS, TR_REC_STREAM_START, TR_REC_STREAM_END};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) assert_int_equal(seen[expect[i]], 1);
    assert_int_equal(seen[TR_REC_SAMPLE], 2);
    assert_int_equal(seen[TR_REC_STRING], 0); /* definitions are absorbed */
    assert_string_equal(tr_reader_meta(r, "host"), "golden");
    assert_string_equal(tr_reader_meta(r, "producer"), "synth"); /* the first sticky record too */
    tr_reader_stats st;
    tr_reader_get_stats(r, &st);
    assert_int_equal(st.per_type[0], 0);
    assert_int_equal(st.per_type[TR_REC_META], 9);
    size_t bl;
    assert_memory_equal(tr_reader_blob(r, "kallsyms", &bl), "ffffffff81000000", 16);
    tr_reader_free(r);
    free(b.p);
}

static void test_round_trip_every_type(void **state)
{
    (void)state;
    round_trip_every_type(0);
    round_trip_every_type(2);
}

/* tr_record_skim: each record of a chunk's content decoded without a
 * reader, to the content's last byte; a record cut short is malformed. */
static void test_records_skimmed_without_a_reader(void **state)
{
    (void)state;
    bytes b = write_trace(fill_all, NULL, NULL, 1);
    tr_stream_frame f;
    int chunks = 0, mmaps = 0, blobs = 0, samples = 0;
    for (size_t off = 0; off < b.len; off += f.size) {
        assert_int_equal(tr_stream_frame_parse(b.p + off, b.len - off, &f), 1);
        if (f.kind != TR_SFRAME_CHUNK)
            continue;
        chunks++;
        uint8_t *raw = malloc(f.rsize);
        assert_int_equal(ZSTD_decompress(raw, f.rsize, b.p + off + f.size - f.csize, f.csize), f.rsize);
        tr_record rec;
        size_t pos = 0;
        for (int n; (n = tr_record_skim(raw + pos, f.rsize - pos, &rec)) > 0; pos += (size_t)n) {
            /* the same record cut by its last byte */
            assert_int_equal(tr_record_skim(raw + pos, (size_t)n - 1, &rec), TR_E_CORRUPT_RECORD);
            assert_int_equal(tr_record_skim(raw + pos, f.rsize - pos, &rec), n);
            if (rec.type == TR_REC_MMAP) {
                mmaps++;
                assert_int_equal(rec.pid, 100);
                assert_int_equal(rec.u.mmap.start, 0x400000);
                assert_int_equal(rec.u.mmap.build_id_len, 20);
                assert_int_equal(rec.u.mmap.path_len, 13);
                assert_memory_equal(rec.u.mmap.path, "/usr/bin/prog", 13);
            } else if (rec.type == TR_REC_BLOB && rec.u.blob.name_len == 8 &&
                       !memcmp(rec.u.blob.name, "kallsyms", 8)) {
                blobs++;
                assert_int_equal(rec.u.blob.len, 26);
                assert_memory_equal(rec.u.blob.data, "ffffffff81000000 T _stext\n", 26);
            } else if (rec.type == TR_REC_SAMPLE) {
                samples++;
            }
        }
        assert_int_equal(pos, f.rsize); /* every record, none past the content */
        assert_int_equal(tr_record_skim(raw + pos, 0, &rec), 0);
        free(raw);
    }
    assert_true(chunks >= 1);
    assert_int_equal(mmaps, 1);
    assert_int_equal(blobs, 1);
    assert_int_equal(samples, 2);
    free(b.p);
}

/* A switch record (1.3): its thread, time and flags come back. */
static int fill_switches(tr_writer *w, void *arg)
{
    (void)arg;
    tr_record r = {.type = TR_REC_SWITCH, .time = 5000, .pid = 10, .tid = 11, .cpu = 1};
    r.u.sw.flags = TR_SWF_OUT | TR_SWF_PREEMPT;
    int e = tr_writer_add(w, &r);
    r.time = 7000, r.u.sw.flags = 0;
    return e ? e : tr_writer_add(w, &r);
}

static void test_switch_round_trip(void **state)
{
    (void)state;
    bytes b = write_trace(fill_switches, NULL, NULL, 1);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
    tr_record rec;
    uint32_t flags[2];
    uint64_t times[2];
    int n = 0;
    while (tr_reader_next(r, &rec) == 1)
        if (rec.type == TR_REC_SWITCH) {
            assert_true(n < 2);
            assert_int_equal(rec.tid, 11);
            assert_int_equal(rec.cpu, 1);
            flags[n] = rec.u.sw.flags, times[n++] = rec.time;
        }
    assert_int_equal(n, 2);
    assert_int_equal(flags[0], TR_SWF_OUT | TR_SWF_PREEMPT);
    assert_int_equal(flags[1], 0);
    assert_int_equal(times[1] - times[0], 2000);
    assert_string_equal(tr_rec_type_name(TR_REC_SWITCH), "switch");
    tr_reader_free(r);
    free(b.p);
}

static void test_interning_gives_stable_ids(void **state)
{
    (void)state;
    int fd = memfd_create("t", 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
    uint32_t a, b, c, f1, f2, s1, s2, s3;
    assert_int_equal(tr_writer_string(w, "x", 1, &a), 0);
    assert_int_equal(tr_writer_string(w, "y", 1, &b), 0);
    assert_int_equal(tr_writer_string(w, "x", 1, &c), 0);
    assert_int_equal(a, c);
    assert_int_not_equal(a, b);
    tr_frame fa = {.addr = 1}, fb = {.addr = 2};
    assert_int_equal(tr_writer_frame(w, &fa, &f1), 0);
    assert_int_equal(tr_writer_frame(w, &fb, &f2), 0);
    uint32_t ch1[2] = {f1, f2}, ch2[2] = {f2, f2};
    assert_int_equal(tr_writer_stack(w, ch1, 2, &s1), 0);
    assert_int_equal(tr_writer_stack(w, ch2, 2, &s2), 0);
    assert_int_equal(tr_writer_stack(w, ch1, 2, &s3), 0);
    assert_int_equal(s1, s3);
    assert_int_not_equal(s1, s2);
    uint32_t bad[1] = {999};
    assert_int_equal(tr_writer_stack(w, bad, 1, &s3), TR_E_INVAL);
    tr_record r = {.type = TR_REC_STRING};
    assert_int_equal(tr_writer_add(w, &r), TR_E_INVAL); /* definitions have their own calls */
    tr_writer_free(w);
    close(fd);
}

/* The samples of a -g profile (no registers, stack copy or raw data) read
 * back as written, whatever their task, cpu, time (backwards too), period
 * and stack: one just defined (written relative to its chain), an older
 * one, none. */
#define PLAIN_SAMPLES 3000
static tr_record plain_sample(int i, uint32_t stack)
{
    tr_record r = {.type = TR_REC_SAMPLE, .time = 1000000 + (uint64_t)(i % 7) * 999999999ull - (uint64_t)i,
                   .pid = i % 5 ? 100 + i % 3 : -1, .tid = i % 5 ? 100000 + i : -1, .cpu = i % 11 - 1};
    r.u.sample.event = 1 + (uint32_t)(i % 3);
    r.u.sample.period = i % 4 ? 1000 : (uint64_t)i << 40;
    r.u.sample.stack = i % 9 ? stack : 0;
    return r;
}

static int fill_plain_samples(tr_writer *w, void *arg)
{
    uint32_t *stacks = arg, ev;
    tr_event_def def = {.kind = 1, .name = "cpu-clock", .name_len = 9};
    for (int i = 0; i < 3; i++) assert_int_equal(tr_writer_event(w, &def, &ev), 0);
    for (int i = 0; i < PLAIN_SAMPLES; i++) {
        uint64_t addrs[3] = {0x400000 + (uint64_t)(i % 50), 0x500000, 0x600000 + (uint64_t)(i % 3)};
        assert_int_equal(tr_writer_stack_addrs(w, addrs, NULL, 3, &stacks[i]), 0);
        tr_record r = plain_sample(i, stacks[i]);
        int e = tr_writer_add(w, &r);
        if (e) return e;
    }
    return 0;
}

static void test_plain_samples_round_trip(void **state)
{
    (void)state;
    static uint32_t stacks[PLAIN_SAMPLES];
    tr_writer_options o = {.stack_runs = 2, .chunk_size = 4096};
    bytes b = write_trace(fill_plain_samples, stacks, &o, 1);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
    tr_record rec;
    int rc, i = 0;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        assert_true(rc > 0);
        if (rec.type != TR_REC_SAMPLE) continue;
        tr_record want = plain_sample(i, stacks[i]);
        assert_int_equal(rec.time, want.time);
        assert_int_equal(rec.pid, want.pid);
        assert_int_equal(rec.tid, want.tid);
        assert_int_equal(rec.cpu, want.cpu);
        assert_int_equal(rec.u.sample.event, want.u.sample.event);
        assert_int_equal(rec.u.sample.period, want.u.sample.period);
        assert_int_equal(rec.u.sample.stack, want.u.sample.stack);
        assert_int_equal(rec.u.sample.abi + rec.u.sample.stack_copy_len + rec.u.sample.raw_len, 0);
        i++;
    }
    assert_int_equal(i, PLAIN_SAMPLES);
    tr_reader_free(r);
    free(b.p);
}

/* Frames written with tr_writer_frame_new by a caller that interns them
 * itself, with the tables reserved (tr_writer_reserve), read back as the
 * same stacks as frames interned by tr_writer_frame. */
static int fill_frames(tr_writer *w, void *arg)
{
    int fresh = *(int *)arg, e;
    if (fresh && (e = tr_writer_reserve(w, 300, 3000))) return e;
    static const char *const names[] = {"main", "parse", "eval", "[unknown]"};
    uint32_t str[4], ids[300];
    for (int i = 0; i < 4; i++)
        if ((e = tr_writer_string(w, names[i], strlen(names[i]), &str[i]))) return e;
    for (int i = 0; i < 300; i++) {
        tr_frame f = {.addr = 0x400000 + 16 * (uint64_t)i, .flags = TR_FRAME_SYMBOLIZED | (i % 7 ? 0 : TR_FRAME_INLINE),
                      .func = str[i % 4], .module = str[(i / 4) % 4], .offset = (uint64_t)i, .line = (uint32_t)i % 5};
        if ((e = fresh ? tr_writer_frame_new(w, &f, &ids[i]) : tr_writer_frame(w, &f, &ids[i]))) return e;
    }
    uint64_t x = 99;
    for (int k = 0; k < 2000; k++) {
        uint32_t chain[12], id;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t n = 1 + (x >> 40) % 12;
        for (size_t i = 0; i < n; i++) chain[i] = ids[(x >> (3 * i)) % (i < 4 ? 20 : 300)];
        if ((e = tr_writer_stack(w, chain, n, &id))) return e;
        tr_record r = {.type = TR_REC_SAMPLE, .time = 1000 + (uint64_t)k, .pid = 7, .tid = 7, .cpu = 0};
        r.u.sample.stack = id;
        if ((e = tr_writer_add(w, &r))) return e;
    }
    return 0;
}

static int fill_defs(tr_writer *w, void *arg);

/* Each sample's frames as text, one line per sample, read with
 * keep_definitions keep; *ndefs: the STRING, FRAME and STACK records
 * delivered, *nother: the META and BLOB ones. */
static char *stacks_text_kept(const bytes *b, int keep, int *ndefs, int *nother)
{
    tr_reader *r;
    tr_reader_options ro = {.keep_definitions = keep};
    assert_int_equal(tr_reader_open_mem(&r, b->p, b->len, &ro), 0);
    *ndefs = *nother = 0;
    size_t cap = 1 << 20, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        assert_true(rc > 0);
        *ndefs += rec.type == TR_REC_STRING || rec.type == TR_REC_FRAME || rec.type == TR_REC_STACK;
        *nother += rec.type == TR_REC_META || rec.type == TR_REC_BLOB;
        if (rec.type != TR_REC_SAMPLE) continue;
        const uint32_t *fr;
        int n = tr_reader_stack(r, rec.u.sample.stack, &fr);
        assert_true(n > 0);
        for (int i = 0; i < n; i++) {
            const tr_frame *f = tr_reader_frame(r, fr[i]);
            assert_non_null(f);
            if (cap - len < 256) assert_non_null(out = realloc(out, cap *= 2));
            len += (size_t)snprintf(out + len, cap - len, "%llx %x %s %s %llu %u;", (unsigned long long)f->addr,
                                    f->flags, tr_reader_string(r, f->func, NULL), tr_reader_string(r, f->module, NULL),
                                    (unsigned long long)f->offset, f->line);
        }
        out[len++] = '\n';
    }
    out[len] = 0;
    tr_reader_free(r);
    return out;
}

static char *stacks_text(const bytes *b)
{
    int d, o;
    return stacks_text_kept(b, 0, &d, &o);
}

/* keep_definitions 3 delivers the metadata and blobs as 2 does, not the
 * strings and frames (which 2 delivers from inside the stack chains), and
 * the stacks read the same. */
static int fill_frames_and_defs(tr_writer *w, void *arg)
{
    int e = fill_defs(w, NULL);
    return e ? e : fill_frames(w, arg);
}

static void test_keep_definitions_3(void **state)
{
    (void)state;
    int fresh = 0, d[4], o[4];
    tr_writer_options wo = {.stack_runs = 2, .chunk_size = 4096};
    bytes b = write_trace(fill_frames_and_defs, &fresh, &wo, 1);
    char *t[4];
    for (int k = 0; k < 4; k++) t[k] = stacks_text_kept(&b, k, &d[k], &o[k]);
    for (int k = 1; k < 4; k++) assert_string_equal(t[0], t[k]);
    assert_int_equal(d[0], 0);
    assert_true(d[2] >= 300); /* the frames and strings */
    assert_int_equal(d[3], 0);
    assert_int_equal(o[0], 0);
    assert_true(o[2] >= 4);
    assert_int_equal(o[3], o[2]);
    for (int k = 0; k < 4; k++) free(t[k]);
    free(b.p);
}

static void test_frames_new_read_as_interned(void **state)
{
    (void)state;
    int fresh = 0;
    tr_writer_options o = {.stack_runs = 2, .chunk_size = 4096};
    bytes a = write_trace(fill_frames, &fresh, &o, 1);
    fresh = 1;
    bytes b = write_trace(fill_frames, &fresh, &o, 1);
    char *ta = stacks_text(&a), *tb = stacks_text(&b);
    assert_true(strlen(ta) > 20000);
    assert_string_equal(ta, tb);
    tr_writer *w;
    int fd = memfd_create("t", 0);
    assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
    tr_frame bad = {.addr = 1, .flags = TR_FRAME_SYMBOLIZED, .func = 5}; /* no such string */
    uint32_t id;
    assert_int_equal(tr_writer_frame_new(w, &bad, &id), TR_E_INVAL);
    assert_int_equal(tr_writer_reserve(NULL, 1, 1), TR_E_INVAL);
    tr_writer_free(w);
    close(fd);
    free(ta);
    free(tb);
    free(a.p);
    free(b.p);
}

/* tr_reader_defs_gen changes when a META or BLOB record is absorbed or a
 * stream starts, not for other records, and two readers never share one. */
static int fill_defs(tr_writer *w, void *arg)
{
    (void)arg;
    /* what each record changes: 1 a definition, 0 nothing */
    static const char *const what = "0m0b0b0m00";
    int e = 0;
    for (const char *c = what; *c && !e; c++) {
        tr_record r = {.type = TR_REC_COMM, .time = 10 + (uint64_t)(c - what), .pid = 3, .tid = 3, .cpu = 0};
        r.u.comm.comm = "x";
        r.u.comm.len = 1;
        if (*c == 'm') e = tr_writer_meta(w, "k", c - what < 4 ? "v1" : "v2");
        else if (*c == 'b') e = tr_writer_blob(w, "kallsyms", c - what < 4 ? "a" : "bb", c - what < 4 ? 1 : 2, 0);
        else e = tr_writer_add(w, &r);
    }
    return e;
}

static void test_defs_gen_follows_meta_and_blobs(void **state)
{
    (void)state;
    bytes b = write_trace(fill_defs, NULL, NULL, 1);
    tr_reader *r, *r2;
    tr_reader_options ro = {.keep_definitions = 1}; /* the metadata and blobs delivered too */
    assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, &ro), 0);
    assert_int_equal(tr_reader_open_mem(&r2, b.p, b.len, &ro), 0);
    tr_record rec;
    int rc;
    char seen[32] = "";
    size_t n = 0;
    uint64_t last = tr_reader_defs_gen(r);
    while ((rc = tr_reader_next(r, &rec)) != 0 && n < sizeof seen - 1) {
        assert_true(rc > 0);
        uint64_t g = tr_reader_defs_gen(r);
        if (rec.type == TR_REC_META || rec.type == TR_REC_BLOB || rec.type == TR_REC_COMM)
            seen[n++] = g != last ? 'c' : '=';
        else if (rec.type == TR_REC_STREAM_START)
            assert_true(g != last);
        last = g;
    }
    assert_string_equal(seen, "=c=c=c=c==");
    size_t len;
    assert_memory_equal(tr_reader_blob(r, "kallsyms", &len), "bb", 2);
    while ((rc = tr_reader_next(r2, &rec)) > 0)
        ;
    assert_true(tr_reader_defs_gen(r2) != tr_reader_defs_gen(r));
    assert_int_equal(tr_reader_defs_gen(NULL), 0);
    tr_reader_free(r);
    tr_reader_free(r2);
    free(b.p);
}

/* tr_writer_stack_nodes gives the ids of tr_writer_stack_node called frame
 * by frame: below new nodes, known ones and wide ones (more than 8
 * children), ids in place of the frames, and up to a bad frame. */
static void test_stack_nodes_at_once(void **state)
{
    (void)state;
    int fd = memfd_create("t", 0);
    tr_writer *one, *all;
    assert_int_equal(tr_writer_open(&one, fd, NULL), 0);
    assert_int_equal(tr_writer_open(&all, fd, NULL), 0);
    uint32_t frames[40];
    for (int i = 0; i < 40; i++) {
        tr_frame f = {.addr = 0x1000 + (uint64_t)i};
        uint32_t id;
        assert_int_equal(tr_writer_frame(one, &f, &frames[i]), 0);
        assert_int_equal(tr_writer_frame(all, &f, &id), 0);
        assert_int_equal(id, frames[i]);
    }
    uint64_t x = 12345;
    uint32_t parents[64] = {0};
    size_t nparents = 1;
    for (int round = 0; round < 3000; round++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t chain[24], want[24], got[24], parent = parents[(x >> 33) % nparents], p = parent;
        size_t n = (x >> 20) % 24;
        for (size_t i = 0; i < n; i++) chain[i] = frames[(x >> (i % 40)) % (i < 3 ? 12 : 40)];
        int bad = round % 97 == 5 && n > 2; /* a frame past the last: an error at n / 2 */
        if (bad) chain[n / 2] = 999;
        int ew = 0;
        for (size_t i = 0; i < n && !ew; i++)
            if (!(ew = tr_writer_stack_node(one, p, chain[i], &p))) want[i] = p;
        int in_place = round % 2;
        if (in_place) memcpy(got, chain, sizeof chain);
        assert_int_equal(tr_writer_stack_nodes(all, parent, in_place ? got : chain, n, got), ew);
        assert_int_equal(ew, bad ? TR_E_INVAL : 0);
        size_t ok = bad ? n / 2 : n;
        assert_memory_equal(got, want, ok * sizeof *got);
        if (ok && nparents < 64) parents[nparents++] = got[ok - 1];
    }
    uint32_t id;
    assert_int_equal(tr_writer_stack_nodes(all, 0, NULL, 0, NULL), 0);
    assert_int_equal(tr_writer_stack_nodes(all, 1u << 30, frames, 1, &id), TR_E_INVAL); /* no such parent */
    tr_writer_free(one);
    tr_writer_free(all);
    close(fd);
}

/* Every prefix of a multi-chunk trace: never a crash, every complete chunk
 * delivered, and the loss reported. */
static void test_every_truncation_reads_its_complete_part(void **state)
{
    (void)state;
    uint64_t n = 300;
    tr_writer_options o = {.chunk_size = 512};
    bytes b = write_trace(fill_samples, &n, &o, 1);
    summary full = read_all(&b);
    assert_int_equal(full.samples, 302);
    assert_int_equal(full.complete_ends, 1);
    assert_int_equal(full.last_error, 0);
    int prev = 0;
    for (size_t cut = 0; cut < b.len; cut++) {
        bytes t = {b.p, cut};
        summary s = read_all(&t);
        if (cut == 0) {
            assert_int_equal(s.fatal, TR_E_EMPTY);
            continue;
        }
        assert_int_not_equal(s.last_error, 0);          /* never a silent success */
        assert_int_equal(s.complete_ends, 0);
        assert_true(s.samples >= prev);                  /* more input, never fewer records */
        assert_true(s.samples <= full.samples);
        assert_int_equal(s.unresolved_stacks, 0);
        prev = s.samples;
    }
    free(b.p);
}

static uint8_t *find_frame(uint8_t *p, size_t len, uint32_t kind, int nth)
{
    for (size_t i = 0; i + 12 <= len; i++)
        if (!memcmp(p + i, "\x5e\x2a\x4d\x18", 4) && !memcmp(p + i + 8, &kind, 4) && nth-- == 0) return p + i;
    return NULL;
}

static void test_corrupt_chunk_is_skipped_and_reading_resumes(void **state)
{
    (void)state;
    uint64_t n = 400;
    tr_writer_options o = {.chunk_size = 1024, .key_interval = 2048};
    bytes b = write_trace(fill_samples, &n, &o, 1);
    summary full = read_all(&b);
    uint8_t *c3 = find_frame(b.p, b.len, 0x48435254u, 3);
    assert_non_null(c3);
    c3[8 + 40 + 20] ^= 0x55; /* inside the zstd payload */
    summary s = read_all(&b);
    assert_int_equal(s.errors[-TR_E_CORRUPT_CHUNK], 1);
    assert_int_equal(s.complete_ends, 1);
    assert_true(s.samples < full.samples);
    assert_true(s.samples > full.samples / 2);
    /* a damaged frame header: found again by its magic */
    c3[8 + 5] ^= 0xff;
    s = read_all(&b);
    assert_int_equal(s.errors[-TR_E_CORRUPT_FRAME] + s.errors[-TR_E_GARBAGE] >= 1, 1);
    assert_int_equal(s.complete_ends, 1);
    free(b.p);
}

/* A lost chunk: loss reported, and from the next key chunk on every
 * reference resolves again. */
static void test_lost_chunk_recovers_at_next_key_chunk(void **state)
{
    (void)state;
    uint64_t n = 2000;
    tr_writer_options o = {.chunk_size = 1024, .key_interval = 4096};
    bytes b = write_trace(fill_samples, &n, &o, 1);
    uint8_t *c1 = find_frame(b.p, b.len, 0x48435254u, 1), *c2 = find_frame(b.p, b.len, 0x48435254u, 2);
    assert_non_null(c2);
    memmove(c1, c2, (size_t)(b.p + b.len - c2)); /* drop chunk 1, which defines most stacks */
    b.len -= (size_t)(c2 - c1);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
    tr_record rec;
    int rc, lost = 0, unresolved_after_key = 0, samples = 0;
    uint64_t samples_after_key = 0;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc == TR_E_LOST_CHUNKS) {
            lost++;
            assert_int_equal(tr_reader_last_diag(r)->lost_chunks, 1);
            continue;
        }
        assert_true(rc > 0);
        if (rec.type != TR_REC_SAMPLE) continue;
        samples++;
        const uint32_t *fr;
        int d = tr_reader_stack(r, rec.u.sample.stack, &fr);
        tr_reader_stats st;
        tr_reader_get_stats(r, &st);
        if (st.raw_bytes > 3 * 4096) { /* past the next key chunk */
            samples_after_key++;
            if (d <= 0) unresolved_after_key++;
        }
    }
    assert_int_equal(lost, 1);
    assert_true(samples_after_key > 100);
    assert_int_equal(unresolved_after_key, 0);
    tr_reader_free(r);
    free(b.p);
}

static void test_concatenated_streams(void **state)
{
    (void)state;
    uint64_t n = 50;
    bytes a = write_trace(fill_samples, &n, NULL, 1), b = write_trace(fill_all, NULL, NULL, 1);
    bytes both = {malloc(a.len + b.len), a.len + b.len};
    memcpy(both.p, a.p, a.len);
    memcpy(both.p + a.len, b.p, b.len);
    summary s = read_all(&both);
    assert_int_equal(s.starts, 2);
    assert_int_equal(s.complete_ends, 2);
    assert_int_equal(s.samples, 52 + 2);
    assert_int_equal(s.last_error, 0);
    /* a killed first stream followed by a whole one: the cut is reported, both read */
    memcpy(both.p + a.len - 56, b.p, b.len);
    both.len = a.len - 56 + b.len;
    s = read_all(&both);
    assert_int_equal(s.errors[-TR_E_STREAM_CUT], 1);
    assert_int_equal(s.starts, 2);
    assert_int_equal(s.complete_ends, 1);
    free(a.p), free(b.p), free(both.p);
}

static void recrc(uint8_t *frame)
{
    uint32_t size;
    memcpy(&size, frame + 4, 4);
    uint32_t crc = tr_crc32c(0, frame + 8, size - 4);
    memcpy(frame + 8 + size - 4, &crc, 4);
}

static void test_version_rules(void **state)
{
    (void)state;
    bytes b = write_trace(fill_all, NULL, NULL, 1);
    b.p[12] = 2; /* major 2 */
    recrc(b.p);
    summary s = read_all(&b);
    assert_int_equal(s.fatal, TR_E_VERSION);
    assert_int_equal(s.records, 0);
    b.p[12] = 1, b.p[14] = 9; /* minor 9: newer minor reads */
    recrc(b.p);
    s = read_all(&b);
    assert_int_equal(s.fatal, 0);
    assert_int_equal(s.complete_ends, 1);
    b.p[16] = 0x80; /* an unknown compatible flag: ignored */
    recrc(b.p);
    assert_int_equal(read_all(&b).fatal, 0);
    b.p[20] = 16; /* an unknown incompatible flag (bit 4): refused */
    recrc(b.p);
    assert_int_equal(read_all(&b).fatal, TR_E_INCOMPAT);
    free(b.p);
}

/* Build a stream by hand: start frame, one chunk of given raw records, end. */
static bytes hand_stream(const uint8_t *raw, size_t rawlen)
{
    bytes b = {malloc(4096 + rawlen * 2), 0};
    uint8_t *p = b.p;
    uint8_t start[8 + 28] = {0x5e, 0x2a, 0x4d, 0x18, 28, 0, 0, 0, 'T', 'R', 'S', 'T', 1, 0, 0, 0};
    memcpy(p, start, sizeof start);
    recrc(p);
    p += sizeof start;
    uint8_t ch[8 + 40] = {0x5e, 0x2a, 0x4d, 0x18, 40, 0, 0, 0, 'T', 'R', 'C', 'H'};
    size_t z = ZSTD_compress(p + sizeof ch, 4096 + rawlen, raw, rawlen, 1);
    assert_false(ZSTD_isError(z));
    uint32_t z32 = (uint32_t)z, r32 = (uint32_t)rawlen, n = 3;
    memcpy(ch + 8 + 16, &z32, 4);
    memcpy(ch + 8 + 20, &r32, 4);
    memcpy(ch + 8 + 24, &n, 4);
    memcpy(p, ch, sizeof ch);
    recrc(p);
    p += sizeof ch + z;
    uint8_t end[8 + 48] = {0x5e, 0x2a, 0x4d, 0x18, 48, 0, 0, 0, 'T', 'R', 'E', 'N'};
    memcpy(p, end, sizeof end);
    recrc(p);
    p += sizeof end;
    b.len = (size_t)(p - b.p);
    return b;
}

/* A sample's stack id relative to the chunk's last chain node (sflags bit
 * 5): malformed in a stream without STACK_CHAINS, and below 0 in one with
 * them. */
static void test_relative_stack_ids_checked(void **state)
{
    (void)state;
    const uint8_t raw[] = {0x30, 8, 0, 2, 2, 0, 1, 1, 6, 32,  /* stack 0 + 3 */
                           0x30, 8, 0, 2, 2, 0, 1, 1, 1, 32}; /* stack 0 - 1 */
    for (int chains = 0; chains < 2; chains++) {
        bytes b = hand_stream(raw, sizeof raw);
        if (chains) {
            b.p[20] = TR_INCOMPAT_STACK_CHAINS;
            recrc(b.p);
        }
        tr_reader *r;
        assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
        tr_record rec;
        assert_int_equal(tr_reader_next(r, &rec), 1);
        assert_int_equal(rec.type, TR_REC_STREAM_START);
        if (chains) {
            assert_int_equal(tr_reader_next(r, &rec), 1);
            assert_int_equal(rec.type, TR_REC_SAMPLE);
            assert_int_equal(rec.u.sample.stack, 3);
        }
        assert_int_equal(tr_reader_next(r, &rec), TR_E_CORRUPT_RECORD); /* the rest of the chunk dropped */
        assert_int_equal(tr_reader_next(r, &rec), 1);
        assert_int_equal(rec.type, TR_REC_STREAM_END);
        assert_int_equal(tr_reader_next(r, &rec), 0);
        tr_reader_free(r);
        free(b.p);
    }
}

static void test_unknown_types_and_fields_are_skipped(void **state)
{
    (void)state;
    /* an unknown event-class type 0x3f with dt=+10, then a COMM with an
     * extra trailing field, then an unknown non-event type 0x1d */
    const uint8_t raw[] = {
        0x3f, 6, 20, 2, 2, 0, 0xaa, 0xbb,           /* type 0x3f: dt=10 pid=1 tid=1 cpu=0 + 2 bytes */
        0x20, 9, 2, 2, 2, 0, 0, 'a', 'b', 'c', 0,   /* comm: dt=1 ... exec=0, "abc\0" (NUL kept) */
        0x1d, 3, 1, 2, 3,                           /* unknown definition-class type */
    };
    bytes b = hand_stream(raw, sizeof raw);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
    tr_record rec;
    int comms = 0;
    while (tr_reader_next(r, &rec) == 1)
        if (rec.type == TR_REC_COMM) {
            comms++;
            assert_int_equal(rec.time, 11); /* the unknown record's dt was applied */
            assert_int_equal(rec.u.comm.len, 4);
        }
    assert_int_equal(comms, 1);
    tr_reader_stats st;
    tr_reader_get_stats(r, &st);
    assert_int_equal(st.per_type[0x3f], 1);
    assert_int_equal(st.bad_records, 0);
    tr_reader_free(r);
    free(b.p);
}

static void test_hostile_inputs(void **state)
{
    (void)state;
    /* garbage, wrong magic */
    bytes g = {(uint8_t *)"hello, this is no trace at all\n", 31};
    assert_int_equal(read_all(&g).fatal, TR_E_NOT_TRACE);
    /* an oversized raw length: refused without allocating */
    const uint8_t raw[] = {0x20, 3, 0, 0, 0};
    bytes b = hand_stream(raw, sizeof raw);
    uint32_t huge = 0xfffffff0u;
    memcpy(b.p + 36 + 8 + 20, &huge, 4);
    recrc(b.p + 36);
    summary s = read_all(&b);
    assert_int_equal(s.errors[-TR_E_TOO_LARGE], 1);
    free(b.p);
    /* a record length past the end of its chunk */
    const uint8_t raw2[] = {0x20, 0x7f, 0, 0};
    b = hand_stream(raw2, sizeof raw2);
    s = read_all(&b);
    assert_int_equal(s.errors[-TR_E_CORRUPT_RECORD], 1);
    assert_int_equal(s.complete_ends, 1);
    free(b.p);
    /* a stack node naming itself as parent (a cycle) is ignored */
    const uint8_t raw3[] = {0x02, 3, 1, 0, 5, 0x03, 3, 1, 1, 1, 0x30, 8, 0, 0, 0, 0, 1, 1, 1, 0};
    b = hand_stream(raw3, sizeof raw3);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0)
        if (rc == 1 && rec.type == TR_REC_SAMPLE) {
            const uint32_t *fr;
            assert_true(tr_reader_stack(r, rec.u.sample.stack, &fr) < 0);
        }
    tr_reader_free(r);
    free(b.p);
    /* random bytes after a valid start frame, many seeds: no crash, no hang */
    uint64_t n = 20;
    bytes v = write_trace(fill_samples, &n, NULL, 1);
    uint64_t x = 88172645463325252ull;
    for (int round = 0; round < 2000; round++) {
        bytes t = {malloc(v.len), v.len};
        memcpy(t.p, v.p, v.len);
        for (int k = 0; k < 1 + round % 8; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            t.p[36 + x % (v.len - 36)] = (uint8_t)(x >> 32);
        }
        read_all(&t);
        free(t.p);
    }
    free(v.p);
}

/* A consumer in a pipe sees records while the writer still runs. */
static void test_streaming_through_a_pipe(void **state)
{
    (void)state;
    int data[2], go[2];
    assert_int_equal(pipe(data), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(data[0]);
        close(go[1]);
        tr_writer *w;
        tr_writer_options o = {.flush_ms = 1};
        if (tr_writer_open(&w, data[1], &o)) _exit(1);
        synth_all_types(w);
        struct timespec ts = {0, 3000000};
        nanosleep(&ts, NULL);
        if (tr_writer_poll(w)) _exit(2); /* due: flushes */
        char c;
        if (read(go[0], &c, 1) != 1) _exit(3); /* wait until the reader saw records */
        tr_writer_finish(w, 0);
        tr_writer_free(w);
        _exit(0);
    }
    close(data[1]);
    close(go[0]);
    tr_reader *r;
    assert_int_equal(tr_reader_open(&r, data[0], NULL), 0);
    tr_record rec;
    int seen_sample = 0, rc;
    while ((rc = tr_reader_next(r, &rec)) == 1) {
        if (rec.type == TR_REC_SAMPLE && !seen_sample) {
            seen_sample = 1;
            assert_int_equal(write(go[1], "g", 1), 1); /* the writer is still running */
        }
        if (rec.type == TR_REC_STREAM_END) assert_int_equal(rec.u.stream_end.complete, 1);
    }
    assert_int_equal(rc, 0);
    assert_true(seen_sample);
    int status;
    waitpid(pid, &status, 0);
    assert_int_equal(WEXITSTATUS(status), 0);
    tr_reader_free(r);
    close(data[0]);
    close(go[1]);
}

static void test_writer_reports_a_closed_pipe(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    int p[2];
    assert_int_equal(pipe(p), 0);
    close(p[0]);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, p[1], NULL), TR_E_EPIPE);
    assert_null(w);
    close(p[1]);
}

static void test_writer_reports_a_full_disk(void **state)
{
    (void)state;
    int fd = open("/dev/full", O_WRONLY);
    assert_true(fd >= 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, NULL), TR_E_NOSPC);
    close(fd);
}

/* A writer killed with SIGKILL mid-stream: every chunk it finished reads. */
static void test_killed_writer_leaves_a_readable_prefix(void **state)
{
    (void)state;
    int fd = memfd_create("k", 0), ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    if (pid == 0) {
        tr_writer *w;
        tr_writer_options o = {.chunk_size = 4096};
        if (tr_writer_open(&w, fd, &o) || synth_samples(w, 5000, 1)) _exit(1);
        if (write(ready[1], "r", 1) != 1) _exit(1);
        for (;;) synth_samples(w, 1000, 2); /* still writing when killed */
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status));
    bytes b;
    b.len = (size_t)lseek(fd, 0, SEEK_END);
    b.p = malloc(b.len);
    assert_int_equal(pread(fd, b.p, b.len, 0), (ssize_t)b.len);
    summary s = read_all(&b);
    assert_true(s.samples >= 4000);            /* all but the chunk being written */
    assert_int_equal(s.complete_ends, 0);
    assert_true(s.last_error == TR_E_TRUNCATED || s.last_error == 0);
    assert_int_equal(s.unresolved_stacks, 0);
    free(b.p);
    close(fd);
    close(ready[0]);
    close(ready[1]);
}

static int fill_meta_then_samples(tr_writer *w, void *arg)
{
    (void)arg;
    int e = tr_writer_meta(w, "host", "first");
    if (!e) e = tr_writer_blob(w, "perf-map:1", "a", 1, 1);
    if (!e) e = synth_samples(w, 1500, 3);
    if (!e) e = tr_writer_meta(w, "host", "second"); /* replaced, repeated at later key chunks */
    if (!e) e = tr_writer_blob(w, "perf-map:1", "bb", 2, 1);
    if (!e) e = synth_samples(w, 1500, 4);
    return e;
}

/* Metadata and sticky blobs survive the loss of the chunk that first held them. */
static void test_sticky_records_repeat_at_key_chunks(void **state)
{
    (void)state;
    tr_writer_options o = {.chunk_size = 1024, .key_interval = 2048};
    bytes b = write_trace(fill_meta_then_samples, NULL, &o, 1);
    uint8_t *c1 = find_frame(b.p, b.len, 0x48435254u, 1);
    uint8_t *c0 = find_frame(b.p, b.len, 0x48435254u, 0);
    memmove(c0, c1, (size_t)(b.p + b.len - c1)); /* lose chunk 0 */
    b.len -= (size_t)(c1 - c0);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {}
    assert_string_equal(tr_reader_meta(r, "host"), "second");
    size_t len;
    const uint8_t *d = tr_reader_blob(r, "perf-map:1", &len);
    assert_non_null(d);
    assert_int_equal(len, 2);
    assert_non_null(tr_reader_event(r, 1));
    tr_reader_free(r);
    free(b.p);
}

static void test_limits_are_enforced_by_the_writer(void **state)
{
    (void)state;
    int fd = memfd_create("t", 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
    size_t big = 9u << 20;
    uint8_t *p = calloc(1, big);
    assert_int_equal(tr_writer_blob(w, "huge", p, big, 0), TR_E_TOO_LARGE);
    tr_record r = {.type = TR_REC_SYSCALL};
    r.u.syscall.nargs = 7;
    assert_int_equal(tr_writer_add(w, &r), TR_E_INVAL);
    r.u.syscall.nargs = 0;
    r.u.syscall.ncaptures = TR_MAX_CAPTURES + 1;
    assert_int_equal(tr_writer_add(w, &r), TR_E_INVAL);
    /* the failures left the stream intact */
    r.u.syscall.ncaptures = 0;
    r.time = 5;
    assert_int_equal(tr_writer_add(w, &r), 0);
    assert_int_equal(tr_writer_finish(w, 0), 0);
    assert_int_equal(tr_writer_finish(w, 0), TR_E_FINISHED);
    tr_writer_free(w);
    free(p);
    bytes b;
    b.len = (size_t)lseek(fd, 0, SEEK_END);
    b.p = malloc(b.len);
    assert_int_equal(pread(fd, b.p, b.len, 0), (ssize_t)b.len);
    summary s = read_all(&b);
    assert_int_equal(s.complete_ends, 1);
    assert_int_equal(s.last_error, 0);
    free(b.p);
    close(fd);
}

static int fill_big_blobs(tr_writer *w, void *arg)
{
    (void)arg;
    size_t n = 6u << 20;
    uint8_t *p = malloc(n);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 2654435761u >> 13); /* poorly compressible */
    int e = tr_writer_blob(w, "a", p, n, 1);
    if (!e) e = tr_writer_blob(w, "b", p, n, 1);
    if (!e) e = tr_writer_blob(w, "c", p, n, 0);
    if (!e) e = synth_samples(w, 10, 1);
    free(p);
    return e;
}

/* Large records never make a chunk a reader would refuse. */
static void test_chunks_stay_within_the_hard_limit(void **state)
{
    (void)state;
    bytes b = write_trace(fill_big_blobs, NULL, NULL, 1);
    summary s = read_all(&b);
    assert_int_equal(s.last_error, 0);
    assert_int_equal(s.complete_ends, 1);
    assert_int_equal(s.samples, 10);
    free(b.p);
}

/* A damaged stream header costs the header, not the stream. */
static void test_damaged_start_frame_still_reads_the_chunks(void **state)
{
    (void)state;
    uint64_t n = 100;
    bytes b = write_trace(fill_samples, &n, NULL, 1);
    b.p[20] ^= 0xff; /* inside the start frame: its crc fails */
    summary s = read_all(&b);
    assert_int_equal(s.errors[-TR_E_CORRUPT_FRAME], 1);
    assert_int_equal(s.samples, 102);
    assert_int_equal(s.complete_ends, 1);
    free(b.p);
}

static void test_poll_flushes_only_when_due(void **state)
{
    (void)state;
    int fd = memfd_create("t", 0);
    tr_writer *w;
    tr_writer_options o = {.flush_ms = 50};
    assert_int_equal(tr_writer_open(&w, fd, &o), 0);
    assert_int_equal(synth_all_types(w), 0);
    tr_writer_stats st;
    assert_int_equal(tr_writer_poll(w), 0);
    tr_writer_get_stats(w, &st);
    assert_int_equal(st.chunks, 0); /* not yet due */
    struct timespec ts = {0, 60000000};
    nanosleep(&ts, NULL);
    assert_int_equal(tr_writer_poll(w), 0);
    tr_writer_get_stats(w, &st);
    assert_int_equal(st.chunks, 1);
    assert_int_equal(tr_writer_poll(w), 0); /* nothing new: no empty chunk */
    tr_writer_get_stats(w, &st);
    assert_int_equal(st.chunks, 1);
    tr_writer_free(w);
    close(fd);
}

static void test_error_messages_cover_every_code(void **state)
{
    (void)state;
    for (int e = 0; e > TR_E_LAST_; e--) {
        assert_non_null(tr_strerror(e));
        assert_string_not_equal(tr_strerror(e), "unknown error");
    }
    assert_string_equal(tr_strerror(-1000), "unknown error");
    assert_string_equal(tr_rec_type_name(TR_REC_SAMPLE), "sample");
    assert_int_equal(tr_rec_type_from_name("syscall"), TR_REC_SYSCALL);
    assert_null(tr_rec_type_name(0x55));
}

/* ---- stack copies delta-coded (format 1.1, STACK_DELTA) ---- */

/* Samples of three threads whose copies keep the stack's outer bytes while
 * the inner ones change; some end below the top (deep stacks), some have
 * no copy; COMM records in between. */
static int fill_stack_copies(tr_writer *w, void *arg)
{
    (void)arg;
    static uint8_t stack[3][8192];
    uint64_t s = 99;
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < sizeof stack[t]; i++) stack[t][i] = (uint8_t)(i * 31 + (size_t)t);
    tr_record r;
    memset(&r, 0, sizeof r);
    r.time = 1000;
    for (int i = 0; i < 3000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int t = (int)(s >> 60) % 3;
        size_t sp = 64 + (size_t)(s >> 20) % 8000, changed = (size_t)(s >> 8) % 200, len = 8192 - sp;
        for (size_t k = 0; k < changed && sp + k < 8192; k += 3) stack[t][sp + k] = (uint8_t)(s >> (k % 56));
        if (i % 23 == 2) len /= 2;
        if (i % 11 == 7) len = 0;
        r.type = TR_REC_SAMPLE;
        r.pid = 10;
        r.tid = 10 + t;
        r.time += 1000;
        r.u.sample.event = 0;
        r.u.sample.period = 1;
        r.u.sample.abi = len ? 2 : 0;
        r.u.sample.regs_mask = len ? 0x80 : 0;
        r.u.sample.nregs = len ? 1 : 0;
        r.u.sample.regs[0] = 0x7ff0000 + sp;
        r.u.sample.stack_copy = len ? stack[t] + sp : NULL;
        r.u.sample.stack_copy_len = len;
        int e = tr_writer_add(w, &r);
        if (e) return e;
        if (i % 100 == 50) {
            tr_record c = {.type = TR_REC_COMM, .time = r.time, .pid = 10, .tid = 10, .cpu = 0};
            c.u.comm.comm = "x";
            c.u.comm.len = 1;
            if ((e = tr_writer_add(w, &c))) return e;
        }
    }
    return 0;
}

/* Every sample's stack copy (length, then bytes) and the stream's
 * incompatible flags, in the order read; errors counted by code. */
typedef struct {
    uint8_t *copies;
    size_t len, nsamples;
    uint32_t incompat;
    int errors[32];
} copies;

static copies read_copies(const bytes *b)
{
    copies c = {malloc(1), 0, 0, 0, {0}};
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, b->p, b->len, NULL), 0);
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            c.errors[-rc]++;
            if (!tr_error_recoverable(rc)) break;
            continue;
        }
        if (rec.type == TR_REC_STREAM_START) c.incompat = rec.u.stream_start.incompat;
        if (rec.type != TR_REC_SAMPLE) continue;
        size_t n = rec.u.sample.stack_copy_len;
        c.copies = realloc(c.copies, c.len + 16 + n);
        memcpy(c.copies + c.len, &rec.time, 8);
        memcpy(c.copies + c.len + 8, &n, 8);
        if (n) memcpy(c.copies + c.len + 16, rec.u.sample.stack_copy, n);
        c.len += 16 + n;
        c.nsamples++;
    }
    tr_reader_free(r);
    return c;
}

static void test_stack_copies_delta_coded(void **state)
{
    (void)state;
    tr_writer_options plain = {.chunk_size = 256 << 10}, delta = plain;
    delta.stack_delta = 1;
    bytes p = write_trace(fill_stack_copies, NULL, &plain, 1);
    bytes d = write_trace(fill_stack_copies, NULL, &delta, 1);
    copies cp = read_copies(&p), cd = read_copies(&d);
    assert_int_equal(cp.incompat, 0);
    assert_int_equal(cd.incompat, TR_INCOMPAT_STACK_DELTA);
    assert_int_equal(cp.nsamples, 3000);
    assert_int_equal(cd.nsamples, 3000);
    /* the same copies, byte for byte */
    assert_int_equal(cd.len, cp.len);
    assert_memory_equal(cd.copies, cp.copies, cp.len);
    for (int i = 0; i < 32; i++) assert_int_equal(cd.errors[i], 0);
    /* a fraction of the bytes to decompress */
    tr_reader *r;
    tr_reader_stats sp, sd;
    assert_int_equal(tr_reader_open_mem(&r, p.p, p.len, NULL), 0);
    while (tr_reader_next(r, &(tr_record){0}) > 0) {}
    tr_reader_get_stats(r, &sp);
    tr_reader_free(r);
    assert_int_equal(tr_reader_open_mem(&r, d.p, d.len, NULL), 0);
    while (tr_reader_next(r, &(tr_record){0}) > 0) {}
    tr_reader_get_stats(r, &sd);
    tr_reader_free(r);
    assert_true(sd.raw_bytes * 4 < sp.raw_bytes);
    assert_true(sd.chunks > 4); /* images were emptied at chunk starts */

    /* a chunk lost: the chunks after it still give the right copies */
    size_t offs[64], nch = 0;
    for (size_t i = 0; i + 12 <= d.len && nch < 64; i++)
        if (!memcmp(d.p + i, "\x5e\x2a\x4d\x18", 4) && !memcmp(d.p + i + 8, "TRCH", 4)) offs[nch++] = i;
    assert_true(nch >= 4);
    bytes cut = {malloc(d.len), 0};
    memcpy(cut.p, d.p, offs[2]);
    memcpy(cut.p + offs[2], d.p + offs[3], d.len - offs[3]);
    cut.len = offs[2] + d.len - offs[3];
    copies cc = read_copies(&cut);
    assert_int_equal(cc.errors[-TR_E_LOST_CHUNKS], 1);
    assert_int_equal(cc.errors[-TR_E_CORRUPT_RECORD], 0);
    assert_true(cc.nsamples < 3000 && cc.nsamples > 1000);
    /* every copy read is the plain stream's copy at that time */
    for (size_t i = 0, j = 0; i < cc.len;) {
        uint64_t n;
        memcpy(&n, cc.copies + i + 8, 8);
        while (j < cp.len && memcmp(cp.copies + j, cc.copies + i, 8)) {
            uint64_t m;
            memcpy(&m, cp.copies + j + 8, 8);
            j += 16 + m;
        }
        assert_true(j < cp.len);
        assert_memory_equal(cp.copies + j, cc.copies + i, 16 + n);
        i += 16 + n;
    }
    free(cc.copies);
    free(cut.p);
    free(cp.copies);
    free(cd.copies);
    free(p.p);
    free(d.p);
}

static void test_stack_delta_hostile_records(void **state)
{
    (void)state;
    const uint8_t raw[] = {
        0x30, 13, 0, 2, 2, 0, 1, 1, 0, 2, 4, 'a', 'b', 'c', 'd', /* tid 1: "abcd" */
        0x30, 12, 0, 2, 2, 0, 1, 1, 0, 10, 2, 'x', 'y', 3,       /* tid 1: "xy" + "bcd" */
        0x30, 9, 0, 2, 4, 0, 1, 1, 0, 8, 1,                      /* tid 2: 1 byte of nothing */
    };
    for (int flagged = 0; flagged < 2; flagged++) {
        bytes b = hand_stream(raw, sizeof raw);
        b.p[20] = (uint8_t)flagged;
        recrc(b.p);
        tr_reader *r;
        assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
        tr_record rec;
        int rc, samples = 0, bad = 0;
        while ((rc = tr_reader_next(r, &rec)) != 0) {
            if (rc == TR_E_CORRUPT_RECORD) bad++;
            else assert_true(rc > 0);
            if (rc > 0 && rec.type == TR_REC_SAMPLE) {
                samples++;
                if (samples == 1) assert_memory_equal(rec.u.sample.stack_copy, "abcd", 4);
                if (samples == 2) {
                    assert_int_equal(rec.u.sample.stack_copy_len, 5);
                    assert_memory_equal(rec.u.sample.stack_copy, "xybcd", 5);
                }
            }
        }
        /* flagged: two samples, the third refused; unflagged: a continued
         * copy is malformed from the second on */
        assert_int_equal(samples, flagged ? 2 : 1);
        assert_int_equal(bad, 1);
        tr_reader_free(r);
        free(b.p);
    }
}

/* ---- stack copies placed by address (1.2, STACK_ADDR) ---- */

/* Three threads' copies of a fixed size from the stack pointer, as perf
 * takes them of threads: the copy does not end where the stack ends, and
 * its top (the thread's own data) changes at every sample. */
static int fill_thread_windows(tr_writer *w, void *arg)
{
    (void)arg;
    enum { SPAN = 16384, WINDOW = 4096 };
    static uint8_t mem[3][SPAN];
    uint64_t s = 7;
    tr_event_def d = {.kind = TR_EV_SOFTWARE, .sample_value = 999, .flags = TR_EVF_FREQ | TR_EVF_DWARF,
                      .name = "cpu-clock", .name_len = 9};
    uint32_t ev;
    int e = tr_writer_event(w, &d, &ev);
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < SPAN; i++) mem[t][i] = (uint8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56);
    for (uint64_t i = 0; i < 3000 && !e; i++) {
        int t = (int)(i % 3);
        size_t sp = SPAN - WINDOW - 512 + (size_t)(s >> 40) % 512; /* the stack pointer moves */
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        for (size_t k = 0; k < 96; k++) mem[t][sp + k] = (uint8_t)(s >> (k % 56)); /* the leaf frames change */
        for (size_t k = SPAN - 1024; k < SPAN - 960; k++) mem[t][k] = (uint8_t)i; /* and data above them */
        size_t len = WINDOW;
        tr_record r = {.type = TR_REC_SAMPLE, .time = 1000 + i, .pid = 5, .tid = 5 + t, .cpu = 0};
        r.u.sample.event = ev;
        r.u.sample.period = 1;
        r.u.sample.stack_copy = mem[t] + sp;
        r.u.sample.stack_copy_len = len;
        r.u.sample.stack_copy_addr = 0x7f0000000000ull + (uint64_t)t * 0x100000 + sp;
        e = tr_writer_add(w, &r);
    }
    return e;
}

static uint64_t raw_bytes(const bytes *b)
{
    tr_reader *r;
    tr_reader_stats st;
    assert_int_equal(tr_reader_open_mem(&r, b->p, b->len, NULL), 0);
    while (tr_reader_next(r, &(tr_record){0}) > 0) {}
    tr_reader_get_stats(r, &st);
    tr_reader_free(r);
    return st.raw_bytes;
}

static void test_stack_copies_placed_by_address(void **state)
{
    (void)state;
    tr_writer_options plain = {.chunk_size = 256 << 10}, ends = plain, addr = plain;
    ends.stack_delta = 1;
    addr.stack_delta = 2;
    bytes p = write_trace(fill_thread_windows, NULL, &plain, 1), e = write_trace(fill_thread_windows, NULL, &ends, 1),
          a = write_trace(fill_thread_windows, NULL, &addr, 1);
    copies cp = read_copies(&p), ca = read_copies(&a);
    assert_int_equal(ca.incompat, TR_INCOMPAT_STACK_DELTA | TR_INCOMPAT_STACK_ADDR);
    assert_int_equal(ca.nsamples, 3000);
    for (int i = 0; i < 32; i++) assert_int_equal(ca.errors[i], 0);
    /* the same copies, byte for byte */
    assert_int_equal(ca.len, cp.len);
    assert_memory_equal(ca.copies, cp.copies, cp.len);
    /* aligned at their ends these copies share next to nothing; by address, most */
    uint64_t rp = raw_bytes(&p), re = raw_bytes(&e), ra = raw_bytes(&a);
    assert_true(re * 10 > rp * 9);
    assert_true(ra * 2 < rp);
    free(cp.copies);
    free(ca.copies);
    free(p.p);
    free(e.p);
    free(a.p);
}

/* ---- chunks compressed on the writer's own thread ---- */

/* With compress_thread the stream is the same, byte for byte after the start
 * frame (whose stream id differs), and so are the writer's counts. */
static void test_compress_thread_writes_the_same_stream(void **state)
{
    (void)state;
    tr_writer_options one = {.chunk_size = 64 << 10, .stack_delta = 2}, two = one;
    two.compress_thread = 1;
    bytes a = write_trace(fill_thread_windows, NULL, &one, 1), b = write_trace(fill_thread_windows, NULL, &two, 1);
    enum { START = 8 + 28 };
    assert_non_null(find_frame(a.p, a.len, 0x48435254u, 5)); /* many chunks */
    assert_int_equal(b.len, a.len);
    assert_memory_equal(b.p + START, a.p + START, a.len - START);
    free(a.p);
    free(b.p);
}

/* A write error on the thread comes back from a later call, and every call
 * after it returns it too. */
static void test_compress_thread_reports_a_closed_pipe(void **state)
{
    (void)state;
    signal(SIGPIPE, SIG_IGN);
    int p[2];
    assert_int_equal(pipe(p), 0);
    tr_writer *w;
    tr_writer_options o = {.chunk_size = 4096, .compress_thread = 1};
    assert_int_equal(tr_writer_open(&w, p[1], &o), 0);
    close(p[0]);
    int e = fill_thread_windows(w, NULL);
    if (!e) e = tr_writer_flush(w);
    assert_int_equal(e, TR_E_EPIPE);
    assert_int_equal(tr_writer_finish(w, 0), TR_E_EPIPE);
    tr_writer_free(w);
    close(p[1]);
}

/* A compressor that cannot write (a full pipe: a reader or disk that stalls, a compressor
 * without CPU) does not stop the caller, a recorder that must drain kernel buffers: dozens of
 * chunks queue up (the queue was four chunks).  Should the caller block, SIGALRM drains the
 * pipe, so that the test fails instead of hanging. */
static int stalled_pipe = -1;
static volatile sig_atomic_t had_to_drain;

static void drain_stalled_pipe(int sig)
{
    (void)sig;
    char junk[65536];
    had_to_drain = 1;
    fcntl(stalled_pipe, F_SETFL, O_NONBLOCK);
    while (read(stalled_pipe, junk, sizeof junk) > 0) continue;
    alarm(1);
}

/* n synthetic samples written through a pipe that is full until all are added; *drained
 * says whether the caller blocked (SIGALRM had to drain the pipe). */
static tr_writer_stats write_stalled(const tr_writer_options *o, uint64_t n, int *drained)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, p[1], o), 0); /* the start frame, written now */
    char junk[4096] = {0};
    assert_int_equal(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
    while (write(p[1], junk, sizeof junk) > 0) continue; /* full */
    assert_int_equal(fcntl(p[1], F_SETFL, 0), 0);          /* the compressor's writes block */
    stalled_pipe = p[0];
    had_to_drain = 0;
    signal(SIGALRM, drain_stalled_pipe);
    alarm(60); /* a writer that blocks is caught; a slow one (ASan on a loaded machine: a 16 MiB
                * test took over 10 s once) is not */
    assert_int_equal(synth_samples(w, n, 5), 0); /* none written yet */
    alarm(0);
    *drained = had_to_drain;
    pid_t reader = fork();
    if (reader == 0) {
        close(p[1]);
        fcntl(p[0], F_SETFL, 0);
        while (read(p[0], junk, sizeof junk) > 0) continue;
        _exit(0);
    }
    close(p[0]);
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_stats st;
    tr_writer_get_stats(w, &st);
    tr_writer_free(w);
    close(p[1]);
    int ws;
    assert_int_equal(waitpid(reader, &ws, 0), reader);
    signal(SIGALRM, SIG_DFL);
    return st;
}

static void test_compress_thread_queues_while_the_pipe_is_full(void **state)
{
    (void)state;
    int drained;
    tr_writer_options o = {.chunk_size = 4096, .compress_thread = 1};
    tr_writer_stats st = write_stalled(&o, 6000, &drained);
    assert_true(st.chunks > 20);
    assert_int_equal(drained, 0);
}

/* compress_thread 2: the compressor runs at a nice value 10 above the caller's. */
static void test_compress_thread_below_the_caller(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    tr_writer *w;
    tr_writer_options o = {.compress_thread = 2};
    assert_int_equal(tr_writer_open(&w, p[1], &o), 0);
    assert_int_equal(tr_writer_meta(w, "k", "v"), 0);
    assert_int_equal(tr_writer_flush(w), 0); /* the thread ran: its nice is set */
    int mine = getpriority(PRIO_PROCESS, 0), below = 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)getpid());
    DIR *d = opendir(path);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && atoi(e->d_name) != gettid() &&
            getpriority(PRIO_PROCESS, (id_t)atoi(e->d_name)) == (mine + 10 > 19 ? 19 : mine + 10))
            below++;
    closedir(d);
    assert_int_equal(below, 1);
    tr_writer_free(w);
    close(p[0]);
    close(p[1]);
}

static int fill_n_samples(tr_writer *w, void *arg)
{
    return synth_samples(w, *(uint64_t *)arg, 5);
}

/* A compressor 8 MiB behind compresses faster (zstd's --fast=20): more bytes than the same
 * chunks written as they come. */
static void test_compress_thread_catches_up_faster(void **state)
{
    (void)state;
    int drained;
    uint64_t n = 1000000; /* 16 MiB of raw records */
    tr_writer_options o = {.chunk_size = 1 << 20, .compress_thread = 1}, inline_ = o;
    tr_writer_stats st = write_stalled(&o, n, &drained);
    /* the same chunks compressed as they come, never behind (with a thread, a
     * loaded machine could leave it 8 MiB behind here too) */
    inline_.compress_thread = 0;
    bytes b = write_trace(fill_n_samples, &n, &inline_, 1);
    assert_int_equal(drained, 0);
    assert_true(st.raw_bytes > (10u << 20));
    assert_true(st.compressed_bytes > b.len + b.len / 10);
    free(b.p);
}

/* A compressor that gets no CPU (here: its writes block on a full pipe) does
 * not stop the caller at 64 MiB of raw records: past 16 MiB queued the caller
 * compresses its chunks itself, and the queue holds their frames. */
static void test_compress_thread_caller_compresses_when_far_behind(void **state)
{
    (void)state;
    int drained;
    uint64_t n = 4250000; /* 68 MiB of raw records, 58 MiB queued (these compress 1.2:1 at --fast=20) */
    tr_writer_options o = {.chunk_size = 1 << 20, .compress_thread = 2};
    tr_writer_stats st = write_stalled(&o, n, &drained);
    assert_int_equal(drained, 0);
    assert_true(st.raw_bytes > (66u << 20));
    bytes b = write_trace(fill_n_samples, &n, &o, 1);
    summary s = read_all(&b);
    assert_int_equal(s.samples, n);
    for (int i = 0; i < 32; i++) assert_int_equal(s.errors[i], 0);
    free(b.p);
}

/* Chunks under 16 KiB at small_level: smaller, and they read the same. */
static void test_small_chunks_at_their_own_level(void **state)
{
    (void)state;
    uint64_t seed = 3;
    tr_writer_options fast = {.level = 1, .chunk_size = 8 << 10}, small = fast;
    small.small_level = 19;
    bytes a = write_trace(fill_samples, &seed, &fast, 1), b = write_trace(fill_samples, &seed, &small, 1);
    assert_true(b.len < a.len);
    summary sa = read_all(&a), sb = read_all(&b);
    assert_int_equal(sb.records, sa.records);
    assert_int_equal(sb.samples, sa.samples);
    assert_int_equal(sb.unresolved_stacks, 0);
    for (int i = 0; i < 32; i++) assert_int_equal(sb.errors[i], 0);
    free(a.p);
    free(b.p);
}

static void test_stack_addr_hostile_records(void **state)
{
    (void)state;
    /* sflags 0x12: bytes placed at 0x1000 (tail 0); then 0x1a: kept 2 between written bytes */
    const uint8_t raw[] = {
        0x30, 16, 0, 2, 2, 0, 1, 1, 0, 0x12, 4, 'a', 'b', 'c', 'd', 0x80, 0x20, 0,       /* "abcd" at 0x1000 */
        0x30, 15, 0, 2, 2, 0, 1, 1, 0, 0x1a, 2, 'x', 'y', 2, 0x81, 0x20, 1,            /* "x" "cd" "y" at 0x1001 */
        0x30, 15, 0, 2, 2, 0, 1, 1, 0, 0x1a, 2, 'x', 'y', 2, 0x84, 0x20, 0,            /* kept at 0x1006: past the image */
    };
    for (int flagged = 0; flagged < 2; flagged++) {
        bytes b = hand_stream(raw, sizeof raw);
        b.p[20] = (uint8_t)(flagged ? TR_INCOMPAT_STACK_DELTA | TR_INCOMPAT_STACK_ADDR : TR_INCOMPAT_STACK_DELTA);
        recrc(b.p);
        tr_reader *r;
        assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, NULL), 0);
        tr_record rec;
        int rc, samples = 0, bad = 0;
        while ((rc = tr_reader_next(r, &rec)) != 0) {
            if (rc == TR_E_CORRUPT_RECORD) bad++;
            else assert_true(rc > 0);
            if (rc > 0 && rec.type == TR_REC_SAMPLE) {
                samples++;
                assert_int_equal(rec.u.sample.stack_copy_addr, samples == 1 ? 0x1000 : 0x1001);
                if (samples == 1) assert_memory_equal(rec.u.sample.stack_copy, "abcd", 4);
                if (samples == 2) {
                    assert_int_equal(rec.u.sample.stack_copy_len, 4);
                    assert_memory_equal(rec.u.sample.stack_copy, "xcdy", 4);
                }
            }
        }
        /* flagged: two samples, the third refused; without STACK_ADDR the
         * first is malformed already */
        assert_int_equal(samples, flagged ? 2 : 0);
        assert_int_equal(bad, 1);
        tr_reader_free(r);
        free(b.p);
    }
}

/* ---- stack runs, thread stacks, the stack limit (1.2) ---- */

/* Deep, varied stacks of a few threads: a random walk through 8 "functions"
 * (two call sites each), 20 to 90 frames, outer frames shared with the
 * thread's previous stack now and then, as a recursion's are. */
typedef struct {
    uint64_t n;  /* samples */
    int thread;  /* 1: tr_writer_thread_stack, 0: tr_writer_stack_addrs */
} deep_arg;

static uint64_t deep_addr(uint64_t *s, int k)
{
    (void)k;
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return 0x401000 + (*s % 8) * 0x40 + (*s >> 8) % 2 * 8;
}

static int fill_deep(tr_writer *w, void *arg)
{
    const deep_arg *a = arg;
    tr_event_def d = {.kind = TR_EV_SOFTWARE, .sample_value = 999, .flags = TR_EVF_FREQ | TR_EVF_CALLCHAIN,
                      .name = "cpu-clock", .name_len = 9};
    uint32_t ev;
    int e = tr_writer_event(w, &d, &ev);
    uint64_t s = 88172645463325252ull, addrs[3][100];
    size_t depth[3] = {0, 0, 0};
    for (uint64_t i = 0; i < a->n && !e; i++) {
        int t = (int)(i % 3);
        size_t n = 20 + (size_t)(deep_addr(&s, 0) % 71), keep = depth[t] ? (size_t)(s >> 20) % depth[t] : 0;
        if (keep > n) keep = n;
        /* addrs[t][0] is the leaf: keep the outer `keep` frames of the last stack */
        uint64_t prev[100];
        memcpy(prev, addrs[t], sizeof prev);
        for (size_t k = 0; k < n; k++)
            addrs[t][k] = k >= n - keep ? prev[depth[t] - (n - k)] : deep_addr(&s, (int)k);
        depth[t] = n;
        tr_record r = {.type = TR_REC_SAMPLE, .time = 1000 + i, .pid = 10, .tid = 10 + t, .cpu = 0};
        r.u.sample.event = ev;
        r.u.sample.period = 1;
        e = a->thread ? tr_writer_thread_stack(w, r.pid, r.tid, addrs[t], NULL, n, &r.u.sample.stack)
                      : tr_writer_stack_addrs(w, addrs[t], NULL, n, &r.u.sample.stack);
        if (!e) e = tr_writer_add(w, &r);
    }
    return e;
}

/* Every sample's frames as addresses, leaf first, 0 between samples; and
 * the STACK records delivered. */
typedef struct {
    uint64_t *v;
    size_t n, cap;
    int stack_defs, frame_defs, runs;
    uint64_t forgets;
} stack_list;

static void push(stack_list *l, uint64_t x)
{
    if (l->n == l->cap) assert_non_null(l->v = realloc(l->v, (l->cap = l->cap ? 2 * l->cap : 4096) * sizeof *l->v));
    l->v[l->n++] = x;
}

static stack_list read_stacks(const bytes *b, int keep_definitions)
{
    stack_list l = {0};
    tr_reader *r;
    tr_reader_options o = {.keep_definitions = keep_definitions};
    assert_int_equal(tr_reader_open_mem(&r, b->p, b->len, &o), 0);
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        assert_true(rc > 0);
        if (rec.type == TR_REC_STACK) l.stack_defs++;
        if (rec.type == TR_REC_FRAME) l.frame_defs++;
        if (rec.type != TR_REC_SAMPLE) continue;
        const uint32_t *fr;
        int n = tr_reader_stack(r, rec.u.sample.stack, &fr);
        assert_true(n > 0);
        for (int i = 0; i < n; i++) {
            uint32_t parent, frame;
            const tr_frame *f = tr_reader_frame(r, fr[i]);
            assert_non_null(f);
            push(&l, f->addr);
            if (i == 0) { /* the node view agrees with the materialised stack */
                assert_int_equal(tr_reader_stack_node(r, rec.u.sample.stack, &parent, &frame), 0);
                assert_int_equal(frame, fr[0]);
            }
        }
        push(&l, 0);
    }
    tr_reader_stats st;
    tr_reader_get_stats(r, &st);
    l.runs = (int)(st.per_type[TR_REC_STACK_RUN] + st.per_type[TR_REC_STACK_CHAIN]);
    l.forgets = tr_reader_stack_forgets(r);
    assert_int_equal(st.unresolved_refs, 0);
    tr_reader_free(r);
    return l;
}

static void test_stack_runs_read_as_stack_records(void **state)
{
    (void)state;
    deep_arg a = {3000, 0};
    tr_writer_options plain = {.chunk_size = 16384, .key_interval = 65536};
    tr_writer_options runs = plain;
    runs.stack_runs = 1;
    bytes b0 = write_trace(fill_deep, &a, &plain, 1), b1 = write_trace(fill_deep, &a, &runs, 1);
    assert_int_equal(b0.p[20] & TR_INCOMPAT_STACK_RUNS, 0);
    assert_int_equal(b1.p[20] & TR_INCOMPAT_STACK_RUNS, TR_INCOMPAT_STACK_RUNS);
    for (int keep = 0; keep < 3; keep++) {
        stack_list l0 = read_stacks(&b0, keep), l1 = read_stacks(&b1, keep);
        assert_int_equal(l0.n, l1.n);
        assert_memory_equal(l0.v, l1.v, l0.n * sizeof *l0.v);
        assert_int_equal(l0.runs, 0);
        assert_true(l1.runs > 0);
        /* runs are delivered node by node, as STACK records (their number
         * differs: key chunks fall elsewhere in the smaller stream) */
        if (keep == 1) assert_true(l1.stack_defs > 3 * l1.runs && l0.stack_defs > 3 * l1.runs);
        else assert_true(l0.stack_defs == 0 && l1.stack_defs == 0);
        /* keep_definitions 2: the other definitions only */
        assert_true(keep ? l0.frame_defs > 0 && l1.frame_defs > 0 : l0.frame_defs + l1.frame_defs == 0);
        free(l0.v);
        free(l1.v);
    }
    /* fewer bytes: ids and parents are implied */
    assert_true(b1.len * 4 < b0.len * 3);
    free(b0.p);
    free(b1.p);
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7) p[n++] = (uint8_t)(v | 0x80);
    p[n++] = (uint8_t)v;
    return n;
}

/* A run, or a chain, redefining nodes keeps their first definitions,
 * whether the table holds them in its dense part or apart (an id far ahead
 * when it came); a frame the chain defines on the way is delivered once
 * (keep_definitions 1 and 2), its node absorbed after it. */
static void first_definitions_kept(int chain)
{
    static uint8_t raw[8192];
    size_t n = 0;
    const uint32_t stacks[][3] = {{1, 0, 1}, {70000, 0, 9}, {3, 0, 7}}; /* 70000: far ahead of 2 nodes */
    for (int i = 0; i < 3; i++) {
        uint8_t body[16];
        size_t k = 0;
        for (int j = 0; j < 3; j++) k += put_varint(body + k, stacks[i][j]);
        raw[n++] = TR_REC_STACK;
        raw[n++] = (uint8_t)k;
        memcpy(raw + n, body, k);
        n += k;
    }
    /* runs: ids 2..4 below node 1 (3 defined), ids 67700..70001 (70000 defined) */
    const uint32_t runs[][3] = {{2, 1, 3}, {67700, 1, 2302}};
    for (int i = 0; i < 2; i++) {
        uint8_t body[4096];
        size_t k = 0;
        if (!chain) {
            for (int j = 0; j < 3; j++) k += put_varint(body + k, runs[i][j]);
            memset(body + k, 4, runs[i][2]); /* frame 4 each */
            k += runs[i][2];
        } else { /* the same as chains: first relative to the last node (4 after the first), first - parent */
            k += put_varint(body + k, 2 * (runs[i][0] - (i ? 4 : 0) - 1));
            k += put_varint(body + k, runs[i][0] - runs[i][1]);
            k += put_varint(body + k, runs[i][2]);
            for (uint32_t j = 0; j < runs[i][2]; j++) {
                if (!i && j == 2) { /* node 4 defines frame 1 (0 x1234, raw) */
                    const uint8_t def[] = {0, 0, 0xb4, 0x24};
                    memcpy(body + k, def, sizeof def);
                    k += sizeof def;
                } else { /* frame 4: first, 0 + 1 + 3; after frame 1, 1 + 1 + 2; after frame 4, +0 (zigzag(-1) = 1) */
                    body[k++] = (uint8_t)(2 + (!i && !j ? 6 : i && !j ? 4 : 1));
                }
            }
        }
        raw[n++] = chain ? TR_REC_STACK_CHAIN : TR_REC_STACK_RUN;
        n += put_varint(raw + n, k);
        memcpy(raw + n, body, k);
        n += k;
    }
    bytes b = hand_stream(raw, n);
    for (int keep = 0; keep < 3; keep++) {
        tr_reader *r;
        tr_reader_options o = {.keep_definitions = keep};
        assert_int_equal(tr_reader_open_mem(&r, b.p, b.len, &o), 0);
        tr_record rec;
        int rc, frames = 0;
        while ((rc = tr_reader_next(r, &rec)) != 0) {
            assert_true(rc > 0);
            if (rec.type == TR_REC_FRAME) {
                frames++;
                assert_int_equal(rec.u.frame.id, 1);
                assert_int_equal(rec.u.frame.frame.addr, 0x1234);
            }
        }
        assert_int_equal(frames, chain && keep);
        if (chain) assert_int_equal(tr_reader_frame(r, 1)->addr, 0x1234);
        const uint32_t want[][3] = {{2, 1, 4}, {3, 0, 7}, {4, 3, chain ? 1 : 4}, {67700, 1, 4}, {69999, 69998, 4},
                                    {70000, 0, 9}, {70001, 70000, 4}};
        for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
            uint32_t parent, frame;
            assert_int_equal(tr_reader_stack_node(r, want[i][0], &parent, &frame), 0);
            assert_int_equal(parent, want[i][1]);
            assert_int_equal(frame, want[i][2]);
        }
        tr_reader_stats st;
        tr_reader_get_stats(r, &st);
        assert_int_equal(st.bad_records, 0);
        tr_reader_free(r);
    }
    free(b.p);
}

static void test_stack_runs_keep_first_definitions(void **state)
{
    (void)state;
    first_definitions_kept(0);
    first_definitions_kept(1);
}

/* STACK_CHAIN records (1.4) read as the STACK_RUN records and the FRAME
 * records they replace, whatever the reader delivers, across key chunks
 * (which define old frames again, by explicit id) and forgets; and take
 * fewer bytes. */
static void test_stack_chains_read_as_runs(void **state)
{
    (void)state;
    for (int thread = 0; thread < 2; thread++) {
        deep_arg a = {3000, thread};
        tr_writer_options runs = {.chunk_size = 16384, .key_interval = 65536, .stack_runs = 1,
                                  .stack_limit = thread ? 500 : 0};
        tr_writer_options chains = runs;
        chains.stack_runs = 2;
        bytes b1 = write_trace(fill_deep, &a, &runs, 1), b2 = write_trace(fill_deep, &a, &chains, 1);
        assert_int_equal(b2.p[20], TR_INCOMPAT_STACK_CHAINS);
        for (int keep = 0; keep < 3; keep++) {
            stack_list l1 = read_stacks(&b1, keep), l2 = read_stacks(&b2, keep);
            assert_int_equal(l1.n, l2.n);
            assert_memory_equal(l1.v, l2.v, l1.n * sizeof *l1.v);
            assert_true(l2.runs > 0);
            if (keep == 1) assert_true(l2.stack_defs > 3 * l2.runs);
            else assert_int_equal(l2.stack_defs, 0);
            /* the frames a chain defines are delivered as FRAME records */
            if (keep) assert_true(l2.frame_defs >= l1.frame_defs / 2);
            else assert_int_equal(l2.frame_defs, 0);
            if (thread) assert_true(l2.forgets > 5);
            else assert_int_equal(l2.forgets, 0);
            free(l1.v);
            free(l2.v);
        }
        assert_true(b2.len < b1.len);
        free(b1.p);
        free(b2.p);
    }
}

static void test_thread_stacks_read_as_stack_addrs(void **state)
{
    (void)state;
    deep_arg a0 = {2000, 0}, a1 = {2000, 1};
    tr_writer_options o = {.stack_runs = 1};
    bytes b0 = write_trace(fill_deep, &a0, &o, 1), b1 = write_trace(fill_deep, &a1, &o, 1);
    stack_list l0 = read_stacks(&b0, 0), l1 = read_stacks(&b1, 0);
    assert_int_equal(l0.n, l1.n);
    assert_memory_equal(l0.v, l1.v, l0.n * sizeof *l0.v);
    free(l0.v);
    free(l1.v);
    free(b0.p);
    free(b1.p);
}

static void test_stack_limit_forgets_and_stacks_still_read(void **state)
{
    (void)state;
    deep_arg a = {3000, 1};
    tr_writer_options all = {.stack_runs = 1}, limited = {.stack_runs = 1, .stack_limit = 500};
    bytes b0 = write_trace(fill_deep, &a, &all, 1), b1 = write_trace(fill_deep, &a, &limited, 1);
    stack_list l0 = read_stacks(&b0, 1), l1 = read_stacks(&b1, 1);
    assert_int_equal(l0.n, l1.n);
    assert_memory_equal(l0.v, l1.v, l0.n * sizeof *l0.v);
    /* forgotten stacks are defined again, under new ids, and the reader
     * drops the old ones each time */
    assert_true(l1.stack_defs > l0.stack_defs);
    assert_int_equal(l0.forgets, 0);
    assert_true(l1.forgets > 10);
    free(l0.v);
    free(l1.v);
    free(b0.p);
    free(b1.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_type),
        cmocka_unit_test(test_records_skimmed_without_a_reader),
        cmocka_unit_test(test_switch_round_trip),
        cmocka_unit_test(test_interning_gives_stable_ids),
        cmocka_unit_test(test_every_truncation_reads_its_complete_part),
        cmocka_unit_test(test_corrupt_chunk_is_skipped_and_reading_resumes),
        cmocka_unit_test(test_lost_chunk_recovers_at_next_key_chunk),
        cmocka_unit_test(test_concatenated_streams),
        cmocka_unit_test(test_version_rules),
        cmocka_unit_test(test_unknown_types_and_fields_are_skipped),
        cmocka_unit_test(test_hostile_inputs),
        cmocka_unit_test(test_streaming_through_a_pipe),
        cmocka_unit_test(test_writer_reports_a_closed_pipe),
        cmocka_unit_test(test_writer_reports_a_full_disk),
        cmocka_unit_test(test_killed_writer_leaves_a_readable_prefix),
        cmocka_unit_test(test_sticky_records_repeat_at_key_chunks),
        cmocka_unit_test(test_limits_are_enforced_by_the_writer),
        cmocka_unit_test(test_poll_flushes_only_when_due),
        cmocka_unit_test(test_chunks_stay_within_the_hard_limit),
        cmocka_unit_test(test_damaged_start_frame_still_reads_the_chunks),
        cmocka_unit_test(test_error_messages_cover_every_code),
        cmocka_unit_test(test_stack_copies_delta_coded),
        cmocka_unit_test(test_stack_delta_hostile_records),
        cmocka_unit_test(test_stack_copies_placed_by_address),
        cmocka_unit_test(test_stack_addr_hostile_records),
        cmocka_unit_test(test_compress_thread_writes_the_same_stream),
        cmocka_unit_test(test_compress_thread_reports_a_closed_pipe),
        cmocka_unit_test(test_compress_thread_queues_while_the_pipe_is_full),
        cmocka_unit_test(test_compress_thread_catches_up_faster),
        cmocka_unit_test(test_compress_thread_caller_compresses_when_far_behind),
        cmocka_unit_test(test_compress_thread_below_the_caller),
        cmocka_unit_test(test_small_chunks_at_their_own_level),
        cmocka_unit_test(test_stack_runs_read_as_stack_records),
        cmocka_unit_test(test_stack_runs_keep_first_definitions),
        cmocka_unit_test(test_stack_nodes_at_once),
        cmocka_unit_test(test_frames_new_read_as_interned),
        cmocka_unit_test(test_keep_definitions_3),
        cmocka_unit_test(test_defs_gen_follows_meta_and_blobs),
        cmocka_unit_test(test_plain_samples_round_trip),
        cmocka_unit_test(test_relative_stack_ids_checked),
        cmocka_unit_test(test_stack_chains_read_as_runs),
        cmocka_unit_test(test_thread_stacks_read_as_stack_addrs),
        cmocka_unit_test(test_stack_limit_forgets_and_stacks_still_read),
    };
    return cmocka_run_group_tests_name("format", tests, NULL, NULL);
}
