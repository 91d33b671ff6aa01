/* perfdata.c - reading a perf.data file in place (perfdata.h). */
#include "perfdata.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "array.h"

struct section { uint64_t offset, size; };
struct file_header {
    uint64_t magic, size, attr_size;
    struct section attrs, data, event_types;
    uint64_t features[4];
};

enum { /* perf's header features (tools/perf/util/header.h) */
    FEAT_TRACING_DATA = 1, FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_ARCH = 6,
    FEAT_NRCPUS = 7, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12, FEAT_CLOCK_DATA = 29, FEAT_LAST = 256,
};
enum { REC_USER_START = 64, REC_AUXTRACE = 71, REC_COMPRESSED = 81 }; /* perf's own records */

/* The bytes [off, off + len) of the file, or NULL when they are not all in it. */
static const uint8_t *at(const struct perfdata *pd, uint64_t off, uint64_t len)
{
    if (off > pd->size || len > pd->size - off)
        return NULL;
    return pd->base + off;
}

static int feature_section(const struct perfdata *pd, const struct file_header *h, int feat,
                           struct section *s)
{
    if (!(h->features[feat / 64] >> (feat % 64) & 1))
        return -1;
    uint64_t idx = 0;
    for (int f = 0; f < feat; f++)
        idx += h->features[f / 64] >> (f % 64) & 1;
    const uint8_t *p = at(pd, h->data.offset + h->data.size + idx * sizeof *s, sizeof *s);
    if (!p)
        return -1;
    memcpy(s, p, sizeof *s);
    return at(pd, s->offset, s->size) ? 0 : -1;
}

/* A perf header string (u32 length, then that many bytes, NUL-padded) at
 * *off within the section end; NULL when malformed. */
static const char *header_string(const struct perfdata *pd, uint64_t *off, uint64_t end)
{
    uint32_t len;
    const uint8_t *p = *off + 4 <= end ? at(pd, *off, 4) : NULL;
    if (!p)
        return NULL;
    memcpy(&len, p, 4);
    if (!len || *off + 4 + len > end || !memchr(pd->base + *off + 4, 0, len))
        return NULL;
    const char *s = (const char *)pd->base + *off + 4;
    *off += 4 + (uint64_t)len;
    return s;
}

static const char *feature_string(const struct perfdata *pd, const struct file_header *h, int feat)
{
    struct section s;
    if (feature_section(pd, h, feat, &s))
        return NULL;
    uint64_t off = s.offset;
    return header_string(pd, &off, s.offset + s.size);
}

static void read_build_ids(struct perfdata *pd, const struct file_header *h)
{
    struct section s;
    if (feature_section(pd, h, FEAT_BUILD_ID, &s))
        return;
    size_t cap = 0;
    for (uint64_t p = s.offset; p + 8 + 4 + 24 <= s.offset + s.size;) {
        struct perf_event_header eh;
        memcpy(&eh, pd->base + p, sizeof eh);
        if (eh.size <= 8 + 4 + 24 || p + eh.size > s.offset + s.size)
            break;
        const uint8_t *id = pd->base + p + 8 + 4;
        const char *path = (const char *)id + 24;
        if (memchr(path, 0, eh.size - (8 + 4 + 24)) &&
            array_reserve(&pd->bids, &cap, pd->nbids + 1, sizeof *pd->bids, 64) == 0) {
            struct pd_buildid *b = &pd->bids[pd->nbids++];
            b->len = eh.misc & (1 << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */ ? id[20] : 20;
            if (b->len > 20)
                b->len = 20;
            memcpy(b->id, id, b->len);
            b->path = path;
        }
        p += eh.size;
    }
}

static void read_cmdline(struct perfdata *pd, const struct file_header *h)
{
    struct section s;
    if (feature_section(pd, h, FEAT_CMDLINE, &s) || s.size < 4)
        return;
    uint32_t n;
    memcpy(&n, pd->base + s.offset, 4);
    uint64_t off = s.offset + 4;
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *w = header_string(pd, &off, s.offset + s.size);
        if (!w)
            break;
        size_t l = strlen(w);
        char *c = realloc(pd->cmdline, len + l + 2);
        if (!c)
            break;
        pd->cmdline = c;
        if (len)
            c[len++] = ' ';
        memcpy(c + len, w, l + 1);
        len += l;
    }
}

/* HEADER_EVENT_DESC: u32 count, u32 attr size, then per event the attribute,
 * u32 number of ids, its name (a header string), the ids. */
