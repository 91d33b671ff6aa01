/* writer.c - writing a stream: interning, chunking, key chunks, frames. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "internal.h"

typedef struct sticky {
    uint32_t type;
    char *key; /* meta key or blob name: a later one of the same key replaces it */
    buf body;
} sticky;

/* A thread's last stack, root first (tr_writer_thread_stack). */
typedef struct thread_stack {
    int32_t pid, tid;
    uint32_t base;      /* the writer's stack_base when filled: older nodes are forgotten */
    uint32_t n, cap;
    uint64_t *addrs;
    uint32_t *flags;
    uint32_t *nodes;    /* nodes[i]: the node of the outer i+1 frames */
} thread_stack;
#define THREAD_STACKS 64 /* threads remembered, by a hash of (pid, tid) */
#define RAW_FRAME_CACHE 4096
#define WIDE 8 /* children a node's list holds before they go into wide_map */

/* A chunk to compress and write: its records and its frame's fields; or,
 * when the caller compressed it (z.len), its zstd frame and raw_len. */
typedef struct chunk_job {
    buf raw;
    buf z;
    size_t raw_len;
    uint64_t seq, base_time;
    uint32_t flags, records;
} chunk_job;

/* opt.compress_thread: the thread that compresses and writes chunks.  The
 * caller queues them (job[head] is the one being written, n the number
 * queued, bytes what they hold) and fills the next: a compressor that falls
 * behind (no CPU, a slow disk) does not stop the caller, a recorder draining
 * kernel buffers, until QUEUE_BYTES are queued (or QUEUE chunks: a slow
 * recording's are small).  A queued chunk's buffer is the caller's own, not a
 * slot's: memory goes with what chunks hold, a slow recording's few KiB or a
 * burst's megabytes, and after a burst it is given back: the written chunks'
 * buffers (spare) are the caller's next chunks', all of them while the
 * compressor is behind, and SPARES of them once it has caught up; it frees
 * the others.  A caller that fills a fresh buffer for each chunk faults in
 * every page of it anew (server dwarf at 20 kHz, where the compressor runs
 * chunks behind, kept one spare: faults were 39% of the recording thread's
 * CPU). */
#define QUEUE 256
#define QUEUE_BYTES ((size_t)64 << 20)
#define SPARES 4
/* A compressor that gets no CPU (nice +10 beside a workload that keeps both
 * CPUs busy: server dwarf at 20 kHz, where the queue filled its 64 MiB and
 * the recorder lost samples in 8 runs of 9) falls further behind than its
 * faster level catches up: past CALLER_BYTES queued, the caller compresses
 * each chunk itself, at BEHIND_LEVEL, and queues its zstd frame (half the
 * raw bytes there) for the thread only to write; the raw buffer stays the
 * caller's for its next chunk.  What the caller spends on it (about a
 * millisecond a MiB) it no longer spends faulting in fresh buffers for a
 * growing queue, and the queue holds twice the data before the caller
 * waits (the same runs: losses in 6 of 9, 72k samples in all against
 * 105k).  QUEUE is the number of chunks queued raw or compressed. */
#define CALLER_BYTES (QUEUE_BYTES / 4)
typedef struct compressor {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    chunk_job job[QUEUE];
    int head, n, quit, err, started;
    size_t bytes;
    buf spare[QUEUE]; /* at most one buffer per queued chunk is ever made */
    int nspare;
    buf zspare[QUEUE]; /* the same for the frames the caller compressed */
    int nzspare;
} compressor;

struct tr_writer {
    int fd;
    tr_writer_options opt;
    ZSTD_CCtx *cctx; /* with a compressor, its thread's alone */
    int cctx_level;  /* the level cctx is set to */
    ZSTD_CCtx *caller_cctx; /* the caller's, for chunks past CALLER_BYTES */
    int caller_level;
    compressor *comp;
    int err;      /* first write error: every later call returns it */
    int finished;

    buf chunk;    /* raw records of the open chunk */
    buf zout;     /* its compressed form */
    buf body;     /* one record body being encoded */
    uint64_t seq;
    uint32_t chunk_records;
    uint64_t base_time, last_time;
    int have_time;
    uint32_t chunk_flags;
    uint64_t raw_since_key;
    uint32_t epoch;
    int sticky_just_emitted;
    struct timespec opened; /* when the open chunk got its first record */

    /* interned definitions, ids from 1; *_epoch[id] says whether emitted */
    buf str_data;
    struct { size_t off, len; } *strs;
    uint32_t *str_epoch;
    uint32_t nstr, capstr;
    idmap str_map;

    tr_frame *frames;
    uint32_t *frame_epoch;
    uint32_t nframe, capframe;
    idmap frame_map;

    /* stack nodes kept: node id stack_base + i is stacks[i], i from 1;
     * stacks[0] stands for the root side of every stack (parent 0).  A
     * node's children are a list, the one last found first: a new node
     * is appended, and its parent (usually the node just made) is in
     * cache, so a deep new stack costs no hash look-up at all.  The
     * children of a node with more than WIDE of them are found through
     * wide_map instead. */
    struct { uint32_t parent, frame, child, sibling, nchild; } *stacks;
    uint32_t *stack_epoch;
    uint32_t nstack, capstack;
    uint32_t stack_base;   /* ids up to it were forgotten (tr_writer_forget_stacks) */
    int forget_pending;    /* the next chunk says so (TR_CHUNK_FORGET) */
    idmap wide_map;        /* (parent index, frame) -> index, for wide parents */
    thread_stack threads[THREAD_STACKS];
    struct { uint64_t addr; uint32_t flags, id; } raw_frames[RAW_FRAME_CACHE]; /* raw frame ids by address */

    uint32_t nevents;
    sticky *sticky;
    size_t nsticky, capsticky;

    stack_images images; /* opt.stack_delta: each thread's stack image in the chunk */
    /* opt.stack_runs 2: what the open chunk's STACK_CHAIN records code
     * against (spec/FORMAT.md 4.1): the last node and the last frame they
     * defined, and the frame of their last entry; 0 at a chunk's start */
    struct { uint32_t node, frame, entry; } chain;

    tr_writer_stats st;
};

/* ---- output ---- */

static int write_all(tr_writer *w, const struct iovec *iov, int n)
{
    struct iovec v[4];
    memcpy(v, iov, (size_t)n * sizeof *v);
    int i = 0;
    while (i < n) {
        ssize_t k = writev(w->fd, v + i, n - i);
        if (k < 0) {
            if (errno == EINTR) continue;
            return errno == EPIPE ? TR_E_EPIPE : errno == ENOSPC ? TR_E_NOSPC : TR_E_IO;
        }
        while (i < n && (size_t)k >= v[i].iov_len) k -= (ssize_t)v[i++].iov_len;
        if (i < n) {
            v[i].iov_base = (char *)v[i].iov_base + k;
            v[i].iov_len -= (size_t)k;
        }
    }
    return 0;
}

/* A tr frame: skippable-frame header, content, CRC-32C of the content. */
static int write_frame(tr_writer *w, uint8_t *content, uint32_t size, const void *extra, size_t extra_len)
{
    uint8_t hdr[8];
    put_le32(hdr, TR_SKIP_MAGIC);
    put_le32(hdr + 4, size);
    put_le32(content + size - 4, tr_crc32c(0, content, size - 4));
    struct iovec v[3] = {{hdr, 8}, {content, size}, {(void *)extra, extra_len}};
    return write_all(w, v, extra_len ? 3 : 2);
}

#define SMALL_CHUNK (16u << 10) /* chunks below it are compressed at opt.small_level */
/* A compressor with BEHIND_BYTES of raw chunks queued behind the one it takes
 * compresses that one at zstd's --fast=20, to catch up before the queue is full
 * and the caller waits: half the instructions a byte of --fast=3 on a server
 * dwarf recording's chunks, for a third more bytes (callgrind, zstd 1.5.4). */
#define BEHIND_BYTES ((size_t)8 << 20)
#define BEHIND_LEVEL (-20)

/* A compression context for chunks: its frames checksummed and sized. */
static ZSTD_CCtx *new_cctx(void)
{
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    if (cctx) {
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    }
    return cctx;
}

