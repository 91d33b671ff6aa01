/*
 * cat-sample.c - samples as `perf script` prints them, counters as the
 * `perf stat` table.
 *
 * A sample:      comm pid/tid [cpu] time: period event:
 *                \t    addr sym+0xoff (module)       one line per frame, leaf first
 * (a sample without a call chain is one line, as perf script prints it).
 * Unsymbolized frames show [unknown] and the module from the mmap records
 * seen so far.  Tracepoint samples show their fields after the event name,
 * decoded with libtraceevent from the ftrace/format/SYS/EVENT blobs, as
 * perf script does.  Counters: -I readings print as perf stat -I lines, final
 * readings as the perf stat table at the end of the stream (or --summary).
 * JSON output of samples and counters is the generic one; --summary --json
 * prints the counter table as one JSON object.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "cat.h"
#include "../../recorders/tr-rec-perf/stat-table.h"

struct sample_state {
    struct stt *table;     /* counters of this stream */
    int interval_header;
    uint64_t last_interval[STT_MAX];
    char interval_names[STT_MAX][128];
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
};

static struct sample_state st;
static struct tep_handle *tep; /* tracepoint formats of this stream, parsed on first use */
static int tep_tried;

/* ---- the module of unsymbolized frames (the model's maps, cat_module_of) ---- */

static const char *module_of(int32_t pid, uint64_t addr)
{
    const char *m = cat_module_of(pid, addr, NULL);
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
    int n = snprintf(buf, size, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)", fr->addr, fn ? fn : "[unknown]",
                     fr->offset, mod ? mod : "[unknown]");
    if (n >= 0 && (size_t)n < size && file)
        n += snprintf(buf + n, size - (size_t)n, " %s:%u", file, fr->line);
    if (n >= 0 && (size_t)n < size && (fr->flags & TR_FRAME_INLINE))
        n += snprintf(buf + n, size - (size_t)n, " [inline]");
    if (n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, "\n");
    return n < 0 ? size : (size_t)n;
}

/* The cached line of symbolized frame id, formatted on first use; NULL when
 * it cannot be kept (then it is formatted each time). */
static const char *frame_line(struct cat_ctx *c, uint32_t id, const tr_frame *fr, size_t *len)
{
    if (id >= (1u << 22))
        return NULL;
    if (id >= st.nlines) {
        size_t n = st.nlines ? st.nlines : 1024;
        while (n <= id)
            n *= 2;
        void *p = realloc(st.lines, n * sizeof *st.lines);
        if (!p)
            return NULL;
        st.lines = p;
        memset(st.lines + st.nlines, 0, (n - st.nlines) * sizeof *st.lines);
        st.nlines = n;
    }
    if (!st.lines[id].len) {
        char buf[4096];
        size_t n = format_symbolized(c, fr, buf, sizeof buf);
        if (n >= sizeof buf || n > UINT32_MAX - st.text_len)
            return NULL;
        if (st.text_cap - st.text_len < n) {
            size_t cap = st.text_cap ? st.text_cap * 2 : 65536;
            while (cap - st.text_len < n)
                cap *= 2;
            char *t = realloc(st.text, cap);
            if (!t)
                return NULL;
            st.text = t;
            st.text_cap = cap;
        }
        memcpy(st.text + st.text_len, buf, n);
        st.lines[id].off = (uint32_t)st.text_len;
        st.lines[id].len = (uint32_t)n;
        st.text_len += n;
    }
    *len = st.lines[id].len;
    return st.text + st.lines[id].off;
}

/* One frame: "\taddr sym+0xoff (module)...\n", or without the tab and the
 * newline when alone on the sample's line. */
static void print_frame(struct cat_ctx *c, FILE *f, const tr_record *rec, uint32_t id, int alone)
{
    const tr_frame *fr = tr_reader_frame(c->r, id);
    if (!fr) {
        fprintf(f, alone ? "[frame %u lost]" : "\t[frame %u lost]\n", id);
        return;
    }
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
        fwrite_unlocked(line + alone, 1, len - 2 * (size_t)alone, f);
    } else {
        const char *mod = fr->flags & TR_FRAME_KERNEL ? "[kernel.kallsyms]" : module_of(rec->pid, fr->addr);
        fprintf(f, alone ? "%16" PRIx64 " [unknown] (%s)" : "\t%16" PRIx64 " [unknown] (%s)\n", fr->addr, mod);
    }
}