static void read_event_names(struct perfdata *pd, const struct file_header *h)
{
    struct section s;
    if (feature_section(pd, h, FEAT_EVENT_DESC, &s) || s.size < 8)
        return;
    uint32_t n, asz;
    memcpy(&n, pd->base + s.offset, 4);
    memcpy(&asz, pd->base + s.offset + 4, 4);
    uint64_t off = s.offset + 8, end = s.offset + s.size;
    for (uint32_t i = 0; i < n && i < pd->nevs; i++) {
        uint32_t nids;
        if (off + asz + 4 > end)
            return;
        memcpy(&nids, pd->base + off + asz, 4);
        off += asz + 4;
        const char *name = header_string(pd, &off, end);
        if (!name || (uint64_t)nids * 8 > end - off)
            return;
        off += (uint64_t)nids * 8;
        snprintf(pd->evs[i].name, sizeof pd->evs[i].name, "%s", name);
    }
}

static void default_name(struct pd_event *e)
{
    static const char *const hw[] = {"cycles", "instructions", "cache-references", "cache-misses",
                                     "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
                                     "stalled-cycles-backend", "ref-cycles"};
    static const char *const sw[] = {"cpu-clock", "task-clock", "page-faults", "context-switches",
                                     "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
                                     "emulation-faults", "dummy", "bpf-output", "cgroup-switches"};
    const struct perf_event_attr *a = &e->attr;
    if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof hw / sizeof *hw)
        snprintf(e->name, sizeof e->name, "%s", hw[a->config]);
    else if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof sw / sizeof *sw)
        snprintf(e->name, sizeof e->name, "%s", sw[a->config]);
    else if (a->type == PERF_TYPE_RAW)
        snprintf(e->name, sizeof e->name, "r%llx", (unsigned long long)a->config);
    else
        snprintf(e->name, sizeof e->name, "%u:%llu", a->type, (unsigned long long)a->config);
}

static int read_attrs(struct perfdata *pd, const struct file_header *h, char *why, size_t why_len)
{
    if (h->attr_size < 16 + PERF_ATTR_SIZE_VER0 || !h->attrs.size || h->attrs.size % h->attr_size ||
        !at(pd, h->attrs.offset, h->attrs.size)) {
        snprintf(why, why_len, "no event attributes (attr size %llu, section %llu bytes)",
                 (unsigned long long)h->attr_size, (unsigned long long)h->attrs.size);
        return -1;
    }
    pd->nevs = h->attrs.size / h->attr_size;
    if (!(pd->evs = calloc(pd->nevs, sizeof *pd->evs))) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < pd->nevs; i++) {
        const uint8_t *p = pd->base + h->attrs.offset + i * h->attr_size;
        uint64_t asz = h->attr_size - 16;
        memcpy(&pd->evs[i].attr, p, asz < sizeof pd->evs[i].attr ? asz : sizeof pd->evs[i].attr);
        struct section ids;
        memcpy(&ids, p + asz, sizeof ids);
        if (ids.size % 8 == 0 && at(pd, ids.offset, ids.size)) {
            pd->evs[i].ids = pd->base + ids.offset;
            pd->evs[i].nids = ids.size / 8;
        }
        default_name(&pd->evs[i]);
        if (pd->evs[i].attr.sample_type & (1ull << 63)) {
            snprintf(why, why_len, "event %zu has an unknown sample type 0x%llx", i,
                     (unsigned long long)pd->evs[i].attr.sample_type);
            return -1;
        }
    }
    /* several events: perf records the sample id of each record */
    uint64_t st = pd->evs[0].attr.sample_type;
    if (pd->nevs > 1 && !(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID))) {
        snprintf(why, why_len, "%zu events without sample ids", pd->nevs);
        return -1;
    }
    return 0;
}

/* Offset of the u64 sample id in a sample's body, -1 when there is none. */
static int sample_id_offset(uint64_t st)
{
    if (st & PERF_SAMPLE_IDENTIFIER)
        return 0;
    if (!(st & PERF_SAMPLE_ID))
        return -1;
    return 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
                !!(st & PERF_SAMPLE_ADDR));
}

static const struct pd_event *event_by_id(const struct perfdata *pd, uint64_t id)
{
    for (size_t i = 0; i < pd->nevs; i++)
        for (size_t k = 0; k < pd->evs[i].nids; k++) {
            uint64_t v;
            memcpy(&v, pd->evs[i].ids + k * 8, 8);
            if (v == id)
                return &pd->evs[i];
        }
    return NULL;
}

