/*
 * syscalls.c - the descriptors, the host's table and a trace's numbers
 * mapped to descriptors (see syscalls.h).  The argument kinds' captures and
 * the kernel's sizes are in syscalls_abi.c, which reads the kernel headers.
 */
#include <stdlib.h>
#include <string.h>

#include "syscalls.h"
#include "tr.h"

#define TD SYSCALL_CLASS_DESC
#define TF SYSCALL_CLASS_FILE
#define TN SYSCALL_CLASS_NETWORK
#define TP SYSCALL_CLASS_PROCESS
#define TM SYSCALL_CLASS_MEMORY
#define TS SYSCALL_CLASS_SIGNAL
#define TI SYSCALL_CLASS_IPC
#define TC SYSCALL_CLASS_CREDS
#define TCL SYSCALL_CLASS_CLOCK
#define PU SYSCALL_CLASS_PURE
#define STA (SYSCALL_CLASS_STAT | SYSCALL_CLASS_STAT_LIKE)
#define LST (SYSCALL_CLASS_LSTAT | SYSCALL_CLASS_STAT_LIKE)
#define FST (SYSCALL_CLASS_FSTAT | SYSCALL_CLASS_STAT_LIKE)
#define SF (SYSCALL_CLASS_STATFS | SYSCALL_CLASS_STATFS_LIKE)
#define FSF (SYSCALL_CLASS_FSTATFS | SYSCALL_CLASS_STATFS_LIKE)

/* A(kind, ...): the argument count and the kinds, SYSCALL_ARG_ prefixed */
#define K(k) SYSCALL_ARG_##k
#define A0 0, { 0 }
#define A1(a) 1, { K(a) }
#define A2(a, b) 2, { K(a), K(b) }
#define A3(a, b, c) 3, { K(a), K(b), K(c) }
#define A4(a, b, c, d) 4, { K(a), K(b), K(c), K(d) }
#define A5(a, b, c, d, e) 5, { K(a), K(b), K(c), K(d), K(e) }
#define A6(a, b, c, d, e, f) 6, { K(a), K(b), K(c), K(d), K(e), K(f) }
#define NARGS_(a, b, c, d, e, f, n, ...) n
#define PICK_(...) NARGS_(__VA_ARGS__, A6, A5, A4, A3, A2, A1, A0)
#define A(...) PICK_(__VA_ARGS__)(__VA_ARGS__)

/* decoded by its arguments' kinds; F: with a family's twist; X: by its family's own decoder */
#define D(name, cls, ret, args) { #name, cls, SYSCALL_RET_##ret, SYSCALL_FAMILY_ARGS, args }
#define F(name, cls, ret, fam, args) { #name, cls, SYSCALL_RET_##ret, SYSCALL_FAMILY_##fam, args }
#define X(name, cls, fam, n) { #name, cls, SYSCALL_RET_DEC, SYSCALL_FAMILY_##fam, n, { 0 } }

