/* svg.c - layout and SVG output of a flame graph.
 *
 * Frames are laid out like flamegraph.pl's (same sizes, paddings, label
 * fitting, titles), but every frame carries its exact position in samples
 * (data-s, data-w) and the number of frames drawn above it (data-n, its
 * descendants follow it in document order), which the script uses for
 * exact zoom and search. */
#include "flame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cli.h"
#include "tr.h"

#define XPAD 10
#define FRAMEPAD 1

/* ---- output helpers ------------------------------------------------- */

/* A number the way Perl prints it: %.15g. */
static void put_num(FILE *out, double v)
{
    char b[64];
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(b, sizeof b, "%.0f", v);
    else
        snprintf(b, sizeof b, "%.15g", v);
    fputs(b, out);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c < 0xe0)
        k = 2;
    else if (c >= 0xe0 && c < 0xf0)
        k = 3;
    else if (c >= 0xf0 && c < 0xf5)
        k = 4;
    else
        return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (k == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
        return 0;
    if (k == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)))
        return 0;
    return k;
}

/* 1 if the k-byte UTF-8 sequence at s is U+FFFE or U+FFFF: valid UTF-8, but
 * no character XML allows (XML 1.0, production Char). */
static int xml_nonchar(const unsigned char *s, size_t k)
{
    return k == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe;
}

/* XML-escaped text; invalid UTF-8, control characters and the characters
 * XML does not allow become U+FFFD.
 * max_chars: stop after that many characters (SIZE_MAX: all). */
static void put_xml(FILE *out, const char *s, size_t n, int attr, size_t max_chars)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t chars = 0;
    for (size_t i = 0; i < n && chars < max_chars; chars++) {
        unsigned char c = p[i];
        size_t k = utf8_len(p + i, n - i);
        if (k == 0 || (c < 0x20 && c != '\t') || c == 0x7f || xml_nonchar(p + i, k)) {
            fputs("\xef\xbf\xbd", out);
            i += k ? k : 1;
            continue;
        }
        if (k > 1) {
            fwrite(p + i, 1, k, out);
        } else if (c == '&') {
            fputs("&amp;", out);
        } else if (c == '<') {
            fputs("&lt;", out);
        } else if (c == '>') {
            fputs("&gt;", out);
        } else if (c == '"' && attr) {
            fputs("&quot;", out);
        } else {
            putc(c, out);
        }
        i += k;
    }
}

static size_t count_chars(const char *s, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; chars++) {
        size_t k = utf8_len((const unsigned char *)s + i, n - i);
        i += k ? k : 1;
    }
    return chars;
}

/* A JavaScript string literal, safe inside CDATA. */
static void put_js_string(FILE *out, const char *s)
{
    putc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&' || *p == ']')
            fprintf(out, "\\u%04x", *p);
        else if (xml_nonchar(p, strnlen((const char *)p, 3))) {
            fprintf(out, "\\u%s", p[2] == 0xbe ? "fffe" : "ffff");
            p += 2;
        } else
            putc(*p, out);
    }
    putc('"', out);
}

/* "1,234,567" (with the fraction when not an integer) */
static void put_count_commas(FILE *out, double v)
{
    char b[64];
    int integral = fabs(v - round(v)) < 1e-9 || fabs(v) >= 1e15;
    snprintf(b, sizeof b, integral ? "%.0f" : "%.2f", v);
    char *dot = strchr(b, '.');
    size_t ilen = dot ? (size_t)(dot - b) : strlen(b);
    size_t start = b[0] == '-' ? 1 : 0;
    fwrite(b, 1, start, out);
    for (size_t i = start; i < ilen; i++) {
        putc(b[i], out);
        size_t rest = ilen - i - 1;
        if (rest > 0 && rest % 3 == 0)
            putc(',', out);
    }
    if (dot)
        fputs(dot, out);
}

/* The name without a trailing annotation _[k] _[w] _[i] _[j]. */
static size_t display_len(const char *s, size_t n)
{
    if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
        strchr("kwij", s[n - 2]) && s[n - 2])
        return n - 4;
    return n;
}

/* ---- name attributes (--nameattr) and consistent palette (--cp) ------ */

struct attrs {
    struct smap map;      /* function -> index into set */
    char **set;           /* "k=v\tk=v" strings */
    size_t n, cap;
};

