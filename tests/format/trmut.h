/*
 * trmut.h - a trace cut into pieces that can be edited and put back
 * together as a valid trace: every chunk decompressed to its records, every
 * other byte (start and end frames, garbage, foreign frames) kept as it is.
 * Joining compresses the chunks again and recomputes their headers' sizes
 * and checksums, so an edited record reaches the record decoders and the
 * blob parsers instead of failing the CRC or zstd check.
 *
 * Used by the structure-aware fuzz mutator (fuzz_mutator.c) and by tr-mut,
 * which crafts damaged traces for tests.
 */
#ifndef TESTS_TRMUT_H
#define TESTS_TRMUT_H

#include <stddef.h>
#include <stdint.h>

struct trmut_piece {
    int chunk;       /* 1: a chunk (hdr + raw records), 0: bytes kept as they are */
    uint8_t *bytes;  /* the records of a chunk, or the bytes */
    size_t len, cap;
    uint8_t *hdr;    /* a chunk's frame (header and content, no zstd frame) */
    size_t hdr_len;
};

struct trmut {
    struct trmut_piece *p;
    size_t n;
};

/* Cut data into pieces; 0, or -1 when out of memory. */
int trmut_split(struct trmut *t, const uint8_t *data, size_t size);
/* The trace again, into a new buffer (*out, free it); its size, 0 when out of memory. */
size_t trmut_join(const struct trmut *t, uint8_t **out);
void trmut_free(struct trmut *t);

/* One record of a chunk: it starts at off, its body at body, len bytes. */
struct trmut_rec {
    uint64_t type;
    size_t off, body, len;
};
/* The records of a chunk's raw bytes (up to max, in *r): how many were
 * found before the end or a malformed header. */
size_t trmut_records(const uint8_t *p, size_t n, struct trmut_rec *r, size_t max);
/* Replace bytes [from, to) of piece c with len bytes of data; -1 when out of memory. */
int trmut_splice(struct trmut_piece *c, size_t from, size_t to, const uint8_t *data, size_t len);
/* Give record r of piece c a new body; -1 when out of memory. */
int trmut_set_body(struct trmut_piece *c, const struct trmut_rec *r, const uint8_t *body, size_t len);
/* A varint at o: its length (at most 10). */
size_t trmut_varint(uint8_t *o, uint64_t v);
/* The bytes of a record: type, length, body (into out, at most 20 + len). */
size_t trmut_encode(uint8_t *out, uint64_t type, const uint8_t *body, size_t len);

/* A blob record's name and data within its body: 1 with them set, 0 when malformed. */
int trmut_blob(const uint8_t *body, size_t len, const uint8_t **name, size_t *name_len, size_t *data_off);

#endif
