/* setup.c - what the instance records: the events (globs, filters with the kernel's errors)
 * and the function tracer (refused by some kernels even to root). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ftrace.h"

/* One line, exit 1: the atexit handler removes the instance. */
static _Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vwarn(fmt, ap);
    va_end(ap);
    exit(CLI_EXIT_FAIL);
}

void ft_select_events(struct ft_events *ev, const char *dir, const struct ft_options *o)
{
    for (size_t i = 0; i < o->nspecs; i++) {
        size_t before = ev->n, first;
        int n = ft_events_add(ev, dir, o->specs[i], 1, &first);
        if (n < 0 && errno == EINVAL)
            cli_die(CLI_EXIT_USAGE, "invalid event '%s': expected SYSTEM:EVENT", o->specs[i]);
        if (n < 0)
            cli_die(CLI_EXIT_FAIL, "%s: %s", o->specs[i], strerror(errno));
        if (n == 0)
            cli_die(CLI_EXIT_USAGE, "unknown event '%s' (tr-rec-ftrace -l lists the events)",
                    o->specs[i]);
        if (o->filters[i]) {
            /* the filter goes to every event the spec names, old or new */
            char sysg[256], evg[256];
            ft_split_spec(o->specs[i], sysg, sizeof sysg, evg, sizeof evg);
            for (size_t j = 0; j < ev->n; j++) {
                struct ft_event *e = &ev->v[j];
                if (j < before && !ft_event_matches(e, sysg, evg))
                    continue;
                free(e->filter);
                e->filter = strdup(o->filters[i]);
            }
        }
    }
}

/* The kernel's reason, from the filter file it rewrote: the expression,
 * a caret line, then "parse_error: REASON". */
static char *filter_error(const struct ft_event *e)
{
    char path[1024], file[600];
    snprintf(file, sizeof file, "events/%s/%s/filter", e->system, e->name);
    char *text = cli_read_file(ft_instance_path(path, sizeof path, file), NULL);
    char *msg = NULL;
    const char *p = text ? strstr(text, "parse_error: ") : NULL;
    if (p) {
        const char *reason = p + strlen("parse_error: ");
        int n = (int)strcspn(reason, "\n");
        const char *nl = strchr(text, '\n');
        const char *caret = nl ? strchr(nl + 1, '^') : NULL;
        int rc;
        if (caret && caret < p)
            rc = asprintf(&msg, "%.*s (at column %d)", n, reason, (int)(caret - (nl + 1)) + 1);
        else
            rc = asprintf(&msg, "%.*s", n, reason);
        if (rc < 0)
            msg = NULL;
    }
    free(text);
    return msg;
}

static void apply_filter(struct ft_event *e)
{
    char file[600];
    snprintf(file, sizeof file, "events/%s/%s/filter", e->system, e->name);
    int rc = ft_instance_write(file, e->filter);
    if (rc == 0)
        return;
    char *why = filter_error(e);
    if (!why) {
        char *log = ft_instance_error_log();
        if (log) {
            log[strcspn(log, "\n")] = 0;
            why = log;
        }
    }
    cli_warn("bad filter '%s' for %s:%s: %s", e->filter, e->system, e->name,
             why ? why : strerror(-rc));
    free(why);
    exit(CLI_EXIT_USAGE);
}

void ft_enable_event(struct ft_event *e)
{
    char file[600];
    if (e->filter)
        apply_filter(e);
    snprintf(file, sizeof file, "events/%s/%s/enable", e->system, e->name);
    int rc = ft_instance_write(file, "1");
    if (rc < 0)
        die("cannot enable %s:%s: %s", e->system, e->name, strerror(-rc));
}

static void refuse_function(const char *tracer, const char *step, int err)
{
    if (err == EPERM || err == EACCES)
        die("the kernel refuses the %s tracer (%s: %s): this kernel allows tracepoints (-e) but "
             "not function tracing, even for root",
             tracer, step, strerror(err));
    die("cannot set up the %s tracer (%s: %s)", tracer, step, strerror(err));
}

static void write_list(const char *tracer, const char *file, char **globs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        int fd = open(ft_instance_path(path, sizeof path, file), O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
            refuse_function(tracer, file, errno);
        ssize_t w = write(fd, globs[i], strlen(globs[i]));
        int e = errno;
        close(fd);
        if (w < 0) {
            if (e == EINVAL)
                die("%s: no traceable function matches '%s'", file, globs[i]);
            refuse_function(tracer, file, e);
        }
    }
}

void ft_setup_function(struct ft_events *ev, const char *dir, const struct ft_options *o, const char *pidlist)
{
    const char *tracer = o->function == 2 ? "function_graph" : "function";
    char path[1024];
    char *avail = cli_read_file(ft_instance_path(path, sizeof path, "available_tracers"), NULL);
    int have = 0;
    for (char *tok = avail ? strtok(avail, " \n") : NULL; tok; tok = strtok(NULL, " \n"))
        if (!strcmp(tok, tracer))
            have = 1;
    free(avail);
    if (!have)
        die("this kernel has no %s tracer (available_tracers does not list it)", tracer);
    write_list(tracer, "set_ftrace_filter", o->func_filters, o->nfunc_filters);
    write_list(tracer, "set_ftrace_notrace", o->func_notrace, o->nfunc_notrace);
    if (pidlist) {
        int rc = ft_instance_write("set_ftrace_pid", pidlist);
        if (rc < 0)
            refuse_function(tracer, "set_ftrace_pid", -rc);
        ft_instance_write("options/function-fork", "1");
    } else {
        /* system-wide: not the recorder's own functions */
        char me[32];
        snprintf(me, sizeof me, "%d", (int)ft_kernel_pid());
        int rc = ft_instance_write("set_ftrace_notrace_pid", me);
        if (rc < 0 && rc != -ENOENT)
            refuse_function(tracer, "set_ftrace_notrace_pid", -rc);
    }
    int rc = ft_instance_write("current_tracer", tracer);
    if (rc < 0)
        refuse_function(tracer, "current_tracer", -rc);
    /* the tracer's own records are ftrace:* events */
    size_t first;
    ft_events_add(ev, dir, o->function == 2 ? "ftrace:funcgraph_*" : "ftrace:function", 0, &first);
}

