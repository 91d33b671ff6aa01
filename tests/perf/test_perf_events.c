/* test_perf_events - event names, build-ids and the ring buffer, on the real kernel. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "buildid.h"
#include "events.h"
#include "perf.h"
#include "ring.h"
#include "tr.h"

static void test_software_names(void **state)
{
    (void)state;
    struct perf_ev ev;
    char why[128];
    assert_int_equal(perf_ev_parse("cpu-clock", &ev, why, sizeof why), 0);
    assert_int_equal(ev.type, PERF_TYPE_SOFTWARE);
    assert_int_equal(ev.config, PERF_COUNT_SW_CPU_CLOCK);
    assert_int_equal(ev.tr_kind, TR_EV_SOFTWARE);
    assert_int_equal(perf_ev_parse("faults", &ev, why, sizeof why), 0);
    assert_int_equal(ev.config, PERF_COUNT_SW_PAGE_FAULTS);
    assert_int_equal(perf_ev_parse("cs", &ev, why, sizeof why), 0);
    assert_int_equal(ev.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
    assert_int_equal(perf_ev_parse("task-clock:u", &ev, why, sizeof why), 0);
    assert_int_equal(ev.config, PERF_COUNT_SW_TASK_CLOCK);
    assert_true(ev.exclude_kernel);
    assert_false(ev.exclude_user);
    assert_string_equal(ev.name, "task-clock:u");
    assert_int_equal(perf_ev_parse("cycles:ppk", &ev, why, sizeof why), 0);
    assert_int_equal(ev.precise, 2);
    assert_true(ev.exclude_user);
    assert_false(ev.exclude_kernel);
    assert_int_equal(perf_ev_parse("cycles:pppp", &ev, why, sizeof why), -1);
}

static void test_hardware_cache_raw(void **state)
{
    (void)state;
    struct perf_ev ev;
    char why[128];
    assert_int_equal(perf_ev_parse("cycles", &ev, why, sizeof why), 0);
    assert_int_equal(ev.type, PERF_TYPE_HARDWARE);
    assert_int_equal(ev.config, PERF_COUNT_HW_CPU_CYCLES);
    assert_int_equal(perf_ev_parse("branch-misses", &ev, why, sizeof why), 0);
    assert_int_equal(ev.config, PERF_COUNT_HW_BRANCH_MISSES);
    assert_int_equal(perf_ev_parse("r1a2b", &ev, why, sizeof why), 0);
    assert_int_equal(ev.type, PERF_TYPE_RAW);
    assert_int_equal(ev.config, 0x1a2b);
    assert_int_equal(perf_ev_parse("L1-dcache-load-misses", &ev, why, sizeof why), 0);
    assert_int_equal(ev.type, PERF_TYPE_HW_CACHE);
    assert_int_equal(ev.config, PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
                                    (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
    assert_int_equal(perf_ev_parse("LLC-loads", &ev, why, sizeof why), 0);
    assert_int_equal(ev.config, PERF_COUNT_HW_CACHE_LL);
}

static void test_unknown_and_lists(void **state)
{
    (void)state;
    struct perf_ev evs[4];
    char why[256];
    assert_int_equal(perf_ev_parse("no-such-event", &evs[0], why, sizeof why), -1);
    assert_non_null(strstr(why, "unknown event"));
    assert_int_equal(perf_ev_parse("nosuchsys:nosuchtp", &evs[0], why, sizeof why), -1);
    assert_non_null(strstr(why, "tracepoint"));
    assert_int_equal(perf_ev_parse_list("cpu-clock,page-faults", evs, 4, why, sizeof why), 2);
    assert_string_equal(evs[1].name, "page-faults");
    assert_int_equal(perf_ev_parse_list("cpu-clock,,x", evs, 4, why, sizeof why), -1);
    assert_int_equal(perf_ev_parse_list("a,b,c,d,e", evs, 4, why, sizeof why), -1);
}

static void test_tracepoint(void **state)
{
    (void)state;
    struct perf_ev ev;
    char why[256];
    /* the kernel fact, read without the module under test */
    if (access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK) &&
        access("/sys/kernel/debug/tracing/events/sched/sched_switch/id", R_OK)) {
        print_message("SKIP: the kernel has no tracefs with the sched:sched_switch tracepoint\n");
        skip();
    }
    assert_int_equal(perf_ev_parse("sched:sched_switch", &ev, why, sizeof why), 0);
    assert_int_equal(ev.type, PERF_TYPE_TRACEPOINT);
    assert_int_equal(ev.tr_kind, TR_EV_TRACEPOINT);
    assert_true(ev.config > 0);
    size_t len = 0;
    char *fmt = perf_tracepoint_format("sched:sched_switch", &len);
    assert_non_null(fmt);
    assert_non_null(strstr(fmt, "prev_pid"));
    free(fmt);
}

