/* instance.c - tracefs mount, our private instance, its removal on every exit path. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void ft_instance_name(char *buf, size_t len, pid_t pid)
{
    snprintf(buf, len, "%s%ld", FT_INSTANCE_PREFIX, (long)pid);
}

pid_t ft_instance_pid(const char *name)
{
    size_t n = strlen(FT_INSTANCE_PREFIX);
    if (strncmp(name, FT_INSTANCE_PREFIX, n) != 0)
        return -1;
    const char *p = name + n;
    if (!*p || *p == '0')
        return -1;
    long v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > 100000000)
            return -1;
        v = v * 10 + (*p - '0');
    }
    return (pid_t)v;
}

int ft_pid_is_live_recorder(pid_t pid)
{
    if (pid <= 0 || pid == getpid())
        return 0;
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 0;
    char comm[32];
    if (cli_read_comm(pid, pid, comm, sizeof comm) < 0)
        return 0;
    /* comm is the executable's name cut to 15 bytes */
    return strcmp(comm, "tr-rec-ftrace") == 0;
}

static int stale_cb(const char *name, void *ctx)
{
    int *removed = ctx;
    pid_t pid = ft_instance_pid(name);
    if (pid < 0 || ft_pid_is_live_recorder(pid))
        return 0;
    struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);
    if (!old)
        return 0;
    if (tracefs_instance_destroy(old) == 0)
        (*removed)++;
    tracefs_instance_free(old);
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

int ft_instance_create(char *err, size_t errlen)
{
    char name[64];
    ft_instance_name(name, sizeof name, getpid());
    if (tracefs_instance_exists(name)) {
        /* a stale one of a killed run with our pid: ours now */
        struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);
        if (old) {
            tracefs_instance_destroy(old);
            tracefs_instance_free(old);
        }
    }
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
    int rc;
    if ((rc = ft_instance_write("tracing_on", "0")) < 0 ||
        (rc = ft_instance_write("trace_clock", "mono")) < 0) {
        snprintf(err, errlen, "cannot set up tracing instance %s: %s", name, strerror(-rc));
        return -1;
    }
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
