/*
 * tracer.c - the ptrace engine (see tracer.h).
 *
 * Every tracee is attached with PTRACE_SEIZE and followed with the fork,
 * vfork, clone and exec events.  Without a seccomp filter each one runs
 * under PTRACE_SYSCALL and stops at every syscall entry and exit; with one,
 * it runs under PTRACE_CONT, the kernel stops it (PTRACE_EVENT_SECCOMP) only
 * at the entry of a selected syscall, and PTRACE_SYSCALL then catches that
 * syscall's exit.  PTRACE_GET_SYSCALL_INFO gives number, arguments and
 * return value.  A syscall is written as one record when it returns (or
 * when its thread dies or execs in it: unfinished).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include "cli.h"
#include "unwind.h"
#include "tracer.h"

struct tracer {
    tr_writer *w;
    const struct tracer_opts *o;
    struct tracee_table tab;
    struct syscalls_table sys; /* the host's numbers to names and descriptors */
    int nr_execve, nr_execveat;
    pid_t main_pid;
    int main_status;
    int use_seccomp;
    int attach_mode;
    int write_error;
    unsigned long options;
    struct tracer_result *res;
    struct stacks *stacks; /* -k */
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig) { stop_requested = sig; }
static void on_alarm(int sig) { (void)sig; }

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct syscall_desc *desc_of(struct tracer *T, uint32_t nr)
{
    const struct syscalls_entry *e = syscalls_table_get(&T->sys, nr);
    return e ? e->desc : NULL;
}

static int is_error_ret(int64_t ret) { return ret < 0 && ret >= -4095; }

/* ---- writing ------------------------------------------------------------ */

static void check_write(struct tracer *T, int rc)
{
    if (rc < 0 && !T->write_error) {
        T->write_error = rc;
        cli_warn("write error: %s", tr_strerror(rc));
    }
}

static void write_syscall(struct tracer *T, struct tracee *tr, int64_t ret, uint32_t flags,
                          uint64_t t_end)
{
    tr_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = TR_REC_SYSCALL;
    rec.time = tr->t_entry;
    rec.pid = tr->tgid;
    rec.tid = tr->exec_tid ? tr->exec_tid : tr->tid;
    tr->exec_tid = 0;
    rec.cpu = -1;
    rec.u.syscall.nr = tr->nr;
    rec.u.syscall.flags = flags;
    rec.u.syscall.ret = ret;
    rec.u.syscall.duration = t_end >= tr->t_entry ? t_end - tr->t_entry : 0;
    const struct syscall_desc *d = desc_of(T, tr->nr);
    rec.u.syscall.nargs = d ? d->nargs : 6;
    memcpy(rec.u.syscall.args, tr->args, sizeof tr->args);
    rec.u.syscall.stack = tr->stack;
    for (uint32_t i = 0; i < tr->ncaps; i++) {
        tr_capture *c = &rec.u.syscall.captures[i];
        const struct cap *s = &tr->caps[i];
        c->arg = s->arg;
        c->kind = s->kind;
        c->flags = s->flags;
        c->data = tr->buf + s->off;
        c->len = s->len;
        if (s->struct_name)
            check_write(T, tr_writer_string(T->w, s->struct_name, strlen(s->struct_name),
                                            &c->struct_name));
    }
    rec.u.syscall.ncaptures = tr->ncaps;
    check_write(T, tr_writer_add(T->w, &rec));
    T->res->syscalls++;
    if (T->o->count && (flags & TR_SYSF_HAS_RET)) {
        const char *name = syscalls_host_name(tr->nr);
        char unknown[32];
        if (!name) {
            snprintf(unknown, sizeof unknown, "syscall_%#x", tr->nr);
            name = unknown;
        }
        if (syscount_add(T->o->count, tr->nr, name, is_error_ret(ret), rec.u.syscall.duration) < 0)
            check_write(T, TR_E_NOMEM);
    }
}

static int status_selected(struct tracer *T, int64_t ret, int finished)
{
    uint32_t st = T->o->filter->status;
    if (!finished)
        return (st & ST_UNFINISHED) != 0;
    return (st & (is_error_ret(ret) ? ST_FAILED : ST_SUCCESSFUL)) != 0;
}

