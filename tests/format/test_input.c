/* test_input.c - how the library takes its input: sniffing (tr_is_trace),
 * frames (tr_stream_frame_parse), readers on bytes already read plus an fd
 * or a read callback, and the CRC-32C that checks every frame. */
#include <errno.h>
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
#include <zstd.h>

#include "synth.h"
#include "tr.h"

/* ---- helpers ---- */

static void append(bytes *b, const void *p, size_t n)
{
    b->p = realloc(b->p, b->len + n + 1);
    assert_non_null(b->p);
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

/* A finished stream of every record type and n samples, in chunks of
 * chunk_size raw bytes. */
static bytes stream_of(uint64_t n, uint64_t seed, int stack_copies, size_t chunk_size)
{
    int fd = memfd_create("t", 0);
    assert_true(fd >= 0);
    tr_writer_options o = {.chunk_size = chunk_size, .key_interval = 4096, .stack_delta = stack_copies};
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, &o), 0);
    assert_int_equal(synth_all_types(w), 0);
    assert_int_equal(synth_samples(w, n, seed), 0);
    if (stack_copies) assert_int_equal(synth_stack_copies(w, 40, 2048, seed), 0);
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_free(w);
    bytes b = synth_fd_bytes(fd);
    assert_non_null(b.p);
    return b;
}

static bytes stream(uint64_t n, uint64_t seed, int stack_copies)
{
    return stream_of(n, seed, stack_copies, 1024);
}

/* Two streams, one after the other, the second with stack copies. */
static bytes two_streams(void)
{
    bytes a = stream(60, 1, 0), b = stream(30, 2, 1);
    append(&a, b.p, b.len);
    free(b.p);
    return a;
}

/* Everything r delivers, every field (dump.c), as text. */
static char *dump(tr_reader *r, size_t *len)
{
    fflush(stdout);
    int fd = memfd_create("dump", 0), out = dup(1);
    assert_true(fd >= 0 && out >= 0);
    assert_true(dup2(fd, 1) == 1);
    synth_dump(r);
    fflush(stdout);
    assert_true(dup2(out, 1) == 1);
    close(out);
    *len = (size_t)lseek(fd, 0, SEEK_END);
    char *s = malloc(*len + 1);
    assert_non_null(s);
    assert_int_equal(pread(fd, s, *len, 0), (ssize_t)*len);
    s[*len] = 0;
    close(fd);
    return s;
}

static char *dump_mem(const bytes *b, size_t *len)
{
    tr_reader *r;
    tr_reader_options ro = {.keep_definitions = 1};
    assert_int_equal(tr_reader_open_mem(&r, b->p, b->len, &ro), 0);
    char *s = dump(r, len);
    tr_reader_free(r);
    return s;
}

/* A read callback over memory: at most step bytes a call; an EINTR before
 * every call when eintr; -1 with fail_errno once fail_at bytes are read. */
typedef struct {
    const uint8_t *p;
    size_t len, pos, step;
    int eintr, interrupted, calls;
    size_t fail_at;
    int fail_errno;
    int overflow; /* claim one byte more than asked */
} source;

static ssize_t source_read(void *ctx, void *buf, size_t len)
{
    source *s = ctx;
    s->calls++;
    assert_true(len > 0);
    if (s->eintr && !s->interrupted) {
        s->interrupted = 1;
        errno = EINTR;
        return -1;
    }
    s->interrupted = 0;
    if (s->fail_errno && s->pos >= s->fail_at) {
        errno = s->fail_errno;
        return -1;
    }
    if (s->overflow) return (ssize_t)len + 1;
    size_t n = s->len - s->pos;
    if (n > len) n = len;
    if (s->step && n > s->step) n = s->step;
    if (s->fail_errno && n > s->fail_at - s->pos) n = s->fail_at - s->pos;
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return (ssize_t)n;
}

