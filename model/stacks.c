/* stacks.c - a sample's frames and the folding rules (stacks.h), after
 * stackcollapse-perf.pl: each rule below reproduces what its Perl does. */
#include "stacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
/* Perl's \s (ASCII) */
static inline int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* ---- frames -------------------------------------------------------- */

int stacks_kind(uint32_t flags)
{
    if (flags & TR_FRAME_INLINE)
        return STACKS_INLINE;
    if (flags & TR_FRAME_KERNEL)
        return STACKS_KERNEL;
    if (flags & TR_FRAME_JIT)
        return STACKS_JIT;
    return STACKS_USER;
}

static uint32_t stack_of(const tr_record *rec)
{
    switch (rec->type) {
    case TR_REC_SAMPLE: return rec->u.sample.stack;
    case TR_REC_SYSCALL: return rec->u.syscall.stack;
    case TR_REC_LIBCALL: return rec->u.libcall.stack;
    }
    return 0;
}

int stacks_frames_read(stacks_frames *fs, tr_reader *r, const tr_record *rec,
                       stacks_module_fn *module_of, void *ctx)
{
    fs->n = 0;
    uint32_t stack = stack_of(rec);
    if (!stack)
        return 0;
    const uint32_t *ids;
    int n = tr_reader_stack(r, stack, &ids);
    if (n < 0) {
        fs->lost++;
        return 0;
    }
    if (array_reserve(&fs->v, &fs->cap, (size_t)n, sizeof *fs->v, 64) < 0)
        return TR_E_NOMEM;
    /* locals, each field written once: this runs for every frame of every sample */
    stacks_frame *v = fs->v;
    size_t k = 0;
    uint64_t lost = 0;
    for (int i = 0; i < n; i++) {
        const tr_frame *tf = tr_reader_frame(r, ids[i]);
        if (!tf) {
            lost++;
            continue;
        }
        stacks_frame *f = &v[k++];
        uint32_t flags = tf->flags;
        f->addr = tf->addr;
        f->line = tf->line;
        f->offset = tf->offset;
        f->flags = flags;
        f->kind = stacks_kind(flags);
        if (flags & TR_FRAME_SYMBOLIZED) {
            const char *s = tr_reader_string(r, tf->func, NULL);
            const char *m = tr_reader_string(r, tf->module, NULL);
            f->func = s ? s : "[unknown]";
            f->module = m ? m : "[unknown]";
            f->file = tf->file ? tr_reader_string(r, tf->file, NULL) : NULL;
        } else {
            const char *m = flags & TR_FRAME_KERNEL ? "[kernel.kallsyms]"
                            : module_of             ? module_of(ctx, rec->pid, f->addr)
                                                    : NULL;
            f->func = "[unknown]";
            f->module = m ? m : "[unknown]";
            f->file = NULL;
        }
    }
    fs->n = k;
    fs->lost += lost;
    return (int)k;
}

void stacks_frames_free(stacks_frames *fs)
{
    free(fs->v);
    memset(fs, 0, sizeof *fs);
}

/* ---- growing text -------------------------------------------------- */

/* Room for n more bytes and a NUL.  Inlined: the folding of a frame puts
 * a few pieces each time, and a call for each costs more than the copy. */
static inline __attribute__((always_inline)) int buf_reserve(stacks_buf *b, size_t n)
{
    if (b->cap - b->n >= n + 1)
        return 0;
    return array_reserve(&b->p, &b->cap, b->n + n + 1, 1, 4096);
}

