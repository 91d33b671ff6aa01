/* perfdata.c - reading a perf.data file in place (perfdata.h). */
#include "perfdata.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
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

enum { /* perf's own records (tools/lib/perf/include/perf/event.h) */
    REC_USER_START = 64, REC_HEADER_ATTR = 64, REC_HEADER_EVENT_TYPE = 65, REC_HEADER_TRACING_DATA = 66,
    REC_HEADER_BUILD_ID = 67, REC_FINISHED_ROUND = 68, REC_AUXTRACE = 71, REC_EVENT_UPDATE = 78,
    REC_HEADER_FEATURE = 80, REC_COMPRESSED = 81,
};

/* A run of bytes read front to back. */
struct span {
    const uint8_t *p;
    uint64_t len;
};

/* The bytes [off, off + len) of the file, or NULL when they are not all in it. */
static const uint8_t *at(const struct perfdata *pd, uint64_t off, uint64_t len)
{
    if (off > pd->size || len > pd->size - off)
        return NULL;
    return pd->base + off;
}

static int span_u32(struct span *s, uint32_t *v)
{
    if (s->len < 4)
        return -1;
    memcpy(v, s->p, 4);
    s->p += 4;
    s->len -= 4;
    return 0;
}

static const uint8_t *span_take(struct span *s, uint64_t n)
{
    if (n > s->len)
        return NULL;
    const uint8_t *p = s->p;
    s->p += n;
    s->len -= n;
    return p;
}

/* A perf header string: u32 length, then that many bytes, NUL-padded; NULL when malformed. */
static const char *span_string(struct span *s)
{
    uint32_t len;
    struct span t = *s;
    const uint8_t *p;
    if (span_u32(&t, &len) || !len || !(p = span_take(&t, len)) || !memchr(p, 0, len))
        return NULL;
    *s = t;
    return (const char *)p;
}

static void set_string(char **dst, struct span s)
{
    const char *v = span_string(&s);
    if (v) {
        free(*dst);
        *dst = strdup(v);
    }
}

int pd_add_build_id(struct perfdata *pd, const char *path, const uint8_t *id, size_t len)
{
    char *p = strdup(path);
    if (!p || array_reserve(&pd->bids, &pd->bids_cap, pd->nbids + 1, sizeof *pd->bids, 64) < 0) {
        free(p);
        return -1;
    }
    struct pd_buildid *b = &pd->bids[pd->nbids++];
    b->len = (uint8_t)(len < sizeof b->id ? len : sizeof b->id);
    if (b->len)
        memcpy(b->id, id, b->len);
    b->path = p;
    return 0;
}

/* A build-id entry (HEADER_BUILD_ID, or one of the BUILD_ID section's): pid,
 * 24 bytes of id, the path. */
