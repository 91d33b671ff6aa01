/*
 * counters.h - the perf stat table: counter readings accumulated over runs,
 * scaled for multiplexing, with the derived metrics perf stat prints (CPUs
 * utilized, GHz, insn per cycle, miss ratios, rates), formatted line by line
 * as perf stat prints them.  tr-rec-perf --stat fills it from its counters
 * and tr-cat from TR_REC_COUNTER records; each writes the lines itself.
 *
 * Counter records: one per event per run (flags without TR_CNTF_INTERVAL)
 * holding the raw value with time enabled/running (readers scale), plus
 * the events "duration_time", "user_time" and "system_time" (ns) per run;
 * -I readings carry TR_CNTF_INTERVAL and the delta since the previous one.
 * With --per-thread a final reading is one thread's (the record's pid/tid)
 * and the table lists every thread of each event, as perf stat --per-thread.
 *
 * A zeroed struct counters is an empty table; counters_free frees what
 * per-thread readings took.  Never prints or exits.
 */
#ifndef MODEL_COUNTERS_H
#define MODEL_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

/* Events a table holds, besides the three tool events. */
#define COUNTERS_MAX 64

/* One event's readings over the runs. */
struct counters_entry {
    char name[128];
    int not_supported, not_counted; /* some run said so (TR_CNTF_*) */
    unsigned n;                     /* runs with a value */
    double sum, sumsq;              /* of the scaled values */
    double enabled, running;        /* sums, for the multiplexing percentage */
};

/* One thread's final reading of one row (--per-thread). */
struct counters_thread {
    int32_t tid;
    char comm[32];
    int row; /* its event: an index into counters.c */
    uint64_t value, enabled, running;
    uint32_t flags; /* TR_CNTF_* */
};

struct counters {
    char target[512]; /* "'cmd args'", "'system wide'", "process id '12'"; the caller's */
    unsigned runs;    /* highest run number + 1 seen by counters_add */
    struct counters_entry c[COUNTERS_MAX]; /* table rows, in the order first seen */
    int nc;
    struct counters_entry elapsed, user, sys; /* duration_time, user_time, system_time */
    struct counters_thread *threads; /* per-thread readings, in the order added */
    size_t nthreads, capthreads;
    int skip_zero; /* per thread: leave out threads that counted 0 (perf stat -a --per-thread) */
};

/* The entry of event name: one of the tool events, an existing row, or a
 * new row at the end (table order is the order of first look-up).  NULL
 * when the table is full. */
struct counters_entry *counters_find(struct counters *t, const char *name);

/* value scaled for multiplexing: value * enabled / running when the event
 * ran only part of the time it was enabled, else value. */
double counters_scale(uint64_t value, uint64_t enabled, uint64_t running);

/* Account one final (not interval) reading of event name in run number run
 * (from 0): TR_CNTF_NOT_SUPPORTED and TR_CNTF_NOT_COUNTED in flags, or an
 * event enabled but never running, mark the entry instead of adding a
 * value.  0, or TR_E_TOO_LARGE when the table is full (nothing added). */
int counters_add(struct counters *t, const char *name, uint64_t value, uint64_t enabled, uint64_t running,
                 uint32_t flags, uint32_t run);

/* Account one thread's final reading of event name (--per-thread; run 0):
 * the table then lists each event's threads instead of its total.  0,
 * TR_E_TOO_LARGE when the table is full, TR_E_NOMEM. */
int counters_add_thread(struct counters *t, const char *name, int32_t tid, const char *comm, uint64_t value,
                        uint64_t enabled, uint64_t running, uint32_t flags);

/* Free the per-thread readings (the table is then empty of them). */
void counters_free(struct counters *t);

/* Mean of the entry's values over the runs that had one (0 without any). */
double counters_mean(const struct counters_entry *e);
/* Relative standard deviation of the mean in percent (perf stat's "+-"):
 * 0 with fewer than two values or a zero mean. */
double counters_rel_stddev(const struct counters_entry *e);

/* The receiver of formatted lines: one line without its newline (len
 * bytes, NUL-terminated); 0 to go on, or a negative value that stops the
 * formatting and is returned by it. */
typedef int (*counters_line_fn)(void *arg, const char *line, size_t len);

/* The whole table as perf stat prints it, one line at a time to fn (blank
 * lines too): the "Performance counter stats for TARGET (N runs):" header,
 * one line per row, or with per-thread readings one line per thread of each
 * row ("%16s-%-8d " comm and tid first, threads by value, highest first,
 * metrics from the thread's own task-clock and counts), each (value or msec, metric comment, "(NN.NN%)" when
 * multiplexed, "( +- N.NN% )" over several runs, "<not supported>" and
 * "<not counted>"), the seconds elapsed, user and sys.  Lines carry no
 * trailing blanks.  0, or the first negative return of fn. */
int counters_format_table(const struct counters *t, counters_line_fn fn, void *arg);

/* The header line that precedes -I readings, without its newline. */
#define COUNTERS_INTERVAL_HEADER "#           time             counts unit events"

/* One -I reading as perf stat -I prints it ("  at_secs  value name # metric"),
 * without newline or trailing blanks, into buf (size bytes, NUL-terminated,
 * cut when too small).  len_secs is the interval's length.  The reading is
 * also kept in t as the event's latest value, for the metrics of readings
 * formatted after it (the interval's own task-clock, cycles ...): t is the
 * caller's scratch table for a sequence of readings.  Returns the length
 * of the line (less than size). */
size_t counters_format_interval(struct counters *t, double at_secs, double len_secs, const char *name,
                                uint64_t value, uint64_t enabled, uint64_t running, uint32_t flags, char *buf,
                                size_t size);

#endif
