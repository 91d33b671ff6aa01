/*
 * perfdata2tr - a perf.data file (perf record, fp or dwarf call graphs) as
 * a tr trace: the same samples (callchains, user registers, stack copies),
 * mappings with the build-ids perf stored, comm/fork/exit, and (as
 * tr-rec-perf does) a "kallsyms" blob holding the kernel symbols the
 * samples hit, taken from this machine's /proc/kallsyms at conversion
 * time (perf record likewise keeps a copy of kallsyms in ~/.debug).  So
 * that tr-symbolize and `perf script` work on the very same recording.
 *   perfdata2tr perf.data > trace.tr
 * Supports the sample fields perf record sets for one event; refuses
 * others (READ, BRANCH_STACK) and compressed data (perf record -z).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "kallsyms.h"
#include "keys.h"
#include "tr.h"
#include "keys.h"

struct section { uint64_t offset, size; };
struct file_header {
    uint64_t magic, size, attr_size;
    struct section attrs, data, event_types;
    uint64_t features[4];
};

#define MAX_BIDS 4096
static struct { char *path; uint8_t id[20]; uint8_t len; } bids[MAX_BIDS];
static size_t nbids;

static void die(const char *m)
{
    fprintf(stderr, "perfdata2tr: %s\n", m);
    exit(1);
}

static int feature_set(const struct file_header *h, int bit)
{
    return (int)(h->features[bit / 64] >> (bit % 64) & 1);
}

/* HEADER_BUILD_ID (feature 2): build_id events after the data section. */
static void read_build_ids(const uint8_t *base, size_t size, const struct file_header *h)
{
    if (!feature_set(h, 2))
        return;
    int idx = feature_set(h, 1); /* tracing data comes first when present */
    uint64_t at = h->data.offset + h->data.size + (uint64_t)idx * sizeof(struct section);
    if (at + sizeof(struct section) > size)
        return;
    struct section s;
    memcpy(&s, base + at, sizeof s);
    if (s.offset + s.size > size)
        return;
    for (uint64_t p = s.offset; p + 8 + 4 + 24 <= s.offset + s.size && nbids < MAX_BIDS;) {
        struct perf_event_header eh;
        memcpy(&eh, base + p, sizeof eh);
        if (eh.size < 8 + 4 + 24 || p + eh.size > s.offset + s.size)
            break;
        const uint8_t *id = base + p + 8 + 4;
        uint8_t len = eh.misc & (1 << 15) ? id[20] : 20;
        if (len > 20)
            len = 20;
        size_t flen = eh.size - (8 + 4 + 24);
        bids[nbids].path = strndup((const char *)base + p + 8 + 4 + 24, flen);
        memcpy(bids[nbids].id, id, len);
        bids[nbids++].len = len;
        p += eh.size;
    }
}

static const uint8_t *build_id_of(const char *path, size_t *len)
{
    for (size_t i = 0; i < nbids; i++)
        if (strcmp(bids[i].path, path) == 0) {
            *len = bids[i].len;
            return bids[i].id;
        }
    *len = 0;
    return NULL;
}

struct cur {
    const uint8_t *p, *end;
};
static uint64_t u64(struct cur *c)
{
    uint64_t v = 0;
    if (c->end - c->p >= 8)
        memcpy(&v, c->p, 8);
    c->p += 8;
    return v;
}
static uint32_t u32(struct cur *c)
{
    uint32_t v = 0;
    if (c->end - c->p >= 4)
        memcpy(&v, c->p, 4);
    c->p += 4;
    return v;
}

static struct perf_event_attr attr;
static tr_writer *w;
static uint32_t ev;
static uint64_t last_time;
static uint64_t addrs[1024];
static uint32_t flags[1024];

/* kernel addresses seen in callchains, for the kallsyms blob */
static uint64_t *kaddrs;
static size_t nkaddrs, capkaddrs;

static void note_kernel_addr(uint64_t a)
{
    if (nkaddrs == capkaddrs) {
        capkaddrs = capkaddrs ? capkaddrs * 2 : 4096;
        if (!(kaddrs = realloc(kaddrs, capkaddrs * sizeof *kaddrs)))
            die("out of memory");
    }
    kaddrs[nkaddrs++] = a;
}

