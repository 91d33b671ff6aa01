/*
 * stat-table.h - the perf-stat-like counter table, shared by tr-rec-perf
 * --stat (printed live) and tr-cat (printed from TR_REC_COUNTER records).
 * Header-only so that both tools compile it without a shared library.
 *
 * Counter records: one per event per run (flags without TR_CNTF_INTERVAL)
 * holding the raw value with time enabled/running (readers scale), plus
 * the events "duration_time", "user_time" and "system_time" (ns) per run;
 * -I readings carry TR_CNTF_INTERVAL and the delta since the previous one.
 */
#ifndef TRP_STAT_TABLE_H
#define TRP_STAT_TABLE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tr.h"

#define STT_MAX 64

struct stt_counter {
    char name[128];
    int not_supported, not_counted;
    unsigned n;             /* runs with a value */
    double sum, sumsq;      /* scaled values */
    double enabled, running;/* sums, for the multiplexing percentage */
};

struct stt {
    char target[512];       /* "'cmd args'", "'system wide'", "process id '12'" */
    unsigned runs;
    struct stt_counter c[STT_MAX];
    int nc;
    struct stt_counter elapsed, user, sys;
};

static inline int stt_is_tool_event(const char *name)
{
    return !strcmp(name, "duration_time") || !strcmp(name, "user_time") ||
           !strcmp(name, "system_time");
}

