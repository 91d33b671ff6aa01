/*
 * cat-syscall-desc.h - what tr-rec-strace captures and tr-cat prints for each
 * syscall: one table shared by the recorder (which bytes to copy out of the
 * tracee, and when) and the renderer (how to print them like strace).
 *
 * A descriptor's args string has one character per argument:
 *   d int          i long (signed)    u unsigned decimal   x hex ("0" for 0)
 *   p address      f fd               a dirfd (AT_FDCWD)    o octal
 *   s path (entry, whole)             S string (entry, -s bytes)
 *   w input buffer, length = next argument (entry)
 *   r output buffer, length = return value (exit)
 *   R same, always printed in hex (getrandom)
 *   n output path, NUL-terminated (exit, getcwd)
 *   A argv (entry)    E envp (entry: count only)
 *   O open flags      M mode (octal; after O only with O_CREAT/O_TMPFILE)
 *   P mmap prot       m mmap flags      G signal number   X access mode
 *   Z AT_* flags      W lseek whence    V madvise advice  L rlimit resource
 *   l struct rlimit (entry)             k struct rlimit (exit)
 *   q sigset (entry)  Q sigset (exit)   h sigprocmask how
 *   c struct sigaction (entry)          C struct sigaction (exit)
 *   t struct timespec (entry)           e struct timespec (exit)
 *   T struct stat (exit)                U struct utsname (exit)
 *   I int[2] (exit, pipe)               N int wait status (exit)
 *   Y directory entries (exit: count)   H wait4 options
 *   F socket family   K socket type and flags   z struct sockaddr (entry, length next)
 *   g getrandom flags j clock id        y clock_nanosleep flags (TIMER_ABSTIME)
 *   3 struct timespec at exit, only when interrupted (EINTR: the remaining time)
 *   7 struct statfs (exit)  6 struct sysinfo (exit)  5 cpu set (exit, ret bytes)
 *   4 gid_t array (exit, ret entries)  8 struct pollfd array (entry, revents at exit)
 *   9 iovec array with data (entry)  0 iovec array with data (exit, ret bytes in all)
 *   $ MSG_* flags  % struct sockaddr (exit, length from the next argument's socklen)
 *   & socklen_t in and out ("[IN => OUT]")
 *   ! epoll_ctl op   ^ struct epoll_event (entry, not for EPOLL_CTL_DEL)
 *   ~ struct epoll_event array (exit, ret entries)   @ CLOEXEC and NONBLOCK flags named by the call
 *   # socket protocol (by the family in argument 0)
 *   1 O_* flags without access mode (pipe2, dup3)
 *   b statx mask      B struct statx (exit)  D fadvise advice
 * A descriptor whose args is "*" is decoded by a special case in both programs
 * (clone, clone3, futex, fcntl, ioctl, arch_prctl); nargs gives its arity.
 * ret: 'd' decimal, 'x' hex, 'o' octal, 'f' fd, '?' never returns.
 */
#ifndef CAT_SYSCALL_DESC_H
#define CAT_SYSCALL_DESC_H

#include <stdint.h>
#include <stddef.h>

/* strace's syscall classes (-e trace=%file ...) */
enum {
    SC_FILE = 1u << 0, SC_DESC = 1u << 1, SC_NETWORK = 1u << 2, SC_PROCESS = 1u << 3,
    SC_MEMORY = 1u << 4, SC_SIGNAL = 1u << 5, SC_IPC = 1u << 6, SC_CREDS = 1u << 7,
    SC_CLOCK = 1u << 8, SC_STAT = 1u << 9, SC_LSTAT = 1u << 10, SC_FSTAT = 1u << 11,
    SC_STAT_LIKE = 1u << 12, SC_STATFS = 1u << 13, SC_FSTATFS = 1u << 14,
    SC_STATFS_LIKE = 1u << 15, SC_PURE = 1u << 16,
};

struct sc_desc {
    const char *name;
    uint32_t classes;  /* SC_* */
    uint8_t nargs;
    const char *args;  /* one type character per argument, or "*" */
    char ret;
};

/* The descriptor of a syscall name, or NULL. */
const struct sc_desc *sc_desc_find(const char *name);
/* The class named name ("file", "%file", "desc" ...), 0 if unknown. */
uint32_t sc_class_from_name(const char *name);
/* Iterate all descriptors: i from 0 while it returns non-NULL. */
const struct sc_desc *sc_desc_at(size_t i);
/* The argument type character of argument i (x when unknown or special). */
char sc_arg_type(const struct sc_desc *d, unsigned i);

#endif