/* The in-flight syscall of tr ends without returning (exit, exec, detach). */
static void end_unfinished(struct tracer *T, struct tracee *tr, uint64_t t, uint32_t why)
{
    if (tr->in_syscall && tr->selected && (T->o->filter->status & why))
        write_syscall(T, tr, 0, TR_SYSF_UNFINISHED, t);
    tr->in_syscall = 0;
    tr->selected = 0;
}

static void write_simple(struct tracer *T, tr_record *rec)
{
    check_write(T, tr_writer_add(T->w, rec));
}

static void write_comm(struct tracer *T, struct tracee *tr, int exec)
{
    char comm[64];
    cli_read_comm(tr->tid, tr->tid, comm, sizeof comm);
    tr_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = TR_REC_COMM;
    rec.time = now_ns();
    rec.pid = tr->tgid;
    rec.tid = tr->tid;
    rec.cpu = -1;
    rec.u.comm.comm = comm;
    rec.u.comm.len = strlen(comm);
    rec.u.comm.exec = (uint32_t)exec;
    write_simple(T, &rec);
}

static pid_t read_tgid(pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tid;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return tid;
    buf[n] = 0;
    char *p = strstr(buf, "\nTgid:");
    return p ? (pid_t)atoi(p + 6) : tid;
}

/* ---- syscall stops -------------------------------------------------------- */

/* 1 when fd of tr is a descriptor of a -P path. */
static int fd_matches(const struct filter *f, struct tracee *tr, int64_t fd)
{
    char path[PATH_MAX];
    long n;
    return (int32_t)fd >= 0 && (n = fd_path(tr->tid, (int32_t)fd, path, sizeof path)) >= 0 &&
           filter_path_matches(f, path, (size_t)n);
}

static int path_filter_matches(struct tracer *T, struct tracee *tr, const struct syscall_desc *d)
{
    const struct filter *f = T->o->filter;
    if (!f->npaths)
        return 1;
    if (!d)
        return 0;
    for (uint32_t i = 0; i < tr->ncaps; i++) {
        const struct cap *c = &tr->caps[i];
        if ((c->kind == TR_CAP_STRING || c->kind == TR_CAP_FD_PATH) &&
            filter_path_matches(f, (const char *)tr->buf + c->off, c->len))
            return 1;
    }
    if (T->o->cap.decode_fds)
        return 0; /* the fds' paths were captured */
    if (syscalls_by_args(d)) {
        for (unsigned i = 0; i < d->nargs; i++)
            if (syscalls_arg_info((enum syscall_arg)d->args[i])->fd && fd_matches(f, tr, (int64_t)tr->args[i]))
                return 1;
        return 0;
    }
    /* a call its family decodes (ioctl, fcntl): the fds its family would capture for -y */
    struct syscall_family_capture fc[SYSCALLS_FAMILY_CAPTURES_MAX];
    int n = syscalls_family_captures(d, tr->args, tr->sp, 0, 0, NULL, 0, fc);
    for (int i = 0; i < n; i++)
        if (fc[i].c.what == SYSCALL_CAPTURE_FD_PATH && fd_matches(f, tr, (int64_t)fc[i].value))
            return 1;
    return 0;
}

static void syscall_entry(struct tracer *T, struct tracee *tr, uint32_t arch, uint64_t nr,
                          const uint64_t *args, uint64_t sp)
{
    tr->sp = sp;
    tr->t_entry = now_ns();
    tr->in_syscall = 1;
    tr->selected = 0;
    tr->stack = 0;
    tr->ncaps = 0;
    tr->nr = (uint32_t)nr;
    memcpy(tr->args, args, sizeof tr->args);
    tr->stack_at_exit = 0;
    if (arch != AUDIT_ARCH_X86_64)
        return; /* other ABIs are not decoded */
    if (tr->startup) {
        if (nr != (uint64_t)T->nr_execve && nr != (uint64_t)T->nr_execveat)
            return;
        tr->startup = 0;
        /* its stack is the recorder's own code: take the program's once it returns (strace too) */
        tr->stack_at_exit = 1;
    }
    if (!filter_selects(T->o->filter, (uint32_t)nr))
        return;
    const struct syscall_desc *d = desc_of(T, (uint32_t)nr);
    capture_entry(tr, d, &T->o->cap);
    if (!path_filter_matches(T, tr, d))
        return;
    tr->selected = 1;
    if (T->o->stacks && !T->stacks && !(T->stacks = stacks_new(T->w)))
        cli_die(CLI_EXIT_FAIL, "out of memory");
    if (T->stacks && !tr->stack_at_exit)
        check_write(T, stacks_capture(T->stacks, tr->tgid, tr->tid, &tr->stack));
}

