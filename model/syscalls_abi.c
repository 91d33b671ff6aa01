/*
 * syscalls_abi.c - the kernel's struct sizes and what each argument kind
 * captures (see syscalls.h).  Only the kernel's own headers are read here:
 * their structs (struct sigaction, sigset_t, struct termios, struct stat ...)
 * are the ones the syscalls take, which the C library's are not always.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
#include <asm/fcntl.h>
#include <asm/ioctls.h>
#include <asm/sigcontext.h>
#include <asm/signal.h>
#include <asm/siginfo.h>
#include <asm/stat.h>
#include <asm/statfs.h>
#include <asm/termbits.h>
#include <asm/termios.h>
#include <asm/ucontext.h>
#include <linux/errno.h>
#include <linux/eventpoll.h>
#include <linux/futex.h>
#include <linux/limits.h>
#include <linux/poll.h>
#include <linux/prctl.h>
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/socket.h>
#include <linux/stat.h>
#include <linux/sysinfo.h>
#include <linux/time.h>
#include <linux/time_types.h>
#include <linux/times.h>
#include <linux/uio.h>
#include <linux/utsname.h>

#include "syscalls.h"

/* A task's comm: TASK_COMM_LEN, which the uapi headers do not export; the
 * name of prctl(PR_SET_NAME) is at most this, with its NUL. */
#define TASK_COMM_LEN 16
/* The largest cpu set recorded: 1024 CPUs (glibc's CPU_SETSIZE), in bytes. */
#define CPUSET_BYTES (1024 / 8)

const struct syscalls_abi syscalls_abi = {
    .stat = sizeof(struct stat),
    .statx = sizeof(struct statx),
    .statfs = sizeof(struct statfs),
    .sysinfo = sizeof(struct sysinfo),
    .utsname = sizeof(struct new_utsname),
    .rlimit = sizeof(struct rlimit),
    .timespec = sizeof(struct __kernel_timespec),
    .sigset = sizeof(sigset_t),
    .sigaction = sizeof(struct sigaction),
    .pollfd = sizeof(struct pollfd),
    .epoll_event = sizeof(struct epoll_event),
    .iovec = sizeof(struct iovec),
    .sockaddr_max = sizeof(struct __kernel_sockaddr_storage),
    .gid = sizeof(__kernel_gid32_t),
    .clone_args = sizeof(struct clone_args),
    .termios = sizeof(struct termios),
    .winsize = sizeof(struct winsize),
    .rusage = sizeof(struct rusage),
    .stack = sizeof(stack_t),
    .timeval = sizeof(struct __kernel_old_timeval),
    .itimerspec = sizeof(struct __kernel_itimerspec),
    .itimerval = sizeof(struct itimerval),
    .sigevent = sizeof(sigevent_t),
    .siginfo = sizeof(siginfo_t),
    .flock = sizeof(struct flock),
    .tms = sizeof(struct tms),
    .comm = TASK_COMM_LEN,
    .cpuset_max = CPUSET_BYTES,
    .uc_sigmask = offsetof(struct ucontext, uc_sigmask),
    .path_max = PATH_MAX,
};

/* Most elements of an array argument recorded (pollfds, gids, epoll events). */
#define ARRAY_MAX 1024
/* Most bytes of a socket option's value recorded (the largest struct decoded
 * is far smaller; longer values are printed as strings of at most -s bytes). */
#define SOCKOPT_MAX 256
/* Most bytes of an fd_set recorded: FD_SETSIZE (1024) fds */
#define FDSET_BYTES (__FD_SETSIZE / 8)

