/* tr-report - a profile, syscall or tracepoint trace summed up as perf
 * report --stdio (perf diff for several traces) prints it; the work is
 * model/report's. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report/report.h"
#include "weight.h"

enum {
    OPT_CHILDREN = 256, OPT_NO_CHILDREN, OPT_PERIOD, OPT_PERCENT_LIMIT, OPT_PID, OPT_TID, OPT_TIME, OPT_MAX_STACK,
    OPT_JSON, OPT_OFFCPU, OPT_EVENT, OPT_STDIO, OPT_NO_SYMBOLIZE, OPT_SYMFS, OPT_DEBUG_DIR, OPT_CACHE_DIR, OPT_NO_CACHE,
    OPT_WEIGHT,
};

static const struct cli_opt opts[] = {
    {'i', "input", "FILE", "the trace to read (also an operand; default stdin)", 0, "file"},
    {0, "children", NULL, "Children column: time in each function and its callees (default with stacks)", OPT_CHILDREN, NULL},
    {0, "no-children", NULL, "only the Self time of each entry (Overhead)", OPT_NO_CHILDREN, NULL},
    {'s', "sort", "KEYS", "group entries by these keys: comm,pid,tid,dso,sym,srcline,cpu (default comm,dso,sym)", 0,
     "comm pid tid dso sym srcline cpu"},
    {'F', "fields", "FIELDS", "columns: overhead,overhead_children,sample,period and sort keys", 0, NULL},
    {'n', "show-nr-samples", NULL, "a Samples column", 0, NULL},
    {0, "period", NULL, "a Period column", OPT_PERIOD, NULL},
    {0, "percent-limit", "PCT", "hide entries below PCT percent", OPT_PERCENT_LIMIT, NULL},
    {'g', "call-graph", "[=TYPE]", "call graphs: graph|fractal|flat|folded|none, MIN percent, caller|callee (default graph,0.5)", 0,
     "graph fractal flat folded none caller callee"},
    {'G', "inverted", NULL, "call graphs from the callers (-g caller)", 0, NULL},
    {0, "max-stack", "N", "use at most N frames of each stack, from the leaf (default 127)", OPT_MAX_STACK, NULL},
    {'c', "comms", "COMMS", "only these command names (comma-separated)", 0, NULL},
    {0, "pid", "PIDS", "only these processes (comma-separated)", OPT_PID, "pid"},
    {0, "tid", "TIDS", "only these threads (comma-separated)", OPT_TID, NULL},
    {'d', "dsos", "DSOS", "only entries in these shared objects (comma-separated)", 0, NULL},
    {'S', "symbols", "SYMS", "only entries of these symbols (comma-separated)", 0, NULL},
    {0, "time", "START,END", "only what happened between these times (seconds, as tr-cat prints them)", OPT_TIME, NULL},
    {0, "event", "NAME", "only this event's section", OPT_EVENT, "@event"},
    {0, "offcpu", NULL, "weigh sched_switch samples by blocked time (automatic for a file)", OPT_OFFCPU, NULL},
    {0, "weight", "EXPR", "weigh samples by a tracepoint field instead of their period, as tr-fold --weight", OPT_WEIGHT, NULL},
    {0, "json", NULL, "JSON Lines for scripts: one object per section", OPT_JSON, NULL},
    {0, "stdio", NULL, "text output (the default; accepted as perf accepts it)", OPT_STDIO, NULL},
    {0, "no-symbolize", NULL, "frames as recorded (raw: [module] addresses)", OPT_NO_SYMBOLIZE, NULL},
    {0, "symfs", "DIR", "look for the recorded binaries under DIR first", OPT_SYMFS, "dir"},
    {0, "debug-dir", "DIR", "a build-id tree to search (repeatable; tr-archive -d writes one)", OPT_DEBUG_DIR, "dir"},
    {0, "cache-dir", "DIR", "symbolization cache directory (default ~/.cache/tr)", OPT_CACHE_DIR, "dir"},
    {0, "no-cache", NULL, "neither read nor write the symbolization cache", OPT_NO_CACHE, NULL},
    {'q', "quiet", NULL, "no warnings", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-report",
    .synopsis = {"[OPTIONS] [FILE]", "[OPTIONS] BASELINE FILE..."},
    .summary = "sum up a trace as perf report does: profiles, off-CPU time, syscalls, tracepoints; compare traces",
    .opts = opts,
    .operands = "file",
};

/* Comma-separated words of s, kept (the copy is freed at exit). */
static char *copies[64];
static size_t ncopies;

