/*
 * session.c - the symbolize session: processes and their mappings, the
 * kernel and JIT tables, the per-address cache, and stack resolution.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <fcntl.h>
#include <unistd.h>

#include <gelf.h>
#include <zstd.h>

#include "sym_int.h"
#include "keys.h"

void sym_options_init(sym_options *o)
{
    memset(o, 0, sizeof *o);
    o->demangle = 1;
    o->inlines = 1;
    o->unwind = 1;
    o->debuginfod = 1;
    o->running_kernel = 1;
    o->fast_unwind = 1;
}

/* libdw's search path: its build-id trees are only the absolute entries
 * (a relative one names a directory beside each binary), so a relative
 * --debug-dir is made absolute. */
static char *build_debuginfo_path(const sym_options *o)
{
    size_t len = 32;
    char **abs = NULL;
    size_t n = 0;
    for (const char *const *d = o->debug_dirs; d && *d; d++)
        n++;
    if (n && !(abs = calloc(n, sizeof *abs)))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        abs[i] = o->debug_dirs[i][0] == '/' ? NULL : realpath(o->debug_dirs[i], NULL);
        len += strlen(abs[i] ? abs[i] : o->debug_dirs[i]) + 1;
    }
    char *p = malloc(len);
    if (p) {
        strcpy(p, ":.debug");
        for (size_t i = 0; i < n; i++) {
            strcat(p, ":");
            strcat(p, abs[i] ? abs[i] : o->debug_dirs[i]);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(abs[i]);
    free(abs);
    if (!p)
        return NULL;
    if (!o->no_default_debug_dir)
        strcat(p, ":/usr/lib/debug");
    return p;
}

/* Does a separate debug file named name (or FILE's base name + ".debug")
 * exist where libdw's path search looks: beside file_name, in its .debug
 * directory, or under each absolute directory of the path + its directory? */
static int debuglink_candidate_exists(const char *path, const char *file_name, const char *name)
{
    char buf[4096];
    if (!file_name || access(file_name, F_OK) != 0)
        return 0; /* not a file (an image in memory): nothing is beside it */
    const char *slash = strrchr(file_name, '/');
    if (!slash) {
        snprintf(buf, sizeof buf, "./%s", file_name);
        return debuglink_candidate_exists(path, buf, name);
    }
    int dlen = (int)(slash - file_name);
    if (!name) {
        snprintf(buf, sizeof buf, "%s.debug", slash + 1);
        return debuglink_candidate_exists(path, file_name, buf);
    }
    if (name[0] == '/')
        return access(name, F_OK) == 0;
    char nm[1024];
    snprintf(nm, sizeof nm, "%s", name);
    const char *p = path && (path[0] == '+' || path[0] == '-') ? path + 1 : path;
    for (;;) {
        const char *end = p ? strchr(p, ':') : NULL;
        int len = p ? (end ? (int)(end - p) : (int)strlen(p)) : 0;
        if (len == 0)
            snprintf(buf, sizeof buf, "%.*s/%s", dlen, file_name, nm);
        else if (p[0] == '/')
            snprintf(buf, sizeof buf, "%.*s%.*s/%s", len, p, dlen, file_name, nm);
        else
            snprintf(buf, sizeof buf, "%.*s/%.*s/%s", dlen, file_name, len, p, nm);
        if (access(buf, F_OK) == 0)
            return 1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

/* libdw's standard search for separate debug info (build-id trees, then
 * .gnu_debuglink names in the path), except that when DEBUGINFOD_URLS is
 * not set a search that can only fail is not started: libdw would load its
 * debuginfod client (libcurl, gnutls...: milliseconds per run) just to find
 * it has no server to ask. */
int sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                       char **debuginfo_file_name)
{
    sym_session *ss = userdata ? *userdata : NULL;
    const unsigned char *bits;
    GElf_Addr vaddr;
    int n = ss && ss->archived_seen ? dwfl_module_build_id(mod, &bits, &vaddr) : 0;
    if (n > 0 && n <= 64) {
        char key[140];
        size_t len;
        for (int i = 0; i < n; i++)
            snprintf(key + 2 * i, 3, "%02x", bits[i]);
        strcat(key, ".debug");
        const void *img = sym_archived(ss, key, &len);
        int fd = img ? sym_memfd(img, len) : -1;
        if (fd >= 0) {
            /* a path libdw and the DWARF cache can open again */
            char path[40];
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
            *debuginfo_file_name = strdup(path);
            return fd;
        }
    }
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (urls && *urls)
        return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                            debuglink_crc, debuginfo_file_name);
    int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                          debuglink_crc, debuginfo_file_name);
    if (fd >= 0)
        return fd;
    /* the module's user data is its session (symfile.c) */
    const sym_session *s = userdata ? *userdata : NULL;
    if (s && !debuglink_candidate_exists(s->debuginfo_path, file_name, debuglink_file)) {
        /* libdw also looks beside the target of a symbolic link */
        char *real = file_name ? realpath(file_name, NULL) : NULL;
        int found = real && strcmp(real, file_name) != 0 &&
                    debuglink_candidate_exists(s->debuginfo_path, real, debuglink_file);
        free(real);
        if (!found)
            return -1;
    }
    return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                        debuglink_crc, debuginfo_file_name);
}

static void proc_free(void *user, void *ctx);
static void arena_free(sym_session *s);

sym_session *sym_new(const sym_options *opt)
{
    sym_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (opt)
        s->opt = *opt;
    else
        sym_options_init(&s->opt);
    elf_version(EV_CURRENT);
    s->debuginfo_path = build_debuginfo_path(&s->opt);
    s->dwfl_callbacks.find_elf = dwfl_build_id_find_elf;
    s->dwfl_callbacks.find_debuginfo = sym_find_debuginfo;
    s->dwfl_callbacks.section_address = dwfl_offline_section_address;
    s->dwfl_callbacks.debuginfo_path = &s->debuginfo_path;
    s->s_unknown = strpool_intern(&s->strings, "[unknown]", 9);
    s->s_unknown_mod = s->s_unknown;
    s->s_kernel = strpool_intern(&s->strings, "[kernel.kallsyms]", 17);
    s->s_jit = strpool_intern(&s->strings, "[jit]", 5);
    s->procs = procs_new(&(procs_options){ .user_free = proc_free, .ctx = s });
    if (!s->debuginfo_path || !s->s_unknown || !s->s_kernel || !s->s_jit || !s->procs) {
        sym_free(s);
        return NULL;
    }
    return s;
}

static void free_prescan(sym_session *s);
static void free_tails(sym_session *s);
static int install_prescan(sym_session *s, uint32_t stream);

/* The model forgets a process (a new one of its pid, a new stream, the end). */
static void proc_free(void *user, void *ctx)
{
    sym_proc *p = user;
    sym_session *s = ctx;
    if (s->last_proc == p)
        s->last_proc = NULL;
    sym_unwind_free(p);
    sym_tab_free(p->jit);
    free(p->rules);
    free(p->addrs);
    free(p);
}

void sym_free(sym_session *s)
{
    if (!s)
        return;
    sym_ahead_free(s->ahead);
    procs_free(s->procs);
    sym_unwind_cache_free(s);
    hashmap_free(&s->cache);
    arena_free(s);
    hashmap_free(&s->symbols_seen);
    for (size_t i = 0; i < s->nfiles; i++)
        sym_symfile_free(s->filelist[i]);
    sym_symfile_prefetch_free(s);
    free(s->filelist);
    hashmap_free(&s->files);
    sym_tab_free(s->kernel);
    free_prescan(s);
    free_tails(s);
    free(s->vdso);
    for (size_t i = 0; i < s->nwarn; i++)
        free(s->warnings[i]);
    free(s->warnings);
    for (size_t i = 0; i < sizeof s->pidwarn / sizeof *s->pidwarn; i++)
        free(s->pidwarn[i].first);
    free(s->lastwarn);
    free(s->syms);
    free(s->out);
    free(s->addrs);
    free(s->adjust);
    free(s->debuginfo_path);
    strpool_free(&s->strings);
    free(s);
}

