/* tr-diff - compare two profiles: differential folded stacks or a report. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"

enum { OPT_REPORT = 256, OPT_TOP, OPT_LENIENT, OPT_PERIOD, OPT_STRIP_COMM, OPT_RENAME };

static const struct cli_opt opts[] = {
    {'n', "normalize", NULL, "scale BEFORE's counts to AFTER's total", 0, NULL},
    {'s', "strip-hex", NULL, "replace hex numbers (addresses) by 0x...", 0, NULL},
    {0, "strip-comm", NULL, "drop the root frame (process name) of every stack", OPT_STRIP_COMM, NULL},
    {0, "rename", "OLD=NEW", "a root frame OLD becomes NEW in both profiles (repeatable)", OPT_RENAME, NULL},
    {0, "report", NULL, "print the functions whose share changed most instead", OPT_REPORT, NULL},
    {0, "top", "N", "rows of the report (default 30)", OPT_TOP, NULL},
    {'e', "event", "NAME", "event to fold in trace or perf script inputs", 0, "@event"},
    {0, "period", NULL, "weigh trace samples by period", OPT_PERIOD, NULL},
    {0, "lenient", NULL, "skip malformed folded lines with a warning", OPT_LENIENT, NULL},
    {'v', "verbose", NULL, "a warning for each process (no recorded mapping, cannot unwind) instead of a count", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-diff",
    .synopsis = {"[-nsv] [--strip-comm] [--rename OLD=NEW]... [--report] BEFORE AFTER"},
    .summary = "compare two profiles (traces or folded stacks)",
    .opts = opts,
    .operands = "file",
};

int main(int argc, char **argv)
{
    struct diff_opts o;
    memset(&o, 0, sizeof o);
    fold_opts_init(&o.fold);
    o.fold.quiet = 0;
    o.top = 30;
    cli_init(&tool, argc, argv);
    int c;
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'n': o.normalize = 1; break;
        case 's': o.strip_hex = 1; break;
        case OPT_STRIP_COMM: o.strip_comm = 1; break;
        case OPT_RENAME:
            if (!strchr(cli_optarg, '=') || cli_optarg[0] == '=')
                cli_die(CLI_EXIT_USAGE, "--rename takes OLD=NEW, not '%s'", cli_optarg);
            if (!(o.renames = realloc(o.renames, (o.nrenames + 1) * sizeof *o.renames)))
                cli_die(CLI_EXIT_USAGE, "out of memory"); /* trouble: 2, as cmp */
            o.renames[o.nrenames++] = cli_optarg;
            break;
        case OPT_REPORT: o.report = 1; break;
        case OPT_TOP: o.top = (size_t)cli_parse_u64(cli_optarg, 1, 1000000, "--top"); break;
        case 'e': o.fold.ps.event = cli_optarg; break;
        case OPT_PERIOD: o.fold.period = 1; break;
        case OPT_LENIENT: o.lenient = 1; break;
        case 'v': o.fold.verbose = 1; break;
        default: cli_usage_exit();
        }
    }
    if (argc - cli_optind != 2) {
        cli_warn("expected two inputs: BEFORE AFTER");
        cli_usage_exit();
    }
    if (!strcmp(argv[cli_optind], "-") && !strcmp(argv[cli_optind + 1], "-"))
        cli_die(CLI_EXIT_USAGE, "BEFORE and AFTER cannot both be stdin");
    cli_ignore_sigpipe();
    static char obuf[1 << 20];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    struct diff d;
    diff_init(&d, &o);
    /* a damaged trace (cut, corrupt chunks) is compared as far as it reads, and
     * is trouble all the same: exit 2, whatever the comparison says */
    int damaged = 0, status = CLI_EXIT_OK;
    for (int which = 0; which < 2 && status == CLI_EXIT_OK; which++) {
        status = diff_load(&d, which, argv[cli_optind + which]);
        if (status == CLI_EXIT_TRUNCATED) {
            damaged = 1;
            status = CLI_EXIT_OK;
        }
    }
    if (status == CLI_EXIT_OK) {
        int differ = o.report ? diff_write_report(&d, stdout) : diff_write_folded(&d, stdout);
        status = differ < 0 || damaged ? CLI_EXIT_USAGE : differ;
        if (differ < 0)
            cli_warn("out of memory");
    }
    diff_free(&d);
    free(o.renames);
    status = cli_finish_stdout(status);
    return status == CLI_EXIT_FAIL && ferror(stdout) ? CLI_EXIT_USAGE : status;
}
