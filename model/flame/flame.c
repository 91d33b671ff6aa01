/* flame.c - folded text into a tree of frames. */
#include "flame.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cli.h"
#include "tr.h"

#define WIDE 8 /* children a node's list holds before they go into the table */

void flame_opts_init(struct flame_opts *o)
{
    memset(o, 0, sizeof *o);
    o->fonttype = "Verdana";
    o->width = 1200;
    o->frameheight = 16;
    o->fontsize = 12;
    o->fontwidth = 0.59;
    o->minwidth = 0.1;
    o->nametype = "Function:";
    o->countname = "samples";
    o->title = "";
    o->subtitle = "";
    o->bgcolors = "";
    o->cp_file = "palette.map";
    o->factor = 1;
}

static uint32_t new_node(struct flame *f, uint32_t name)
{
    if (f->nn == f->cap &&
        (f->nn >= UINT32_MAX || array_reserve(&f->n, &f->cap, f->nn + 1, sizeof *f->n, 4096) < 0)) {
        f->oom = 1;
        return 0;
    }
    if (f->ncounts == 2 && f->nn >= f->diffcap &&
        array_reserve(&f->diff, &f->diffcap, f->nn + 1, sizeof *f->diff, 4096) < 0) {
        f->oom = 1;
        return 0;
    }
    struct fnode *x = &f->n[f->nn];
    memset(x, 0, sizeof *x);
    x->name = name;
    if (f->diff)
        memset(&f->diff[f->nn], 0, sizeof *f->diff);
    return (uint32_t)f->nn++;
}

int flame_init(struct flame *f, const struct flame_opts *o)
{
    memset(f, 0, sizeof *f);
    f->o = o;
    smap_init(&f->names);
    struct smap_entry *e = smap_get(&f->names, "", 0);
    if (!e)
        return -1;
    new_node(f, 0); /* node 0: the root, "all" */
    return f->oom ? -1 : 0;
}

void flame_free(struct flame *f)
{
    smap_free(&f->names);
    free(f->n);
    free(f->diff);
    free(f->ckey);
    free(f->cval);
    free(f->prev);
    free(f->pspan);
    free(f->ppath);
    free(f->span);
    free(f->start);
}

static int grow_children(struct flame *f)
{
    size_t ns = f->nslot ? f->nslot * 2 : 8192;
    uint64_t *k = calloc(ns, sizeof *k);
    uint32_t *v = malloc(ns * sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < f->nslot; i++) {
        if (!f->ckey[i])
            continue;
        size_t j = (size_t)(smap_hash(&f->ckey[i], 8) & (ns - 1));
        while (k[j])
            j = (j + 1) & (ns - 1);
        k[j] = f->ckey[i];
        v[j] = f->cval[i];
    }
    free(f->ckey);
    free(f->cval);
    f->ckey = k;
    f->cval = v;
    f->nslot = ns;
    return 0;
}

static void append_child(struct flame *f, uint32_t parent, uint32_t c)
{
    struct fnode *p = &f->n[parent];
    if (p->last)
        f->n[p->last].sib = c;
    else
        p->child = c;
    p->last = c;
}

/* The child of parent named name in the table of wide parents' children:
 * when missing, made (0: a new node, first in parent's list) goes in. */
static uint32_t table_child(struct flame *f, uint32_t parent, uint32_t name, uint32_t made)
{
    if ((f->nwide + 1) * 2 > f->nslot && grow_children(f) < 0) {
        f->oom = 1;
        return 0;
    }
    uint64_t key = ((uint64_t)parent << 32 | name) + 1;
    size_t j = (size_t)(smap_hash(&key, 8) & (f->nslot - 1));
    while (f->ckey[j]) {
        if (f->ckey[j] == key)
            return f->cval[j];
        j = (j + 1) & (f->nslot - 1);
    }
    if (!made) {
        if (!(made = new_node(f, name)))
            return 0;
        f->n[made].sib = f->n[parent].child;
        f->n[parent].child = made;
    }
    f->ckey[j] = key;
    f->cval[j] = made;
    f->nwide++;
    return made;
}

