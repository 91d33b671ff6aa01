/* record.c - tr-triage's recording (spec/tr-triage.md, "Recording").
 *
 * Three tr-rec-perf recorders run at once over the same window:
 *   1. cpu-clock samples, sched:sched_switch and sched:sched_wakeup, with
 *      DWARF stacks (CPU and off-CPU profiles, run-queue latency);
 *   2. raw_syscalls:sys_enter and sys_exit without stacks (the syscall
 *      table: calls, errors, latencies; perf events, not ptrace);
 *   3. --stat (the counters).
 * A command runs under the three nested (1 -- 2 -- 3 -- COMMAND): each
 * enables its events at its child's exec, so each sees the command from its
 * first instruction, and the counting one only the command; the recorders'
 * own work seen by the outer ones is left out by name when reading.  With
 * -p or -a they run side by side for -d SECONDS.  Meanwhile /proc is read
 * every 100 ms for the target's memory, mappings, descriptors and threads.
 * The streams are then joined (cat) into one trace, followed by tr-triage's
 * own stream of metadata: those readings and the recorders' CPU time. */
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "tr.h"
#include "triage/triage.h"

#define SHIM_ENV "TR_TRIAGE_STDERR_FD"
#define MAX_PROCS 256

void triage_shim(char **argv)
{
    const char *v = getenv(SHIM_ENV);
    if (!v || !argv[0] || !argv[1])
        return;
    int fd = atoi(v);
    unsetenv(SHIM_ENV);
    if (fd > 2) {
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
    execvp(argv[1], argv + 1);
    int e = errno;
    fprintf(stderr, "tr-triage: %s: %s\n", argv[1], strerror(e));
    _exit(e == ENOENT ? 127 : 126);
}

/* ---- the target in /proc ----------------------------------------------- */

struct readings {
    int have;
    uint64_t rss_first, rss_max, maps_first, maps_max, fds_max, fds_limit, threads_max;
};

static int excluded(pid_t p)
{
    char comm[64];
    if (cli_read_comm(p, p, comm, sizeof comm) < 0)
        return 1;
    return !strncmp(comm, "tr-rec-perf", 11) || !strncmp(comm, "tr-triage", 9);
}

/* p's descendants (its threads' children, theirs ...) appended to v. */
static void descendants(pid_t p, pid_t *v, size_t *n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)p);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char cp[320];
        snprintf(cp, sizeof cp, "/proc/%d/task/%s/children", (int)p, e->d_name);
        char *s = cli_read_file(cp, NULL);
        char *save = NULL;
        for (char *w = s ? strtok_r(s, " \n", &save) : NULL; w; w = strtok_r(NULL, " \n", &save)) {
            if (*n == MAX_PROCS)
                break;
            v[(*n)++] = (pid_t)atoi(w);
            descendants(v[*n - 1], v, n);
        }
        free(s);
    }
    if (d)
        closedir(d);
}

static uint64_t status_kb(const char *status, const char *key)
{
    const char *p = strstr(status, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* One reading of the target processes (roots and their descendants). */
static void read_target(const pid_t *roots, size_t nroots, int roots_too, struct readings *r)
{
    pid_t v[MAX_PROCS];
    size_t n = 0;
    for (size_t i = 0; i < nroots && n < MAX_PROCS; i++) {
        if (roots_too)
            v[n++] = roots[i];
        descendants(roots[i], v, &n);
    }
    uint64_t rss = 0, hwm = 0, maps = 0, fds = 0, threads = 0, limit = 0;
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (excluded(v[i]))
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/status", (int)v[i]);
        char *s = cli_read_file(path, NULL);
        if (!s)
            continue;
        seen = 1;
        rss += status_kb(s, "VmRSS:");
        hwm += status_kb(s, "VmHWM:");
        threads += status_kb(s, "Threads:");
        free(s);
        snprintf(path, sizeof path, "/proc/%d/maps", (int)v[i]);
        if ((s = cli_read_file(path, NULL))) {
            for (char *c = s; (c = strchr(c, '\n')); c++)
                maps++;
            free(s);
        }
        snprintf(path, sizeof path, "/proc/%d/fd", (int)v[i]);
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)))
            fds += e->d_name[0] != '.';
        if (d)
            closedir(d);
        snprintf(path, sizeof path, "/proc/%d/limits", (int)v[i]);
        if (!limit && (s = cli_read_file(path, NULL))) {
            const char *l = strstr(s, "Max open files");
            limit = l ? strtoull(l + 14, NULL, 10) : 0;
            free(s);
        }
    }
    if (!seen)
        return;
    if (!r->have) {
        r->have = 1;
        r->rss_first = rss;
        r->maps_first = maps;
    }
#define MAX(a, b) if ((b) > (a)) (a) = (b)
    MAX(r->rss_max, hwm);
    MAX(r->rss_max, rss);
    MAX(r->maps_max, maps);
    MAX(r->fds_max, fds);
    MAX(r->threads_max, threads);
    MAX(r->fds_limit, limit);
#undef MAX
}