/* Syscalls after which a process's code mappings may have changed (-k):
 * 1 those that may unmap or replace, 2 those that only add or change. */
static int changes_maps(uint32_t nr)
{
    static int nr_munmap = -1, nr_mremap, nr_mmap, nr_mprotect;
    if (nr_munmap < 0) {
        nr_munmap = syscalls_host_nr("munmap");
        nr_mremap = syscalls_host_nr("mremap");
        nr_mmap = syscalls_host_nr("mmap");
        nr_mprotect = syscalls_host_nr("mprotect");
    }
    if ((int)nr == nr_munmap || (int)nr == nr_mremap)
        return 1;
    return (int)nr == nr_mmap || (int)nr == nr_mprotect ? 2 : 0;
}

static void syscall_exit(struct tracer *T, struct tracee *tr, int64_t ret)
{
    uint64_t t = now_ns();
    if (!tr->in_syscall) {
        /* attached in the middle of a syscall: recover it from the registers */
        struct user_regs_struct regs;
        if (tr->startup || ptrace(PTRACE_GETREGS, tr->tid, NULL, &regs) < 0)
            return;
        tr->nr = (uint32_t)regs.orig_rax;
        uint64_t a[6] = { regs.rdi, regs.rsi, regs.rdx, regs.r10, regs.r8, regs.r9 };
        memcpy(tr->args, a, sizeof a);
        tr->t_entry = t;
        tr->ncaps = 0;
        tr->stack = 0;
        tr->selected = filter_selects(T->o->filter, tr->nr) && !T->o->filter->npaths;
        if (tr->selected)
            capture_entry(tr, desc_of(T, tr->nr), &T->o->cap);
    }
    if (tr->selected && status_selected(T, ret, 1)) {
        if (tr->stack_at_exit && T->stacks && ret == 0)
            check_write(T, stacks_capture(T->stacks, tr->tgid, tr->tid, &tr->stack));
        capture_exit(tr, desc_of(T, tr->nr), ret, &T->o->cap);
        write_syscall(T, tr, ret, TR_SYSF_HAS_RET, t);
    }
    int change = T->stacks && !is_error_ret(ret) ? changes_maps(tr->nr) : 0;
    if (change)
        stacks_maps_changed(T->stacks, tr->tgid, change == 1);
    tr->in_syscall = 0;
    tr->selected = 0;
    tr->stack_at_exit = 0;
}

/* ---- resuming --------------------------------------------------------------- */

static void resume(struct tracer *T, struct tracee *tr, int sig)
{
    int req = (T->use_seccomp && !tr->in_syscall) ? PTRACE_CONT : PTRACE_SYSCALL;
    ptrace(req, tr->tid, NULL, (void *)(long)sig);
    /* ESRCH: it died meanwhile; its exit is reported by waitpid */
}

/* ---- process life ------------------------------------------------------------ */

static struct tracee *new_tracee(struct tracer *T, pid_t tid)
{
    struct tracee *tr = tracee_add(&T->tab, tid);
    if (!tr)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    return tr;
}

