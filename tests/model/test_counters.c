/* model/counters.h: the perf stat table.  Scaling for multiplexing, mean and relative
 * stddev over -r runs, the derived metrics, the <not supported> / <not counted> lines, the
 * -I lines, each formatted as perf stat prints it; and a table filled from counter records
 * written and read back through the format, as tr-cat fills it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters.h"
#include "tr.h"

/* The lines of a formatted table. */
struct lines {
    char text[64][640];
    int n;
    int stop_at; /* fail the n-th line (from 1) with -42, 0 never */
};

static int collect(void *arg, const char *line, size_t len)
{
    struct lines *l = arg;
    assert_int_equal(strlen(line), len);
    if (l->stop_at && l->n + 1 == l->stop_at)
        return -42;
    assert_true(l->n < 64);
    snprintf(l->text[l->n++], sizeof l->text[0], "%s", line);
    return 0;
}

/* The line that contains needle, or NULL. */
static const char *line_with(const struct lines *l, const char *needle)
{
    for (int i = 0; i < l->n; i++)
        if (strstr(l->text[i], needle))
            return l->text[i];
    return NULL;
}

static void test_scale(void **state)
{
    (void)state;
    /* counted half of the time it was enabled: twice the value */
    assert_true(counters_scale(100, 2000, 1000) == 200.0);
    assert_true(counters_scale(100, 3000, 1000) == 300.0);
    /* counted all the time, or no times known: the value */
    assert_true(counters_scale(100, 1000, 1000) == 100.0);
    assert_true(counters_scale(100, 0, 0) == 100.0);
    assert_true(counters_scale(100, 1000, 0) == 100.0);

    struct counters t;
    memset(&t, 0, sizeof t);
    assert_int_equal(counters_add(&t, "page-faults", 100, 1000, 500, 0, 0), 0);
    assert_int_equal(t.nc, 1);
    assert_int_equal(t.runs, 1);
    assert_true(counters_mean(&t.c[0]) == 200.0);
    assert_true(t.c[0].enabled == 1000.0 && t.c[0].running == 500.0);
}

static void test_runs_mean_stddev(void **state)
{
    (void)state;
    struct counters t;
    memset(&t, 0, sizeof t);
    /* three runs: 10, 20, 30 -> mean 20, stddev 10, of the mean 10/sqrt(3) = 28.87% of 20 */
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(counters_add(&t, "page-faults", 10 * (i + 1), 0, 0, 0, i), 0);
    assert_int_equal(t.runs, 3);
    assert_int_equal(t.nc, 1);
    assert_int_equal(t.c[0].n, 3);
    assert_true(counters_mean(&t.c[0]) == 20.0);
    double rel = counters_rel_stddev(&t.c[0]);
    assert_true(fabs(rel - 100.0 * 10.0 / sqrt(3.0) / 20.0) < 1e-9);
    /* one value, or none: no spread */
    struct counters_entry one = {.n = 1, .sum = 5, .sumsq = 25};
    assert_true(counters_rel_stddev(&one) == 0.0);
    struct counters_entry none = {0};
    assert_true(counters_mean(&none) == 0.0 && counters_rel_stddev(&none) == 0.0);
    /* equal values: no spread either */
    struct counters e;
    memset(&e, 0, sizeof e);
    for (uint32_t i = 0; i < 4; i++)
        counters_add(&e, "cs", 7, 0, 0, 0, i);
    assert_true(counters_rel_stddev(&e.c[0]) == 0.0);

    struct lines l = {.n = 0};
    snprintf(t.target, sizeof t.target, "'prog'");
    for (uint32_t i = 0; i < 3; i++)
        counters_add(&t, "duration_time", 100000000ull * (i + 1), 0, 0, 0, i);
    assert_int_equal(counters_format_table(&t, collect, &l), 0);
    assert_string_equal(l.text[1], " Performance counter stats for 'prog' (3 runs):");
    assert_string_equal(line_with(&l, "page-faults"),
                        "                20      page-faults                      #  100.000 /sec                 ( +- 28.87% )");
    /* elapsed 0.1, 0.2, 0.3 s: mean 0.2 +- 0.057735 */
    assert_string_equal(line_with(&l, "elapsed"),
                        "       0.200000000 +- 0.057735027 seconds time elapsed  ( +- 28.87% )");
    assert_null(line_with(&l, "seconds user")); /* perf stat -r shows no user and sys times */
}

