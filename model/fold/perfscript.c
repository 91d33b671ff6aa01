/* perfscript.c - stackcollapse-perf.pl's reading of perf script text, re-implemented
 * in C: each matcher below reproduces the match its Perl regular expression
 * would make (including backtracking), so the output is the same.  What a
 * frame line becomes is the folding rules of model/stacks.h. */
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


/*
 * The sample being folded is held by the folder (model/stacks.h): the list
 * of its element names, leaf first, as ids of interned names, in groups,
 * one per stack line (an inlined "a->b" line adds several); at its end, the
 * text "root;caller;...;leaf" is built from them and counted in the map.
 * The names a stack line adds are cached (lines: the line's text -> ids).
 * What a frame line becomes depends only on the line, the options and
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
    struct pscript_stats *st;
    stacks_folder sf;
    struct smap lines[2];    /* [java] stack line -> e->n: its index in cl */
    struct cached_line *cl;
    size_t ncl, capcl;
    uint32_t first_line[2];  /* [java] 1 + the cached line that followed the last header */
    uint32_t prev_line;      /* 1 + the cached line just read; 0: the header */
    stacks_ids line_ids;     /* the names of the cached lines */
    char event_filter[256];
    int event_set, event_defaulted;
};

static void fstate_free(struct fstate *f)
{
    stacks_folder_free(&f->sf);
    smap_free(&f->lines[0]);
    smap_free(&f->lines[1]);
    free(f->cl);
    free(f->line_ids.v);
}

/* Where to note which cached line followed the one just read. */
static uint32_t *follower(struct fstate *f)
{
    return f->prev_line ? &f->cl[f->prev_line - 1].next : &f->first_line[f->sf.java];
}

static void forget_lines(struct fstate *f)
{
    smap_free(&f->lines[0]);
    smap_free(&f->lines[1]);
    f->ncl = f->line_ids.n = 0;
    f->first_line[0] = f->first_line[1] = f->prev_line = 0;
}

/* Remember the names the stack line s added to the sample: elems[from..]. */
static void cache_line(struct fstate *f, const char *s, size_t n, size_t from)
{
    if (f->ncl >= LINES_CACHED_MAX)
        forget_lines(f);
    if (array_reserve(&f->cl, &f->capcl, f->ncl + 1, sizeof *f->cl, 1024) < 0) {
        f->sf.oom = 1;
        return;
    }
    const stacks_ids *elems = &f->sf.elems;
    size_t count = elems->n - from;
    int java = f->sf.java;
    struct smap *t = &f->lines[java];
    struct smap_entry *e =
        array_reserve(&f->line_ids.v, &f->line_ids.cap, f->line_ids.n + count, sizeof *f->line_ids.v, 256) < 0
            ? NULL
            : smap_get(t, s, n);
    if (!e) {
        f->sf.oom = 1;
        return;
    }
    e->n = f->ncl;
    f->cl[f->ncl] = (struct cached_line){(uint32_t)(e - t->e), (uint32_t)java, 0,
                                         (uint32_t)f->line_ids.n, (uint32_t)count};
    for (size_t i = 0; i < count; i++)
        f->line_ids.v[f->line_ids.n++] = elems->v[from + i];
    *follower(f) = (uint32_t)++f->ncl;
    f->prev_line = (uint32_t)f->ncl;
}

/* 1 when the cached line c is the stack line s of a process like this one. */
static int is_line(const struct fstate *f, const struct cached_line *c, const char *s, size_t n)
{
    if (c->java != (uint32_t)f->sf.java)
        return 0;
    const struct smap *t = &f->lines[f->sf.java];
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
        const struct smap_entry *e = smap_find(&f->lines[f->sf.java], s, n);
        if (!e)
            return 0;
        i = e->n;
        *next = (uint32_t)i + 1;
    }
    f->prev_line = (uint32_t)i + 1;
    const struct cached_line *c = &f->cl[i];
    /* a line that gave no names may have no ids array to point into */
    stacks_folder_add_ids(&f->sf, c->n ? f->line_ids.v + c->ids : NULL, c->n);
    return 1;
}