static char *dump_source(source *src, const void *head, size_t head_len, size_t *len, uint64_t *input)
{
    tr_reader *r;
    tr_reader_options ro = {.keep_definitions = 1};
    assert_int_equal(tr_reader_open_fn(&r, source_read, src, head, head_len, &ro), 0);
    char *s = dump(r, len);
    tr_reader_stats st;
    tr_reader_get_stats(r, &st);
    if (input) *input = st.input_bytes;
    tr_reader_free(r);
    return s;
}

/* The bitwise definition of CRC-32C (reflected, polynomial 0x82F63B78). */
static uint32_t crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) crc = crc & 1 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
}

/* ---- tests ---- */

static void test_crc32c_is_the_castagnoli_crc(void **state)
{
    (void)state;
    /* the check value of CRC-32C (RFC 3720, B.4) */
    assert_int_equal(tr_crc32c(0, "123456789", 9), 0xE3069283u);
    enum { N = 1 << 16 };
    uint8_t *buf = malloc(N);
    assert_non_null(buf);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (uint8_t)x;
    }
    /* every length up to 80 at every alignment, then the whole buffer: the
     * eight-byte steps use all eight tables */
    for (size_t off = 0; off < 8; off++)
        for (size_t n = 0; n <= 80; n++)
            assert_int_equal(tr_crc32c(0, buf + off, n), crc32c_bitwise(0, buf + off, n));
    assert_int_equal(tr_crc32c(0, buf, N), crc32c_bitwise(0, buf, N));
    /* a CRC continued over a second part is the CRC of both */
    assert_int_equal(tr_crc32c(tr_crc32c(0, buf, 1001), buf + 1001, N - 1001), tr_crc32c(0, buf, N));
    free(buf);
}

static void test_is_trace_looks_at_the_magic(void **state)
{
    (void)state;
    bytes t = stream(1, 1, 0);
    for (size_t n = 0; n <= 16; n++) assert_int_equal(tr_is_trace(t.p, n), n >= TR_SNIFF_BYTES);
    assert_int_equal(tr_is_trace(t.p, t.len), 1);
    /* any other first bytes: not a trace */
    for (size_t i = 0; i < TR_SNIFF_BYTES; i++) {
        uint8_t head[TR_SNIFF_BYTES];
        memcpy(head, t.p, sizeof head);
        head[i] ^= 0x01;
        assert_int_equal(tr_is_trace(head, sizeof head), 0);
    }
    assert_int_equal(tr_is_trace("perf-1234 [001] 1.0: cycles:\n", 29), 0);
    assert_int_equal(tr_is_trace("\x50\x2a\x4d\x18\x00\x00\x00\x00", 8), 0); /* another skippable frame */
    assert_int_equal(tr_is_trace(NULL, 0), 0);
    /* the reader agrees: what tr_is_trace refuses, the reader refuses */
    tr_reader *r;
    tr_record rec;
    assert_int_equal(tr_reader_open_mem(&r, "not a trace", 11, NULL), 0);
    assert_int_equal(tr_reader_next(r, &rec), TR_E_NOT_TRACE);
    tr_reader_free(r);
    free(t.p);
}