int pd_trailer(const struct perfdata *pd, const struct perf_event_header *h, struct pd_sample_id *sid)
{
    const struct perf_event_attr *a = &pd->evs[0].attr;
    uint64_t st = a->sample_type;
    memset(sid, 0, sizeof *sid);
    sid->pid = sid->tid = sid->cpu = -1;
    if (!a->sample_id_all || h->type >= REC_USER_START)
        return -1;
    uint64_t want = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                    PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
    size_t size = 8 * (size_t)__builtin_popcountll(st & want);
    if (size + sizeof *h > h->size)
        return -1;
    const uint8_t *p = (const uint8_t *)h + h->size - size;
    uint32_t u[2];
    if (st & PERF_SAMPLE_TID) { memcpy(u, p, 8); sid->pid = (int32_t)u[0]; sid->tid = (int32_t)u[1]; p += 8; }
    if (st & PERF_SAMPLE_TIME) { memcpy(&sid->time, p, 8); p += 8; }
    if (st & PERF_SAMPLE_ID) { memcpy(&sid->id, p, 8); p += 8; }
    if (st & PERF_SAMPLE_STREAM_ID) p += 8;
    if (st & PERF_SAMPLE_CPU) { memcpy(u, p, 8); sid->cpu = (int32_t)u[0]; p += 8; }
    if (st & PERF_SAMPLE_IDENTIFIER) memcpy(&sid->id, p, 8);
    return 0;
}

const struct pd_event *pd_event_of(const struct perfdata *pd, const struct perf_event_header *h)
{
    if (pd->nevs == 1)
        return &pd->evs[0];
    if (h->type == PERF_RECORD_SAMPLE) {
        int off = sample_id_offset(pd->evs[0].attr.sample_type);
        uint64_t id;
        if (off < 0 || sizeof *h + (size_t)off + 8 > h->size)
            return NULL;
        memcpy(&id, (const uint8_t *)(h + 1) + off, 8);
        return event_by_id(pd, id);
    }
    struct pd_sample_id sid;
    return pd_trailer(pd, h, &sid) ? NULL : event_by_id(pd, sid.id);
}

const struct perf_event_header *pd_record(const struct perfdata *pd, const struct pd_rec *r)
{
    return (const void *)((r->unz ? pd->unz : pd->base) + r->at);
}

const uint8_t *pd_build_id(const struct perfdata *pd, const char *path, size_t *len)
{
    for (size_t i = 0; i < pd->nbids; i++)
        if (!strcmp(pd->bids[i].path, path)) {
            *len = pd->bids[i].len;
            return pd->bids[i].id;
        }
    *len = 0;
    return NULL;
}

static uint64_t record_time(const struct perfdata *pd, const struct perf_event_header *h)
{
    if (h->type == PERF_RECORD_SAMPLE) {
        const struct pd_event *e = pd_event_of(pd, h);
        uint64_t st = e ? e->attr.sample_type : 0, t = 0;
        if (!(st & PERF_SAMPLE_TIME))
            return 0;
        size_t off = sizeof *h + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
                                      !!(st & PERF_SAMPLE_TID));
        if (off + 8 <= h->size)
            memcpy(&t, (const uint8_t *)h + off, 8);
        return t;
    }
    struct pd_sample_id sid;
    return pd_trailer(pd, h, &sid) ? 0 : sid.time;
}

