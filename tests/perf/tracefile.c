/* tracefile.c - see tracefile.h */
#include "tracefile.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tr.h"

#define PUSH(arr, n, v)                                                                            \
    do {                                                                                           \
        void *np_ = realloc((arr), ((n) + 1) * sizeof *(arr));                                     \
        if (!np_)                                                                                  \
            abort();                                                                               \
        (arr) = np_;                                                                               \
        (arr)[(n)++] = (v);                                                                        \
    } while (0)

static void copy_str(char *dst, size_t cap, const char *s, size_t len)
{
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, s, len);
    dst[len] = 0;
}

int tf_load(const char *path, struct tf *t)
{
    memset(t, 0, sizeof *t);
    t->lost_cpu_ok = 1;
    t->child_exit_status = -1;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    tr_reader *r;
    if (tr_reader_open(&r, fd, NULL) < 0) {
        close(fd);
        return -1;
    }
    tr_record rec;
    int rc;
    int32_t first_exec = -1;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            if (rc == TR_E_TRUNCATED)
                t->truncated = 1;
            else
                t->errors++;
            if (tr_error_recoverable(rc))
                continue;
            break;
        }
        switch (rec.type) {
        case TR_REC_SAMPLE: {
            struct tf_sample s = {.pid = rec.pid, .tid = rec.tid, .cpu = rec.cpu, .time = rec.time,
                                  .period = rec.u.sample.period, .abi = rec.u.sample.abi,
                                  .nregs = rec.u.sample.nregs,
                                  .stack_copy_len = rec.u.sample.stack_copy_len,
                                  .raw_len = rec.u.sample.raw_len};
            const tr_event_def *ev = tr_reader_event(r, rec.u.sample.event);
            if (ev) {
                copy_str(s.event, sizeof s.event, ev->name, ev->name_len);
                s.evflags = ev->flags;
            }
            const uint32_t *fr;
            int n = tr_reader_stack(r, rec.u.sample.stack, &fr);
            if (n > 0) {
                s.frames = calloc((size_t)n, sizeof *s.frames);
                for (int i = 0; i < n; i++) {
                    const tr_frame *f = tr_reader_frame(r, fr[i]);
                    if (f)
                        s.frames[s.nframes++] = (struct tf_frame){f->addr, f->flags};
                }
            }
            PUSH(t->samples, t->nsamples, s);
            break;
        }
        case TR_REC_MMAP: {
            struct tf_mmap m = {.pid = rec.pid, .start = rec.u.mmap.start, .len = rec.u.mmap.len,
                                .pgoff = rec.u.mmap.pgoff, .prot = rec.u.mmap.prot,
                                .build_id_len = rec.u.mmap.build_id_len};
            copy_str(m.path, sizeof m.path, rec.u.mmap.path, rec.u.mmap.path_len);
            PUSH(t->mmaps, t->nmmaps, m);
            break;
        }
        case TR_REC_COMM: {
            struct tf_task c = {.pid = rec.pid, .tid = rec.tid, .exec = (int)rec.u.comm.exec};
            copy_str(c.comm, sizeof c.comm, rec.u.comm.comm, rec.u.comm.len);
            if (c.exec && first_exec < 0)
                first_exec = rec.pid;
            PUSH(t->comms, t->ncomms, c);
            break;
        }
        case TR_REC_FORK: {
            struct tf_task c = {.pid = rec.pid, .tid = rec.tid, .ppid = rec.u.fork.ppid};
            PUSH(t->forks, t->nforks, c);
            break;
        }
        case TR_REC_EXIT:
            t->nexits++;
            if (rec.pid == first_exec && rec.tid == first_exec)
                t->child_exit_status = rec.u.exit.status;
            break;
        case TR_REC_LOST:
            t->nlost_records++;
            t->lost += rec.u.lost.count;
            if (rec.cpu < 0)
                t->lost_cpu_ok = 0;
            break;
        case TR_REC_BLOB: {
            char *name = strndup(rec.u.blob.name, rec.u.blob.name_len);
            PUSH(t->blobs, t->nblobs, name);
            break;
        }
        case TR_REC_COUNTER: {
            struct tf_counter c = {.value = rec.u.counter.value, .enabled = rec.u.counter.enabled,
                                   .running = rec.u.counter.running, .run = rec.u.counter.run,
                                   .flags = rec.u.counter.flags};
            const tr_event_def *ev = tr_reader_event(r, rec.u.counter.event);
            if (ev)
                copy_str(c.event, sizeof c.event, ev->name, ev->name_len);
            PUSH(t->counters, t->ncounters, c);
            break;
        }
        case TR_REC_STREAM_END:
            t->complete = (int)rec.u.stream_end.complete;
            break;
        }
    }
    /* blobs may be absorbed by the reader: ask it too */
    const char *bn;
    const uint8_t *bd;
    size_t bl;
    for (size_t i = 0; tr_reader_blob_at(r, "", i, &bn, &bd, &bl) > 0; i++)
        PUSH(t->blobs, t->nblobs, strdup(bn));
    tr_reader_free(r);
    close(fd);
    return 0;
}

