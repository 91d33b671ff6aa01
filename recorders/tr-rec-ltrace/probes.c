/*
 * probes.c - the uprobes of a run, in tracefs uprobe_events (model/uprobe).
 * Every run names its probes in its own group, tr_ltrace_<pid of the
 * recorder>: e<N> the entry of function N, r<N> its return.  They are removed
 * on every way out; a run killed with SIGKILL leaves its group, which the next
 * run removes (its pid no longer runs tr-rec-ltrace).  Nothing else in
 * uprobe_events is touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ltrace.h"

static struct uprobe_group group;

void probes_remove(void)
{
    uprobe_group_destroy(&group);
}

int probes_cleanup_stale(char *err, size_t errlen)
{
    return uprobe_cleanup_stale("tr_ltrace_", "tr-rec-ltrace", err, errlen);
}

static const char *const regs[6] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};

int probes_create(struct funcs *f, size_t from, char *err, size_t errlen)
{
    if (!group.owner) {
        uprobe_group_init(&group, "tr_ltrace_");
        atexit(probes_remove);
    }
    for (size_t i = from; i < f->n; i++) {
        struct func *fn = &f->v[i];
        if (strchr(fn->path, ' ') || strchr(fn->path, '\n'))
            continue; /* not expressible in uprobe_events: never registered, never seen */
        const struct libproto *p = fn->proto ? fn->proto : libproto_unknown();
        /* entry: the registers, the return address (who called), then the strings */
        char def[8192], name[32];
        int n = snprintf(def, sizeof def, "%s:0x%llx", fn->path, (unsigned long long)fn->probe_off);
        for (unsigned a = 0; a < fn->nargs; a++)
            n += snprintf(def + n, sizeof def - (size_t)n, " a%u=%s:x64", a, regs[a]);
        n += snprintf(def + n, sizeof def - (size_t)n, " ra=+0(%%sp):x64");
        for (unsigned k = 0; fn->format && k < VA_STACK; k++)
            n += snprintf(def + n, sizeof def - (size_t)n, " w%u=+%u(%%sp):x64", k, 8 * (k + 1));
        for (unsigned a = 0; a < fn->nargs; a++)
            if (a < p->nargs && libproto_is_string(p->args[a]))
                n += snprintf(def + n, sizeof def - (size_t)n, " s%u=+0(%s):string", a, regs[a]);
        /* a printf's variadic arguments: a string from each in case its conversion is %s */
        for (unsigned a = fn->format; fn->format && a < 6; a++)
            n += snprintf(def + n, sizeof def - (size_t)n, " v%u=+0(%s):string", a, regs[a]);
        for (unsigned k = 0; fn->format && k < VA_STACK; k++)
            n += snprintf(def + n, sizeof def - (size_t)n, " vw%u=+0(+%u(%%sp)):string", k, 8 * (k + 1));
        snprintf(name, sizeof name, "e%zu", i);
        if (uprobe_add(&group, 'p', name, def, &fn->id_entry, err, errlen) < 0)
            return -1;
        if (fn->no_ret)
            continue;
        snprintf(def, sizeof def, "%s:0x%llx rv=$retval:x64%s", fn->path, (unsigned long long)fn->probe_off,
                 fn->ret_string ? " rs=+0($retval):string" : "");
        snprintf(name, sizeof name, "r%zu", i);
        if (uprobe_add(&group, 'r', name, def, &fn->id_ret, err, errlen) < 0)
            return -1;
    }
    return 0;
}
