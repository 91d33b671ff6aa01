/*
 * lines.h - a line reader with a bound on the line length, for the text
 * inputs of tr-fold, tr-diff and tr-flame (folded stacks, perf script text).
 *
 *     struct lines l;
 *     lines_init(&l, fd, 0);
 *     while ((rc = lines_next(&l, &s, &n)) > 0)
 *         use(s, n);
 *     if (lines_error(&l, rc, msg, sizeof msg))
 *         warn("%s%s", name, msg);
 *     lines_free(&l);
 *
 * The reader owns its buffer (lines_free); the fd stays the caller's.  Never
 * prints or exits.
 */
#ifndef MODEL_LINES_H
#define MODEL_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tr.h"

#define LINES_DEFAULT_MAX (16u << 20) /* longest accepted line: 16 MiB */

struct lines {
    int fd;
    char *buf;
    size_t cap, start, end; /* unread bytes are buf[start..end) */
    size_t max_line;
    uint64_t line_no;       /* number of the line last returned (1-based) */
    int eof, err;           /* err: errno of a failed read (ENOMEM: no buffer) */
};

/* Read fd; lines longer than max_line (0: LINES_DEFAULT_MAX) are refused. */
void lines_init(struct lines *l, int fd, size_t max_line);
void lines_free(struct lines *l);
/* After a read that returned rc: 1 when rc is an error of the reader
 * (TR_E_IO, TR_E_TOO_LARGE), with its message in buf, written to follow the
 * input's name (": read error: REASON", ":LINE: line longer than N bytes");
 * else 0. */
int lines_error(const struct lines *l, int rc, char *buf, size_t size);
/* lines_next() when the next line is not whole in the buffer yet. */
int lines_next_read(struct lines *l, char **line, size_t *len);

/* Next line without its "\n" (and without a "\r" before it).  Returns 1,
 * 0 at the end, TR_E_IO on a read error (l->err), TR_E_TOO_LARGE when a
 * line is longer than max_line.  The line stays valid until the next call;
 * it is NUL-terminated and the caller may modify it in place.
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
 * input has them): *p and *len, valid until the next call.  0, or TR_E_IO. */
int lines_peek(struct lines *l, size_t n, const char **p, size_t *len);

#endif
