/* sideband.c - build-ids, vDSO, kernel symbols, perf maps, /proc state. */
#include "sideband.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "buildid.h"
#include "cli.h"
#include "hashmap.h"
#include "jitmap.h"
#include "kallsyms.h"
#include "perf.h"
#include "keys.h"

#define VDSO_RANGES 256

struct bid_entry {
    int len; /* -1: unreadable */
    uint8_t id[BUILD_ID_MAX];
};

struct kept { /* an executable file held open, by build-id (sb_keep_file) */
    int fd, idlen;
    pid_t pid;
    uint8_t id[BUILD_ID_MAX];
    const char *path; /* interned */
};

struct sideband {
    struct kept *kept;
    size_t nkept, capkept, maxkept; /* maxkept: SB_KEEP_FILES, at most a quarter of the fd limit */
    int kept_full;                  /* said on stderr */
    hashmap kept_ids; /* the first 16 bytes of a kept file's build-id -> sb */
    strpool paths;  /* the mapped paths looked up, interned */
    hashmap bids;   /* interned path -> struct bid_entry: the build-id cache */
    hashmap kaddrs; /* the sampled kernel addresses (keys; values: sb) */
    pid_t *pids;    /* the pids seen, in order */
    size_t npids, cappids;
    hashmap pid_seen; /* pid -> sb */
    int vdso_read, vdso_len;
    uint8_t vdso_id[BUILD_ID_MAX];
    /* the vDSO's mappings (each process has its own address), and whether a
     * sample was in one; past VDSO_RANGES, the image is kept whatever */
    struct { uint64_t start, len; } vdso_at[VDSO_RANGES];
    int nvdso, vdso_hit;
    uint64_t vdso_lo, vdso_hi; /* bounds of all of them */
};

uint64_t sb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct sideband *sb_new(void)
{
    struct sideband *sb = calloc(1, sizeof(struct sideband));
    struct rlimit rl;
    if (sb) /* the rest stays for the rings, the output and the files opened at the end */
        sb->maxkept = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur / 4 < SB_KEEP_FILES ? rl.rlim_cur / 4
                                                                                         : SB_KEEP_FILES;
    return sb;
}

void sb_free(struct sideband *sb)
{
    if (!sb)
        return;
    size_t it = 0;
    for (hashmap_slot *e; (e = hashmap_next(&sb->bids, &it));)
        free(e->val);
    hashmap_free(&sb->bids);
    for (size_t i = 0; i < sb->nkept; i++)
        close(sb->kept[i].fd);
    free(sb->kept);
    hashmap_free(&sb->kept_ids);
    strpool_free(&sb->paths);
    hashmap_free(&sb->kaddrs);
    hashmap_free(&sb->pid_seen);
    free(sb->pids);
    free(sb);
}

int sb_build_id(struct sideband *sb, pid_t pid, const char *path, uint8_t *id)
{
    if (path[0] != '/')
        return 0;
    const char *key = strpool_intern(&sb->paths, path, strlen(path));
    struct bid_entry *e = key ? hashmap_get(&sb->bids, (uintptr_t)key, 0) : NULL;
    if (e) {
        if (e->len > 0)
            memcpy(id, e->id, (size_t)e->len);
        return e->len > 0 ? e->len : 0;
    }
    uint8_t tmp[BUILD_ID_MAX];
    int n = build_id_from_file(path, tmp);
    if (n < 0 && pid > 0) { /* another mount namespace */
        char alt[4200];
        snprintf(alt, sizeof alt, "/proc/%d/root%s", (int)pid, path);
        n = build_id_from_file(alt, tmp);
    }
    e = key ? malloc(sizeof *e) : NULL; /* out of memory: not cached */
    if (e) {
        e->len = n > 0 ? n : -1;
        if (n > 0)
            memcpy(e->id, tmp, (size_t)n);
        if (hashmap_put(&sb->bids, (uintptr_t)key, 0, e) < 0)
            free(e);
    }
    if (n > 0)
        memcpy(id, tmp, (size_t)n);
    return n > 0 ? n : 0;
}

static void id_key(const uint8_t *id, int len, uint64_t *a, uint64_t *b)
{
    uint8_t k[16] = {0};
    memcpy(k, id, len < 16 ? (size_t)len : 16);
    memcpy(a, k, 8);
    memcpy(b, k + 8, 8);
}

