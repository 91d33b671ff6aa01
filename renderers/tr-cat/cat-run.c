/* cat-run.c - read one input and send each record through the filters to
 * its view (or to the summaries): the table of views, and the choice of a
 * stream's view. */
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cat.h"
#include "cli.h"
#include "keys.h"

/* The views, by id; in this order their summaries print and their
 * held-back output is flushed at a stream's end. */
static const struct cat_view views[] = {
    [CAT_VIEW_GENERIC] = {CAT_VIEW_GENERIC, NULL, NULL, NULL, NULL, NULL}, /* tr-cat's own lines */
    [CAT_VIEW_SAMPLES] = {CAT_VIEW_SAMPLES, VIEW_SAMPLES, cat_sample_record, cat_sample_account,
                          cat_sample_summary, cat_sample_reset},
    [CAT_VIEW_SYSCALLS] = {CAT_VIEW_SYSCALLS, VIEW_SYSCALLS, cat_syscall_record, cat_syscall_account,
                           cat_syscall_summary, cat_syscall_reset},
    [CAT_VIEW_TRACEPOINTS] = {CAT_VIEW_TRACEPOINTS, VIEW_TRACEPOINTS, cat_ftrace_record, cat_ftrace_account,
                              cat_ftrace_summary, cat_ftrace_reset},
    [CAT_VIEW_LIBCALLS] = {CAT_VIEW_LIBCALLS, VIEW_LIBCALLS, cat_libcall_record, cat_libcall_account,
                           cat_libcall_summary, cat_libcall_reset},
};
#define NVIEWS (sizeof views / sizeof views[0])

/* The view whose family records of this type are: it prints and accounts
 * them in every stream (losses: tracepoints, which counts ring overruns
 * and prints them in its own streams).  NULL: a generic record. */
static const struct cat_view *family_of(uint32_t type)
{
    switch (type) {
    case TR_REC_SAMPLE:
    case TR_REC_COUNTER:
        return &views[CAT_VIEW_SAMPLES];
    case TR_REC_SYSCALL:
        return &views[CAT_VIEW_SYSCALLS];
    case TR_REC_LIBCALL:
        return &views[CAT_VIEW_LIBCALLS];
    case TR_REC_TRACE_EVENT:
    case TR_REC_LOST:
        return &views[CAT_VIEW_TRACEPOINTS];
    default:
        return NULL;
    }
}

/* Streams written before META_VIEW existed: their view from their recorder. */
static const struct { const char *producer, *view; } producer_views[] = {
    {"tr-rec-perf", VIEW_SAMPLES},
    {"tr-rec-strace", VIEW_SYSCALLS},
    {"tr-rec-ftrace", VIEW_TRACEPOINTS},
};

/* The view of the current stream from its metadata (absorbed by the reader
 * with the stream's first chunk): META_VIEW, else the producer's; generic
 * when neither is known.  NULL while the stream has no metadata yet. */
static const struct cat_view *choose_view(struct cat_ctx *c)
{
    const char *key, *value;
    if (!c->r || tr_reader_meta_at(c->r, 0, &key, &value) <= 0)
        return NULL;
    const char *name = tr_reader_meta(c->r, META_VIEW);
    if (!name) {
        const char *p = tr_reader_meta(c->r, META_PRODUCER);
        for (size_t i = 0; p && i < sizeof producer_views / sizeof producer_views[0]; i++)
            if (!strcmp(p, producer_views[i].producer))
                name = producer_views[i].view;
    }
    for (size_t i = 0; name && i < NVIEWS; i++)
        if (views[i].name && !strcmp(views[i].name, name))
            return &views[i];
    return &views[CAT_VIEW_GENERIC];
}

int cat_input_live(const struct cat_ctx *c)
{
    struct stat st;
    return c->file && !strcmp(c->file, "stdin") && fstat(0, &st) == 0 && S_ISFIFO(st.st_mode);
}

uint64_t cat_idle_until(uint64_t newest, uint64_t oldest)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
        return 0;
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if (now < CAT_IDLE_LAG_NS || newest > now || now - newest > 60000000000ull || now - CAT_IDLE_LAG_NS <= oldest)
        return 0;
    return now - CAT_IDLE_LAG_NS;
}

static int has_id(const int32_t *ids, size_t n, int32_t v)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == v) return 1;
    return 0;
}

static int selected(struct cat_ctx *c, const struct cat_filter *f, const tr_record *rec)
{
    if (rec->type == TR_REC_STREAM_START || rec->type == TR_REC_STREAM_END) return !c->o->json;
    if (f->any_type && (rec->type > 255 || !f->types[rec->type])) return 0;
    if (f->npids && !has_id(f->pids, f->npids, rec->pid)) return 0;
    if (f->ntids && !has_id(f->tids, f->ntids, rec->tid)) return 0;
    if (f->comm && strcmp(cat_comm_raw(c, rec->tid), f->comm)) return 0;
    if (rec->time && (f->has_since || f->has_until)) {
        uint64_t rel = rec->time - c->first_time;
        if (f->has_since && rel < f->since) return 0;
        if (f->has_until && rel > f->until) return 0;
    }
    return 1;
}

