/* tr-export - a trace to the formats other viewers open: pprof, Chrome trace
 * event JSON (Perfetto, chrome://tracing), speedscope. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"
#include "weight.h"

enum { OPT_PPROF = 256, OPT_CHROME, OPT_SPEEDSCOPE, OPT_NO_INLINE, OPT_SYMFS, OPT_DEBUG_DIR, OPT_CACHE_DIR, OPT_NO_CACHE,
       OPT_WEIGHT };

static const struct cli_opt opts[] = {
    {0, "pprof", NULL, "pprof profile.proto, gzipped (go tool pprof, continuous profilers)", OPT_PPROF, NULL},
    {0, "chrome", NULL, "Chrome trace event JSON (Perfetto, chrome://tracing)", OPT_CHROME, NULL},
    {0, "speedscope", NULL, "speedscope JSON: a timeline per thread and a sampled profile", OPT_SPEEDSCOPE, NULL},
    {'o', "output", "FILE", "write to FILE (default: standard output)", 0, "file"},
    {'l', "lines", NULL, "source files and lines of frames (slower: reads the line tables)", 0, NULL},
    {0, "no-inline", NULL, "drop inlined frames (default: kept)", OPT_NO_INLINE, NULL},
    {0, "symfs", "DIR", "look for the recorded binaries under DIR first", OPT_SYMFS, "dir"},
    {0, "debug-dir", "DIR", "a build-id tree to search (repeatable; tr-archive -d writes one)", OPT_DEBUG_DIR, "dir"},
    {0, "weight", "EXPR", "--pprof: a bytes sample type weighed by a field, as tr-fold --weight", OPT_WEIGHT, NULL},
    {0, "cache-dir", "DIR", "symbolization cache directory (default ~/.cache/tr)", OPT_CACHE_DIR, "dir"},
    {0, "no-cache", NULL, "neither read nor write the symbolization cache", OPT_NO_CACHE, NULL},
    {'v', "verbose", NULL, "a warning for each process that cannot be symbolized instead of a count", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-export",
    .synopsis = {"--pprof|--chrome|--speedscope [OPTIONS] [FILE]"},
    .summary = "export a trace to pprof, Chrome trace event JSON or speedscope",
    .opts = opts,
    .operands = "file",
};

static void sym_warn(void *ctx, const char *msg)
{
    (void)ctx;
    cli_warn("%s", msg);
}

/* Read the trace on fd through the format; a CLI_EXIT_* status. */
static int run(struct exp *x, const struct exp_format *fmt, int fd, const sym_options *so)
{
    size_t maplen = 0;
    void *map = sym_map_input(fd, 0, &maplen); /* a file: for the symbolizer's prescan */
    int rc = tr_reader_open(&x->r, fd, NULL);
    if (rc < 0) {
        cli_warn("%s: %s", x->shown, tr_strerror(rc));
        if (map)
            munmap(map, maplen);
        return CLI_EXIT_FAIL;
    }
    if (!(x->sym = sym_new(so))) {
        tr_reader_free(x->r);
        if (map)
            munmap(map, maplen);
        cli_warn("out of memory");
        return CLI_EXIT_FAIL;
    }
    x->procs = sym_procs(x->sym);
    int status = CLI_EXIT_OK;
    void *st = NULL;
    if ((map && sym_prescan_lazy(x->sym, map, maplen) < 0) || !(st = fmt->start(x))) {
        cli_warn("out of memory");
        status = CLI_EXIT_FAIL;
        goto out;
    }
    tr_record rec;
    int warned = 0;
    while ((rc = tr_reader_next(x->r, &rec)) != 0) {
        if (rc < 0) {
            if (cli_read_error(x->r, rc, x->shown, &warned, &status))
                continue;
            break;
        }
        if (sym_observe(x->sym, x->r, &rec) < 0) {
            cli_warn("out of memory");
            status = CLI_EXIT_FAIL;
            goto out;
        }
        if (rec.time && rec.type != TR_REC_STREAM_START && rec.type != TR_REC_STREAM_END) {
            if (!x->have_first)
                x->first = rec.time, x->have_first = 1;
            if (rec.time > x->last)
                x->last = rec.time;
        }
        if (fmt->record(st, x, &rec) < 0) {
            cli_warn("%s", errno == ENOMEM ? "out of memory" : strerror(errno));
            status = CLI_EXIT_FAIL;
            goto out;
        }
    }
    if (status != CLI_EXIT_FAIL && fmt->finish(st, x) < 0) {
        if (errno)
            cli_warn("write error: %s", strerror(errno));
        status = CLI_EXIT_FAIL;
    }
    if (x->unresolved)
        cli_warn("%s: %llu stacks could not be resolved (lost definitions)", x->shown,
                 (unsigned long long)x->unresolved);
out:
    sym_finish(x->sym);
    if (st)
        fmt->free(st);
    sym_free(x->sym);
    if (map)
        munmap(map, maplen);
    tr_reader_free(x->r);
    free(x->frames);
    return status;
}

