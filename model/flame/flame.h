/*
 * flame.h - tr-flame's model: folded stacks merged into a tree of frames
 * (siblings of one name are always one frame), and its SVG rendering.
 * tr-flame reads folded text (flame_read); a tool holding folded stacks
 * adds them one by one (flame_add) and embeds the same SVG (tr-triage).
 */
#ifndef TR_FLAME_H
#define TR_FLAME_H

#include <stdio.h>

#include "folded.h"
#include "lines.h"
#include "palette.h"
#include "smap.h"

struct flame_opts {
    const char *title, *subtitle, *fonttype, *countname, *nametype, *bgcolors;
    const char *notes, *encoding, *nameattr_file;
    int width;              /* image width, px */
    double frameheight;     /* --height */
    double fontsize, fontwidth;
    double minwidth;        /* px, or percent with minwidth_pct */
    int minwidth_pct;
    struct color_opts color;
    int cp;                 /* consistent palette file */
    const char *cp_file;
    int reverse, inverted, flamechart, negate;
    double factor;
    double total;           /* --total, 0: none */
    int lenient;            /* skip malformed lines with a warning */
    size_t max_line;
};

void flame_opts_init(struct flame_opts *o);

struct fnode {
    uint32_t name;          /* id in flame.names */
    uint32_t child, sib;    /* first child, next sibling */
    uint32_t last;          /* last child */
    double w;               /* width: samples (after, for differential input) */
};

/* What differential input adds to a node (flame.diff[i] beside flame.n[i]:
 * one-count input, the common case, does not pay for it) */
struct fdiff {
    double w1;              /* before samples */
    double d;               /* self delta after - before */
};

struct flame {
    const struct flame_opts *o;
    struct smap names;
    struct fnode *n;
    size_t nn, cap;
    struct fdiff *diff;     /* two-count input only: cap elements, else NULL */
    size_t diffcap;
    /* the children of nodes with more than WIDE of them by (parent, name):
     * its own table, not model/hashmap.h, whose 24-byte slots made tr-flame
     * 20% slower on 60 MB of folded stacks */
    uint64_t *ckey;         /* (parent << 32 | name) + 1, 0 empty */
    uint32_t *cval;
    size_t nslot, nwide;
    int ncounts;            /* 0 until the first line, then 1 or 2 */
    uint64_t ncounts_line;  /* the line that set it */
    uint64_t lines, stacks, skipped, first_skipped;
    char *prev;             /* previous stack, for the shared-prefix shortcut */
    size_t prev_len, prev_cap;
    size_t *pspan;          /* previous frames: offset, length pairs */
    size_t *ppath;          /* their nodes */
    size_t pn, pcap, ppcap;
    size_t *span;           /* current frames */
    size_t scap;
    double *start;          /* --flamechart: each node's start time */
    size_t start_cap;
    double time;            /* --flamechart: the current stack's start time */
    int oom;
};

int flame_init(struct flame *f, const struct flame_opts *o);
void flame_free(struct flame *f);
/* Read folded text from fd; returns a CLI_EXIT_* status (errors printed). */
int flame_read(struct flame *f, int fd, const char *shown);
/* Add one folded stack ("a;b;c", len bytes) counted count times: 0, or -1
 * out of memory. */
int flame_add(struct flame *f, const char *stack, size_t len, double count);
/* Write the SVG; returns a CLI_EXIT_* status. */
int flame_svg(struct flame *f, FILE *out);

/* the page's script and style (script.c) */
extern const char flame_script[];
extern const char flame_style[];

#endif