static void test_special_rows(void **state)
{
    (void)state;
    struct counters t;
    memset(&t, 0, sizeof t);
    assert_int_equal(counters_add(&t, "cycles", 0, 0, 0, TR_CNTF_NOT_SUPPORTED, 0), 0);
    assert_int_equal(counters_add(&t, "instructions", 0, 0, 0, TR_CNTF_NOT_COUNTED, 0), 0);
    assert_int_equal(counters_add(&t, "branches", 55, 1000, 0, 0, 0), 0); /* enabled, never ran */
    /* tool events are no rows */
    assert_int_equal(counters_add(&t, "duration_time", 2000000000, 0, 0, 0, 0), 0);
    assert_int_equal(counters_add(&t, "user_time", 1500000000, 0, 0, 0, 0), 0);
    assert_int_equal(counters_add(&t, "system_time", 250000000, 0, 0, 0, 0), 0);
    assert_int_equal(t.nc, 3);
    assert_true(t.c[0].not_supported && !t.c[0].n);
    assert_true(t.c[1].not_counted && t.c[2].not_counted);
    assert_ptr_equal(counters_find(&t, "duration_time"), &t.elapsed);

    struct lines l = {.n = 0};
    assert_int_equal(counters_format_table(&t, collect, &l), 0);
    const char *want[] = {"",
                          " Performance counter stats for '?':",
                          "",
                          "   <not supported>      cycles",
                          "     <not counted>      instructions",
                          "     <not counted>      branches",
                          "",
                          "       2.000000000 seconds time elapsed",
                          "",
                          "       1.500000000 seconds user",
                          "       0.250000000 seconds sys",
                          ""};
    assert_int_equal(l.n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < l.n; i++)
        assert_string_equal(l.text[i], want[i]);

    /* the receiver stops the formatting */
    struct lines stop = {.n = 0, .stop_at = 4};
    assert_int_equal(counters_format_table(&t, collect, &stop), -42);
    assert_int_equal(stop.n, 3);

    /* a full table refuses new events, keeps the known ones */
    struct counters full;
    memset(&full, 0, sizeof full);
    char name[32];
    for (int i = 0; i < COUNTERS_MAX; i++) {
        snprintf(name, sizeof name, "ev%d", i);
        assert_int_equal(counters_add(&full, name, 1, 0, 0, 0, 0), 0);
    }
    assert_int_equal(counters_add(&full, "one-more", 1, 0, 0, 0, 0), TR_E_TOO_LARGE);
    assert_null(counters_find(&full, "one-more"));
    assert_int_equal(counters_add(&full, "ev3", 1, 0, 0, 0, 1), 0);
    assert_int_equal(full.c[3].n, 2);
}

/* --per-thread: each event's threads, highest first, metrics from the thread's own task-clock;
 * the expected lines are perf stat --per-thread's (6.1) of the same values, trailing blanks cut. */
static void test_per_thread(void **state)
{
    (void)state;
    struct counters t;
    memset(&t, 0, sizeof t);
    snprintf(t.target, sizeof t.target, "process id '21617'");
    assert_int_equal(counters_add_thread(&t, "task-clock", 21619, "sleeper", 127250, 127250, 127250, 0), 0);
    assert_int_equal(counters_add_thread(&t, "task-clock", 21621, "burner", 315456300, 315456300, 315456300, 0), 0);
    assert_int_equal(counters_add_thread(&t, "task-clock", 1, "process_api", 0, 0, 0, 0), 0);
    assert_int_equal(counters_add_thread(&t, "context-switches", 21620, "reader", 0, 110000, 110000, 0), 0);
    assert_int_equal(counters_add_thread(&t, "context-switches", 21619, "sleeper", 4, 127250, 127250, 0), 0);
    assert_int_equal(counters_add_thread(&t, "context-switches", 21621, "burner", 96, 315456300, 315456300, 0), 0);
    assert_int_equal(counters_add_thread(&t, "duration_time", 1, "x", 1, 1, 1, 0), TR_E_TOO_LARGE);
    assert_int_equal(counters_add(&t, "cycles", 0, 0, 0, TR_CNTF_NOT_SUPPORTED, 0), 0);
    assert_int_equal(counters_add(&t, "duration_time", 1001115053, 0, 0, 0, 0), 0);
    struct lines l = {.n = 0};
    assert_int_equal(counters_format_table(&t, collect, &l), 0);
    const char *want[] = {
        "",
        " Performance counter stats for process id '21617':",
        "",
        "          burner-21621                315.46 msec task-clock                       #    0.315 CPUs utilized",
        "         sleeper-21619                  0.13 msec task-clock                       #    0.000 CPUs utilized",
        "     process_api-1             <not counted> msec task-clock",
        "          burner-21621                    96      context-switches                 #  304.321 /sec",
        "         sleeper-21619                     4      context-switches                 #   31.434 K/sec",
        "          reader-21620                     0      context-switches                 #    0.000 /sec",
        "   <not supported>      cycles",
        "",
        "       1.001115053 seconds time elapsed",
        ""};
    assert_int_equal(l.n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < l.n; i++)
        assert_string_equal(l.text[i], want[i]);
    /* system-wide (perf stat -a --per-thread): threads that counted nothing are left out */
    t.skip_zero = 1;
    l.n = 0;
    assert_int_equal(counters_format_table(&t, collect, &l), 0);
    assert_null(line_with(&l, "reader"));
    assert_null(line_with(&l, "process_api"));
    assert_non_null(line_with(&l, "sleeper-21619                     4"));
    counters_free(&t);
    assert_int_equal(t.nthreads, 0);
}

