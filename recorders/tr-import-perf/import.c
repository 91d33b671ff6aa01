/*
 * import.c - perf.data records to tr records: every event, samples with
 * their callchains, raw tracepoint payloads, user registers and stack
 * copies (delta-coded as tr-rec-perf writes them), mmaps with the build-ids
 * perf stored, comm, fork, exit, lost and throttle records; tracepoint
 * formats from the file's tracing data; the kernel symbols the samples hit,
 * the vDSO image and JIT maps, as tr-rec-perf stores them.
 */
#include "import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "array.h"
#include "buildid.h"
#include "cli.h"
#include "hashmap.h"
#include "jitmap.h"
#include "kallsyms.h"
#include "keys.h"
#include "perfrec.h"
#include "perfregs.h"

struct import {
    struct perfdata *pd;
    const struct import_opts *o;
    tr_writer *w;
    uint32_t *evid;      /* tr event id of each pd event */
    uint64_t last_time;
    struct perf_frames fr; /* the sample being converted */
    hashmap kaddrs;      /* kernel addresses sampled */
    hashmap pid_seen;
    int32_t *pids;       /* processes named, for their JIT maps */
    size_t npids, cap_pids;
    int vdso_done;
    struct import_stats *st;
};

static int event_kind(uint32_t type)
{
    switch (type) {
    case PERF_TYPE_HARDWARE: return TR_EV_HARDWARE;
    case PERF_TYPE_SOFTWARE: return TR_EV_SOFTWARE;
    case PERF_TYPE_TRACEPOINT: return TR_EV_TRACEPOINT;
    case PERF_TYPE_HW_CACHE: return TR_EV_HW_CACHE;
    case PERF_TYPE_RAW: return TR_EV_RAW;
    default: return TR_EV_OTHER;
    }
}