/* capture shapes */
#define NONE { 0 }
#define STR(max) { SYSCALL_CAPTURE_STRING, SYSCALL_COUNT_ONE, SYSCALL_IF_ALWAYS, max, 0, NULL }
#define STR_IF(cond, max) { SYSCALL_CAPTURE_STRING, SYSCALL_COUNT_ONE, cond, max, 0, NULL }
#define BUF(count, cond) { SYSCALL_CAPTURE_BUFFER, count, cond, 0, 0, NULL }
#define ONE(cond, type, name) { SYSCALL_CAPTURE_STRUCT, SYSCALL_COUNT_ONE, cond, sizeof(type), 0, name }
#define ARR(count, cond, type, max, name) { SYSCALL_CAPTURE_STRUCT, count, cond, sizeof(type), max, name }
#define SPECIAL(what, cond) { what, SYSCALL_COUNT_ONE, cond, 0, 0, NULL }
#define MSG(count, cond) { SYSCALL_CAPTURE_MSGHDR, count, cond, 0, SYSCALLS_MMSG_MAX, "msghdr" }
#define IOV(count, cond) { SYSCALL_CAPTURE_IOVEC, count, cond, sizeof(struct iovec), 0, "iovec" }

#define IN(kind, name, entry) [SYSCALL_ARG_##kind] = { name, entry, NONE, 0 }
#define OUT(kind, name, exit) [SYSCALL_ARG_##kind] = { name, NONE, exit, 0 }
#define INOUT(kind, name, entry, exit) [SYSCALL_ARG_##kind] = { name, entry, exit, 0 }
#define VAL(kind, name) [SYSCALL_ARG_##kind] = { name, NONE, NONE, 0 }

