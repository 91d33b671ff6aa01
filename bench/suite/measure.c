/*
 * measure - run a command and write its wall time, CPU time, peak RSS and
 * exit status to a file, for bench/suite/suite.py:
 *
 *     measure RESULT COMMAND [ARG...]
 *
 * RESULT gets one line: "WALL_NS CPU_US MAXRSS_KB STATUS" (STATUS as a
 * shell gives it: 128 + the signal for a killed command).  measure exits
 * with that status.
 *
 * Why not Python's own wait4: subprocess starts the command with vfork, and
 * exec folds the parent's peak RSS into the new process's, so every command
 * measured from the suite's Python showed at least the driver's peak RSS
 * (13-16 MB, growing over a run).  Here the command is forked from this
 * small process.  SIGINT, SIGTERM and SIGHUP are passed on to it (the
 * suite stops a recorder with SIGINT), and it dies with measure
 * (PR_SET_PDEATHSIG) when the suite's timeout kills this one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child;

static void pass_on(int sig)
{
    if (child > 0)
        kill(child, sig);
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: measure RESULT COMMAND [ARG...]\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        fprintf(stderr, "measure: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    struct sigaction sa = {.sa_handler = pass_on, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    pid_t parent = getpid();
    long long t0 = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "measure: fork: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127); /* measure died before the prctl */
        execvp(argv[2], argv + 2);
        fprintf(stderr, "measure: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    child = pid;
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "measure: wait4: %s\n", strerror(errno));
            return 2;
        }
    long long wall = now_ns() - t0;
    int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    long long cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
    if (fprintf(out, "%lld %lld %ld %d\n", wall, cpu, ru.ru_maxrss, status) < 0 || fclose(out) != 0) {
        fprintf(stderr, "measure: %s: write failed\n", argv[1]);
        return 2;
    }
    return status;
}