/* ---- the recorders ------------------------------------------------------- */

static volatile sig_atomic_t forward; /* a SIGINT or SIGTERM sent to us alone: pass it on */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    if (si->si_code == SI_USER || si->si_code == SI_QUEUE)
        forward = 1; /* not the terminal's, which every recorder got too */
}

struct args { char *v[96]; int n; };

static void add(struct args *a, const char *w)
{
    if (a->n < 95)
        a->v[a->n++] = (char *)w;
    a->v[a->n] = NULL;
}

/* The recorder's words before its target: which events, into out. */
static void recorder(struct args *a, const char *trp, int which, const char *out, const char *hz)
{
    add(a, trp);
    add(a, "-q");
    if (which == 0) {
        const char *w[] = {"--call-graph", "dwarf", "-F", hz, "-e", "cpu-clock", "-e", "sched:sched_switch", "-e",
                           "sched:sched_wakeup"};
        for (size_t i = 0; i < sizeof w / sizeof *w; i++)
            add(a, w[i]);
    } else if (which == 1) {
        add(a, "-e"), add(a, "raw_syscalls:sys_enter"), add(a, "-e"), add(a, "raw_syscalls:sys_exit");
    } else {
        add(a, "--stat");
    }
    add(a, "-o");
    add(a, out);
}

static pid_t spawn(char **argv, int errfd, int shim_fd)
{
    pid_t p = fork();
    if (p == 0) {
        dup2(errfd, STDERR_FILENO);
        if (shim_fd >= 0) {
            dup2(shim_fd, 3);
            setenv(SHIM_ENV, "3", 1);
        }
        execv(argv[0], argv);
        fprintf(stderr, "tr-triage: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (p < 0)
        cli_die(CLI_EXIT_FAIL, "fork: %s", strerror(errno));
    return p;
}

/* The task-clock (ns) the counting recorder measured, 0 unknown. */
static uint64_t task_clock(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    tr_reader *r;
    uint64_t v = 0;
    if (fd < 0 || tr_reader_open(&r, fd, NULL) < 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    tr_record rec;
    while (tr_reader_next(r, &rec) > 0) {
        if (rec.type != TR_REC_COUNTER || (rec.u.counter.flags & TR_CNTF_INTERVAL))
            continue;
        const tr_event_def *ev = tr_reader_event(r, rec.u.counter.event);
        if (ev && ev->name_len == 10 && !memcmp(ev->name, "task-clock", 10) && rec.u.counter.running)
            v += rec.u.counter.value;
    }
    tr_reader_free(r);
    close(fd);
    return v;
}

static int put_u64(tr_writer *w, const char *key, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    return tr_writer_meta(w, key, b);
}

/* tr-triage's stream: what it measured besides the recorders. */
static int write_own(const char *path, const struct triage_rec *r, const struct readings *rd, uint64_t wall,
                     uint64_t rec_cpu, uint64_t cmd_cpu)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    tr_writer *w;
    if (fd < 0 || tr_writer_open(&w, fd, NULL) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char target[512];
    if (r->argc) {
        int n = snprintf(target, sizeof target, "command '");
        for (int i = 0; i < r->argc && n < (int)sizeof target; i++)
            n += snprintf(target + n, sizeof target - (size_t)n, "%s%s", i ? " " : "", r->argv[i]);
        if (n < (int)sizeof target - 1)
            snprintf(target + n, sizeof target - (size_t)n, "'");
    } else if (r->npids) {
        int n = snprintf(target, sizeof target, "process%s", r->npids > 1 ? "es" : "");
        for (size_t i = 0; i < r->npids && n < (int)sizeof target; i++)
            n += snprintf(target + n, sizeof target - (size_t)n, "%s%d", i ? "," : " ", (int)r->pids[i]);
    } else {
        snprintf(target, sizeof target, "system");
    }
    int rc = tr_writer_meta_defaults(w, "tr-triage", 0, NULL);
    rc = rc < 0 ? rc : tr_writer_meta(w, TRIAGE_META_TARGET, target);
    rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_WALL, wall);
    rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_REC_CPU, rec_cpu);
    if (cmd_cpu)
        rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_CMD_CPU, cmd_cpu);
    if (rd->have) {
        rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_RSS_FIRST, rd->rss_first);
        rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_RSS_MAX, rd->rss_max);
        rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_MAPS_FIRST, rd->maps_first);
        rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_MAPS_MAX, rd->maps_max);
        rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_FDS_MAX, rd->fds_max);
        rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_FDS_LIMIT, rd->fds_limit);
        rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_THREADS_MAX, rd->threads_max);
    }
    char *mem = cli_read_file("/proc/meminfo", NULL);
    if (mem)
        rc = rc < 0 ? rc : put_u64(w, TRIAGE_META_MEM_TOTAL, status_kb(mem, "MemTotal:"));
    free(mem);
    rc = rc < 0 ? rc : tr_writer_finish(w, 0);
    tr_writer_free(w);
    return close(fd) < 0 || rc < 0 ? -1 : 0;
}

