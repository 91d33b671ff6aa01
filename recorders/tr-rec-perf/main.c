/* tr-rec-perf - sample or count a command, processes, threads or the whole
 * system with perf_event_open(2) and write a tr trace. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "perf.h"
#include "tracing.h"
#include "uprobes.h"

enum { OPT_CALL_GRAPH = 256, OPT_STAT, OPT_DURATION, OPT_DETAILED, OPT_PER_THREAD };

static const struct cli_opt opts[] = {
    {'e', "event", "EVENT", "event to sample or count (repeatable, comma lists); default cycles, "
                            "else cpu-clock; also user and SDT probes (probe... and sdt..., see the man page)", 0,
     "@event"},
    {'F', "freq", "HZ", "sample at HZ per second (default 999)", 0, NULL},
    {'c', "count", "PERIOD", "sample every PERIOD events", 0, NULL},
    {'g', NULL, NULL, "record call graphs (frame pointers, user and kernel)", 0, NULL},
    {0, "call-graph", "MODE", "call graphs: fp or dwarf[,SIZE] (user stack bytes, default 8192)",
     OPT_CALL_GRAPH, "fp dwarf"},
    {'o', "output", "FILE", "write the trace to FILE (default stdout; trace.tr on a terminal)", 0,
     "file"},
    {'p', "pid", "PID[,PID]", "attach to these processes (all their threads)", 0, "pid"},
    {'t', "tid", "TID[,TID]", "attach to these threads only", 0, "pid"},
    {'a', "all-cpus", NULL, "system-wide: every process on every CPU", 0, NULL},
    {0, "duration", "SECONDS", "with -p, -t or -a: record for SECONDS (also -d SECONDS)", OPT_DURATION, NULL},
    {'d', "detailed", NULL, "with --stat: perf stat -d's cache events too; -d SECONDS: --duration", 0, NULL},
    {'m', "mmap-pages", "PAGES", "ring buffer pages per CPU, a power of two (default 128; with "
                                 "dwarf 16 MiB over the CPUs, 512 to 2048)", 0, NULL},
    {'i', "no-inherit", NULL, "do not follow children and threads", 0, NULL},
    {'q', "quiet", NULL, "no notes and no end line on stderr", 0, NULL},
    {'l', "list", NULL, "list the events (perf list); an operand is a glob filter, then binaries "
                        "whose SDT probes to list", 0, "@event"},
    {0, "stat", NULL, "count events instead of sampling (perf stat)", OPT_STAT, NULL},
    {'r', "repeat", "N", "with --stat: run the command N times, show mean and stddev", 0, NULL},
    {'I', "interval-print", "MS", "with --stat: print and record counts every MS milliseconds", 0,
     NULL},
    {0, "per-thread", NULL, "with --stat and -p, -t or -a: a count per thread (perf stat --per-thread)",
     OPT_PER_THREAD, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-rec-perf",
    .synopsis = {"[-g] [-e EVENT] [-F HZ | -c PERIOD] [-o FILE] [--] COMMAND [ARG...]",
                 "[-g] [-e EVENT] [-F HZ | -c PERIOD] [-o FILE] [-d SECONDS] -p PID[,PID] | -t TID | -a [-- COMMAND...]",
                 "--stat [-d] [--per-thread] [-e EVENT] [-r N] [-I MS] [-o FILE] [-a | -p PID | [--] COMMAND [ARG...]]",
                 "-l [GLOB] [BIN...]"},
    .summary = "sample or count with perf events and write a tr trace",
    .opts = opts,
    .stop_at_nonopt = 1,
    .operands = "cmd",
};

static void parse_call_graph(struct perf_opts *o, const char *s)
{
    if (!strcmp(s, "fp")) {
        o->callgraph = CG_FP;
    } else if (!strncmp(s, "dwarf", 5) && (s[5] == 0 || s[5] == ',')) {
        o->callgraph = CG_DWARF;
        if (s[5] == ',')
            o->dwarf_size = (uint32_t)cli_parse_u64(s + 6, 8, 65528, "dwarf stack size");
        o->dwarf_size = (o->dwarf_size + 7u) & ~7u;
    } else {
        cli_die(CLI_EXIT_USAGE, "invalid call graph mode '%s': use fp or dwarf[,SIZE]", s);
    }
}

static void add_events(struct perf_opts *o, const char *list)
{
    char why[512];
    if (uprobes_is_spec(list)) {
        int u = perf_cmd_is_timer(o) || o->system_wide || o->npids || o->ntids;
        int n = uprobes_make(list, u ? NULL : o->cmd, o->pids, o->npids, o->evs + o->nevs,
                             (size_t)(PERF_MAX_EVENTS - o->nevs), why, sizeof why);
        if (n < 0)
            cli_die(CLI_EXIT_USAGE, "invalid event '%s': %s", list, why);
        o->nevs += n;
        return;
    }
    int n = perf_ev_parse_list(list, o->evs + o->nevs, (size_t)(PERF_MAX_EVENTS - o->nevs), why,
                               sizeof why);
    if (n < 0)
        cli_die(CLI_EXIT_USAGE, "invalid event %s", why);
    o->nevs += n;
}

/* "5", "0.5": a duration after -d */
static int is_seconds(const char *s)
{
    size_t n = strspn(s, "0123456789.");
    return n > 0 && !s[n] && strchr("0123456789", s[0]);
}

