/*
 * record.c - sampling: open one event per CPU (and per task) with the first
 * of each CPU owning the ring, start the command, then read the rings until
 * the targets end or a signal comes (convert.c turns the records into tr
 * records), and finish with the side-band blobs and the end line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "buildid.h"
#include "cli.h"
#include "keys.h"
#include "perf.h"
#include "session.h"
#include "keys.h"

/* --- opening events ---------------------------------------------------- */

/* Whether the threads' switches are recorded (PERF_RECORD_SWITCH and, with -a,
 * PERF_RECORD_SWITCH_CPU_WIDE): with sched:sched_switch, so that off-CPU time
 * ends exactly at a thread's switch-in.  The tracepoint fires in the task
 * that leaves the CPU: a task's events (a command, -p, -t) see their threads
 * leave but not come back, and system-wide the kernel samples no switch out
 * of some tasks (the threads of this VM's init), while the switch record of
 * the thread that comes in is written in its own context. */
static int records_switches(const struct session *s)
{
    for (int i = 0; i < s->nevs; i++)
        if (!strcmp(s->evs[i].name, "sched:sched_switch"))
            return 1;
    return 0;
}

static void build_attr(struct session *s, int i, int sideband, struct perf_event_attr *a)
{
    const struct perf_opts *o = s->o;
    const struct perf_ev *ev = &s->evs[i];
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = ev->type;
    a->config = ev->config;
    if (ev->type == PERF_TYPE_TRACEPOINT) {
        a->sample_period = o->period ? o->period : 1;
    } else if (o->period) {
        a->sample_period = o->period;
    } else {
        a->freq = 1;
        a->sample_freq = o->freq;
    }
    a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
    if (o->callgraph)
        a->sample_type |= PERF_SAMPLE_CALLCHAIN;
    if (o->callgraph == CG_DWARF) {
        a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a->sample_regs_user = dwarf_regs_mask();
        a->sample_stack_user = o->dwarf_size;
        a->exclude_callchain_user = 1;
    } else if (o->callgraph && ev->at_entry) {
        /* the word at the stack pointer: the caller, which the frame-pointer chain skips */
        a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
        a->sample_regs_user = 1ULL << PERF_REG_X86_SP;
        a->sample_stack_user = 8;
    }
    if (ev->type == PERF_TYPE_TRACEPOINT)
        a->sample_type |= PERF_SAMPLE_RAW;
    a->exclude_user = (unsigned)ev->exclude_user;
    a->exclude_kernel = (unsigned)ev->exclude_kernel;
    a->precise_ip = (unsigned)ev->precise;
    a->disabled = 1;
    a->enable_on_exec = s->have_child && !perf_cmd_is_timer(o);
    a->inherit = !o->system_wide && !o->no_inherit;
    a->sample_id_all = 1;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
    a->watermark = 1;
    a->wakeup_watermark = (uint32_t)(o->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
    if (sideband) {
        a->mmap = 1; /* counted by the kernel only with mmap set */
        a->mmap2 = 1;
        a->build_id = 1;
        a->comm = 1;
        a->comm_exec = 1;
        a->task = 1;
        a->context_switch = (unsigned)records_switches(s);
    }
    s->sample_type[i] = a->sample_type;
}

static int freq_too_high(uint64_t freq)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
    unsigned long long max = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%llu", &max) != 1)
        max = 0;
    fclose(f);
    return max && freq > max;
}

