/* record.c - the recording session: set up the instance, read the per-CPU
 * raw buffers as the run goes, write every event into the trace. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <kbuffer.h>
#include <tracefs.h>

#include "cli.h"
#include "ftrace.h"
#include "hashmap.h"
#include "kallsyms.h"
#include "keys.h"
#include "tpformat.h"
#include "tracing.h"

#define MAX_EVENT_ID 65536
/* sub-buffers the reader thread may hold in memory beyond the kernel's buffers */
#define MAX_QUEUED_PAGES 32768

struct cpu_reader {
    int cpu;
    int fd;
    struct tracefs_cpu *tcpu;
    uint64_t missed;   /* lost events reported from sub-buffer headers */
};

struct session {
    const struct ft_options *o;
    const char *dir;
    struct ft_events ev;
    uint32_t *defmap;      /* kernel event id -> trace event def id (0 unknown) */
    uint8_t *triedmap;     /* kernel id looked up already */
    tpformat_funcs **funcs; /* kernel id -> the fields holding kernel functions (timer_start's
                               function=%ps), NULL none: their symbols go into the trace */
    hashmap kaddrs;        /* the values of those fields (keys), for the kallsyms blob */
    int exec_id;           /* sched:sched_process_exec, -1 */
    tr_writer *w;
    int out_fd;
    const char *out_name;
    struct cpu_reader *cpus;
    int ncpus;
    struct ft_order *order;
    uint64_t corrupt_warned;
    size_t subbuf_size;
    int long_size;
    uint32_t raw_flags;
    tpformat *tp;          /* the formats of the events recorded, as written to the trace */
    tpformat_field f_type, f_pid; /* common_type, common_pid of every event */
    int common_known;      /* f_type and f_pid are from a format */
    struct ft_tasks *tasks;
    struct ft_target target;
    uint64_t nevents, lost;
    int werr;              /* first writer error */
    struct ft_reader *rd;
    struct tracefs_cpu **tcpus; /* per CPU for the reader thread, NULL when offline */
    int *fds;
};

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_from_user; /* sent by kill(), not by the terminal */
static volatile sig_atomic_t child_changed;
static int wake_pipe[2] = {-1, -1}; /* the main loop sleeps on its read end */

static void wake_up(void)
{
    int e = errno;
    if (wake_pipe[1] >= 0 && write(wake_pipe[1], "", 1) < 0) { /* already awake */ }
    errno = e;
}

static void on_stop(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (!stop_signal) {
        stop_signal = sig;
        stop_from_user = si && si->si_code == SI_USER;
    }
    wake_up();
}

static void on_child(int sig)
{
    (void)sig;
    child_changed = 1;
    wake_up();
}

static void install_signals(void)
{
    if (pipe2(wake_pipe, O_NONBLOCK | O_CLOEXEC) < 0)
        cli_die(CLI_EXIT_FAIL, "pipe: %s", strerror(errno));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_stop;
    sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: poll() returns at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    struct sigaction sc;
    memset(&sc, 0, sizeof sc);
    sc.sa_handler = on_child;
    sc.sa_flags = SA_NOCLDSTOP;
    sigemptyset(&sc.sa_mask);
    sigaction(SIGCHLD, &sc, NULL);
    cli_ignore_sigpipe();
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static _Noreturn void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vwarn(fmt, ap);
    va_end(ap);
    exit(CLI_EXIT_FAIL); /* the atexit handler removes the instance */
}

static void note_werr(struct session *s, int rc)
{
    if (rc < 0 && !s->werr)
        s->werr = rc;
}

/* ---- trace contents ---- */

static int write_blob_file(struct session *s, const char *name, const char *path)
{
    size_t len;
    char *data = cli_read_file(path, &len);
    if (!data)
        return -1;
    note_werr(s, tr_writer_blob(s->w, name, data, len, 1));
    free(data);
    return 0;
}