static const char **words(const char **v, size_t *n, const char *s)
{
    char *c = strdup(s);
    if (!c || ncopies == 64)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    copies[ncopies++] = c;
    for (char *w = strtok(c, ","); w; w = strtok(NULL, ",")) {
        if (!(v = realloc(v, (*n + 1) * sizeof *v)))
            cli_die(CLI_EXIT_FAIL, "out of memory");
        v[(*n)++] = w;
    }
    return v;
}

static int32_t *ids(int32_t *v, size_t *n, const char *s, const char *what)
{
    const char **w = NULL;
    size_t nw = 0;
    w = words(w, &nw, s);
    if (!(v = realloc(v, (*n + nw + 1) * sizeof *v)))
        cli_die(CLI_EXIT_FAIL, "out of memory");
    for (size_t i = 0; i < nw; i++)
        v[(*n)++] = (int32_t)cli_parse_u64(w[i], 0, INT32_MAX, what);
    free(w);
    return v;
}

static void parse_time(struct report_opts *o, const char *s)
{
    const char *comma = strchr(s, ',');
    char start[64];
    snprintf(start, sizeof start, "%.*s", comma ? (int)(comma - s) : (int)strlen(s), s);
    if (start[0])
        o->time_from = cli_parse_seconds(start, UINT64_MAX, "--time start"), o->have_from = 1;
    if (comma && comma[1])
        o->time_to = cli_parse_seconds(comma + 1, UINT64_MAX, "--time end"), o->have_to = 1;
}