static const struct syscall_desc descs[] = {
    D(read, TD, DEC, A(FD, OUTBUF, ULONG)),
    D(write, TD, DEC, A(FD, INBUF, ULONG)),
    D(open, TD | TF, FD, A(PATH, OPEN_FLAGS, MODE)),
    D(close, TD, DEC, A(FD)),
    D(stat, TF | STA, DEC, A(PATH, STAT_OUT)),
    D(fstat, TD | FST, DEC, A(FD, STAT_OUT)),
    D(lstat, TF | LST, DEC, A(PATH, STAT_OUT)),
    F(poll, TD, DEC, POLL, A(POLLFDS, ULONG, INT)),
    D(lseek, TD, DEC, A(FD, LONG, WHENCE)),
    D(mmap, TD | TM, HEX, A(ADDR, ULONG, MMAP_PROT, MMAP_FLAGS, FD, HEX)),
    D(mprotect, TM, DEC, A(ADDR, ULONG, MMAP_PROT)),
    D(munmap, TM, DEC, A(ADDR, ULONG)),
    D(brk, TM, HEX, A(ADDR)),
    D(rt_sigaction, TS, DEC, A(SIGNAL, SIGACTION_IN, SIGACTION_OUT, ULONG)),
    D(rt_sigprocmask, TS, DEC, A(SIGPROCMASK_HOW, SIGSET_IN, SIGSET_OUT, ULONG)),
    X(rt_sigreturn, TS, RT_SIGRETURN, 0),
    X(ioctl, TD, IOCTL, 3),
    D(pread64, TD, DEC, A(FD, OUTBUF, ULONG, LONG)),
    D(pwrite64, TD, DEC, A(FD, INBUF, ULONG, LONG)),
    D(readv, TD, DEC, A(FD, IOVEC_OUT, ULONG)),
    D(writev, TD, DEC, A(FD, IOVEC_IN, ULONG)),
    D(access, TF, DEC, A(PATH, ACCESS_MODE)),
    D(pipe, TD, DEC, A(PIPEFDS_OUT)),
    F(select, TD, DEC, SELECT, A(INT, FDSET_INOUT, FDSET_INOUT, FDSET_INOUT, TIMEVAL_INOUT)),
    D(sched_yield, 0, DEC, A0),
    D(mremap, TM, HEX, A(ADDR, ULONG, ULONG, MREMAP_FLAGS, MREMAP_ADDR)),
    D(msync, TM, DEC, A(ADDR, ULONG, MSYNC_FLAGS)),
    D(mincore, TM, DEC, A(ADDR, ULONG, ADDR)),
    D(madvise, TM, DEC, A(ADDR, ULONG, MADVISE)),
    D(shmget, TI, DEC, A(INT, ULONG, HEX)),
    D(shmat, TI | TM, HEX, A(INT, ADDR, HEX)),
    D(shmctl, TI, DEC, A(INT, HEX, ADDR)),
    D(dup, TD, FD, A(FD)),
    D(dup2, TD, FD, A(FD, FD)),
    D(pause, TS, DEC, A0),
    D(nanosleep, 0, DEC, A(TIMESPEC_IN, TIMESPEC_REMAINING)),
    D(getitimer, 0, DEC, A(ITIMER_WHICH, ITIMERVAL_OUT)),
    D(alarm, 0, DEC, A(ULONG)),
    D(setitimer, 0, DEC, A(ITIMER_WHICH, ITIMERVAL_IN, ITIMERVAL_OUT)),
    D(getpid, PU, DEC, A0),
    D(sendfile, TD | TN, DEC, A(FD, FD, ADDR, ULONG)),
    D(socket, TN, FD, A(SOCKET_FAMILY, SOCKET_TYPE, SOCKET_PROTOCOL)),
    D(connect, TN, DEC, A(FD, SOCKADDR_IN, ULONG)),
    D(accept, TN, FD, A(FD, SOCKADDR_OUT, SOCKLEN_INOUT)),
    D(sendto, TN, DEC, A(FD, INBUF, ULONG, MSG_FLAGS, SOCKADDR_IN, ULONG)),
    D(recvfrom, TN, DEC, A(FD, OUTBUF, ULONG, MSG_FLAGS, SOCKADDR_OUT, SOCKLEN_INOUT)),
    D(sendmsg, TN, DEC, A(FD, MSGHDR_IN, MSG_FLAGS)),
    D(recvmsg, TN, DEC, A(FD, MSGHDR_OUT, MSG_FLAGS)),
    D(shutdown, TN, DEC, A(FD, SHUTDOWN_HOW)),
    D(bind, TN, DEC, A(FD, SOCKADDR_IN, ULONG)),
    D(listen, TN, DEC, A(FD, INT)),
    D(getsockname, TN, DEC, A(FD, SOCKADDR_OUT, SOCKLEN_INOUT)),
    D(getpeername, TN, DEC, A(FD, SOCKADDR_OUT, SOCKLEN_INOUT)),
    D(socketpair, TN, DEC, A(SOCKET_FAMILY, SOCKET_TYPE, INT, PIPEFDS_OUT)),
    D(setsockopt, TN, DEC, A(FD, SOCKOPT_LEVEL, SOCKOPT_NAME, SOCKOPT_IN, INT)),
    D(getsockopt, TN, DEC, A(FD, SOCKOPT_LEVEL, SOCKOPT_NAME, SOCKOPT_OUT, SOCKLEN_INOUT)),
    X(clone, TP, CLONE, 5),
    D(fork, TP, DEC, A0),
    D(vfork, TP, DEC, A0),
    F(execve, TF | TP, DEC, EXEC, A(PATH, ARGV, ENVP)),
    D(exit, TP, NONE, A(INT)),
    D(wait4, TP, DEC, A(INT, WAIT_STATUS_OUT, WAIT_OPTIONS, RUSAGE_OUT)),
    D(kill, TS | TP, DEC, A(INT, SIGNAL)),
    D(uname, 0, DEC, A(UTSNAME_OUT)),
    D(semget, TI, DEC, A(INT, INT, HEX)),
    D(semop, TI, DEC, A(INT, ADDR, ULONG)),
    D(semctl, TI, DEC, A(INT, INT, HEX, HEX)),
    D(shmdt, TI | TM, DEC, A(ADDR)),
    D(msgget, TI, DEC, A(INT, HEX)),
    D(msgsnd, TI, DEC, A(INT, ADDR, ULONG, HEX)),
    D(msgrcv, TI, DEC, A(INT, ADDR, ULONG, LONG, HEX)),
    D(msgctl, TI, DEC, A(INT, HEX, ADDR)),
    X(fcntl, TD, FCNTL, 3),
    D(flock, TD, DEC, A(FD, FLOCK_OP)),
    D(fsync, TD, DEC, A(FD)),
    D(fdatasync, TD, DEC, A(FD)),
    D(truncate, TF, DEC, A(PATH, LONG)),
    D(ftruncate, TD, DEC, A(FD, LONG)),
    D(getdents, TD, DEC, A(FD, DIRENTS_OUT, ULONG)),
    D(getcwd, TF, DEC, A(OUTPATH, ULONG)),
    D(chdir, TF, DEC, A(PATH)),
    D(fchdir, TD, DEC, A(FD)),
    D(rename, TF, DEC, A(PATH, PATH)),
    D(mkdir, TF, DEC, A(PATH, MODE)),
    D(rmdir, TF, DEC, A(PATH)),
    D(creat, TD | TF, FD, A(PATH, MODE)),
    D(link, TF, DEC, A(PATH, PATH)),
    D(unlink, TF, DEC, A(PATH)),
    D(symlink, TF, DEC, A(PATH, PATH)),
    D(readlink, TF, DEC, A(PATH, OUTBUF, ULONG)),
    D(chmod, TF, DEC, A(PATH, MODE)),
    D(fchmod, TD, DEC, A(FD, MODE)),
    D(chown, TF, DEC, A(PATH, INT, INT)),
    D(fchown, TD, DEC, A(FD, INT, INT)),
    D(lchown, TF, DEC, A(PATH, INT, INT)),
    D(umask, 0, OCTAL, A(MODE)),
    D(gettimeofday, TCL, DEC, A(ADDR, ADDR)),
    D(getrlimit, 0, DEC, A(RLIMIT_RESOURCE, RLIMIT_OUT)),
    D(getrusage, 0, DEC, A(RUSAGE_WHO, RUSAGE_OUT)),
    D(sysinfo, 0, DEC, A(SYSINFO_OUT)),
    D(times, 0, DEC, A(TMS_OUT)),
    D(ptrace, 0, DEC, A(HEX, INT, ADDR, ADDR)),
    D(getuid, TC | PU, DEC, A0),
    D(syslog, 0, DEC, A(INT, ADDR, INT)),
    D(getgid, TC | PU, DEC, A0),
    D(setuid, TC, DEC, A(INT)),
    D(setgid, TC, DEC, A(INT)),
    D(geteuid, TC | PU, DEC, A0),
    D(getegid, TC | PU, DEC, A0),
    D(setpgid, 0, DEC, A(INT, INT)),
    D(getppid, PU, DEC, A0),
    D(getpgrp, PU, DEC, A0),
    D(setsid, 0, DEC, A0),
    D(setreuid, TC, DEC, A(INT, INT)),
    D(setregid, TC, DEC, A(INT, INT)),
    D(getgroups, TC, DEC, A(INT, GIDS_OUT)),
    D(setgroups, TC, DEC, A(INT, ADDR)),
    D(setresuid, TC, DEC, A(INT, INT, INT)),
    D(getresuid, TC, DEC, A(ID_OUT, ID_OUT, ID_OUT)),
    D(setresgid, TC, DEC, A(INT, INT, INT)),
    D(getresgid, TC, DEC, A(ID_OUT, ID_OUT, ID_OUT)),
    D(getpgid, 0, DEC, A(INT)),
    D(setfsuid, TC, DEC, A(INT)),
    D(setfsgid, TC, DEC, A(INT)),
    D(getsid, 0, DEC, A(INT)),
    D(capget, TC, DEC, A(ADDR, ADDR)),
    D(capset, TC, DEC, A(ADDR, ADDR)),
    D(rt_sigpending, TS, DEC, A(ADDR, ULONG)),
    D(rt_sigtimedwait, TS, DEC, A(SIGSET_IN, ADDR, ADDR, ULONG)),
    D(rt_sigqueueinfo, TP | TS, DEC, A(INT, SIGNAL, ADDR)),
    D(rt_sigsuspend, TS, DEC, A(SIGSET_IN, ULONG)),
    D(sigaltstack, TS, DEC, A(STACK_IN, STACK_OUT)),
    D(utime, TF, DEC, A(PATH, ADDR)),
    D(mknod, TF, DEC, A(PATH, MODE, ULONG)),
    D(uselib, TF, DEC, A(PATH)),
    D(personality, 0, HEX, A(HEX)),
    D(ustat, SYSCALL_CLASS_STATFS_LIKE, DEC, A(ULONG, ADDR)),
    D(statfs, TF | SF, DEC, A(PATH, STATFS_OUT)),
    D(fstatfs, TD | FSF, DEC, A(FD, STATFS_OUT)),
    D(sysfs, 0, DEC, A(INT, HEX, HEX)),
    D(getpriority, 0, DEC, A(PRIO_WHICH, INT)),
    D(setpriority, 0, DEC, A(PRIO_WHICH, INT, INT)),
    D(sched_setparam, 0, DEC, A(INT, SCHED_PARAM_IN)),
    D(sched_getparam, 0, DEC, A(INT, SCHED_PARAM_OUT)),
    D(sched_setscheduler, 0, DEC, A(INT, SCHED_POLICY, SCHED_PARAM_IN)),
    D(sched_getscheduler, 0, SCHED_POLICY, A(INT)),
    D(sched_get_priority_max, 0, DEC, A(SCHED_POLICY)),
    D(sched_get_priority_min, 0, DEC, A(SCHED_POLICY)),
    D(sched_rr_get_interval, 0, DEC, A(INT, ADDR)),
    D(mlock, TM, DEC, A(ADDR, ULONG)),
    D(munlock, TM, DEC, A(ADDR, ULONG)),
    D(mlockall, TM, DEC, A(HEX)),
    D(munlockall, TM, DEC, A0),
    D(vhangup, 0, DEC, A0),
    D(modify_ldt, 0, DEC, A(INT, ADDR, ULONG)),
    D(pivot_root, TF, DEC, A(PATH, PATH)),
    D(_sysctl, 0, DEC, A(ADDR)),
    X(prctl, TC, PRCTL, 5),
    X(arch_prctl, 0, ARCH_PRCTL, 2),
    D(adjtimex, TCL, DEC, A(ADDR)),
    D(setrlimit, 0, DEC, A(RLIMIT_RESOURCE, RLIMIT_IN)),
    D(chroot, TF, DEC, A(PATH)),
    D(sync, 0, DEC, A0),
    D(acct, TF, DEC, A(PATH)),
    D(settimeofday, TCL, DEC, A(ADDR, ADDR)),
    D(mount, TF, DEC, A(PATH, PATH, STRING, HEX, ADDR)),
    D(umount2, TF, DEC, A(PATH, HEX)),
    D(swapon, TF, DEC, A(PATH, HEX)),
    D(swapoff, TF, DEC, A(PATH)),
    D(reboot, 0, DEC, A(HEX, HEX, HEX, ADDR)),
    D(sethostname, 0, DEC, A(INBUF, ULONG)),
    D(setdomainname, 0, DEC, A(INBUF, ULONG)),
    D(iopl, 0, DEC, A(INT)),
    D(ioperm, 0, DEC, A(ULONG, ULONG, INT)),
    D(init_module, 0, DEC, A(ADDR, ULONG, ADDR)),
    D(delete_module, 0, DEC, A(STRING, HEX)),
    D(quotactl, TF, DEC, A(HEX, PATH, INT, ADDR)),
    D(gettid, PU, DEC, A0),
    D(readahead, TD, DEC, A(FD, LONG, ULONG)),
    D(setxattr, TF, DEC, A(PATH, STRING, INBUF, ULONG, XATTR_FLAGS)),
    D(lsetxattr, TF, DEC, A(PATH, STRING, INBUF, ULONG, XATTR_FLAGS)),
    D(fsetxattr, TD, DEC, A(FD, STRING, INBUF, ULONG, XATTR_FLAGS)),
    D(getxattr, TF, DEC, A(PATH, STRING, XATTR_OUT, ULONG)),
    D(lgetxattr, TF, DEC, A(PATH, STRING, XATTR_OUT, ULONG)),
    D(fgetxattr, TD, DEC, A(FD, STRING, XATTR_OUT, ULONG)),
    D(listxattr, TF, DEC, A(PATH, XATTR_OUT, ULONG)),
    D(llistxattr, TF, DEC, A(PATH, XATTR_OUT, ULONG)),
    D(flistxattr, TD, DEC, A(FD, XATTR_OUT, ULONG)),
    D(removexattr, TF, DEC, A(PATH, STRING)),
    D(lremovexattr, TF, DEC, A(PATH, STRING)),
    D(fremovexattr, TD, DEC, A(FD, STRING)),
    D(tkill, TS | TP, DEC, A(INT, SIGNAL)),
    D(time, TCL, DEC, A(ADDR)),
    X(futex, 0, FUTEX, 6),
    D(sched_setaffinity, 0, DEC, A(INT, ULONG, ADDR)),
    D(sched_getaffinity, 0, DEC, A(INT, ULONG, CPUSET_OUT)),
    D(set_thread_area, 0, DEC, A(ADDR)),
    D(io_setup, TM, DEC, A(ULONG, ADDR)),
    D(io_destroy, TM, DEC, A(HEX)),
    D(io_getevents, 0, DEC, A(HEX, LONG, LONG, ADDR, ADDR)),
    D(io_submit, 0, DEC, A(HEX, LONG, ADDR)),
    D(io_cancel, 0, DEC, A(HEX, ADDR, ADDR)),
    D(get_thread_area, 0, DEC, A(ADDR)),
    D(lookup_dcookie, 0, DEC, A(HEX, ADDR, ULONG)),
    D(epoll_create, TD, FD, A(INT)),
    D(remap_file_pages, TM, DEC, A(ADDR, ULONG, HEX, ULONG, HEX)),
    D(getdents64, TD, DEC, A(FD, DIRENTS_OUT, ULONG)),
    D(set_tid_address, 0, DEC, A(ADDR)),
    F(restart_syscall, 0, DEC, RESTART, A0),
    D(semtimedop, TI, DEC, A(INT, ADDR, ULONG, ADDR)),
    D(fadvise64, TD, DEC, A(FD, LONG, LONG, FADVISE)),
    D(timer_create, 0, DEC, A(CLOCK_ID, SIGEVENT_IN, TIMERID_OUT)),
    D(timer_settime, 0, DEC, A(INT, TIMER_FLAGS, ITIMERSPEC_IN, ITIMERSPEC_OUT)),
    D(timer_gettime, 0, DEC, A(INT, ITIMERSPEC_OUT)),
    D(timer_getoverrun, 0, DEC, A(INT)),
    D(timer_delete, 0, DEC, A(INT)),
    D(clock_settime, TCL, DEC, A(CLOCK_ID, TIMESPEC_IN)),
    D(clock_gettime, TCL, DEC, A(CLOCK_ID, TIMESPEC_OUT)),
    D(clock_getres, TCL, DEC, A(CLOCK_ID, TIMESPEC_OUT)),
    D(clock_nanosleep, TCL, DEC, A(CLOCK_ID, TIMER_FLAGS, TIMESPEC_IN, TIMESPEC_REMAINING)),
    D(exit_group, TP, NONE, A(INT)),
    D(epoll_wait, TD, DEC, A(FD, EPOLL_EVENTS_OUT, INT, INT)),
    D(epoll_ctl, TD, DEC, A(FD, EPOLL_OP, FD, EPOLL_EVENT_IN)),
    D(tgkill, TS | TP, DEC, A(INT, INT, SIGNAL)),
    D(utimes, TF, DEC, A(PATH, TIMEVAL_PAIR_IN)),
    D(mbind, TM, DEC, A(ADDR, ULONG, HEX, ADDR, ULONG, HEX)),
    D(set_mempolicy, TM, DEC, A(HEX, ADDR, ULONG)),
    D(get_mempolicy, TM, DEC, A(ADDR, ADDR, ULONG, ADDR, HEX)),
    D(mq_open, TD, FD, A(STRING, HEX, OCTAL, ADDR)),
    D(mq_unlink, 0, DEC, A(STRING)),
    D(mq_timedsend, TD, DEC, A(FD, INBUF, ULONG, ULONG, ADDR)),
    D(mq_timedreceive, TD, DEC, A(FD, OUTBUF, ULONG, ADDR, ADDR, ADDR)),
    D(mq_notify, TD, DEC, A(FD, ADDR)),
    D(mq_getsetattr, TD, DEC, A(FD, ADDR, ADDR)),
    D(kexec_load, 0, DEC, A(HEX, ULONG, ADDR, HEX)),
    D(waitid, TP, DEC, A(IDTYPE, INT, SIGINFO_OUT, WAIT_OPTIONS, RUSAGE_OUT)),
    D(add_key, 0, DEC, A(STRING, STRING, ADDR, ULONG, INT)),
    D(request_key, 0, DEC, A(STRING, STRING, STRING, INT)),
    D(keyctl, 0, DEC, A(INT, HEX, HEX, HEX, HEX)),
    D(ioprio_set, 0, DEC, A(INT, INT, INT)),
    D(ioprio_get, 0, DEC, A(INT, INT)),
    D(inotify_init, TD, FD, A0),
    D(inotify_add_watch, TD | TF, DEC, A(FD, PATH, INOTIFY_MASK)),
    D(inotify_rm_watch, TD, DEC, A(FD, INT)),
    D(migrate_pages, TM, DEC, A(INT, ULONG, ADDR, ADDR)),
    D(openat, TD | TF, FD, A(DIRFD, PATH, OPEN_FLAGS, MODE)),
    D(mkdirat, TD | TF, DEC, A(DIRFD, PATH, MODE)),
    D(mknodat, TD | TF, DEC, A(DIRFD, PATH, MODE, ULONG)),
    D(fchownat, TD | TF, DEC, A(DIRFD, PATH, INT, INT, AT_FLAGS)),
    D(futimesat, TD | TF, DEC, A(DIRFD, PATH, TIMEVAL_PAIR_IN)),
    D(newfstatat, TD | TF | FST, DEC, A(DIRFD, PATH, STAT_OUT, AT_FLAGS)),
    D(unlinkat, TD | TF, DEC, A(DIRFD, PATH, AT_FLAGS)),
    D(renameat, TD | TF, DEC, A(DIRFD, PATH, DIRFD, PATH)),
    D(linkat, TD | TF, DEC, A(DIRFD, PATH, DIRFD, PATH, AT_FLAGS)),
    D(symlinkat, TD | TF, DEC, A(PATH, DIRFD, PATH)),
    D(readlinkat, TD | TF, DEC, A(DIRFD, PATH, OUTBUF, ULONG)),
    D(fchmodat, TD | TF, DEC, A(DIRFD, PATH, MODE)),
    D(faccessat, TD | TF, DEC, A(DIRFD, PATH, ACCESS_MODE)),
    F(pselect6, TD, DEC, SELECT, A(INT, FDSET_INOUT, FDSET_INOUT, FDSET_INOUT, TIMESPEC_INOUT, PSELECT_SIGMASK)),
    F(ppoll, TD, DEC, POLL, A(POLLFDS, ULONG, TIMESPEC_INOUT, SIGSET_IN, ULONG)),
    D(unshare, 0, DEC, A(CLONE_FLAGS)),
    D(set_robust_list, 0, DEC, A(ADDR, ULONG)),
    D(get_robust_list, 0, DEC, A(INT, ADDR, ADDR)),
    D(splice, TD, DEC, A(FD, ADDR, FD, ADDR, ULONG, HEX)),
    D(tee, TD, DEC, A(FD, FD, ULONG, HEX)),
    D(sync_file_range, TD, DEC, A(FD, LONG, LONG, HEX)),
    D(vmsplice, TD, DEC, A(FD, ADDR, ULONG, HEX)),
    D(move_pages, TM, DEC, A(INT, ULONG, ADDR, ADDR, ULONG, HEX)),
    D(utimensat, TD | TF, DEC, A(DIRFD, PATH, UTIMENS_IN, AT_FLAGS)),
    D(epoll_pwait, TD, DEC, A(FD, EPOLL_EVENTS_OUT, INT, INT, SIGSET_IN, ULONG)),
    D(signalfd, TD | TS, FD, A(FD, SIGSET_IN, ULONG)),
    D(timerfd_create, TD, FD, A(CLOCK_ID, TIMERFD_FLAGS)),
    D(eventfd, TD, FD, A(ULONG)),
    D(fallocate, TD, DEC, A(FD, HEX, LONG, LONG)),
    D(timerfd_settime, TD, DEC, A(FD, TIMERFD_SETTIME_FLAGS, ITIMERSPEC_IN, ITIMERSPEC_OUT)),
    D(timerfd_gettime, TD, DEC, A(FD, ITIMERSPEC_OUT)),
    D(accept4, TN, FD, A(FD, SOCKADDR_OUT, SOCKLEN_INOUT, SOCKET_FLAGS)),
    D(signalfd4, TD | TS, FD, A(FD, SIGSET_IN, ULONG, SIGNALFD_FLAGS)),
    D(eventfd2, TD, FD, A(ULONG, EVENTFD_FLAGS)),
    D(epoll_create1, TD, FD, A(EPOLL_CREATE_FLAGS)),
    D(dup3, TD, FD, A(FD, FD, O_FLAGS)),
    D(pipe2, TD, DEC, A(PIPEFDS_OUT, O_FLAGS)),
    D(inotify_init1, TD, FD, A(INOTIFY_FLAGS)),
    D(preadv, TD, DEC, A(FD, IOVEC_OUT, ULONG, LONG)),
    D(pwritev, TD, DEC, A(FD, IOVEC_IN, ULONG, LONG)),
    D(rt_tgsigqueueinfo, TP | TS, DEC, A(INT, INT, SIGNAL, ADDR)),
    D(perf_event_open, TD, FD, A(ADDR, INT, INT, FD, HEX)),
    D(recvmmsg, TN, DEC, A(FD, MMSGHDR_RECV, ULONG, MSG_FLAGS, TIMESPEC_INOUT)),
    D(fanotify_init, TD, FD, A(HEX, HEX)),
    D(fanotify_mark, TD | TF, DEC, A(FD, HEX, HEX, DIRFD, PATH)),
    D(prlimit64, 0, DEC, A(INT, RLIMIT_RESOURCE, RLIMIT_IN, RLIMIT_OUT)),
    D(name_to_handle_at, TD | TF, DEC, A(DIRFD, PATH, ADDR, ADDR, AT_FLAGS)),
    D(open_by_handle_at, TD, FD, A(FD, ADDR, OPEN_FLAGS)),
    D(clock_adjtime, TCL, DEC, A(CLOCK_ID, ADDR)),
    D(syncfs, TD, DEC, A(FD)),
    D(sendmmsg, TN, DEC, A(FD, MMSGHDR_SEND, ULONG, MSG_FLAGS)),
    D(setns, TD, DEC, A(FD, CLONE_FLAGS)),
    D(getcpu, 0, DEC, A(ADDR, ADDR, ADDR)),
    D(process_vm_readv, 0, DEC, A(INT, ADDR, ULONG, ADDR, ULONG, HEX)),
    D(process_vm_writev, 0, DEC, A(INT, ADDR, ULONG, ADDR, ULONG, HEX)),
    D(kcmp, 0, DEC, A(INT, INT, INT, HEX, HEX)),
    D(finit_module, TD, DEC, A(FD, STRING, HEX)),
    D(sched_setattr, 0, DEC, A(INT, ADDR, HEX)),
    D(sched_getattr, 0, DEC, A(INT, ADDR, ULONG, HEX)),
    D(renameat2, TD | TF, DEC, A(DIRFD, PATH, DIRFD, PATH, RENAME_FLAGS)),
    D(seccomp, 0, DEC, A(INT, HEX, ADDR)),
    D(getrandom, 0, DEC, A(OUTBUF_HEX, ULONG, GETRANDOM_FLAGS)),
    D(memfd_create, TD, FD, A(STRING, HEX)),
    D(kexec_file_load, TD, DEC, A(FD, FD, ULONG, STRING, HEX)),
    D(bpf, TD, DEC, A(INT, ADDR, ULONG)),
    F(execveat, TD | TF | TP, DEC, EXEC, A(DIRFD, PATH, ARGV, ENVP, AT_FLAGS)),
    D(userfaultfd, TD, FD, A(HEX)),
    D(membarrier, 0, DEC, A(INT, HEX)),
    D(mlock2, TM, DEC, A(ADDR, ULONG, HEX)),
    D(copy_file_range, TD, DEC, A(FD, ADDR, FD, ADDR, ULONG, HEX)),
    D(preadv2, TD, DEC, A(FD, IOVEC_OUT, ULONG, LONG, HEX)),
    D(pwritev2, TD, DEC, A(FD, IOVEC_IN, ULONG, LONG, HEX)),
    D(pkey_mprotect, TM, DEC, A(ADDR, ULONG, MMAP_PROT, INT)),
    D(pkey_alloc, 0, DEC, A(HEX, HEX)),
    D(pkey_free, 0, DEC, A(INT)),
    D(statx, TD | TF | FST, DEC, A(DIRFD, PATH, STATX_AT_FLAGS, STATX_MASK, STATX_OUT)),
    D(io_pgetevents, 0, DEC, A(HEX, LONG, LONG, ADDR, ADDR, ADDR)),
    D(rseq, 0, DEC, A(ADDR, HEX, INT, HEX)),
    D(pidfd_send_signal, TD | TS, DEC, A(FD, SIGNAL, ADDR, HEX)),
    D(io_uring_setup, TD, FD, A(ULONG, ADDR)),
    D(io_uring_enter, TD | TS, DEC, A(FD, ULONG, ULONG, HEX, ADDR, ULONG)),
    D(io_uring_register, TD | TM, DEC, A(FD, ULONG, ADDR, ULONG)),
    D(open_tree, TD | TF, FD, A(DIRFD, PATH, HEX)),
    D(move_mount, TD | TF, DEC, A(DIRFD, PATH, DIRFD, PATH, HEX)),
    D(fsopen, TD, FD, A(STRING, HEX)),
    D(fsconfig, TD | TF, DEC, A(FD, INT, STRING, ADDR, INT)),
    D(fsmount, TD, FD, A(FD, HEX, HEX)),
    D(fspick, TD | TF, FD, A(DIRFD, PATH, HEX)),
    D(pidfd_open, TD, FD, A(INT, HEX)),
    X(clone3, TP, CLONE3, 2),
    D(close_range, TD, DEC, A(ULONG, ULONG, HEX)),
    D(openat2, TD | TF, FD, A(DIRFD, PATH, ADDR, ULONG)),
    D(pidfd_getfd, TD, FD, A(FD, FD, HEX)),
    D(faccessat2, TD | TF, DEC, A(DIRFD, PATH, ACCESS_MODE, FACCESSAT2_FLAGS)),
    D(process_madvise, TD, DEC, A(FD, ADDR, ULONG, MADVISE, HEX)),
    D(epoll_pwait2, TD, DEC, A(FD, EPOLL_EVENTS_OUT, INT, ADDR, SIGSET_IN, ULONG)),
    D(mount_setattr, TD | TF, DEC, A(DIRFD, PATH, HEX, ADDR, ULONG)),
    D(quotactl_fd, TD, DEC, A(FD, HEX, INT, ADDR)),
    D(landlock_create_ruleset, TD, FD, A(ADDR, ULONG, HEX)),
    D(landlock_add_rule, TD, DEC, A(FD, INT, ADDR, HEX)),
    D(landlock_restrict_self, TD, DEC, A(FD, HEX)),
    D(memfd_secret, TD, FD, A(HEX)),
    D(process_mrelease, TD, DEC, A(FD, HEX)),
    D(futex_waitv, 0, DEC, A(ADDR, ULONG, HEX, ADDR, CLOCK_ID)),
    D(set_mempolicy_home_node, TM, DEC, A(ADDR, ULONG, ULONG, HEX)),
};

