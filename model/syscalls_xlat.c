/*
 * syscalls_xlat.c - the value tables of syscalls_decode.h that the kernel's
 * own headers define (the C library's <fcntl.h>, <sys/mman.h>, <signal.h>
 * do not all agree with them: O_LARGEFILE is 0 there, sigaction differs).
 * Names are in strace's order for x86_64.  Constants newer than the headers
 * this builds against are defined here to the kernel's values.
 */
#include <stddef.h>
#include <stdint.h>
#include <asm/fcntl.h>
#include <asm/ioctls.h>
#include <asm/prctl.h>
#include <asm/signal.h>
#include <linux/eventpoll.h>
#include <linux/fadvise.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/inotify.h>
#include <linux/futex.h>
#include <linux/mman.h>
#include <linux/poll.h>
#include <linux/prctl.h>
#include <linux/random.h>
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/signal.h>
#include <linux/stat.h>
#include <linux/time.h>
#include <linux/wait.h>
#include <linux/xattr.h>

#include "syscalls_decode.h"

/* newer than linux 6.1's headers */
#ifndef MAP_ABOVE4G
#define MAP_ABOVE4G 0x80
#endif
#ifndef MAP_DROPPABLE
#define MAP_DROPPABLE 0x08
#endif
#ifndef F_DUPFD_QUERY
#define F_DUPFD_QUERY (F_LINUX_SPECIFIC_BASE + 3)
#endif
#ifndef F_CREATED_QUERY
#define F_CREATED_QUERY (F_LINUX_SPECIFIC_BASE + 4)
#endif
#ifndef ARCH_GET_UNTAG_MASK
#define ARCH_GET_UNTAG_MASK 0x4001
#define ARCH_ENABLE_TAGGED_ADDR 0x4002
#define ARCH_GET_MAX_TAG_BITS 0x4003
#define ARCH_FORCE_TAGGED_SVA 0x4004
#endif
#ifndef ARCH_SHSTK_ENABLE
#define ARCH_SHSTK_ENABLE 0x5001
#define ARCH_SHSTK_DISABLE 0x5002
#define ARCH_SHSTK_LOCK 0x5003
#define ARCH_SHSTK_UNLOCK 0x5004
#define ARCH_SHSTK_STATUS 0x5005
#endif
/* the kernel's, not exported to user space */
#ifndef SA_INTERRUPT
#define SA_INTERRUPT 0x20000000
#endif
#ifndef F_CANCELLK
#define F_CANCELLK (F_LINUX_SPECIFIC_BASE + 5)
#endif

#define X(c) { (uint64_t)(c), #c }
#define END SYSCALLS_XEND

