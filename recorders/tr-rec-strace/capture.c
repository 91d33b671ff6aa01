/* capture.c - see capture.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture.h"

#define PATH_CAP 4096
#define ARGV_MAX 4096   /* argv elements recorded */
#define ENVP_MAX 65536  /* envp entries counted */
#define DIRENT_MAX (1u << 20)

static size_t peek_read(pid_t tid, uint64_t addr, uint8_t *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        uint64_t a = (addr + done) & ~7ull;
        errno = 0;
        long w = ptrace(PTRACE_PEEKDATA, tid, (void *)a, NULL);
        if (w == -1 && errno)
            break;
        size_t skip = (size_t)(addr + done - a);
        size_t n = 8 - skip;
        if (n > len - done)
            n = len - done;
        memcpy(buf + done, (uint8_t *)&w + skip, n);
        done += n;
    }
    return done;
}

size_t mem_read(pid_t tid, uint64_t addr, void *buf, size_t len)
{
    size_t done = 0;
    if (!addr || !len)
        return 0;
    /* page by page, so that a readable prefix is still returned */
    while (done < len) {
        uint64_t a = addr + done;
        size_t chunk = 4096 - (size_t)(a & 4095);
        if (chunk > len - done)
            chunk = len - done;
        struct iovec local = { (uint8_t *)buf + done, chunk };
        struct iovec remote = { (void *)a, chunk };
        ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == ENOSYS)
                return done + peek_read(tid, a, (uint8_t *)buf + done, len - done);
            break;
        }
        done += (size_t)n;
        if ((size_t)n < chunk)
            break;
    }
    return done;
}

long mem_read_str(pid_t tid, uint64_t addr, char *buf, size_t max, int *complete)
{
    size_t done = 0;
    *complete = 0;
    if (!addr)
        return -1;
    while (done < max) {
        uint64_t a = addr + done;
        size_t chunk = 4096 - (size_t)(a & 4095);
        if (chunk > 256)
            chunk = 256 - (size_t)(a & 255); /* strings are short: read little at a time */
        if (chunk > max - done)
            chunk = max - done;
        size_t n = mem_read(tid, a, buf + done, chunk);
        if (n == 0)
            return done ? (long)done : -1;
        char *nul = memchr(buf + done, 0, n);
        if (nul) {
            *complete = 1;
            return (long)(nul - buf);
        }
        done += n;
        if (n < chunk)
            return (long)done;
    }
    /* exactly max bytes: complete if the next byte is the NUL */
    char c;
    if (mem_read(tid, addr + max, &c, 1) == 1 && c == 0)
        *complete = 1;
    return (long)done;
}

long fd_path(pid_t tid, long fd, char *buf, size_t len)
{
    char link[64];
    if ((fd < 0 && fd != -100) || len < 2)
        return -1;
    if (fd == -100) /* AT_FDCWD */
        snprintf(link, sizeof link, "/proc/%d/cwd", (int)tid);
    else
        snprintf(link, sizeof link, "/proc/%d/fd/%ld", (int)tid, fd);
    ssize_t n = readlink(link, buf, len - 1);
    if (n < 0)
        return -1;
    buf[n] = 0;
    return n;
}

static void cap_string(struct tracee *tr, uint32_t arg, uint64_t addr, size_t max, uint32_t exitf)
{
    if (!addr)
        return;
    uint8_t *p = tracee_cap_begin(tr, max + 1);
    if (!p)
        return;
    int complete;
    long n = mem_read_str(tr->tid, addr, (char *)p, max, &complete);
    if (n < 0)
        tracee_cap_end(tr, arg, TR_CAP_STRING, exitf | TR_CAPF_FAULT, NULL, 0);
    else
        tracee_cap_end(tr, arg, TR_CAP_STRING, exitf | (complete ? 0 : TR_CAPF_TRUNCATED), NULL,
                       (size_t)n);
}

