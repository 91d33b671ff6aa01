/* archive.c - the files a trace's later analysis needs (archive.h). */
#include "archive.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "array.h"
#include "buildid.h"
#include "keys.h"
#include "procs.h"

static void note_map(struct archive *a, int32_t pid, const procs_map *m)
{
    if (!m || !m->path || !m->path[0] || (m->path[0] == '[' && strcmp(m->path, "[vdso]")))
        return; /* [kernel.kallsyms], [heap]...: kernel symbols travel as the kallsyms blob */
    if (!m->build_id_len) {
        for (size_t i = 0; i < a->nmods; i++)
            if (!a->mods[i].idlen && !strcmp(a->mods[i].path, m->path))
                return;
    }
    for (size_t i = 0; i < a->nmods; i++)
        if (a->mods[i].idlen == m->build_id_len && !memcmp(a->mods[i].id, m->build_id, m->build_id_len) &&
            (m->build_id_len || !strcmp(a->mods[i].path, m->path)))
            return;
    if (array_reserve(&a->mods, &a->cap, a->nmods + 1, sizeof *a->mods, 16) < 0)
        return;
    struct module *mod = &a->mods[a->nmods];
    memset(mod, 0, sizeof *mod);
    if (!(mod->path = strdup(m->path)))
        return;
    memcpy(mod->id, m->build_id, m->build_id_len);
    mod->idlen = m->build_id_len;
    mod->pid = pid;
    mod->start = m->start;
    mod->end = m->end;
    a->nmods++;
    if (!mod->idlen)
        a->no_build_id++;
}

static void note_stack(struct archive *a, struct procs *pm, tr_reader *r, const tr_record *rec, uint32_t stack)
{
    const uint32_t *frames;
    int n = stack ? tr_reader_stack(r, stack, &frames) : 0;
    for (int i = 0; i < n; i++) {
        const tr_frame *f = tr_reader_frame(r, frames[i]);
        if (f && !(f->flags & (TR_FRAME_KERNEL | TR_FRAME_JIT)))
            note_map(a, rec->pid, procs_lookup(pm, rec->pid, f->addr));
    }
}

/* The build-id blobs of the stream read (parts joined): a stream holds the
 * binaries tr-rec-perf kept (deleted during the recording) or those of an
 * archive already. */
static void note_files(struct archive *a, tr_reader *r)
{
    const char *name;
    const uint8_t *data;
    size_t len, pl = sizeof BLOB_BUILD_ID_PREFIX - 1;
    for (size_t i = 0; tr_reader_blob_at(r, BLOB_BUILD_ID_PREFIX, i, &name, &data, &len); i++) {
        size_t kl = strcspn(name + pl, ":"), k = 0, n = 1;
        if (name[pl + kl] && (sscanf(name + pl + kl, ":%zu/%zu", &k, &n) != 2 || k >= n || n > 4096))
            continue;
        struct trace_file *f = NULL;
        for (size_t j = 0; j < a->nfiles && !f; j++)
            if (strlen(a->files[j].key) == kl && !strncmp(a->files[j].key, name + pl, kl))
                f = &a->files[j];
        if (!f) {
            if (array_reserve(&a->files, &a->capfiles, a->nfiles + 1, sizeof *a->files, 8) < 0)
                return;
            f = &a->files[a->nfiles];
            *f = (struct trace_file){.key = strndup(name + pl, kl), .nparts = n};
            if (!f->key)
                return;
            a->nfiles++;
        }
        size_t off = k * BLOB_BUILD_ID_PART;
        if (f->got == f->nparts || f->nparts != n || (n > 1 && k + 1 < n && len != BLOB_BUILD_ID_PART))
            continue; /* whole already, or not parts of one file */
        if (off + len > f->len) {
            uint8_t *d = realloc(f->data, off + len ? off + len : 1);
            if (!d)
                continue;
            f->data = d;
            f->len = off + len;
        }
        memcpy(f->data + off, data, len);
        f->got++;
    }
}

int archive_scan(struct archive *a, tr_reader *r)
{
    struct procs *pm = procs_new(NULL);
    if (!pm)
        return TR_E_NOMEM;
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            if (tr_error_recoverable(rc))
                continue;
            break;
        }
        procs_feed(pm, &rec); /* out of memory: a map less */
        if (rec.type == TR_REC_STREAM_END)
            note_files(a, r);
        if (rec.type == TR_REC_SAMPLE) {
            note_stack(a, pm, r, &rec, rec.u.sample.stack);
            procs_proc *p = rec.u.sample.stack_copy_len ? procs_proc_get(pm, rec.pid) : NULL;
            size_t it = 0;
            for (procs_map *m; p && (m = procs_maps_next(p, &it));)
                if (!m->prot || (m->prot & 4 /* PROT_EXEC */))
                    note_map(a, rec.pid, m);
        } else if (rec.type == TR_REC_SYSCALL) {
            note_stack(a, pm, r, &rec, rec.u.syscall.stack);
        } else if (rec.type == TR_REC_LIBCALL) {
            note_stack(a, pm, r, &rec, rec.u.libcall.stack);
        }
    }
    size_t len;
    const uint8_t *v = tr_reader_blob(r, BLOB_VDSO, &len);
    if (v && !a->vdso && (a->vdso = malloc(len))) {
        memcpy(a->vdso, v, len);
        a->vdso_len = len;
    }
    procs_free(pm);
    return rc;
}

