/* folded.c - parsing folded stack lines and formatting counts (folded.h). */
#include "folded.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

const char *folded_strerror(int err)
{
    switch (err) {
    case FOLDED_OK: return "ok";
    case FOLDED_BLANK: return "blank line";
    case FOLDED_E_NOCOUNT: return "no count at the end of the line";
    case FOLDED_E_NEGATIVE: return "negative count";
    case FOLDED_E_NOTNUM: return "count is not a number";
    case FOLDED_E_EMPTY: return "empty stack";
    case FOLDED_E_NUL: return "NUL byte (binary input?)";
    case FOLDED_E_RANGE: return "count out of range";
    }
    return "invalid line";
}

/* The number ending at line[len]: /\s\d+(\.\d*)?$/.  Sets *stack_len to
 * the length before the whitespace. */
static int parse_count(const char *line, size_t len, double *v, size_t *stack_len)
{
    size_t p = len;
    while (p > 0 && !is_space((unsigned char)line[p - 1]))
        p--;
    if (p == 0)
        return FOLDED_E_NOCOUNT;
    const char *t = line + p;
    size_t tl = len - p;
    size_t i = 0, digits = 0;
    uint64_t ip = 0;
    while (i < tl && t[i] >= '0' && t[i] <= '9') {
        if (digits < 19)
            ip = ip * 10 + (uint64_t)(t[i] - '0');
        digits++, i++;
    }
    if (digits == 0)
        return t[0] == '-' && tl > 1 && t[1] >= '0' && t[1] <= '9' ? FOLDED_E_NEGATIVE
                                                                    : FOLDED_E_NOTNUM;
    int frac = 0;
    if (i < tl && t[i] == '.') {
        frac = 1;
        for (i++; i < tl && t[i] >= '0' && t[i] <= '9'; i++)
            ;
    }
    if (i != tl)
        return FOLDED_E_NOTNUM;
    if (!frac && digits <= 15) {
        *v = (double)ip;
    } else {
        char tmp[64];
        if (tl >= sizeof tmp) {
            char *e, *s = strndup(t, tl);
            if (!s)
                return FOLDED_E_RANGE;
            *v = strtod(s, &e);
            free(s);
        } else {
            memcpy(tmp, t, tl);
            tmp[tl] = 0;
            *v = strtod(tmp, NULL);
        }
        if (!isfinite(*v))
            return FOLDED_E_RANGE;
    }
    *stack_len = p - 1;
    return FOLDED_OK;
}

static int all_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!is_space((unsigned char)s[i]))
            return 0;
    return 1;
}

int folded_parse(const char *line, size_t len, int want, struct folded_line *out)
{
    if (memchr(line, 0, len))
        return FOLDED_E_NUL;
    if (all_blank(line, len))
        return FOLDED_BLANK;
    while (len > 0 && is_space((unsigned char)line[len - 1]))
        len--; /* trailing blanks are harmless (flamegraph.pl drops such lines) */
    size_t sl;
    double c;
    int rc = parse_count(line, len, &c, &sl);
    if (rc)
        return rc;
    out->ncounts = 1;
    out->count[0] = c;
    out->count[1] = 0;
    if (want != 1) {
        size_t sl2;
        double c0;
        if (parse_count(line, sl, &c0, &sl2) == FOLDED_OK) {
            out->ncounts = 2;
            out->count[0] = c0;
            out->count[1] = c;
            sl = sl2;
        }
    }
    if (sl == 0 || all_blank(line, sl))
        return FOLDED_E_EMPTY;
    out->stack = line;
    out->len = sl;
    return FOLDED_OK;
}

int folded_format_count(char *buf, size_t size, double v)
{
    if (v == floor(v) && fabs(v) < 9.2e18)
        return snprintf(buf, size, "%lld", (long long)v);
    return snprintf(buf, size, "%.15g", v);
}