static const char *open_error(int e, const struct perf_ev *ev, pid_t pid, uint64_t freq, char *buf,
                              size_t len)
{
    if (e == EACCES || e == EPERM) {
        perf_permission_error(ev, pid, buf, len);
    } else if ((e == ENOENT || e == EOPNOTSUPP || e == ENODEV) &&
               (ev->type == PERF_TYPE_HARDWARE || ev->type == PERF_TYPE_HW_CACHE ||
                ev->type == PERF_TYPE_RAW)) {
        snprintf(buf, len, "%s: not supported by this CPU's PMU (no hardware counters)", ev->name);
    } else if (e == ESRCH) {
        snprintf(buf, len, "no such process or thread");
    } else if (e == EINVAL && freq_too_high(freq)) {
        snprintf(buf, len, "%s: frequency %llu is above the kernel's limit "
                 "(/proc/sys/kernel/perf_event_max_sample_rate)", ev->name, (unsigned long long)freq);
    } else {
        snprintf(buf, len, "%s: perf_event_open: %s", ev->name, strerror(e));
    }
    return buf;
}

/* Can this event be opened for this process at all? */
static int probe_event(const struct perf_ev *ev)
{
    struct perf_event_attr a = {.size = sizeof a, .type = ev->type, .config = ev->config,
                                .disabled = 1, .exclude_kernel = 1, .exclude_hv = 1};
    int fd = perf_event_open_fd(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -errno;
    close(fd);
    return 0;
}

static int add_fd(struct session *s, int fd, int ev)
{
    if (array_reserve(&s->fds, &s->capfds, s->nfds + 1, sizeof *s->fds, 64) < 0)
        return -1;
    uint64_t id = 0;
    if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 || hashmap_put(&s->event_by_id, id, 0, &s->evs[ev]) < 0)
        return -1;
    s->fds[s->nfds++] = (struct evfd){fd, ev, id};
    return 0;
}

/* Open every event for task pid (-1: all) on every CPU; the first fd per
 * CPU owns the ring, the others write into it. */
static int open_task(struct session *s, pid_t pid, int first_task)
{
    char why[256];
    for (int c = 0; c < s->ncpus; c++) {
        for (int i = 0; i < s->nevs; i++) {
            struct perf_event_attr a;
            build_attr(s, i, i == 0, &a);
            int fd = perf_event_open_fd(&a, pid, s->cpus[c], -1, PERF_FLAG_FD_CLOEXEC);
            if (fd < 0 && errno == EINVAL && a.build_id) {
                a.build_id = 0; /* older kernels: plain mmap2, build-ids from the files */
                fd = perf_event_open_fd(&a, pid, s->cpus[c], -1, PERF_FLAG_FD_CLOEXEC);
            }
            if (fd < 0) {
                int e = errno;
                if (e == ESRCH && !first_task)
                    return 0; /* a thread that ended meanwhile */
                if (e == ESRCH)
                    cli_warn("%d: no such process or thread", (int)pid);
                else
                    cli_warn("%s", open_error(e, &s->evs[i], pid, s->o->period ? 0 : s->o->freq, why, sizeof why));
                return -1;
            }
            if (s->ring_fd[c] < 0) {
                int rc = ring_map(&s->rings[c], fd, s->o->mmap_pages);
                if (rc < 0) {
                    cli_warn("mmap of %zu pages for CPU %d: %s (see -m and "
                             "/proc/sys/kernel/perf_event_mlock_kb)",
                             s->o->mmap_pages, s->cpus[c], strerror(-rc));
                    close(fd);
                    return -1;
                }
                s->ring_fd[c] = fd;
            } else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->ring_fd[c]) < 0) {
                cli_warn("%s: redirecting output: %s", s->evs[i].name, strerror(errno));
                close(fd);
                return -1;
            }
            if (add_fd(s, fd, i)) {
                cli_warn("%s: %s", s->evs[i].name, strerror(errno));
                close(fd);
                return -1;
            }
        }
    }
    return 0;
}

static int open_targets(struct session *s)
{
    const struct perf_opts *o = s->o;
    if (o->system_wide)
        return open_task(s, -1, 1);
    if (s->have_child && !perf_cmd_is_timer(o))
        return open_task(s, s->child.pid, 1);
    for (int i = 0; i < o->ntids; i++)
        if (open_task(s, o->tids[i], 1))
            return -1;
    for (int i = 0; i < o->npids; i++) {
        pid_t tids[4096];
        int n = target_threads(o->pids[i], tids, 4096);
        if (n <= 0) {
            cli_warn("%d: no such process", (int)o->pids[i]);
            return -1;
        }
        for (int t = 0; t < n; t++)
            if (open_task(s, tids[t], tids[t] == o->pids[i]))
                return -1;
    }
    return 0;
}