void tf_free(struct tf *t)
{
    for (size_t i = 0; i < t->nsamples; i++)
        free(t->samples[i].frames);
    for (size_t i = 0; i < t->nblobs; i++)
        free(t->blobs[i]);
    free(t->samples);
    free(t->mmaps);
    free(t->comms);
    free(t->forks);
    free(t->blobs);
    free(t->counters);
    memset(t, 0, sizeof *t);
}

int tf_has_blob(const struct tf *t, const char *prefix)
{
    for (size_t i = 0; i < t->nblobs; i++)
        if (t->blobs[i] && !strncmp(t->blobs[i], prefix, strlen(prefix)))
            return 1;
    return 0;
}

/* ELF function symbols of one file, cached. */
struct fsym { uint64_t start, size; char *name; };
struct elfsyms { char path[512]; struct fsym *syms; size_t n; GElf_Phdr load[16]; int nload; };
static struct elfsyms cache[16];
static int ncache;

static struct elfsyms *elf_syms(const char *path)
{
    for (int i = 0; i < ncache; i++)
        if (!strcmp(cache[i].path, path))
            return &cache[i];
    if (ncache == 16)
        return NULL;
    struct elfsyms *e = &cache[ncache++];
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return e;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    size_t nph = 0;
    if (elf && elf_getphdrnum(elf, &nph) == 0)
        for (size_t i = 0; i < nph && e->nload < 16; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
                e->load[e->nload++] = ph;
        }
    Elf_Scn *scn = NULL;
    while (elf && (scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t cnt = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; d && i < cnt; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
                continue;
            const char *nm = elf_strptr(elf, sh.sh_link, s.st_name);
            if (!nm)
                continue;
            struct fsym f = {s.st_value, s.st_size ? s.st_size : 1, strdup(nm)};
            PUSH(e->syms, e->n, f);
        }
    }
    if (elf)
        elf_end(elf);
    close(fd);
    return e;
}

static int32_t parent_of(struct tf *t, int32_t pid)
{
    for (size_t i = 0; i < t->nforks; i++)
        if (t->forks[i].pid == pid && t->forks[i].pid == t->forks[i].tid)
            return t->forks[i].ppid;
    return -1;
}

const char *tf_symbol(struct tf *t, int32_t pid, uint64_t addr)
{
    for (int depth = 0; pid > 0 && depth < 8; depth++, pid = parent_of(t, pid)) {
        for (size_t i = t->nmmaps; i > 0; i--) {
            const struct tf_mmap *m = &t->mmaps[i - 1];
            if (m->pid != pid || addr < m->start || addr >= m->start + m->len || m->path[0] != '/')
                continue;
            struct elfsyms *e = elf_syms(m->path);
            if (!e)
                return NULL;
            uint64_t off = addr - m->start + m->pgoff, vaddr = 0;
            int found = 0;
            for (int k = 0; k < e->nload; k++)
                if (off >= e->load[k].p_offset && off < e->load[k].p_offset + e->load[k].p_filesz) {
                    vaddr = off - e->load[k].p_offset + e->load[k].p_vaddr;
                    found = 1;
                    break;
                }
            if (!found)
                return NULL;
            for (size_t k = 0; k < e->n; k++)
                if (vaddr >= e->syms[k].start && vaddr < e->syms[k].start + e->syms[k].size)
                    return e->syms[k].name;
            return NULL;
        }
    }
    return NULL;
}

int tf_stack_has(struct tf *t, const struct tf_sample *s, const char *func)
{
    for (int i = 0; i < s->nframes; i++) {
        if (s->frames[i].flags & TR_FRAME_KERNEL)
            continue;
        /* return addresses point after the call: look one byte back for callers */
        uint64_t a = i ? s->frames[i].addr - 1 : s->frames[i].addr;
        const char *n = tf_symbol(t, s->pid, a);
        if (n && !strcmp(n, func))
            return 1;
    }
    return 0;
}