static void build_id_entry(struct perfdata *pd, uint16_t misc, const uint8_t *body, size_t len)
{
    if (len <= 4 + 24 || !memchr(body + 4 + 24, 0, len - (4 + 24)))
        return;
    const uint8_t *id = body + 4;
    size_t idlen = misc & (1 << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */ ? id[20] : 20;
    pd_add_build_id(pd, (const char *)id + 24, id, idlen); /* out of memory: the build-id is not kept */
}

static void read_build_ids(struct perfdata *pd, struct span s)
{
    struct perf_event_header eh;
    while (s.len >= sizeof eh + 4 + 24) {
        memcpy(&eh, s.p, sizeof eh);
        const uint8_t *e = eh.size > sizeof eh ? span_take(&s, eh.size) : NULL;
        if (!e)
            break;
        build_id_entry(pd, eh.misc, e + sizeof eh, eh.size - sizeof eh);
    }
}

static void read_cmdline(struct perfdata *pd, struct span s)
{
    uint32_t n;
    if (span_u32(&s, &n))
        return;
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *w = span_string(&s);
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
static void read_event_names(struct perfdata *pd, struct span s)
{
    uint32_t n, asz, nids;
    if (span_u32(&s, &n) || span_u32(&s, &asz))
        return;
    for (uint32_t i = 0; i < n && i < pd->nevs; i++) {
        const char *name;
        if (!span_take(&s, asz) || span_u32(&s, &nids) || !(name = span_string(&s)) ||
            !span_take(&s, (uint64_t)nids * 8))
            return;
        snprintf(pd->evs[i].name, sizeof pd->evs[i].name, "%s", name);
    }
}

/* One feature section (file mode) or HEADER_FEATURE record (pipe mode). */
static void read_feature(struct perfdata *pd, uint64_t feat, struct span s)
{
    switch (feat) {
    case FEAT_BUILD_ID: read_build_ids(pd, s); break;
    case FEAT_HOSTNAME: set_string(&pd->host, s); break;
    case FEAT_OSRELEASE: set_string(&pd->release, s); break;
    case FEAT_ARCH: set_string(&pd->arch, s); break;
    case FEAT_CMDLINE: read_cmdline(pd, s); break;
    case FEAT_EVENT_DESC: read_event_names(pd, s); break;
    case FEAT_NRCPUS:
        if (s.len >= 8)
            memcpy(&pd->ncpus, s.p + 4, 4); /* online */
        break;
    case FEAT_CLOCK_DATA:
        if (s.len >= 24) {
            pd->have_clock = 1;
            memcpy(&pd->clockid, s.p + 4, 4);
            memcpy(&pd->clock_wall_ns, s.p + 8, 8);
            memcpy(&pd->clock_ns, s.p + 16, 8);
        }
        break;
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

/* An event: its attribute (asz bytes) and its nids sample ids. */
static int add_event(struct perfdata *pd, const uint8_t *attr, uint64_t asz, const uint8_t *ids, size_t nids,
                     char *why, size_t why_len)
{
    struct pd_event *evs = realloc(pd->evs, (pd->nevs + 1) * sizeof *evs);
    if (!evs || !(evs[pd->nevs].ids = malloc(nids ? nids * 8 : 1))) {
        if (evs)
            pd->evs = evs;
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    pd->evs = evs;
    struct pd_event *e = &evs[pd->nevs++];
    memset(&e->attr, 0, sizeof e->attr);
    memcpy(&e->attr, attr, asz < sizeof e->attr ? asz : sizeof e->attr);
    if (nids)
        memcpy(e->ids, ids, nids * 8);
    e->nids = nids;
    default_name(e);
    if (e->attr.sample_type & (1ull << 63)) {
        snprintf(why, why_len, "event %zu has an unknown sample type 0x%llx", pd->nevs - 1,
                 (unsigned long long)e->attr.sample_type);
        return -1;
    }
    return 0;
}

/* The events read, checked: several need sample ids. */
static int check_events(struct perfdata *pd, char *why, size_t why_len)
{
    if (!pd->nevs) {
        snprintf(why, why_len, "no event attributes");
        return -1;
    }
    uint64_t st = pd->evs[0].attr.sample_type;
    if (pd->nevs > 1 && !(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID))) {
        snprintf(why, why_len, "%zu events without sample ids", pd->nevs);
        return -1;
    }
    return 0;
}

static int read_attrs(struct perfdata *pd, const struct file_header *h, char *why, size_t why_len)
{
    if (h->attr_size < 16 + PERF_ATTR_SIZE_VER0 || !h->attrs.size || h->attrs.size % h->attr_size ||
        !at(pd, h->attrs.offset, h->attrs.size)) {
        snprintf(why, why_len, "no event attributes (attr size %llu, section %llu bytes)",
                 (unsigned long long)h->attr_size, (unsigned long long)h->attrs.size);
        return -1;
    }
    for (uint64_t i = 0; i < h->attrs.size / h->attr_size; i++) {
        const uint8_t *p = pd->base + h->attrs.offset + i * h->attr_size;
        uint64_t asz = h->attr_size - 16;
        struct section ids;
        memcpy(&ids, p + asz, sizeof ids);
        const uint8_t *idp = ids.size % 8 == 0 ? at(pd, ids.offset, ids.size) : NULL;
        if (add_event(pd, p, asz, idp, idp ? ids.size / 8 : 0, why, why_len))
            return -1;
    }
    return check_events(pd, why, why_len);
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

const struct pd_event *pd_event_by_id(const struct perfdata *pd, uint64_t id)
{
    for (size_t i = 0; i < pd->nevs; i++)
        for (size_t k = 0; k < pd->evs[i].nids; k++)
            if (pd->evs[i].ids[k] == id)
                return &pd->evs[i];
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
        return pd_event_by_id(pd, id);
    }
    struct pd_sample_id sid;
    return pd_trailer(pd, h, &sid) ? NULL : pd_event_by_id(pd, sid.id);
}

static const struct perf_event_header *record_at(const struct perfdata *pd, const struct pd_rec *r)
{
    return (const void *)((pd->pipe ? pd->q : r->unz ? pd->unz : pd->base) + r->at);
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

/* List record h, at byte at of the file or of unz; in pipe mode a copy of it is queued. */
static int add_rec(struct perfdata *pd, const struct perf_event_header *h, uint64_t at, int unz)
{
    if (array_reserve(&pd->recs, &pd->recs_cap, pd->nrecs + 1, sizeof *pd->recs, 4096) < 0)
        return -1;
    if (pd->pipe) {
        if (array_reserve(&pd->q, &pd->q_cap, pd->q_len + h->size, 1, 1 << 16) < 0)
            return -1;
        memcpy(pd->q + pd->q_len, h, h->size);
        at = pd->q_len;
        pd->q_len += h->size;
        unz = 0;
    }
    struct pd_rec *r = &pd->recs[pd->nrecs++];
    r->at = at;
    r->unz = (uint8_t)unz;
    r->seq = pd->seq++;
    r->time = record_time(pd, h);
    if (r->time > pd->max_time)
        pd->max_time = r->time;
    return 0;
}

/* A compressed record (perf record -z): its bytes continue one zstd stream
 * whose output is records, which may straddle compressed records. */
static int decompress(struct perfdata *pd, const uint8_t *src, size_t len, uint64_t at)
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
        if (eh.type < REC_USER_START && add_rec(pd, (const void *)(pd->unz + pd->unz_done), pd->unz_done, 1) < 0)
            return -1;
        pd->unz_done += eh.size;
    }
    if (pd->pipe) { /* its records are queued: keep only the one continued */
        memmove(pd->unz, pd->unz + pd->unz_done, pd->unz_len - pd->unz_done);
        pd->unz_len -= pd->unz_done;
        pd->unz_done = 0;
    }
    return 0;
}

/* The queued records in time order; those perf would deliver now (up to
 * limit) may be given. */
static void flush(struct perfdata *pd, uint64_t limit)
{
    if (pd->nrecs)
        qsort(pd->recs, pd->nrecs, sizeof *pd->recs, cmp_rec);
    size_t n = 0;
    while (n < pd->nrecs && pd->recs[n].time <= limit)
        n++;
    pd->rnext = 0;
    pd->rflush = n;
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
            rc = decompress(pd, pd->base + p + sizeof eh, eh.size - sizeof eh, p);
        else if (eh.type < REC_USER_START)
            rc = add_rec(pd, (const void *)(pd->base + p), p, 0);
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
    flush(pd, UINT64_MAX);
    return 0;
}

static int open_file_mode(struct perfdata *pd, int fd, char *why, size_t why_len)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "a perf.data in file mode is read from a file, not a pipe");
        return -1;
    }
    pd->size = (size_t)st.st_size;
    struct file_header h;
    pd->base = mmap(NULL, pd->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (pd->base == MAP_FAILED) {
        pd->base = NULL;
        snprintf(why, why_len, "cannot map: %s", strerror(errno));
        return -1;
    }
    memset(&h, 0, sizeof h);
    memcpy(&h, pd->base, pd->size < sizeof h ? pd->size : sizeof h);
    if (h.size != sizeof h || pd->size < sizeof h) {
        snprintf(why, why_len, "truncated or corrupt header (%llu bytes, file %zu)", (unsigned long long)h.size,
                 pd->size);
        return -1;
    }
    if (read_attrs(pd, &h, why, why_len) || list_records(pd, &h, why, why_len))
        return -1;
    for (int feat = 1, idx = 0; feat < FEAT_LAST; feat++) {
        if (!(h.features[feat / 64] >> (feat % 64) & 1))
            continue;
        struct section s;
        const uint8_t *p = at(pd, h.data.offset + h.data.size + (uint64_t)idx++ * sizeof s, sizeof s);
        if (!p)
            break;
        memcpy(&s, p, sizeof s);
        const uint8_t *sec = at(pd, s.offset, s.size);
        if (!sec)
            continue;
        if (feat == FEAT_TRACING_DATA) {
            pd->tracing = sec;
            pd->tracing_len = s.size;
        }
        read_feature(pd, (uint64_t)feat, (struct span){sec, s.size});
    }
    return 0;
}

/* --- pipe mode: the header as records, the data as a stream -------------- */

enum { IB_SIZE = 1 << 16 };

/* Read n bytes at most, through the input buffer; fewer only at the end of
 * the input.  -1: a read error (damage says). */
static ssize_t read_some(struct perfdata *pd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (pd->ib_pos == pd->ib_len) {
            ssize_t r = read(pd->fd, pd->ib, IB_SIZE);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                snprintf(pd->damage, sizeof pd->damage, "read error at byte %llu: %s",
                         (unsigned long long)(pd->pos + got), strerror(errno));
                return -1;
            }
            if (!r)
                break;
            pd->ib_pos = 0;
            pd->ib_len = (size_t)r;
        }
        size_t k = n - got < pd->ib_len - pd->ib_pos ? n - got : pd->ib_len - pd->ib_pos;
        memcpy((uint8_t *)buf + got, pd->ib + pd->ib_pos, k);
        pd->ib_pos += k;
        got += k;
    }
    pd->pos += got;
    return (ssize_t)got;
}

