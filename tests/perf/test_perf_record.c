/*
 * test_perf_record - tr-rec-perf end to end on the real kernel with the
 * bundled workloads: proportions of samples in known hot functions, fork and
 * thread inheritance, tracepoint samples with kernel stacks, dwarf mode,
 * attaching with -p, Ctrl-C and SIGKILL, lost samples, counting mode.
 * Needs TR_BIN (the tools) and TR_TESTBIN (its sibling workloads/).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tr.h"
#include "tracefile.h"

static char tool[1024], wl[1024], dir[256];

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

static int setup(void **state)
{
    (void)state;
    const char *bin = getenv("TR_BIN"), *tb = getenv("TR_TESTBIN");
    if (!bin || !tb) {
        fprintf(stderr, "TR_BIN and TR_TESTBIN must be set (make test does)\n");
        return -1;
    }
    snprintf(tool, sizeof tool, "%s/tr-rec-perf", bin);
    snprintf(wl, sizeof wl, "%s/../workloads", tb);
    snprintf(dir, sizeof dir, "/tmp/test_perf_record.XXXXXX");
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* orphaned workloads come back to us to be reaped */
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Run the recorder with a shell-quoted argument string; returns its exit status. */
static int record(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' -q %s >/dev/null 2>>'%s/stderr'", dir, tool, args, dir);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Fork the recorder with argv; stdout and stderr to files in dir. */
static pid_t spawn(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        char p[512];
        snprintf(p, sizeof p, "%s/stderr", dir);
        int fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, 2);
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1);
        if (chdir(dir))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* CPU time (user + system) of task tid of process pid, in ms; -1 when gone. */
static long cpu_ms(pid_t pid, pid_t tid)
{
    char p[96], buf[1024];
    snprintf(p, sizeof p, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    FILE *f = fopen(p, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *q = strrchr(buf, ')'); /* fields after the comm: state is field 3, utime 14, stime 15 */
    unsigned long ut = 0, st = 0;
    if (!q || sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* Wait until task tid has run for ms more milliseconds of CPU (at most 20 s): the tests ask
 * for amounts of samples, and a loaded machine gives the workload less CPU per second. */
static void wait_cpu(pid_t pid, pid_t tid, long ms)
{
    long start = cpu_ms(pid, tid);
    for (int i = 0; i < 2000 && start >= 0; i++) {
        long now = cpu_ms(pid, tid);
        if (now < 0 || now - start >= ms)
            return;
        sleep_ms(10);
    }
}

/* Wait until process pid holds a perf_event file descriptor (attached), at most 10 s. */
static void wait_attached(pid_t pid)
{
    for (int i = 0; i < 1000; i++) {
        char p[64], link[128];
        snprintf(p, sizeof p, "/proc/%d/fd", (int)pid);
        DIR *d = opendir(p);
        int found = 0;
        struct dirent *e;
        while (d && (e = readdir(d)) && !found) {
            char fp[400];
            snprintf(fp, sizeof fp, "%s/%s", p, e->d_name);
            ssize_t n = readlink(fp, link, sizeof link - 1);
            if (n > 0) {
                link[n] = 0;
                found = strstr(link, "perf_event") != NULL;
            }
        }
        if (d)
            closedir(d);
        if (found || !d)
            break;
        sleep_ms(10);
    }
    sleep_ms(50); /* the mappings are read, the events enabled */
}

/* The first child of process pid (the recorder's workload), 0 if none yet. */
static pid_t child_of(pid_t pid)
{
    for (int i = 0; i < 500; i++) {
        char p[96];
        snprintf(p, sizeof p, "/proc/%d/task/%d/children", (int)pid, (int)pid);
        FILE *f = fopen(p, "re");
        int c = 0;
        if (f) {
            if (fscanf(f, "%d", &c) != 1)
                c = 0;
            fclose(f);
        }
        if (c > 0)
            return (pid_t)c;
        sleep_ms(10);
    }
    return 0;
}

static int target_threads_of(pid_t pid, pid_t *tids, int max)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/task", (int)pid);
    DIR *d = opendir(p);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < max)
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
            tids[n++] = (pid_t)atoi(e->d_name);
    if (d)
        closedir(d);
    return n;
}

static void load(struct tf *t, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    assert_int_equal(tf_load(p, t), 0);
}

static size_t count_in(struct tf *t, const char *func, int32_t pid)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nsamples; i++)
        if ((pid <= 0 || t->samples[i].pid == pid) && tf_stack_has(t, &t->samples[i], func))
            n++;
    return n;
}