/* The rings of a dwarf recording: 16 MiB in all over the online CPUs, from 512 to 2048 pages
 * each (2 to 8 MiB).  A sample is 8 KiB there, and on a machine of few CPUs the recorder
 * competes with the busy threads it records: at 20 kHz on two CPUs, 2 MiB were 12 ms of
 * samples, and a recorder without a CPU for longer lost most of a second's (server dwarf, 7
 * threads at a load of 8: 38,000 lost of 44,000; 125 with 8 MiB).  perf's rings are 512 KiB. */
static size_t dwarf_ring_pages(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
    size_t want = (16u << 20) / (size_t)(cpus > 0 ? cpus : 1) / (size_t)(page > 0 ? page : 4096), pages = 512;
    while (pages < 2048 && pages * 2 <= want)
        pages *= 2;
    return pages;
}

int main(int argc, char **argv)
{
    struct perf_opts o = {.freq = 999, .dwarf_size = 8192, .repeat = 1, .argc = argc, .argv = argv};
    int c, have_freq = 0, list = 0, detailed = 0, nspecs = 0;
    static const char *specs[PERF_MAX_EVENTS]; /* -e, made once the targets are known (user probes) */
    cli_init(&tool, argc, argv);
    atexit(tracing_release); /* tracefs if we mount it, after the probes (registered later) */
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'e':
            if (nspecs == PERF_MAX_EVENTS)
                cli_die(CLI_EXIT_USAGE, "more than %d -e options", PERF_MAX_EVENTS);
            specs[nspecs++] = cli_optarg;
            break;
        case 'F':
            o.freq = cli_parse_u64(cli_optarg, 1, 1000000, "frequency");
            have_freq = 1;
            break;
        case 'c': o.period = cli_parse_u64(cli_optarg, 1, UINT64_MAX >> 1, "period"); break;
        case 'g': o.callgraph = CG_FP; break;
        case OPT_CALL_GRAPH: parse_call_graph(&o, cli_optarg); break;
        case 'o': o.output = cli_optarg; break;
        case 'p':
            if ((o.npids = target_parse_pids(cli_optarg, o.pids, PERF_MAX_PIDS)) < 0)
                cli_die(CLI_EXIT_USAGE, "invalid pid list '%s'", cli_optarg);
            break;
        case 't':
            if ((o.ntids = target_parse_pids(cli_optarg, o.tids, PERF_MAX_PIDS)) < 0)
                cli_die(CLI_EXIT_USAGE, "invalid tid list '%s'", cli_optarg);
            break;
        case 'a': o.system_wide = 1; break;
        case OPT_DURATION: o.duration_ns = cli_parse_seconds(cli_optarg, UINT64_MAX / 2, "duration"); break;
        case 'd':
            /* perf stat's -d has no argument, a duration has one: a number after a lone -d is a duration */
            if (!strcmp(argv[cli_optind - 1], "-d") && cli_optind < argc && is_seconds(argv[cli_optind]))
                o.duration_ns = cli_parse_seconds(argv[cli_optind++], UINT64_MAX / 2, "duration");
            else
                detailed++;
            break;
        case 'l': list = 1; break;
        case 'm': {
            uint64_t m = cli_parse_u64(cli_optarg, 1, 1u << 20, "ring buffer pages");
            if (m & (m - 1))
                cli_die(CLI_EXIT_USAGE, "invalid ring buffer pages '%s': not a power of two",
                        cli_optarg);
            o.mmap_pages = (size_t)m;
            break;
        }
        case 'i': o.no_inherit = 1; break;
        case 'q': o.quiet = 1; break;
        case OPT_STAT: o.stat = 1; break;
        case 'r': o.repeat = (unsigned)cli_parse_u64(cli_optarg, 1, 100000, "repeat count"); break;
        case 'I': o.interval_ms = cli_parse_u64(cli_optarg, 10, 3600000, "interval"); break;
        case OPT_PER_THREAD: o.per_thread = 1; break;
        default: cli_usage_exit();
        }
    }
    if (list) {
        /* -l [GLOB] [BIN...]: with binaries, their SDT probes */
        const char *glob = cli_optind < argc && !uprobes_is_bin(argv[cli_optind]) ? argv[cli_optind++] : NULL;
        char why[512];
        if (cli_optind < argc && uprobes_list_sdt(glob, argv + cli_optind, argc - cli_optind, why, sizeof why) < 0)
            cli_die(CLI_EXIT_FAIL, "%s", why);
        int status = cli_optind < argc ? (ferror(stdout) ? 1 : 0) : perf_list(glob);
        cli_exit(cli_finish_stdout(status));
    }
    o.cmd = argv + cli_optind;
    o.cmd_argc = argc - cli_optind;
    int targets = (o.npids > 0) + (o.ntids > 0);
    if (!o.cmd_argc && !targets && !o.system_wide) {
        cli_warn("nothing to record: give a command, -p, -t or -a");
        cli_usage_exit();
    }
    if (targets > 1 || (o.system_wide && targets))
        cli_die(CLI_EXIT_USAGE, "give only one of -p, -t and -a (a command may go with each: it times the recording)");
    if (o.duration_ns && !targets && !o.system_wide)
        cli_die(CLI_EXIT_USAGE, "-d SECONDS goes with -p, -t or -a (a command's recording ends with the command)");
    if (detailed && !o.stat)
        cli_die(CLI_EXIT_USAGE, "-d without SECONDS is perf stat's --detailed: it goes with --stat");
    if (detailed && !o.nevs)
        o.detailed = detailed;
    if (o.period && have_freq)
        cli_die(CLI_EXIT_USAGE, "-F and -c exclude each other");
    if (!o.stat && (o.repeat != 1 || o.interval_ms))
        cli_die(CLI_EXIT_USAGE, "-r and -I go with --stat");
    if (o.per_thread && (!o.stat || !(targets || o.system_wide)))
        cli_die(CLI_EXIT_USAGE, "--per-thread goes with --stat and -p, -t or -a (as perf stat)");
    if (o.per_thread && o.interval_ms)
        cli_die(CLI_EXIT_USAGE, "--per-thread with -I is not supported");
    if (o.repeat > 1 && !o.cmd_argc)
        cli_die(CLI_EXIT_USAGE, "-r needs a command");
    if (!o.mmap_pages)
        o.mmap_pages = o.callgraph == CG_DWARF ? dwarf_ring_pages() : 128;
    /* user probes exist from here to the end, which removes them: the signals that end a
     * recording wait (the recording reads them) */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, NULL);
    for (int i = 0; i < nspecs; i++)
        add_events(&o, specs[i]);
    cli_ignore_sigpipe();
    int status = o.stat ? perf_stat(&o) : perf_record(&o);
    uprobes_remove(); /* the events on them are closed; cli_exit may end by the command's signal */
    tracing_release();
    cli_exit(cli_finish_stdout(status));
}