static void set_level(ZSTD_CCtx *cctx, int *cur, int level)
{
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    /* the --fast levels (a dwarf recording's stack copies, made of 8-byte words): no matches
     * shorter than 7 bytes (server dwarf at --fast=4, callgrind: 14% fewer instructions for 5%
     * more bytes; at --fast=20 10% fewer for 2% more) */
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_minMatch, level < 0 ? 7 : 0);
    *cur = level;
}

/* Compress raw into out with cctx (at *cur_level) at the level of a chunk
 * with behind raw bytes queued after it: 0, or an error. */
static int compress_chunk(const tr_writer *w, ZSTD_CCtx *cctx, int *cur_level, const buf *raw, size_t behind,
                          buf *out)
{
    int level = w->opt.small_level && raw->len < SMALL_CHUNK ? w->opt.small_level : w->opt.level;
    if (behind >= BEHIND_BYTES && level > BEHIND_LEVEL) level = BEHIND_LEVEL;
    if (level != *cur_level) set_level(cctx, cur_level, level);
    size_t bound = ZSTD_compressBound(raw->len);
    out->len = 0;
    if (tr_internal_buf_reserve(out, bound)) return TR_E_NOMEM;
    size_t z = ZSTD_compress2(cctx, out->p, bound, raw->p, raw->len);
    if (ZSTD_isError(z)) return TR_E_COMPRESS;
    out->len = z;
    return 0;
}

/* Compress (unless the caller did) and write one chunk (on the compressor's
 * thread, if any, with behind raw bytes queued after it). */
static int write_chunk(tr_writer *w, const chunk_job *j, size_t behind, size_t *written)
{
    const buf *zf = &j->z;
    if (!zf->len) {
        int e = compress_chunk(w, w->cctx, &w->cctx_level, &j->raw, behind, &w->zout);
        if (e) return e;
        zf = &w->zout;
    }
    size_t z = zf->len;
    uint8_t c[TR_CHUNK_SIZE];
    put_le32(c, TR_KIND_CHUNK);
    put_le64(c + 4, j->seq);
    put_le32(c + 12, j->flags);
    put_le32(c + 16, (uint32_t)z);
    put_le32(c + 20, (uint32_t)j->raw_len);
    put_le32(c + 24, j->records);
    put_le64(c + 28, j->base_time);
    *written = z + 8 + TR_CHUNK_SIZE;
    return write_frame(w, c, TR_CHUNK_SIZE, zf->p, z);
}

static void count_chunk(tr_writer *w, size_t raw, size_t written)
{
    w->st.chunks++;
    w->st.raw_bytes += raw;
    w->st.compressed_bytes += written;
}

/* The bytes a queued chunk holds. */
static size_t job_bytes(const chunk_job *j)
{
    return j->z.len ? j->z.len : j->raw.len;
}

static void *compressor_main(void *arg)
{
    tr_writer *w = arg;
    compressor *c = w->comp;
    if (w->opt.compress_thread == 2) /* below the caller: it drains, this thread can wait */
        setpriority(PRIO_PROCESS, (id_t)gettid(), getpriority(PRIO_PROCESS, (id_t)gettid()) + 10);
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->n && !c->quit) pthread_cond_wait(&c->cv, &c->mu);
        if (!c->n) break;
        chunk_job *j = &c->job[c->head];
        size_t held = job_bytes(j), behind = c->bytes - held;
        pthread_mutex_unlock(&c->mu);
        size_t written = 0;
        int e = c->err ? 0 : write_chunk(w, j, behind, &written); /* after an error, chunks are dropped */
        pthread_mutex_lock(&c->mu);
        if (e) c->err = e;
        else if (written) count_chunk(w, j->raw_len, written);
        c->bytes -= held;
        buf done[2 * QUEUE + 2];
        int ndone = 0;
        c->head = (c->head + 1) % QUEUE;
        c->n--;
        if (j->raw.p && c->nspare < QUEUE && (c->n || c->nspare < SPARES))
            c->spare[c->nspare++] = (buf){j->raw.p, 0, j->raw.cap};
        else if (j->raw.p)
            done[ndone++] = j->raw;
        if (j->z.p && c->nzspare < QUEUE && c->n)
            c->zspare[c->nzspare++] = (buf){j->z.p, 0, j->z.cap};
        else if (j->z.p)
            done[ndone++] = j->z;
        j->raw = j->z = (buf){0};
        while (!c->n && c->nspare > SPARES) done[ndone++] = c->spare[--c->nspare]; /* caught up */
        while (!c->n && c->nzspare) done[ndone++] = c->zspare[--c->nzspare];
        pthread_cond_broadcast(&c->cv);
        if (ndone) { /* freed without the lock, which the caller may be waiting for */
            pthread_mutex_unlock(&c->mu);
            while (ndone) tr_internal_buf_free(&done[--ndone]);
            pthread_mutex_lock(&c->mu);
        }
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* Wait until the compressor has room for a chunk of len raw bytes, or, with
 * len SIZE_MAX, has written all (lock held on return); its first error
 * becomes the writer's.  A chunk larger than QUEUE_BYTES waits for an empty
 * queue. */
static void compressor_wait(tr_writer *w, size_t len)
{
    compressor *c = w->comp;
    pthread_mutex_lock(&c->mu);
    while (c->n && (c->n == QUEUE || len > QUEUE_BYTES - c->bytes)) pthread_cond_wait(&c->cv, &c->mu);
    if (c->err && !w->err) w->err = c->err;
}

/* Compress j's records into j->z on the caller's thread (see CALLER_BYTES);
 * its raw buffer stays the caller's, w->chunk: 0, or an error. */
static int compress_caller(tr_writer *w, chunk_job *j, size_t queued)
{
    if (!w->caller_cctx && !(w->caller_cctx = new_cctx())) return TR_E_NOMEM;
    int e = compress_chunk(w, w->caller_cctx, &w->caller_level, &j->raw, queued, &j->z);
    if (e) {
        tr_internal_buf_free(&j->z);
        return e;
    }
    j->raw = (buf){0};
    return 0;
}

static int flush_chunk(tr_writer *w)
{
    if (w->err) return w->err;
    if (!w->chunk.len) return 0;
    chunk_job j = {w->chunk, {0}, w->chunk.len, w->seq, w->base_time, w->chunk_flags, w->chunk_records};
    int e = 0;
    if (w->comp) { /* queue the chunk; the next one fills the spare buffer, if any */
        compressor *c = w->comp;
        pthread_mutex_lock(&c->mu);
        size_t queued = c->n ? c->bytes : 0;
        if (queued >= CALLER_BYTES && c->nzspare) j.z = c->zspare[--c->nzspare];
        pthread_mutex_unlock(&c->mu);
        if (queued >= CALLER_BYTES && (e = compress_caller(w, &j, queued))) return w->err = e;
        compressor_wait(w, job_bytes(&j));
        if (!w->err) {
            c->job[(c->head + c->n) % QUEUE] = j;
            c->n++;
            c->bytes += job_bytes(&j);
            if (!j.z.len) w->chunk = c->nspare ? c->spare[--c->nspare] : (buf){0};
            pthread_cond_broadcast(&c->cv);
        }
        pthread_mutex_unlock(&c->mu);
        if (w->err) {
            tr_internal_buf_free(&j.z);
            return w->err;
        }
        /* no spare (the compressor is behind): room for a chunk like this one at once, not
         * by doublings, each a copy; untouched, it is no resident memory */
        if (!w->chunk.p && (e = tr_internal_buf_reserve(&w->chunk, j.raw_len))) return w->err = e;
    } else {
        size_t written;
        if ((e = write_chunk(w, &j, 0, &written))) return w->err = e;
        count_chunk(w, j.raw_len, written);
    }
    w->raw_since_key += j.raw_len;
    w->seq++;
    tr_internal_stack_images_reset(&w->images);
    memset(&w->chain, 0, sizeof w->chain);
    w->chunk.len = 0;
    w->chunk_records = 0;
    w->have_time = 0;
    return 0;
}

