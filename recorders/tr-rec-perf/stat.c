/*
 * stat.c - counting mode (perf stat): open counters on the target, run the
 * command (N times with -r), read them at the end (and every -I ms), write
 * TR_REC_COUNTER records and print the perf-stat-like table on stderr.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "counters.h"
#include "keys.h"
#include "perf.h"
#include "sideband.h"
#include "tr.h"
#include "keys.h"

#define MAX_CPUS 1024

static const char *const default_events[] = {
    "task-clock", "context-switches", "cpu-migrations", "page-faults",
    "cycles", "instructions", "branches", "branch-misses", NULL};
/* perf stat -d, -d -d, -d -d -d: each level adds its events to the ones before */
static const char *const detailed_events[3][7] = {
    {"L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses", NULL},
    {"L1-icache-loads", "L1-icache-load-misses", "dTLB-loads", "dTLB-load-misses", "iTLB-loads",
     "iTLB-load-misses", NULL},
    {"L1-dcache-prefetches", "L1-dcache-prefetch-misses", NULL}};

struct counter {
    int *fds;
    int *thr;         /* per fd: its thread, an index into stat_run.thr (-1: none) */
    int nfds;
    size_t capfds, capthr;
    int supported;
    uint64_t last[3]; /* previous interval reading: value, enabled, running */
};

/* A thread counted on its own (-p, -t; -a with --per-thread). */
struct sthread {
    pid_t pid, tid;
    int must;       /* an error when it is gone: a -t thread, a -p process's main thread */
    char comm[32];
};

struct stat_run {
    struct perf_opts *o;
    struct sthread *thr;
    size_t nthr, capthr;
    tr_writer *w;
    uint32_t evid[PERF_MAX_EVENTS];
    uint32_t tool_id[3]; /* duration_time, user_time, system_time */
    struct counter ctr[PERF_MAX_EVENTS];
    int cpus[MAX_CPUS];
    int ncpus;
    struct counters table;
    int werr;
};

static void werr(struct stat_run *s, int rc)
{
    if (rc < 0 && !s->werr)
        s->werr = rc;
}

