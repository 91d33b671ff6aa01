/* render.c - tr-triage's report from the analysis (triage.c): the findings
 * and the USE checklist worked out once, then written as text, JSON or one
 * self-contained HTML page with the flame graphs of model/flame embedded. */
#include "triage_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flame.h"
#include "json.h"
#include "syscalls_decode.h"

#define TOP 10
#define MAX_FINDINGS 12

struct row { const char *key; size_t len; uint64_t n; };
struct finding { char text[256]; char anchor[64]; };
struct use_row { const char *resource; char u[128], s[128], e[128]; };

struct view {
    uint64_t wall_ns;                 /* the target's run time */
    double wall;                      /* seconds */
    struct row cpu[TOP], off[TOP];    /* functions on CPU (self samples), blames off CPU (ns) */
    size_t ncpu, noff;
    size_t *sys;                      /* syscall rows by total time */
    uint64_t sys_calls, sys_errors;
    struct finding f[MAX_FINDINGS];
    size_t nf;
    struct use_row use[4];
    struct smap leaf;                 /* functions on CPU, self samples */
};

/* "1,234,567" */
static const char *commas(uint64_t v, char *buf)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = tmp[i];
    }
    buf[o] = 0;
    return buf;
}

/* A duration in ns as "12.3 ms", "4.56 s", "789 us". */
static const char *dur(uint64_t ns, char *buf)
{
    if (ns >= 1000000000)
        sprintf(buf, "%.2f s", (double)ns / 1e9);
    else if (ns >= 1000000)
        sprintf(buf, "%.1f ms", (double)ns / 1e6);
    else
        sprintf(buf, "%.0f us", (double)ns / 1e3);
    return buf;
}

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    size_t l = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->key, y->key, l);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The largest entries of m, up to TOP. */
static size_t top_rows(const struct smap *m, struct row *out)
{
    struct row *all = malloc((m->n + 1) * sizeof *all);
    if (!all)
        return 0;
    for (size_t i = 0; i < m->n; i++)
        all[i] = (struct row){smap_key(m, &m->e[i]), m->e[i].len, m->e[i].n};
    qsort(all, m->n, sizeof *all, cmp_row);
    size_t n = m->n < TOP ? m->n : TOP;
    memcpy(out, all, n * sizeof *out);
    free(all);
    return n;
}

static const struct triage *sort_t;
static int cmp_sys(const void *a, const void *b)
{
    const struct tsys *x = &sort_t->sys[*(const size_t *)a], *y = &sort_t->sys[*(const size_t *)b];
    if (x->ns != y->ns)
        return x->ns < y->ns ? 1 : -1;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return strcmp(x->name, y->name);
}

static double counter(const struct triage *t, const char *name)
{
    for (int i = 0; i < t->cnt.nc; i++)
        if (!strcmp(t->cnt.c[i].name, name) && t->cnt.c[i].n)
            return counters_mean(&t->cnt.c[i]);
    return -1;
}

static const char *errname(int e)
{
    const char *n = syscalls_errno_name(e);
    return n ? n : "E?";
}

/* The index of y's most frequent errno. */
static int top_errno(const struct tsys *y)
{
    int top = 0;
    for (int k = 1; k < TRIAGE_NERRNO; k++)
        if (y->errn[k] > y->errn[top])
            top = k;
    return top;
}

