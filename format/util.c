/* util.c - varints, CRC-32C, buffers and hash maps. */
#include <endian.h>
#include <sys/mman.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "internal.h"

size_t tr_varint_put(uint8_t *p, uint64_t v)
{
    return varint_put(p, v);
}

uint64_t tr_internal_cur_varint_slow(cur *c)
{
    const uint8_t *p = c->p;
    uint64_t v = 0;
    if (c->end - p >= 8) { /* up to 8 bytes (56 bits): the 7-bit groups packed in a word */
        uint64_t w;
        memcpy(&w, p, 8);
        w = le64toh(w);
        uint64_t stops = ~w & 0x8080808080808080ull;
        if (stops) {
            int n = __builtin_ctzll(stops) / 8 + 1;
            uint64_t x = (n == 8 ? w : w & ((1ull << (8 * n)) - 1)) & 0x7f7f7f7f7f7f7f7full;
            x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
            x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
            x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
            c->p = p + n;
            return x;
        }
    }
    for (int shift = 0; shift < 70; shift += 7) {
        if (p >= c->end) break;
        uint8_t b = *p++;
        if (shift == 63 && b > 1) break; /* overflows 64 bits */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            c->p = p;
            return v;
        }
    }
    c->bad = 1;
    c->p = c->end;
    return 0;
}

/* CRC-32C (Castagnoli), reflected, as in iSCSI and ext4: a constant table,
 * safe in any number of threads. */
#include "crc32c_table.h"

uint32_t tr_crc32c(uint32_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    crc = ~crc;
    while (len >= 8) {
        uint32_t lo = get_le32(p) ^ crc, hi = get_le32(p + 4);
        crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
              crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
              crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--) crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
    return ~crc;
}

void tr_advise_huge(void *p, size_t bytes)
{
    const uintptr_t huge = (uintptr_t)2 << 20, page = 4096;
    if (bytes < 2 * huge)
        return;
    /* the table's whole mapping, not its 2 MiB pages only: a mapping split
     * in three could no longer grow by mremap */
    uintptr_t lo = (uintptr_t)p & ~(page - 1), hi = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
    madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* refused: nothing changes */
}

int tr_internal_buf_reserve(buf *b, size_t more)
{
    size_t need = b->len + more;
    if (need < b->len) return TR_E_NOMEM;
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) return TR_E_NOMEM;
    tr_advise_huge(p, cap);
    b->p = p;
    b->cap = cap;
    return 0;
}

int tr_internal_array_reserve(void *arrp, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n <= *cap) return 0;
    size_t ncap = *cap ? *cap : first;
    while (ncap < n) ncap *= 2;
    if (ncap > SIZE_MAX / elem) return TR_E_NOMEM;
    void *arr;
    memcpy(&arr, arrp, sizeof arr);
    void *grown = realloc(arr, ncap * elem);
    if (!grown) return TR_E_NOMEM;
    tr_advise_huge(grown, ncap * elem);
    memcpy(arrp, &grown, sizeof grown);
    *cap = ncap;
    return 0;
}

void tr_internal_buf_free(buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- hashing: a 64-bit mix (splitmix over 8-byte words) ---- */
static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t tr_internal_hash64(const void *p, size_t n, uint64_t seed)
{
    const uint8_t *s = p;
    uint64_t h = mix(seed ^ n);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = mix(h ^ w) + 0x9e3779b97f4a7c15ull;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    return mix(h ^ w ^ ((uint64_t)n << 56));
}

/* open addressing, linear probing; key 0 is stored as a flag-free value by
 * adding 1 inside (keys are mixed, collisions with the empty marker avoided) */
#define EMPTY UINT64_MAX

static size_t slot_of(const idmap *m, uint64_t key) { return (size_t)(mix(key) & (m->cap - 1)); }

uint32_t tr_internal_idmap_get(const idmap *m, uint64_t key)
{
    if (!m->cap || key == EMPTY) return 0;
    for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) return m->vals[i];
        if (m->keys[i] == EMPTY) return 0;
    }
}

static int idmap_resize(idmap *m, size_t cap)
{
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return TR_E_NOMEM;
    }
    memset(keys, 0xff, cap * sizeof *keys);
    idmap old = *m;
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    m->n = 0;
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i] != EMPTY) tr_internal_idmap_put(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
    return 0;
}

static int idmap_grow(idmap *m) { return idmap_resize(m, m->cap ? m->cap * 2 : 64); }

int tr_internal_idmap_reserve(idmap *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 64;
    while ((n + 1) * 4 > cap * 3) cap *= 2; /* the load idmap_slot grows at */
    return cap > m->cap ? idmap_resize(m, cap) : 0;
}

uint32_t *tr_internal_idmap_slot(idmap *m, uint64_t key)
{
    if (key == EMPTY) return NULL;
    if ((m->n + 1) * 4 > m->cap * 3 && idmap_grow(m)) return NULL;
    for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) return &m->vals[i];
        if (m->keys[i] == EMPTY) {
            m->keys[i] = key;
            m->vals[i] = 0;
            m->n++;
            return &m->vals[i];
        }
    }
}

