/*
 * probes.c - the uprobes of a run, in tracefs uprobe_events.  Every run names
 * its probes in its own group, tr_ltrace_<pid of the recorder>: e<N> the entry
 * of function N, r<N> its return.  They are removed on every way out; a run
 * killed with SIGKILL leaves its group, which the next run removes (its pid no
 * longer runs tr-rec-ltrace).  Nothing else in uprobe_events is touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ltrace.h"

#define GROUP_PREFIX "tr_ltrace_"

static const char *tracefs(void)
{
    static const char *dir;
    if (!dir)
        dir = access("/sys/kernel/tracing/uprobe_events", W_OK) == 0 ? "/sys/kernel/tracing"
                                                                   : "/sys/kernel/debug/tracing";
    return dir;
}

static int write_events(const char *line, char *err, size_t errlen)
{
    char path[256];
    snprintf(path, sizeof path, "%s/uprobe_events", tracefs());
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t n = write(fd, line, strlen(line));
    int e = errno;
    close(fd);
    if (n < 0) {
        snprintf(err, errlen, "%s: cannot write \"%.*s\": %s", path, (int)strcspn(line, "\n"), line, strerror(e));
        errno = e;
        return -1;
    }
    return 0;
}

static pid_t owner;        /* the recorder that made them (not a forked child) */
static size_t ncreated;    /* e0..e<n-1>, r0..r<n-1> exist */
static int have_entry_last; /* e<ncreated> exists without its r */

void probes_remove(void)
{
    if (getpid() != owner)
        return;
    char line[96], err[160];
    if (have_entry_last) {
        snprintf(line, sizeof line, "-:%s%d/e%zu\n", GROUP_PREFIX, (int)owner, ncreated);
        write_events(line, err, sizeof err);
        have_entry_last = 0;
    }
    while (ncreated > 0) {
        ncreated--;
        snprintf(line, sizeof line, "-:%s%d/r%zu\n", GROUP_PREFIX, (int)owner, ncreated);
        write_events(line, err, sizeof err);
        snprintf(line, sizeof line, "-:%s%d/e%zu\n", GROUP_PREFIX, (int)owner, ncreated);
        write_events(line, err, sizeof err);
    }
}

static int is_recorder(pid_t pid)
{
    char comm[64];
    return kill(pid, 0) == 0 && cli_read_comm(pid, pid, comm, sizeof comm) == 0 &&
           !strcmp(comm, "tr-rec-ltrace");
}

int probes_cleanup_stale(char *err, size_t errlen)
{
    char path[256];
    snprintf(path, sizeof path, "%s/uprobe_events", tracefs());
    size_t len;
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
        if (strncmp(l + 1, ":" GROUP_PREFIX, 1 + strlen(GROUP_PREFIX)))
            continue;
        char *g = l + 2, *sp = strchr(g, ' ');
        if (sp)
            *sp = 0;
        long pid = strtol(g + strlen(GROUP_PREFIX), NULL, 10);
        if (pid <= 0 || is_recorder((pid_t)pid))
            continue;
        char line[300];
        snprintf(line, sizeof line, "-:%s\n", g);
        if (write_events(line, err, errlen) < 0 && errno != EBUSY) { /* busy: in use, not stale */
            free(text);
            return -1;
        }
    }
    free(text);
    return 0;
}

int probes_event_id(const char *event, uint64_t *id, char *err, size_t errlen)
{
    char path[256];
    snprintf(path, sizeof path, "%s/events/%s/id", tracefs(), event);
    size_t len;
    char *s = cli_read_file(path, &len);
    if (!s) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    *id = strtoull(s, NULL, 10);
    free(s);
    return 0;
}

static int read_id(size_t i, char kind, uint64_t *id, char *err, size_t errlen)
{
    char event[64];
    snprintf(event, sizeof event, "%s%d/%c%zu", GROUP_PREFIX, (int)owner, kind, i);
    return probes_event_id(event, id, err, errlen);
}

static const char *const regs[6] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};

int probes_create(struct funcs *f, size_t from, char *err, size_t errlen)
{
    if (!owner) {
        owner = getpid();
        atexit(probes_remove);
    }
    for (size_t i = from; i < f->n; i++) {
        struct func *fn = &f->v[i];
        if (strchr(fn->path, ' ') || strchr(fn->path, '\n'))
            continue; /* not expressible in uprobe_events: never registered, never seen */
        const struct libproto *p = fn->proto ? fn->proto : libproto_unknown();
        /* entry: the registers, the return address (who called), then the strings */
        char line[8192];
        int n = snprintf(line, sizeof line, "p:%s%d/e%zu %s:0x%llx", GROUP_PREFIX, (int)owner, i, fn->path,
                         (unsigned long long)fn->probe_off);
        for (unsigned a = 0; a < fn->nargs; a++)
            n += snprintf(line + n, sizeof line - (size_t)n, " a%u=%s:x64", a, regs[a]);
        n += snprintf(line + n, sizeof line - (size_t)n, " ra=+0(%%sp):x64");
        for (unsigned k = 0; fn->format && k < VA_STACK; k++)
            n += snprintf(line + n, sizeof line - (size_t)n, " w%u=+%u(%%sp):x64", k, 8 * (k + 1));
        for (unsigned a = 0; a < fn->nargs; a++)
            if (a < p->nargs && libproto_is_string(p->args[a]))
                n += snprintf(line + n, sizeof line - (size_t)n, " s%u=+0(%s):string", a, regs[a]);
        /* a printf's variadic arguments: a string from each in case its conversion is %s */
        for (unsigned a = fn->format; fn->format && a < 6; a++)
            n += snprintf(line + n, sizeof line - (size_t)n, " v%u=+0(%s):string", a, regs[a]);
        for (unsigned k = 0; fn->format && k < VA_STACK; k++)
            n += snprintf(line + n, sizeof line - (size_t)n, " vw%u=+0(+%u(%%sp)):string", k, 8 * (k + 1));
        snprintf(line + n, sizeof line - (size_t)n, "\n");
        if (write_events(line, err, errlen) < 0)
            return -1;
        have_entry_last = 1;
        if (fn->no_ret) {
            ncreated = i + 1;
            have_entry_last = 0;
            if (read_id(i, 'e', &fn->id_entry, err, errlen) < 0)
                return -1;
            continue;
        }
        snprintf(line, sizeof line, "r:%s%d/r%zu %s:0x%llx rv=$retval:x64%s\n", GROUP_PREFIX, (int)owner, i,
                 fn->path, (unsigned long long)fn->probe_off, fn->ret_string ? " rs=+0($retval):string" : "");
        if (write_events(line, err, errlen) < 0)
            return -1;
        have_entry_last = 0;
        ncreated = i + 1;
        if (read_id(i, 'e', &fn->id_entry, err, errlen) < 0 || read_id(i, 'r', &fn->id_ret, err, errlen) < 0)
            return -1;
    }
    return 0;
}
