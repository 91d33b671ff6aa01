/* instance.c - tracefs mount, our private instance, its removal on every exit path. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "ftrace.h"
#include "cli.h"

#define MAX_TRACKED 1024

static struct tracefs_instance *inst;
static char inst_dir[512];
static int tracked[MAX_TRACKED];
static size_t ntracked;
static int atexit_done;

const char *ft_tracing_dir(const char **why)
{
    /* tracefs_tracing_dir() mounts tracefs when it is not mounted (and keeps the path) */
    const char *dir = tracefs_tracing_dir();
    if (!dir) {
        *why = "tracefs is not mounted and mounting it at /sys/kernel/tracing failed";
        return NULL;
    }
    if (access(dir, R_OK) != 0) {
        *why = strerror(errno);
        return NULL;
    }
    return dir;
}

void ft_instance_name(char *buf, size_t len, pid_t pid, uint64_t nonce)
{
    snprintf(buf, len, "%s%ld-%016llx", FT_INSTANCE_PREFIX, (long)pid, (unsigned long long)nonce);
}

/* An older recorder's "tr-rec-ftrace-PID" holds no file open while it sets up: live while PID
 * is a running tr-rec-ftrace. */
static int old_name_live(const char *rest)
{
    char *end, comm[32];
    long pid = strtol(rest, &end, 10);
    if (*end || end == rest || pid <= 0 || pid > 0x3fffffff || (pid_t)pid == getpid())
        return 0;
    return (kill((pid_t)pid, 0) == 0 || errno != ESRCH) &&
           cli_read_comm((pid_t)pid, (pid_t)pid, comm, sizeof comm) == 0 && !strcmp(comm, "tr-rec-ftrace");
}

static int stale_cb(const char *name, void *ctx)
{
    int *removed = ctx;
    char path[1024];
    size_t n = strlen(FT_INSTANCE_PREFIX);
    if (strncmp(name, FT_INSTANCE_PREFIX, n) != 0 || old_name_live(name + n))
        return 0;
    /* in use (a live recorder holds one of its files): EBUSY, and nothing changed */
    snprintf(path, sizeof path, "%s/instances/%s", tracefs_tracing_dir(), name);
    if (rmdir(path) == 0)
        (*removed)++;
    return 0;
}

int ft_remove_stale_instances(void)
{
    int removed = 0;
    tracefs_instances_walk(stale_cb, &removed);
    return removed;
}

void ft_instance_track_fd(int fd)
{
    if (fd >= 0 && ntracked < MAX_TRACKED)
        tracked[ntracked++] = fd;
}

void ft_instance_close_in_child(void)
{
    for (size_t i = 0; i < ntracked; i++)
        close(tracked[i]);
    ntracked = 0;
}

void ft_instance_untrack_fd(int fd)
{
    for (size_t i = 0; i < ntracked; i++)
        if (tracked[i] == fd) {
            tracked[i] = tracked[--ntracked];
            return;
        }
}

void ft_instance_remove(void)
{
    if (!inst)
        return;
    for (size_t i = 0; i < ntracked; i++)
        close(tracked[i]);
    ntracked = 0;
    /* stop it; the removal below would stop it anyway, but a tracer still set
     * can make the kernel refuse the removal while it is busy */
    static const char *const stop[][2] = {{"tracing_on", "0"}, {"current_tracer", "nop"}};
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", inst_dir, stop[i][0]);
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd >= 0) {
            if (write(fd, stop[i][1], strlen(stop[i][1])) < 0) { /* best effort */ }
            close(fd);
        }
    }
    /* The kernel refuses while a reader still holds a file: retry briefly. */
    for (int i = 0; i < 50; i++) {
        if (tracefs_instance_destroy(inst) == 0 || errno != EBUSY)
            break;
        usleep(10000);
    }
    tracefs_instance_free(inst);
    inst = NULL;
}

static void remove_at_exit(void) { ft_instance_remove(); }

static pid_t kernel_pid;

pid_t ft_kernel_pid(void) { return kernel_pid ? kernel_pid : getpid(); }