static const struct syscall_arg_info infos[SYSCALL_ARG_COUNT] = {
    VAL(HEX, "number (hex)"),
    VAL(INT, "int"),
    VAL(LONG, "long"),
    VAL(ULONG, "unsigned long"),
    VAL(OCTAL, "number (octal)"),
    VAL(ADDR, "address"),
    [SYSCALL_ARG_FD] = { "fd", NONE, NONE, 1 },
    [SYSCALL_ARG_DIRFD] = { "directory fd", NONE, NONE, 1 },
    IN(PATH, "path", STR(PATH_MAX)),
    IN(STRING, "string", STR(0)),
    IN(INBUF, "input buffer", BUF(SYSCALL_COUNT_NEXT_ARG, SYSCALL_IF_ALWAYS)),
    OUT(OUTBUF, "output buffer", BUF(SYSCALL_COUNT_RET, SYSCALL_IF_RET_POSITIVE)),
    OUT(OUTBUF_HEX, "output buffer (hex)", BUF(SYSCALL_COUNT_RET, SYSCALL_IF_RET_POSITIVE)),
    OUT(OUTPATH, "output path", STR_IF(SYSCALL_IF_RET_POSITIVE, PATH_MAX)),
    IN(ARGV, "argv", SPECIAL(SYSCALL_CAPTURE_ARGV, SYSCALL_IF_ALWAYS)),
    IN(ENVP, "envp", SPECIAL(SYSCALL_CAPTURE_ENV_COUNT, SYSCALL_IF_ALWAYS)),
    VAL(OPEN_FLAGS, "open flags"),
    VAL(O_FLAGS, "O_* flags"),
    VAL(MODE, "mode"),
    VAL(MMAP_PROT, "mmap protection"),
    VAL(MMAP_FLAGS, "mmap flags"),
    VAL(SIGNAL, "signal"),
    VAL(ACCESS_MODE, "access mode"),
    VAL(AT_FLAGS, "AT_* flags"),
    VAL(FACCESSAT2_FLAGS, "faccessat2 flags"),
    VAL(STATX_AT_FLAGS, "statx flags"),
    VAL(WHENCE, "whence"),
    VAL(MADVISE, "madvise advice"),
    VAL(RLIMIT_RESOURCE, "rlimit resource"),
    IN(RLIMIT_IN, "struct rlimit", ONE(SYSCALL_IF_ALWAYS, struct rlimit, "rlimit")),
    OUT(RLIMIT_OUT, "struct rlimit", ONE(SYSCALL_IF_RET_ZERO, struct rlimit, "rlimit")),
    IN(SIGSET_IN, "sigset", ONE(SYSCALL_IF_ALWAYS, sigset_t, "sigset")),
    OUT(SIGSET_OUT, "sigset", ONE(SYSCALL_IF_RET_ZERO, sigset_t, "sigset")),
    VAL(SIGPROCMASK_HOW, "sigprocmask how"),
    IN(SIGACTION_IN, "struct sigaction", ONE(SYSCALL_IF_ALWAYS, struct sigaction, "sigaction")),
    OUT(SIGACTION_OUT, "struct sigaction", ONE(SYSCALL_IF_RET_ZERO, struct sigaction, "sigaction")),
    IN(TIMESPEC_IN, "struct timespec", ONE(SYSCALL_IF_ALWAYS, struct __kernel_timespec, "timespec")),
    OUT(TIMESPEC_OUT, "struct timespec", ONE(SYSCALL_IF_RET_ZERO, struct __kernel_timespec, "timespec")),
    OUT(TIMESPEC_REMAINING, "struct timespec (remaining)",
        ONE(SYSCALL_IF_EINTR, struct __kernel_timespec, "timespec")),
    OUT(STAT_OUT, "struct stat", ONE(SYSCALL_IF_RET_ZERO, struct stat, "stat")),
    OUT(STATX_OUT, "struct statx", ONE(SYSCALL_IF_RET_ZERO, struct statx, "statx")),
    VAL(STATX_MASK, "statx mask"),
    OUT(STATFS_OUT, "struct statfs", ONE(SYSCALL_IF_RET_ZERO, struct statfs, "statfs")),
    OUT(SYSINFO_OUT, "struct sysinfo", ONE(SYSCALL_IF_RET_ZERO, struct sysinfo, "sysinfo")),
    OUT(UTSNAME_OUT, "struct utsname", ONE(SYSCALL_IF_RET_ZERO, struct new_utsname, "utsname")),
    OUT(PIPEFDS_OUT, "int[2]", ONE(SYSCALL_IF_RET_ZERO, int[2], "fds")),
    OUT(WAIT_STATUS_OUT, "wait status", ONE(SYSCALL_IF_RET_POSITIVE, int, "int")),
    VAL(WAIT_OPTIONS, "wait options"),
    OUT(DIRENTS_OUT, "directory entries", SPECIAL(SYSCALL_CAPTURE_DIRENT_COUNT, SYSCALL_IF_RET_NONNEG)),
    OUT(CPUSET_OUT, "cpu set",
        ARR(SYSCALL_COUNT_RET, SYSCALL_IF_RET_POSITIVE, uint8_t, CPUSET_BYTES, "cpuset")),
    OUT(GIDS_OUT, "gid_t array",
        ARR(SYSCALL_COUNT_PREV_ARG_AND_RET, SYSCALL_IF_RET_POSITIVE, __kernel_gid32_t, ARRAY_MAX, "gids")),
    INOUT(POLLFDS, "struct pollfd array",
          ARR(SYSCALL_COUNT_NEXT_ARG, SYSCALL_IF_ALWAYS, struct pollfd, ARRAY_MAX, "pollfd"),
          ARR(SYSCALL_COUNT_NEXT_ARG, SYSCALL_IF_RET_POSITIVE, struct pollfd, ARRAY_MAX, "pollfd")),
    IN(IOVEC_IN, "iovec array", IOV(SYSCALL_COUNT_NEXT_ARG, SYSCALL_IF_ALWAYS)),
    OUT(IOVEC_OUT, "iovec array", IOV(SYSCALL_COUNT_NEXT_ARG, SYSCALL_IF_RET_NONNEG)),
    VAL(SOCKET_FAMILY, "socket family"),
    VAL(SOCKET_TYPE, "socket type"),
    VAL(SOCKET_PROTOCOL, "socket protocol"),
    IN(SOCKADDR_IN, "struct sockaddr",
       ARR(SYSCALL_COUNT_NEXT_ARG, SYSCALL_IF_ALWAYS, uint8_t, sizeof(struct __kernel_sockaddr_storage),
           "sockaddr")),
    OUT(SOCKADDR_OUT, "struct sockaddr",
        ARR(SYSCALL_COUNT_NEXT_ARG_SOCKLEN, SYSCALL_IF_OK, uint8_t, sizeof(struct __kernel_sockaddr_storage),
            "sockaddr")),
    INOUT(SOCKLEN_INOUT, "socklen_t", ONE(SYSCALL_IF_ALWAYS, int, "int"), ONE(SYSCALL_IF_OK, int, "int")),
    VAL(MSG_FLAGS, "MSG_* flags"),
    VAL(GETRANDOM_FLAGS, "getrandom flags"),
    VAL(CLOCK_ID, "clock id"),
    VAL(TIMER_FLAGS, "timer flags"),
    VAL(EPOLL_OP, "epoll_ctl op"),
    IN(EPOLL_EVENT_IN, "struct epoll_event",
       ONE(SYSCALL_IF_EPOLL_OP_NOT_DEL, struct epoll_event, "epoll_event")),
    OUT(EPOLL_EVENTS_OUT, "struct epoll_event array",
        ARR(SYSCALL_COUNT_RET, SYSCALL_IF_RET_POSITIVE, struct epoll_event, ARRAY_MAX, "epoll_event")),
    VAL(EPOLL_CREATE_FLAGS, "epoll_create1 flags"),
    VAL(EVENTFD_FLAGS, "eventfd flags"),
    VAL(SIGNALFD_FLAGS, "signalfd flags"),
    VAL(TIMERFD_FLAGS, "timerfd flags"),
    VAL(INOTIFY_FLAGS, "inotify flags"),
    VAL(FADVISE, "fadvise advice"),
    VAL(SOCKET_FLAGS, "socket flags"),
    IN(UTIMENS_IN, "struct timespec[2]", ONE(SYSCALL_IF_ALWAYS, struct __kernel_timespec[2], "timespec")),
    IN(TIMEVAL_PAIR_IN, "struct timeval[2]", ONE(SYSCALL_IF_ALWAYS, struct __kernel_old_timeval[2], "timeval")),
    VAL(RUSAGE_WHO, "rusage who"),
    OUT(RUSAGE_OUT, "struct rusage", ONE(SYSCALL_IF_OK, struct rusage, "rusage")),
    IN(STACK_IN, "stack_t", ONE(SYSCALL_IF_ALWAYS, stack_t, "stack_t")),
    OUT(STACK_OUT, "stack_t", ONE(SYSCALL_IF_RET_ZERO, stack_t, "stack_t")),
    VAL(XATTR_FLAGS, "xattr flags"),
    VAL(RENAME_FLAGS, "rename flags"),
    VAL(SOCKOPT_LEVEL, "socket option level"),
    VAL(SOCKOPT_NAME, "socket option name"),
    IN(SOCKOPT_IN, "socket option value",
       ARR(SYSCALL_COUNT_NEXT_ARG, SYSCALL_IF_ALWAYS, uint8_t, SOCKOPT_MAX, "sockopt")),
    OUT(SOCKOPT_OUT, "socket option value",
        ARR(SYSCALL_COUNT_NEXT_ARG_SOCKLEN, SYSCALL_IF_OK, uint8_t, SOCKOPT_MAX, "sockopt")),
    VAL(SHUTDOWN_HOW, "shutdown how"),
    VAL(MREMAP_FLAGS, "mremap flags"),
    VAL(MREMAP_ADDR, "address"),
    VAL(MSYNC_FLAGS, "msync flags"),
    VAL(ITIMER_WHICH, "itimer which"),
    VAL(IDTYPE, "waitid idtype"),
    VAL(TIMERFD_SETTIME_FLAGS, "timerfd_settime flags"),
    INOUT(FDSET_INOUT, "fd_set", ARR(SYSCALL_COUNT_FDSET, SYSCALL_IF_ALWAYS, uint8_t, FDSET_BYTES, "fdset"),
          ARR(SYSCALL_COUNT_FDSET, SYSCALL_IF_RET_POSITIVE, uint8_t, FDSET_BYTES, "fdset")),
    INOUT(TIMEVAL_INOUT, "struct timeval", ONE(SYSCALL_IF_ALWAYS, struct __kernel_old_timeval, "timeval"),
          ONE(SYSCALL_IF_OK, struct __kernel_old_timeval, "timeval")),
    INOUT(TIMESPEC_INOUT, "struct timespec", ONE(SYSCALL_IF_ALWAYS, struct __kernel_timespec, "timespec"),
          ONE(SYSCALL_IF_OK, struct __kernel_timespec, "timespec")),
    IN(PSELECT_SIGMASK, "pselect6 sigmask", ONE(SYSCALL_IF_ALWAYS, uint64_t[2], "pselect6_data")),
    VAL(FLOCK_OP, "flock operation"),
    VAL(PRIO_WHICH, "priority which"),
    OUT(TMS_OUT, "struct tms", ONE(SYSCALL_IF_OK, struct tms, "tms")),
    VAL(SCHED_POLICY, "scheduling policy"),
    IN(SCHED_PARAM_IN, "struct sched_param", ONE(SYSCALL_IF_ALWAYS, struct sched_param, "sched_param")),
    VAL(INOTIFY_MASK, "inotify mask"),
    VAL(CLONE_FLAGS, "clone flags"),
    OUT(ID_OUT, "uid or gid", ONE(SYSCALL_IF_OK, __kernel_uid32_t, "int")),
    OUT(XATTR_OUT, "xattr value or names", BUF(SYSCALL_COUNT_RET, SYSCALL_IF_RET_POSITIVE)),
    IN(ITIMERSPEC_IN, "struct itimerspec", ONE(SYSCALL_IF_ALWAYS, struct __kernel_itimerspec, "itimerspec")),
    OUT(ITIMERSPEC_OUT, "struct itimerspec", ONE(SYSCALL_IF_OK, struct __kernel_itimerspec, "itimerspec")),
    IN(ITIMERVAL_IN, "struct itimerval", ONE(SYSCALL_IF_ALWAYS, struct itimerval, "itimerval")),
    OUT(ITIMERVAL_OUT, "struct itimerval", ONE(SYSCALL_IF_OK, struct itimerval, "itimerval")),
    IN(SIGEVENT_IN, "struct sigevent", ONE(SYSCALL_IF_ALWAYS, sigevent_t, "sigevent")),
    OUT(TIMERID_OUT, "timer id", ONE(SYSCALL_IF_OK, __kernel_timer_t, "int")),
    OUT(SIGINFO_OUT, "siginfo", ONE(SYSCALL_IF_OK, siginfo_t, "siginfo")),
    OUT(SCHED_PARAM_OUT, "struct sched_param", ONE(SYSCALL_IF_OK, struct sched_param, "sched_param")),
    /* struct msghdr and mmsghdr are the C library's (the uapi headers lack them): the recorder
     * sizes them */
    IN(MSGHDR_IN, "struct msghdr", MSG(SYSCALL_COUNT_ONE, SYSCALL_IF_ALWAYS)),
    INOUT(MSGHDR_OUT, "struct msghdr", SPECIAL(SYSCALL_CAPTURE_MSGHDR_HEAD, SYSCALL_IF_ALWAYS),
          MSG(SYSCALL_COUNT_ONE, SYSCALL_IF_OK)),
    OUT(MMSGHDR_SEND, "struct mmsghdr array", MSG(SYSCALL_COUNT_NEXT_ARG, SYSCALL_IF_ALWAYS)),
    OUT(MMSGHDR_RECV, "struct mmsghdr array", MSG(SYSCALL_COUNT_RET, SYSCALL_IF_RET_POSITIVE)),
};