static const char *attr_get(const char *set, const char *key, size_t *len)
{
    size_t kl = strlen(key);
    for (const char *p = set; *p;) {
        const char *tab = strchr(p, '\t');
        size_t fl = tab ? (size_t)(tab - p) : strlen(p);
        if (fl > kl && !memcmp(p, key, kl) && p[kl] == '=') {
            *len = fl - kl - 1;
            return p + kl + 1;
        }
        p += fl + (tab ? 1 : 0);
    }
    return NULL;
}

static int attrs_load(struct attrs *a, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_warn("%s: %m", path);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned long no = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        no++;
        if (line[n - 1] == '\n')
            line[--n] = 0;
        char *tab = strchr(line, '\t');
        if (!tab) {
            cli_warn("%s:%lu: invalid format (no tab after the function name)", path, no);
            free(line);
            fclose(f);
            return -1;
        }
        struct smap_entry *e = smap_get(&a->map, line, (size_t)(tab - line));
        if (!e || array_reserve(&a->set, &a->cap, a->n + 1, sizeof *a->set, 64) < 0) {
            free(line);
            fclose(f);
            return -1;
        }
        a->set[a->n] = strdup(tab + 1);
        e->n = ++a->n;
    }
    free(line);
    fclose(f);
    return 0;
}

static void attrs_free(struct attrs *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->set[i]);
    free(a->set);
    smap_free(&a->map);
}

static void palette_file_load(struct smap *m, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = 0;
        char *arrow = strstr(line, "->");
        int r, g, b;
        if (!arrow || sscanf(arrow + 2, "rgb(%d,%d,%d)", &r, &g, &b) != 3)
            continue;
        struct smap_entry *e = smap_get(m, line, (size_t)(arrow - line));
        if (e)
            e->n = 1u << 24 | (uint64_t)(r & 255) << 16 | (uint64_t)(g & 255) << 8 | (uint64_t)(b & 255);
    }
    free(line);
    fclose(f);
}

static int palette_file_save(struct smap *m, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_warn("%s: %m", path);
        return -1;
    }
    size_t *idx = smap_sorted(m);
    for (size_t i = 0; idx && i < m->n; i++) {
        const struct smap_entry *e = &m->e[idx[i]];
        fwrite(smap_key(m, e), 1, e->len, f);
        fprintf(f, "->rgb(%d,%d,%d)\n", (int)(e->n >> 16 & 255), (int)(e->n >> 8 & 255),
                (int)(e->n & 255));
    }
    free(idx);
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- layout --------------------------------------------------------- */

struct layout {
    struct flame *f;
    const struct flame_opts *o;
    double timemax, widthpertime, minwidth_time;
    uint32_t *rank;       /* name id -> bytewise rank */
    uint32_t *sub;        /* node -> number of drawn descendants */
    size_t depthmax;
    double maxdelta;
    double imageheight, ypad1, ypad2, ypad3;
    struct smap palette;  /* --cp */
    struct attrs attrs;
};

static struct layout *sort_ctx;

static int cmp_child(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t rx = sort_ctx->rank[sort_ctx->f->n[x].name], ry = sort_ctx->rank[sort_ctx->f->n[y].name];
    return rx < ry ? -1 : rx > ry;
}

static int drawn(const struct layout *L, uint32_t node)
{
    return !(L->f->n[node].w < L->minwidth_time);
}

static int sort_children(struct layout *L, uint32_t node, uint32_t **tmp, size_t *tcap)
{
    struct flame *f = L->f;
    size_t k = 0;
    for (uint32_t c = f->n[node].child; c; c = f->n[c].sib) {
        if (k == *tcap && array_reserve(tmp, tcap, k + 1, sizeof **tmp, 256) < 0)
            return -1;
        (*tmp)[k++] = c;
    }
    if (k < 2)
        return 0;
    sort_ctx = L;
    qsort(*tmp, k, sizeof **tmp, cmp_child);
    f->n[node].child = (*tmp)[0];
    for (size_t i = 0; i + 1 < k; i++)
        f->n[(*tmp)[i]].sib = (*tmp)[i + 1];
    f->n[(*tmp)[k - 1]].sib = 0;
    f->n[node].last = (*tmp)[k - 1];
    return 0;
}

/* Sort the children of every drawn node by name (not for flame charts),
 * count drawn descendants, find the depth and the largest change. */
