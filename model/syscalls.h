/*
 * syscalls.h - what a syscall is, for the recorder that copies its arguments
 * out of a tracee (tr-rec-strace) and for the renderers that print them
 * (tr-cat): the descriptor of each syscall (its arguments' kinds, its return
 * value's kind, strace's classes, the family that decodes it), what each
 * argument kind captures at entry and at exit, the sizes of the kernel's
 * structs, and the map from a trace's syscall numbers to descriptors.
 *
 * Numbers are not in the descriptors: a trace carries its own syscall table
 * (nr -> name, for its arch), which tr-rec-strace writes from the host's
 * table (generated from <asm/unistd_64.h> at build time by
 * model/gen-syscalls.sh).  A struct syscalls_table maps each number of a
 * stream to its name and descriptor, once per number (one look-up by name in
 * a hash map); after that a record's descriptor is one array index.
 *
 * How arguments are spelled (flags, signals, structs) is syscalls_decode.h.
 * Like every module of model/, nothing here prints or exits.
 */
#ifndef MODEL_SYSCALLS_H
#define MODEL_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"

/* tr.h's reader; not included, so that syscalls_abi.c reads the kernel's
 * headers without the C library's. */
typedef struct tr_reader tr_reader;
typedef struct tr_writer tr_writer;

/* Numbers of the host's table are below this (x86_64); tr-rec-strace's
 * selections and seccomp program index by it. */
#define SYSCALLS_NR_MAX 1024
#define SYSCALLS_HOST_ARCH "x86_64"

/* ---- argument kinds ------------------------------------------------------ */

/* The kind of one argument: how it is printed and what the recorder copies
 * for it (syscalls_arg_info).  "_IN" is read at entry, "_OUT" at exit. */