int tr_internal_idmap_put(idmap *m, uint64_t key, uint32_t val)
{
    uint32_t *v = tr_internal_idmap_slot(m, key);
    if (!v) return key == EMPTY ? TR_E_INVAL : TR_E_NOMEM;
    *v = val;
    return 0;
}

void tr_internal_idmap_clear(idmap *m)
{
    if (m->cap) memset(m->keys, 0xff, m->cap * sizeof *m->keys);
    m->n = 0;
}

void tr_internal_idmap_free(idmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* Grow the dense array to hold index i. */
static int dense_grow(idtab *t, uint32_t i)
{
    size_t n = t->ndense ? t->ndense : 1024;
    while (n <= i) n *= 2;
    uint32_t *d = realloc(t->dense, n * sizeof *d);
    if (!d) return TR_E_NOMEM;
    tr_advise_huge(d, n * sizeof *d);
    memset(d + t->ndense, 0, (n - t->ndense) * sizeof *d);
    t->dense = d;
    t->ndense = n;
    return 0;
}

int tr_internal_idtab_put(idtab *t, uint32_t id, uint32_t val)
{
    if (!t->count++) t->base = id < 1024 ? 0 : id; /* ids are given out from here, mostly in order */
    uint32_t i = id - t->base;
    if (id >= t->base && i >= t->ndense && (uint64_t)i < 2 * (uint64_t)t->count + 65536 && dense_grow(t, i))
        return TR_E_NOMEM;
    if (id >= t->base && i < t->ndense) {
        t->dense[i] = val;
        return 0;
    }
    return tr_internal_idmap_put(&t->sparse, id, val);
}

uint32_t *tr_internal_idtab_dense(idtab *t, uint32_t lo, uint32_t hi)
{
    if (!t->count) t->base = lo < 1024 ? 0 : lo; /* as the first put would */
    uint32_t i = hi - t->base;
    if (lo < t->base || hi < lo) return NULL;
    if (i >= t->ndense && ((uint64_t)i >= 2 * ((uint64_t)t->count + (hi - lo) + 1) + 65536 || dense_grow(t, i)))
        return NULL;
    return t->dense + (lo - t->base);
}

void tr_internal_idtab_clear(idtab *t)
{
    if (t->ndense) memset(t->dense, 0, t->ndense * sizeof *t->dense);
    t->count = 0;
    tr_internal_idmap_clear(&t->sparse);
}

void tr_internal_idtab_free(idtab *t)
{
    free(t->dense);
    tr_internal_idmap_free(&t->sparse);
    memset(t, 0, sizeof *t);
}

/* ---- stack images ---- */

/* Images are kept between chunks for their buffers, unless they add up to
 * more than this or there are more than STACK_IMAGES_KEPT of them. */
#define STACK_IMAGE_BYTES_KEPT (32u << 20)
#define STACK_IMAGES_KEPT 1024u

stack_image *tr_internal_stack_image_get(stack_images *t, int32_t pid, int32_t tid)
{
    uint64_t key = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
    uint32_t i = key == EMPTY ? t->anon : tr_internal_idmap_get(&t->index, key);
    if (i) return &t->v[i - 1];
    if (tr_internal_array_reserve(&t->v, &t->capv, t->n + 1, sizeof *t->v, 16)) return NULL;
    if (key == EMPTY)
        t->anon = (uint32_t)t->n + 1;
    else if (tr_internal_idmap_put(&t->index, key, (uint32_t)t->n + 1))
        return NULL;
    stack_image *im = &t->v[t->n++];
    memset(im, 0, sizeof *im);
    return im;
}

int tr_internal_stack_image_reserve(stack_images *t, stack_image *im, size_t n)
{
    if (n <= im->cap) return 0;
    size_t cap = im->cap ? im->cap : 4096;
    while (cap < n) cap *= 2;
    uint8_t *p = malloc(cap);
    if (!p) return TR_E_NOMEM;
    if (im->len) memcpy(p + cap - im->len, im->p + im->cap - im->len, im->len);
    free(im->p);
    t->bytes += cap - im->cap;
    im->p = p;
    im->cap = cap;
    return 0;
}

const uint8_t *tr_internal_stack_image_put(stack_image *im, const uint8_t *fresh, size_t f, size_t kept)
{
    uint8_t *start = im->p + im->cap - (f + kept);
    if (f) memcpy(start, fresh, f);
    if (f + kept > im->len) im->len = f + kept;
    im->has_end = 0; /* laid over at the end: its address is not known */
    return start;
}

#ifdef __SSE2__
/* Which of the 4 32-bit words at a and b are equal: bits 0-3. */
static unsigned equal4(const uint8_t *a, const uint8_t *b)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)a), y = _mm_loadu_si128((const __m128i *)(const void *)b);
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(x, y)));
}
#endif

