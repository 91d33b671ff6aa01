/* dec.c - calls whose arguments strace decodes beyond numbers and addresses: times
 * with their dates, resource usage, signal stacks, extended attributes, rename
 * flags, socket options, statx masks, clone3 and clone as a spawn and a fork make
 * them.  Every value is the same in every run (getrusage of children before any). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

extern char **environ;

int main(void)
{
    int fd = open("f1", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    struct timespec ts[2] = { { 1, 2 }, { 0, UTIME_OMIT } }, now[2] = { { 0, UTIME_NOW }, { 86400 * 365, 0 } };
    utimensat(AT_FDCWD, "f1", ts, 0);
    utimensat(AT_FDCWD, "f1", now, AT_SYMLINK_NOFOLLOW);
    futimens(fd, NULL);
    struct timeval tv[2] = { { 10, 20 }, { 1700000000, 999999 } };
    utimes("f1", tv);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    getrusage(42, &ru);
    stack_t ss = { .ss_sp = malloc(65536), .ss_size = 65536 }, old;
    sigaltstack(&ss, &old);
    sigaltstack(NULL, &old);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    char buf[64];
    fsetxattr(fd, "user.a", "value", 5, XATTR_CREATE);
    setxattr("f1", "user.b", "a longer value\n\1 than the string limit shows", 45, XATTR_REPLACE);
    setxattr("f1", "user.b", "v2", 2, 0);
    fgetxattr(fd, "user.a", buf, sizeof buf);
    getxattr("f1", "user.b", buf, sizeof buf);
    getxattr("f1", "user.none", buf, sizeof buf);
    listxattr("f1", buf, sizeof buf);
    listxattr("f1", NULL, 0);
    flistxattr(fd, buf, 0); /* the size of the list: its address, not "" */
    syscall(SYS_renameat2, AT_FDCWD, "f1", AT_FDCWD, "f2", RENAME_NOREPLACE);
    syscall(SYS_renameat2, AT_FDCWD, "f2", AT_FDCWD, "f1", 0);
    syscall(SYS_renameat2, AT_FDCWD, "f1", AT_FDCWD, "f1", RENAME_EXCHANGE | RENAME_WHITEOUT | 0x100);
    int s = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET6, SOCK_DGRAM, 0), one = 1, v = 0;
    socklen_t l = sizeof v;
    struct linger lg = { 1, 5 };
    struct timeval to = { 2, 5 };
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &to, sizeof to);
    setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, 2);
    setsockopt(s, SOL_SOCKET, 999, &one, 4);
    setsockopt(s, 12345, 2, &one, 4);
    setsockopt(s, IPPROTO_IP, IP_TOS, &one, 4);
    setsockopt(u, IPPROTO_IPV6, IPV6_V6ONLY, &one, 4);
    getsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &l);
    getsockopt(s, SOL_SOCKET, SO_ERROR, &v, &l);
    getsockopt(s, IPPROTO_TCP, TCP_NODELAY, &v, &l);
    l = 2;
    getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &l);
    l = sizeof buf;
    getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, buf, &l);
    l = sizeof buf;
    getsockopt(s, SOL_SOCKET, SO_PEERCRED, buf, &l);
    l = sizeof buf;
    getsockopt(s, SOL_SOCKET, SO_LINGER, buf, &l);
    l = sizeof buf;
    getsockopt(s, IPPROTO_TCP, TCP_CONGESTION, buf, &l);
    l = 4;
    getsockopt(s, SOL_SOCKET, SO_DOMAIN, NULL, &l);
    getsockopt(s, SOL_SOCKET, SO_DOMAIN, buf, NULL);
    struct statx stx;
    statx(AT_FDCWD, "f1", 0, STATX_BASIC_STATS, &stx);
    statx(AT_FDCWD, "f1", AT_SYMLINK_NOFOLLOW, STATX_ALL, &stx);
    statx(AT_FDCWD, "f1", 0, STATX_TYPE | STATX_SIZE, &stx);
    pid_t p;
    char *argv[] = { "/bin/true", NULL };
    posix_spawn(&p, "/bin/true", NULL, NULL, argv, environ); /* clone3 CLONE_VM|CLONE_VFORK */
    waitpid(p, NULL, 0);
    if ((p = fork()) == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    unlink("f1");
    return 0;
}