static const struct { const char *name; uint32_t cls; } classes[] = {
    {"file", SYSCALL_CLASS_FILE}, {"desc", SYSCALL_CLASS_DESC}, {"network", SYSCALL_CLASS_NETWORK},
    {"net", SYSCALL_CLASS_NETWORK}, {"process", SYSCALL_CLASS_PROCESS}, {"memory", SYSCALL_CLASS_MEMORY},
    {"signal", SYSCALL_CLASS_SIGNAL}, {"ipc", SYSCALL_CLASS_IPC}, {"creds", SYSCALL_CLASS_CREDS},
    {"clock", SYSCALL_CLASS_CLOCK}, {"stat", SYSCALL_CLASS_STAT}, {"lstat", SYSCALL_CLASS_LSTAT},
    {"fstat", SYSCALL_CLASS_FSTAT}, {"stat_like", SYSCALL_CLASS_STAT_LIKE}, {"statfs", SYSCALL_CLASS_STATFS},
    {"fstatfs", SYSCALL_CLASS_FSTATFS}, {"statfs_like", SYSCALL_CLASS_STATFS_LIKE}, {"pure", SYSCALL_CLASS_PURE},
    {"%stat", SYSCALL_CLASS_STAT_LIKE}, {"%statfs", SYSCALL_CLASS_STATFS_LIKE}, /* strace's %%stat, %%statfs */
};

