/* tr-cat - print the records of traces as text or JSON Lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cat.h"
#include "cli.h"

enum { OPT_PID = 256, OPT_TID, OPT_COMM, OPT_TYPE, OPT_SINCE, OPT_UNTIL, OPT_RAW };

static const struct cli_opt opts[] = {
    {'j', "json", NULL, "print JSON Lines instead of text", 0, NULL},
    {'i', "info", NULL, "print the header, metadata, counts, time span and sizes", 0, NULL},
    {'c', "summary", NULL, "print summary tables (strace -c, perf stat, event counts)", 0, NULL},
    {'S', "sort", "KEY", "summary sort key: time calls errors name nothing", 0, "time calls errors name nothing"},
    {0, "pid", "PID,...", "only records of these processes", OPT_PID, "pid"},
    {0, "tid", "TID,...", "only records of these threads", OPT_TID, NULL},
    {0, "comm", "NAME", "only records of threads with this command name", OPT_COMM, NULL},
    {0, "type", "TYPE,...", "only records of these types (sample, syscall, comm, ...)", OPT_TYPE,
     "sample counter syscall signal libcall trace_event function comm fork exit mmap lost symbol module_status"},
    {0, "since", "SECONDS", "only records at least SECONDS after the first", OPT_SINCE, NULL},
    {0, "until", "SECONDS", "only records at most SECONDS after the first", OPT_UNTIL, NULL},
    {'f', "follow", NULL, "prefix syscall lines with the pid (as strace -f)", 0, NULL},
    {'t', "timestamps", NULL, "time of day on syscall lines; -tt with us, -ttt epoch", 0, NULL},
    {'r', "relative", NULL, "time since the previous syscall line", 0, NULL},
    {'T', "syscall-times", NULL, "time spent in each syscall", 0, NULL},
    {'y', "decode-fds", NULL, "print paths of file descriptors", 0, NULL},
    {'x', "hex", NULL, "non-ASCII strings in hex; -xx all strings", 0, NULL},
    {'s', "string-limit", "SIZE", "print at most SIZE bytes of strings (default 32)", 0, NULL},
    {0, "raw", NULL, "do not decode arguments and payloads", OPT_RAW, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-cat",
    .synopsis = {"[-jicfrTy] [-t[t[t]]] [-x[x]] [-s SIZE] [-S KEY] [--pid PID,...] [--tid TID,...] "
                 "[--comm NAME] [--type TYPE,...] [--since S] [--until S] [FILE...]"},
    .summary = "print trace records as text or JSON",
    .opts = opts,
    .operands = "file",
};

struct filter {
    int32_t *pids, *tids;
    size_t npids, ntids;
    const char *comm;
    uint8_t types[256];
    int any_type;
    uint64_t since, until;
    int has_since, has_until;
};

static int32_t *parse_ids(const char *s, size_t *n, const char *what)
{
    char *copy = strdup(s), *save = NULL;
    int32_t *ids = NULL;
    *n = 0;
    if (!copy) cli_die(CLI_EXIT_FAIL, "out of memory");
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int32_t *p = realloc(ids, (*n + 1) * sizeof *ids);
        if (!p) cli_die(CLI_EXIT_FAIL, "out of memory");
        ids = p;
        ids[(*n)++] = (int32_t)cli_parse_i64(t, -1, INT32_MAX, what);
    }
    free(copy);
    if (!*n) cli_die(CLI_EXIT_USAGE, "empty %s list", what);
    return ids;
}

static int has_id(const int32_t *ids, size_t n, int32_t v)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == v) return 1;
    return 0;
}

static int selected(struct cat_ctx *c, const struct filter *f, const tr_record *rec)
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

/* Print one record through its family, or generically. */
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

int cat_info(struct cat_ctx *c, int *problems);