/* The n bytes that follow a record (tracing data, AUXTRACE's data) into buf
 * (NULL: skipped); -1 when the input ends first (damage says). */
static int read_after(struct perfdata *pd, uint8_t *buf, uint64_t n)
{
    uint8_t tmp[4096];
    while (n) {
        size_t want = buf ? (size_t)n : n < sizeof tmp ? (size_t)n : sizeof tmp;
        ssize_t got = read_some(pd, buf ? buf : tmp, want);
        if (got < 0)
            return -1;
        if ((size_t)got < want) {
            snprintf(pd->damage, sizeof pd->damage, "truncated: the stream ends in the data after a record");
            return -1;
        }
        n -= want;
        if (buf)
            buf += want;
    }
    return 0;
}

/* A header record: events, their names, tracing data, build-ids, features. */
static int header_record(struct perfdata *pd, const struct perf_event_header *h)
{
    const uint8_t *body = (const uint8_t *)(h + 1);
    size_t len = h->size - sizeof *h;
    char why[160];
    switch (h->type) {
    case REC_HEADER_ATTR: {
        if (pd->in_data) /* its events are written: the samples of this one count as unknown */
            return 0;
        uint32_t asz = 0;
        if (len >= PERF_ATTR_SIZE_VER0)
            memcpy(&asz, body + offsetof(struct perf_event_attr, size), 4);
        asz = asz ? asz : PERF_ATTR_SIZE_VER0;
        if (asz > len || (len - asz) % 8) {
            snprintf(pd->damage, sizeof pd->damage, "corrupt event attribute record");
            return -1;
        }
        if (add_event(pd, body, asz, body + asz, (len - asz) / 8, why, sizeof why) < 0) {
            snprintf(pd->damage, sizeof pd->damage, "%s", why);
            return -1;
        }
        return 0;
    }
    case REC_HEADER_EVENT_TYPE: /* u64 config of a tracepoint, its name (64 bytes) */
        if (len >= 8 + 64) {
            uint64_t config;
            memcpy(&config, body, 8);
            for (size_t i = 0; i < pd->nevs; i++)
                if (pd->evs[i].attr.type == PERF_TYPE_TRACEPOINT && pd->evs[i].attr.config == config)
                    snprintf(pd->evs[i].name, sizeof pd->evs[i].name, "%.64s", (const char *)body + 8);
        }
        return 0;
    case REC_HEADER_TRACING_DATA: { /* u32 size; that many bytes follow the record */
        uint32_t size;
        if (len < 4)
            return 0;
        memcpy(&size, body, 4);
        free(pd->tracing_own);
        pd->tracing = pd->tracing_own = malloc(size ? size : 1);
        pd->tracing_len = size;
        if (!pd->tracing_own) {
            snprintf(pd->damage, sizeof pd->damage, "out of memory");
            return -1;
        }
        return read_after(pd, pd->tracing_own, size);
    }
    case REC_HEADER_BUILD_ID:
        build_id_entry(pd, h->misc, body, len);
        return 0;
    case REC_EVENT_UPDATE: { /* u64 type (2: the name), u64 id, the name */
        uint64_t type, id;
        const struct pd_event *e;
        if (len <= 16)
            return 0;
        memcpy(&type, body, 8);
        memcpy(&id, body + 8, 8);
        if (type == 2 && (e = pd_event_by_id(pd, id)))
            snprintf(pd->evs[e - pd->evs].name, sizeof e->name, "%.*s", (int)(len - 16), (const char *)body + 16);
        return 0;
    }
    case REC_HEADER_FEATURE: { /* u64 feature, its section's bytes */
        uint64_t feat;
        if (len < 8)
            return 0;
        memcpy(&feat, body, 8);
        if (feat != FEAT_TRACING_DATA) /* its own record */
            read_feature(pd, feat, (struct span){body + 8, len - 8});
        return 0;
    }
    case REC_AUXTRACE: { /* u64 size of the data that follows */
        uint64_t auxsz = 0;
        if (len >= 8)
            memcpy(&auxsz, body, 8);
        return read_after(pd, NULL, auxsz);
    }
    }
    return 0;
}