const struct syscall_arg_info *syscalls_arg_info(enum syscall_arg k)
{
    if ((unsigned)k >= SYSCALL_ARG_COUNT)
        return NULL;
    return &infos[k];
}

static const struct { uint32_t op; uint8_t shape; } prctl_shapes[] = {
    { PR_SET_PDEATHSIG, SYSCALL_PRCTL_SIGNAL }, { PR_GET_PDEATHSIG, SYSCALL_PRCTL_INT_OUT },
    { PR_GET_DUMPABLE, SYSCALL_PRCTL_NONE }, { PR_SET_DUMPABLE, SYSCALL_PRCTL_DUMPABLE },
    { PR_GET_KEEPCAPS, SYSCALL_PRCTL_NONE }, { PR_SET_KEEPCAPS, SYSCALL_PRCTL_ULONG1 },
    { PR_SET_NAME, SYSCALL_PRCTL_NAME_IN }, { PR_GET_NAME, SYSCALL_PRCTL_NAME_OUT },
    { PR_GET_SECCOMP, SYSCALL_PRCTL_NONE }, { PR_CAPBSET_READ, SYSCALL_PRCTL_CAP },
    { PR_CAPBSET_DROP, SYSCALL_PRCTL_CAP }, { PR_GET_SECUREBITS, SYSCALL_PRCTL_NONE },
    { PR_GET_TIMERSLACK, SYSCALL_PRCTL_NONE }, { PR_SET_TIMERSLACK, SYSCALL_PRCTL_ULONG1 },
    { PR_SET_PTRACER, SYSCALL_PRCTL_ULONG1 }, { PR_SET_CHILD_SUBREAPER, SYSCALL_PRCTL_ULONG1 },
    { PR_GET_CHILD_SUBREAPER, SYSCALL_PRCTL_INT_OUT }, { PR_SET_NO_NEW_PRIVS, SYSCALL_PRCTL_ULONG4 },
    { PR_GET_NO_NEW_PRIVS, SYSCALL_PRCTL_ULONG4 }, { PR_GET_THP_DISABLE, SYSCALL_PRCTL_ULONG4 },
    { PR_SET_THP_DISABLE, SYSCALL_PRCTL_ULONG4 }, { PR_MCE_KILL_GET, SYSCALL_PRCTL_ULONG4 },
};

