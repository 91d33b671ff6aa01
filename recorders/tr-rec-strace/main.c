/* tr-rec-strace - record the syscalls of a command or of running processes. */
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
#include "tr.h"
#include "syscount.h"
#include "tracer.h"

enum { OPT_NO_SECCOMP = 256, OPT_SECCOMP };

static const struct cli_opt opts[] = {
    {'o', "output", "FILE", "write the trace to FILE (default: stdout; on a terminal tr-cat shows it)", 0, "file"},
    {'f', "follow-forks", NULL, "follow forks, vforks, clones and threads", 0, NULL},
    {'p', "attach", "PID[,PID...]", "attach to running processes; Ctrl-C detaches", 0, "pid"},
    {'e', "expr", "EXPR", "trace=SET (names, %class, /regex, !negation) or status=LIST", 0,
     "trace=@syscall trace= status= trace=%file trace=%desc trace=%network trace=%process trace=%memory "
     "trace=%signal trace=%ipc trace=%creds trace=%clock trace=%stat trace=%lstat trace=%fstat "
     "trace=%statfs trace=%pure status=failed status=successful"},
    {'c', "summary", NULL, "print strace -c's table on stderr at the end (and record the trace)", 0, NULL},
    {'t', "absolute-timestamps", NULL, "time of day on each line (-tt with us, -ttt epoch), recorded for tr-cat", 0, NULL},
    {'T', "syscall-times", NULL, "time spent in each syscall, recorded for tr-cat", 0, NULL},
    {'P', "trace-path", "PATH", "record only syscalls that access PATH (repeatable)", 0, "file"},
    {'s', "string-limit", "SIZE", "bytes of strings and buffers to record (default 32)", 0, NULL},
    {'y', "decode-fds", NULL, "record the path behind every fd argument", 0, NULL},
    {'k', "stack-trace", NULL, "record a user stack (frame pointers) for every syscall", 0, NULL},
    {'z', "successful-only", NULL, "record only syscalls that succeeded (-e status=successful)", 0, NULL},
    {'Z', "failed-only", NULL, "record only syscalls that failed (-e status=failed)", 0, NULL},
    {0, "no-seccomp", NULL, "never stop the tracee through a seccomp-bpf filter", OPT_NO_SECCOMP, NULL},
    {0, "seccomp-bpf", NULL, "use a seccomp-bpf filter when one applies (the default)", OPT_SECCOMP, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-rec-strace",
    .synopsis = {
        "[-cfkTtyzZ] [-o FILE] [-s SIZE] [-e EXPR]... [-P PATH]... [--no-seccomp] [--] COMMAND [ARG...]",
        "[-cfkTtyzZ] [-o FILE] [-s SIZE] [-e EXPR]... [-P PATH]... -p PID[,PID...]",
    },
    .summary = "record the syscalls of a command or of running processes (strace)",
    .opts = opts,
    .stop_at_nonopt = 1,
    .operands = "cmd",
};

int main(int argc, char **argv)
{
    static pid_t pids[1024];
    size_t npids = 0;
    const char *out = NULL;
    struct filter filter;
    struct tracer_opts o = { .seccomp = 1, .cap = { .strsize = 32 }, .filter = &filter };
    char err[160];
    int c, timestamps = 0, syscall_times = 0;
    struct syscount count;

    filter_init(&filter);
    cli_init(&tool, argc, argv);
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'o': out = cli_optarg; break;
        case 'f': o.follow = 1; break;
        case 'p': npids = cli_parse_pids(cli_optarg, pids, npids, sizeof pids / sizeof pids[0]); break;
        case 'e':
            if (filter_parse_e(&filter, cli_optarg, err, sizeof err) < 0)
                cli_die(CLI_EXIT_USAGE, "-e %s: %s", cli_optarg, err);
            break;
        case 'c': o.count = &count; break;
        case 't': timestamps += timestamps < 3; break;
        case 'T': syscall_times = 1; break;
        case 'P': filter_add_path(&filter, cli_optarg); break;
        case 's': o.cap.strsize = (uint32_t)cli_parse_u64(cli_optarg, 0, 1u << 20, "string size"); break;
        case 'y': o.cap.decode_fds = 1; break;
        case 'k': o.stacks = 1; break;
        case 'z': filter.status = ST_SUCCESSFUL; break;
        case 'Z': filter.status = ST_FAILED; break;
        case OPT_NO_SECCOMP: o.seccomp = 0; break;
        case OPT_SECCOMP: o.seccomp = 1; break;
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

    const char *shown;
    cli_ignore_sigpipe(); /* a closed pipe is a write error (the command gets SIGPIPE back) */
    int fd;
    pid_t viewer = -1;
    if (o.count && !out && isatty(STDOUT_FILENO)) {
        /* strace -c on a terminal: the table is what the user wants, not a trace */
        fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        shown = "/dev/null";
        if (fd < 0)
            cli_die(CLI_EXIT_FAIL, "/dev/null: %s", strerror(errno));
    } else if (!out && isatty(STDOUT_FILENO)) {
        char *vargs[] = {o.cap.decode_fds ? "-y" : NULL, NULL};
        fd = cli_start_viewer(vargs, &viewer);
        shown = "tr-cat";
    } else {
        fd = cli_open_trace_output(out, NULL, &shown);
    }
    if (fd == STDOUT_FILENO) {
        /* the trace keeps stdout; the command's own output goes to stderr */
        fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
        if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            cli_die(CLI_EXIT_FAIL, "stdout: %s", strerror(errno));
    }
    tr_writer *w;
    tr_writer_options wo = {.stack_runs = 2}; /* -k stacks: new chains in one record each */
    int rc = tr_writer_open(&w, fd, &wo);
    if (rc < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", shown, tr_strerror(rc));
    tr_writer_meta_defaults(w, "tr-rec-strace", argc, argv);
    tr_writer_meta(w, META_VIEW, VIEW_SYSCALLS);
    snprintf(err, sizeof err, "%u", o.cap.strsize);
    tr_writer_meta(w, META_STRACE_STRSIZE, err);
    tr_writer_meta(w, META_STRACE_FOLLOW, o.follow ? "1" : "0");
    if (timestamps) {
        snprintf(err, sizeof err, "%d", timestamps);
        tr_writer_meta(w, META_STRACE_TIMESTAMPS, err);
    }
    if (syscall_times)
        tr_writer_meta(w, META_STRACE_SYSCALL_TIMES, "1");
    syscount_init(&count);

    struct tracer_result res;
    int trc = npids ? tracer_attach(w, &o, pids, npids, &res)
                    : tracer_run_command(w, &o, cmd, &res);
    int frc = tr_writer_finish(w, 0);
    tr_writer_stats st;
    tr_writer_get_stats(w, &st);
    tr_writer_free(w);
    if (fd != STDOUT_FILENO)
        close(fd);
    if (viewer > 0) /* its last lines before the summary and the shell's prompt */
        while (waitpid(viewer, NULL, 0) < 0 && errno == EINTR)
            ;
    filter_free(&filter);
    if (o.count) {
        struct syscalls_buf b = {0};
        syscount_sort(&count, NULL);
        syscount_format(&count, &b);
        if (b.p)
            fputs(b.p, stderr);
        syscalls_buf_free(&b);
        syscount_free(&count);
    }
    if (frc < 0)
        cli_warn("%s: %s", shown, tr_strerror(frc));
    if (trc == 0 || res.syscalls)
        fprintf(stderr, "%s: %llu syscalls, %llu processes, %llu bytes\n", cli_name(),
                (unsigned long long)res.syscalls, (unsigned long long)res.processes,
                (unsigned long long)st.compressed_bytes);

    int status = CLI_EXIT_OK;
    if (res.status >= 0)
        status = cli_command_status(res.status);
    if (trc < 0 || frc < 0)
        status = CLI_EXIT_FAIL;
    cli_exit(cli_finish_stdout(status));
}