/* Write what was handed to the compressor, and stop it. */
static void compressor_stop(tr_writer *w)
{
    compressor *c = w->comp;
    if (!c) return;
    if (c->started) {
        compressor_wait(w, SIZE_MAX);
        c->quit = 1;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        pthread_join(c->thread, NULL);
    }
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    for (int i = 0; i < QUEUE; i++) {
        tr_internal_buf_free(&c->job[i].raw);
        tr_internal_buf_free(&c->job[i].z);
    }
    for (int i = 0; i < c->nspare; i++) tr_internal_buf_free(&c->spare[i]);
    for (int i = 0; i < c->nzspare; i++) tr_internal_buf_free(&c->zspare[i]);
    free(c);
    w->comp = NULL;
}

static int compressor_start(tr_writer *w)
{
    compressor *c = calloc(1, sizeof *c);
    if (!c) return TR_E_NOMEM;
    w->comp = c;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    if (pthread_create(&c->thread, NULL, compressor_main, w)) return TR_E_NOMEM;
    c->started = 1;
    return 0;
}

/* ---- appending records to the open chunk ---- */

static int put_record(tr_writer *w, uint32_t type, const uint8_t *pre, size_t npre, const buf *body)
{
    buf *c = &w->chunk;
    size_t n = npre + body->len;
    if (c->cap - c->len < n + 20 && tr_internal_buf_reserve(c, n + 20)) return w->err = TR_E_NOMEM;
    uint8_t *p = c->p + c->len;
    p += varint_put(p, type);
    p += varint_put(p, n);
    if (npre) memcpy(p, pre, npre);
    if (body->len) memcpy(p + npre, body->p, body->len);
    c->len = (size_t)(p - c->p) + n;
    w->chunk_records++;
    w->st.records++;
    return 0;
}

/* Shorter common ends are written out: the kept length costs a varint. */
#define STACK_KEPT_MIN 16

/* Encode rec's body into w->body.  A sample's stack copy, when delta-coding,
 * is checked against its thread's image: *im is that image (NULL when the
 * record has none) and *d what of the copy it holds. */
static int encode(tr_writer *w, const tr_record *rec, stack_image **im, copy_delta *d)
{
    int e;
    *im = NULL;
    *d = (copy_delta){0};
    if (w->opt.stack_delta && rec->type == TR_REC_SAMPLE && rec->u.sample.stack_copy_len) {
        size_t n = rec->u.sample.stack_copy_len;
        const uint8_t *s = rec->u.sample.stack_copy;
        if (!(*im = tr_internal_stack_image_get(&w->images, rec->pid, rec->tid)) ||
            tr_internal_stack_image_reserve(&w->images, *im, n))
            return w->err = TR_E_NOMEM;
        if (w->opt.stack_delta == 2 && rec->u.sample.stack_copy_addr) {
            d->addressed = 1;
            tr_internal_stack_image_match_at(*im, s, n, rec->u.sample.stack_copy_addr, STACK_KEPT_MIN, &d->kept,
                                             &d->tail);
        } else if ((d->kept = tr_internal_stack_image_suffix(*im, s, n)) < STACK_KEPT_MIN) {
            d->kept = 0;
        }
    }
    /* a stack just defined is the chunk's last chain node: 0 written; an
     * older one keeps its id, which repeats as the stack does */
    if (w->opt.stack_runs == 2 && rec->type == TR_REC_SAMPLE && rec->u.sample.stack &&
        rec->u.sample.stack == w->chain.node) {
        d->stack_rel = 1;
        d->stack_base = w->chain.node;
    }
    w->body.len = 0;
    if ((e = tr_internal_rec_encode_body(&w->body, rec, d))) return e == TR_E_NOMEM ? (w->err = e) : e;
    return 0;
}

/* A sample with neither registers, a stack copy nor raw data (a -g
 * profile's), appended as encode and put_record would, straight into the
 * chunk: under 64 bytes in all, its length one byte.  0: not such a
 * sample, or the chunk is nearly full (append decides whether it ends). */
static int append_plain_sample(tr_writer *w, const tr_record *rec)
{
    const __typeof__(rec->u.sample) *s = &rec->u.sample;
    if (s->abi || s->stack_copy_len || s->raw_len || w->chunk.len + 64 + 64 > TR_RAW_MAX ||
        (w->chunk.cap - w->chunk.len < 64 && tr_internal_buf_reserve(&w->chunk, 64)))
        return 0;
    uint8_t *p = w->chunk.p + w->chunk.len, *q = p + 2;
    q += varint_put(q, zigzag(w->have_time ? (int64_t)(rec->time - w->last_time) : 0));
    q += varint_put(q, zigzag(rec->pid));
    q += varint_put(q, zigzag(rec->tid));
    q += varint_put(q, zigzag(rec->cpu));
    q += varint_put(q, s->event);
    q += varint_put(q, s->period);
    /* a stack just defined: 0 relative to the chain that defined it (sflags bit 5) */
    int rel = w->opt.stack_runs == 2 && s->stack && s->stack == w->chain.node;
    q += varint_put(q, rel ? 0 : s->stack);
    *q++ = rel ? 32 : 0;
    p[0] = TR_REC_SAMPLE;
    p[1] = (uint8_t)(q - p - 2);
    if (!w->have_time) w->base_time = rec->time;
    w->have_time = 1;
    w->last_time = rec->time;
    w->chunk.len = (size_t)(q - w->chunk.p);
    w->chunk_records++;
    w->st.records++;
    return 1;
}

/* Encode and append one record.  The body is encoded first, so that a chunk
 * that would pass the hard size limit is ended before the time prefix,
 * which depends on the chunk, is computed (and a stack copy is encoded
 * again: the new chunk starts with empty images). */
static int append(tr_writer *w, const tr_record *rec)
{
    int e;
    stack_image *im;
    copy_delta d;
    if ((e = encode(w, rec, &im, &d))) return e;
    if (w->body.len > TR_RAW_MAX / 2) return TR_E_TOO_LARGE;
    if (w->chunk.len + w->body.len + 64 > TR_RAW_MAX) {
        if ((e = flush_chunk(w))) return e;
        if ((im || d.stack_rel) && (e = encode(w, rec, &im, &d))) return e; /* what it codes against is reset */
        if (w->body.len > TR_RAW_MAX / 2) return TR_E_TOO_LARGE; /* written whole, it is too large */
    }
    uint8_t pre[40];
    size_t n = 0;
    if (type_has_prefix(rec->type)) {
        int64_t dt = w->have_time ? (int64_t)(rec->time - w->last_time) : 0;
        n += varint_put(pre + n, zigzag(dt));
        n += varint_put(pre + n, zigzag(rec->pid));
        n += varint_put(pre + n, zigzag(rec->tid));
        n += varint_put(pre + n, zigzag(rec->cpu));
        if (!w->have_time) w->base_time = rec->time;
        w->have_time = 1;
        w->last_time = rec->time;
    }
    if ((e = put_record(w, rec->type, pre, n, &w->body))) return e;
    if (im) { /* the image as the reader will have it */
        size_t len = rec->u.sample.stack_copy_len;
        if (d.addressed)
            tr_internal_stack_image_put_at(im, rec->u.sample.stack_copy, len, 0, 0, rec->u.sample.stack_copy_addr);
        else
            tr_internal_stack_image_put(im, rec->u.sample.stack_copy, len - d.kept, d.kept);
    }
    return 0;
}

static int append_raw(tr_writer *w, uint32_t type, const buf *body)
{
    int e;
    if (w->chunk.len + body->len + 64 > TR_RAW_MAX && (e = flush_chunk(w))) return e;
    return put_record(w, type, NULL, 0, body);
}

/* Called before each group of records (definitions + the record using
 * them): groups are never split across chunks.  Opens a chunk, key or not. */
