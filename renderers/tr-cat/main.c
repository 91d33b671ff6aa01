/* tr-cat - print the records of traces as text or JSON Lines. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "cat.h"
#include "cli.h"

enum { OPT_PID = 256, OPT_TID, OPT_COMM, OPT_TYPE, OPT_SINCE, OPT_UNTIL, OPT_RAW, OPT_TASK, OPT_MMAP, OPT_LOST };

static const struct cli_opt opts[] = {
    {'j', "json", NULL, "print JSON Lines instead of text", 0, NULL},
    {'i', "info", NULL, "print the header, metadata, counts, time span and sizes", 0, NULL},
    {'c', "summary", NULL, "print summary tables (strace -c, perf stat, event counts)", 0, NULL},
    {'S', "sort", "KEY", "summary sort key: time calls errors name nothing", 0, "time calls errors name nothing"},
    {'w', "summary-wall-clock", NULL, "syscall summary of wall-clock time as strace -c -w, without its note", 0, NULL},
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
    {'n', "indent", "NR", "indent nested library calls by NR spaces per level (ltrace -n)", 0, NULL},
    {0, "raw", NULL, "do not decode arguments and payloads, nor symbolize raw frames", OPT_RAW, NULL},
    {0, "show-task-events", NULL, "samples: also comm, fork and exit records (as perf script)", OPT_TASK, NULL},
    {0, "show-mmap-events", NULL, "samples: also mmap records (as perf script)", OPT_MMAP, NULL},
    {0, "show-lost-events", NULL, "samples: also lost records (as perf script)", OPT_LOST, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-cat",
    .synopsis = {"[-jicfrTwy] [-t[t[t]]] [-x[x]] [-s SIZE] [-n NR] [-S KEY] [--pid PID,...] [--tid TID,...] "
                 "[--comm NAME] [--type TYPE,...] [--since S] [--until S] [--raw] [--show-task-events] "
                 "[--show-mmap-events] [--show-lost-events] [FILE...]"},
    .summary = "print trace records as text or JSON",
    .opts = opts,
    .operands = "file",
};

static int32_t *parse_ids(const char *s, size_t *n, const char *what)
{
    char *copy = strdup(s), *save = NULL;
    int32_t *ids = NULL;
    size_t cap = 0;
    *n = 0;
    if (!copy) cli_die(CLI_EXIT_FAIL, "out of memory");
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (array_reserve(&ids, &cap, *n + 1, sizeof *ids, 8) < 0) cli_die(CLI_EXIT_FAIL, "out of memory");
        ids[(*n)++] = (int32_t)cli_parse_i64(t, -1, INT32_MAX, what);
    }
    free(copy);
    if (!*n) cli_die(CLI_EXIT_USAGE, "empty %s list", what);
    return ids;
}

/* The reader's input: before a read that would wait (a pipe from a
 * recorder that is still running), what was printed so far goes out, so
 * that a consumer sees the records as they come despite the large output
 * buffer; while it waits, every 200 ms, the syscall lines held back for
 * their order come out too (between two records: the reader asks for more
 * input only there). */
struct input {
    int fd;
    struct cat_ctx *c;
};

static ssize_t read_input(void *ctx, void *buf, size_t len)
{
    struct input *in = ctx;
    struct pollfd p = {.fd = in->fd, .events = POLLIN};
    if (poll(&p, 1, 0) == 0) {
        fflush(in->c->out);
        while (poll(&p, 1, 200) == 0 &&
               (cat_view(in->c) == CAT_VIEW_SYSCALLS || cat_view(in->c) == CAT_VIEW_LIBCALLS)) {
            if (cat_view(in->c) == CAT_VIEW_SYSCALLS)
                cat_syscall_idle(in->c);
            else
                cat_libcall_idle(in->c);
            fflush(in->c->out);
        }
    }
    return read(in->fd, buf, len);
}

/* Read one input; returns 0, CLI_EXIT_TRUNCATED or CLI_EXIT_FAIL. */
static int cat_file(struct cat_ctx *c, const char *path, const struct cat_filter *f)
{
    const char *name;
    struct input in = {.fd = cli_open_input(path, &name), .c = c};
    int fd = in.fd;
    tr_reader *r;
    int rc = tr_reader_open_fn(&r, read_input, &in, NULL, 0, NULL);
    if (rc) cli_die(CLI_EXIT_FAIL, "%s: %s", name, tr_strerror(rc));
    /* text shows raw frames symbolized, as perf script does */
    if (!c->o->json && !c->o->raw && !c->o->summary && !c->info && cat_sym_open(c, fd) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    int status = cat_read(c, r, name, f);
    cat_sym_close(c);
    tr_reader_free(r);
    if (fd != STDIN_FILENO) close(fd);
    return status;
}

int main(int argc, char **argv)
{
    struct cat_opts o = {.strsize = 32};
    struct cat_filter f = {0};
    struct cat_ctx c = {.out = stdout, .o = &o};
    int ch;
    cli_init(&tool, argc, argv);
    while ((ch = cli_getopt(argc, argv)) != -1) {
        switch (ch) {
        case 'j': o.json = 1; break;
        case 'i': c.info = 1; break;
        case 'c': o.summary = 1; break;
        case 'S': o.sort_by = cli_optarg; break;
        case 'w': o.wall_clock = 1; break;
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
        case 'n': o.indent = (int)cli_parse_u64(cli_optarg, 0, 64, "indentation"); break;
        case 's': o.strsize = (uint32_t)cli_parse_u64(cli_optarg, 0, 1u << 30, "string limit"); break;
        case OPT_RAW: o.raw = 1; break;
        case OPT_TASK: o.show_task = 1; break;
        case OPT_MMAP: o.show_mmap = 1; break;
        case OPT_LOST: o.show_lost = 1; break;
        default: cli_usage_exit();
        }
    }
    if (o.sort_by && strcmp(o.sort_by, "time") && strcmp(o.sort_by, "calls") && strcmp(o.sort_by, "errors") &&
        strcmp(o.sort_by, "name") && strcmp(o.sort_by, "nothing"))
        cli_die(CLI_EXIT_USAGE, "unknown sort key '%s' (time, calls, errors, name, nothing)", o.sort_by);
    if (o.timestamps > 3) o.timestamps = 3;
    /* side-band records asked for by --type are shown */
    o.show_task |= f.types[TR_REC_COMM] | f.types[TR_REC_FORK] | f.types[TR_REC_EXIT];
    o.show_mmap |= f.types[TR_REC_MMAP];
    o.show_lost |= f.types[TR_REC_LOST];
    o.show_status = f.types[TR_REC_MODULE_STATUS];
    /* large writes (a sample of a deep stack is kilobytes); a terminal keeps its lines */
    static char obuf[1 << 20];
    if (!isatty(STDOUT_FILENO)) setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
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