/* Format blob and event definition of one event, once. */
static int define_event(struct session *s, struct ft_event *e)
{
    if (e->used)
        return 0;
    size_t len;
    char *fmt = tracing_event_format(s->dir, e->system, e->name, &len);
    if (!fmt)
        return -1;
    const tpformat_event *ev = tpformat_add_format(s->tp, e->system, fmt, len) == 0
                                   ? tpformat_event_by_id(s->tp, e->id) : NULL;
    if (ev && !s->common_known)
        s->common_known = tpformat_field_find(ev, "common_type", &s->f_type) &&
                          tpformat_field_find(ev, "common_pid", &s->f_pid);
    tpformat_funcs fs;
    if (ev && e->id >= 0 && e->id < MAX_EVENT_ID && tpformat_funcs_of(ev, &fs) > 0 &&
        (s->funcs[e->id] = malloc(sizeof fs)))
        *s->funcs[e->id] = fs;
    char name[600];
    snprintf(name, sizeof name, BLOB_FTRACE_FORMAT_FMT, e->system, e->name);
    note_werr(s, tr_writer_blob(s->w, name, fmt, len, 1));
    free(fmt);
    snprintf(name, sizeof name, "%s:%s", e->system, e->name);
    tr_event_def def = {0};
    def.kind = TR_EV_TRACEPOINT;
    def.config = (uint64_t)e->id;
    def.name = name;
    def.name_len = strlen(name);
    uint32_t id = 0;
    note_werr(s, tr_writer_event(s->w, &def, &id));
    e->def = id;
    e->used = 1;
    if (e->id >= 0 && e->id < MAX_EVENT_ID)
        s->defmap[e->id] = id;
    if (!strcmp(e->system, "sched") && !strcmp(e->name, "sched_process_exec"))
        s->exec_id = e->id;
    return 0;
}

static void write_header(struct session *s)
{
    const struct ft_options *o = s->o;
    note_werr(s, tr_writer_meta_defaults(s->w, "tr-rec-ftrace", o->argc, o->argv));
    note_werr(s, tr_writer_meta(s->w, META_VIEW, VIEW_TRACEPOINTS));
    note_werr(s, tr_writer_meta(s->w, META_CLOCK, CLOCK_MONOTONIC_NAME));
    note_werr(s, tr_writer_meta(s->w, META_FTRACE_CLOCK, "mono"));
    char v[64];
    snprintf(v, sizeof v, "%zu", s->subbuf_size);
    note_werr(s, tr_writer_meta(s->w, META_FTRACE_SUBBUF_SIZE, v));
    snprintf(v, sizeof v, "%d", s->long_size);
    note_werr(s, tr_writer_meta(s->w, META_FTRACE_LONG_SIZE, v));
    char path[1024];
    snprintf(path, sizeof path, "%s/events/header_page", s->dir);
    if (write_blob_file(s, BLOB_FTRACE_HEADER_PAGE, path) < 0)
        fail("%s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/events/header_event", s->dir);
    write_blob_file(s, BLOB_FTRACE_HEADER_EVENT, path);
    snprintf(path, sizeof path, "%s/printk_formats", s->dir);
    write_blob_file(s, BLOB_FTRACE_PRINTK_FORMATS, path);
    for (size_t i = 0; i < s->ev.n; i++)
        if (define_event(s, &s->ev.v[i]) < 0)
            fail("%s:%s: cannot read its format: %s", s->ev.v[i].system, s->ev.v[i].name,
                 strerror(errno));
}

/* The kernel functions the events' fields pointed to, named on any machine
 * (function tracing stores all of /proc/kallsyms instead). */
static void write_event_kallsyms(struct session *s)
{
    size_t len;
    char *k = s->kaddrs.count ? kallsyms_of(&s->kaddrs, &len, NULL, NULL) : NULL;
    if (s->kaddrs.count && !k)
        cli_warn("/proc/kallsyms: %s (function addresses in events stay unnamed)", strerror(errno));
    if (k && len)
        note_werr(s, tr_writer_blob(s->w, BLOB_KALLSYMS, k, len, 0));
    free(k);
}

/* Function addresses need the kernel's symbols to be named on another machine. */
static void write_kallsyms(struct session *s)
{
    if (write_blob_file(s, BLOB_FTRACE_KALLSYMS, "/proc/kallsyms") < 0)
        cli_warn("/proc/kallsyms: %s (function addresses stay unnamed)", strerror(errno));
}