static int begin_group(tr_writer *w)
{
    int e;
    w->sticky_just_emitted = 0;
    if (w->err) return w->err;
    if (w->finished) return TR_E_FINISHED;
    if (w->chunk.len >= w->opt.chunk_size && (e = flush_chunk(w))) return e;
    if (w->chunk.len) return 0;
    if (w->chunk.cap < w->opt.chunk_size) { /* room for the chunk at once, instead of doubling it up (copies) */
        tr_internal_buf_free(&w->chunk);
        if (tr_internal_buf_reserve(&w->chunk, w->opt.chunk_size + 1024)) return w->err = TR_E_NOMEM;
    }
    clock_gettime(CLOCK_MONOTONIC, &w->opened);
    w->chunk_flags = w->forget_pending ? TR_CHUNK_FORGET : 0;
    if (w->seq == 0 || w->raw_since_key >= w->opt.key_interval || w->forget_pending) {
        w->forget_pending = 0;
        w->chunk_flags |= TR_CHUNK_KEY;
        w->raw_since_key = 0;
        w->epoch++;
        for (size_t i = 0; i < w->nsticky; i++)
            if ((e = append_raw(w, w->sticky[i].type, &w->sticky[i].body))) return e;
        w->sticky_just_emitted = 1;
    }
    return 0;
}

/* ---- sticky records ---- */

static int sticky_add(tr_writer *w, const tr_record *rec, const char *key)
{
    int e;
    sticky *s = NULL;
    if (key)
        for (size_t i = 0; i < w->nsticky; i++)
            if (w->sticky[i].key && w->sticky[i].type == rec->type && !strcmp(w->sticky[i].key, key)) {
                s = &w->sticky[i];
                s->body.len = 0;
            }
    if (!s) {
        if (tr_internal_array_reserve(&w->sticky, &w->capsticky, w->nsticky + 1, sizeof *w->sticky, 16))
            return TR_E_NOMEM;
        s = &w->sticky[w->nsticky];
        memset(s, 0, sizeof *s);
        s->type = rec->type;
        if (key && !(s->key = strdup(key))) return TR_E_NOMEM;
        w->nsticky++;
    }
    if ((e = tr_internal_rec_encode_body(&s->body, rec, NULL))) return e;
    if ((e = begin_group(w))) return e;
    if (!w->sticky_just_emitted) return append_raw(w, rec->type, &s->body);
    return 0;
}

int tr_writer_meta(tr_writer *w, const char *key, const char *value)
{
    if (!w || !key || !value || !*key) return TR_E_INVAL;
    tr_record r = {.type = TR_REC_META};
    r.u.meta.key = key;
    r.u.meta.key_len = strlen(key);
    r.u.meta.value = value;
    r.u.meta.value_len = strlen(value);
    return sticky_add(w, &r, key);
}

int tr_writer_event(tr_writer *w, const tr_event_def *def, uint32_t *id)
{
    if (!w || !def) return TR_E_INVAL;
    tr_record r = {.type = TR_REC_EVENT_DEF};
    r.u.event_def = *def;
    if (!r.u.event_def.id) r.u.event_def.id = ++w->nevents;
    else if (r.u.event_def.id > w->nevents) w->nevents = r.u.event_def.id;
    char key[16];
    snprintf(key, sizeof key, "%u", r.u.event_def.id);
    if (id) *id = r.u.event_def.id;
    return sticky_add(w, &r, key);
}

int tr_writer_syscall_table(tr_writer *w, const char *arch, const uint32_t *nrs, const char *const *names,
                            size_t n)
{
    if (!w || !arch || (n && (!nrs || !names)) || n > UINT32_MAX) return TR_E_INVAL;
    buf e = {0};
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(names[i]);
        if (buf_varint(&e, nrs[i]) || buf_varint(&e, l) || buf_put(&e, names[i], l)) {
            tr_internal_buf_free(&e);
            return TR_E_NOMEM;
        }
    }
    tr_record r = {.type = TR_REC_SYSCALL_TABLE};
    r.u.syscall_table.arch = arch;
    r.u.syscall_table.arch_len = strlen(arch);
    r.u.syscall_table.count = (uint32_t)n;
    r.u.syscall_table.entries = e.p;
    r.u.syscall_table.entries_len = e.len;
    int rc = sticky_add(w, &r, arch);
    tr_internal_buf_free(&e);
    return rc;
}

int tr_writer_blob(tr_writer *w, const char *name, const void *data, size_t len, int is_sticky)
{
    if (!w || !name || (len && !data)) return TR_E_INVAL;
    if (len > TR_RAW_MAX / 2) return TR_E_TOO_LARGE;
    tr_record r = {.type = TR_REC_BLOB};
    r.u.blob.name = name;
    r.u.blob.name_len = strlen(name);
    r.u.blob.data = data;
    r.u.blob.len = len;
    if (is_sticky) return sticky_add(w, &r, name);
    int e = begin_group(w);
    return e ? e : append(w, &r);
}

/* ---- interning ---- */

/* Grow the pair arr, eparr (cap entries each) to more than need entries. */
#define GROW_TO(arr, eparr, need, cap)                                                    \
    do {                                                                                  \
        if ((need) >= (cap)) {                                                            \
            uint32_t nc_ = (cap) ? (cap) : 256;                                           \
            while (nc_ <= (need)) nc_ *= 2;                                               \
            void *a_ = realloc((arr), nc_ * sizeof *(arr));                               \
            if (!a_) return TR_E_NOMEM;                                                   \
            tr_advise_huge(a_, nc_ * sizeof *(arr));                                      \
            (arr) = a_;                                                                   \
            void *e_ = realloc((eparr), nc_ * sizeof *(eparr));                           \
            if (!e_) return TR_E_NOMEM;                                                   \
            tr_advise_huge(e_, nc_ * sizeof *(eparr));                                    \
            (eparr) = e_;                                                                 \
            (cap) = nc_;                                                                  \
        }                                                                                 \
    } while (0)
#define GROW(arr, eparr, n, cap) GROW_TO(arr, eparr, (n) + 1, cap)

int tr_writer_string(tr_writer *w, const char *s, size_t len, uint32_t *id)
{
    if (!w || (!s && len) || !id) return TR_E_INVAL;
    for (uint64_t seed = 0;; seed++) {
        uint32_t *slot = tr_internal_idmap_slot(&w->str_map, tr_internal_hash64(s, len, seed)), v;
        if (!slot) return TR_E_NOMEM;
        if (!(v = *slot)) {
            GROW(w->strs, w->str_epoch, w->nstr, w->capstr);
            if (buf_put(&w->str_data, s, len)) return TR_E_NOMEM;
            v = ++w->nstr;
            w->strs[v].off = w->str_data.len - len;
            w->strs[v].len = len;
            w->str_epoch[v] = 0;
            *id = *slot = v;
            return 0;
        }
        if (w->strs[v].len == len && !memcmp(w->str_data.p + w->strs[v].off, s, len)) {
            *id = v;
            return 0;
        }
    }
}

static void frame_norm(tr_frame *n, const tr_frame *f)
{
    memset(n, 0, sizeof *n);
    n->addr = f->addr;
    n->flags = f->flags;
    if (f->flags & TR_FRAME_SYMBOLIZED) {
        n->func = f->func;
        n->module = f->module;
        n->file = f->file;
        n->offset = f->offset;
        n->line = f->line;
    }
}

/* The key of normalised frame n in frame_map, for a seed (a frame whose key
 * another holds tries the next): its fields multiplied into a word, not
 * hashed byte by byte (tr_internal_hash64), once per frame interned. */
static uint64_t frame_key(const tr_frame *n, uint64_t seed)
{
    uint64_t h = n->addr * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)n->flags << 32 | n->func) * 0xbf58476d1ce4e5b9ull;
    h ^= ((uint64_t)n->module << 32 | n->file) * 0x94d049bb133111ebull;
    h ^= (n->offset ^ (uint64_t)n->line << 40 ^ seed << 20) * 0xd6e8feb86659fd93ull;
    return h ^ h >> 31;
}

/* f normalised into *n, its strings checked: 0 or TR_E_INVAL. */
static inline __attribute__((always_inline)) int frame_checked(const tr_writer *w, const tr_frame *f, tr_frame *n)
{
    frame_norm(n, f);
    if ((n->func && n->func > w->nstr) || (n->module && n->module > w->nstr) || (n->file && n->file > w->nstr))
        return TR_E_INVAL;
    return 0;
}

