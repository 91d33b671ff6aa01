/* capture.c - see capture.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture.h"

#define PATH_CAP PATH_MAX
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
    if ((fd < 0 && fd != AT_FDCWD) || len < 2)
        return -1;
    if (fd == AT_FDCWD)
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

/* The protocol (NETLINK_ROUTE ...) of netlink socket fd, from /proc/TID/net/netlink
 * by the socket's inode: TR_CAP_STRUCT "nlproto" (an int) for argument 0 */
static void cap_netlink_proto(struct tracee *tr, int fd, uint32_t exitf)
{
    char link[64], path[64], line[256];
    unsigned long long ino, want;
    int proto;
    if (fd_path(tr->tid, fd, path, sizeof path) < 0 || sscanf(path, "socket:[%llu]", &want) != 1)
        return;
    snprintf(link, sizeof link, "/proc/%d/net/netlink", (int)tr->tid);
    FILE *f = fopen(link, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%*s %d %*s %*s %*s %*s %*s %*s %*s %llu", &proto, &ino) == 2 && ino == want) {
            cap_u32(tr, 0, (uint32_t)proto, "nlproto", exitf);
            break;
        }
    fclose(f);
}

/* 1 when sendto (its address argument i, its buffer and length the first two
 * before, the buffer captured) may send netlink messages: to an AF_NETLINK
 * address, or to none with a buffer that begins as a netlink message does (its
 * nlmsg_len from 16 to the length): the socket's protocol is looked up only then */
static int netlink_dest(struct tracee *tr, const uint64_t *a, unsigned i)
{
    sa_family_t fam = 0;
    uint32_t nlmsg_len = 0;
    if (i < 3 || i + 1 >= 6)
        return 0;
    if (a[i])
        return a[i + 1] >= sizeof fam && mem_read(tr->tid, a[i], &fam, sizeof fam) == sizeof fam && fam == AF_NETLINK;
    for (uint32_t k = 0; k < tr->ncaps; k++)
        if (tr->caps[k].arg == i - 3 && tr->caps[k].kind == TR_CAP_BUFFER && tr->caps[k].len >= sizeof nlmsg_len)
            memcpy(&nlmsg_len, tr->buf + tr->caps[k].off, sizeof nlmsg_len);
    return nlmsg_len >= 16 && nlmsg_len <= a[i - 2];
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
    /* linux_dirent and linux_dirent64 both keep d_reclen where dirent64 has it */
    const size_t at = offsetof(struct dirent64, d_reclen);
    for (size_t off = 0; off + at + 2 <= n; count++) {
        uint16_t reclen;
        memcpy(&reclen, buf + off + at, 2);
        if (reclen == 0)
            break;
        off += reclen;
    }
    cap_u32(tr, arg, count, "count", TR_CAPF_EXIT);
}

/* Appends to the capture begun at tr's buffer, which holds *used bytes: iovecs
 * with their data, per element u64 base, u64 len, u32 n, n bytes; at most
 * strsize+1 elements of at most strsize bytes each; total: bytes valid in all
 * (-1: len).  0, or -1 when out of memory. */
static int append_iov(struct tracee *tr, size_t *used, uint64_t addr, uint64_t cnt, int64_t total, uint32_t strsize)
{
    uint64_t max = (uint64_t)strsize + 1 < 1024 ? (uint64_t)strsize + 1 : 1024;
    if (!addr)
        return 0;
    if (cnt > max)
        cnt = max;
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
        uint8_t *p = tracee_cap_begin(tr, *used + 20 + n);
        if (!p)
            return -1;
        memcpy(p + *used, v, 16);
        uint32_t got = (uint32_t)mem_read(tr->tid, v[0], p + *used + 20, n);
        memcpy(p + *used + 16, &got, 4);
        *used += 20 + got;
    }
    return 0;
}

static void cap_iov(struct tracee *tr, uint32_t arg, uint64_t addr, uint64_t cnt, int64_t total,
                    uint32_t strsize, uint32_t exitf)
{
    size_t used = 0;
    if (addr && append_iov(tr, &used, addr, cnt, total, strsize) == 0 && tracee_cap_begin(tr, used))
        tracee_cap_end(tr, arg, TR_CAP_STRUCT, exitf, "iovec", used);
}

/* Appends u32 n and n bytes read at addr (n = min(len, max)); 0, or -1 when out of memory */
static int append_sized(struct tracee *tr, size_t *used, uint64_t addr, uint64_t len, size_t max)
{
    uint32_t n = addr ? (uint32_t)(len < max ? len : max) : 0;
    uint8_t *p = tracee_cap_begin(tr, *used + 4 + n);
    if (!p)
        return -1;
    n = (uint32_t)mem_read(tr->tid, addr, p + *used + 4, n);
    memcpy(p + *used, &n, 4);
    *used += 4 + n;
    return 0;
}

/* count messages (struct msghdr when one is the whole argument, else struct
 * mmsghdr), each as syscalls_decode.h's "msghdr" layout: its struct mmsghdr,
 * the name, the iovecs with their data (received: only ret bytes for recvmsg,
 * msg_len for each of recvmmsg's), the control buffer.  The netlink protocol of the fd
 * (arg 0) follows when a name is an AF_NETLINK address. */
