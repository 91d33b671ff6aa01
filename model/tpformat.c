/* tpformat.c - tracepoint formats through one libtraceevent handle per stream
 * (tpformat.h). */
#include "tpformat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "hashmap.h"
#include "keys.h"

/* The two names of format blobs: "ftrace/format/SYS/EVENT" and the older
 * "format:SYS:EVENT". */
static const struct {
    const char *prefix;
    char sep;
} format_names[2] = {{BLOB_FTRACE_FORMAT_PREFIX, '/'}, {BLOB_FORMAT_OLD_PREFIX, ':'}};

struct tpformat {
    struct tep_handle *tep;
    tr_reader *r;           /* the stream's blobs, NULL for a recorder */
    uint32_t raw_flags;
    int has_header_page;
    int has_formats;        /* a format blob was seen or a format added */
    int printk_done, cmdlines_done, kallsyms_done;
    int text_tried;         /* tpformat_print read the text blobs there were */
    size_t scanned[2];      /* format blobs of each name indexed so far */
    hashmap ids;            /* kernel event id -> blob name (strpool) not parsed yet */
    strpool names;
    struct trace_seq seq;   /* tpformat_print's text */
    int seq_ready;
    tpformat_resolver resolver; /* kernel function names before a kallsyms blob */
    void *resolver_ctx;
    int resolver_on;        /* set on the handle */
};

int tpformat_new(tpformat **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : TR_E_NOMEM;
}

void tpformat_reset(tpformat *t)
{
    if (!t)
        return;
    if (t->tep)
        tep_free(t->tep);
    hashmap_free(&t->ids);
    strpool_free(&t->names);
    struct trace_seq seq = t->seq;
    int ready = t->seq_ready;
    tpformat_resolver fn = t->resolver;
    void *ctx = t->resolver_ctx;
    memset(t, 0, sizeof *t);
    t->seq = seq; /* its buffer serves the next stream too */
    t->seq_ready = ready;
    t->resolver = fn;
    t->resolver_ctx = ctx;
}

void tpformat_free(tpformat *t)
{
    if (!t)
        return;
    tpformat_reset(t);
    if (t->seq_ready)
        trace_seq_destroy(&t->seq);
    free(t);
}

static char *dupz(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

static int hex_digits(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && ((p[i] >= '0' && p[i] <= '9') || ((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'f')))
        i++;
    return (int)i;
}

/* A printk_formats line: ADDR : "TEXT" (libtraceevent takes what follows
 * " : " without looking: a line without it makes it read past the buffer,
 * and it strips the quotes and a final "\n" from TEXT by stepping back from
 * its end, so TEXT has at least two characters). */
static int printk_line(const char *p, size_t n)
{
    size_t i = n > 2 && p[0] == '0' && p[1] == 'x' ? 2 : 0, h = (size_t)hex_digits(p + i, n - i);
    return h && i + h + 3 < n && !memcmp(p + i + h, " : \"", 4) && n - (i + h + 4) >= 3;
}

/* A kallsyms line: ADDR TYPE NAME, then "\t[MODULE]" for a module's (its
 * parser takes the offsets of what it scanned, set only when all are there). */
static int kallsyms_line(const char *p, size_t n)
{
    size_t h = (size_t)hex_digits(p, n);
    if (!h || n < h + 4 || p[h] != ' ' || p[h + 1] == ' ' || p[h + 2] != ' ')
        return 0;
    const char *name = p + h + 3, *end = p + n, *ws = name;
    while (ws < end && *ws != ' ' && *ws != '\t')
        ws++;
    if (ws == name)
        return 0;
    if (ws == end)
        return 1;
    while (ws < end && (*ws == ' ' || *ws == '\t'))
        ws++;
    return end - ws >= 3 && *ws == '[' && end[-1] == ']' && !memchr(ws, ' ', (size_t)(end - ws)) &&
           !memchr(ws, '\t', (size_t)(end - ws));
}

/* A saved_cmdlines line: PID COMM. */
static int cmdline_line(const char *p, size_t n)
{
    size_t i = n && p[0] == '-' ? 1 : 0, d = i;
    while (d < n && p[d] >= '0' && p[d] <= '9')
        d++;
    return d > i && d - i <= 10 && d + 1 < n && p[d] == ' ' && p[d + 1] != ' ';
}

/* The lines of a blob that have the shape of its kernel file (valid), each
 * ending in "\n", NUL-terminated: what libtraceevent's text parsers are
 * given, for they trust their input.  The others (and any holding a NUL or
 * a "\r") are dropped: they are no part of what the kernel writes. */
static char *valid_lines(const uint8_t *b, size_t n, int (*valid)(const char *, size_t))
{
    char *s = malloc(n + 2), *o = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n;) {
        const uint8_t *nl = memchr(b + i, '\n', n - i);
        size_t l = (nl ? (size_t)(nl - b) : n) - i;
        if (!memchr(b + i, 0, l) && !memchr(b + i, '\r', l) && valid((const char *)b + i, l)) {
            memcpy(o, b + i, l);
            o += l;
            *o++ = '\n';
        }
        i += l + 1;
    }
    *o = 0;
    return s;
}

