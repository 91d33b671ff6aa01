/* tr-rec-ftrace - record kernel tracepoints (and the function tracer) through tracefs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cli.h"
#include "ftrace.h"

enum { OPT_FILTER = 256, OPT_FORMAT, OPT_FUNCTION, OPT_FUNCTION_GRAPH };

static const struct cli_opt opts[] = {
    {'e', "event", "SYSTEM:EVENT", "record this tracepoint (globs: 'sched:*'); repeatable", 0, "@tracepoint"},
    {0, "filter", "EXPR", "kernel filter for the events of the preceding -e", OPT_FILTER, NULL},
    {'l', "list", NULL, "list available events matching the GLOB operands; after --function: "
                        "-l FUNC_GLOB limits the function tracer", 0, "@tracepoint"},
    {0, "format", "SYSTEM:EVENT", "print the format (fields) of the events", OPT_FORMAT, "@tracepoint"},
    {'p', "pid", "PID", "trace this process and its descendants", 0, "pid"},
    {'d', "duration", "SECONDS", "stop after SECONDS (system-wide without a command or -p)", 0, NULL},
    {'b', "buffer-size", "KB", "ring buffer size per CPU in KiB", 0, NULL},
    {'o', "output", "FILE", "write the trace to FILE (default: stdout, never a terminal)", 0, "file"},
    {0, "function", NULL, "use the function tracer", OPT_FUNCTION, NULL},
    {0, "function-graph", NULL, "use the function_graph tracer", OPT_FUNCTION_GRAPH, NULL},
    {'n', "notrace", "FUNC_GLOB", "functions the function tracer leaves out; repeatable", 0, NULL},
    {'q', "quiet", NULL, "no summary line on stderr", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-rec-ftrace",
    .synopsis = {"[-q] [-o FILE] [-b KB] -e SYSTEM:EVENT [--filter EXPR]... [-p PID | -d SECONDS | "
                 "[--] COMMAND [ARG...]]",
                 "[-q] [-o FILE] [-b KB] --function|--function-graph [-l FUNC_GLOB]... "
                 "[-n FUNC_GLOB]... [-p PID | -d SECONDS | [--] COMMAND [ARG...]]",
                 "-l [GLOB...]", "--format SYSTEM:EVENT"},
    .summary = "record kernel tracepoints through a private tracefs instance",
    .opts = opts,
    .stop_at_nonopt = 1,
    .operands = "cmd",
};

/* Append s to the list v of *n words (room for *cap). */
static char **push(char **v, size_t *n, size_t *cap, char *s)
{
    if (array_reserve(&v, cap, *n + 1, sizeof *v, 8) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    v[(*n)++] = s;
    return v;
}

int main(int argc, char **argv)
{
    struct ft_options o;
    memset(&o, 0, sizeof o);
    o.argc = argc;
    o.argv = argv;
    int list = 0;
    char **formats = NULL;
    size_t nformats = 0;
    size_t cap_specs = 0, cap_filters = 0, cap_func = 0, cap_formats = 0, cap_notrace = 0;
    int c;
    cli_init(&tool, argc, argv);
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'e': {
            size_t n = o.nspecs;
            o.specs = push(o.specs, &o.nspecs, &cap_specs, cli_optarg);
            o.filters = push(o.filters, &n, &cap_filters, NULL);
            break;
        }
        case OPT_FILTER:
            if (!o.nspecs)
                cli_die(CLI_EXIT_USAGE, "--filter needs a preceding -e SYSTEM:EVENT");
            if (o.filters[o.nspecs - 1])
                cli_die(CLI_EXIT_USAGE, "-e %s has two --filter options", o.specs[o.nspecs - 1]);
            o.filters[o.nspecs - 1] = cli_optarg;
            break;
        case 'l':
            if (o.function) {
                /* trace-cmd's -l: a function filter, taking the next word */
                if (cli_optind >= argc)
                    cli_die(CLI_EXIT_USAGE, "option '-l' after --function needs a FUNC_GLOB");
                o.func_filters = push(o.func_filters, &o.nfunc_filters, &cap_func, argv[cli_optind++]);
            } else
                list = 1;
            break;
        case OPT_FORMAT:
            formats = push(formats, &nformats, &cap_formats, cli_optarg);
            break;
        case 'p':
            o.pid = (pid_t)cli_parse_u64(cli_optarg, 1, 0x7fffffff, "pid");
            break;
        case 'd':
            o.duration_ns = cli_parse_seconds(cli_optarg, 1000000000ull * 86400 * 365, "duration");
            if (!o.duration_ns)
                cli_die(CLI_EXIT_USAGE, "invalid duration '%s': must be more than 0", cli_optarg);
            break;
        case 'b':
            o.buffer_kb = cli_parse_u64(cli_optarg, 4, 16u * 1024 * 1024, "buffer size");
            break;
        case 'o':
            o.output = cli_optarg;
            break;
        case OPT_FUNCTION:
            o.function = 1;
            break;
        case OPT_FUNCTION_GRAPH:
            o.function = 2;
            break;
        case 'n':
            o.func_notrace = push(o.func_notrace, &o.nfunc_notrace, &cap_notrace, cli_optarg);
            break;
        case 'q':
            o.quiet = 1;
            break;
        default:
            cli_usage_exit();
        }
    }
    char **operands = argv + cli_optind;
    size_t noperands = (size_t)(argc - cli_optind);
    if (noperands && !strcmp(operands[0], "--")) {
        operands++;
        noperands--;
    }
    int status = CLI_EXIT_OK;
    if (list || nformats) {
        if (o.nspecs || o.function || o.pid || o.duration_ns)
            cli_die(CLI_EXIT_USAGE, "-l and --format do not record: give no -e, -p, -d or --function");
        const char *why = NULL;
        const char *dir = ft_tracing_dir(&why);
        if (!dir)
            cli_die(CLI_EXIT_FAIL, "tracefs: %s", why);
        if (list && ft_list_events(stdout, dir, operands, noperands) == 0 && noperands)
            cli_die(CLI_EXIT_FAIL, "no event matches '%s'", operands[0]);
        for (size_t i = 0; i < nformats; i++)
            if (ft_print_formats(stdout, dir, formats[i]) < 0) {
                cli_warn("unknown event '%s' (tr-rec-ftrace -l lists the events)", formats[i]);
                status = CLI_EXIT_FAIL;
            }
    } else {
        if (noperands && o.pid)
            cli_die(CLI_EXIT_USAGE, "give either -p PID or a command, not both");
        if (!noperands && !o.pid && !o.duration_ns && !o.function && !o.nspecs)
            cli_usage_exit();
        if ((o.nfunc_filters || o.nfunc_notrace) && !o.function)
            cli_die(CLI_EXIT_USAGE, "-n needs --function or --function-graph");
        if (noperands) {
            /* argv is NULL-terminated, so operands is too */
            o.cmd = operands;
        }
        status = ft_record(&o);
    }
    free(o.specs);
    free(o.filters);
    free(o.func_filters);
    free(o.func_notrace);
    free(formats);
    cli_exit(cli_finish_stdout(status));
}
