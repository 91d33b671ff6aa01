/* counters.c - the perf stat table (counters.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "counters.h"
#include "tr.h"

struct counters_entry *counters_find(struct counters *t, const char *name)
{
    if (!strcmp(name, "duration_time"))
        return &t->elapsed;
    if (!strcmp(name, "user_time"))
        return &t->user;
    if (!strcmp(name, "system_time"))
        return &t->sys;
    for (int i = 0; i < t->nc; i++)
        if (!strcmp(t->c[i].name, name))
            return &t->c[i];
    if (t->nc == COUNTERS_MAX)
        return NULL;
    struct counters_entry *e = &t->c[t->nc++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    return e;
}

double counters_scale(uint64_t value, uint64_t enabled, uint64_t running)
{
    if (running && running < enabled)
        return (double)value * ((double)enabled / (double)running);
    return (double)value;
}

int counters_add(struct counters *t, const char *name, uint64_t value, uint64_t enabled, uint64_t running,
                 uint32_t flags, uint32_t run)
{
    struct counters_entry *e = counters_find(t, name);
    if (!e)
        return TR_E_TOO_LARGE;
    if (run + 1 > t->runs)
        t->runs = run + 1;
    if (flags & TR_CNTF_NOT_SUPPORTED) {
        e->not_supported = 1;
        return 0;
    }
    if ((flags & TR_CNTF_NOT_COUNTED) || (enabled && !running)) {
        e->not_counted = 1;
        return 0;
    }
    double v = counters_scale(value, enabled, running);
    e->n++;
    e->sum += v;
    e->sumsq += v * v;
    e->enabled += (double)enabled;
    e->running += (double)running;
    return 0;
}

int counters_add_thread(struct counters *t, const char *name, int32_t tid, const char *comm, uint64_t value,
                        uint64_t enabled, uint64_t running, uint32_t flags)
{
    struct counters_entry *e = counters_find(t, name);
    if (!e || e < t->c || e >= t->c + t->nc)
        return TR_E_TOO_LARGE; /* a full table, or a tool event */
    if (array_reserve(&t->threads, &t->capthreads, t->nthreads + 1, sizeof *t->threads, 64) < 0)
        return TR_E_NOMEM;
    struct counters_thread *r = &t->threads[t->nthreads++];
    memset(r, 0, sizeof *r);
    r->tid = tid;
    snprintf(r->comm, sizeof r->comm, "%s", comm ? comm : "-");
    r->row = (int)(e - t->c);
    r->value = value;
    r->enabled = enabled;
    r->running = running;
    r->flags = flags;
    if (!t->runs)
        t->runs = 1;
    return 0;
}

void counters_free(struct counters *t)
{
    free(t->threads);
    t->threads = NULL;
    t->nthreads = t->capthreads = 0;
}

double counters_mean(const struct counters_entry *e)
{
    return e->n ? e->sum / e->n : 0;
}

double counters_rel_stddev(const struct counters_entry *e)
{
    if (e->n < 2)
        return 0;
    double m = counters_mean(e);
    double var = (e->sumsq - e->n * m * m) / (e->n - 1);
    if (var < 0)
        var = 0;
    double sd_mean = sqrt(var / e->n);
    return m ? 100.0 * sd_mean / m : 0;
}

/* ---- formatting ---- */

/* A line being built in a fixed buffer: what does not fit is cut. */
struct line {
    char *buf;
    size_t size, len;
};