enum syscall_arg {
    SYSCALL_ARG_HEX = 0,          /* a number in hex ("0" for 0); also unknown */
    SYSCALL_ARG_INT,              /* int, decimal */
    SYSCALL_ARG_LONG,             /* long, decimal */
    SYSCALL_ARG_ULONG,            /* unsigned long, decimal */
    SYSCALL_ARG_OCTAL,
    SYSCALL_ARG_ADDR,             /* a pointer: NULL or 0x... */
    SYSCALL_ARG_FD,               /* a file descriptor (-y: its path) */
    SYSCALL_ARG_DIRFD,            /* a directory fd or AT_FDCWD */
    SYSCALL_ARG_PATH,             /* a path, whole (entry) */
    SYSCALL_ARG_STRING,           /* a string of at most -s bytes (entry) */
    SYSCALL_ARG_INBUF,            /* a buffer whose length is the next argument (entry) */
    SYSCALL_ARG_OUTBUF,           /* a buffer filled with as many bytes as returned (exit) */
    SYSCALL_ARG_OUTBUF_HEX,       /* the same, always printed in hex (getrandom) */
    SYSCALL_ARG_OUTPATH,          /* a path written by the call (exit: getcwd) */
    SYSCALL_ARG_ARGV,             /* argv (entry) */
    SYSCALL_ARG_ENVP,             /* envp (entry: its count only) */
    SYSCALL_ARG_OPEN_FLAGS,       /* O_RDONLY|O_CLOEXEC... (access mode and flags) */
    SYSCALL_ARG_O_FLAGS,          /* O_* flags without access mode (pipe2, dup3) */
    SYSCALL_ARG_MODE,             /* a file mode, octal (after open flags only with O_CREAT/O_TMPFILE) */
    SYSCALL_ARG_MMAP_PROT,
    SYSCALL_ARG_MMAP_FLAGS,
    SYSCALL_ARG_SIGNAL,           /* a signal number */
    SYSCALL_ARG_ACCESS_MODE,      /* F_OK, R_OK|W_OK ... */
    SYSCALL_ARG_AT_FLAGS,         /* AT_* */
    SYSCALL_ARG_FACCESSAT2_FLAGS, /* AT_* of faccessat2 (AT_EACCESS) */
    SYSCALL_ARG_STATX_AT_FLAGS,   /* AT_* of statx (AT_STATX_SYNC_AS_STAT ...) */
    SYSCALL_ARG_WHENCE,           /* lseek's SEEK_* */
    SYSCALL_ARG_MADVISE,          /* MADV_* */
    SYSCALL_ARG_RLIMIT_RESOURCE,  /* RLIMIT_* */
    SYSCALL_ARG_RLIMIT_IN,        /* struct rlimit (entry) */
    SYSCALL_ARG_RLIMIT_OUT,       /* struct rlimit (exit) */
    SYSCALL_ARG_SIGSET_IN,        /* the kernel's sigset_t (entry) */
    SYSCALL_ARG_SIGSET_OUT,       /* (exit) */
    SYSCALL_ARG_SIGPROCMASK_HOW,  /* SIG_BLOCK ... */
    SYSCALL_ARG_SIGACTION_IN,     /* the kernel's struct sigaction (entry) */
    SYSCALL_ARG_SIGACTION_OUT,    /* (exit) */
    SYSCALL_ARG_TIMESPEC_IN,      /* struct timespec (entry) */
    SYSCALL_ARG_TIMESPEC_OUT,     /* (exit) */
    SYSCALL_ARG_TIMESPEC_REMAINING, /* struct timespec at exit, only when interrupted (EINTR) */
    SYSCALL_ARG_STAT_OUT,         /* struct stat (exit) */
    SYSCALL_ARG_STATX_OUT,        /* struct statx (exit) */
    SYSCALL_ARG_STATX_MASK,       /* STATX_* */
    SYSCALL_ARG_STATFS_OUT,       /* struct statfs (exit) */
    SYSCALL_ARG_SYSINFO_OUT,      /* struct sysinfo (exit) */
    SYSCALL_ARG_UTSNAME_OUT,      /* struct utsname (exit) */
    SYSCALL_ARG_PIPEFDS_OUT,      /* int[2] (exit: pipe, pipe2, socketpair) */
    SYSCALL_ARG_WAIT_STATUS_OUT,  /* an int wait status (exit) */
    SYSCALL_ARG_WAIT_OPTIONS,     /* WNOHANG ... */
    SYSCALL_ARG_DIRENTS_OUT,      /* directory entries (exit: their count) */
    SYSCALL_ARG_CPUSET_OUT,       /* a cpu set of as many bytes as returned (exit) */
    SYSCALL_ARG_GIDS_OUT,         /* gid_t array of as many entries as returned (exit) */
    SYSCALL_ARG_POLLFDS,          /* struct pollfd array (entry; revents at exit) */
    SYSCALL_ARG_IOVEC_IN,         /* iovec array with its data (entry) */
    SYSCALL_ARG_IOVEC_OUT,        /* iovec array with its data (exit: as many bytes as returned) */
    SYSCALL_ARG_SOCKET_FAMILY,    /* AF_* */
    SYSCALL_ARG_SOCKET_TYPE,      /* SOCK_* type and flags */
    SYSCALL_ARG_SOCKET_PROTOCOL,  /* IPPROTO_* ... by the family in argument 0 */
    SYSCALL_ARG_SOCKADDR_IN,      /* struct sockaddr, length the next argument (entry) */
    SYSCALL_ARG_SOCKADDR_OUT,     /* struct sockaddr, length from the next argument's socklen (exit) */
    SYSCALL_ARG_SOCKLEN_INOUT,    /* socklen_t in and out ("[IN => OUT]") */
    SYSCALL_ARG_MSG_FLAGS,        /* MSG_* */
    SYSCALL_ARG_GETRANDOM_FLAGS,  /* GRND_* */
    SYSCALL_ARG_CLOCK_ID,         /* CLOCK_* */
    SYSCALL_ARG_TIMER_FLAGS,      /* TIMER_ABSTIME */
    SYSCALL_ARG_EPOLL_OP,         /* EPOLL_CTL_* */
    SYSCALL_ARG_EPOLL_EVENT_IN,   /* struct epoll_event (entry, not for EPOLL_CTL_DEL) */
    SYSCALL_ARG_EPOLL_EVENTS_OUT, /* struct epoll_event array of as many as returned (exit) */
    SYSCALL_ARG_EPOLL_CREATE_FLAGS, /* EPOLL_CLOEXEC */
    SYSCALL_ARG_EVENTFD_FLAGS,    /* EFD_* */
    SYSCALL_ARG_SIGNALFD_FLAGS,   /* SFD_* */
    SYSCALL_ARG_TIMERFD_FLAGS,    /* TFD_* */
    SYSCALL_ARG_INOTIFY_FLAGS,    /* IN_CLOEXEC, IN_NONBLOCK */
    SYSCALL_ARG_FADVISE,          /* POSIX_FADV_* */
    SYSCALL_ARG_SOCKET_FLAGS,     /* SOCK_CLOEXEC, SOCK_NONBLOCK (accept4) */
    SYSCALL_ARG_UTIMENS_IN,       /* struct timespec[2] of utimensat, UTIME_NOW/UTIME_OMIT (entry) */
    SYSCALL_ARG_TIMEVAL_PAIR_IN,  /* struct timeval[2] of utimes, futimesat (entry) */
    SYSCALL_ARG_RUSAGE_WHO,       /* RUSAGE_SELF ... */
    SYSCALL_ARG_RUSAGE_OUT,       /* struct rusage (exit) */
    SYSCALL_ARG_STACK_IN,         /* stack_t of sigaltstack (entry) */
    SYSCALL_ARG_STACK_OUT,        /* (exit) */
    SYSCALL_ARG_XATTR_FLAGS,      /* XATTR_CREATE, XATTR_REPLACE */
    SYSCALL_ARG_RENAME_FLAGS,     /* RENAME_NOREPLACE ... */
    SYSCALL_ARG_SOCKOPT_LEVEL,    /* SOL_* */
    SYSCALL_ARG_SOCKOPT_NAME,     /* SO_*, TCP_*, IP_* ... by the level in argument 1 */
    SYSCALL_ARG_SOCKOPT_IN,       /* setsockopt's value, its length the next argument (entry) */
    SYSCALL_ARG_SOCKOPT_OUT,      /* getsockopt's value, its length from the next argument's socklen (exit) */
    SYSCALL_ARG_SHUTDOWN_HOW,     /* SHUT_RD ... */
    SYSCALL_ARG_MREMAP_FLAGS,     /* MREMAP_MAYMOVE ... */
    SYSCALL_ARG_MREMAP_ADDR,      /* mremap's new address: printed only with MREMAP_MAYMOVE|MREMAP_FIXED */
    SYSCALL_ARG_MSYNC_FLAGS,      /* MS_ASYNC ... */
    SYSCALL_ARG_ITIMER_WHICH,     /* ITIMER_REAL ... */
    SYSCALL_ARG_IDTYPE,           /* waitid's P_PID ... */
    SYSCALL_ARG_ITIMERSPEC_IN,    /* struct itimerspec (entry) */
    SYSCALL_ARG_ITIMERSPEC_OUT,   /* (exit) */
    SYSCALL_ARG_ITIMERVAL_IN,     /* struct itimerval (entry) */
    SYSCALL_ARG_ITIMERVAL_OUT,    /* (exit) */
    SYSCALL_ARG_SIGEVENT_IN,      /* struct sigevent (entry) */
    SYSCALL_ARG_TIMERID_OUT,      /* the timer id timer_create writes (exit) */
    SYSCALL_ARG_SIGINFO_OUT,      /* siginfo_t (exit: waitid) */
    SYSCALL_ARG_SCHED_PARAM_OUT,  /* struct sched_param (exit) */
    SYSCALL_ARG_TIMERFD_SETTIME_FLAGS, /* TFD_TIMER_ABSTIME ... */
    SYSCALL_ARG_FDSET_INOUT,      /* an fd_set of the nfds in argument 0 (entry; exit: the ready ones) */
    SYSCALL_ARG_TIMEVAL_INOUT,    /* struct timeval (entry; exit: the time left) */
    SYSCALL_ARG_TIMESPEC_INOUT,   /* struct timespec (entry; exit: the time left) */
    SYSCALL_ARG_PSELECT_SIGMASK,  /* pselect6's {sigset pointer, size} (entry) */
    SYSCALL_ARG_FLOCK_OP,         /* LOCK_SH ... */
    SYSCALL_ARG_PRIO_WHICH,       /* PRIO_PROCESS ... */
    SYSCALL_ARG_TMS_OUT,          /* struct tms (exit) */
    SYSCALL_ARG_SCHED_POLICY,     /* SCHED_OTHER ... */
    SYSCALL_ARG_SCHED_PARAM_IN,   /* struct sched_param (entry) */
    SYSCALL_ARG_INOTIFY_MASK,     /* IN_MODIFY ... */
    SYSCALL_ARG_CLONE_FLAGS,      /* CLONE_* (unshare, setns) */
    SYSCALL_ARG_ID_OUT,           /* a uid or gid the call writes (exit: getresuid) */
    SYSCALL_ARG_XATTR_OUT,        /* an xattr value or name list (exit): an output buffer, its address when
                                     the size (next argument) is 0 */
    SYSCALL_ARG_MSGHDR_IN,        /* struct msghdr with its name, data and control (entry: sendmsg) */
    SYSCALL_ARG_MSGHDR_OUT,       /* (exit: recvmsg, the data received; msg_namelen also at entry) */
    SYSCALL_ARG_MMSGHDR_SEND,     /* struct mmsghdr array of the next argument's length (exit: sendmmsg) */
    SYSCALL_ARG_MMSGHDR_RECV,     /* struct mmsghdr array of as many as returned (exit: recvmmsg) */
    SYSCALL_ARG_COUNT
};