/* Which of the 8 words below a equal those below b: bit i for the words at
 * a - 8 (i + 1) and b - 8 (i + 1), the order of a scan going down.  With
 * SSE2 a 64-bit word is equal where both its 32-bit halves are (a third of
 * the instructions of comparing word by word). */
static unsigned equal_words(const uint8_t *a, const uint8_t *b)
{
    unsigned eq = 0;
#ifdef __SSE2__
    /* bit d: the 32-bit words at a - 64 + 4 d equal */
    unsigned m = equal4(a - 64, b - 64) | equal4(a - 48, b - 48) << 4 | equal4(a - 32, b - 32) << 8 |
                 equal4(a - 16, b - 16) << 12;
    if (m == 0xffff) return 0xff;
    m &= m >> 1;
    if (!(m & 0x5555)) return 0;
    for (unsigned i = 0; i < 8; i++) eq |= (m >> (2 * (7 - i)) & 1) << i;
#else
    for (unsigned i = 0; i < 8; i++) eq |= (unsigned)(get_le64(a - 8 * (i + 1)) == get_le64(b - 8 * (i + 1))) << i;
#endif
    return eq;
}

void tr_internal_stack_image_match_at(const stack_image *im, const uint8_t *s, size_t n, uint64_t addr,
                                      size_t min, size_t *kept, size_t *tail)
{
    *kept = *tail = 0;
    if (!im->has_end || !im->len || addr > UINT64_MAX - n) return;
    uint64_t e1 = addr + n, e0 = im->end, a0 = e0 - im->len;
    uint64_t m = e1 < e0 ? e1 : e0, lo = addr > a0 ? addr : a0;
    if (m <= lo) return;
    /* the longest run of equal words below m (the first of equal length): the
     * outer frames, which a thread's stack keeps while its top (thread-local
     * data) changes.  64 bytes at a time; the scan stops once the rest could
     * not make a longer run (a long run of outer frames ends it early). */
    size_t max = (size_t)(m - lo), best = 0, top = 0, run = 0, k = 0;
    const uint8_t *a = s + (m - addr), *b = im->p + im->cap - (e0 - m); /* both at address m */
    for (; k + 64 <= max && run + (max - k) > best; k += 64) {
        unsigned eq = equal_words(a - k, b - k);
        if (eq == 0xff) {
            run += 64;
        } else if (!eq) {
            run = 0;
            continue;
        } else {
            for (unsigned i = 0; i < 8; i++) {
                run = eq >> i & 1 ? run + 8 : 0;
                if (run > best) best = run, top = k + 8 * (i + 1) - run;
            }
            continue;
        }
        if (run > best) best = run, top = k + 64 - run;
    }
    for (; k + 8 <= max && run + (max - k) > best; k += 8) {
        run = get_le64(a - k - 8) == get_le64(b - k - 8) ? run + 8 : 0;
        if (run > best) best = run, top = k + 8 - run;
    }
    if (best < min) return;
    *kept = best;
    *tail = (size_t)(e1 - m) + top;
}

int tr_internal_stack_image_holds(const stack_image *im, uint64_t k0, size_t kept)
{
    return im->has_end && k0 >= im->end - im->len && k0 <= im->end && kept <= im->end - k0;
}

const uint8_t *tr_internal_stack_image_put_at(stack_image *im, const uint8_t *fresh, size_t f, size_t tail,
                                              size_t kept, uint64_t addr)
{
    size_t len = f + kept, low = f - tail;
    uint8_t *start = im->p + im->cap - len;
    if (kept) memmove(start + low, im->p + im->cap - (im->end - (addr + low)), kept);
    if (low) memcpy(start, fresh, low);
    if (tail) memcpy(start + low + kept, fresh + low, tail);
    im->len = len;
    im->end = addr + len;
    im->has_end = 1;
    return start;
}

size_t tr_internal_stack_image_suffix(const stack_image *im, const uint8_t *s, size_t n)
{
    size_t max = n < im->len ? n : im->len, k = 0;
    const uint8_t *a = s + n, *b = im->p + im->cap;
    while (k + 8 <= max && get_le64(a - k - 8) == get_le64(b - k - 8)) k += 8;
    while (k < max && a[-(ptrdiff_t)k - 1] == b[-(ptrdiff_t)k - 1]) k++;
    return k;
}

void tr_internal_stack_images_reset(stack_images *t)
{
    if (t->bytes > STACK_IMAGE_BYTES_KEPT || t->n > STACK_IMAGES_KEPT) {
        tr_internal_stack_images_free(t);
        return;
    }
    for (size_t i = 0; i < t->n; i++) t->v[i].len = 0, t->v[i].has_end = 0;
}

void tr_internal_stack_images_free(stack_images *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->v[i].p);
    free(t->v);
    tr_internal_idmap_free(&t->index);
    memset(t, 0, sizeof *t);
}