static void on_fork_event(struct tracer *T, struct tracee *parent, int event)
{
    unsigned long msg = 0;
    pid_t ptid = parent->tid;
    if (ptrace(PTRACE_GETEVENTMSG, ptid, NULL, &msg) < 0 || !msg)
        return;
    pid_t child = (pid_t)msg;
    struct tracee *c = tracee_find(&T->tab, child);
    if (!c) {
        c = new_tracee(T, child);
        c->new_child = 1;
    }
    c->tgid = event == PTRACE_EVENT_CLONE ? read_tgid(child) : child;
    c->startup = 0;
    parent = tracee_find(&T->tab, ptid); /* the table may have grown */
    if (c->tgid == child)
        T->res->processes++;
    tr_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = TR_REC_FORK;
    rec.time = now_ns();
    rec.pid = c->tgid;
    rec.tid = child;
    rec.cpu = -1;
    rec.u.fork.ppid = parent->tgid;
    rec.u.fork.ptid = parent->tid;
    write_simple(T, &rec);
}

static void on_exec_event(struct tracer *T, struct tracee **trp)
{
    struct tracee *tr = *trp;
    pid_t tid = tr->tid;
    unsigned long former = 0;
    uint64_t t = now_ns();
    if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &former) == 0 && former && (pid_t)former != tid) {
        /* a non-leader thread exec'd and took the leader's pid: the leader's
         * pending call never returns, the thread's state moves to the pid */
        end_unfinished(T, tr, t, ST_UNFINISHED);
        struct tracee *old = tracee_find(&T->tab, (pid_t)former);
        if (old) {
            struct tracee moved = *old;
            old->buf = NULL;
            tracee_remove(&T->tab, (pid_t)former);
            tr = tracee_find(&T->tab, tid);
            free(tr->buf);
            *tr = moved;
            tr->tid = tid;
            tr->tgid = tid;
            tr->exec_tid = (pid_t)former; /* its execve entered as that thread */
        }
    }
    tr->startup = 0;
    if (T->stacks)
        stacks_forget(T->stacks, tr->tgid); /* a new address space */
    write_comm(T, tr, 1);
    *trp = tr;
}

static void on_exit_status(struct tracer *T, pid_t tid, int status)
{
    struct tracee *tr = tracee_find(&T->tab, tid);
    uint64_t t = now_ns();
    if (!tr)
        return;
    pid_t tgid = tr->tgid;
    int startup = tr->startup;
    end_unfinished(T, tr, t, ST_UNFINISHED);
    if (!startup) {
        tr_record rec;
        memset(&rec, 0, sizeof rec);
        rec.type = TR_REC_EXIT;
        rec.time = t;
        rec.pid = tgid;
        rec.tid = tid;
        rec.cpu = -1;
        rec.u.exit.status = status;
        rec.u.exit.flags = (WIFSIGNALED(status) ? TR_EXITF_SIGNALED : 0) |
                           (tid != tgid ? TR_EXITF_THREAD : 0);
        write_simple(T, &rec);
    }
    if (tid == T->main_pid)
        T->main_status = status;
    if (tid == tgid && T->stacks)
        stacks_forget(T->stacks, tgid);
    tracee_remove(&T->tab, tid);
}

static void write_signal(struct tracer *T, struct tracee *tr, int sig, const siginfo_t *si,
                         uint32_t flags)
{
    tr_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = TR_REC_SIGNAL;
    rec.time = now_ns();
    rec.pid = tr->tgid;
    rec.tid = tr->tid;
    rec.cpu = -1;
    rec.u.signal.signo = (uint32_t)sig;
    rec.u.signal.code = si ? si->si_code : 0;
    rec.u.signal.flags = flags;
    rec.u.signal.siginfo = (const uint8_t *)si;
    rec.u.signal.siginfo_len = si ? sizeof *si : 0;
    write_simple(T, &rec);
}