/* The kind of a return value. */
enum syscall_ret {
    SYSCALL_RET_DEC = 0,  /* decimal */
    SYSCALL_RET_HEX,
    SYSCALL_RET_OCTAL,
    SYSCALL_RET_FD,       /* a new fd (-y: its path, captured at exit) */
    SYSCALL_RET_NONE,     /* never returns (exit, exit_group) */
    SYSCALL_RET_SCHED_POLICY, /* decimal, with its SCHED_* name when it has one */
    SYSCALL_RET_COUNT
};

/* The decoder of a syscall.  The first five are decoded argument by argument
 * from the descriptor's kinds (the last four of them with a twist of their
 * own); the others by a decoder of their own, which knows their arguments. */
enum syscall_family {
    SYSCALL_FAMILY_ARGS = 0,
    SYSCALL_FAMILY_POLL,         /* poll: its return value lists the ready fds */
    SYSCALL_FAMILY_EXEC,         /* execve, execveat: a thread that execs becomes the leader */
    SYSCALL_FAMILY_RESTART,      /* restart_syscall: names the call it resumes */
    SYSCALL_FAMILY_SELECT,       /* select, pselect6: the return value lists the ready fds and the time left */
    SYSCALL_FAMILY_CLONE,
    SYSCALL_FAMILY_CLONE3,
    SYSCALL_FAMILY_FUTEX,
    SYSCALL_FAMILY_FCNTL,
    SYSCALL_FAMILY_IOCTL,
    SYSCALL_FAMILY_PRCTL,
    SYSCALL_FAMILY_ARCH_PRCTL,
    SYSCALL_FAMILY_RT_SIGRETURN,
    SYSCALL_FAMILY_COUNT
};

