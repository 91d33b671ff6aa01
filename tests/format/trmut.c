/* trmut.c - a trace cut into editable pieces and joined again (trmut.h). */
#include "trmut.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "tr.h"

static int add(struct trmut *t, int chunk, const uint8_t *bytes, size_t len, const uint8_t *hdr, size_t hdr_len)
{
    struct trmut_piece *p = realloc(t->p, (t->n + 1) * sizeof *p);
    if (!p) return -1;
    t->p = p;
    p = &t->p[t->n];
    memset(p, 0, sizeof *p);
    p->chunk = chunk;
    p->bytes = malloc(len ? len : 1);
    p->hdr = hdr_len ? malloc(hdr_len) : NULL;
    if (!p->bytes || (hdr_len && !p->hdr)) {
        free(p->bytes);
        free(p->hdr);
        return -1;
    }
    memcpy(p->bytes, bytes, len);
    p->len = p->cap = len;
    if (hdr_len) memcpy(p->hdr, hdr, hdr_len);
    p->hdr_len = hdr_len;
    t->n++;
    return 0;
}

int trmut_split(struct trmut *t, const uint8_t *data, size_t size)
{
    memset(t, 0, sizeof *t);
    size_t i = 0, kept = 0; /* bytes [kept, i) wait to be added as they are */
    uint8_t *raw = NULL;
    while (i < size) {
        tr_stream_frame f;
        if (tr_stream_frame_parse(data + i, size - i, &f) != 1) {
            i++;
            continue;
        }
        if (f.kind == TR_SFRAME_CHUNK && f.rsize <= (16u << 20)) {
            size_t hdr_len = f.size - f.csize;
            free(raw);
            raw = malloc(f.rsize ? f.rsize : 1);
            if (!raw) goto nomem;
            size_t got = ZSTD_decompress(raw, f.rsize, data + i + hdr_len, f.csize);
            if (!ZSTD_isError(got) && got == f.rsize) {
                if ((i > kept && add(t, 0, data + kept, i - kept, NULL, 0)) ||
                    add(t, 1, raw, f.rsize, data + i, hdr_len))
                    goto nomem;
                i += f.size;
                kept = i;
                continue;
            }
        }
        i += f.size;
    }
    free(raw);
    if (size > kept && add(t, 0, data + kept, size - kept, NULL, 0)) return trmut_free(t), -1;
    return 0;
nomem:
    free(raw);
    trmut_free(t);
    return -1;
}

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

size_t trmut_join(const struct trmut *t, uint8_t **out)
{
    size_t cap = 0;
    for (size_t i = 0; i < t->n; i++)
        cap += t->p[i].hdr_len + (t->p[i].chunk ? ZSTD_compressBound(t->p[i].len) : t->p[i].len);
    uint8_t *o = malloc(cap ? cap : 1);
    ZSTD_CCtx *z = ZSTD_createCCtx();
    if (!o || !z) {
        free(o);
        ZSTD_freeCCtx(z);
        return 0;
    }
    ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 1);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct trmut_piece *p = &t->p[i];
        if (!p->chunk) {
            memcpy(o + n, p->bytes, p->len);
            n += p->len;
            continue;
        }
        uint8_t *h = o + n;
        memcpy(h, p->hdr, p->hdr_len);
        size_t c = ZSTD_compress2(z, h + p->hdr_len, cap - n - p->hdr_len, p->bytes, p->len);
        if (ZSTD_isError(c)) {
            free(o);
            ZSTD_freeCCtx(z);
            return 0;
        }
        uint32_t size = le32(h + 4); /* the frame's content: kind .. crc */
        put32(h + 8 + 16, (uint32_t)c);
        put32(h + 8 + 20, (uint32_t)p->len);
        put32(h + 8 + size - 4, tr_crc32c(0, h + 8, size - 4));
        n += p->hdr_len + c;
    }
    ZSTD_freeCCtx(z);
    *out = o;
    return n;
}

void trmut_free(struct trmut *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->p[i].bytes);
        free(t->p[i].hdr);
    }
    free(t->p);
    memset(t, 0, sizeof *t);
}

static int varint(const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; *i < n && shift < 64; shift += 7) {
        uint8_t b = p[(*i)++];
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) return 1;
    }
    return 0;
}

size_t trmut_records(const uint8_t *p, size_t n, struct trmut_rec *r, size_t max)
{
    size_t k = 0, i = 0;
    while (i < n && k < max) {
        struct trmut_rec x = {.off = i};
        uint64_t len;
        if (!varint(p, n, &i, &x.type) || !varint(p, n, &i, &len) || len > n - i) break;
        x.body = i;
        x.len = (size_t)len;
        r[k++] = x;
        i += x.len;
    }
    return k;
}

int trmut_splice(struct trmut_piece *c, size_t from, size_t to, const uint8_t *data, size_t len)
{
    size_t n = c->len - (to - from) + len;
    if (n > c->cap) {
        uint8_t *b = realloc(c->bytes, n);
        if (!b) return -1;
        c->bytes = b;
        c->cap = n;
    }
    memmove(c->bytes + from + len, c->bytes + to, c->len - to);
    if (len) memcpy(c->bytes + from, data, len);
    c->len = n;
    return 0;
}

size_t trmut_varint(uint8_t *o, uint64_t v)
{
    size_t n = 0;
    do {
        o[n++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
        v >>= 7;
    } while (v);
    return n;
}

size_t trmut_encode(uint8_t *out, uint64_t type, const uint8_t *body, size_t len)
{
    size_t n = trmut_varint(out, type);
    n += trmut_varint(out + n, len);
    memcpy(out + n, body, len);
    return n + len;
}

int trmut_set_body(struct trmut_piece *c, const struct trmut_rec *r, const uint8_t *body, size_t len)
{
    uint8_t *b = malloc(20 + len);
    if (!b) return -1;
    size_t n = trmut_encode(b, r->type, body, len);
    int rc = trmut_splice(c, r->off, r->body + r->len, b, n);
    free(b);
    return rc;
}

int trmut_blob(const uint8_t *body, size_t len, const uint8_t **name, size_t *name_len, size_t *data_off)
{
    size_t i = 0;
    uint64_t nl;
    if (!varint(body, len, &i, &nl) || nl > len - i) return 0;
    *name = body + i;
    *name_len = (size_t)nl;
    *data_off = i + (size_t)nl;
    return 1;
}