static int define(struct stat_run *s)
{
    struct perf_opts *o = s->o;
    for (int i = 0; i < o->nevs; i++) {
        tr_event_def d = {.kind = o->evs[i].tr_kind, .config = o->evs[i].config,
                          .name = o->evs[i].name, .name_len = strlen(o->evs[i].name)};
        int rc = tr_writer_event(s->w, &d, &s->evid[i]);
        if (rc < 0)
            return rc;
    }
    static const char *const tools[] = {"duration_time", "user_time", "system_time"};
    for (int i = 0; i < 3; i++) {
        tr_event_def d = {.kind = TR_EV_OTHER, .name = tools[i], .name_len = strlen(tools[i])};
        int rc = tr_writer_event(s->w, &d, &s->tool_id[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int open_one(struct stat_run *s, int i, pid_t pid, int cpu, int enable_on_exec, int thr)
{
    const struct perf_ev *ev = &s->o->evs[i];
    struct perf_event_attr a = {.size = sizeof a, .type = ev->type, .config = ev->config};
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    a.disabled = 1;
    a.inherit = !s->o->no_inherit && pid != -1;
    a.enable_on_exec = (unsigned)enable_on_exec;
    a.exclude_user = (unsigned)ev->exclude_user;
    a.exclude_kernel = (unsigned)ev->exclude_kernel;
    int fd = perf_event_open_fd(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    struct counter *c = &s->ctr[i];
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL) {
            c->supported = 0;
            return 0;
        }
        if (e == ESRCH)
            return -ESRCH;
        char why[256];
        if (e == EACCES || e == EPERM)
            cli_warn("%s", perf_permission_error(ev, pid, why, sizeof why));
        else
            cli_warn("%s: perf_event_open: %s", ev->name, strerror(e));
        return -e;
    }
    if (array_reserve(&c->fds, &c->capfds, (size_t)c->nfds + 1, sizeof *c->fds, 16) < 0 ||
        array_reserve(&c->thr, &c->capthr, (size_t)c->nfds + 1, sizeof *c->thr, 16) < 0) {
        close(fd);
        return -ENOMEM;
    }
    c->thr[c->nfds] = thr;
    c->fds[c->nfds++] = fd;
    return 0;
}

static int add_thread(struct stat_run *s, pid_t pid, pid_t tid, int must)
{
    if (array_reserve(&s->thr, &s->capthr, s->nthr + 1, sizeof *s->thr, 64) < 0) {
        cli_warn("out of memory");
        return -1;
    }
    struct sthread *t = &s->thr[s->nthr++];
    *t = (struct sthread){.pid = pid, .tid = tid, .must = must, .comm = "-"};
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    FILE *f = fopen(path, "re");
    if (f) {
        if (fgets(t->comm, sizeof t->comm, f))
            t->comm[strcspn(t->comm, "\n")] = 0;
        fclose(f);
    }
    return 0;
}

/* The process of thread tid (its Tgid), tid itself when unknown. */
static pid_t tgid_of(pid_t tid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    FILE *f = fopen(path, "re");
    pid_t pid = tid;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Tgid:", 5)) {
            pid = (pid_t)atoi(line + 5);
            break;
        }
    if (f)
        fclose(f);
    return pid;
}

/* The threads counted one by one: every thread of -p's processes, -t's
 * threads, and with -a --per-thread every thread in /proc (perf stat's
 * thread map, whose comms it reads at the start).  0, or -1 said. */
static int collect_threads(struct stat_run *s)
{
    struct perf_opts *o = s->o;
    pid_t tids[4096];
    s->nthr = 0;
    for (int p = 0; p < o->npids; p++) {
        int n = target_threads(o->pids[p], tids, 4096);
        if (n <= 0) {
            cli_warn("%d: no such process", (int)o->pids[p]);
            return -1;
        }
        for (int t = 0; t < n; t++)
            if (add_thread(s, o->pids[p], tids[t], tids[t] == o->pids[p]) < 0)
                return -1;
    }
    for (int t = 0; t < o->ntids; t++)
        if (add_thread(s, tgid_of(o->tids[t]), o->tids[t], 1) < 0)
            return -1;
    if (o->system_wide && o->per_thread) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        while (d && (de = readdir(d))) {
            pid_t pid = (pid_t)atoi(de->d_name);
            int n = pid > 0 ? target_threads(pid, tids, 4096) : 0;
            for (int t = 0; t < n; t++)
                if (add_thread(s, pid, tids[t], 0) < 0) {
                    closedir(d);
                    return -1;
                }
        }
        if (d)
            closedir(d);
    }
    return 0;
}

static int open_counters(struct stat_run *s, pid_t child)
{
    struct perf_opts *o = s->o;
    if (collect_threads(s) < 0)
        return -1;
    for (int i = 0; i < o->nevs; i++) {
        s->ctr[i].supported = 1;
        int rc = 0;
        if (o->system_wide && !o->per_thread) {
            for (int c = 0; c < s->ncpus && !rc && s->ctr[i].supported; c++)
                rc = open_one(s, i, -1, s->cpus[c], 0, -1);
        } else if (child > 0) {
            rc = open_one(s, i, child, -1, 1, -1);
        } else {
            for (size_t t = 0; t < s->nthr && !rc && s->ctr[i].supported; t++) {
                rc = open_one(s, i, s->thr[t].tid, -1, 0, (int)t);
                if (rc == -ESRCH && !s->thr[t].must)
                    rc = 0; /* a thread that ended meanwhile */
            }
        }
        if (rc == -ESRCH)
            cli_warn("no such process or thread");
        if (rc)
            return -1;
    }
    return 0;
}

static void close_counters(struct stat_run *s)
{
    for (int i = 0; i < s->o->nevs; i++) {
        for (int f = 0; f < s->ctr[i].nfds; f++)
            close(s->ctr[i].fds[f]);
        free(s->ctr[i].fds);
        free(s->ctr[i].thr);
        memset(&s->ctr[i], 0, sizeof s->ctr[i]);
    }
}

static void enable(struct stat_run *s, int on)
{
    for (int i = 0; i < s->o->nevs; i++)
        for (int f = 0; f < s->ctr[i].nfds; f++)
            ioctl(s->ctr[i].fds[f], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* Sum of all fds of counter i: value, enabled, running. */
static void read_counter(struct stat_run *s, int i, uint64_t out[3])
{
    out[0] = out[1] = out[2] = 0;
    for (int f = 0; f < s->ctr[i].nfds; f++) {
        uint64_t v[3];
        if (read(s->ctr[i].fds[f], v, sizeof v) == (ssize_t)sizeof v)
            for (int k = 0; k < 3; k++)
                out[k] += v[k];
    }
}

/* A counter record: a total (thr NULL) or one thread's reading. */
static void write_counter(struct stat_run *s, uint32_t evid, uint64_t time, const uint64_t v[3],
                          uint32_t run, uint32_t flags, const struct sthread *thr)
{
    tr_record rec = {.type = TR_REC_COUNTER, .time = time, .pid = thr ? thr->pid : -1,
                     .tid = thr ? thr->tid : -1, .cpu = -1};
    rec.u.counter.event = evid;
    rec.u.counter.value = v[0];
    rec.u.counter.enabled = v[1];
    rec.u.counter.running = v[2];
    rec.u.counter.run = run;
    rec.u.counter.flags = flags;
    werr(s, tr_writer_add(s->w, &rec));
}

static uint32_t counter_flags(const struct counter *c, const uint64_t v[3])
{
    if (!c->supported)
        return TR_CNTF_NOT_SUPPORTED;
    if (v[1] && !v[2])
        return TR_CNTF_NOT_COUNTED;
    return 0;
}

/* --per-thread: each thread's final reading of counter i, recorded with its
 * pid/tid and put in the table. */
static void per_thread_readings(struct stat_run *s, int i, uint64_t time)
{
    const struct counter *c = &s->ctr[i];
    for (int f = 0; f < c->nfds; f++) {
        uint64_t v[3];
        if (c->thr[f] < 0 || read(c->fds[f], v, sizeof v) != (ssize_t)sizeof v)
            continue;
        const struct sthread *t = &s->thr[c->thr[f]];
        uint32_t fl = counter_flags(c, v);
        write_counter(s, s->evid[i], time, v, 0, fl, t);
        werr(s, counters_add_thread(&s->table, s->o->evs[i].name, t->tid, t->comm, v[0], v[1], v[2], fl));
    }
}

/* --per-thread: the threads' names, as perf stat read them at the start. */
static void write_comms(struct stat_run *s, uint64_t time)
{
    for (size_t k = 0; k < s->nthr; k++) {
        tr_record rec = {.type = TR_REC_COMM, .time = time, .pid = s->thr[k].pid, .tid = s->thr[k].tid, .cpu = -1};
        rec.u.comm.comm = s->thr[k].comm;
        rec.u.comm.len = strlen(s->thr[k].comm);
        werr(s, tr_writer_add(s->w, &rec));
    }
}

static void interval(struct stat_run *s, uint64_t now, uint64_t t0, uint64_t len_ns, int first,
                     uint32_t run)
{
    struct counters scratch; /* this interval's readings, for its metrics */
    memset(&scratch, 0, sizeof scratch);
    if (first)
        fputs(COUNTERS_INTERVAL_HEADER "\n", stderr);
    for (int i = 0; i < s->o->nevs; i++) {
        uint64_t v[3], d[3];
        read_counter(s, i, v);
        for (int k = 0; k < 3; k++) {
            d[k] = v[k] - s->ctr[i].last[k];
            s->ctr[i].last[k] = v[k];
        }
        uint32_t fl = counter_flags(&s->ctr[i], d) | TR_CNTF_INTERVAL;
        write_counter(s, s->evid[i], now, d, run, fl, NULL);
        char line[512];
        size_t n = counters_format_interval(&scratch, (double)(now - t0) / 1e9, (double)len_ns / 1e9,
                                            s->o->evs[i].name, d[0], d[1], d[2], fl, line, sizeof line);
        fprintf(stderr, "%.*s\n", (int)n, line);
    }
    werr(s, tr_writer_poll(s->w));
}

static void set_target(struct stat_run *s)
{
    struct perf_opts *o = s->o;
    char cmd[480];
    if (o->cmd_argc && !perf_cmd_is_timer(o)) {
        target_join(cmd, sizeof cmd, o->cmd, o->cmd_argc);
        snprintf(s->table.target, sizeof s->table.target, "'%s'", cmd);
    } else if (o->system_wide) {
        snprintf(s->table.target, sizeof s->table.target, "'system wide'");
    } else {
        size_t n = 0;
        const pid_t *ids = o->npids ? o->pids : o->tids;
        int cnt = o->npids ? o->npids : o->ntids;
        for (int i = 0; i < cnt && n + 12 < sizeof cmd; i++)
            n += (size_t)snprintf(cmd + n, sizeof cmd - n, "%s%d", i ? "," : "", (int)ids[i]);
        snprintf(s->table.target, sizeof s->table.target, "%s id '%s'",
                 o->npids ? "process" : "thread", cmd);
    }
}

/* One run; returns the command's wait status (0 without a command), or -1. */
static int run_once(struct stat_run *s, uint32_t run, int sfd, const sigset_t *mask, int trace_on_stdout,
                    int *stopped)
{
    struct perf_opts *o = s->o;
    struct perf_child child = {.pid = -1, .go_fd = -1, .err_fd = -1};
    if (o->cmd_argc && target_fork(&child, o->cmd, trace_on_stdout, mask))
        cli_die(CLI_EXIT_FAIL, "fork: %s", strerror(errno));
    if (open_counters(s, perf_cmd_is_timer(o) ? -1 : child.pid)) {
        if (child.pid > 0) {
            close(child.go_fd);
            waitpid(child.pid, NULL, 0);
        }
        return -1;
    }
    uint64_t t0 = sb_now_ns();
    if (child.pid > 0) {
        if (perf_cmd_is_timer(o))
            enable(s, 1);
        t0 = sb_now_ns();
        int e = target_go(&child);
        if (e) {
            cli_warn("%s: %s", o->cmd[0], e == ENOENT ? "command not found" : strerror(e));
            waitpid(child.pid, NULL, 0);
            return e == ENOENT ? -127 : -126;
        }
    } else {
        enable(s, 1);
    }
    cli_commit_trace_output();
    char start[32];
    snprintf(start, sizeof start, "%llu", (unsigned long long)t0);
    werr(s, tr_writer_meta(s->w, META_STAT_START, start));
    if (o->per_thread)
        write_comms(s, t0);
    uint64_t last = t0;
    int status = 0, done = 0, first = 1;
    struct rusage ru = {0};
    uint64_t deadline = o->duration_ns ? t0 + o->duration_ns : 0;
    while (!done) {
        int timeout = o->interval_ms ? (int)((last + o->interval_ms * 1000000ull - sb_now_ns()) / 1000000)
                                     : -1;
        if (o->interval_ms && timeout < 0)
            timeout = 0;
        if (deadline) {
            uint64_t now = sb_now_ns();
            int left = now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
            if (left == 0)
                break;
            if (timeout < 0 || left < timeout)
                timeout = left;
        }
        int attached = !o->cmd_argc && (o->npids || o->ntids); /* ends when its targets do, as perf stat */
        if (attached && (timeout < 0 || timeout > 100))
            timeout = 100;
        struct pollfd p = {.fd = sfd, .events = POLLIN};
        int n = poll(&p, 1, timeout);
        if (n < 0 && errno != EINTR)
            break;
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
            if (si.ssi_signo != SIGCHLD) {
                *stopped = (int)si.ssi_signo;
                done = 1;
            }
        }
        if (child.pid > 0 && wait4(child.pid, &status, WNOHANG, &ru) == child.pid) {
            child.pid = -child.pid;
            done = 1;
        }
        if (attached && !target_alive(o))
            done = 1;
        uint64_t now = sb_now_ns();
        if (!done && o->interval_ms && now >= last + o->interval_ms * 1000000ull) {
            interval(s, now, t0, now - last, first, run);
            first = 0;
            last = now;
        }
        if (s->werr)
            break;
    }
    uint64_t t1 = sb_now_ns();
    enable(s, 0);
    if (child.pid > 0) { /* stopped by a signal: end the command as perf does */
        kill(child.pid, SIGTERM);
        wait4(child.pid, &status, 0, &ru);
    }
    if (o->interval_ms && t1 > last)
        interval(s, t1, t0, t1 - last, first, run);
    for (int i = 0; i < o->nevs; i++) {
        if (o->per_thread && s->ctr[i].supported) {
            per_thread_readings(s, i, t1);
            continue;
        }
        uint64_t v[3];
        read_counter(s, i, v);
        uint32_t fl = counter_flags(&s->ctr[i], v);
        write_counter(s, s->evid[i], t1, v, run, fl, NULL);
        counters_add(&s->table, o->evs[i].name, v[0], v[1], v[2], fl, run);
    }
    uint64_t tv[3][3] = {{t1 - t0, 0, 0},
                         {(uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000u, 0, 0},
                         {(uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000u, 0, 0}};
    static const char *const names[] = {"duration_time", "user_time", "system_time"};
    for (int k = 0; k < (o->cmd_argc ? 3 : 1); k++) {
        write_counter(s, s->tool_id[k], t1, tv[k], run, 0, NULL);
        counters_add(&s->table, names[k], tv[k][0], 0, 0, 0, run);
    }
    close_counters(s);
    return status;
}

static int line_to_stderr(void *arg, const char *line, size_t len)
{
    (void)arg;
    fwrite(line, 1, len, stderr);
    fputc('\n', stderr);
    return 0;
}

int perf_stat(struct perf_opts *o)
{
    struct stat_run S, *s = &S;
    memset(s, 0, sizeof *s);
    s->o = o;
    char why[256];
    if (o->nevs == 0) {
        for (int i = 0; default_events[i]; i++)
            perf_ev_parse(default_events[i], &o->evs[o->nevs++], why, sizeof why);
        for (int d = 0; d < o->detailed && d < 3; d++)
            for (int i = 0; detailed_events[d][i]; i++)
                perf_ev_parse(detailed_events[d][i], &o->evs[o->nevs++], why, sizeof why);
    }
    perf_evs_user_only(o->evs, o->nevs, o->quiet);
    s->ncpus = target_cpus(s->cpus, MAX_CPUS);
    set_target(s);
    s->table.skip_zero = o->system_wide && o->per_thread; /* as perf stat -a --per-thread */
    for (int i = 0; i < o->nevs; i++)
        counters_find(&s->table, o->evs[i].name); /* table order = event order */

    const char *out_name;
    int out_fd = cli_open_trace_output(o->output, o->output ? NULL : "trace.tr", &out_name);
    int trace_on_stdout = out_fd == STDOUT_FILENO;
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGCHLD);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0)
        cli_die(CLI_EXIT_FAIL, "signalfd: %s", strerror(errno));

    int rc = tr_writer_open(&s->w, out_fd, NULL);
    if (rc < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", out_name, tr_strerror(rc));
    werr(s, tr_writer_meta_defaults(s->w, "tr-rec-perf", o->argc, o->argv));
    werr(s, tr_writer_meta(s->w, META_VIEW, VIEW_SAMPLES)); /* the perf stat table */
    werr(s, tr_writer_meta(s->w, META_MODE, "stat"));
    werr(s, tr_writer_meta(s->w, META_TARGET, perf_target_kind(o)));
    werr(s, tr_writer_meta(s->w, META_STAT_LABEL, s->table.target));
    if (o->cmd_argc) {
        char cmd[4096];
        target_join(cmd, sizeof cmd, o->cmd, o->cmd_argc);
        werr(s, tr_writer_meta(s->w, META_COMMAND, cmd));
    }
    werr(s, define(s));

    int status = 0, stopped = 0;
    for (unsigned r = 0; r < o->repeat && !stopped && !s->werr; r++) {
        int st = run_once(s, r, sfd, &mask, trace_on_stdout, &stopped);
        if (st < 0) {
            status = st == -1 ? CLI_EXIT_FAIL : -st;
            break;
        }
        status = o->cmd_argc ? target_exit_code(st) : 0; /* a failing command still gets its table */
    }
    int frc = s->werr ? s->werr : tr_writer_finish(s->w, 0);
    if (frc < 0) {
        cli_warn("%s: %s", out_name, tr_strerror(frc));
        status = CLI_EXIT_FAIL;
    }
    if (s->table.runs && !o->interval_ms)
        counters_format_table(&s->table, line_to_stderr, NULL);
    tr_writer_free(s->w);
    counters_free(&s->table);
    free(s->thr);
    if (out_fd != STDOUT_FILENO)
        close(out_fd);
    close(sfd);
    return status;
}
