/* reader.c - reading streams front to back: frames, chunks, records,
 * definitions, and precise reports of what was lost. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <zstd.h>

#include "internal.h"

/* ---- an arena whose blocks never move: returned pointers stay valid ---- */
typedef struct block {
    struct block *next;
    size_t used, cap;
    _Alignas(16) uint8_t data[];
} block;

static void *arena_alloc(block **head, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    block *b = *head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = *head;
        *head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

static void arena_free(block **head)
{
    while (*head) {
        block *n = (*head)->next;
        free(*head);
        *head = n;
    }
}

typedef struct node {
    uint32_t parent, frame;
} node;

/* A STACK_RUN or STACK_CHAIN record being delivered node by node
 * (keep_definitions). */
typedef struct stack_run {
    const uint8_t *p, *end; /* its frame ids (entries) not yet delivered */
    uint32_t next, parent;  /* the next node's id and parent */
    uint32_t left;          /* nodes not yet delivered */
    int chain;              /* a STACK_CHAIN */
    uint32_t pending;       /* a chain's frame delivered, whose node is not yet */
} stack_run;

typedef struct meta_kv {
    char *key, *value;
} meta_kv;

typedef struct blob_ent {
    char *name;
    uint8_t *data;
    size_t len;
} blob_ent;

typedef struct systab {
    char *arch;
    idmap names; /* nr+1 -> index into sys_names */
} systab;

/* A chunk decompressed by the caller, and what identifies it in the input:
 * its offset, its frame's content (header fields and crc) and the last
 * bytes of its zstd frame (the content checksum). */
typedef struct adopted {
    uint64_t off;
    uint8_t head[TR_CHUNK_SIZE], tail[4];
    uint32_t csize;
    buf raw;
} adopted;

enum { S_OUTSIDE, S_IN_STREAM, S_DONE };

struct tr_reader {
    tr_read_fn read;  /* where the bytes come from (own_buf) */
    void *read_ctx;
    int fd;           /* tr_reader_open's, for fd_read */
    int read_errno;   /* errno of the read that failed */
    int own_buf;
    uint8_t *in;
    size_t in_len, in_pos, in_cap;
    int eof;
    uint64_t in_off; /* input offset of in[0] */
    tr_reader_options opt;
    ZSTD_DCtx *dctx;

    buf chunk;
    size_t cpos;
    uint64_t time;
    uint64_t chunk_seq;
    uint64_t chunk_off; /* input offset of the loaded chunk's frame */

    int state;
    int any_stream;
    uint32_t stream;     /* index of the current stream, counted from 0 */
    uint64_t stream_off;
    uint64_t expect_seq;
    int pending;         /* error to return before reading on */

    /* tables of the current stream */
    block *arena;
    idtab str_ids;  /* id -> index+1 into strs */
    struct { const char *s; size_t len; } *strs;
    size_t nstrs, capstrs;
    idtab frame_ids; /* id -> index+1 into frames */
    tr_frame **frames;
    size_t nframes, capframes;
    idtab node_ids;
    node *nodes;
    size_t nnodes, capnodes;
    stack_run run;          /* in the loaded chunk */
    /* what the loaded chunk's STACK_CHAIN records code against
     * (spec/FORMAT.md 4.1): the last node and frame they defined, and the
     * frame of their last entry */
    struct { uint32_t node, frame, entry; } chain;
    uint64_t stack_forgets; /* FORGET chunks read in the stream */
    uint64_t defs_gen;      /* tr_reader_defs_gen: taken from defs_clock at each change */
    uint32_t *stack_buf;    /* tr_reader_stack's frames, TR_MAX_DEPTH of them */
    uint32_t stack_buf_id;  /* whose frames stack_buf holds (0: none) */
    int stack_buf_depth;
    idtab event_ids;
    tr_event_def **events;
    size_t nevents, capevents;
    meta_kv *meta;
    size_t nmeta;
    blob_ent *blobs;
    size_t nblobs;
    systab *systabs;
    size_t nsystabs;
    const char **sys_names;
    size_t nsys_names, capsys_names;

    adopted *adopt;        /* chunks decompressed by the caller (tr_reader_adopt_chunk) */
    size_t nadopt;

    uint32_t incompat;     /* the current stream's TR_INCOMPAT_* flags */
    stack_images images;   /* STACK_DELTA: each thread's stack image in the chunk */
    tr_readahead *ra;      /* decompress_thread: the chunks ahead */

    tr_reader_stats st;
    tr_reader_diag diag;
};

/* ---- input ---- */

/* Whether a read of the input returns without waiting: an fd that polls
 * readable (a regular file always does); never said of a tr_read_fn. */
static int ready(const tr_reader *r)
{
    struct pollfd pfd = {r->fd, POLLIN, 0};
    return r->fd >= 0 && poll(&pfd, 1, 0) > 0;
}

/* Make n bytes available at in+in_pos; returns how many are (less at EOF,
 * or with !wait when the input has no more for now). */
static size_t need_at(tr_reader *r, size_t n, int wait)
{
    while (r->in_len - r->in_pos < n && !r->eof && r->own_buf && (wait || ready(r))) {
        if (r->in_pos) {
            memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
            r->in_len -= r->in_pos;
            r->in_off += r->in_pos;
            r->in_pos = 0;
        }
        size_t want = n > (1u << 20) ? n : (1u << 20);
        if (r->in_cap < want) {
            uint8_t *p = realloc(r->in, want);
            if (!p) break;
            r->in = p;
            r->in_cap = want;
        }
        size_t room = r->in_cap - r->in_len;
        ssize_t k = r->read(r->read_ctx, r->in + r->in_len, room);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 || (size_t)k > room) {
            r->read_errno = k < 0 ? errno : EIO;
            r->eof = -1;
            break;
        }
        if (k == 0) {
            r->eof = 1;
            break;
        }
        r->in_len += (size_t)k;
        r->st.input_bytes += (uint64_t)k;
    }
    size_t have = r->in_len - r->in_pos;
    return have < n ? have : n;
}

static size_t need(tr_reader *r, size_t n) { return need_at(r, n, 1); }

static uint64_t offset(const tr_reader *r) { return r->in_off + r->in_pos; }

static void consume(tr_reader *r, size_t n) { r->in_pos += n; }

/* Skip n bytes without keeping them (a foreign skippable frame). */
static size_t skip_bytes(tr_reader *r, uint64_t n)
{
    uint64_t done = 0;
    while (done < n) {
        size_t step = n - done > (1u << 20) ? (1u << 20) : (size_t)(n - done);
        size_t k = need(r, step);
        consume(r, k);
        done += k;
        if (k < step) break;
    }
    return (size_t)done;
}

static int set_diag(tr_reader *r, int err, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int set_diag(tr_reader *r, int err, uint64_t off, const char *fmt, ...)
{
    r->diag.offset = off;
    r->diag.stream = r->stream;
    r->diag.chunk = r->chunk_seq;
    r->diag.lost_chunks = 0;
    r->diag.lost_bytes = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->diag.detail, sizeof r->diag.detail, fmt, ap);
    va_end(ap);
    return err;
}

/* Scan forward for the next tr frame magic; returns bytes skipped. */
static uint64_t resync(tr_reader *r, size_t from)
{
    uint64_t skipped = 0;
    consume(r, from);
    skipped += from;
    for (;;) {
        size_t have = need(r, 4);
        if (have < 4) {
            consume(r, have);
            return skipped + have;
        }
        const uint8_t *p = r->in + r->in_pos, *end = r->in + r->in_len;
        const uint8_t *m = memmem(p, (size_t)(end - p), "\x5e\x2a\x4d\x18", 4);
        if (m) {
            consume(r, (size_t)(m - p));
            return skipped + (uint64_t)(m - p);
        }
        size_t keep = 3, drop = (size_t)(end - p) - keep;
        consume(r, drop);
        skipped += drop;
        if (r->eof) {
            skipped += need(r, 3);
            consume(r, need(r, 3));
            return skipped;
        }
        need(r, 4 + keep);
    }
}

/* ---- tables ---- */

/* Unique over the process's readers: a reader freed and another made at
 * its address never gives a generation the first gave. */
static _Atomic uint64_t defs_clock;

static void defs_changed(tr_reader *r) { r->defs_gen = ++defs_clock; }

