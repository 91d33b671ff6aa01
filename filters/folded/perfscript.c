/* perfscript.c - stackcollapse-perf.pl's folding, re-implemented in C.
 * Each matcher below reproduces the match its Perl regular expression
 * would make (including backtracking), so the output is the same. */
#include "perfscript.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* character classes of Perl's \s, \d and \w (ASCII), as one table */
enum { C_WS = 1, C_DIGIT = 2, C_WORD = 4 };
static const unsigned char cclass[256] = {
    ['\t'] = C_WS, ['\n'] = C_WS, ['\v'] = C_WS, ['\f'] = C_WS, ['\r'] = C_WS, [' '] = C_WS,
    ['0' ... '9'] = C_DIGIT | C_WORD, ['a' ... 'z'] = C_WORD, ['A' ... 'Z'] = C_WORD, ['_'] = C_WORD,
};
static inline int is_ws(unsigned char c) { return cclass[c] & C_WS; }
static inline int is_digit(unsigned char c) { return cclass[c] & C_DIGIT; }
static inline int is_word(unsigned char c) { return cclass[c] & C_WORD; }

struct span { const char *p; size_t n; };

/* Perl /^(\S.+?)\s+(\d+)\/[*](\d+)[*]\s+/ : the sample header line. */
static int match_header(const char *s, size_t n, struct span *comm, struct span *pid,
                        struct span *tid)
{
    if (n < 3 || is_ws((unsigned char)s[0]))
        return 0;
    for (size_t k = 2; k < n; k++) {
        if (!is_ws((unsigned char)s[k]))
            continue;
        size_t i = k;
        while (i < n && is_ws((unsigned char)s[i]))
            i++;
        size_t d1 = i;
        while (i < n && is_digit((unsigned char)s[i]))
            i++;
        if (i == d1)
            continue;
        size_t d1e = i;
        while (i < n && s[i] == '/')
            i++;
        size_t d2 = i;
        while (i < n && is_digit((unsigned char)s[i]))
            i++;
        if (i >= n || !is_ws((unsigned char)s[i]))
            continue;
        *comm = (struct span){s, k};
        *pid = (struct span){s + d1, d1e - d1};
        *tid = (struct span){s + d2, i - d2};
        return 1;
    }
    return 0;
}

static int match_event(const char *s, size_t n, struct span *period, struct span *event);

static int lead_ws_header(const char *s, size_t n, struct span *comm, struct span *pid,
                          struct span *tid)
{
    /* only spaces (frame lines start with a tab), and a complete
     * "...: PERIOD EVENT:" end, as tr-cat and perf script print headers */
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    struct span p, e;
    return i > 0 && match_header(s + i, n - i, comm, pid, tid) && match_event(s, n, &p, &e);
}

/* /:\s*(\d+)*\s+(\S+):\s*$/ : period and event at the end of the header. */
static int match_event(const char *s, size_t n, struct span *period, struct span *event)
{
    size_t e = n;
    while (e > 0 && is_ws((unsigned char)s[e - 1]))
        e--;
    if (e < 2 || s[e - 1] != ':')
        return 0;
    size_t t = e - 1; /* the event word is s[t0..t) */
    size_t t0 = t;
    while (t0 > 0 && !is_ws((unsigned char)s[t0 - 1]))
        t0--;
    if (t0 == t || t0 == 0)
        return 0;
    /* before it: ':' then \s* digits* \s+ (only whitespace and digits) */
    size_t p = t0;
    while (p > 0 && (is_ws((unsigned char)s[p - 1]) || is_digit((unsigned char)s[p - 1])))
        p--;
    if (p == 0 || s[p - 1] != ':')
        return 0;
    /* region s[p..t0): ws* digits? ws+ */
    size_t i = p;
    while (i < t0 && is_ws((unsigned char)s[i]))
        i++;
    size_t d = i;
    while (i < t0 && is_digit((unsigned char)s[i]))
        i++;
    size_t de = i;
    if (i == t0) { /* no whitespace after the digits */
        if (de > d || d == p)
            return 0;
        /* all whitespace: \s* gives one back to \s+ */
    } else {
        while (i < t0 && is_ws((unsigned char)s[i]))
            i++;
        if (i != t0)
            return 0;
    }
    *period = (struct span){s + d, de - d};
    *event = (struct span){s + t0, t - t0};
    return 1;
}