static void enable_all(struct session *s, int on)
{
    for (size_t i = 0; i < s->nfds; i++)
        ioctl(s->fds[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* --- events in the trace ----------------------------------------------- */

static int define_events(struct session *s)
{
    for (int i = 0; i < s->nevs; i++) {
        const struct perf_ev *ev = &s->evs[i];
        tr_event_def d = {0};
        d.kind = ev->tr_kind;
        d.config = ev->config;
        int tp = ev->type == PERF_TYPE_TRACEPOINT;
        d.sample_value = tp ? (s->o->period ? s->o->period : 1) : s->o->period ? s->o->period : s->o->freq;
        d.flags = (!tp && !s->o->period ? TR_EVF_FREQ : 0) |
                  (s->o->callgraph ? TR_EVF_CALLCHAIN | (ev->exclude_kernel ? 0 : TR_EVF_KERNEL_STACK) : 0) |
                  (s->o->callgraph == CG_DWARF ? TR_EVF_DWARF : 0);
        d.name = ev->name;
        d.name_len = strlen(ev->name);
        int rc = tr_writer_event(s->w, &d, &s->evid[i]);
        if (rc < 0)
            return rc;
        if (tp) {
            size_t len;
            char *fmt = perf_tracepoint_format(ev->tracefs[0] ? ev->tracefs : ev->name, &len);
            if (fmt) {
                char name[160];
                const char *colon = strchr(ev->name, ':');
                snprintf(name, sizeof name, BLOB_FTRACE_FORMAT_PREFIX "%.*s/%s", (int)(colon - ev->name), ev->name,
                         colon + 1);
                rc = tr_writer_blob(s->w, name, fmt, len, 1);
                char sys[64];
                snprintf(sys, sizeof sys, "%.*s", (int)(colon - ev->name), ev->name);
                const tpformat_event *te = NULL;
                if ((s->tp || tpformat_new(&s->tp) == 0) && tpformat_add_format(s->tp, sys, fmt, len) == 0)
                    te = tpformat_event_by_name(s->tp, sys, colon + 1);
                if (te)
                    tpformat_funcs_of(te, &s->funcs[i]);
                free(fmt);
                if (rc < 0)
                    return rc;
            }
        }
    }
    return 0;
}

/* --- the run ------------------------------------------------------------ */

static int signal_fd(sigset_t *mask)
{
    sigemptyset(mask);
    sigaddset(mask, SIGINT);
    sigaddset(mask, SIGTERM);
    sigaddset(mask, SIGHUP);
    sigaddset(mask, SIGCHLD);
    /* a background shell job starts with SIGINT ignored: we want to see it */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    sigprocmask(SIG_BLOCK, mask, NULL);
    return signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

static int reap_child(struct session *s, int block)
{
    if (!s->have_child || s->child_done)
        return 1;
    int st;
    pid_t r = waitpid(s->child.pid, &st, block ? 0 : WNOHANG);
    if (r == s->child.pid) {
        s->child_done = 1;
        s->child_status = st;
        return 1;
    }
    return 0;
}

/* 1 to stop */
static int handle_signals(struct session *s, int sfd, int *stop_signal)
{
    struct signalfd_siginfo si;
    int stop = 0;
    while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD) {
            if (reap_child(s, 0))
                stop = 1;
        } else {
            *stop_signal = (int)si.ssi_signo;
            stop = 1;
        }
    }
    return stop;
}

static void print_end_line(struct session *s, uint64_t ns)
{
    tr_writer_stats st;
    tr_writer_get_stats(s->w, &st);
    fprintf(stderr, "%s: %llu samples, %llu lost, %llu bytes, %.3f s -> %s\n", cli_name(),
            (unsigned long long)s->samples, (unsigned long long)s->lost,
            (unsigned long long)st.compressed_bytes, (double)ns / 1e9, s->out_name);
    if (s->throttled)
        fprintf(stderr, "%s: the kernel throttled sampling %llu times (see "
                        "/proc/sys/kernel/perf_cpu_time_max_percent)\n",
                cli_name(), (unsigned long long)s->throttled);
    if (s->lost)
        for (int c = 0; c < s->ncpus; c++)
            if (s->lost_cpu[c])
                fprintf(stderr, "%s: CPU %d lost %llu samples (ring too small? try -m)\n",
                        cli_name(), s->cpus[c], (unsigned long long)s->lost_cpu[c]);
}

static int choose_events(struct session *s)
{
    struct perf_opts *o = s->o;
    char why[256];
    if (o->nevs == 0) {
        perf_ev_parse("cycles", &o->evs[0], why, sizeof why);
        o->nevs = 1;
        int rc = probe_event(&o->evs[0]);
        if (rc == -ENOENT || rc == -EOPNOTSUPP || rc == -ENODEV) {
            perf_ev_parse("cpu-clock", &o->evs[0], why, sizeof why);
            if (!o->quiet)
                cli_warn("note: no hardware cycles counter on this machine, sampling cpu-clock");
        }
    }
    perf_evs_user_only(o->evs, o->nevs, o->quiet);
    s->evs = o->evs;
    s->nevs = o->nevs;
    return 0;
}

/* -a: the processes running before the recording started */
static void synthesize_all(struct session *s, uint64_t t0)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && !s->werr) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        werr(s, sb_synthesize_process(s->sb, s->w, (pid_t)atoi(e->d_name), t0));
    }
    closedir(d);
}