static void write_task_maps(struct session *s)
{
    char path[1024];
    size_t len;
    snprintf(path, sizeof path, "%s/saved_cmdlines", s->dir);
    char *k = cli_read_file(path, NULL);
    char *m = ft_tasks_cmdlines(s->tasks, k, &len);
    if (m)
        note_werr(s, tr_writer_blob(s->w, BLOB_FTRACE_SAVED_CMDLINES, m, len, 1));
    free(k);
    free(m);
    snprintf(path, sizeof path, "%s/saved_tgids", s->dir);
    k = cli_read_file(path, NULL);
    m = ft_tasks_tgids(s->tasks, k, &len);
    if (m)
        note_werr(s, tr_writer_blob(s->w, BLOB_FTRACE_SAVED_TGIDS, m, len, 1));
    free(k);
    free(m);
}

/* ---- events as they are read ---- */

static void emit_comm(struct session *s, const struct ft_task *t, uint64_t time, int exec)
{
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_COMM;
    r.time = time;
    r.pid = t->tgid >= 0 ? t->tgid : t->tid;
    r.tid = t->tid;
    r.cpu = -1;
    r.u.comm.comm = t->comm;
    r.u.comm.len = strlen(t->comm);
    r.u.comm.exec = (uint32_t)exec;
    note_werr(s, tr_writer_add(s->w, &r));
}

/* A task gone before we looked at /proc: the kernel's comm cache may still
 * know it (it saves the comm of traced tasks at their next switch). */
static void kernel_comm(struct session *s, struct ft_task *t)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/saved_cmdlines", s->dir);
    char *text = cli_read_file(path, NULL);
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        char *sp = strchr(line, ' ');
        if (sp && atoi(line) == t->tid) {
            size_t n = strlen(sp + 1);
            if (n >= sizeof t->comm)
                n = sizeof t->comm - 1;
            memcpy(t->comm, sp + 1, n);
            t->comm[n] = 0;
            t->known = n > 0 && strcmp(t->comm, "<...>") != 0;
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
}

static uint32_t def_for(struct session *s, int id)
{
    if (id < 0 || id >= MAX_EVENT_ID)
        return 0;
    if (s->defmap[id] || s->triedmap[id])
        return s->defmap[id];
    s->triedmap[id] = 1;
    struct ft_event *e = ft_events_by_id(&s->ev, id);
    if (!e)
        e = ft_events_resolve_id(&s->ev, s->dir, id);
    if (e)
        define_event(s, e);
    return s->defmap[id];
}

static int write_event(struct session *s, int cpu, uint64_t ts, const void *data, size_t len)
{
    if (len < 8)
        return 0;
    uint64_t v_type, v_pid;
    if (tpformat_read(&s->f_type, s->raw_flags, data, len, &v_type) < 0 ||
        tpformat_read(&s->f_pid, s->raw_flags, data, len, &v_pid) < 0)
        return 0;
    int type = (int)v_type;
    int32_t tid = (int32_t)v_pid;
    uint32_t def = def_for(s, type);
    const tpformat_funcs *fs = type >= 0 && type < MAX_EVENT_ID ? s->funcs[type] : NULL;
    uint64_t a[TPFORMAT_FUNCS_MAX];
    for (int i = 0, n = fs ? tpformat_funcs_read(fs, s->raw_flags, data, len, a) : 0; i < n; i++)
        hashmap_put(&s->kaddrs, a[i], 0, s); /* out of memory: the address stays unnamed */
    int is_new = 0;
    struct ft_task *t = ft_tasks_get(s->tasks, tid, &is_new);
    if (t && is_new && !t->known)
        kernel_comm(s, t);
    if (t && is_new && t->known)
        emit_comm(s, t, ts, 0);
    if (t && type == s->exec_id && s->exec_id >= 0 && !is_new && ft_tasks_refresh(s->tasks, t))
        emit_comm(s, t, ts, 1);
    tr_record r;
    r.type = TR_REC_TRACE_EVENT;
    r.stream = 0;
    r.time = ts;
    r.pid = t && t->tgid >= 0 ? t->tgid : tid;
    r.tid = tid;
    r.cpu = cpu;
    r.u.trace_event.event = def;
    r.u.trace_event.flags = s->raw_flags;
    r.u.trace_event.data = data;
    r.u.trace_event.len = len;
    int rc = tr_writer_add(s->w, &r);
    if (rc < 0) {
        note_werr(s, rc);
        return -1;
    }
    s->nevents++;
    return 0;
}