static void tables_clear(tr_reader *r)
{
    defs_changed(r);
    arena_free(&r->arena);
    tr_internal_idtab_free(&r->str_ids);
    tr_internal_idtab_free(&r->frame_ids);
    tr_internal_idtab_free(&r->node_ids);
    tr_internal_idtab_free(&r->event_ids);
    r->nstrs = r->nframes = r->nnodes = r->nevents = 0;
    r->run.left = 0;
    r->stack_buf_id = 0;
    r->stack_forgets = 0;
    for (size_t i = 0; i < r->nmeta; i++) {
        free(r->meta[i].key);
        free(r->meta[i].value);
    }
    free(r->meta);
    r->meta = NULL;
    r->nmeta = 0;
    for (size_t i = 0; i < r->nblobs; i++) {
        free(r->blobs[i].name);
        free(r->blobs[i].data);
    }
    free(r->blobs);
    r->blobs = NULL;
    r->nblobs = 0;
    for (size_t i = 0; i < r->nsystabs; i++) {
        free(r->systabs[i].arch);
        tr_internal_idmap_free(&r->systabs[i].names);
    }
    free(r->systabs);
    r->systabs = NULL;
    r->nsystabs = 0;
    r->nsys_names = 0;
}

/* room for one more element in arr */
#define PUSH(arr, n, cap) \
    ((n) < (cap) ? 0 : tr_internal_array_reserve(&(arr), &(cap), (n) + 1, sizeof *(arr), 64))

static char *arena_str(tr_reader *r, const void *s, size_t len)
{
    char *p = arena_alloc(&r->arena, len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = 0;
    return p;
}

static char *dup_n(const void *s, size_t len)
{
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = 0;
    }
    return p;
}

static inline int absorb_node(tr_reader *r, uint32_t id, uint32_t parent, uint32_t frame)
{
    /* parents come first: parent < id rules out cycles */
    if (!id || parent >= id || idtab_get(&r->node_ids, id)) return 0;
    if (PUSH(r->nodes, r->nnodes, r->capnodes)) return TR_E_NOMEM;
    r->nodes[r->nnodes++] = (node){parent, frame};
    r->stack_buf_id = 0; /* a stack materialised with this node missing may now be longer */
    return idtab_put(&r->node_ids, id, (uint32_t)r->nnodes);
}

static int absorb_frame(tr_reader *r, uint32_t id, const tr_frame *frame)
{
    if (!id || idtab_get(&r->frame_ids, id)) return 0;
    if (PUSH(r->frames, r->nframes, r->capframes)) return TR_E_NOMEM;
    tr_frame *f = arena_alloc(&r->arena, sizeof *f);
    if (!f) return TR_E_NOMEM;
    *f = *frame;
    r->frames[r->nframes++] = f;
    return tr_internal_idtab_put(&r->frame_ids, id, (uint32_t)r->nframes);
}

static int absorb(tr_reader *r, const tr_record *rec)
{
    const __typeof__(rec->u) *u = &rec->u;
    switch (rec->type) {
    case TR_REC_STRING: {
        if (!u->string.id || idtab_get(&r->str_ids, u->string.id)) return 0; /* first definition wins */
        if (PUSH(r->strs, r->nstrs, r->capstrs)) return TR_E_NOMEM;
        char *s = arena_str(r, u->string.str, u->string.len);
        if (!s) return TR_E_NOMEM;
        r->strs[r->nstrs].s = s;
        r->strs[r->nstrs].len = u->string.len;
        r->nstrs++;
        return tr_internal_idtab_put(&r->str_ids, u->string.id, (uint32_t)r->nstrs);
    }
    case TR_REC_FRAME:
        return absorb_frame(r, u->frame.id, &u->frame.frame);
    case TR_REC_STACK:
        return absorb_node(r, u->stack.id, u->stack.parent, u->stack.frame);
    case TR_REC_EVENT_DEF: {
        if (!u->event_def.id || idtab_get(&r->event_ids, u->event_def.id)) return 0;
        if (PUSH(r->events, r->nevents, r->capevents)) return TR_E_NOMEM;
        tr_event_def *d = arena_alloc(&r->arena, sizeof *d);
        if (!d) return TR_E_NOMEM;
        *d = u->event_def;
        if (!(d->name = arena_str(r, u->event_def.name, u->event_def.name_len))) return TR_E_NOMEM;
        r->events[r->nevents++] = d;
        return tr_internal_idtab_put(&r->event_ids, d->id, (uint32_t)r->nevents);
    }
    case TR_REC_META: {
        defs_changed(r);
        char *k = dup_n(u->meta.key, u->meta.key_len), *v = dup_n(u->meta.value, u->meta.value_len);
        if (!k || !v) {
            free(k);
            free(v);
            return TR_E_NOMEM;
        }
        for (size_t i = 0; i < r->nmeta; i++)
            if (!strcmp(r->meta[i].key, k)) {
                free(k);
                free(r->meta[i].value);
                r->meta[i].value = v;
                return 0;
            }
        meta_kv *m = realloc(r->meta, (r->nmeta + 1) * sizeof *m);
        if (!m) {
            free(k);
            free(v);
            return TR_E_NOMEM;
        }
        r->meta = m;
        r->meta[r->nmeta++] = (meta_kv){k, v};
        return 0;
    }
    case TR_REC_BLOB: {
        defs_changed(r);
        char *n = dup_n(u->blob.name, u->blob.name_len);
        uint8_t *d = malloc(u->blob.len ? u->blob.len : 1);
        if (!n || !d) {
            free(n);
            free(d);
            return TR_E_NOMEM;
        }
        memcpy(d, u->blob.data, u->blob.len);
        for (size_t i = 0; i < r->nblobs; i++)
            if (!strcmp(r->blobs[i].name, n)) { /* the latest copy replaces */
                free(n);
                free(r->blobs[i].data);
                r->blobs[i].data = d;
                r->blobs[i].len = u->blob.len;
                return 0;
            }
        blob_ent *b = realloc(r->blobs, (r->nblobs + 1) * sizeof *b);
        if (!b) {
            free(n);
            free(d);
            return TR_E_NOMEM;
        }
        r->blobs = b;
        r->blobs[r->nblobs++] = (blob_ent){n, d, u->blob.len};
        return 0;
    }
    case TR_REC_SYSCALL_TABLE: {
        systab *t = NULL;
        for (size_t i = 0; i < r->nsystabs; i++)
            if (strlen(r->systabs[i].arch) == u->syscall_table.arch_len &&
                !memcmp(r->systabs[i].arch, u->syscall_table.arch, u->syscall_table.arch_len))
                t = &r->systabs[i];
        if (t) return 0; /* repeated at a key chunk */
        systab *n = realloc(r->systabs, (r->nsystabs + 1) * sizeof *n);
        if (!n) return TR_E_NOMEM;
        r->systabs = n;
        t = &r->systabs[r->nsystabs++];
        memset(t, 0, sizeof *t);
        if (!(t->arch = dup_n(u->syscall_table.arch, u->syscall_table.arch_len))) return TR_E_NOMEM;
        size_t pos = 0;
        uint32_t nr;
        const char *name;
        size_t len;
        int e;
        while ((e = tr_syscall_table_iter(rec, &pos, &nr, &name, &len)) == 1) {
            if (PUSH(r->sys_names, r->nsys_names, r->capsys_names)) return TR_E_NOMEM;
            if (!(r->sys_names[r->nsys_names] = arena_str(r, name, len))) return TR_E_NOMEM;
            r->nsys_names++;
            if (nr == UINT32_MAX || tr_internal_idmap_put(&t->names, (uint64_t)nr + 1, (uint32_t)r->nsys_names))
                return TR_E_NOMEM;
        }
        return e < 0 ? e : 0;
    }
    default:
        return 0;
    }
}

/* ---- frames ---- */

/* What next_frame did, besides an error (< 0) or the end of input (0). */
enum { NF_RECORD = 1, NF_CHUNK = 2, NF_SKIPPED = 3 };

static int start_stream(tr_reader *r, tr_record *rec, uint32_t major, uint32_t minor, uint32_t flags,
                        uint32_t incompat, uint64_t off)
{
    tables_clear(r);
    r->incompat = incompat;
    if (r->any_stream) r->stream++;
    r->any_stream = 1;
    r->state = S_IN_STREAM;
    r->expect_seq = 0;
    r->stream_off = off;
    r->chunk.len = r->cpos = 0;
    r->st.streams++;
    memset(rec, 0, sizeof *rec);
    rec->type = TR_REC_STREAM_START;
    rec->stream = r->stream;
    rec->pid = rec->tid = rec->cpu = -1;
    rec->u.stream_start.major = major;
    rec->u.stream_start.minor = minor;
    rec->u.stream_start.flags = flags;
    rec->u.stream_start.incompat = incompat;
    rec->u.stream_start.offset = off;
    return NF_RECORD;
}

