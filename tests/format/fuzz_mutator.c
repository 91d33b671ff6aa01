/* fuzz_mutator.c - libFuzzer's custom mutator for traces: it edits records
 * and blobs inside the chunks, then frames, compresses and checksums them
 * again (trmut.h), so mutations get past the CRC and zstd checks to the
 * record decoders and to what parses blobs (libtraceevent's format,
 * printk and kallsyms parsers, the symbolizer's kallsyms, vDSO and perf-map
 * readers).  One mutation in eight is libFuzzer's own on the raw bytes, for
 * the frame layer.  Linked into every trace fuzz target (make fuzz,
 * fuzz-cat, fuzz-fold-trace, fuzz-symbolize-trace); the replay builds of
 * make test do without it. */
#include <stdlib.h>
#include <string.h>

#include "trmut.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static unsigned next(unsigned *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* A line of text at random: deleted, doubled, cut short, or a byte of it removed. */
static size_t line_edit(uint8_t *p, size_t n, size_t cap, unsigned *s)
{
    if (!n) return 0;
    size_t a = next(s) % n;
    while (a && p[a - 1] != '\n') a--;
    uint8_t *nl = memchr(p + a, '\n', n - a);
    size_t b = nl ? (size_t)(nl - p) + 1 : n; /* the line is [a, b) */
    switch (next(s) % 4) {
    case 0: /* deleted */
        memmove(p + a, p + b, n - b);
        return n - (b - a);
    case 1: /* doubled */
        if (n + (b - a) > cap) return n;
        memmove(p + b + (b - a), p + b, n - b);
        memcpy(p + b, p + a, b - a);
        return n + (b - a);
    case 2: { /* cut at a random place, the rest of the line gone */
        size_t c = a + next(s) % (b - a);
        size_t keep = b < n ? c + 1 : c;
        if (b < n) p[c] = '\n';
        memmove(p + keep, p + b, n - b);
        return n - (b - keep);
    }
    default: { /* one byte out */
        size_t c = a + next(s) % (b - a);
        memmove(p + c, p + c + 1, n - c - 1);
        return n - 1;
    }
    }
}

/* Mutate record r of chunk c: its body, or for a blob its data only. */
static int mutate_record(struct trmut_piece *c, const struct trmut_rec *r, unsigned *s)
{
    const uint8_t *name;
    size_t name_len, off = 0;
    if (r->type == 0x12 && trmut_blob(c->bytes + r->body, r->len, &name, &name_len, &off) && next(s) % 4 == 0)
        off = 0; /* the name too, now and then */
    size_t cap = r->len * 2 + 64;
    uint8_t *b = malloc(cap);
    if (!b) return -1;
    memcpy(b, c->bytes + r->body, r->len);
    size_t n;
    if (r->type == 0x12 && off && next(s) % 2)
        n = off + line_edit(b + off, r->len - off, cap - off, s);
    else
        n = off + LLVMFuzzerMutate(b + off, r->len - off, cap - off);
    int rc = trmut_set_body(c, r, b, n);
    free(b);
    return rc;
}

static int mutate_chunk(struct trmut_piece *c, unsigned *s)
{
    static struct trmut_rec r[8192];
    size_t n = trmut_records(c->bytes, c->len, r, 8192);
    int op = (int)(next(s) % 16);
    if (n == 0 || op == 0) { /* the raw records */
        size_t cap = c->len * 2 + 64;
        uint8_t *b = malloc(cap);
        if (!b) return -1;
        memcpy(b, c->bytes, c->len);
        size_t k = LLVMFuzzerMutate(b, c->len, cap);
        int rc = trmut_splice(c, 0, c->len, b, k);
        free(b);
        return rc;
    }
    size_t i = next(s) % n;
    if (op < 10) { /* a blob, more often than not: they hold whole files to parse */
        size_t nb = 0;
        for (size_t k = 0; k < n; k++) nb += r[k].type == 0x12;
        if (nb && op < 7) {
            size_t want = next(s) % nb;
            for (i = 0; r[i].type != 0x12 || want--; i++) {}
        }
        return mutate_record(c, &r[i], s);
    }
    if (op < 12) /* a record gone */
        return trmut_splice(c, r[i].off, r[i].body + r[i].len, NULL, 0);
    /* a record repeated before another one */
    size_t at = r[next(s) % n].off, len = r[i].body + r[i].len - r[i].off;
    uint8_t *copy = malloc(len);
    if (!copy) return -1;
    memcpy(copy, c->bytes + r[i].off, len);
    int rc = trmut_splice(c, at, at, copy, len);
    free(copy);
    return rc;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    unsigned s = seed | 1;
    if (next(&s) % 8 == 0) return LLVMFuzzerMutate(data, size, max_size);
    struct trmut t;
    if (trmut_split(&t, data, size)) return LLVMFuzzerMutate(data, size, max_size);
    size_t nc = 0;
    for (size_t i = 0; i < t.n; i++) nc += t.p[i].chunk;
    uint8_t *out = NULL;
    size_t n = 0;
    if (nc) {
        size_t want = next(&s) % nc, i = 0;
        for (; !t.p[i].chunk || want--; i++) {}
        if (mutate_chunk(&t.p[i], &s) == 0) n = trmut_join(&t, &out);
    }
    trmut_free(&t);
    if (!n || n > max_size) {
        free(out);
        return LLVMFuzzerMutate(data, size, max_size);
    }
    memcpy(data, out, n);
    free(out);
    return n;
}