static void test_stream_frames_walk_a_trace(void **state)
{
    (void)state;
    bytes t = two_streams();
    tr_reader_stats st;
    tr_reader *r;
    tr_record rec;
    assert_int_equal(tr_reader_open_mem(&r, t.p, t.len, NULL), 0);
    while (tr_reader_next(r, &rec) == 1) {}
    tr_reader_get_stats(r, &st);
    tr_reader_free(r);
    assert_true(st.chunks > 4);

    tr_stream_frame f;
    size_t off = 0, starts = 0, ends = 0, chunks = 0, in_stream = 0, frames = 0;
    uint64_t stream_bytes = 0, raw = 0;
    for (; off < t.len; off += f.size) {
        assert_int_equal(tr_stream_frame_parse(t.p + off, t.len - off, &f), 1);
        assert_true(f.size >= 8 && f.size <= t.len - off);
        frames++;
        switch (f.kind) {
        case TR_SFRAME_START:
            assert_int_equal(in_stream, 0);
            assert_int_equal(f.major, TR_VERSION_MAJOR);
            starts++;
            in_stream = 1;
            stream_bytes = f.size;
            raw = 0;
            break;
        case TR_SFRAME_CHUNK:
            assert_int_equal(in_stream, 1);
            assert_true(f.csize > 0 && f.csize < f.size);
            assert_true(f.rsize > 0);
            raw += f.rsize;
            stream_bytes += f.size;
            chunks++;
            break;
        case TR_SFRAME_END:
            assert_int_equal(in_stream, 1);
            /* the end frame's totals are what the walk counted */
            assert_int_equal(f.bytes, stream_bytes);
            assert_int_equal(f.raw_bytes, raw);
            ends++;
            in_stream = 0;
            break;
        default:
            fail_msg("unexpected frame kind %u at %zu", f.kind, off);
        }
    }
    assert_int_equal(off, t.len);
    assert_int_equal(starts, 2);
    assert_int_equal(ends, 2);
    assert_int_equal(chunks, st.chunks);
    assert_int_equal(tr_stream_frame_parse(t.p, 0, &f), 0);

    /* cut anywhere inside a frame: truncated, never a frame */
    for (off = 0; off < t.len; off += f.size) {
        assert_int_equal(tr_stream_frame_parse(t.p + off, t.len - off, &f), 1);
        tr_stream_frame g;
        for (size_t cut = 1; cut < f.size; cut++)
            assert_int_equal(tr_stream_frame_parse(t.p + off, cut, &g), TR_E_TRUNCATED);
    }
    /* a changed byte in a frame's header or content: corrupt */
    assert_int_equal(tr_stream_frame_parse(t.p, t.len, &f), 1);
    size_t start_size = f.size;
    for (size_t i = 0; i < start_size; i++) {
        bytes c = {NULL, 0};
        append(&c, t.p, start_size);
        c.p[i] ^= 0x01; /* the first byte becomes 5f: another skippable frame */
        int e = tr_stream_frame_parse(c.p, c.len, &f);
        if (i == 0)
            assert_true(e == 1 && f.kind == TR_SFRAME_FOREIGN);
        else if (i >= 4 && i < 8)
            assert_true(e == TR_E_CORRUPT_FRAME || e == TR_E_TRUNCATED); /* the size */
        else
            assert_int_equal(e, TR_E_CORRUPT_FRAME);
        free(c.p);
    }
    assert_int_equal(tr_stream_frame_parse("garbage!garbage!", 16, &f), TR_E_CORRUPT_FRAME);
    assert_int_equal(tr_stream_frame_parse("\x5e\x2a", 2, &f), TR_E_TRUNCATED);
    assert_int_equal(tr_stream_frame_parse("\x5e\x2b", 2, &f), TR_E_CORRUPT_FRAME);

    /* a foreign skippable frame in front: one frame of its own size, which
     * the reader skips as well */
    bytes fx = {NULL, 0};
    append(&fx, "\x53\x2a\x4d\x18\x05\x00\x00\x00hello", 13);
    append(&fx, t.p, t.len);
    assert_int_equal(tr_stream_frame_parse(fx.p, fx.len, &f), 1);
    assert_int_equal(f.kind, TR_SFRAME_FOREIGN);
    assert_int_equal(f.size, 13);
    assert_int_equal(tr_stream_frame_parse(fx.p + 13, fx.len - 13, &f), 1);
    assert_int_equal(f.kind, TR_SFRAME_START);
    free(fx.p);
    free(t.p);
}

/* Read t with its first k bytes as the head and the rest through the
 * callback, for k from 0 to t's length in steps of stride: the records are
 * those of t read whole. */
static void split_reads_the_same(const bytes *t, size_t stride)
{
    size_t want_len;
    char *want = dump_mem(t, &want_len);
    assert_true(want_len > 1000);
    assert_null(strstr(want, "error"));
    for (size_t k = 0; k <= t->len; k += k + stride > t->len && k < t->len ? t->len - k : stride) {
        source src = {.p = t->p + k, .len = t->len - k};
        size_t len;
        uint64_t input;
        char *got = dump_source(&src, t->p, k, &len, &input);
        if (len != want_len || memcmp(got, want, len))
            fail_msg("head of %zu bytes: the records differ", k);
        assert_int_equal(input, t->len);
        free(got);
    }
    free(want);
}