static void cap_buffer(struct tracee *tr, uint32_t arg, uint64_t addr, uint64_t len,
                       size_t max, uint32_t exitf)
{
    if (!addr)
        return;
    size_t want = len < max ? (size_t)len : max;
    uint8_t *p = tracee_cap_begin(tr, want);
    if (!p)
        return;
    size_t n = mem_read(tr->tid, addr, p, want);
    uint32_t fl = exitf;
    if (n < want && n == 0)
        fl |= TR_CAPF_FAULT;
    if (len > n)
        fl |= TR_CAPF_TRUNCATED;
    tracee_cap_end(tr, arg, TR_CAP_BUFFER, fl, NULL, n);
}

static void cap_struct(struct tracee *tr, uint32_t arg, uint64_t addr, size_t size,
                       const char *sname, uint32_t exitf)
{
    if (!addr)
        return;
    uint8_t *p = tracee_cap_begin(tr, size);
    if (!p)
        return;
    size_t n = mem_read(tr->tid, addr, p, size);
    tracee_cap_end(tr, arg, TR_CAP_STRUCT, exitf | (n < size ? TR_CAPF_FAULT : 0), sname,
                   n == size ? n : 0);
}

static void cap_u32(struct tracee *tr, uint32_t arg, uint32_t v, const char *sname, uint32_t exitf)
{
    uint8_t *p = tracee_cap_begin(tr, 4);
    if (!p)
        return;
    memcpy(p, &v, 4);
    tracee_cap_end(tr, arg, TR_CAP_STRUCT, exitf, sname, 4);
}

static void cap_fd(struct tracee *tr, uint32_t arg, int64_t fd, uint32_t exitf)
{
    char path[PATH_CAP];
    long n = fd_path(tr->tid, (long)fd, path, sizeof path);
    if (n < 0)
        return;
    uint8_t *p = tracee_cap_begin(tr, (size_t)n);
    if (!p)
        return;
    memcpy(p, path, (size_t)n);
    tracee_cap_end(tr, arg, TR_CAP_FD_PATH, exitf, NULL, (size_t)n);
}

/* argv: up to ARGV_MAX strings of at most strsize+1 bytes, NUL-separated */
static void cap_argv(struct tracee *tr, uint32_t arg, uint64_t addr, uint32_t strsize)
{
    if (!addr)
        return;
    size_t per = (size_t)strsize + 1;
    uint32_t flags = 0;
    size_t total = 0, count = 0;
    uint8_t *p = NULL;
    for (;; count++) {
        uint64_t ptr;
        if (count == ARGV_MAX) {
            flags |= TR_CAPF_TRUNCATED;
            break;
        }
        if (mem_read(tr->tid, addr + 8 * count, &ptr, 8) != 8) {
            flags |= TR_CAPF_FAULT;
            break;
        }
        if (!ptr)
            break;
        p = tracee_cap_begin(tr, total + per + 1);
        if (!p)
            return;
        int complete;
        long n = mem_read_str(tr->tid, ptr, (char *)p + total, per, &complete);
        if (n < 0)
            n = 0;
        p[total + (size_t)n] = 0;
        total += (size_t)n + 1;
    }
    if (!tracee_cap_begin(tr, total))
        return;
    tracee_cap_end(tr, arg, TR_CAP_STRINGS, flags, NULL, total);
}

static void cap_envcount(struct tracee *tr, uint32_t arg, uint64_t addr)
{
    uint64_t ptrs[64];
    uint32_t count = 0;
    if (!addr)
        return;
    while (count < ENVP_MAX) {
        size_t n = mem_read(tr->tid, addr + 8ull * count, ptrs, sizeof ptrs) / 8;
        if (n == 0)
            return; /* unreadable: the address alone is printed */
        size_t i;
        for (i = 0; i < n && ptrs[i]; i++)
            ;
        count += (uint32_t)i;
        if (i < n)
            break;
    }
    cap_u32(tr, arg, count, "count", 0);
}