static uint64_t nonce(void)
{
    uint64_t n = 0;
    if (getrandom(&n, sizeof n, GRND_NONBLOCK) != (ssize_t)sizeof n) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        n = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid();
    }
    return n;
}

/* Our pid in the lines of the instance's trace file: "<comm>-<pid> [<cpu>] ... mark". */
static pid_t find_marked_pid(const char *trace, const char *mark)
{
    const char *m = strstr(trace, mark);
    if (!m)
        return 0;
    const char *line = m;
    while (line > trace && line[-1] != '\n')
        line--;
    for (const char *p = line; p < m; p++) {
        int pid, cpu;
        if (*p == '-' && sscanf(p, "-%d [%d]", &pid, &cpu) == 2 && pid > 0)
            return (pid_t)pid;
    }
    return 0;
}

/* The instance is new: no event is on, so the marker is all its buffer gets. */
static pid_t probe_kernel_pid(void)
{
    char mark[64], path[1024];
    snprintf(mark, sizeof mark, "tr-rec-ftrace pid probe %016llx", (unsigned long long)nonce());
    pid_t pid = 0;
    if (ft_instance_write("tracing_on", "1") == 0 && ft_instance_write("trace_marker", mark) == 0 &&
        ft_instance_write("tracing_on", "0") == 0) {
        char *trace = cli_read_file(ft_instance_path(path, sizeof path, "trace"), NULL);
        if (trace)
            pid = find_marked_pid(trace, mark);
        free(trace);
    }
    ft_instance_write("tracing_on", "0");
    ft_instance_write("trace", ""); /* empty the buffer again */
    return pid;
}

pid_t ft_instance_other_pid(pid_t pid)
{
    char path[1024];
    char *list = cli_read_file(ft_instance_path(path, sizeof path, "set_event_pid"), NULL);
    pid_t other = 0;
    for (char *p = list, *end; p && *p && !other; p = end) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v > 0 && v != pid)
            other = (pid_t)v;
    }
    free(list);
    return other;
}

int ft_instance_create(char *err, size_t errlen)
{
    char name[64];
    ft_instance_name(name, sizeof name, getpid(), nonce());
    errno = 0;
    inst = tracefs_instance_create(name);
    if (!inst || !tracefs_instance_is_new(inst)) {
        int e = errno ? errno : EEXIST;
        snprintf(err, errlen, "cannot create tracing instance %s: %s", name, strerror(e));
        if (inst)
            tracefs_instance_free(inst);
        inst = NULL;
        return -1;
    }
    if (!atexit_done) {
        atexit(remove_at_exit);
        atexit_done = 1;
    }
    char *dir = tracefs_instance_get_dir(inst);
    snprintf(inst_dir, sizeof inst_dir, "%s", dir ? dir : "");
    tracefs_put_tracing_file(dir);
    /* held until the removal: the kernel then refuses another run's stale removal (EBUSY) */
    char path[1024];
    ft_instance_track_fd(open(ft_instance_path(path, sizeof path, "tracing_on"), O_RDONLY | O_CLOEXEC));
    int rc;
    if ((rc = ft_instance_write("tracing_on", "0")) < 0 ||
        (rc = ft_instance_write("trace_clock", "mono")) < 0) {
        snprintf(err, errlen, "cannot set up tracing instance %s: %s", name, strerror(-rc));
        return -1;
    }
    kernel_pid = probe_kernel_pid();
    return 0;
}

const char *ft_instance_path(char *buf, size_t len, const char *file)
{
    snprintf(buf, len, "%s/%s", inst_dir, file);
    return buf;
}

int ft_instance_write(const char *file, const char *str)
{
    char path[1024];
    ft_instance_path(path, sizeof path, file);
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = strlen(str);
    ssize_t n = write(fd, str, len);
    int e = errno;
    close(fd);
    if (n < 0)
        return -e;
    if ((size_t)n != len)
        return -EIO;
    return 0;
}

char *ft_instance_error_log(void)
{
    char path[1024];
    ft_instance_path(path, sizeof path, "error_log");
    char *log = cli_read_file(path, NULL);
    if (!log || !*log) {
        free(log);
        return NULL;
    }
    return log;
}