int main(int argc, char **argv)
{
    const struct exp_format *fmt = NULL;
    const char *output = NULL, *cache_dir = NULL, *symfs = NULL;
    int no_cache = 0, verbose = 0, formats = 0;
    struct exp x = {0};
    cli_init(&tool, argc, argv);
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t ndirs = 0;
    if (!dirs)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    int c;
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case OPT_PPROF: fmt = &exp_pprof; formats++; break;
        case OPT_CHROME: fmt = &exp_chrome; formats++; break;
        case OPT_SPEEDSCOPE: fmt = &exp_speedscope; formats++; break;
        case 'o': output = cli_optarg; break;
        case 'l': x.lines = 1; break;
        case OPT_NO_INLINE: x.no_inline = 1; break;
        case OPT_SYMFS: symfs = cli_optarg; break;
        case OPT_DEBUG_DIR: dirs[ndirs++] = cli_optarg; break;
        case OPT_WEIGHT:
            if (!weight_valid(cli_optarg))
                cli_die(CLI_EXIT_USAGE, "--weight takes " WEIGHT_SYNTAX ", not '%s'", cli_optarg);
            x.weight = cli_optarg;
            break;
        case OPT_CACHE_DIR: cache_dir = cli_optarg; no_cache = 0; break;
        case OPT_NO_CACHE: no_cache = 1; break;
        case 'v': verbose = 1; break;
        default: cli_usage_exit();
        }
    }
    if (formats != 1) {
        cli_warn("give one of --pprof, --chrome, --speedscope");
        cli_usage_exit();
    }
    if (x.weight && fmt != &exp_pprof)
        cli_die(CLI_EXIT_USAGE, "--weight is for --pprof (its bytes sample type)");
    if (argc - cli_optind > 1) {
        cli_warn("one trace at a time (concatenated traces are one: cat a.tr b.tr | tr-export ...)");
        cli_usage_exit();
    }
    if (fmt == &exp_pprof && (!output || !strcmp(output, "-")) && isatty(STDOUT_FILENO))
        cli_die(CLI_EXIT_USAGE, "a gzipped profile is not for a terminal: use -o FILE or a pipe");
    cli_ignore_sigpipe();
    int fd = cli_open_input(cli_optind < argc ? argv[cli_optind] : NULL, &x.shown);
    x.out = stdout;
    if (output && strcmp(output, "-") && !(x.out = fopen(output, "w")))
        cli_die(CLI_EXIT_FAIL, "%s: %s", output, strerror(errno));
    static char obuf[1 << 16];
    setvbuf(x.out, obuf, _IOFBF, sizeof obuf);
    sym_options so;
    sym_options_init(&so);
    so.cache_dir = no_cache ? NULL : cache_dir ? cache_dir : sym_default_cache_dir();
    so.warn = sym_warn;
    so.each_process = verbose;
    so.lines = x.lines;
    so.symfs = symfs;
    so.debug_dirs = dirs;
    int status = run(&x, fmt, fd, &so);
    free(dirs);
    if (x.out != stdout) {
        if (fclose(x.out) != 0 && status != CLI_EXIT_FAIL) {
            cli_warn("write error: %s: %s", output, strerror(errno));
            status = CLI_EXIT_FAIL;
        }
        if (status == CLI_EXIT_FAIL)
            unlink(output); /* no half-written export left behind */
    }
    return cli_finish_stdout(status);
}