static void add_finding(struct view *v, const char *anchor, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_finding(struct view *v, const char *anchor, const char *fmt, ...)
{
    if (v->nf == MAX_FINDINGS)
        return;
    struct finding *f = &v->f[v->nf++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
    snprintf(f->anchor, sizeof f->anchor, "%s", anchor);
}

/* The syscall and function of a blame "SYSCALL\tFUNCTION". */
static void split_blame(const struct row *r, const char **sys, int *sl, const char **fn, int *fl)
{
    const char *tab = memchr(r->key, '\t', r->len);
    *sys = r->key;
    *sl = tab ? (int)(tab - r->key) : (int)r->len;
    *fn = tab ? tab + 1 : "";
    *fl = tab ? (int)(r->len - (size_t)(tab + 1 - r->key)) : 0;
}

static void use_checklist(const struct triage *t, struct view *v)
{
    char a[32], b[32];
    double clock = counter(t, "task-clock"), util = v->wall_ns && clock >= 0 ? clock / (double)v->wall_ns : -1;
    int ncpus = t->ncpus > 0 ? t->ncpus : 1;
    struct use_row *u = v->use;
    u[0].resource = "CPU";
    if (util >= 0)
        snprintf(u[0].u, sizeof u[0].u, "%.2f CPUs busy of %d (%.0f %%)", util, ncpus, 100 * util / ncpus);
    else if (v->wall > 0 && t->cpu_ns)
        snprintf(u[0].u, sizeof u[0].u, "%.2f CPUs busy of %d (from samples)", (double)t->cpu_ns / 1e9 / v->wall, ncpus);
    else
        snprintf(u[0].u, sizeof u[0].u, "not measured");
    if (t->runq.n)
        snprintf(u[0].s, sizeof u[0].s, "run-queue latency p99 %s, max %s (%s waits)",
                 dur(lathist_quantile(&t->runq, 0.99), a), dur(t->runq.max, b), commas(t->runq.n, (char[32]){0}));
    else
        snprintf(u[0].s, sizeof u[0].s, "no run-queue waits seen");
    snprintf(u[0].e, sizeof u[0].e, "not measured (no hardware error counters)");

    u[1].resource = "memory";
    if (t->have_rss_max)
        snprintf(u[1].u, sizeof u[1].u, "peak RSS %.1f MB%s%.1f MB first seen; %.1f %% of RAM",
                 (double)t->rss_max / 1024, t->have_rss_first ? ", " : "", (double)t->rss_first / 1024,
                 t->mem_total ? 100.0 * (double)t->rss_max / (double)t->mem_total : 0);
    else
        snprintf(u[1].u, sizeof u[1].u, "not measured");
    double pf = counter(t, "page-faults");
    if (pf >= 0)
        snprintf(u[1].s, sizeof u[1].s, "%s page faults; mappings %" PRIu64 " -> %" PRIu64, commas((uint64_t)pf, a),
                 t->maps_first, t->maps_max);
    else
        snprintf(u[1].s, sizeof u[1].s, "mappings %" PRIu64 " -> %" PRIu64, t->maps_first, t->maps_max);
    uint64_t enomem = 0, emfile = 0, eagain_clone = 0;
    for (size_t i = 0; i < t->nsys; i++)
        for (int k = 0; k < TRIAGE_NERRNO; k++) {
            int e = t->sys[i].err[k];
            enomem += e == 12 ? t->sys[i].errn[k] : 0;
            emfile += e == 24 || e == 23 ? t->sys[i].errn[k] : 0;
            eagain_clone += e == 11 && !strncmp(t->sys[i].name, "clone", 5) ? t->sys[i].errn[k] : 0;
        }
    snprintf(u[1].e, sizeof u[1].e, "%s ENOMEM", commas(enomem, a));

    u[2].resource = "file descriptors";
    if (t->have_fds_max)
        snprintf(u[2].u, sizeof u[2].u, "%" PRIu64 " open at most of %" PRIu64 " allowed (%.1f %%)", t->fds_max,
                 t->fds_limit, t->fds_limit ? 100.0 * (double)t->fds_max / (double)t->fds_limit : 0);
    else
        snprintf(u[2].u, sizeof u[2].u, "not measured");
    snprintf(u[2].s, sizeof u[2].s, "not applicable");
    snprintf(u[2].e, sizeof u[2].e, "%s EMFILE/ENFILE", commas(emfile, a));

    u[3].resource = "threads";
    snprintf(u[3].u, sizeof u[3].u, "%zu threads seen", t->threads);
    if (t->have_threads_max)
        snprintf(u[3].u + strlen(u[3].u), sizeof u[3].u - strlen(u[3].u), ", at most %" PRIu64 " at once",
                 t->threads_max);
    uint64_t futex = 0;
    for (size_t i = 0; i < t->blame.n; i++)
        if (!strncmp(smap_key(&t->blame, &t->blame.e[i]), "futex\t", 6))
            futex += t->blame.e[i].n;
    if (t->thread_ns)
        snprintf(u[3].s, sizeof u[3].s, "lock waits (futex) %s, %.0f %% of thread time", dur(futex, a),
                 100.0 * (double)futex / (double)t->thread_ns);
    else
        snprintf(u[3].s, sizeof u[3].s, "not measured");
    snprintf(u[3].e, sizeof u[3].e, "%s clone EAGAIN", commas(eagain_clone, a));
}

static void view_init(struct triage *t, struct view *v)
{
    memset(v, 0, sizeof *v);
    char a[32], b[32];
    /* the target's run time: the command's as counted, else what the trace spans */
    v->wall_ns = t->cnt.elapsed.n ? (uint64_t)counters_mean(&t->cnt.elapsed) : t->last - t->first;
    if (!v->wall_ns)
        v->wall_ns = t->wall_ns;
    v->wall = (double)v->wall_ns / 1e9;
    snprintf(t->cnt.target, sizeof t->cnt.target, "%s", t->target[0] ? t->target : "the trace");
    /* functions on CPU: the leaf of each folded stack */
    smap_init(&v->leaf);
    for (size_t i = 0; i < t->cpu.n; i++) {
        const char *k = smap_key(&t->cpu, &t->cpu.e[i]), *semi = k;
        for (size_t j = 0; j < t->cpu.e[i].len; j++)
            if (k[j] == ';')
                semi = k + j + 1;
        struct smap_entry *e = smap_get(&v->leaf, semi, t->cpu.e[i].len - (size_t)(semi - k));
        if (e)
            e->n += t->cpu.e[i].n;
    }
    v->ncpu = top_rows(&v->leaf, v->cpu);
    v->noff = top_rows(&t->blame, v->off);
    v->sys = malloc((t->nsys + 1) * sizeof *v->sys);
    for (size_t i = 0; v->sys && i < t->nsys; i++) {
        v->sys[i] = i;
        v->sys_calls += t->sys[i].calls;
        v->sys_errors += t->sys[i].errors;
    }
    sort_t = t;
    if (v->sys)
        qsort(v->sys, t->nsys, sizeof *v->sys, cmp_sys);
    use_checklist(t, v);

    /* findings, the strongest first */
    double clock = counter(t, "task-clock");
    if (clock >= 0 && v->wall_ns && clock / (double)v->wall_ns >= 0.5)
        add_finding(v, "counters", "on CPU %.0f %% of its run time (%.2f CPUs busy)", 100 * clock / (double)v->wall_ns,
                    clock / (double)v->wall_ns);
    /* where the CPU time goes matters when the threads ran at least a tenth of the time they
     * did not wait for a CPU (a CPU-bound program on a busy machine waits mostly preempted) */
    uint64_t preempted = 0;
    for (size_t i = 0; i < t->blame.n; i++)
        if (!strncmp(smap_key(&t->blame, &t->blame.e[i]), "preempted\t", 10))
            preempted += t->blame.e[i].n;
    int cpu_matters = t->cpu_ns * 10 >= (t->thread_ns > preempted ? t->thread_ns - preempted : 0);
    for (size_t i = 0; i < v->ncpu && i < 3; i++) {
        double p = t->cpu_samples ? 100.0 * (double)v->cpu[i].n / (double)t->cpu_samples : 0;
        char anchor[32];
        snprintf(anchor, sizeof anchor, "cpu-%zu", i + 1);
        if (p >= 20 && t->cpu_samples >= 10 && cpu_matters)
            add_finding(v, anchor, "%.0f %% of CPU samples in %.*s (%s samples)%s", p, (int)v->cpu[i].len, v->cpu[i].key,
                        commas(v->cpu[i].n, a),
                        /* the kernel's perf event code runs for the recording's own tracepoints */
                        !strncmp(v->cpu[i].key, "perf_", 5) ? ": the kernel's perf event code, the recording's own cost"
                                                             : "");
    }
    for (size_t i = 0; i < v->noff && i < 3; i++) {
        double p = t->thread_ns ? 100.0 * (double)v->off[i].n / (double)t->thread_ns : 0;
        const char *sys, *fn;
        int sl, fl;
        split_blame(&v->off[i], &sys, &sl, &fn, &fl);
        char anchor[32];
        snprintf(anchor, sizeof anchor, "off-%zu", i + 1);
        if (p >= 10 && !strncmp(sys, "preempted", (size_t)sl))
            add_finding(v, anchor, "%.0f %% of thread time waiting for a CPU (preempted) in %.*s (%s)", p, fl, fn,
                        dur(v->off[i].n, a));
        else if (p >= 10)
            add_finding(v, anchor, "%.0f %% of thread time blocked in %.*s from %.*s (%s)", p, sl, sys, fl, fn,
                        dur(v->off[i].n, a));
    }
    for (size_t i = 0; v->sys && i < t->nsys; i++) {
        const struct tsys *y = &t->sys[v->sys[i]];
        if (y->errors < 10)
            continue;
        int top = top_errno(y);
        char anchor[64];
        snprintf(anchor, sizeof anchor, "sys-%s", y->name);
        add_finding(v, anchor, "%s failed %s times with %s (of %s calls)", y->name, commas(y->errn[top], a),
                    errname(y->err[top]), commas(y->calls, b));
    }
    if (t->runq.n && lathist_quantile(&t->runq, 0.99) >= 5000000)
        add_finding(v, "runq", "run-queue latency p99 %s: threads waited for a CPU",
                    dur(lathist_quantile(&t->runq, 0.99), a));
    if (t->have_rss_max && t->have_rss_first && t->rss_max >= 2 * t->rss_first && t->rss_max - t->rss_first >= 65536)
        add_finding(v, "use-memory", "memory grew from %.0f MB to %.0f MB", (double)t->rss_first / 1024,
                    (double)t->rss_max / 1024);
    if (t->have_fds_max && t->fds_limit && t->fds_max * 10 >= t->fds_limit * 8)
        add_finding(v, "use-fds", "%" PRIu64 " file descriptors open of %" PRIu64 " allowed", t->fds_max, t->fds_limit);
    if (t->lost)
        add_finding(v, "overhead", "%s events lost: the tables undercount", commas(t->lost, a));
}

static void view_free(struct view *v)
{
    smap_free(&v->leaf);
    free(v->sys);
}

/* recorders' CPU against the command's, as a share of the wall time */
/* What recording cost, as tr-triage measured it: the recorders' CPU time
 * (its children's rusage, less the command's task-clock) against the
 * target's run time, and the recording's wall time in all. */
static void overhead_text(const struct triage *t, const struct view *v, char *buf, size_t len)
{
    if (!t->have_rec_cpu || !v->wall_ns) {
        snprintf(buf, len, "not measured (no tr-triage stream in the trace)");
        return;
    }
    snprintf(buf, len, "the recorders used %.3f s of CPU while the target ran %.3f s (%.0f %% of one CPU; "
             "the target itself used %.3f s); recording took %.3f s in all, starting and stopping the recorders "
             "and writing the trace included. The slowdown this causes is measured by bench/tr-triage.",
             (double)t->rec_cpu / 1e9, v->wall, 100.0 * (double)t->rec_cpu / (double)v->wall_ns,
             (double)t->cmd_cpu / 1e9, (double)t->wall_ns / 1e9);
}

static int line_out(void *arg, const char *line, size_t len)
{
    FILE *f = arg;
    fprintf(f, "  %.*s\n", (int)len, line);
    return 0;
}

/* ---- text ------------------------------------------------------------ */

void triage_text(struct triage *t, FILE *out)
{
    struct view v;
    view_init(t, &v);
    char a[32], b[32], c[32], d[32], e[32], buf[512];
    fprintf(out, "tr-triage: %s, %.3f s, %d CPUs\n", t->target[0] ? t->target : "trace", v.wall, t->ncpus);
    fprintf(out, "\nFindings\n");
    for (size_t i = 0; i < v.nf; i++)
        fprintf(out, "  %zu. %s\n", i + 1, v.f[i].text);
    if (!v.nf)
        fprintf(out, "  nothing stands out\n");
    fprintf(out, "\nCounters\n");
    if (t->have_counters)
        counters_format_table(&t->cnt, line_out, out);
    else
        fprintf(out, "  none recorded\n");
    fprintf(out, "\nOn CPU: top functions (self), %s samples\n", commas(t->cpu_samples, a));
    for (size_t i = 0; i < v.ncpu; i++)
        fprintf(out, "  %6.2f %%  %10s  %.*s\n", 100.0 * (double)v.cpu[i].n / (double)t->cpu_samples,
                commas(v.cpu[i].n, a), (int)v.cpu[i].len, v.cpu[i].key);
    fprintf(out, "\nOff CPU: where threads waited, %s in all, of %s thread time\n", dur(t->off_ns, a),
            dur(t->thread_ns, b));
    for (size_t i = 0; i < v.noff; i++) {
        const char *sys, *fn;
        int sl, fl;
        split_blame(&v.off[i], &sys, &sl, &fn, &fl);
        fprintf(out, "  %6.2f %%  %10s  %.*s from %.*s\n",
                t->thread_ns ? 100.0 * (double)v.off[i].n / (double)t->thread_ns : 0, dur(v.off[i].n, a), sl, sys,
                fl, fn);
    }
    fprintf(out, "\nSyscalls: %s calls, %s failed, %.0f calls/s\n", commas(v.sys_calls, a), commas(v.sys_errors, b),
            v.wall > 0 ? (double)v.sys_calls / v.wall : 0);
    if (t->nsys)
        fprintf(out, "  %-18s %10s %8s  %-16s %10s %10s %10s %10s %10s\n", "syscall", "calls", "errors",
                "top error", "total", "p50", "p90", "p99", "max");
    for (size_t i = 0; v.sys && i < t->nsys; i++) {
        const struct tsys *y = &t->sys[v.sys[i]];
        char top[40] = "";
        if (y->errors)
            snprintf(top, sizeof top, "%s %s", errname(y->err[top_errno(y)]), commas(y->errn[top_errno(y)], buf));
        fprintf(out, "  %-18s %10s %8s  %-16s %10s %10s %10s %10s %10s\n", y->name, commas(y->calls, a),
                commas(y->errors, b), top, dur(y->ns, c), dur(lathist_quantile(&y->lat, 0.5), d),
                dur(lathist_quantile(&y->lat, 0.9), e), dur(lathist_quantile(&y->lat, 0.99), buf),
                dur(y->lat.max, buf + 64));
    }
    fprintf(out, "\nRun-queue latency: %s waits", commas(t->runq.n, a));
    if (t->runq.n)
        fprintf(out, ", p50 %s, p90 %s, p99 %s, max %s", dur(lathist_quantile(&t->runq, 0.5), a),
                dur(lathist_quantile(&t->runq, 0.9), b), dur(lathist_quantile(&t->runq, 0.99), c),
                dur(t->runq.max, d));
    fprintf(out, "\n\nUSE checklist\n");
    for (int i = 0; i < 4; i++)
        fprintf(out, "  %-16s utilization: %s\n  %-16s saturation:  %s\n  %-16s errors:      %s\n", v.use[i].resource,
                v.use[i].u, "", v.use[i].s, "", v.use[i].e);
    overhead_text(t, &v, buf, sizeof buf);
    fprintf(out, "\nOverhead\n  %s\n", buf);
    view_free(&v);
}

/* ---- JSON ------------------------------------------------------------ */

static void jstr(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    json_str(out, s, n);
    fputc('"', out);
}

static void jlat(FILE *out, const struct lathist *h)
{
    fprintf(out, "\"p50_ns\":%" PRIu64 ",\"p90_ns\":%" PRIu64 ",\"p99_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64,
            lathist_quantile(h, 0.5), lathist_quantile(h, 0.9), lathist_quantile(h, 0.99), h->max);
}

void triage_json(struct triage *t, FILE *out)
{
    struct view v;
    view_init(t, &v);
    char buf[512];
    fprintf(out, "{\"target\":");
    jstr(out, t->target, strlen(t->target));
    fprintf(out, ",\"run_ns\":%" PRIu64 ",\"recording_ns\":%" PRIu64 ",\"ncpus\":%d,\"lost\":%" PRIu64
                 ",\"findings\":[", v.wall_ns, t->wall_ns, t->ncpus, t->lost);
    for (size_t i = 0; i < v.nf; i++) {
        fprintf(out, "%s{\"text\":", i ? "," : "");
        jstr(out, v.f[i].text, strlen(v.f[i].text));
        fprintf(out, ",\"evidence\":");
        jstr(out, v.f[i].anchor, strlen(v.f[i].anchor));
        fputc('}', out);
    }
    fprintf(out, "],\"counters\":[");
    int first = 1;
    for (int i = 0; i < t->cnt.nc; i++) {
        const struct counters_entry *k = &t->cnt.c[i];
        fprintf(out, "%s{\"event\":", first ? "" : ",");
        first = 0;
        jstr(out, k->name, strlen(k->name));
        if (k->n && !k->not_supported)
            fprintf(out, ",\"value\":%.0f}", counters_mean(k));
        else
            fprintf(out, ",\"supported\":false}");
    }
    fprintf(out, "],\"cpu\":{\"samples\":%" PRIu64 ",\"top\":[", t->cpu_samples);
    for (size_t i = 0; i < v.ncpu; i++) {
        fprintf(out, "%s{\"function\":", i ? "," : "");
        jstr(out, v.cpu[i].key, v.cpu[i].len);
        fprintf(out, ",\"samples\":%" PRIu64 "}", v.cpu[i].n);
    }
    fprintf(out, "]},\"offcpu\":{\"ns\":%" PRIu64 ",\"thread_ns\":%" PRIu64 ",\"top\":[", t->off_ns, t->thread_ns);
    for (size_t i = 0; i < v.noff; i++) {
        const char *sys, *fn;
        int sl, fl;
        split_blame(&v.off[i], &sys, &sl, &fn, &fl);
        fprintf(out, "%s{\"syscall\":", i ? "," : "");
        jstr(out, sys, (size_t)sl);
        fprintf(out, ",\"function\":");
        jstr(out, fn, (size_t)fl);
        fprintf(out, ",\"ns\":%" PRIu64 "}", v.off[i].n);
    }
    fprintf(out, "]},\"syscalls\":[");
    for (size_t i = 0; v.sys && i < t->nsys; i++) {
        const struct tsys *y = &t->sys[v.sys[i]];
        fprintf(out, "%s{\"name\":", i ? "," : "");
        jstr(out, y->name, strlen(y->name));
        fprintf(out, ",\"calls\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"errnos\":{", y->calls, y->errors);
        for (int k = 0; k < TRIAGE_NERRNO && y->errn[k]; k++)
            fprintf(out, "%s\"%s\":%" PRIu64, k ? "," : "", errname(y->err[k]), y->errn[k]);
        fprintf(out, "},\"total_ns\":%" PRIu64 ",", y->ns);
        jlat(out, &y->lat);
        fputc('}', out);
    }
    fprintf(out, "],\"runq\":{\"waits\":%" PRIu64 ",", t->runq.n);
    jlat(out, &t->runq);
    fprintf(out, "},\"threads\":%zu,\"use\":[", t->threads);
    for (int i = 0; i < 4; i++) {
        fprintf(out, "%s{\"resource\":", i ? "," : "");
        jstr(out, v.use[i].resource, strlen(v.use[i].resource));
        fprintf(out, ",\"utilization\":");
        jstr(out, v.use[i].u, strlen(v.use[i].u));
        fprintf(out, ",\"saturation\":");
        jstr(out, v.use[i].s, strlen(v.use[i].s));
        fprintf(out, ",\"errors\":");
        jstr(out, v.use[i].e, strlen(v.use[i].e));
        fputc('}', out);
    }
    overhead_text(t, &v, buf, sizeof buf);
    fprintf(out, "],\"overhead\":{\"recorders_cpu_ns\":%" PRIu64 ",\"command_cpu_ns\":%" PRIu64 ",\"text\":",
            t->rec_cpu, t->cmd_cpu);
    jstr(out, buf, strlen(buf));
    fprintf(out, "}}\n");
    view_free(&v);
}

/* ---- HTML ------------------------------------------------------------ */

static void html_esc(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(s[i], out);
        }
    }
}