/* hot3 spends 1:2:3 of its time in spin_one, spin_two, spin_three. */
static void test_hot3_proportions_fp(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "-g -F 999 -o hot3.tr '%s/hot3-fp' 400", wl);
    assert_int_equal(record(args), 0);
    struct tf t;
    load(&t, "hot3.tr");
    assert_true(t.complete);
    assert_true(t.nsamples >= 200);
    size_t n1 = count_in(&t, "spin_one", 0), n2 = count_in(&t, "spin_two", 0),
           n3 = count_in(&t, "spin_three", 0), nb = count_in(&t, "burn", 0),
           nm = count_in(&t, "main", 0);
    size_t total = n1 + n2 + n3;
    print_message("hot3: %zu samples: spin_one %zu spin_two %zu spin_three %zu burn %zu main %zu\n",
                  t.nsamples, n1, n2, n3, nb, nm);
    assert_true(total >= t.nsamples * 8 / 10); /* frame pointers reach the callers */
    assert_true(nm >= t.nsamples * 8 / 10);
    double f1 = (double)n1 / total, f2 = (double)n2 / total, f3 = (double)n3 / total;
    assert_true(f1 > 1 / 6.0 - 0.07 && f1 < 1 / 6.0 + 0.07);
    assert_true(f2 > 2 / 6.0 - 0.07 && f2 < 2 / 6.0 + 0.07);
    assert_true(f3 > 3 / 6.0 - 0.07 && f3 < 3 / 6.0 + 0.07);
    /* the executable's mapping has a build-id; the vDSO image is not in the trace: no sample was
     * in the vDSO (tests/symbolize/cases/vdso has samples that are) */
    int exe = 0;
    for (size_t i = 0; i < t.nmmaps; i++)
        if (strstr(t.mmaps[i].path, "hot3-fp") && (t.mmaps[i].prot & 4)) {
            exe = 1;
            assert_int_equal(t.mmaps[i].build_id_len, 20);
        }
    assert_true(exe);
    assert_false(tf_has_blob(&t, "vdso"));
    assert_true(t.child_exit_status == 0);
    tf_free(&t);
}

/* Children and threads are followed (inherit). */
static void test_fork_and_threads(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "-g -o forker.tr '%s/forker-fp' 150", wl);
    assert_int_equal(record(args), 0);
    struct tf t;
    load(&t, "forker.tr");
    assert_true(t.complete);
    int32_t parent = -1;
    for (size_t i = 0; i < t.ncomms; i++)
        if (t.comms[i].exec && strstr(t.comms[i].comm, "forker"))
            parent = t.comms[i].pid;
    assert_true(parent > 0);
    size_t np = count_in(&t, "parent_spin", parent), nt = count_in(&t, "thread_spin", parent),
           nc = 0;
    int32_t thread_tid = -1, child = -1;
    for (size_t i = 0; i < t.nsamples; i++) {
        struct tf_sample *s = &t.samples[i];
        if (s->pid != parent && tf_stack_has(&t, s, "child_spin")) {
            nc++;
            child = s->pid;
        }
        if (s->pid == parent && s->tid != parent && tf_stack_has(&t, s, "thread_spin"))
            thread_tid = s->tid;
    }
    print_message("forker: parent %zu thread %zu child %zu samples\n", np, nt, nc);
    assert_true(np >= 20 && nt >= 20 && nc >= 20);
    assert_true(thread_tid > 0 && child > 0);
    int fork_child = 0, fork_thread = 0;
    for (size_t i = 0; i < t.nforks; i++) {
        fork_child |= t.forks[i].pid == child && t.forks[i].ppid == parent;
        fork_thread |= t.forks[i].tid == thread_tid && t.forks[i].pid == parent;
    }
    assert_true(fork_child && fork_thread);
    assert_true(t.nexits >= 3);
    /* three tasks on two CPUs: the samples still come in time order */
    for (size_t i = 1; i < t.nsamples; i++)
        assert_true(t.samples[i].time >= t.samples[i - 1].time);
    tf_free(&t);
}

