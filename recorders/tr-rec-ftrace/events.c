/* events.c - event selection with globs, kernel ids, format texts, -l and --format. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "array.h"
#include "ftrace.h"
#include "tracing.h"

int ft_split_spec(const char *spec, char *sys, size_t syslen, char *ev, size_t evlen)
{
    const char *sep = strpbrk(spec, ":/");
    if (!*spec)
        return -1;
    if (!sep) {
        snprintf(sys, syslen, "*");
        if ((size_t)snprintf(ev, evlen, "%s", spec) >= evlen)
            return -1;
        return 0;
    }
    size_t n = (size_t)(sep - spec);
    if (n == 0 || n >= syslen || !sep[1] || strpbrk(sep + 1, ":/"))
        return -1;
    memcpy(sys, spec, n);
    sys[n] = 0;
    if ((size_t)snprintf(ev, evlen, "%s", sep + 1) >= evlen)
        return -1;
    return 0;
}

static int read_id(const char *dir, const char *sys, const char *ev)
{
    uint64_t id;
    return tracing_event_id(dir, sys, ev, &id) < 0 || id > INT_MAX ? -1 : (int)id;
}

static int can_enable(const char *dir, const char *sys, const char *ev)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/events/%s/%s/enable", dir, sys, ev);
    return access(path, F_OK) == 0;
}

static struct ft_event *find(struct ft_events *set, const char *sys, const char *ev)
{
    for (size_t i = 0; i < set->n; i++)
        if (!strcmp(set->v[i].system, sys) && !strcmp(set->v[i].name, ev))
            return &set->v[i];
    return NULL;
}

static struct ft_event *append(struct ft_events *set, const char *sys, const char *ev, int id)
{
    if (array_reserve(&set->v, &set->cap, set->n + 1, sizeof *set->v, 16) < 0)
        return NULL;
    struct ft_event *e = &set->v[set->n];
    memset(e, 0, sizeof *e);
    e->system = strdup(sys);
    e->name = strdup(ev);
    e->id = id;
    if (!e->system || !e->name) {
        free(e->system);
        free(e->name);
        return NULL;
    }
    set->n++;
    return e;
}

int ft_events_add(struct ft_events *set, const char *dir, const char *spec, int enable_only,
                  size_t *first_added)
{
    char sysg[256], evg[256];
    if (ft_split_spec(spec, sysg, sizeof sysg, evg, sizeof evg) < 0) {
        errno = EINVAL;
        return -1;
    }
    *first_added = set->n;
    char **systems = tracefs_event_systems(dir);
    if (!systems)
        return 0;
    int matched = 0;
    for (char **s = systems; *s; s++) {
        if (fnmatch(sysg, *s, 0) != 0)
            continue;
        char **events = tracefs_system_events(dir, *s);
        for (char **e = events; e && *e; e++) {
            if (fnmatch(evg, *e, 0) != 0)
                continue;
            if (enable_only && !can_enable(dir, *s, *e))
                continue;
            matched++;
            if (find(set, *s, *e))
                continue;
            int id = read_id(dir, *s, *e);
            if (id < 0)
                continue;
            if (!append(set, *s, *e, id)) {
                tracefs_list_free(events);
                tracefs_list_free(systems);
                errno = ENOMEM;
                return -1;
            }
        }
        tracefs_list_free(events);
    }
    tracefs_list_free(systems);
    return matched;
}

void ft_events_free(struct ft_events *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->v[i].system);
        free(set->v[i].name);
        free(set->v[i].filter);
    }
    free(set->v);
    memset(set, 0, sizeof *set);
}

struct ft_event *ft_events_by_id(struct ft_events *set, int id)
{
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].id == id)
            return &set->v[i];
    return NULL;
}

struct ft_event *ft_events_resolve_id(struct ft_events *set, const char *dir, int id)
{
    char **systems = tracefs_event_systems(dir);
    struct ft_event *found = NULL;
    for (char **s = systems; s && *s && !found; s++) {
        char **events = tracefs_system_events(dir, *s);
        for (char **e = events; e && *e; e++)
            if (read_id(dir, *s, *e) == id) {
                found = append(set, *s, *e, id);
                break;
            }
        tracefs_list_free(events);
    }
    tracefs_list_free(systems);
    return found;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int ft_list_events(FILE *out, const char *dir, char *const *globs, size_t n)
{
    char **systems = tracefs_event_systems(dir);
    if (!systems)
        return -1;
    size_t ns = 0;
    while (systems[ns])
        ns++;
    qsort(systems, ns, sizeof *systems, cmp_str);
    int printed = 0;
    for (size_t i = 0; i < ns; i++) {
        char **events = tracefs_system_events(dir, systems[i]);
        size_t ne = 0;
        while (events && events[ne])
            ne++;
        if (ne)
            qsort(events, ne, sizeof *events, cmp_str);
        for (size_t j = 0; j < ne; j++) {
            int want = n == 0;
            for (size_t g = 0; g < n && !want; g++) {
                char sysg[256], evg[256];
                if (ft_split_spec(globs[g], sysg, sizeof sysg, evg, sizeof evg) == 0 &&
                    fnmatch(sysg, systems[i], 0) == 0 && fnmatch(evg, events[j], 0) == 0)
                    want = 1;
            }
            if (want) {
                fprintf(out, "%s:%s\n", systems[i], events[j]);
                printed++;
            }
        }
        tracefs_list_free(events);
    }
    tracefs_list_free(systems);
    return printed;
}

int ft_print_formats(FILE *out, const char *dir, const char *spec)
{
    struct ft_events set = {0};
    size_t first;
    int n = ft_events_add(&set, dir, spec, 0, &first);
    if (n <= 0) {
        ft_events_free(&set);
        return -1;
    }
    for (size_t i = 0; i < set.n; i++) {
        char *fmt = tracing_event_format(dir, set.v[i].system, set.v[i].name, NULL);
        if (fmt) {
            fputs(fmt, out);
            if (set.n > 1 && i + 1 < set.n)
                fputc('\n', out);
        }
        free(fmt);
    }
    ft_events_free(&set);
    return 0;
}

int ft_event_matches(const struct ft_event *e, const char *sysglob, const char *evglob)
{
    return fnmatch(sysglob, e->system, 0) == 0 && fnmatch(evglob, e->name, 0) == 0;
}
