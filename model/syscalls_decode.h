/*
 * syscalls_decode.h - strace's spelling of syscall arguments: quoted
 * strings, flag sets, constants, signals, errno names and the kernel's
 * structs (as tr-rec-strace captured them), formatted into a growable
 * string the caller owns.  Nothing here prints; a string that cannot grow
 * (out of memory) keeps what it had.  The value tables use the headers'
 * constants (syscalls_xlat.c, syscalls_decode.c).
 */
#ifndef MODEL_SYSCALLS_DECODE_H
#define MODEL_SYSCALLS_DECODE_H

#include <stddef.h>
#include <stdint.h>

/* A growable, NUL-terminated string: zeroed is empty; syscalls_buf_free
 * frees it.  p is NULL until something is put. */
struct syscalls_buf {
    char *p;
    size_t len, cap;
};
void syscalls_buf_reset(struct syscalls_buf *b); /* empty, keeping the memory */
void syscalls_buf_free(struct syscalls_buf *b);
void syscalls_buf_putc(struct syscalls_buf *b, char c);
void syscalls_buf_put(struct syscalls_buf *b, const char *s, size_t n);
void syscalls_buf_puts(struct syscalls_buf *b, const char *s);
void syscalls_buf_printf(struct syscalls_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A value and its name; tables end with SYSCALLS_XEND. */
struct syscalls_xlat {
    uint64_t val;
    const char *name;
};
#define SYSCALLS_XEND { 0, NULL }

/* Tables, in strace's order */
extern const struct syscalls_xlat syscalls_xlat_open_access[], syscalls_xlat_open_flags[],
    syscalls_xlat_mmap_prot[], syscalls_xlat_mmap_flags[], syscalls_xlat_mmap_type[],
    syscalls_xlat_clone_flags[], syscalls_xlat_at_flags[], syscalls_xlat_faccessat2_flags[],
    syscalls_xlat_statx_at_flags[], syscalls_xlat_access_modes[], syscalls_xlat_whence[],
    syscalls_xlat_madvise[], syscalls_xlat_rlimit[], syscalls_xlat_sigprocmask[], syscalls_xlat_af[],
    syscalls_xlat_sock_type[], syscalls_xlat_sock_flags[], syscalls_xlat_fcntl_cmds[],
    syscalls_xlat_fd_flags[], syscalls_xlat_grnd[], syscalls_xlat_clocks[], syscalls_xlat_futex_ops[],
    syscalls_xlat_wait_opts[], syscalls_xlat_arch_prctl[], syscalls_xlat_sa_flags[],
    syscalls_xlat_statx_mask[], syscalls_xlat_statx_attrs[], syscalls_xlat_fadvise[],
    syscalls_xlat_msg_flags[], syscalls_xlat_ioctl[], syscalls_xlat_timer_flags[],
    syscalls_xlat_sa_handler[], syscalls_xlat_poll_events[], syscalls_xlat_epoll_events[],
    syscalls_xlat_epoll_ops[], syscalls_xlat_epoll_create_flags[], syscalls_xlat_eventfd_flags[],
    syscalls_xlat_signalfd_flags[], syscalls_xlat_timerfd_flags[], syscalls_xlat_inotify_flags[],
    syscalls_xlat_rusage_who[], syscalls_xlat_ss_flags[], syscalls_xlat_xattr_flags[], syscalls_xlat_rename_flags[],
    syscalls_xlat_sockopt_levels[], syscalls_xlat_shutdown_how[], syscalls_xlat_mremap_flags[],
    syscalls_xlat_msync_flags[], syscalls_xlat_itimer_which[], syscalls_xlat_idtype[], syscalls_xlat_sigev_notify[],
    syscalls_xlat_timerfd_settime_flags[], syscalls_xlat_prctl_options[], syscalls_xlat_suid_dump[],
    syscalls_xlat_flock_ops[], syscalls_xlat_flock_types[], syscalls_xlat_prio_which[],
    syscalls_xlat_sched_policies[], syscalls_xlat_inotify_mask[];
/* Masks the tables need: O_ACCMODE, MAP_TYPE, AT_STATX_SYNC_TYPE, SA_RESTORER (the kernel's) */
extern const uint64_t syscalls_open_accmode, syscalls_mmap_type_mask, syscalls_statx_sync_type, syscalls_sa_restorer;

/* A constant: its name, or v printed with dflt_fmt ("%llu", "%#llx"). */
void syscalls_print_value(struct syscalls_buf *b, const struct syscalls_xlat *x, uint64_t v, const char *dflt_fmt);
/* A flag set: names joined by '|', leftover bits as hex, 0 as zero_str. */
void syscalls_print_flags(struct syscalls_buf *b, const struct syscalls_xlat *x, uint64_t v, const char *zero_str);
/* A value whose bits in kind_mask name a kind and whose other bits are flags:
 * "MAP_PRIVATE|MAP_ANONYMOUS", "SOCK_STREAM|SOCK_CLOEXEC". */
void syscalls_print_kind_flags(struct syscalls_buf *b, const struct syscalls_xlat *kinds, uint64_t kind_mask,
                               const struct syscalls_xlat *flags, uint64_t v);
/* open's flags: access mode and flags, "O_RDONLY|O_CLOEXEC" */
void syscalls_print_open_flags(struct syscalls_buf *b, uint64_t v);
/* 1 when open's flags give its mode a meaning (O_CREAT, or O_TMPFILE's own bit) */
int syscalls_open_has_mode(uint64_t flags);
/* mmap's flags: its MAP_TYPE and flags, "MAP_PRIVATE|MAP_ANONYMOUS" */
void syscalls_print_mmap_flags(struct syscalls_buf *b, uint64_t v);
/* socket's type: "SOCK_STREAM|SOCK_CLOEXEC" */
void syscalls_print_socket_type(struct syscalls_buf *b, uint64_t v);

/* Strings.  hex: 0, 1 (-x: all in hex when one byte is not printable), 2 (-xx: always);
 * force_hex as 2 (getrandom). */
void syscalls_print_quoted(struct syscalls_buf *b, const uint8_t *s, size_t len, int hex, int force_hex);
/* The bytes of a string as syscall strings spell them, without the quotes
 * ('"' escaped only when quoted): printable ASCII as it is, "\\", "\n" ...,
 * other bytes in octal ("\33"), so that no byte reaches a terminal raw. */
void syscalls_print_escaped(struct syscalls_buf *b, const uint8_t *s, size_t len, int quoted);
void syscalls_print_addr(struct syscalls_buf *b, uint64_t a); /* NULL or 0x... */

/* Signals: "SIGCHLD" ("SIGRT_2"), NULL when not a signal number; the
 * string is static (one buffer for SIGRT_n: valid until the next call). */
const char *syscalls_signal_name(int sig);
void syscalls_print_signal(struct syscalls_buf *b, int sig); /* the name or the number */
/* sigset as strace: [], [CHLD TERM], ~[RTMIN RT_1] */
void syscalls_print_sigset(struct syscalls_buf *b, const uint8_t *set, size_t len);
/* errno name ("ENOENT", the kernel's ERESTARTSYS ...) or NULL, and its message or NULL */
const char *syscalls_errno_name(int e);
const char *syscalls_errno_message(int e);

/* Structs as captured from the tracee (len bytes; nothing printed when
 * shorter than the struct) */
void syscalls_print_stat(struct syscalls_buf *b, const uint8_t *st, size_t len);
void syscalls_print_timespec(struct syscalls_buf *b, const uint8_t *ts, size_t len);
void syscalls_print_timeval(struct syscalls_buf *b, const uint8_t *tv, size_t len);
void syscalls_print_rlimit(struct syscalls_buf *b, const uint8_t *rl, size_t len);
void syscalls_print_sigaction(struct syscalls_buf *b, const uint8_t *sa, size_t len);
void syscalls_print_sockaddr(struct syscalls_buf *b, const uint8_t *sa, size_t len);
void syscalls_print_statx(struct syscalls_buf *b, const uint8_t *st, size_t len);
void syscalls_print_statfs(struct syscalls_buf *b, const uint8_t *st, size_t len);
void syscalls_print_sysinfo(struct syscalls_buf *b, const uint8_t *si, size_t len);
void syscalls_print_cpuset(struct syscalls_buf *b, const uint8_t *set, size_t len);
/* pollfd array: events at entry, revents (only set ones) at exit */
void syscalls_print_pollfds(struct syscalls_buf *b, const uint8_t *p, size_t len, int revents);
/* tr-rec-strace's iovec capture (per element: u64 base, u64 len, u32 n, n bytes)
 * of count iovecs, strings cut at strsize */
void syscalls_print_iov(struct syscalls_buf *b, const uint8_t *p, size_t len, uint64_t count, uint32_t strsize,
                        int hex);
/* tr-rec-strace's "msghdr" capture holds, per message, its struct mmsghdr (the
 * C library's; msg_len 0 for a struct msghdr), then three u32-sized parts: the
 * name (at most sizeof(struct sockaddr_storage) bytes), the iovecs with their
 * data (syscalls_print_iov's layout; received data only) and the control
 * buffer (at most SYSCALLS_MSG_CONTROL_MAX bytes).  One message printed as
 * strace prints a struct msghdr (SCM_RIGHTS, SCM_CREDENTIALS decoded, other
 * cmsgs' data in hex; an AF_NETLINK name's data as netlink messages);
 * namelen_in: the msg_namelen recvmsg was given, printed as "IN => OUT"
 * (-1: none); nlproto: the socket's netlink protocol (-1: unknown).  Returns
 * the bytes of the capture it took, 0 when the capture is short. */
size_t syscalls_print_msghdr(struct syscalls_buf *b, const uint8_t *p, size_t len, int namelen_in, int nlproto,
                             uint32_t strsize, int hex);
/* count messages of a "msghdr" capture as strace prints a struct mmsghdr
 * array: [{msg_hdr={...}, msg_len=5}, ...], msg_len for the first with_len */
void syscalls_print_mmsghdrs(struct syscalls_buf *b, const uint8_t *p, size_t len, uint64_t count, uint64_t with_len,
                             int nlproto, uint32_t strsize, int hex);
/* netlink messages (n bytes recorded of total): each nlmsghdr decoded (its
 * type by protocol proto, -1 unknown), its payload a hex string of at most
 * strsize bytes; [[hdr, payload], ...] when there are several */
void syscalls_print_netlink(struct syscalls_buf *b, const uint8_t *p, size_t n, uint64_t total, int proto,
                            uint32_t strsize);
void syscalls_print_socket_protocol(struct syscalls_buf *b, int family, int proto);
void syscalls_print_termios(struct syscalls_buf *b, const uint8_t *t, size_t len);
void syscalls_print_winsize(struct syscalls_buf *b, const uint8_t *w, size_t len);
/* epoll_event (one, or an array: array 1) */
void syscalls_print_epoll_events(struct syscalls_buf *b, const uint8_t *p, size_t len, int array);
void syscalls_print_utsname(struct syscalls_buf *b, const uint8_t *u, size_t len);
void syscalls_print_wait_status(struct syscalls_buf *b, int status);
void syscalls_print_siginfo(struct syscalls_buf *b, const uint8_t *si, size_t len);
void syscalls_print_mode(struct syscalls_buf *b, uint32_t mode); /* 0644, with S_IF* when type bits set */
/* utimensat's struct timespec[2]: each time with its date in a comment
 * (1970-01-01T00:00:01.000000002+0000, local time), or UTIME_NOW, UTIME_OMIT */
void syscalls_print_utimens(struct syscalls_buf *b, const uint8_t *ts, size_t len);
/* utimes' struct timeval[2], each with its date as a comment */
void syscalls_print_timeval_pair(struct syscalls_buf *b, const uint8_t *tv, size_t len);
/* struct rusage as strace abbreviates it: {ru_utime={...}, ru_stime={...}, ...} */
void syscalls_print_rusage(struct syscalls_buf *b, const uint8_t *ru, size_t len);
/* sigaltstack's stack_t: {ss_sp=..., ss_flags=SS_DISABLE, ss_size=...} */
void syscalls_print_stack(struct syscalls_buf *b, const uint8_t *ss, size_t len);
/* struct itimerspec, struct itimerval: {it_interval={...}, it_value={...}} */
void syscalls_print_itimerspec(struct syscalls_buf *b, const uint8_t *p, size_t len);
void syscalls_print_itimerval(struct syscalls_buf *b, const uint8_t *p, size_t len);
/* struct sigevent: {sigev_signo=SIGALRM, sigev_notify=SIGEV_SIGNAL} ... */
void syscalls_print_sigevent(struct syscalls_buf *b, const uint8_t *p, size_t len);
/* struct flock: {l_type=F_RDLCK, l_whence=SEEK_SET, l_start=0, l_len=10} (with l_pid: getlk 1) */
void syscalls_print_flock(struct syscalls_buf *b, const uint8_t *p, size_t len, int getlk);
/* struct tms: each clock_t with its seconds in a comment, as strace */
void syscalls_print_tms(struct syscalls_buf *b, const uint8_t *p, size_t len);
/* A socket option's name in its level ("SO_REUSEADDR", "TCP_NODELAY"; an
 * unknown one in hex with strace's SO_??? comment) */
void syscalls_print_sockopt_name(struct syscalls_buf *b, int level, int name);
/* A socket option's value: len bytes of which val holds vlen (NULL: none
 * recorded, addr printed), [int], {l_onoff=...}, or a string of at most
 * strsize bytes.  get: getsockopt's (SO_PEERCRED decoded; the SOL_SOCKET
 * int options of setsockopt print their first int whatever the length). */
void syscalls_print_sockopt_value(struct syscalls_buf *b, int level, int name, uint64_t addr, const uint8_t *val,
                                  size_t vlen, int64_t len, uint32_t strsize, int hex, int get);

#endif