static int span_eq(struct span a, const char *s)
{
    return a.n == strlen(s) && !memcmp(a.p, s, a.n);
}

static stacks_text text_of(struct span s)
{
    return (stacks_text){s.p, s.n};
}

static void do_header(struct fstate *f, const char *s, size_t n, struct span comm,
                      struct span pid, struct span tid)
{
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
    stacks_folder_begin_text(&f->sf, text_of(comm), text_of(pid), text_of(tid), per);
    f->prev_line = 0;
}

/* --srcline: a frame's source line is the line after it. */
static int next_srcline(void *ctx, char **line, size_t *len)
{
    return lines_next(ctx, line, len);
}

int pscript_fold(struct lines *l, const struct pscript_opts *o, struct smap *map,
                 struct pscript_stats *st)
{
    struct fstate f;
    memset(&f, 0, sizeof f);
    memset(st, 0, sizeof *st);
    f.o = o;
    f.st = st;
    stacks_folder_init(&f.sf, &o->fold, map);
    if (o->event && o->event[0]) {
        snprintf(f.event_filter, sizeof f.event_filter, "%s", o->event);
        snprintf(st->event, sizeof st->event, "%s", o->event);
        f.event_set = 1;
    }
    stacks_srcline_fn *srcline = o->srcline ? next_srcline : NULL;
    char *s;
    size_t n;
    int rc;
    while ((rc = lines_next(l, &s, &n)) > 0) {
        if (n > 0 && s[0] == '#')
            continue;
        if (n == 0) {
            stacks_folder_end(&f.sf);
        } else {
            struct span a, b, c;
            /* stack lines start with whitespace, sample headers do not */
            if (!is_ws((unsigned char)s[0]) && match_header(s, n, &a, &b, &c)) {
                do_header(&f, s, n, a, b, c);
            } else if (f.sf.have_root && !o->srcline && add_cached_line(&f, s, n)) {
                /* a stack line seen before (with --srcline, a frame is its
                 * line and the next one: not cached) */
            } else if (match_frame(s, n, &a, &b, &c)) {
                if (f.sf.have_root) {
                    size_t from = f.sf.elems.n;
                    if ((rc = stacks_folder_frame_text(&f.sf, text_of(a), text_of(b), text_of(c),
                                                       STACKS_FROM_MODULE, srcline, l)) < 0)
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
        if (f.sf.oom) {
            rc = TR_E_NOMEM;
            break;
        }
    }
    /* like stackcollapse-perf.pl, a last record without its terminating
     * blank line is not counted (perf script always writes one) */
    if (rc == 0 && f.sf.have_root)
        st->unterminated = 1;
    if (f.sf.oom && rc == 0)
        rc = TR_E_NOMEM;
    st->records = f.sf.samples;
    fstate_free(&f);
    return rc;
}

/* ---- the same folding, fed with structured samples (tr traces) ------- */

struct pscript {
    stacks_folder sf;
};

struct pscript *pscript_new(const struct pscript_opts *o, struct smap *map)
{
    struct pscript *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    stacks_folder_init(&p->sf, &o->fold, map);
    return p;
}

void pscript_free(struct pscript *p)
{
    if (!p)
        return;
    stacks_folder_free(&p->sf);
    free(p);
}

stacks_folder *pscript_folder(struct pscript *p)
{
    return &p->sf;
}

void pscript_begin(struct pscript *p, const char *comm, int32_t pid, int32_t tid, uint64_t weight)
{
    stacks_folder_begin(&p->sf, comm, pid, tid, weight);
}

int pscript_leaf(struct pscript *p, const char *name)
{
    return stacks_folder_name(&p->sf, name);
}

int pscript_end(struct pscript *p)
{
    return stacks_folder_end(&p->sf);
}

void pscript_track_last(struct pscript *p, size_t *last_entry)
{
    p->sf.last_entry = last_entry;
}