/* "prev_comm=... ==> next_comm=..." of a raw tracepoint payload, or nothing. */
static void print_tracepoint_fields(struct cat_ctx *c, FILE *f, const tr_record *rec)
{
    if (!tep && !tep_tried) {
        tep_tried = 1;
        tep = tep_alloc();
        if (!tep)
            return;
        tep_set_loglevel(TEP_LOG_CRITICAL);
        tep_set_long_size(tep, (rec->u.sample.raw_flags & TR_RAW_32BIT) ? 4 : 8);
        tep_set_file_bigendian(tep, (rec->u.sample.raw_flags & TR_RAW_BIG_ENDIAN) ? TEP_BIG_ENDIAN
                                                                                  : TEP_LITTLE_ENDIAN);
        const char *name;
        const uint8_t *data;
        size_t len;
        for (size_t i = 0; tr_reader_blob_at(c->r, "ftrace/format/", i, &name, &data, &len) > 0; i++) {
            char sys[128];
            const char *p = name + strlen("ftrace/format/"), *slash = strchr(p, '/');
            if (!slash || (size_t)(slash - p) >= sizeof sys)
                continue;
            memcpy(sys, p, (size_t)(slash - p));
            sys[slash - p] = 0;
            tep_parse_event(tep, (const char *)data, len, sys);
        }
    }
    if (!tep || rec->u.sample.raw_len < 2)
        return;
    int type = (int)tep_read_number(tep, rec->u.sample.raw, 2);
    if (!tep_find_event(tep, type))
        return;
    struct tep_record r;
    memset(&r, 0, sizeof r);
    r.ts = rec->time;
    r.cpu = rec->cpu;
    r.data = (void *)(uintptr_t)rec->u.sample.raw;
    r.size = (int)rec->u.sample.raw_len;
    r.record_size = r.size;
    r.locked = 1;
    struct trace_seq seq;
    trace_seq_init(&seq);
    tep_print_event(tep, &seq, &r, "%s", TEP_PRINT_INFO);
    trace_seq_terminate(&seq);
    if (seq.buffer && seq.buffer[0])
        fprintf(f, " %s", seq.buffer);
    trace_seq_destroy(&seq);
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

/* "comm pid/tid [cpu] sec.usec: period event:" as perf script prints it (the
 * comm at column 0, as stackcollapse-perf.pl expects). */
static void print_sample_header(struct cat_ctx *c, FILE *f, const tr_record *rec, const tr_event_def *ev)
{
    const char *comm = cat_comm(c, rec->tid), *name = ev ? ev->name : "[unknown event]";
    size_t lc = strlen(comm), ln = strlen(name);
    char buf[512], *p = buf;
    if (lc + ln > sizeof buf - 128) { /* hostile lengths: printf's way */
        fprintf(f, "%s %6d/%-6d [%03d] ", comm, rec->pid, rec->tid, rec->cpu);
        cat_time(f, rec->time);
        fprintf(f, ": %10" PRIu64 " %s:", rec->u.sample.period, name);
        return;
    }
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
        fwrite_unlocked(buf, 1, (size_t)(p - buf), f);
        fprintf(f, "%10" PRIu64 " %s:", rec->u.sample.period, name);
        return;
    }
    p = put_dec(p, (int64_t)rec->u.sample.period, 10, PAD_RIGHT);
    *p++ = ' ';
    p = put_str(p, name, ln);
    *p++ = ':';
    fwrite_unlocked(buf, 1, (size_t)(p - buf), f);
}