/* libtraceevent's function resolver until the kallsyms blob comes: the caller's. */
static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
    tpformat *t = priv;
    uint64_t start = *addrp;
    const char *name = t->resolver ? t->resolver(t->resolver_ctx, *addrp, &start) : NULL;
    if (!name)
        return NULL;
    *addrp = start;
    *modp = NULL;
    return (char *)(uintptr_t)name;
}

/* The stream's text blobs that have arrived and were not read yet: the
 * kernel's functions from "ftrace/kallsyms" (function tracing: all of
 * them) or "kallsyms" (the ones the events point to), else the resolver. */
static void load_text_blobs(tpformat *t)
{
    if (!t->r)
        return;
    static const char *const names[4] = {BLOB_FTRACE_PRINTK_FORMATS, BLOB_FTRACE_SAVED_CMDLINES,
                                         BLOB_FTRACE_KALLSYMS, BLOB_KALLSYMS};
    static int (*const valid[4])(const char *, size_t) = {printk_line, cmdline_line, kallsyms_line,
                                                          kallsyms_line};
    int *done[4] = {&t->printk_done, &t->cmdlines_done, &t->kallsyms_done, &t->kallsyms_done};
    for (int i = 0; i < 4; i++) {
        size_t len;
        const uint8_t *b;
        if (*done[i] || !(b = tr_reader_blob(t->r, names[i], &len)))
            continue;
        char *s = valid_lines(b, len, valid[i]);
        if (s && *s) {
            if (i == 0) {
                tep_parse_printk_formats(t->tep, s);
            } else if (i == 1) {
                tep_parse_saved_cmdlines(t->tep, s);
            } else {
                if (t->resolver_on)
                    tep_reset_function_resolver(t->tep);
                t->resolver_on = 0;
                tep_parse_kallsyms(t->tep, s);
            }
        }
        free(s);
        *done[i] = 1;
    }
    /* a resolver also when there is none to ask: libtraceevent builds its map
     * of functions once, at the first look-up, so none may happen before the
     * kallsyms blob has come */
    if (!t->kallsyms_done && !t->resolver_on)
        t->resolver_on = tep_set_function_resolver(t->tep, resolve, t) == 0;
}

void tpformat_set_resolver(tpformat *t, tpformat_resolver fn, void *ctx)
{
    t->resolver = fn;
    t->resolver_ctx = ctx;
}

void tpformat_blob_arrived(tpformat *t)
{
    if (t)
        t->text_tried = 0; /* the next print looks for the blobs still missing */
}

/* The kernel id of a format text ("ID: 316" line), or -1. */
static int format_id(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i++) {
        if ((i == 0 || p[i - 1] == '\n') && !memcmp(p + i, "ID:", 3)) {
            size_t k = i + 3;
            while (k < n && p[k] == ' ')
                k++;
            long v = 0;
            int digits = 0;
            while (k < n && p[k] >= '0' && p[k] <= '9' && v < 1000000)
                v = v * 10 + (p[k++] - '0'), digits++;
            return digits && v < 1000000 ? (int)v : -1;
        }
    }
    return -1;
}