/* strace's syscall classes (-e trace=%file ...) */
enum {
    SYSCALL_CLASS_FILE = 1u << 0, SYSCALL_CLASS_DESC = 1u << 1, SYSCALL_CLASS_NETWORK = 1u << 2,
    SYSCALL_CLASS_PROCESS = 1u << 3, SYSCALL_CLASS_MEMORY = 1u << 4, SYSCALL_CLASS_SIGNAL = 1u << 5,
    SYSCALL_CLASS_IPC = 1u << 6, SYSCALL_CLASS_CREDS = 1u << 7, SYSCALL_CLASS_CLOCK = 1u << 8,
    SYSCALL_CLASS_STAT = 1u << 9, SYSCALL_CLASS_LSTAT = 1u << 10, SYSCALL_CLASS_FSTAT = 1u << 11,
    SYSCALL_CLASS_STAT_LIKE = 1u << 12, SYSCALL_CLASS_STATFS = 1u << 13,
    SYSCALL_CLASS_FSTATFS = 1u << 14, SYSCALL_CLASS_STATFS_LIKE = 1u << 15,
    SYSCALL_CLASS_PURE = 1u << 16,
};

/* One syscall.  Arities follow the kernel's SYSCALL_DEFINEn; classes
 * follow strace's for x86_64. */