static void test_head_split_at_every_offset_reads_the_same(void **state)
{
    (void)state;
    /* a small trace at every offset; two streams, one with stack copies,
     * at every 53rd */
    bytes small = stream_of(8, 3, 0, 256);
    split_reads_the_same(&small, 1);
    free(small.p);
    bytes t = two_streams();
    split_reads_the_same(&t, 53);
    size_t want_len;
    char *want = dump_mem(&t, &want_len);
    /* an fd after bytes read from it */
    size_t cuts[] = {0, 1, 3, TR_SNIFF_BYTES, 8, 100, t.len / 2, t.len - 1, t.len};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        size_t k = cuts[i];
        int fd = memfd_create("rest", 0);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, t.p + k, t.len - k), (ssize_t)(t.len - k));
        assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
        tr_reader *r;
        tr_reader_options ro = {.keep_definitions = 1};
        assert_int_equal(tr_reader_open_fd(&r, fd, k ? t.p : NULL, k, &ro), 0);
        size_t len;
        char *got = dump(r, &len);
        tr_reader_free(r);
        close(fd);
        assert_int_equal(len, want_len);
        assert_memory_equal(got, want, len);
        free(got);
    }
    free(want);
    free(t.p);
}

/* Give r the decompressed content of every chunk of t, each at the offset
 * of the chunk at chunks further on (at 0: its own); returns how many. */
static size_t adopt_chunks(tr_reader *r, const bytes *t, size_t at)
{
    size_t offs[256], n = 0, given = 0;
    tr_stream_frame f;
    for (size_t off = 0; off < t->len; off += f.size) {
        assert_int_equal(tr_stream_frame_parse(t->p + off, t->len - off, &f), 1);
        if (f.kind == TR_SFRAME_CHUNK && n < 256) offs[n++] = off;
    }
    for (size_t i = 0; i + at < n; i++) {
        assert_int_equal(tr_stream_frame_parse(t->p + offs[i], t->len - offs[i], &f), 1);
        void *raw = malloc(f.rsize + 1);
        assert_non_null(raw);
        assert_int_equal(ZSTD_decompress(raw, f.rsize, t->p + offs[i] + f.size - f.csize, f.csize), f.rsize);
        assert_int_equal(tr_reader_adopt_chunk(r, offs[i + at], t->p + offs[i], f.size, raw), 0);
        given++;
    }
    return given;
}

/* Everything read from in with the chunks of t given as adopt_chunks
 * does. */
static char *dump_adopted(const bytes *in, const bytes *t, size_t at, size_t *len)
{
    tr_reader *r;
    tr_reader_options ro = {.keep_definitions = 1};
    assert_int_equal(tr_reader_open_mem(&r, in->p, in->len, &ro), 0);
    assert_true(adopt_chunks(r, t, at) > 4);
    char *s = dump(r, len);
    tr_reader_free(r);
    return s;
}

/* A stream of blobs of random bytes, 3 MiB compressed: read from an fd, its
 * chunks cross the end of the reader's 1 MiB input buffer, which is then
 * moved or grown under the chunk being read. */
static bytes random_blobs(void)
{
    int fd = memfd_create("t", 0);
    assert_true(fd >= 0);
    tr_writer_options o = {.chunk_size = 200u << 10};
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, &o), 0);
    static uint8_t data[150u << 10];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 21; i++) {
        for (size_t k = 0; k < sizeof data; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            data[k] = (uint8_t)x;
        }
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        assert_int_equal(tr_writer_blob(w, name, data, sizeof data, 0), 0);
    }
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_free(w);
    bytes b = synth_fd_bytes(fd);
    assert_non_null(b.p);
    return b;
}

/* Chunks given for a trace read from an fd are taken though the input
 * moved while the chunk was read: with every payload damaged, a chunk not
 * taken reads as corrupt. */