static void cap_dirent_count(struct tracee *tr, uint32_t arg, uint64_t addr, int64_t ret)
{
    static uint8_t buf[DIRENT_MAX];
    size_t len = (size_t)ret < sizeof buf ? (size_t)ret : sizeof buf;
    size_t n = mem_read(tr->tid, addr, buf, len);
    uint32_t count = 0;
    /* linux_dirent and linux_dirent64 both keep d_reclen at offset 16 */
    for (size_t off = 0; off + 18 <= n; count++) {
        uint16_t reclen;
        memcpy(&reclen, buf + off + 16, 2);
        if (reclen == 0)
            break;
        off += reclen;
    }
    cap_u32(tr, arg, count, "count", TR_CAPF_EXIT);
}

/* iovecs with their data: per element u64 base, u64 len, u32 n, n bytes; at most
 * strsize+1 elements of at most strsize bytes each; total: bytes valid in all (-1: len) */
static void cap_iov(struct tracee *tr, uint32_t arg, uint64_t addr, uint64_t cnt, int64_t total,
                    uint32_t strsize, uint32_t exitf)
{
    if (!addr)
        return;
    uint64_t max = (uint64_t)strsize + 1 < 1024 ? (uint64_t)strsize + 1 : 1024;
    if (cnt > max)
        cnt = max;
    size_t used = 0;
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t v[2];
        if (mem_read(tr->tid, addr + 16 * i, v, 16) != 16)
            break;
        uint64_t valid = v[1];
        if (total >= 0) {
            valid = (uint64_t)total < v[1] ? (uint64_t)total : v[1];
            total -= (int64_t)valid;
        }
        uint32_t n = valid < strsize ? (uint32_t)valid : strsize;
        uint8_t *p = tracee_cap_begin(tr, used + 20 + n);
        if (!p)
            return;
        memcpy(p + used, v, 16);
        uint32_t got = (uint32_t)mem_read(tr->tid, v[0], p + used + 20, n);
        memcpy(p + used + 16, &got, 4);
        used += 20 + got;
    }
    if (!tracee_cap_begin(tr, used))
        return;
    tracee_cap_end(tr, arg, TR_CAP_STRUCT, exitf, "iovec", used);
}

static int is_fd_arg(char t) { return t == 'f' || t == 'a'; }