static int measure(struct layout *L)
{
    struct flame *f = L->f;
    uint32_t *tmp = NULL;
    size_t tcap = 0;
    struct it { uint32_t node, next; size_t depth, index; } *st = NULL;
    size_t sn = 0, scap = 0, index = 0;
    int rc = -1;
    if (!drawn(L, 0))
        return 0;
    uint32_t push = 0;
    size_t pdepth = 0;
    for (;;) {
        if (push != UINT32_MAX) {
            if (!L->o->flamechart && sort_children(L, push, &tmp, &tcap) < 0)
                goto out;
            if (sn == scap && array_reserve(&st, &scap, sn + 1, sizeof *st, 256) < 0)
                goto out;
            st[sn++] = (struct it){push, f->n[push].child, pdepth, index++};
            if (push && f->diff && fabs(f->diff[push].d) > L->maxdelta)
                L->maxdelta = fabs(f->diff[push].d);
            if (pdepth > L->depthmax)
                L->depthmax = pdepth;
            push = UINT32_MAX;
        }
        if (sn == 0)
            break;
        struct it *t = &st[sn - 1];
        uint32_t c = t->next;
        while (c && !drawn(L, c))
            c = f->n[c].sib;
        if (!c) {
            L->sub[t->node] = (uint32_t)(index - t->index - 1);
            sn--;
            continue;
        }
        t->next = f->n[c].sib;
        push = c;
        pdepth = t->depth + 1;
    }
    rc = 0;
out:
    free(tmp);
    free(st);
    return rc;
}