static int cmp_rec(const void *a, const void *b)
{
    const struct pd_rec *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int add_rec(struct perfdata *pd, size_t *cap, uint64_t at, int unz)
{
    if (array_reserve(&pd->recs, cap, pd->nrecs + 1, sizeof *pd->recs, 4096) < 0)
        return -1;
    struct pd_rec *r = &pd->recs[pd->nrecs];
    r->at = at;
    r->unz = (uint8_t)unz;
    r->seq = pd->nrecs++;
    r->time = record_time(pd, pd_record(pd, r));
    return 0;
}

/* A compressed record (perf record -z): its bytes continue one zstd stream
 * whose output is records, which may straddle compressed records. */
static int decompress(struct perfdata *pd, size_t *cap, const uint8_t *src, size_t len, uint64_t at)
{
    if (!pd->zd && !(pd->zd = ZSTD_createDStream()))
        return -1;
    ZSTD_inBuffer in = {src, len, 0};
    while (in.pos < in.size) {
        if (array_reserve(&pd->unz, &pd->unz_cap, pd->unz_len + (1 << 16), 1, 1 << 20) < 0)
            return -1;
        ZSTD_outBuffer out = {pd->unz, pd->unz_cap, pd->unz_len};
        size_t rc = ZSTD_decompressStream(pd->zd, &out, &in);
        if (ZSTD_isError(rc)) {
            snprintf(pd->damage, sizeof pd->damage, "corrupt compressed record at byte %llu (%s)",
                     (unsigned long long)at, ZSTD_getErrorName(rc));
            return 1;
        }
        pd->unz_len = out.pos;
        if (!rc && in.pos < in.size && out.pos < out.size)
            break; /* the frame ended: the rest is not zstd's */
    }
    while (pd->unz_len - pd->unz_done >= sizeof(struct perf_event_header)) {
        struct perf_event_header eh;
        memcpy(&eh, pd->unz + pd->unz_done, sizeof eh);
        if (eh.size < sizeof eh) {
            snprintf(pd->damage, sizeof pd->damage, "corrupt record in the compressed record at byte %llu",
                     (unsigned long long)at);
            return 1;
        }
        if (pd->unz_len - pd->unz_done < eh.size)
            break; /* continued in the next compressed record */
        if (eh.type < REC_USER_START && add_rec(pd, cap, pd->unz_done, 1) < 0)
            return -1;
        pd->unz_done += eh.size;
    }
    return 0;
}

static int list_records(struct perfdata *pd, const struct file_header *h, char *why, size_t why_len)
{
    uint64_t start = h->data.offset, end = h->data.offset + h->data.size;
    if (start > pd->size) {
        snprintf(why, why_len, "truncated: the data section starts at byte %llu of %zu",
                 (unsigned long long)start, pd->size);
        return -1;
    }
    if (!h->data.size) {
        snprintf(pd->damage, sizeof pd->damage, "the data size is 0 (perf record did not finish)");
        end = pd->size;
    } else if (end > pd->size || end < start) {
        snprintf(pd->damage, sizeof pd->damage, "truncated: the data section ends at byte %llu, the file at %zu",
                 (unsigned long long)end, pd->size);
        end = pd->size;
    }
    size_t cap = 0;
    uint64_t p = start;
    while (p + sizeof(struct perf_event_header) <= end) {
        struct perf_event_header eh;
        memcpy(&eh, pd->base + p, sizeof eh);
        if (eh.size < sizeof eh || p + eh.size > end)
            break;
        uint64_t next = p + eh.size;
        if (eh.type == REC_AUXTRACE) { /* its data follows the record */
            uint64_t auxsz;
            if (eh.size < sizeof eh + 8)
                break;
            memcpy(&auxsz, pd->base + p + sizeof eh, 8);
            if (auxsz > end - next)
                break;
            next += auxsz;
        }
        int rc = 0;
        if (eh.type == REC_COMPRESSED)
            rc = decompress(pd, &cap, pd->base + p + sizeof eh, eh.size - sizeof eh, p);
        else if (eh.type < REC_USER_START)
            rc = add_rec(pd, &cap, p, 0);
        if (rc < 0) {
            snprintf(why, why_len, "out of memory");
            return -1;
        }
        if (rc > 0)
            break; /* damage says what */
        p = next;
    }
    pd->data_end = p;
    if (p != end && !pd->damage[0]) {
        struct perf_event_header eh = {0};
        memcpy(&eh, pd->base + p, end - p < sizeof eh ? end - p : sizeof eh);
        snprintf(pd->damage, sizeof pd->damage, "corrupt record at byte %llu (type %u, size %u)",
                 (unsigned long long)p, eh.type, eh.size);
    }
    qsort(pd->recs, pd->nrecs, sizeof *pd->recs, cmp_rec);
    return 0;
}

int pd_open(struct perfdata *pd, const char *path, char *why, size_t why_len)
{
    memset(pd, 0, sizeof *pd);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    pd->size = (size_t)st.st_size;
    struct file_header h;
    if (pd->size < 16) {
        snprintf(why, why_len, pd->size ? "not a perf.data file (%zu bytes)" : "empty file", pd->size);
        close(fd);
        return -1;
    }
    pd->base = mmap(NULL, pd->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (pd->base == MAP_FAILED) {
        pd->base = NULL;
        snprintf(why, why_len, "cannot map: %s", strerror(errno));
        return -1;
    }
    memset(&h, 0, sizeof h);
    memcpy(&h, pd->base, pd->size < sizeof h ? pd->size : sizeof h);
    if (memcmp(&h.magic, "PERFILE2", 8)) {
        snprintf(why, why_len, memcmp(&h.magic, "2ELIFREP", 8) ? "not a perf.data file (no PERFILE2 magic)"
                                                               : "a big-endian perf.data file: not supported");
        return -1;
    }
    if (h.size == 16) {
        snprintf(why, why_len, "a perf.data in pipe mode (perf record -o -): not supported; "
                               "perf inject -i FILE -o FILE2 writes it in file mode");
        return -1;
    }
    if (h.size != sizeof h || pd->size < sizeof h) {
        snprintf(why, why_len, "truncated or corrupt header (%llu bytes, file %zu)", (unsigned long long)h.size,
                 pd->size);
        return -1;
    }
    if (read_attrs(pd, &h, why, why_len) || list_records(pd, &h, why, why_len))
        return -1;
    read_build_ids(pd, &h);
    read_event_names(pd, &h);
    read_cmdline(pd, &h);
    pd->host = feature_string(pd, &h, FEAT_HOSTNAME);
    pd->release = feature_string(pd, &h, FEAT_OSRELEASE);
    pd->arch = feature_string(pd, &h, FEAT_ARCH);
    struct section s;
    if (!feature_section(pd, &h, FEAT_NRCPUS, &s) && s.size >= 8)
        memcpy(&pd->ncpus, pd->base + s.offset + 4, 4); /* online */
    if (!feature_section(pd, &h, FEAT_TRACING_DATA, &s)) {
        pd->tracing = pd->base + s.offset;
        pd->tracing_len = s.size;
    }
    if (!feature_section(pd, &h, FEAT_CLOCK_DATA, &s) && s.size >= 24) {
        pd->have_clock = 1;
        memcpy(&pd->clockid, pd->base + s.offset + 4, 4);
        memcpy(&pd->clock_wall_ns, pd->base + s.offset + 8, 8);
        memcpy(&pd->clock_ns, pd->base + s.offset + 16, 8);
    }
    return 0;
}

void pd_close(struct perfdata *pd)
{
    if (pd->base)
        munmap((void *)pd->base, pd->size);
    free(pd->evs);
    free(pd->bids);
    free(pd->recs);
    free(pd->cmdline);
    free(pd->unz);
    ZSTD_freeDStream(pd->zd);
    memset(pd, 0, sizeof *pd);
}

/* --- the tracing data: trace-cmd's layout, as perf writes it ------------ */

struct tcur {
    const uint8_t *p, *end;
};

static int tget(struct tcur *c, void *v, size_t n)
{
    if ((size_t)(c->end - c->p) < n)
        return -1;
    memcpy(v, c->p, n);
    c->p += n;
    return 0;
}

static const uint8_t *tskip(struct tcur *c, uint64_t n)
{
    if ((uint64_t)(c->end - c->p) < n)
        return NULL;
    const uint8_t *p = c->p;
    c->p += n;
    return p;
}

static const char *tstring(struct tcur *c)
{
    const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!z)
        return NULL;
    const char *s = (const char *)c->p;
    c->p = z + 1;
    return s;
}

int pd_tracing_formats(const struct perfdata *pd, pd_format_fn fn, void *ctx)
{
    if (!pd->tracing)
        return 0;
    struct tcur c = {pd->tracing, pd->tracing + pd->tracing_len};
    const uint8_t *magic = tskip(&c, 10);
    uint8_t endian, lsize;
    uint32_t psize, n;
    uint64_t size;
    if (!magic || memcmp(magic, "\027\010\104tracing", 10) || !tstring(&c) || tget(&c, &endian, 1) ||
        tget(&c, &lsize, 1) || tget(&c, &psize, 4) || endian)
        return -1;
    static const char *const heads[] = {"header_page", "header_event"};
    for (int i = 0; i < 2; i++) {
        const char *name = tstring(&c);
        if (!name || strcmp(name, heads[i]) || tget(&c, &size, 8) || !tskip(&c, size))
            return -1;
    }
    if (tget(&c, &n, 4)) /* the ftrace events' formats */
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (tget(&c, &size, 8) || !tskip(&c, size))
            return -1;
    if (tget(&c, &n, 4)) /* systems */
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const char *sys = tstring(&c);
        uint32_t m;
        if (!sys || tget(&c, &m, 4))
            return -1;
        for (uint32_t k = 0; k < m; k++) {
            const uint8_t *fmt;
            if (tget(&c, &size, 8) || !(fmt = tskip(&c, size)))
                return -1;
            int rc = fn(ctx, sys, (const char *)fmt, (size_t)size);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}