static void end_record(tr_reader *r, tr_record *rec, int complete)
{
    memset(rec, 0, sizeof *rec);
    rec->type = TR_REC_STREAM_END;
    rec->stream = r->stream;
    rec->pid = rec->tid = rec->cpu = -1;
    rec->u.stream_end.complete = (uint32_t)complete;
    r->state = S_OUTSIDE;
}

/* The fields of the tr frame whose content c (size >= 8 bytes, checksum
 * verified) follows its header, into *f: 1, or TR_E_CORRUPT_FRAME when it
 * is too short for its kind. */
static int frame_fields(const uint8_t *c, uint32_t size, tr_stream_frame *f)
{
    memset(f, 0, sizeof *f);
    f->size = 8 + (size_t)size;
    switch (get_le32(c)) {
    case TR_KIND_START:
        if (size < TR_START_SIZE) return TR_E_CORRUPT_FRAME;
        f->kind = TR_SFRAME_START;
        f->major = get_le16(c + 4);
        f->minor = get_le16(c + 6);
        f->compat = get_le32(c + 8);
        f->incompat = get_le32(c + 12);
        return 1;
    case TR_KIND_CHUNK:
        if (size < TR_CHUNK_SIZE) return TR_E_CORRUPT_FRAME;
        f->kind = TR_SFRAME_CHUNK;
        f->seq = get_le64(c + 4);
        f->flags = get_le32(c + 12);
        f->csize = get_le32(c + 16);
        f->rsize = get_le32(c + 20);
        f->count = get_le32(c + 24);
        f->base_time = get_le64(c + 28);
        f->size += f->csize;
        return 1;
    case TR_KIND_END:
        if (size < TR_END_SIZE) return TR_E_CORRUPT_FRAME;
        f->kind = TR_SFRAME_END;
        f->chunks = get_le64(c + 4);
        f->records = get_le64(c + 12);
        f->raw_bytes = get_le64(c + 20);
        f->bytes = get_le64(c + 28);
        f->lost = get_le64(c + 36);
        return 1;
    default:
        f->kind = TR_SFRAME_OTHER;
        return 1;
    }
}

/* The prefix of an event record's body (by rec->type): its time (the
 * delta from the record before, added to base), pid, tid and cpu; a
 * record of another type gets time 0 and ids -1.  Returns the time the
 * next record's delta is from (base when there was none). */
static inline uint64_t read_prefix(cur *b, tr_record *rec, uint64_t base)
{
    if (!type_has_prefix(rec->type)) {
        rec->time = 0;
        rec->pid = rec->tid = rec->cpu = -1;
        return base;
    }
    rec->time = base + (uint64_t)cur_svarint(b);
    rec->pid = cur_s32(b);
    rec->tid = cur_s32(b);
    rec->cpu = cur_s32(b);
    return rec->time;
}

int tr_record_skim(const void *buf, size_t len, tr_record *rec)
{
    if (!len)
        return 0;
    cur c = {buf, (const uint8_t *)buf + len, 0};
    uint64_t type = cur_varint(&c), blen = cur_varint(&c);
    const uint8_t *body = cur_bytes(&c, blen);
    if (c.bad || type > UINT32_MAX || c.p - (const uint8_t *)buf > INT_MAX)
        return TR_E_CORRUPT_RECORD;
    memset(rec, 0, sizeof *rec);
    rec->type = (uint32_t)type;
    cur b = {body, body + blen, 0};
    read_prefix(&b, rec, 0);
    copy_delta d;
    if (!b.bad && type != TR_REC_STACK_RUN && type != TR_REC_STACK_CHAIN && tr_rec_type_name(rec->type) &&
        tr_internal_rec_decode_body(&b, rec, &d) < 0)
        b.bad = 1;
    return b.bad ? TR_E_CORRUPT_RECORD : (int)(c.p - (const uint8_t *)buf);
}

int tr_stream_frame_parse(const void *buf, size_t len, tr_stream_frame *f)
{
    const uint8_t *p = buf;
    if (!f || (!buf && len)) return TR_E_INVAL;
    memset(f, 0, sizeof *f);
    if (!len) return 0;
    if (len < 8) {
        /* the first bytes of a skippable frame's magic (50..5f 2a 4d 18), or no frame */
        static const uint8_t magic_tail[3] = {0x2a, 0x4d, 0x18};
        if ((p[0] & 0xf0) != 0x50 || memcmp(p + 1, magic_tail, (len < 4 ? len : 4) - 1))
            return TR_E_CORRUPT_FRAME;
        return TR_E_TRUNCATED;
    }
    uint32_t magic = get_le32(p), size = get_le32(p + 4);
    if ((magic & 0xFFFFFFF0u) != 0x184D2A50u) return TR_E_CORRUPT_FRAME;
    if (magic != TR_SKIP_MAGIC) { /* another skippable frame: its size is all there is */
        f->kind = TR_SFRAME_FOREIGN;
        f->size = 8 + (size_t)size;
        return len - 8 < size ? TR_E_TRUNCATED : 1;
    }
    if (size < 8 || size > TR_FRAME_MAX) return TR_E_CORRUPT_FRAME;
    if (len - 8 < size) {
        f->size = 8 + (size_t)size;
        return TR_E_TRUNCATED;
    }
    const uint8_t *c = p + 8;
    if (get_le32(c + size - 4) != tr_crc32c(0, c, size - 4)) return TR_E_CORRUPT_FRAME;
    int e = frame_fields(c, size, f);
    if (e < 0) return e;
    if (len < f->size) return TR_E_TRUNCATED; /* a chunk's zstd frame is cut */
    return 1;
}

int tr_is_trace(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    /* spec/FORMAT.md 6: a trace begins with the tr frame magic */
    return p && len >= TR_SNIFF_BYTES && get_le32(p) == TR_SKIP_MAGIC;
}

/* Whether the have bytes at p begin a tr frame's magic (all of it, or as
 * much of it as there is). */
static int is_magic_prefix(const uint8_t *p, size_t have)
{
    static const uint8_t m[4] = {0x5e, 0x2a, 0x4d, 0x18}; /* TR_SKIP_MAGIC, little-endian */
    return have > 0 && !memcmp(p, m, have < 4 ? have : 4);
}

/* The caller's decompressed copy of the chunk at off (frame content c of
 * size bytes, zstd frame z), when it gave one: it becomes the loaded
 * chunk's buffer (1).  Copies of chunks before off are dropped: the reader
 * has passed them. */
static int take_adopted(tr_reader *r, uint64_t off, const uint8_t *c, uint32_t size, const uint8_t *z,
                        uint32_t csize)
{
    int took = 0;
    size_t k = 0;
    for (size_t i = 0; i < r->nadopt; i++) {
        adopted *a = &r->adopt[i];
        if (a->off > off) {
            r->adopt[k++] = *a;
            continue;
        }
        if (a->off == off && size == TR_CHUNK_SIZE && a->csize == csize && csize >= 4 &&
            !memcmp(a->head, c, TR_CHUNK_SIZE) && !memcmp(a->tail, z + csize - 4, 4)) {
            tr_internal_buf_free(&r->chunk);
            r->chunk = a->raw;
            took = 1;
        } else {
            tr_internal_buf_free(&a->raw);
        }
    }
    r->nadopt = k;
    return took;
}

int tr_reader_adopt_chunk(tr_reader *r, uint64_t off, const void *chunk, size_t len, void *raw)
{
    tr_stream_frame f;
    const uint8_t *p = chunk;
    if (!r || !chunk || !raw || tr_stream_frame_parse(chunk, len, &f) != 1 || f.kind != TR_SFRAME_CHUNK ||
        f.size != len || get_le32(p + 4) != TR_CHUNK_SIZE || f.csize < 4) {
        free(raw);
        return TR_E_INVAL;
    }
    adopted *n = realloc(r->adopt, (r->nadopt + 1) * sizeof *n);
    if (!n) {
        free(raw);
        return TR_E_NOMEM;
    }
    r->adopt = n;
    adopted *a = &n[r->nadopt++];
    a->off = off;
    memcpy(a->head, p + 8, TR_CHUNK_SIZE);
    memcpy(a->tail, p + len - 4, 4);
    a->csize = f.csize;
    a->raw = (buf){raw, f.rsize, f.rsize ? f.rsize : 1};
    return 0;
}

