/*
 * folded.h - one line of folded stacks ("root;caller;leaf COUNT", or with
 * two counts "STACK BEFORE AFTER"), as flamegraph.pl and difffolded.pl read
 * it: the parser shared by tr-flame and tr-diff, the splitting of a stack
 * into its frames, and counts printed the way Perl prints numbers.
 *
 * The folding rules that make such lines from samples are model/stacks.h;
 * the line reader is model/lines.h, the stack -> count map model/smap.h.
 * Never prints or exits.
 */
#ifndef MODEL_FOLDED_H
#define MODEL_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* folded_parse's results: FOLDED_OK, FOLDED_BLANK, or a reason the line is
 * malformed (its own codes, not tr_errors: each has its message). */
enum folded_err {
    FOLDED_OK = 0,
    FOLDED_BLANK = 1,        /* an empty or all-blank line: skipped */
    FOLDED_E_NOCOUNT = -1,   /* no count at the end */
    FOLDED_E_NEGATIVE = -2,  /* a negative count */
    FOLDED_E_NOTNUM = -3,    /* the last word is not a number */
    FOLDED_E_EMPTY = -4,     /* a count but no stack */
    FOLDED_E_NUL = -5,       /* a NUL byte: binary input */
    FOLDED_E_RANGE = -6,     /* count too large */
};

struct folded_line {
    const char *stack;  /* points into the parsed line */
    size_t len;
    double count[2];   /* count[0] only, or before and after */
    int ncounts;       /* 1 or 2 */
};

/* Parse "stack COUNT" or "stack BEFORE AFTER" the way flamegraph.pl does
 * (the last whitespace-separated words that are numbers /\d+(\.\d*)?/; the
 * stack is everything before the single whitespace preceding them).
 * want: 1 = one count, 2 = two counts, 0 = two when present.  Returns
 * FOLDED_OK with *out set, FOLDED_BLANK, or a FOLDED_E_* code. */
int folded_parse(const char *line, size_t len, int want, struct folded_line *out);
/* The message of a folded_parse result. */
const char *folded_strerror(int err);

/* The frames of a stack, root first, split at ';' as Perl's split(';')
 * does without dropping empty fields:
 *     for (size_t at = 0, n; folded_next_frame(s, len, &at, &f, &n);) use(f, n);
 * Each call sets *frame and *n to the next frame and returns 1; 0 after the
 * last one (a stack of len 0 is one empty frame).  *at starts at 0. */
static inline int folded_next_frame(const char *s, size_t len, size_t *at, const char **frame,
                                    size_t *n)
{
    if (*at > len)
        return 0;
    const char *semi = memchr(s + *at, ';', len - *at);
    size_t end = semi ? (size_t)(semi - s) : len;
    *frame = s + *at;
    *n = end - *at;
    *at = semi ? end + 1 : len + 1;
    return 1;
}

/* A count the way Perl prints a number: integers exactly, else %.15g.
 * Returns what snprintf returns. */
int folded_format_count(char *buf, size_t size, double v);

#endif