static void cleanup(struct session *s)
{
    for (size_t i = 0; i < s->nfds; i++)
        close(s->fds[i].fd);
    for (int c = 0; c < s->ncpus; c++)
        ring_unmap(&s->rings[c]);
    free(s->rings);
    free(s->ring_fd);
    free(s->lost_cpu);
    free(s->fds);
    hashmap_free(&s->event_by_id);
    tpformat_free(s->tp);
    perf_frames_free(&s->fr);
    sb_free(s->sb);
}

static void write_meta(struct session *s)
{
    const struct perf_opts *o = s->o;
    char buf[4096];
    werr(s, tr_writer_meta_defaults(s->w, "tr-rec-perf", o->argc, o->argv));
    werr(s, tr_writer_meta(s->w, META_VIEW, VIEW_SAMPLES));
    werr(s, tr_writer_meta(s->w, META_MODE, "record"));
    werr(s, tr_writer_meta(s->w, META_TARGET, perf_target_kind(o)));
    if (o->cmd_argc) {
        target_join(buf, sizeof buf, o->cmd, o->cmd_argc);
        werr(s, tr_writer_meta(s->w, META_COMMAND, buf));
    }
    const char *cg = o->callgraph == CG_DWARF ? "dwarf" : o->callgraph == CG_FP ? "fp" : "none";
    werr(s, tr_writer_meta(s->w, META_CALLGRAPH, cg));
    uint8_t id[BUILD_ID_MAX];
    int n = sb_kernel_build_id(id);
    if (n > 0) {
        build_id_hex(buf, id, (size_t)n);
        werr(s, tr_writer_meta(s->w, META_KERNEL_BUILD_ID, buf));
    }
}

static int write_command_exit(struct session *s)
{
    if (s->have_child && s->child_done) {
        int st = s->child_status;
        uint64_t t = s->child_exit_seen ? s->child_exit_time : sb_now_ns();
        write_exit(s, s->child.pid, s->child.pid, t, -1, st, WIFSIGNALED(st) ? TR_EXITF_SIGNALED : 0);
    }
    return 0;
}

/* Open the events, read existing state, enable, let the command exec.
 * Returns 0, or the exit status to end with. */