static int is_stop_signal(int sig)
{
    return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_stop(struct tracer *T, pid_t tid, int status)
{
    struct tracee *tr = tracee_find(&T->tab, tid);
    if (!tr) {
        /* a new child reported before its parent's fork event */
        tr = new_tracee(T, tid);
        tr->tgid = read_tgid(tid);
        tr->new_child = 1;
    }
    int sig = WSTOPSIG(status);
    int event = (unsigned)status >> 16;

    if (sig == (SIGTRAP | 0x80) || event == PTRACE_EVENT_SECCOMP) {
        struct __ptrace_syscall_info info;
        memset(&info, 0, sizeof info);
        if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof info, &info) <= 0) {
            resume(T, tr, 0);
            return;
        }
        if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
            syscall_entry(T, tr, info.arch, info.entry.nr, info.entry.args, info.stack_pointer);
        else if (info.op == PTRACE_SYSCALL_INFO_SECCOMP)
            syscall_entry(T, tr, info.arch, info.seccomp.nr, info.seccomp.args, info.stack_pointer);
        else if (info.op == PTRACE_SYSCALL_INFO_EXIT)
            syscall_exit(T, tr, info.exit.rval);
        resume(T, tr, 0);
        return;
    }
    switch (event) {
    case PTRACE_EVENT_FORK:
    case PTRACE_EVENT_VFORK:
    case PTRACE_EVENT_CLONE:
        on_fork_event(T, tr, event);
        tr = tracee_find(&T->tab, tid);
        resume(T, tr, 0);
        return;
    case PTRACE_EVENT_EXEC:
        on_exec_event(T, &tr);
        resume(T, tr, 0);
        return;
    case PTRACE_EVENT_STOP:
        if (tr->new_child && tr->seized && is_stop_signal(sig)) {
            /* attached to a stopped process: it stays stopped */
            tr->new_child = 0;
            ptrace(PTRACE_LISTEN, tid, NULL, NULL);
            return;
        }
        if (tr->new_child || tr->startup || !is_stop_signal(sig)) {
            /* the attach stop, or PTRACE_INTERRUPT */
            tr->new_child = 0;
            resume(T, tr, 0);
            return;
        }
        /* group-stop: report it and keep the tracee stopped until SIGCONT */
        write_signal(T, tr, sig, NULL, TR_SIGF_STOP);
        ptrace(PTRACE_LISTEN, tid, NULL, NULL);
        return;
    case 0:
        break;
    default:
        resume(T, tr, 0);
        return;
    }
    /* signal-delivery-stop */
    siginfo_t si;
    if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) < 0) {
        resume(T, tr, 0);
        return;
    }
    if (!tr->startup)
        write_signal(T, tr, sig, &si, 0);
    resume(T, tr, sig);
}

/* ---- the loop ---------------------------------------------------------------- */

static void install_signals(int attach_mode)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop_signal; /* no SA_RESTART: waitpid returns EINTR */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (attach_mode) {
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGQUIT, &sa, NULL);
    } else {
        /* Ctrl-C reaches the command; the tracer records what it does */
        signal(SIGINT, SIG_IGN);
        signal(SIGQUIT, SIG_IGN);
    }
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = { { 0, 100000 }, { 0, 100000 } };
    setitimer(ITIMER_REAL, &it, NULL);
}

static void stop_timer(void)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_REAL, &it, NULL);
}

static void detach_all(struct tracer *T)
{
    uint64_t t = now_ns();
    size_t it = 0;
    for (struct tracee *tr; (tr = tracee_next(&T->tab, &it));) {
        end_unfinished(T, tr, t, ST_DETACHED);
        if (ptrace(PTRACE_INTERRUPT, tr->tid, NULL, NULL) < 0)
            tr->detached = 1; /* gone already */
    }
    /* each tracee stops (or exits); detach it there, re-injecting a pending signal */
    size_t left = 0;
    it = 0;
    for (struct tracee *tr; (tr = tracee_next(&T->tab, &it));)
        if (!tr->detached)
            left++;
    int spins = 0;
    while (left) {
        int status;
        pid_t tid = waitpid(-1, &status, __WALL);
        if (tid < 0) {
            if (errno == EINTR && ++spins < 50)
                continue;
            break;
        }
        struct tracee *tr = tracee_find(&T->tab, tid);
        if (!tr || tr->detached)
            continue;
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            tr->detached = 1;
            left--;
            continue;
        }
        int sig = WSTOPSIG(status), event = (unsigned)status >> 16;
        int inject = 0;
        if (sig != (SIGTRAP | 0x80) && event == 0)
            inject = sig; /* a signal on its way: deliver it */
        else if (event == PTRACE_EVENT_STOP && is_stop_signal(sig))
            inject = 0;
        ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)inject);
        tr->detached = 1;
        left--;
    }
}