/* The tables sym_free_at_exit leaves: they reach the rest (volatile: kept). */
static void *volatile left_at_exit[3];

void sym_free_at_exit(sym_session *s)
{
    /* the cache of each distinct address and each string freed one by one:
     * 3 % of a warm cc -g run's instructions */
    if (!s)
        return;
    left_at_exit[0] = s->cache.slots;
    left_at_exit[1] = s->strings.slots;
    left_at_exit[2] = s->arena;
    memset(&s->cache, 0, sizeof s->cache);
    memset(&s->strings, 0, sizeof s->strings);
    s->arena = NULL;
    sym_free(s);
}

/* ---- warnings ---- */

static void warn_line(sym_session *s, const char *buf)
{
    if (s->opt.warn) {
        s->opt.warn(s->opt.warn_ctx, buf);
        return;
    }
    if (s->nwarn - s->warnpos > 10000)
        return; /* nobody drains: stay bounded */
    if (array_reserve(&s->warnings, &s->warncap, s->nwarn + 1, sizeof *s->warnings, 16) < 0)
        return;
    char *c = strdup(buf);
    if (c)
        s->warnings[s->nwarn++] = c;
}

void sym_warnf(sym_session *s, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    warn_line(s, buf);
}

void sym_warn_pid(sym_session *s, int cause, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    struct sym_pid_warning *w = &s->pidwarn[cause];
    if (s->opt.each_process)
        warn_line(s, buf);
    else if (!w->n++)
        w->first = strdup(buf);
}

void sym_finish(sym_session *s)
{
    for (size_t i = 0; i < sizeof s->pidwarn / sizeof *s->pidwarn; i++) {
        struct sym_pid_warning *w = &s->pidwarn[i];
        if (w->n == 1 && w->first)
            warn_line(s, w->first);
        else if (w->n > 1 && w->first)
            sym_warnf(s, "%s (and %llu other processes: --verbose lists each)", w->first,
                      (unsigned long long)(w->n - 1));
        free(w->first);
        w->first = NULL;
        w->n = 0;
    }
}

const char *sym_next_warning(sym_session *s)
{
    free(s->lastwarn);
    s->lastwarn = NULL;
    if (s->warnpos == s->nwarn) {
        s->warnpos = s->nwarn = 0;
        return NULL;
    }
    s->lastwarn = s->warnings[s->warnpos++];
    return s->lastwarn;
}

/* ---- processes and mappings ---- */

/* The session's data of process pid (created when create: the model's
 * process too, when it is unknown), or NULL.  It is dropped (proc_free)
 * when the model replaces or forgets the process: until then the last one
 * found answers its pid. */
static sym_proc *get_proc(sym_session *s, int32_t pid, int create)
{
    if (s->last_proc && s->last_proc->pid == pid)
        return s->last_proc;
    procs_proc *mp = create ? procs_proc_make(s->procs, pid) : procs_proc_get(s->procs, pid);
    if (!mp || mp->user || !create)
        return mp ? (s->last_proc = mp->user) : NULL;
    sym_proc *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->pid = pid;
    p->mp = mp;
    p->session = s;
    mp->user = p;
    s->stats.processes++;
    return s->last_proc = p;
}

int sym_map_usable(const procs_map *m)
{
    /* kernel text is kallsyms' to resolve; data is no code */
    return !(m->prot && !(m->prot & PROT_EXEC)) && (m->path[0] != '[' || strncmp(m->path, "[kernel", 7) != 0);
}

procs_map *sym_proc_find_map(sym_proc *p, uint64_t addr)
{
    procs_map *m = p->pid >= 0 ? procs_find_map(p->mp, addr) : NULL;
    return m && sym_map_usable(m) ? m : NULL;
}

sym_symfile *sym_map_symfile(sym_session *s, procs_map *m)
{
    if (!m->user)
        m->user = sym_symfile_get(s, m->path, m->build_id, m->build_id_len);
    return m->user;
}

int sym_path_is_anon(const char *path)
{
    return !path[0] || strcmp(path, "//anon") == 0 || strncmp(path, "[anon", 5) == 0 ||
           strcmp(path, "[heap]") == 0 || strcmp(path, "[stack]") == 0 ||
           strncmp(path, "/memfd:", 7) == 0 || strncmp(path, "/tmp/perf-", 10) == 0;
}

/* After the model took rec: the processes the session keeps data for are
 * those with a map it resolves in, forked ones, and those met in samples. */
int sym_prefetchable_mmap(const tr_record *rec)
{
    const char *path = rec->u.mmap.path;
    size_t plen = rec->u.mmap.path_len;
    return rec->pid >= 0 && rec->u.mmap.len != 0 && rec->u.mmap.start + rec->u.mmap.len >= rec->u.mmap.start &&
           !(plen >= 7 && memcmp(path, "[kernel", 7) == 0) && (!rec->u.mmap.prot || (rec->u.mmap.prot & PROT_EXEC));
}

static int observe_mmap(sym_session *s, const tr_record *rec)
{
    if (!sym_prefetchable_mmap(rec))
        return 0;
    if (!s->sampled) /* the mappings the stream starts with */
        sym_symfile_prefetch(s, rec->u.mmap.path, rec->u.mmap.path_len, rec->u.mmap.build_id,
                             rec->u.mmap.build_id_len);
    return get_proc(s, rec->pid, 1) ? 0 : TR_E_NOMEM;
}

static int observe_fork(sym_session *s, const tr_record *rec)
{
    if (rec->pid < 0 || rec->pid == rec->u.fork.ppid)
        return 0; /* a new thread shares its process's mappings */
    return get_proc(s, rec->pid, 1) ? 0 : TR_E_NOMEM;
}

/* The pid of a JIT map blob ("perf-PID.map" or "perf-map:PID"), or 0. */
static int32_t jit_blob_pid(const char *name, size_t nl)
{
    char num[16];
    const char *p;
    size_t k;
    const size_t pl = sizeof BLOB_PERF_MAP_PREFIX - 1;
    if (nl > pl && memcmp(name, BLOB_PERF_MAP_PREFIX, pl) == 0) {
        p = name + pl;
        k = nl - pl;
    } else if (nl > 9 && memcmp(name, "perf-", 5) == 0 && memcmp(name + nl - 4, ".map", 4) == 0) {
        p = name + 5;
        k = nl - 9;
    } else {
        return 0;
    }
    if (k == 0 || k >= sizeof num)
        return 0;
    memcpy(num, p, k);
    num[k] = '\0';
    char *end;
    long pid = strtol(num, &end, 10);
    if (*end || pid <= 0 || pid > INT32_MAX)
        return 0;
    return (int32_t)pid;
}

static int set_jit(sym_session *s, int32_t pid, const char *data, size_t len)
{
    sym_proc *p = get_proc(s, pid, 1);
    if (!p)
        return TR_E_NOMEM;
    if (p->jit && p->jit->text_len == len && p->jit->crc == tr_crc32c(0, data, len))
        return 0;
    sym_tab *t = sym_tab_perfmap(&s->strings, data, len);
    if (!t)
        return TR_E_NOMEM;
    sym_tab_free(p->jit);
    p->jit = t;
    return 0;
}