static void cap_msghdr(struct tracee *tr, uint32_t arg, uint64_t addr, uint64_t count, int mmsg, int received,
                       int64_t ret, uint32_t strsize, uint32_t exitf)
{
    size_t used = 0;
    int netlink = 0;
    if (!addr)
        return;
    for (uint64_t i = 0; i < count; i++) {
        struct mmsghdr mm;
        memset(&mm, 0, sizeof mm);
        size_t size = mmsg ? sizeof mm : sizeof mm.msg_hdr;
        if (mem_read(tr->tid, addr + i * size, &mm, size) != size)
            break;
        uint8_t *p = tracee_cap_begin(tr, used + sizeof mm);
        if (!p)
            return;
        memcpy(p + used, &mm, sizeof mm);
        used += sizeof mm;
        const struct msghdr *m = &mm.msg_hdr;
        int64_t total = !received ? -1 : mmsg ? (int64_t)mm.msg_len : ret;
        size_t at_name = used;
        if (append_sized(tr, &used, (uint64_t)(uintptr_t)m->msg_name, m->msg_namelen,
                         sizeof(struct sockaddr_storage)) < 0 || !tracee_cap_begin(tr, used + 4))
            return;
        sa_family_t fam = 0;
        if (used - at_name - 4 >= sizeof fam)
            memcpy(&fam, tr->buf + tr->buf_len + at_name + 4, sizeof fam);
        netlink |= fam == AF_NETLINK;
        size_t at_iov = used;
        used += 4;
        if (append_iov(tr, &used, (uint64_t)(uintptr_t)m->msg_iov, m->msg_iovlen, total, strsize) < 0)
            return;
        uint32_t iov = (uint32_t)(used - at_iov - 4);
        memcpy(tr->buf + tr->buf_len + at_iov, &iov, 4);
        if (append_sized(tr, &used, (uint64_t)(uintptr_t)m->msg_control, m->msg_controllen,
                         SYSCALLS_MSG_CONTROL_MAX) < 0)
            return;
    }
    tracee_cap_end(tr, arg, TR_CAP_STRUCT, exitf, "msghdr", used);
    if (netlink)
        cap_netlink_proto(tr, (int)tr->args[0], exitf);
}

/* 1 when capture c is taken for a call with arguments a that returned ret (at exit) */
static int capture_due(const struct syscall_capture *c, const uint64_t *a, int64_t ret)
{
    int ok = ret >= 0 || ret < -4095;
    switch (c->cond) {
    case SYSCALL_IF_OK: return ok;
    case SYSCALL_IF_RET_ZERO: return ok && ret == 0;
    case SYSCALL_IF_RET_POSITIVE: return ok && ret > 0;
    case SYSCALL_IF_RET_NONNEG: return ok && ret >= 0;
    case SYSCALL_IF_EINTR: return ret == -EINTR;
    case SYSCALL_IF_EPOLL_OP_NOT_DEL: return a[1] != EPOLL_CTL_DEL;
    default: return 1;
    }
}

/* Copy argument i as c says; at_exit with the return value ret. */
static void capture_arg(struct tracee *tr, unsigned i, const struct syscall_capture *c, int at_exit,
                        int64_t ret, const struct capture_opts *o)
{
    const uint64_t *a = tr->args;
    uint64_t next = i + 1 < 6 ? a[i + 1] : 0;
    uint32_t exitf = at_exit ? TR_CAPF_EXIT : 0;
    if (!capture_due(c, a, ret))
        return;
    switch (c->what) {
    case SYSCALL_CAPTURE_STRING:
        cap_string(tr, i, a[i], c->size ? c->size : o->strsize, exitf);
        break;
    case SYSCALL_CAPTURE_BUFFER:
        cap_buffer(tr, i, a[i], c->count == SYSCALL_COUNT_RET ? (uint64_t)ret : next, o->strsize, exitf);
        break;
    case SYSCALL_CAPTURE_ARGV: cap_argv(tr, i, a[i], o->strsize); break;
    case SYSCALL_CAPTURE_ENV_COUNT: cap_envcount(tr, i, a[i]); break;
    case SYSCALL_CAPTURE_DIRENT_COUNT: cap_dirent_count(tr, i, a[i], ret); break;
    case SYSCALL_CAPTURE_IOVEC: cap_iov(tr, i, a[i], next, at_exit ? ret : -1, o->strsize, exitf); break;
    case SYSCALL_CAPTURE_MSGHDR: {
        uint64_t n = c->count == SYSCALL_COUNT_NEXT_ARG ? next : c->count == SYSCALL_COUNT_RET ? (uint64_t)ret : 1;
        cap_msghdr(tr, i, a[i], n < c->max ? n : c->max, c->count != SYSCALL_COUNT_ONE,
                   at_exit && c->count != SYSCALL_COUNT_NEXT_ARG, ret, o->strsize, exitf);
        break;
    }
    case SYSCALL_CAPTURE_MSGHDR_HEAD: cap_struct(tr, i, a[i], sizeof(struct msghdr), "msghdr_head", exitf); break;
    case SYSCALL_CAPTURE_STRUCT: {
        uint64_t n = 1;
        switch (c->count) {
        case SYSCALL_COUNT_NEXT_ARG: n = next; break;
        case SYSCALL_COUNT_RET: n = (uint64_t)ret; break;
        case SYSCALL_COUNT_PREV_ARG_AND_RET:
            n = i > 0 && a[i - 1] < (uint64_t)ret ? a[i - 1] : (uint64_t)ret;
            if (!n)
                return;
            break;
        case SYSCALL_COUNT_FDSET: n = ((a[0] & 0xffffffffu) + 63) / 64 * 8; break;
        case SYSCALL_COUNT_NEXT_ARG_SOCKLEN: {
            uint32_t sl;
            if (!a[i] || i + 1 >= 6 || mem_read(tr->tid, next, &sl, sizeof sl) != sizeof sl)
                return;
            n = sl;
            break;
        }
        default: break;
        }
        if (c->count != SYSCALL_COUNT_ONE && n > c->max)
            n = c->max;
        cap_struct(tr, i, a[i], (size_t)n * c->size, c->struct_name, exitf);
        break;
    }
    default: break;
    }
}