static int define_events(struct import *im)
{
    for (size_t i = 0; i < im->pd->nevs; i++) {
        const struct pd_event *e = &im->pd->evs[i];
        const struct perf_event_attr *a = &e->attr;
        uint64_t st = a->sample_type;
        tr_event_def d = {0};
        d.kind = (uint32_t)event_kind(a->type);
        d.config = a->config;
        d.sample_value = a->sample_period; /* a union with sample_freq */
        d.flags = (a->freq ? TR_EVF_FREQ : 0) | (st & PERF_SAMPLE_CALLCHAIN ? TR_EVF_CALLCHAIN : 0) |
                  (st & PERF_SAMPLE_STACK_USER ? TR_EVF_DWARF : 0) |
                  ((st & PERF_SAMPLE_CALLCHAIN) && !a->exclude_kernel && !a->exclude_callchain_kernel
                       ? TR_EVF_KERNEL_STACK : 0);
        d.name = e->name;
        d.name_len = strlen(e->name);
        int rc = tr_writer_event(im->w, &d, &im->evid[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Each tracepoint format of the tracing data as the blob tr-rec-perf writes. */
static int format_blob(void *ctx, const char *sys, const char *fmt, size_t len)
{
    struct import *im = ctx;
    const char *name = memmem(fmt, len, "name: ", 6);
    if (!name)
        return 0;
    name += 6;
    size_t nl = strcspn(name, "\n");
    if (name + nl > fmt + len)
        return 0;
    char blob[320];
    snprintf(blob, sizeof blob, BLOB_FTRACE_FORMAT_PREFIX "%s/%.*s", sys, (int)nl, name);
    return tr_writer_blob(im->w, blob, fmt, len, 1);
}

/* PERF_SAMPLE_READ's values, as read_format lays them out. */
static void skip_read(struct perf_cursor *c, uint64_t rf)
{
    unsigned per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
    unsigned times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
    if (rf & PERF_FORMAT_GROUP) {
        uint64_t nr = perf_take64(c);
        perf_take(c, 8 * times);
        if (nr > (uint64_t)(c->end - c->p) / 8)
            c->bad = 1;
        else
            perf_take(c, nr * 8 * per);
    } else {
        perf_take(c, 8 * (per + times));
    }
}

static int sample(struct import *im, const struct perf_event_header *h)
{
    const struct pd_event *e = pd_event_of(im->pd, h);
    if (!e) {
        im->st->unknown_event++;
        return 0;
    }
    const struct perf_event_attr *a = &e->attr;
    uint64_t st = a->sample_type;
    struct perf_cursor c = {(const uint8_t *)(h + 1), (const uint8_t *)h + h->size, 0};
    tr_record r = {.type = TR_REC_SAMPLE, .pid = -1, .tid = -1, .cpu = -1, .time = im->last_time};
    r.u.sample.event = im->evid[e - im->pd->evs];
    r.u.sample.period = a->freq ? 1 : a->sample_period;
    uint64_t ip = 0;
    if (st & PERF_SAMPLE_IDENTIFIER) perf_take64(&c);
    if (st & PERF_SAMPLE_IP) ip = perf_take64(&c);
    if (st & PERF_SAMPLE_TID) { uint64_t v = perf_take64(&c); r.pid = (int32_t)(uint32_t)v; r.tid = (int32_t)(uint32_t)(v >> 32); }
    if (st & PERF_SAMPLE_TIME) r.time = perf_take64(&c);
    if (st & PERF_SAMPLE_ADDR) perf_take64(&c);
    if (st & PERF_SAMPLE_ID) perf_take64(&c);
    if (st & PERF_SAMPLE_STREAM_ID) perf_take64(&c);
    if (st & PERF_SAMPLE_CPU) r.cpu = (int32_t)(uint32_t)perf_take64(&c);
    if (st & PERF_SAMPLE_PERIOD) r.u.sample.period = perf_take64(&c);
    if (st & PERF_SAMPLE_READ) skip_read(&c, a->read_format);
    int kernel_mode = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
    size_t n = 0, user_seen = 0;
    int rc;
    if ((st & PERF_SAMPLE_CALLCHAIN) && perf_callchain(&c, &im->fr, kernel_mode, 2, &n, &user_seen) < 0)
        return TR_E_NOMEM;
    perf_sample_rest(&c, st, (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) != 0, a->sample_regs_user, &r);
    if (c.bad) {
        im->st->malformed++;
        return 0;
    }
    if (!r.u.sample.stack_copy_len) { /* no stack copy: the registers serve nothing */
        r.u.sample.abi = 0;
        r.u.sample.nregs = 0;
        r.u.sample.regs_mask = 0;
    }
    if (perf_frames_reserve(&im->fr, n + 1) < 0)
        return TR_E_NOMEM;
    uint64_t user_ip = sample_user_reg(&r, PERF_REG_X86_IP);
    if (r.u.sample.stack_copy_len && !user_seen && user_ip) {
        /* dwarf: user frames come from unwinding; keep the user ip, as tr-rec-perf does */
        im->fr.addrs[n] = user_ip;
        im->fr.flags[n++] = 0;
    }
    if (n == 0) {
        im->fr.addrs[0] = ip;
        im->fr.flags[0] = kernel_mode ? TR_FRAME_KERNEL : 0;
        n = 1;
    }
    for (size_t i = 0; i < n; i++)
        if (im->fr.flags[i] & TR_FRAME_KERNEL)
            hashmap_put(&im->kaddrs, im->fr.addrs[i], 0, im); /* out of memory: the symbol is not kept */
    im->last_time = r.time;
    im->st->samples++;
    if ((rc = tr_writer_thread_stack(im->w, r.pid, r.tid, im->fr.addrs, im->fr.flags, n, &r.u.sample.stack)) < 0)
        return rc;
    return tr_writer_add(im->w, &r);
}

static void note_pid(struct import *im, int32_t pid)
{
    if (pid <= 0 || hashmap_get(&im->pid_seen, (uint64_t)pid, 0))
        return;
    if (array_reserve(&im->pids, &im->cap_pids, im->npids + 1, sizeof *im->pids, 32) < 0 ||
        hashmap_put(&im->pid_seen, (uint64_t)pid, 0, im) < 0)
        return;
    im->pids[im->npids++] = pid;
}

/* The vDSO image: perf record's copy (~/.debug/[vdso]/BUILD-ID/vdso), else
 * this machine's when its build-id is the recorded one. */
static int write_vdso(struct import *im, const uint8_t *id, size_t idlen)
{
    if (im->vdso_done)
        return 0;
    im->vdso_done = 1;
    char hex[2 * 20 + 1], path[4200];
    build_id_hex(hex, id, idlen < 20 ? idlen : 20);
    snprintf(path, sizeof path, "%s/[vdso]/%s/vdso", im->o->buildid_dir, hex);
    size_t len;
    char *img = idlen ? cli_read_file(path, &len) : NULL;
    int rc = 0;
    if (img) {
        rc = tr_writer_blob(im->w, BLOB_VDSO, img, len, 0);
        free(img);
        return rc;
    }
    const uint8_t *own = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
    size_t ownlen = own ? elf_image_size(own, 64 * 1024) : 0;
    uint8_t ownid[BUILD_ID_MAX];
    int n = ownlen ? build_id_from_mem(own, ownlen, ownid) : 0;
    if (n > 0 && (!idlen || ((size_t)n == idlen && !memcmp(ownid, id, idlen))))
        return tr_writer_blob(im->w, BLOB_VDSO, own, ownlen, 0);
    im->st->no_vdso = 1;
    return 0;
}

static const char kernel_name[] = "[kernel.kallsyms]";

static int mmap_rec(struct import *im, const struct perf_event_header *h, struct pd_sample_id *sid)
{
    int v2 = h->type == PERF_RECORD_MMAP2;
    struct perf_cursor c = {(const uint8_t *)(h + 1), (const uint8_t *)h + h->size, 0};
    tr_record r = {.type = TR_REC_MMAP, .time = im->last_time, .cpu = sid->cpu};
    uint64_t pt = perf_take64(&c);
    r.pid = (int32_t)(uint32_t)pt;
    r.tid = (int32_t)(uint32_t)(pt >> 32);
    r.u.mmap.start = perf_take64(&c);
    r.u.mmap.len = perf_take64(&c);
    r.u.mmap.pgoff = perf_take64(&c);
    uint8_t id[20];
    size_t idlen = 0;
    r.u.mmap.prot = 4; /* PERF_RECORD_MMAP: executable mappings only */
    if (v2) {
        const uint8_t *f = perf_take(&c, 24);
        if (f && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && f[0] && f[0] <= 20) {
            idlen = f[0];
            memcpy(id, f + 4, idlen);
        }
        const uint8_t *pf = perf_take(&c, 8); /* prot, flags */
        if (pf) {
            memcpy(&r.u.mmap.prot, pf, 4);
            memcpy(&r.u.mmap.flags, pf + 4, 4);
        }
    }
    if (c.bad || c.p >= c.end)
        return 0;
    const char *path = (const char *)c.p;
    size_t plen = strnlen(path, (size_t)(c.end - c.p));
    if (plen == (size_t)(c.end - c.p))
        return 0; /* no NUL: malformed */
    if (!strncmp(path, kernel_name, sizeof kernel_name - 1)) {
        path = kernel_name; /* perf's "[kernel.kallsyms]_text" */
        plen = sizeof kernel_name - 1;
        r.pid = r.tid = -1;
        r.u.mmap.pgoff = 0; /* perf's is the address of _text; tr-rec-perf writes 0 */
    }
    if (r.u.mmap.start + r.u.mmap.len < r.u.mmap.start)
        r.u.mmap.len = UINT64_MAX - r.u.mmap.start; /* perf's kernel map reaches the top */
    if (!idlen) {
        const uint8_t *bid = pd_build_id(im->pd, path, &idlen);
        if (bid)
            memcpy(id, bid, idlen);
        else if (im->pd->pipe && path[0] == '/') {
            /* pipe mode lists no build-ids: the file's, as perf record reads them at its end in
             * file mode */
            uint8_t tmp[BUILD_ID_MAX];
            int n = build_id_from_file(path, tmp);
            idlen = n > 0 ? (size_t)n : 0;
            if (idlen > sizeof id)
                idlen = 0; /* not perf's */
            memcpy(id, tmp, idlen);
            pd_add_build_id(im->pd, path, id, idlen); /* out of memory: read again next time */
        }
    }
    if (plen == 6 && !memcmp(path, "[vdso]", 6)) {
        int rc = write_vdso(im, id, idlen);
        if (rc < 0)
            return rc;
    }
    r.u.mmap.build_id = id;
    r.u.mmap.build_id_len = idlen;
    r.u.mmap.path = path;
    r.u.mmap.path_len = plen;
    return tr_writer_add(im->w, &r);
}

static int task(struct import *im, const struct perf_event_header *h)
{
    struct pd_sample_id sid;
    pd_trailer(im->pd, h, &sid);
    if (sid.time)
        im->last_time = sid.time;
    struct perf_cursor c = {(const uint8_t *)(h + 1), (const uint8_t *)h + h->size, 0};
    tr_record r = {.time = im->last_time, .cpu = sid.cpu};
    switch (h->type) {
    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
        return mmap_rec(im, h, &sid);
    case PERF_RECORD_COMM: {
        uint64_t pt = perf_take64(&c);
        if (c.bad || c.p >= c.end)
            return 0;
        r.type = TR_REC_COMM;
        r.pid = (int32_t)(uint32_t)pt;
        r.tid = (int32_t)(uint32_t)(pt >> 32);
        r.u.comm.comm = (const char *)c.p;
        r.u.comm.len = strnlen(r.u.comm.comm, (size_t)(c.end - c.p));
        r.u.comm.exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
        note_pid(im, r.pid);
        break;
    }
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: {
        uint64_t pp = perf_take64(&c), tt = perf_take64(&c), t = perf_take64(&c);
        if (c.bad)
            return 0;
        r.type = h->type == PERF_RECORD_FORK ? TR_REC_FORK : TR_REC_EXIT;
        r.pid = (int32_t)(uint32_t)pp;
        r.tid = (int32_t)(uint32_t)tt;
        if (t)
            r.time = im->last_time = t;
        if (h->type == PERF_RECORD_FORK) {
            r.u.fork.ppid = (int32_t)(uint32_t)(pp >> 32);
            r.u.fork.ptid = (int32_t)(uint32_t)(tt >> 32);
            note_pid(im, r.pid);
        } else if (r.pid != r.tid) {
            r.u.exit.flags = TR_EXITF_THREAD;
        }
        break;
    }
    case PERF_RECORD_LOST:
    case PERF_RECORD_LOST_SAMPLES: {
        uint64_t id = h->type == PERF_RECORD_LOST ? perf_take64(&c) : sid.id;
        uint64_t lost = perf_take64(&c);
        if (c.bad)
            return 0;
        const struct pd_event *e = pd_event_by_id(im->pd, id);
        r.type = TR_REC_LOST;
        r.pid = r.tid = -1;
        r.u.lost.event = e ? im->evid[e - im->pd->evs] : 0;
        r.u.lost.kind = TR_LOST_SAMPLES;
        r.u.lost.count = lost;
        im->st->lost += lost;
        break;
    }
    case PERF_RECORD_THROTTLE: {
        uint64_t t = perf_take64(&c);
        if (c.bad)
            return 0;
        r.type = TR_REC_LOST;
        r.time = t ? t : r.time;
        r.pid = r.tid = -1;
        r.u.lost.kind = TR_LOST_THROTTLE;
        r.u.lost.count = 1;
        break;
    }
    default:
        return 0;
    }
    return tr_writer_add(im->w, &r);
}

/* The kernel symbols the samples hit, from perf record's copy of kallsyms
 * (~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms), --kallsyms FILE, or this
 * machine's /proc/kallsyms when it runs the recorded kernel. */
static int write_kallsyms(struct import *im)
{
    if (!im->kaddrs.count)
        return 0;
    size_t idlen;
    const uint8_t *id = pd_build_id(im->pd, kernel_name, &idlen);
    char *all = NULL;
    if (im->o->kallsyms) {
        all = cli_read_file(im->o->kallsyms, NULL);
        if (!all)
            return TR_E_IO;
    }
    if (!all && id) {
        char hex[41], path[4200];
        build_id_hex(hex, id, idlen);
        snprintf(path, sizeof path, "%s/%s/%s/kallsyms", im->o->buildid_dir, kernel_name, hex);
        all = cli_read_file(path, NULL);
    }
    if (!all) {
        uint8_t own[BUILD_ID_MAX];
        size_t nlen;
        char *notes = cli_read_file("/sys/kernel/notes", &nlen);
        int n = notes ? build_id_from_notes(notes, nlen, own) : 0;
        free(notes);
        if (!id || (n > 0 && (size_t)n == idlen && !memcmp(own, id, idlen)))
            all = cli_read_file("/proc/kallsyms", NULL);
    }
    if (!all) {
        im->st->no_kallsyms = 1;
        return 0;
    }
    uint64_t *addrs = malloc(im->kaddrs.count * sizeof *addrs);
    size_t na = 0, len = 0;
    int rc = TR_E_NOMEM;
    if (addrs) {
        size_t it = 0;
        for (hashmap_slot *k; (k = hashmap_next(&im->kaddrs, &it));)
            addrs[na++] = k->a;
        char *out = kallsyms_subset(all, addrs, na, &len, NULL, NULL);
        rc = !out ? TR_E_NOMEM : len ? tr_writer_blob(im->w, BLOB_KALLSYMS, out, len, 0) : 0;
        free(out);
    }
    free(addrs);
    free(all);
    return rc;
}

/* JIT maps (/tmp/perf-PID.map) of the recorded processes, as perf script reads them. */
static int write_perf_maps(struct import *im)
{
    int rc = 0;
    for (size_t i = 0; i < im->npids && !rc; i++)
        rc = jitmap_blob(im->w, im->o->perf_map_dir, im->pids[i]);
    return rc;
}

static int write_meta(struct import *im, int argc, char **argv)
{
    const struct perfdata *pd = im->pd;
    char buf[64];
    int rc = tr_writer_meta_defaults(im->w, "tr-import-perf", argc, argv);
    /* what the file says of the recording machine replaces this one's */
    if (!rc && pd->host) rc = tr_writer_meta(im->w, META_HOST, pd->host);
    if (!rc && pd->release) rc = tr_writer_meta(im->w, META_KERNEL_RELEASE, pd->release);
    if (!rc && pd->release) rc = tr_writer_meta(im->w, META_KERNEL_VERSION, "");
    if (!rc && pd->arch) rc = tr_writer_meta(im->w, META_ARCH, pd->arch);
    snprintf(buf, sizeof buf, "%u", pd->ncpus);
    if (!rc && pd->ncpus) rc = tr_writer_meta(im->w, META_NCPUS, buf);
    if (!rc && pd->cmdline) rc = tr_writer_meta(im->w, META_PERF_CMDLINE, pd->cmdline);
    const struct perf_event_attr *a = &pd->evs[0].attr;
    /* perf's default clock is its own (sched_clock); -k names another */
    int mono = a->use_clockid && a->clockid == 1 /* CLOCK_MONOTONIC */;
    if (!rc) rc = tr_writer_meta(im->w, META_CLOCK, mono ? "monotonic" : a->use_clockid ? "perf-clockid" : "perf");
    if (pd->have_clock) {
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)pd->clock_ns);
        if (!rc) rc = tr_writer_meta(im->w, META_TIME_MONOTONIC_NS, buf);
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)pd->clock_wall_ns);
        if (!rc) rc = tr_writer_meta(im->w, META_TIME_REALTIME_NS, buf);
    }
    if (!rc) rc = tr_writer_meta(im->w, META_VIEW, VIEW_SAMPLES);
    if (!rc) rc = tr_writer_meta(im->w, META_MODE, "record");
    const char *cg = "none";
    for (size_t i = 0; i < pd->nevs; i++)
        if (pd->evs[i].attr.sample_type & PERF_SAMPLE_STACK_USER)
            cg = "dwarf";
        else if ((pd->evs[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN) && strcmp(cg, "dwarf"))
            cg = "fp";
    if (!rc) rc = tr_writer_meta(im->w, META_CALLGRAPH, cg);
    size_t idlen;
    const uint8_t *kid = pd_build_id(pd, kernel_name, &idlen);
    if (kid && !rc) {
        char hex[41];
        build_id_hex(hex, kid, idlen);
        rc = tr_writer_meta(im->w, META_KERNEL_BUILD_ID, hex);
    }
    return rc;
}

int import_perfdata(struct perfdata *pd, const struct import_opts *o, int fd, int argc, char **argv,
                    struct import_stats *st)
{
    struct import im = {.pd = pd, .o = o, .st = st};
    memset(st, 0, sizeof *st);
    int dwarf = 0;
    for (size_t i = 0; i < pd->nevs; i++)
        dwarf |= (pd->evs[i].attr.sample_type & PERF_SAMPLE_STACK_USER) != 0;
    /* stack copies delta-coded and stacks in runs, as tr-rec-perf writes them */
    tr_writer_options wo = {.stack_delta = dwarf ? 2 : 0, .stack_runs = 2, .stack_limit = 1u << 20};
    int rc = tr_writer_open(&im.w, fd, &wo);
    if (rc < 0)
        return rc;
    if (!(im.evid = calloc(pd->nevs, sizeof *im.evid)))
        rc = TR_E_NOMEM;
    if (!rc) rc = write_meta(&im, argc, argv);
    if (!rc) rc = define_events(&im);
    if (!rc) { /* the idle task, as perf names it */
        tr_record r = {.type = TR_REC_COMM, .pid = 0, .tid = 0, .cpu = -1, .u.comm = {.comm = "swapper", .len = 7}};
        rc = tr_writer_add(im.w, &r);
    }
    if (!rc && pd_tracing_formats(pd, format_blob, &im) < 0)
        st->bad_tracing = 1;
    const struct perf_event_header *h;
    uint64_t t;
    while (!rc && (h = pd_next(pd, &t))) {
        if (t)
            im.last_time = t;
        rc = h->type == PERF_RECORD_SAMPLE ? sample(&im, h) : task(&im, h);
        if (!rc)
            rc = tr_writer_poll(im.w);
    }
    if (!rc) rc = write_kallsyms(&im);
    if (!rc) rc = write_perf_maps(&im);
    if (!rc) rc = tr_writer_finish(im.w, st->lost);
    tr_writer_free(im.w);
    free(im.evid);
    perf_frames_free(&im.fr);
    free(im.pids);
    hashmap_free(&im.kaddrs);
    hashmap_free(&im.pid_seen);
    return rc;
}
