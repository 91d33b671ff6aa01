/* diff.c - difffolded.pl's comparison, and a report of the changes. */
#include "diff.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "tr.h"

void diff_init(struct diff *d, const struct diff_opts *o)
{
    memset(d, 0, sizeof *d);
    d->o = o;
    smap_init(&d->map);
}

void diff_free(struct diff *d)
{
    smap_free(&d->map);
    free(d->hex);
    free(d->root);
}

/* s/0x[0-9a-fA-F]+/0x.../g into buf */
static size_t strip_hex(const char *s, size_t n, char *buf)
{
    size_t j = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '0' && i + 2 < n + 0 && s[i + 1] == 'x' && isxdigit((unsigned char)s[i + 2])) {
            i += 2;
            while (i < n && isxdigit((unsigned char)s[i]))
                i++;
            memcpy(buf + j, "0x...", 5);
            j += 5;
        } else {
            buf[j++] = s[i++];
        }
    }
    return j;
}

/* --strip-comm, --rename: s (n bytes) with its root frame dropped (a stack
 * of that frame alone: "[no stack]") or renamed; NULL when out of memory. */
static const char *fix_root(struct diff *d, const char *s, size_t *n)
{
    const char *semi = memchr(s, ';', *n);
    size_t rl = semi ? (size_t)(semi - s) : *n;
    if (d->o->strip_comm) {
        *n = semi ? *n - rl - 1 : strlen("[no stack]");
        return semi ? semi + 1 : "[no stack]";
    }
    for (size_t i = 0; i < d->o->nrenames; i++) {
        const char *old = d->o->renames[i], *to = strchr(old, '=') + 1;
        size_t ol = (size_t)(to - 1 - old), tl = strlen(to);
        if (ol != rl || memcmp(s, old, rl))
            continue;
        if (array_reserve(&d->root, &d->root_cap, tl + *n - rl, 1, 4096) < 0)
            return NULL;
        memcpy(d->root, to, tl);
        memcpy(d->root + tl, s + rl, *n - rl);
        *n = tl + *n - rl;
        return d->root;
    }
    return s;
}

static int add(struct diff *d, int which, const char *s, size_t n, double c)
{
    if ((d->o->strip_comm || d->o->nrenames) && !(s = fix_root(d, s, &n)))
        return -1;
    if (d->o->strip_hex) {
        /* "0x1" (3 bytes) becomes "0x..." (5): n * 3 + 1 is always enough */
        if (array_reserve(&d->hex, &d->hex_cap, n * 3 + 1, 1, 4096) < 0)
            return -1;
        n = strip_hex(s, n, d->hex);
        s = d->hex;
    }
    struct smap_entry *e = smap_get(&d->map, s, n);
    if (!e)
        return -1;
    e->v[which] += c;
    e->n |= 1u << which;
    d->total[which] += c;
    return 0;
}

/* 1 when the text looks like folded stacks (its first data line parses) */
static int looks_folded(const char *p, size_t len)
{
    while (len > 0) {
        const char *nl = memchr(p, '\n', len);
        size_t n = nl ? (size_t)(nl - p) : len;
        struct folded_line fl;
        int rc = folded_parse(p, n, 1, &fl);
        if (rc != FOLDED_BLANK)
            return rc == FOLDED_OK;
        if (!nl)
            break;
        len -= n + 1;
        p = nl + 1;
    }
    return 1; /* empty: let the folded reader report it */
}

static int load_folded(struct diff *d, int which, struct lines *l, const char *shown)
{
    char *s;
    size_t n;
    int rc;
    uint64_t skipped = 0, first = 0, lines = 0;
    while ((rc = lines_next(l, &s, &n)) > 0) {
        struct folded_line fl;
        int pr = folded_parse(s, n, 1, &fl);
        if (pr == FOLDED_BLANK)
            continue;
        if (pr < 0) {
            if (!d->o->lenient) {
                cli_warn("%s:%llu: %s", shown, (unsigned long long)l->line_no, folded_strerror(pr));
                return CLI_EXIT_USAGE;
            }
            if (!skipped++)
                first = l->line_no;
            continue;
        }
        lines++;
        if (add(d, which, fl.stack, fl.len, fl.count[0]) < 0) {
            cli_warn("%s: out of memory", shown);
            return CLI_EXIT_USAGE;
        }
    }
    char msg[160];
    if (lines_error(l, rc, msg, sizeof msg)) {
        cli_warn("%s%s", shown, msg);
        return CLI_EXIT_USAGE;
    }
    if (skipped)
        cli_warn("%s: skipped %llu malformed lines (first: line %llu)", shown,
                 (unsigned long long)skipped, (unsigned long long)first);
    if (lines == 0)
        cli_warn("%s: no stacks", shown);
    return CLI_EXIT_OK;
}