static void test_adopted_chunks_from_an_fd(void **state)
{
    (void)state;
    bytes t = random_blobs();
    assert_true(t.len > (3u << 20));
    size_t want_len, len;
    char *want = dump_mem(&t, &want_len);
    assert_null(strstr(want, "error"));
    int fd = memfd_create("bad", 0);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, t.p, t.len), (ssize_t)t.len);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    tr_stream_frame f;
    for (size_t off = 0; off < t.len; off += f.size) {
        assert_int_equal(tr_stream_frame_parse(t.p + off, t.len - off, &f), 1);
        if (f.kind != TR_SFRAME_CHUNK) continue;
        uint8_t b = t.p[off + 8 + 40 + f.csize / 2] ^ 0x5a;
        assert_int_equal(pwrite(fd, &b, 1, (off_t)(off + 8 + 40 + f.csize / 2)), 1);
    }
    tr_reader *r;
    tr_reader_options ro = {.keep_definitions = 1};
    assert_int_equal(tr_reader_open_fd(&r, fd, NULL, 0, &ro), 0);
    assert_true(adopt_chunks(r, &t, 0) > 10);
    char *got = dump(r, &len);
    tr_reader_free(r);
    close(fd);
    assert_null(strstr(got, "error"));
    assert_int_equal(len, want_len);
    assert_memory_equal(got, want, len);
    free(got);
    free(want);
    free(t.p);
}

static void test_adopted_chunks_are_not_decompressed_again(void **state)
{
    (void)state;
    bytes t = two_streams();
    size_t want_len, len;
    char *want = dump_mem(&t, &want_len);
    assert_null(strstr(want, "error"));
    /* each chunk's content given: the same records */
    char *got = dump_adopted(&t, &t, 0, &len);
    assert_int_equal(len, want_len);
    assert_memory_equal(got, want, len);
    free(got);
    /* a payload byte of every chunk damaged (the crc of their frames does
     * not cover it): the reader reports each chunk corrupt, unless it takes
     * the content given and never decompresses the damaged frame */
    bytes bad = {malloc(t.len), t.len};
    assert_non_null(bad.p);
    memcpy(bad.p, t.p, t.len);
    tr_stream_frame f;
    for (size_t off = 0; off < bad.len; off += f.size) {
        assert_int_equal(tr_stream_frame_parse(bad.p + off, bad.len - off, &f), 1);
        if (f.kind == TR_SFRAME_CHUNK) bad.p[off + 8 + 40 + f.csize / 2] ^= 0x5a;
    }
    char *damaged = dump_mem(&bad, &len);
    assert_non_null(strstr(damaged, "error"));
    free(damaged);
    got = dump_adopted(&bad, &t, 0, &len);
    assert_int_equal(len, want_len);
    assert_memory_equal(got, want, len);
    free(got);
    /* content given for another chunk's offset is not taken: the chunks
     * read as they are */
    got = dump_adopted(&t, &t, 1, &len);
    assert_int_equal(len, want_len);
    assert_memory_equal(got, want, len);
    free(got);
    /* what is no whole chunk is refused */
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, t.p, t.len, NULL), 0);
    assert_int_equal(tr_reader_adopt_chunk(r, 0, t.p, 36, malloc(16)), TR_E_INVAL);
    tr_reader_free(r);
    free(want);
    free(bad.p);
    free(t.p);
}

