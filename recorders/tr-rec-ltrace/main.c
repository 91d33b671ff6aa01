/* tr-rec-ltrace - record the library calls of a command or of running processes, through uprobes. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "keys.h"
#include "ltrace.h"
#include "syscalls.h"
#include "tracing.h"

static const struct cli_opt opts[] = {
    {'o', "output", "FILE", "write the trace to FILE (default: stdout; on a terminal tr-cat shows it)", 0, "file"},
    {'e', "expr", "EXPR", "which calls: [!]NAME[@LIB][+NAME[@LIB]|-NAME[@LIB]]... (globs)", 0, NULL},
    {'l', "library", "LIB", "calls into library LIB (a glob on its file name; repeatable)", 0, "file"},
    {'x', "extern", "PATTERN", "also calls of the main binary's own functions matching PATTERN", 0, NULL},
    {'F', "config", "FILE", "prototypes to use before the built-in ones (ltrace's syntax)", 0, "file"},
    {'S', "syscalls", NULL, "also the system calls, as ltrace -S shows them (SYS_openat...)", 0, NULL},
    {'f', "follow-forks", NULL, "follow forks and clones (threads are always traced)", 0, NULL},
    {'p', "attach", "PID[,PID...]", "attach to running processes; Ctrl-C detaches", 0, "pid"},
    {'c', "summary", NULL, "print ltrace -c's table on stderr at the end (and record the trace)", 0, NULL},
    {'T', "call-times", NULL, "time spent in each call, recorded for tr-cat", 0, NULL},
    {'t', "timestamps", NULL, "time of day on each line (-tt with us, -ttt epoch), recorded for tr-cat", 0, NULL},
    {'s', "string-limit", "SIZE", "bytes of strings to record (default 32)", 0, NULL},
    {'n', "indent", "NR", "indent each nested call by NR spaces, recorded for tr-cat", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-rec-ltrace",
    .synopsis = {
        "[-cfSTt] [-o FILE] [-s SIZE] [-n NR] [-e EXPR]... [-l LIB]... [-x PATTERN]... [-F FILE] [--] COMMAND [ARG...]",
        "[-cfSTt] [-o FILE] [-s SIZE] [-n NR] [-e EXPR]... [-l LIB]... [-x PATTERN]... [-F FILE] -p PID[,PID...]",
    },
    .summary = "record the library calls of a command or of running processes through uprobes (ltrace)",
    .opts = opts,
    .stop_at_nonopt = 1,
    .operands = "cmd",
};

static void on_signal(int sig)
{
    (void)sig;
    record_stop = 1;
}

static void meta_int(tr_writer *w, const char *key, long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    tr_writer_meta(w, key, buf);
}

/* The libraries a running process has mapped (for -p: those it loaded, dlopen'ed ones too). */
static size_t mapped_libraries(pid_t pid, char ***out)
{
    char path[64], line[PATH_MAX + 128];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *fp = fopen(path, "re");
    size_t n = 0;
    *out = NULL;
    while (fp && fgets(line, sizeof line, fp)) {
        char *name = strchr(line, '/');
        if (!name || !strstr(line, " r-xp "))
            continue;
        name[strcspn(name, "\n")] = 0;
        int dup = 0;
        for (size_t i = 0; i < n && !dup; i++)
            dup = !strcmp((*out)[i], name);
        if (!dup) {
            *out = realloc(*out, (n + 1) * sizeof **out);
            (*out)[n++] = strdup(name);
        }
    }
    if (fp)
        fclose(fp);
    return n;
}