static void werr(int rc)
{
    if (rc < 0)
        die(tr_strerror(rc));
}

static void sample(const uint8_t *p, const uint8_t *end)
{
    struct cur c = { p, end };
    uint64_t st = attr.sample_type;
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_SAMPLE;
    r.cpu = -1;
    r.u.sample.event = ev;
    r.u.sample.period = attr.sample_period;
    uint64_t ip = 0;
    if (st & PERF_SAMPLE_IDENTIFIER) u64(&c);
    if (st & PERF_SAMPLE_IP) ip = u64(&c);
    if (st & PERF_SAMPLE_TID) { r.pid = (int32_t)u32(&c); r.tid = (int32_t)u32(&c); }
    if (st & PERF_SAMPLE_TIME) r.time = last_time = u64(&c);
    if (st & PERF_SAMPLE_ADDR) u64(&c);
    if (st & PERF_SAMPLE_ID) u64(&c);
    if (st & PERF_SAMPLE_STREAM_ID) u64(&c);
    if (st & PERF_SAMPLE_CPU) { r.cpu = (int32_t)u32(&c); u32(&c); }
    if (st & PERF_SAMPLE_PERIOD) r.u.sample.period = u64(&c);
    size_t n = 0;
    int kernel = 0, user_seen = 0;
    if (st & PERF_SAMPLE_CALLCHAIN) {
        uint64_t nr = u64(&c);
        for (uint64_t i = 0; i < nr && c.p < c.end; i++) {
            uint64_t a = u64(&c);
            if (a >= (uint64_t)PERF_CONTEXT_MAX) {
                kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
                continue;
            }
            if (n < 1024) {
                addrs[n] = a;
                flags[n++] = kernel ? TR_FRAME_KERNEL : 0;
                user_seen |= !kernel;
                if (kernel)
                    note_kernel_addr(a);
            }
        }
    }
    if (st & PERF_SAMPLE_RAW) {
        uint32_t sz = u32(&c);
        c.p += sz;
    }
    if (st & PERF_SAMPLE_REGS_USER) {
        uint64_t abi = u64(&c);
        if (abi) {
            r.u.sample.abi = (uint32_t)abi;
            r.u.sample.regs_mask = attr.sample_regs_user;
            r.u.sample.nregs = (uint32_t)__builtin_popcountll(attr.sample_regs_user);
            for (uint32_t i = 0; i < r.u.sample.nregs && i < TR_MAX_REGS; i++)
                r.u.sample.regs[i] = u64(&c);
        }
    }
    if (st & PERF_SAMPLE_STACK_USER) {
        uint64_t sz = u64(&c);
        if (sz && c.p + sz + 8 <= c.end) {
            const uint8_t *data = c.p;
            c.p += sz;
            uint64_t dyn = u64(&c);
            r.u.sample.stack_copy = data;
            r.u.sample.stack_copy_len = dyn < sz ? dyn : sz;
            uint64_t m = r.u.sample.regs_mask; /* x86_64: the copy starts at the user sp, register 7 */
            if (r.u.sample.abi && (m & 1u << 7)) r.u.sample.stack_copy_addr = r.u.sample.regs[__builtin_popcountll(m & 0x7f)];
        }
    }
    if (!r.u.sample.stack_copy_len) {
        r.u.sample.abi = 0;
        r.u.sample.nregs = 0;
        r.u.sample.regs_mask = 0;
    }
    if (r.u.sample.nregs && !user_seen && n < 1024 && r.u.sample.nregs > 8) {
        addrs[n] = r.u.sample.regs[8]; /* x86_64: the user IP, as tr-rec-perf keeps it */
        flags[n++] = 0;
    }
    if (n == 0) {
        addrs[0] = ip;
        flags[0] = ip >> 63 ? TR_FRAME_KERNEL : 0;
        n = 1;
    }
    werr(tr_writer_thread_stack(w, r.pid, r.tid, addrs, flags, n, &r.u.sample.stack));
    werr(tr_writer_add(w, &r));
}