struct syscall_desc {
    const char *name;
    uint32_t classes;   /* SYSCALL_CLASS_* */
    uint8_t ret;        /* enum syscall_ret */
    uint8_t family;     /* enum syscall_family */
    uint8_t nargs;
    uint8_t args[6];    /* enum syscall_arg, nargs of them (none for the own-decoder families) */
};

/* 1 when d is decoded argument by argument from d->args. */
static inline int syscalls_by_args(const struct syscall_desc *d)
{
    return d->family < SYSCALL_FAMILY_CLONE;
}

/* The kind of argument i of d: SYSCALL_ARG_HEX when d is NULL, decoded by
 * its own family, or i is not below d->nargs. */
enum syscall_arg syscalls_arg(const struct syscall_desc *d, unsigned i);
/* The descriptor of a syscall name, or NULL.  A linear search: to look up
 * many, map them with a struct syscalls_table. */
const struct syscall_desc *syscalls_desc_find(const char *name);
/* Every descriptor: i from 0 while it returns non-NULL. */
const struct syscall_desc *syscalls_desc_at(size_t i);
/* The class named name ("file", "%file", "desc" ...), 0 if unknown. */
uint32_t syscalls_class_from_name(const char *name);

/* What prctl's arguments are, by its option (strace's shapes): */
enum syscall_prctl_shape {
    SYSCALL_PRCTL_HEX4 = 0,       /* unknown: four arguments in hex */
    SYSCALL_PRCTL_NONE,           /* no argument (PR_GET_DUMPABLE ...) */
    SYSCALL_PRCTL_ULONG1,         /* one unsigned long (PR_SET_KEEPCAPS ...) */
    SYSCALL_PRCTL_ULONG4,         /* four unsigned longs (PR_SET_NO_NEW_PRIVS ...) */
    SYSCALL_PRCTL_INT_OUT,        /* an int the call writes: [1] (PR_GET_PDEATHSIG ...) */
    SYSCALL_PRCTL_SIGNAL,         /* a signal (PR_SET_PDEATHSIG) */
    SYSCALL_PRCTL_DUMPABLE,       /* SUID_DUMP_* */
    SYSCALL_PRCTL_CAP,            /* a capability (PR_CAPBSET_READ, PR_CAPBSET_DROP) */
    SYSCALL_PRCTL_NAME_IN,        /* a task name (PR_SET_NAME) */
    SYSCALL_PRCTL_NAME_OUT,       /* a task name the call writes (PR_GET_NAME) */
};
/* fcntl's lock commands: 1 sets a lock (struct flock at entry), 2 gets one
 * (struct flock at exit), 0 not a lock command. */
int syscalls_fcntl_lock(uint64_t cmd);
/* The shape of prctl option op. */
enum syscall_prctl_shape syscalls_prctl_shape(uint64_t op);

/* ---- what the recorder captures ------------------------------------------- */

/* What is copied out of the tracee for one argument, at entry or at exit. */
enum syscall_capture_what {
    SYSCALL_CAPTURE_NONE = 0,
    SYSCALL_CAPTURE_STRING,       /* TR_CAP_STRING: up to the NUL, at most size bytes (0: -s) */
    SYSCALL_CAPTURE_BUFFER,       /* TR_CAP_BUFFER: count bytes, at most -s */
    SYSCALL_CAPTURE_STRUCT,       /* TR_CAP_STRUCT: size bytes per element, count elements */
    SYSCALL_CAPTURE_ARGV,         /* TR_CAP_STRINGS: the strings of a NULL-terminated array */
    SYSCALL_CAPTURE_ENV_COUNT,    /* TR_CAP_STRUCT "count": the u32 number of entries of an array */
    SYSCALL_CAPTURE_DIRENT_COUNT, /* TR_CAP_STRUCT "count": the u32 number of directory entries */
    SYSCALL_CAPTURE_IOVEC,        /* TR_CAP_STRUCT "iovec": the iovecs with (a prefix of) their data */
    SYSCALL_CAPTURE_FD_PATH,      /* TR_CAP_FD_PATH: the path of an fd (-y only) */
    SYSCALL_CAPTURE_MSGHDR,       /* TR_CAP_STRUCT "msghdr": struct msghdrs with what they point at
                                     (count: how many; syscalls_decode.h: the layout) */
    SYSCALL_CAPTURE_MSGHDR_HEAD,  /* TR_CAP_STRUCT "msghdr_head": the struct msghdr alone (recvmsg's
                                     entry: the msg_namelen it was given) */
};

