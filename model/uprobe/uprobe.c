/*
 * uprobe.c - a recorder's uprobes in tracefs uprobe_events.  Every run names its
 * probes in its own group, PREFIX<pid of the recorder>; they are removed on every way
 * out, and a run killed with SIGKILL leaves its group, which the next run removes (its
 * pid no longer runs the recorder).  Nothing else in uprobe_events is touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tracing.h"
#include "uprobe/uprobe.h"

/* tracefs (model/tracing.h); without one, its usual place, for the messages */
static const char *uprobe_tracefs(void)
{
    const char *dir = tracing_dir();
    return dir ? dir : "/sys/kernel/tracing";
}

/* The kernel's reason for the last refused definition: error_log's last "error: " line */
static void last_error(char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/error_log", uprobe_tracefs());
    char *text = cli_read_file(path, NULL), *last = NULL;
    for (char *p = text; p && (p = strstr(p, " error: ")); p += 8)
        last = p + 8;
    snprintf(buf, len, "%.*s", last ? (int)strcspn(last, "\n") : 0, last ? last : "");
    free(text);
}

static int write_events(const char *line, char *err, size_t errlen)
{
    char path[256];
    snprintf(path, sizeof path, "%s/uprobe_events", uprobe_tracefs());
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t n = write(fd, line, strlen(line));
    int e = errno;
    close(fd);
    if (n < 0) {
        char why[160] = "";
        if (line[0] != '-')
            last_error(why, sizeof why);
        snprintf(err, errlen, "%s: cannot write \"%.*s\": %s", path, (int)strcspn(line, "\n"), line,
                 why[0] ? why : strerror(e));
        errno = e;
        return -1;
    }
    return 0;
}

static int runs(pid_t pid, const char *comm)
{
    char c[64];
    return kill(pid, 0) == 0 && cli_read_comm(pid, pid, c, sizeof c) == 0 && !strcmp(c, comm);
}

int uprobe_cleanup_stale(const char *prefix, const char *comm, char *err, size_t errlen)
{
    char path[256];
    snprintf(path, sizeof path, "%s/uprobe_events", uprobe_tracefs());
    size_t len, plen = strlen(prefix);
    char *text = cli_read_file(path, &len);
    if (!text) {
        snprintf(err, errlen, "%s: %s (uprobes need tracefs and root)", path, strerror(errno));
        return -1;
    }
    for (char *l = text, *nl; *l; l = nl) {
        nl = strchr(l, '\n');
        if (nl)
            *nl++ = 0;
        else
            nl = l + strlen(l);
        /* "p:tr_ltrace_123/e0 /lib/...:0x..." */
        if (l[1] != ':' || strncmp(l + 2, prefix, plen))
            continue;
        char *g = l + 2, *sp = strchr(g, ' '), *end;
        if (sp)
            *sp = 0;
        long pid = strtol(g + plen, &end, 10);
        if (pid <= 0 || *end != '/' || runs((pid_t)pid, comm))
            continue;
        char line[300];
        snprintf(line, sizeof line, "-:%s\n", g);
        /* busy: in use, not stale; gone: another run removed it meanwhile */
        if (write_events(line, err, errlen) < 0 && errno != EBUSY && errno != ENOENT) {
            free(text);
            return -1;
        }
    }
    free(text);
    return 0;
}

void uprobe_group_init(struct uprobe_group *g, const char *prefix)
{
    memset(g, 0, sizeof *g);
    g->owner = getpid();
    snprintf(g->name, sizeof g->name, "%s%d", prefix, (int)g->owner);
}

int uprobe_add(struct uprobe_group *g, char kind, const char *event, const char *def, uint64_t *id,
               char *err, size_t errlen)
{
    char **ev = realloc(g->events, (g->n + 1) * sizeof *ev);
    if (!ev || !(ev[g->n] = strdup(event))) {
        if (ev)
            g->events = ev;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    g->events = ev;
    size_t len = strlen(def) + strlen(event) + sizeof g->name + 8;
    char *line = malloc(len);
    if (!line) {
        free(ev[g->n]);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(line, len, "%c:%s/%s %s\n", kind, g->name, event, def);
    int rc = write_events(line, err, errlen);
    free(line);
    if (rc < 0) {
        free(ev[g->n]);
        return -1;
    }
    g->n++;
    return uprobe_tracepoint_id(g->name, event, id, err, errlen);
}

int uprobe_tracepoint_id(const char *system, const char *name, uint64_t *id, char *err,
                         size_t errlen)
{
    const char *dir = uprobe_tracefs();
    char path[512];
    if (tracing_event_id(dir, system, name, id) < 0) {
        snprintf(err, errlen, "%s: %s", tracing_event_path(path, sizeof path, dir, system, name, "id"),
                 strerror(errno));
        return -1;
    }
    return 0;
}

void uprobe_group_destroy(struct uprobe_group *g)
{
    if (getpid() != g->owner)
        return;
    char line[300], err[160];
    while (g->n > 0) {
        g->n--;
        snprintf(line, sizeof line, "-:%s/%s\n", g->name, g->events[g->n]);
        write_events(line, err, sizeof err);
        free(g->events[g->n]);
    }
    free(g->events);
    g->events = NULL;
}