static void emit_lost(struct session *s, int cpu, uint64_t ts, uint64_t count)
{
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_LOST;
    r.time = ts;
    r.pid = r.tid = -1;
    r.cpu = cpu;
    r.u.lost.event = 0;
    r.u.lost.kind = TR_LOST_OVERRUN;
    r.u.lost.count = count;
    note_werr(s, tr_writer_add(s->w, &r));
    s->lost += count;
}

static uint64_t stat_value(const char *text, const char *key)
{
    const char *p = text ? strstr(text, key) : NULL;
    return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* Events the kernel counts as lost on a CPU (overwritten or dropped). */
static uint64_t cpu_lost(int cpu)
{
    char file[64], path[1024];
    snprintf(file, sizeof file, "per_cpu/cpu%d/stats", cpu);
    char *st = cli_read_file(ft_instance_path(path, sizeof path, file), NULL);
    uint64_t lost = stat_value(st, "\noverrun:") + stat_value(st, "dropped events:");
    free(st);
    return lost;
}

static int emit_held(void *ctx, int cpu, uint64_t ts, const void *data, size_t len, long long lost)
{
    struct session *s = ctx;
    if (s->werr)
        return -1;
    if (len)
        return write_event(s, cpu, ts, data, len);
    struct cpu_reader *c = &s->cpus[cpu];
    if (lost > 0) {
        emit_lost(s, cpu, ts, (uint64_t)lost);
        c->missed += (uint64_t)lost;
    } else if (lost < 0) {
        /* no room in the sub-buffer for the count: the CPU's statistics have it */
        uint64_t total = cpu_lost(cpu);
        if (total > c->missed) {
            emit_lost(s, cpu, ts, total - c->missed);
            c->missed = total;
        }
    }
    return 0;
}

/* Write what is in time order now (final: everything). */
static void release(struct session *s, int final)
{
    ft_order_release(s->order, final, emit_held, s);
    if (s->rd)
        ft_reader_recycle(s->rd, ft_order_done(s->order));
    uint64_t bad = ft_order_corrupt(s->order);
    if (bad > s->corrupt_warned) {
        cli_warn("skipped %llu malformed ring-buffer sub-buffers", (unsigned long long)(bad - s->corrupt_warned));
        s->corrupt_warned = bad;
    }
}

/* Take the sub-buffers the reader thread queued and write what is in order;
 * 1 when the reader is done. */
static int process_items(struct session *s)
{
    struct ft_item *list = ft_reader_take(s->rd), *spent = NULL;
    int eof = 0;
    while (list) {
        struct ft_item *it = list;
        list = it->next;
        if (it->len && !s->werr) {
            ft_order_add(s->order, it);
            continue;
        }
        if (it->eof)
            eof = 1;
        else if (!it->len)
            ft_order_bound(s->order, it->cpu, it->bound);
        it->next = spent;
        spent = it;
    }
    ft_reader_recycle(s->rd, spent);
    release(s, 0);
    return eof;
}

/* Overruns the kernel counted beyond what the sub-buffer headers told. */
static void account_overruns(struct session *s)
{
    uint64_t now = now_ns();
    for (int i = 0; i < s->ncpus; i++) {
        if (!s->cpus[i].tcpu)
            continue;
        uint64_t lost = cpu_lost(s->cpus[i].cpu);
        if (lost > s->cpus[i].missed) {
            emit_lost(s, s->cpus[i].cpu, now, lost - s->cpus[i].missed);
            s->cpus[i].missed = lost;
        }
    }
}

/* ---- setup ---- */

/* The kernel's long and sub-buffer size from its header page (into s->tp). */
static int host_long_size(struct session *s, size_t *subbuf)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/events/header_page", s->dir);
    size_t len;
    char *hp = cli_read_file(path, &len);
    if (hp)
        tpformat_add_header_page(s->tp, hp, len);
    free(hp);
    int ls = tpformat_header_long_size(s->tp);
    *subbuf = tpformat_header_subbuf_size(s->tp);
    return ls ? ls : (int)sizeof(long);
}