/* Normalised frame n added: *id its new id. */
static inline __attribute__((always_inline)) int frame_append(tr_writer *w, const tr_frame *n, uint32_t *id)
{
    GROW(w->frames, w->frame_epoch, w->nframe, w->capframe);
    uint32_t v = ++w->nframe;
    w->frames[v] = *n;
    w->frame_epoch[v] = 0;
    *id = v;
    return 0;
}

int tr_writer_frame(tr_writer *w, const tr_frame *f, uint32_t *id)
{
    if (!w || !f || !id) return TR_E_INVAL;
    tr_frame n;
    int e = frame_checked(w, f, &n);
    if (e) return e;
    for (uint64_t seed = 0;; seed++) {
        uint32_t *slot = tr_internal_idmap_slot(&w->frame_map, frame_key(&n, seed)), v;
        if (!slot) return TR_E_NOMEM;
        if (!(v = *slot)) {
            if ((e = frame_append(w, &n, &v))) return e;
            *id = *slot = v;
            return 0;
        }
        if (!memcmp(&w->frames[v], &n, sizeof n)) {
            *id = v;
            return 0;
        }
    }
}

static int stacks_grow(tr_writer *w, size_t more);

int tr_writer_reserve(tr_writer *w, size_t frames, size_t nodes)
{
    if (!w) return TR_E_INVAL;
    size_t nf = (size_t)w->nframe + frames + 1;
    if (frames > UINT32_MAX / 4 || nodes > UINT32_MAX / 4 || nf > UINT32_MAX / 2) return TR_E_NOMEM;
    GROW_TO(w->frames, w->frame_epoch, nf, w->capframe);
    /* the children of nodes with many (in a profile of many distinct
     * addresses, cc -g's: 14,000 of 35,000 nodes) */
    if (tr_internal_idmap_reserve(&w->frame_map, w->frame_map.n + frames) ||
        tr_internal_idmap_reserve(&w->wide_map, w->wide_map.n + nodes / 3))
        return TR_E_NOMEM;
    return (size_t)w->nstack + nodes + 1 >= w->capstack ? stacks_grow(w, nodes + 1) : 0;
}

int tr_writer_frame_new(tr_writer *w, const tr_frame *f, uint32_t *id)
{
    if (!w || !f || !id) return TR_E_INVAL;
    tr_frame n;
    int e = frame_checked(w, f, &n);
    return e ? e : frame_append(w, &n, id);
}

int tr_writer_forget_stacks(tr_writer *w)
{
    if (!w) return TR_E_INVAL;
    if (w->finished) return TR_E_FINISHED;
    int e = flush_chunk(w); /* the next chunk, a key chunk, is the first without them */
    if (e) return e;
    w->stack_base += w->nstack;
    w->nstack = 0;
    if (w->stacks) w->stacks[0].child = w->stacks[0].nchild = 0;
    tr_internal_idmap_clear(&w->wide_map);
    w->forget_pending = 1;
    return 0;
}

/* Forget every stack node when more than opt.stack_limit are kept. */
static int stacks_limit(tr_writer *w)
{
    if (!w->opt.stack_limit || w->nstack <= w->opt.stack_limit) return 0;
    return tr_writer_forget_stacks(w);
}

/* Room for more stack nodes (stacks[0], the root side, made with the
 * first): not inline, once per doubling. */
static __attribute__((noinline)) int stacks_grow(tr_writer *w, size_t more)
{
    size_t cap = w->capstack ? w->capstack : 256;
    while ((size_t)w->nstack + more >= cap) cap *= 2;
    if (cap > UINT32_MAX) return TR_E_NOMEM;
    void *s = realloc(w->stacks, cap * sizeof *w->stacks);
    if (!s) return TR_E_NOMEM;
    tr_advise_huge(s, cap * sizeof *w->stacks);
    if (!w->stacks) memset(s, 0, sizeof *w->stacks);
    w->stacks = s;
    void *e = realloc(w->stack_epoch, cap * sizeof *w->stack_epoch);
    if (!e) return TR_E_NOMEM;
    tr_advise_huge(e, cap * sizeof *w->stack_epoch);
    w->stack_epoch = e;
    w->capstack = (uint32_t)cap;
    return 0;
}

/* Child c of node p of frame frame, moved to the front of p's list; 0 when
 * p has none such. */
static uint32_t find_child(tr_writer *w, uint32_t p, uint32_t frame)
{
    for (uint32_t prev = 0, c = w->stacks[p].child; c; prev = c, c = w->stacks[c].sibling) {
        if (w->stacks[c].frame != frame) continue;
        if (prev) { /* to the front */
            w->stacks[prev].sibling = w->stacks[c].sibling;
            w->stacks[c].sibling = w->stacks[p].child;
            w->stacks[p].child = c;
        }
        return c;
    }
    return 0;
}

/* Node p's new child i goes into wide_map: with the others when it makes
 * p wide. */
static __attribute__((noinline)) int wide_put(tr_writer *w, uint32_t p, uint32_t i)
{
    if (w->stacks[p].nchild > WIDE + 1) return tr_internal_idmap_put(&w->wide_map, (uint64_t)p << 32 | w->stacks[i].frame, i);
    for (uint32_t c = w->stacks[p].child; c; c = w->stacks[c].sibling) /* too many to scan: the list goes into the map */
        if (tr_internal_idmap_put(&w->wide_map, (uint64_t)p << 32 | w->stacks[c].frame, c)) return TR_E_NOMEM;
    return 0;
}

/* Make node (parent, frame) under node p (the index of parent). */
static inline __attribute__((always_inline)) int new_node(tr_writer *w, uint32_t p, uint32_t parent, uint32_t frame,
                                                          uint32_t *id)
{
    uint32_t i = ++w->nstack;
    w->stacks[i].parent = parent;
    w->stacks[i].frame = frame;
    w->stacks[i].child = w->stacks[i].nchild = 0;
    w->stacks[i].sibling = w->stacks[p].child;
    w->stacks[p].child = i;
    w->stack_epoch[i] = 0;
    *id = w->stack_base + i;
    return ++w->stacks[p].nchild > WIDE ? wide_put(w, p, i) : 0;
}

/* stack_node's other cases: no room yet, parent has children to search
 * (when find), or the ids are used up. */
static __attribute__((noinline)) int stack_node_slow(tr_writer *w, uint32_t p, uint32_t parent, uint32_t frame,
                                                     int find, uint32_t *id)
{
    if (w->nstack + 1 >= w->capstack && stacks_grow(w, 1)) return TR_E_NOMEM;
    if (find && w->stacks[p].child) {
        uint32_t c = w->stacks[p].nchild > WIDE ? tr_internal_idmap_get(&w->wide_map, (uint64_t)p << 32 | frame)
                                                : find_child(w, p, frame);
        if (c) {
            *id = w->stack_base + c;
            return 0;
        }
    }
    if (w->stack_base + w->nstack == UINT32_MAX) return TR_E_TOO_LARGE;
    return new_node(w, p, parent, frame, id);
}

/* The node (parent, frame): found among parent's children, or made when
 * find is 0 (parent was just made: it has none) or it is not there.  Inline
 * in its callers, once per frame of every new stack: a node made under a
 * parent with no children (the node just made, on a deep new stack) costs
 * no call. */
static inline __attribute__((always_inline)) int stack_node(tr_writer *w, uint32_t parent, uint32_t frame, int find,
                                                            uint32_t *id)
{
    uint32_t p = parent ? parent - w->stack_base : 0;
    if (w->nstack + 1 >= w->capstack || (find && w->stacks[p].child) || w->stack_base + w->nstack == UINT32_MAX)
        return stack_node_slow(w, p, parent, frame, find, id);
    return new_node(w, p, parent, frame, id);
}

int tr_writer_stack_node(tr_writer *w, uint32_t parent, uint32_t frame, uint32_t *id)
{
    if (!w || !id || !frame || frame > w->nframe) return TR_E_INVAL;
    /* parent 0, or one of the nodes kept: base + 1 .. base + nstack */
    if (parent && parent - w->stack_base - 1 >= w->nstack) return TR_E_INVAL;
    return stack_node(w, parent, frame, 1, id);
}