static void test_read_callback_short_reads_eintr_and_errors(void **state)
{
    (void)state;
    bytes t = two_streams();
    size_t want_len, len;
    char *want = dump_mem(&t, &want_len), *got;

    /* one byte, then seven bytes a call; an EINTR before every call */
    size_t steps[] = {1, 7};
    for (int eintr = 0; eintr <= 1; eintr++)
        for (size_t i = 0; i < 2; i++) {
            source src = {.p = t.p, .len = t.len, .step = steps[i], .eintr = eintr};
            got = dump_source(&src, NULL, 0, &len, NULL);
            assert_int_equal(len, want_len);
            assert_memory_equal(got, want, len);
            assert_int_equal(src.pos, t.len);
            assert_true(src.calls > (int)(t.len / steps[i]));
            free(got);
        }

    /* an error at the start: TR_E_IO naming errno's message */
    source src = {.p = t.p, .len = t.len, .fail_at = 0, .fail_errno = EIO};
    tr_reader *r;
    tr_record rec;
    assert_int_equal(tr_reader_open_fn(&r, source_read, &src, NULL, 0, NULL), 0);
    assert_int_equal(src.calls, 0); /* nothing is read before the first record is asked for */
    assert_int_equal(tr_reader_next(r, &rec), TR_E_IO);
    assert_non_null(strstr(tr_reader_last_diag(r)->detail, strerror(EIO)));
    assert_int_equal(tr_reader_next(r, &rec), 0); /* and the input has ended */
    tr_reader_free(r);

    /* an error after the head (here: after the first frames) */
    tr_stream_frame f;
    assert_int_equal(tr_stream_frame_parse(t.p, t.len, &f), 1);
    size_t first = f.size;
    src = (source){.p = t.p + first, .len = t.len - first, .fail_at = 0, .fail_errno = ENXIO};
    assert_int_equal(tr_reader_open_fn(&r, source_read, &src, t.p, first, NULL), 0);
    assert_int_equal(tr_reader_next(r, &rec), 1);
    assert_int_equal(rec.type, TR_REC_STREAM_START);
    assert_int_equal(tr_reader_next(r, &rec), 1);
    assert_int_equal(rec.type, TR_REC_STREAM_END);
    assert_int_equal(rec.u.stream_end.complete, 0);
    int rc = tr_reader_next(r, &rec);
    assert_int_equal(rc, TR_E_IO);
    assert_non_null(strstr(tr_reader_last_diag(r)->detail, strerror(ENXIO)));
    tr_reader_free(r);

    /* an error anywhere later, inside a frame or between two: TR_E_IO, and
     * the open stream's end is delivered first, as incomplete */
    for (size_t at = 1; at < t.len; at += 97) {
        src = (source){.p = t.p, .len = t.len, .step = 64, .fail_at = at, .fail_errno = EIO};
        assert_int_equal(tr_reader_open_fn(&r, source_read, &src, NULL, 0, NULL), 0);
        int fatal = 0, starts = 0, ends = 0;
        while ((rc = tr_reader_next(r, &rec)) != 0) {
            if (rc < 0 && !tr_error_recoverable(rc)) fatal = rc;
            if (rc == 1 && rec.type == TR_REC_STREAM_START) starts++;
            if (rc == 1 && rec.type == TR_REC_STREAM_END) ends++;
        }
        assert_int_equal(fatal, TR_E_IO);
        assert_non_null(strstr(tr_reader_last_diag(r)->detail, strerror(EIO)));
        assert_int_equal(ends, starts);
        tr_reader_free(r);
    }

    /* a callback that claims more than it was given room for */
    src = (source){.p = t.p, .len = t.len, .overflow = 1};
    assert_int_equal(tr_reader_open_fn(&r, source_read, &src, NULL, 0, NULL), 0);
    assert_int_equal(tr_reader_next(r, &rec), TR_E_IO);
    tr_reader_free(r);

    /* bad arguments */
    assert_int_equal(tr_reader_open_fn(&r, NULL, NULL, NULL, 0, NULL), TR_E_INVAL);
    assert_int_equal(tr_reader_open_fn(&r, source_read, &src, NULL, 1, NULL), TR_E_INVAL);
    assert_int_equal(tr_reader_open_fd(&r, -1, NULL, 0, NULL), TR_E_INVAL);
    free(want);
    free(t.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c_is_the_castagnoli_crc),
        cmocka_unit_test(test_is_trace_looks_at_the_magic),
        cmocka_unit_test(test_stream_frames_walk_a_trace),
        cmocka_unit_test(test_head_split_at_every_offset_reads_the_same),
        cmocka_unit_test(test_read_callback_short_reads_eintr_and_errors),
        cmocka_unit_test(test_adopted_chunks_are_not_decompressed_again),
        cmocka_unit_test(test_adopted_chunks_from_an_fd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