static inline __attribute__((always_inline)) int buf_put(stacks_buf *b, const char *s, size_t n)
{
    if (buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    return 0;
}

/* ---- the folder ---------------------------------------------------- */

void stacks_folder_init(stacks_folder *f, const stacks_fold_opts *o, struct smap *map)
{
    memset(f, 0, sizeof *f);
    f->o = o;
    f->map = map;
    smap_init(&f->names);
}

void stacks_folder_free(stacks_folder *f)
{
    smap_free(&f->names);
    free(f->elems.v);
    free(f->groups);
    free(f->root.p);
    free(f->line.p);
    free(f->tmp.p);
    free(f->cached);
    free(f->cached_ids.v);
    free(f->last_root.p);
    hashmap_free(&f->by_ids);
    free(f->seqs);
    free(f->seq_ids.v);
    free(f->seq_groups.v);
    memset(f, 0, sizeof *f);
}

/* The id of a name (interned on first sight), or -1 when out of memory. */
static inline int64_t name_id(stacks_folder *f, const char *s, size_t n)
{
    struct smap_entry *e = smap_get(&f->names, s, n);
    return e ? e - f->names.e : -1;
}

static inline __attribute__((always_inline)) void push_elem(stacks_folder *f, const char *s, size_t n)
{
    int64_t id = name_id(f, s, n);
    if (id < 0 || (f->elems.n == f->elems.cap &&
                   array_reserve(&f->elems.v, &f->elems.cap, f->elems.n + 1, sizeof *f->elems.v, 256) < 0))
        f->oom = 1;
    else
        f->elems.v[f->elems.n++] = (uint32_t)id;
}

static inline __attribute__((always_inline)) void start_group(stacks_folder *f)
{
    if (f->ngroups == f->capgroups &&
        array_reserve(&f->groups, &f->capgroups, f->ngroups + 1, sizeof *f->groups, 256) < 0) {
        f->oom = 1;
        return;
    }
    f->groups[f->ngroups++] = f->elems.n;
}

/* The root name, built in f->root: spaces to '_', interned. */
static void set_root(stacks_folder *f)
{
    stacks_buf *p = &f->root;
    for (size_t i = 0; i < p->n; i++)
        if (p->p[i] == ' ')
            p->p[i] = '_';
    int64_t id = name_id(f, p->p ? p->p : "", p->n);
    if (id < 0)
        f->oom = 1;
    f->root_id = id < 0 ? 0 : (uint32_t)id;
    f->java = p->n >= 4 && !memcmp(p->p, "java", 4);
    f->have_root = 1;
}

void stacks_folder_begin_text(stacks_folder *f, stacks_text comm, stacks_text pid, stacks_text tid,
                              uint64_t w)
{
    f->elems.n = f->ngroups = 0;
    f->weight = w;
    stacks_buf *p = &f->root;
    p->n = 0;
    buf_put(p, comm.p, comm.n);
    if (f->o->tid || f->o->pid) {
        buf_put(p, "-", 1);
        buf_put(p, pid.p, pid.n);
        if (f->o->tid) {
            buf_put(p, "/", 1);
            buf_put(p, tid.p, tid.n);
        }
    }
    stacks_buf *l = &f->last_root;
    if (f->have_last_root && l->n == p->n && (!p->n || !memcmp(l->p, p->p, p->n))) {
        f->root_id = f->last_root_id;
        f->java = p->n >= 4 && !memcmp(p->p, "java", 4);
        f->have_root = 1;
        return;
    }
    l->n = 0;
    f->have_last_root = buf_put(l, p->p ? p->p : "", p->n) == 0;
    set_root(f);
    f->last_root_id = f->root_id;
    f->have_last_root &= !f->oom;
}

void stacks_folder_begin(stacks_folder *f, const char *comm, int32_t pid, int32_t tid, uint64_t w)
{
    char ps[16], ts[16];
    int pn = 0, tn = 0;
    if (f->o->tid || f->o->pid) {
        pn = snprintf(ps, sizeof ps, "%d", (int)pid);
        tn = snprintf(ts, sizeof ts, "%d", (int)tid);
    }
    stacks_folder_begin_text(f, (stacks_text){comm, strlen(comm)}, (stacks_text){ps, (size_t)pn},
                             (stacks_text){ts, (size_t)tn}, w);
}

/* Perl: s/;/:/g; cut at the first "(" not starting "(anonymous namespace)"
 * unless the name looks like a Go method (".(" ... ")."); drop quotes. */
static inline __attribute__((always_inline)) size_t tidy(char *p, size_t n)
{
    /* one pass: ';' -> ':', find the first '(' and any quote */
    size_t first_paren = SIZE_MAX;
    int quotes = 0;
    p[n] = 0;
    size_t start = strcspn(p, ";(\"'"); /* most names have none of these */
    if (start >= n)
        return n;
    for (size_t i = start; i < n; i++) {
        char c = p[i];
        if (c == ';')
            p[i] = ':';
        else if (c == '(' && first_paren == SIZE_MAX)
            first_paren = i;
        else if (c == '"' || c == '\'')
            quotes = 1;
    }
    p[n] = 0;
    if (first_paren != SIZE_MAX) {
        /* a Go method name ".(" ... ")." keeps its parentheses */
        const char *go = first_paren > 0 ? strstr(p + first_paren - 1, ".(") : NULL;
        int is_go = 0;
        if (go) {
            for (const char *q = p + n - 2; q >= go + 2; q--)
                if (q[0] == ')' && q[1] == '.') {
                    is_go = 1;
                    break;
                }
        }
        if (!is_go) {
            static const char anon[] = "anonymous namespace)";
            for (size_t i = first_paren; i < n; i++) {
                if (p[i] != '(')
                    continue;
                if (n - i - 1 >= sizeof anon - 1 && !memcmp(p + i + 1, anon, sizeof anon - 1))
                    continue;
                n = i;
                break;
            }
        }
    }
    if (!quotes)
        return n;
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] != '"' && p[i] != '\'')
            p[j++] = p[i];
    return j;
}

