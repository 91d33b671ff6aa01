/* tr-fold - traces or perf script text to folded stacks. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fold/fold.h"
#include "weight.h"

enum {
    OPT_PID = 256, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_NO_INLINE, OPT_MARK_INLINE, OPT_SRCLINE,
    OPT_PERIOD, OPT_OFFCPU, OPT_FROM, OPT_TO, OPT_EVENT_FILTER, OPT_MAX_LINE, OPT_SYSCALL_TIME,
    OPT_NO_COMM, OPT_NO_SYMBOLIZE, OPT_CACHE_DIR, OPT_NO_CACHE, OPT_SYMFS, OPT_DEBUG_DIR, OPT_WEIGHT,
};

static const struct cli_opt opts[] = {
    {'p', "perf-script", NULL, "input is perf script text (default: detected by content)", 0, NULL},
    {0, "pid", NULL, "root frame is comm-PID", OPT_PID, NULL},
    {0, "tid", NULL, "root frame is comm-PID/TID", OPT_TID, NULL},
    {0, "kernel", NULL, "mark kernel frames with _[k]", OPT_KERNEL, NULL},
    {0, "jit", NULL, "mark JIT frames with _[j]", OPT_JIT, NULL},
    {0, "all", NULL, "all annotations (--kernel --jit)", OPT_ALL, NULL},
    {0, "addrs", NULL, "raw addresses for unknown symbols: [module <addr>]", OPT_ADDRS, NULL},
    {0, "no-inline", NULL, "drop inlined frames (default: kept)", OPT_NO_INLINE, NULL},
    {0, "mark-inline", NULL, "mark inlined frames of traces with _[i]", OPT_MARK_INLINE, NULL},
    {0, "srcline", NULL, "append file:line (perf script text: its -F+srcline lines)", OPT_SRCLINE, NULL},
    {'e', "event", "NAME", "fold only this event (default: the first one seen)", 0, "@event"},
    {0, "event-filter", "NAME", "same as --event (stackcollapse-perf.pl spelling)", OPT_EVENT_FILTER, NULL},
    {0, "period", NULL, "weigh trace samples by their period instead of counting them", OPT_PERIOD, NULL},
    {0, "offcpu", NULL, "off-CPU time (us) from sched:sched_switch samples", OPT_OFFCPU, NULL},
    {0, "syscall-time", NULL, "weigh syscalls by their duration (us) instead of counting", OPT_SYSCALL_TIME, NULL},
    {0, "weight", "EXPR", "weigh by a tracepoint field or syscall argument (len, 4096<<order, brk: growth)", OPT_WEIGHT, NULL},
    {'P', "only-pid", "PID", "only this process (repeatable)", 0, "pid"},
    {'T', "only-tid", "TID", "only this thread (repeatable)", 0, NULL},
    {'c', "comm", "COMM", "only threads with this command name (repeatable)", 0, NULL},
    {0, "from", "SECONDS", "skip what happened before SECONDS after the trace start", OPT_FROM, NULL},
    {0, "to", "SECONDS", "skip what happened after SECONDS after the trace start", OPT_TO, NULL},
    {0, "no-symbolize", NULL, "fold trace frames as recorded (raw: [module])", OPT_NO_SYMBOLIZE, NULL},
    {0, "symfs", "DIR", "look for the recorded binaries under DIR first", OPT_SYMFS, "dir"},
    {0, "debug-dir", "DIR", "a build-id tree to search (repeatable; tr-archive -d writes one)", OPT_DEBUG_DIR, "dir"},
    {0, "cache-dir", "DIR", "symbolization cache directory (default ~/.cache/tr)", OPT_CACHE_DIR, "dir"},
    {0, "no-cache", NULL, "neither read nor write the symbolization cache", OPT_NO_CACHE, NULL},
    {0, "max-line", "BYTES", "longest accepted text line (default 16 MiB)", OPT_MAX_LINE, NULL},
    {'v', "verbose", NULL, "a warning for each process (no recorded mapping, cannot unwind) instead of a count", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-fold",
    .synopsis = {"[OPTIONS] [FILE...]"},
    .summary = "fold stacks of traces or perf script text into flame graph input",
    .opts = opts,
    .operands = "file",
};

int main(int argc, char **argv)
{
    struct fold_opts o;
    fold_opts_init(&o);
    cli_init(&tool, argc, argv);
    cli_heap_on_huge_pages();
    int c;
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'p': o.force_perf_script = 1; break;
        case OPT_PID: o.ps.fold.pid = 1; break;
        case OPT_TID: o.ps.fold.tid = 1; break;
        case OPT_KERNEL: o.ps.fold.kernel = 1; break;
        case OPT_JIT: o.ps.fold.jit = 1; break;
        case OPT_ALL: o.ps.fold.kernel = o.ps.fold.jit = 1; break;
        case OPT_ADDRS: o.ps.fold.addrs = 1; break;
        case OPT_NO_INLINE: o.ps.fold.no_inline = 1; break;
        case OPT_MARK_INLINE: o.ps.fold.mark_inline = 1; break;
        case OPT_SRCLINE: o.ps.srcline = o.ps.fold.srcline = 1; break;
        case 'e':
        case OPT_EVENT_FILTER: o.ps.event = cli_optarg; break;
        case OPT_PERIOD: o.period = 1; break;
        case OPT_OFFCPU: o.offcpu = 1; break;
        case OPT_SYSCALL_TIME: o.syscall_time = 1; break;
        case OPT_WEIGHT:
            if (!weight_valid(cli_optarg))
                cli_die(CLI_EXIT_USAGE, "--weight takes " WEIGHT_SYNTAX ", not '%s'", cli_optarg);
            o.weight = cli_optarg;
            break;
        case 'P':
            if (fold_add_id(&o.pids, (int64_t)cli_parse_u64(cli_optarg, 0, INT32_MAX, "pid")) < 0)
                cli_die(CLI_EXIT_FAIL, "out of memory");
            break;
        case 'T':
            if (fold_add_id(&o.tids, (int64_t)cli_parse_u64(cli_optarg, 0, INT32_MAX, "tid")) < 0)
                cli_die(CLI_EXIT_FAIL, "out of memory");
            break;
        case 'c':
            if (fold_add_comm(&o, cli_optarg) < 0)
                cli_die(CLI_EXIT_FAIL, "out of memory");
            break;
        case OPT_FROM: o.from_ns = cli_parse_seconds(cli_optarg, UINT64_MAX, "--from"); o.have_from = 1; break;
        case OPT_TO: o.to_ns = cli_parse_seconds(cli_optarg, UINT64_MAX, "--to"); o.have_to = 1; break;
        case OPT_NO_SYMBOLIZE: o.no_symbolize = 1; break;
        case OPT_CACHE_DIR: o.cache_dir = cli_optarg; o.no_cache = 0; break;
        case OPT_NO_CACHE: o.no_cache = 1; break;
        case OPT_SYMFS: o.symfs = cli_optarg; break;
        case OPT_DEBUG_DIR:
            if (!(o.debug_dirs = realloc(o.debug_dirs, (o.ndebug_dirs + 2) * sizeof *o.debug_dirs)))
                cli_die(CLI_EXIT_FAIL, "out of memory");
            o.debug_dirs[o.ndebug_dirs++] = cli_optarg;
            o.debug_dirs[o.ndebug_dirs] = NULL;
            break;
        case 'v': o.verbose = 1; break;
        case OPT_MAX_LINE: o.max_line = (size_t)cli_parse_u64(cli_optarg, 64, SIZE_MAX / 4, "--max-line"); break;
        default: cli_usage_exit();
        }
    }
    if (o.weight && (o.period || o.offcpu || o.syscall_time))
        cli_die(CLI_EXIT_USAGE, "--weight weighs by a field: not with --period, --offcpu or --syscall-time");
    cli_ignore_sigpipe();
    static char obuf[1 << 20];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    struct fold f;
    if (fold_init(&f, &o) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    int status = CLI_EXIT_OK;
    if (cli_optind >= argc) {
        f.exits_after = 1;
        status = fold_input(&f, NULL);
    } else {
        for (int i = cli_optind; i < argc; i++) {
            f.exits_after = i == argc - 1;
            int s = fold_input(&f, argv[i]);
            if (s == CLI_EXIT_FAIL || (status != CLI_EXIT_FAIL && s > status))
                status = s; /* a failed input outweighs a truncated one */
        }
    }
    if (status != CLI_EXIT_FAIL)
        fold_print(&f, stdout);
    fold_free(&f);
    fold_opts_free(&o);
    return cli_finish_stdout(status);
}
