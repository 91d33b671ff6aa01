/* target.c - the traced command: forked, held before exec until tracing is on. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array.h"
#include "ftrace.h"

int ft_target_spawn(struct ft_target *t, char *const argv[], int stdout_to_stderr)
{
    int go[2], err[2];
    if (pipe2(go, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(err, O_CLOEXEC) < 0) {
        close(go[0]);
        close(go[1]);
        return -1;
    }
    fflush(NULL);
    /* signals wait until the child has its own dispositions */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid != 0)
        sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        int e = errno;
        close(go[0]);
        close(go[1]);
        close(err[0]);
        close(err[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(go[1]);
        close(err[0]);
        ft_instance_close_in_child(); /* the instance is not in use by a child waiting to exec */
        if (stdout_to_stderr) /* the trace's pipe is not the command's to write or hold */
            dup2(STDERR_FILENO, STDOUT_FILENO);
        /* the recorder's signal dispositions are not the command's */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        char c;
        ssize_t r;
        do
            r = read(go[0], &c, 1);
        while (r < 0 && errno == EINTR);
        if (r != 1) /* the recorder gave up before starting us */
            _exit(127);
        execvp(argv[0], argv);
        int e = errno;
        if (write(err[1], &e, sizeof e) < 0) { /* nothing left to tell */ }
        _exit(127);
    }
    close(go[0]);
    close(err[1]);
    t->pid = pid;
    t->spawned = 1;
    t->go_fd = go[1];
    t->err_fd = err[0];
    t->started = 0;
    t->exited = 0;
    t->status = 0;
    return 0;
}

int ft_target_go(struct ft_target *t)
{
    if (write(t->go_fd, "g", 1) != 1) {
        close(t->go_fd);
        t->go_fd = -1;
        return -1;
    }
    close(t->go_fd);
    t->go_fd = -1;
    int e = 0;
    ssize_t r;
    do
        r = read(t->err_fd, &e, sizeof e);
    while (r < 0 && errno == EINTR);
    close(t->err_fd);
    t->err_fd = -1;
    t->started = 1;
    if (r == (ssize_t)sizeof e) {
        errno = e;
        return -1;
    }
    return 0;
}

int ft_target_done(struct ft_target *t)
{
    if (t->exited)
        return 1;
    if (t->pid <= 0)
        return 0;
    if (t->spawned) {
        int st;
        pid_t r = waitpid(t->pid, &st, WNOHANG);
        if (r == t->pid) {
            t->exited = 1;
            t->status = st;
        } else if (r < 0 && errno == ECHILD) {
            t->exited = 1;
        }
        return t->exited;
    }
    if (kill(t->pid, 0) < 0 && errno == ESRCH)
        t->exited = 1;
    else {
        /* a zombie is gone for tracing purposes */
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", t->pid);
        FILE *f = fopen(path, "re");
        if (!f)
            t->exited = 1;
        else {
            if (fgets(buf, sizeof buf, f)) {
                char *p = strrchr(buf, ')');
                if (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
                    t->exited = 1;
            }
            fclose(f);
        }
    }
    return t->exited;
}

char *ft_pid_threads(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    size_t cap = 0, n = 0;
    char *out = NULL;
    struct dirent *de;
    if (array_reserve(&out, &cap, 1, 1, 256) < 0) {
        closedir(d);
        return NULL;
    }
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        size_t l = strlen(de->d_name);
        if (array_reserve(&out, &cap, n + l + 2, 1, 256) < 0) {
            free(out);
            out = NULL;
            break;
        }
        memcpy(out + n, de->d_name, l);
        n += l;
        out[n++] = ' ';
    }
    closedir(d);
    if (out)
        out[n] = 0;
    return out;
}