/* -e 'syscalls:sys_enter_*': every tracepoint of tracefs the glob matches, in name order */
static void test_tracepoint_glob(void **state)
{
    (void)state;
    static struct perf_ev evs[1024];
    char why[256];
    const char *dir = "/sys/kernel/tracing/events/syscalls";
    DIR *d = opendir(dir);
    if (!d) {
        print_message("SKIP: the kernel has no syscalls tracepoints in tracefs\n");
        skip();
    }
    int want = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        want += !strncmp(e->d_name, "sys_enter_", 10);
    closedir(d);
    int n = perf_ev_parse_list("syscalls:sys_enter_*,cpu-clock", evs, 1024, why, sizeof why);
    assert_int_equal(n, want + 1);
    for (int i = 0; i < want; i++) {
        assert_int_equal(evs[i].type, PERF_TYPE_TRACEPOINT);
        assert_int_equal(strncmp(evs[i].name, "syscalls:sys_enter_", 19), 0);
        assert_true(i == 0 || strcmp(evs[i - 1].name, evs[i].name) < 0);
    }
    assert_string_equal(evs[want].name, "cpu-clock");
    assert_int_equal(perf_ev_parse_list("syscalls:no_such_*", evs, 1024, why, sizeof why), -1);
    assert_non_null(strstr(why, "no tracepoint matches"));
}

/* PMU events by libpfm4's name, on Skylake's tables (LIBPFM_FORCE_PMU: this VM has no PMU):
 * INST_RETIRED.ANY_P is event 0xc0, umask 0 (Intel SDM vol. 3B, 19.2) */
static void test_pfm_names(void **state)
{
    (void)state;
    struct perf_ev ev;
    char why[256];
    assert_int_equal(perf_ev_parse("skl::INST_RETIRED:ANY_P", &ev, why, sizeof why), 0);
    assert_int_equal(ev.type, PERF_TYPE_RAW);
    assert_int_equal(ev.config & 0xffff, 0x00c0);
    assert_int_equal(ev.tr_kind, TR_EV_RAW);
    assert_int_equal(perf_ev_parse("INST_RETIRED:ANY_P", &ev, why, sizeof why), 0);
    assert_int_equal(ev.config & 0xffff, 0x00c0);
    /* BR_MISP_RETIRED.ALL_BRANCHES: event 0xc5, umask 0 */
    assert_int_equal(perf_ev_parse("skl::BR_MISP_RETIRED:ALL_BRANCHES", &ev, why, sizeof why), 0);
    assert_int_equal(ev.config & 0xffff, 0x00c5);
    assert_int_equal(perf_ev_parse("skl::NO_SUCH_EVENT", &ev, why, sizeof why), -1);
    assert_string_equal(why, "unknown event");
    assert_int_equal(perf_ev_parse("skl::INST_RETIRED:NO_SUCH_UMASK", &ev, why, sizeof why), -1);
    assert_non_null(strstr(why, "libpfm4: "));
}