/* Index the format blobs that arrived since the last call: id -> name. */
static int index_formats(tpformat *t)
{
    if (!t->r)
        return 0;
    for (int k = 0; k < 2; k++) {
        const char *name;
        const uint8_t *data;
        size_t len;
        while (tr_reader_blob_at(t->r, format_names[k].prefix, t->scanned[k], &name, &data, &len) > 0) {
            t->scanned[k]++;
            t->has_formats = 1;
            int id = format_id(data, len);
            if (id < 0 || hashmap_get(&t->ids, (uint64_t)id, 0) || tep_find_event(t->tep, id))
                continue;
            const char *kept = strpool_intern(&t->names, name, strlen(name));
            if (!kept || hashmap_put(&t->ids, (uint64_t)id, 0, (void *)kept) < 0)
                return TR_E_NOMEM;
        }
    }
    return 0;
}

static int build(tpformat *t, uint32_t raw_flags)
{
    t->tep = tep_alloc();
    if (!t->tep)
        return TR_E_NOMEM;
    tep_set_loglevel(TEP_LOG_CRITICAL);
    t->raw_flags = raw_flags;
    const uint16_t one = 1;
    int host_big = *(const uint8_t *)&one == 0;
    int long_size = raw_flags & TR_RAW_32BIT ? 4 : 8;
    tep_set_file_bigendian(t->tep, raw_flags & TR_RAW_BIG_ENDIAN ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(t->tep, host_big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_long_size(t->tep, long_size);
    if (!t->r)
        return 0;
    size_t len;
    const uint8_t *hp = tr_reader_blob(t->r, BLOB_FTRACE_HEADER_PAGE, &len);
    if (hp) {
        t->has_header_page = 1;
        char *h = dupz(hp, len);
        if (h)
            tep_parse_header_page(t->tep, h, len, long_size);
        free(h);
    }
    return index_formats(t);
}

int tpformat_use(tpformat *t, tr_reader *r, uint32_t raw_flags)
{
    if (!t->tep) {
        t->r = r;
        int rc = build(t, raw_flags);
        if (rc < 0)
            return rc;
    } else if (!t->has_formats) {
        int rc = index_formats(t); /* the first may have come since */
        if (rc < 0)
            return rc;
    }
    return t->has_formats;
}

int tpformat_has_header_page(const tpformat *t)
{
    return t->has_header_page;
}

/* The offset of line (at a line start) in p[0..n) from `from` on, or -1. */
static long line_at(const char *p, size_t n, size_t from, const char *line)
{
    size_t l = strlen(line);
    for (size_t i = from; i + l <= n; i++)
        if ((i == 0 || p[i - 1] == '\n') && !memcmp(p + i, line, l))
            return (long)i;
    return -1;
}

static int word_char(char c)
{
    return c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9');
}

enum { PT_START, PT_OPERAND, PT_OPEN, PT_CLOSE, PT_COMMA, PT_UNARY, PT_EITHER, PT_BINARY };

/* The next token of a print fmt at *p (before end): its PT_ class, or -1
 * for what is no C; *p moves past it. */
static int pf_token(const char **p, const char *end)
{
    const char *q = *p;
    char c = *q++;
    int cls;
    if (c == '"' || c == '\'') {
        while (q < end && *q != c)
            q += *q == '\\' && q + 1 < end ? 2 : 1;
        if (q >= end)
            return -1;
        q++;
        cls = PT_OPERAND;
    } else if (word_char(c)) {
        while (q < end && (word_char(*q) || *q == '.'))
            q++;
        cls = PT_OPERAND;
    } else if (strchr("([{", c)) {
        cls = PT_OPEN;
    } else if (strchr(")]}", c)) {
        cls = PT_CLOSE;
    } else if (c == ',') {
        cls = PT_COMMA;
    } else if (c == '~' || (c == '!' && (q == end || *q != '='))) {
        cls = PT_UNARY;
    } else if (c == '-' && q < end && *q == '>') {
        q++;
        cls = PT_BINARY;
    } else if (strchr("-+*&", c)) {
        cls = PT_EITHER;
    } else if (c > ' ' && c < 0x7f) { /* an operator of two characters is two: no matter here */
        cls = PT_BINARY;
    } else {
        return -1;
    }
    *p = q;
    return cls;
}

/* Whether a print fmt ("\"...\", ARG, ...") is what libtraceevent's parser
 * survives: it dereferences NULL on a unary-only operator (~ !) after an
 * operand or before no operand ("x ~ y", "f(~, y)"), and leaks there, and
 * on some REC->NAME of a field the format does not declare.  So those are
 * refused, with brackets that do not nest and bytes that are no C; the
 * rest is left to libtraceevent, which flags what it cannot parse. */
/* Whether the fields text declares a field called name[0..n): " NAME;",
 * " NAME[" or "*NAME;" in it. */
static int declares(const char *fields, size_t len, const char *name, size_t n)
{
    for (const char *q = fields, *end = fields + len; (q = memmem(q, (size_t)(end - q), name, n)); q++)
        if (q > fields && (q[-1] == ' ' || q[-1] == '*') && q + n < end && (q[n] == ';' || q[n] == '['))
            return 1;
    return 0;
}

static int print_fmt_ok(const char *p, const char *end, const char *fields, size_t fields_len)
{
    char stack[64];
    int depth = 0, prev = PT_START, rec = 0; /* rec: 1 after "REC", 2 after "REC->" */
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
            p++;
        if (p == end)
            return depth == 0 && prev != PT_UNARY;
        char c = *p;
        const char *tok = p;
        int cur = pf_token(&p, end);
        if (rec == 2 && cur == PT_OPERAND && !declares(fields, fields_len, tok, (size_t)(p - tok)))
            return 0; /* REC->NAME of no field: libtraceevent's parser dereferences NULL on some */
        rec = cur == PT_OPERAND && p - tok == 3 && !memcmp(tok, "REC", 3) ? 1
              : rec == 1 && p - tok == 2 && !memcmp(tok, "->", 2) ? 2 : 0;
        if (cur < 0 || (cur == PT_UNARY && prev == PT_OPERAND) ||
            (prev == PT_UNARY && cur != PT_OPERAND && cur != PT_OPEN && cur != PT_UNARY && cur != PT_EITHER))
            return 0;
        if (cur == PT_OPEN) {
            if (depth == (int)sizeof stack)
                return 0;
            stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
        } else if (cur == PT_CLOSE && (!depth || stack[--depth] != c)) {
            return 0;
        }
        prev = cur;
    }
}

/* The brackets of a field line's declaration (up to its first ';') hold
 * digits or nothing, as in every kernel format ("char comm[16]", "char[]"):
 * libtraceevent's field parser dereferenced NULL on "comm[   16]". */
static int array_sizes_ok(const char *q, size_t l)
{
    const char *semi = memchr(q, ';', l);
    for (const char *b = q; (b = memchr(b, '[', (size_t)(semi - b))); b++) {
        const char *e = b + 1;
        while (e < semi && *e >= '0' && *e <= '9')
            e++;
        if (e == semi || *e != ']')
            return 0;
    }
    return 1;
}

/* A format file has its name, ID, format and print fmt lines in that order,
 * and each line between the last two is empty or "field:...;" with its
 * offset and size (and array sizes of digits).  (libtraceevent is not asked
 * to parse what is surely no format: it leaks on some of that.) */
static int looks_like_format(const char *p, size_t n)
{
    long a = line_at(p, n, 0, "name:");
    long b = a < 0 ? -1 : line_at(p, n, (size_t)a, "ID:");
    long c = b < 0 ? -1 : line_at(p, n, (size_t)b, "format:");
    long d = c < 0 ? -1 : line_at(p, n, (size_t)c, "print fmt:");
    if (d < 0)
        return 0;
    const char *q = memchr(p + c, '\n', (size_t)(d - c)), *end = p + d;
    while (q && ++q < end) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        size_t l = (size_t)((nl ? nl : end) - q);
        while (l && (q[l - 1] == ' ' || q[l - 1] == '\t'))
            l--;
        if (l && (q[l - 1] != ';' || !memmem(q, l, "field:", 6) || !memmem(q, l, "offset:", 7) ||
                  !memmem(q, l, "size:", 5) || !array_sizes_ok(q, l)))
            return 0;
        q = nl;
    }
    return print_fmt_ok(p + d + 10, p + n, p + c, (size_t)(d - c)); /* the rest: its strings may hold newlines */
}