static void task(uint32_t type, const uint8_t *p, const uint8_t *end, uint16_t misc)
{
    uint8_t idbuf[20]; /* the build-id of an MMAP2: written by tr_writer_add at the end */
    struct cur c = { p, end };
    tr_record r;
    memset(&r, 0, sizeof r);
    r.time = last_time;
    r.cpu = -1;
    if (type == PERF_RECORD_COMM) {
        r.type = TR_REC_COMM;
        r.pid = (int32_t)u32(&c);
        r.tid = (int32_t)u32(&c);
        r.u.comm.comm = (const char *)c.p;
        r.u.comm.len = strnlen((const char *)c.p, (size_t)(end - c.p));
        r.u.comm.exec = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
    } else if (type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT) {
        r.type = type == PERF_RECORD_FORK ? TR_REC_FORK : TR_REC_EXIT;
        r.pid = (int32_t)u32(&c);
        int32_t ppid = (int32_t)u32(&c);
        r.tid = (int32_t)u32(&c);
        int32_t ptid = (int32_t)u32(&c);
        uint64_t t = u64(&c);
        if (t)
            r.time = last_time = t;
        if (type == PERF_RECORD_FORK) {
            r.u.fork.ppid = ppid;
            r.u.fork.ptid = ptid;
        } else if (r.pid != r.tid) {
            r.u.exit.flags = TR_EXITF_THREAD;
        }
    } else if (type == PERF_RECORD_MMAP2) {
        r.type = TR_REC_MMAP;
        r.pid = (int32_t)u32(&c);
        r.tid = (int32_t)u32(&c);
        r.u.mmap.start = u64(&c);
        r.u.mmap.len = u64(&c);
        r.u.mmap.pgoff = u64(&c);
        size_t idlen = 0;
        if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
            idlen = c.p < end ? *c.p : 0;
            if (idlen > 20)
                idlen = 20;
            if (c.p + 4 + 20 <= end)
                memcpy(idbuf, c.p + 4, idlen);
            c.p += 24;
        } else {
            c.p += 24; /* maj, min, ino, ino_generation */
        }
        r.u.mmap.prot = u32(&c);
        r.u.mmap.flags = u32(&c);
        if (c.p >= end || r.pid < 0)
            return;
        r.u.mmap.path = (const char *)c.p;
        r.u.mmap.path_len = strnlen((const char *)c.p, (size_t)(end - c.p));
        if (!idlen) {
            const uint8_t *id = build_id_of(r.u.mmap.path, &idlen);
            if (id)
                memcpy(idbuf, id, idlen);
        }
        r.u.mmap.build_id = idbuf;
        r.u.mmap.build_id_len = idlen;
    } else {
        return;
    }
    werr(tr_writer_add(w, &r));
}

struct ev {
    uint64_t at, seq, time;
};

/* The "kallsyms" blob, as tr-rec-perf writes it: the text symbols covering
 * the sampled kernel addresses. */
static void write_kallsyms(void)
{
    if (!nkaddrs)
        return;
    char *all = cli_read_file("/proc/kallsyms", NULL);
    if (!all)
        return;
    size_t len;
    char *out = kallsyms_subset(all, kaddrs, nkaddrs, &len, NULL, NULL);
    if (!out)
        die("out of memory");
    if (len)
        werr(tr_writer_blob(w, BLOB_KALLSYMS, out, len, 0));
    free(out);
    free(all);
}