/* sched:sched_switch with -g: every sample has kernel frames, then the user stack. */
static void test_tracepoint_kernel_stacks(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "-g -e sched:sched_switch -o sw.tr '%s/sleeper-fp' 40", wl);
    assert_int_equal(record(args), 0);
    struct tf t;
    load(&t, "sw.tr");
    assert_true(t.complete);
    size_t in_sleepy = 0, n = 0;
    for (size_t i = 0; i < t.nsamples; i++) {
        struct tf_sample *s = &t.samples[i];
        assert_string_equal(s->event, "sched:sched_switch");
        assert_true(s->evflags & TR_EVF_KERNEL_STACK);
        assert_true(s->nframes >= 2);
        assert_true(s->frames[0].flags & TR_FRAME_KERNEL); /* leaf: the scheduler */
        assert_true(s->raw_len > 0);                       /* the tracepoint payload */
        n++;
        in_sleepy += (size_t)tf_stack_has(&t, s, "sleepy_wait");
    }
    print_message("sched_switch: %zu samples, %zu under sleepy_wait\n", n, in_sleepy);
    assert_true(n >= 40);
    assert_true(in_sleepy >= 40);
    assert_true(tf_has_blob(&t, "kallsyms"));
    assert_true(tf_has_blob(&t, "ftrace/format/sched/sched_switch"));
    tf_free(&t);
}

/* --call-graph dwarf: user registers and the used part of the stack copy. */
static void test_dwarf(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "--call-graph dwarf,4096 -o dw.tr '%s/hot3-nofp' 200", wl);
    assert_int_equal(record(args), 0);
    struct tf t;
    load(&t, "dw.tr");
    assert_true(t.complete);
    assert_true(t.nsamples >= 50);
    size_t user = 0, in_burn = 0;
    for (size_t i = 0; i < t.nsamples; i++) {
        struct tf_sample *s = &t.samples[i];
        assert_true(s->evflags & TR_EVF_DWARF);
        if (!s->abi)
            continue; /* a kernel-mode sample without user state */
        user++;
        assert_int_equal(s->abi, 2); /* PERF_SAMPLE_REGS_ABI_64 */
        assert_true(s->nregs >= 16);
        assert_true(s->stack_copy_len > 0 && s->stack_copy_len <= 4096);
        in_burn += (size_t)tf_stack_has(&t, s, "burn");
    }
    print_message("dwarf: %zu samples, %zu with user state, %zu with ip in burn\n", t.nsamples,
                  user, in_burn);
    assert_true(user >= t.nsamples * 9 / 10);
    assert_true(in_burn >= user * 8 / 10);
    tf_free(&t);
}

/* Workload name running long (100000 units), stdout to /dev/null, in its own
 * process group so that the test kills it with its children at the end. */