#define NDESCS (sizeof descs / sizeof descs[0])

const struct syscall_desc *syscalls_desc_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NDESCS; i++)
        if (strcmp(descs[i].name, name) == 0)
            return &descs[i];
    return NULL;
}

const struct syscall_desc *syscalls_desc_at(size_t i)
{
    return i < NDESCS ? &descs[i] : NULL;
}

uint32_t syscalls_class_from_name(const char *name)
{
    if (name[0] == '%')
        name++;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (strcmp(classes[i].name, name) == 0)
            return classes[i].cls;
    return 0;
}

enum syscall_arg syscalls_arg(const struct syscall_desc *d, unsigned i)
{
    if (!d || !syscalls_by_args(d) || i >= d->nargs)
        return SYSCALL_ARG_HEX;
    return (enum syscall_arg)d->args[i];
}

/* ---- the host's table ------------------------------------------------------ */

static const struct { uint32_t nr; const char *name; } host[] = {
#include "syscalls_x86_64.h"
};

#define NHOST (sizeof host / sizeof host[0])

size_t syscalls_host_count(void) { return NHOST; }

void syscalls_host_entry(size_t i, uint32_t *nr, const char **name)
{
    *nr = host[i].nr;
    *name = host[i].name;
}

int syscalls_write_host_table(tr_writer *w)
{
    uint32_t nrs[NHOST];
    const char *names[NHOST];
    for (size_t i = 0; i < NHOST; i++) {
        nrs[i] = host[i].nr;
        names[i] = host[i].name;
    }
    return tr_writer_syscall_table(w, SYSCALLS_HOST_ARCH, nrs, names, NHOST);
}