int tr_writer_stack_nodes(tr_writer *w, uint32_t parent, const uint32_t *frames, size_t n, uint32_t *ids)
{
    if (!w || (n && (!frames || !ids)) || (parent && parent - w->stack_base - 1 >= w->nstack)) return TR_E_INVAL;
    size_t i = 0;
    for (int find = 1; find; i++) { /* found: the next is looked up too */
        if (i == n) return 0;
        if (!frames[i] || frames[i] > w->nframe) return TR_E_INVAL;
        uint32_t before = w->nstack;
        int e = stack_node(w, parent, frames[i], 1, &parent);
        if (e) return e;
        ids[i] = parent;
        find = w->nstack == before;
    }
    /* the others, each below the node just made (no children: none looked
     * up, no list to join), with the table's fields in locals */
    if (n - i > (size_t)UINT32_MAX - w->stack_base - w->nstack) return TR_E_TOO_LARGE; /* ids past 2^32 - 1 */
    if ((size_t)w->nstack + (n - i) + 1 >= w->capstack && stacks_grow(w, n - i + 1)) return TR_E_NOMEM;
    __typeof__(w->stacks) stacks = w->stacks;
    uint32_t *epoch = w->stack_epoch;
    const uint32_t base = w->stack_base, nframe = w->nframe;
    uint32_t k = w->nstack;
    int e = 0;
    for (; i < n; i++) {
        uint32_t frame = frames[i];
        if (!frame || frame > nframe) {
            e = TR_E_INVAL;
            break;
        }
        stacks[parent - base].child = ++k;
        stacks[parent - base].nchild = 1;
        stacks[k].parent = parent;
        stacks[k].frame = frame;
        stacks[k].child = stacks[k].sibling = stacks[k].nchild = 0;
        epoch[k] = 0;
        ids[i] = parent = base + k;
    }
    w->nstack = k;
    return e;
}

int tr_writer_stack(tr_writer *w, const uint32_t *frames, size_t n, uint32_t *id)
{
    if (!w || (!frames && n) || !id) return TR_E_INVAL;
    int e = stacks_limit(w);
    if (e) return e;
    uint32_t parent = 0;
    int find = 1;
    for (size_t i = n; i-- > 0;) {
        if (!frames[i] || frames[i] > w->nframe) return TR_E_INVAL;
        uint32_t before = w->nstack;
        if ((e = stack_node(w, parent, frames[i], find, &parent))) return e;
        find = w->nstack == before;
    }
    *id = parent;
    return 0;
}

static int raw_frame(tr_writer *w, uint64_t addr, uint32_t flags, uint32_t *id)
{
    flags &= ~TR_FRAME_SYMBOLIZED;
    __typeof__(w->raw_frames[0]) *c = &w->raw_frames[(addr ^ addr >> 12 ^ flags) & (RAW_FRAME_CACHE - 1)];
    if (c->id && c->addr == addr && c->flags == flags) {
        *id = c->id;
        return 0;
    }
    tr_frame f = {.addr = addr, .flags = flags};
    int e = tr_writer_frame(w, &f, id);
    if (!e) *c = (__typeof__(*c)){addr, flags, *id};
    return e;
}

int tr_writer_stack_addrs(tr_writer *w, const uint64_t *addrs, const uint32_t *flags, size_t n, uint32_t *id)
{
    uint32_t small[256], *ids = n <= 256 ? small : malloc(n * sizeof *ids);
    if (!ids) return TR_E_NOMEM;
    int e = 0;
    for (size_t i = 0; i < n && !e; i++) e = raw_frame(w, addrs[i], flags ? flags[i] : 0, &ids[i]);
    if (!e) e = tr_writer_stack(w, ids, n, id);
    if (ids != small) free(ids);
    return e;
}

int tr_writer_thread_stack(tr_writer *w, int32_t pid, int32_t tid, const uint64_t *addrs, const uint32_t *flags,
                           size_t n, uint32_t *id)
{
    if (!w || (!addrs && n) || !id) return TR_E_INVAL;
    int e = stacks_limit(w);
    if (e) return e;
    uint64_t h = ((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) * 0x9e3779b97f4a7c15ull;
    thread_stack *t = &w->threads[h >> 58 & (THREAD_STACKS - 1)];
    if (t->pid != pid || t->tid != tid || t->base != w->stack_base) {
        t->pid = pid;
        t->tid = tid;
        t->base = w->stack_base;
        t->n = 0;
    }
    if (n > t->cap) {
        uint32_t cap = n < 64 ? 64 : (uint32_t)n;
        uint64_t *a = realloc(t->addrs, cap * sizeof *a);
        if (a) t->addrs = a;
        uint32_t *f = realloc(t->flags, cap * sizeof *f), *v = f ? realloc(t->nodes, cap * sizeof *v) : NULL;
        if (f) t->flags = f;
        if (v) t->nodes = v;
        if (!a || !f || !v) {
            t->n = 0;
            return TR_E_NOMEM;
        }
        t->cap = cap;
    }
    /* the outer frames it shares with the thread's last stack keep their nodes */
    size_t k = 0;
    while (k < n && k < t->n && t->addrs[k] == addrs[n - 1 - k] &&
           t->flags[k] == (flags ? flags[n - 1 - k] & ~TR_FRAME_SYMBOLIZED : 0))
        k++;
    uint32_t parent = k ? t->nodes[k - 1] : 0;
    int find = 1;
    for (size_t i = k; i < n; i++) {
        uint64_t a = addrs[n - 1 - i];
        uint32_t fl = flags ? flags[n - 1 - i] & ~TR_FRAME_SYMBOLIZED : 0, frame;
        uint32_t before = w->nstack;
        e = raw_frame(w, a, fl, &frame);
        if (!e) e = stack_node(w, parent, frame, find, &parent);
        if (e) {
            t->n = (uint32_t)i;
            return e;
        }
        find = w->nstack == before;
        t->addrs[i] = a;
        t->flags[i] = fl;
        t->nodes[i] = parent;
    }
    t->n = (uint32_t)n;
    *id = parent;
    return 0;
}

/* ---- emitting definitions on first use in the epoch ---- */

static int emit_string(tr_writer *w, uint32_t id)
{
    if (!id || id > w->nstr || w->str_epoch[id] == w->epoch) return 0;
    w->str_epoch[id] = w->epoch;
    tr_record r; /* only what append reads of a definition: not the whole union zeroed */
    r.type = TR_REC_STRING;
    r.u.string.id = id;
    r.u.string.str = (const char *)w->str_data.p + w->strs[id].off;
    r.u.string.len = w->strs[id].len;
    return append(w, &r);
}

static int emit_frame(tr_writer *w, uint32_t id)
{
    if (!id || id > w->nframe || w->frame_epoch[id] == w->epoch) return 0;
    const tr_frame *f = &w->frames[id];
    int e;
    if ((e = emit_string(w, f->func)) || (e = emit_string(w, f->module)) || (e = emit_string(w, f->file)))
        return e;
    w->frame_epoch[id] = w->epoch;
    tr_record r; /* as in emit_string */
    r.type = TR_REC_FRAME;
    r.u.frame.id = id;
    r.u.frame.frame = *f;
    return append(w, &r);
}

/* One STACK_RUN record: the n nodes path[n-1] (its parent defined
 * already), path[n-2] ... path[0], each the parent of the next and with
 * the next id. */
static int emit_run(tr_writer *w, const uint32_t *path, uint32_t n)
{
    int e;
    w->body.len = 0;
    uint32_t first = path[n - 1];
    if ((e = buf_varint(&w->body, first)) || (e = buf_varint(&w->body, w->stacks[first - w->stack_base].parent)) ||
        (e = buf_varint(&w->body, n)))
        return w->err = e;
    for (uint32_t i = n; i-- > 0;)
        if ((e = buf_varint(&w->body, w->stacks[path[i] - w->stack_base].frame))) return w->err = e;
    if (w->chunk.len + w->body.len + 64 > TR_RAW_MAX && (e = flush_chunk(w))) return e;
    return put_record(w, TR_REC_STACK_RUN, NULL, 0, &w->body);
}

/* One STACK_CHAIN record: the n nodes first, first + 1 ... (first's parent
 * defined already), each the parent of the next; a frame not yet defined
 * in the epoch is defined where the chain first uses it (its strings were,
 * before: emit_stack).  Marks them emitted. */
static int emit_chain(tr_writer *w, uint32_t first, uint32_t n)
{
    int e;
    /* under 64 bytes a node and its frame: flushed first, the chain is
     * coded against the chunk it goes in */
    if (w->chunk.len + 64 + (size_t)n * 64 > TR_RAW_MAX && (e = flush_chunk(w))) return e;
    const uint32_t ep = w->epoch, s = first - w->stack_base;
    buf *b = &w->body;
    b->len = 0;
    /* the header, and an entry of a frame defined before (at most 5 bytes) for each */
    if (tr_internal_buf_reserve(b, 32 + (size_t)n * 5)) return w->err = TR_E_NOMEM;
    uint8_t *q = b->p;
    q += varint_put(q, zigzag((int64_t)first - w->chain.node - 1));
    q += varint_put(q, first - w->stacks[s].parent);
    q += varint_put(q, n);
    uint32_t entry = w->chain.entry;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t frame = w->stacks[s + k].frame;
        w->stack_epoch[s + k] = ep;
        if (w->frame_epoch[frame] != ep) { /* defined here: 0 the next id, or 1 and the id */
            w->frame_epoch[frame] = ep;
            int next = frame == w->chain.frame + 1;
            b->len = (size_t)(q - b->p);
            if ((e = buf_varint(b, next ? 0 : 1)) || (!next && (e = buf_varint(b, frame))) ||
                (e = tr_internal_frame_encode(b, &w->frames[frame])) ||
                (e = tr_internal_buf_reserve(b, (size_t)(n - k) * 5)))
                return w->err = e;
            q = b->p + b->len;
            w->chain.frame = frame;
        } else {
            q += varint_put(q, 2 + zigzag((int64_t)frame - entry - 1));
        }
        entry = frame;
    }
    b->len = (size_t)(q - b->p);
    w->chain.entry = entry;
    w->chain.node = first + n - 1;
    return put_record(w, TR_REC_STACK_CHAIN, NULL, 0, b);
}