static void open_cpus(struct session *s)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    if (n < 1)
        n = 1;
    s->cpus = calloc((size_t)n, sizeof *s->cpus);
    if (!s->cpus)
        fail("out of memory");
    s->ncpus = (int)n;
    s->order = ft_order_new(s->ncpus, s->long_size, (s->raw_flags & TR_RAW_BIG_ENDIAN) != 0,
                            s->subbuf_size);
    s->tcpus = calloc((size_t)n, sizeof *s->tcpus);
    s->fds = calloc((size_t)n, sizeof *s->fds);
    if (!s->order || !s->tcpus || !s->fds)
        fail("out of memory");
    int opened = 0;
    for (int i = 0; i < s->ncpus; i++) {
        char file[64];
        s->cpus[i].cpu = i;
        s->cpus[i].fd = -1;
        snprintf(file, sizeof file, "per_cpu/cpu%d/trace_pipe_raw", i);
        char path[1024];
        int fd = open(ft_instance_path(path, sizeof path, file), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue; /* an offline CPU has no buffer */
        ft_instance_track_fd(fd);
        s->cpus[i].fd = fd;
        s->cpus[i].tcpu = tracefs_cpu_alloc_fd(fd, (int)s->subbuf_size, true);
        if (!s->cpus[i].tcpu)
            fail("cpu %d: cannot set up its raw buffer reader", i);
        s->tcpus[i] = s->cpus[i].tcpu;
        s->fds[i] = fd;
        ft_order_online(s->order, i);
        opened++;
    }
    if (!opened)
        fail("%s: cannot open any per-CPU raw buffer", s->dir);
}

static void close_cpus(struct session *s)
{
    for (int i = 0; i < s->ncpus; i++) {
        if (s->cpus[i].tcpu)
            tracefs_cpu_free_fd(s->cpus[i].tcpu);
        if (s->cpus[i].fd >= 0) {
            ft_instance_untrack_fd(s->cpus[i].fd);
            close(s->cpus[i].fd);
        }
    }
    free(s->tcpus);
    free(s->fds);
    ft_order_free(s->order);
    s->order = NULL;
    free(s->cpus);
    s->cpus = NULL;
}

/* A reader slower than a burst of events (tr-cat formatting text) should
 * hold the recorder back as late as possible: a larger pipe holds a burst
 * of compressed chunks while the kernel's buffers are being read. */
static void grow_pipe(int fd)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode))
        return;
    char *max = cli_read_file("/proc/sys/fs/pipe-max-size", NULL);
    int size = max ? atoi(max) : 0;
    free(max);
    if (size > 0)
        fcntl(fd, F_SETPIPE_SZ, size);
}

/* ---- the run ---- */

static void stop_target(struct session *s)
{
    struct ft_target *t = &s->target;
    if (!t->spawned || ft_target_done(t))
        return;
    if (!t->started) {
        /* stopped before the command ran: it never will */
        kill(t->pid, SIGKILL);
        waitpid(t->pid, NULL, 0);
        t->exited = 1;
        t->spawned = 0;
        return;
    }
    /* -d ran out, or the terminal's signal reached the command too: it goes on
     * or ends by itself; a signal sent to the recorder alone is passed on */
    if (!stop_signal)
        return;
    if (stop_from_user)
        kill(t->pid, stop_signal);
    for (int i = 0; i < 200 && !ft_target_done(t); i++)
        usleep(10000);
}

static int exit_status(const struct session *s)
{
    if (s->werr)
        return CLI_EXIT_FAIL;
    if (s->o->cmd && !s->target.started && stop_signal)
        return 128 + stop_signal; /* interrupted before the command ran */
    if (s->target.spawned && s->target.exited)
        return cli_command_status(s->target.status);
    return CLI_EXIT_OK;
}

static void record_child_exit(struct session *s)
{
    if (!s->target.spawned || !s->target.exited)
        return;
    tr_record r;
    memset(&r, 0, sizeof r);
    r.type = TR_REC_EXIT;
    r.time = now_ns();
    r.pid = r.tid = s->target.kpid ? s->target.kpid : s->target.pid;
    r.cpu = -1;
    r.u.exit.status = s->target.status;
    r.u.exit.flags = WIFSIGNALED(s->target.status) ? TR_EXITF_SIGNALED : 0;
    note_werr(s, tr_writer_add(s->w, &r));
}

/* Sleep until the reader thread queued something, a signal came, or 100 ms. */
static void sleep_on_wake(int timeout_ms)
{
    struct pollfd p = {wake_pipe[0], POLLIN, 0};
    if (poll(&p, 1, timeout_ms) > 0) {
        char buf[256];
        while (read(wake_pipe[0], buf, sizeof buf) > 0)
            ;
    }
}