/* /^\s*(\w+)\s*(.+) \((.*)\)/ : a stack line "pc func+off (module)". */
static int match_frame(const char *s, size_t n, struct span *pc, struct span *func,
                       struct span *mod)
{
    size_t i = 0;
    while (i < n && is_ws((unsigned char)s[i]))
        i++;
    size_t w0 = i;
    while (i < n && is_word((unsigned char)s[i]))
        i++;
    size_t w1 = i;
    if (w1 == w0)
        return 0;
    while (i < n && is_ws((unsigned char)s[i]))
        i++;
    size_t q = i;
    const char *rp = memrchr(s, ')', n);
    if (!rp)
        return 0;
    size_t r = (size_t)(rp - s);
    /* the last " (" at i2 >= q+1 with a ')' at or after i2+2 */
    if (r >= q + 3) {
        size_t lim = r; /* '(' at i2+1 <= r-1 */
        while (lim > q + 2) {
            const char *op = memrchr(s + q + 2, '(', lim - (q + 2));
            if (!op)
                break;
            size_t i2 = (size_t)(op - s) - 1;
            if (s[i2] == ' ') {
                *pc = (struct span){s + w0, w1 - w0};
                *func = (struct span){s + q, i2 - q};
                *mod = (struct span){s + i2 + 2, r - i2 - 2};
                return 1;
            }
            lim = (size_t)(op - s);
        }
    }
    /* backtracking: \s* gives back whitespace, or \w+ gives back a char */
    if (q - w1 >= 2 && s[q - 1] == ' ' && q < n && s[q] == '(' && r >= q + 1) {
        *pc = (struct span){s + w0, w1 - w0};
        *func = (struct span){s + q - 2, 1};
        *mod = (struct span){s + q + 1, r - q - 1};
        return 1;
    }
    if (w1 - w0 >= 2 && q == w1 + 1 && s[w1] == ' ' && s[q] == '(' && r >= q + 1) {
        *pc = (struct span){s + w0, w1 - w0 - 1};
        *func = (struct span){s + w1 - 1, 1};
        *mod = (struct span){s + q + 1, r - q - 1};
        return 1;
    }
    return 0;
}

/* ---- growing buffers ------------------------------------------------ */

struct buf { char *p; size_t n, cap; };

/* Room for n more bytes and a NUL. */
static int buf_reserve(struct buf *b, size_t n)
{
    if (b->cap - b->n >= n + 1)
        return 0;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc - b->n < n + 1)
        nc *= 2;
    char *np = realloc(b->p, nc);
    if (!np)
        return -1;
    b->p = np;
    b->cap = nc;
    return 0;
}

