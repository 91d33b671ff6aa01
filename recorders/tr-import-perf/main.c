/* tr-import-perf - perf.data (a file, or perf record -o - from a pipe) as a tr trace. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "import.h"
#include "perfdata.h"

enum { OPT_KALLSYMS = 256, OPT_BUILDID_DIR, OPT_PERF_MAP_DIR };

static const struct cli_opt opts[] = {
    {'i', "input", "FILE",
     "the perf.data file, - for stdin (default: the operand, else stdin when a pipe, else ./perf.data)", 0, "file"},
    {'o', "output", "FILE", "write the trace to FILE (default: stdout, never a terminal)", 0, "file"},
    {0, "kallsyms", "FILE", "kernel symbols to use (default: perf's copy, else /proc/kallsyms of the same kernel)",
     OPT_KALLSYMS, "file"},
    {0, "buildid-dir", "DIR", "perf's build-id cache, for kallsyms and the vDSO (default ~/.debug)",
     OPT_BUILDID_DIR, "dir"},
    {0, "perf-map-dir", "DIR", "where JIT maps perf-PID.map are (default /tmp)", OPT_PERF_MAP_DIR, "dir"},
    {'q', "quiet", NULL, "no summary line on stderr", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-import-perf",
    .synopsis = {"[OPTIONS] [-o TRACE] [PERF.DATA]"},
    .summary = "convert a perf.data file (perf record) into a tr trace",
    .opts = opts,
    .operands = "file",
};

int main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int quiet = 0;
    char home_debug[4096];
    const char *home = getenv("HOME");
    snprintf(home_debug, sizeof home_debug, "%s/.debug", home && *home ? home : "/root");
    struct import_opts o = {.buildid_dir = home_debug, .perf_map_dir = "/tmp"};
    cli_init(&tool, argc, argv);
    int c;
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'i': in = cli_optarg; break;
        case 'o': out = cli_optarg; break;
        case 'q': quiet = 1; break;
        case OPT_KALLSYMS: o.kallsyms = cli_optarg; break;
        case OPT_BUILDID_DIR: o.buildid_dir = cli_optarg; break;
        case OPT_PERF_MAP_DIR: o.perf_map_dir = cli_optarg; break;
        default: cli_usage_exit();
        }
    }
    if (cli_optind < argc) {
        if (in || cli_optind + 1 < argc)
            cli_usage_exit();
        in = argv[cli_optind];
    }
    struct stat sb;
    if (!in) /* as perf script: stdin when it is a pipe */
        in = fstat(0, &sb) == 0 && S_ISFIFO(sb.st_mode) ? "-" : "perf.data";
    struct perfdata pd;
    char why[512];
    int rc = pd_open(&pd, in, why, sizeof why);
    if (!strcmp(in, "-"))
        in = "stdin";
    if (rc < 0) {
        pd_close(&pd);
        cli_die(CLI_EXIT_FAIL, "%s: %s", in, why);
    }
    cli_ignore_sigpipe();
    const char *shown;
    int fd = cli_open_trace_output(out, NULL, &shown);
    cli_commit_trace_output();
    struct import_stats st;
    rc = import_perfdata(&pd, &o, fd, argc, argv, &st);
    if (rc == TR_E_IO && o.kallsyms) {
        pd_close(&pd);
        cli_die(CLI_EXIT_FAIL, "%s: cannot read the kernel symbols", o.kallsyms);
    }
    if (rc < 0) {
        pd_close(&pd);
        cli_die(CLI_EXIT_FAIL, "%s: %s", shown, tr_strerror(rc));
    }
    if (fd > 2 && close(fd) < 0)
        cli_die(CLI_EXIT_FAIL, "%s: write error", shown);
    if (!quiet)
        cli_warn("%llu samples, %zu events, %llu lost", (unsigned long long)st.samples, pd.nevs,
                 (unsigned long long)st.lost);
    if (st.no_kallsyms)
        cli_warn("%s: no kernel symbols of the recorded kernel (perf's copy or --kallsyms FILE): kernel frames stay "
                 "[unknown]", in);
    if (st.no_vdso)
        cli_warn("%s: the recorded vDSO image is not available: its frames stay [unknown]", in);
    if (st.bad_tracing)
        cli_warn("%s: malformed tracing data: tracepoint fields are not decoded", in);
    if (st.malformed || st.unknown_event)
        cli_warn("%s: %llu malformed samples and %llu of unknown events skipped", in,
                 (unsigned long long)st.malformed, (unsigned long long)st.unknown_event);
    int status = CLI_EXIT_OK;
    if (pd.damage[0]) {
        cli_warn("%s: %s: the trace holds the records before byte %llu", in, pd.damage,
                 (unsigned long long)pd.data_end);
        status = CLI_EXIT_TRUNCATED;
    }
    pd_close(&pd);
    return status;
}