/* The child of parent named name (created when missing).  A node's
 * children are a list, the one last found first (svg.c sorts them); the
 * children of a node with more than WIDE of them are found through a table
 * instead, so most nodes cost no table slot at all. */
static uint32_t child(struct flame *f, uint32_t parent, uint32_t name)
{
    if (f->o->flamechart) { /* a new frame: what it shares with the previous stack was reused */
        uint32_t c = new_node(f, name);
        if (!c)
            return 0;
        if (array_reserve(&f->start, &f->start_cap, f->nn, sizeof *f->start, 4096) < 0) {
            f->oom = 1;
            return 0;
        }
        append_child(f, parent, c);
        f->start[c] = f->time;
        return c;
    }
    struct fnode *n = f->n;
    uint32_t k = 0;
    for (uint32_t prev = 0, c = n[parent].child; c; prev = c, c = n[c].sib) {
        if (n[c].name == name) {
            if (prev) { /* to the front */
                n[prev].sib = n[c].sib;
                n[c].sib = n[parent].child;
                n[parent].child = c;
            }
            return c;
        }
        if (++k == WIDE && n[c].sib) /* more: a wide parent, its children are in the table */
            return table_child(f, parent, name, 0);
    }
    uint32_t c = new_node(f, name);
    if (!c)
        return 0;
    f->n[c].sib = f->n[parent].child;
    f->n[parent].child = c;
    for (uint32_t x = c; k == WIDE && x; x = f->n[x].sib) /* WIDE + 1 children now: into the table */
        if (!table_child(f, parent, f->n[x].name, x))
            return 0;
    return c;
}

/* Add one stack: frames split at ';' (trailing empty frames dropped, as
 * Perl's split does), reversed with --reverse. */
static void add_stack(struct flame *f, const char *s, size_t len, double c1, double c2)
{
    size_t nf = 0;
    const char *fr;
    for (size_t at = 0, fl; folded_next_frame(s, len, &at, &fr, &fl);) {
        if (2 * nf + 2 > f->scap &&
            array_reserve(&f->span, &f->scap, 2 * nf + 2, sizeof *f->span, 64) < 0) {
            f->oom = 1;
            return;
        }
        f->span[2 * nf] = (size_t)(fr - s);
        f->span[2 * nf + 1] = fl;
        nf++;
    }
    while (nf > 0 && f->span[2 * nf - 1] == 0)
        nf--;
    if (f->o->reverse) {
        for (size_t i = 0; i < nf / 2; i++) {
            size_t j = nf - 1 - i, a = f->span[2 * i], b = f->span[2 * i + 1];
            f->span[2 * i] = f->span[2 * j];
            f->span[2 * i + 1] = f->span[2 * j + 1];
            f->span[2 * j] = a;
            f->span[2 * j + 1] = b;
        }
    }
    double w = f->ncounts == 2 ? c2 : c1;
    f->time = f->n[0].w;
    f->n[0].w += w;
    if (f->diff)
        f->diff[0].w1 += c1;
    /* frames shared with the previous stack keep their nodes (in a flame
     * chart, the others are new: a frame spans one run of stacks in time) */
    size_t same = 0;
    while (same < nf && same < f->pn && f->span[2 * same + 1] == f->pspan[2 * same + 1] &&
           !memcmp(s + f->span[2 * same], f->prev + f->pspan[2 * same], f->span[2 * same + 1]))
        same++;
    if ((nf + 1 > f->ppcap && array_reserve(&f->ppath, &f->ppcap, nf + 1, sizeof *f->ppath, 64) < 0) ||
        (2 * nf + 2 > f->pcap && array_reserve(&f->pspan, &f->pcap, 2 * nf + 2, sizeof *f->pspan, 64) < 0)) {
        f->oom = 1;
        return;
    }
    uint32_t cur = 0;
    for (size_t i = 0; i < nf; i++) {
        if (i < same) {
            cur = f->ppath[i];
        } else {
            struct smap_entry *e = smap_get(&f->names, s + f->span[2 * i], f->span[2 * i + 1]);
            if (!e) {
                f->oom = 1;
                return;
            }
            cur = child(f, cur, (uint32_t)(e - f->names.e));
            if (!cur)
                return;
            f->ppath[i] = cur;
        }
        f->n[cur].w += w;
        if (f->diff)
            f->diff[cur].w1 += c1;
    }
    if (f->diff)
        f->diff[cur].d += c2 - c1;
    /* remember this stack */
    if (len + 1 > f->prev_cap && array_reserve(&f->prev, &f->prev_cap, len + 1, 1, 256) < 0) {
        f->oom = 1;
        return;
    }
    memcpy(f->prev, s, len);
    memcpy(f->pspan, f->span, 2 * nf * sizeof *f->span);
    f->pn = nf;
}

