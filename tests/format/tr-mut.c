/* tr-mut - edit the records of a trace and write it again valid (checksums,
 * sizes, compression redone: trmut.h), to craft hostile traces for tests
 * and fuzz seeds:
 *   tr-mut blob NAME FILE < in.tr > out.tr   every blob NAME gets FILE's bytes
 *                                            (added at the start of the first chunk when there is none)
 *   tr-mut shrink BYTES < in.tr > out.tr     text blobs cut to BYTES at a line end (seeds)
 *   tr-mut end-records N < in.tr > out.tr    end frames claim N records */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tr.h"
#include "trmut.h"

static uint8_t *slurp(FILE *f, size_t *n)
{
    size_t cap = 1 << 16;
    uint8_t *b = malloc(cap);
    *n = 0;
    for (size_t k; b && (k = fread(b + *n, 1, cap - *n, f)) > 0;) {
        *n += k;
        if (*n == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) free(b);
            b = nb;
        }
    }
    return b;
}

/* Every blob record called name gets data[0..len); 1 when one was found. */
static int set_blob(struct trmut *t, const char *name, const uint8_t *data, size_t len, size_t shrink)
{
    int found = 0;
    for (size_t i = 0; i < t->n; i++) {
        struct trmut_piece *c = &t->p[i];
        if (!c->chunk) continue;
        struct trmut_rec r[4096];
        size_t n = trmut_records(c->bytes, c->len, r, 4096);
        while (n--) { /* from the last: edits move what follows */
            const uint8_t *bn;
            size_t bl, doff;
            if (r[n].type != 0x12 || !trmut_blob(c->bytes + r[n].body, r[n].len, &bn, &bl, &doff)) continue;
            size_t dl = r[n].len - doff;
            if (name ? bl != strlen(name) || memcmp(bn, name, bl) : bl == 4 && !memcmp(bn, "vdso", 4)) continue;
            uint8_t *body = malloc(doff + (name ? len : dl));
            if (!body) return -1;
            memcpy(body, c->bytes + r[n].body, doff);
            if (name) {
                memcpy(body + doff, data, len);
                dl = len;
            } else {
                memcpy(body + doff, c->bytes + r[n].body + doff, dl);
                while (dl > shrink) { /* to the end of a line */
                    const uint8_t *nl = memrchr(body + doff, '\n', dl - 1);
                    dl = nl ? (size_t)(nl - (body + doff)) + 1 : 0;
                }
            }
            int rc = trmut_set_body(c, &r[n], body, doff + dl);
            free(body);
            if (rc) return -1;
            found = 1;
        }
    }
    return found;
}

/* Every end frame's record count set to records, its checksum redone. */
static void end_records(uint8_t *p, size_t n, uint64_t records)
{
    tr_stream_frame f;
    for (size_t i = 0; i < n; i++) {
        if (tr_stream_frame_parse(p + i, n - i, &f) != 1 || f.kind != TR_SFRAME_END) continue;
        uint8_t *c = p + i + 8;
        size_t size = f.size - 8;
        for (int k = 0; k < 8; k++) c[12 + k] = (uint8_t)(records >> (8 * k));
        uint32_t crc = tr_crc32c(0, c, size - 4);
        for (int k = 0; k < 4; k++) c[size - 4 + k] = (uint8_t)(crc >> (8 * k));
    }
}

int main(int argc, char **argv)
{
    int blob = argc == 4 && !strcmp(argv[1], "blob"), shrink = argc == 3 && !strcmp(argv[1], "shrink");
    int end = argc == 3 && !strcmp(argv[1], "end-records");
    if ((!blob && !shrink && !end) || isatty(1)) {
        fprintf(stderr, "usage: tr-mut blob NAME FILE | shrink BYTES | end-records N  < in.tr > out.tr\n");
        return 2;
    }
    size_t n, dn = 0;
    uint8_t *in = slurp(stdin, &n), *data = NULL, *out = NULL;
    FILE *f = blob ? fopen(argv[3], "rb") : NULL;
    if (blob && (!f || !(data = slurp(f, &dn)))) {
        perror(argv[3]);
        return 1;
    }
    if (f) fclose(f);
    struct trmut t;
    if (!in || trmut_split(&t, in, n)) return 1;
    int rc = end ? 1 : set_blob(&t, blob ? argv[2] : NULL, data, dn, shrink ? strtoull(argv[2], NULL, 0) : 0);
    if (rc == 0 && blob) { /* a new blob record first in the first chunk */
        size_t nl = strlen(argv[2]), i = 0;
        uint8_t *body = malloc(10 + nl + dn), *rec = malloc(30 + nl + dn);
        while (i < t.n && !t.p[i].chunk) i++;
        if (!body || !rec || i == t.n) return 1;
        size_t k = trmut_varint(body, nl);
        memcpy(body + k, argv[2], nl);
        k += nl;
        memcpy(body + k, data, dn);
        size_t rl = trmut_encode(rec, 0x12, body, k + dn);
        rc = trmut_splice(&t.p[i], 0, 0, rec, rl);
        free(body);
        free(rec);
    }
    size_t on = rc < 0 ? 0 : trmut_join(&t, &out);
    if (end && on) end_records(out, on, strtoull(argv[2], NULL, 0));
    int ok = on && fwrite(out, 1, on, stdout) == on;
    trmut_free(&t);
    free(in);
    free(data);
    free(out);
    return ok ? 0 : 1;
}