static void base64(FILE *out, const unsigned char *p, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        fputc(a[v >> 18 & 63], out);
        fputc(a[v >> 12 & 63], out);
        fputc(i + 1 < n ? a[v >> 6 & 63] : '=', out);
        fputc(i + 2 < n ? a[v & 63] : '=', out);
    }
}

/* The folded stacks of m as tr-flame's SVG, in an iframe of its own (its
 * script and ids stay its own): counts scaled by div. */
static void html_flame(FILE *out, const char *id, const struct smap *m, double div, const char *title,
                       const char *countname)
{
    if (!m->n) {
        fprintf(out, "<p class=\"none\" id=\"%s\">no stacks recorded</p>\n", id);
        return;
    }
    struct flame_opts o;
    flame_opts_init(&o);
    o.title = title;
    o.countname = countname;
    struct flame f;
    char *svg = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&svg, &len);
    size_t *order = smap_sorted(m);
    int inited = mem && order && flame_init(&f, &o) == 0, ok = inited;
    for (size_t i = 0; ok && i < m->n; i++) {
        const struct smap_entry *e = &m->e[order[i]];
        ok = flame_add(&f, smap_key(m, e), e->len, (double)e->n / div) == 0;
    }
    if (ok)
        ok = flame_svg(&f, mem) == 0;
    if (inited)
        flame_free(&f);
    free(order);
    if (mem)
        fclose(mem);
    if (ok) {
        /* the frame as tall as the graph (its root frame at the bottom) */
        const char *h = strstr(svg, " height=\"");
        int height = h ? atoi(h + 9) : 0;
        fprintf(out, "<iframe class=\"flame\" id=\"%s\" title=\"%s\" style=\"height:%dpx\" "
                     "src=\"data:image/svg+xml;base64,", id, title, height > 0 && height < 20000 ? height + 4 : 560);
        base64(out, (const unsigned char *)svg, len);
        fprintf(out, "\"></iframe>\n");
    } else {
        fprintf(out, "<p class=\"none\" id=\"%s\">the flame graph could not be drawn (out of memory)</p>\n", id);
    }
    free(svg);
}