int flame_add(struct flame *f, const char *stack, size_t len, double count)
{
    f->ncounts = 1;
    f->lines++;
    add_stack(f, stack, len, count, 0);
    return f->oom ? -1 : 0;
}

static int bad_line(struct flame *f, struct lines *l, const char *shown, const char *why)
{
    if (!f->o->lenient) {
        cli_warn("%s:%llu: %s", shown, (unsigned long long)l->line_no, why);
        return CLI_EXIT_FAIL;
    }
    if (!f->skipped++)
        f->first_skipped = l->line_no;
    return 0;
}

int flame_read(struct flame *f, int fd, const char *shown)
{
    struct lines l;
    lines_init(&l, fd, f->o->max_line);
    char *s;
    size_t len;
    int rc, status = CLI_EXIT_OK;
    char why[160];
    const char *head;
    size_t hl;
    if (lines_peek(&l, TR_SNIFF_BYTES, &head, &hl) == 0 && tr_is_trace(head, hl)) {
        cli_warn("%s: a tr trace, not folded stacks: fold it first (tr-fold %s | tr-flame)", shown,
                 shown);
        lines_free(&l);
        return CLI_EXIT_FAIL;
    }
    while ((rc = lines_next(&l, &s, &len)) > 0) {
        struct folded_line fl;
        int pr = folded_parse(s, len, f->ncounts == 1 ? 0 : f->ncounts, &fl);
        if (pr == FOLDED_BLANK)
            continue;
        if (pr < 0) {
            if ((status = bad_line(f, &l, shown, folded_strerror(pr))))
                break;
            continue;
        }
        if (!f->ncounts) {
            f->ncounts = fl.ncounts;
            f->ncounts_line = l.line_no;
            if (f->ncounts == 2) { /* the root so far */
                if (array_reserve(&f->diff, &f->diffcap, f->nn, sizeof *f->diff, 4096) < 0) {
                    cli_warn("%s: out of memory", shown);
                    status = CLI_EXIT_FAIL;
                    break;
                }
                memset(f->diff, 0, f->nn * sizeof *f->diff);
            }
        } else if (fl.ncounts != f->ncounts) {
            snprintf(why, sizeof why, "%d count%s, but line %llu has %d (mixed one- and two-count lines)",
                     fl.ncounts, fl.ncounts > 1 ? "s" : "", (unsigned long long)f->ncounts_line,
                     f->ncounts);
            if ((status = bad_line(f, &l, shown, why)))
                break;
            continue;
        }
        f->lines++;
        add_stack(f, fl.stack, fl.len, fl.count[0], fl.count[1]);
        if (f->oom) {
            cli_warn("%s: out of memory", shown);
            status = CLI_EXIT_FAIL;
            break;
        }
    }
    char msg[160];
    if (lines_error(&l, rc, msg, sizeof msg)) {
        cli_warn("%s%s", shown, msg);
        status = CLI_EXIT_FAIL;
    }
    lines_free(&l);
    return status;
}