static int cmp_ev(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The time of a record: a sample's TIME field, or the trailing sample_id
 * of other kernel records (sample_id_all); 0 when there is none. */
static uint64_t record_time(const uint8_t *rec, const struct perf_event_header *eh)
{
    uint64_t st = attr.sample_type, t = 0;
    if (eh->type == PERF_RECORD_SAMPLE) {
        size_t off = 8;
        if (st & PERF_SAMPLE_IDENTIFIER) off += 8;
        if (st & PERF_SAMPLE_IP) off += 8;
        if (st & PERF_SAMPLE_TID) off += 8;
        if ((st & PERF_SAMPLE_TIME) && off + 8 <= eh->size)
            memcpy(&t, rec + off, 8);
        return t;
    }
    if (eh->type >= 64 /* user records */ || !attr.sample_id_all || !(st & PERF_SAMPLE_TIME))
        return 0;
    size_t idsize = 0;
    if (st & PERF_SAMPLE_TID) idsize += 8;
    if (st & PERF_SAMPLE_TIME) idsize += 8;
    if (st & PERF_SAMPLE_ID) idsize += 8;
    if (st & PERF_SAMPLE_STREAM_ID) idsize += 8;
    if (st & PERF_SAMPLE_CPU) idsize += 8;
    if (st & PERF_SAMPLE_IDENTIFIER) idsize += 8;
    if (idsize + 8 > eh->size)
        return 0;
    size_t off = eh->size - idsize + (st & PERF_SAMPLE_TID ? 8 : 0);
    memcpy(&t, rec + off, 8);
    return t;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: perfdata2tr perf.data > trace.tr");
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0)
        die("cannot open the input");
    size_t size = (size_t)st.st_size;
    const uint8_t *base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED)
        die("cannot map the input");
    struct file_header h;
    if (size < sizeof h)
        die("not a perf.data file");
    memcpy(&h, base, sizeof h);
    if (memcmp(&h.magic, "PERFILE2", 8) != 0)
        die("not a perf.data file (PERFILE2)");
    if (h.attrs.size < sizeof(attr) / 2 || h.attrs.offset + h.attr_size > size)
        die("no event attributes");
    memset(&attr, 0, sizeof attr);
    uint32_t asz;
    memcpy(&asz, base + h.attrs.offset + 4, 4);
    memcpy(&attr, base + h.attrs.offset, asz < sizeof attr ? asz : sizeof attr);
    if (attr.sample_type & (PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK))
        die("unsupported sample fields (read, branch stack)");
    read_build_ids(base, size, &h);

    /* stack copies delta-coded, as tr-rec-perf writes them */
    tr_writer_options wo = { .stack_delta = (attr.sample_type & PERF_SAMPLE_STACK_USER) ? 2 : 0, .stack_runs = 1,
                             .stack_limit = 1u << 20 };
    if (tr_writer_open(&w, 1, &wo) < 0)
        die("cannot write");
    werr(tr_writer_meta_defaults(w, "perfdata2tr", argc, argv));
    werr(tr_writer_meta(w, META_VIEW, VIEW_SAMPLES));
    tr_event_def d = { 0, TR_EV_SOFTWARE, attr.config, attr.sample_period,
                       (attr.freq ? TR_EVF_FREQ : 0) |
                           (attr.sample_type & PERF_SAMPLE_CALLCHAIN ? TR_EVF_CALLCHAIN : 0) |
                           (attr.sample_type & PERF_SAMPLE_STACK_USER ? TR_EVF_DWARF : 0),
                       "cpu-clock", 9 };
    werr(tr_writer_event(w, &d, &ev));
    /* perf.data holds each CPU's ring in turn: order the records by time,
     * as perf script does */
    size_t n = 0, cap = 1024;
    struct ev *evs = malloc(cap * sizeof *evs);
    if (!evs)
        die("out of memory");
    for (uint64_t p = h.data.offset; p + 8 <= h.data.offset + h.data.size && p + 8 <= size;) {
        struct perf_event_header eh;
        memcpy(&eh, base + p, sizeof eh);
        if (eh.size < 8 || p + eh.size > size)
            break;
        if (eh.type == 81 /* PERF_RECORD_COMPRESSED */)
            die("compressed perf.data (perf record -z) is not supported");
        if (n == cap && !(evs = realloc(evs, (cap *= 2) * sizeof *evs)))
            die("out of memory");
        evs[n].at = p;
        evs[n].seq = n;
        evs[n].time = record_time(base + p, &eh);
        n++;
        p += eh.size;
    }
    qsort(evs, n, sizeof *evs, cmp_ev);
    for (size_t i = 0; i < n; i++) {
        struct perf_event_header eh;
        memcpy(&eh, base + evs[i].at, sizeof eh);
        const uint8_t *body = base + evs[i].at + 8, *end = base + evs[i].at + eh.size;
        if (evs[i].time)
            last_time = evs[i].time;
        if (eh.type == PERF_RECORD_SAMPLE)
            sample(body, end);
        else
            task(eh.type, body, end, eh.misc);
        werr(tr_writer_poll(w));
    }
    free(evs);
    write_kallsyms();
    werr(tr_writer_finish(w, 0));
    tr_writer_free(w);
    return 0;
}
