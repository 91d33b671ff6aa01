/* tracing.c - the tracefs directory, mounted when absent, and an event's id and format. */
#include "tracing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tr.h"

static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
static pid_t mounted_by; /* the process that mounted tracefs at dirs[0]; 0 none */

const char *tracing_dir(void)
{
    struct stat st;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char p[64];
        snprintf(p, sizeof p, "%s/events", dirs[i]);
        if (stat(p, &st) == 0)
            return dirs[i];
    }
    if (mount("tracefs", dirs[0], "tracefs", 0, NULL) < 0)
        return NULL;
    mounted_by = getpid();
    return dirs[0];
}

void tracing_release(void)
{
    if (mounted_by == getpid() && umount(dirs[0]) == 0)
        mounted_by = 0;
}

const char *tracing_event_path(char *buf, size_t len, const char *dir, const char *system,
                               const char *name, const char *file)
{
    snprintf(buf, len, "%s/events/%s/%s/%s", dir, system, name, file);
    return buf;
}

/* A tracefs file, to its end (its size is not known before) */
static char *read_event_file(const char *dir, const char *system, const char *name,
                             const char *file, size_t *len)
{
    char path[1024], *buf = NULL;
    size_t cap = 0;
    FILE *f = fopen(tracing_event_path(path, sizeof path, dir, system, name, file), "re");
    if (!f)
        return NULL;
    errno = 0;
    ssize_t n = getdelim(&buf, &cap, 0, f); /* the whole text: it holds no NUL */
    int e = errno ? errno : EIO;            /* an empty file is no event's */
    fclose(f);
    if (n <= 0) {
        free(buf);
        errno = e;
        return NULL;
    }
    if (len)
        *len = (size_t)n;
    return buf;
}

int tracing_event_id(const char *dir, const char *system, const char *name, uint64_t *id)
{
    char *s = read_event_file(dir, system, name, "id", NULL);
    if (!s)
        return TR_E_IO;
    *id = strtoull(s, NULL, 10);
    free(s);
    return 0;
}

char *tracing_event_format(const char *dir, const char *system, const char *name, size_t *len)
{
    return read_event_file(dir, system, name, "format", len);
}