int syscalls_fcntl_lock(uint64_t cmd)
{
    switch (cmd) {
    case F_SETLK: case F_SETLKW: case F_OFD_SETLK: case F_OFD_SETLKW: return 1;
    case F_GETLK: case F_OFD_GETLK: return 2;
    }
    return 0;
}

enum syscall_prctl_shape syscalls_prctl_shape(uint64_t op)
{
    for (size_t i = 0; i < sizeof prctl_shapes / sizeof prctl_shapes[0]; i++)
        if (prctl_shapes[i].op == op)
            return (enum syscall_prctl_shape)prctl_shapes[i].shape;
    return SYSCALL_PRCTL_HEX4;
}

/* ---- the families' own captures ------------------------------------------------ */

static void family_capture(struct syscall_family_capture *out, int *n, uint32_t arg, uint64_t value,
                           uint8_t what, uint32_t size, const char *name)
{
    out[*n] = (struct syscall_family_capture){
        arg, value, { what, SYSCALL_COUNT_ONE, SYSCALL_IF_ALWAYS, size, 0, name },
    };
    (*n)++;
}

int syscalls_family_captures(const struct syscall_desc *d, const uint64_t a[6], uint64_t sp, int at_exit,
                             int64_t ret, const uint8_t *entry_struct, size_t entry_len,
                             struct syscall_family_capture out[SYSCALLS_FAMILY_CAPTURES_MAX])
{
    int n = 0;
    const uint8_t STR = SYSCALL_CAPTURE_STRING, ST = SYSCALL_CAPTURE_STRUCT, FD = SYSCALL_CAPTURE_FD_PATH;
    int ok = ret >= 0 || ret < -4095;
    uint32_t req = (uint32_t)a[1];
    if (syscalls_by_args(d))
        return 0;
    if (!at_exit) {
        switch (d->family) {
        case SYSCALL_FAMILY_CLONE3:
            family_capture(out, &n, 0, a[0], ST,
                           a[1] < sizeof(struct clone_args) ? (uint32_t)a[1] : sizeof(struct clone_args),
                           "clone_args");
            break;
        case SYSCALL_FAMILY_PRCTL:
            if (syscalls_prctl_shape(a[0]) == SYSCALL_PRCTL_NAME_IN)
                family_capture(out, &n, 1, a[1], STR, TASK_COMM_LEN, NULL);
            break;
        case SYSCALL_FAMILY_RT_SIGRETURN: /* the mask of the signal frame's ucontext */
            family_capture(out, &n, 0, sp + offsetof(struct ucontext, uc_sigmask), ST, sizeof(sigset_t), "sigset");
            break;
        case SYSCALL_FAMILY_FUTEX: {
            int op = (int)(a[1] & 0x7f); /* the command, without FUTEX_PRIVATE_FLAG ... */
            if ((op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET || op == FUTEX_WAIT_REQUEUE_PI) && a[3])
                family_capture(out, &n, 3, a[3], ST, sizeof(struct __kernel_timespec), "timespec");
            break;
        }
        case SYSCALL_FAMILY_IOCTL:
        case SYSCALL_FAMILY_FCNTL:
            family_capture(out, &n, 0, a[0], FD, 0, NULL);
            if (d->family == SYSCALL_FAMILY_FCNTL && syscalls_fcntl_lock(a[1]) == 1)
                family_capture(out, &n, 2, a[2], ST, sizeof(struct flock), "flock");
            if (d->family == SYSCALL_FAMILY_IOCTL && (req == TCSETS || req == TCSETSW || req == TCSETSF))
                family_capture(out, &n, 2, a[2], ST, sizeof(struct termios), "termios");
            else if (d->family == SYSCALL_FAMILY_IOCTL && req == TIOCSWINSZ)
                family_capture(out, &n, 2, a[2], ST, sizeof(struct winsize), "winsize");
            else if (d->family == SYSCALL_FAMILY_IOCTL && (req == FIONBIO || req == FIOASYNC))
                family_capture(out, &n, 2, a[2], ST, sizeof(int), "int");
            break;
        default: break;
        }
        return n;
    }
    if (d->family == SYSCALL_FAMILY_IOCTL && ok && ret == 0 && req == TIOCGWINSZ)
        family_capture(out, &n, 2, a[2], ST, sizeof(struct winsize), "winsize");
    else if (d->family == SYSCALL_FAMILY_IOCTL && ok && ret == 0 && req == TCGETS)
        family_capture(out, &n, 2, a[2], ST, sizeof(struct termios), "termios");
    else if (d->family == SYSCALL_FAMILY_IOCTL && ok && ret == 0 && (req == FIONREAD || req == TIOCGPGRP))
        family_capture(out, &n, 2, a[2], ST, sizeof(int), "int");
    else if (d->family == SYSCALL_FAMILY_CLONE && (a[0] & (CLONE_PARENT_SETTID | CLONE_PIDFD)) && ok && a[2])
        family_capture(out, &n, 2, a[2], ST, sizeof(int), "int");
    else if (d->family == SYSCALL_FAMILY_CLONE3 && ok && entry_struct &&
             entry_len >= offsetof(struct clone_args, parent_tid) + sizeof(uint64_t)) {
        uint64_t flags, ptid;
        memcpy(&flags, entry_struct + offsetof(struct clone_args, flags), sizeof flags);
        memcpy(&ptid, entry_struct + offsetof(struct clone_args, parent_tid), sizeof ptid);
        if ((flags & CLONE_PARENT_SETTID) && ptid)
            family_capture(out, &n, 1, ptid, ST, sizeof(int), "int");
    }
    if (d->family == SYSCALL_FAMILY_PRCTL && syscalls_prctl_shape(a[0]) == SYSCALL_PRCTL_NAME_OUT && ok)
        family_capture(out, &n, 1, a[1], STR, TASK_COMM_LEN, NULL);
    if (d->family == SYSCALL_FAMILY_PRCTL && syscalls_prctl_shape(a[0]) == SYSCALL_PRCTL_INT_OUT && ok && a[1])
        family_capture(out, &n, 1, a[1], ST, sizeof(int), "int");
    if (d->family == SYSCALL_FAMILY_FCNTL && ok && syscalls_fcntl_lock(a[1]) == 2)
        family_capture(out, &n, 2, a[2], ST, sizeof(struct flock), "flock");
    if (d->family == SYSCALL_FAMILY_FCNTL && ok && (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC))
        family_capture(out, &n, 6, (uint64_t)ret, FD, 0, NULL);
    return n;
}