static void test_build_id_of_self(void **state)
{
    (void)state;
    uint8_t a[BUILD_ID_MAX], b[BUILD_ID_MAX];
    /* /proc/self/exe was linked with a GNU build-id note (gcc's default on Debian) */
    int n = build_id_from_file("/proc/self/exe", a);
    assert_true(n == 20);
    assert_int_equal(build_id_from_file("/dev/null", b), -1);
    assert_int_equal(build_id_from_file("/no/such/file", b), -1);
    /* the vDSO in memory */
    const void *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
    if (vdso) {
        size_t len = elf_image_size(vdso, 65536);
        assert_true(len > 1000 && len <= 65536);
        assert_true(build_id_from_mem(vdso, len, b) > 0);
    }
}

static void test_target_helpers(void **state)
{
    (void)state;
    pid_t p[4];
    assert_int_equal(target_parse_pids("12,34", p, 4), 2);
    assert_int_equal(p[1], 34);
    assert_int_equal(target_parse_pids("12,x", p, 4), -1);
    assert_int_equal(target_parse_pids("", p, 4), -1);
    assert_int_equal(target_parse_pids("1,2,3,4,5", p, 4), -1);
    int cpus[64];
    assert_true(target_cpus(cpus, 64) >= 1);
    pid_t tids[8];
    assert_int_equal(target_threads(getpid(), tids, 8), 1);
    assert_int_equal(tids[0], getpid());
    char buf[16];
    char *argv[] = {"a", "bb", "cccccccccccccccccccc"};
    target_join(buf, sizeof buf, argv, 3);
    assert_int_equal(strncmp(buf, "a bb", 4), 0);
    assert_true(strlen(buf) < sizeof buf);
    assert_int_equal(target_exit_code(3 << 8), 3);
    assert_int_equal(target_exit_code(9), 137);
}

static volatile unsigned long spin_sink;

/* A live cpu-clock sampling event on this thread: samples come through the ring. */
static void test_ring_live(void **state)
{
    (void)state;
    struct perf_event_attr a = {.size = sizeof a, .type = PERF_TYPE_SOFTWARE,
                                .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 100000,
                                .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
                                .disabled = 1, .exclude_kernel = 1, .use_clockid = 1,
                                .clockid = CLOCK_MONOTONIC};
    int fd = perf_event_open_fd(&a, 0, -1, -1, 0);
    if (fd < 0) {
        print_message("SKIP: the kernel refuses perf_event_open of the cpu-clock software event: %s\n",
                      strerror(errno));
        skip();
    }
    struct perf_ring r;
    assert_int_equal(ring_map(&r, fd, 2), 0); /* small: records wrap around */
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    unsigned samples = 0;
    uint64_t last_time = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 100000; i++)
            spin_sink += (unsigned long)i;
        ring_begin(&r);
        const struct perf_event_header *h;
        while ((h = ring_next(&r))) {
            if (h->type != PERF_RECORD_SAMPLE)
                continue;
            assert_int_equal(h->size, sizeof *h + 8 + 8 + 8);
            uint32_t pt[2];
            uint64_t t;
            memcpy(pt, (const uint8_t *)(h + 1) + 8, 8);
            memcpy(&t, (const uint8_t *)(h + 1) + 16, 8);
            assert_int_equal(pt[0], getpid());
            assert_true(t >= last_time);
            last_time = t;
            samples++;
        }
        ring_end(&r);
        clock_gettime(CLOCK_MONOTONIC, &t1);
    } while (samples < 300 && t1.tv_sec - t0.tv_sec < 5);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    ring_unmap(&r);
    close(fd);
    assert_true(samples >= 300);
}

int main(void)
{
    setenv("LIBPFM_FORCE_PMU", "skl", 1); /* before libpfm4's first use (test_pfm_names) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_software_names),    cmocka_unit_test(test_hardware_cache_raw),
        cmocka_unit_test(test_unknown_and_lists), cmocka_unit_test(test_tracepoint),
        cmocka_unit_test(test_tracepoint_glob),   cmocka_unit_test(test_pfm_names),
        cmocka_unit_test(test_build_id_of_self),  cmocka_unit_test(test_target_helpers),
        cmocka_unit_test(test_ring_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