static inline struct stt_counter *stt_find(struct stt *t, const char *name)
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
    if (t->nc == STT_MAX)
        return NULL;
    struct stt_counter *c = &t->c[t->nc++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

/* The value scaled for multiplexing. */
static inline double stt_scale(uint64_t value, uint64_t enabled, uint64_t running)
{
    if (running && running < enabled)
        return (double)value * ((double)enabled / (double)running);
    return (double)value;
}

/* Account one final (non-interval) reading. */
static inline void stt_add(struct stt *t, const char *name, uint64_t value, uint64_t enabled,
                           uint64_t running, uint32_t flags, uint32_t run)
{
    struct stt_counter *c = stt_find(t, name);
    if (!c)
        return;
    if (run + 1 > t->runs)
        t->runs = run + 1;
    if (flags & TR_CNTF_NOT_SUPPORTED) {
        c->not_supported = 1;
        return;
    }
    if ((flags & TR_CNTF_NOT_COUNTED) || (enabled && !running)) {
        c->not_counted = 1;
        return;
    }
    double v = stt_scale(value, enabled, running);
    c->n++;
    c->sum += v;
    c->sumsq += v * v;
    c->enabled += (double)enabled;
    c->running += (double)running;
}

static inline double stt_mean(const struct stt_counter *c) { return c->n ? c->sum / c->n : 0; }

/* Relative standard deviation of the mean, in percent (perf's "+-"). */
static inline double stt_rel_stddev(const struct stt_counter *c)
{
    if (c->n < 2)
        return 0;
    double m = stt_mean(c);
    double var = (c->sumsq - c->n * m * m) / (c->n - 1);
    if (var < 0)
        var = 0;
    double sd_mean = sqrt(var / c->n);
    return m ? 100.0 * sd_mean / m : 0;
}

static inline double stt_value_of(struct stt *t, const char *name)
{
    for (int i = 0; i < t->nc; i++)
        if (!strcmp(t->c[i].name, name) && t->c[i].n)
            return stt_mean(&t->c[i]);
    return -1;
}

static inline int stt_is_clock(const char *name)
{
    return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock") ||
           !strncmp(name, "task-clock:", 11) || !strncmp(name, "cpu-clock:", 10);
}

/* The "# ..." comment of one counter; empty when there is none. */
static inline void stt_metric(struct stt *t, const struct stt_counter *c, double v, double secs,
                              char *buf, size_t len)
{
    double task_ms = stt_value_of(t, "task-clock");
    if (task_ms < 0)
        task_ms = stt_value_of(t, "cpu-clock");
    double task_s = task_ms >= 0 ? task_ms / 1e9 : secs;
    buf[0] = 0;
    if (stt_is_clock(c->name)) {
        if (secs > 0)
            snprintf(buf, len, "# %8.3f CPUs utilized", v / 1e9 / secs);
        return;
    }
    const char *n = c->name;
    double cycles = stt_value_of(t, "cycles");
    if (!strcmp(n, "cycles") || !strcmp(n, "cpu-cycles")) {
        if (task_s > 0)
            snprintf(buf, len, "# %8.3f GHz", v / task_s / 1e9);
    } else if (!strcmp(n, "instructions")) {
        if (cycles > 0)
            snprintf(buf, len, "# %8.2f  insn per cycle", v / cycles);
    } else if (!strcmp(n, "branch-misses")) {
        double br = stt_value_of(t, "branches");
        if (br > 0)
            snprintf(buf, len, "# %8.2f%% of all branches", 100.0 * v / br);
    } else if (!strcmp(n, "cache-misses")) {
        double refs = stt_value_of(t, "cache-references");
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

/* One counter line (no newline); prefix is printed first (interval time). */
static inline void stt_line(FILE *f, struct stt *t, const struct stt_counter *c, double v,
                            double secs, int show_spread)
{
    char num[64], metric[96];
    if (c->not_supported) {
        fprintf(f, "%18s      %s", "<not supported>", c->name);
        return;
    }
    if (c->not_counted || !c->n) {
        fprintf(f, "%18s      %s", "<not counted>", c->name);
        return;
    }
    if (stt_is_clock(c->name))
        snprintf(num, sizeof num, "%18.2f msec", v / 1e6);
    else
        snprintf(num, sizeof num, "%18.0f     ", v);
    stt_metric(t, c, v, secs, metric, sizeof metric);
    fprintf(f, "%s %-32s %-30s", num, c->name, metric);
    if (c->running > 0 && c->running < c->enabled)
        fprintf(f, "  (%.2f%%)", 100.0 * c->running / c->enabled);
    if (show_spread)
        fprintf(f, "  ( +- %5.2f%% )", stt_rel_stddev(c));
}

static inline void stt_trim_line(FILE *f, char *line)
{
    size_t n = strlen(line);
    while (n && line[n - 1] == ' ')
        line[--n] = 0;
    fprintf(f, "%s\n", line);
}

/* Print one counter line into f, trailing blanks removed. */
static inline void stt_print_line(FILE *f, struct stt *t, const struct stt_counter *c, double v,
                                  double secs, int show_spread, const char *prefix)
{
    char buf[512];
    FILE *m = fmemopen(buf, sizeof buf, "w");
    if (!m)
        return;
    fputs(prefix, m);
    stt_line(m, t, c, v, secs, show_spread);
    fputc(0, m);
    fclose(m);
    buf[sizeof buf - 1] = 0;
    stt_trim_line(f, buf);
}

/* The whole table as perf stat prints it. */
static inline void stt_print(FILE *f, struct stt *t)
{
    int multi = t->runs > 1;
    fprintf(f, "\n Performance counter stats for %s", t->target[0] ? t->target : "'?'");
    if (multi)
        fprintf(f, " (%u runs)", t->runs);
    fprintf(f, ":\n\n");
    double secs = t->elapsed.n ? stt_mean(&t->elapsed) / 1e9 : 0;
    for (int i = 0; i < t->nc; i++)
        stt_print_line(f, t, &t->c[i], stt_mean(&t->c[i]), secs, multi && t->c[i].n > 1, "");
    fprintf(f, "\n");
    if (t->elapsed.n) {
        if (multi) {
            double m = stt_mean(&t->elapsed) / 1e9;
            double rel = stt_rel_stddev(&t->elapsed);
            fprintf(f, "%18.9f +- %.9f seconds time elapsed  ( +- %5.2f%% )\n", m, m * rel / 100, rel);
        } else {
            fprintf(f, "%18.9f seconds time elapsed\n", secs);
        }
        if (!multi && (t->user.n || t->sys.n)) {
            fprintf(f, "\n%18.9f seconds user\n", stt_mean(&t->user) / 1e9);
            fprintf(f, "%18.9f seconds sys\n", stt_mean(&t->sys) / 1e9);
        }
    }
    fprintf(f, "\n");
}

/* -I: the header once, then per reading one line per counter. */
static inline void stt_print_interval_header(FILE *f)
{
    fprintf(f, "#           time             counts unit events\n");
}

static inline void stt_print_interval(FILE *f, struct stt *t, double at_secs, double len_secs,
                                      const char *name, uint64_t value, uint64_t enabled,
                                      uint64_t running, uint32_t flags)
{
    struct stt_counter c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.not_supported = (flags & TR_CNTF_NOT_SUPPORTED) != 0;
    c.not_counted = (flags & TR_CNTF_NOT_COUNTED) != 0;
    c.n = 1;
    c.enabled = (double)enabled;
    c.running = (double)running;
    double v = stt_scale(value, enabled, running);
    /* metrics inside an interval use the interval's own task-clock */
    struct stt_counter *tc = stt_find(t, name);
    if (tc && !c.not_supported && !c.not_counted) {
        tc->n = 1;
        tc->sum = v;
    }
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%16.9f ", at_secs);
    stt_print_line(f, t, &c, v, len_secs, 0, prefix);
}

#endif