/* Drop the records given: the others move to the front of a fresh q. */
static int compact(struct perfdata *pd)
{
    if (!pd->rflush)
        return 0;
    size_t keep = pd->nrecs - pd->rflush, need = 0;
    for (size_t i = pd->rflush; i < pd->nrecs; i++)
        need += record_at(pd, &pd->recs[i])->size;
    if (array_reserve(&pd->q2, &pd->q2_cap, need, 1, 1 << 16) < 0)
        return -1;
    size_t len = 0;
    for (size_t i = pd->rflush; i < pd->nrecs; i++) {
        const struct perf_event_header *h = record_at(pd, &pd->recs[i]);
        memcpy(pd->q2 + len, h, h->size);
        pd->recs[i].at = len;
        len += h->size;
    }
    memmove(pd->recs, pd->recs + pd->rflush, keep * sizeof *pd->recs);
    uint8_t *t = pd->q;
    size_t tc = pd->q_cap;
    pd->q = pd->q2;
    pd->q_cap = pd->q2_cap;
    pd->q2 = t;
    pd->q2_cap = tc;
    pd->q_len = len;
    pd->nrecs = keep;
    pd->rnext = pd->rflush = 0;
    return 0;
}

/* Read and take one record of the stream.  0: go on; 1: the data began with
 * this record; -1: the end (clean, or damage says why). */