static int set_kernel(sym_session *s, const char *data, size_t len)
{
    if (s->kernel && s->kernel->text_len == len && s->kernel->crc == tr_crc32c(0, data, len))
        return 0; /* the same snapshot again (key chunk, prescan) */
    sym_tab *t = sym_tab_kallsyms(&s->strings, data, len);
    if (!t)
        return TR_E_NOMEM;
    sym_tab_free(s->kernel);
    s->kernel = t;
    s->kernel_tried = 1;
    s->kernel_status = t->n ? TR_MOD_RESOLVED : TR_MOD_NO_SYMBOLS;
    s->kernel_detail = t->n ? "kallsyms in the trace" : "the trace's kallsyms has no addresses";
    return 0;
}

static int set_vdso(sym_session *s, const void *data, size_t len)
{
    if (len == 0 || len > (1u << 24))
        return 0;
    void *c = malloc(len);
    if (!c)
        return TR_E_NOMEM;
    memcpy(c, data, len);
    free(s->vdso);
    s->vdso = c;
    s->vdso_len = len;
    return 0;
}

static int observe_blob(sym_session *s, const tr_record *rec)
{
    const char *name = rec->u.blob.name;
    size_t nl = rec->u.blob.name_len;
    const char *data = (const char *)rec->u.blob.data;
    size_t len = rec->u.blob.len;
    if (nl == 8 && memcmp(name, "kallsyms", 8) == 0)
        return set_kernel(s, data, len);
    if (nl == 4 && memcmp(name, "vdso", 4) == 0)
        return s->vdso ? 0 : set_vdso(s, data, len);
    int32_t pid = jit_blob_pid(name, nl);
    return pid ? set_jit(s, pid, data, len) : 0;
}

/* ---- prescan: blobs that recorders write at the end of a stream ---- */

typedef struct pre_blob {
    uint32_t stream;
    int kind; /* 0 kallsyms, 1 vdso, 2 jit, 3 an archived ELF file (any stream's) */
    int32_t pid;
    char *data;
    size_t len;
    char *name; /* kind 3: "HEX", "HEX.debug", or a part of one: "HEX[.debug]:K/N" */
} pre_blob;

static int prescan_reader(sym_session *s, tr_reader *r);

int sym_prescan(sym_session *s, const void *buf, size_t len)
{
    tr_reader *r;
    tr_reader_options ro = { .keep_definitions = 2 }; /* blobs; stack nodes are not looked at */
    if (tr_reader_open_mem(&r, buf, len, &ro) < 0)
        return 0;
    return prescan_reader(s, r);
}

int sym_prescan_fd(sym_session *s, int fd)
{
    tr_reader *r;
    tr_reader_options ro = { .keep_definitions = 2 }; /* blobs; stack nodes are not looked at */
    if (tr_reader_open(&r, fd, &ro) < 0)
        return 0;
    return prescan_reader(s, r);
}

/* Keep blob rec if the session needs it: 0 or TR_E_NOMEM. */
static int prescan_blob(sym_session *s, const tr_record *rec)
{
    const char *name = rec->u.blob.name;
    size_t nl = rec->u.blob.name_len;
    pre_blob b = { rec->stream, -1, 0, NULL, rec->u.blob.len, NULL };
    const size_t bl = sizeof BLOB_BUILD_ID_PREFIX - 1;
    if (nl > bl && memcmp(name, BLOB_BUILD_ID_PREFIX, bl) == 0) {
        if (!(b.name = strndup(name + bl, nl - bl)))
            return TR_E_NOMEM;
        b.kind = 3;
        s->archived_seen = 1;
    } else if (nl == 8 && memcmp(name, "kallsyms", 8) == 0)
        b.kind = 0;
    else if (nl == 4 && memcmp(name, "vdso", 4) == 0)
        b.kind = 1;
    else if ((b.pid = jit_blob_pid(name, nl)) != 0)
        b.kind = 2;
    if (b.kind < 0)
        return 0;
    if (array_reserve(&s->pre, &s->precap, s->npre + 1, sizeof(pre_blob), 16) < 0 ||
        !(b.data = malloc(b.len ? b.len : 1))) {
        free(b.name);
        return TR_E_NOMEM;
    }
    memcpy(b.data, rec->u.blob.data, b.len);
    ((pre_blob *)s->pre)[s->npre++] = b;
    return 0;
}

static int prescan_reader(sym_session *s, tr_reader *r)
{
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            if (tr_error_recoverable(rc))
                continue;
            break;
        }
        if (rec.type == TR_REC_BLOB && prescan_blob(s, &rec) < 0) {
            tr_reader_free(r);
            return TR_E_NOMEM;
        }
    }
    tr_reader_free(r);
    return 0;
}

/* ---- the lazy prescan: each stream's last chunks now, the rest if needed ---- */

#define TAIL_CHUNKS 8
/* The chunks it decompresses are kept for the reader, which then does not
 * decompress them again (tr_reader_adopt_chunk), up to this many bytes:
 * the reader meets them at the end of the trace. */
#define TAIL_KEEP (8u << 20)

struct tail_raw {
    size_t off, len; /* the chunk in the trace */
    void *raw;       /* its content */
};

typedef struct tail_stream {
    size_t ch[TAIL_CHUNKS], chlen[TAIL_CHUNKS]; /* its last chunks (ring) */
    size_t nch;
    size_t first, firstlen; /* its first chunk */
    int readable; /* its start frame is one this library reads */
} tail_stream;

static int get_varint_slow(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 70 && *p < end; shift += 7) {
        uint8_t c = *(*p)++;
        if (shift == 63 && c > 1)
            return -1;
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return 0;
    }
    return -1;
}

/* A varint (the short form inline: a record's type and length, mostly) */
static inline int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    if (*p < end && **p < 0x80) {
        *v = *(*p)++;
        return 0;
    }
    return get_varint_slow(p, end, v);
}

/* Skim one chunk (the chunk frame and its zstd frame, len bytes at c) for
 * its blobs, decoding no other record (stacks are what a reader spends
 * its time on): *stacks = 1 when it holds records with stacks; blobs are
 * kept as the prescan's, for stream index stream.  A chunk that does not
 * decompress, or the rest of one after a malformed record, is passed over
 * as a reader drops it.  Its content is kept for the reader while *kept,
 * the bytes kept so far, stays within TAIL_KEEP. */
static int tail_chunk(sym_session *s, const uint8_t *c, size_t len, uint32_t stream, int *stacks, size_t *kept)
{
    tr_stream_frame f;
    *stacks = 0;
    if (tr_stream_frame_parse(c, len, &f) != 1 || f.kind != TR_SFRAME_CHUNK || f.csize > f.size ||
        f.rsize > (16u << 20))
        return 0;
    uint8_t *raw = malloc(f.rsize ? f.rsize : 1);
    if (!raw)
        return TR_E_NOMEM;
    size_t got = ZSTD_decompress(raw, f.rsize, c + f.size - f.csize, f.csize);
    int rc = 0;
    if (ZSTD_isError(got) || got != f.rsize)
        got = 0;
    for (const uint8_t *p = raw, *end = raw + got; p < end && rc >= 0;) {
        const uint8_t *at = p;
        uint64_t type, blen;
        if (get_varint(&p, end, &type) < 0 || get_varint(&p, end, &blen) < 0 || blen > (size_t)(end - p))
            break;
        p += blen;
        if (type == TR_REC_SAMPLE || type == TR_REC_SYSCALL || type == TR_REC_LIBCALL)
            *stacks = 1;
        s->frames_hint += type == TR_REC_FRAME && s->frames_hint < SYM_FRAMES_HINT_MAX;
        if (type != TR_REC_BLOB)
            continue;
        tr_record rec;
        if (tr_record_skim(at, (size_t)(end - at), &rec) <= 0)
            break;
        rec.stream = stream;
        rc = prescan_blob(s, &rec);
    }
    struct tail_raw *t;
    if (rc >= 0 && got && *kept + got <= TAIL_KEEP &&
        (t = realloc(s->tails, (s->ntails + 1) * sizeof *t))) {
        s->tails = t;
        t[s->ntails++] = (struct tail_raw){ (size_t)(c - s->lazy_buf), len, raw };
        *kept += got;
        return rc;
    }
    free(raw);
    return rc;
}