/* Append the file at path to fd: 0, or -1. */
static int append(int fd, const char *path)
{
    int in = open(path, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(fd, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    close(in);
    return n < 0 ? -1 : 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int triage_record(struct triage_rec *r)
{
    char trp[4096], self[4096], dir[4200], parts[4][4300], errp[4300], hz[16], dur[32];
    cli_sibling_tool("tr-rec-perf", trp, sizeof trp);
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0)
        cli_die(CLI_EXIT_FAIL, "/proc/self/exe: %s", strerror(errno));
    self[sl] = 0;
    snprintf(dir, sizeof dir, "%s.parts.XXXXXX", r->output);
    if (!mkdtemp(dir))
        cli_die(CLI_EXIT_FAIL, "%s: %s", dir, strerror(errno));
    static const char *const names[] = {"stacks.tr", "syscalls.tr", "counters.tr", "triage.tr"};
    for (int i = 0; i < 4; i++)
        snprintf(parts[i], sizeof parts[i], "%s/%s", dir, names[i]);
    snprintf(errp, sizeof errp, "%s/recorders.err", dir);
    snprintf(hz, sizeof hz, "%u", r->freq);
    snprintf(dur, sizeof dur, "%.3f", (double)r->duration_ns / 1e9);
    int errfd = open(errp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (errfd < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", errp, strerror(errno));

    struct sigaction sa = {0};
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    pid_t rec[3];
    int nrec = 0;
    uint64_t t0 = now_ns();
    if (r->argc) {
        struct args a = {0};
        for (int i = 0; i < 3; i++) {
            recorder(&a, trp, i, parts[i], hz);
            add(&a, "--");
        }
        add(&a, self);
        for (int i = 0; i < r->argc; i++)
            add(&a, r->argv[i]);
        if (a.n >= 95)
            cli_die(CLI_EXIT_USAGE, "the command has too many words");
        int shim_fd = dup(STDERR_FILENO);
        rec[nrec++] = spawn(a.v, errfd, shim_fd);
        close(shim_fd);
    } else {
        char pids[1024] = "";
        for (size_t i = 0, n = 0; i < r->npids; i++)
            n += (size_t)snprintf(pids + n, sizeof pids - n, "%s%d", i ? "," : "", (int)r->pids[i]);
        for (int i = 0; i < 3; i++) {
            struct args a = {0};
            recorder(&a, trp, i, parts[i], hz);
            if (r->all)
                add(&a, "-a");
            else
                add(&a, "-p"), add(&a, pids);
            add(&a, "-d");
            add(&a, dur);
            rec[nrec++] = spawn(a.v, errfd, -1);
        }
    }
    /* wait for them, reading the target meanwhile */
    struct readings rd = {0};
    int wstatus[3] = {0}, left = nrec, forwarded = 0;
    while (left > 0) {
        if (r->argc && r->duration_ns && now_ns() - t0 >= r->duration_ns)
            forward = 1; /* -d with a command: its end, as a Ctrl-C */
        if (forward && !forwarded) {
            for (int i = 0; i < nrec; i++)
                if (rec[i] > 0)
                    kill(rec[i], SIGINT);
            forwarded = 1;
        }
        if (!r->all)
            read_target(r->argc ? rec : r->pids, r->argc ? 1 : r->npids, !r->argc, &rd);
        for (int i = 0; i < nrec; i++) {
            if (rec[i] <= 0)
                continue;
            int st;
            pid_t p = waitpid(rec[i], &st, WNOHANG);
            if (p == rec[i] || (p < 0 && errno == ECHILD)) {
                wstatus[i] = st;
                rec[i] = 0;
                left--;
            }
        }
        if (left > 0)
            nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    }
    uint64_t wall = now_ns() - t0;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    uint64_t children = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
                        (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;

    /* every recorder must have written its stream */
    int ok = 1;
    for (int i = 0; i < 3; i++) {
        struct stat st;
        if (stat(parts[i], &st) < 0 || st.st_size == 0)
            ok = 0;
    }
    if (!ok) {
        close(errfd);
        char *msg = cli_read_file(errp, NULL);
        cli_warn("the recorders failed; no trace written%s%s", msg && *msg ? ":\n" : "", msg ? msg : "");
        free(msg);
        r->failed = 1;
    } else {
        close(errfd);
        uint64_t clock = task_clock(parts[2]);
        /* with a command, the children's time holds the command's */
        uint64_t rec_cpu = r->argc ? (children > clock ? children - clock : 0) : children;
        int out = open(r->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out < 0 || write_own(parts[3], r, &rd, wall, rec_cpu, clock) < 0)
            ok = 0;
        for (int i = 0; ok && i < 4; i++)
            ok = append(out, parts[i]) == 0;
        if ((out >= 0 && close(out) < 0) || !ok) {
            cli_warn("%s: %s", r->output, strerror(errno));
            r->failed = 1;
        }
    }
    for (int i = 0; i < 4; i++)
        unlink(parts[i]);
    unlink(errp);
    rmdir(dir);
    return r->argc ? cli_command_status(wstatus[0]) : 0;
}