static pid_t start_workload(const char *name)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", wl, name);
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1);
        setpgid(0, 0);
        execl(path, path, "100000", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* -p attaches to a running process, synthesizes its mappings and detaches cleanly. */
static void test_attach_pid(void **state)
{
    (void)state;
    pid_t victim = start_workload("hot3-fp");
    sleep_ms(100);
    char pidarg[32];
    snprintf(pidarg, sizeof pidarg, "%d", (int)victim);
    char *argv[] = {tool, "-q", "-g", "-p", pidarg, "-o", "attach.tr", NULL};
    pid_t rec = spawn(argv);
    wait_attached(rec);
    wait_cpu(victim, victim, 300);
    kill(rec, SIGINT);
    int st;
    waitpid(rec, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* the process runs on after the detach */
    assert_int_equal(waitpid(victim, &st, WNOHANG), 0);
    assert_int_equal(kill(victim, 0), 0);
    kill(-victim, SIGKILL);
    while (waitpid(-victim, &st, 0) > 0) /* it and its orphaned child (we are the subreaper) */
        ;
    struct tf t;
    load(&t, "attach.tr");
    assert_true(t.complete);
    int exe = 0;
    for (size_t i = 0; i < t.nmmaps; i++)
        exe |= t.mmaps[i].pid == victim && strstr(t.mmaps[i].path, "hot3-fp") &&
               t.mmaps[i].build_id_len == 20;
    assert_true(exe);
    int comm = 0;
    for (size_t i = 0; i < t.ncomms; i++)
        comm |= t.comms[i].pid == victim && !strcmp(t.comms[i].comm, "hot3-fp");
    assert_true(comm);
    size_t spin = count_in(&t, "run_rounds", victim);
    print_message("attach: %zu samples, %zu under run_rounds\n", t.nsamples, spin);
    assert_true(t.nsamples >= 100);
    assert_true(spin >= t.nsamples * 8 / 10);
    tf_free(&t);
}

/* -t records one thread of a running process, nothing of its other threads. */
static void test_attach_thread(void **state)
{
    (void)state;
    pid_t victim = start_workload("forker-fp");
    pid_t tid = 0;
    for (int i = 0; i < 50 && !tid; i++) { /* wait for forker's thread */
        sleep_ms(20);
        pid_t tids[8];
        int n = target_threads_of(victim, tids, 8);
        for (int k = 0; k < n; k++)
            if (tids[k] != victim)
                tid = tids[k];
    }
    assert_true(tid > 0);
    char tidarg[32];
    snprintf(tidarg, sizeof tidarg, "%d", (int)tid);
    char *argv[] = {tool, "-q", "-g", "-t", tidarg, "-o", "tid.tr", NULL};
    pid_t rec = spawn(argv);
    wait_attached(rec);
    wait_cpu(victim, tid, 200);
    kill(rec, SIGINT);
    int st;
    waitpid(rec, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    struct tf t;
    load(&t, "tid.tr");
    kill(-victim, SIGKILL);
    while (waitpid(-victim, &st, 0) > 0) /* it and its orphaned child (we are the subreaper) */
        ;
    assert_true(t.complete);
    assert_true(t.nsamples >= 50);
    for (size_t i = 0; i < t.nsamples; i++) {
        assert_int_equal(t.samples[i].tid, tid);
        assert_int_equal(t.samples[i].pid, victim);
    }
    assert_true(count_in(&t, "thread_spin", victim) >= t.nsamples * 8 / 10);
    tf_free(&t);
}

/* SIGINT to the recorder ends the run cleanly: a complete trace, the command is ended. */
static void test_interrupt(void **state)
{
    (void)state;
    char path[1100];
    snprintf(path, sizeof path, "%s/hot3-fp", wl);
    char *argv[] = {tool, "-q", "-o", "int.tr", path, "100000", NULL};
    pid_t rec = spawn(argv);
    pid_t work = child_of(rec);
    assert_true(work > 0);
    wait_cpu(work, work, 300);
    kill(rec, SIGINT);
    int st;
    waitpid(rec, &st, 0);
    /* the command got SIGTERM and the recorder dies of it too, as perf record does */
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
    struct tf t;
    load(&t, "int.tr");
    assert_true(t.complete);
    assert_false(t.truncated);
    assert_true(t.nsamples >= 100);
    assert_int_equal(t.child_exit_status & 0x7f, SIGTERM);
    tf_free(&t);
}

/* A SIGKILLed recorder leaves a readable prefix. */
static void test_sigkill_prefix(void **state)
{
    (void)state;
    char path[1100];
    snprintf(path, sizeof path, "%s/hot3-fp", wl);
    char *argv[] = {tool, "-q", "-g", "-o", "kill.tr", path, "100000", NULL};
    pid_t rec = spawn(argv);
    pid_t work = child_of(rec);
    assert_true(work > 0);
    wait_cpu(work, work, 300);
    sleep_ms(250); /* the writer flushes at least every 100 ms */
    kill(rec, SIGKILL);
    int st;
    waitpid(rec, &st, 0);
    struct tf t;
    load(&t, "kill.tr");
    assert_false(t.complete);
    assert_true(t.truncated);
    assert_true(t.nsamples >= 100);
    /* the orphaned workload: end it */
    for (size_t i = 0; i < t.ncomms; i++)
        if (t.comms[i].exec) {
            kill(t.comms[i].pid, SIGKILL);
            waitpid(t.comms[i].pid, &st, 0);
        }
    tf_free(&t);
}

/* A ring too small for a sample: lost samples are recorded per CPU and counted. */
static void test_lost_samples(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "-m 1 -F 2000 --call-graph dwarf,65528 -o lost.tr '%s/hot3-nofp' 60", wl);
    assert_int_equal(record(args), 0);
    struct tf t;
    load(&t, "lost.tr");
    assert_true(t.complete);
    print_message("lost: %zu samples, %llu lost in %zu records\n", t.nsamples,
                  (unsigned long long)t.lost, t.nlost_records);
    assert_true(t.lost > 0);
    assert_true(t.nlost_records > 0);
    assert_true(t.lost_cpu_ok);
    tf_free(&t);
}

static uint64_t counter_value(struct tf *t, const char *event, uint32_t run)
{
    for (size_t i = 0; i < t->ncounters; i++)
        if (!strcmp(t->counters[i].event, event) && t->counters[i].run == run &&
            !(t->counters[i].flags & TR_CNTF_INTERVAL))
            return t->counters[i].value;
    return UINT64_MAX;
}

/* Counting mode counts a known number of page faults within tolerance. */
static void test_stat_page_faults(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "--stat -e page-faults,task-clock -o pf0.tr '%s/faulter-fp' 0", wl);
    assert_int_equal(record(args), 0);
    snprintf(args, sizeof args, "--stat -e page-faults,task-clock -o pf1.tr '%s/faulter-fp' 3000", wl);
    assert_int_equal(record(args), 0);
    struct tf a, b;
    load(&a, "pf0.tr");
    load(&b, "pf1.tr");
    assert_true(a.complete && b.complete);
    uint64_t base = counter_value(&a, "page-faults", 0), more = counter_value(&b, "page-faults", 0);
    print_message("page-faults: %llu for 0 pages, %llu for 3000 pages\n", (unsigned long long)base,
                  (unsigned long long)more);
    assert_true(base != UINT64_MAX && more != UINT64_MAX);
    assert_true(more > base);
    uint64_t extra = more - base;
    assert_true(extra >= 2900 && extra <= 3300);
    assert_true(counter_value(&b, "task-clock", 0) > 0);
    assert_true(counter_value(&b, "duration_time", 0) != UINT64_MAX);
    tf_free(&a);
    tf_free(&b);
}

/* -r N writes N runs; the default event set marks what the PMU lacks. */
static void test_stat_repeat_and_defaults(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "--stat -r 3 -o rep.tr '%s/faulter-fp' 100", wl);
    assert_int_equal(record(args), 0);
    struct tf t;
    load(&t, "rep.tr");
    for (uint32_t r = 0; r < 3; r++) {
        assert_true(counter_value(&t, "task-clock", r) != UINT64_MAX);
        assert_true(counter_value(&t, "page-faults", r) >= 100);
    }
    int cycles = 0;
    for (size_t i = 0; i < t.ncounters; i++)
        if (!strcmp(t.counters[i].event, "cycles")) {
            cycles = 1;
            /* either counted or flagged unsupported, never a silent zero */
            assert_true((t.counters[i].flags & TR_CNTF_NOT_SUPPORTED) || t.counters[i].value > 0);
        }
    assert_true(cycles);
    tf_free(&t);
}