static int pipe_step(struct perfdata *pd)
{
    struct perf_event_header eh;
    uint64_t rec_at = pd->pos;
    ssize_t got = read_some(pd, &eh, sizeof eh);
    if (got == 0) { /* the end of the stream */
        pd->data_end = pd->pos;
        return -1;
    }
    if (got > 0 && (size_t)got < sizeof eh)
        snprintf(pd->damage, sizeof pd->damage, "truncated: the stream ends in a record header");
    else if (got > 0 && eh.size < sizeof eh)
        snprintf(pd->damage, sizeof pd->damage, "corrupt record (type %u, size %u)", eh.type, eh.size);
    if (got < 0 || pd->damage[0]) {
        pd->data_end = rec_at;
        return -1;
    }
    if (array_reserve(&pd->rb, &pd->rb_cap, eh.size, 1, 1 << 16) < 0) {
        snprintf(pd->damage, sizeof pd->damage, "out of memory");
        pd->data_end = rec_at;
        return -1;
    }
    memcpy(pd->rb, &eh, sizeof eh);
    got = read_some(pd, pd->rb + sizeof eh, eh.size - sizeof eh);
    if (got >= 0 && (size_t)got < eh.size - sizeof eh)
        snprintf(pd->damage, sizeof pd->damage, "truncated: the stream ends in a record (type %u, size %u)",
                 eh.type, eh.size);
    int rc = pd->damage[0] ? -1 : 0, data = 1;
    if (!rc && eh.type < REC_USER_START)
        rc = add_rec(pd, (const void *)pd->rb, 0, 0) < 0 ? -1 : 0;
    else if (!rc && eh.type == REC_COMPRESSED)
        rc = decompress(pd, pd->rb + sizeof eh, eh.size - sizeof eh, rec_at) ? -1 : 0;
    else if (!rc && eh.type == REC_FINISHED_ROUND) {
        flush(pd, pd->next_flush);
        pd->next_flush = pd->max_time;
    } else if (!rc) {
        rc = header_record(pd, (const void *)pd->rb);
        data = eh.type == REC_AUXTRACE;
    }
    if (rc < 0) {
        if (!pd->damage[0])
            snprintf(pd->damage, sizeof pd->damage, "out of memory");
        pd->data_end = rec_at;
        return -1;
    }
    return data;
}

