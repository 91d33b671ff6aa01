/*
 * pb.h - protocol buffers written by hand (tr-export --pprof): a message is
 * built in a growable buffer, and the top level goes through gzip as it is
 * written, so a profile never needs to be whole in memory.
 */
#ifndef TR_EXPORT_PB_H
#define TR_EXPORT_PB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

struct pb { uint8_t *b; size_t n, cap; int nomem; };

/* Emptied for the next message (the memory is kept). */
static inline void pb_clear(struct pb *p) { p->n = 0; }
void pb_free(struct pb *p);
void pb_varint(struct pb *p, uint64_t v);
/* Field f as a varint (wire type 0); written even when v is 0. */
void pb_uint(struct pb *p, unsigned f, uint64_t v);
/* Field f as length-delimited bytes (wire type 2): strings, messages, packed arrays. */
void pb_bytes(struct pb *p, unsigned f, const void *data, size_t n);
/* Packed repeated varints (skipped when n is 0). */
void pb_packed(struct pb *p, unsigned f, const uint64_t *v, size_t n);

/* A gzip stream to out. */
struct gz { z_stream z; FILE *out; int err; uint8_t buf[1 << 16]; };
int gz_open(struct gz *g, FILE *out);
/* The message m as field f of the top level. */
int gz_field(struct gz *g, struct pb *scratch, unsigned f, const struct pb *m);
/* Bytes of the top level as they are. */
int gz_write(struct gz *g, const void *data, size_t n);
/* Ends the stream (and frees it); 0 or -1. */
int gz_close(struct gz *g);

#endif