/* -I writes interval readings that add up to the total. */
static void test_stat_interval(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "--stat -I 50 -e task-clock -o iv.tr '%s/hot3-fp' 150", wl);
    assert_int_equal(record(args), 0);
    struct tf t;
    load(&t, "iv.tr");
    uint64_t sum = 0, total = counter_value(&t, "task-clock", 0);
    size_t n = 0;
    for (size_t i = 0; i < t.ncounters; i++)
        if (t.counters[i].flags & TR_CNTF_INTERVAL) {
            sum += t.counters[i].value;
            n++;
        }
    assert_true(n >= 2);
    assert_true(total != UINT64_MAX);
    assert_true(sum == total);
    tf_free(&t);
}

/* -a with a command: samples of other processes too, existing mappings synthesized. */
static void test_system_wide(void **state)
{
    (void)state;
    char args[1200];
    snprintf(args, sizeof args, "-a -g -F 499 -o all.tr '%s/forker-fp' 300", wl); /* ~0.2 s: ~200 samples */
    assert_int_equal(record(args), 0);
    struct tf t;
    load(&t, "all.tr");
    assert_true(t.complete);
    assert_true(t.nsamples >= 50);
    /* processes running before the recording (the recorder itself is one) */
    int existing = 0;
    for (size_t i = 0; i < t.nmmaps; i++)
        existing |= strstr(t.mmaps[i].path, "tr-rec-perf") != NULL;
    assert_true(existing);
    assert_true(count_in(&t, "child_spin", 0) >= 10);
    tf_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hot3_proportions_fp),
        cmocka_unit_test(test_fork_and_threads),
        cmocka_unit_test(test_tracepoint_kernel_stacks),
        cmocka_unit_test(test_dwarf),
        cmocka_unit_test(test_attach_pid),
        cmocka_unit_test(test_attach_thread),
        cmocka_unit_test(test_interrupt),
        cmocka_unit_test(test_sigkill_prefix),
        cmocka_unit_test(test_lost_samples),
        cmocka_unit_test(test_stat_page_faults),
        cmocka_unit_test(test_stat_repeat_and_defaults),
        cmocka_unit_test(test_stat_interval),
        cmocka_unit_test(test_system_wide),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