/* The captures of a call its family decodes (model/syscalls.h says which). */
static void capture_family(struct tracee *tr, const struct syscall_desc *d, int at_exit, int64_t ret,
                           const struct capture_opts *o)
{
    struct syscall_family_capture fc[SYSCALLS_FAMILY_CAPTURES_MAX];
    const uint8_t *entry = at_exit && tr->ncaps ? tr->buf + tr->caps[0].off : NULL;
    int n = syscalls_family_captures(d, tr->args, tr->sp, at_exit, ret, entry, entry ? tr->caps[0].len : 0, fc);
    uint32_t exitf = at_exit ? TR_CAPF_EXIT : 0;
    for (int i = 0; i < n; i++) {
        const struct syscall_family_capture *f = &fc[i];
        if (f->c.what == SYSCALL_CAPTURE_STRING)
            cap_string(tr, f->arg, f->value, f->c.size, exitf);
        else if (f->c.what == SYSCALL_CAPTURE_STRUCT)
            cap_struct(tr, f->arg, f->value, f->c.size, f->c.struct_name, exitf);
        else if (f->c.what == SYSCALL_CAPTURE_FD_PATH && o->decode_fds)
            cap_fd(tr, f->arg, (int64_t)f->value, exitf);
    }
}

void capture_entry(struct tracee *tr, const struct syscall_desc *d, const struct capture_opts *o)
{
    tracee_reset_caps(tr);
    if (!d)
        return;
    const uint64_t *a = tr->args;
    if (!syscalls_by_args(d)) {
        capture_family(tr, d, 0, 0, o);
        return;
    }
    for (unsigned i = 0; i < d->nargs; i++) {
        enum syscall_arg k = (enum syscall_arg)d->args[i];
        const struct syscall_arg_info *info = syscalls_arg_info(k);
        if (info->entry.what)
            capture_arg(tr, i, &info->entry, 0, 0, o);
        else if (info->fd && o->decode_fds &&
                 ((int32_t)a[i] >= 0 || (k == SYSCALL_ARG_DIRFD && (int32_t)a[i] == AT_FDCWD)))
            cap_fd(tr, i, (int32_t)a[i], 0);
        if (k == SYSCALL_ARG_SOCKADDR_IN && netlink_dest(tr, a, i))
            cap_netlink_proto(tr, (int)a[0], 0); /* sendto's netlink messages are decoded by their protocol */
    }
}

void capture_exit(struct tracee *tr, const struct syscall_desc *d, int64_t ret, const struct capture_opts *o)
{
    if (!d)
        return;
    const uint64_t *a = tr->args;
    int ok = ret >= 0 || ret < -4095;
    const uint32_t X = TR_CAPF_EXIT;
    if (!syscalls_by_args(d)) {
        capture_family(tr, d, 1, ret, o);
        return;
    }
    int pipefds = -1;
    for (unsigned i = 0; i < d->nargs; i++) {
        const struct syscall_arg_info *info = syscalls_arg_info((enum syscall_arg)d->args[i]);
        if (info->exit.what)
            capture_arg(tr, i, &info->exit, 1, ret, o);
        if (d->args[i] == SYSCALL_ARG_PIPEFDS_OUT && pipefds < 0)
            pipefds = (int)i;
    }
    if (o->decode_fds && ok && d->ret == SYSCALL_RET_FD)
        cap_fd(tr, 6, ret, X);
    if (o->decode_fds && ok && ret == 0 && pipefds >= 0) {
        /* pipe, pipe2, socketpair: the new fds' paths */
        int fds[2];
        if (mem_read(tr->tid, a[pipefds], fds, sizeof fds) == sizeof fds) {
            cap_fd(tr, 6, fds[0], X);
            cap_fd(tr, 7, fds[1], X);
        }
    }
}