/* stack_runs 2: the nodes of id not yet emitted in the epoch, from the
 * emitted ancestor down, as chain records, one for each run of consecutive
 * ids (the strings of their frames not yet defined before them). */
static int emit_chains(tr_writer *w, uint32_t id)
{
    const uint32_t base = w->stack_base, ep = w->epoch;
    /* the runs, leaf side first: run[i] its first (root side) id, len[i] its nodes */
    uint32_t run[TR_MAX_DEPTH], len[TR_MAX_DEPTH], nrun = 0, n = 0, fresh = 0;
    uint32_t v = id, top = id; /* top: the leaf side of the run being walked */
    for (; v > base && w->stack_epoch[v - base] != ep; n++) {
        if (n == TR_MAX_DEPTH) return TR_E_TOO_LARGE;
        uint32_t parent = w->stacks[v - base].parent;
        fresh |= w->frame_epoch[w->stacks[v - base].frame] != ep;
        if (parent != v - 1) {
            run[nrun] = v;
            len[nrun++] = top - v + 1;
            top = parent;
        }
        v = parent;
    }
    if (top != v) { /* the last run ends below v, v + 1 its first */
        run[nrun] = v + 1;
        len[nrun++] = top - v;
    }
    int e;
    while (nrun--) {
        uint32_t first = run[nrun];
        for (uint32_t v = first + len[nrun]; fresh && v-- > first;) { /* leaf side first */
            uint32_t frame = w->stacks[v - base].frame;
            const tr_frame *f = &w->frames[frame];
            if (w->frame_epoch[frame] != ep &&
                ((e = emit_string(w, f->func)) || (e = emit_string(w, f->module)) || (e = emit_string(w, f->file))))
                return e;
        }
        if ((e = emit_chain(w, first, len[nrun]))) return e;
    }
    return 0;
}

static int emit_stack(tr_writer *w, uint32_t id)
{
    if (!id) return 0;
    if (id <= w->stack_base || id - w->stack_base > w->nstack) return TR_E_INVAL; /* forgotten, or never made */
    if (w->opt.stack_runs == 2) return emit_chains(w, id);
    /* find the emitted ancestor, then emit from the root side down */
    uint32_t path[TR_MAX_DEPTH], n = 0, v = id;
    while (v > w->stack_base && w->stack_epoch[v - w->stack_base] != w->epoch) {
        if (n == TR_MAX_DEPTH) return TR_E_TOO_LARGE;
        path[n++] = v;
        v = w->stacks[v - w->stack_base].parent;
    }
    int e;
    for (uint32_t i = n; i-- > 0;) {
        uint32_t s = path[i] - w->stack_base;
        if ((e = emit_frame(w, w->stacks[s].frame))) return e;
        w->stack_epoch[s] = w->epoch;
    }
    if (w->opt.stack_runs) {
        /* runs of consecutive ids, root side first */
        for (uint32_t end = n; end > 0;) {
            uint32_t start = end - 1;
            while (start > 0 && path[start - 1] == path[start] + 1) start--;
            if ((e = emit_run(w, path + start, end - start))) return e;
            end = start;
        }
        return 0;
    }
    while (n--) {
        uint32_t s = path[n] - w->stack_base;
        tr_record r = {.type = TR_REC_STACK};
        r.u.stack.id = path[n];
        r.u.stack.parent = w->stacks[s].parent;
        r.u.stack.frame = w->stacks[s].frame;
        if ((e = append(w, &r))) return e;
    }
    return 0;
}

static int emit_references(tr_writer *w, const tr_record *rec)
{
    int e = 0;
    switch (rec->type) {
    case TR_REC_SAMPLE:
        return emit_stack(w, rec->u.sample.stack);
    case TR_REC_SYSCALL:
        for (uint32_t i = 0; i < rec->u.syscall.ncaptures && i < TR_MAX_CAPTURES && !e; i++)
            e = emit_string(w, rec->u.syscall.captures[i].struct_name);
        return e ? e : emit_stack(w, rec->u.syscall.stack);
    case TR_REC_LIBCALL:
        for (uint32_t i = 0; i < rec->u.libcall.ncaptures && i < TR_MAX_CAPTURES && !e; i++)
            e = emit_string(w, rec->u.libcall.captures[i].struct_name);
        if (!e) e = emit_string(w, rec->u.libcall.func);
        return e ? e : emit_stack(w, rec->u.libcall.stack);
    case TR_REC_SYMBOL:
        if ((e = emit_string(w, rec->u.symbol.module))) return e;
        return emit_string(w, rec->u.symbol.name);
    case TR_REC_MODULE_STATUS:
        if ((e = emit_string(w, rec->u.module_status.module))) return e;
        return emit_string(w, rec->u.module_status.detail);
    default:
        return 0;
    }
}

int tr_writer_add(tr_writer *w, const tr_record *rec)
{
    if (!w || !rec) return TR_E_INVAL;
    switch (rec->type) {
    case TR_REC_COMM: case TR_REC_FORK: case TR_REC_EXIT: case TR_REC_MMAP: case TR_REC_SWITCH:
    case TR_REC_SAMPLE: case TR_REC_COUNTER: case TR_REC_SYSCALL: case TR_REC_SIGNAL:
    case TR_REC_LIBCALL: case TR_REC_TRACE_EVENT: case TR_REC_FUNCTION: case TR_REC_LOST:
    case TR_REC_SYMBOL: case TR_REC_MODULE_STATUS: case TR_REC_BLOB:
        break;
    default:
        return TR_E_INVAL; /* definitions and stream frames have their own calls */
    }
    int e;
    if ((e = begin_group(w)) || (e = emit_references(w, rec))) return e;
    return rec->type == TR_REC_SAMPLE && append_plain_sample(w, rec) ? 0 : append(w, rec);
}