static void put(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct line *l, const char *fmt, ...)
{
    if (l->len + 1 >= l->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->buf + l->len, l->size - l->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    l->len = (size_t)n < l->size - l->len ? l->len + (size_t)n : l->size - 1;
}

/* The value of a per-thread reading, scaled; -1 when it did not count (perf
 * stat's rule: never enabled or never running). */
static double thread_value(const struct counters_thread *r)
{
    if ((r->flags & (TR_CNTF_NOT_SUPPORTED | TR_CNTF_NOT_COUNTED)) || !r->enabled || !r->running)
        return -1;
    return counters_scale(r->value, r->enabled, r->running);
}

/* The mean of row name when it has a value, else -1 (tool events are no
 * rows); with tid >= 0 that thread's reading of it. */
static double value_of(const struct counters *t, int32_t tid, const char *name)
{
    for (int i = 0; i < t->nc; i++) {
        if (strcmp(t->c[i].name, name))
            continue;
        if (tid < 0)
            return t->c[i].n ? counters_mean(&t->c[i]) : -1;
        for (size_t k = 0; k < t->nthreads; k++)
            if (t->threads[k].tid == tid && t->threads[k].row == i)
                return thread_value(&t->threads[k]);
    }
    return -1;
}

static int is_clock(const char *name)
{
    return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock") || !strncmp(name, "task-clock:", 11) ||
           !strncmp(name, "cpu-clock:", 10);
}

/* The "# ..." comment of entry e with value v (secs: the time elapsed) into
 * buf, from the totals or (tid >= 0) that thread's readings; empty when
 * there is none. */
static void metric(const struct counters *t, int32_t tid, const struct counters_entry *e, double v, double secs,
                   char *buf, size_t len)
{
    double task_ms = value_of(t, tid, "task-clock");
    if (task_ms < 0)
        task_ms = value_of(t, tid, "cpu-clock");
    double task_s = task_ms >= 0 ? task_ms / 1e9 : secs;
    buf[0] = 0;
    if (is_clock(e->name)) {
        if (secs > 0)
            snprintf(buf, len, "# %8.3f CPUs utilized", v / 1e9 / secs);
        return;
    }
    const char *n = e->name;
    double cycles = value_of(t, tid, "cycles");
    if (!strcmp(n, "cycles") || !strcmp(n, "cpu-cycles")) {
        if (task_s > 0)
            snprintf(buf, len, "# %8.3f GHz", v / task_s / 1e9);
    } else if (!strcmp(n, "instructions")) {
        if (cycles > 0)
            snprintf(buf, len, "# %8.2f  insn per cycle", v / cycles);
    } else if (!strcmp(n, "branch-misses")) {
        double br = value_of(t, tid, "branches");
        if (br > 0)
            snprintf(buf, len, "# %8.2f%% of all branches", 100.0 * v / br);
    } else if (!strcmp(n, "cache-misses")) {
        double refs = value_of(t, tid, "cache-references");
        if (refs > 0)
            snprintf(buf, len, "# %8.3f %% of all cache refs", 100.0 * v / refs);
    } else if (task_s > 0) {
        double rate = v / task_s;
        const char *unit = "";
        if (rate >= 1e9) {
            rate /= 1e9;
            unit = "G";
        } else if (rate >= 1e6) {
            rate /= 1e6;
            unit = "M";
        } else if (rate >= 1e3) {
            rate /= 1e3;
            unit = "K";
        }
        snprintf(buf, len, "# %8.3f %s/sec", rate, unit);
    }
}

/* One counter line after prefix into buf (512 bytes), trailing blanks
 * removed: its length. */
static size_t entry_line(const struct counters *t, int32_t tid, const struct counters_entry *e, double v,
                         double secs, int show_spread, const char *prefix, char *buf, size_t size)
{
    struct line l = {buf, size, 0};
    buf[0] = 0;
    put(&l, "%s", prefix);
    if (e->not_supported || e->not_counted || !e->n) {
        /* the unit column as perf stat fills it: msec for the clocks */
        put(&l, "%18s %-4s %s", e->not_supported ? "<not supported>" : "<not counted>",
            is_clock(e->name) ? "msec" : "", e->name);
    } else {
        char num[64], comment[96];
        if (is_clock(e->name))
            snprintf(num, sizeof num, "%18.2f msec", v / 1e6);
        else
            snprintf(num, sizeof num, "%18.0f     ", v);
        metric(t, tid, e, v, secs, comment, sizeof comment);
        put(&l, "%s %-32s %-30s", num, e->name, comment);
        if (e->running > 0 && e->running < e->enabled)
            put(&l, "  (%.2f%%)", 100.0 * e->running / e->enabled);
        if (show_spread)
            put(&l, "  ( +- %5.2f%% )", counters_rel_stddev(e));
    }
    while (l.len && buf[l.len - 1] == ' ')
        buf[--l.len] = 0;
    return l.len;
}

/* Per-thread lines of one row: highest value first, then by tid; threads
 * that did not count last. */
static int by_value(const void *a, const void *b)
{
    const struct counters_thread *x = *(const struct counters_thread *const *)a;
    const struct counters_thread *y = *(const struct counters_thread *const *)b;
    double vx = thread_value(x), vy = thread_value(y);
    if (vx != vy)
        return vx > vy ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The lines of row's threads: how many readings it had, or the first negative return of fn. */
static int thread_lines(const struct counters *t, int row, double secs, counters_line_fn fn, void *arg)
{
    const struct counters_thread **v = malloc((t->nthreads ? t->nthreads : 1) * sizeof *v);
    if (!v)
        return TR_E_NOMEM;
    size_t n = 0;
    for (size_t k = 0; k < t->nthreads; k++)
        if (t->threads[k].row == row)
            v[n++] = &t->threads[k];
    qsort(v, n, sizeof *v, by_value);
    int rc = 0;
    for (size_t k = 0; k < n && rc >= 0; k++) {
        const struct counters_thread *r = v[k];
        double val = thread_value(r);
        if (t->skip_zero && val <= 0)
            continue;
        struct counters_entry e;
        memset(&e, 0, sizeof e);
        snprintf(e.name, sizeof e.name, "%s", t->c[row].name);
        e.not_supported = (r->flags & TR_CNTF_NOT_SUPPORTED) != 0;
        e.n = val >= 0;
        e.enabled = (double)r->enabled;
        e.running = (double)r->running;
        char prefix[64], buf[512];
        snprintf(prefix, sizeof prefix, "%16s-%-8d ", r->comm, (int)r->tid);
        size_t len = entry_line(t, r->tid, &e, val, secs, 0, prefix, buf, sizeof buf);
        rc = fn(arg, buf, len);
    }
    free(v);
    return rc < 0 ? rc : (int)n;
}

int counters_format_table(const struct counters *t, counters_line_fn fn, void *arg)
{
    char buf[sizeof t->target + 128];
    struct line l = {buf, sizeof buf, 0};
    int multi = t->runs > 1, rc;
#define EMIT(s, n)                     \
    do {                               \
        if ((rc = fn(arg, s, n)) < 0)  \
            return rc;                 \
    } while (0)
    EMIT("", 0);
    put(&l, " Performance counter stats for %s", t->target[0] ? t->target : "'?'");
    if (multi)
        put(&l, " (%u runs)", t->runs);
    put(&l, ":");
    EMIT(buf, l.len);
    EMIT("", 0);
    double secs = t->elapsed.n ? counters_mean(&t->elapsed) / 1e9 : 0;
    for (int i = 0; i < t->nc; i++) {
        /* per thread; a row no thread has (<not supported>) as a total */
        if (t->nthreads && (rc = thread_lines(t, i, secs, fn, arg)) != 0) {
            if (rc < 0)
                return rc;
            continue;
        }
        size_t n = entry_line(t, -1, &t->c[i], counters_mean(&t->c[i]), secs, multi && t->c[i].n > 1, "", buf,
                              512);
        EMIT(buf, n);
    }
    EMIT("", 0);
    if (t->elapsed.n) {
        l.len = 0;
        if (multi) {
            double m = counters_mean(&t->elapsed) / 1e9;
            double rel = counters_rel_stddev(&t->elapsed);
            put(&l, "%18.9f +- %.9f seconds time elapsed  ( +- %5.2f%% )", m, m * rel / 100, rel);
        } else {
            put(&l, "%18.9f seconds time elapsed", secs);
        }
        EMIT(buf, l.len);
        if (!multi && (t->user.n || t->sys.n)) {
            EMIT("", 0);
            l.len = 0;
            put(&l, "%18.9f seconds user", counters_mean(&t->user) / 1e9);
            EMIT(buf, l.len);
            l.len = 0;
            put(&l, "%18.9f seconds sys", counters_mean(&t->sys) / 1e9);
            EMIT(buf, l.len);
        }
    }
    EMIT("", 0);
#undef EMIT
    return 0;
}

size_t counters_format_interval(struct counters *t, double at_secs, double len_secs, const char *name,
                                uint64_t value, uint64_t enabled, uint64_t running, uint32_t flags, char *buf,
                                size_t size)
{
    struct counters_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.name, sizeof e.name, "%s", name);
    e.not_supported = (flags & TR_CNTF_NOT_SUPPORTED) != 0;
    e.not_counted = (flags & TR_CNTF_NOT_COUNTED) != 0;
    e.n = 1;
    e.enabled = (double)enabled;
    e.running = (double)running;
    double v = counters_scale(value, enabled, running);
    /* metrics inside an interval use the interval's own task-clock */
    struct counters_entry *latest = counters_find(t, name);
    if (latest && !e.not_supported && !e.not_counted) {
        latest->n = 1;
        latest->sum = v;
    }
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%16.9f ", at_secs);
    if (!size)
        return 0;
    return entry_line(t, -1, &e, v, len_secs, 0, prefix, buf, size);
}