static int trace_loop(struct tracer *T)
{
    while (T->tab.count > 0) {
        if (stop_requested || T->write_error) {
            /* with the filter, the tracees end with us (PTRACE_O_EXITKILL): detached, their
             * filtered calls would fail */
            if (!(T->options & PTRACE_O_EXITKILL)) {
                detach_all(T);
                T->res->detached = 1;
            }
            break;
        }
        int status;
        pid_t tid = waitpid(-1, &status, __WALL);
        if (tid < 0) {
            if (errno == EINTR) {
                check_write(T, tr_writer_poll(T->w));
                continue;
            }
            if (errno == ECHILD)
                break;
            cli_warn("waitpid: %s", strerror(errno));
            return -1;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status))
            on_exit_status(T, tid, status);
        else if (WIFSTOPPED(status))
            on_stop(T, tid, status);
    }
    check_write(T, tr_writer_poll(T->w));
    return 0;
}

static void tracer_init(struct tracer *T, tr_writer *w, const struct tracer_opts *o,
                        struct tracer_result *res)
{
    memset(T, 0, sizeof *T);
    T->w = w;
    T->o = o;
    T->res = res;
    T->main_status = -1;
    memset(res, 0, sizeof *res);
    res->status = -1;
    T->options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC;
    if (o->follow)
        T->options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE;
    if (syscalls_table_host(&T->sys) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    T->nr_execve = syscalls_table_nr(&T->sys, "execve");
    T->nr_execveat = syscalls_table_nr(&T->sys, "execveat");
}

static void tracer_end(struct tracer *T)
{
    tracee_table_free(&T->tab);
    syscalls_table_free(&T->sys);
    stacks_free(T->stacks);
    T->stacks = NULL;
}

static void child_exec(const char *path, char **argv, const struct sock_filter *prog,
                       unsigned short len, int errfd)
{
    int err;
    signal(SIGPIPE, SIG_DFL); /* the tracer ignores it, the command must not */
    /* let the tracer seize us while stopped */
    kill(getpid(), SIGSTOP);
    if (prog) {
        struct sock_fprog fp = { len, (struct sock_filter *)prog };
        /* without CAP_SYS_ADMIN the kernel wants no_new_privs first */
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) < 0 &&
            (errno != EACCES || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
             syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) < 0)) {
            err = errno;
            if (write(errfd, "S", 1) < 0 || write(errfd, &err, sizeof err) < 0)
                _exit(127);
            _exit(127);
        }
    }
    execv(path, argv);
    err = errno;
    if (write(errfd, "E", 1) < 0 || write(errfd, &err, sizeof err) < 0)
        _exit(127);
    _exit(127);
}