/* Give the reader the chunks the lazy prescan decompressed. */
static void hand_tails(sym_session *s, tr_reader *r)
{
    for (size_t i = 0; i < s->ntails; i++)
        tr_reader_adopt_chunk(r, s->tails[i].off, s->lazy_buf + s->tails[i].off, s->tails[i].len, s->tails[i].raw);
    free(s->tails); /* the copies are the reader's now */
    s->tails = NULL;
    s->ntails = 0;
}

static void free_tails(sym_session *s)
{
    for (size_t i = 0; i < s->ntails; i++)
        free(s->tails[i].raw);
    free(s->tails);
    s->tails = NULL;
    s->ntails = 0;
}

/* Walk the frames of the trace without decompressing them: -1 when it is
 * not a well-formed sequence of tr streams (then the whole trace is read). */
static int tail_walk(const uint8_t *b, size_t len, tail_stream **out, size_t *nout)
{
    tail_stream *st = NULL;
    size_t n = 0, cap = 0;
    tr_stream_frame f;
    for (size_t off = 0; off < len; off += f.size) {
        if (tr_stream_frame_parse(b + off, len - off, &f) != 1)
            goto bad;
        if (f.kind == TR_SFRAME_START) {
            if (array_reserve(&st, &cap, n + 1, sizeof *st, 4) < 0)
                goto bad;
            st[n++] = (tail_stream){ .readable = f.major == TR_VERSION_MAJOR &&
                !(f.incompat & ~TR_INCOMPAT_KNOWN) };
        } else if (f.kind == TR_SFRAME_CHUNK) {
            if (!n)
                goto bad;
            tail_stream *t = &st[n - 1];
            if (!t->nch) {
                t->first = off;
                t->firstlen = f.size;
            }
            t->ch[t->nch % TAIL_CHUNKS] = off;
            t->chlen[t->nch % TAIL_CHUNKS] = f.size;
            t->nch++;
        }
    }
    *out = st;
    *nout = n;
    return 0;
bad:
    free(st);
    return -1;
}

void *sym_map_input(int fd, size_t read, size_t *len)
{
    struct stat st;
    off_t at = lseek(fd, 0, SEEK_CUR);
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || at < 0 || (size_t)at != read)
        return NULL;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        return NULL;
    *len = (size_t)st.st_size;
    return p;
}

/* The mappings a stream starts with (those before its first record with
 * a stack), found in the first EARLY_BYTES of its first chunk (len bytes
 * at c): their debug files start inflating now (sym_symfile_prefetch),
 * not once the prescan and the reader have come to them (libc's thread
 * started 1-5 ms into a cold run, after the prescan had decompressed the
 * trace's one chunk).  Only a hint: a record cut at EARLY_BYTES, a chunk
 * that does not decompress, end the look; the reader's records are what
 * count. */
#define EARLY_BYTES (64u << 10)
static void prefetch_stream_start(sym_session *s, const uint8_t *c, size_t len)
{
    tr_stream_frame f;
    if (tr_stream_frame_parse(c, len, &f) != 1 || f.kind != TR_SFRAME_CHUNK || f.csize > f.size)
        return;
    size_t cap = f.rsize < EARLY_BYTES ? f.rsize : EARLY_BYTES;
    uint8_t *raw = malloc(cap ? cap : 1);
    ZSTD_DCtx *d = raw ? ZSTD_createDCtx() : NULL;
    ZSTD_inBuffer in = { c + f.size - f.csize, f.csize, 0 };
    ZSTD_outBuffer out = { raw, cap, 0 };
    while (d && out.pos < out.size) { /* until cap bytes, the frame's end or an error */
        size_t r = ZSTD_decompressStream(d, &out, &in);
        if (ZSTD_isError(r) || r == 0 || in.pos == in.size)
            break;
    }
    tr_record rec;
    for (size_t off = 0; off < out.pos;) {
        int n = tr_record_skim(raw + off, out.pos - off, &rec);
        if (n <= 0 || rec.type == TR_REC_SAMPLE || rec.type == TR_REC_SYSCALL || rec.type == TR_REC_LIBCALL)
            break;
        off += (size_t)n;
        if (rec.type == TR_REC_MMAP && sym_prefetchable_mmap(&rec))
            sym_symfile_prefetch(s, rec.u.mmap.path, rec.u.mmap.path_len, rec.u.mmap.build_id,
                                 rec.u.mmap.build_id_len);
    }
    ZSTD_freeDCtx(d);
    free(raw);
}

int sym_prescan_lazy(sym_session *s, const void *buf, size_t len)
{
    const uint8_t *b = buf;
    tail_stream *st;
    size_t n;
    sym_ahead_free(s->ahead); /* it read the trace before */
    s->ahead = NULL;
    s->lazy_buf = b;
    s->lazy_len = len;
    s->lazy_full_done = 0;
    if (tail_walk(b, len, &st, &n) < 0) {
        s->lazy_full_done = 1;
        return sym_prescan(s, buf, len);
    }
    int rc = 0;
    size_t kept = 0;
    free_tails(s);
    for (size_t i = 0; i < n; i++)
        if (st[i].nch && st[i].readable)
            prefetch_stream_start(s, b + st[i].first, st[i].firstlen);
    for (size_t i = 0; i < n && rc >= 0; i++) {
        tail_stream *t = &st[i];
        size_t have = t->nch < TAIL_CHUNKS ? t->nch : TAIL_CHUNKS, stacks = 0;
        if (!have || !t->readable)
            continue;
        /* from the last chunk back to the last one with stacks in it,
         * keeping the blobs of each; then put the chunks' blobs back in
         * the order they were written */
        size_t from[TAIL_CHUNKS + 1], nread = 0, base = s->npre;
        for (size_t j = 0; j < have && !stacks && rc >= 0; j++) {
            size_t k = (t->nch - 1 - j) % TAIL_CHUNKS;
            int has = 0;
            from[nread++] = s->npre;
            rc = tail_chunk(s, b + t->ch[k], t->chlen[k], (uint32_t)i, &has, &kept);
            stacks = (size_t)has;
        }
        from[nread] = s->npre;
        if (rc >= 0 && nread > 1 && s->npre > base) {
            pre_blob *pb = s->pre, *tmp = malloc((s->npre - base) * sizeof *tmp);
            if (!tmp) {
                rc = TR_E_NOMEM;
                break;
            }
            size_t w = 0;
            for (size_t j = nread; j-- > 0;)
                for (size_t x = from[j]; x < from[j + 1]; x++)
                    tmp[w++] = pb[x];
            memcpy(pb + base, tmp, w * sizeof *tmp);
            free(tmp);
        }
    }
    free(st);
    /* an address cache entry per distinct address at most */
    if (rc >= 0)
        rc = hashmap_reserve(&s->cache, s->frames_hint);
    /* a prescan begun midway through the input serves the stream under way too */
    if (rc >= 0 && s->stream_no)
        rc = install_prescan(s, s->cur_stream);
    return rc < 0 ? rc : 0;
}