static const char html_style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1260px;padding:0 16px;color:#222}"
    "h1{font-size:22px;margin:18px 0 2px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:2px}"
    ".sub{color:#666;margin:0 0 8px}nav a{margin-right:12px}"
    "table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 10px;text-align:right;border-bottom:1px solid #eee}"
    "td.l,th.l{text-align:left}tr:target,li:target{background:#ffef9e}"
    "pre{background:#f6f6f6;padding:8px;overflow-x:auto}"
    "iframe.flame{width:100%;border:1px solid #ddd}"
    "ol.findings li{margin:4px 0;font-size:15px}.none{color:#888}";

static const char html_script[] =
    "document.querySelectorAll('ol.findings a').forEach(function(a){a.addEventListener('click',function(){"
    "var e=document.getElementById(a.getAttribute('href').slice(1));if(e)e.scrollIntoView({block:'center'});});});";

void triage_html(struct triage *t, FILE *out)
{
    struct view v;
    view_init(t, &v);
    char a[32], b[32], c[32], d[32], e[32], buf[512];
    const char *title = t->target[0] ? t->target : "trace";
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tr-triage: ", out);
    html_esc(out, title, strlen(title));
    fprintf(out, "</title><style>%s</style></head><body>\n<h1>tr-triage: ", html_style);
    html_esc(out, title, strlen(title));
    fprintf(out, "</h1>\n<p class=\"sub\">%.3f s, %d CPUs, %u streams</p>\n", v.wall, t->ncpus, t->streams);
    fputs("<nav><a href=\"#findings\">findings</a><a href=\"#counters\">counters</a><a href=\"#cpu\">on CPU</a>"
          "<a href=\"#offcpu\">off CPU</a><a href=\"#syscalls\">syscalls</a><a href=\"#runq\">run queue</a>"
          "<a href=\"#use\">USE</a><a href=\"#overhead\">overhead</a></nav>\n",
          out);

    fputs("<section id=\"findings\"><h2>Findings</h2>\n<ol class=\"findings\">\n", out);
    for (size_t i = 0; i < v.nf; i++) {
        fprintf(out, "<li><a href=\"#%s\">", v.f[i].anchor);
        html_esc(out, v.f[i].text, strlen(v.f[i].text));
        fputs("</a></li>\n", out);
    }
    if (!v.nf)
        fputs("<li class=\"none\">nothing stands out</li>\n", out);
    fputs("</ol></section>\n", out);

    fputs("<section id=\"counters\"><h2>Counters</h2>\n<pre>", out);
    if (t->have_counters) {
        char *tb = NULL;
        size_t tl = 0;
        FILE *m = open_memstream(&tb, &tl);
        if (m) {
            counters_format_table(&t->cnt, line_out, m);
            fclose(m);
            html_esc(out, tb, tl);
        }
        free(tb);
    } else {
        fputs("none recorded", out);
    }
    fputs("</pre></section>\n", out);

    fprintf(out, "<section id=\"cpu\"><h2>On CPU</h2>\n<p>%s samples; top functions by self samples:</p>\n"
                 "<table><tr><th>%%</th><th>samples</th><th class=\"l\">function</th></tr>\n",
            commas(t->cpu_samples, a));
    for (size_t i = 0; i < v.ncpu; i++) {
        fprintf(out, "<tr id=\"cpu-%zu\"><td>%.2f</td><td>%s</td><td class=\"l\">", i + 1,
                100.0 * (double)v.cpu[i].n / (double)t->cpu_samples, commas(v.cpu[i].n, a));
        html_esc(out, v.cpu[i].key, v.cpu[i].len);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    html_flame(out, "cpu-flame", &t->cpu, 1, "CPU flame graph", "samples");
    fputs("</section>\n", out);

    fprintf(out, "<section id=\"offcpu\"><h2>Off CPU</h2>\n<p>%s blocked in all, of %s thread time; where threads "
                 "waited (syscall, and the program's function that made it):</p>\n<table><tr><th>%% of thread "
                 "time</th><th>time</th><th class=\"l\">blocked in</th><th class=\"l\">from</th></tr>\n",
            dur(t->off_ns, a), dur(t->thread_ns, b));
    for (size_t i = 0; i < v.noff; i++) {
        const char *sys, *fn;
        int sl, fl;
        split_blame(&v.off[i], &sys, &sl, &fn, &fl);
        fprintf(out, "<tr id=\"off-%zu\"><td>%.2f</td><td>%s</td><td class=\"l\">", i + 1,
                t->thread_ns ? 100.0 * (double)v.off[i].n / (double)t->thread_ns : 0, dur(v.off[i].n, a));
        html_esc(out, sys, (size_t)sl);
        fputs("</td><td class=\"l\">", out);
        html_esc(out, fn, (size_t)fl);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    html_flame(out, "offcpu-flame", &t->off, 1000, "Off-CPU flame graph", "us");
    fputs("</section>\n", out);

    fprintf(out, "<section id=\"syscalls\"><h2>Syscalls</h2>\n<p id=\"red\">RED: rate %.0f calls/s, errors %s of %s "
                 "calls, duration below (latency percentiles)</p>\n<table><tr><th class=\"l\">syscall</th><th>calls"
                 "</th><th>errors</th><th class=\"l\">errnos</th><th>total</th><th>p50</th><th>p90</th><th>p99</th>"
                 "<th>max</th></tr>\n",
            v.wall > 0 ? (double)v.sys_calls / v.wall : 0, commas(v.sys_errors, a), commas(v.sys_calls, b));
    for (size_t i = 0; v.sys && i < t->nsys; i++) {
        const struct tsys *y = &t->sys[v.sys[i]];
        fprintf(out, "<tr id=\"sys-%s\"><td class=\"l\">%s</td><td>%s</td><td>%s</td><td class=\"l\">", y->name,
                y->name, commas(y->calls, a), commas(y->errors, b));
        for (int k = 0; k < TRIAGE_NERRNO && y->errn[k]; k++)
            fprintf(out, "%s%s %s", k ? ", " : "", errname(y->err[k]), commas(y->errn[k], a));
        fprintf(out, "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", dur(y->ns, a),
                dur(lathist_quantile(&y->lat, 0.5), b), dur(lathist_quantile(&y->lat, 0.9), c),
                dur(lathist_quantile(&y->lat, 0.99), d), dur(y->lat.max, e));
    }
    fputs("</table></section>\n", out);

    fprintf(out, "<section id=\"runq\"><h2>Run-queue latency</h2>\n<p>%s waits for a CPU", commas(t->runq.n, a));
    if (t->runq.n)
        fprintf(out, ": p50 %s, p90 %s, p99 %s, max %s", dur(lathist_quantile(&t->runq, 0.5), a),
                dur(lathist_quantile(&t->runq, 0.9), b), dur(lathist_quantile(&t->runq, 0.99), c), dur(t->runq.max, d));
    fputs("</p></section>\n", out);

    fputs("<section id=\"use\"><h2>USE checklist</h2>\n<table><tr><th class=\"l\">resource</th><th class=\"l\">"
          "utilization</th><th class=\"l\">saturation</th><th class=\"l\">errors</th></tr>\n",
          out);
    static const char *const ids[] = {"use-cpu", "use-memory", "use-fds", "use-threads"};
    for (int i = 0; i < 4; i++) {
        fprintf(out, "<tr id=\"%s\"><td class=\"l\">%s</td><td class=\"l\">", ids[i], v.use[i].resource);
        html_esc(out, v.use[i].u, strlen(v.use[i].u));
        fputs("</td><td class=\"l\">", out);
        html_esc(out, v.use[i].s, strlen(v.use[i].s));
        fputs("</td><td class=\"l\">", out);
        html_esc(out, v.use[i].e, strlen(v.use[i].e));
        fputs("</td></tr>\n", out);
    }
    fputs("</table></section>\n", out);

    overhead_text(t, &v, buf, sizeof buf);
    fputs("<section id=\"overhead\"><h2>Overhead</h2>\n<p>", out);
    html_esc(out, buf, strlen(buf));
    fprintf(out, "</p></section>\n<script>%s</script>\n</body></html>\n", html_script);
    view_free(&v);
}