static void test_metrics(void **state)
{
    (void)state;
    struct counters t;
    memset(&t, 0, sizeof t);
    snprintf(t.target, sizeof t.target, "'prog arg'");
    counters_add(&t, "task-clock", 50000000, 50000000, 50000000, 0, 0); /* 50 ms */
    counters_add(&t, "cycles", 100000000, 0, 0, 0, 0);
    counters_add(&t, "instructions", 150000000, 0, 0, 0, 0);
    counters_add(&t, "branches", 1000000, 0, 0, 0, 0);
    counters_add(&t, "branch-misses", 10000, 0, 0, 0, 0);
    counters_add(&t, "cache-references", 1000, 0, 0, 0, 0);
    counters_add(&t, "cache-misses", 250, 0, 0, 0, 0);
    counters_add(&t, "page-faults", 100, 1000, 500, 0, 0); /* multiplexed: 200 */
    counters_add(&t, "context-switches", 3, 0, 0, 0, 0);
    counters_add(&t, "duration_time", 100000000, 0, 0, 0, 0); /* 0.1 s */
    struct lines l = {.n = 0};
    assert_int_equal(counters_format_table(&t, collect, &l), 0);
    assert_string_equal(l.text[1], " Performance counter stats for 'prog arg':");
    /* 50 ms of task-clock in 0.1 s */
    assert_string_equal(line_with(&l, "task-clock"),
                        "             50.00 msec task-clock                       #    0.500 CPUs utilized");
    /* 1e8 cycles in 50 ms of task-clock: 2 GHz */
    assert_string_equal(line_with(&l, " cycles"),
                        "         100000000      cycles                           #    2.000 GHz");
    assert_string_equal(line_with(&l, "instructions"),
                        "         150000000      instructions                     #     1.50  insn per cycle");
    assert_string_equal(line_with(&l, "branch-misses"),
                        "             10000      branch-misses                    #     1.00% of all branches");
    assert_string_equal(line_with(&l, "cache-misses"),
                        "               250      cache-misses                     #   25.000 % of all cache refs");
    /* rates per second of task-clock, with the multiplexing percentage */
    assert_string_equal(line_with(&l, "page-faults"),
                        "               200      page-faults                      #    4.000 K/sec                (50.00%)");
    assert_string_equal(line_with(&l, "context-switches"),
                        "                 3      context-switches                 #   60.000 /sec");
    assert_string_equal(line_with(&l, "branches "),
                        "           1000000      branches                         #   20.000 M/sec");
    assert_string_equal(line_with(&l, "elapsed"), "       0.100000000 seconds time elapsed");

    /* without task-clock, rates are per second elapsed and there is no IPC without cycles */
    struct counters u;
    memset(&u, 0, sizeof u);
    counters_add(&u, "instructions", 5000, 0, 0, 0, 0);
    counters_add(&u, "duration_time", 2000000000, 0, 0, 0, 0);
    struct lines m = {.n = 0};
    counters_format_table(&u, collect, &m);
    assert_string_equal(line_with(&m, "instructions"), "              5000      instructions");
    counters_add(&u, "page-faults", 5000, 0, 0, 0, 0);
    m.n = 0;
    counters_format_table(&u, collect, &m);
    assert_string_equal(line_with(&m, "page-faults"),
                        "              5000      page-faults                      #    2.500 K/sec");
}

