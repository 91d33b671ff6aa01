/* test_threads.c - two threads write and read two traces at once.  The
 * library has no global state that changes (the CRC-32C table is constant):
 * the first frames of the process are checked by both threads together, and
 * each thread gets exactly the records a lone reader gets.  A program of
 * its own, so that no earlier test has used the library first. */
#include <pthread.h>
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

#include "synth.h"
#include "tr.h"

enum { NTHREADS = 2, ROUNDS = 20 };

/* What one read of a trace gave: records, errors, and a digest of their
 * fields and resolved stacks. */
typedef struct {
    uint64_t records, errors, digest;
} reading;

typedef struct {
    uint64_t seed;
    pthread_barrier_t *start;
    uint8_t *trace;
    size_t len;
    int failed; /* the step that failed, 0 none */
    reading rounds[ROUNDS];
} job;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xbf58476d1ce4e5b9ull;
}

static reading read_trace(const uint8_t *p, size_t len)
{
    reading g = {0, 0, 1};
    tr_reader *r;
    if (tr_reader_open_mem(&r, p, len, NULL)) {
        g.errors++;
        return g;
    }
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            g.errors++;
            if (!tr_error_recoverable(rc)) break;
            continue;
        }
        g.records++;
        g.digest = mix(g.digest, rec.type);
        g.digest = mix(g.digest, rec.time);
        g.digest = mix(g.digest, (uint64_t)(uint32_t)rec.tid << 32 | (uint32_t)rec.cpu);
        if (rec.type == TR_REC_SAMPLE) {
            g.digest = mix(g.digest, rec.u.sample.period);
            const uint32_t *fr;
            int n = tr_reader_stack(r, rec.u.sample.stack, &fr);
            g.digest = mix(g.digest, (uint64_t)n);
            for (int i = 0; i < n; i++) {
                const tr_frame *f = tr_reader_frame(r, fr[i]);
                g.digest = mix(g.digest, f ? f->addr : 0);
            }
        }
    }
    tr_reader_free(r);
    return g;
}

static void *run(void *arg)
{
    job *j = arg;
    pthread_barrier_wait(j->start);
    /* write: every frame's checksum is computed here, in both threads at once */
    int fd = memfd_create("t", 0);
    tr_writer_options o = {.chunk_size = 4096};
    tr_writer *w;
    off_t len = -1;
    if (fd < 0 || tr_writer_open(&w, fd, &o)) {
        j->failed = 1;
        goto read;
    }
    if (synth_all_types(w) || synth_samples(w, 3000, j->seed) || tr_writer_finish(w, 0))
        j->failed = 2;
    tr_writer_free(w);
    len = lseek(fd, 0, SEEK_END);
    j->trace = len > 0 ? malloc((size_t)len) : NULL;
    if (!j->trace || pread(fd, j->trace, (size_t)len, 0) != len)
        j->failed = 3;
    else
        j->len = (size_t)len;
read:
    if (fd >= 0)
        close(fd);
    /* read, both threads at once again (a thread that failed still waits) */
    pthread_barrier_wait(j->start);
    for (int i = 0; i < ROUNDS && !j->failed; i++) j->rounds[i] = read_trace(j->trace, j->len);
    return NULL;
}

static void test_two_threads_read_two_traces_at_once(void **state)
{
    (void)state;
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, NTHREADS), 0);
    job jobs[NTHREADS];
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].seed = 11 + (uint64_t)i;
        jobs[i].start = &start;
        assert_int_equal(pthread_create(&th[i], NULL, run, &jobs[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < NTHREADS; i++) {
        job *j = &jobs[i];
        assert_int_equal(j->failed, 0);
        /* the same trace read alone, now */
        reading alone = read_trace(j->trace, j->len);
        assert_int_equal(alone.errors, 0);
        assert_true(alone.records > 3000);
        for (int k = 0; k < ROUNDS; k++) {
            assert_int_equal(j->rounds[k].errors, 0);
            assert_int_equal(j->rounds[k].records, alone.records);
            assert_int_equal(j->rounds[k].digest, alone.digest);
        }
    }
    /* two different traces: the digests tell them apart */
    assert_int_not_equal(read_trace(jobs[0].trace, jobs[0].len).digest,
                         read_trace(jobs[1].trace, jobs[1].len).digest);
    for (int i = 0; i < NTHREADS; i++) free(jobs[i].trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_threads_read_two_traces_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