/* libtraceevent adds an event whose text has a name and an id even when
 * its fields or print format fail (flagged failed: printing it shows its
 * fields raw); its error codes do not tell memory from malformed text, so
 * the result is judged by what was added. */
static int parse(tpformat *t, const char *system, const char *text, size_t len)
{
    if (!looks_like_format(text, len))
        return TR_E_CORRUPT_RECORD;
    tep_parse_event(t->tep, text, len, system);
    int id = format_id((const uint8_t *)text, len);
    struct tep_event *ev = id >= 0 ? tep_find_event(t->tep, id) : NULL;
    if (!ev || ev->format.nr_common + ev->format.nr_fields == 0)
        return TR_E_CORRUPT_RECORD;
    return 0;
}

int tpformat_add_format(tpformat *t, const char *system, const char *text, size_t len)
{
    if (!t->tep) {
        int rc = build(t, 0);
        if (rc < 0)
            return rc;
    }
    t->has_formats = 1;
    return parse(t, system, text, len);
}

int tpformat_add_header_page(tpformat *t, const char *text, size_t len)
{
    if (!t->tep) {
        int rc = build(t, 0);
        if (rc < 0)
            return rc;
    }
    char *h = dupz((const uint8_t *)text, len);
    if (!h)
        return TR_E_NOMEM;
    int rc = tep_parse_header_page(t->tep, h, len, t->raw_flags & TR_RAW_32BIT ? 4 : 8);
    free(h);
    if (rc < 0)
        return TR_E_CORRUPT_RECORD;
    t->has_header_page = 1;
    return 0;
}