void sym_need_prescan(sym_session *s)
{
    if (!s->lazy_buf || s->lazy_full_done)
        return;
    s->lazy_full_done = 1;
    free_prescan(s);
    if (sym_prescan(s, s->lazy_buf, s->lazy_len) == 0)
        install_prescan(s, s->cur_stream);
}

static int install_prescan(sym_session *s, uint32_t stream)
{
    pre_blob *pb = s->pre;
    for (size_t i = 0; i < s->npre; i++) {
        if (pb[i].stream != stream || pb[i].kind == 3)
            continue;
        int rc = pb[i].kind == 0 ? set_kernel(s, pb[i].data, pb[i].len)
               : pb[i].kind == 1 ? (s->vdso ? 0 : set_vdso(s, pb[i].data, pb[i].len))
               : set_jit(s, pb[i].pid, pb[i].data, pb[i].len);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static void free_prescan(sym_session *s)
{
    pre_blob *pb = s->pre;
    for (size_t i = 0; i < s->npre; i++) {
        free(pb[i].data);
        free(pb[i].name);
    }
    free(s->pre);
    s->pre = NULL;
    s->npre = s->precap = 0;
}

/* ---- archived ELF files (tr-archive's build-id blobs) ---- */

static const pre_blob *archived_find(sym_session *s, const char *key)
{
    pre_blob *pb = s->pre;
    size_t kl = strlen(key), nparts = 0;
    for (size_t i = 0; i < s->npre; i++)
        if (pb[i].kind == 3 && !strcmp(pb[i].name, key))
            return &pb[i];
    /* in parts: KEY:K/N, K from 0: joined once, kept whole */
    for (size_t i = 0; i < s->npre && !nparts; i++)
        if (pb[i].kind == 3 && !strncmp(pb[i].name, key, kl) && !strncmp(pb[i].name + kl, ":0/", 3))
            nparts = strtoul(pb[i].name + kl + 3, NULL, 10);
    if (!nparts || nparts > 4096)
        return NULL;
    const pre_blob **part = calloc(nparts, sizeof *part);
    size_t len = 0, found = 0;
    for (size_t i = 0; part && i < s->npre; i++) {
        char *end;
        if (pb[i].kind != 3 || strncmp(pb[i].name, key, kl) || pb[i].name[kl] != ':')
            continue;
        size_t k = strtoul(pb[i].name + kl + 1, &end, 10);
        if (*end == '/' && strtoul(end + 1, NULL, 10) == nparts && k < nparts && !part[k]) {
            part[k] = &pb[i];
            len += pb[i].len;
            found++;
        }
    }
    pre_blob whole = { 0, 3, 0, NULL, len, NULL };
    if (found == nparts && array_reserve(&s->pre, &s->precap, s->npre + 1, sizeof(pre_blob), 16) == 0 &&
        (whole.data = malloc(len ? len : 1)) && (whole.name = strdup(key))) {
        pb = s->pre; /* moved */
        for (size_t k = 0, off = 0; k < nparts; off += part[k]->len, k++)
            memcpy(whole.data + off, part[k]->data, part[k]->len);
        free(part);
        pb[s->npre] = whole;
        return &pb[s->npre++];
    }
    free(whole.data);
    free(part);
    return NULL;
}

const void *sym_archived(sym_session *s, const char *key, size_t *len)
{
    const pre_blob *b = archived_find(s, key);
    if (!b && s->archived_seen && !s->lazy_full_done) {
        /* an archive whose blobs the tail of the trace did not all hold */
        sym_need_prescan(s);
        b = archived_find(s, key);
    }
    *len = b ? b->len : 0;
    return b ? b->data : NULL;
}

/* Readers deliver metadata and blobs only with keep_definitions: look
 * them up in the reader's tables as well (cheap when nothing changed). */
static int sync_reader(sym_session *s, tr_reader *r)
{
    s->cur_reader = r; /* only valid during this call: the caller may free it */
    if (!r)
        return 0;
    /* nothing changed since the last time (once per stack: 1.5 % of a warm
     * cc -g run in blob and metadata look-ups) */
    uint64_t gen = tr_reader_defs_gen(r);
    if (r == s->synced && gen == s->synced_gen)
        return 0;
    s->synced = NULL;
    const char *v;
    if (!s->kernel_release[0] && (v = tr_reader_meta(r, META_KERNEL_RELEASE)))
        snprintf(s->kernel_release, sizeof s->kernel_release, "%s", v);
    if (!s->arch[0] && (v = tr_reader_meta(r, META_ARCH))) {
        snprintf(s->arch, sizeof s->arch, "%s", v);
        s->arch_gen++;
    }
    size_t len;
    const uint8_t *b = tr_reader_blob(r, BLOB_KALLSYMS, &len);
    if (b && (b != s->kblob || len != s->kblob_len)) {
        s->kblob = b;
        s->kblob_len = len;
        int rc = set_kernel(s, (const char *)b, len);
        if (rc < 0)
            return rc;
    }
    if (!s->vdso && (b = tr_reader_blob(r, BLOB_VDSO, &len))) {
        int rc = set_vdso(s, b, len);
        if (rc < 0)
            return rc;
    }
    s->synced = r;
    s->synced_gen = gen;
    return 0;
}

int sym_sync(sym_session *s, tr_reader *r)
{
    int rc = sync_reader(s, r);
    s->cur_reader = NULL;
    return rc;
}

/* The JIT map of p from the reader's blobs, when it has one. */
static void sync_jit(sym_session *s, sym_proc *p)
{
    if (!s->cur_reader || !p || p->pid <= 0)
        return;
    if (p->jit_reader == s->cur_reader && p->jit_blob_gen == s->blob_gen)
        return; /* looked for since the last blob */
    p->jit_reader = s->cur_reader;
    p->jit_blob_gen = s->blob_gen;
    char name[48];
    size_t len;
    snprintf(name, sizeof name, BLOB_PERF_MAP_OLD_FMT, (int)p->pid);
    const uint8_t *b = tr_reader_blob(s->cur_reader, name, &len);
    if (!b) {
        snprintf(name, sizeof name, BLOB_PERF_MAP_FMT, (int)p->pid);
        b = tr_reader_blob(s->cur_reader, name, &len);
    }
    if (b && (b != p->jit_blob || len != p->jit_blob_len)) {
        p->jit_blob = b;
        p->jit_blob_len = len;
        set_jit(s, p->pid, (const char *)b, len);
    }
}

static void copy_meta(char *dst, size_t cap, const tr_record *rec)
{
    size_t n = rec->u.meta.value_len < cap - 1 ? rec->u.meta.value_len : cap - 1;
    memcpy(dst, rec->u.meta.value, n);
    dst[n] = '\0';
}

const struct procs *sym_procs(const sym_session *s)
{
    return s->procs;
}

int sym_observe(sym_session *s, tr_reader *r, const tr_record *rec)
{
    s->cur_reader = NULL;
    if (s->ntails && r)
        hand_tails(s, r);
    if (rec->type - TR_REC_STRING <= TR_REC_STACK - TR_REC_STRING) /* STRING, FRAME, STACK: types 1 to 3 */
        return 0; /* definitions (a reader that keeps them delivers them): nothing here, nor for the model */
    int rc = procs_feed(s->procs, rec); /* STREAM_START: forgets the processes */
    if (rc < 0)
        return rc;
    if (rec->type == TR_REC_BLOB || rec->type == TR_REC_STREAM_START)
        s->blob_gen++;
    switch (rec->type) {
    case TR_REC_STREAM_START:
        s->synced = NULL; /* what sync_reader took is dropped below */
        s->stream_no++;
        s->cur_stream = rec->stream;
        s->sampled = 0;
        s->kblob = NULL;
        s->kblob_len = 0;
        sym_tab_free(s->kernel);
        s->kernel = NULL;
        s->kernel_tried = 0;
        s->kernel_used = s->kernel_reported = 0;
        s->kernel_release[0] = s->arch[0] = '\0';
        s->arch_gen++;
        free(s->vdso);
        s->vdso = NULL;
        s->vdso_len = 0;
        return install_prescan(s, rec->stream);
    case TR_REC_META:
        if (rec->u.meta.key_len == strlen(META_KERNEL_RELEASE) &&
            memcmp(rec->u.meta.key, META_KERNEL_RELEASE, rec->u.meta.key_len) == 0)
            copy_meta(s->kernel_release, sizeof s->kernel_release, rec);
        else if (rec->u.meta.key_len == strlen(META_ARCH) && memcmp(rec->u.meta.key, META_ARCH, rec->u.meta.key_len) == 0) {
            copy_meta(s->arch, sizeof s->arch, rec);
            s->arch_gen++;
        }
        return 0;
    case TR_REC_MMAP:
        return observe_mmap(s, rec);
    case TR_REC_FORK:
        return observe_fork(s, rec);
    case TR_REC_COMM:
        if (rec->u.comm.exec) {
            sym_proc *p = get_proc(s, rec->pid, 0);
            if (p)
                sym_unwind_free(p); /* the model dropped its maps */
        }
        return 0;
    case TR_REC_EXIT:
        if (!(rec->u.exit.flags & TR_EXITF_THREAD) && rec->pid == rec->tid) {
            sym_proc *p = get_proc(s, rec->pid, 0);
            if (p)
                sym_unwind_free(p); /* its mappings stay for late samples */
        }
        return 0;
    case TR_REC_BLOB:
        return observe_blob(s, rec);
    case TR_REC_SAMPLE:
        s->sampled = 1;
        return 0;
    default:
        return 0;
    }
}

/* ---- the address cache and resolution of one address ---- */

int sym_push_symbol(sym_session *s, uint64_t owner, const char *module, const char *name,
                    uint64_t start, uint64_t size, uint32_t flags)
{
    if (hashmap_get(&s->symbols_seen, owner, start))
        return 0;
    if (hashmap_put(&s->symbols_seen, owner, start, (void *)1) < 0)
        return TR_E_NOMEM;
    if (array_reserve(&s->syms, &s->symcap, s->nsyms + 1, sizeof *s->syms, 256) < 0)
        return TR_E_NOMEM;
    s->syms[s->nsyms++] = (sym_symbol_info){ module, name, start, size, flags };
    return 0;
}

int sym_symbols_take_new(sym_session *s, sym_symbol_info *sym)
{
    if (s->sympos == s->nsyms) {
        s->sympos = s->nsyms = 0;
        return 0;
    }
    *sym = s->syms[s->sympos++];
    return 1;
}

static int cache_put(sym_session *s, uint64_t owner, uint64_t addr, sym_entry *e)
{
    if (hashmap_put(&s->cache, owner, addr, e) < 0)
        return TR_E_NOMEM;
    s->stats.addr_cache_entries++;
    return 0;
}

/* The entries live in blocks of ARENA_BLOCK bytes (or one of their own when
 * bigger), freed together: a malloc and a free per distinct address were
 * 2 % of a warm cc -g run. */
#define ARENA_BLOCK (64u << 10)
struct sym_arena {
    struct sym_arena *next;
    size_t used, cap;
    _Alignas(8) unsigned char data[];
};

sym_entry *sym_entry_new(sym_session *s, uint32_t n)
{
    size_t size = (sizeof(sym_entry) + n * sizeof(sym_frame) + 7) & ~(size_t)7;
    struct sym_arena *a = s->arena;
    if (!a || a->cap - a->used < size) {
        size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
        if (!(a = malloc(sizeof *a + cap)))
            return NULL;
        a->used = 0;
        a->cap = cap;
        a->next = s->arena;
        s->arena = a;
    }
    sym_entry *e = (sym_entry *)(a->data + a->used);
    a->used += size;
    e->n = n;
    return e;
}

static void arena_free(sym_session *s)
{
    for (struct sym_arena *a = s->arena, *next; a; a = next) {
        next = a->next;
        free(a);
    }
    s->arena = NULL;
}

static sym_entry *single(sym_session *s, const char *func, const char *module, uint64_t offset,
                         uint32_t flags)
{
    sym_entry *e = sym_entry_new(s, 1);
    if (!e)
        return NULL;
    e->n = 1;
    e->f[0] = (sym_frame){ 0, flags | TR_FRAME_SYMBOLIZED, func, module, offset, NULL, 0 };
    if (!func) {
        e->f[0].func = s->s_unknown;
        e->f[0].flags |= SYM_UNKNOWN;
        e->f[0].offset = 0;
    }
    return e;
}

static int same_kernel(const sym_session *s)
{
    struct utsname u;
    return s->kernel_release[0] && uname(&u) == 0 && strcmp(u.release, s->kernel_release) == 0;
}

static void load_running_kernel(sym_session *s)
{
    s->kernel_tried = 1;
    s->kernel_status = TR_MOD_NOT_FOUND;
    s->kernel_detail = "no kallsyms in the trace";
    if (!s->opt.running_kernel)
        return;
    if (!same_kernel(s)) {
        s->kernel_detail = "no kallsyms in the trace, and this is not the recording's kernel";
        return;
    }
    int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (array_reserve(&buf, &cap, len + 65536, 1, 4 << 20) < 0) {
            free(buf);
            buf = NULL;
            break;
        }
        ssize_t got = read(fd, buf + len, cap - len - 1);
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    s->kernel = buf ? sym_tab_kallsyms_take(&s->strings, buf, len) : NULL;
    if (s->kernel && s->kernel->n) {
        s->kernel_status = TR_MOD_RESOLVED;
        s->kernel_detail = "/proc/kallsyms of the running kernel";
    } else {
        s->kernel_status = TR_MOD_NO_SYMBOLS;
        s->kernel_detail = "/proc/kallsyms shows no addresses (kptr_restrict?)";
    }
}

int sym_kernel_known(sym_session *s)
{
    if (!s->kernel_tried)
        sym_need_prescan(s); /* may find the trace's kallsyms */
    return s->kernel_tried;
}

static const sym_entry *resolve_kernel(sym_session *s, uint64_t addr)
{
    if (!s->kernel_tried)
        sym_need_prescan(s); /* may find the trace's kallsyms */
    if (!s->kernel_tried)
        load_running_kernel(s);
    if (!s->kernel_used) {
        s->kernel_used = 1;
        if (s->kernel_status != TR_MOD_RESOLVED)
            sym_warnf(s, "[kernel.kallsyms]: %s", s->kernel_detail);
    }
    uint64_t owner = s->kernel ? s->kernel->id : 0;
    sym_entry *e = hashmap_get(&s->cache, owner, addr);
    if (e) {
        s->stats.cache_hits++;
        return e;
    }
    const sym_tab_entry *t = sym_tab_find(s->kernel, addr);
    if (t) {
        const char *name = strpool_intern(&s->strings, t->name, strlen(t->name));
        if (!name)
            return NULL;
        e = single(s, name, t->module, addr - t->start, TR_FRAME_KERNEL);
        sym_push_symbol(s, owner, t->module, name, t->start, t->size, TR_FRAME_KERNEL);
    } else {
        e = single(s, NULL, s->s_kernel, 0, TR_FRAME_KERNEL);
    }
    if (!e || cache_put(s, owner, addr, e) < 0)
        return NULL;
    return e;
}

static const sym_entry *resolve_jit(sym_session *s, sym_proc *p, uint64_t addr, const char *module)
{
    sync_jit(s, p);
    if (p && !p->jit && module) { /* in an anonymous mapping: JIT code? */
        sym_need_prescan(s);
        sync_jit(s, p);
    }
    if (!p || !p->jit)
        return NULL;
    uint64_t owner = p->jit->id;
    sym_entry *e = hashmap_get(&s->cache, owner, addr);
    if (e) {
        s->stats.cache_hits++;
        return e;
    }
    const sym_tab_entry *t = sym_tab_find(p->jit, addr);
    if (!t)
        return NULL;
    e = single(s, t->name, s->s_jit, addr - t->start, TR_FRAME_JIT);
    sym_push_symbol(s, owner, s->s_jit, t->name, t->start, t->size, TR_FRAME_JIT);
    if (!e || cache_put(s, owner, addr, e) < 0)
        return NULL;
    return e;
}

/* Per process, the entries of the file-backed addresses met last: one
 * probe instead of a mapping search and a hash look-up (valid while the
 * process's mappings stay as they were). */
#define ADDR_SLOTS 1024
struct sym_addr_slot {
    uint64_t addr, gen; /* gen: maps_gen + 1 when filled */
    const sym_entry *e;
    sym_symfile *f;
};

static const sym_entry *resolve_user_slow(sym_session *s, sym_proc *p, uint64_t addr,
                                          sym_symfile **file);

static const sym_entry *resolve_user(sym_session *s, sym_proc *p, uint64_t addr)
{
    size_t h = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 54); /* 10 bits: ADDR_SLOTS */
    struct sym_addr_slot *slot = p && p->addrs ? &p->addrs[h] : NULL;
    if (slot && slot->gen == p->mp->maps_gen + 1 && slot->addr == addr) {
        slot->f->used_stream = s->stream_no;
        s->stats.cache_hits++;
        return slot->e;
    }
    sym_symfile *f = NULL;
    const sym_entry *e = resolve_user_slow(s, p, addr, &f);
    if (e && f && p && !p->addrs)
        p->addrs = calloc(ADDR_SLOTS, sizeof *p->addrs);
    if (e && f && p && p->addrs)
        p->addrs[h] = (struct sym_addr_slot){ addr, p->mp->maps_gen + 1, e, f };
    return e;
}

/* *file: the module it resolved in, when it is a file's. */
static const sym_entry *resolve_user_slow(sym_session *s, sym_proc *p, uint64_t addr,
                                          sym_symfile **file)
{
    procs_map *m = p ? sym_proc_find_map(p, addr) : NULL;
    if (!m && p && !p->warned_nomap && !(p->jit && sym_tab_find(p->jit, addr))) {
        p->warned_nomap = 1;
        sym_warn_pid(s, SYM_PW_NOMAP, "pid %d: address 0x%llx is in no recorded mapping%s", (int)p->pid,
                  (unsigned long long)addr, p->mp->nmaps ? "" : " (the trace has no mappings for it)");
    }
    if (!m || (!m->user && sym_path_is_anon(m->path))) { /* user: its file, once found */
        const sym_entry *j = resolve_jit(s, p, addr, m ? m->path : NULL);
        if (j)
            return j;
        /* the model's paths are its own: the session's copy is the module */
        const char *mod = m && m->path[0] ? strpool_intern(&s->strings, m->path, strlen(m->path))
                                          : s->s_unknown_mod;
        if (!mod)
            return NULL;
        uint64_t owner = (uintptr_t)mod; /* interned: unique */
        sym_entry *e = hashmap_get(&s->cache, owner, 0);
        if (!e) {
            e = single(s, NULL, mod, 0, 0);
            if (!e || cache_put(s, owner, 0, e) < 0)
                return NULL;
        }
        return e;
    }
    sym_symfile *f = sym_map_symfile(s, m);
    if (!f)
        return NULL;
    f->used_stream = s->stream_no;
    *file = f;
    uint64_t vaddr = sym_symfile_vaddr(f, addr - m->start + m->pgoff);
    sym_entry *e = hashmap_get(&s->cache, f->id, vaddr);
    if (e) {
        s->stats.cache_hits++;
        return e;
    }
    if (!sym_addrcache_get(s, f, vaddr, &e)) { /* resolved in an earlier run, ahead, or now */
        sym_symbol_info sym;
        if (sym_ahead_take(s, f, vaddr, &e, &sym)) /* its SYMBOL pushed now, in the run's order */
            s->stats.resolved_ahead++;
        else
            e = sym_symfile_lookup(s, f, vaddr, &sym);
        if (e && sym.name)
            sym_push_symbol(s, f->id, f->path, sym.name, sym.start, sym.size, 0);
        if (e)
            sym_addrcache_add(s, f, vaddr, e->f, e->n, &sym);
    }
    if (!e || cache_put(s, f->id, vaddr, e) < 0)
        return NULL;
    return e;
}

static int addr_is_kernel(const sym_session *s, uint64_t addr, uint32_t flags)
{
    if (flags & TR_FRAME_KERNEL)
        return 1;
    /* 64-bit kernels live in the upper half on x86_64 and aarch64 */
    return (addr >> 63) && (!s->arch[0] || strcmp(s->arch, "x86_64") == 0 ||
                            strcmp(s->arch, "aarch64") == 0 || strcmp(s->arch, "arm64") == 0);
}

static int out_reserve(sym_session *s, size_t n)
{
    return array_reserve(&s->out, &s->outcap, n, sizeof *s->out, 256);
}

/* Append the frames of addr (adjust: it is a return address). */
static int emit_addr(sym_session *s, sym_proc *p, size_t *n, uint64_t addr, uint32_t flags,
                     int adjust)
{
    int kernel = addr_is_kernel(s, addr, flags);
    uint64_t look = adjust && addr ? addr - 1 : addr;
    const sym_entry *e = kernel ? resolve_kernel(s, look) : resolve_user(s, p, look);
    if (!e)
        return TR_E_NOMEM;
    if (out_reserve(s, *n + e->n) < 0)
        return TR_E_NOMEM;
    for (uint32_t i = 0; i < e->n; i++) {
        sym_frame *f = &s->out[(*n)++];
        *f = e->f[i];
        f->addr = addr;
        if (kernel)
            f->flags |= TR_FRAME_KERNEL;
        if (look != addr && !(f->flags & SYM_UNKNOWN))
            f->offset += addr - look; /* the offset of the address as recorded */
    }
    s->stats.frames++;
    return 0;
}

int sym_resolve_addr(sym_session *s, int32_t pid, uint64_t addr, uint32_t flags, sym_frame *out,
                     size_t max)
{
    size_t n = 0;
    s->cur_reader = NULL;
    int rc = emit_addr(s, get_proc(s, pid, 0), &n, addr, flags, 0);
    if (rc < 0)
        return rc;
    if (n > max)
        n = max;
    memcpy(out, s->out, n * sizeof *out);
    return (int)n;
}

/* A frame the trace already has symbolized: pass it through. */
static int emit_symbolized(sym_session *s, tr_reader *r, size_t *n, const tr_frame *fr)
{
    size_t len;
    const char *func = fr->func ? tr_reader_string(r, fr->func, &len) : NULL;
    const char *fn = func ? strpool_intern(&s->strings, func, len) : s->s_unknown;
    const char *mod = fr->module ? tr_reader_string(r, fr->module, &len) : NULL;
    const char *mn = mod ? strpool_intern(&s->strings, mod, len) : s->s_unknown_mod;
    const char *file = fr->file ? tr_reader_string(r, fr->file, &len) : NULL;
    const char *fl = file ? strpool_intern(&s->strings, file, len) : NULL;
    if (!fn || !mn || (file && !fl) || out_reserve(s, *n + 1) < 0)
        return TR_E_NOMEM;
    uint32_t flags = fr->flags | TR_FRAME_SYMBOLIZED;
    if (fn == s->s_unknown)
        flags |= SYM_UNKNOWN;
    s->out[(*n)++] = (sym_frame){ fr->addr, flags, fn, mn, fr->offset, fl, fr->line };
    return 0;
}

static int is_context_marker(uint64_t addr)
{
    return addr >= (uint64_t)-4095; /* PERF_CONTEXT_* */
}

int sym_stack_begin(sym_session *s, tr_reader *r, int32_t pid)
{
    int rc = sync_reader(s, r);
    if (rc < 0)
        return rc;
    return (s->cur_proc = get_proc(s, pid, 1)) ? 0 : TR_E_NOMEM;
}

sym_frame_state sym_frame_seen(const sym_session *s, tr_reader *r, uint32_t frame)
{
    const tr_frame *f = tr_reader_frame(r, frame);
    if (!f || (f->flags & TR_FRAME_SYMBOLIZED) || is_context_marker(f->addr) || !f->addr)
        return 0;
    return addr_is_kernel(s, f->addr, f->flags) ? SYM_SEEN_KERNEL : SYM_SEEN_USER;
}

int sym_resolve_frame(sym_session *s, tr_reader *r, uint32_t frame, int ret, const sym_frame **out, size_t *nout)
{
    const tr_frame *f = tr_reader_frame(r, frame);
    size_t n = 0;
    int rc = 0;
    if (!f) { /* defined in a lost chunk */
        if (out_reserve(s, 1) < 0)
            return TR_E_NOMEM;
        s->out[n++] = (sym_frame){ 0, TR_FRAME_SYMBOLIZED | SYM_UNKNOWN, s->s_unknown, s->s_unknown_mod, 0, NULL, 0 };
    } else if (f->flags & TR_FRAME_SYMBOLIZED) {
        rc = emit_symbolized(s, r, &n, f);
    } else if (!is_context_marker(f->addr) && f->addr) {
        rc = emit_addr(s, s->cur_proc, &n, f->addr, f->flags & ~TR_FRAME_KERNEL, ret);
    }
    *out = s->out;
    *nout = n;
    return rc;
}

int sym_resolve_stack(sym_session *s, tr_reader *r, const tr_record *rec, const sym_frame **out,
                      size_t *nout)
{
    uint32_t stack;
    switch (rec->type) {
    case TR_REC_SAMPLE: stack = rec->u.sample.stack; break;
    case TR_REC_SYSCALL: stack = rec->u.syscall.stack; break;
    case TR_REC_LIBCALL: stack = rec->u.libcall.stack; break;
    default: stack = 0; break;
    }
    *out = s->out;
    *nout = 0;
    int rc = sync_reader(s, r);
    if (rc < 0)
        return rc;
    const uint32_t *ids = NULL;
    int depth = 0;
    if (stack && r) {
        depth = tr_reader_stack(r, stack, &ids);
        if (depth < 0)
            depth = 0; /* unresolved: treated as no recorded stack */
    }
    sym_proc *p = get_proc(s, rec->pid, 1);
    if (!p)
        return TR_E_NOMEM;
    size_t nuser_rec = 0, nunw = 0, nsymbolized = 0;
    for (int i = 0; i < depth; i++) {
        const tr_frame *f = tr_reader_frame(r, ids[i]);
        if (f && (f->flags & TR_FRAME_SYMBOLIZED))
            nsymbolized++;
        else if (f && !is_context_marker(f->addr) && f->addr && !addr_is_kernel(s, f->addr, f->flags))
            nuser_rec++;
    }
    /* a stack symbolized before (tr-symbolize --keep-stack-copy) is not unwound again */
    if (rec->type == TR_REC_SAMPLE && s->opt.unwind && rec->u.sample.nregs &&
        rec->u.sample.stack_copy_len && nsymbolized == 0) {
        nunw = sym_unwind(s, p, rec);
        s->stats.unwound_samples++;
        if (nunw == 0)
            s->stats.unwind_failures++;
    }
    int use_unwound = nunw > 0 && nunw >= nuser_rec;
    size_t n = 0;
    int kfirst = 1, ufirst = 1;
    for (int i = 0; i < depth; i++) {
        const tr_frame *f = tr_reader_frame(r, ids[i]);
        if (!f) { /* defined in a lost chunk */
            if (out_reserve(s, n + 1) < 0)
                return TR_E_NOMEM;
            s->out[n++] = (sym_frame){ 0, TR_FRAME_SYMBOLIZED | SYM_UNKNOWN, s->s_unknown,
                                       s->s_unknown_mod, 0, NULL, 0 };
            continue;
        }
        if (f->flags & TR_FRAME_SYMBOLIZED) {
            if ((rc = emit_symbolized(s, r, &n, f)) < 0)
                return rc;
            continue;
        }
        if (is_context_marker(f->addr) || f->addr == 0)
            continue; /* markers, and the zeros that end broken fp chains */
        int kernel = addr_is_kernel(s, f->addr, f->flags);
        if (!kernel && use_unwound)
            continue;
        int adjust = kernel ? !kfirst : !ufirst;
        if (kernel)
            kfirst = 0;
        else
            ufirst = 0;
        if ((rc = emit_addr(s, p, &n, f->addr, f->flags & ~TR_FRAME_KERNEL, adjust)) < 0)
            return rc;
    }
    if (use_unwound)
        for (size_t i = 0; i < nunw; i++)
            if ((rc = emit_addr(s, p, &n, s->addrs[i], 0, s->adjust[i])) < 0)
                return rc;
    *out = s->out;
    *nout = n;
    return (int)n;
}

/* ---- module status ---- */

int sym_modules_take_new(sym_session *s, sym_module_info *info)
{
    for (size_t i = 0; i < s->nfiles; i++) {
        sym_symfile *f = s->filelist[i];
        if (f->used_stream != s->stream_no || f->reported == s->stream_no)
            continue;
        f->reported = s->stream_no;
        *info = (sym_module_info){ f->path, f->status, f->build_id, f->build_id_len,
                                   f->detail ? f->detail : "" };
        return 1;
    }
    if (s->kernel_used && !s->kernel_reported) {
        s->kernel_reported = 1;
        *info = (sym_module_info){ s->s_kernel, s->kernel_status, NULL, 0, s->kernel_detail };
        return 1;
    }
    return 0;
}

void sym_get_stats(const sym_session *s, sym_stats *st)
{
    *st = s->stats;
    st->unwound_fast = s->fast_unwinds;
    for (size_t i = 0; i < s->nfiles; i++) {
        st->symbol_searches += s->filelist[i]->symtab_lookups;
        st->unit_indexes += s->filelist[i]->unit_walks;
    }
}
