/* tr-symbolize - resolve the addresses of a trace into functions, inline
 * frames and source lines, so that it reads anywhere without the binaries. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "rewrite.h"

enum { OPT_SYMFS = 256, OPT_DEBUG_DIR, OPT_NO_DEMANGLE, OPT_NO_INLINE, OPT_NO_UNWIND,
       OPT_NO_DEBUGINFOD, OPT_NO_KERNEL, OPT_CACHE_DIR, OPT_NO_CACHE, OPT_SYMBOLS, OPT_KEEP,
       OPT_STREAM, OPT_STATS };

static const struct cli_opt opts[] = {
    {'o', "output", "FILE", "write the symbolized trace to FILE (default stdout)", 0, "file"},
    {'l', "lines", NULL, "add source files and lines to the frames", 0, NULL},
    {0, "symfs", "DIR", "look for the recorded binaries under DIR first", OPT_SYMFS, "dir"},
    {0, "debug-dir", "DIR", "a build-id tree to search (repeatable; /usr/lib/debug is searched too)",
     OPT_DEBUG_DIR, "dir"},
    {0, "no-demangle", NULL, "keep C++ and Rust names mangled", OPT_NO_DEMANGLE, NULL},
    {0, "no-inline", NULL, "do not expand inlined functions into frames", OPT_NO_INLINE, NULL},
    {0, "no-unwind", NULL, "do not DWARF-unwind samples with stack copies", OPT_NO_UNWIND, NULL},
    {0, "no-debuginfod", NULL, "never ask debuginfod servers (DEBUGINFOD_URLS)", OPT_NO_DEBUGINFOD, NULL},
    {0, "no-running-kernel", NULL, "never use this machine's /proc/kallsyms", OPT_NO_KERNEL, NULL},
    {0, "cache-dir", "DIR", "keep inflated debug info and symbol tables under DIR (default ~/.cache/tr)", OPT_CACHE_DIR, "dir"},
    {0, "no-cache", NULL, "neither read nor write the cache", OPT_NO_CACHE, NULL},
    {0, "symbols", NULL, "also write a SYMBOL record for every function seen", OPT_SYMBOLS, NULL},
    {0, "keep-stack-copy", NULL, "keep the registers and stack copies of samples", OPT_KEEP, NULL},
    {0, "stream", NULL, "read the input as it comes (no look-ahead for late blobs)", OPT_STREAM, NULL},
    {0, "stats", NULL, "print resolution statistics on stderr", OPT_STATS, NULL},
    {'v', "verbose", NULL, "a warning for each process (no recorded mapping, cannot unwind) instead of a count", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-symbolize",
    .synopsis = {"[-l] [-o FILE] [--symfs DIR] [--debug-dir DIR]... [--no-demangle] [--no-inline] "
                 "[--no-unwind] [--no-debuginfod] [--no-running-kernel] [--cache-dir DIR] [--no-cache] "
                 "[--symbols] [--keep-stack-copy] [--stream] [--stats] [-v] [FILE]"},
    .summary = "resolve a trace's addresses into functions, inline frames and lines",
    .opts = opts,
    .operands = "file",
};

int main(int argc, char **argv)
{
    struct rewrite_options o;
    const char *output = NULL;
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t ndirs = 0;
    int c;

    if (!dirs)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    memset(&o, 0, sizeof o);
    sym_options_init(&o.sym);
    o.sym.cache_dir = sym_default_cache_dir();
    cli_init(&tool, argc, argv);
    cli_heap_on_huge_pages();
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'o': output = cli_optarg; break;
        case 'l': o.sym.lines = 1; break;
        case OPT_SYMFS: o.sym.symfs = cli_optarg; break;
        case OPT_DEBUG_DIR: dirs[ndirs++] = cli_optarg; break;
        case OPT_NO_DEMANGLE: o.sym.demangle = 0; break;
        case OPT_NO_INLINE: o.sym.inlines = 0; break;
        case OPT_NO_UNWIND: o.sym.unwind = 0; break;
        case OPT_NO_DEBUGINFOD: o.sym.debuginfod = 0; unsetenv("DEBUGINFOD_URLS"); break;
        case OPT_NO_KERNEL: o.sym.running_kernel = 0; break;
        case OPT_CACHE_DIR: o.sym.cache_dir = cli_optarg; break;
        case OPT_NO_CACHE: o.sym.cache_dir = NULL; break;
        case OPT_SYMBOLS: o.symbols = 1; break;
        case OPT_KEEP: o.keep_stack_copy = 1; break;
        case OPT_STREAM: o.stream = 1; break;
        case OPT_STATS: o.stats = 1; break;
        case 'v': o.sym.each_process = 1; break;
        default: cli_usage_exit();
        }
    }
    if (argc - cli_optind > 1)
        cli_usage_exit();
    o.sym.debug_dirs = dirs;
    int in = cli_open_input(cli_optind < argc ? argv[cli_optind] : NULL, &o.in_name);
    int out = cli_open_trace_output(output, NULL, &o.out_name);
    cli_commit_trace_output(); /* a filter writes as it reads */
    cli_ignore_sigpipe();
    /* every module and unwinding session keeps its file open */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int status = rewrite_trace(&o, in, out);
    if (out != STDOUT_FILENO && close(out) < 0)
        cli_die(CLI_EXIT_FAIL, "%s: close failed", o.out_name);
    free(dirs);
    return cli_finish_stdout(status);
}