static void test_interval(void **state)
{
    (void)state;
    struct counters scratch;
    memset(&scratch, 0, sizeof scratch);
    char buf[512];
    /* task-clock first: the page-faults rate of the same interval uses it */
    size_t n = counters_format_interval(&scratch, 1.0, 0.5, "task-clock", 250000000, 0, 0, 0, buf, sizeof buf);
    assert_int_equal(n, strlen(buf));
    assert_string_equal(buf, "     1.000000000             250.00 msec task-clock                       #"
                             "    0.500 CPUs utilized");
    counters_format_interval(&scratch, 1.0, 0.5, "page-faults", 500, 0, 0, 0, buf, sizeof buf);
    assert_string_equal(buf, "     1.000000000                500      page-faults                      #"
                             "    2.000 K/sec");
    /* the next interval's own task-clock replaces it */
    counters_format_interval(&scratch, 2.0, 1.0, "task-clock", 1000000000, 0, 0, 0, buf, sizeof buf);
    counters_format_interval(&scratch, 2.0, 1.0, "page-faults", 500, 2000, 1000, 0, buf, sizeof buf);
    assert_string_equal(buf, "     2.000000000               1000      page-faults                      #"
                             "    1.000 K/sec                (50.00%)");
    counters_format_interval(&scratch, 2.0, 1.0, "cycles", 0, 0, 0, TR_CNTF_NOT_SUPPORTED, buf, sizeof buf);
    assert_string_equal(buf, "     2.000000000    <not supported>      cycles");
    counters_format_interval(&scratch, 2.0, 1.0, "instructions", 0, 0, 0, TR_CNTF_NOT_COUNTED, buf, sizeof buf);
    assert_string_equal(buf, "     2.000000000      <not counted>      instructions");
    /* a small buffer cuts the line */
    n = counters_format_interval(&scratch, 2.0, 1.0, "page-faults", 500, 0, 0, 0, buf, 10);
    assert_int_equal(n, 9);
    assert_string_equal(buf, "     2.00");
    assert_string_equal(COUNTERS_INTERVAL_HEADER, "#           time             counts unit events");
}

/* Counter records through the format, into a table as tr-cat fills it. */
static void test_from_records(void **state)
{
    (void)state;
    int fd = memfd_create("test_counters", 0); /* the writer writes to an fd: one in memory */
    assert_true(fd >= 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
    const char *names[] = {"task-clock", "page-faults", "duration_time"};
    uint32_t ids[3];
    for (int i = 0; i < 3; i++) {
        tr_event_def d = {.kind = TR_EV_OTHER, .name = names[i], .name_len = strlen(names[i])};
        assert_int_equal(tr_writer_event(w, &d, &ids[i]), 0);
    }
    for (uint32_t run = 0; run < 2; run++) {
        uint64_t vals[3] = {40000000 + run * 20000000, 100 + run * 100, 100000000};
        for (int i = 0; i < 3; i++) {
            tr_record rec = {.type = TR_REC_COUNTER, .time = 1000 + run, .pid = -1, .tid = -1, .cpu = -1};
            rec.u.counter.event = ids[i];
            rec.u.counter.value = vals[i];
            rec.u.counter.run = run;
            assert_int_equal(tr_writer_add(w, &rec), 0);
        }
    }
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_free(w);
    off_t size = lseek(fd, 0, SEEK_END);
    assert_true(size > 0);
    char *data = malloc((size_t)size);
    assert_non_null(data);
    assert_int_equal(pread(fd, data, (size_t)size, 0), size);
    close(fd);

    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, data, (size_t)size, NULL), 0);
    struct counters t;
    memset(&t, 0, sizeof t);
    tr_record rec;
    int rc, counters = 0;
    while ((rc = tr_reader_next(r, &rec)) > 0) {
        if (rec.type != TR_REC_COUNTER)
            continue;
        const tr_event_def *ev = tr_reader_event(r, rec.u.counter.event);
        assert_non_null(ev);
        assert_int_equal(counters_add(&t, ev->name, rec.u.counter.value, rec.u.counter.enabled,
                                      rec.u.counter.running, rec.u.counter.flags, rec.u.counter.run),
                         0);
        counters++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(counters, 6);
    tr_reader_free(r);
    free(data);
    assert_int_equal(t.runs, 2);
    assert_int_equal(t.nc, 2);
    assert_true(counters_mean(&t.c[0]) == 50000000.0); /* task-clock 40 and 60 ms */
    assert_true(counters_mean(&t.c[1]) == 150.0);
    struct lines l = {.n = 0};
    counters_format_table(&t, collect, &l);
    assert_string_equal(l.text[1], " Performance counter stats for '?' (2 runs):");
    /* 150 faults in 50 ms */
    assert_string_equal(line_with(&l, "page-faults"),
                        "               150      page-faults                      #    3.000 K/sec                ( +- 33.33% )");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale),        cmocka_unit_test(test_runs_mean_stddev),
        cmocka_unit_test(test_special_rows), cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_interval),     cmocka_unit_test(test_from_records),
        cmocka_unit_test(test_per_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