static void run_loop(struct session *s, uint64_t deadline)
{
    while (!stop_signal && !s->werr) {
        int timeout = 100;
        if (deadline) {
            uint64_t now = now_ns();
            if (now >= deadline)
                break;
            if ((deadline - now) / 1000000 < (uint64_t)timeout)
                timeout = (int)((deadline - now) / 1000000) + 1;
        }
        sleep_on_wake(timeout);
        process_items(s);
        note_werr(s, tr_writer_poll(s->w));
        if (s->target.pid > 0) {
            child_changed = 0;
            if (ft_target_done(&s->target))
                break;
        }
    }
}

/* Tracing is off: take what the reader thread still reads. */
static void drain_reader(struct session *s)
{
    ft_reader_finish(s->rd);
    while (!process_items(s))
        sleep_on_wake(100);
    release(s, 1);
    ft_reader_free(s->rd);
    s->rd = NULL;
}

int ft_record(const struct ft_options *o)
{
    struct session s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.exec_id = -1;
    s.target.go_fd = s.target.err_fd = -1;
    const char *why = NULL;
    s.dir = ft_tracing_dir(&why);
    if (!s.dir)
        cli_die(CLI_EXIT_FAIL, "tracefs: %s", why);

    ft_select_events(&s.ev, s.dir, o);
    if (!s.ev.n && !o->function)
        cli_die(CLI_EXIT_USAGE, "nothing to record: give -e SYSTEM:EVENT (or --function)");
    if (o->pid > 0 && kill(o->pid, 0) < 0 && errno == ESRCH)
        cli_die(CLI_EXIT_FAIL, "process %d: %s", (int)o->pid, strerror(errno));

    s.defmap = calloc(MAX_EVENT_ID, sizeof *s.defmap);
    s.triedmap = calloc(MAX_EVENT_ID, 1);
    s.funcs = calloc(MAX_EVENT_ID, sizeof *s.funcs);
    s.tasks = ft_tasks_new();
    if (!s.defmap || !s.triedmap || !s.funcs || !s.tasks || tpformat_new(&s.tp) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    {
        const uint16_t one = 1;
        if (*(const uint8_t *)&one == 0)
            s.raw_flags |= TR_RAW_BIG_ENDIAN;
    }
    if (tpformat_use(s.tp, NULL, s.raw_flags) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    s.long_size = host_long_size(&s, &s.subbuf_size);
    if (!s.subbuf_size)
        s.subbuf_size = (size_t)sysconf(_SC_PAGESIZE);
    s.raw_flags |= (s.long_size == 4 ? TR_RAW_32BIT : 0);
    /* the kernel's layout of the common fields, until a format says */
    s.f_type = (tpformat_field){"common_type", 0, 2, 0, 0};
    s.f_pid = (tpformat_field){"common_pid", 4, 4, 0, TPF_SIGNED};

    s.out_fd = cli_open_trace_output(o->output, NULL, &s.out_name);
    grow_pipe(s.out_fd);

    install_signals();
    ft_remove_stale_instances();
    char err[256];
    if (ft_instance_create(err, sizeof err) < 0)
        cli_die(CLI_EXIT_FAIL, "%s", err);

    if (o->buffer_kb) {
        char v[32];
        snprintf(v, sizeof v, "%llu", (unsigned long long)o->buffer_kb);
        int rc = ft_instance_write("buffer_size_kb", v);
        if (rc < 0)
            fail("buffer_size_kb %s: %s", v, strerror(-rc));
    }
    /* wake the reading thread when a tenth of a CPU's buffer is full (or every 100 ms):
     * early enough to empty it under a storm on a loaded machine */
    ft_instance_write("buffer_percent", "10");

    /* who is traced */
    char *pidlist = NULL;
    pid_t me = ft_kernel_pid();
    int in_pidns = me != getpid(); /* our pids are not the ones tracefs takes */
    if (o->cmd) {
        if (in_pidns) { /* the kernel adds the child's pid at its fork: ours is there first */
            char v[32];
            snprintf(v, sizeof v, "%d", (int)me);
            int rc = ft_instance_write("options/event-fork", "1");
            if (rc < 0 || (rc = ft_instance_write("set_event_pid", v)) < 0)
                fail("set_event_pid: %s", strerror(-rc));
        }
        if (ft_target_spawn(&s.target, o->cmd, s.out_fd == STDOUT_FILENO) < 0)
            fail("cannot start %s: %s", o->cmd[0], strerror(errno));
        s.target.kpid = in_pidns ? ft_instance_other_pid(me) : s.target.pid;
        if (s.target.kpid <= 0)
            fail("cannot tell the command's pid outside this PID namespace (set_event_pid)");
        if (asprintf(&pidlist, "%d", (int)s.target.kpid) < 0)
            fail("out of memory");
    } else if (o->pid > 0) {
        if (in_pidns)
            fail("-p inside a PID namespace: tracefs takes the pids of the initial namespace, "
                 "which this one does not show (run the command under tr-rec-ftrace instead)");
        s.target.pid = o->pid;
        pidlist = ft_pid_threads(o->pid);
        if (!pidlist)
            fail("process %d: %s", (int)o->pid, strerror(errno));
    }
    if (pidlist) {
        int rc = ft_instance_write("set_event_pid", pidlist);
        if (rc < 0)
            fail("set_event_pid: %s", strerror(-rc));
        ft_instance_write("options/event-fork", "1");
    } else {
        /* system-wide: not ourselves, or the recorder's reads would trace themselves */
        char v[32];
        snprintf(v, sizeof v, "%d", (int)me);
        ft_instance_write("set_event_notrace_pid", v);
    }
    if (o->function)
        ft_setup_function(&s.ev, s.dir, o, pidlist);
    for (size_t i = 0; i < s.ev.n; i++)
        if (strcmp(s.ev.v[i].system, "ftrace"))
            ft_enable_event(&s.ev.v[i]);

    /* zstd level 1: measured on syscall storms both cheaper and smaller than the default 3 */
    tr_writer_options wopt = {0};
    wopt.level = 1;
    int rc = tr_writer_open(&s.w, s.out_fd, &wopt);
    if (rc < 0)
        fail("%s: %s", s.out_name, tr_strerror(rc));
    write_header(&s);
    if (o->function)
        write_kallsyms(&s);
    /* a recorder killed from here on leaves a trace that can still be decoded */
    note_werr(&s, tr_writer_flush(s.w));
    open_cpus(&s);
    s.rd = ft_reader_start(s.ncpus, s.tcpus, s.fds, s.subbuf_size, MAX_QUEUED_PAGES, wake_pipe[1]);
    if (!s.rd)
        fail("cannot start the reading thread: %s", strerror(errno));

    if (!stop_signal) {
        rc = ft_instance_write("tracing_on", "1");
        if (rc < 0)
            fail("tracing_on: %s", strerror(-rc));
        if (s.target.spawned && ft_target_go(&s.target) < 0) {
            int e = errno;
            ft_target_done(&s.target);
            fail("cannot run %s: %s", o->cmd[0], strerror(e));
        }
        cli_commit_trace_output();
        run_loop(&s, o->duration_ns ? now_ns() + o->duration_ns : 0);
    }

    ft_instance_write("tracing_on", "0");
    drain_reader(&s);
    account_overruns(&s);
    stop_target(&s);
    record_child_exit(&s);
    if (!o->function)
        write_event_kallsyms(&s);
    write_task_maps(&s);
    close_cpus(&s);
    ft_instance_remove();
    if (!s.werr)
        note_werr(&s, tr_writer_finish(s.w, s.lost));
    if (s.werr && s.werr != TR_E_EPIPE)
        cli_warn("%s: %s", s.out_name, tr_strerror(s.werr));
    else if (s.werr == TR_E_EPIPE)
        cli_warn("%s: the reader went away; recording stopped", s.out_name);
    if (!o->quiet)
        fprintf(stderr, "%s: %llu events, %llu lost\n", cli_name(), (unsigned long long)s.nevents,
                (unsigned long long)s.lost);
    int status = exit_status(&s);
    tr_writer_free(s.w);
    if (s.out_fd != STDOUT_FILENO && close(s.out_fd) < 0 && !status)
        status = CLI_EXIT_FAIL;
    free(pidlist);
    free(s.defmap);
    free(s.triedmap);
    for (int i = 0; i < MAX_EVENT_ID; i++)
        free(s.funcs[i]);
    free(s.funcs);
    hashmap_free(&s.kaddrs);
    ft_tasks_free(s.tasks);
    tpformat_free(s.tp);
    ft_events_free(&s.ev);
    return status;
}
