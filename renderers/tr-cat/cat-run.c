/* cat-run.c - read one input and send each record through the filters to
 * its family's renderer (or to the summaries). */
#include <string.h>

#include "cat.h"
#include "cli.h"

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
    if (f->comm && strcmp(cat_comm(c, rec->tid), f->comm)) return 0;
    if (rec->time && (f->has_since || f->has_until)) {
        uint64_t rel = rec->time - c->first_time;
        if (f->has_since && rel < f->since) return 0;
        if (f->has_until && rel > f->until) return 0;
    }
    return 1;
}

/* One record through its family, or generically. */
int cat_producer(struct cat_ctx *c)
{
    if (!c->producer && c->r) {
        const char *p = tr_reader_meta(c->r, "producer"); /* absorbed with the stream's first chunk */
        if (p)
            c->producer = !strcmp(p, "tr-rec-strace") ? CAT_FROM_STRACE
                          : !strcmp(p, "tr-rec-ftrace") ? CAT_FROM_FTRACE : CAT_FROM_OTHER;
    }
    return c->producer;
}

static int print_record(struct cat_ctx *c, const tr_record *rec)
{
    int done = cat_sample_record(c, rec);
    if (!done) done = cat_syscall_record(c, rec);
    if (!done) done = cat_ftrace_record(c, rec);
    if (done < 0) return -1;
    if (done) return 0;
    return c->o->json ? cat_generic_json(c, rec) : cat_generic_text(c, rec);
}

static void account(struct cat_ctx *c, const tr_record *rec)
{
    cat_sample_account(c, rec);
    cat_syscall_account(c, rec);
    cat_ftrace_account(c, rec);
}

static void reset_families(struct cat_ctx *c)
{
    cat_sample_reset(c);
    cat_syscall_reset(c);
    cat_ftrace_reset(c);
}

/* The reader's errors: those that end the input, and the rest (warned). */
static int input_unreadable(int rc)
{
    return rc == TR_E_NOT_TRACE || rc == TR_E_EMPTY || rc == TR_E_VERSION || rc == TR_E_INCOMPAT ||
           rc == TR_E_IO || rc == TR_E_NOMEM;
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
    int status = 0, rc;
    tr_record rec;
    c->first_time = 0; /* --since and --until count from each input's start */
    reset_families(c);
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            const tr_reader_diag *d = tr_reader_last_diag(r);
            if (input_unreadable(rc)) {
                cli_warn("%s: %s (%s)", name, tr_strerror(rc), d->detail);
                status = CLI_EXIT_FAIL;
                break;
            }
            cli_warn("%s: byte %llu: %s: %s", name, (unsigned long long)d->offset, tr_strerror(rc), d->detail);
            status = CLI_EXIT_TRUNCATED;
            if (!tr_error_recoverable(rc)) break;
            continue;
        }
        if (rec.type == TR_REC_STREAM_START) {
            c->stream = rec.stream;
            c->producer = 0;
            if (!c->o->summary) reset_families(c);
        }
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
    if (c->o->summary && status != CLI_EXIT_FAIL &&
        (cat_sample_summary(c) || cat_syscall_summary(c) || cat_ftrace_summary(c)))
        status = CLI_EXIT_FAIL;
    reset_families(c);
    c->r = NULL;
    return status;
}