const char *syscalls_host_name(uint32_t nr)
{
    /* the generated table is ordered by number with few gaps: try the index first */
    if (nr < NHOST && host[nr].nr == nr)
        return host[nr].name;
    for (size_t i = 0; i < NHOST; i++)
        if (host[i].nr == nr)
            return host[i].name;
    return NULL;
}

int syscalls_host_nr(const char *name)
{
    for (size_t i = 0; i < NHOST; i++)
        if (strcmp(host[i].name, name) == 0)
            return (int)host[i].nr;
    return -1;
}

/* ---- a trace's numbers to descriptors -------------------------------------- */

/* The descriptors by name, built once per table. */
static int index_descs(struct syscalls_table *t)
{
    if (t->descs.count)
        return 0;
    for (size_t i = 0; i < NDESCS; i++) {
        size_t len = strlen(descs[i].name);
        int rc = hashmap_put(&t->descs, hash_bytes(descs[i].name, len), len, (void *)&descs[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static const struct syscall_desc *desc_of_name(const struct syscalls_table *t, const char *name)
{
    size_t len = strlen(name);
    const struct syscall_desc *d = hashmap_get(&t->descs, hash_bytes(name, len), len);
    if (d && strcmp(d->name, name) == 0)
        return d;
    return d ? syscalls_desc_find(name) : NULL; /* two names of one hash: search */
}

static struct syscalls_entry *slot_of(struct syscalls_table *t, uint32_t nr)
{
    if (nr < SYSCALLS_NR_MAX) {
        if (!t->by_nr) {
            t->by_nr = calloc(SYSCALLS_NR_MAX, sizeof *t->by_nr);
            t->looked_up = calloc(SYSCALLS_NR_MAX, 1);
            if (!t->by_nr || !t->looked_up) {
                free(t->by_nr);
                free(t->looked_up);
                t->by_nr = NULL;
                t->looked_up = NULL;
                return NULL;
            }
        }
        t->looked_up[nr] = 1;
        return &t->by_nr[nr];
    }
    struct syscalls_entry *e = hashmap_get(&t->far, nr, 0);
    if (e)
        return e;
    if (!(e = calloc(1, sizeof *e)))
        return NULL;
    if (hashmap_put(&t->far, nr, 0, e) < 0) {
        free(e);
        return NULL;
    }
    return e;
}

int syscalls_table_set(struct syscalls_table *t, uint32_t nr, const char *name)
{
    if (index_descs(t) < 0)
        return TR_E_NOMEM;
    struct syscalls_entry *e = slot_of(t, nr);
    if (!e)
        return TR_E_NOMEM;
    e->name = NULL;
    e->desc = NULL;
    if (!name)
        return 0;
    if (!(e->name = strpool_intern(&t->names, name, strlen(name))))
        return TR_E_NOMEM;
    e->desc = desc_of_name(t, name);
    return 0;
}

int syscalls_table_host(struct syscalls_table *t)
{
    for (size_t i = 0; i < NHOST; i++) {
        int rc = syscalls_table_set(t, host[i].nr, host[i].name);
        if (rc < 0)
            return rc;
    }
    return 0;
}

const struct syscalls_entry *syscalls_table_get(const struct syscalls_table *t, uint32_t nr)
{
    const struct syscalls_entry *e;
    if (nr < SYSCALLS_NR_MAX)
        e = t->by_nr && t->looked_up[nr] ? &t->by_nr[nr] : NULL;
    else
        e = hashmap_get(&t->far, nr, 0);
    return e && e->name ? e : NULL;
}

const struct syscalls_entry *syscalls_table_lookup(struct syscalls_table *t, tr_reader *r, uint32_t nr)
{
    const struct syscalls_entry *e = syscalls_table_get(t, nr);
    if (e || !r)
        return e;
    /* not known yet: the stream's table (a table lost with a damaged chunk
     * may come again with a key chunk, so a miss is asked again) */
    const char *name = tr_reader_syscall_name(r, NULL, nr);
    if (!name || syscalls_table_set(t, nr, name) < 0)
        return NULL;
    return syscalls_table_get(t, nr);
}

int syscalls_table_nr(const struct syscalls_table *t, const char *name)
{
    for (uint32_t nr = 0; t->by_nr && nr < SYSCALLS_NR_MAX; nr++)
        if (t->looked_up[nr] && t->by_nr[nr].name && strcmp(t->by_nr[nr].name, name) == 0)
            return (int)nr;
    size_t i = 0;
    for (hashmap_slot *s; (s = hashmap_next(&t->far, &i));) {
        const struct syscalls_entry *e = s->val;
        if (e->name && strcmp(e->name, name) == 0)
            return (int)s->a;
    }
    return -1;
}

void syscalls_table_free(struct syscalls_table *t)
{
    size_t i = 0;
    for (hashmap_slot *s; (s = hashmap_next(&t->far, &i));)
        free(s->val);
    hashmap_free(&t->far);
    hashmap_free(&t->descs);
    strpool_free(&t->names);
    free(t->by_nr);
    free(t->looked_up);
    memset(t, 0, sizeof *t);
}