int tpformat_header_long_size(const tpformat *t)
{
    int v = t->has_header_page ? tep_get_header_page_size(t->tep) : 0;
    return v == 4 || v == 8 ? v : 0;
}

size_t tpformat_header_subbuf_size(const tpformat *t)
{
    int v = t->has_header_page ? tep_get_sub_buffer_size(t->tep) : 0;
    return v > 0 ? (size_t)v : 0;
}

/* Parse the blob called name (system from its name). */
static void parse_blob(tpformat *t, const char *name)
{
    size_t len;
    const uint8_t *data = tr_reader_blob(t->r, name, &len);
    if (!data)
        return;
    for (int k = 0; k < 2; k++) {
        size_t pl = strlen(format_names[k].prefix);
        if (strncmp(name, format_names[k].prefix, pl))
            continue;
        const char *sys = name + pl, *sep = strchr(sys, format_names[k].sep);
        char system[256];
        if (!sep || (size_t)(sep - sys) >= sizeof system)
            return;
        memcpy(system, sys, (size_t)(sep - sys));
        system[sep - sys] = 0;
        parse(t, system, (const char *)data, len);
        return;
    }
}

const tpformat_event *tpformat_event_by_id(tpformat *t, int id)
{
    if (!t->tep)
        return NULL;
    struct tep_event *ev = tep_find_event(t->tep, id);
    if (ev || !t->r || id < 0)
        return ev;
    const char *name = hashmap_get(&t->ids, (uint64_t)id, 0);
    if (!name) {
        /* a format written after the stream began */
        if (index_formats(t) < 0 || !(name = hashmap_get(&t->ids, (uint64_t)id, 0)))
            return NULL;
    }
    hashmap_del(&t->ids, (uint64_t)id, 0); /* parsed once, whatever comes of it */
    parse_blob(t, name);
    return tep_find_event(t->tep, id);
}

const tpformat_event *tpformat_event_of(tpformat *t, const uint8_t *data, size_t len)
{
    if (!t->tep || len < 2)
        return NULL;
    return tpformat_event_by_id(t, (int)tpformat_number(t->raw_flags, data, 2));
}

const tpformat_event *tpformat_event_by_name(tpformat *t, const char *system, const char *name)
{
    if (!t->tep)
        return NULL;
    struct tep_event *ev = tep_find_event_by_name(t->tep, system, name);
    if (ev || !t->r)
        return ev;
    char blob[600];
    static const char *const fmts[2] = {BLOB_FTRACE_FORMAT_FMT, BLOB_FORMAT_OLD_FMT};
    for (int k = 0; k < 2; k++) {
        snprintf(blob, sizeof blob, fmts[k], system, name);
        size_t len;
        const uint8_t *data = tr_reader_blob(t->r, blob, &len);
        if (!data)
            continue;
        t->has_formats = 1;
        int id = format_id(data, len);
        if (id >= 0)
            hashmap_del(&t->ids, (uint64_t)id, 0);
        if (parse(t, system, (const char *)data, len) == 0 &&
            (ev = tep_find_event_by_name(t->tep, system, name)))
            return ev;
    }
    return NULL;
}

