/* diff.h - tr-diff: two profiles to the two-count folded form, or a report. */
#ifndef TR_DIFF_H
#define TR_DIFF_H

#include <stdio.h>

#include "fold/fold.h"
#include "folded.h"

struct diff_opts {
    int normalize;     /* -n: scale BEFORE to AFTER's total */
    int strip_hex;     /* -s: 0x1234 -> 0x... */
    int strip_comm;    /* --strip-comm: the root frame (process name) dropped */
    const char **renames; /* --rename OLD=NEW: a root frame OLD becomes NEW */
    size_t nrenames;
    int report;        /* --report */
    size_t top;        /* rows of the report */
    int lenient;
    struct fold_opts fold;  /* for trace and perf script inputs */
};

struct diff {
    const struct diff_opts *o;
    struct smap map;   /* stack -> v[0] before, v[1] after */
    double total[2];
    char *hex;         /* -s: the stack with its hex numbers replaced */
    size_t hex_cap;
    char *root;        /* --rename: the stack with its root frame renamed */
    size_t root_cap;
};

void diff_init(struct diff *d, const struct diff_opts *o);
void diff_free(struct diff *d);
/* Load input which (0 before, 1 after); returns CLI_EXIT_OK, CLI_EXIT_TRUNCATED (a
 * damaged trace, loaded as far as it reads) or CLI_EXIT_USAGE (unreadable). */
int diff_load(struct diff *d, int which, const char *path);
/* Write the folded differential; returns 1 when the profiles differ, else 0. */
int diff_write_folded(struct diff *d, FILE *out);
/* Write the report; returns 1 when the profiles differ, else 0 (-1: no memory). */
int diff_write_report(struct diff *d, FILE *out);

#endif
