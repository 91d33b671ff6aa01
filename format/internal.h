/* internal.h - shared by the library's own files; not installed.
 *
 * Names.  libtr exports only tr_ names: a program linking it may define
 * any other name (buf_free, idmap_get ...).  What this header declares
 * with external linkage is therefore named tr_internal_*, and declared
 * with hidden visibility: libtr.so does not export it (libtr.map exports
 * the public tr_ API of tr.h and nothing else). */
#ifndef TR_INTERNAL_H
#define TR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tr.h"

#pragma GCC visibility push(hidden)

/* ---- the frames around chunks (spec/FORMAT.md, "Frames") ---- */
#define TR_SKIP_MAGIC 0x184D2A5Eu  /* zstd skippable frame, nibble E */
#define TR_ZSTD_MAGIC 0xFD2FB528u
#define TR_KIND_START 0x54535254u  /* "TRST" */
#define TR_KIND_CHUNK 0x48435254u  /* "TRCH" */
#define TR_KIND_END 0x4E455254u    /* "TREN" */
#define TR_START_SIZE 28u          /* content sizes in version 1.0 */
#define TR_CHUNK_SIZE 40u
#define TR_END_SIZE 48u
#define TR_FRAME_MAX 4096u         /* largest frame content a reader accepts */
#define TR_CHUNK_KEY 1u            /* chunk flag: key chunk */
#define TR_CHUNK_FORGET 2u         /* chunk flag: no stack node defined before it is referred to again */
#define TR_RAW_MAX (16u << 20)     /* hard limit on a chunk's raw size */
#define TR_MAX_DEPTH 4096          /* frames of a stack a reader materialises */

/* ---- little-endian fixed-width fields ---- */
static inline void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void put_le64(uint8_t *p, uint64_t v) { put_le32(p, (uint32_t)v); put_le32(p + 4, (uint32_t)(v >> 32)); }
static inline void put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t get_le64(const uint8_t *p) { return get_le32(p) | (uint64_t)get_le32(p + 4) << 32; }
static inline uint16_t get_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* ---- varints: LEB128, at most 10 bytes; signed values zigzag-encoded ---- */
static inline uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* A cursor over a record body.  Reading past the end sets bad. */
typedef struct cur {
    const uint8_t *p, *end;
    int bad;
} cur;

