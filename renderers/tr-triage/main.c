/* tr-triage - the first hour with a slow program in one command: counters,
 * CPU and off-CPU profiles, syscalls, run-queue latency, memory, descriptors
 * and threads recorded together into one trace (record.c), and a report
 * with findings (model/triage). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "record.h"
#include "triage/triage.h"

enum { OPT_TEXT = 256, OPT_JSON, OPT_NO_CACHE };

static const struct cli_opt opts[] = {
    {'p', "pid", "PID[,PID]", "record these processes (and their children) instead of a command", 0, "pid"},
    {'a', "all-cpus", NULL, "record the whole system", 0, NULL},
    {'d', "duration", "SECONDS", "record for SECONDS (with a command: then end it as Ctrl-C does)", 0, NULL},
    {'F', "freq", "HZ", "CPU samples per second (default 999)", 0, NULL},
    {'o', "output", "FILE", "the trace (default triage.tr)", 0, "file"},
    {'w', "html", "FILE", "the HTML report (default triage.html; none with --text or --json unless given)", 0,
     "file"},
    {0, "text", NULL, "the report as text on stdout", OPT_TEXT, NULL},
    {0, "json", NULL, "the report as one JSON object on stdout", OPT_JSON, NULL},
    {'r', "report", "TRACE", "report on an existing trace instead of recording", 0, "file"},
    {0, "no-cache", NULL, "neither read nor write the symbolization cache", OPT_NO_CACHE, NULL},
    {'q', "quiet", NULL, "no notes or warnings", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-triage",
    .synopsis = {"[-F HZ] [-d SECONDS] [-o FILE] [-w FILE] [--text|--json] [--] COMMAND [ARG...]",
                 "[-F HZ] [-o FILE] [-w FILE] [--text|--json] -d SECONDS -p PID[,PID] | -a",
                 "[-w FILE] [--text|--json] -r TRACE"},
    .summary = "record counters, CPU and off-CPU stacks, syscalls and the scheduler at once; report findings",
    .opts = opts,
    .stop_at_nonopt = 1,
    .operands = "cmd",
};

int main(int argc, char **argv)
{
    triage_shim(argv); /* the recorded command's start (record.c): returns when this is not it */
    struct triage_rec rec = {.freq = 999, .output = "triage.tr"};
    struct triage_opts o = {0};
    const char *html = NULL, *report = NULL;
    int text = 0, json = 0;
    cli_init(&tool, argc, argv);
    int c;
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'p': rec.npids = cli_parse_pids(cli_optarg, rec.pids, rec.npids, TRIAGE_MAX_PIDS); break;
        case 'a': rec.all = 1; break;
        case 'd': rec.duration_ns = cli_parse_seconds(cli_optarg, 86400ull * 1000000000, "duration"); break;
        case 'F': rec.freq = (unsigned)cli_parse_u64(cli_optarg, 1, 100000, "frequency"); break;
        case 'o': rec.output = cli_optarg; break;
        case 'w': html = cli_optarg; break;
        case OPT_TEXT: text = 1; break;
        case OPT_JSON: json = 1; break;
        case 'r': report = cli_optarg; break;
        case OPT_NO_CACHE: o.no_cache = 1; break;
        case 'q': o.quiet = 1; break;
        default: cli_usage_exit();
        }
    }
    rec.argv = argv + cli_optind;
    rec.argc = argc - cli_optind;
    if (text && json)
        cli_die(CLI_EXIT_USAGE, "--text and --json: choose one");
    if (report && (rec.argc || rec.npids || rec.all))
        cli_die(CLI_EXIT_USAGE, "-r reports on a trace: no command, -p or -a with it");
    if (!report && !!rec.argc + !!rec.npids + rec.all != 1)
        cli_die(CLI_EXIT_USAGE, "give one of a command, -p PID or -a (see --help)");
    if (!report && !rec.argc && !rec.duration_ns)
        cli_die(CLI_EXIT_USAGE, "-p and -a need -d SECONDS");
    if (!html && !text && !json)
        html = "triage.html";

    int status = CLI_EXIT_OK;
    const char *trace = report;
    if (!report) {
        status = triage_record(&rec);
        if (rec.failed)
            return CLI_EXIT_FAIL;
        trace = rec.output;
    }
    cli_ignore_sigpipe();
    struct triage *t = triage_new(&o);
    if (!t)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    int rs = triage_input(t, trace);
    if (rs == CLI_EXIT_FAIL) {
        triage_free(t);
        return CLI_EXIT_FAIL;
    }
    if (text)
        triage_text(t, stdout);
    else if (json)
        triage_json(t, stdout);
    if (html) {
        FILE *f = fopen(html, "we");
        if (!f)
            cli_die(CLI_EXIT_FAIL, "%s: %m", html);
        triage_html(t, f);
        if (fclose(f) != 0)
            cli_die(CLI_EXIT_FAIL, "write error: %s: %m", html);
        if (!o.quiet && !text && !json)
            fprintf(stderr, "tr-triage: report in %s, trace in %s\n", html, trace);
    }
    triage_free(t);
    if (report)
        status = rs;
    else if (rs != CLI_EXIT_OK && status == CLI_EXIT_OK)
        status = rs;
    status = cli_finish_stdout(status);
    cli_exit(status);
}
