/* syscalls_decode.c - strace's spelling of arguments (see syscalls_decode.h).
 * Tables list names in strace's order for x86_64; their values are the
 * headers' constants: here those the C library's headers define the same as
 * the kernel (sockets, terminals, file types), in syscalls_xlat.c those only
 * the kernel's headers have right. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <sys/times.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <poll.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "syscalls.h"
#include "syscalls_decode.h"

/* the kernel's, which the C library's headers lack */
#ifndef MSG_PROBE
#define MSG_PROBE 0x10
#endif
#ifndef SCM_SECURITY
#define SCM_SECURITY 0x03
#endif
#ifndef SCM_PIDFD
#define SCM_PIDFD 0x04
#endif
#ifndef BOTHER
#define BOTHER 0010000
#endif
#ifndef CTVB
#define CTVB 004000000000
#endif
#ifndef CIBAUD
#define CIBAUD 002003600000
#endif
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif
#ifndef INOTIFYFS_SUPER_MAGIC
#define INOTIFYFS_SUPER_MAGIC 0x2bad1dea
#endif
#ifndef IBSHIFT
#define IBSHIFT 16
#endif
#ifndef MQUEUE_MAGIC
#define MQUEUE_MAGIC 0x19800202
#endif
#ifndef ST_VALID
#define ST_VALID 0x0020
#endif
#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif

#define X(c) { (uint64_t)(c), #c }

/* ---- growable strings --------------------------------------------------- */

void syscalls_buf_reset(struct syscalls_buf *b) { b->len = 0; if (b->p) b->p[0] = 0; }
void syscalls_buf_free(struct syscalls_buf *b) { free(b->p); b->p = NULL; b->len = b->cap = 0; }

