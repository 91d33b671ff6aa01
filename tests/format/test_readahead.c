/* test_readahead.c - tr_reader_options.decompress_thread: a reader that
 * decompresses the chunks ahead on a thread of its own delivers the same
 * records, errors and diagnostics, at the same places, as one that does
 * not, from memory, a file and a pipe, on sound and damaged traces. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "synth.h"
#include "tr.h"

enum { FROM_MEM, FROM_FILE, FROM_PIPE };

/* A pipe fed by a thread in small pieces, so that the reader finds now
 * more, now less of the input there. */
typedef struct {
    int fd;
    const bytes *b;
} feeder;

static void *feed(void *arg)
{
    feeder *f = arg;
    for (size_t at = 0, step = 1; at < f->b->len; at += step, step = step * 7 % 4093 + 1) {
        size_t n = f->b->len - at < step ? f->b->len - at : step;
        if (write(f->fd, f->b->p + at, n) != (ssize_t)n) break;
        if (step % 5 == 0) usleep(50);
    }
    close(f->fd);
    return NULL;
}

static int threads_now(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int n = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1) break;
    if (f) fclose(f);
    return n;
}

/* One reading of b, as text: every field of every record (dump.c), then
 * every error with its whole diagnostic and the totals.  *threads: the
 * process's threads while the reader was open. */
static char *reading(const bytes *b, int from, int ahead, size_t max_chunk, int *threads)
{
    tr_reader_options ro = {.keep_definitions = 1, .max_chunk = max_chunk, .decompress_thread = ahead};
    char *text = NULL;
    size_t text_len = 0;
    FILE *out = open_memstream(&text, &text_len);
    assert_non_null(out);
    for (int pass = 0; pass < 2; pass++) {
        tr_reader *r;
        int fd = -1;
        pthread_t th;
        feeder fe = {-1, b};
        if (from == FROM_MEM) {
            assert_int_equal(tr_reader_open_mem(&r, b->p, b->len, &ro), 0);
        } else if (from == FROM_FILE) {
            fd = memfd_create("t", 0);
            assert_true(fd >= 0);
            assert_int_equal(write(fd, b->p, b->len), (ssize_t)b->len);
            assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
            assert_int_equal(tr_reader_open(&r, fd, &ro), 0);
        } else {
            int p[2];
            assert_int_equal(pipe(p), 0);
            fd = p[0];
            fe.fd = p[1];
            assert_int_equal(pthread_create(&th, NULL, feed, &fe), 0);
            assert_int_equal(tr_reader_open(&r, fd, &ro), 0);
        }
        if (pass == 0) {
            /* synth_dump prints to stdout: into the text for a while */
            fflush(stdout);
            int mem = memfd_create("dump", 0), saved = dup(1);
            assert_true(mem >= 0 && saved >= 0 && dup2(mem, 1) == 1);
            synth_dump(r);
            fflush(stdout);
            assert_true(dup2(saved, 1) == 1);
            close(saved);
            off_t n = lseek(mem, 0, SEEK_END);
            char *s = malloc((size_t)n + 1);
            assert_non_null(s);
            assert_int_equal(pread(mem, s, (size_t)n, 0), n);
            fwrite(s, 1, (size_t)n, out);
            free(s);
            close(mem);
        } else {
            tr_record rec;
            int rc;
            while ((rc = tr_reader_next(r, &rec)) != 0) {
                if (rc > 0) continue;
                const tr_reader_diag *d = tr_reader_last_diag(r);
                fprintf(out, "error %d at %llu stream %u chunk %llu lost %llu chunks %llu bytes: %s\n", rc,
                        (unsigned long long)d->offset, d->stream, (unsigned long long)d->chunk,
                        (unsigned long long)d->lost_chunks, (unsigned long long)d->lost_bytes, d->detail);
                if (!tr_error_recoverable(rc)) break;
            }
            tr_reader_stats st;
            tr_reader_get_stats(r, &st);
            /* (how much of a pipe was read when a fatal error stopped the reader
             * is a matter of timing, with or without the thread) */
            fprintf(out, "streams %llu chunks %llu records %llu raw %llu compressed %llu input %llu bad %llu "
                         "lost %llu skipped %llu bad records %llu\n",
                    (unsigned long long)st.streams, (unsigned long long)st.chunks,
                    (unsigned long long)st.records, (unsigned long long)st.raw_bytes,
                    (unsigned long long)st.compressed_bytes,
                    from == FROM_PIPE ? (unsigned long long)b->len : (unsigned long long)st.input_bytes,
                    (unsigned long long)st.bad_chunks, (unsigned long long)st.lost_chunks,
                    (unsigned long long)st.skipped_bytes, (unsigned long long)st.bad_records);
            if (threads) *threads = threads_now();
        }
        tr_reader_free(r);
        if (from == FROM_PIPE) pthread_join(th, NULL);
        if (fd >= 0) close(fd);
    }
    fclose(out);
    return text;
}

/* Read ahead from memory, a file and a pipe: the same as the plain reader. */
static void same_ahead(const bytes *b, size_t max_chunk, const char *what)
{
    char *want = reading(b, FROM_MEM, 0, max_chunk, NULL);
    for (int from = FROM_MEM; from <= FROM_PIPE; from++) {
        char *got = reading(b, from, 1, max_chunk, NULL);
        if (strcmp(want, got)) {
            print_error("%s, read ahead from %s, differs:\n--- plain\n%.2000s\n--- ahead\n%.2000s\n", what,
                        from == FROM_MEM ? "memory" : from == FROM_FILE ? "a file" : "a pipe", want, got);
            fail();
        }
        free(got);
    }
    free(want);
}

