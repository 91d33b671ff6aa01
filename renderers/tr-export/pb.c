/* pb.c - protocol buffer writing and gzip (pb.h). */
#include "pb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

void pb_free(struct pb *p)
{
    free(p->b);
    *p = (struct pb){0};
}

static int room(struct pb *p, size_t n)
{
    if (p->nomem || array_reserve(&p->b, &p->cap, p->n + n, 1, 256) < 0)
        return p->nomem = 1, 0;
    return 1;
}

void pb_varint(struct pb *p, uint64_t v)
{
    if (!room(p, 10))
        return;
    while (v >= 0x80) {
        p->b[p->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p->b[p->n++] = (uint8_t)v;
}

void pb_uint(struct pb *p, unsigned f, uint64_t v)
{
    pb_varint(p, (uint64_t)f << 3);
    pb_varint(p, v);
}

void pb_bytes(struct pb *p, unsigned f, const void *data, size_t n)
{
    pb_varint(p, (uint64_t)f << 3 | 2);
    pb_varint(p, n);
    if (n && room(p, n)) {
        memcpy(p->b + p->n, data, n);
        p->n += n;
    }
}

void pb_packed(struct pb *p, unsigned f, const uint64_t *v, size_t n)
{
    if (!n)
        return;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = v[i];
        do
            len++;
        while (x >>= 7);
    }
    pb_varint(p, (uint64_t)f << 3 | 2);
    pb_varint(p, len);
    for (size_t i = 0; i < n; i++)
        pb_varint(p, v[i]);
}

int gz_open(struct gz *g, FILE *out)
{
    memset(&g->z, 0, sizeof g->z);
    g->out = out;
    g->err = 0;
    /* windowBits 15 + 16: a gzip header and trailer around the deflate stream */
    if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return errno = ENOMEM, -1;
    return 0;
}

static int gz_run(struct gz *g, int flush)
{
    int rc;
    do {
        g->z.next_out = g->buf;
        g->z.avail_out = sizeof g->buf;
        rc = deflate(&g->z, flush);
        size_t n = sizeof g->buf - g->z.avail_out;
        if (n && fwrite(g->buf, 1, n, g->out) != n)
            return g->err = 1, -1;
    } while (g->z.avail_out == 0 || (flush == Z_FINISH && rc == Z_OK));
    return rc == Z_STREAM_ERROR ? (g->err = 1, errno = EIO, -1) : 0;
}

int gz_write(struct gz *g, const void *data, size_t n)
{
    if (g->err)
        return -1;
    g->z.next_in = (Bytef *)(uintptr_t)data;
    g->z.avail_in = (uInt)n;
    return gz_run(g, Z_NO_FLUSH);
}

int gz_field(struct gz *g, struct pb *scratch, unsigned f, const struct pb *m)
{
    if (m->nomem)
        return errno = ENOMEM, -1;
    pb_clear(scratch);
    pb_varint(scratch, (uint64_t)f << 3 | 2);
    pb_varint(scratch, m->n);
    if (scratch->nomem)
        return errno = ENOMEM, -1;
    return gz_write(g, scratch->b, scratch->n) < 0 || gz_write(g, m->b, m->n) < 0 ? -1 : 0;
}

int gz_close(struct gz *g)
{
    int rc = g->err ? -1 : gz_run(g, Z_FINISH);
    deflateEnd(&g->z);
    return rc;
}