size_t stacks_tidy(char *name, size_t len)
{
    return tidy(name, len);
}

static int contains(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (!memcmp(s + i, needle, m))
            return 1;
    return 0;
}

/* $mod =~ m:/tmp/perf-\d+\.map: */
static int is_perf_map(stacks_text mod)
{
    for (size_t i = 0; i + 14 <= mod.n; i++) {
        if (memcmp(mod.p + i, "/tmp/perf-", 10))
            continue;
        size_t j = i + 10, d = j;
        while (j < mod.n && is_digit((unsigned char)mod.p[j]))
            j++;
        if (j > d && j + 4 <= mod.n && !memcmp(mod.p + j, ".map", 4))
            return 1;
    }
    return 0;
}

static int is_kernel_mod(stacks_text mod)
{
    int k = (mod.n > 0 && mod.p[0] == '[') || (mod.n >= 7 && !memcmp(mod.p + mod.n - 7, "vmlinux", 7));
    return k && !contains(mod.p, mod.n, "unknown");
}

/* ":file:line" of a srcline line: s/\[.*?\]//g, trimmed; appended to t. */
static void put_srcline(stacks_buf *t, char *sl, size_t sn)
{
    size_t j = 0;
    for (size_t i = 0; i < sn; i++) {
        if (sl[i] == '[') {
            char *c = memchr(sl + i + 1, ']', sn - i - 1);
            if (c) {
                i = (size_t)(c - sl);
                continue;
            }
        }
        sl[j++] = sl[i];
    }
    size_t a = 0;
    while (a < j && is_ws((unsigned char)sl[a]))
        a++;
    while (j > a && is_ws((unsigned char)sl[j - 1]))
        j--;
    if (j > a) {
        buf_put(t, ":", 1);
        buf_put(t, sl + a, j - a);
    }
}