const tpformat_event *tpformat_event_by_def(tpformat *t, const tr_event_def *def)
{
    const tpformat_event *ev = NULL;
    if (!def)
        return NULL;
    if (def->kind == TR_EV_TRACEPOINT && def->config <= 0xffff)
        ev = tpformat_event_by_id(t, (int)def->config);
    const char *colon = def->name ? memchr(def->name, ':', def->name_len) : NULL;
    char system[256], name[256];
    if (ev || !colon || (size_t)(colon - def->name) >= sizeof system ||
        def->name_len - (size_t)(colon - def->name) - 1 >= sizeof name)
        return ev;
    memcpy(system, def->name, (size_t)(colon - def->name));
    system[colon - def->name] = 0;
    memcpy(name, colon + 1, def->name_len - (size_t)(colon - def->name) - 1);
    name[def->name_len - (size_t)(colon - def->name) - 1] = 0;
    return tpformat_event_by_name(t, system, name);
}

const char *tpformat_event_name(const tpformat_event *ev)
{
    return ev->name;
}

const char *tpformat_event_system(const tpformat_event *ev)
{
    return ev->system;
}

int tpformat_event_id(const tpformat_event *ev)
{
    return ev->id;
}

static void field_of(const struct tep_format_field *fd, tpformat_field *f)
{
    f->name = fd->name;
    f->offset = fd->offset;
    f->size = fd->size;
    f->elementsize = (int)fd->elementsize;
    unsigned long fl = fd->flags;
    f->flags = (fl & TEP_FIELD_IS_SIGNED ? TPF_SIGNED : 0) | (fl & TEP_FIELD_IS_ARRAY ? TPF_ARRAY : 0) |
               (fl & TEP_FIELD_IS_STRING ? TPF_STRING : 0) | (fl & TEP_FIELD_IS_DYNAMIC ? TPF_DYNAMIC : 0) |
               (fl & TEP_FIELD_IS_RELATIVE ? TPF_RELATIVE : 0) |
               (fl & TEP_FIELD_IS_POINTER ? TPF_POINTER : 0) | (fl & TEP_FIELD_IS_LONG ? TPF_LONG : 0);
}

int tpformat_field_find(const tpformat_event *ev, const char *name, tpformat_field *f)
{
    struct tep_format_field *fd = tep_find_any_field((struct tep_event *)ev, name);
    if (!fd)
        return 0;
    field_of(fd, f);
    return 1;
}

int tpformat_field_at(const tpformat_event *ev, size_t i, tpformat_field *f)
{
    const struct tep_format_field *fd = ev->format.fields;
    while (fd && i--)
        fd = fd->next;
    if (!fd)
        return 0;
    field_of(fd, f);
    return 1;
}

uint64_t tpformat_number(uint32_t raw_flags, const uint8_t *p, int size)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const int swap = !(raw_flags & TR_RAW_BIG_ENDIAN);
#else
    const int swap = (raw_flags & TR_RAW_BIG_ENDIAN) != 0;
#endif
    switch (size) {
    case 1:
        return p[0];
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return swap ? __builtin_bswap16(v) : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return swap ? __builtin_bswap32(v) : v;
    }
    case 8: {
        uint64_t v;
        memcpy(&v, p, 8);
        return swap ? __builtin_bswap64(v) : v;
    }
    }
    return 0;
}

static int in_payload(const tpformat_field *f, size_t len)
{
    return f->offset >= 0 && f->size > 0 && (size_t)f->offset <= len && (size_t)f->size <= len - (size_t)f->offset;
}