/* How many elements (bytes for STRING and BUFFER) a capture has. */
enum syscall_capture_count {
    SYSCALL_COUNT_ONE = 0,        /* one element */
    SYSCALL_COUNT_NEXT_ARG,       /* the value of the next argument */
    SYSCALL_COUNT_RET,            /* the return value */
    SYSCALL_COUNT_PREV_ARG_AND_RET, /* the smaller of the previous argument and the return value; none when 0 */
    SYSCALL_COUNT_NEXT_ARG_SOCKLEN, /* the socklen_t the next argument points at */
    SYSCALL_COUNT_FDSET,          /* the bytes of an fd_set of the nfds in argument 0 (whole longs) */
};

/* When a capture is taken (at exit: by the return value, ok meaning no error). */
enum syscall_capture_if {
    SYSCALL_IF_ALWAYS = 0,
    SYSCALL_IF_OK,                /* at exit: the call did not fail */
    SYSCALL_IF_RET_ZERO,          /* at exit: it returned 0 */
    SYSCALL_IF_RET_POSITIVE,      /* at exit: it returned more than 0 */
    SYSCALL_IF_RET_NONNEG,        /* at exit: it returned 0 or more */
    SYSCALL_IF_EINTR,             /* at exit: it failed with EINTR */
    SYSCALL_IF_EPOLL_OP_NOT_DEL,  /* at entry: argument 1 is not EPOLL_CTL_DEL */
};

struct syscall_capture {
    uint8_t what;          /* enum syscall_capture_what */
    uint8_t count;         /* enum syscall_capture_count */
    uint8_t cond;          /* enum syscall_capture_if */
    uint32_t size;         /* STRUCT: bytes of one element; STRING: most bytes (0: the -s limit) */
    uint32_t max;          /* count != ONE: most elements (bytes for STRUCT of size 1) */
    const char *struct_name; /* the capture's struct name in the trace, or NULL */
};

struct syscall_arg_info {
    const char *name;              /* "path", "struct stat" ...: what the argument is */
    struct syscall_capture entry;  /* copied at entry (what NONE: nothing) */
    struct syscall_capture exit;   /* copied at exit */
    uint8_t fd;                    /* 1: an fd whose path -y records (TR_CAP_FD_PATH) at entry */
};

/* What argument kind k is and captures; NULL when k is out of range. */
const struct syscall_arg_info *syscalls_arg_info(enum syscall_arg k);

/* One capture of a call that its family decodes (!syscalls_by_args): copy
 * what c says (STRING of at most c.size bytes, STRUCT of c.size bytes, or
 * FD_PATH) for argument arg from value (an address; for FD_PATH the fd). */
struct syscall_family_capture {
    uint32_t arg;                 /* 6: the returned fd */
    uint64_t value;
    struct syscall_capture c;
};
#define SYSCALLS_FAMILY_CAPTURES_MAX 2

/* What a call of d's family with arguments a captures, in order: at entry
 * (at_exit 0; sp the user stack pointer, where rt_sigreturn finds the mask
 * it restores), or at exit (at_exit 1, ret the return value; entry_struct
 * the entry's first capture, entry_len bytes, or NULL: clone3's clone_args).
 * Fills out and returns how many (0 for the calls decoded by their
 * arguments' kinds).  FD_PATH captures are for -y only. */