/* Read one input; returns 0, or CLI_EXIT_TRUNCATED / CLI_EXIT_FAIL. */
static int cat_file(struct cat_ctx *c, const char *path, const struct filter *f)
{
    const char *name;
    int fd = cli_open_input(path, &name);
    tr_reader *r;
    int rc = tr_reader_open(&r, fd, NULL);
    if (rc) cli_die(CLI_EXIT_FAIL, "%s: %s", name, tr_strerror(rc));
    c->r = r;
    c->file = name;
    int status = 0, first = 1;
    if (c->o->summary) reset_families(c);
    tr_record rec;
    if (c->info) {
        status = cat_info(c, &first);
    } else {
        while ((rc = tr_reader_next(r, &rec)) != 0) {
            if (rc < 0) {
                const tr_reader_diag *d = tr_reader_last_diag(r);
                if (rc == TR_E_NOT_TRACE || rc == TR_E_EMPTY || rc == TR_E_VERSION || rc == TR_E_INCOMPAT ||
                    rc == TR_E_IO || rc == TR_E_NOMEM) {
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
                if (!c->o->summary) reset_families(c);
            }
            if (rec.type == TR_REC_COMM) cat_note_comm(c, &rec);
            cat_sample_observe(c, &rec);
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
    }
    if (c->o->summary && !status) {
        if (cat_sample_summary(c) || cat_syscall_summary(c) || cat_ftrace_summary(c)) status = CLI_EXIT_FAIL;
    }
    if (c->o->summary) reset_families(c);
    tr_reader_free(r);
    c->r = NULL;
    if (fd != STDIN_FILENO) close(fd);
    return status;
}

int main(int argc, char **argv)
{
    struct cat_opts o = {.strsize = 32};
    struct filter f = {0};
    struct cat_ctx c = {.out = stdout, .o = &o};
    int ch;
    cli_init(&tool, argc, argv);
    while ((ch = cli_getopt(argc, argv)) != -1) {
        switch (ch) {
        case 'j': o.json = 1; break;
        case 'i': c.info = 1; break;
        case 'c': o.summary = 1; break;
        case 'S': o.sort_by = cli_optarg; break;
        case OPT_PID: f.pids = parse_ids(cli_optarg, &f.npids, "pid"); break;
        case OPT_TID: f.tids = parse_ids(cli_optarg, &f.ntids, "tid"); break;
        case OPT_COMM: f.comm = cli_optarg; break;
        case OPT_TYPE: {
            char *copy = strdup(cli_optarg), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                uint32_t ty = tr_rec_type_from_name(t);
                if (!ty) cli_die(CLI_EXIT_USAGE, "unknown record type '%s'", t);
                f.types[ty] = 1;
                f.any_type = 1;
            }
            free(copy);
            break;
        }
        case OPT_SINCE: f.since = cli_parse_seconds(cli_optarg, UINT64_MAX / 2, "--since"); f.has_since = 1; break;
        case OPT_UNTIL: f.until = cli_parse_seconds(cli_optarg, UINT64_MAX / 2, "--until"); f.has_until = 1; break;
        case 'f': o.follow = 1; break;
        case 't': o.timestamps++; break;
        case 'r': o.relative = 1; break;
        case 'T': o.show_time = 1; break;
        case 'y': o.decode_fds = 1; break;
        case 'x': o.hex++; break;
        case 's': o.strsize = (uint32_t)cli_parse_u64(cli_optarg, 0, 1u << 30, "string limit"); break;
        case OPT_RAW: o.raw = 1; break;
        default: cli_usage_exit();
        }
    }
    if (o.sort_by && strcmp(o.sort_by, "time") && strcmp(o.sort_by, "calls") && strcmp(o.sort_by, "errors") &&
        strcmp(o.sort_by, "name") && strcmp(o.sort_by, "nothing"))
        cli_die(CLI_EXIT_USAGE, "unknown sort key '%s' (time, calls, errors, name, nothing)", o.sort_by);
    if (o.timestamps > 3) o.timestamps = 3;
    int status = 0;
    if (cli_optind >= argc) {
        status = cat_file(&c, "-", &f);
    } else {
        for (int i = cli_optind; i < argc; i++) {
            int s = cat_file(&c, argv[i], &f);
            if (s == CLI_EXIT_FAIL || !status) status = s; /* a failure outranks a truncation */
        }
    }
    free(f.pids);
    free(f.tids);
    cat_free(&c);
    return cli_finish_stdout(status);
}