static void put_frame(struct layout *L, FILE *out, uint32_t node, size_t depth, double stime,
                      int waker)
{
    struct flame *f = L->f;
    const struct flame_opts *o = L->o;
    const struct fnode *x = &f->n[node];
    const struct smap_entry *ne = &f->names.e[x->name];
    const char *name = smap_key(&f->names, ne);
    size_t nlen = ne->len, dlen = display_len(name, nlen);
    double w = node == 0 ? L->timemax : x->w;
    double etime = stime + w;
    double x1 = XPAD + stime * L->widthpertime, x2 = XPAD + etime * L->widthpertime;
    double y1, y2;
    if (!o->inverted) {
        y1 = L->imageheight - L->ypad2 - (double)(depth + 1) * o->frameheight + FRAMEPAD;
        y2 = L->imageheight - L->ypad2 - (double)depth * o->frameheight;
    } else {
        double top = L->ypad1 + (o->subtitle[0] ? L->ypad3 : 0);
        y1 = top + (double)depth * o->frameheight;
        y2 = top + (double)(depth + 1) * o->frameheight - FRAMEPAD;
    }
    const char *aset = NULL;
    if (L->attrs.n) {
        struct smap_entry *ae = smap_get(&L->attrs.map, name, nlen);
        if (ae && ae->n)
            aset = L->attrs.set[ae->n - 1];
    }
    size_t al = 0;
    const char *href = aset ? attr_get(aset, "href", &al) : NULL;
    size_t hl = al;
    fputs(href ? "<a" : "<g", out);
    if (href) {
        fputs(" xlink:href=\"", out);
        fwrite(href, 1, hl, out);
        const char *tg = attr_get(aset, "target", &al);
        fputs("\" target=\"", out);
        if (tg)
            fwrite(tg, 1, al, out);
        else
            fputs("_top", out);
        putc('"', out);
        const char *ax = attr_get(aset, "a_extra", &al);
        if (ax) {
            putc(' ', out);
            fwrite(ax, 1, al, out);
        }
    }
    if (aset) {
        static const char *const keys[] = {"id", "class"};
        for (int i = 0; i < 2; i++) {
            const char *v = attr_get(aset, keys[i], &al);
            if (v) {
                fprintf(out, " %s=\"", keys[i]);
                fwrite(v, 1, al, out);
                putc('"', out);
            }
        }
        const char *gx = attr_get(aset, "g_extra", &al);
        if (gx) {
            putc(' ', out);
            fwrite(gx, 1, al, out);
        }
    }
    fputs(" data-s=\"", out);
    put_num(out, stime);
    fputs("\" data-w=\"", out);
    put_num(out, w);
    fprintf(out, "\" data-n=\"%u\"><title>", L->sub[node]);
    const char *tv = aset ? attr_get(aset, "title", &al) : NULL;
    if (tv) {
        fwrite(tv, 1, al, out);
    } else if (node == 0) {
        fputs("all (", out);
        put_count_commas(out, w * o->factor);
        putc(' ', out);
        put_xml(out, o->countname, strlen(o->countname), 0, SIZE_MAX);
        fputs(", 100%)", out);
    } else {
        put_xml(out, name, dlen, 0, SIZE_MAX);
        fputs(" (", out);
        put_count_commas(out, w * o->factor);
        putc(' ', out);
        put_xml(out, o->countname, strlen(o->countname), 0, SIZE_MAX);
        fprintf(out, ", %.2f%%", L->timemax > 0 ? 100 * w / L->timemax : 0);
        if (f->ncounts == 2) {
            const struct fdiff *xd = &f->diff[x - f->n];
            double d = o->negate ? -xd->d : xd->d;
            double dp = L->timemax > 0 ? 100 * d / L->timemax : 0;
            if (dp == 0)
                dp = 0; /* never "-0.00" */
            fprintf(out, "; %s%.2f%%; before ", d > 0 ? "+" : "", dp);
            put_count_commas(out, xd->w1 * o->factor);
        }
        putc(')', out);
    }
    fputs("</title>", out);
    char color[48];
    if (nlen == 2 && !memcmp(name, "--", 2))
        snprintf(color, sizeof color, "rgb(160,160,160)");
    else if (nlen == 1 && name[0] == '-')
        snprintf(color, sizeof color, "rgb(200,200,200)");
    else if (f->ncounts == 2)
        palette_delta(f->diff[x - f->n].d, L->maxdelta, o->negate, color, sizeof color);
    else if (o->cp) {
        struct smap_entry *pe = smap_get(&L->palette, name, nlen);
        if (pe && !pe->n) {
            palette_color(&o->color, name, nlen, waker, color, sizeof color);
            int r, g, b;
            if (sscanf(color, "rgb(%d,%d,%d)", &r, &g, &b) == 3)
                pe->n = 1u << 24 | (uint64_t)r << 16 | (uint64_t)g << 8 | (uint64_t)b;
        }
        if (pe)
            snprintf(color, sizeof color, "rgb(%d,%d,%d)", (int)(pe->n >> 16 & 255),
                     (int)(pe->n >> 8 & 255), (int)(pe->n & 255));
        else
            palette_color(&o->color, name, nlen, waker, color, sizeof color);
    } else {
        palette_color(&o->color, name, nlen, waker, color, sizeof color);
    }
    char xs1[32], xs2[32];
    snprintf(xs1, sizeof xs1, "%.1f", x1);
    snprintf(xs2, sizeof xs2, "%.1f", x2);
    fprintf(out, "<rect x=\"%s\" y=\"", xs1);
    put_num(out, y1);
    fprintf(out, "\" width=\"%.1f\" height=\"", atof(xs2) - atof(xs1));
    put_num(out, y2 - y1);
    fprintf(out, "\" fill=\"%s\"/>", color);
    size_t chars = (size_t)((x2 - x1) / (o->fontsize * o->fontwidth));
    if (chars >= 3) {
        const char *label = node == 0 ? "all" : name;
        size_t ll = node == 0 ? 3 : dlen;
        size_t total = count_chars(label, ll);
        fprintf(out, "<text x=\"%.2f\" y=\"", x1 + 3);
        put_num(out, 3 + (y1 + y2) / 2);
        fputs("\">", out);
        if (chars < total) {
            put_xml(out, label, ll, 0, chars - 2);
            fputs("..", out);
        } else {
            put_xml(out, label, ll, 0, SIZE_MAX);
        }
        fputs("</text>", out);
    }
    fputs(href ? "</a>\n" : "</g>\n", out);
}