int syscalls_family_captures(const struct syscall_desc *d, const uint64_t a[6], uint64_t sp, int at_exit,
                             int64_t ret, const uint8_t *entry_struct, size_t entry_len,
                             struct syscall_family_capture out[SYSCALLS_FAMILY_CAPTURES_MAX]);

/* Sizes and offsets of the kernel's x86_64 ABI, from its headers (sizeof
 * and offsetof of the real structs): what the recorder copies and the
 * decoders expect. */
struct syscalls_abi {
    uint32_t stat, statx, statfs, sysinfo, utsname, rlimit, timespec, sigset, sigaction;
    uint32_t pollfd, epoll_event, iovec, sockaddr_max, gid, clone_args, termios, winsize;
    uint32_t rusage, stack, timeval, itimerspec, itimerval, sigevent, siginfo, flock, tms;
    uint32_t comm;              /* a task's comm (PR_SET_NAME, PR_GET_NAME), with its NUL */
    uint32_t cpuset_max;        /* bytes of a cpu set recorded (CPU_SETSIZE bits) */
    uint32_t uc_sigmask;        /* offset of uc_sigmask in the signal frame's ucontext */
    uint32_t path_max;          /* PATH_MAX */
};
extern const struct syscalls_abi syscalls_abi;

/* Most bytes of a msghdr's control buffer recorded, most messages of an
 * mmsghdr array (strace prints at most -s of them) */
#define SYSCALLS_MSG_CONTROL_MAX 1024
#define SYSCALLS_MMSG_MAX 1024

/* ---- the host's table ------------------------------------------------------ */

/* The syscalls of the machine tr-rec-strace runs on (SYSCALLS_HOST_ARCH),
 * generated from the kernel headers, ordered by number. */
size_t syscalls_host_count(void);
void syscalls_host_entry(size_t i, uint32_t *nr, const char **name);
/* The name of nr, or NULL. */
const char *syscalls_host_name(uint32_t nr);
/* The number of name, or -1 (a linear search). */
int syscalls_host_nr(const char *name);
/* Write the host's table into w's stream (a recorder of syscalls).  0 or TR_E_*. */
int syscalls_write_host_table(tr_writer *w);

/* ---- a trace's numbers to descriptors -------------------------------------- */

struct syscalls_entry {
    const char *name;               /* the trace's name (NULL: not in the table) */
    const struct syscall_desc *desc;/* NULL when the name has no descriptor */
};

/* A stream's syscall numbers mapped to names and descriptors.  A zeroed
 * struct is empty; syscalls_table_free frees it (and leaves it empty). */
struct syscalls_table {
    struct syscalls_entry *by_nr;   /* numbers below SYSCALLS_NR_MAX, index nr */
    uint8_t *looked_up;             /* 1: by_nr[nr] was set */
    hashmap far;                    /* numbers from SYSCALLS_NR_MAX: (nr, 0) -> entry */
    hashmap descs;                  /* (hash, length) of a name -> its descriptor */
    strpool names;                  /* the names, copied */
};

/* Map nr to name (copied) and to the descriptor of that name: one look-up
 * in a hash map.  0 or TR_E_NOMEM. */
int syscalls_table_set(struct syscalls_table *t, uint32_t nr, const char *name);
/* Fill t with the host's table.  0 or TR_E_NOMEM. */
int syscalls_table_host(struct syscalls_table *t);
/* The entry of nr, or NULL when nr was never set. */
const struct syscalls_entry *syscalls_table_get(const struct syscalls_table *t, uint32_t nr);
/* The entry of nr in the current stream of r: set from the stream's own
 * table (tr_reader_syscall_name) the first time nr is found there, an array
 * index (a hash look-up from SYSCALLS_NR_MAX) after that.  NULL when the
 * stream's table lacks nr (asked again next time) or out of memory; r may be
 * NULL (then only what was set). */
const struct syscalls_entry *syscalls_table_lookup(struct syscalls_table *t, tr_reader *r, uint32_t nr);
/* The number of name in t, or -1 (a linear search, for set-up). */
int syscalls_table_nr(const struct syscalls_table *t, const char *name);
void syscalls_table_free(struct syscalls_table *t);

#endif
