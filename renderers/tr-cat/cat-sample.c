/*
 * cat-sample.c - samples as `perf script` prints them, counters as the
 * `perf stat` table.
 *
 * A sample:      comm pid/tid [cpu] time: period event:
 *                \t    addr sym+0xoff (module)       one line per frame, leaf first
 * (a sample without a call chain is one line, as perf script prints it).
 * Unsymbolized frames are symbolized on the fly (model/symbolize, as perf
 * script does: no inline frames); with --raw they show [unknown] and the
 * module from the mmap records seen so far.  Side-band records (comm, fork,
 * exit, mmap, lost, module status) show only when asked, as perf script's
 * --show-*-events.  Tracepoint samples show their fields after the event name,
 * decoded with libtraceevent from the ftrace/format/SYS/EVENT blobs, as
 * perf script does.  Counters: -I readings print as perf stat -I lines, final
 * readings as the perf stat table at the end of the stream (or --summary).
 * JSON output of samples and counters is the generic one; --summary --json
 * prints the counter table as one JSON object.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cat.h"
#include "cli.h"
#include "counters.h"
#include "hashmap.h"
#include "keys.h"
#include "symbolize/symbolize.h"
#include "tpformat.h"

/* The samples view's state for the current stream (c->sample; for the
 * whole input with --summary), created on first use, freed by
 * cat_sample_reset. */
struct cat_sample_state {
    struct counters table;    /* the final readings of the stream's counters */
    struct counters interval; /* -I readings so far, for their metrics */
    int interval_header;      /* the -I header was printed */
    uint64_t last_interval[COUNTERS_MAX];
    char interval_names[COUNTERS_MAX][128];
    int ninterval;
    uint64_t samples;
    struct { uint32_t event; uint64_t n, period; } per_event[64];
    int nevents;
    /* the printed line of each symbolized frame ("\t...\n"), by frame id:
     * samples repeat their frames, formatting each once is enough */
    struct { uint32_t off, len; } *lines;
    size_t nlines;
    char *text;
    size_t text_len, text_cap;
    char *out;                /* the sample being printed */
    size_t out_len, out_cap;
    /* the line of each frame symbolized on the fly, in text: by its address
     * and function (interned by the session), checked against its module */
    hashmap sym_lines;        /* (addr, func) -> index + 1 in sym_line */
    struct { const char *module; uint32_t off, len; } *sym_line;
    size_t nsym_line, cap_sym_line;
};

/* c->sample, created when missing; NULL when out of memory. */
static struct cat_sample_state *sample_state(struct cat_ctx *c)
{
    if (!c->sample)
        c->sample = calloc(1, sizeof *c->sample);
    return c->sample;
}

/* ---- the module of unsymbolized frames (the model's maps, cat_module_of) ---- */

static const char *module_of(struct cat_ctx *c, int32_t pid, uint64_t addr)
{
    const char *m = cat_module_of(c, pid, addr, NULL);
    return m ? m : "[unknown]";
}

/* ---- samples ---- */

/* "\taddr sym+0xoff (module) [file:line] [inline]\n" of a symbolized frame
 * into buf: its length, or size or more when it does not fit. */
static size_t format_symbolized(struct cat_ctx *c, const tr_frame *fr, char *buf, size_t size)
{
    const char *fn = tr_reader_string(c->r, fr->func, NULL);
    const char *mod = tr_reader_string(c->r, fr->module, NULL);
    const char *file = tr_reader_string(c->r, fr->file, NULL);
    int n = !fn || !strcmp(fn, "[unknown]") /* as perf script: no offset */
                ? snprintf(buf, size, "\t%16" PRIx64 " [unknown] (%s)", fr->addr, mod ? mod : "[unknown]")
                : snprintf(buf, size, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)", fr->addr, fn, fr->offset,
                           mod ? mod : "[unknown]");
    if (n >= 0 && (size_t)n < size && file)
        n += snprintf(buf + n, size - (size_t)n, " %s:%u", file, fr->line);
    if (n >= 0 && (size_t)n < size && (fr->flags & TR_FRAME_INLINE))
        n += snprintf(buf + n, size - (size_t)n, " [inline]");
    if (n > 1 && (size_t)n < size) { /* the program's names (paths, symbols) never raw */
        const char *t = cat_text(c, buf + 1);
        if (t != buf + 1)
            n = snprintf(buf, size, "\t%s", t);
    }
    if (n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, "\n");
    return n < 0 ? size : (size_t)n;
}