/* ---- life cycle ---- */

int tr_writer_open(tr_writer **out, int fd, const tr_writer_options *opt)
{
    if (!out || fd < 0) return TR_E_INVAL;
    *out = NULL;
    tr_writer *w = calloc(1, sizeof *w);
    if (!w) return TR_E_NOMEM;
    w->fd = fd;
    if (opt) w->opt = *opt;
    if (!w->opt.level) w->opt.level = 3;
    if (!w->opt.chunk_size) w->opt.chunk_size = 1u << 20;
    if (w->opt.chunk_size > TR_RAW_MAX / 2) w->opt.chunk_size = TR_RAW_MAX / 2;
    if (!w->opt.key_interval) w->opt.key_interval = 64ull << 20;
    if (!w->opt.flush_ms) w->opt.flush_ms = 100;
    w->cctx = new_cctx();
    if (!w->cctx) {
        free(w);
        return TR_E_NOMEM;
    }
    set_level(w->cctx, &w->cctx_level, w->opt.level);

    uint8_t s[TR_START_SIZE];
    memset(s, 0, sizeof s);
    put_le32(s, TR_KIND_START);
    put_le16(s + 4, TR_VERSION_MAJOR);
    put_le16(s + 6, TR_VERSION_MINOR);
    put_le32(s + 8, 0);  /* compatible feature flags */
    put_le32(s + 12, (w->opt.stack_delta ? TR_INCOMPAT_STACK_DELTA : 0) |
                         (w->opt.stack_delta == 2 ? TR_INCOMPAT_STACK_ADDR : 0) |
                         (w->opt.stack_runs == 1 ? TR_INCOMPAT_STACK_RUNS : 0) |
                         (w->opt.stack_runs == 2 ? TR_INCOMPAT_STACK_CHAINS : 0)); /* incompatible feature flags */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    put_le64(s + 16, tr_internal_hash64(&ts, sizeof ts, (uint64_t)getpid())); /* stream id */
    int e = write_frame(w, s, TR_START_SIZE, NULL, 0);
    if (e) {
        tr_writer_free(w);
        return e;
    }
    w->st.compressed_bytes += 8 + TR_START_SIZE;
    if (w->opt.compress_thread && (e = compressor_start(w))) {
        tr_writer_free(w);
        return e;
    }
    *out = w;
    return 0;
}

static void shell_quote(buf *b, const char *s)
{
    int plain = *s != 0;
    for (const char *p = s; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *p)) plain = 0;
    if (plain) {
        buf_put(b, s, strlen(s));
        return;
    }
    buf_put(b, "'", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '\'') buf_put(b, "'\\''", 4);
        else buf_put(b, p, 1);
    }
    buf_put(b, "'", 1);
}

int tr_writer_meta_defaults(tr_writer *w, const char *producer, int argc, char *const argv[])
{
    struct utsname u;
    char tmp[64];
    int e = 0;
    if (!w || !producer) return TR_E_INVAL;
    e = tr_writer_meta(w, "producer", producer);
    if (!e) e = tr_writer_meta(w, "producer.version", TR_LIB_VERSION);
    if (!e && uname(&u) == 0) {
        if (!e) e = tr_writer_meta(w, "host", u.nodename);
        if (!e) e = tr_writer_meta(w, "kernel.release", u.release);
        if (!e) e = tr_writer_meta(w, "kernel.version", u.version);
        if (!e) e = tr_writer_meta(w, "arch", u.machine);
    }
    if (!e) e = tr_writer_meta(w, "byte_order", "little");
    snprintf(tmp, sizeof tmp, "%zu", sizeof(long) * 8);
    if (!e) e = tr_writer_meta(w, "word_size", tmp);
    snprintf(tmp, sizeof tmp, "%ld", sysconf(_SC_PAGESIZE));
    if (!e) e = tr_writer_meta(w, "page_size", tmp);
    snprintf(tmp, sizeof tmp, "%ld", sysconf(_SC_NPROCESSORS_CONF));
    if (!e) e = tr_writer_meta(w, "ncpus", tmp);
    if (!e) e = tr_writer_meta(w, "clock", "monotonic");
    struct timespec m, r;
    clock_gettime(CLOCK_MONOTONIC, &m);
    clock_gettime(CLOCK_REALTIME, &r);
    snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)m.tv_sec * 1000000000ull + (unsigned long long)m.tv_nsec);
    if (!e) e = tr_writer_meta(w, "time.monotonic_ns", tmp);
    snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)r.tv_sec * 1000000000ull + (unsigned long long)r.tv_nsec);
    if (!e) e = tr_writer_meta(w, "time.realtime_ns", tmp);
    if (!e && argc > 0 && argv) {
        buf b = {0};
        for (int i = 0; i < argc && argv[i]; i++) {
            if (i) buf_put(&b, " ", 1);
            shell_quote(&b, argv[i]);
        }
        buf_put(&b, "", 1);
        e = b.p ? tr_writer_meta(w, "cmdline", (const char *)b.p) : TR_E_NOMEM;
        tr_internal_buf_free(&b);
    }
    return e;
}

int tr_writer_flush(tr_writer *w)
{
    if (!w) return TR_E_INVAL;
    if (w->finished) return TR_E_FINISHED;
    int e = flush_chunk(w);
    if (!e && w->comp) { /* written when this returns */
        compressor_wait(w, SIZE_MAX);
        pthread_mutex_unlock(&w->comp->mu);
        e = w->err;
    }
    return e;
}

int tr_writer_poll(tr_writer *w)
{
    if (!w) return TR_E_INVAL;
    if (w->err || w->finished || !w->chunk.len) return w->err;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (now.tv_sec - w->opened.tv_sec) * 1000 + (now.tv_nsec - w->opened.tv_nsec) / 1000000;
    return ms >= (int64_t)w->opt.flush_ms ? flush_chunk(w) : 0;
}

int tr_writer_finish(tr_writer *w, uint64_t lost)
{
    if (!w) return TR_E_INVAL;
    int e = tr_writer_flush(w);
    if (e) return e;
    w->finished = 1;
    uint8_t c[TR_END_SIZE];
    put_le32(c, TR_KIND_END);
    put_le64(c + 4, w->st.chunks);
    put_le64(c + 12, w->st.records);
    put_le64(c + 20, w->st.raw_bytes);
    put_le64(c + 28, w->st.compressed_bytes);
    put_le64(c + 36, lost);
    if ((e = write_frame(w, c, TR_END_SIZE, NULL, 0))) return w->err = e;
    w->st.compressed_bytes += 8 + TR_END_SIZE;
    return 0;
}

void tr_writer_get_stats(const tr_writer *w, tr_writer_stats *st)
{
    if (!w || !st) return;
    if (w->comp) pthread_mutex_lock(&w->comp->mu);
    *st = w->st;
    if (w->comp) pthread_mutex_unlock(&w->comp->mu);
}

void tr_writer_free(tr_writer *w)
{
    if (!w) return;
    compressor_stop(w);
    ZSTD_freeCCtx(w->cctx);
    ZSTD_freeCCtx(w->caller_cctx);
    tr_internal_buf_free(&w->chunk);
    tr_internal_buf_free(&w->zout);
    tr_internal_buf_free(&w->body);
    tr_internal_buf_free(&w->str_data);
    free(w->strs);
    free(w->str_epoch);
    tr_internal_idmap_free(&w->str_map);
    free(w->frames);
    free(w->frame_epoch);
    tr_internal_idmap_free(&w->frame_map);
    free(w->stacks);
    free(w->stack_epoch);
    tr_internal_idmap_free(&w->wide_map);
    for (size_t i = 0; i < THREAD_STACKS; i++) {
        free(w->threads[i].addrs);
        free(w->threads[i].flags);
        free(w->threads[i].nodes);
    }
    for (size_t i = 0; i < w->nsticky; i++) {
        free(w->sticky[i].key);
        tr_internal_buf_free(&w->sticky[i].body);
    }
    free(w->sticky);
    tr_internal_stack_images_free(&w->images);
    free(w);
}