int main(int argc, char **argv)
{
    static pid_t pids[1024];
    size_t npids = 0;
    const char *out = NULL, *protofile = NULL;
    struct select *sel = select_new();
    struct libprotos protos = {0};
    struct rec_opts o = {.strsize = 32};
    char err[512];
    int c, timestamps = 0, call_times = 0, summary = 0;
    long indent = 0;

    if (!sel)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    cli_init(&tool, argc, argv);
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'o': out = cli_optarg; break;
        case 'e':
            if (select_add_e(sel, cli_optarg, err, sizeof err) < 0)
                cli_die(CLI_EXIT_USAGE, "-e %s: %s", cli_optarg, err);
            break;
        case 'l': select_add_lib(sel, cli_optarg); break;
        case 'x': select_add_x(sel, cli_optarg); break;
        case 'F': protofile = cli_optarg; break;
        case 'f': o.follow = 1; break;
        case 'S': o.syscalls = 1; break;
        case 'p': npids = cli_parse_pids(cli_optarg, pids, npids, sizeof pids / sizeof pids[0]); break;
        case 'c': summary = 1; break;
        case 'T': call_times = 1; break;
        case 't': timestamps += timestamps < 3; break;
        case 's': o.strsize = (uint32_t)cli_parse_u64(cli_optarg, 0, 4000, "string size"); break;
        case 'n': indent = (long)cli_parse_u64(cli_optarg, 0, 64, "indentation"); break;
        default: cli_usage_exit();
        }
    }
    char **cmd = argv + cli_optind;
    int ncmd = argc - cli_optind;
    if (!npids && ncmd <= 0) {
        cli_warn("must have COMMAND or -p PID");
        cli_usage_exit();
    }
    if (npids && ncmd > 0)
        cli_die(CLI_EXIT_USAGE, "give either COMMAND or -p PID, not both");
    size_t ptlen = 0;
    char *ptext = NULL;
    if (protofile) {
        unsigned bad = 0;
        if (!(ptext = cli_read_file(protofile, &ptlen)))
            cli_die(CLI_EXIT_FAIL, "%s: %s", protofile, strerror(errno));
        if (libprotos_add_text(&protos, ptext, ptlen, &bad) < 0)
            cli_die(CLI_EXIT_USAGE, "%s: line %u: not a prototype (\"RET NAME(TYPE, ...);\")", protofile, bad);
    }

    /* the functions: of the command's binary and the libraries it needs, or of the process */
    char exe[PATH_MAX];
    char **libs = NULL;
    size_t nlibs = 0;
    if (npids) {
        char link[64];
        snprintf(link, sizeof link, "/proc/%d/exe", (int)pids[0]);
        ssize_t n = readlink(link, exe, sizeof exe - 1);
        if (n < 0)
            cli_die(CLI_EXIT_FAIL, "process %d: %s", (int)pids[0], strerror(errno));
        exe[n] = 0;
        nlibs = mapped_libraries(pids[0], &libs);
    } else {
        char found[PATH_MAX], *p;
        if (cli_find_command(cmd[0], found, sizeof found) < 0 || !(p = realpath(found, NULL)))
            cli_die(CLI_EXIT_FAIL, "%s: command not found", cmd[0]);
        snprintf(exe, sizeof exe, "%s", p);
        free(p);
    }
    o.exe = exe;
    o.sel = sel;
    o.protos = &protos;
    struct funcs funcs = {0};
    if (select_resolve(sel, exe, libs, nlibs, &protos, &funcs, &o.libs, &o.nlibs, err, sizeof err) < 0)
        cli_die(CLI_EXIT_FAIL, "%s", err);
    for (size_t i = 0; i < nlibs; i++)
        free(libs[i]);
    free(libs);

    /* probes: the ones a killed run left, then ours, removed at every exit; then tracefs
     * unmounted if we mounted it (atexit runs the handlers registered later first) */
    atexit(tracing_release);
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (probes_cleanup_stale(err, sizeof err) < 0)
        cli_die(CLI_EXIT_FAIL, "%s", err);
    if (probes_create(&funcs, 0, err, sizeof err) < 0)
        cli_die(CLI_EXIT_FAIL, "%s", err);
    if (o.syscalls && (uprobe_tracepoint_id("raw_syscalls", "sys_enter", &o.sys_id[0], err, sizeof err) < 0 ||
                       uprobe_tracepoint_id("raw_syscalls", "sys_exit", &o.sys_id[1], err, sizeof err) < 0))
        cli_die(CLI_EXIT_FAIL, "-S: %s", err);

    const char *shown;
    cli_ignore_sigpipe();
    int fd;
    pid_t viewer = -1;
    if (!out && isatty(STDOUT_FILENO)) {
        char *vargs[] = {summary ? "-c" : NULL, NULL};
        fd = cli_start_viewer(vargs, &viewer);
        shown = "tr-cat";
    } else {
        fd = cli_open_trace_output(out, NULL, &shown);
    }
    if (fd == STDOUT_FILENO) {
        fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
        if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            cli_die(CLI_EXIT_FAIL, "stdout: %s", strerror(errno));
    }
    tr_writer *w;
    int rc = tr_writer_open(&w, fd, NULL);
    if (rc < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", shown, tr_strerror(rc));
    tr_writer_meta_defaults(w, "tr-rec-ltrace", argc, argv);
    tr_writer_meta(w, META_VIEW, VIEW_LIBCALLS);
    tr_writer_meta(w, META_MODE, "record");
    tr_writer_meta(w, META_TARGET, npids ? "pid" : "command");
    meta_int(w, META_LTRACE_STRSIZE, o.strsize);
    if (timestamps)
        meta_int(w, META_LTRACE_TIMESTAMPS, timestamps);
    if (call_times)
        tr_writer_meta(w, META_LTRACE_CALL_TIMES, "1");
    if (indent)
        meta_int(w, META_LTRACE_INDENT, indent);
    if (ptext)
        tr_writer_blob(w, BLOB_LTRACE_PROTOS, ptext, ptlen, 1);
    if (o.syscalls)
        syscalls_write_host_table(w);

    /* the command, held before its exec until the events are open on it */
    pid_t child = -1;
    int go[2] = {-1, -1};
    if (!npids) {
        if (pipe2(go, O_CLOEXEC) < 0)
            cli_die(CLI_EXIT_FAIL, "pipe: %s", strerror(errno));
        child = fork();
        if (child < 0)
            cli_die(CLI_EXIT_FAIL, "fork: %s", strerror(errno));
        if (child == 0) {
            char b;
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            signal(SIGHUP, SIG_DFL);
            signal(SIGPIPE, SIG_DFL);
            close(go[1]);
            if (read(go[0], &b, 1) != 1)
                _exit(CLI_EXIT_FAIL);
            execvp(cmd[0], cmd);
            fprintf(stderr, "%s: %s: %s\n", cli_name(), cmd[0], strerror(errno));
            _exit(127);
        }
        close(go[0]);
        cli_commit_trace_output();
    } else {
        cli_commit_trace_output();
    }
    struct rec_result res = {0};
    int trc = record_run(w, &o, &funcs, child, go[1], pids, npids, &res);
    if (trc < 0 && child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    probes_remove();
    tracing_release(); /* cli_exit may end by the command's signal */
    int frc = tr_writer_finish(w, res.lost);
    tr_writer_free(w);
    if (fd != STDOUT_FILENO)
        close(fd);
    if (viewer > 0)
        while (waitpid(viewer, NULL, 0) < 0 && errno == EINTR)
            ;
    if (summary && viewer < 0 && out) {
        /* the table of what was recorded, by tr-cat -c on the file */
        fflush(NULL);
        pid_t p = fork();
        if (p == 0) {
            dup2(STDERR_FILENO, STDOUT_FILENO);
            char path[PATH_MAX];
            cli_sibling_tool("tr-cat", path, sizeof path);
            execlp(path, "tr-cat", "-c", out, (char *)NULL);
            _exit(CLI_EXIT_FAIL);
        }
        if (p > 0)
            waitpid(p, NULL, 0);
    }
    funcs_free(&funcs);
    for (size_t i = 0; i < o.nlibs; i++)
        free(o.libs[i]);
    free(o.libs);
    select_free(sel);
    libprotos_free(&protos);
    free(ptext);
    if (frc < 0)
        cli_warn("%s: %s", shown, tr_strerror(frc));

    int status = CLI_EXIT_OK;
    if (res.status >= 0)
        status = cli_command_status(res.status);
    if (trc < 0 || frc < 0)
        status = CLI_EXIT_FAIL;
    cli_exit(cli_finish_stdout(status));
}