void capture_entry(struct tracee *tr, const struct sc_desc *d, const char *name,
                   const struct capture_opts *o)
{
    tracee_reset_caps(tr);
    if (!d)
        return;
    const uint64_t *a = tr->args;
    if (d->args[0] == '*') {
        if (strcmp(name, "clone3") == 0)
            cap_struct(tr, 0, a[0], a[1] < 88 ? a[1] : 88, "clone_args", 0);
        else if (strcmp(name, "prctl") == 0 && a[0] == 15) /* PR_SET_NAME */
            cap_string(tr, 1, a[1], 16, 0);
        else if (strcmp(name, "rt_sigreturn") == 0)
            cap_struct(tr, 0, tr->sp + 296, 8, "sigset", 0); /* ucontext.uc_sigmask */
        else if (strcmp(name, "futex") == 0) {
            int op = (int)(a[1] & 0x7f);
            if ((op == 0 || op == 9 || op == 11) && a[3]) /* WAIT, WAIT_BITSET, WAIT_REQUEUE_PI */
                cap_struct(tr, 3, a[3], 16, "timespec", 0);
        } else if (strcmp(name, "ioctl") == 0 || strcmp(name, "fcntl") == 0) {
            if (o->decode_fds)
                cap_fd(tr, 0, (int64_t)a[0], 0);
            uint32_t req = (uint32_t)a[1];
            if (name[0] == 'i' && req >= 0x5402 && req <= 0x5404) /* TCSETS, TCSETSW, TCSETSF */
                cap_struct(tr, 2, a[2], 36, "termios", 0);
            else if (name[0] == 'i' && req == 0x5414) /* TIOCSWINSZ */
                cap_struct(tr, 2, a[2], 8, "winsize", 0);
        }
        return;
    }
    for (unsigned i = 0; i < d->nargs; i++) {
        char t = d->args[i];
        uint64_t next = i + 1 < 6 ? a[i + 1] : 0;
        switch (t) {
        case 's': cap_string(tr, i, a[i], PATH_CAP, 0); break;
        case 'S': cap_string(tr, i, a[i], o->strsize, 0); break;
        case 'w': cap_buffer(tr, i, a[i], next, o->strsize, 0); break;
        case 'A': cap_argv(tr, i, a[i], o->strsize); break;
        case 'E': cap_envcount(tr, i, a[i]); break;
        case 'l': cap_struct(tr, i, a[i], 16, "rlimit", 0); break;
        case 'q': cap_struct(tr, i, a[i], 8, "sigset", 0); break;
        case 'c': cap_struct(tr, i, a[i], 32, "sigaction", 0); break;
        case 't': cap_struct(tr, i, a[i], 16, "timespec", 0); break;
        case 'z': cap_struct(tr, i, a[i], next < 128 ? (size_t)next : 128, "sockaddr", 0); break;
        case '8': cap_struct(tr, i, a[i], 8 * (next < 1024 ? (size_t)next : 1024), "pollfd", 0); break;
        case '9': cap_iov(tr, i, a[i], next, -1, o->strsize, 0); break;
        case '&': cap_struct(tr, i, a[i], 4, "int", 0); break;
        case '^': if (a[1] != 2) cap_struct(tr, i, a[i], 12, "epoll_event", 0); break;
        default:
            if (is_fd_arg(t) && o->decode_fds && ((int32_t)a[i] >= 0 || (t == 'a' && (int32_t)a[i] == -100)))
                cap_fd(tr, i, (int32_t)a[i], 0);
            break;
        }
    }
}

