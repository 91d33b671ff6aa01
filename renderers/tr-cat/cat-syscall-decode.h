/*
 * cat-syscall-decode.h - strace's spelling of syscall arguments: quoted
 * strings, flag sets, constants, signals, errno names and common structs,
 * formatted into a growable string.
 */
#ifndef CAT_SYSCALL_DECODE_H
#define CAT_SYSCALL_DECODE_H

#include <stddef.h>
#include <stdint.h>

struct sb {
    char *p;
    size_t len, cap;
};
void sb_reset(struct sb *b);
void sb_free(struct sb *b);
void sb_putc(struct sb *b, char c);
void sb_put(struct sb *b, const char *s, size_t n);
void sb_puts(struct sb *b, const char *s);
void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct xlat {
    uint64_t val;
    const char *name;
};
#define XEND { 0, NULL }

/* Tables (terminated by XEND) */
extern const struct xlat x_open_access[], x_open_flags[], x_mmap_prot[], x_mmap_flags[],
    x_mmap_type[], x_clone_flags[], x_at_flags[], x_access_modes[], x_whence[], x_madvise[],
    x_rlimit[], x_sigprocmask[], x_af[], x_sock_type[], x_sock_flags[], x_fcntl_cmds[],
    x_fd_flags[], x_grnd[], x_clocks[], x_futex_ops[], x_wait_opts[], x_arch_prctl[],
    x_sa_flags[], x_statx_mask[], x_fadvise[], x_msg_flags[], x_ioctl[], x_timer_flags[], x_sa_handler[];

/* A constant: its name, or dflt printed as a number (fmt "%llu", "%#llx"). */
void print_xval(struct sb *b, const struct xlat *x, uint64_t v, const char *dflt_fmt);
/* A flag set: names joined by '|', leftover bits as hex, 0 as zero_str. */
void print_flags(struct sb *b, const struct xlat *x, uint64_t v, const char *zero_str);

/* Strings.  hex: cat_opts.hex (0, 1 -x, 2 -xx); force_hex for getrandom. */
void print_quoted(struct sb *b, const uint8_t *s, size_t len, int hex, int force_hex);
void print_addr(struct sb *b, uint64_t a); /* NULL or 0x... */

/* Signals: "SIGCHLD" or a number */
const char *signal_name(int sig);
void print_signal(struct sb *b, int sig);
/* sigset as strace: [], [CHLD TERM], ~[RTMIN RT_1] */
void print_sigset(struct sb *b, const uint8_t *set, size_t len);
/* errno name ("ENOENT") or NULL, and its message */
const char *errno_name(int e);
const char *errno_message(int e);

/* Structs (data as captured from the tracee) */
void print_stat(struct sb *b, const uint8_t *st, size_t len);
void print_timespec(struct sb *b, const uint8_t *ts, size_t len);
void print_rlimit(struct sb *b, const uint8_t *rl, size_t len);
void print_sigaction(struct sb *b, const uint8_t *sa, size_t len);
void print_sockaddr(struct sb *b, const uint8_t *sa, size_t len);
void print_statx(struct sb *b, const uint8_t *st, size_t len);
void print_statfs(struct sb *b, const uint8_t *st, size_t len);
void print_sysinfo(struct sb *b, const uint8_t *si, size_t len);
void print_cpuset(struct sb *b, const uint8_t *set, size_t len);
/* pollfd array: events at entry, revents (only set ones) at exit */
void print_pollfds(struct sb *b, const uint8_t *p, size_t len, int revents);
/* the iovec capture of tr-rec-strace (see capture.c); total: bytes of data valid, -1: iov_len */
void print_iov(struct sb *b, const uint8_t *p, size_t len, uint64_t count, uint32_t strsize, int hex);
void print_socket_protocol(struct sb *b, int family, int proto);
void print_termios(struct sb *b, const uint8_t *t, size_t len);
void print_winsize(struct sb *b, const uint8_t *w, size_t len);
/* epoll_event array (packed: u32 events, u64 data) */
void print_epoll_events(struct sb *b, const uint8_t *p, size_t len, int array);
/* O_CLOEXEC/O_NONBLOCK style flags with the prefix of the call (EPOLL_, EFD_, SFD_, TFD_, IN_) */
void print_cloexec_flags(struct sb *b, const char *syscall, uint64_t v);
void print_utsname(struct sb *b, const uint8_t *u, size_t len);
void print_wait_status(struct sb *b, int status);
void print_siginfo(struct sb *b, const uint8_t *si, size_t len);
void print_mode(struct sb *b, uint32_t mode); /* 0644, with S_IF* when type bits set */

#endif