static int put_frames(struct layout *L, FILE *out)
{
    struct flame *f = L->f;
    struct it { uint32_t node, next; size_t depth; double stime, cx; int waker; } *st = NULL;
    size_t sn = 0, scap = 0;
    if (!drawn(L, 0))
        return 0;
    if (array_reserve(&st, &scap, 1, sizeof *st, 256) < 0)
        return -1;
    st[sn++] = (struct it){0, f->n[0].child, 0, 0, 0, 0};
    put_frame(L, out, 0, 0, 0, 0);
    while (sn > 0) {
        struct it *t = &st[sn - 1];
        uint32_t c = t->next;
        if (!c) {
            sn--;
            continue;
        }
        t->next = f->n[c].sib;
        double cs = L->o->flamechart ? f->start[c] : t->cx; /* a flame chart has gaps: self time */
        t->cx += f->n[c].w;
        if (!drawn(L, c))
            continue;
        const struct smap_entry *ne = &f->names.e[f->n[c].name];
        int waker = t->waker || (ne->len == 2 && !memcmp(smap_key(&f->names, ne), "--", 2));
        put_frame(L, out, c, t->depth + 1, cs, waker);
        if (sn == scap && array_reserve(&st, &scap, sn + 1, sizeof *st, 256) < 0) {
            free(st);
            return -1;
        }
        st[sn] = (struct it){c, f->n[c].child, st[sn - 1].depth + 1, cs, cs, waker};
        sn++;
    }
    free(st);
    return 0;
}

static int make_ranks(struct layout *L)
{
    size_t *idx = smap_sorted(&L->f->names);
    L->rank = malloc((L->f->names.n + 1) * sizeof *L->rank);
    L->sub = calloc(L->f->nn + 1, sizeof *L->sub);
    if (!idx || !L->rank || !L->sub) {
        free(idx);
        return -1;
    }
    for (size_t i = 0; i < L->f->names.n; i++)
        L->rank[idx[i]] = (uint32_t)i;
    free(idx);
    return 0;
}

static void put_header(struct layout *L, FILE *out)
{
    const struct flame_opts *o = L->o;
    const char *title = o->title[0] ? o->title
                        : o->flamechart ? "Flame Chart"
                        : o->inverted   ? "Icicle Graph"
                                        : "Flame Graph";
    const char *bg = o->bgcolors[0] ? o->bgcolors : palette_default_bg(o->color.pal);
    const char *bg1 = "#eeeeee", *bg2 = "#eeeeb0";
    if (!strcmp(bg, "blue"))
        bg2 = "#e0e0ff";
    else if (!strcmp(bg, "green"))
        bg1 = "#eef2ee", bg2 = "#e0ffe0";
    else if (!strcmp(bg, "grey") || !strcmp(bg, "gray"))
        bg1 = "#f8f8f8", bg2 = "#e8e8e8";
    else if (bg[0] == '#')
        bg1 = bg2 = bg;
    int w = o->width;
    fputs("<?xml version=\"1.0\"", out);
    if (o->encoding) {
        fputs(" encoding=\"", out);
        put_xml(out, o->encoding, strlen(o->encoding), 1, SIZE_MAX);
        putc('"', out);
    }
    fputs(" standalone=\"no\"?>\n"
          "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
          "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n", out);
    fprintf(out, "<svg version=\"1.1\" width=\"%d\" height=\"", w);
    put_num(out, L->imageheight);
    fprintf(out, "\" onload=\"init(evt)\" viewBox=\"0 0 %d ", w);
    put_num(out, L->imageheight);
    fputs("\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
          "<!-- Flame graph made by tr-flame (tr " TR_LIB_VERSION "); the frames follow in "
          "document order, each group's data-n frames after it are its descendants. -->\n"
          "<!-- NOTES: ", out);
    /* notes: "--" is not allowed in an XML comment */
    for (const char *p = o->notes ? o->notes : ""; *p; p++) {
        putc(*p, out);
        if (*p == '-' && p[1] == '-')
            putc(' ', out);
    }
    fputs(" -->\n", out);
    fprintf(out, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
                 "\t\t<stop stop-color=\"%s\" offset=\"5%%\" />\n"
                 "\t\t<stop stop-color=\"%s\" offset=\"95%%\" />\n"
                 "\t</linearGradient>\n</defs>\n", bg1, bg2);
    fputs("<style type=\"text/css\">\n\ttext { font-family:", out);
    for (const char *p = o->fonttype; *p; p++)
        if (!strchr(";{}<>&\\", *p))
            putc(*p, out);
    fputs("; font-size:", out);
    put_num(out, o->fontsize);
    fputs("px; fill:rgb(0,0,0); }\n\t#title { text-anchor:middle; font-size:", out);
    put_num(out, o->fontsize + 5);
    fputs("px; }\n", out);
    fputs(flame_style, out);
    fputs("</style>\n<script type=\"text/ecmascript\">\n<![CDATA[\nvar cfg = {xpad: 10, width: ", out);
    fprintf(out, "%d, fontsize: ", w);
    put_num(out, o->fontsize);
    fputs(", fontwidth: ", out);
    put_num(out, o->fontwidth);
    fputs(", nametype: ", out);
    put_js_string(out, o->nametype);
    fputs(", searchcolor: \"rgb(230,0,230)\"};\n", out);
    fputs(flame_script, out);
    fputs("]]>\n</script>\n", out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"", w);
    put_num(out, L->imageheight);
    fputs("\" fill=\"url(#background)\"/>\n", out);
    fprintf(out, "<text id=\"title\" x=\"%d\" y=\"", w / 2);
    put_num(out, o->fontsize * 2);
    fputs("\">", out);
    put_xml(out, title, strlen(title), 0, SIZE_MAX);
    fputs("</text>\n", out);
    if (o->subtitle[0]) {
        fprintf(out, "<text id=\"subtitle\" x=\"%d\" y=\"", w / 2);
        put_num(out, o->fontsize * 4);
        fputs("\">", out);
        put_xml(out, o->subtitle, strlen(o->subtitle), 0, SIZE_MAX);
        fputs("</text>\n", out);
    }
    double ybottom = L->imageheight - L->ypad2 / 2;
    fputs("<text id=\"details\" x=\"10\" y=\"", out);
    put_num(out, ybottom);
    fputs("\"> </text>\n<text id=\"unzoom\" class=\"hide\" x=\"10\" y=\"", out);
    put_num(out, o->fontsize * 2);
    fprintf(out, "\">Reset Zoom</text>\n<text id=\"search\" x=\"%d\" y=\"", w - XPAD - 100);
    put_num(out, o->fontsize * 2);
    fprintf(out, "\">Search</text>\n<text id=\"ignorecase\" x=\"%d\" y=\"", w - XPAD - 16);
    put_num(out, o->fontsize * 2);
    fprintf(out, "\">ic</text>\n<text id=\"matched\" x=\"%d\" y=\"", w - XPAD - 100);
    put_num(out, ybottom);
    fputs("\"> </text>\n", out);
}

