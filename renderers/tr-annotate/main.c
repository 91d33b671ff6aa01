/* tr-annotate - a function's instructions and source lines with their
 * share of the samples (perf annotate --stdio). */
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "cli.h"

enum {
    OPT_SAMPLES = 256, OPT_SOURCE, OPT_JSON, OPT_STDIO, OPT_SYMFS, OPT_DEBUG_DIR, OPT_NO_DEBUGINFOD,
    OPT_CACHE_DIR, OPT_NO_CACHE, OPT_NO_DEMANGLE,
};

static const struct cli_opt opts[] = {
    {'s', "symbol", "NAME", "annotate this function (repeatable; default: the hottest)", 0, NULL},
    {'n', "hottest", "N", "annotate the N hottest functions (default 1)", 0, NULL},
    {'d', "dso", "MODULE", "only functions of this module (path or file name)", 0, NULL},
    {'e', "event", "NAME", "annotate this event's samples (default: the first one seen)", 0, "@event"},
    {0, "samples", NULL, "count samples instead of weighing them by their period", OPT_SAMPLES, NULL},
    {0, "source", NULL, "the source file with each line's share instead of the disassembly", OPT_SOURCE, NULL},
    {0, "json", NULL, "one JSON document: functions, instructions, lines", OPT_JSON, NULL},
    {0, "stdio", NULL, "text output (the default)", OPT_STDIO, NULL},
    {'M', "disassembler-style", "STYLE", "att (default) or intel", 0, "att intel"},
    {0, "symfs", "DIR", "look for the recorded binaries under DIR first", OPT_SYMFS, "dir"},
    {0, "debug-dir", "DIR", "a build-id tree to search (repeatable; /usr/lib/debug is searched too)",
     OPT_DEBUG_DIR, "dir"},
    {0, "no-debuginfod", NULL, "never ask debuginfod servers (DEBUGINFOD_URLS)", OPT_NO_DEBUGINFOD, NULL},
    {0, "no-demangle", NULL, "keep C++ and Rust names mangled", OPT_NO_DEMANGLE, NULL},
    {0, "cache-dir", "DIR", "symbolization cache directory (default ~/.cache/tr)", OPT_CACHE_DIR, "dir"},
    {0, "no-cache", NULL, "neither read nor write the symbolization cache", OPT_NO_CACHE, NULL},
    {'v', "verbose", NULL, "a warning for each process (no recorded mapping) instead of a count", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-annotate",
    .synopsis = {"[OPTIONS] [FILE...]"},
    .summary = "a function's instructions and source lines with their share of the samples",
    .opts = opts,
    .operands = "file",
};

int main(int argc, char **argv)
{
    struct an_opts o = { .hottest = 1 };
    sym_options_init(&o.sym);
    const char *cache_dir = NULL;
    int no_cache = 0;
    const char **syms = calloc((size_t)argc, sizeof *syms), **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t ndirs = 0;
    if (!syms || !dirs)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    cli_init(&tool, argc, argv);
    int c;
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 's': syms[o.nsymbols++] = cli_optarg; break;
        case 'n': o.hottest = (size_t)cli_parse_u64(cli_optarg, 1, 1000000, "--hottest"); break;
        case 'd': o.dso = cli_optarg; break;
        case 'e': o.event = cli_optarg; break;
        case OPT_SAMPLES: o.samples = 1; break;
        case OPT_SOURCE: o.source = 1; break;
        case OPT_JSON: o.json = 1; break;
        case OPT_STDIO: o.json = 0; break;
        case 'M':
            if (strcmp(cli_optarg, "intel") && strcmp(cli_optarg, "att"))
                cli_die(CLI_EXIT_USAGE, "invalid disassembler style '%s': att or intel", cli_optarg);
            o.intel = strcmp(cli_optarg, "intel") == 0;
            break;
        case OPT_SYMFS: o.sym.symfs = cli_optarg; break;
        case OPT_DEBUG_DIR: dirs[ndirs++] = cli_optarg; break;
        case OPT_NO_DEBUGINFOD: o.sym.debuginfod = 0; break;
        case OPT_NO_DEMANGLE: o.sym.demangle = 0; break;
        case OPT_CACHE_DIR: cache_dir = cli_optarg; no_cache = 0; break;
        case OPT_NO_CACHE: no_cache = 1; break;
        case 'v': o.verbose = 1; break;
        default: cli_usage_exit();
        }
    }
    o.symbols = syms;
    o.sym.debug_dirs = dirs;
    o.sym.cache_dir = no_cache ? NULL : cache_dir ? cache_dir : sym_default_cache_dir();
    cli_ignore_sigpipe();
    struct annotate a;
    if (an_init(&a, &o) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    int status = CLI_EXIT_OK;
    for (int i = cli_optind; i < argc || i == cli_optind; i++) {
        int s = an_input(&a, i < argc ? argv[i] : NULL);
        if (s == CLI_EXIT_FAIL || (status != CLI_EXIT_FAIL && s > status))
            status = s; /* a failed input outweighs a truncated one */
        if (i >= argc)
            break;
    }
    if (status != CLI_EXIT_FAIL) {
        int s = an_print(&a, stdout);
        if (s != CLI_EXIT_OK)
            status = s;
    }
    an_free(&a);
    free(syms);
    free(dirs);
    return cli_finish_stdout(status);
}