/* decompress_thread: queue the chunks that follow, from at bytes past the
 * reader's position on, for the thread to decompress, as far as the input
 * has them now (a pipe is not waited for).  What is no whole, sound chunk
 * frame ends the look: the reader meets it in its turn. */
static void read_ahead(tr_reader *r, size_t at)
{
    size_t max = r->opt.max_chunk ? r->opt.max_chunk : TR_RAW_MAX;
    if (!r->ra && !(r->ra = tr_internal_readahead_new())) return;
    for (int frames = 0; frames < 4 * TR_READAHEAD_DEPTH && tr_internal_readahead_room(r->ra); frames++) {
        if (need_at(r, at + 8, 0) < at + 8) return;
        const uint8_t *p = r->in + r->in_pos + at;
        uint32_t size = get_le32(p + 4);
        if (get_le32(p) != TR_SKIP_MAGIC || size < 8 || size > TR_FRAME_MAX) return;
        if (need_at(r, at + 8 + size, 0) < at + 8 + size) return;
        p = r->in + r->in_pos + at;
        tr_stream_frame f;
        if (get_le32(p + 8 + size - 4) != tr_crc32c(0, p + 8, size - 4) || frame_fields(p + 8, size, &f) < 0)
            return;
        if (f.kind == TR_SFRAME_CHUNK) {
            uint64_t off = offset(r) + at;
            if (f.rsize > max || f.csize > ZSTD_compressBound(max) || need_at(r, at + f.size, 0) < at + f.size)
                return;
            p = r->in + r->in_pos + at;
            int adopted = 0;
            for (size_t i = 0; i < r->nadopt; i++) adopted |= r->adopt[i].off == off;
            if (!adopted && !tr_internal_readahead_has(r->ra, off) &&
                !tr_internal_readahead_queue(r->ra, off, p + 8 + size, f.csize, f.rsize, r->own_buf))
                return;
        }
        at += f.size;
    }
}

/* Read the next frame: a stream record in *rec (NF_RECORD), a chunk loaded
 * (NF_CHUNK), a frame skipped (NF_SKIPPED), 0 at the end of input, or an error. */