const uint64_t syscalls_open_accmode = O_ACCMODE;
const struct syscalls_xlat syscalls_xlat_open_access[] = { X(O_RDONLY), X(O_WRONLY), X(O_RDWR), END };
const struct syscalls_xlat syscalls_xlat_open_flags[] = {
    X(O_CREAT), X(O_EXCL), X(O_NOCTTY), X(O_TRUNC), X(O_APPEND), X(O_NONBLOCK), X(O_SYNC), X(__O_SYNC),
    X(O_DSYNC), X(O_DIRECT), X(O_LARGEFILE), X(O_NOFOLLOW), X(O_NOATIME), X(O_CLOEXEC), X(O_PATH),
    X(O_TMPFILE), X(__O_TMPFILE), X(O_DIRECTORY), { FASYNC, "O_ASYNC" }, END,
};
const struct syscalls_xlat syscalls_xlat_mmap_prot[] = {
    X(PROT_READ), X(PROT_WRITE), X(PROT_EXEC), X(PROT_SEM), X(PROT_GROWSDOWN), X(PROT_GROWSUP), END,
};
const uint64_t syscalls_mmap_type_mask = MAP_TYPE;
const struct syscalls_xlat syscalls_xlat_mmap_type[] = {
    X(MAP_SHARED), X(MAP_PRIVATE), X(MAP_SHARED_VALIDATE), X(MAP_DROPPABLE), END,
};
const struct syscalls_xlat syscalls_xlat_mmap_flags[] = {
    X(MAP_FIXED), X(MAP_ANONYMOUS), X(MAP_32BIT), X(MAP_ABOVE4G), X(MAP_NORESERVE), X(MAP_POPULATE),
    X(MAP_NONBLOCK), X(MAP_GROWSDOWN), X(MAP_DENYWRITE), X(MAP_EXECUTABLE), X(MAP_LOCKED), X(MAP_STACK),
    X(MAP_HUGETLB), X(MAP_SYNC), X(MAP_UNINITIALIZED), X(MAP_FIXED_NOREPLACE), END,
};
const struct syscalls_xlat syscalls_xlat_clone_flags[] = {
    X(CLONE_VM), X(CLONE_FS), X(CLONE_FILES), X(CLONE_SIGHAND), X(CLONE_PIDFD), X(CLONE_PTRACE),
    X(CLONE_VFORK), X(CLONE_PARENT), X(CLONE_THREAD), X(CLONE_NEWNS), X(CLONE_SYSVSEM), X(CLONE_SETTLS),
    X(CLONE_PARENT_SETTID), X(CLONE_CHILD_CLEARTID), X(CLONE_UNTRACED), X(CLONE_CHILD_SETTID),
    X(CLONE_NEWCGROUP), X(CLONE_NEWUTS), X(CLONE_NEWIPC), X(CLONE_NEWUSER), X(CLONE_NEWPID),
    X(CLONE_NEWNET), { (uint32_t)CLONE_IO, "CLONE_IO" }, END,
};
const struct syscalls_xlat syscalls_xlat_at_flags[] = {
    X(AT_SYMLINK_NOFOLLOW), X(AT_REMOVEDIR), X(AT_SYMLINK_FOLLOW), X(AT_NO_AUTOMOUNT), X(AT_EMPTY_PATH),
    X(AT_RECURSIVE), END,
};
const struct syscalls_xlat syscalls_xlat_faccessat2_flags[] = {
    X(AT_SYMLINK_NOFOLLOW), X(AT_EACCESS), X(AT_EMPTY_PATH), END,
};
const struct syscalls_xlat syscalls_xlat_statx_at_flags[] = {
    X(AT_SYMLINK_NOFOLLOW), X(AT_NO_AUTOMOUNT), X(AT_EMPTY_PATH), X(AT_STATX_FORCE_SYNC),
    X(AT_STATX_DONT_SYNC), END,
};
const uint64_t syscalls_statx_sync_type = AT_STATX_SYNC_TYPE;
const struct syscalls_xlat syscalls_xlat_whence[] = {
    X(SEEK_SET), X(SEEK_CUR), X(SEEK_END), X(SEEK_DATA), X(SEEK_HOLE), END,
};
const struct syscalls_xlat syscalls_xlat_madvise[] = {
    X(MADV_NORMAL), X(MADV_RANDOM), X(MADV_SEQUENTIAL), X(MADV_WILLNEED), X(MADV_DONTNEED), X(MADV_FREE),
    X(MADV_REMOVE), X(MADV_DONTFORK), X(MADV_DOFORK), X(MADV_MERGEABLE), X(MADV_UNMERGEABLE),
    X(MADV_HUGEPAGE), X(MADV_NOHUGEPAGE), X(MADV_DONTDUMP), X(MADV_DODUMP), X(MADV_WIPEONFORK),
    X(MADV_KEEPONFORK), X(MADV_COLD), X(MADV_PAGEOUT), X(MADV_POPULATE_READ), X(MADV_POPULATE_WRITE),
    X(MADV_DONTNEED_LOCKED), X(MADV_COLLAPSE), X(MADV_HWPOISON), X(MADV_SOFT_OFFLINE), END,
};
const struct syscalls_xlat syscalls_xlat_rlimit[] = {
    X(RLIMIT_CPU), X(RLIMIT_FSIZE), X(RLIMIT_DATA), X(RLIMIT_STACK), X(RLIMIT_CORE), X(RLIMIT_RSS),
    X(RLIMIT_NPROC), X(RLIMIT_NOFILE), X(RLIMIT_MEMLOCK), X(RLIMIT_AS), X(RLIMIT_LOCKS),
    X(RLIMIT_SIGPENDING), X(RLIMIT_MSGQUEUE), X(RLIMIT_NICE), X(RLIMIT_RTPRIO), X(RLIMIT_RTTIME), END,
};
const struct syscalls_xlat syscalls_xlat_sigprocmask[] = { X(SIG_BLOCK), X(SIG_UNBLOCK), X(SIG_SETMASK), END };
const struct syscalls_xlat syscalls_xlat_fcntl_cmds[] = {
    X(F_DUPFD), X(F_GETFD), X(F_SETFD), X(F_GETFL), X(F_SETFL), X(F_GETLK), X(F_SETLK), X(F_SETLKW),
    X(F_SETOWN), X(F_GETOWN), X(F_SETSIG), X(F_GETSIG), X(F_SETOWN_EX), X(F_GETOWN_EX),
    X(F_GETOWNER_UIDS), X(F_OFD_GETLK), X(F_OFD_SETLK), X(F_OFD_SETLKW), X(F_SETLEASE), X(F_GETLEASE),
    X(F_NOTIFY), X(F_DUPFD_QUERY), X(F_CREATED_QUERY), X(F_CANCELLK), X(F_DUPFD_CLOEXEC),
    X(F_SETPIPE_SZ), X(F_GETPIPE_SZ), X(F_ADD_SEALS), X(F_GET_SEALS), END,
};
const struct syscalls_xlat syscalls_xlat_fd_flags[] = { X(FD_CLOEXEC), END };
const struct syscalls_xlat syscalls_xlat_grnd[] = { X(GRND_NONBLOCK), X(GRND_RANDOM), X(GRND_INSECURE), END };
const struct syscalls_xlat syscalls_xlat_clocks[] = {
    X(CLOCK_REALTIME), X(CLOCK_MONOTONIC), X(CLOCK_PROCESS_CPUTIME_ID), X(CLOCK_THREAD_CPUTIME_ID),
    X(CLOCK_MONOTONIC_RAW), X(CLOCK_REALTIME_COARSE), X(CLOCK_MONOTONIC_COARSE), X(CLOCK_BOOTTIME),
    X(CLOCK_REALTIME_ALARM), X(CLOCK_BOOTTIME_ALARM), X(CLOCK_TAI), END,
};
const struct syscalls_xlat syscalls_xlat_timer_flags[] = { X(TIMER_ABSTIME), END };
const struct syscalls_xlat syscalls_xlat_futex_ops[] = {
    X(FUTEX_WAIT), X(FUTEX_WAKE), X(FUTEX_FD), X(FUTEX_REQUEUE), X(FUTEX_CMP_REQUEUE), X(FUTEX_WAKE_OP),
    X(FUTEX_LOCK_PI), X(FUTEX_UNLOCK_PI), X(FUTEX_TRYLOCK_PI), X(FUTEX_WAIT_BITSET), X(FUTEX_WAKE_BITSET),
    X(FUTEX_WAIT_REQUEUE_PI), X(FUTEX_CMP_REQUEUE_PI), X(FUTEX_LOCK_PI2), END,
};
const struct syscalls_xlat syscalls_xlat_wait_opts[] = {
    X(WNOHANG), X(WSTOPPED), X(WEXITED), X(WCONTINUED), X(WNOWAIT), X(__WNOTHREAD), X(__WALL),
    { (uint32_t)__WCLONE, "__WCLONE" }, END,
};
const struct syscalls_xlat syscalls_xlat_arch_prctl[] = {
    X(ARCH_SET_GS), X(ARCH_SET_FS), X(ARCH_GET_FS), X(ARCH_GET_GS), X(ARCH_GET_CPUID), X(ARCH_SET_CPUID),
    X(ARCH_GET_XCOMP_SUPP), X(ARCH_GET_XCOMP_PERM), X(ARCH_REQ_XCOMP_PERM), X(ARCH_MAP_VDSO_X32),
    X(ARCH_MAP_VDSO_32), X(ARCH_MAP_VDSO_64), X(ARCH_GET_UNTAG_MASK), X(ARCH_ENABLE_TAGGED_ADDR),
    X(ARCH_GET_MAX_TAG_BITS), X(ARCH_FORCE_TAGGED_SVA), X(ARCH_SHSTK_ENABLE), X(ARCH_SHSTK_DISABLE),
    X(ARCH_SHSTK_LOCK), X(ARCH_SHSTK_UNLOCK), X(ARCH_SHSTK_STATUS), END,
};
const struct syscalls_xlat syscalls_xlat_sa_flags[] = {
    X(SA_RESTORER), X(SA_ONSTACK), X(SA_RESTART), X(SA_INTERRUPT), X(SA_NODEFER),
    { (uint32_t)SA_RESETHAND, "SA_RESETHAND" }, X(SA_SIGINFO), X(SA_NOCLDSTOP), X(SA_NOCLDWAIT), END,
};
const uint64_t syscalls_sa_restorer = SA_RESTORER;
/* SIG_DFL and SIG_IGN are pointers in the headers: (__sighandler_t)0 and 1 */
const struct syscalls_xlat syscalls_xlat_sa_handler[] = { {0, "SIG_DFL"}, {1, "SIG_IGN"}, END };
const struct syscalls_xlat syscalls_xlat_statx_mask[] = {
    X(STATX_ALL), X(STATX_BASIC_STATS), X(STATX_TYPE), X(STATX_MODE), X(STATX_NLINK), X(STATX_UID), X(STATX_GID), X(STATX_ATIME),
    X(STATX_MTIME), X(STATX_CTIME), X(STATX_INO), X(STATX_SIZE), X(STATX_BLOCKS), X(STATX_BTIME),
    X(STATX_MNT_ID), X(STATX_DIOALIGN), END,
};
const struct syscalls_xlat syscalls_xlat_statx_attrs[] = {
    X(STATX_ATTR_COMPRESSED), X(STATX_ATTR_IMMUTABLE), X(STATX_ATTR_APPEND), X(STATX_ATTR_NODUMP),
    X(STATX_ATTR_ENCRYPTED), X(STATX_ATTR_AUTOMOUNT), X(STATX_ATTR_MOUNT_ROOT), X(STATX_ATTR_VERITY),
    X(STATX_ATTR_DAX), END,
};
const struct syscalls_xlat syscalls_xlat_rusage_who[] = {
    X(RUSAGE_SELF), { (uint64_t)(int64_t)RUSAGE_CHILDREN, "RUSAGE_CHILDREN" },
    { (uint64_t)(int64_t)RUSAGE_BOTH, "RUSAGE_BOTH" }, X(RUSAGE_THREAD), END,
};
const struct syscalls_xlat syscalls_xlat_ss_flags[] = { X(SS_ONSTACK), X(SS_DISABLE), X(SS_AUTODISARM), END };
const struct syscalls_xlat syscalls_xlat_xattr_flags[] = { X(XATTR_CREATE), X(XATTR_REPLACE), END };
const struct syscalls_xlat syscalls_xlat_rename_flags[] = {
    X(RENAME_NOREPLACE), X(RENAME_EXCHANGE), X(RENAME_WHITEOUT), END,
};
const struct syscalls_xlat syscalls_xlat_mremap_flags[] = {
    X(MREMAP_MAYMOVE), X(MREMAP_FIXED), X(MREMAP_DONTUNMAP), END,
};
const struct syscalls_xlat syscalls_xlat_msync_flags[] = { X(MS_ASYNC), X(MS_INVALIDATE), X(MS_SYNC), END };
const struct syscalls_xlat syscalls_xlat_itimer_which[] = { X(ITIMER_REAL), X(ITIMER_VIRTUAL), X(ITIMER_PROF), END };
const struct syscalls_xlat syscalls_xlat_idtype[] = { X(P_ALL), X(P_PID), X(P_PGID), X(P_PIDFD), END };
const struct syscalls_xlat syscalls_xlat_sigev_notify[] = {
    X(SIGEV_SIGNAL), X(SIGEV_NONE), X(SIGEV_THREAD), X(SIGEV_THREAD_ID), END,
};
const struct syscalls_xlat syscalls_xlat_prctl_options[] = {
    X(PR_SET_PDEATHSIG), X(PR_GET_PDEATHSIG), X(PR_GET_DUMPABLE), X(PR_SET_DUMPABLE), X(PR_GET_UNALIGN),
    X(PR_SET_UNALIGN), X(PR_GET_KEEPCAPS), X(PR_SET_KEEPCAPS), X(PR_GET_FPEMU), X(PR_SET_FPEMU),
    X(PR_GET_FPEXC), X(PR_SET_FPEXC), X(PR_GET_TIMING), X(PR_SET_TIMING), X(PR_SET_NAME), X(PR_GET_NAME),
    X(PR_GET_ENDIAN), X(PR_SET_ENDIAN), X(PR_GET_SECCOMP), X(PR_SET_SECCOMP), X(PR_CAPBSET_READ),
    X(PR_CAPBSET_DROP), X(PR_GET_TSC), X(PR_SET_TSC), X(PR_GET_SECUREBITS), X(PR_SET_SECUREBITS),
    X(PR_SET_TIMERSLACK), X(PR_GET_TIMERSLACK), X(PR_TASK_PERF_EVENTS_DISABLE),
    X(PR_TASK_PERF_EVENTS_ENABLE), X(PR_MCE_KILL), X(PR_MCE_KILL_GET), X(PR_SET_MM), X(PR_SET_PTRACER),
    X(PR_SET_CHILD_SUBREAPER), X(PR_GET_CHILD_SUBREAPER), X(PR_SET_NO_NEW_PRIVS), X(PR_GET_NO_NEW_PRIVS),
    X(PR_GET_TID_ADDRESS), X(PR_SET_THP_DISABLE), X(PR_GET_THP_DISABLE), X(PR_MPX_ENABLE_MANAGEMENT),
    X(PR_MPX_DISABLE_MANAGEMENT), X(PR_SET_FP_MODE), X(PR_GET_FP_MODE), X(PR_CAP_AMBIENT),
    X(PR_SVE_SET_VL), X(PR_SVE_GET_VL), X(PR_GET_SPECULATION_CTRL), X(PR_SET_SPECULATION_CTRL),
    X(PR_PAC_RESET_KEYS), X(PR_SET_TAGGED_ADDR_CTRL), X(PR_GET_TAGGED_ADDR_CTRL), X(PR_SET_IO_FLUSHER),
    X(PR_GET_IO_FLUSHER), X(PR_SET_SYSCALL_USER_DISPATCH), X(PR_PAC_SET_ENABLED_KEYS),
    X(PR_PAC_GET_ENABLED_KEYS), X(PR_SCHED_CORE), X(PR_SET_VMA), END,
};
/* the kernel's, not exported to user space (linux/sched/coredump.h) */
const struct syscalls_xlat syscalls_xlat_suid_dump[] = {
    { 0, "SUID_DUMP_DISABLE" }, { 1, "SUID_DUMP_USER" }, { 2, "SUID_DUMP_ROOT" }, END,
};
const struct syscalls_xlat syscalls_xlat_flock_ops[] = {
    X(LOCK_SH), X(LOCK_EX), X(LOCK_NB), X(LOCK_UN), X(LOCK_MAND), X(LOCK_RW), X(LOCK_READ), X(LOCK_WRITE), END,
};
const struct syscalls_xlat syscalls_xlat_flock_types[] = { X(F_RDLCK), X(F_WRLCK), X(F_UNLCK), END };
const struct syscalls_xlat syscalls_xlat_sched_policies[] = {
    { SCHED_NORMAL, "SCHED_OTHER" }, X(SCHED_FIFO), X(SCHED_RR), X(SCHED_BATCH), X(SCHED_IDLE), X(SCHED_DEADLINE), END,
};
const struct syscalls_xlat syscalls_xlat_inotify_mask[] = {
    X(IN_ACCESS), X(IN_MODIFY), X(IN_ATTRIB), X(IN_CLOSE_WRITE), X(IN_CLOSE_NOWRITE), X(IN_OPEN),
    X(IN_MOVED_FROM), X(IN_MOVED_TO), X(IN_CREATE), X(IN_DELETE), X(IN_DELETE_SELF), X(IN_MOVE_SELF),
    X(IN_UNMOUNT), X(IN_Q_OVERFLOW), X(IN_IGNORED), X(IN_ONLYDIR), X(IN_DONT_FOLLOW), X(IN_EXCL_UNLINK),
    X(IN_MASK_CREATE), X(IN_MASK_ADD), X(IN_ISDIR), { (uint32_t)IN_ONESHOT, "IN_ONESHOT" }, END,
};
const struct syscalls_xlat syscalls_xlat_fadvise[] = {
    X(POSIX_FADV_NORMAL), X(POSIX_FADV_RANDOM), X(POSIX_FADV_SEQUENTIAL), X(POSIX_FADV_WILLNEED),
    X(POSIX_FADV_DONTNEED), X(POSIX_FADV_NOREUSE), END,
};
const struct syscalls_xlat syscalls_xlat_ioctl[] = {
    X(TCGETS), { TCSETS, "SNDCTL_TMR_START or TCSETS" }, { TCSETSW, "SNDCTL_TMR_STOP or TCSETSW" },
    { TCSETSF, "SNDCTL_TMR_CONTINUE or TCSETSF" }, X(TCFLSH), X(TIOCSCTTY), X(TIOCGPGRP), X(TIOCSPGRP),
    X(TIOCGWINSZ), X(TIOCSWINSZ), X(FIONREAD), X(FIONBIO), X(FIONCLEX), X(FIOCLEX), X(FIOASYNC),
    { (uint32_t)TIOCGPTN, "TIOCGPTN" }, { (uint32_t)TIOCSPTLCK, "TIOCSPTLCK" },
    { (uint32_t)FICLONE, "BTRFS_IOC_CLONE or FICLONE" }, END,
};
const struct syscalls_xlat syscalls_xlat_poll_events[] = {
    X(POLLIN), X(POLLPRI), X(POLLOUT), X(POLLERR), X(POLLHUP), X(POLLNVAL), X(POLLRDNORM), X(POLLRDBAND),
    X(POLLWRNORM), X(POLLWRBAND), X(POLLMSG), X(POLLREMOVE), X(POLLRDHUP), END,
};
const struct syscalls_xlat syscalls_xlat_epoll_events[] = {
    X(EPOLLIN), X(EPOLLPRI), X(EPOLLOUT), X(EPOLLERR), X(EPOLLHUP), X(EPOLLNVAL), X(EPOLLRDNORM),
    X(EPOLLRDBAND), X(EPOLLWRNORM), X(EPOLLWRBAND), X(EPOLLMSG), X(EPOLLRDHUP), X(EPOLLEXCLUSIVE),
    X(EPOLLWAKEUP), X(EPOLLONESHOT), { (uint32_t)EPOLLET, "EPOLLET" }, END,
};
const struct syscalls_xlat syscalls_xlat_epoll_ops[] = {
    X(EPOLL_CTL_ADD), X(EPOLL_CTL_DEL), X(EPOLL_CTL_MOD), END,
};

int syscalls_open_has_mode(uint64_t flags)
{
    return (flags & (O_CREAT | __O_TMPFILE)) != 0;
}