/* The cached line of symbolized frame id, formatted on first use; NULL when
 * it cannot be kept (then it is formatted each time). */
static const char *frame_line(struct cat_ctx *c, uint32_t id, const tr_frame *fr, size_t *len)
{
    struct cat_sample_state *s = c->sample;
    if (id >= (1u << 22))
        return NULL;
    if (id >= s->nlines && array_reserve_zeroed(&s->lines, &s->nlines, (size_t)id + 1, sizeof *s->lines, 1024) < 0)
        return NULL;
    if (!s->lines[id].len) {
        char buf[4096];
        size_t n = format_symbolized(c, fr, buf, sizeof buf);
        if (n >= sizeof buf || n > UINT32_MAX - s->text_len)
            return NULL;
        if (array_reserve(&s->text, &s->text_cap, s->text_len + n, 1, 65536) < 0)
            return NULL;
        memcpy(s->text + s->text_len, buf, n);
        s->lines[id].off = (uint32_t)s->text_len;
        s->lines[id].len = (uint32_t)n;
        s->text_len += n;
    }
    *len = s->lines[id].len;
    return s->text + s->lines[id].off;
}

enum { PAD_RIGHT, PAD_LEFT, PAD_ZERO };

/* v in decimal at p, as printf's %Nd (PAD_RIGHT), %-Nd (PAD_LEFT) or %0Nd
 * (PAD_ZERO) with N = width (at most 20): the end of what was written. */