/* path when it is a file with build-id id: a copy of path, else NULL. */
static char *if_same(const char *path, const struct module *m)
{
    uint8_t id[BUILD_ID_MAX];
    int n = build_id_from_file(path, id);
    if (n <= 0 || (size_t)n != m->idlen || memcmp(id, m->id, m->idlen))
        return NULL;
    return strdup(path);
}

/* The .gnu_debuglink name of the ELF file at path or in memory (f), or NULL. */
static char *debuglink(const char *path, const struct trace_file *f)
{
    int fd = f ? -1 : open(path, O_RDONLY | O_CLOEXEC);
    if (!f && fd < 0)
        return NULL;
    elf_version(EV_CURRENT);
    Elf *e = f ? elf_memory((char *)f->data, f->len) : elf_begin(fd, ELF_C_READ_MMAP, NULL);
    char *name = NULL;
    size_t shstr;
    if (e && elf_getshdrstrndx(e, &shstr) == 0)
        for (Elf_Scn *s = NULL; !name && (s = elf_nextscn(e, s));) {
            GElf_Shdr sh;
            const char *sn;
            Elf_Data *d;
            if (gelf_getshdr(s, &sh) && (sn = elf_strptr(e, shstr, sh.sh_name)) &&
                !strcmp(sn, ".gnu_debuglink") && (d = elf_getdata(s, NULL)) && d->d_size &&
                memchr(d->d_buf, 0, d->d_size))
                name = strdup(d->d_buf);
        }
    if (e)
        elf_end(e);
    if (fd >= 0)
        close(fd);
    return name;
}

static void find_one(struct archive *a, struct module *m)
{
    char buf[4400], hex[129];
    build_id_hex(hex, m->id, m->idlen);
    char *path = strdup(m->path);
    if (!path)
        return;
    size_t pl = strlen(path);
    if (pl > 10 && !strcmp(path + pl - 10, " (deleted)"))
        path[pl - 10] = 0;
    if (!strcmp(path, "[vdso]")) {
        free(path);
        return; /* the trace's image */
    }
    for (size_t i = 0; i < a->nfiles && !m->in_trace; i++)
        if (a->files[i].got == a->files[i].nparts && !strcmp(a->files[i].key, hex))
            m->in_trace = &a->files[i]; /* the trace has it: not looked for elsewhere */
    if (a->symfs && !m->in_trace) {
        snprintf(buf, sizeof buf, "%s%s", a->symfs, path);
        m->binary = if_same(buf, m);
    }
    if (!m->binary && !m->in_trace)
        m->binary = if_same(path, m);
    for (size_t i = 0; !m->binary && !m->in_trace && i <= a->ndebug_dirs; i++) {
        snprintf(buf, sizeof buf, "%s/.build-id/%.2s/%s", i < a->ndebug_dirs ? a->debug_dirs[i] : "/usr/lib/debug",
                 hex, hex + 2);
        m->binary = if_same(buf, m);
    }
    if (!m->binary && !m->in_trace && m->pid > 0) { /* a deleted or replaced binary a live process still maps */
        snprintf(buf, sizeof buf, "/proc/%d/map_files/%llx-%llx", (int)m->pid, (unsigned long long)m->start,
                 (unsigned long long)m->end);
        m->binary = if_same(buf, m);
    }
    for (size_t i = 0; !m->debug && i <= a->ndebug_dirs; i++) {
        snprintf(buf, sizeof buf, "%s/.build-id/%.2s/%s.debug",
                 i < a->ndebug_dirs ? a->debug_dirs[i] : "/usr/lib/debug", hex, hex + 2);
        m->debug = if_same(buf, m);
    }
    char *link = (m->binary || m->in_trace) && !m->debug ? debuglink(m->binary, m->in_trace) : NULL;
    if (link) { /* beside the binary, in .debug/ there, under /usr/lib/debug */
        char *slash = strrchr(path, '/');
        int dl = slash ? (int)(slash - path) : 0;
        const char *fmts[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
        for (int k = 0; !m->debug && k < 3; k++) {
            snprintf(buf, sizeof buf, fmts[k], dl, path, link);
            char *d = if_same(buf, m);
            if (d && m->binary && !strcmp(d, m->binary))
                free(d); /* the binary itself */
            else
                m->debug = d;
        }
        free(link);
    }
    free(path);
}

void archive_find(struct archive *a)
{
    for (size_t i = 0; i < a->nmods; i++)
        if (a->mods[i].idlen)
            find_one(a, &a->mods[i]);
}

void archive_free(struct archive *a)
{
    for (size_t i = 0; i < a->nmods; i++) {
        free(a->mods[i].path);
        free(a->mods[i].binary);
        free(a->mods[i].debug);
    }
    free(a->mods);
    for (size_t i = 0; i < a->nfiles; i++) {
        free(a->files[i].key);
        free(a->files[i].data);
    }
    free(a->files);
    free(a->vdso);
    memset(a, 0, sizeof *a);
}