int stacks_folder_frame_text(stacks_folder *f, stacks_text pc, stacks_text raw, stacks_text mod,
                             int kind, stacks_srcline_fn *srcline, void *ctx)
{
    const stacks_fold_opts *o = f->o;
    /* s/\+0x[\da-f]+$// */
    for (size_t i = raw.n; i-- > 0;) {
        unsigned char c = (unsigned char)raw.p[i];
        if (is_digit(c) || (c >= 'a' && c <= 'f'))
            continue;
        if (c == 'x' && i + 1 < raw.n && i >= 2 && raw.p[i - 1] == '0' && raw.p[i - 2] == '+')
            raw.n = i - 2;
        break;
    }
    if (raw.n > 0 && raw.p[0] == '(')
        return 0;
    /* split /->/, dropping trailing empty fields */
    size_t parts[512][2], np = 0;
    size_t st = 0;
    for (const char *a = memmem(raw.p, raw.n, "->", 2); a && np < 511;
         a = memmem(raw.p + st, raw.n - st, "->", 2)) {
        size_t i = (size_t)(a - raw.p);
        parts[np][0] = st;
        parts[np][1] = i - st;
        np++;
        st = i + 2;
    }
    parts[np][0] = st;
    parts[np][1] = raw.n - st;
    np++;
    while (np > 0 && parts[np - 1][1] == 0)
        np--;
    int is_unknown = 0;
    int java = f->java;
    start_group(f);
    size_t first = f->elems.n;
    for (size_t k = 0; k < np; k++) {
        stacks_buf *t = &f->tmp;
        t->n = 0;
        const char *fp = raw.p + parts[k][0];
        size_t fn = parts[k][1];
        if (fn == 9 && !memcmp(fp, "[unknown]", 9)) {
            const char *name = "unknown";
            size_t nn = 7;
            if (!(mod.n == 9 && !memcmp(mod.p, "[unknown]", 9))) {
                const char *sl = memrchr(mod.p, '/', mod.n);
                name = sl ? sl + 1 : mod.p;
                nn = mod.n - (size_t)(name - mod.p);
            } else {
                is_unknown = 1;
            }
            buf_put(t, "[", 1);
            buf_put(t, name, nn);
            if (o->addrs) {
                buf_put(t, " <", 2);
                buf_put(t, pc.p, pc.n);
                buf_put(t, ">", 1);
            }
            buf_put(t, "]", 1);
        } else {
            buf_put(t, fp, fn);
        }
        if (!t->p && buf_put(t, "", 0) < 0)
            return TR_E_NOMEM;
        t->n = tidy(t->p, t->n);
        if (java && memchr(t->p, '/', t->n) && t->n > 0 && t->p[0] == 'L') {
            memmove(t->p, t->p + 1, t->n - 1);
            t->n--;
        }
        int skip = 0;
        if (f->elems.n > first || (k > 0 && o->no_inline) || kind == STACKS_INLINE) {
            skip = o->no_inline;
            if ((kind != STACKS_INLINE || o->mark_inline) && !contains(t->p, t->n, "_[i]"))
                buf_put(t, "_[i]", 4);
        } else if (o->kernel && (kind == STACKS_FROM_MODULE ? is_kernel_mod(mod) : kind == STACKS_KERNEL)) {
            buf_put(t, "_[k]", 4);
        } else if (o->jit && (kind == STACKS_FROM_MODULE ? is_perf_map(mod) : kind == STACKS_JIT)) {
            if (!contains(t->p, t->n, "_[j]"))
                buf_put(t, "_[j]", 4);
        }
        if (srcline && !is_unknown) {
            char *sl;
            size_t sn;
            int rc = srcline(ctx, &sl, &sn);
            if (rc < 0)
                return rc;
            if (rc > 0)
                put_srcline(t, sl, sn);
        }
        if (!skip)
            push_elem(f, t->p, t->n);
    }
    return f->oom ? TR_E_NOMEM : 0;
}

/* The srcline of a frame as perf script -F+srcline prints it: "file.c:42",
 * else its module's name (put_srcline drops a "[...]" one). */
struct frame_srcline {
    char buf[1024];
    size_t n;
};

static int frame_srcline(void *ctx, char **line, size_t *len)
{
    struct frame_srcline *s = ctx;
    *line = s->buf;
    *len = s->n;
    return 1;
}

int stacks_folder_frame(stacks_folder *f, const stacks_frame *fr)
{
    char pc[17];
    size_t pn = 0;
    if (f->o->addrs) { /* the address is only shown with addrs: "%llx" by hand */
        char tmp[16];
        uint64_t addr = fr->addr;
        do {
            tmp[pn++] = "0123456789abcdef"[addr & 15];
            addr >>= 4;
        } while (addr);
        for (size_t i = 0; i < pn; i++)
            pc[i] = tmp[pn - 1 - i];
    }
    stacks_text a = {pc, pn}, b = {fr->func, strlen(fr->func)}, c = {fr->module, strlen(fr->module)};
    struct frame_srcline sl;
    if (f->o->srcline) {
        const char *p = fr->file ? fr->file : fr->module, *base = strrchr(p, '/');
        int n = fr->file ? snprintf(sl.buf, sizeof sl.buf, "%s:%u", base ? base + 1 : p, fr->line)
                         : snprintf(sl.buf, sizeof sl.buf, "%s", base ? base + 1 : p);
        sl.n = n < 0 ? 0 : (size_t)n < sizeof sl.buf ? (size_t)n : sizeof sl.buf - 1;
    }
    int rc = stacks_folder_frame_text(f, a, b, c, fr->kind, f->o->srcline ? frame_srcline : NULL, &sl);
    return f->oom ? TR_E_NOMEM : rc;
}