static char *put_dec(char *p, int64_t v, int width, int pad)
{
    char d[24];
    int n = 0;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    do {
        d[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    int len = n + (v < 0);
    if (pad == PAD_RIGHT)
        for (; len < width; len++)
            *p++ = ' ';
    if (v < 0)
        *p++ = '-';
    if (pad == PAD_ZERO)
        for (; len < width; len++)
            *p++ = '0';
    while (n)
        *p++ = d[--n];
    if (pad == PAD_LEFT)
        for (; len < width; len++)
            *p++ = ' ';
    return p;
}

static char *put_str(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

/* ---- the sample's text, built whole and written at once ---- */

/* Room for n more bytes at the end of the sample's text; NULL out of memory. */
static char *out_room(struct cat_sample_state *s, size_t n)
{
    if (s->out_cap - s->out_len < n && array_reserve(&s->out, &s->out_cap, s->out_len + n, 1, 65536) < 0)
        return NULL;
    return s->out + s->out_len;
}

static int out_put(struct cat_sample_state *s, const char *p, size_t n)
{
    char *d = out_room(s, n);
    if (!d)
        return -1;
    memcpy(d, p, n);
    s->out_len += n;
    return 0;
}

/* printf to the sample's text; -1 out of memory. */
static int out_printf(struct cat_sample_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int out_printf(struct cat_sample_state *s, const char *fmt, ...)
{
    size_t room = 256;
    for (;;) {
        char *d = out_room(s, room);
        if (!d)
            return -1;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(d, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -1;
        if ((size_t)n < room) {
            s->out_len += (size_t)n;
            return 0;
        }
        room = (size_t)n + 1;
    }
}

/* Write the sample's text out and start over. */
static void out_flush(struct cat_sample_state *s, FILE *f)
{
    fwrite_unlocked(s->out, 1, s->out_len, f);
    s->out_len = 0;
}

/* One frame: "\taddr sym+0xoff (module)...\n", or without the tab and the
 * newline when alone on the sample's line.  A symbolized frame's line comes
 * from the cache by its id, without a look-up in the reader once formatted
 * (a stream's ids keep their definitions).  0, or -1 out of memory. */
static int put_frame(struct cat_ctx *c, const tr_record *rec, uint32_t id, int alone)
{
    struct cat_sample_state *s = c->sample;
    if (id < s->nlines && s->lines[id].len)
        return out_put(s, s->text + s->lines[id].off + alone, s->lines[id].len - 2 * (size_t)alone);
    const tr_frame *fr = tr_reader_frame(c->r, id);
    if (!fr)
        return out_printf(s, alone ? "[frame %u lost]" : "\t[frame %u lost]\n", id);
    if (fr->flags & TR_FRAME_SYMBOLIZED) {
        size_t len;
        const char *line = frame_line(c, id, fr, &len);
        char buf[4096];
        if (!line) {
            len = format_symbolized(c, fr, buf, sizeof buf);
            line = buf;
            if (len >= sizeof buf)
                len = sizeof buf - 1;
        }
        return out_put(s, line + alone, len - 2 * (size_t)alone);
    }
    /* "\t%16" PRIx64 " [unknown] (%s)\n" by hand: every frame of a raw trace */
    const char *mod = fr->flags & TR_FRAME_KERNEL ? "[kernel.kallsyms]" : cat_text(c, module_of(c, rec->pid, fr->addr));
    size_t ml = strlen(mod);
    char *p = out_room(s, ml + 48), *start = p;
    if (!p)
        return -1;
    if (!alone)
        *p++ = '\t';
    char hex[16];
    int nh = 0;
    uint64_t a = fr->addr;
    do {
        hex[nh++] = "0123456789abcdef"[a & 15];
        a >>= 4;
    } while (a);
    for (int i = nh; i < 16; i++)
        *p++ = ' ';
    while (nh)
        *p++ = hex[--nh];
    p = put_str(p, " [unknown] (", 12);
    p = put_str(p, mod, ml);
    *p++ = ')';
    if (!alone)
        *p++ = '\n';
    s->out_len += (size_t)(p - start);
    return 0;
}

/* The line of a frame symbolized on the fly, as perf script prints it:
 * "\taddr sym+0xoff (module)\n" ("[unknown]" without an offset), formatted
 * once per address and function; NULL out of memory. */
static const char *sym_frame_line(struct cat_ctx *c, const sym_frame *f, size_t *len)
{
    struct cat_sample_state *s = c->sample;
    const char *mod = f->module ? f->module : "[unknown]";
    uintptr_t i = (uintptr_t)hashmap_get(&s->sym_lines, f->addr, (uintptr_t)f->func);
    if (i && s->sym_line[i - 1].module == mod) {
        *len = s->sym_line[i - 1].len;
        return s->text + s->sym_line[i - 1].off;
    }
    char buf[4096];
    int n = f->flags & SYM_UNKNOWN ? snprintf(buf, sizeof buf, "%16" PRIx64 " [unknown] (%s)", f->addr, mod)
                                   : snprintf(buf, sizeof buf, "%16" PRIx64 " %s+0x%" PRIx64 " (%s)", f->addr,
                                              f->func, f->offset, mod);
    if (n < 0)
        return NULL;
    const char *t = cat_text(c, buf); /* the program's names (paths, symbols) never raw */
    size_t tl = strlen(t);
    if (tl + 2 > UINT32_MAX - s->text_len || array_reserve(&s->text, &s->text_cap, s->text_len + tl + 2, 1, 65536) < 0 ||
        array_reserve(&s->sym_line, &s->cap_sym_line, s->nsym_line + 1, sizeof *s->sym_line, 1024) < 0 ||
        hashmap_put(&s->sym_lines, f->addr, (uintptr_t)f->func, (void *)(uintptr_t)(s->nsym_line + 1)) < 0)
        return NULL;
    char *p = s->text + s->text_len;
    p[0] = '\t';
    memcpy(p + 1, t, tl);
    p[tl + 1] = '\n';
    s->sym_line[s->nsym_line].module = mod;
    s->sym_line[s->nsym_line].off = (uint32_t)s->text_len;
    s->sym_line[s->nsym_line++].len = (uint32_t)(tl + 2);
    s->text_len += tl + 2;
    *len = tl + 2;
    return p;
}

/* A frame symbolized on the fly, without the tab and the newline when alone
 * on the sample's line.  0, or -1 out of memory. */
static int put_sym_frame(struct cat_ctx *c, const sym_frame *f, int alone)
{
    size_t len;
    const char *line = sym_frame_line(c, f, &len);
    return line ? out_put(c->sample, line + alone, len - 2 * (size_t)alone) : -1;
}

/* Whether a frame of the stack is raw (to be symbolized); 0 also for lost
 * ones.  A frame whose line is cached is symbolized: not looked up again. */
static int any_raw(struct cat_ctx *c, const uint32_t *frames, int n)
{
    const struct cat_sample_state *s = c->sample;
    for (int i = 0; i < n; i++) {
        if (frames[i] < s->nlines && s->lines[frames[i]].len)
            continue;
        const tr_frame *fr = tr_reader_frame(c->r, frames[i]);
        if (fr && !(fr->flags & TR_FRAME_SYMBOLIZED))
            return 1;
    }
    return 0;
}

/* The frames of the sample symbolized on the fly after its header; 1 done,
 * 0 when the session cannot (then the recorded frames are printed), -1 out
 * of memory. */
static int put_sym_stack(struct cat_ctx *c, const tr_record *rec, int alone)
{
    sym_session *ss = cat_sym(c);
    const sym_frame *f;
    size_t n;
    if (!ss || sym_resolve_stack(ss, c->r, rec, &f, &n) < 0)
        return 0;
    struct cat_sample_state *s = c->sample;
    if (alone && n <= 1)
        return (n == 1 && (out_put(s, " ", 1) < 0 || put_sym_frame(c, &f[0], 1) < 0)) || out_put(s, "\n", 1) < 0
                   ? -1 : 1;
    if (out_put(s, "\n", 1) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (put_sym_frame(c, &f[i], 0) < 0)
            return -1;
    return out_put(s, "\n", 1) < 0 ? -1 : 1;
}

/* "prev_comm=... ==> next_comm=..." of a raw tracepoint payload, or nothing. */
static void print_tracepoint_fields(struct cat_ctx *c, FILE *f, const tr_record *rec)
{
    tpformat *tp = cat_tpformat(c);
    if (!tp || tpformat_use(tp, c->r, rec->u.sample.raw_flags) < 0)
        return;
    const tpformat_event *ev = tpformat_event_of(tp, rec->u.sample.raw, rec->u.sample.raw_len);
    if (!ev)
        return;
    const char *s = tpformat_print(tp, ev, rec->time, rec->cpu, rec->u.sample.raw, rec->u.sample.raw_len);
    if (s && s[0])
        fprintf(f, " %s", cat_text(c, s));
}

/* "comm pid/tid [cpu] sec.usec: period event:" as perf script prints it (the
 * comm at column 0, as stackcollapse-perf.pl expects).  0, or -1 out of
 * memory. */
static int put_sample_header(struct cat_ctx *c, const tr_record *rec, const tr_event_def *ev)
{
    struct cat_sample_state *s = c->sample;
    const char *comm = cat_comm(c, rec->tid), *name = ev ? ev->name : "[unknown event]";
    size_t lc = strlen(comm), ln = strlen(name);
    char *p = out_room(s, lc + ln + 128), *start = p;
    if (!p)
        return -1;
    p = put_str(p, comm, lc);
    *p++ = ' ';
    p = put_dec(p, rec->pid, 6, PAD_RIGHT);
    *p++ = '/';
    p = put_dec(p, rec->tid, 6, PAD_LEFT);
    p = put_str(p, " [", 2);
    p = put_dec(p, rec->cpu, 3, PAD_ZERO);
    p = put_str(p, "] ", 2);
    /* cat_time's "sec.usec" */
    p = put_dec(p, (int64_t)(rec->time / 1000000000u), 0, PAD_RIGHT);
    *p++ = '.';
    p = put_dec(p, (int64_t)(rec->time % 1000000000u / 1000u), 6, PAD_ZERO);
    p = put_str(p, ": ", 2);
    if (rec->u.sample.period > INT64_MAX) { /* put_dec is signed */
        s->out_len += (size_t)(p - start);
        return out_printf(s, "%10" PRIu64 " %s:", rec->u.sample.period, name);
    }
    p = put_dec(p, (int64_t)rec->u.sample.period, 10, PAD_RIGHT);
    *p++ = ' ';
    p = put_str(p, name, ln);
    *p++ = ':';
    s->out_len += (size_t)(p - start);
    return 0;
}

/* The frames of the sample's stack after its header; 0, or -1 out of memory. */
static int put_stack(struct cat_ctx *c, const tr_record *rec, const tr_event_def *ev)
{
    struct cat_sample_state *s = c->sample;
    const uint32_t *frames;
    int n = tr_reader_stack(c->r, rec->u.sample.stack, &frames);
    if (n < 0)
        return out_printf(s, "\n\t[stack %u lost]\n\n", rec->u.sample.stack);
    int alone = ev && !(ev->flags & TR_EVF_CALLCHAIN);
    /* raw frames, or a stack copy to unwind: symbolized on the fly */
    if (c->sym && ((rec->u.sample.nregs && rec->u.sample.stack_copy_len) || any_raw(c, frames, n))) {
        int done = put_sym_stack(c, rec, alone);
        if (done)
            return done < 0 ? -1 : 0;
    }
    if (alone && n <= 1) {
        if (n == 1 && (out_put(s, " ", 1) < 0 || put_frame(c, rec, frames[0], 1) < 0))
            return -1;
        return out_put(s, "\n", 1);
    }
    if (out_put(s, "\n", 1) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (put_frame(c, rec, frames[i], 0) < 0)
            return -1;
    return out_put(s, "\n", 1);
}

int cat_sample_sideband_hidden(const struct cat_ctx *c, const tr_record *rec)
{
    const struct cat_opts *o = c->o;
    switch (rec->type) {
    case TR_REC_COMM:
    case TR_REC_FORK:
    case TR_REC_EXIT:
        return !o->show_task;
    case TR_REC_MMAP:
        return !o->show_mmap;
    case TR_REC_LOST:
        return !o->show_lost;
    case TR_REC_MODULE_STATUS:
        return !o->show_status;
    default:
        return 0;
    }
}

/* A sample: its text is built whole, then written at once. */
static int print_sample(struct cat_ctx *c, const tr_record *rec)
{
    FILE *f = c->out;
    struct cat_sample_state *s = sample_state(c);
    const tr_event_def *ev = tr_reader_event(c->r, rec->u.sample.event);
    if (!s || put_sample_header(c, rec, ev) < 0)
        goto oom;
    if (rec->u.sample.raw_len && !c->o->raw) {
        out_flush(s, f);
        print_tracepoint_fields(c, f, rec);
    }
    if (put_stack(c, rec, ev) < 0)
        goto oom;
    out_flush(s, f);
    return ferror(f) ? -1 : 1;
oom:
    cli_warn("%s: out of memory", c->file);
    return -1;
}

/* ---- counters ---- */

/* The stream's counter table, its target from the metadata on first use. */
static struct counters *table(struct cat_ctx *c)
{
    struct cat_sample_state *s = sample_state(c);
    if (!s)
        return NULL;
    struct counters *t = &s->table;
    if (!t->target[0]) {
        const char *label = tr_reader_meta(c->r, META_STAT_LABEL);
        const char *cmd = tr_reader_meta(c->r, META_COMMAND);
        if (label)
            snprintf(t->target, sizeof t->target, "%s", label);
        else if (cmd)
            snprintf(t->target, sizeof t->target, "'%s'", cmd);
    }
    return t;
}

static uint64_t *interval_last(struct cat_sample_state *s, const char *name)
{
    for (int i = 0; i < s->ninterval; i++)
        if (!strcmp(s->interval_names[i], name))
            return &s->last_interval[i];
    if (s->ninterval == COUNTERS_MAX)
        return NULL;
    snprintf(s->interval_names[s->ninterval], sizeof s->interval_names[0], "%s", name);
    s->last_interval[s->ninterval] = 0;
    return &s->last_interval[s->ninterval++];
}

static int print_interval(struct cat_ctx *c, const tr_record *rec, const char *name)
{
    struct cat_sample_state *s = sample_state(c);
    if (!s)
        return -1;
    const char *m = tr_reader_meta(c->r, META_STAT_START);
    uint64_t start = m ? strtoull(m, NULL, 10) : c->first_time;
    uint64_t *last = interval_last(s, name);
    uint64_t prev = last && *last ? *last : start;
    if (last)
        *last = rec->time;
    if (!s->interval_header) {
        fputs(COUNTERS_INTERVAL_HEADER "\n", c->out);
        s->interval_header = 1;
    }
    char line[512];
    size_t n = counters_format_interval(&s->interval, (double)(rec->time - start) / 1e9,
                                        (double)(rec->time - prev) / 1e9, name, rec->u.counter.value,
                                        rec->u.counter.enabled, rec->u.counter.running, rec->u.counter.flags,
                                        line, sizeof line);
    fwrite(line, 1, n, c->out);
    fputc('\n', c->out);
    return ferror(c->out) ? -1 : 1;
}

static void account_counter(struct cat_ctx *c, const tr_record *rec)
{
    const tr_event_def *ev = tr_reader_event(c->r, rec->u.counter.event);
    struct counters *t = table(c);
    if (!t || (rec->u.counter.flags & TR_CNTF_INTERVAL))
        return;
    const char *name = ev ? ev->name : "[unknown event]";
    if (rec->tid >= 0) { /* --per-thread: one thread's reading */
        const char *target = tr_reader_meta(c->r, META_TARGET);
        t->skip_zero = target && !strcmp(target, "system");
        counters_add_thread(t, name, rec->tid, cat_comm_raw(c, rec->tid), rec->u.counter.value,
                            rec->u.counter.enabled, rec->u.counter.running, rec->u.counter.flags);
        return;
    }
    counters_add(t, name, rec->u.counter.value, rec->u.counter.enabled, rec->u.counter.running,
                 rec->u.counter.flags, rec->u.counter.run);
}

static int print_table_json(struct cat_ctx *c, const struct counters *t)
{
    FILE *f = c->out;
    fprintf(f, "{\"type\":\"counter_summary\",\"target\":\"");
    json_str(f, t->target, strlen(t->target));
    fprintf(f, "\",\"runs\":%u", t->runs);
    if (t->elapsed.n)
        fprintf(f, ",\"elapsed_ns\":%.0f", counters_mean(&t->elapsed));
    if (t->user.n)
        fprintf(f, ",\"user_ns\":%.0f,\"system_ns\":%.0f", counters_mean(&t->user), counters_mean(&t->sys));
    fprintf(f, ",\"counters\":[");
    for (int i = 0; i < t->nc; i++) {
        const struct counters_entry *k = &t->c[i];
        fprintf(f, "%s{\"event\":\"", i ? "," : "");
        json_str(f, k->name, strlen(k->name));
        fputc('"', f);
        int threads = 0;
        for (size_t j = 0; j < t->nthreads; j++) {
            const struct counters_thread *r = &t->threads[j];
            if (r->row != i)
                continue;
            fprintf(f, "%s{\"tid\":%d,\"comm\":\"", threads++ ? "," : ",\"threads\":[", (int)r->tid);
            json_str(f, r->comm, strlen(r->comm));
            fprintf(f, "\",\"value\":%" PRIu64 ",\"enabled\":%" PRIu64 ",\"running\":%" PRIu64 "}", r->value,
                    r->enabled, r->running);
        }
        if (threads) /* the threads' readings are the values */
            fputc(']', f);
        else if (k->not_supported)
            fprintf(f, ",\"supported\":false");
        else if (k->not_counted || !k->n)
            fprintf(f, ",\"counted\":false");
        else
            fprintf(f, ",\"value\":%.3f,\"stddev_pct\":%.3f,\"running_pct\":%.2f", counters_mean(k),
                    counters_rel_stddev(k), k->enabled > 0 ? 100.0 * k->running / k->enabled : 100.0);
        fputc('}', f);
    }
    fprintf(f, "]}\n");
    return ferror(f) ? -1 : 0;
}

static int line_to_file(void *arg, const char *line, size_t len)
{
    FILE *f = arg;
    fwrite(line, 1, len, f);
    fputc('\n', f);
    return 0;
}

static int print_table(struct cat_ctx *c)
{
    struct cat_sample_state *s = c->sample;
    if (!s || !s->table.runs)
        return 0;
    if (c->o->json)
        return print_table_json(c, &s->table);
    counters_format_table(&s->table, line_to_file, c->out);
    return ferror(c->out) ? -1 : 0;
}

/* ---- family hooks ---- */

int cat_sample_record(struct cat_ctx *c, const tr_record *rec)
{
    switch (rec->type) {
    case TR_REC_SAMPLE:
        return c->o->json ? 0 : print_sample(c, rec);
    case TR_REC_SWITCH:
        return !c->o->json; /* as perf script without --show-switch-events */
    case TR_REC_COUNTER:
        if (c->o->json)
            return 0;
        if (rec->u.counter.flags & TR_CNTF_INTERVAL) {
            const tr_event_def *ev = tr_reader_event(c->r, rec->u.counter.event);
            return print_interval(c, rec, ev ? ev->name : "[unknown event]");
        }
        account_counter(c, rec);
        return 1;
    case TR_REC_STREAM_END:
        /* the table of the stream's counters, before the generic end line */
        if (!c->o->json && !(c->sample && c->sample->interval_header) && print_table(c) < 0)
            return -1;
        return 0;
    default:
        return 0;
    }
}

int cat_sample_account(struct cat_ctx *c, const tr_record *rec)
{
    if (rec->type == TR_REC_COUNTER) {
        account_counter(c, rec);
    } else if (rec->type == TR_REC_SAMPLE) {
        struct cat_sample_state *s = sample_state(c);
        if (!s)
            return -1;
        s->samples++;
        int i;
        for (i = 0; i < s->nevents; i++)
            if (s->per_event[i].event == rec->u.sample.event)
                break;
        if (i == s->nevents && s->nevents < 64) {
            s->per_event[i].event = rec->u.sample.event;
            s->nevents++;
        }
        if (i < s->nevents) {
            s->per_event[i].n++;
            s->per_event[i].period += rec->u.sample.period;
        }
    }
    return 0;
}

int cat_sample_summary(struct cat_ctx *c)
{
    if (print_table(c) < 0)
        return -1;
    const struct cat_sample_state *s = c->sample;
    if (!s)
        return 0;
    if (s->samples && !c->o->json) {
        fprintf(c->out, "\n# %" PRIu64 " samples\n#  samples          period  event\n", s->samples);
        for (int i = 0; i < s->nevents; i++) {
            const tr_event_def *ev = tr_reader_event(c->r, s->per_event[i].event);
            fprintf(c->out, "%10" PRIu64 " %15" PRIu64 "  %s\n", s->per_event[i].n, s->per_event[i].period,
                    ev ? ev->name : "[unknown event]");
        }
    } else if (s->samples) {
        fprintf(c->out, "{\"type\":\"sample_summary\",\"samples\":%" PRIu64 ",\"events\":[", s->samples);
        for (int i = 0; i < s->nevents; i++) {
            const tr_event_def *ev = tr_reader_event(c->r, s->per_event[i].event);
            const char *n = ev ? ev->name : "[unknown event]";
            fprintf(c->out, "%s{\"event\":\"", i ? "," : "");
            json_str(c->out, n, strlen(n));
            fprintf(c->out, "\",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 "}", s->per_event[i].n,
                    s->per_event[i].period);
        }
        fprintf(c->out, "]}\n");
    }
    return ferror(c->out) ? -1 : 0;
}

void cat_sample_reset(struct cat_ctx *c)
{
    if (c->sample) {
        counters_free(&c->sample->table);
        free(c->sample->lines);
        free(c->sample->text);
        free(c->sample->out);
        hashmap_free(&c->sample->sym_lines);
        free(c->sample->sym_line);
        free(c->sample);
        c->sample = NULL;
    }
}