int tracer_run_command(tr_writer *w, const struct tracer_opts *o, char **argv,
                       struct tracer_result *res)
{
    struct tracer T;
    char path[PATH_MAX];
    tracer_init(&T, w, o, res);
    int err = cli_find_command(argv[0], path, sizeof path);
    if (err < 0) {
        cli_warn("cannot run '%s': %s", argv[0], strerror(-err));
        tracer_end(&T);
        return -1;
    }
    struct sock_filter *prog = NULL;
    unsigned short plen = 0;
    /* Filtered calls of a process no tracer follows fail with ENOSYS: as strace, a filter only
     * with -f (every descendant followed) and with PTRACE_O_EXITKILL (no tracee outlives us) */
    if (o->seccomp && o->follow && filter_restricted(o->filter)) {
        /* -k: stop at the calls that change code mappings too, unrecorded */
        struct filter stops = *o->filter;
        if (o->stacks)
            for (uint32_t nr = 0; nr < SYSCALLS_NR_MAX; nr++)
                if (changes_maps(nr))
                    stops.trace[nr] = 1;
        if (filter_bpf(&stops, &prog, &plen) < 0) {
            cli_warn("out of memory");
            tracer_end(&T);
            return -1;
        }
        T.use_seccomp = 1;
        T.options |= PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL;
    }
    /* the child reports a failed exec through a close-on-exec pipe */
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        cli_warn("pipe: %s", strerror(errno));
        free(prog);
        tracer_end(&T);
        return -1;
    }
    syscalls_write_host_table(w);
    pid_t pid = fork();
    if (pid < 0) {
        cli_warn("fork: %s", strerror(errno));
        free(prog);
        tracer_end(&T);
        return -1;
    }
    if (pid == 0) {
        close(pfd[0]);
        child_exec(path, argv, prog, plen, pfd[1]);
    }
    close(pfd[1]);
    free(prog);
    int status;
    if (waitpid(pid, &status, WSTOPPED) < 0 || !WIFSTOPPED(status)) {
        cli_warn("the command did not start");
        close(pfd[0]);
        tracer_end(&T);
        return -1;
    }
    if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)T.options) < 0) {
        cli_warn("ptrace(PTRACE_SEIZE, %d): %s", (int)pid, strerror(errno));
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        close(pfd[0]);
        tracer_end(&T);
        return -1;
    }
    struct tracee *tr = new_tracee(&T, pid);
    tr->startup = 1;
    T.main_pid = pid;
    res->processes = 1;
    install_signals(0);
    cli_commit_trace_output();
    kill(pid, SIGCONT);
    int rc = trace_loop(&T);
    stop_timer();
    /* a failed exec: the child said why */
    char kind;
    int cerr = 0;
    if (read(pfd[0], &kind, 1) == 1 && read(pfd[0], &cerr, sizeof cerr) == (ssize_t)sizeof cerr) {
        cli_warn(kind == 'S' ? "cannot install the seccomp filter: %s" : "cannot run '%s': %s",
                 kind == 'S' ? strerror(cerr) : path, strerror(cerr));
        rc = -1;
    }
    close(pfd[0]);
    res->status = T.main_status;
    tracer_end(&T);
    return rc;
}

static int is_zombie(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* Seize every thread of pid; returns the number seized or -errno. */
static int attach_process(struct tracer *T, pid_t pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? -ESRCH : -errno;
    if (is_zombie(pid)) {
        closedir(d);
        return -ESRCH;
    }
    int n = 0, err = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid <= 0 || tracee_find(&T->tab, tid))
            continue;
        if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)T->options) < 0) {
            if (!err || tid == pid)
                err = errno;
            continue;
        }
        struct tracee *tr = new_tracee(T, tid);
        tr->tgid = pid;
        tr->new_child = 1;
        tr->seized = 1;
        ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
        n++;
    }
    closedir(d);
    return n ? n : -(err ? err : ESRCH);
}

int tracer_attach(tr_writer *w, const struct tracer_opts *o, const pid_t *pids, size_t n,
                  struct tracer_result *res)
{
    struct tracer T;
    tracer_init(&T, w, o, res);
    T.attach_mode = 1;
    syscalls_write_host_table(w);
    install_signals(1);
    for (size_t i = 0; i < n; i++) {
        int rc = attach_process(&T, pids[i]);
        if (rc == -ESRCH) {
            cli_warn("attach: process %d: %s", (int)pids[i],
                     is_zombie(pids[i]) ? "it has exited (zombie)" : "no such process (it has exited?)");
            continue;
        }
        if (rc < 0) {
            cli_warn("attach: ptrace(PTRACE_SEIZE, %d): %s%s", (int)pids[i], strerror(-rc),
                     rc == -EPERM ? " (already traced, a kernel thread, or not permitted)" : "");
            continue;
        }
        res->processes++;
        fprintf(stderr, "%s: Process %d attached\n", cli_name(), (int)pids[i]);
        /* the comm of what we attached to, for renderers */
        struct tracee *tr = tracee_find(&T.tab, pids[i]);
        if (tr)
            write_comm(&T, tr, 0);
    }
    if (T.tab.count == 0) {
        stop_timer();
        tracer_end(&T);
        return -1;
    }
    cli_commit_trace_output();
    int rc = trace_loop(&T);
    stop_timer();
    if (res->detached)
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "%s: Process %d detached\n", cli_name(), (int)pids[i]);
    tracer_end(&T);
    return rc;
}