int diff_load(struct diff *d, int which, const char *path)
{
    const char *shown = path;
    int fd = 0;
    if (!path || !strcmp(path, "-")) {
        shown = "stdin";
    } else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        cli_warn("%s: %s", path, strerror(errno));
        return CLI_EXIT_USAGE; /* like cmp: trouble is 2 */
    }
    struct lines l;
    lines_init(&l, fd, d->o->fold.max_line);
    const char *head;
    size_t hl;
    int status;
    if (lines_peek(&l, 65536, &head, &hl) < 0) {
        cli_warn("%s: read error: %s", shown, strerror(l.err));
        status = CLI_EXIT_USAGE;
    } else if (!tr_is_trace(head, hl) && looks_folded(head, hl)) {
        status = load_folded(d, which, &l, shown);
    } else {
        /* a trace or perf script text: fold it first */
        struct fold f;
        fold_init(&f, &d->o->fold);
        if (tr_is_trace(head, hl))
            status = fold_trace(&f, &l, shown);
        else
            status = fold_text_lines(&f, &l, shown);
        for (size_t i = 0; status != CLI_EXIT_FAIL && i < f.map.n; i++) {
            const struct smap_entry *e = &f.map.e[i];
            if (add(d, which, smap_key(&f.map, e), e->len, (double)e->n) < 0) {
                cli_warn("%s: out of memory", shown);
                status = CLI_EXIT_FAIL;
            }
        }
        fold_free(&f);
        if (status == CLI_EXIT_FAIL)
            status = CLI_EXIT_USAGE;
    }
    lines_free(&l);
    if (fd != 0)
        close(fd);
    return status == CLI_EXIT_OK || status == CLI_EXIT_TRUNCATED ? status : CLI_EXIT_USAGE;
}

/* A count the way Perl prints a number (difffolded.pl's output). */
static void put_count(FILE *f, double v)
{
    char b[64];
    folded_format_count(b, sizeof b, v);
    fputs(b, f);
}

static void normalize(struct diff *d)
{
    if (!d->o->normalize || d->total[0] == d->total[1] || d->total[0] == 0)
        return;
    for (size_t i = 0; i < d->map.n; i++) {
        struct smap_entry *e = &d->map.e[i];
        e->v[0] = trunc(e->v[0] * d->total[1] / d->total[0]);
    }
}

int diff_write_folded(struct diff *d, FILE *out)
{
    normalize(d);
    size_t *idx = smap_sorted(&d->map);
    if (!idx)
        return -1;
    int differ = 0;
    for (size_t i = 0; i < d->map.n; i++) {
        const struct smap_entry *e = &d->map.e[idx[i]];
        fwrite(smap_key(&d->map, e), 1, e->len, out);
        putc(' ', out);
        put_count(out, e->v[0]);
        putc(' ', out);
        put_count(out, e->v[1]);
        putc('\n', out);
        if (e->v[0] != e->v[1])
            differ = 1;
    }
    free(idx);
    return differ;
}

/* ---- report ----------------------------------------------------------- */

struct row {
    const char *name;
    size_t len;
    double self[2], total[2];
    double score;
};

static int cmp_rows(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

int diff_write_report(struct diff *d, FILE *out)
{
    normalize(d);
    struct smap self, total;
    smap_init(&self);
    smap_init(&total);
    int differ = 0, rc = -1;
    struct row *rows = NULL;
    for (size_t i = 0; i < d->map.n; i++) {
        const struct smap_entry *e = &d->map.e[i];
        const char *k = smap_key(&d->map, e);
        if (e->v[0] != e->v[1])
            differ = 1;
        const char *leaf = k, *fr;
        size_t leaf_len = 0;
        for (size_t at = 0, fl; folded_next_frame(k, e->len, &at, &fr, &fl);) {
            struct smap_entry *t = smap_get(&total, fr, fl);
            if (!t)
                goto out;
            if (t->n != i + 1) { /* once per stack, even when recursive */
                t->n = i + 1;
                t->v[0] += e->v[0];
                t->v[1] += e->v[1];
            }
            leaf = fr;
            leaf_len = fl;
        }
        struct smap_entry *s = smap_get(&self, leaf, leaf_len);
        if (!s)
            goto out;
        s->v[0] += e->v[0];
        s->v[1] += e->v[1];
    }
    rows = calloc(total.n + 1, sizeof *rows);
    if (!rows)
        goto out;
    double t0 = d->o->normalize && d->total[0] > 0 ? d->total[1] : d->total[0];
    double t1 = d->total[1];
    for (size_t i = 0; i < total.n; i++) {
        const struct smap_entry *t = &total.e[i];
        struct row *r = &rows[i];
        r->name = smap_key(&total, t);
        r->len = t->len;
        struct smap_entry *s = smap_get(&self, r->name, r->len);
        if (!s)
            goto out;
        double p0 = t0 > 0 ? 100 / t0 : 0, p1 = t1 > 0 ? 100 / t1 : 0;
        r->self[0] = s->v[0] * p0, r->self[1] = s->v[1] * p1;
        r->total[0] = t->v[0] * p0, r->total[1] = t->v[1] * p1;
        double ds = fabs(r->self[1] - r->self[0]), dt = fabs(r->total[1] - r->total[0]);
        r->score = ds > dt ? ds : dt;
    }
    qsort(rows, total.n, sizeof *rows, cmp_rows);
    fprintf(out, "%-26s  %-26s  %s\n", "self %", "total %", "function");
    fprintf(out, "%8s %8s %8s  %8s %8s %8s\n", "before", "after", "delta", "before", "after", "delta");
    for (size_t i = 0; i < total.n && i < d->o->top; i++) {
        const struct row *r = &rows[i];
        if (r->score < 0.005)
            break;
        fprintf(out, "%8.2f %8.2f %+8.2f  %8.2f %8.2f %+8.2f  ", r->self[0], r->self[1],
                r->self[1] - r->self[0], r->total[0], r->total[1], r->total[1] - r->total[0]);
        fwrite(r->name, 1, r->len, out);
        putc('\n', out);
    }
    rc = differ;
out:
    free(rows);
    smap_free(&self);
    smap_free(&total);
    return rc;
}