int main(int argc, char **argv)
{
    struct report_opts o;
    report_opts_init(&o);
    const char *input = NULL, *bad;
    cli_init(&tool, argc, argv);
    if (!(o.debug_dirs = calloc((size_t)argc + 1, sizeof *o.debug_dirs)))
        cli_die(CLI_EXIT_FAIL, "out of memory");
    int c;
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'i': input = cli_optarg; break;
        case OPT_CHILDREN: o.children = 1, o.children_set = 1; break;
        case OPT_NO_CHILDREN: o.children = 0, o.children_set = 1; break;
        case 's':
            if (report_parse_sort(&o, cli_optarg, &bad) < 0)
                cli_die(CLI_EXIT_USAGE, "unknown sort key '%s' (comm, pid, tid, dso, sym, srcline, cpu)", bad);
            o.sort_given = 1;
            break;
        case 'F':
            if (report_parse_fields(&o, cli_optarg, &bad) < 0)
                cli_die(CLI_EXIT_USAGE, "unknown field '%s' (overhead, overhead_children, sample, period, or a sort key)", bad);
            break;
        case 'n': o.show_samples = 1; break;
        case OPT_PERIOD: o.show_period = 1; break;
        case OPT_PERCENT_LIMIT: {
            char *end;
            o.percent_limit = strtod(cli_optarg, &end);
            if (end == cli_optarg || *end || o.percent_limit < 0 || o.percent_limit > 100)
                cli_die(CLI_EXIT_USAGE, "invalid --percent-limit '%s': a percentage from 0 to 100", cli_optarg);
            o.graph_min = o.percent_limit; /* as perf: the call graphs' threshold too, until a later -g gives one */
            break;
        }
        case 'g':
            /* perf also takes the type as the next word: -g caller */
            if (!cli_optarg && cli_optind < argc && access(argv[cli_optind], F_OK) != 0 &&
                report_parse_graph(&o, argv[cli_optind]) == 0) {
                cli_optind++;
                break;
            }
            if (cli_optarg ? report_parse_graph(&o, cli_optarg) < 0 : (o.graph_set = 1, 0))
                cli_die(CLI_EXIT_USAGE, "invalid --call-graph '%s' (graph, fractal, flat, folded, none, "
                        "a percentage, caller, callee)", cli_optarg);
            break;
        case 'G': o.caller = 1, o.order_set = 1; break;
        case OPT_MAX_STACK: o.max_stack = (int)cli_parse_u64(cli_optarg, 1, 1 << 20, "--max-stack"); break;
        case 'c': o.comms = words(o.comms, &o.ncomms, cli_optarg); break;
        case OPT_PID: o.pids = ids(o.pids, &o.npids, cli_optarg, "pid"); break;
        case OPT_TID: o.tids = ids(o.tids, &o.ntids, cli_optarg, "tid"); break;
        case 'd': o.dsos = words(o.dsos, &o.ndsos, cli_optarg); break;
        case 'S': o.syms = words(o.syms, &o.nsyms, cli_optarg); break;
        case OPT_TIME: parse_time(&o, cli_optarg); break;
        case OPT_EVENT: o.event = cli_optarg; break;
        case OPT_OFFCPU: o.offcpu = 1; break;
        case OPT_WEIGHT:
            if (!weight_valid(cli_optarg))
                cli_die(CLI_EXIT_USAGE, "--weight takes " WEIGHT_SYNTAX ", not '%s'", cli_optarg);
            o.weight = cli_optarg;
            break;
        case OPT_JSON: o.json = 1; break;
        case OPT_STDIO: break;
        case OPT_NO_SYMBOLIZE: o.no_symbolize = 1; break;
        case OPT_SYMFS: o.symfs = cli_optarg; break;
        case OPT_DEBUG_DIR: o.debug_dirs[o.ndebug_dirs++] = cli_optarg; break;
        case OPT_CACHE_DIR: o.cache_dir = cli_optarg, o.no_cache = 0; break;
        case OPT_NO_CACHE: o.no_cache = 1; break;
        case 'q': o.quiet = 1; break;
        default: cli_usage_exit();
        }
    }
    if (o.weight && o.offcpu)
        cli_die(CLI_EXIT_USAGE, "--weight weighs by a field: not with --offcpu");
    int nin = argc - cli_optind + (input != NULL);
    if (nin > 8)
        cli_die(CLI_EXIT_USAGE, "at most 8 traces are compared");
    const char *paths[8];
    int k = 0;
    if (input)
        paths[k++] = input;
    for (int i = cli_optind; i < argc; i++)
        paths[k++] = argv[i];
    if (!k)
        paths[k++] = NULL;
    cli_ignore_sigpipe();
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    struct report *r[8];
    int status = CLI_EXIT_OK;
    for (int i = 0; i < k; i++) {
        if (!(r[i] = report_new(&o)))
            cli_die(CLI_EXIT_FAIL, "out of memory");
        int s = report_input(r[i], paths[i]);
        if (s == CLI_EXIT_FAIL || (status != CLI_EXIT_FAIL && s > status))
            status = s;
    }
    if (status != CLI_EXIT_FAIL) {
        if (k > 1)
            report_diff(r, (size_t)k, paths, stdout);
        else if (o.json)
            report_print_json(r[0], stdout);
        else if (report_empty(r[0]))
            cli_warn("%s: no samples, syscalls or events", paths[0] ? paths[0] : "stdin");
        else
            report_print(r[0], stdout);
    }
    for (int i = 0; i < k; i++)
        report_free(r[i]);
    report_opts_free(&o);
    for (size_t i = 0; i < ncopies; i++)
        free(copies[i]);
    return cli_finish_stdout(status);
}