uint64_t tr_internal_cur_varint_slow(cur *c);
static inline uint64_t cur_varint(cur *c)
{
    const uint8_t *p = c->p;
    ptrdiff_t left = c->end - p;
    if (left >= 1 && p[0] < 0x80) { /* the short forms, unrolled */
        c->p = p + 1;
        return p[0];
    }
    if (left >= 2 && p[1] < 0x80) {
        c->p = p + 2;
        return (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
    }
    if (left >= 3 && p[2] < 0x80) {
        c->p = p + 3;
        return (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
    }
    if (left >= 4 && p[3] < 0x80) {
        c->p = p + 4;
        return (uint64_t)(p[0] & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)(p[2] & 0x7f) << 14 |
               (uint64_t)p[3] << 21;
    }
    return tr_internal_cur_varint_slow(c);
}
static inline int64_t cur_svarint(cur *c) { return unzigzag(cur_varint(c)); }
static inline uint32_t cur_u32(cur *c)
{
    uint64_t v = cur_varint(c);
    if (v > UINT32_MAX) c->bad = 1;
    return (uint32_t)v;
}
static inline int32_t cur_s32(cur *c)
{
    int64_t v = cur_svarint(c);
    if (v < INT32_MIN || v > INT32_MAX) c->bad = 1;
    return (int32_t)v;
}
/* n bytes, or NULL (and bad) when fewer remain */
static inline const uint8_t *cur_bytes(cur *c, uint64_t n)
{
    if (n > (uint64_t)(c->end - c->p)) {
        c->bad = 1;
        c->p = c->end;
        return NULL;
    }
    const uint8_t *p = c->p;
    c->p += n;
    return p;
}
static inline size_t cur_left(const cur *c) { return (size_t)(c->end - c->p); }

/* ---- a growable byte buffer ---- */
typedef struct buf {
    uint8_t *p;
    size_t len, cap;
} buf;
int tr_internal_buf_reserve(buf *b, size_t more);
static inline int buf_put(buf *b, const void *d, size_t n)
{
    if (b->cap - b->len < n && tr_internal_buf_reserve(b, n)) return TR_E_NOMEM;
    if (n) memcpy(b->p + b->len, d, n);
    b->len += n;
    return 0;
}
/* tr_varint_put, inline: at most 10 bytes at p, returns how many */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}
static inline int buf_varint(buf *b, uint64_t v)
{
    if (b->cap - b->len < 10 && tr_internal_buf_reserve(b, 10)) return TR_E_NOMEM;
    b->len += varint_put(b->p + b->len, v);
    return 0;
}
static inline int buf_svarint(buf *b, int64_t v) { return buf_varint(b, zigzag(v)); }
void tr_internal_buf_free(buf *b);

/* ---- growable arrays (the library's own array_reserve: libtr links
 * nothing of model/) ----
 * Grow the array *arrp (the address of the array pointer; elements of elem
 * bytes) to hold at least n elements, doubling from first.  0, or
 * TR_E_NOMEM with the array and *cap unchanged. */
int tr_internal_array_reserve(void *arrp, size_t *cap, size_t n, size_t elem, size_t first);

/* ---- hash maps with 64-bit keys to 32-bit values (0 = absent) ---- */
typedef struct idmap {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n;
} idmap;
uint32_t tr_internal_idmap_get(const idmap *m, uint64_t key);
int tr_internal_idmap_put(idmap *m, uint64_t key, uint32_t val);
/* The value of key, put with value 0 when absent (0 reads as absent until
 * the caller sets it): one probe for a look-up that inserts on a miss.
 * NULL: out of memory (or key UINT64_MAX). */
uint32_t *tr_internal_idmap_slot(idmap *m, uint64_t key);
/* Room for n keys without growing: 0 or TR_E_NOMEM. */
int tr_internal_idmap_reserve(idmap *m, size_t n);
void tr_internal_idmap_clear(idmap *m); /* empty, keeping its memory */
void tr_internal_idmap_free(idmap *m);

/* ids to values: a dense array for ids near the number defined (writers
 * assign them in order), a hash map for the rest (hostile or lost ids), so
 * memory follows the number of definitions, never the size of an id. */
typedef struct idtab {
    uint32_t *dense;  /* ids base .. base + ndense - 1 */
    size_t ndense, count;
    uint32_t base;    /* the first id put into the empty table */
    idmap sparse;     /* the others */
} idtab;
static inline uint32_t idtab_get(const idtab *t, uint32_t id)
{
    uint32_t i = id - t->base;
    if (id >= t->base && i < t->ndense && t->dense[i]) return t->dense[i];
    return t->sparse.n ? tr_internal_idmap_get(&t->sparse, id) : 0;
}
int tr_internal_idtab_put(idtab *t, uint32_t id, uint32_t val);
/* The same, inline where id falls in the dense array (once per stack node
 * read: the common case) */
static inline int idtab_put(idtab *t, uint32_t id, uint32_t val)
{
    uint32_t i = id - t->base;
    if (!t->count || id < t->base || i >= t->ndense) return tr_internal_idtab_put(t, id, val);
    t->count++;
    t->dense[i] = val;
    return 0;
}
/* The dense array's entries of ids lo..hi, grown to hold them as puts
 * would, for a caller that fills them itself (an entry set from 0 counts
 * one more in t->count); NULL when they do not fall in it (or out of
 * memory): put them one by one. */
uint32_t *tr_internal_idtab_dense(idtab *t, uint32_t lo, uint32_t hi);
void tr_internal_idtab_clear(idtab *t); /* empty, keeping its memory */
void tr_internal_idtab_free(idtab *t);
uint64_t tr_internal_hash64(const void *p, size_t n, uint64_t seed);

/* ---- stack images (format 1.1, STACK_DELTA) ----
 * Each thread's stack copies of the open chunk laid over one another,
 * aligned at their ends, kept at the end of a buffer: a copy that ends
 * with the image's last bytes is completed in place, by writing only the
 * bytes before them.  Writer and reader keep the same images; both empty
 * them at every chunk. */
typedef struct stack_image {
    uint8_t *p;      /* the image is p[cap - len, cap) */
    size_t cap, len;
    uint64_t end;    /* STACK_ADDR: the address after its last byte, when has_end */
    int has_end;
} stack_image;
typedef struct stack_images {
    stack_image *v;
    size_t n, capv, bytes; /* bytes: sum of the buffers' sizes */
    idmap index;           /* (pid, tid) -> index + 1 into v */
    uint32_t anon;         /* the same for pid = tid = -1 (the idmap's empty key) */
} stack_images;
/* The image of thread (pid, tid), made empty when new; NULL: out of memory. */
stack_image *tr_internal_stack_image_get(stack_images *t, int32_t pid, int32_t tid);
/* Make room for a copy of n bytes, keeping the image at the end. */
int tr_internal_stack_image_reserve(stack_images *t, stack_image *im, size_t n);
/* A copy of fresh[0..f) followed by the image's last kept bytes (kept <=
 * len; reserved for f + kept) is laid over the image: where it starts. */
const uint8_t *tr_internal_stack_image_put(stack_image *im, const uint8_t *fresh, size_t f, size_t kept);
/* The length of the longest common suffix of s[0..n) and the image. */
size_t tr_internal_stack_image_suffix(const stack_image *im, const uint8_t *s, size_t n);
/* STACK_ADDR (1.2): copies placed by address, each becoming the image.
 * For a copy s[0..n) of the memory at addr: the longest run of its words
 * equal to the image's at the same addresses: *kept its length (0 when
 * shorter than min), *tail the copy's bytes above it. */
void tr_internal_stack_image_match_at(const stack_image *im, const uint8_t *s, size_t n, uint64_t addr,
                                      size_t min, size_t *kept, size_t *tail);
/* Does the image hold the kept bytes at address k0?  (A reader's check.) */
int tr_internal_stack_image_holds(const stack_image *im, uint64_t k0, size_t kept);
/* The copy at addr of fresh[0..f - tail), then the image's kept bytes at
 * the addresses that follow, then fresh[f - tail..f) becomes the image
 * (reserved for f + kept; the kept bytes checked): where it starts. */
const uint8_t *tr_internal_stack_image_put_at(stack_image *im, const uint8_t *fresh, size_t f, size_t tail,
                                              size_t kept, uint64_t addr);
/* A new chunk: every image empty (buffers kept unless they grew large). */
void tr_internal_stack_images_reset(stack_images *t);
void tr_internal_stack_images_free(stack_images *t);

/* ---- record bodies (record.c) ---- */
/* Does type t start with the event prefix (dt, pid, tid, cpu)? */
static inline int type_has_prefix(uint32_t t) { return (t & 0x20) != 0; }
/* Encode rec's body (after the prefix for event types) into b.  kept: the
 * last kept bytes of a sample's stack copy are not written but taken from
 * the thread's stack image (sflags bit 3); 0 for every other record. */
/* How a sample's stack copy is written: the copy less `kept` bytes taken
 * from its thread's image (STACK_DELTA); with `addressed` (STACK_ADDR) the
 * kept bytes are followed by the copy's last `tail` bytes. */
typedef struct copy_delta {
    size_t kept, tail;
    int addressed;
    /* sample sflags bit 5 (1.4): the stack id is written relative to
     * stack_base (encoding); stack_delta is what was read (decoding) */
    int stack_rel;
    uint32_t stack_base;
    int64_t stack_delta;
} copy_delta;
int tr_internal_rec_encode_body(buf *b, const tr_record *rec, const copy_delta *d);
/* Decode a body (after the prefix) into rec; 0 or TR_E_CORRUPT_RECORD.
 * A sample whose stack copy continues in the thread's stack image gets
 * only its written bytes in stack_copy and the rest's length in *kept
 * (0 otherwise): the reader completes it. */
int tr_internal_rec_decode_body(cur *c, tr_record *rec, copy_delta *d);
/* A frame's fields after its id, as in a FRAME record: flags, addr, and
 * the symbolized ones (also a STACK_CHAIN's frames). */
int tr_internal_frame_encode(buf *b, const tr_frame *f);
void tr_internal_frame_decode(cur *c, tr_frame *f);

/* ---- chunks decompressed ahead on a thread (readahead.c;
 * tr_reader_options.decompress_thread) ---- */
/* chunks queued or decompressed ahead at most: with 4 rather than 2 the
 * thread and a reader that would wait (which takes the next queued one)
 * both find work while zstd is the slower side (server dwarf warm, 80% of
 * the instructions in zstd: 11% less wall time, 4 MB more memory) */
#define TR_READAHEAD_DEPTH 4
typedef struct tr_readahead tr_readahead;
tr_readahead *tr_internal_readahead_new(void); /* no thread until the first chunk queued */
void tr_internal_readahead_free(tr_readahead *a);
/* Whether the chunk at input offset off is queued (or decompressed); and
 * whether a slot is free for one more. */
int tr_internal_readahead_has(tr_readahead *a, uint64_t off);
int tr_internal_readahead_room(tr_readahead *a);
/* Queue the chunk at input offset off: its zstd frame z of csize bytes
 * (copied first with copy; else it stays where it is until taken or
 * passed), rsize raw bytes.  1 queued, 0 not (no room, no memory, no thread). */
int tr_internal_readahead_queue(tr_readahead *a, uint64_t off, const uint8_t *z, uint32_t csize,
                                uint32_t rsize, int copy);
/* The reader is at the chunk at off: 1 with its raw bytes in *chunk (the
 * buffers swapped) and in *got what ZSTD_decompressDCtx returned (an error
 * code or the size); 0 when it was not ahead (decompress it yourself).
 * Chunks queued before off are dropped: the reader has passed them. */
int tr_internal_readahead_take(tr_readahead *a, uint64_t off, uint32_t csize, uint32_t rsize, buf *chunk,
                               size_t *got);

#pragma GCC visibility pop

#endif
