/*
 * folded.h - folded stacks ("root;caller;leaf COUNT"), shared by tr-fold,
 * tr-flame and tr-diff: a bounded line reader, the line parser, a hash
 * map from byte strings to counts, and number formatting.
 */
#ifndef TR_FOLDED_H
#define TR_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- lines ---------------------------------------------------------- */

#define LINES_DEFAULT_MAX (16u << 20) /* longest accepted line: 16 MiB */

struct lines {
    int fd;
    char *buf;
    size_t cap, start, end; /* unread bytes are buf[start..end) */
    size_t max_line;
    uint64_t line_no;       /* number of the line last returned (1-based) */
    int eof, err;           /* err: errno of a failed read */
};

void lines_init(struct lines *l, int fd, size_t max_line);
void lines_free(struct lines *l);
/* After a read that returned rc: 1 when rc is a read error (-1) or a line
 * longer than max_line (-2), which is then warned about (shown: the input's
 * name), else 0. */
int lines_warn_error(const struct lines *l, int rc, const char *shown);
/* lines_next() when the next line is not whole in the buffer yet. */
int lines_next_read(struct lines *l, char **line, size_t *len);

/* Next line without its "\n" (and without a "\r" before it).  Returns 1,
 * 0 at the end, -1 on a read error (l->err), -2 when a line is longer than
 * max_line.  The line stays valid until the next call; it is NUL-terminated.
 * Inline: the common case, a line already in the buffer, is a memchr(). */
static inline int lines_next(struct lines *l, char **line, size_t *len)
{
    if (l->end > l->start) {
        char *s = l->buf + l->start;
        const char *nl = memchr(s, '\n', l->end - l->start);
        size_t n = nl ? (size_t)(nl - s) : SIZE_MAX;
        if (n <= l->max_line) {
            l->start += n + 1;
            l->line_no++;
            if (n > 0 && s[n - 1] == '\r')
                n--;
            s[n] = 0;
            *line = s;
            *len = n;
            return 1;
        }
    }
    return lines_next_read(l, line, len);
}
/* The first bytes of the input without consuming them (at least n if the
 * input has them). */
int lines_peek(struct lines *l, size_t n, const char **p, size_t *len);

/* ---- one folded line ---------------------------------------------- */

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
    const char *stack;
    size_t len;
    double count[2];   /* count[0] only, or before and after */
    int ncounts;       /* 1 or 2 */
};

/* Parse "stack COUNT" or "stack BEFORE AFTER" the way flamegraph.pl does
 * (the last whitespace-separated words that are numbers /\d+(\.\d*)?/; the
 * stack is everything before the single whitespace preceding them).
 * want: 1 = one count, 2 = two counts, 0 = two when present. */
int folded_parse(const char *line, size_t len, int want, struct folded_line *out);
const char *folded_strerror(int err);

/* ---- string -> counts map ------------------------------------------ */

struct smap_entry {
    uint64_t hash;
    size_t off;      /* key bytes at map->keys + off */
    size_t len;
    uint64_t n;      /* integer count (tr-fold) */
    double v[2];     /* real counts (tr-diff) */
};

struct smap_slot {
    uint32_t idx;    /* entry index + 1, 0: empty */
    uint32_t tag;    /* the high half of its hash: most mismatches never touch the entry */
};

struct smap {
    struct smap_entry *e;
    size_t n, cap;   /* entries */
    struct smap_slot *slot; /* open addressing, linear probing, at most half full */
    size_t nslot;
    char *keys;
    size_t keys_len, keys_cap;
};

void smap_init(struct smap *m);
void smap_free(struct smap *m);
uint64_t smap_hash(const void *p, size_t len);
/* The entry for key (created zeroed when new), or NULL when out of memory. */
struct smap_entry *smap_get(struct smap *m, const void *key, size_t len);
/* The entry for key, or NULL when there is none. */
struct smap_entry *smap_find(const struct smap *m, const void *key, size_t len);
static inline const char *smap_key(const struct smap *m, const struct smap_entry *e)
{
    return m->keys + e->off;
}
/* Entry indices sorted bytewise by key (as Perl's sort); caller frees. */
size_t *smap_sorted(const struct smap *m);

/* ---- numbers -------------------------------------------------------- */

/* A count the way Perl prints a number: integers exactly, else %.15g. */
int fmt_count(char *buf, size_t size, double v);
void put_count(FILE *f, double v);

#endif