int tpformat_read(const tpformat_field *f, uint32_t raw_flags, const uint8_t *data, size_t len, uint64_t *v)
{
    if ((f->flags & (TPF_ARRAY | TPF_DYNAMIC)) || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
        return TR_E_INVAL;
    if (!in_payload(f, len))
        return TR_E_CORRUPT_RECORD;
    uint64_t x = tpformat_number(raw_flags, data + f->offset, f->size);
    if ((f->flags & TPF_SIGNED) && f->size < 8) {
        uint64_t m = 1ull << (f->size * 8 - 1);
        x = (x ^ m) - m;
    }
    *v = x;
    return 0;
}

int tpformat_field_bytes(const tpformat_field *f, uint32_t raw_flags, const uint8_t *data, size_t len,
                         const uint8_t **p, size_t *n)
{
    if (!in_payload(f, len))
        return TR_E_CORRUPT_RECORD;
    if (!(f->flags & TPF_DYNAMIC)) {
        *p = data + f->offset;
        *n = (size_t)f->size;
        return 0;
    }
    if (f->size < 4)
        return TR_E_CORRUPT_RECORD;
    uint32_t loc = (uint32_t)tpformat_number(raw_flags, data + f->offset, 4);
    size_t off = loc & 0xffff, cnt = loc >> 16;
    if (f->flags & TPF_RELATIVE)
        off += (size_t)f->offset + (size_t)f->size;
    if (off > len || cnt > len - off)
        return TR_E_CORRUPT_RECORD;
    *p = data + off;
    *n = cnt;
    return 0;
}

const char *tpformat_print(tpformat *t, const tpformat_event *ev, uint64_t time, int cpu, const uint8_t *data,
                           size_t len)
{
    if (!t->tep)
        return NULL;
    (void)ev; /* the handle finds it again from common_type, as it prints */
    if (!t->seq_ready) {
        trace_seq_init(&t->seq);
        t->seq_ready = 1;
    } else {
        trace_seq_reset(&t->seq);
    }
    struct tep_record r;
    memset(&r, 0, sizeof r);
    r.ts = time;
    r.cpu = cpu;
    r.data = (void *)(uintptr_t)data;
    r.size = (int)len;
    r.record_size = r.size;
    r.locked = 1;
    if (!t->text_tried) { /* what %pS, %s of kernel strings and bprint need: once, not per record */
        t->text_tried = 1;
        load_text_blobs(t);
    }
    tep_print_event(t->tep, &t->seq, &r, "%s", TEP_PRINT_INFO);
    trace_seq_terminate(&t->seq);
    if (t->seq.state != TRACE_SEQ__GOOD)
        return NULL;
    return t->seq.buffer ? t->seq.buffer : "";
}

const char *tpformat_comm(tpformat *t, int pid)
{
    if (!t->tep)
        return NULL;
    load_text_blobs(t);
    if (!tep_is_pid_registered(t->tep, pid))
        return NULL;
    return tep_data_comm_from_pid(t->tep, pid);
}

/* The end of the conversion at p in a print format ("%ps", "%-10lu", "%*d"),
 * with how many arguments its '*'s take before its value's; *sym: 1 for a
 * kernel function (%ps %pS %pf %pF). */
static const char *conversion(const char *p, int *stars, int *sym)
{
    *stars = *sym = 0;
    while (*p && strchr("-+ #0", *p))
        p++;
    for (int part = 0; part < 2; part++) { /* width, then precision */
        if (part && *p != '.')
            break;
        if (part)
            p++;
        if (*p == '*')
            (*stars)++, p++;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    while (*p && strchr("hlLqjzt", *p))
        p++;
    if (*p == 'p' && p[1] && strchr("sSfF", p[1]))
        *sym = 1;
    return *p ? p + 1 : p;
}

int tpformat_funcs_of(const tpformat_event *ev, tpformat_funcs *out)
{
    const char *p = ev->print_fmt.format;
    const struct tep_print_arg *arg = ev->print_fmt.args;
    int n = 0;
    while (p && (p = strchr(p, '%')) && arg) {
        if (p[1] == '%') {
            p += 2;
            continue;
        }
        int stars, sym;
        p = conversion(p + 1, &stars, &sym);
        while (stars-- && arg)
            arg = arg->next;
        if (!arg)
            break;
        const struct tep_print_arg *a = arg;
        while (a->type == TEP_PRINT_TYPE && a->typecast.item)
            a = a->typecast.item;
        const struct tep_format_field *fd = NULL; /* looked up by the parser only as it prints */
        if (sym && a->type == TEP_PRINT_FIELD && a->field.name)
            fd = a->field.field ? a->field.field : tep_find_any_field((struct tep_event *)ev, a->field.name);
        if (fd && n < TPFORMAT_FUNCS_MAX)
            field_of(fd, &out->f[n++]);
        arg = arg->next;
    }
    return out->n = n;
}

int tpformat_funcs_read(const tpformat_funcs *fs, uint32_t raw_flags, const uint8_t *data, size_t len,
                        uint64_t *addrs)
{
    int n = 0;
    for (int i = 0; i < fs->n; i++)
        if (tpformat_read(&fs->f[i], raw_flags, data, len, &addrs[n]) == 0 && addrs[n])
            n++;
    return n;
}