static int start_targets(struct session *s)
{
    const struct perf_opts *o = s->o;
    uint64_t t0 = sb_now_ns();
    if (open_targets(s)) {
        if (s->have_child) {
            close(s->child.go_fd); /* the child exits without running the command */
            s->child.go_fd = -1;
            reap_child(s, 1);
        }
        return CLI_EXIT_FAIL;
    }
    for (int i = 0; i < o->npids; i++)
        werr(s, sb_synthesize_process(s->sb, s->w, o->pids[i], t0));
    for (int i = 0; i < o->ntids; i++)
        werr(s, sb_synthesize_process(s->sb, s->w, target_tgid(o->tids[i]), t0));
    if (o->system_wide)
        synthesize_all(s, t0);
    if (!s->have_child || perf_cmd_is_timer(o))
        enable_all(s, 1);
    if (s->have_child) {
        int e = target_go(&s->child);
        if (e) {
            cli_warn("%s: %s", o->cmd[0], e == ENOENT ? "command not found" : strerror(e));
            reap_child(s, 1);
            return e == ENOENT ? 127 : 126;
        }
    }
    return 0;
}

/* Read the rings until the targets end, a signal comes or the output fails;
 * returns the stopping signal or 0. */
static int record_loop(struct session *s, int sfd)
{
    const struct perf_opts *o = s->o;
    struct pollfd *pfd = calloc((size_t)s->ncpus + 1, sizeof *pfd);
    if (!pfd)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    int npfd = 0;
    pfd[npfd++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    for (int c = 0; c < s->ncpus; c++)
        if (s->ring_fd[c] >= 0)
            pfd[npfd++] = (struct pollfd){.fd = s->ring_fd[c], .events = POLLIN};
    int stop_signal = 0;
    uint64_t deadline = o->duration_ns ? sb_now_ns() + o->duration_ns : 0;
    for (;;) {
        int n = poll(pfd, (nfds_t)npfd, 100);
        if (n < 0 && errno != EINTR)
            break;
        int stop = handle_signals(s, sfd, &stop_signal);
        drain(s, 0);
        werr(s, tr_writer_poll(s->w));
        if (s->werr || stop)
            break;
        if (!s->have_child && (o->npids || o->ntids) && !target_alive(o))
            break;
        if (deadline && sb_now_ns() >= deadline)
            break;
        if (!s->have_child && !o->system_wide && !o->npids && !o->ntids)
            break;
    }
    free(pfd);
    return stop_signal;
}

/* The recording stopped with the command still running: SIGTERM it (as
 * perf does) and wait; another SIGINT/SIGTERM makes it SIGKILL. */
static void stop_command(struct session *s, int sfd)
{
    kill(s->child.pid, SIGTERM);
    while (!reap_child(s, 0)) {
        struct pollfd p = {.fd = sfd, .events = POLLIN};
        poll(&p, 1, 100);
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
            if (si.ssi_signo != SIGCHLD)
                kill(s->child.pid, SIGKILL);
    }
}

static void open_session(struct session *s, struct perf_opts *o)
{
    s->o = o;
    s->child.go_fd = s->child.err_fd = -1;
    choose_events(s);
    s->ncpus = target_cpus(s->cpus, MAX_CPUS);
    s->rings = calloc((size_t)s->ncpus, sizeof *s->rings);
    s->ring_fd = malloc((size_t)s->ncpus * sizeof *s->ring_fd);
    s->lost_cpu = calloc((size_t)s->ncpus, sizeof *s->lost_cpu);
    s->sb = sb_new();
    if (!s->rings || !s->ring_fd || !s->lost_cpu || !s->sb)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    for (int c = 0; c < s->ncpus; c++)
        s->ring_fd[c] = -1;
}

/* The zstd level: for dwarf recordings level 1, twice as fast as the default
 * on stack copies and within 5% of its size; from 5 kHz on, where the
 * recorder's CPU goes to zstd (two thirds of it on server at 20 kHz: fresh
 * data in the leaf frames of 7 threads, 5.5 KB a sample after the delta
 * coding), its --fast=4 (with matches of 7 bytes or more, as the writer
 * does at negative levels): on server's chunks 40% fewer instructions a byte
 * than level 1 (callgrind) for 46% more bytes (--fast=3 with shorter matches:
 * 30% fewer, 39% more), within 0.3 of perf.data's (deep's 0.07, cc's 0.05).
 * Else zstd's default. */
static int zstd_level(const struct perf_opts *o)
{
    if (o->callgraph != CG_DWARF)
        return 0;
    return !o->period && o->freq >= 5000 ? -4 : 1;
}

int perf_record(struct perf_opts *o)
{
    struct session S = {0}, *s = &S;
    open_session(s, o);
    s->out_fd = cli_open_trace_output(o->output, o->output ? NULL : "trace.tr", &s->out_name);
    int trace_on_stdout = s->out_fd == STDOUT_FILENO;
    sigset_t mask;
    int sfd = signal_fd(&mask);
    if (sfd < 0)
        cli_die(CLI_EXIT_FAIL, "signalfd: %s", strerror(errno));
    /* consecutive stack copies of a thread share their outer frames */
    /* each sample's stack is interned as it comes: the writer may forget
     * stacks, which bounds its memory however long the recording */
    /* chunks are compressed on a second thread: the rings are drained while zstd works; with
     * dwarf (8 KiB samples, 5 KB of them for zstd) that thread runs below the reader, so that a
     * recorder short of CPU drains its rings first and compresses what it queued later (server
     * dwarf at 20 kHz, load 8: twice the samples, half the losses; its queue of 64 MiB is
     * under perf's memory there); when that thread gets no CPU at all, this one compresses
     * the chunks it queues past 16 MiB itself (format/writer.c, CALLER_BYTES) */
    /* a slow recording's small chunks at zstd's level 19: cc -g at 999 Hz 9% smaller, for 30 us a sample */
    tr_writer_options wo = {.stack_delta = o->callgraph == CG_DWARF ? 2 : 0, .stack_runs = 2, .stack_limit = 1u << 20,
                            .level = zstd_level(o),
                            .compress_thread = o->callgraph == CG_DWARF ? 2 : 1, .small_level = 19};
    int rc = tr_writer_open(&s->w, s->out_fd, &wo);
    if (rc < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", s->out_name, tr_strerror(rc));
    write_meta(s);
    werr(s, define_events(s));
    if (o->cmd_argc) {
        if (target_fork(&s->child, o->cmd, trace_on_stdout, &mask))
            cli_die(CLI_EXIT_FAIL, "fork: %s", strerror(errno));
        s->have_child = 1;
    }

    uint64_t t0 = sb_now_ns();
    int status = start_targets(s);
    if (!status) {
        cli_commit_trace_output();
        int stop_signal = record_loop(s, sfd);
        enable_all(s, 0);
        if (s->have_child && !s->child_done) {
            if (stop_signal || s->werr)
                stop_command(s, sfd);
            else
                reap_child(s, 1);
        }
        drain(s, 1);
        write_command_exit(s);
    }

    uint64_t t1 = sb_now_ns();
    if (!s->werr)
        werr(s, sb_finish(s->sb, s->w));
    int frc = s->werr ? s->werr : tr_writer_finish(s->w, s->lost);
    if (frc < 0) {
        cli_warn("%s: %s", s->out_name, tr_strerror(frc));
        status = CLI_EXIT_FAIL;
    }
    if (!o->quiet && frc >= 0)
        print_end_line(s, t1 - t0);
    tr_writer_free(s->w);
    if (s->out_fd != STDOUT_FILENO)
        close(s->out_fd);
    close(sfd);
    if (s->have_child && s->child_done && status == CLI_EXIT_OK)
        status = target_exit_code(s->child_status);
    cleanup(s);
    return status;
}