static int next_frame(tr_reader *r, tr_record *rec)
{
    uint64_t off = offset(r);
    size_t have = need(r, 8);
    if (r->eof < 0 && have < 8) {
        int e = set_diag(r, TR_E_IO, off, "read error: %s", strerror(r->read_errno));
        if (r->state != S_IN_STREAM) return e;
        end_record(r, rec, 0); /* the open stream ends first, incomplete */
        r->pending = e;
        r->state = S_DONE;
        return NF_RECORD;
    }
    if (have == 0) {
        r->state = r->state == S_IN_STREAM ? S_IN_STREAM : S_DONE;
        if (r->state == S_IN_STREAM) {
            end_record(r, rec, 0);
            r->pending = set_diag(r, TR_E_TRUNCATED, off, "input ends after %llu complete chunks, without the end frame",
                                  (unsigned long long)r->expect_seq);
            r->state = S_DONE;
            return NF_RECORD;
        }
        if (!r->any_stream) return set_diag(r, TR_E_EMPTY, 0, "no data");
        return 0;
    }
    const uint8_t *p = r->in + r->in_pos;
    uint32_t magic = have >= 4 ? get_le32(p) : 0;
    if (have >= 8 && (magic & 0xFFFFFFF0u) == 0x184D2A50u && magic != TR_SKIP_MAGIC) {
        uint64_t size = get_le32(p + 4); /* a foreign skippable frame: ignore */
        consume(r, 8);
        if (skip_bytes(r, size) < size) goto truncated;
        return NF_SKIPPED;
    }
    if (magic != TR_SKIP_MAGIC || have < 8) {
        if (!r->any_stream && off == 0)
            return set_diag(r, TR_E_NOT_TRACE, 0, "it begins with %02x %02x %02x %02x, not a tr frame's 5e 2a 4d 18",
                            p[0], have > 1 ? p[1] : 0, have > 2 ? p[2] : 0, have > 3 ? p[3] : 0);
        if (have < 8 && r->eof && is_magic_prefix(p, have)) goto truncated; /* a frame cut in its header */
        uint64_t n = resync(r, 1);
        r->st.skipped_bytes += n;
        int e = set_diag(r, TR_E_GARBAGE, off, "%llu bytes that are no tr frame", (unsigned long long)n);
        r->diag.lost_bytes = n;
        return e;
    }
    uint32_t size = get_le32(p + 4);
    if (size < 8 || size > TR_FRAME_MAX) {
        uint64_t n = resync(r, 1);
        r->st.skipped_bytes += n;
        int e = set_diag(r, TR_E_CORRUPT_FRAME, off, "frame size %u out of range; skipped %llu bytes", size,
                         (unsigned long long)n);
        r->diag.lost_bytes = n;
        return e;
    }
    if (need(r, 8 + (size_t)size) < 8 + (size_t)size) goto truncated;
    p = r->in + r->in_pos;
    const uint8_t *c = p + 8;
    if (get_le32(c + size - 4) != tr_crc32c(0, c, size - 4)) {
        /* even a damaged stream header: its chunks are found by their magic */
        uint64_t n = resync(r, 1);
        r->st.skipped_bytes += n;
        int e = set_diag(r, TR_E_CORRUPT_FRAME, off, "frame checksum mismatch; skipped %llu bytes",
                         (unsigned long long)n);
        r->diag.lost_bytes = n;
        return e;
    }
    tr_stream_frame sf;
    if (frame_fields(c, size, &sf) < 0) goto bad_frame;
    if (sf.kind == TR_SFRAME_START) {
        uint32_t major = sf.major, minor = sf.minor, compat = sf.compat, incompat = sf.incompat;
        if (major > TR_VERSION_MAJOR || major == 0)
            return set_diag(r, TR_E_VERSION, off, "stream version %u.%u; this reader knows %d.x", major, minor,
                            TR_VERSION_MAJOR);
        if (incompat & ~TR_INCOMPAT_KNOWN)
            return set_diag(r, TR_E_INCOMPAT, off, "incompatible feature flags 0x%x", incompat);
        if (r->state == S_IN_STREAM) {
            /* deliver the end of the cut stream first, then come back here */
            end_record(r, rec, 0);
            r->pending = set_diag(r, TR_E_STREAM_CUT, off, "stream %u has no end frame; stream %u follows",
                                  r->stream, r->stream + 1);
            return NF_RECORD;
        }
        consume(r, 8 + size);
        return start_stream(r, rec, major, minor, compat, incompat, off);
    }
    if (sf.kind == TR_SFRAME_END) {
        consume(r, 8 + size);
        if (r->state != S_IN_STREAM) {
            return set_diag(r, TR_E_GARBAGE, off, "end frame outside a stream");
        }
        end_record(r, rec, 1);
        rec->u.stream_end.chunks = sf.chunks;
        rec->u.stream_end.records = sf.records;
        rec->u.stream_end.raw_bytes = sf.raw_bytes;
        rec->u.stream_end.compressed_bytes = sf.bytes;
        rec->u.stream_end.lost = sf.lost;
        return NF_RECORD;
    }
    if (sf.kind == TR_SFRAME_CHUNK) {
        uint64_t seq = sf.seq;
        uint32_t csize = sf.csize, rsize = sf.rsize;
        uint64_t base = sf.base_time;
        r->chunk_seq = seq;
        r->chunk_off = off;
        if (r->state != S_IN_STREAM) {
            /* the stream's start frame was lost: go on with a stream of our own */
            /* its flags are unknown: keep stack images (harmless without them) */
            start_stream(r, rec, TR_VERSION_MAJOR, 0, 0, TR_INCOMPAT_STACK_DELTA | TR_INCOMPAT_STACK_ADDR, off);
            return NF_RECORD;
        }
        size_t max = r->opt.max_chunk ? r->opt.max_chunk : TR_RAW_MAX;
        if (csize > ZSTD_compressBound(max)) {
            /* no chunk of the limit compresses to that: the header is corrupt */
            uint64_t n = resync(r, 1);
            r->st.skipped_bytes += n;
            int e = set_diag(r, TR_E_CORRUPT_FRAME, off,
                             "chunk %llu claims a %u-byte zstd frame (at most %zu for %zu raw bytes); skipped %llu bytes",
                             (unsigned long long)seq, csize, ZSTD_compressBound(max), max, (unsigned long long)n);
            r->diag.lost_bytes = n;
            return e;
        }
        if (rsize > max) {
            consume(r, 8 + size);
            uint64_t skipped = skip_bytes(r, csize);
            r->st.bad_chunks++;
            r->expect_seq = seq + 1;
            int e = set_diag(r, TR_E_TOO_LARGE, off, "chunk %llu claims %u raw bytes (limit %zu); skipped",
                             (unsigned long long)seq, rsize, max);
            r->diag.lost_bytes = skipped;
            r->diag.lost_chunks = 1;
            return e;
        }
        size_t avail = need(r, 8 + (size_t)size + csize);
        if (avail < 8 + (size_t)size + csize) {
            /* cut short: if another frame begins inside the claimed payload
             * (a killed writer's file with more appended), go on from there */
            const uint8_t *pl = r->in + r->in_pos + 8 + size;
            if (avail <= 8 + (size_t)size || !memmem(pl, avail - 8 - size, "\x5e\x2a\x4d\x18", 4)) goto truncated;
            consume(r, 8 + size);
            uint64_t n = resync(r, 0);
            r->st.bad_chunks++;
            r->expect_seq = seq + 1;
            int e = set_diag(r, TR_E_CORRUPT_CHUNK, off, "chunk %llu is cut short after %llu of its %u bytes",
                             (unsigned long long)seq, (unsigned long long)n, csize);
            r->diag.lost_chunks = 1;
            r->diag.lost_bytes = 8 + size + n;
            return e;
        }
        /* need() may have moved the input: the frame's content and payload anew */
        c = r->in + r->in_pos + 8;
        const uint8_t *z = c + size;
        r->chunk.len = r->cpos = 0;
        r->run.left = 0;
        size_t got;
        if (take_adopted(r, off, c, size, z, csize)) {
            got = rsize;
        } else if (r->ra && tr_internal_readahead_take(r->ra, off, csize, rsize, &r->chunk, &got)) {
            /* decompressed ahead */
        } else {
            if (r->opt.decompress_thread) { /* the next ones meanwhile */
                read_ahead(r, 8 + (size_t)size + csize);
                z = r->in + r->in_pos + 8 + size;
            }
            if (tr_internal_buf_reserve(&r->chunk, rsize ? rsize : 1)) return TR_E_NOMEM;
            got = ZSTD_decompressDCtx(r->dctx, r->chunk.p, rsize, z, csize);
        }
        int lost = seq > r->expect_seq;
        uint64_t nlost = seq - r->expect_seq;
        r->expect_seq = seq + 1;
        if (ZSTD_isError(got) || got != rsize) {
            /* resynchronise from the header on: the payload may hold the
             * start of a stream appended to a killed writer's output */
            consume(r, 8 + (size_t)size);
            uint64_t n = resync(r, 0);
            r->st.bad_chunks++;
            int e = set_diag(r, TR_E_CORRUPT_CHUNK, off, "chunk %llu: %s", (unsigned long long)seq,
                             ZSTD_isError(got) ? ZSTD_getErrorName(got) : "size differs from its header");
            r->diag.lost_chunks = 1 + (lost ? nlost : 0);
            r->diag.lost_bytes = 8 + (uint64_t)size + n;
            return e;
        }
        consume(r, 8 + (size_t)size + csize);
        if (r->opt.decompress_thread) read_ahead(r, 0);
        r->st.compressed_bytes += 8 + (uint64_t)size + csize;
        r->chunk.len = rsize;
        tr_internal_stack_images_reset(&r->images);
        memset(&r->chain, 0, sizeof r->chain);
        if (sf.flags & TR_CHUNK_FORGET) { /* no earlier stack node is referred to again */
            tr_internal_idtab_clear(&r->node_ids);
            r->nnodes = 0;
            r->stack_buf_id = 0;
            r->stack_forgets++;
        }
        r->time = base;
        r->st.chunks++;
        r->st.raw_bytes += rsize;
        if (lost) {
            r->st.lost_chunks += nlost;
            int e = set_diag(r, TR_E_LOST_CHUNKS, off, "chunks %llu to %llu are missing",
                             (unsigned long long)(seq - nlost), (unsigned long long)(seq - 1));
            r->diag.lost_chunks = nlost;
            return e; /* the chunk stays loaded: its records follow */
        }
        return NF_CHUNK;
    }
    /* a tr frame of a kind this reader does not know: skip it */
    consume(r, 8 + size);
    return NF_SKIPPED;

bad_frame:
    consume(r, 8 + size);
    return set_diag(r, TR_E_CORRUPT_FRAME, off, "frame too short for its kind");
truncated: {
        /* the kind of the frame cut short, when its header got that far */
        size_t hl = r->in_len - r->in_pos;
        const uint8_t *h = r->in + r->in_pos;
        uint32_t kind = hl >= 12 && get_le32(h) == TR_SKIP_MAGIC ? get_le32(h + 8) : 0;
        size_t left = skip_bytes(r, UINT64_MAX);
        r->diag.lost_bytes = left;
        if (r->eof < 0) { /* not the end of the input: a read failed */
            if (r->state == S_IN_STREAM) {
                end_record(r, rec, 0);
                r->pending = set_diag(r, TR_E_IO, off, "read error inside chunk %llu: %s",
                                      (unsigned long long)r->expect_seq, strerror(r->read_errno));
                r->diag.lost_bytes = left;
                r->state = S_DONE;
                return NF_RECORD;
            }
            r->state = S_DONE;
            return set_diag(r, TR_E_IO, off, "read error inside a frame: %s", strerror(r->read_errno));
        }
        if (r->state == S_IN_STREAM) {
            end_record(r, rec, 0);
            if (kind == TR_KIND_END) { /* every chunk was read: only the stream's totals are lost */
                r->pending = set_diag(r, TR_E_TRUNCATED, off,
                                      "input ends inside the end frame, after %llu complete chunks",
                                      (unsigned long long)r->expect_seq);
            } else if (kind == TR_KIND_CHUNK) {
                r->pending = set_diag(r, TR_E_TRUNCATED, off, "input ends inside chunk %llu: its %zu bytes are lost",
                                      (unsigned long long)r->expect_seq, left);
                r->diag.lost_chunks = 1;
            } else {
                r->pending = set_diag(r, TR_E_TRUNCATED, off, "input ends inside a frame, after %llu complete chunks",
                                      (unsigned long long)r->expect_seq);
            }
            r->diag.lost_bytes = left;
            r->state = S_DONE;
            return NF_RECORD;
        }
        r->state = S_DONE;
        return set_diag(r, TR_E_TRUNCATED, off, "input ends inside a frame (%zu bytes)", left);
    }
}

/* ---- records ---- */

/* STACK_DELTA: a sample's stack copy is the bytes written in the record
 * followed by the last kept bytes of its thread's stack image (spec/FORMAT.md
 * 4.4).  Completes rec's stack copy and lays it over the image. */
static int complete_stack_copy(tr_reader *r, tr_record *rec, const copy_delta *d)
{
    size_t f = rec->u.sample.stack_copy_len, kept = d->kept;
    if (!f && !kept && !d->addressed) return 0;
    stack_image *im = tr_internal_stack_image_get(&r->images, rec->pid, rec->tid);
    if (!im) return TR_E_NOMEM;
    if (f > TR_RAW_MAX) return TR_E_CORRUPT_RECORD; /* cannot be: the chunk holds it */
    if (d->addressed) { /* STACK_ADDR: the kept bytes at the image's same addresses */
        uint64_t addr = rec->u.sample.stack_copy_addr, low = addr + (f - d->tail);
        if (addr > UINT64_MAX - f - kept || (kept && !tr_internal_stack_image_holds(im, low, kept)))
            return TR_E_CORRUPT_RECORD;
        if (tr_internal_stack_image_reserve(&r->images, im, f + kept)) return TR_E_NOMEM;
        rec->u.sample.stack_copy = tr_internal_stack_image_put_at(im, rec->u.sample.stack_copy, f, d->tail, kept, addr);
    } else {
        if (kept > im->len) return TR_E_CORRUPT_RECORD;
        if (tr_internal_stack_image_reserve(&r->images, im, f + kept)) return TR_E_NOMEM;
        rec->u.sample.stack_copy = tr_internal_stack_image_put(im, rec->u.sample.stack_copy, f, kept);
    }
    rec->u.sample.stack_copy_len = f + kept;
    return 0;
}

/* A malformed record: a bad prefix breaks the time chain, so the rest of
 * the chunk is dropped. */