int stacks_folder_name(stacks_folder *f, const char *name)
{
    start_group(f);
    push_elem(f, name, strlen(name));
    return f->oom ? TR_E_NOMEM : 0;
}

/* Append a name to the text being built at *p. */
static inline void put_name(const stacks_folder *f, char **p, uint32_t id)
{
    const struct smap_entry *e = &f->names.e[id];
    memcpy(*p, smap_key(&f->names, e), e->len);
    *p += e->len;
}

/* The root, then the groups last to first, each group's elements in order,
 * separated by ';'. */
int stacks_folder_text(stacks_folder *f, const char **line, size_t *len)
{
    const struct smap_entry *names = f->names.e;
    size_t n = f->have_root ? names[f->root_id].len : 0;
    for (size_t i = 0; i < f->elems.n; i++)
        n += 1 + names[f->elems.v[i]].len;
    stacks_buf *b = &f->line;
    b->n = 0;
    if (buf_reserve(b, n) < 0) {
        f->oom = 1;
        return TR_E_NOMEM;
    }
    char *p = b->p;
    if (f->have_root)
        put_name(f, &p, f->root_id);
    for (size_t g = f->ngroups; g-- > 0;) {
        size_t end = g + 1 < f->ngroups ? f->groups[g + 1] : f->elems.n;
        for (size_t i = f->groups[g]; i < end; i++) {
            *p++ = ';';
            put_name(f, &p, f->elems.v[i]);
        }
    }
    b->n = n;
    b->p[n] = 0;
    *line = b->p;
    *len = n;
    return 0;
}

int stacks_folder_end_at(stacks_folder *f, size_t entry)
{
    if (f->have_root) {
        f->map->e[entry].n += f->weight;
        if (f->last_entry)
            *f->last_entry = entry;
        f->samples++;
    }
    f->elems.n = f->ngroups = 0;
    f->have_root = 0;
    return f->oom ? TR_E_NOMEM : 0;
}

/* Are the open sample's groups an element each (no inline frames): then a
 * seq keeps none of them (goff NO_GROUPS), deep stacks' lines taking half
 * the memory. */
#define NO_GROUPS SIZE_MAX
static int one_element_groups(const stacks_folder *f)
{
    if (f->ngroups != f->elems.n)
        return 0;
    for (size_t g = 0; g < f->ngroups; g++)
        if (f->groups[g] != g)
            return 0;
    return 1;
}

/* Is the open sample's stack (its elements and groups, which make its
 * line with its root) the one of seq q? */
static int same_seq(const stacks_folder *f, const struct stacks_seq *q)
{
    return q->root == f->root_id && q->nelems == f->elems.n && q->ngroups == f->ngroups &&
           (!f->elems.n || !memcmp(f->seq_ids.v + q->off, f->elems.v, f->elems.n * sizeof *f->elems.v)) &&
           (q->goff == NO_GROUPS ? one_element_groups(f)
                                 : !f->ngroups || !memcmp(f->seq_groups.v + q->goff, f->groups, f->ngroups * sizeof *f->groups));
}