/* A stream of every record type, samples and stack copies in chunks of
 * 1 KiB: dozens of chunks, stacks defined in runs, copies placed by
 * address. */
static bytes many_chunks(uint64_t seed)
{
    int fd = memfd_create("t", 0);
    assert_true(fd >= 0);
    tr_writer_options o = {.chunk_size = 1024, .key_interval = 8192, .stack_delta = 2, .stack_runs = 1};
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, &o), 0);
    assert_int_equal(synth_all_types(w), 0);
    assert_int_equal(synth_samples(w, 1500, seed), 0);
    assert_int_equal(synth_stack_copies(w, 120, 2048, seed), 0);
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_free(w);
    bytes b = synth_fd_bytes(fd);
    assert_non_null(b.p);
    return b;
}

/* The input offsets of the chunk frames of b, and their sizes. */
static size_t chunks_of(const bytes *b, size_t *offs, size_t *sizes, size_t max)
{
    size_t n = 0;
    tr_stream_frame f;
    for (size_t off = 0; off < b->len && n < max; off += f.size) {
        assert_int_equal(tr_stream_frame_parse(b->p + off, b->len - off, &f), 1);
        if (f.kind == TR_SFRAME_CHUNK) offs[n] = off, sizes[n++] = f.size;
    }
    return n;
}

static void test_vectors_read_the_same_ahead(void **state)
{
    (void)state;
    const char *root = getenv("TR_ROOT") ? getenv("TR_ROOT") : ".";
    const char *dirs[] = {"spec/vectors/pass", "spec/vectors/fail", "tests/golden"};
    int files = 0;
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", root, dirs[k]);
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t nl = strlen(e->d_name);
            if (nl < 4 || strcmp(e->d_name + nl - 3, ".tr")) continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            int fd = open(path, O_RDONLY);
            assert_true(fd >= 0);
            bytes b = synth_fd_bytes(fd);
            assert_non_null(b.p);
            same_ahead(&b, 0, path);
            free(b.p);
            files++;
        }
        closedir(d);
    }
    assert_true(files >= 20);
}

static void test_many_chunks_read_the_same_ahead(void **state)
{
    (void)state;
    bytes b = many_chunks(1), c = many_chunks(2);
    size_t offs[4096], sizes[4096];
    assert_true(chunks_of(&b, offs, sizes, 4096) > 20);
    same_ahead(&b, 0, "many chunks");
    same_ahead(&b, 900, "many chunks, some over max_chunk");
    /* two streams, one after the other */
    bytes two = {malloc(b.len + c.len), b.len + c.len};
    assert_non_null(two.p);
    memcpy(two.p, b.p, b.len);
    memcpy(two.p + b.len, c.p, c.len);
    same_ahead(&two, 0, "two streams");
    /* the thread is there while a trace of many chunks is read, and only then */
    int plain, ahead, one;
    free(reading(&b, FROM_MEM, 0, 0, &plain));
    free(reading(&b, FROM_MEM, 1, 0, &ahead));
    bytes small = {b.p, offs[1]}; /* the start frame and one chunk: cut there */
    free(reading(&small, FROM_MEM, 1, 0, &one));
    assert_int_equal(ahead, plain + 1);
    assert_int_equal(one, plain);
    free(two.p);
    free(c.p);
    free(b.p);
}

/* Damage in the middle, right after the first chunk, and at the end: the
 * same errors with the same diagnostics at the same records. */
static void test_damaged_chunks_report_the_same_ahead(void **state)
{
    (void)state;
    bytes b = many_chunks(3);
    size_t offs[4096], sizes[4096], n = chunks_of(&b, offs, sizes, 4096);
    assert_true(n > 20);
    size_t which[] = {1, 2, n / 2, n / 2 + 1, n - 1};
    for (size_t k = 0; k < sizeof which / sizeof *which; k++) {
        size_t i = which[k], at = offs[i], size = sizes[i];
        bytes d = {malloc(b.len + 64), b.len};
        assert_non_null(d.p);
        char what[128];
        for (int kind = 0; kind < 5; kind++) {
            memcpy(d.p, b.p, b.len);
            d.len = b.len;
            switch (kind) {
            case 0: /* a byte of its zstd frame */
                d.p[at + size - size / 3] ^= 0x40;
                snprintf(what, sizeof what, "chunk %zu's zstd frame damaged", i);
                break;
            case 1: /* its header: the checksum fails */
                d.p[at + 20] ^= 1;
                snprintf(what, sizeof what, "chunk %zu's header damaged", i);
                break;
            case 2: /* the chunk is gone */
                memmove(d.p + at, d.p + at + size, b.len - at - size);
                d.len -= size;
                snprintf(what, sizeof what, "chunk %zu missing", i);
                break;
            case 3: /* the input ends inside it */
                d.len = at + size / 2;
                snprintf(what, sizeof what, "cut inside chunk %zu", i);
                break;
            case 4: /* bytes that are no frame before it */
                memmove(d.p + at + 37, d.p + at, b.len - at);
                memset(d.p + at, 0xa5, 37);
                d.len += 37;
                snprintf(what, sizeof what, "garbage before chunk %zu", i);
                break;
            }
            same_ahead(&d, 0, what);
        }
        free(d.p);
    }
    free(b.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors_read_the_same_ahead),
        cmocka_unit_test(test_many_chunks_read_the_same_ahead),
        cmocka_unit_test(test_damaged_chunks_report_the_same_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
