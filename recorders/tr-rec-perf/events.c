/* events.c - perf event names to perf_event_attr. */
#include "events.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pfm.h"
#include "tr.h"
#include "cli.h"
#include "tracing.h"

struct named { const char *name; uint64_t config; };

static const struct named hw_events[] = {
    {"cycles", PERF_COUNT_HW_CPU_CYCLES},
    {"cpu-cycles", PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES},
    {NULL, 0}};

static const struct named sw_events[] = {
    {"cpu-clock", PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cs", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
    {"migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
    {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
    {"dummy", PERF_COUNT_SW_DUMMY},
    {NULL, 0}};

static const struct named cache_ids[] = {
    {"L1-dcache", PERF_COUNT_HW_CACHE_L1D}, {"L1-icache", PERF_COUNT_HW_CACHE_L1I},
    {"LLC", PERF_COUNT_HW_CACHE_LL},        {"dTLB", PERF_COUNT_HW_CACHE_DTLB},
    {"iTLB", PERF_COUNT_HW_CACHE_ITLB},     {"branch", PERF_COUNT_HW_CACHE_BPU},
    {"node", PERF_COUNT_HW_CACHE_NODE},     {NULL, 0}};
static const struct named cache_ops[] = {
    {"load", PERF_COUNT_HW_CACHE_OP_READ}, {"loads", PERF_COUNT_HW_CACHE_OP_READ},
    {"store", PERF_COUNT_HW_CACHE_OP_WRITE}, {"stores", PERF_COUNT_HW_CACHE_OP_WRITE},
    {"prefetch", PERF_COUNT_HW_CACHE_OP_PREFETCH}, {"prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH},
    {NULL, 0}};
static const struct named cache_results[] = {
    {"misses", PERF_COUNT_HW_CACHE_RESULT_MISS}, {"miss", PERF_COUNT_HW_CACHE_RESULT_MISS},
    {"", PERF_COUNT_HW_CACHE_RESULT_ACCESS}, {"accesses", PERF_COUNT_HW_CACHE_RESULT_ACCESS},
    {NULL, 0}};

static const struct named *lookup(const struct named *t, const char *name, size_t len)
{
    for (; t->name; t++)
        if (strlen(t->name) == len && !strncmp(t->name, name, len))
            return t;
    return NULL;
}

int perf_event_open_fd(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
                       unsigned long flags)
{
    return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int perf_paranoid(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    int p = 0;
    if (f) {
        if (fscanf(f, "%d", &p) != 1)
            p = 0;
        fclose(f);
    }
    return p;
}

/* Can this process open ev for itself, counting kernel mode too or not? */
static int opens(const struct perf_ev *ev, int exclude_kernel)
{
    struct perf_event_attr a = {.size = sizeof a, .type = ev->type, .config = ev->config,
                                .disabled = 1, .exclude_kernel = (unsigned)exclude_kernel,
                                .exclude_hv = 1};
    int fd = perf_event_open_fd(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -errno;
    close(fd);
    return 0;
}

int perf_evs_user_only(struct perf_ev *evs, int n, int quiet)
{
    char names[256] = "";
    size_t len = 0;
    int changed = 0;
    for (int i = 0; i < n; i++) {
        struct perf_ev *ev = &evs[i];
        if (ev->type == PERF_TYPE_TRACEPOINT || ev->exclude_kernel || ev->exclude_user)
            continue;
        int rc = opens(ev, 0);
        if (rc != -EACCES && rc != -EPERM)
            continue;
        rc = opens(ev, 1); /* the event's own state (not supported...) is reported later */
        if (rc == -EACCES || rc == -EPERM)
            continue;
        ev->exclude_kernel = 1;
        size_t l = strlen(ev->name);
        const char *sep = strchr(ev->name, ':') ? "" : ":"; /* cycles:p -> cycles:pu */
        snprintf(ev->name + l, sizeof ev->name - l, "%su", sep);
        if (len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", changed ? ", " : "",
                                    ev->name);
        changed++;
    }
    if (changed && !quiet)
        cli_warn("note: perf_event_paranoid is %d: kernel mode is not permitted, user mode only "
                 "(%s), as perf falls back", perf_paranoid(), names);
    return changed;
}

/* The real uid of a process, or -1. */
static long process_uid(pid_t pid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    long uid = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Uid:", 4)) {
            uid = strtol(line + 4, NULL, 10);
            break;
        }
    fclose(f);
    return uid;
}

const char *perf_permission_error(const struct perf_ev *ev, pid_t pid, char *buf, size_t len)
{
    long uid = pid > 0 ? process_uid(pid) : -1;
    if (uid >= 0 && (uid_t)uid != getuid() && (ev->exclude_kernel || opens(ev, 0) == 0))
        snprintf(buf, len, "%d: permission denied: the ptrace access mode check refuses another "
                 "user's process (uid %ld; it needs root, CAP_SYS_PTRACE or CAP_PERFMON)",
                 (int)pid, uid);
    else if (pid == -1 && perf_paranoid() > 0)
        snprintf(buf, len, "%s: permission denied: every CPU (-a) needs perf_event_paranoid 0 or "
                 "less, root or CAP_PERFMON (perf_event_paranoid is %d)", ev->name, perf_paranoid());
    else
        snprintf(buf, len, "%s: permission denied (perf_event_paranoid is %d)", ev->name,
                 perf_paranoid());
    return buf;
}

char *perf_tracepoint_format(const char *sysname, size_t *len)
{
    const char *fs = tracing_dir(), *colon = strchr(sysname, ':');
    if (!fs || !colon)
        return NULL;
    char sys[256];
    snprintf(sys, sizeof sys, "%.*s", (int)(colon - sysname), sysname);
    return tracing_event_format(fs, sys, colon + 1, len);
}

static int tracepoint_id(const char *sys, size_t sys_len, const char *name, uint64_t *id,
                         char *why, size_t why_len)
{
    const char *fs = tracing_dir();
    if (!fs) {
        snprintf(why, why_len, "tracefs is not mounted and cannot be mounted");
        return -1;
    }
    char system[256], path[512];
    snprintf(system, sizeof system, "%.*s", (int)sys_len, sys);
    if (tracing_event_id(fs, system, name, id) < 0) {
        snprintf(why, why_len, "unknown tracepoint (no %s)",
                 tracing_event_path(path, sizeof path, fs, system, name, "id"));
        return -1;
    }
    return 0;
}

/* A PMU event by libpfm4's name: a raw event */
static int parse_pfm(const char *spec, struct perf_ev *ev, char *why, size_t why_len)
{
    if (perf_pfm_encode(spec, &ev->type, &ev->config, why, why_len))
        return -1;
    ev->tr_kind = TR_EV_RAW;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tracepoints "sys:name" of tracefs that match glob (NULL: all), sorted,
 * malloc'd (free each and the array); *n their count.  NULL when tracefs is
 * not there (or out of memory). */
static char **tracepoints(const char *glob, size_t *n)
{
    const char *fs = tracing_dir();
    char path[512];
    *n = 0;
    if (!fs)
        return NULL;
    snprintf(path, sizeof path, "%s/events", fs);
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    char **v = NULL;
    size_t cap = 0;
    struct dirent *sys;
    while ((sys = readdir(d))) {
        if (sys->d_name[0] == '.' || sys->d_type != DT_DIR)
            continue;
        snprintf(path, sizeof path, "%s/events/%s", fs, sys->d_name);
        DIR *e = opendir(path);
        struct dirent *ev;
        while (e && (ev = readdir(e))) {
            if (ev->d_name[0] == '.' || ev->d_type != DT_DIR)
                continue;
            char name[2 * 256 + 2];
            snprintf(name, sizeof name, "%s:%s", sys->d_name, ev->d_name);
            if (glob && fnmatch(glob, name, 0))
                continue;
            if (*n == cap) {
                cap = cap ? 2 * cap : 256;
                char **nv = realloc(v, cap * sizeof *v);
                if (!nv)
                    break;
                v = nv;
            }
            if ((v[*n] = strdup(name)))
                (*n)++;
        }
        if (e)
            closedir(e);
    }
    closedir(d);
    if (v)
        qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void list_line(const char *glob, const char *name, const char *kind)
{
    if (!glob || !fnmatch(glob, name, 0))
        printf("  %-50s [%s]\n", name, kind);
}

int perf_list(const char *glob)
{
    printf("\nList of pre-defined events (to be used in -e):\n\n");
    for (const struct named *n = hw_events; n->name; n++)
        list_line(glob, n->name, "Hardware event");
    for (const struct named *n = sw_events; n->name; n++)
        list_line(glob, n->name, "Software event");
    for (const struct named *c = cache_ids; c->name; c++)
        for (const struct named *op = cache_ops; op->name; op++) {
            if (op->name[strlen(op->name) - 1] != 's') /* "loads", not "load" */
                continue;
            char name[64];
            snprintf(name, sizeof name, "%s-%s", c->name, op->name);
            list_line(glob, name, "Hardware cache event");
            snprintf(name, sizeof name, "%s-%.*s-misses", c->name, (int)strlen(op->name) - 1, op->name);
            list_line(glob, name, "Hardware cache event");
        }
    size_t n;
    char **tp = tracepoints(glob, &n);
    for (size_t i = 0; i < n; i++)
        printf("  %-50s [Tracepoint event]\n", tp[i]);
    free_names(tp, n);
    perf_pfm_list(glob, list_line);
    return ferror(stdout) ? 1 : 0;
}

static int parse_cache(const char *s, size_t len, uint64_t *config)
{
    /* CACHE-OP[-RESULT]: L1-dcache-load-misses, LLC-loads, branch-load-misses */
    for (const struct named *c = cache_ids; c->name; c++) {
        size_t cl = strlen(c->name);
        if (len <= cl + 1 || strncmp(s, c->name, cl) || s[cl] != '-')
            continue;
        const char *rest = s + cl + 1;
        size_t rl = len - cl - 1;
        const char *dash = memchr(rest, '-', rl);
        size_t ol = dash ? (size_t)(dash - rest) : rl;
        const struct named *op = lookup(cache_ops, rest, ol);
        const struct named *res = dash ? lookup(cache_results, dash + 1, rl - ol - 1)
                                       : lookup(cache_results, "", 0);
        if (!op || !res)
            return -1;
        *config = c->config | (op->config << 8) | (res->config << 16);
        return 0;
    }
    return -1;
}

int perf_ev_parse(const char *spec, struct perf_ev *ev, char *why, size_t why_len)
{
    memset(ev, 0, sizeof *ev);
    size_t len = strlen(spec);
    if (!len || len >= sizeof ev->name) {
        snprintf(why, why_len, "empty or too long event name");
        return -1;
    }
    /* modifiers: a trailing ":u", ":k", ":uk" (not for tracepoints, which have one colon) */
    const char *colon = strrchr(spec, ':');
    if (colon && colon[1] && strspn(colon + 1, "ukp") == strlen(colon + 1) &&
        memchr(spec, ':', (size_t)(colon - spec)) == NULL) {
        const char *m = colon + 1;
        int u = strchr(m, 'u') != NULL, k = strchr(m, 'k') != NULL, p = 0;
        for (; *m; m++)
            p += *m == 'p';
        struct perf_ev base;
        char base_name[128];
        snprintf(base_name, sizeof base_name, "%.*s", (int)(colon - spec), spec);
        if (p <= 3 && perf_ev_parse(base_name, &base, why, why_len) == 0 &&
            base.tr_kind != TR_EV_TRACEPOINT) {
            *ev = base;
            if (u || k) {
                ev->exclude_user = !u;
                ev->exclude_kernel = !k;
            }
            ev->precise = p;
            snprintf(ev->name, sizeof ev->name, "%s", spec);
            return 0;
        }
    }
    snprintf(ev->name, sizeof ev->name, "%s", spec);
    const struct named *n;
    if ((n = lookup(hw_events, spec, len))) {
        ev->type = PERF_TYPE_HARDWARE;
        ev->config = n->config;
        ev->tr_kind = TR_EV_HARDWARE;
        return 0;
    }
    if ((n = lookup(sw_events, spec, len))) {
        ev->type = PERF_TYPE_SOFTWARE;
        ev->config = n->config;
        ev->tr_kind = TR_EV_SOFTWARE;
        return 0;
    }
    if (spec[0] == 'r' && len > 1 && strspn(spec + 1, "0123456789abcdefABCDEF") == len - 1) {
        ev->type = PERF_TYPE_RAW;
        ev->config = strtoull(spec + 1, NULL, 16);
        ev->tr_kind = TR_EV_RAW;
        return 0;
    }
    if (parse_cache(spec, len, &ev->config) == 0) {
        ev->type = PERF_TYPE_HW_CACHE;
        ev->tr_kind = TR_EV_HW_CACHE;
        return 0;
    }
    if (colon && colon != spec && colon[1] && !strchr(colon + 1, '/') &&
        memchr(spec, '/', (size_t)(colon - spec)) == NULL) {
        if (tracepoint_id(spec, (size_t)(colon - spec), colon + 1, &ev->tp_id, why, why_len))
            return strstr(spec, "::") || strpbrk(spec, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") /* a PMU's name */
                       ? parse_pfm(spec, ev, why, why_len) : -1;
        ev->type = PERF_TYPE_TRACEPOINT;
        ev->config = ev->tp_id;
        ev->tr_kind = TR_EV_TRACEPOINT;
        return 0;
    }
    return parse_pfm(spec, ev, why, why_len);
}

int perf_ev_parse_list(const char *list, struct perf_ev *evs, size_t max, char *why, size_t why_len)
{
    size_t n = 0;
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char one[128];
        if (len == 0 || len >= sizeof one) {
            snprintf(why, why_len, "empty or too long event name in '%s'", list);
            return -1;
        }
        memcpy(one, p, len);
        one[len] = 0;
        char **tp = NULL; /* a tracepoint glob: every match, in name order */
        size_t m = 1;
        if (strchr(one, ':') && strpbrk(one, "*?[") && !(tp = tracepoints(one, &m), m)) {
            snprintf(why, why_len, "'%s': no tracepoint matches", one);
            free(tp);
            return -1;
        }
        int rc = 0;
        for (size_t i = 0; i < m && !rc; i++) {
            const char *name = tp ? tp[i] : one;
            char sub[160];
            if (n == max) {
                snprintf(why, why_len, "more than %zu events", max);
                rc = -1;
            } else if (perf_ev_parse(name, &evs[n], sub, sizeof sub)) {
                snprintf(why, why_len, "'%s': %s", name, sub);
                rc = -1;
            } else {
                n++;
            }
        }
        free_names(tp, tp ? m : 0);
        if (rc)
            return -1;
        p += len;
        if (*p == ',')
            p++;
    }
    return (int)n;
}