/* One record through its family's view or the stream's view, else
 * generically; the stream's end through every view. */
static int print_record(struct cat_ctx *c, const tr_record *rec)
{
    int done = 0;
    if (cat_view(c) == CAT_VIEW_SAMPLES && !c->o->json && cat_sample_sideband_hidden(c, rec)) return 0;
    if (rec->type == TR_REC_STREAM_END) {
        for (size_t i = 0; i < NVIEWS && done >= 0; i++)
            if (views[i].record) {
                int d = views[i].record(c, rec);
                if (d) done = d;
            }
    } else {
        const struct cat_view *v = family_of(rec->type);
        if (!v || (rec->type == TR_REC_SYSCALL && cat_view(c) == CAT_VIEW_LIBCALLS)) v = c->view; /* ltrace -S */
        if (v && v->record) done = v->record(c, rec);
    }
    if (done < 0) return -1;
    if (done) return 0;
    return c->o->json ? cat_generic_json(c, rec) : cat_generic_text(c, rec);
}

static void account(struct cat_ctx *c, const tr_record *rec)
{
    const struct cat_view *v = family_of(rec->type);
    if (rec->type == TR_REC_SYSCALL && cat_view(c) == CAT_VIEW_LIBCALLS) v = c->view; /* ltrace -S -c */
    if (v && v->account) v->account(c, rec);
}

static void reset_views(struct cat_ctx *c)
{
    for (size_t i = 0; i < NVIEWS; i++)
        if (views[i].reset) views[i].reset(c);
}

static int print_summaries(struct cat_ctx *c)
{
    for (size_t i = 0; i < NVIEWS; i++)
        if (views[i].summary && views[i].summary(c)) return -1;
    return 0;
}

/* The reader's errors: those that end the input, and the rest (warned). */
static int input_unreadable(int rc)
{
    return rc == TR_E_NOT_TRACE || rc == TR_E_EMPTY || rc == TR_E_VERSION || rc == TR_E_INCOMPAT ||
           rc == TR_E_IO || rc == TR_E_NOMEM;
}

int cat_error_status(int rc, int any_read)
{
    return rc == TR_E_NOMEM || (input_unreadable(rc) && !any_read) ? CLI_EXIT_FAIL : CLI_EXIT_TRUNCATED;
}

int cat_read(struct cat_ctx *c, tr_reader *r, const char *name, const struct cat_filter *f)
{
    c->r = r;
    c->file = name;
    if (c->info) {
        int st = cat_info(c);
        c->r = NULL;
        return st;
    }
    int status = 0, rc, any = 0;
    tr_record rec;
    c->first_time = 0; /* --since and --until count from each input's start */
    c->view = NULL;
    reset_views(c);
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            const tr_reader_diag *d = tr_reader_last_diag(r);
            fflush(c->out); /* the warning after what was printed before it */
            if ((status = cat_error_status(rc, any)) == CLI_EXIT_FAIL) {
                cli_warn("%s: %s (%s)", name, tr_strerror(rc), d->detail);
                break;
            }
            cli_warn("%s: byte %llu: %s: %s", name, (unsigned long long)d->offset, tr_strerror(rc), d->detail);
            if (!tr_error_recoverable(rc)) break;
            continue;
        }
        any = 1;
        if (rec.type == TR_REC_STREAM_START) {
            c->stream = rec.stream;
            c->view = NULL;
            if (!c->o->summary) reset_views(c);
        }
        if (!c->view) c->view = choose_view(c); /* once per stream, at its first metadata */
        cat_track(c, &rec);
        if (rec.time && !c->first_time) c->first_time = rec.time;
        if (!selected(c, f, &rec)) continue;
        if (c->o->summary) {
            account(c, &rec);
            continue;
        }
        if (print_record(c, &rec) < 0 || ferror(c->out)) {
            status = CLI_EXIT_FAIL;
            break;
        }
    }
    if (c->o->summary && status != CLI_EXIT_FAIL && print_summaries(c)) status = CLI_EXIT_FAIL;
    reset_views(c);
    c->view = NULL;
    c->r = NULL;
    return status;
}

void cat_time_of_day(struct syscalls_buf *b, int mode, uint64_t real)
{
    time_t sec = (time_t)(real / 1000000000u);
    unsigned us = (unsigned)(real % 1000000000u / 1000u);
    if (mode >= 3) {
        syscalls_buf_printf(b, "%lld.%06u ", (long long)sec, us);
        return;
    }
    struct tm tm;
    char hms[16];
    localtime_r(&sec, &tm);
    strftime(hms, sizeof hms, "%H:%M:%S", &tm);
    if (mode == 2)
        syscalls_buf_printf(b, "%s.%06u ", hms, us);
    else
        syscalls_buf_printf(b, "%s ", hms);
}