static int buf_grow(struct syscalls_buf *b, size_t n)
{
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

void syscalls_buf_put(struct syscalls_buf *b, const char *s, size_t n)
{
    if (buf_grow(b, n) < 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void syscalls_buf_putc(struct syscalls_buf *b, char c) { syscalls_buf_put(b, &c, 1); }
void syscalls_buf_puts(struct syscalls_buf *b, const char *s) { syscalls_buf_put(b, s, strlen(s)); }

void syscalls_buf_printf(struct syscalls_buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        syscalls_buf_put(b, tmp, (size_t)n);
        return;
    }
    if (buf_grow(b, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* ---- tables of the C library's constants ------------------------------------ */

const struct syscalls_xlat syscalls_xlat_access_modes[] = { X(R_OK), X(W_OK), X(X_OK), SYSCALLS_XEND };
const struct syscalls_xlat syscalls_xlat_af[] = {
    X(AF_UNSPEC), X(AF_UNIX), X(AF_INET), X(AF_IPX), X(AF_APPLETALK), X(AF_INET6), X(AF_NETLINK),
    X(AF_PACKET), X(AF_CAN), X(AF_BLUETOOTH), X(AF_ALG), X(AF_VSOCK), X(AF_XDP), SYSCALLS_XEND,
};
const struct syscalls_xlat syscalls_xlat_sock_type[] = {
    X(SOCK_STREAM), X(SOCK_DGRAM), X(SOCK_RAW), X(SOCK_RDM), X(SOCK_SEQPACKET), X(SOCK_DCCP),
    X(SOCK_PACKET), SYSCALLS_XEND,
};
const struct syscalls_xlat syscalls_xlat_sock_flags[] = { X(SOCK_CLOEXEC), X(SOCK_NONBLOCK), SYSCALLS_XEND };
const struct syscalls_xlat syscalls_xlat_msg_flags[] = {
    X(MSG_OOB), X(MSG_PEEK), X(MSG_DONTROUTE), X(MSG_CTRUNC), X(MSG_PROBE), X(MSG_TRUNC), X(MSG_DONTWAIT),
    X(MSG_EOR), X(MSG_WAITALL), X(MSG_FIN), X(MSG_SYN), X(MSG_CONFIRM), X(MSG_RST), X(MSG_ERRQUEUE),
    X(MSG_NOSIGNAL), X(MSG_MORE), X(MSG_WAITFORONE), X(MSG_BATCH), X(MSG_ZEROCOPY), X(MSG_FASTOPEN),
    X(MSG_CMSG_CLOEXEC), SYSCALLS_XEND,
};
/* the O_CLOEXEC and O_NONBLOCK of the calls that create an fd, by their own names */
const struct syscalls_xlat syscalls_xlat_epoll_create_flags[] = { X(EPOLL_CLOEXEC), SYSCALLS_XEND };
const struct syscalls_xlat syscalls_xlat_eventfd_flags[] = {
    X(EFD_CLOEXEC), X(EFD_NONBLOCK), X(EFD_SEMAPHORE), SYSCALLS_XEND,
};
const struct syscalls_xlat syscalls_xlat_signalfd_flags[] = { X(SFD_CLOEXEC), X(SFD_NONBLOCK), SYSCALLS_XEND };
const struct syscalls_xlat syscalls_xlat_timerfd_flags[] = { X(TFD_CLOEXEC), X(TFD_NONBLOCK), SYSCALLS_XEND };
const struct syscalls_xlat syscalls_xlat_inotify_flags[] = { X(IN_CLOEXEC), X(IN_NONBLOCK), SYSCALLS_XEND };

static const struct syscalls_xlat *xfind(const struct syscalls_xlat *x, uint64_t v)
{
    for (; x->name; x++)
        if (x->val == v)
            return x;
    return NULL;
}

void syscalls_print_value(struct syscalls_buf *b, const struct syscalls_xlat *x, uint64_t v, const char *dflt_fmt)
{
    const struct syscalls_xlat *e = xfind(x, v);
    if (e)
        syscalls_buf_puts(b, e->name);
    else
        syscalls_buf_printf(b, dflt_fmt, (unsigned long long)v);
}

void syscalls_print_flags(struct syscalls_buf *b, const struct syscalls_xlat *x, uint64_t v, const char *zero_str)
{
    int n = 0;
    if (v == 0) {
        syscalls_buf_puts(b, zero_str);
        return;
    }
    for (; x->name; x++) {
        if (x->val && (v & x->val) == x->val) {
            syscalls_buf_puts(b, n++ ? "|" : "");
            syscalls_buf_puts(b, x->name);
            v &= ~x->val;
        }
    }
    if (v)
        syscalls_buf_printf(b, "%s%#llx", n ? "|" : "", (unsigned long long)v);
}

void syscalls_print_kind_flags(struct syscalls_buf *b, const struct syscalls_xlat *kinds, uint64_t kind_mask,
                               const struct syscalls_xlat *flags, uint64_t v)
{
    syscalls_print_value(b, kinds, v & kind_mask, "%#llx");
    if (v & ~kind_mask) {
        syscalls_buf_putc(b, '|');
        syscalls_print_flags(b, flags, v & ~kind_mask, "0");
    }
}

void syscalls_print_open_flags(struct syscalls_buf *b, uint64_t v)
{
    syscalls_print_kind_flags(b, syscalls_xlat_open_access, syscalls_open_accmode, syscalls_xlat_open_flags, v);
}

void syscalls_print_mmap_flags(struct syscalls_buf *b, uint64_t v)
{
    syscalls_print_kind_flags(b, syscalls_xlat_mmap_type, syscalls_mmap_type_mask, syscalls_xlat_mmap_flags, v);
}

/* the kernel's SOCK_TYPE_MASK: the type in the low bits, SOCK_CLOEXEC and SOCK_NONBLOCK above */
#define SOCK_TYPE_MASK 0xf

void syscalls_print_socket_type(struct syscalls_buf *b, uint64_t v)
{
    syscalls_print_kind_flags(b, syscalls_xlat_sock_type, SOCK_TYPE_MASK, syscalls_xlat_sock_flags, v);
}

/* ---- strings -------------------------------------------------------------- */

void syscalls_print_addr(struct syscalls_buf *b, uint64_t a)
{
    if (a)
        syscalls_buf_printf(b, "%#llx", (unsigned long long)a);
    else
        syscalls_buf_puts(b, "NULL");
}

void syscalls_print_quoted(struct syscalls_buf *b, const uint8_t *s, size_t len, int hex, int force_hex)
{
    int usehex = force_hex || hex > 1;
    if (!usehex && hex == 1)
        for (size_t i = 0; i < len; i++) {
            uint8_t c = s[i];
            if ((c < ' ' || c >= 0x7f) && c != '\t' && c != '\n' && c != '\r' && c != '\v' &&
                c != '\f') {
                usehex = 1;
                break;
            }
        }
    syscalls_buf_putc(b, '"');
    if (usehex)
        for (size_t i = 0; i < len; i++)
            syscalls_buf_printf(b, "\\x%02x", s[i]);
    else
        syscalls_print_escaped(b, s, len, 1);
    syscalls_buf_putc(b, '"');
}

void syscalls_print_escaped(struct syscalls_buf *b, const uint8_t *s, size_t len, int quoted)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t c = s[i];
        switch (c) {
        case '\\': syscalls_buf_puts(b, "\\\\"); break;
        case '\f': syscalls_buf_puts(b, "\\f"); break;
        case '\n': syscalls_buf_puts(b, "\\n"); break;
        case '\r': syscalls_buf_puts(b, "\\r"); break;
        case '\t': syscalls_buf_puts(b, "\\t"); break;
        case '\v': syscalls_buf_puts(b, "\\v"); break;
        default:
            if (c == '"' && quoted) {
                syscalls_buf_puts(b, "\\\"");
            } else if (c >= ' ' && c < 0x7f) {
                syscalls_buf_putc(b, (char)c);
            } else if (i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7') {
                syscalls_buf_printf(b, "\\%03o", c);
            } else {
                syscalls_buf_printf(b, "\\%o", c);
            }
        }
    }
}

/* ---- signals and errors ------------------------------------------------------ */

static const char *const signames[] = {
    NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
    "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
    "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
    "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS", "SIGRTMIN",
};

const char *syscalls_signal_name(int sig)
{
    static char buf[16];
    if (sig > 0 && sig < (int)(sizeof signames / sizeof signames[0]))
        return signames[sig];
    if (sig > 32 && sig <= 64) {
        snprintf(buf, sizeof buf, "SIGRT_%d", sig - 32);
        return buf;
    }
    return NULL;
}

void syscalls_print_signal(struct syscalls_buf *b, int sig)
{
    const char *n = syscalls_signal_name(sig);
    if (n)
        syscalls_buf_puts(b, n);
    else
        syscalls_buf_printf(b, "%d", sig);
}

void syscalls_print_sigset(struct syscalls_buf *b, const uint8_t *set, size_t len)
{
    uint64_t m = 0;
    memcpy(&m, set, len < 8 ? len : 8);
    unsigned bits = len < 8 ? (unsigned)len * 8 : 64;
    if (bits < 64)
        m &= (1ull << bits) - 1;
    if ((unsigned)__builtin_popcountll(m) >= bits * 2 / 3) {
        m = ~m;
        if (bits < 64)
            m &= (1ull << bits) - 1;
        syscalls_buf_putc(b, '~');
    }
    char sep = '[';
    for (unsigned i = 0; i < bits; i++) {
        if (!(m & (1ull << i)))
            continue;
        int sig = (int)i + 1;
        syscalls_buf_putc(b, sep);
        sep = ' ';
        if (sig <= 32)
            syscalls_buf_puts(b, signames[sig] + 3);
        else
            syscalls_buf_printf(b, "RT_%d", sig - 32);
    }
    if (sep == '[')
        syscalls_buf_putc(b, '[');
    syscalls_buf_putc(b, ']');
}

const char *syscalls_errno_name(int e)
{
    switch (e) {
    case 512: return "ERESTARTSYS";
    case 513: return "ERESTARTNOINTR";
    case 514: return "ERESTARTNOHAND";
    case 515: return "ENOIOCTLCMD";
    case 516: return "ERESTART_RESTARTBLOCK";
    case 517: return "EPROBE_DEFER";
    case 518: return "EOPENSTALE";
    case 519: return "ENOPARAM";
    case 521: return "EBADHANDLE";
    case 524: return "ENOTSUPP";
    }
    return strerrorname_np(e);
}

const char *syscalls_errno_message(int e)
{
    switch (e) {
    case 512: return "To be restarted if SA_RESTART is set";
    case 513: return "To be restarted";
    case 514: return "To be restarted if no handler";
    case 516: return "Interrupted by signal";
    }
    if (e >= 512)
        return NULL;
    return strerror(e);
}

/* ---- structs ------------------------------------------------------------------- */

static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

void syscalls_print_mode(struct syscalls_buf *b, uint32_t mode)
{
    static const struct syscalls_xlat types[] = {
        X(S_IFSOCK), X(S_IFLNK), X(S_IFREG), X(S_IFBLK),
        X(S_IFDIR), X(S_IFCHR), X(S_IFIFO), SYSCALLS_XEND,
    };
    uint32_t t = mode & S_IFMT;
    if (t) {
        const struct syscalls_xlat *e = xfind(types, t);
        if (e)
            syscalls_buf_printf(b, "%s|", e->name);
        else
            syscalls_buf_printf(b, "%#o|", t);
    }
    syscalls_buf_printf(b, "%s%s%s%#03o", (mode & S_ISUID) ? "S_ISUID|" : "",
                        (mode & S_ISGID) ? "S_ISGID|" : "", (mode & S_ISVTX) ? "S_ISVTX|" : "", mode & 0777);
}

/* The C library's struct stat, statx, statfs, sysinfo, timespec, rlimit,
 * pollfd, epoll_event, utsname, winsize and sockaddr_in/in6 are laid out as
 * the kernel's on x86_64 (sizes checked in tests/model/test_syscalls.c):
 * the captured bytes are read through them. */

void syscalls_print_stat(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct stat st;
    if (len < syscalls_abi.stat || len < sizeof st)
        return;
    memcpy(&st, p, sizeof st);
    uint32_t mode = st.st_mode;
    syscalls_buf_puts(b, "{st_mode=");
    syscalls_print_mode(b, mode);
    uint32_t t = mode & S_IFMT;
    if (t == S_IFCHR || t == S_IFBLK)
        syscalls_buf_printf(b, ", st_rdev=makedev(%#x, %#x), ...}", major(st.st_rdev), minor(st.st_rdev));
    else
        syscalls_buf_printf(b, ", st_size=%lld, ...}", (long long)st.st_size);
}

void syscalls_print_statx(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct statx st;
    if (len < syscalls_abi.statx || len < sizeof st)
        return;
    memcpy(&st, p, sizeof st);
    syscalls_buf_puts(b, "{stx_mask=");
    syscalls_print_flags(b, syscalls_xlat_statx_mask, st.stx_mask, "0");
    syscalls_buf_puts(b, ", stx_attributes=");
    syscalls_print_flags(b, syscalls_xlat_statx_attrs, st.stx_attributes, "0");
    syscalls_buf_puts(b, ", stx_mode=");
    syscalls_print_mode(b, st.stx_mode);
    syscalls_buf_printf(b, ", stx_size=%llu, ...}", (unsigned long long)st.stx_size);
}

void syscalls_print_timespec(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct timespec ts;
    if (len < syscalls_abi.timespec || len < sizeof ts)
        return;
    memcpy(&ts, p, sizeof ts);
    syscalls_buf_printf(b, "{tv_sec=%lld, tv_nsec=%lld}", (long long)ts.tv_sec, (long long)ts.tv_nsec);
}

static void print_rlim(struct syscalls_buf *b, uint64_t v)
{
    if (v == UINT64_MAX)
        syscalls_buf_puts(b, "RLIM64_INFINITY");
    else if (v > 1024 && v % 1024 == 0)
        syscalls_buf_printf(b, "%llu*1024", (unsigned long long)(v / 1024));
    else
        syscalls_buf_printf(b, "%llu", (unsigned long long)v);
}

void syscalls_print_rlimit(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct rlimit rl;
    if (len < syscalls_abi.rlimit || len < sizeof rl)
        return;
    memcpy(&rl, p, sizeof rl);
    syscalls_buf_puts(b, "{rlim_cur=");
    print_rlim(b, rl.rlim_cur);
    syscalls_buf_puts(b, ", rlim_max=");
    print_rlim(b, rl.rlim_max);
    syscalls_buf_putc(b, '}');
}

/* the kernel's struct sigaction (not the C library's): handler, flags, restorer, mask */
void syscalls_print_sigaction(struct syscalls_buf *b, const uint8_t *sa, size_t len)
{
    if (len < syscalls_abi.sigaction)
        return;
    uint64_t handler = rd64(sa), flags = rd64(sa + 8), restorer = rd64(sa + 16);
    syscalls_buf_puts(b, "{sa_handler=");
    const struct syscalls_xlat *h = xfind(syscalls_xlat_sa_handler, handler);
    if (h)
        syscalls_buf_puts(b, h->name);
    else
        syscalls_print_addr(b, handler);
    syscalls_buf_puts(b, ", sa_mask=");
    syscalls_print_sigset(b, sa + 24, syscalls_abi.sigset);
    syscalls_buf_puts(b, ", sa_flags=");
    syscalls_print_flags(b, syscalls_xlat_sa_flags, flags, "0");
    if (flags & syscalls_sa_restorer) {
        syscalls_buf_puts(b, ", sa_restorer=");
        syscalls_print_addr(b, restorer);
    }
    syscalls_buf_putc(b, '}');
}

void syscalls_print_sockaddr(struct syscalls_buf *b, const uint8_t *sa, size_t len)
{
    if (len < 2) {
        syscalls_buf_puts(b, "{}");
        return;
    }
    uint16_t fam;
    memcpy(&fam, sa, 2);
    syscalls_buf_puts(b, "{sa_family=");
    syscalls_print_value(b, syscalls_xlat_af, fam, "%llu");
    if (fam == AF_UNIX) {
        size_t n = len - offsetof(struct sockaddr_un, sun_path);
        const uint8_t *path = sa + offsetof(struct sockaddr_un, sun_path);
        if (n > 0 && path[0] == 0) {
            /* abstract: @name */
            syscalls_buf_puts(b, ", sun_path=@");
            syscalls_print_quoted(b, path + 1, n - 1, 0, 0);
        } else if (n > 0) {
            size_t l = strnlen((const char *)path, n);
            syscalls_buf_puts(b, ", sun_path=");
            syscalls_print_quoted(b, path, l, 0, 0);
        }
    } else if (fam == AF_INET && len >= offsetof(struct sockaddr_in, sin_zero)) {
        struct sockaddr_in in;
        char ip[INET_ADDRSTRLEN];
        memset(&in, 0, sizeof in);
        memcpy(&in, sa, len < sizeof in ? len : sizeof in);
        inet_ntop(AF_INET, &in.sin_addr, ip, sizeof ip);
        syscalls_buf_printf(b, ", sin_port=htons(%u), sin_addr=inet_addr(\"%s\")", ntohs(in.sin_port), ip);
    } else if (fam == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 in6;
        char ip[INET6_ADDRSTRLEN];
        memcpy(&in6, sa, sizeof in6);
        inet_ntop(AF_INET6, &in6.sin6_addr, ip, sizeof ip);
        syscalls_buf_printf(b, ", sin6_port=htons(%u), sin6_flowinfo=htonl(%u), "
                     "inet_pton(AF_INET6, \"%s\", &sin6_addr), sin6_scope_id=%u",
                  ntohs(in6.sin6_port), ntohl(in6.sin6_flowinfo), ip, in6.sin6_scope_id);
    } else if (fam == AF_NETLINK && len >= sizeof(struct sockaddr_nl)) {
        struct sockaddr_nl nl;
        memcpy(&nl, sa, sizeof nl);
        syscalls_buf_printf(b, ", nl_pid=%u, nl_groups=%08x", nl.nl_pid, nl.nl_groups);
    } else {
        syscalls_buf_puts(b, ", ...");
    }
    syscalls_buf_putc(b, '}');
}

void syscalls_print_statfs(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    static const struct syscalls_xlat magic[] = {
        X(EXT2_SUPER_MAGIC), X(TMPFS_MAGIC), X(PROC_SUPER_MAGIC),
        X(SYSFS_MAGIC), X(OVERLAYFS_SUPER_MAGIC), X(XFS_SUPER_MAGIC),
        X(BTRFS_SUPER_MAGIC), X(CGROUP2_SUPER_MAGIC), X(CGROUP_SUPER_MAGIC),
        X(DEVPTS_SUPER_MAGIC), X(NFS_SUPER_MAGIC), X(SQUASHFS_MAGIC),
        X(MSDOS_SUPER_MAGIC), X(FUSE_SUPER_MAGIC), X(V9FS_MAGIC),
        X(DEBUGFS_MAGIC), X(TRACEFS_MAGIC), X(SECURITYFS_MAGIC),
        X(BPF_FS_MAGIC), X(RAMFS_MAGIC), X(BINFMTFS_MAGIC),
        X(MQUEUE_MAGIC), X(PIPEFS_MAGIC), X(SOCKFS_MAGIC),
        X(INOTIFYFS_SUPER_MAGIC), X(ISOFS_SUPER_MAGIC), SYSCALLS_XEND,
    };
    static const struct syscalls_xlat stflags[] = {
        X(ST_RDONLY), X(ST_NOSUID), X(ST_NODEV), X(ST_NOEXEC), X(ST_SYNCHRONOUS),
        X(ST_VALID), X(ST_MANDLOCK), X(ST_WRITE), X(ST_APPEND),
        X(ST_IMMUTABLE), X(ST_NOATIME), X(ST_NODIRATIME), X(ST_RELATIME),
        X(ST_NOSYMFOLLOW), SYSCALLS_XEND,
    };
    struct statfs st;
    if (len < syscalls_abi.statfs || len < sizeof st)
        return;
    memcpy(&st, p, sizeof st);
    syscalls_buf_puts(b, "{f_type=");
    syscalls_print_value(b, magic, (uint64_t)st.f_type, "%#llx");
    syscalls_buf_printf(b, ", f_bsize=%lld, f_blocks=%llu, f_bfree=%llu, f_bavail=%llu, f_files=%llu, f_ffree=%llu, "
                 "f_fsid={val=[%#x, %#x]}, f_namelen=%lld, f_frsize=%lld, f_flags=",
              (long long)st.f_bsize, (unsigned long long)st.f_blocks, (unsigned long long)st.f_bfree,
              (unsigned long long)st.f_bavail, (unsigned long long)st.f_files,
              (unsigned long long)st.f_ffree, (unsigned)st.f_fsid.__val[0], (unsigned)st.f_fsid.__val[1],
              (long long)st.f_namelen, (long long)st.f_frsize);
    syscalls_print_flags(b, stflags, (uint64_t)st.f_flags, "0");
    syscalls_buf_putc(b, '}');
}

void syscalls_print_sysinfo(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct sysinfo si;
    if (len < syscalls_abi.sysinfo || len < sizeof si)
        return;
    memcpy(&si, p, sizeof si);
    syscalls_buf_printf(b, "{uptime=%lld, loads=[%llu, %llu, %llu], totalram=%llu, freeram=%llu, sharedram=%llu, "
                 "bufferram=%llu, totalswap=%llu, freeswap=%llu, procs=%u, totalhigh=%llu, freehigh=%llu, "
                 "mem_unit=%u}",
              (long long)si.uptime, (unsigned long long)si.loads[0], (unsigned long long)si.loads[1],
              (unsigned long long)si.loads[2], (unsigned long long)si.totalram,
              (unsigned long long)si.freeram, (unsigned long long)si.sharedram,
              (unsigned long long)si.bufferram, (unsigned long long)si.totalswap,
              (unsigned long long)si.freeswap, (unsigned)si.procs, (unsigned long long)si.totalhigh,
              (unsigned long long)si.freehigh, si.mem_unit);
}

void syscalls_print_cpuset(struct syscalls_buf *b, const uint8_t *set, size_t len)
{
    char sep = '[';
    for (size_t i = 0; i < len * 8; i++)
        if (set[i / 8] & (1u << (i % 8))) {
            syscalls_buf_printf(b, "%c%zu", sep, i);
            sep = ' ';
        }
    if (sep == '[')
        syscalls_buf_putc(b, '[');
    syscalls_buf_putc(b, ']');
}

void syscalls_print_pollfds(struct syscalls_buf *b, const uint8_t *p, size_t len, int revents)
{
    int n = 0;
    syscalls_buf_putc(b, '[');
    for (size_t off = 0; off + sizeof(struct pollfd) <= len; off += sizeof(struct pollfd)) {
        struct pollfd pfd;
        memcpy(&pfd, p + off, sizeof pfd);
        uint16_t ev = (uint16_t)pfd.events, rev = (uint16_t)pfd.revents;
        if (revents && !rev)
            continue;
        syscalls_buf_printf(b, "%s{fd=%d, %s=", n++ ? ", " : "", pfd.fd, revents ? "revents" : "events");
        syscalls_print_flags(b, syscalls_xlat_poll_events, revents ? rev : ev, "0");
        syscalls_buf_putc(b, '}');
    }
    syscalls_buf_putc(b, ']');
}

void syscalls_print_iov(struct syscalls_buf *b, const uint8_t *p, size_t len, uint64_t count, uint32_t strsize,
                        int hex)
{
    size_t off = 0;
    uint64_t shown = 0;
    syscalls_buf_putc(b, '[');
    while (off + 20 <= len && shown < count) {
        uint64_t base = rd64(p + off), l = rd64(p + off + 8);
        uint32_t n = rd32(p + off + 16);
        if (off + 20 + n > len)
            break;
        if (shown == strsize) {
            syscalls_buf_puts(b, ", ...");
            break;
        }
        if (shown)
            syscalls_buf_puts(b, ", ");
        syscalls_buf_puts(b, "{iov_base=");
        if (!base) {
            syscalls_buf_puts(b, "NULL");
        } else {
            size_t k = n < strsize ? n : strsize;
            syscalls_print_quoted(b, p + off + 20, k, hex, 0);
            if (l > k && (n > k || n == strsize))
                syscalls_buf_puts(b, "...");
        }
        syscalls_buf_printf(b, ", iov_len=%llu}", (unsigned long long)l);
        off += 20 + n;
        shown++;
    }
    if (shown < count && off >= len && shown != strsize)
        syscalls_buf_puts(b, shown ? ", ..." : "...");
    syscalls_buf_putc(b, ']');
}

void syscalls_print_socket_protocol(struct syscalls_buf *b, int family, int proto)
{
    static const struct syscalls_xlat ip[] = {
        X(IPPROTO_IP), X(IPPROTO_ICMP), X(IPPROTO_IGMP), X(IPPROTO_TCP),
        X(IPPROTO_UDP), X(IPPROTO_IPV6), X(IPPROTO_ICMPV6), X(IPPROTO_SCTP),
        X(IPPROTO_UDPLITE), X(IPPROTO_RAW), X(IPPROTO_MPTCP), SYSCALLS_XEND,
    };
    static const struct syscalls_xlat nl[] = {
        X(NETLINK_ROUTE), X(NETLINK_SOCK_DIAG), X(NETLINK_XFRM), X(NETLINK_AUDIT),
        X(NETLINK_KOBJECT_UEVENT), X(NETLINK_GENERIC), SYSCALLS_XEND,
    };
    if (family == 2 || family == 10)
        syscalls_print_value(b, ip, (uint64_t)proto, "%llu");
    else if (family == 16)
        syscalls_print_value(b, nl, (uint64_t)proto, "%llu");
    else
        syscalls_buf_printf(b, "%d", proto);
}

void syscalls_print_termios(struct syscalls_buf *b, const uint8_t *t, size_t len)
{
    static const struct syscalls_xlat bauds[] = {
        X(B0), X(B50), X(B75), X(B110), X(B134), X(B150), X(B200),
        X(B300), X(B600), X(B1200), X(B1800), X(B2400), X(B4800),
        X(B9600), X(B19200), X(B38400), X(B57600), X(B115200),
        X(B230400), X(B460800), X(B500000), X(B576000),
        X(B921600), X(B1000000), X(B1152000), X(B1500000),
        X(B2000000), X(B2500000), X(B3000000), X(B3500000),
        X(B4000000), X(BOTHER), SYSCALLS_XEND,
    };
    static const struct syscalls_xlat iflags[] = {
        X(IGNBRK), X(BRKINT), X(IGNPAR), X(PARMRK), X(INPCK), X(ISTRIP),
        X(INLCR), X(IGNCR), X(ICRNL), X(IUCLC), X(IXON),
        X(IXANY), X(IXOFF), X(IMAXBEL), X(IUTF8), SYSCALLS_XEND,
    };
    static const struct syscalls_xlat oflags[] = {
        X(OPOST), X(OLCUC), X(ONLCR), X(OCRNL), X(ONOCR), X(ONLRET),
        X(OFILL), X(OFDEL), SYSCALLS_XEND,
    };
    static const struct syscalls_xlat cflags[] = {
        X(CSTOPB), X(CREAD), X(PARENB), X(PARODD), X(HUPCL),
        X(CLOCAL), X(CTVB), X(CMSPAR), X(CRTSCTS), SYSCALLS_XEND,
    };
    static const struct syscalls_xlat lflags[] = {
        X(ISIG), X(ICANON), X(XCASE), X(ECHO), X(ECHOE), X(ECHOK),
        X(ECHONL), X(NOFLSH), X(IEXTEN), X(ECHOCTL), X(ECHOPRT),
        X(ECHOKE), X(FLUSHO), X(PENDIN), X(TOSTOP),
        X(EXTPROC), SYSCALLS_XEND,
    };
    if (len < syscalls_abi.termios) /* the kernel's struct termios, not the C library's */
        return;
    uint32_t iflag = rd32(t), oflag = rd32(t + 4), cflag = rd32(t + 8), lflag = rd32(t + 12);
    syscalls_buf_puts(b, "{c_iflag=");
    syscalls_print_flags(b, iflags, iflag, "0");
    /* output delays by their field, then the flags */
    syscalls_buf_printf(b, ", c_oflag=NL%u|CR%u|TAB%u|BS%u|VT%u|FF%u", (oflag >> 8) & 1, (oflag >> 9) & 3,
              (oflag >> 11) & 3, (oflag >> 13) & 1, (oflag >> 14) & 1, (oflag >> 15) & 1);
    if (oflag & 0377) {
        syscalls_buf_putc(b, '|');
        syscalls_print_flags(b, oflags, oflag & 0377, "0");
    }
    if (oflag & ~0177777u)
        syscalls_buf_printf(b, "|%#x", oflag & ~0177777u);
    syscalls_buf_puts(b, ", c_cflag=");
    syscalls_print_value(b, bauds, cflag & CBAUD, "%#llx");
    syscalls_buf_printf(b, "|CS%u", 5 + ((cflag >> 4) & 3));
    uint32_t rest = cflag & ~(uint32_t)(CBAUD | CSIZE);
    if (rest & CIBAUD) { /* CIBAUD: an input speed of its own */
        syscalls_buf_puts(b, "|");
        syscalls_print_value(b, bauds, (rest & CIBAUD) >> IBSHIFT, "%#llx");
        syscalls_buf_puts(b, "<<IBSHIFT");
        rest &= ~(uint32_t)CIBAUD;
    }
    if (rest) {
        syscalls_buf_putc(b, '|');
        syscalls_print_flags(b, cflags, rest, "0");
    }
    syscalls_buf_puts(b, ", c_lflag=");
    syscalls_print_flags(b, lflags, lflag, "0");
    syscalls_buf_puts(b, ", ...}");
}

void syscalls_print_winsize(struct syscalls_buf *b, const uint8_t *w, size_t len)
{
    struct winsize ws;
    if (len < syscalls_abi.winsize || len < sizeof ws)
        return;
    memcpy(&ws, w, sizeof ws);
    syscalls_buf_printf(b, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}", ws.ws_row, ws.ws_col, ws.ws_xpixel,
                        ws.ws_ypixel);
}

void syscalls_print_epoll_events(struct syscalls_buf *b, const uint8_t *p, size_t len, int array)
{
    if (array)
        syscalls_buf_putc(b, '[');
    for (size_t off = 0; off + sizeof(struct epoll_event) <= len; off += sizeof(struct epoll_event)) {
        struct epoll_event e;
        memcpy(&e, p + off, sizeof e);
        uint64_t data = e.data.u64;
        syscalls_buf_puts(b, off ? ", {events=" : "{events=");
        syscalls_print_flags(b, syscalls_xlat_epoll_events, e.events, "0");
        syscalls_buf_printf(b, ", data={u32=%u, u64=%llu}}", (uint32_t)data, (unsigned long long)data);
        if (!array)
            break;
    }
    if (array)
        syscalls_buf_putc(b, ']');
}

void syscalls_print_utsname(struct syscalls_buf *b, const uint8_t *u, size_t len)
{
    const size_t field = sizeof(((struct utsname *)0)->sysname);
    if (len < offsetof(struct utsname, release))
        return;
    syscalls_buf_puts(b, "{sysname=");
    syscalls_print_quoted(b, u + offsetof(struct utsname, sysname), strnlen((const char *)u, field), 0, 0);
    syscalls_buf_puts(b, ", nodename=");
    syscalls_print_quoted(b, u + offsetof(struct utsname, nodename),
                          strnlen((const char *)u + offsetof(struct utsname, nodename), field), 0, 0);
    syscalls_buf_puts(b, ", ...}");
}

void syscalls_print_wait_status(struct syscalls_buf *b, int s)
{
    if ((s & 0x7f) == 0)
        syscalls_buf_printf(b, "[{WIFEXITED(s) && WEXITSTATUS(s) == %d}", (s >> 8) & 0xff);
    else if ((s & 0xff) == 0x7f) {
        syscalls_buf_puts(b, "[{WIFSTOPPED(s) && WSTOPSIG(s) == ");
        syscalls_print_signal(b, (s >> 8) & 0xff);
        syscalls_buf_putc(b, '}');
    } else if (s == 0xffff) {
        syscalls_buf_puts(b, "[{WIFCONTINUED(s)}");
    } else {
        syscalls_buf_puts(b, "[{WIFSIGNALED(s) && WTERMSIG(s) == ");
        syscalls_print_signal(b, s & 0x7f);
        syscalls_buf_puts(b, (s & 0x80) ? " && WCOREDUMP(s)}" : "}");
    }
    if (s >> 16)
        syscalls_buf_printf(b, " | %#x", (unsigned)s & 0xffff0000u);
    syscalls_buf_putc(b, ']');
}

static const char *si_code_name(int signo, int code)
{
    switch (code) {
    case 0: return "SI_USER";
    case 0x80: return "SI_KERNEL";
    case -1: return "SI_QUEUE";
    case -2: return "SI_TIMER";
    case -3: return "SI_MESGQ";
    case -4: return "SI_ASYNCIO";
    case -5: return "SI_SIGIO";
    case -6: return "SI_TKILL";
    case -7: return "SI_DETHREAD";
    case -60: return "SI_ASYNCNL";
    }
    static const char *const chld[] = { NULL, "CLD_EXITED", "CLD_KILLED", "CLD_DUMPED",
                                        "CLD_TRAPPED", "CLD_STOPPED", "CLD_CONTINUED" };
    static const char *const segv[] = { NULL, "SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR",
                                        "SEGV_PKUERR", "SEGV_ACCADI", "SEGV_ADIDERR",
                                        "SEGV_ADIPERR", "SEGV_MTEAERR", "SEGV_MTESERR",
                                        "SEGV_CPERR" };
    static const char *const bus[] = { NULL, "BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR",
                                       "BUS_MCEERR_AR", "BUS_MCEERR_AO" };
    static const char *const ill[] = { NULL, "ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR",
                                       "ILL_ILLTRP", "ILL_PRVOPC", "ILL_PRVREG", "ILL_COPROC",
                                       "ILL_BADSTK", "ILL_BADIADDR" };
    static const char *const fpe[] = { NULL, "FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV",
                                       "FPE_FLTOVF", "FPE_FLTUND", "FPE_FLTRES", "FPE_FLTINV",
                                       "FPE_FLTSUB", "FPE_FLTUNK", "FPE_CONDTRAP" };
    static const char *const trap[] = { NULL, "TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH",
                                        "TRAP_HWBKPT", "TRAP_UNK", "TRAP_PERF" };
#define PICK(tab) return code > 0 && code < (int)(sizeof tab / sizeof tab[0]) ? tab[code] : NULL
    switch (signo) {
    case 17: PICK(chld);
    case 11: PICK(segv);
    case 7: PICK(bus);
    case 4: PICK(ill);
    case 8: PICK(fpe);
    case 5: PICK(trap);
    }
#undef PICK
    return NULL;
}

/* clock ticks (USER_HZ 100) with the seconds as a comment, as strace */
static void print_clock_t(struct syscalls_buf *b, uint64_t v)
{
    syscalls_buf_printf(b, "%llu", (unsigned long long)v);
    if (!v)
        return;
    syscalls_buf_printf(b, " /* %llu", (unsigned long long)(v / 100));
    unsigned rem = (unsigned)(v % 100);
    if (rem)
        syscalls_buf_printf(b, rem % 10 ? ".%02u" : ".%u", rem % 10 ? rem : rem / 10);
    syscalls_buf_puts(b, " s */");
}

void syscalls_print_siginfo(struct syscalls_buf *b, const uint8_t *si, size_t len)
{
    if (len < 48) {
        syscalls_buf_puts(b, "{}");
        return;
    }
    int signo = (int)rd32(si), err = (int)rd32(si + 4), code = (int)rd32(si + 8);
    syscalls_buf_puts(b, "{si_signo=");
    syscalls_print_signal(b, signo);
    syscalls_buf_puts(b, ", si_code=");
    const char *cn = si_code_name(signo, code);
    if (cn)
        syscalls_buf_puts(b, cn);
    else
        syscalls_buf_printf(b, "%d", code);
    if (err)
        syscalls_buf_printf(b, ", si_errno=%d", err);
    int32_t pid = (int32_t)rd32(si + 16);
    uint32_t uid = rd32(si + 20);
    if (code <= 0 || (code == 0x80 && signo != 11 && signo != 7 && signo != 4 && signo != 8)) {
        if (code == -2) { /* SI_TIMER */
            syscalls_buf_printf(b, ", si_timerid=%#x, si_overrun=%d, si_int=%d, si_ptr=%#llx", (unsigned)pid,
                      (int)uid, (int)rd32(si + 24), (unsigned long long)rd64(si + 24));
        } else if (code == 0x80) {
            /* SI_KERNEL with no fields */
        } else {
            syscalls_buf_printf(b, ", si_pid=%d, si_uid=%u", pid, uid);
            if (code == -1 || code == -3)
                syscalls_buf_printf(b, ", si_int=%d, si_ptr=%#llx", (int)rd32(si + 24),
                          (unsigned long long)rd64(si + 24));
        }
    } else if (signo == 17) {
        syscalls_buf_printf(b, ", si_pid=%d, si_uid=%u, si_status=", pid, uid);
        int st = (int)rd32(si + 24);
        if (code == 1)
            syscalls_buf_printf(b, "%d", st);
        else
            syscalls_print_signal(b, st);
        syscalls_buf_puts(b, ", si_utime=");
        print_clock_t(b, rd64(si + 32));
        syscalls_buf_puts(b, ", si_stime=");
        print_clock_t(b, rd64(si + 40));
    } else if (signo == 11 || signo == 7 || signo == 4 || signo == 8 || signo == 5) {
        syscalls_buf_puts(b, ", si_addr=");
        syscalls_print_addr(b, rd64(si + 16));
    } else if (signo == 29) { /* SIGIO/SIGPOLL */
        syscalls_buf_printf(b, ", si_band=%lld, si_fd=%d", (long long)rd64(si + 16), (int)rd32(si + 24));
    } else if (signo == 31 && code == 1) { /* SYS_SECCOMP */
        syscalls_buf_printf(b, ", si_call_addr=%#llx, si_syscall=%d, si_arch=%#x",
                  (unsigned long long)rd64(si + 16), (int)rd32(si + 24), rd32(si + 28));
    }
    syscalls_buf_putc(b, '}');
}

/* ---- times with their dates, resource usage, signal stacks ------------------------ */

/* strace's date comment after a time: 1970-01-01T00:00:01.000000002+0000 (digits: 9 ns, 6 us;
 * no fraction when it is 0) */
static void print_date_comment(struct syscalls_buf *b, int64_t sec, uint64_t frac, int digits)
{
    time_t t = (time_t)sec;
    struct tm tm;
    char day[64], zone[16];
    if (!localtime_r(&t, &tm) || !strftime(day, sizeof day, "%FT%T", &tm) || !strftime(zone, sizeof zone, "%z", &tm))
        return;
    if (frac)
        syscalls_buf_printf(b, " /* %s.%0*llu%s */", day, digits, (unsigned long long)frac, zone);
    else
        syscalls_buf_printf(b, " /* %s%s */", day, zone);
}

void syscalls_print_utimens(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    if (len < 2 * syscalls_abi.timespec)
        return;
    syscalls_buf_putc(b, '[');
    for (int i = 0; i < 2; i++) {
        struct timespec ts;
        memcpy(&ts, p + i * sizeof ts, sizeof ts);
        if (i)
            syscalls_buf_puts(b, ", ");
        if (ts.tv_nsec == UTIME_NOW || ts.tv_nsec == UTIME_OMIT) {
            syscalls_buf_puts(b, ts.tv_nsec == UTIME_NOW ? "UTIME_NOW" : "UTIME_OMIT");
            continue;
        }
        syscalls_print_timespec(b, (const uint8_t *)&ts, sizeof ts);
        if ((unsigned long long)ts.tv_nsec < 1000000000ull)
            print_date_comment(b, ts.tv_sec, (uint64_t)ts.tv_nsec, 9);
    }
    syscalls_buf_putc(b, ']');
}

static void print_timeval(struct syscalls_buf *b, const struct timeval *tv)
{
    syscalls_buf_printf(b, "{tv_sec=%lld, tv_usec=%lld}", (long long)tv->tv_sec, (long long)tv->tv_usec);
}

void syscalls_print_timeval(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct timeval tv;
    if (len < syscalls_abi.timeval || len < sizeof tv)
        return;
    memcpy(&tv, p, sizeof tv);
    print_timeval(b, &tv);
}

void syscalls_print_timeval_pair(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct timeval tv[2];
    if (len < 2 * syscalls_abi.timeval || len < sizeof tv)
        return;
    memcpy(tv, p, sizeof tv);
    syscalls_buf_putc(b, '[');
    for (int i = 0; i < 2; i++) {
        syscalls_buf_puts(b, i ? ", " : "");
        print_timeval(b, &tv[i]);
        if ((unsigned long long)tv[i].tv_usec < 1000000ull)
            print_date_comment(b, tv[i].tv_sec, (uint64_t)tv[i].tv_usec, 6);
    }
    syscalls_buf_putc(b, ']');
}

void syscalls_print_rusage(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct rusage ru;
    if (len < syscalls_abi.rusage || len < sizeof ru)
        return;
    memcpy(&ru, p, sizeof ru);
    syscalls_buf_puts(b, "{ru_utime=");
    print_timeval(b, &ru.ru_utime);
    syscalls_buf_puts(b, ", ru_stime=");
    print_timeval(b, &ru.ru_stime);
    syscalls_buf_puts(b, ", ...}");
}

void syscalls_print_stack(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    stack_t ss;
    if (len < syscalls_abi.stack || len < sizeof ss)
        return;
    memcpy(&ss, p, sizeof ss);
    syscalls_buf_puts(b, "{ss_sp=");
    syscalls_print_addr(b, (uint64_t)(uintptr_t)ss.ss_sp);
    syscalls_buf_puts(b, ", ss_flags=");
    syscalls_print_flags(b, syscalls_xlat_ss_flags, (uint32_t)ss.ss_flags, "0");
    syscalls_buf_printf(b, ", ss_size=%zu}", ss.ss_size);
}

void syscalls_print_flock(struct syscalls_buf *b, const uint8_t *p, size_t len, int getlk)
{
    struct flock fl;
    if (len < syscalls_abi.flock || len < sizeof fl)
        return;
    memcpy(&fl, p, sizeof fl);
    syscalls_buf_puts(b, "{l_type=");
    syscalls_print_value(b, syscalls_xlat_flock_types, (uint16_t)fl.l_type, "%#llx /* F_??? */");
    syscalls_buf_puts(b, ", l_whence=");
    syscalls_print_value(b, syscalls_xlat_whence, (uint16_t)fl.l_whence, "%#llx /* SEEK_??? */");
    syscalls_buf_printf(b, ", l_start=%lld, l_len=%lld", (long long)fl.l_start, (long long)fl.l_len);
    if (getlk)
        syscalls_buf_printf(b, ", l_pid=%d", (int)fl.l_pid);
    syscalls_buf_putc(b, '}');
}

void syscalls_print_tms(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct tms t;
    if (len < syscalls_abi.tms || len < sizeof t)
        return;
    memcpy(&t, p, sizeof t);
    syscalls_buf_puts(b, "{tms_utime=");
    print_clock_t(b, (uint64_t)t.tms_utime);
    syscalls_buf_puts(b, ", tms_stime=");
    print_clock_t(b, (uint64_t)t.tms_stime);
    syscalls_buf_puts(b, ", tms_cutime=");
    print_clock_t(b, (uint64_t)t.tms_cutime);
    syscalls_buf_puts(b, ", tms_cstime=");
    print_clock_t(b, (uint64_t)t.tms_cstime);
    syscalls_buf_putc(b, '}');
}

void syscalls_print_itimerspec(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct itimerspec its;
    if (len < syscalls_abi.itimerspec || len < sizeof its)
        return;
    syscalls_buf_puts(b, "{it_interval=");
    syscalls_print_timespec(b, p + offsetof(struct itimerspec, it_interval), sizeof its.it_interval);
    syscalls_buf_puts(b, ", it_value=");
    syscalls_print_timespec(b, p + offsetof(struct itimerspec, it_value), sizeof its.it_value);
    syscalls_buf_putc(b, '}');
}

void syscalls_print_itimerval(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct itimerval itv;
    if (len < syscalls_abi.itimerval || len < sizeof itv)
        return;
    memcpy(&itv, p, sizeof itv);
    syscalls_buf_puts(b, "{it_interval=");
    print_timeval(b, &itv.it_interval);
    syscalls_buf_puts(b, ", it_value=");
    print_timeval(b, &itv.it_value);
    syscalls_buf_putc(b, '}');
}

void syscalls_print_sigevent(struct syscalls_buf *b, const uint8_t *p, size_t len)
{
    struct sigevent sev;
    if (len < syscalls_abi.sigevent || len < sizeof sev)
        return;
    memcpy(&sev, p, sizeof sev);
    syscalls_buf_putc(b, '{');
    if (sev.sigev_value.sival_ptr)
        syscalls_buf_printf(b, "sigev_value={sival_int=%d, sival_ptr=%#llx}, ", sev.sigev_value.sival_int,
                            (unsigned long long)(uintptr_t)sev.sigev_value.sival_ptr);
    syscalls_buf_puts(b, "sigev_signo=");
    if (sev.sigev_notify == SIGEV_SIGNAL || sev.sigev_notify == SIGEV_THREAD || sev.sigev_notify == SIGEV_THREAD_ID)
        syscalls_print_signal(b, sev.sigev_signo);
    else
        syscalls_buf_printf(b, "%u", (unsigned)sev.sigev_signo);
    syscalls_buf_puts(b, ", sigev_notify=");
    syscalls_print_value(b, syscalls_xlat_sigev_notify, (uint32_t)sev.sigev_notify, "%#llx /* SIGEV_??? */");
    if (sev.sigev_notify == SIGEV_THREAD_ID)
        syscalls_buf_printf(b, ", sigev_notify_thread_id=%d", sev._sigev_un._tid);
    else if (sev.sigev_notify == SIGEV_THREAD)
        syscalls_buf_printf(b, ", sigev_notify_function=%#llx, sigev_notify_attributes=%#llx",
                            (unsigned long long)(uintptr_t)sev._sigev_un._sigev_thread._function,
                            (unsigned long long)(uintptr_t)sev._sigev_un._sigev_thread._attribute);
    syscalls_buf_putc(b, '}');
}

/* ---- socket options ------------------------------------------------------------------ */

const struct syscalls_xlat syscalls_xlat_prio_which[] = { X(PRIO_PROCESS), X(PRIO_PGRP), X(PRIO_USER), SYSCALLS_XEND };
const struct syscalls_xlat syscalls_xlat_shutdown_how[] = { X(SHUT_RD), X(SHUT_WR), X(SHUT_RDWR), SYSCALLS_XEND };
const struct syscalls_xlat syscalls_xlat_timerfd_settime_flags[] = {
    X(TFD_TIMER_ABSTIME), X(TFD_TIMER_CANCEL_ON_SET), SYSCALLS_XEND,
};
const struct syscalls_xlat syscalls_xlat_sockopt_levels[] = {
    X(SOL_IP), X(SOL_SOCKET), X(SOL_TCP), X(SOL_UDP), X(SOL_IPV6), X(SOL_ICMPV6),
    { IPPROTO_SCTP, "SOL_SCTP" }, { IPPROTO_UDPLITE, "SOL_UDPLITE" }, X(SOL_RAW), X(SOL_DECNET), X(SOL_X25), X(SOL_PACKET), X(SOL_ATM), X(SOL_AAL), X(SOL_IRDA), X(SOL_NETBEUI),
    X(SOL_LLC), X(SOL_DCCP), X(SOL_NETLINK), X(SOL_TIPC), X(SOL_RXRPC), X(SOL_PPPOL2TP),
    X(SOL_BLUETOOTH), X(SOL_PNPIPE), X(SOL_RDS), X(SOL_IUCV), X(SOL_CAIF), X(SOL_ALG), X(SOL_NFC),
    X(SOL_KCM), X(SOL_TLS), X(SOL_XDP), X(SOL_MPTCP), SYSCALLS_XEND,
};

static const struct syscalls_xlat so_names[] = {
    X(SO_DEBUG), X(SO_REUSEADDR), X(SO_TYPE), X(SO_ERROR), X(SO_DONTROUTE), X(SO_BROADCAST),
    X(SO_SNDBUF), X(SO_RCVBUF), X(SO_KEEPALIVE), X(SO_OOBINLINE), X(SO_NO_CHECK), X(SO_PRIORITY),
    X(SO_LINGER), X(SO_BSDCOMPAT), X(SO_REUSEPORT), X(SO_PASSCRED), X(SO_PEERCRED), X(SO_RCVLOWAT),
    X(SO_SNDLOWAT), X(SO_RCVTIMEO_OLD), X(SO_SNDTIMEO_OLD), X(SO_SECURITY_AUTHENTICATION),
    X(SO_SECURITY_ENCRYPTION_TRANSPORT), X(SO_SECURITY_ENCRYPTION_NETWORK), X(SO_BINDTODEVICE),
    X(SO_ATTACH_FILTER), X(SO_DETACH_FILTER), X(SO_PEERNAME), X(SO_TIMESTAMP_OLD), X(SO_ACCEPTCONN),
    X(SO_PEERSEC), X(SO_SNDBUFFORCE), X(SO_RCVBUFFORCE), X(SO_PASSSEC), X(SO_TIMESTAMPNS_OLD), X(SO_MARK),
    X(SO_TIMESTAMPING_OLD), X(SO_PROTOCOL), X(SO_DOMAIN), X(SO_RXQ_OVFL), X(SO_WIFI_STATUS),
    X(SO_PEEK_OFF), X(SO_NOFCS), X(SO_LOCK_FILTER), X(SO_SELECT_ERR_QUEUE), X(SO_BUSY_POLL),
    X(SO_MAX_PACING_RATE), X(SO_BPF_EXTENSIONS), X(SO_INCOMING_CPU), X(SO_ATTACH_BPF),
    X(SO_ATTACH_REUSEPORT_CBPF), X(SO_ATTACH_REUSEPORT_EBPF), X(SO_CNX_ADVICE), X(SO_MEMINFO),
    X(SO_INCOMING_NAPI_ID), X(SO_COOKIE), X(SO_PEERGROUPS), X(SO_ZEROCOPY), X(SO_TXTIME),
    X(SO_BINDTOIFINDEX), X(SO_TIMESTAMP_NEW), X(SO_TIMESTAMPNS_NEW), X(SO_TIMESTAMPING_NEW),
    X(SO_RCVTIMEO_NEW), X(SO_SNDTIMEO_NEW), X(SO_DETACH_REUSEPORT_BPF), SYSCALLS_XEND,
};
static const struct syscalls_xlat tcp_names[] = {
    X(TCP_NODELAY), X(TCP_MAXSEG), X(TCP_CORK), X(TCP_KEEPIDLE), X(TCP_KEEPINTVL), X(TCP_KEEPCNT),
    X(TCP_SYNCNT), X(TCP_LINGER2), X(TCP_DEFER_ACCEPT), X(TCP_WINDOW_CLAMP), X(TCP_INFO), X(TCP_QUICKACK),
    X(TCP_CONGESTION), X(TCP_MD5SIG), X(TCP_COOKIE_TRANSACTIONS), X(TCP_THIN_LINEAR_TIMEOUTS),
    X(TCP_THIN_DUPACK), X(TCP_USER_TIMEOUT), X(TCP_REPAIR), X(TCP_REPAIR_QUEUE), X(TCP_QUEUE_SEQ),
    X(TCP_REPAIR_OPTIONS), X(TCP_FASTOPEN), X(TCP_TIMESTAMP), X(TCP_NOTSENT_LOWAT), X(TCP_CC_INFO),
    X(TCP_SAVE_SYN), X(TCP_SAVED_SYN), X(TCP_REPAIR_WINDOW), X(TCP_FASTOPEN_CONNECT), X(TCP_ULP),
    X(TCP_MD5SIG_EXT), X(TCP_FASTOPEN_KEY), X(TCP_FASTOPEN_NO_COOKIE), X(TCP_ZEROCOPY_RECEIVE),
    X(TCP_INQ), X(TCP_TX_DELAY), SYSCALLS_XEND,
};
static const struct syscalls_xlat ip_names[] = {
    X(IP_TOS), X(IP_TTL), X(IP_HDRINCL), X(IP_OPTIONS), X(IP_RECVOPTS), X(IP_RETOPTS), X(IP_PKTINFO),
    X(IP_PKTOPTIONS), X(IP_MTU_DISCOVER), X(IP_RECVERR), X(IP_RECVTTL), X(IP_RECVTOS), X(IP_MTU),
    X(IP_FREEBIND), X(IP_IPSEC_POLICY), X(IP_XFRM_POLICY), X(IP_PASSSEC), X(IP_TRANSPARENT),
    X(IP_ORIGDSTADDR), X(IP_MINTTL), X(IP_NODEFRAG), X(IP_CHECKSUM), X(IP_BIND_ADDRESS_NO_PORT),
    X(IP_RECVFRAGSIZE), X(IP_MULTICAST_IF), X(IP_MULTICAST_TTL), X(IP_MULTICAST_LOOP),
    X(IP_ADD_MEMBERSHIP), X(IP_DROP_MEMBERSHIP), X(IP_UNBLOCK_SOURCE), X(IP_BLOCK_SOURCE),
    X(IP_ADD_SOURCE_MEMBERSHIP), X(IP_DROP_SOURCE_MEMBERSHIP), X(IP_MSFILTER), X(MCAST_JOIN_GROUP),
    X(MCAST_BLOCK_SOURCE), X(MCAST_UNBLOCK_SOURCE), X(MCAST_LEAVE_GROUP), X(MCAST_JOIN_SOURCE_GROUP),
    X(MCAST_LEAVE_SOURCE_GROUP), X(MCAST_MSFILTER), X(IP_MULTICAST_ALL), X(IP_UNICAST_IF),
    SYSCALLS_XEND,
};
static const struct syscalls_xlat ipv6_names[] = {
    X(IPV6_ADDRFORM), X(IPV6_2292PKTINFO), X(IPV6_2292HOPOPTS), X(IPV6_2292DSTOPTS), X(IPV6_2292RTHDR),
    X(IPV6_2292PKTOPTIONS), X(IPV6_CHECKSUM), X(IPV6_2292HOPLIMIT), X(IPV6_NEXTHOP), X(IPV6_AUTHHDR),
    X(IPV6_UNICAST_HOPS), X(IPV6_MULTICAST_IF), X(IPV6_MULTICAST_HOPS), X(IPV6_MULTICAST_LOOP),
    X(IPV6_ADD_MEMBERSHIP), X(IPV6_DROP_MEMBERSHIP), X(IPV6_ROUTER_ALERT), X(IPV6_MTU_DISCOVER),
    X(IPV6_MTU), X(IPV6_RECVERR), X(IPV6_V6ONLY), X(IPV6_JOIN_ANYCAST), X(IPV6_LEAVE_ANYCAST),
    X(IPV6_IPSEC_POLICY), X(IPV6_XFRM_POLICY), X(IPV6_HDRINCL), X(IPV6_RECVPKTINFO), X(IPV6_PKTINFO),
    X(IPV6_RECVHOPLIMIT), X(IPV6_HOPLIMIT), X(IPV6_RECVHOPOPTS), X(IPV6_HOPOPTS), X(IPV6_RTHDRDSTOPTS),
    X(IPV6_RECVRTHDR), X(IPV6_RTHDR), X(IPV6_RECVDSTOPTS), X(IPV6_DSTOPTS), X(IPV6_RECVPATHMTU),
    X(IPV6_PATHMTU), X(IPV6_DONTFRAG), X(IPV6_RECVTCLASS), X(IPV6_TCLASS), X(IPV6_AUTOFLOWLABEL),
    X(IPV6_ADDR_PREFERENCES), X(IPV6_MINHOPCOUNT), X(IPV6_ORIGDSTADDR), X(IPV6_TRANSPARENT),
    X(IPV6_UNICAST_IF), X(IPV6_RECVFRAGSIZE), X(IPV6_FREEBIND), SYSCALLS_XEND,
};
static const struct syscalls_xlat udp_names[] = {
    X(UDP_CORK), X(UDP_ENCAP), X(UDP_NO_CHECK6_TX), X(UDP_NO_CHECK6_RX), X(UDP_SEGMENT), X(UDP_GRO),
    SYSCALLS_XEND,
};

/* The names of a level's options and how strace marks an unknown one */
static const struct syscalls_xlat *sockopt_names(int level, const char **unknown)
{
    switch (level) {
    case SOL_SOCKET: *unknown = "SO_???"; return so_names;
    case SOL_TCP: *unknown = "TCP_???"; return tcp_names;
    case SOL_IP: *unknown = "IP_???"; return ip_names;
    case SOL_IPV6: *unknown = "IPV6_???"; return ipv6_names;
    case SOL_UDP: *unknown = "UDP_???"; return udp_names;
    }
    return NULL;
}

void syscalls_print_sockopt_name(struct syscalls_buf *b, int level, int name)
{
    const char *unknown = NULL;
    const struct syscalls_xlat *x = sockopt_names(level, &unknown), *e = x ? xfind(x, (uint32_t)name) : NULL;
    if (e)
        syscalls_buf_puts(b, e->name);
    else if (x)
        syscalls_buf_printf(b, "%#x /* %s */", (unsigned)name, unknown);
    else
        syscalls_buf_printf(b, "%d", name);
}

/* the SOL_SOCKET options whose value is an int (strace prints the first int of a longer value) */
static int so_int_like(int name)
{
    static const int names[] = {
        SO_DEBUG, SO_REUSEADDR, SO_DONTROUTE, SO_BROADCAST, SO_SNDBUF, SO_RCVBUF, SO_KEEPALIVE,
        SO_OOBINLINE, SO_NO_CHECK, SO_PRIORITY, SO_BSDCOMPAT, SO_REUSEPORT, SO_PASSCRED, SO_RCVLOWAT,
        SO_SNDLOWAT, SO_DETACH_FILTER, SO_TIMESTAMP_OLD, SO_ACCEPTCONN, SO_SNDBUFFORCE, SO_RCVBUFFORCE,
        SO_PASSSEC, SO_TIMESTAMPNS_OLD, SO_MARK, SO_RXQ_OVFL, SO_WIFI_STATUS, SO_PEEK_OFF, SO_NOFCS,
        SO_LOCK_FILTER, SO_SELECT_ERR_QUEUE, SO_BUSY_POLL, SO_INCOMING_CPU, SO_ZEROCOPY,
        SO_BINDTOIFINDEX, SO_TIMESTAMP_NEW, SO_TIMESTAMPNS_NEW,
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i] == name)
            return 1;
    return 0;
}

void syscalls_print_sockopt_value(struct syscalls_buf *b, int level, int name, uint64_t addr, const uint8_t *val,
                                  size_t vlen, int64_t len, uint32_t strsize, int hex, int get)
{
    if (!addr || !val || len <= 0) {
        syscalls_print_addr(b, addr);
        return;
    }
    int32_t i32[3];
    memcpy(i32, val, vlen < sizeof i32 ? vlen : sizeof i32);
    if (level == SOL_SOCKET && name == SO_LINGER && vlen >= sizeof(struct linger)) {
        struct linger l;
        memcpy(&l, val, sizeof l);
        syscalls_buf_printf(b, "{l_onoff=%d, l_linger=%d}", l.l_onoff, l.l_linger);
    } else if (level == SOL_SOCKET && name == SO_PEERCRED && get && vlen >= sizeof(struct ucred)) {
        struct ucred u;
        memcpy(&u, val, sizeof u);
        syscalls_buf_printf(b, "{pid=%d, uid=%d, gid=%d}", (int)u.pid, u.uid == (uid_t)-1 ? -1 : (int)u.uid,
                            u.gid == (gid_t)-1 ? -1 : (int)u.gid);
    } else if (level == SOL_SOCKET && (name == SO_LINGER || name == SO_PEERCRED) && !get) {
        syscalls_print_addr(b, addr);
    } else if ((level == SOL_SOCKET && so_int_like(name) && !get) || level == SOL_NETLINK || len == 4) {
        if (len < 4 || vlen < 4)
            syscalls_print_addr(b, addr);
        else
            syscalls_buf_printf(b, "[%d]", i32[0]);
    } else {
        size_t n = (size_t)len < strsize ? (size_t)len : strsize;
        syscalls_print_quoted(b, val, n < vlen ? n : vlen, hex, 0);
        if ((size_t)len > n)
            syscalls_buf_puts(b, "...");
    }
}

/* ---- messages: msghdr, cmsg, netlink --------------------------------------------------------- */

static const struct syscalls_xlat nlmsg_types[] = {
    X(NLMSG_NOOP), X(NLMSG_ERROR), X(NLMSG_DONE), X(NLMSG_OVERRUN), SYSCALLS_XEND,
};
static const struct syscalls_xlat rtm_types[] = {
    X(RTM_NEWLINK), X(RTM_DELLINK), X(RTM_GETLINK), X(RTM_SETLINK), X(RTM_NEWADDR), X(RTM_DELADDR),
    X(RTM_GETADDR), X(RTM_NEWROUTE), X(RTM_DELROUTE), X(RTM_GETROUTE), X(RTM_NEWNEIGH), X(RTM_DELNEIGH),
    X(RTM_GETNEIGH), X(RTM_NEWRULE), X(RTM_DELRULE), X(RTM_GETRULE), X(RTM_NEWQDISC), X(RTM_DELQDISC),
    X(RTM_GETQDISC), X(RTM_NEWTCLASS), X(RTM_DELTCLASS), X(RTM_GETTCLASS), X(RTM_NEWTFILTER),
    X(RTM_DELTFILTER), X(RTM_GETTFILTER), X(RTM_NEWACTION), X(RTM_DELACTION), X(RTM_GETACTION),
    X(RTM_NEWPREFIX), X(RTM_GETMULTICAST), X(RTM_GETANYCAST), X(RTM_NEWNEIGHTBL), X(RTM_GETNEIGHTBL),
    X(RTM_SETNEIGHTBL), X(RTM_NEWNDUSEROPT), X(RTM_NEWADDRLABEL), X(RTM_DELADDRLABEL), X(RTM_GETADDRLABEL),
    X(RTM_GETDCB), X(RTM_SETDCB), X(RTM_NEWNETCONF), X(RTM_DELNETCONF), X(RTM_GETNETCONF), X(RTM_NEWMDB),
    X(RTM_DELMDB), X(RTM_GETMDB), X(RTM_NEWNSID), X(RTM_DELNSID), X(RTM_GETNSID), X(RTM_NEWSTATS),
    X(RTM_GETSTATS), X(RTM_NEWCACHEREPORT), X(RTM_NEWCHAIN), X(RTM_DELCHAIN), X(RTM_GETCHAIN),
    X(RTM_NEWNEXTHOP), X(RTM_DELNEXTHOP), X(RTM_GETNEXTHOP), SYSCALLS_XEND,
};
static const struct syscalls_xlat nlm_flags[] = {
    X(NLM_F_REQUEST), X(NLM_F_MULTI), X(NLM_F_ACK), X(NLM_F_ECHO), X(NLM_F_DUMP_INTR), X(NLM_F_DUMP_FILTERED),
    SYSCALLS_XEND,
};
/* the flags of a request by its kind (strace's netlink_get_flags, _new_flags, _delete_flags) */
static const struct syscalls_xlat nlm_get_flags[] = {
    X(NLM_F_DUMP), X(NLM_F_ROOT), X(NLM_F_MATCH), X(NLM_F_ATOMIC), SYSCALLS_XEND,
};
static const struct syscalls_xlat nlm_new_flags[] = {
    X(NLM_F_REPLACE), X(NLM_F_EXCL), X(NLM_F_CREATE), X(NLM_F_APPEND), SYSCALLS_XEND,
};
static const struct syscalls_xlat nlm_del_flags[] = { X(NLM_F_NONREC), SYSCALLS_XEND };
static const struct syscalls_xlat nlm_ack_flags[] = { X(NLM_F_CAPPED), X(NLM_F_ACK_TLVS), SYSCALLS_XEND };

/* the flags of request type (a NETLINK_ROUTE one when proto is NETLINK_ROUTE) beyond the common ones */
static const struct syscalls_xlat *nlm_kind_flags(uint16_t type, int proto)
{
    static const struct syscalls_xlat none[] = { SYSCALLS_XEND };
    if (type == NLMSG_ERROR)
        return nlm_ack_flags;
    if (proto != NETLINK_ROUTE || type < RTM_BASE || type > RTM_MAX)
        return none;
    switch ((type - RTM_BASE) % 4) {
    case 0: return nlm_new_flags;
    case 1: return nlm_del_flags;
    case 2: return nlm_get_flags;
    default: return none;
    }
}

static void print_nlmsghdr(struct syscalls_buf *b, const struct nlmsghdr *h, int proto)
{
    syscalls_buf_printf(b, "{nlmsg_len=%u, nlmsg_type=", h->nlmsg_len);
    if (h->nlmsg_type < NLMSG_MIN_TYPE)
        syscalls_print_value(b, nlmsg_types, h->nlmsg_type, "%#llx /* NLMSG_??? */");
    else if (proto == NETLINK_ROUTE)
        syscalls_print_value(b, rtm_types, h->nlmsg_type, "%#llx /* RTM_??? */");
    else
        syscalls_buf_printf(b, "%#x /* NLMSG_??? */", h->nlmsg_type);
    /* the common flags (the low byte), then those of the request's kind */
    uint64_t common = h->nlmsg_flags & 0xffu, kind = h->nlmsg_flags & ~0xffu;
    syscalls_buf_puts(b, ", nlmsg_flags=");
    if (common || !kind)
        syscalls_print_flags(b, nlm_flags, common, "0");
    if (kind) {
        syscalls_buf_puts(b, common ? "|" : "");
        syscalls_print_flags(b, nlm_kind_flags(h->nlmsg_type, proto), kind, "0");
    }
    syscalls_buf_printf(b, ", nlmsg_seq=%u, nlmsg_pid=%u}", h->nlmsg_seq, h->nlmsg_pid);
}

void syscalls_print_netlink(struct syscalls_buf *b, const uint8_t *p, size_t n, uint64_t total, int proto,
                            uint32_t strsize)
{
    struct nlmsghdr h;
    if (n < sizeof h || total < sizeof h) {
        size_t k = n < strsize ? n : strsize;
        syscalls_print_quoted(b, p, k, 0, 1);
        if (total > k)
            syscalls_buf_puts(b, "...");
        return;
    }
    memcpy(&h, p, sizeof h);
    int array = NLMSG_ALIGN(h.nlmsg_len) < total; /* more than one message */
    uint64_t off = 0;
    unsigned count = 0;
    if (array)
        syscalls_buf_putc(b, '[');
    while (off + sizeof h <= total) {
        if (count)
            syscalls_buf_puts(b, ", ");
        if (off + sizeof h > n || count == strsize) { /* not recorded, or beyond -s messages */
            syscalls_buf_puts(b, "...");
            break;
        }
        memcpy(&h, p + off, sizeof h);
        count++;
        uint64_t len = h.nlmsg_len < sizeof h ? sizeof h : h.nlmsg_len;
        if (len > total - off)
            len = total - off;
        uint64_t pay = len - sizeof h;
        if (pay)
            syscalls_buf_putc(b, '[');
        print_nlmsghdr(b, &h, proto);
        if (pay) {
            size_t have = n - (off + sizeof h), k = pay < have ? (size_t)pay : have;
            if (k > strsize)
                k = strsize;
            syscalls_buf_puts(b, ", ");
            syscalls_print_quoted(b, p + off + sizeof h, k, 0, 1);
            if (pay > k)
                syscalls_buf_puts(b, "...");
            syscalls_buf_putc(b, ']');
        }
        if (h.nlmsg_len < sizeof h)
            break;
        off += NLMSG_ALIGN(len);
    }
    if (array)
        syscalls_buf_putc(b, ']');
}

static const struct syscalls_xlat scm_types[] = {
    X(SCM_RIGHTS), X(SCM_CREDENTIALS), X(SCM_SECURITY), X(SCM_PIDFD), X(SO_TIMESTAMP_OLD),
    X(SO_TIMESTAMPNS_OLD), X(SO_TIMESTAMPING_OLD), SYSCALLS_XEND,
};

/* a control buffer of controllen bytes, n of them recorded, as strace's decode_msg_control */
static void print_cmsgs(struct syscalls_buf *b, const uint8_t *p, size_t n, uint64_t controllen, int hex)
{
    const size_t hsize = sizeof(struct cmsghdr);
    size_t off = 0;
    syscalls_buf_putc(b, '[');
    while (n - off >= hsize) {
        struct cmsghdr c;
        memcpy(&c, p + off, hsize);
        size_t left = n - off, len = c.cmsg_len > left ? left : (size_t)c.cmsg_len;
        syscalls_buf_puts(b, off ? ", {" : "{");
        syscalls_buf_printf(b, "cmsg_len=%llu, cmsg_level=", (unsigned long long)c.cmsg_len);
        syscalls_print_value(b, syscalls_xlat_sockopt_levels, (uint32_t)c.cmsg_level, "%#llx /* SOL_??? */");
        syscalls_buf_puts(b, ", cmsg_type=");
        if (c.cmsg_level == SOL_SOCKET)
            syscalls_print_value(b, scm_types, (uint32_t)c.cmsg_type, "%#llx /* SCM_??? */");
        else
            syscalls_buf_printf(b, "%#x", (unsigned)c.cmsg_type);
        const uint8_t *data = p + off + hsize;
        size_t dlen = len > hsize ? len - hsize : 0;
        if (c.cmsg_level == SOL_SOCKET && c.cmsg_type == SCM_RIGHTS && dlen >= sizeof(int)) {
            syscalls_buf_puts(b, ", cmsg_data=[");
            for (size_t k = 0; k + sizeof(int) <= dlen; k += sizeof(int)) {
                int fd;
                memcpy(&fd, data + k, sizeof fd);
                syscalls_buf_printf(b, "%s%d", k ? ", " : "", fd);
            }
            syscalls_buf_putc(b, ']');
        } else if (c.cmsg_level == SOL_SOCKET && c.cmsg_type == SCM_CREDENTIALS && dlen >= sizeof(struct ucred)) {
            struct ucred u;
            memcpy(&u, data, sizeof u);
            syscalls_buf_printf(b, ", cmsg_data={pid=%d, uid=%u, gid=%u}", (int)u.pid, u.uid, u.gid);
        } else if (dlen) {
            syscalls_buf_puts(b, ", cmsg_data=");
            syscalls_print_quoted(b, data, dlen, hex, 1);
        }
        syscalls_buf_putc(b, '}');
        if (len < hsize) {
            off += hsize;
            break;
        }
        size_t step = CMSG_ALIGN(len);
        off = step >= n - off ? n : off + step;
    }
    if (off < n || n < controllen)
        syscalls_buf_puts(b, off ? ", ..." : "...");
    syscalls_buf_putc(b, ']');
}

/* u32 n and n bytes at *p (*left bytes): the bytes and n, or NULL when short */
static const uint8_t *take_sized(const uint8_t **p, size_t *left, uint32_t *n)
{
    if (*left < 4)
        return NULL;
    memcpy(n, *p, 4);
    if (*left - 4 < *n)
        return NULL;
    const uint8_t *d = *p + 4;
    *p += 4 + *n;
    *left -= 4 + *n;
    return d;
}

size_t syscalls_print_msghdr(struct syscalls_buf *b, const uint8_t *p, size_t len, int namelen_in, int nlproto,
                             uint32_t strsize, int hex)
{
    struct mmsghdr mm;
    const uint8_t *start = p, *name, *iov, *ctl;
    uint32_t nname, niov, nctl;
    size_t left = len;
    if (len < sizeof mm)
        return 0;
    memcpy(&mm, p, sizeof mm);
    p += sizeof mm;
    left -= sizeof mm;
    if (!(name = take_sized(&p, &left, &nname)) || !(iov = take_sized(&p, &left, &niov)) ||
        !(ctl = take_sized(&p, &left, &nctl)))
        return 0;
    const struct msghdr *m = &mm.msg_hdr;
    int namelen = (int)m->msg_namelen;
    if (namelen_in >= 0 && namelen > namelen_in)
        namelen = namelen_in;
    uint16_t family = 0;
    syscalls_buf_puts(b, "{msg_name=");
    if (m->msg_name && namelen > 0 && nname >= sizeof family) {
        memcpy(&family, name, sizeof family);
        syscalls_print_sockaddr(b, name, (size_t)namelen < nname ? (size_t)namelen : nname);
    } else {
        syscalls_print_addr(b, (uint64_t)(uintptr_t)m->msg_name);
    }
    syscalls_buf_puts(b, ", msg_namelen=");
    if (namelen_in >= 0 && (uint32_t)namelen_in != m->msg_namelen)
        syscalls_buf_printf(b, "%d => ", namelen_in);
    syscalls_buf_printf(b, "%d, msg_iov=", (int)m->msg_namelen);
    if (!m->msg_iov) {
        syscalls_buf_puts(b, "NULL");
    } else if (family == AF_NETLINK) {
        /* each iovec's data is netlink messages */
        syscalls_buf_putc(b, '[');
        size_t off = 0;
        for (uint64_t k = 0; off + 20 <= niov && k < m->msg_iovlen; k++) {
            uint64_t iov_len = rd64(iov + off + 8);
            uint32_t got = rd32(iov + off + 16);
            if (off + 20 + got > niov)
                break;
            /* the bytes in the buffer: those recorded when fewer than iov_len and -s (received
             * data), else (cut at -s) iov_len */
            uint64_t total = got < iov_len && got < strsize ? got : iov_len;
            syscalls_buf_puts(b, k ? ", {iov_base=" : "{iov_base=");
            if (rd64(iov + off))
                syscalls_print_netlink(b, iov + off + 20, got, total, nlproto, strsize);
            else
                syscalls_buf_puts(b, "NULL");
            syscalls_buf_printf(b, ", iov_len=%llu}", (unsigned long long)iov_len);
            off += 20 + got;
        }
        syscalls_buf_putc(b, ']');
    } else {
        syscalls_print_iov(b, iov, niov, m->msg_iovlen, strsize, hex);
    }
    syscalls_buf_printf(b, ", msg_iovlen=%llu", (unsigned long long)m->msg_iovlen);
    if (m->msg_controllen) {
        syscalls_buf_puts(b, ", msg_control=");
        if (m->msg_control && nctl)
            print_cmsgs(b, ctl, nctl, m->msg_controllen, hex);
        else
            syscalls_print_addr(b, (uint64_t)(uintptr_t)m->msg_control);
    }
    syscalls_buf_printf(b, ", msg_controllen=%llu, msg_flags=", (unsigned long long)m->msg_controllen);
    syscalls_print_flags(b, syscalls_xlat_msg_flags, (uint32_t)m->msg_flags, "0");
    syscalls_buf_putc(b, '}');
    return (size_t)(p - start);
}

void syscalls_print_mmsghdrs(struct syscalls_buf *b, const uint8_t *p, size_t len, uint64_t count, uint64_t with_len,
                             int nlproto, uint32_t strsize, int hex)
{
    size_t off = 0;
    uint64_t k = 0;
    syscalls_buf_putc(b, '[');
    for (; k < count && off < len; k++) {
        if (k == strsize) {
            syscalls_buf_puts(b, ", ...");
            break;
        }
        syscalls_buf_puts(b, k ? ", {msg_hdr=" : "{msg_hdr=");
        size_t used = syscalls_print_msghdr(b, p + off, len - off, -1, nlproto, strsize, hex);
        if (!used) { /* a short capture */
            syscalls_buf_puts(b, "...}");
            break;
        }
        struct mmsghdr mm;
        memcpy(&mm, p + off, sizeof mm);
        if (k < with_len)
            syscalls_buf_printf(b, ", msg_len=%u", mm.msg_len);
        syscalls_buf_putc(b, '}');
        off += used;
    }
    syscalls_buf_putc(b, ']');
}