static int malformed(tr_reader *r, const char *name)
{
    r->cpos = r->chunk.len;
    r->run.left = 0;
    r->st.bad_records++;
    return set_diag(r, TR_E_CORRUPT_RECORD, r->chunk_off, "chunk %llu: malformed %s record",
                    (unsigned long long)r->chunk_seq, name ? name : "unknown");
}

/* rec as a definition that a STACK_RUN or STACK_CHAIN holds: no time, no task */
static void run_record(tr_reader *r, tr_record *rec, uint32_t type)
{
    rec->type = type;
    rec->stream = r->stream;
    rec->time = 0;
    rec->pid = rec->tid = rec->cpu = -1;
}

/* The next node of the run being read, of frame: absorbed, and in rec as a
 * STACK record. */
static int run_node(tr_reader *r, tr_record *rec, uint32_t frame)
{
    stack_run *sr = &r->run;
    run_record(r, rec, TR_REC_STACK);
    rec->u.stack.id = sr->next;
    rec->u.stack.parent = sr->parent;
    rec->u.stack.frame = frame;
    sr->parent = sr->next++;
    sr->left--;
    return absorb_node(r, rec->u.stack.id, rec->u.stack.parent, frame);
}

/* The next node of the STACK_RUN record being delivered, as a STACK
 * record: 1, or an error. */
static int run_next(tr_reader *r, tr_record *rec)
{
    stack_run *sr = &r->run;
    cur b = {sr->p, sr->end, 0};
    uint32_t frame = cur_u32(&b);
    if (b.bad) return malformed(r, "stack_run");
    sr->p = b.p;
    int e = run_node(r, rec, frame);
    return e ? e : 1;
}

/* A varint at p (before end) and where it ends (NULL: malformed), returned
 * in registers: get_varint's rare case. */
typedef struct varint_at {
    uint64_t v;
    const uint8_t *p;
} varint_at;
static __attribute__((noinline)) varint_at varint_slow(const uint8_t *p, const uint8_t *end)
{
    cur c = {p, end, 0};
    uint64_t v = cur_varint(&c);
    return (varint_at){v, c.bad ? NULL : c.p};
}

/* A varint at *pp (before end), for the loops over a run's or a chain's
 * entries, which keep their position in a register: the one- and two-byte
 * forms inline; a malformed one sets *bad. */