int stacks_folder_end(stacks_folder *f)
{
    if (!f->have_root)
        return stacks_folder_end_at(f, 0);
    uint64_t h = hash_words(f->elems.v, f->elems.n * sizeof *f->elems.v, f->root_id);
    h = hash_words(f->groups, f->ngroups * sizeof *f->groups, h);
    uintptr_t v = (uintptr_t)hashmap_get(&f->by_ids, h, f->elems.n);
    if (v && same_seq(f, &f->seqs[v - 1]) && f->seqs[v - 1].entry < f->map->n)
        return stacks_folder_end_at(f, f->seqs[v - 1].entry);
    const char *s;
    size_t n, lines = f->map->n;
    struct smap_entry *e = stacks_folder_text(f, &s, &n) < 0 ? NULL : smap_get(f->map, s, n);
    /* a line is kept by its elements once it comes a second time: a deep
     * recursion's lines, nearly all different, would keep their elements
     * twice (deep -g, 108,000 samples: tr-fold 127 MB instead of 71) */
    int again = f->map->n == lines;
    size_t ngroups = one_element_groups(f) ? 0 : f->ngroups; /* kept */
    if (e && again && array_reserve(&f->seqs, &f->capseqs, f->nseqs + 1, sizeof *f->seqs, 256) == 0 &&
        array_reserve(&f->seq_ids.v, &f->seq_ids.cap, f->seq_ids.n + f->elems.n, sizeof *f->seq_ids.v, 4096) == 0 &&
        array_reserve(&f->seq_groups.v, &f->seq_groups.cap, f->seq_groups.n + ngroups, sizeof *f->groups, 1024) == 0 &&
        hashmap_put(&f->by_ids, h, f->elems.n, (void *)(uintptr_t)(f->nseqs + 1)) == 0) {
        f->seqs[f->nseqs++] = (struct stacks_seq){f->seq_ids.n, ngroups || !f->ngroups ? f->seq_groups.n : NO_GROUPS,
                                                  (size_t)(e - f->map->e), f->elems.n, f->ngroups, f->root_id};
        if (f->elems.n)
            memcpy(f->seq_ids.v + f->seq_ids.n, f->elems.v, f->elems.n * sizeof *f->elems.v);
        if (ngroups)
            memcpy(f->seq_groups.v + f->seq_groups.n, f->groups, ngroups * sizeof *f->groups);
        f->seq_ids.n += f->elems.n;
        f->seq_groups.n += ngroups;
    }
    if (e)
        return stacks_folder_end_at(f, (size_t)(e - f->map->e));
    f->oom = 1;
    f->samples++;
    f->elems.n = f->ngroups = 0;
    f->have_root = 0;
    return TR_E_NOMEM;
}

/* Frame ids up to this many are cached (an array by id). */
#define CACHED_IDS (1u << 22)

int stacks_folder_trace_frame(stacks_folder *f, tr_reader *r, uint32_t id, const tr_frame *tf)
{
    size_t k = (size_t)id * 2 + (f->java != 0);
    if (id < CACHED_IDS && k < f->ncached && f->cached[k].set) {
        const struct stacks_cached_frame *c = &f->cached[k];
        return c->group ? stacks_folder_add_ids(f, f->cached_ids.v + c->off, c->n) : 0;
    }
    const char *func = tr_reader_string(r, tf->func, NULL), *mod = tr_reader_string(r, tf->module, NULL);
    stacks_frame fr = {.addr = tf->addr, .func = func ? func : "[unknown]", .module = mod ? mod : "[unknown]",
                       .file = tf->file ? tr_reader_string(r, tf->file, NULL) : NULL, .line = tf->line,
                       .offset = tf->offset, .flags = tf->flags, .kind = stacks_kind(tf->flags)};
    size_t g0 = f->ngroups, e0 = f->elems.n;
    int rc = stacks_folder_frame(f, &fr);
    if (rc < 0 || id >= CACHED_IDS)
        return rc;
    size_t n = f->elems.n - e0;
    if ((k >= f->ncached && array_reserve_zeroed(&f->cached, &f->ncached, k + 1, sizeof *f->cached, 1024) < 0) ||
        array_reserve(&f->cached_ids.v, &f->cached_ids.cap, f->cached_ids.n + n, sizeof *f->cached_ids.v,
                      1024) < 0 ||
        f->cached_ids.n + n > UINT32_MAX) {
        f->oom = 1;
        return TR_E_NOMEM;
    }
    f->cached[k] = (struct stacks_cached_frame){(uint32_t)f->cached_ids.n, (uint32_t)n, 1, f->ngroups > g0};
    if (n) /* (a frame folded to nothing has no elements: v may still be NULL) */
        memcpy(f->cached_ids.v + f->cached_ids.n, f->elems.v + e0, n * sizeof *f->elems.v);
    f->cached_ids.n += n;
    return 0;
}

void stacks_folder_forget_frames(stacks_folder *f)
{
    if (f->ncached)
        memset(f->cached, 0, f->ncached * sizeof *f->cached);
    f->cached_ids.n = 0;
}
