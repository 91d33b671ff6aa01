/* cat-ftrace.c - tracepoint events (TR_REC_TRACE_EVENT) decoded with libtraceevent from the
 * formats stored in the trace (ftrace/header_page, ftrace/format/SYS/EVENT,
 * ftrace/printk_formats, ftrace/saved_cmdlines); nothing is read from the running machine.
 * Text is trace-cmd report's: "comm-pid [cpu] time: event: fields". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "cat.h"
#include "keys.h"

struct ev_count {
    char *name;
    uint64_t n;
};
struct task_count {
    int32_t tid;
    char comm[32];
    uint64_t n;
};

static struct {
    struct tep_handle *tep;
    int tried;             /* set up attempted for this stream */
    int long_size;
    char **parsed;         /* format blob names parsed */
    size_t nparsed;
    int printk_done, cmdlines_done, kallsyms_done;
    /* --summary */
    struct ev_count *ev;
    size_t nev;
    struct task_count *tasks;
    size_t ntasks;
    uint64_t lost, events;
} st;

static char *dupz(const uint8_t *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

static int is_parsed(const char *name)
{
    for (size_t i = 0; i < st.nparsed; i++)
        if (!strcmp(st.parsed[i], name))
            return 1;
    return 0;
}

static void mark_parsed(const char *name)
{
    char **v = realloc(st.parsed, (st.nparsed + 1) * sizeof *v);
    if (!v)
        return;
    st.parsed = v;
    st.parsed[st.nparsed] = strdup(name);
    if (st.parsed[st.nparsed])
        st.nparsed++;
}

/* Parse one "ftrace/format/SYS/EVENT" blob into the tep. */
static void parse_format(const char *name, const uint8_t *data, size_t len)
{
    if (is_parsed(name))
        return;
    mark_parsed(name);
    const char *sys = name + strlen("ftrace/format/");
    const char *slash = strchr(sys, '/');
    if (!slash)
        return;
    char *system = dupz((const uint8_t *)sys, (size_t)(slash - sys));
    if (system)
        tep_parse_event(st.tep, (const char *)data, len, system);
    free(system);
}

static void parse_all_formats(struct cat_ctx *c)
{
    const char *name;
    const uint8_t *data;
    size_t len;
    for (size_t i = 0; tr_reader_blob_at(c->r, BLOB_FTRACE_FORMAT_PREFIX, i, &name, &data, &len); i++)
        parse_format(name, data, len);
}

static void load_text_blobs(struct cat_ctx *c)
{
    size_t len;
    const uint8_t *b;
    if (!st.printk_done && (b = tr_reader_blob(c->r, BLOB_FTRACE_PRINTK_FORMATS, &len))) {
        char *s = dupz(b, len);
        if (s)
            tep_parse_printk_formats(st.tep, s);
        free(s);
        st.printk_done = 1;
    }
    if (!st.cmdlines_done && (b = tr_reader_blob(c->r, BLOB_FTRACE_SAVED_CMDLINES, &len))) {
        char *s = dupz(b, len);
        if (s)
            tep_parse_saved_cmdlines(st.tep, s);
        free(s);
        st.cmdlines_done = 1;
    }
    if (!st.kallsyms_done && (b = tr_reader_blob(c->r, BLOB_FTRACE_KALLSYMS, &len))) {
        char *s = dupz(b, len);
        if (s)
            tep_parse_kallsyms(st.tep, s);
        free(s);
        st.kallsyms_done = 1;
    }
}

/* The tep of the current stream, built from its blobs on first use. */
static struct tep_handle *tep_for(struct cat_ctx *c, const tr_record *rec)
{
    if (st.tep)
        return st.tep;
    if (st.tried)
        return NULL;
    st.tried = 1;
    size_t len;
    const uint8_t *hp = tr_reader_blob(c->r, BLOB_FTRACE_HEADER_PAGE, &len);
    if (!hp)
        return NULL;
    st.tep = tep_alloc();
    if (!st.tep)
        return NULL;
    tep_set_loglevel(TEP_LOG_CRITICAL);
    const uint16_t one = 1;
    int host_big = *(const uint8_t *)&one == 0;
    int file_big = (rec->u.trace_event.flags & TR_RAW_BIG_ENDIAN) != 0;
    st.long_size = (rec->u.trace_event.flags & TR_RAW_32BIT) ? 4 : 8;
    tep_set_file_bigendian(st.tep, file_big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_local_bigendian(st.tep, host_big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
    tep_set_long_size(st.tep, st.long_size);
    char *h = dupz(hp, len);
    if (h)
        tep_parse_header_page(st.tep, h, len, st.long_size);
    free(h);
    parse_all_formats(c);
    load_text_blobs(c);
    return st.tep;
}

static struct tep_event *event_for(struct cat_ctx *c, const tr_record *rec)
{
    struct tep_handle *tep = tep_for(c, rec);
    if (!tep || rec->u.trace_event.len < 8)
        return NULL;
    int type = (int)tep_read_number(tep, rec->u.trace_event.data, 2);
    struct tep_event *ev = tep_find_event(tep, type);
    if (!ev) {
        /* a format written after the stream began */
        parse_all_formats(c);
        ev = tep_find_event(tep, type);
    }
    return ev;
}

static const char *comm_of(struct cat_ctx *c, int32_t tid)
{
    const char *s = cat_comm(c, tid);
    if (strcmp(s, "-"))
        return s;
    if (tid == 0)
        return "<idle>";
    if (st.tep) {
        load_text_blobs(c);
        if (tep_is_pid_registered(st.tep, tid))
            return tep_data_comm_from_pid(st.tep, tid);
    }
    return "<...>";
}

static void make_record(struct tep_record *r, const tr_record *rec)
{
    memset(r, 0, sizeof *r);
    r->ts = rec->time;
    r->cpu = rec->cpu;
    r->data = (void *)(uintptr_t)rec->u.trace_event.data;
    r->size = (int)rec->u.trace_event.len;
    r->record_size = r->size;
    r->locked = 1;
}

static int print_text(struct cat_ctx *c, const tr_record *rec, struct tep_event *ev)
{
    struct tep_record r;
    make_record(&r, rec);
    struct trace_seq seq;
    trace_seq_init(&seq);
    tep_print_event(st.tep, &seq, &r, "%s", TEP_PRINT_INFO);
    trace_seq_terminate(&seq);
    FILE *f = c->out;
    fprintf(f, "%16s-%-7d [%03d] ", comm_of(c, rec->tid), rec->tid, rec->cpu);
    cat_time(f, rec->time);
    fprintf(f, ": %s: %s\n", ev->name, seq.buffer ? seq.buffer : "");
    trace_seq_destroy(&seq);
    return ferror(f) ? -1 : 1;
}

/* ---- JSON: the parsed fields by name ---- */

static int64_t sign_extend(uint64_t v, int size)
{
    if (size >= 8 || size <= 0)
        return (int64_t)v;
    unsigned bits = (unsigned)size * 8;
    uint64_t m = 1ull << (bits - 1);
    return (int64_t)((v ^ m) - m);
}

static void json_number(FILE *f, const struct tep_format_field *fd, const uint8_t *p, int size)
{
    uint64_t v = tep_read_number(st.tep, p, size);
    if (fd->flags & TEP_FIELD_IS_POINTER)
        fprintf(f, "\"0x%" PRIx64 "\"", v);
    else if (fd->flags & TEP_FIELD_IS_SIGNED)
        fprintf(f, "%" PRId64, sign_extend(v, size));
    else
        fprintf(f, "%" PRIu64, v);
}

static void json_cstring(FILE *f, const uint8_t *p, size_t max)
{
    size_t n = 0;
    while (n < max && p[n])
        n++;
    fputc('"', f);
    cat_json_str(f, (const char *)p, n);
    fputc('"', f);
}

static void json_array(FILE *f, const struct tep_format_field *fd, const uint8_t *p, size_t len)
{
    int es = fd->elementsize > 0 && fd->elementsize <= 8 ? (int)fd->elementsize : 1;
    fputc('[', f);
    for (size_t i = 0; i + (size_t)es <= len; i += (size_t)es) {
        if (i)
            fputc(',', f);
        json_number(f, fd, p + i, es);
    }
    fputc(']', f);
}

static void json_field(FILE *f, const struct tep_format_field *fd, const uint8_t *data, size_t len)
{
    if (fd->offset < 0 || (size_t)fd->offset + (size_t)fd->size > len) {
        fputs("null", f);
        return;
    }
    const uint8_t *p = data + fd->offset;
    int is_str = (fd->flags & TEP_FIELD_IS_STRING) != 0;
    if (fd->flags & TEP_FIELD_IS_DYNAMIC) {
        uint32_t loc = (uint32_t)tep_read_number(st.tep, p, 4);
        size_t off = loc & 0xffff, n = loc >> 16;
        if (fd->flags & TEP_FIELD_IS_RELATIVE)
            off += (size_t)fd->offset + (size_t)fd->size;
        if (off > len || n > len - off) {
            fputs("null", f);
            return;
        }
        if (is_str)
            json_cstring(f, data + off, n);
        else
            json_array(f, fd, data + off, n);
        return;
    }
    if (fd->flags & TEP_FIELD_IS_ARRAY) {
        if (is_str)
            json_cstring(f, p, (size_t)fd->size);
        else
            json_array(f, fd, p, (size_t)fd->size);
        return;
    }
    if (fd->size > 8 || fd->size <= 0) {
        json_array(f, fd, p, (size_t)fd->size);
        return;
    }
    json_number(f, fd, p, fd->size);
}

static int print_json(struct cat_ctx *c, const tr_record *rec, struct tep_event *ev)
{
    FILE *f = c->out;
    fprintf(f, "{\"type\":\"trace_event\",\"stream\":%u,\"time\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"cpu\":%d,",
            rec->stream, rec->time, rec->pid, rec->tid, rec->cpu);
    const char *comm = comm_of(c, rec->tid);
    fputs("\"comm\":\"", f);
    cat_json_str(f, comm, strlen(comm));
    fputs("\",\"event\":\"", f);
    cat_json_str(f, ev->system, strlen(ev->system));
    fputc(':', f);
    cat_json_str(f, ev->name, strlen(ev->name));
    fprintf(f, "\",\"flags\":%u,\"hex\":\"", rec->u.trace_event.flags);
    for (size_t i = 0; i < rec->u.trace_event.len; i++)
        fprintf(f, "%02x", rec->u.trace_event.data[i]);
    fputs("\",\"fields\":{", f);
    int first = 1;
    for (struct tep_format_field *fd = ev->format.fields; fd; fd = fd->next) {
        fprintf(f, "%s\"", first ? "" : ",");
        cat_json_str(f, fd->name, strlen(fd->name));
        fputs("\":", f);
        json_field(f, fd, rec->u.trace_event.data, rec->u.trace_event.len);
        first = 0;
    }
    fputs("}}\n", f);
    return ferror(f) ? -1 : 1;
}

int cat_ftrace_record(struct cat_ctx *c, const tr_record *rec)
{
    if ((rec->type == TR_REC_COMM || rec->type == TR_REC_LOST || rec->type == TR_REC_EXIT) && !c->o->json &&
        !c->o->raw) {
        if (cat_producer(c) != CAT_FROM_FTRACE)
            return 0;
        /* tr-rec-ftrace names tasks with COMM records as it first sees them,
         * and ends with the command's EXIT; trace-cmd report prints no such
         * lines (the exit status shows in --json and --info), and losses as it does */
        if (rec->type == TR_REC_LOST)
            fprintf(c->out, "CPU:%d [LOST %" PRIu64 " EVENTS]\n", rec->cpu, rec->u.lost.count);
        return ferror(c->out) ? -1 : 1;
    }
    if (rec->type != TR_REC_TRACE_EVENT || c->o->raw)
        return 0;
    struct tep_event *ev = event_for(c, rec);
    if (!ev)
        return 0; /* no stored format: the generic line with the raw size */
    return c->o->json ? print_json(c, rec, ev) : print_text(c, rec, ev);
}

/* ---- --summary: counts per event and per task ---- */

static const char *event_name(struct cat_ctx *c, const tr_record *rec, char *buf, size_t len)
{
    const tr_event_def *d = tr_reader_event(c->r, rec->u.trace_event.event);
    if (d && d->name)
        snprintf(buf, len, "%.*s", (int)d->name_len, d->name);
    else
        snprintf(buf, len, "event#%u", rec->u.trace_event.event);
    return buf;
}

int cat_ftrace_account(struct cat_ctx *c, const tr_record *rec)
{
    if (rec->type == TR_REC_LOST && (rec->u.lost.kind == TR_LOST_OVERRUN)) {
        st.lost += rec->u.lost.count;
        return 0;
    }
    if (rec->type != TR_REC_TRACE_EVENT)
        return 0;
    st.events++;
    char name[256];
    event_name(c, rec, name, sizeof name);
    size_t i;
    for (i = 0; i < st.nev && strcmp(st.ev[i].name, name); i++)
        ;
    if (i == st.nev) {
        struct ev_count *v = realloc(st.ev, (st.nev + 1) * sizeof *v);
        if (!v)
            return -1;
        st.ev = v;
        st.ev[i].name = strdup(name);
        st.ev[i].n = 0;
        if (!st.ev[i].name)
            return -1;
        st.nev++;
    }
    st.ev[i].n++;
    for (i = 0; i < st.ntasks && st.tasks[i].tid != rec->tid; i++)
        ;
    if (i == st.ntasks) {
        struct task_count *v = realloc(st.tasks, (st.ntasks + 1) * sizeof *v);
        if (!v)
            return -1;
        st.tasks = v;
        st.tasks[i].tid = rec->tid;
        st.tasks[i].n = 0;
        st.tasks[i].comm[0] = 0;
        st.ntasks++;
    }
    if (!st.tasks[i].comm[0] || !strcmp(st.tasks[i].comm, "<...>"))
        snprintf(st.tasks[i].comm, sizeof st.tasks[i].comm, "%s", comm_of(c, rec->tid));
    st.tasks[i].n++;
    return 0;
}

static int cmp_ev(const void *a, const void *b)
{
    const struct ev_count *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int cmp_task(const void *a, const void *b)
{
    const struct task_count *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int cat_ftrace_summary(struct cat_ctx *c)
{
    if (!st.events)
        return 0;
    FILE *f = c->out;
    qsort(st.ev, st.nev, sizeof *st.ev, cmp_ev);
    qsort(st.tasks, st.ntasks, sizeof *st.tasks, cmp_task);
    if (c->o->json) {
        for (size_t i = 0; i < st.nev; i++) {
            fputs("{\"type\":\"trace_event_count\",\"event\":\"", f);
            cat_json_str(f, st.ev[i].name, strlen(st.ev[i].name));
            fprintf(f, "\",\"count\":%" PRIu64 "}\n", st.ev[i].n);
        }
        for (size_t i = 0; i < st.ntasks; i++) {
            fputs("{\"type\":\"trace_task_count\",\"comm\":\"", f);
            cat_json_str(f, st.tasks[i].comm, strlen(st.tasks[i].comm));
            fprintf(f, "\",\"tid\":%d,\"count\":%" PRIu64 "}\n", st.tasks[i].tid, st.tasks[i].n);
        }
        fprintf(f, "{\"type\":\"trace_event_total\",\"count\":%" PRIu64 ",\"lost\":%" PRIu64 "}\n", st.events,
                st.lost);
        return ferror(f) ? -1 : 0;
    }
    fprintf(f, "%12s  %s\n", "events", "tracepoint");
    for (size_t i = 0; i < st.nev; i++)
        fprintf(f, "%12" PRIu64 "  %s\n", st.ev[i].n, st.ev[i].name);
    fprintf(f, "%12" PRIu64 "  total\n", st.events);
    if (st.lost)
        fprintf(f, "%12" PRIu64 "  lost (ring buffer overruns)\n", st.lost);
    fprintf(f, "\n%12s  %s\n", "events", "task");
    for (size_t i = 0; i < st.ntasks; i++)
        fprintf(f, "%12" PRIu64 "  %s-%d\n", st.tasks[i].n, st.tasks[i].comm, st.tasks[i].tid);
    return ferror(f) ? -1 : 0;
}

void cat_ftrace_reset(struct cat_ctx *c)
{
    (void)c;
    if (st.tep)
        tep_free(st.tep);
    for (size_t i = 0; i < st.nparsed; i++)
        free(st.parsed[i]);
    free(st.parsed);
    for (size_t i = 0; i < st.nev; i++)
        free(st.ev[i].name);
    free(st.ev);
    free(st.tasks);
    memset(&st, 0, sizeof st);
}