static inline uint64_t get_varint(const uint8_t **pp, const uint8_t *end, int *bad)
{
    const uint8_t *p = *pp;
    if (end - p >= 2) {
        if (p[0] < 0x80) {
            *pp = p + 1;
            return p[0];
        }
        if (p[1] < 0x80) {
            *pp = p + 2;
            return (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
        }
    }
    varint_at a = varint_slow(p, end);
    *bad |= !a.p;
    *pp = a.p ? a.p : end;
    return a.v;
}

/* Room for the count nodes of a run or a chain, ids first, first + 1 ...:
 * their entries in the id table, to fill as fill_node does, or NULL (then
 * absorb_node them). */
static uint32_t *fill_begin(tr_reader *r, uint32_t first, uint32_t count)
{
    if (tr_internal_array_reserve(&r->nodes, &r->capnodes, r->nnodes + count, sizeof *r->nodes, 64)) return NULL;
    return tr_internal_idtab_dense(&r->node_ids, first, first + count - 1);
}

/* absorb_node for the next node of a fill: its entry d, nodes[0 .. *n) the
 * nodes absorbed, kept in locals by the loop; sparse: the table has ids
 * outside its dense part, to look up too */
static inline void fill_node(const tr_reader *r, int sparse, uint32_t *d, node *nodes, size_t *n, uint32_t id,
                             uint32_t parent, uint32_t frame)
{
    if (*d || (sparse && tr_internal_idmap_get(&r->node_ids.sparse, id)))
        return; /* the first definition wins */
    nodes[(*n)++] = (node){parent, frame};
    *d = (uint32_t)*n;
}

/* The fill's nodes are r->nodes[0 .. n) */
static void fill_end(tr_reader *r, size_t n)
{
    if (n == r->nnodes) return;
    r->node_ids.count += n - r->nnodes;
    r->nnodes = n;
    r->stack_buf_id = 0; /* a stack materialised with them missing may now be longer */
}

/* A STACK_RUN record (spec/FORMAT.md 4.1): first id, parent of the first,
 * count, then count frame ids; node first+i is the parent of first+i+1.
 * Absorbed whole, or delivered node by node with keep_definitions. */
static int run_begin(tr_reader *r, tr_record *rec, cur *b)
{
    uint32_t first = cur_u32(b), parent = cur_u32(b), count = cur_u32(b);
    if (b->bad || !first || parent >= first || !count || count > (size_t)(b->end - b->p) ||
        first - 1 > UINT32_MAX - count)
        return malformed(r, "stack_run");
    r->run = (stack_run){b->p, b->end, first, parent, count, 0, 0};
    if (r->opt.keep_definitions == 1) return run_next(r, rec);
    r->run.left = 0;
    uint32_t *d = fill_begin(r, first, count);
    if (!d) { /* ids out of order: one by one */
        for (; count; count--, parent = first++) {
            uint32_t frame = cur_u32(b);
            if (b->bad) return malformed(r, "stack_run");
            int e = absorb_node(r, first, parent, frame);
            if (e) return e;
        }
        return 0;
    }
    const uint8_t *p = b->p, *end = b->end;
    node *nodes = r->nodes;
    size_t n = r->nnodes;
    int bad = 0, sparse = r->node_ids.sparse.n != 0;
    for (; count; count--, parent = first++, d++) {
        uint64_t frame = get_varint(&p, end, &bad);
        if (bad || frame > UINT32_MAX) break;
        fill_node(r, sparse, d, nodes, &n, first, parent, (uint32_t)frame);
    }
    fill_end(r, n);
    return count ? malformed(r, "stack_run") : 0;
}

/* One entry of a STACK_CHAIN record (spec/FORMAT.md 4.1): its frame's id,
 * or 0 when malformed.  *f is the frame when the entry defines it (*def). */
static inline uint32_t chain_entry(tr_reader *r, cur *b, tr_frame *f, int *def)
{
    uint64_t e = cur_varint(b), id;
    if ((*def = e < 2)) { /* defined here: 0 the last one defined + 1, 1 an id */
        id = e ? cur_varint(b) : (uint64_t)r->chain.frame + 1;
        tr_internal_frame_decode(b, f);
    } else { /* defined before: the last entry's + 1 + delta */
        id = r->chain.entry + 1 + (uint64_t)unzigzag(e - 2);
    }
    if (b->bad || !id || id > UINT32_MAX) return 0;
    if (*def) r->chain.frame = (uint32_t)id;
    return r->chain.entry = (uint32_t)id;
}

/* The next entry of the STACK_CHAIN record being delivered with
 * keep_definitions 1: the frame it defines, as a FRAME record, then its
 * node, as a STACK record.  1 delivered, or an error. */
static int chain_next(tr_reader *r, tr_record *rec)
{
    stack_run *sr = &r->run;
    uint32_t frame = sr->pending;
    if (!frame) {
        cur b = {sr->p, sr->end, 0};
        int def;
        if (!(frame = chain_entry(r, &b, &rec->u.frame.frame, &def))) return malformed(r, "stack_chain");
        sr->p = b.p;
        if (def) {
            int e = absorb_frame(r, frame, &rec->u.frame.frame);
            if (e) return e;
            run_record(r, rec, TR_REC_FRAME);
            rec->u.frame.id = sr->pending = frame;
            return 1;
        }
    }
    sr->pending = 0;
    int e = run_node(r, rec, frame);
    return e ? e : 1;
}

/* keep_definitions 1 and 2 deliver STRING and FRAME records, 3 does not. */
#define DELIVERS_FRAMES(r) ((r)->opt.keep_definitions == 1 || (r)->opt.keep_definitions == 2)

/* The entries of the STACK_CHAIN record being read without
 * keep_definitions 1, absorbed to its end (0); with keep_definitions 2 up
 * to one that defines a frame: that frame delivered as a FRAME record (1),
 * its node absorbed at the next call. */
static int chain_absorb(tr_reader *r, tr_record *rec)
{
    stack_run *sr = &r->run;
    int e = 0;
    if (sr->pending) { /* the node of the frame delivered */
        if ((e = absorb_node(r, sr->next, sr->parent, sr->pending))) return e;
        sr->pending = 0;
        sr->parent = sr->next++;
        if (!--sr->left) return 0;
    }
    uint32_t id = sr->next, parent = sr->parent, left = sr->left, entry = r->chain.entry;
    const uint8_t *p = sr->p, *end = sr->end;
    uint32_t *d = fill_begin(r, id, left);
    node *nodes = r->nodes;
    size_t n = r->nnodes;
    int bad = 0, sparse = r->node_ids.sparse.n != 0;
    for (; left; left--, parent = id++) {
        uint64_t x = get_varint(&p, end, &bad), frame;
        if (x >= 2) { /* a frame defined before: the last entry's + 1 + delta */
            frame = entry + 1 + (uint64_t)unzigzag(x - 2);
            if (bad || !frame || frame > UINT32_MAX) break;
            r->chain.entry = entry = (uint32_t)frame;
        } else { /* one defined here: decoded and absorbed (delivered with keep_definitions) */
            tr_frame f;
            cur c = {p, end, 0};
            frame = x ? cur_varint(&c) : (uint64_t)r->chain.frame + 1; /* 0: the last one defined + 1; 1: an id */
            tr_internal_frame_decode(&c, &f);
            if (bad || c.bad || !frame || frame > UINT32_MAX) break;
            p = c.p;
            r->chain.frame = r->chain.entry = entry = (uint32_t)frame;
            fill_end(r, n);
            if ((e = absorb_frame(r, (uint32_t)frame, &f))) break;
            if (DELIVERS_FRAMES(r)) {
                *sr = (stack_run){p, end, id, parent, left, 1, (uint32_t)frame};
                run_record(r, rec, TR_REC_FRAME);
                rec->u.frame.id = (uint32_t)frame;
                rec->u.frame.frame = f;
                return 1;
            }
        }
        if (d) fill_node(r, sparse, d++, nodes, &n, id, parent, (uint32_t)frame);
        else if ((e = absorb_node(r, id, parent, (uint32_t)frame))) break;
        else n = r->nnodes;
    }
    fill_end(r, n);
    sr->left = 0;
    return e ? e : left ? malformed(r, "stack_chain") : 0;
}

/* A STACK_CHAIN record (spec/FORMAT.md 4.1): first id (relative to the
 * chunk's last chain node), first - parent, count, then count entries.
 * Absorbed whole, or delivered entry by entry with keep_definitions. */
static int chain_begin(tr_reader *r, tr_record *rec, cur *b)
{
    int64_t first = (int64_t)r->chain.node + 1 + cur_svarint(b);
    uint64_t up = cur_varint(b), count = cur_varint(b);
    if (b->bad || first < 1 || first > UINT32_MAX || !up || up > (uint64_t)first || !count ||
        count > (size_t)(b->end - b->p) || (uint64_t)first - 1 > UINT32_MAX - count)
        return malformed(r, "stack_chain");
    uint32_t id = (uint32_t)first, parent = (uint32_t)(first - (int64_t)up);
    r->chain.node = (uint32_t)(first + (int64_t)count - 1);
    r->run = (stack_run){b->p, b->end, id, parent, (uint32_t)count, 1, 0};
    return r->opt.keep_definitions == 1 ? chain_next(r, rec) : chain_absorb(r, rec);
}

/* A sample of sflags 0, or 32 alone (a -g profile's: no registers, stack
 * copy or raw data), decoded as tr_internal_rec_decode_body and the
 * relative stack id's resolution would: 1; 0 for any other, or a malformed
 * one, left to them. */
static inline int plain_sample(const tr_reader *r, tr_record *rec, cur c)
{
    uint32_t event = cur_u32(&c);
    uint64_t period = cur_varint(&c), stack = cur_varint(&c), f = cur_varint(&c);
    if (c.bad || (f & ~32ull)) return 0;
    if (f) { /* relative to the chunk's last chain node */
        int64_t id = (int64_t)r->chain.node + unzigzag(stack);
        if (!(r->incompat & TR_INCOMPAT_STACK_CHAINS) || id < 0 || id > UINT32_MAX) return 0;
        stack = (uint64_t)id;
    } else if (stack > UINT32_MAX) {
        return 0;
    }
    __typeof__(rec->u.sample) *u = &rec->u.sample;
    u->event = event;
    u->period = period;
    u->stack = (uint32_t)stack;
    u->abi = u->nregs = u->raw_flags = 0;
    u->regs_mask = u->stack_copy_addr = 0;
    u->stack_copy = u->raw = NULL;
    u->stack_copy_len = u->raw_len = 0;
    return 1;
}

/* Decode the next record of the loaded chunk: 1 delivered, 0 absorbed or
 * skipped, <0 error (the rest of the chunk is dropped). */
static int next_record(tr_reader *r, tr_record *rec)
{
    if (r->run.left)
        return !r->run.chain ? run_next(r, rec) : r->opt.keep_definitions == 1 ? chain_next(r, rec) : chain_absorb(r, rec);
    cur c = {r->chunk.p + r->cpos, r->chunk.p + r->chunk.len, 0};
    uint64_t type = cur_varint(&c);
    uint64_t len = cur_varint(&c);
    const uint8_t *body = cur_bytes(&c, len);
    if (c.bad || type > UINT32_MAX) {
        r->cpos = r->chunk.len;
        r->st.bad_records++;
        return set_diag(r, TR_E_CORRUPT_RECORD, r->chunk_off, "chunk %llu: record header overruns the chunk",
                        (unsigned long long)r->chunk_seq);
    }
    r->cpos = (size_t)(c.p - r->chunk.p);
    r->st.records++;
    if (type < 128) r->st.per_type[type]++;
    rec->type = (uint32_t)type;
    rec->stream = r->stream;
    cur b = {body, body + len, 0};
    r->time = read_prefix(&b, rec, r->time);
    if (type == TR_REC_SAMPLE && !b.bad && plain_sample(r, rec, b)) return 1;
    if (type == TR_REC_STREAM_START || type == TR_REC_STREAM_END) b.bad = 1;
    if (type == TR_REC_STACK_RUN) return run_begin(r, rec, &b);
    if (type == TR_REC_STACK_CHAIN) return chain_begin(r, rec, &b);
    const char *name = tr_rec_type_name((uint32_t)type);
    copy_delta d = {0};
    int e = b.bad ? TR_E_CORRUPT_RECORD : name ? tr_internal_rec_decode_body(&b, rec, &d) : 0;
    if (!e && d.stack_rel) { /* the stack id relative to the chunk's last chain node */
        int64_t id = (int64_t)r->chain.node + d.stack_delta;
        if (!(r->incompat & TR_INCOMPAT_STACK_CHAINS) || id < 0 || id > UINT32_MAX) e = TR_E_CORRUPT_RECORD;
        else rec->u.sample.stack = (uint32_t)id;
    }
    if (!e && d.addressed && !(r->incompat & TR_INCOMPAT_STACK_ADDR))
        e = TR_E_CORRUPT_RECORD; /* a copy placed by address in a stream without them */
    else if (!e && type == TR_REC_SAMPLE && (r->incompat & TR_INCOMPAT_STACK_DELTA))
        e = complete_stack_copy(r, rec, &d);
    else if (d.kept)
        e = TR_E_CORRUPT_RECORD; /* a continued stack copy in a stream without them */
    if (e == TR_E_NOMEM) return e;
    if (e) return malformed(r, name);
    if (!name) return 0; /* unknown type: skipped, as the spec says */
    switch (type) {
    case TR_REC_STACK:
        if ((e = absorb(r, rec))) return e;
        return r->opt.keep_definitions == 1;
    case TR_REC_STRING: case TR_REC_FRAME:
        if ((e = absorb(r, rec))) return e;
        return DELIVERS_FRAMES(r);
    case TR_REC_EVENT_DEF: case TR_REC_META: case TR_REC_SYSCALL_TABLE:
        if ((e = absorb(r, rec))) return e;
        return r->opt.keep_definitions != 0;
    case TR_REC_BLOB:
        if ((e = absorb(r, rec))) return e;
        return r->opt.keep_definitions != 0;
    default:
        return 1;
    }
}

int tr_reader_next(tr_reader *r, tr_record *rec)
{
    if (!r || !rec) return TR_E_INVAL;
    for (;;) {
        while (r->run.left || r->cpos < r->chunk.len) {
            int e = next_record(r, rec);
            if (e) return e;
        }
        if (r->pending) {
            int e = r->pending;
            r->pending = 0;
            if (e == TR_E_TRUNCATED) r->state = S_DONE;
            return e;
        }
        if (r->state == S_DONE) return 0;
        int e = next_frame(r, rec);
        if (e == NF_CHUNK || e == NF_SKIPPED) continue;
        if (e == TR_E_TOO_LARGE || e == TR_E_CORRUPT_CHUNK) r->st.lost_chunks += r->diag.lost_chunks;
        if (e < 0 && !tr_error_recoverable(e)) r->state = S_DONE;
        return e;
    }
}

/* ---- look-ups ---- */

const char *tr_reader_string(tr_reader *r, uint32_t id, size_t *len)
{
    uint32_t i = id ? idtab_get(&r->str_ids, id) : 0;
    if (!i) {
        if (id) r->st.unresolved_refs++;
        return NULL;
    }
    if (len) *len = r->strs[i - 1].len;
    return r->strs[i - 1].s;
}

const tr_frame *tr_reader_frame(tr_reader *r, uint32_t id)
{
    uint32_t i = id ? idtab_get(&r->frame_ids, id) : 0;
    if (!i) {
        if (id) r->st.unresolved_refs++;
        return NULL;
    }
    return r->frames[i - 1];
}

int tr_reader_stack(tr_reader *r, uint32_t id, const uint32_t **frames)
{
    static const uint32_t none[1];
    *frames = none;
    if (!id) return 0;
    if (id == r->stack_buf_id) {
        *frames = r->stack_buf;
        return r->stack_buf_depth;
    }
    if (!idtab_get(&r->node_ids, id)) {
        r->st.unresolved_refs++;
        return TR_E_CORRUPT_RECORD;
    }
    if (!r->stack_buf && !(r->stack_buf = malloc(TR_MAX_DEPTH * sizeof *r->stack_buf))) return TR_E_NOMEM;
    int d = 0;
    for (uint32_t v = id; v && d < TR_MAX_DEPTH; d++)
        if (tr_reader_stack_node(r, v, &v, &r->stack_buf[d]) < 0) break; /* a parent lost: counted */
    r->stack_buf_id = id;
    r->stack_buf_depth = d;
    *frames = r->stack_buf;
    return d;
}

uint64_t tr_reader_defs_gen(const tr_reader *r)
{
    return r ? r->defs_gen : 0;
}

uint64_t tr_reader_stack_forgets(const tr_reader *r)
{
    return r ? r->stack_forgets : 0;
}

static __attribute__((noinline)) int stack_node_slow(tr_reader *r, uint32_t id, uint32_t *parent,
                                                      uint32_t *frame)
{
    uint32_t i = id ? idtab_get(&r->node_ids, id) : 0;
    if (!i) {
        if (id) r->st.unresolved_refs++;
        return TR_E_CORRUPT_RECORD;
    }
    *parent = r->nodes[i - 1].parent;
    *frame = r->nodes[i - 1].frame;
    return 0;
}

int tr_reader_stack_node(tr_reader *r, uint32_t id, uint32_t *parent, uint32_t *frame)
{
    /* once per node a tool walks: the dense part of the table, without a call */
    const idtab *t = &r->node_ids;
    uint32_t i = id - t->base, k;
    if (!id || id < t->base || i >= t->ndense || !(k = t->dense[i])) return stack_node_slow(r, id, parent, frame);
    *parent = r->nodes[k - 1].parent;
    *frame = r->nodes[k - 1].frame;
    return 0;
}

const tr_event_def *tr_reader_event(tr_reader *r, uint32_t id)
{
    uint32_t i = id ? idtab_get(&r->event_ids, id) : 0;
    if (!i) {
        if (id) r->st.unresolved_refs++;
        return NULL;
    }
    return r->events[i - 1];
}

const char *tr_reader_meta(tr_reader *r, const char *key)
{
    for (size_t i = 0; i < r->nmeta; i++)
        if (!strcmp(r->meta[i].key, key)) return r->meta[i].value;
    return NULL;
}

int tr_reader_meta_at(tr_reader *r, size_t i, const char **key, const char **value)
{
    if (i >= r->nmeta) return 0;
    *key = r->meta[i].key;
    *value = r->meta[i].value;
    return 1;
}

const char *tr_reader_syscall_name(tr_reader *r, const char *arch, uint32_t nr)
{
    if (!arch) arch = tr_reader_meta(r, "arch");
    for (size_t i = 0; i < r->nsystabs; i++) {
        if (arch && strcmp(r->systabs[i].arch, arch) && r->nsystabs > 1) continue;
        uint32_t k = tr_internal_idmap_get(&r->systabs[i].names, (uint64_t)nr + 1);
        if (k) return r->sys_names[k - 1];
    }
    return NULL;
}

const uint8_t *tr_reader_blob(tr_reader *r, const char *name, size_t *len)
{
    for (size_t i = 0; i < r->nblobs; i++)
        if (!strcmp(r->blobs[i].name, name)) {
            if (len) *len = r->blobs[i].len;
            return r->blobs[i].data;
        }
    return NULL;
}

int tr_reader_blob_at(tr_reader *r, const char *prefix, size_t i, const char **name, const uint8_t **data,
                      size_t *len)
{
    size_t plen = strlen(prefix);
    for (size_t k = 0; k < r->nblobs; k++) {
        if (strncmp(r->blobs[k].name, prefix, plen)) continue;
        if (i--) continue;
        *name = r->blobs[k].name;
        *data = r->blobs[k].data;
        *len = r->blobs[k].len;
        return 1;
    }
    return 0;
}

/* ---- life cycle ---- */

static int reader_new(tr_reader **out, const tr_reader_options *opt)
{
    tr_reader *r = calloc(1, sizeof *r);
    if (!r) return TR_E_NOMEM;
    if (opt) r->opt = *opt;
    r->dctx = ZSTD_createDCtx();
    if (!r->dctx) {
        free(r);
        return TR_E_NOMEM;
    }
    r->fd = -1;
    *out = r;
    return 0;
}

static ssize_t fd_read(void *ctx, void *buf, size_t len)
{
    const tr_reader *r = ctx;
    return read(r->fd, buf, len);
}

int tr_reader_open_fn(tr_reader **out, tr_read_fn fn, void *ctx, const void *head, size_t head_len,
                      const tr_reader_options *opt)
{
    if (!out || !fn || (!head && head_len)) return TR_E_INVAL;
    int e = reader_new(out, opt);
    if (e) return e;
    tr_reader *r = *out;
    r->read = fn;
    r->read_ctx = ctx;
    r->own_buf = 1;
    if (head_len) {
        /* the bytes already read come first, as if read now */
        size_t cap = head_len > (1u << 20) ? head_len : (1u << 20);
        if (!(r->in = malloc(cap))) {
            tr_reader_free(r);
            *out = NULL;
            return TR_E_NOMEM;
        }
        memcpy(r->in, head, head_len);
        r->in_cap = cap;
        r->in_len = head_len;
        r->st.input_bytes = head_len;
    }
    return 0;
}

int tr_reader_open_fd(tr_reader **out, int fd, const void *head, size_t head_len,
                      const tr_reader_options *opt)
{
    if (!out || fd < 0) return TR_E_INVAL;
    int e = tr_reader_open_fn(out, fd_read, NULL, head, head_len, opt);
    if (e) return e;
    (*out)->fd = fd;
    (*out)->read_ctx = *out;
    return 0;
}

int tr_reader_open(tr_reader **out, int fd, const tr_reader_options *opt)
{
    return tr_reader_open_fd(out, fd, NULL, 0, opt);
}

int tr_reader_open_mem(tr_reader **out, const void *data, size_t len, const tr_reader_options *opt)
{
    if (!out || (!data && len)) return TR_E_INVAL;
    int e = reader_new(out, opt);
    if (e) return e;
    tr_reader *r = *out;
    r->in = (uint8_t *)data;
    r->in_len = len;
    r->eof = 1;
    r->st.input_bytes = len;
    return 0;
}

void tr_reader_free(tr_reader *r)
{
    if (!r) return;
    tr_internal_readahead_free(r->ra);
    tables_clear(r);
    tr_internal_stack_images_free(&r->images);
    free(r->strs);
    free(r->frames);
    free(r->nodes);
    free(r->stack_buf);
    free(r->events);
    free(r->sys_names);
    for (size_t i = 0; i < r->nadopt; i++) tr_internal_buf_free(&r->adopt[i].raw);
    free(r->adopt);
    if (r->own_buf) free(r->in);
    tr_internal_buf_free(&r->chunk);
    ZSTD_freeDCtx(r->dctx);
    free(r);
}

const tr_reader_diag *tr_reader_last_diag(const tr_reader *r) { return &r->diag; }

void tr_reader_get_stats(const tr_reader *r, tr_reader_stats *st) { *st = r->st; }