static int open_pipe_mode(struct perfdata *pd, int fd, char *why, size_t why_len)
{
    pd->pipe = 1;
    pd->fd = fd;
    pd->pos = 16;
    int rc;
    while (!(rc = pipe_step(pd)))
        ;
    pd->in_data = 1;
    if (rc < 0) {
        pd->ended = 1;
        flush(pd, UINT64_MAX);
        if (!pd->nevs && pd->damage[0]) {
            snprintf(why, why_len, "%s at byte %llu", pd->damage, (unsigned long long)pd->data_end);
            return -1;
        }
    }
    return check_events(pd, why, why_len);
}

int pd_open(struct perfdata *pd, const char *path, char *why, size_t why_len)
{
    memset(pd, 0, sizeof *pd);
    pd->fd = -1;
    int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
    if (fd < 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        return -1;
    }
    uint64_t magic_size[2] = {0, 0};
    pd->fd = fd;
    pd->ib = malloc(IB_SIZE);
    ssize_t got = pd->ib ? read_some(pd, magic_size, sizeof magic_size) : -1;
    pd->fd = -1;
    int rc = -1;
    if (!pd->ib)
        snprintf(why, why_len, "out of memory");
    else if (got < 0)
        snprintf(why, why_len, "%s", pd->damage);
    else if (got < 16)
        snprintf(why, why_len, got ? "not a perf.data file (%zd bytes)" : "empty file", got);
    else if (memcmp(magic_size, "PERFILE2", 8))
        snprintf(why, why_len, memcmp(magic_size, "2ELIFREP", 8) ? "not a perf.data file (no PERFILE2 magic)"
                                                                 : "a big-endian perf.data file: not supported");
    else if (magic_size[1] == 16)
        return open_pipe_mode(pd, fd, why, why_len);
    else
        rc = open_file_mode(pd, fd, why, why_len);
    if (fd > 0)
        close(fd);
    return rc;
}

const struct perf_event_header *pd_next(struct perfdata *pd, uint64_t *time)
{
    while (pd->rnext >= pd->rflush) {
        if (!pd->pipe || pd->ended)
            return NULL;
        if (compact(pd) < 0)
            snprintf(pd->damage, sizeof pd->damage, "out of memory");
        if (pd->damage[0] || pipe_step(pd) < 0) {
            if (!pd->data_end)
                pd->data_end = pd->pos;
            pd->ended = 1;
            flush(pd, UINT64_MAX);
        }
    }
    const struct pd_rec *r = &pd->recs[pd->rnext++];
    *time = r->time;
    return record_at(pd, r);
}

void pd_close(struct perfdata *pd)
{
    if (pd->base)
        munmap((void *)pd->base, pd->size);
    if (pd->fd > 0)
        close(pd->fd);
    for (size_t i = 0; i < pd->nevs; i++)
        free(pd->evs[i].ids);
    for (size_t i = 0; i < pd->nbids; i++)
        free(pd->bids[i].path);
    free(pd->evs);
    free(pd->bids);
    free(pd->recs);
    free(pd->cmdline);
    free(pd->host);
    free(pd->release);
    free(pd->arch);
    free(pd->tracing_own);
    free(pd->unz);
    free(pd->ib);
    free(pd->rb);
    free(pd->q);
    free(pd->q2);
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
