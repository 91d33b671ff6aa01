/* target.c - the profiled command, processes and threads, CPUs. */
#include "cli.h"
#include "perf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int target_fork(struct perf_child *c, char **argv, int stdout_to_stderr, const sigset_t *unblock)
{
    int go[2], err[2];
    if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(go[1]);
        close(err[0]);
        if (stdout_to_stderr)
            dup2(STDERR_FILENO, STDOUT_FILENO);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_UNBLOCK, unblock, NULL);
        char b;
        if (read(go[0], &b, 1) != 1)
            _exit(127); /* the recorder gave up before starting us */
        execvp(argv[0], argv);
        int e = errno;
        if (write(err[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(go[0]);
    close(err[1]);
    c->pid = pid;
    c->go_fd = go[1];
    c->err_fd = err[0];
    return 0;
}

int target_go(struct perf_child *c)
{
    char b = 1;
    int e = 0;
    if (write(c->go_fd, &b, 1) != 1)
        e = errno;
    close(c->go_fd);
    c->go_fd = -1;
    ssize_t n;
    int child_errno = 0;
    do
        n = read(c->err_fd, &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(c->err_fd);
    c->err_fd = -1;
    if (n == (ssize_t)sizeof child_errno)
        return child_errno;
    return e;
}

int target_threads(pid_t pid, pid_t *tids, int max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        tids[n++] = (pid_t)atoi(e->d_name);
    }
    closedir(d);
    return n;
}

int target_cpus(int *cpus, int max)
{
    FILE *f = fopen("/sys/devices/system/cpu/online", "re");
    int n = 0;
    if (f) {
        int a, b;
        char sep;
        while (n < max && fscanf(f, "%d", &a) == 1) {
            b = a;
            if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
                if (fscanf(f, "%d", &b) != 1)
                    break;
                if (fscanf(f, "%c", &sep) != 1)
                    sep = 0;
            }
            for (int c = a; c <= b && n < max; c++)
                cpus[n++] = c;
            if (sep != ',')
                break;
        }
        fclose(f);
    }
    if (n == 0) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        for (int c = 0; c < nc && n < max; c++)
            cpus[n++] = c;
    }
    return n;
}

int target_parse_pids(const char *s, pid_t *pids, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || v <= 0 || v > 0x3fffffff || errno || (*end && *end != ',') || n == max)
            return -1;
        pids[n++] = (pid_t)v;
        s = *end ? end + 1 : end;
    }
    return n ? n : -1;
}

void target_join(char *buf, size_t len, char **argv, int argc)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < argc && n + 1 < len; i++) {
        int k = snprintf(buf + n, len - n, "%s%s", i ? " " : "", argv[i]);
        if (k < 0 || (size_t)k >= len - n)
            break;
        n += (size_t)k;
    }
}

int target_exit_code(int status) { return cli_command_status(status); }

const char *perf_target_kind(const struct perf_opts *o)
{
    if (o->system_wide)
        return "system";
    if (o->cmd_argc && !perf_cmd_is_timer(o))
        return "command";
    return o->npids ? "pid" : "tid";
}

pid_t target_tgid(pid_t tid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    FILE *f = fopen(path, "re");
    pid_t tgid = tid;
    if (!f)
        return tid;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Tgid:", 5)) {
            tgid = (pid_t)atoi(line + 5);
            break;
        }
    fclose(f);
    return tgid > 0 ? tgid : tid;
}

int target_alive(const struct perf_opts *o)
{
    int alive = 0;
    for (int i = 0; i < o->npids; i++)
        alive |= kill(o->pids[i], 0) == 0 || errno != ESRCH;
    for (int i = 0; i < o->ntids; i++) {
        char p[64];
        snprintf(p, sizeof p, "/proc/%d", (int)o->tids[i]);
        alive |= access(p, F_OK) == 0;
    }
    return alive;
}