void capture_exit(struct tracee *tr, const struct sc_desc *d, const char *name, int64_t ret,
                  const struct capture_opts *o)
{
    if (!d)
        return;
    const uint64_t *a = tr->args;
    int ok = ret >= 0 || ret < -4095;
    const uint32_t X = TR_CAPF_EXIT;
    if (d->args[0] == '*') {
        if (strcmp(name, "ioctl") == 0 && ok && ret == 0 && (uint32_t)a[1] == 0x5413)
            cap_struct(tr, 2, a[2], 8, "winsize", X); /* TIOCGWINSZ */
        else if (strcmp(name, "ioctl") == 0 && ok && ret == 0 && (uint32_t)a[1] == 0x5401)
            cap_struct(tr, 2, a[2], 36, "termios", X); /* TCGETS */
        else if (strcmp(name, "ioctl") == 0 && ok && ret == 0 &&
                 ((uint32_t)a[1] == 0x541b || (uint32_t)a[1] == 0x540f))
            cap_struct(tr, 2, a[2], 4, "int", X); /* FIONREAD, TIOCGPGRP */
        else if ((strcmp(name, "clone") == 0 && (a[0] & 0x00100000)) && ok && a[2])
            cap_struct(tr, 2, a[2], 4, "int", X); /* CLONE_PARENT_SETTID */
        else if (strcmp(name, "clone3") == 0 && ok && tr->ncaps && tr->buf_len >= 32) {
            uint64_t flags, ptid;
            memcpy(&flags, tr->buf + tr->caps[0].off, 8);
            memcpy(&ptid, tr->buf + tr->caps[0].off + 24, 8);
            if ((flags & 0x00100000) && ptid)
                cap_struct(tr, 1, ptid, 4, "int", X);
        }
        if (strcmp(name, "prctl") == 0 && a[0] == 16 && ok) /* PR_GET_NAME */
            cap_string(tr, 1, a[1], 16, X);
        if (o->decode_fds && ok && strcmp(name, "fcntl") == 0 &&
            ((a[1] == 0 || a[1] == 1030)))
            cap_fd(tr, 6, ret, X); /* F_DUPFD, F_DUPFD_CLOEXEC */
        return;
    }
    for (unsigned i = 0; i < d->nargs; i++) {
        char t = d->args[i];
        switch (t) {
        case 'r':
        case 'R':
            if (ok && ret > 0)
                cap_buffer(tr, i, a[i], (uint64_t)ret, o->strsize, X);
            break;
        case 'n':
            if (ok && ret > 0)
                cap_string(tr, i, a[i], PATH_CAP, X);
            break;
        case 'k': if (ok && ret == 0) cap_struct(tr, i, a[i], 16, "rlimit", X); break;
        case 'Q': if (ok && ret == 0) cap_struct(tr, i, a[i], 8, "sigset", X); break;
        case 'C': if (ok && ret == 0) cap_struct(tr, i, a[i], 32, "sigaction", X); break;
        case 'e': if (ok && ret == 0) cap_struct(tr, i, a[i], 16, "timespec", X); break;
        case '3': if (ret == -4) cap_struct(tr, i, a[i], 16, "timespec", X); break; /* EINTR */
        case 'T': if (ok && ret == 0) cap_struct(tr, i, a[i], 144, "stat", X); break;
        case 'U': if (ok && ret == 0) cap_struct(tr, i, a[i], 390, "utsname", X); break;
        case 'I': if (ok && ret == 0) cap_struct(tr, i, a[i], 8, "fds", X); break;
        case 'N': if (ok && ret > 0) cap_struct(tr, i, a[i], 4, "int", X); break;
        case 'Y':
            if (ok && ret > 0)
                cap_dirent_count(tr, i, a[i], ret);
            else if (ok && ret == 0)
                cap_u32(tr, i, 0, "count", X);
            break;
        case 'B': if (ok && ret == 0) cap_struct(tr, i, a[i], 256, "statx", X); break;
        case '7': if (ok && ret == 0) cap_struct(tr, i, a[i], 120, "statfs", X); break;
        case '6': if (ok && ret == 0) cap_struct(tr, i, a[i], 112, "sysinfo", X); break;
        case '5': if (ok && ret > 0) cap_struct(tr, i, a[i], ret < 128 ? (size_t)ret : 128, "cpuset", X); break;
        case '4': {
            uint64_t n = i > 0 && a[i - 1] < (uint64_t)ret ? a[i - 1] : (uint64_t)ret;
            if (ok && ret > 0 && n)
                cap_struct(tr, i, a[i], 4 * (size_t)(n < 1024 ? n : 1024), "gids", X);
            break;
        }
        case '8': if (ok && ret > 0) cap_struct(tr, i, a[i], 8 * (a[i + 1] < 1024 ? (size_t)a[i + 1] : 1024), "pollfd", X); break;
        case '0': if (ok && ret >= 0) cap_iov(tr, i, a[i], a[i + 1], ret, o->strsize, X); break;
        case '&': if (ok) cap_struct(tr, i, a[i], 4, "int", X); break;
        case '~': if (ok && ret > 0) cap_struct(tr, i, a[i], 12 * (size_t)(ret < 1024 ? ret : 1024), "epoll_event", X); break;
        case '%': {
            uint32_t sl;
            if (ok && a[i] && i + 1 < 6 && mem_read(tr->tid, a[i + 1], &sl, 4) == 4)
                cap_struct(tr, i, a[i], sl < 128 ? sl : 128, "sockaddr", X);
            break;
        }
        default: break;
        }
    }
    if (o->decode_fds && ok && d->ret == 'f')
        cap_fd(tr, 6, ret, X);
    if (o->decode_fds && ok && ret == 0 && strchr(d->args, 'I')) {
        /* pipe, pipe2, socketpair: the new fds' paths */
        unsigned i = (unsigned)(strchr(d->args, 'I') - d->args);
        int fds[2];
        if (mem_read(tr->tid, a[i], fds, 8) == 8) {
            cap_fd(tr, 6, fds[0], X);
            cap_fd(tr, 7, fds[1], X);
        }
    }
}