static int buf_put(struct buf *b, const char *s, size_t n)
{
    if (buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    return 0;
}

/* growing arrays of 32-bit ids */
struct ids { uint32_t *v; size_t n, cap; };

static int ids_reserve(struct ids *a, size_t more)
{
    if (a->cap - a->n >= more)
        return 0;
    size_t nc = a->cap ? a->cap : 256;
    while (nc - a->n < more)
        nc *= 2;
    uint32_t *v = realloc(a->v, nc * sizeof *v);
    if (!v)
        return -1;
    a->v = v;
    a->cap = nc;
    return 0;
}

static int ids_push(struct ids *a, uint32_t id)
{
    if (a->n == a->cap && ids_reserve(a, 1) < 0)
        return -1;
    a->v[a->n++] = id;
    return 0;
}

/*
 * The sample being folded is the list of its frame names, leaf first, as
 * ids of interned names (names: name -> entry index), in groups, one per
 * stack line (an inlined "a->b" line adds several); at its end, the text
 * "root;caller;...;leaf" is built from them and counted in the result map.
 * The names a stack line adds are cached (lines: the line's text -> ids).
 * What do_frame() makes of a line depends only on the line, the options and
 * whether the process is java (one table each), and real perf script text
 * repeats a small set of lines millions of times, mostly in the same order:
 * each cached line also remembers the line that followed it, and the next
 * line is compared with that one before it is hashed.  The cache only
 * remembers what was computed: emptying it changes nothing but the speed,
 * and it is emptied when it holds LINES_CACHED_MAX lines (names grow with
 * the distinct stacks only).
 */
#define LINES_CACHED_MAX (1u << 20)

struct cached_line {
    uint32_t entry;      /* its entry in lines[java], which holds its text */
    uint32_t java;
    uint32_t next;       /* 1 + the cached line that followed it last time; 0: none */
    uint32_t ids, n;     /* its names: line_ids.v[ids .. ids + n) */
};

struct fstate {
    const struct pscript_opts *o;
    struct smap *map;
    struct pscript_stats *st;
    struct smap names;       /* frame and root names -> id (the entry's index) */
    struct smap lines[2];    /* [java] stack line -> e->n: its index in cl */
    struct cached_line *cl;
    size_t ncl, capcl;
    uint32_t first_line[2];  /* [java] 1 + the cached line that followed the last header */
    uint32_t prev_line;      /* 1 + the cached line just read; 0: the header */
    struct ids line_ids;     /* the names of the cached lines */
    struct ids frames;       /* the sample's frames, leaf first */
    size_t *groups;          /* first frame of each stack line */
    size_t ng, capg;
    struct buf pname, key, tmp;
    uint32_t pname_id;
    int have_pname, java;
    uint64_t period;
    char event_filter[256];
    int event_set, event_defaulted;
    int oom;
    size_t *last_entry;   /* where end_record() says which entry it added to */
};

static void fstate_free(struct fstate *f)
{
    smap_free(&f->names);
    smap_free(&f->lines[0]);
    smap_free(&f->lines[1]);
    free(f->cl);
    free(f->line_ids.v);
    free(f->frames.v);
    free(f->groups);
    free(f->pname.p);
    free(f->key.p);
    free(f->tmp.p);
}

/* The id of a name (interned on first sight), or -1 when out of memory. */
static int64_t name_id(struct fstate *f, const char *s, size_t n)
{
    struct smap_entry *e = smap_get(&f->names, s, n);
    return e ? e - f->names.e : -1;
}

static void push_frame(struct fstate *f, const char *s, size_t n)
{
    int64_t id = name_id(f, s, n);
    if (id < 0 || ids_push(&f->frames, (uint32_t)id) < 0)
        f->oom = 1;
}

static void start_group(struct fstate *f)
{
    if (f->ng == f->capg) {
        size_t nc = f->capg ? f->capg * 2 : 256;
        size_t *g = realloc(f->groups, nc * sizeof *g);
        if (!g) {
            f->oom = 1;
            return;
        }
        f->groups = g;
        f->capg = nc;
    }
    f->groups[f->ng++] = f->frames.n;
}

/* The root name: set after do_header() or pscript_begin() built pname. */
static void set_root(struct fstate *f)
{
    struct buf *p = &f->pname;
    for (size_t i = 0; i < p->n; i++)
        if (p->p[i] == ' ')
            p->p[i] = '_';
    int64_t id = name_id(f, p->p ? p->p : "", p->n);
    if (id < 0)
        f->oom = 1;
    f->pname_id = id < 0 ? 0 : (uint32_t)id;
    f->java = p->n >= 4 && !memcmp(p->p, "java", 4);
    f->have_pname = 1;
    f->prev_line = 0;
}

/* Where to note which cached line followed the one just read. */
static uint32_t *follower(struct fstate *f)
{
    return f->prev_line ? &f->cl[f->prev_line - 1].next : &f->first_line[f->java];
}

static void forget_lines(struct fstate *f)
{
    smap_free(&f->lines[0]);
    smap_free(&f->lines[1]);
    f->ncl = f->line_ids.n = 0;
    f->first_line[0] = f->first_line[1] = f->prev_line = 0;
}

/* Remember the names the stack line s added to the sample: frames[from..]. */
static void cache_line(struct fstate *f, const char *s, size_t n, size_t from)
{
    if (f->ncl >= LINES_CACHED_MAX)
        forget_lines(f);
    if (f->ncl == f->capcl) {
        size_t nc = f->capcl ? f->capcl * 2 : 1024;
        struct cached_line *c = realloc(f->cl, nc * sizeof *c);
        if (!c) {
            f->oom = 1;
            return;
        }
        f->cl = c;
        f->capcl = nc;
    }
    size_t count = f->frames.n - from;
    struct smap *t = &f->lines[f->java];
    struct smap_entry *e = ids_reserve(&f->line_ids, count) < 0 ? NULL : smap_get(t, s, n);
    if (!e) {
        f->oom = 1;
        return;
    }
    e->n = f->ncl;
    f->cl[f->ncl] = (struct cached_line){(uint32_t)(e - t->e), (uint32_t)f->java, 0,
                                         (uint32_t)f->line_ids.n, (uint32_t)count};
    for (size_t i = 0; i < count; i++)
        f->line_ids.v[f->line_ids.n++] = f->frames.v[from + i];
    *follower(f) = (uint32_t)++f->ncl;
    f->prev_line = (uint32_t)f->ncl;
}

/* 1 when the cached line c is the stack line s of a process like this one. */
static int is_line(const struct fstate *f, const struct cached_line *c, const char *s, size_t n)
{
    if (c->java != (uint32_t)f->java)
        return 0;
    const struct smap *t = &f->lines[f->java];
    const struct smap_entry *e = &t->e[c->entry];
    return e->len == n && !memcmp(smap_key(t, e), s, n);
}

/* Add the names of stack line s when it was seen before; 0 when it was not. */
static int add_cached_line(struct fstate *f, const char *s, size_t n)
{
    uint32_t *next = follower(f);
    size_t i;
    if (*next && is_line(f, &f->cl[*next - 1], s, n)) {
        i = *next - 1;
    } else {
        const struct smap_entry *e = smap_find(&f->lines[f->java], s, n);
        if (!e)
            return 0;
        i = e->n;
        *next = (uint32_t)i + 1;
    }
    f->prev_line = (uint32_t)i + 1;
    const struct cached_line *c = &f->cl[i];
    start_group(f);
    if (ids_reserve(&f->frames, c->n) < 0) {
        f->oom = 1;
        return 1;
    }
    for (uint32_t k = 0; k < c->n; k++)
        f->frames.v[f->frames.n++] = f->line_ids.v[c->ids + k];
    return 1;
}

/* The name of id. */
static inline const struct smap_entry *name_of(const struct fstate *f, uint32_t id)
{
    return &f->names.e[id];
}

/* Append a name to the text being built at *p. */
static inline void put_name(const struct fstate *f, char **p, uint32_t id)
{
    const struct smap_entry *e = name_of(f, id);
    memcpy(*p, smap_key(&f->names, e), e->len);
    *p += e->len;
}

/* The text of the sample's stack in f->key: the root, then the groups
 * last to first, each group's frames in order, separated by ';'. */
static int stack_text(struct fstate *f)
{
    size_t len = name_of(f, f->pname_id)->len;
    for (size_t i = 0; i < f->frames.n; i++)
        len += 1 + name_of(f, f->frames.v[i])->len;
    struct buf *b = &f->key;
    b->n = 0;
    if (buf_reserve(b, len) < 0)
        return -1;
    char *p = b->p;
    put_name(f, &p, f->pname_id);
    for (size_t g = f->ng; g-- > 0;) {
        size_t end = g + 1 < f->ng ? f->groups[g + 1] : f->frames.n;
        for (size_t i = f->groups[g]; i < end; i++) {
            *p++ = ';';
            put_name(f, &p, f->frames.v[i]);
        }
    }
    b->n = len;
    return 0;
}

static void end_record(struct fstate *f)
{
    if (f->have_pname) {
        struct smap_entry *e = stack_text(f) < 0 ? NULL : smap_get(f->map, f->key.p, f->key.n);
        if (!e) {
            f->oom = 1;
        } else {
            e->n += f->period;
            if (f->last_entry)
                *f->last_entry = (size_t)(e - f->map->e);
        }
        f->st->records++;
    }
    f->frames.n = f->ng = 0;
    f->have_pname = 0;
}

static int span_eq(struct span a, const char *s)
{
    return a.n == strlen(s) && !memcmp(a.p, s, a.n);
}

static void do_header(struct fstate *f, const char *s, size_t n, struct span comm,
                      struct span pid, struct span tid)
{
    const struct pscript_opts *o = f->o;
    struct span period = {"", 0}, event;
    if (tid.n == 0 || span_eq(tid, "0")) {
        tid = pid;
        pid = (struct span){"?", 1};
    }
    if (match_event(s, n, &period, &event)) {
        if (!f->event_set) {
            size_t m = event.n < sizeof f->event_filter - 1 ? event.n : sizeof f->event_filter - 1;
            memcpy(f->event_filter, event.p, m);
            f->event_filter[m] = 0;
            f->event_set = 1;
            f->event_defaulted = 1;
            memcpy(f->st->event, f->event_filter, m + 1);
        } else if (!span_eq(event, f->event_filter)) {
            if (!f->st->other_event[0]) {
                size_t m = event.n < sizeof f->st->other_event - 1 ? event.n
                                                                  : sizeof f->st->other_event - 1;
                memcpy(f->st->other_event, event.p, m);
                f->st->other_event[m] = 0;
            }
            f->st->filtered++;
            return;
        }
    }
    uint64_t per = 0;
    if (period.n == 0 || span_eq(period, "0")) {
        per = 1;
    } else {
        for (size_t i = 0; i < period.n; i++)
            per = per > (UINT64_MAX - 9) / 10 ? UINT64_MAX : per * 10 + (uint64_t)(period.p[i] - '0');
    }
    f->period = per;
    struct buf *p = &f->pname;
    p->n = 0;
    buf_put(p, comm.p, comm.n);
    if (o->tid || o->pid) {
        buf_put(p, "-", 1);
        buf_put(p, pid.p, pid.n);
        if (o->tid) {
            buf_put(p, "/", 1);
            buf_put(p, tid.p, tid.n);
        }
    }
    set_root(f);
}

/* Perl: s/;/:/g; cut at the first "(" not starting "(anonymous namespace)"
 * unless the name looks like a Go method (".(" ... ")."); drop quotes. */
static void tidy_generic(struct buf *t)
{
    /* one pass: ';' -> ':', find the first '(' and any quote */
    size_t first_paren = SIZE_MAX;
    int quotes = 0;
    char *p = t->p;
    p[t->n] = 0;
    size_t start = strcspn(p, ";(\"'"); /* most names have none of these */
    if (start >= t->n)
        return;
    for (size_t i = start; i < t->n; i++) {
        char c = p[i];
        if (c == ';')
            p[i] = ':';
        else if (c == '(' && first_paren == SIZE_MAX)
            first_paren = i;
        else if (c == '"' || c == '\'')
            quotes = 1;
    }
    p[t->n] = 0;
    if (first_paren != SIZE_MAX) {
        /* a Go method name ".(" ... ")." keeps its parentheses */
        const char *go = first_paren > 0 ? strstr(p + first_paren - 1, ".(") : NULL;
        int is_go = 0;
        if (go) {
            for (const char *q = p + t->n - 2; q >= go + 2; q--)
                if (q[0] == ')' && q[1] == '.') {
                    is_go = 1;
                    break;
                }
        }
        if (!is_go) {
            static const char anon[] = "anonymous namespace)";
            for (size_t i = first_paren; i < t->n; i++) {
                if (p[i] != '(')
                    continue;
                if (t->n - i - 1 >= sizeof anon - 1 && !memcmp(p + i + 1, anon, sizeof anon - 1))
                    continue;
                t->n = i;
                break;
            }
        }
    }
    if (!quotes)
        return;
    size_t j = 0;
    for (size_t i = 0; i < t->n; i++)
        if (p[i] != '"' && p[i] != '\'')
            p[j++] = p[i];
    t->n = j;
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
static int is_perf_map(struct span mod)
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

static int is_kernel_mod(struct span mod)
{
    int k = (mod.n > 0 && mod.p[0] == '[') || (mod.n >= 7 && !memcmp(mod.p + mod.n - 7, "vmlinux", 7));
    return k && !contains(mod.p, mod.n, "unknown");
}

static int do_frame(struct fstate *f, struct lines *l, struct span pc, struct span raw,
                    struct span mod, int kind)
{
    const struct pscript_opts *o = f->o;
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
    size_t first = f->frames.n;
    for (size_t k = 0; k < np; k++) {
        struct buf *t = &f->tmp;
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
            return -1;
        tidy_generic(t);
        if (java && memchr(t->p, '/', t->n) && t->n > 0 && t->p[0] == 'L') {
            memmove(t->p, t->p + 1, t->n - 1);
            t->n--;
        }
        int skip = 0;
        if (f->frames.n > first || (k > 0 && o->no_inline) || kind == PS_INLINE) {
            skip = o->no_inline;
            if (!contains(t->p, t->n, "_[i]"))
                buf_put(t, "_[i]", 4);
        } else if (o->kernel && (kind == PS_FROM_MODULE ? is_kernel_mod(mod) : kind == PS_KERNEL)) {
            buf_put(t, "_[k]", 4);
        } else if (o->jit && (kind == PS_FROM_MODULE ? is_perf_map(mod) : kind == PS_JIT)) {
            if (!contains(t->p, t->n, "_[j]"))
                buf_put(t, "_[j]", 4);
        }
        if (o->srcline && !is_unknown && l) {
            char *sl;
            size_t sn;
            int rc = lines_next(l, &sl, &sn);
            if (rc < 0)
                return rc;
            if (rc > 0) {
                /* s/\[.*?\]//g; trim */
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
        }
        if (!skip)
            push_frame(f, t->p, t->n);
    }
    return 0;
}

int pscript_fold(struct lines *l, const struct pscript_opts *o, struct smap *map,
                 struct pscript_stats *st)
{
    struct fstate f;
    memset(&f, 0, sizeof f);
    memset(st, 0, sizeof *st);
    f.o = o;
    f.map = map;
    f.st = st;
    if (o->event && o->event[0]) {
        snprintf(f.event_filter, sizeof f.event_filter, "%s", o->event);
        snprintf(st->event, sizeof st->event, "%s", o->event);
        f.event_set = 1;
    }
    char *s;
    size_t n;
    int rc;
    while ((rc = lines_next(l, &s, &n)) > 0) {
        if (n > 0 && s[0] == '#')
            continue;
        if (n == 0) {
            end_record(&f);
        } else {
            struct span a, b, c;
            /* stack lines start with whitespace, sample headers do not */
            if (!is_ws((unsigned char)s[0]) && match_header(s, n, &a, &b, &c)) {
                do_header(&f, s, n, a, b, c);
            } else if (f.have_pname && !o->srcline && add_cached_line(&f, s, n)) {
                /* a stack line seen before (with --srcline, a frame is its
                 * line and the next one: not cached) */
            } else if (match_frame(s, n, &a, &b, &c)) {
                if (f.have_pname) {
                    size_t from = f.frames.n;
                    if ((rc = do_frame(&f, l, a, b, c, PS_FROM_MODULE)) < 0)
                        break;
                    if (!o->srcline)
                        cache_line(&f, s, n, from);
                }
            } else if (lead_ws_header(s, n, &a, &b, &c)) {
                /* stackcollapse-perf.pl rejects a header indented by a
                 * right-aligned comm (perf script %16s); tr-fold takes it */
                do_header(&f, a.p, n - (size_t)(a.p - s), a, b, c);
            } else {
                if (!st->unrecognized++)
                    st->first_unrecognized_line = l->line_no;
            }
        }
        if (f.oom) {
            rc = TR_E_NOMEM;
            break;
        }
    }
    /* like stackcollapse-perf.pl, a last record without its terminating
     * blank line is not counted (perf script always writes one) */
    if (rc == 0 && f.have_pname)
        st->unterminated = 1;
    if (f.oom && rc == 0)
        rc = TR_E_NOMEM;
    fstate_free(&f);
    return rc;
}

/* ---- the same folding, fed with structured samples (tr traces) ------- */

struct pscript {
    struct fstate f;
    struct pscript_stats st;
};

struct pscript *pscript_new(const struct pscript_opts *o, struct smap *map)
{
    struct pscript *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->f.o = o;
    p->f.map = map;
    p->f.st = &p->st;
    return p;
}

void pscript_free(struct pscript *p)
{
    if (!p)
        return;
    fstate_free(&p->f);
    free(p);
}

void pscript_begin(struct pscript *p, const char *comm, int32_t pid, int32_t tid, uint64_t weight)
{
    struct fstate *f = &p->f;
    f->frames.n = f->ng = 0;
    f->period = weight;
    struct buf *b = &f->pname;
    b->n = 0;
    buf_put(b, comm, strlen(comm));
    char num[32];
    if (f->o->tid || f->o->pid) {
        snprintf(num, sizeof num, "-%d", (int)pid);
        buf_put(b, num, strlen(num));
        if (f->o->tid) {
            snprintf(num, sizeof num, "/%d", (int)tid);
            buf_put(b, num, strlen(num));
        }
    }
    set_root(f);
}

int pscript_frame(struct pscript *p, uint64_t addr, const char *func, const char *mod, int kind)
{
    char pc[17];
    size_t pn = 0;
    if (p->f.o->addrs) { /* the address is only shown with --addrs: "%llx" by hand */
        char tmp[16];
        do {
            tmp[pn++] = "0123456789abcdef"[addr & 15];
            addr >>= 4;
        } while (addr);
        for (size_t i = 0; i < pn; i++)
            pc[i] = tmp[pn - 1 - i];
    }
    struct span a = {pc, pn}, b = {func, strlen(func)}, c = {mod, strlen(mod)};
    int rc = do_frame(&p->f, NULL, a, b, c, kind);
    return p->f.oom ? TR_E_NOMEM : rc;
}

/* The name alone, appended as a leaf (syscalls): no tidying. */
int pscript_leaf(struct pscript *p, const char *name)
{
    start_group(&p->f);
    push_frame(&p->f, name, strlen(name));
    return p->f.oom ? TR_E_NOMEM : 0;
}

int pscript_end(struct pscript *p)
{
    end_record(&p->f);
    return p->f.oom ? TR_E_NOMEM : 0;
}

void pscript_track_last(struct pscript *p, size_t *last_entry)
{
    p->f.last_entry = last_entry;
}
