/* readahead.c - tr_reader_options.decompress_thread: the chunks after the
 * reader's position decompressed on a thread of their own while the caller
 * consumes the current one.  The reader alone walks the input and decides
 * what each frame is; the thread only runs ZSTD_decompressDCtx on zstd
 * frames the reader has queued, so every check, error and diagnostic stays
 * the reader's, in the same order. */
#include <pthread.h>
#include <zstd.h>

#include "internal.h"

enum { RA_FREE, RA_QUEUED, RA_BUSY, RA_DONE };

/* A slot: FREE belongs to the reader; QUEUED and DONE to whoever holds the
 * mutex; BUSY to the thread (with the mutex released). */
typedef struct ra_job {
    int state;
    int passed;              /* BUSY when the reader passed it: FREE when done */
    uint64_t off;            /* input offset of its chunk frame */
    const uint8_t *z;        /* its zstd frame: in the input, or zcopy */
    uint32_t csize, rsize;
    buf zcopy, raw;          /* kept for the next chunk (raw: swapped with the reader's) */
    size_t got;
} ra_job;

struct tr_readahead {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    int started, failed, quit;
    ZSTD_DCtx *dctx;  /* the thread's */
    ZSTD_DCtx *cdctx; /* the caller's, for the chunk it decompresses while it waits */
    ra_job job[TR_READAHEAD_DEPTH];
};

/* The first queued job in the input, or NULL (the mutex held). */
static ra_job *first_queued(tr_readahead *a)
{
    ra_job *j = NULL;
    for (int i = 0; i < TR_READAHEAD_DEPTH; i++)
        if (a->job[i].state == RA_QUEUED && (!j || a->job[i].off < j->off)) j = &a->job[i];
    return j;
}

/* Decompress queued job j with d, the mutex released meanwhile (held on
 * entry and on return). */
static void decompress(tr_readahead *a, ra_job *j, ZSTD_DCtx *d)
{
    j->state = RA_BUSY;
    pthread_mutex_unlock(&a->mu);
    size_t got = ZSTD_decompressDCtx(d, j->raw.p, j->rsize, j->z, j->csize);
    pthread_mutex_lock(&a->mu);
    j->got = got;
    j->state = j->passed ? RA_FREE : RA_DONE;
    j->passed = 0;
    pthread_cond_broadcast(&a->done);
}

static void *ra_main(void *arg)
{
    tr_readahead *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->quit) {
        ra_job *j = first_queued(a);
        if (j)
            decompress(a, j, a->dctx);
        else
            pthread_cond_wait(&a->work, &a->mu);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

tr_readahead *tr_internal_readahead_new(void)
{
    tr_readahead *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    if (!(a->dctx = ZSTD_createDCtx()) || !(a->cdctx = ZSTD_createDCtx())) {
        ZSTD_freeDCtx(a->dctx);
        free(a);
        return NULL;
    }
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->work, NULL);
    pthread_cond_init(&a->done, NULL);
    return a;
}

void tr_internal_readahead_free(tr_readahead *a)
{
    if (!a) return;
    if (a->started) {
        pthread_mutex_lock(&a->mu);
        a->quit = 1;
        pthread_cond_broadcast(&a->work);
        pthread_mutex_unlock(&a->mu);
        pthread_join(a->thread, NULL);
    }
    for (int i = 0; i < TR_READAHEAD_DEPTH; i++) {
        tr_internal_buf_free(&a->job[i].zcopy);
        tr_internal_buf_free(&a->job[i].raw);
    }
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->work);
    pthread_cond_destroy(&a->done);
    ZSTD_freeDCtx(a->dctx);
    ZSTD_freeDCtx(a->cdctx);
    free(a);
}

int tr_internal_readahead_has(tr_readahead *a, uint64_t off)
{
    int has = 0;
    pthread_mutex_lock(&a->mu);
    for (int i = 0; i < TR_READAHEAD_DEPTH; i++)
        has |= a->job[i].state != RA_FREE && !a->job[i].passed && a->job[i].off == off;
    pthread_mutex_unlock(&a->mu);
    return has;
}

/* A free slot, or NULL. */
static ra_job *free_job(tr_readahead *a)
{
    ra_job *j = NULL;
    pthread_mutex_lock(&a->mu);
    for (int i = 0; i < TR_READAHEAD_DEPTH && !j; i++)
        if (a->job[i].state == RA_FREE) j = &a->job[i];
    pthread_mutex_unlock(&a->mu);
    return j;
}

int tr_internal_readahead_room(tr_readahead *a) { return !a->failed && free_job(a); }

int tr_internal_readahead_queue(tr_readahead *a, uint64_t off, const uint8_t *z, uint32_t csize,
                                uint32_t rsize, int copy)
{
    ra_job *j = free_job(a);
    if (!j || a->failed) return 0;
    /* FREE: the thread does not look at it until it is queued */
    j->raw.len = j->zcopy.len = 0;
    if (tr_internal_buf_reserve(&j->raw, rsize ? rsize : 1) || (copy && tr_internal_buf_reserve(&j->zcopy, csize)))
        return 0;
    if (copy) {
        memcpy(j->zcopy.p, z, csize);
        z = j->zcopy.p;
    }
    if (!a->started) {
        if (pthread_create(&a->thread, NULL, ra_main, a)) {
            a->failed = 1; /* the reader goes on alone */
            return 0;
        }
        a->started = 1;
    }
    pthread_mutex_lock(&a->mu);
    j->off = off;
    j->z = z;
    j->csize = csize;
    j->rsize = rsize;
    j->state = RA_QUEUED;
    pthread_cond_signal(&a->work);
    pthread_mutex_unlock(&a->mu);
    return 1;
}

int tr_internal_readahead_take(tr_readahead *a, uint64_t off, uint32_t csize, uint32_t rsize, buf *chunk,
                               size_t *got)
{
    ra_job *mine = NULL;
    pthread_mutex_lock(&a->mu);
    for (int i = 0; i < TR_READAHEAD_DEPTH; i++) {
        ra_job *j = &a->job[i];
        if (j->state == RA_FREE || j->passed || j->off > off) continue;
        if (j->off == off && j->csize == csize && j->rsize == rsize && j->state != RA_QUEUED)
            mine = j;
        else if (j->state == RA_BUSY)
            j->passed = 1; /* passed: freed when done */
        else
            j->state = RA_FREE; /* passed, or not begun: the caller is sooner done alone */
    }
    while (mine && mine->state == RA_BUSY) {
        /* rather than wait, decompress the next one queued: where zstd is
         * the slower side, the two share its work */
        ra_job *next = first_queued(a);
        if (next)
            decompress(a, next, a->cdctx);
        else
            pthread_cond_wait(&a->done, &a->mu);
    }
    if (mine) {
        buf t = *chunk;
        *chunk = mine->raw;
        mine->raw = t;
        *got = mine->got;
        mine->state = RA_FREE;
    }
    pthread_mutex_unlock(&a->mu);
    return mine != NULL;
}