/* The build-id of the file open at fd, or <= 0. */
static int fd_build_id(int fd, uint8_t *id)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    return build_id_from_file(p, id);
}

void sb_keep_file(struct sideband *sb, pid_t pid, uint64_t start, uint64_t len, const char *path, uint8_t *id,
                  int *idlen)
{
    uint64_t a, b;
    id_key(id, *idlen, &a, &b);
    if (path[0] != '/' || (*idlen && hashmap_get(&sb->kept_ids, a, b)))
        return;
    if (sb->nkept == sb->maxkept) {
        if (!sb->kept_full)
            cli_warn("more than %zu executable files mapped: a later one deleted during the recording is not stored",
                     sb->maxkept);
        sb->kept_full = 1;
        return;
    }
    /* the mapped file itself while the process maps it, else the file at path */
    char mf[96];
    snprintf(mf, sizeof mf, "/proc/%d/map_files/%llx-%llx", (int)pid, (unsigned long long)start,
             (unsigned long long)(start + len));
    int fd = open(mf, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && *idlen)
        fd = open(path, O_RDONLY | O_CLOEXEC);
    uint8_t fid[BUILD_ID_MAX];
    int n = fd >= 0 ? fd_build_id(fd, fid) : 0;
    if (n > 0 && !*idlen) {
        memcpy(id, fid, (size_t)n);
        *idlen = n;
        id_key(id, n, &a, &b);
        if (hashmap_get(&sb->kept_ids, a, b))
            n = 0; /* kept already */
    }
    const char *key = strpool_intern(&sb->paths, path, strlen(path));
    if (n <= 0 || n != *idlen || memcmp(fid, id, (size_t)n) || !key ||
        array_reserve(&sb->kept, &sb->capkept, sb->nkept + 1, sizeof *sb->kept, 16) < 0 ||
        hashmap_put(&sb->kept_ids, a, b, sb) < 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct kept *k = &sb->kept[sb->nkept++];
    k->fd = fd;
    k->idlen = n;
    k->pid = pid;
    memcpy(k->id, id, (size_t)n);
    k->path = key;
}

/* Is the file of k still at its path (in the process's mount namespace too)? */
static int kept_in_place(const struct kept *k)
{
    size_t pl = strlen(k->path);
    if (pl > 10 && !strcmp(k->path + pl - 10, " (deleted)"))
        return 0;
    uint8_t id[BUILD_ID_MAX];
    int n = build_id_from_file(k->path, id);
    if (n < 0 && k->pid > 0) {
        char p[4200];
        snprintf(p, sizeof p, "/proc/%d/root%s", (int)k->pid, k->path);
        n = build_id_from_file(p, id);
    }
    return n == k->idlen && !memcmp(id, k->id, (size_t)n);
}

/* The file of k as blobs build-id/HEX, in parts; read a part at a time. */
static int write_kept(const struct kept *k, tr_writer *w)
{
    struct stat st;
    char hex[2 * BUILD_ID_MAX + 1];
    build_id_hex(hex, k->id, (size_t)k->idlen);
    if (fstat(k->fd, &st) < 0)
        return 0;
    size_t len = (size_t)st.st_size;
    uint8_t id[BUILD_ID_MAX];
    if (fd_build_id(k->fd, id) != k->idlen || memcmp(id, k->id, (size_t)k->idlen))
        return 0; /* rewritten in place: the bytes mapped are gone */
    if (st.st_size > SB_KEEP_MAX) {
        cli_warn("%s (build-id %s) was deleted or replaced: %zu bytes, over the %u MiB cap: not stored in the trace",
                 k->path, hex, len, SB_KEEP_MAX >> 20);
        return 0;
    }
    size_t nparts = build_id_blob_parts(len);
    char *buf = malloc(len < BLOB_BUILD_ID_PART ? len + 1 : BLOB_BUILD_ID_PART);
    if (!buf)
        return TR_E_NOMEM;
    int rc = 0;
    for (size_t i = 0; i < nparts && rc >= 0; i++) {
        size_t off = i * BLOB_BUILD_ID_PART, n = len - off < BLOB_BUILD_ID_PART ? len - off : BLOB_BUILD_ID_PART;
        char name[256];
        if (pread(k->fd, buf, n, (off_t)off) != (ssize_t)n) {
            cli_warn("%s (build-id %s): %s: not stored in the trace", k->path, hex, strerror(errno));
            break; /* the parts written are of no use, but harmless */
        }
        build_id_blob_name(name, sizeof name, hex, "", i, nparts);
        if ((rc = tr_writer_blob(w, name, buf, n, 0)) == 0)
            rc = tr_writer_flush(w);
    }
    free(buf);
    return rc;
}

void sb_note_kernel_addr(struct sideband *sb, uint64_t addr)
{
    if (addr)
        hashmap_put(&sb->kaddrs, addr, 0, sb); /* out of memory: the address is not kept */
}

uint64_t sb_kernel_addrs(const struct sideband *sb) { return sb->kaddrs.count; }

void sb_note_pid(struct sideband *sb, pid_t pid)
{
    if (pid <= 0 || hashmap_get(&sb->pid_seen, (uint64_t)pid, 0))
        return;
    if (array_reserve(&sb->pids, &sb->cappids, sb->npids + 1, sizeof *sb->pids, 32) < 0 ||
        hashmap_put(&sb->pid_seen, (uint64_t)pid, 0, sb) < 0)
        return;
    sb->pids[sb->npids++] = pid;
}

static const uint8_t *vdso_image(size_t *len)
{
    const uint8_t *img = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
    if (!img)
        return NULL;
    /* the vDSO is a few pages; its ELF headers give the size */
    *len = elf_image_size(img, 64 * 1024);
    return *len ? img : NULL;
}

int sb_vdso(struct sideband *sb, uint64_t start, uint64_t len, uint8_t *id)
{
    if (!sb->vdso_read) {
        sb->vdso_read = 1;
        size_t n;
        const uint8_t *img = vdso_image(&n);
        int k = img ? build_id_from_mem(img, n, sb->vdso_id) : 0;
        sb->vdso_len = k > 0 ? k : 0;
    }
    int i = 0;
    while (i < sb->nvdso && (sb->vdso_at[i].start != start || sb->vdso_at[i].len != len))
        i++;
    if (i == sb->nvdso && len && start + len > start) {
        if (i == VDSO_RANGES) {
            sb->vdso_hit = 1;
        } else {
            sb->vdso_at[i].start = start;
            sb->vdso_at[i].len = len;
            sb->nvdso++;
            if (!sb->vdso_lo || start < sb->vdso_lo)
                sb->vdso_lo = start;
            if (start + len > sb->vdso_hi)
                sb->vdso_hi = start + len;
        }
    }
    memcpy(id, sb->vdso_id, (size_t)sb->vdso_len);
    return sb->vdso_len;
}

void sb_note_user_addrs(struct sideband *sb, const uint64_t *addrs, const uint32_t *flags, size_t n)
{
    for (size_t k = 0; k < n && !sb->vdso_hit; k++) {
        uint64_t a = addrs[k];
        if ((flags[k] & TR_FRAME_KERNEL) || a < sb->vdso_lo || a >= sb->vdso_hi)
            continue;
        for (int i = 0; i < sb->nvdso; i++)
            if (a - sb->vdso_at[i].start < sb->vdso_at[i].len)
                sb->vdso_hit = 1;
    }
}

static int write_vdso(tr_writer *w)
{
    size_t len;
    const uint8_t *img = vdso_image(&len);
    return img ? tr_writer_blob(w, BLOB_VDSO, img, len, 0) : 0;
}

int sb_kernel_build_id(uint8_t *id)
{
    size_t len;
    char *notes = cli_read_file("/sys/kernel/notes", &len);
    if (!notes)
        return 0;
    int n = build_id_from_notes(notes, len, id);
    free(notes);
    return n > 0 ? n : 0;
}

/* Keep the symbol covering each sampled address and the one after it
 * (which bounds its size), in /proc/kallsyms format. */
static int write_kallsyms(struct sideband *sb, tr_writer *w, uint64_t *text, uint64_t *etext)
{
    size_t len;
    char *out = kallsyms_of(&sb->kaddrs, &len, text, etext);
    int rc = out && len ? tr_writer_blob(w, BLOB_KALLSYMS, out, len, 0) : 0;
    free(out);
    return rc;
}

static int write_kernel_mmap(tr_writer *w, uint64_t text, uint64_t etext)
{
    uint8_t id[BUILD_ID_MAX];
    int n = sb_kernel_build_id(id);
    static const char name[] = "[kernel.kallsyms]";
    tr_record rec = {.type = TR_REC_MMAP, .time = sb_now_ns(), .pid = -1, .tid = -1, .cpu = -1};
    rec.u.mmap.start = text;
    rec.u.mmap.len = etext > text ? etext - text : 0;
    rec.u.mmap.prot = PROT_READ | PROT_EXEC;
    rec.u.mmap.build_id = id;
    rec.u.mmap.build_id_len = (size_t)n;
    rec.u.mmap.path = name;
    rec.u.mmap.path_len = sizeof name - 1;
    return tr_writer_add(w, &rec);
}

int sb_finish(struct sideband *sb, tr_writer *w)
{
    int rc;
    for (size_t i = 0; i < sb->nkept; i++)
        if (!kept_in_place(&sb->kept[i]) && (rc = write_kept(&sb->kept[i], w)) < 0)
            return rc;
    if (sb->vdso_hit && (rc = write_vdso(w)) < 0)
        return rc;
    if (sb->kaddrs.count) {
        uint64_t text = 0, etext = 0;
        if ((rc = write_kallsyms(sb, w, &text, &etext)) < 0)
            return rc;
        if (text && (rc = write_kernel_mmap(w, text, etext)) < 0)
            return rc;
    }
    for (size_t i = 0; i < sb->npids; i++)
        if ((rc = jitmap_blob(w, "/tmp", sb->pids[i])) < 0)
            return rc;
    return 0;
}

static int synth_comm(tr_writer *w, pid_t pid, pid_t tid, uint64_t time)
{
    char comm[64];
    if (cli_read_comm(pid, tid, comm, sizeof comm) < 0)
        return 0;
    tr_record rec = {.type = TR_REC_COMM, .time = time, .pid = pid, .tid = tid, .cpu = -1};
    rec.u.comm.comm = comm;
    rec.u.comm.len = strlen(comm);
    return tr_writer_add(w, &rec);
}

int sb_synthesize_process(struct sideband *sb, tr_writer *w, pid_t pid, uint64_t time)
{
    pid_t tids[1024];
    int n = target_threads(pid, tids, 1024);
    int rc;
    sb_note_pid(sb, pid);
    for (int i = 0; i < n; i++)
        if ((rc = synth_comm(w, pid, tids[i], time)) < 0)
            return rc;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[4400];
    while (fgets(line, sizeof line, f)) {
        unsigned long long start, end, pgoff;
        char perms[8];
        int off = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &start, &end, perms, &pgoff, &off) < 4)
            continue;
        if (perms[2] != 'x')
            continue;
        char *p = line + off;
        while (*p == ' ')
            p++;
        p[strcspn(p, "\n")] = 0;
        if (!*p)
            continue; /* anonymous executable memory: JIT, covered by perf maps */
        uint8_t id[BUILD_ID_MAX];
        int idlen = 0;
        if (!strcmp(p, "[vdso]"))
            idlen = sb_vdso(sb, start, end - start, id);
        else
            idlen = sb_build_id(sb, pid, p, id);
        sb_keep_file(sb, pid, start, end - start, p, id, &idlen);
        if (idlen < 0)
            return idlen;
        tr_record rec = {.type = TR_REC_MMAP, .time = time, .pid = pid, .tid = pid, .cpu = -1};
        rec.u.mmap.start = start;
        rec.u.mmap.len = end - start;
        rec.u.mmap.pgoff = pgoff;
        rec.u.mmap.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
                          PROT_EXEC;
        rec.u.mmap.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
        rec.u.mmap.build_id = id;
        rec.u.mmap.build_id_len = (size_t)idlen;
        rec.u.mmap.path = p;
        rec.u.mmap.path_len = strlen(p);
        if ((rc = tr_writer_add(w, &rec)) < 0) {
            fclose(f);
            return rc;
        }
    }
    fclose(f);
    return 0;
}