int flame_svg(struct flame *f, FILE *out)
{
    const struct flame_opts *o = f->o;
    struct layout L;
    memset(&L, 0, sizeof L);
    L.f = f;
    L.o = o;
    smap_init(&L.palette);
    smap_init(&L.attrs.map);
    int status = CLI_EXIT_FAIL;
    double time = f->n[0].w;
    if (f->lines == 0) {
        cli_warn("no stacks in the input");
        goto out;
    }
    if (!(time > 0)) {
        cli_warn("all counts are zero: nothing to draw");
        goto out;
    }
    L.timemax = time;
    if (o->total > 0) {
        if (o->total < time) {
            if (o->total / time > 0.02)
                cli_warn("--total %g is less than the actual total %g: ignored", o->total, time);
        } else {
            L.timemax = o->total;
        }
    }
    L.widthpertime = (o->width - 2.0 * XPAD) / L.timemax;
    L.minwidth_time = o->minwidth_pct ? L.timemax * o->minwidth / 100 : o->minwidth / L.widthpertime;
    if (o->nameattr_file && attrs_load(&L.attrs, o->nameattr_file) < 0)
        goto out;
    if (o->cp)
        palette_file_load(&L.palette, o->cp_file);
    if (make_ranks(&L) < 0 || measure(&L) < 0) {
        cli_warn("out of memory");
        goto out;
    }
    if (L.maxdelta < 1)
        L.maxdelta = 1;
    L.ypad1 = o->fontsize * 3;
    L.ypad2 = o->fontsize * 2 + 10;
    L.ypad3 = o->fontsize * 2;
    L.imageheight = (double)(L.depthmax + 1) * o->frameheight + L.ypad1 + L.ypad2;
    if (o->subtitle[0])
        L.imageheight += L.ypad3;
    put_header(&L, out);
    fputs("<g id=\"frames\">\n", out);
    if (put_frames(&L, out) < 0) {
        cli_warn("out of memory");
        goto out;
    }
    fputs("</g>\n</svg>\n", out);
    status = CLI_EXIT_OK;
    if (o->cp && palette_file_save(&L.palette, o->cp_file) < 0)
        status = CLI_EXIT_FAIL;
out:
    free(L.rank);
    free(L.sub);
    smap_free(&L.palette);
    attrs_free(&L.attrs);
    return status;
}