static int print_sample(struct cat_ctx *c, const tr_record *rec)
{
    FILE *f = c->out;
    const tr_event_def *ev = tr_reader_event(c->r, rec->u.sample.event);
    print_sample_header(c, f, rec, ev);
    if (rec->u.sample.raw_len && !c->o->raw)
        print_tracepoint_fields(c, f, rec);
    const uint32_t *frames;
    int n = tr_reader_stack(c->r, rec->u.sample.stack, &frames);
    if (n < 0) {
        fprintf(f, "\n\t[stack %u lost]\n\n", rec->u.sample.stack);
    } else if (ev && !(ev->flags & TR_EVF_CALLCHAIN) && n <= 1) {
        if (n == 1) {
            fputc(' ', f);
            print_frame(c, f, rec, frames[0], 1);
        }
        fputc('\n', f);
    } else {
        fputc('\n', f);
        for (int i = 0; i < n; i++)
            print_frame(c, f, rec, frames[i], 0);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 1;
}

/* ---- counters ---- */

static struct stt *table(struct cat_ctx *c)
{
    if (!st.table) {
        st.table = calloc(1, sizeof *st.table);
        if (!st.table)
            return NULL;
    }
    if (!st.table->target[0]) {
        const char *label = tr_reader_meta(c->r, "stat.label");
        const char *cmd = tr_reader_meta(c->r, "command");
        if (label)
            snprintf(st.table->target, sizeof st.table->target, "%s", label);
        else if (cmd)
            snprintf(st.table->target, sizeof st.table->target, "'%s'", cmd);
    }
    return st.table;
}

static uint64_t *interval_last(const char *name)
{
    for (int i = 0; i < st.ninterval; i++)
        if (!strcmp(st.interval_names[i], name))
            return &st.last_interval[i];
    if (st.ninterval == STT_MAX)
        return NULL;
    snprintf(st.interval_names[st.ninterval], sizeof st.interval_names[0], "%s", name);
    st.last_interval[st.ninterval] = 0;
    return &st.last_interval[st.ninterval++];
}

static int print_interval(struct cat_ctx *c, const tr_record *rec, const char *name)
{
    static struct stt scratch;
    const char *s = tr_reader_meta(c->r, "stat.start");
    uint64_t start = s ? strtoull(s, NULL, 10) : c->first_time;
    uint64_t *last = interval_last(name);
    uint64_t prev = last && *last ? *last : start;
    if (last)
        *last = rec->time;
    if (!st.interval_header) {
        stt_print_interval_header(c->out);
        st.interval_header = 1;
    }
    stt_print_interval(c->out, &scratch, (double)(rec->time - start) / 1e9,
                       (double)(rec->time - prev) / 1e9, name, rec->u.counter.value,
                       rec->u.counter.enabled, rec->u.counter.running, rec->u.counter.flags);
    return ferror(c->out) ? -1 : 1;
}

static void account_counter(struct cat_ctx *c, const tr_record *rec)
{
    const tr_event_def *ev = tr_reader_event(c->r, rec->u.counter.event);
    struct stt *t = table(c);
    if (!t || (rec->u.counter.flags & TR_CNTF_INTERVAL))
        return;
    stt_add(t, ev ? ev->name : "[unknown event]", rec->u.counter.value, rec->u.counter.enabled,
            rec->u.counter.running, rec->u.counter.flags, rec->u.counter.run);
}

static int print_table_json(struct cat_ctx *c, struct stt *t)
{
    FILE *f = c->out;
    fprintf(f, "{\"type\":\"counter_summary\",\"target\":\"");
    cat_json_str(f, t->target, strlen(t->target));
    fprintf(f, "\",\"runs\":%u", t->runs);
    if (t->elapsed.n)
        fprintf(f, ",\"elapsed_ns\":%.0f", stt_mean(&t->elapsed));
    if (t->user.n)
        fprintf(f, ",\"user_ns\":%.0f,\"system_ns\":%.0f", stt_mean(&t->user), stt_mean(&t->sys));
    fprintf(f, ",\"counters\":[");
    for (int i = 0; i < t->nc; i++) {
        const struct stt_counter *k = &t->c[i];
        fprintf(f, "%s{\"event\":\"", i ? "," : "");
        cat_json_str(f, k->name, strlen(k->name));
        fputc('"', f);
        if (k->not_supported)
            fprintf(f, ",\"supported\":false");
        else if (k->not_counted || !k->n)
            fprintf(f, ",\"counted\":false");
        else
            fprintf(f, ",\"value\":%.3f,\"stddev_pct\":%.3f,\"running_pct\":%.2f", stt_mean(k),
                    stt_rel_stddev(k), k->enabled > 0 ? 100.0 * k->running / k->enabled : 100.0);
        fputc('}', f);
    }
    fprintf(f, "]}\n");
    return ferror(f) ? -1 : 0;
}

static int print_table(struct cat_ctx *c)
{
    if (!st.table || !st.table->runs)
        return 0;
    if (c->o->json)
        return print_table_json(c, st.table);
    stt_print(c->out, st.table);
    return ferror(c->out) ? -1 : 0;
}

/* ---- family hooks ---- */

int cat_sample_record(struct cat_ctx *c, const tr_record *rec)
{
    switch (rec->type) {
    case TR_REC_SAMPLE:
        return c->o->json ? 0 : print_sample(c, rec);
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
        if (!c->o->json && !st.interval_header && print_table(c) < 0)
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
        st.samples++;
        int i;
        for (i = 0; i < st.nevents; i++)
            if (st.per_event[i].event == rec->u.sample.event)
                break;
        if (i == st.nevents && st.nevents < 64) {
            st.per_event[i].event = rec->u.sample.event;
            st.nevents++;
        }
        if (i < st.nevents) {
            st.per_event[i].n++;
            st.per_event[i].period += rec->u.sample.period;
        }
    }
    return 0;
}

int cat_sample_summary(struct cat_ctx *c)
{
    if (print_table(c) < 0)
        return -1;
    if (st.samples && !c->o->json) {
        fprintf(c->out, "\n# %" PRIu64 " samples\n#  samples          period  event\n", st.samples);
        for (int i = 0; i < st.nevents; i++) {
            const tr_event_def *ev = tr_reader_event(c->r, st.per_event[i].event);
            fprintf(c->out, "%10" PRIu64 " %15" PRIu64 "  %s\n", st.per_event[i].n, st.per_event[i].period,
                    ev ? ev->name : "[unknown event]");
        }
    } else if (st.samples) {
        fprintf(c->out, "{\"type\":\"sample_summary\",\"samples\":%" PRIu64 ",\"events\":[", st.samples);
        for (int i = 0; i < st.nevents; i++) {
            const tr_event_def *ev = tr_reader_event(c->r, st.per_event[i].event);
            const char *n = ev ? ev->name : "[unknown event]";
            fprintf(c->out, "%s{\"event\":\"", i ? "," : "");
            cat_json_str(c->out, n, strlen(n));
            fprintf(c->out, "\",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 "}", st.per_event[i].n,
                    st.per_event[i].period);
        }
        fprintf(c->out, "]}\n");
    }
    return ferror(c->out) ? -1 : 0;
}

void cat_sample_reset(struct cat_ctx *c)
{
    (void)c;
    free(st.table);
    free(st.lines);
    free(st.text);
    memset(&st, 0, sizeof st);
    if (tep)
        tep_free(tep);
    tep = NULL;
    tep_tried = 0;
}
