/* lines.c - a line reader with a bound on the line length (lines.h). */
#include "lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lines_error(const struct lines *l, int rc, char *buf, size_t size)
{
    if (rc == TR_E_IO)
        snprintf(buf, size, ": read error: %s", strerror(l->err));
    else if (rc == TR_E_TOO_LARGE)
        snprintf(buf, size, ":%llu: line longer than %zu bytes", (unsigned long long)l->line_no,
                 l->max_line);
    return rc == TR_E_IO || rc == TR_E_TOO_LARGE;
}

void lines_init(struct lines *l, int fd, size_t max_line)
{
    memset(l, 0, sizeof *l);
    l->fd = fd;
    l->max_line = max_line ? max_line : LINES_DEFAULT_MAX;
}

void lines_free(struct lines *l)
{
    free(l->buf);
    l->buf = NULL;
}

/* Read more bytes; 1 read, 0 eof, -1 error. */
static int fill(struct lines *l)
{
    if (l->eof)
        return 0;
    if (l->start > 0 && (l->start == l->end || l->start > l->cap / 2)) {
        memmove(l->buf, l->buf + l->start, l->end - l->start);
        l->end -= l->start;
        l->start = 0;
    }
    if (l->cap - l->end < 65536) {
        size_t nc = l->cap ? l->cap * 2 : 1 << 20;
        char *nb = realloc(l->buf, nc + 1);
        if (!nb) {
            l->err = ENOMEM;
            return -1;
        }
        l->buf = nb;
        l->cap = nc;
    }
    for (;;) {
        ssize_t n = read(l->fd, l->buf + l->end, l->cap - l->end);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            l->err = errno;
            return -1;
        }
        if (n == 0) {
            l->eof = 1;
            return 0;
        }
        l->end += (size_t)n;
        return 1;
    }
}

int lines_peek(struct lines *l, size_t n, const char **p, size_t *len)
{
    while (l->end - l->start < n) {
        int rc = fill(l);
        if (rc < 0)
            return TR_E_IO;
        if (rc == 0)
            break;
    }
    *p = l->buf ? l->buf + l->start : "";
    if (!l->buf) {
        *len = 0;
        return 0;
    }
    *len = l->end - l->start;
    return 0;
}

int lines_next_read(struct lines *l, char **line, size_t *len)
{
    size_t scanned = 0;
    if (!l->buf) {
        int rc = fill(l);
        if (rc < 0)
            return TR_E_IO;
        if (!l->buf || l->end == l->start)
            return 0;
    }
    for (;;) {
        char *s = l->buf + l->start;
        size_t avail = l->end - l->start;
        char *nl = avail > scanned ? memchr(s + scanned, '\n', avail - scanned) : NULL;
        if (nl || (l->eof && avail > 0)) {
            size_t n = nl ? (size_t)(nl - s) : avail;
            if (n > l->max_line) {
                l->line_no++;
                return TR_E_TOO_LARGE;
            }
            l->start += nl ? n + 1 : n;
            if (n > 0 && s[n - 1] == '\r')
                n--;
            s[n] = 0; /* the buffer has one spare byte past cap */
            l->line_no++;
            *line = s;
            *len = n;
            return 1;
        }
        if (avail > l->max_line) {
            l->line_no++;
            return TR_E_TOO_LARGE;
        }
        scanned = avail;
        int rc = fill(l);
        if (rc < 0)
            return TR_E_IO;
        if (rc == 0 && l->end == l->start)
            return 0;
    }
}
