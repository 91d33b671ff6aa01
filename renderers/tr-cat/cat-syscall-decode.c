/* cat-syscall-decode.c - strace's spelling of arguments (see cat-syscall-decode.h).
 * Tables list names in strace's order for x86_64; values are the kernel's. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat-syscall-decode.h"

/* ---- growable strings --------------------------------------------------- */

void sb_reset(struct sb *b) { b->len = 0; if (b->p) b->p[0] = 0; }
void sb_free(struct sb *b) { free(b->p); b->p = NULL; b->len = b->cap = 0; }

static int sb_grow(struct sb *b, size_t n)
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

void sb_put(struct sb *b, const char *s, size_t n)
{
    if (sb_grow(b, n) < 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void sb_putc(struct sb *b, char c) { sb_put(b, &c, 1); }
void sb_puts(struct sb *b, const char *s) { sb_put(b, s, strlen(s)); }

void sb_printf(struct sb *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sb_put(b, tmp, (size_t)n);
        return;
    }
    if (sb_grow(b, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* ---- tables --------------------------------------------------------------- */

const struct xlat x_open_access[] = { {0, "O_RDONLY"}, {1, "O_WRONLY"}, {2, "O_RDWR"}, XEND };
const struct xlat x_open_flags[] = {
    {0100, "O_CREAT"}, {0200, "O_EXCL"}, {0400, "O_NOCTTY"}, {01000, "O_TRUNC"},
    {02000, "O_APPEND"}, {04000, "O_NONBLOCK"}, {04010000, "O_SYNC"}, {04000000, "__O_SYNC"},
    {010000, "O_DSYNC"}, {040000, "O_DIRECT"}, {0100000, "O_LARGEFILE"}, {0400000, "O_NOFOLLOW"},
    {01000000, "O_NOATIME"}, {02000000, "O_CLOEXEC"}, {010000000, "O_PATH"},
    {020200000, "O_TMPFILE"}, {020000000, "__O_TMPFILE"}, {0200000, "O_DIRECTORY"},
    {020000, "O_ASYNC"}, XEND,
};
const struct xlat x_mmap_prot[] = {
    {1, "PROT_READ"}, {2, "PROT_WRITE"}, {4, "PROT_EXEC"}, {0x10, "PROT_SEM"},
    {0x01000000, "PROT_GROWSDOWN"}, {0x02000000, "PROT_GROWSUP"}, XEND,
};
const struct xlat x_mmap_type[] = {
    {1, "MAP_SHARED"}, {2, "MAP_PRIVATE"}, {3, "MAP_SHARED_VALIDATE"}, {0xf, "MAP_DROPPABLE"}, XEND,
};
const struct xlat x_mmap_flags[] = {
    {0x10, "MAP_FIXED"}, {0x20, "MAP_ANONYMOUS"}, {0x40, "MAP_32BIT"}, {0x80, "MAP_ABOVE4G"},
    {0x4000, "MAP_NORESERVE"}, {0x8000, "MAP_POPULATE"}, {0x10000, "MAP_NONBLOCK"},
    {0x100, "MAP_GROWSDOWN"}, {0x800, "MAP_DENYWRITE"}, {0x1000, "MAP_EXECUTABLE"},
    {0x2000, "MAP_LOCKED"}, {0x20000, "MAP_STACK"}, {0x40000, "MAP_HUGETLB"}, {0x80000, "MAP_SYNC"},
    {0x4000000, "MAP_UNINITIALIZED"}, {0x100000, "MAP_FIXED_NOREPLACE"}, XEND,
};
const struct xlat x_clone_flags[] = {
    {0x100, "CLONE_VM"}, {0x200, "CLONE_FS"}, {0x400, "CLONE_FILES"}, {0x800, "CLONE_SIGHAND"},
    {0x1000, "CLONE_PIDFD"}, {0x2000, "CLONE_PTRACE"}, {0x4000, "CLONE_VFORK"},
    {0x8000, "CLONE_PARENT"}, {0x10000, "CLONE_THREAD"}, {0x20000, "CLONE_NEWNS"},
    {0x40000, "CLONE_SYSVSEM"}, {0x80000, "CLONE_SETTLS"}, {0x100000, "CLONE_PARENT_SETTID"},
    {0x200000, "CLONE_CHILD_CLEARTID"}, {0x800000, "CLONE_UNTRACED"},
    {0x1000000, "CLONE_CHILD_SETTID"}, {0x2000000, "CLONE_NEWCGROUP"}, {0x4000000, "CLONE_NEWUTS"},
    {0x8000000, "CLONE_NEWIPC"}, {0x10000000, "CLONE_NEWUSER"}, {0x20000000, "CLONE_NEWPID"},
    {0x40000000, "CLONE_NEWNET"}, {0x80000000ull, "CLONE_IO"}, XEND,
};
const struct xlat x_at_flags[] = {
    {0x100, "AT_SYMLINK_NOFOLLOW"}, {0x200, "AT_REMOVEDIR"}, {0x400, "AT_SYMLINK_FOLLOW"},
    {0x800, "AT_NO_AUTOMOUNT"}, {0x1000, "AT_EMPTY_PATH"}, {0x8000, "AT_RECURSIVE"}, XEND,
};
const struct xlat x_access_modes[] = { {4, "R_OK"}, {2, "W_OK"}, {1, "X_OK"}, XEND };
const struct xlat x_whence[] = {
    {0, "SEEK_SET"}, {1, "SEEK_CUR"}, {2, "SEEK_END"}, {3, "SEEK_DATA"}, {4, "SEEK_HOLE"}, XEND,
};
const struct xlat x_madvise[] = {
    {0, "MADV_NORMAL"}, {1, "MADV_RANDOM"}, {2, "MADV_SEQUENTIAL"}, {3, "MADV_WILLNEED"},
    {4, "MADV_DONTNEED"}, {8, "MADV_FREE"}, {9, "MADV_REMOVE"}, {10, "MADV_DONTFORK"},
    {11, "MADV_DOFORK"}, {12, "MADV_MERGEABLE"}, {13, "MADV_UNMERGEABLE"}, {14, "MADV_HUGEPAGE"},
    {15, "MADV_NOHUGEPAGE"}, {16, "MADV_DONTDUMP"}, {17, "MADV_DODUMP"}, {18, "MADV_WIPEONFORK"},
    {19, "MADV_KEEPONFORK"}, {20, "MADV_COLD"}, {21, "MADV_PAGEOUT"}, {22, "MADV_POPULATE_READ"},
    {23, "MADV_POPULATE_WRITE"}, {24, "MADV_DONTNEED_LOCKED"}, {25, "MADV_COLLAPSE"},
    {100, "MADV_HWPOISON"}, {101, "MADV_SOFT_OFFLINE"}, XEND,
};
const struct xlat x_rlimit[] = {
    {0, "RLIMIT_CPU"}, {1, "RLIMIT_FSIZE"}, {2, "RLIMIT_DATA"}, {3, "RLIMIT_STACK"},
    {4, "RLIMIT_CORE"}, {5, "RLIMIT_RSS"}, {6, "RLIMIT_NPROC"}, {7, "RLIMIT_NOFILE"},
    {8, "RLIMIT_MEMLOCK"}, {9, "RLIMIT_AS"}, {10, "RLIMIT_LOCKS"}, {11, "RLIMIT_SIGPENDING"},
    {12, "RLIMIT_MSGQUEUE"}, {13, "RLIMIT_NICE"}, {14, "RLIMIT_RTPRIO"}, {15, "RLIMIT_RTTIME"},
    XEND,
};
const struct xlat x_sigprocmask[] = { {0, "SIG_BLOCK"}, {1, "SIG_UNBLOCK"}, {2, "SIG_SETMASK"}, XEND };
const struct xlat x_af[] = {
    {0, "AF_UNSPEC"}, {1, "AF_UNIX"}, {2, "AF_INET"}, {4, "AF_IPX"}, {5, "AF_APPLETALK"},
    {10, "AF_INET6"}, {16, "AF_NETLINK"}, {17, "AF_PACKET"}, {29, "AF_CAN"}, {31, "AF_BLUETOOTH"},
    {38, "AF_ALG"}, {40, "AF_VSOCK"}, {44, "AF_XDP"}, XEND,
};
const struct xlat x_sock_type[] = {
    {1, "SOCK_STREAM"}, {2, "SOCK_DGRAM"}, {3, "SOCK_RAW"}, {4, "SOCK_RDM"},
    {5, "SOCK_SEQPACKET"}, {6, "SOCK_DCCP"}, {10, "SOCK_PACKET"}, XEND,
};
const struct xlat x_sock_flags[] = { {02000000, "SOCK_CLOEXEC"}, {04000, "SOCK_NONBLOCK"}, XEND };
const struct xlat x_fcntl_cmds[] = {
    {0, "F_DUPFD"}, {1, "F_GETFD"}, {2, "F_SETFD"}, {3, "F_GETFL"}, {4, "F_SETFL"},
    {5, "F_GETLK"}, {6, "F_SETLK"}, {7, "F_SETLKW"}, {8, "F_SETOWN"}, {9, "F_GETOWN"},
    {10, "F_SETSIG"}, {11, "F_GETSIG"}, {15, "F_SETOWN_EX"}, {16, "F_GETOWN_EX"},
    {17, "F_GETOWNER_UIDS"}, {36, "F_OFD_GETLK"}, {37, "F_OFD_SETLK"}, {38, "F_OFD_SETLKW"},
    {1024, "F_SETLEASE"}, {1025, "F_GETLEASE"}, {1026, "F_NOTIFY"}, {1027, "F_DUPFD_QUERY"},
    {1028, "F_CREATED_QUERY"}, {1029, "F_CANCELLK"}, {1030, "F_DUPFD_CLOEXEC"},
    {1031, "F_SETPIPE_SZ"}, {1032, "F_GETPIPE_SZ"}, {1033, "F_ADD_SEALS"}, {1034, "F_GET_SEALS"},
    XEND,
};
const struct xlat x_fd_flags[] = { {1, "FD_CLOEXEC"}, XEND };
const struct xlat x_grnd[] = { {1, "GRND_NONBLOCK"}, {2, "GRND_RANDOM"}, {4, "GRND_INSECURE"}, XEND };
const struct xlat x_clocks[] = {
    {0, "CLOCK_REALTIME"}, {1, "CLOCK_MONOTONIC"}, {2, "CLOCK_PROCESS_CPUTIME_ID"},
    {3, "CLOCK_THREAD_CPUTIME_ID"}, {4, "CLOCK_MONOTONIC_RAW"}, {5, "CLOCK_REALTIME_COARSE"},
    {6, "CLOCK_MONOTONIC_COARSE"}, {7, "CLOCK_BOOTTIME"}, {8, "CLOCK_REALTIME_ALARM"},
    {9, "CLOCK_BOOTTIME_ALARM"}, {11, "CLOCK_TAI"}, XEND,
};
const struct xlat x_timer_flags[] = { {1, "TIMER_ABSTIME"}, XEND };
const struct xlat x_futex_ops[] = {
    {0, "FUTEX_WAIT"}, {1, "FUTEX_WAKE"}, {2, "FUTEX_FD"}, {3, "FUTEX_REQUEUE"},
    {4, "FUTEX_CMP_REQUEUE"}, {5, "FUTEX_WAKE_OP"}, {6, "FUTEX_LOCK_PI"}, {7, "FUTEX_UNLOCK_PI"},
    {8, "FUTEX_TRYLOCK_PI"}, {9, "FUTEX_WAIT_BITSET"}, {10, "FUTEX_WAKE_BITSET"},
    {11, "FUTEX_WAIT_REQUEUE_PI"}, {12, "FUTEX_CMP_REQUEUE_PI"}, {13, "FUTEX_LOCK_PI2"}, XEND,
};
const struct xlat x_wait_opts[] = {
    {1, "WNOHANG"}, {2, "WSTOPPED"}, {4, "WEXITED"}, {8, "WCONTINUED"}, {0x01000000, "WNOWAIT"},
    {0x20000000, "__WNOTHREAD"}, {0x40000000, "__WALL"}, {0x80000000ull, "__WCLONE"}, XEND,
};
const struct xlat x_arch_prctl[] = {
    {0x1001, "ARCH_SET_GS"}, {0x1002, "ARCH_SET_FS"}, {0x1003, "ARCH_GET_FS"},
    {0x1004, "ARCH_GET_GS"}, {0x1011, "ARCH_GET_CPUID"}, {0x1012, "ARCH_SET_CPUID"},
    {0x1021, "ARCH_GET_XCOMP_SUPP"}, {0x1022, "ARCH_GET_XCOMP_PERM"},
    {0x1023, "ARCH_REQ_XCOMP_PERM"}, {0x2001, "ARCH_MAP_VDSO_X32"}, {0x2002, "ARCH_MAP_VDSO_32"},
    {0x2003, "ARCH_MAP_VDSO_64"}, {0x4001, "ARCH_GET_UNTAG_MASK"}, {0x4002, "ARCH_ENABLE_TAGGED_ADDR"},
    {0x4003, "ARCH_GET_MAX_TAG_BITS"}, {0x4004, "ARCH_FORCE_TAGGED_SVA"},
    {0x5001, "ARCH_SHSTK_ENABLE"}, {0x5002, "ARCH_SHSTK_DISABLE"}, {0x5003, "ARCH_SHSTK_LOCK"},
    {0x5004, "ARCH_SHSTK_UNLOCK"}, {0x5005, "ARCH_SHSTK_STATUS"}, XEND,
};
const struct xlat x_sa_flags[] = {
    {0x04000000, "SA_RESTORER"}, {0x08000000, "SA_ONSTACK"}, {0x10000000, "SA_RESTART"},
    {0x20000000, "SA_INTERRUPT"}, {0x40000000, "SA_NODEFER"}, {0x80000000ull, "SA_RESETHAND"},
    {4, "SA_SIGINFO"}, {1, "SA_NOCLDSTOP"}, {2, "SA_NOCLDWAIT"}, XEND,
};
const struct xlat x_sa_handler[] = { {0, "SIG_DFL"}, {1, "SIG_IGN"}, XEND };
const struct xlat x_statx_mask[] = {
    {0xfff, "STATX_ALL"},
    {0x1, "STATX_TYPE"}, {0x2, "STATX_MODE"}, {0x4, "STATX_NLINK"}, {0x8, "STATX_UID"},
    {0x10, "STATX_GID"}, {0x20, "STATX_ATIME"}, {0x40, "STATX_MTIME"}, {0x80, "STATX_CTIME"},
    {0x100, "STATX_INO"}, {0x200, "STATX_SIZE"}, {0x400, "STATX_BLOCKS"}, {0x800, "STATX_BTIME"},
    {0x1000, "STATX_MNT_ID"}, {0x2000, "STATX_DIOALIGN"}, XEND,
};
const struct xlat x_msg_flags[] = {
    {1, "MSG_OOB"}, {2, "MSG_PEEK"}, {4, "MSG_DONTROUTE"}, {8, "MSG_CTRUNC"}, {0x10, "MSG_PROBE"},
    {0x20, "MSG_TRUNC"}, {0x40, "MSG_DONTWAIT"}, {0x80, "MSG_EOR"}, {0x100, "MSG_WAITALL"},
    {0x200, "MSG_FIN"}, {0x400, "MSG_SYN"}, {0x800, "MSG_CONFIRM"}, {0x1000, "MSG_RST"},
    {0x2000, "MSG_ERRQUEUE"}, {0x4000, "MSG_NOSIGNAL"}, {0x8000, "MSG_MORE"}, {0x10000, "MSG_WAITFORONE"},
    {0x40000, "MSG_BATCH"}, {0x4000000, "MSG_ZEROCOPY"}, {0x20000000, "MSG_FASTOPEN"},
    {0x40000000, "MSG_CMSG_CLOEXEC"}, XEND,
};
const struct xlat x_fadvise[] = {
    {0, "POSIX_FADV_NORMAL"}, {1, "POSIX_FADV_RANDOM"}, {2, "POSIX_FADV_SEQUENTIAL"},
    {3, "POSIX_FADV_WILLNEED"}, {4, "POSIX_FADV_DONTNEED"}, {5, "POSIX_FADV_NOREUSE"}, XEND,
};
const struct xlat x_ioctl[] = {
    {0x5401, "TCGETS"}, {0x5402, "SNDCTL_TMR_START or TCSETS"}, {0x5403, "SNDCTL_TMR_STOP or TCSETSW"}, {0x5404, "SNDCTL_TMR_CONTINUE or TCSETSF"},
    {0x540b, "TCFLSH"}, {0x540e, "TIOCSCTTY"}, {0x540f, "TIOCGPGRP"}, {0x5410, "TIOCSPGRP"},
    {0x5413, "TIOCGWINSZ"}, {0x5414, "TIOCSWINSZ"}, {0x541b, "FIONREAD"}, {0x5421, "FIONBIO"},
    {0x5450, "FIONCLEX"}, {0x5451, "FIOCLEX"}, {0x5452, "FIOASYNC"}, {0x80045430, "TIOCGPTN"},
    {0x40045431, "TIOCSPTLCK"}, XEND,
};

static const struct xlat *xfind(const struct xlat *x, uint64_t v)
{
    for (; x->name; x++)
        if (x->val == v)
            return x;
    return NULL;
}

void print_xval(struct sb *b, const struct xlat *x, uint64_t v, const char *dflt_fmt)
{
    const struct xlat *e = xfind(x, v);
    if (e)
        sb_puts(b, e->name);
    else
        sb_printf(b, dflt_fmt, (unsigned long long)v);
}

void print_flags(struct sb *b, const struct xlat *x, uint64_t v, const char *zero_str)
{
    int n = 0;
    if (v == 0) {
        sb_puts(b, zero_str);
        return;
    }
    for (; x->name; x++) {
        if (x->val && (v & x->val) == x->val) {
            sb_puts(b, n++ ? "|" : "");
            sb_puts(b, x->name);
            v &= ~x->val;
        }
    }
    if (v)
        sb_printf(b, "%s%#llx", n ? "|" : "", (unsigned long long)v);
}

/* ---- strings -------------------------------------------------------------- */

void print_addr(struct sb *b, uint64_t a)
{
    if (a)
        sb_printf(b, "%#llx", (unsigned long long)a);
    else
        sb_puts(b, "NULL");
}

void print_quoted(struct sb *b, const uint8_t *s, size_t len, int hex, int force_hex)
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
    sb_putc(b, '"');
    for (size_t i = 0; i < len; i++) {
        uint8_t c = s[i];
        if (usehex) {
            sb_printf(b, "\\x%02x", c);
            continue;
        }
        switch (c) {
        case '"': sb_puts(b, "\\\""); break;
        case '\\': sb_puts(b, "\\\\"); break;
        case '\f': sb_puts(b, "\\f"); break;
        case '\n': sb_puts(b, "\\n"); break;
        case '\r': sb_puts(b, "\\r"); break;
        case '\t': sb_puts(b, "\\t"); break;
        case '\v': sb_puts(b, "\\v"); break;
        default:
            if (c >= ' ' && c < 0x7f) {
                sb_putc(b, (char)c);
            } else if (i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7') {
                sb_printf(b, "\\%03o", c);
            } else {
                sb_printf(b, "\\%o", c);
            }
        }
    }
    sb_putc(b, '"');
}

/* ---- signals and errors ------------------------------------------------------ */

static const char *const signames[] = {
    NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
    "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
    "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
    "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS", "SIGRTMIN",
};

const char *signal_name(int sig)
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

void print_signal(struct sb *b, int sig)
{
    const char *n = signal_name(sig);
    if (n)
        sb_puts(b, n);
    else
        sb_printf(b, "%d", sig);
}

void print_sigset(struct sb *b, const uint8_t *set, size_t len)
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
        sb_putc(b, '~');
    }
    char sep = '[';
    for (unsigned i = 0; i < bits; i++) {
        if (!(m & (1ull << i)))
            continue;
        int sig = (int)i + 1;
        sb_putc(b, sep);
        sep = ' ';
        if (sig <= 32)
            sb_puts(b, signames[sig] + 3);
        else
            sb_printf(b, "RT_%d", sig - 32);
    }
    if (sep == '[')
        sb_putc(b, '[');
    sb_putc(b, ']');
}

const char *errno_name(int e)
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

const char *errno_message(int e)
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

void print_mode(struct sb *b, uint32_t mode)
{
    static const struct xlat types[] = {
        {0140000, "S_IFSOCK"}, {0120000, "S_IFLNK"}, {0100000, "S_IFREG"}, {0060000, "S_IFBLK"},
        {0040000, "S_IFDIR"}, {0020000, "S_IFCHR"}, {0010000, "S_IFIFO"}, XEND,
    };
    uint32_t t = mode & 0170000;
    if (t) {
        const struct xlat *e = xfind(types, t);
        if (e)
            sb_printf(b, "%s|", e->name);
        else
            sb_printf(b, "%#o|", t);
    }
    sb_printf(b, "%s%s%s%#03o", (mode & 04000) ? "S_ISUID|" : "", (mode & 02000) ? "S_ISGID|" : "",
              (mode & 01000) ? "S_ISVTX|" : "", mode & 0777);
}

void print_stat(struct sb *b, const uint8_t *st, size_t len)
{
    if (len < 144)
        return;
    uint32_t mode = rd32(st + 24);
    sb_puts(b, "{st_mode=");
    print_mode(b, mode);
    uint32_t t = mode & 0170000;
    if (t == 0020000 || t == 0060000) {
        uint64_t dev = rd64(st + 40);
        unsigned major = (unsigned)(((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffull));
        unsigned minor = (unsigned)((dev & 0xff) | ((dev >> 12) & ~0xffull));
        sb_printf(b, ", st_rdev=makedev(%#x, %#x), ...}", major, minor);
    } else {
        sb_printf(b, ", st_size=%lld, ...}", (long long)rd64(st + 48));
    }
}

void print_statx(struct sb *b, const uint8_t *st, size_t len)
{
    static const struct xlat attrs[] = {
        {0x4, "STATX_ATTR_COMPRESSED"}, {0x10, "STATX_ATTR_IMMUTABLE"}, {0x20, "STATX_ATTR_APPEND"},
        {0x40, "STATX_ATTR_NODUMP"}, {0x800, "STATX_ATTR_ENCRYPTED"}, {0x1000, "STATX_ATTR_AUTOMOUNT"},
        {0x2000, "STATX_ATTR_MOUNT_ROOT"}, {0x100000, "STATX_ATTR_VERITY"}, {0x200000, "STATX_ATTR_DAX"},
        XEND,
    };
    if (len < 256)
        return;
    sb_puts(b, "{stx_mask=");
    print_flags(b, x_statx_mask, rd32(st), "0");
    sb_puts(b, ", stx_attributes=");
    print_flags(b, attrs, rd64(st + 8), "0");
    uint16_t mode;
    memcpy(&mode, st + 28, 2);
    sb_puts(b, ", stx_mode=");
    print_mode(b, mode);
    sb_printf(b, ", stx_size=%llu, ...}", (unsigned long long)rd64(st + 40));
}

void print_timespec(struct sb *b, const uint8_t *ts, size_t len)
{
    if (len < 16)
        return;
    sb_printf(b, "{tv_sec=%lld, tv_nsec=%lld}", (long long)rd64(ts), (long long)rd64(ts + 8));
}

static void print_rlim(struct sb *b, uint64_t v)
{
    if (v == UINT64_MAX)
        sb_puts(b, "RLIM64_INFINITY");
    else if (v > 1024 && v % 1024 == 0)
        sb_printf(b, "%llu*1024", (unsigned long long)(v / 1024));
    else
        sb_printf(b, "%llu", (unsigned long long)v);
}

void print_rlimit(struct sb *b, const uint8_t *rl, size_t len)
{
    if (len < 16)
        return;
    sb_puts(b, "{rlim_cur=");
    print_rlim(b, rd64(rl));
    sb_puts(b, ", rlim_max=");
    print_rlim(b, rd64(rl + 8));
    sb_putc(b, '}');
}

void print_sigaction(struct sb *b, const uint8_t *sa, size_t len)
{
    if (len < 32)
        return;
    uint64_t handler = rd64(sa), flags = rd64(sa + 8), restorer = rd64(sa + 16);
    sb_puts(b, "{sa_handler=");
    const struct xlat *h = xfind(x_sa_handler, handler);
    if (h)
        sb_puts(b, h->name);
    else
        print_addr(b, handler);
    sb_puts(b, ", sa_mask=");
    print_sigset(b, sa + 24, 8);
    sb_puts(b, ", sa_flags=");
    print_flags(b, x_sa_flags, flags, "0");
    if (flags & 0x04000000) {
        sb_puts(b, ", sa_restorer=");
        print_addr(b, restorer);
    }
    sb_putc(b, '}');
}

void print_sockaddr(struct sb *b, const uint8_t *sa, size_t len)
{
    if (len < 2) {
        sb_puts(b, "{}");
        return;
    }
    uint16_t fam;
    memcpy(&fam, sa, 2);
    sb_puts(b, "{sa_family=");
    print_xval(b, x_af, fam, "%llu");
    if (fam == 1) { /* AF_UNIX */
        size_t n = len - 2;
        const uint8_t *path = sa + 2;
        if (n > 0 && path[0] == 0) {
            /* abstract: @name */
            sb_puts(b, ", sun_path=@");
            print_quoted(b, path + 1, n - 1, 0, 0);
        } else if (n > 0) {
            size_t l = strnlen((const char *)path, n);
            sb_puts(b, ", sun_path=");
            print_quoted(b, path, l, 0, 0);
        }
    } else if (fam == 2 && len >= 8) { /* AF_INET */
        uint16_t port;
        char ip[INET_ADDRSTRLEN];
        memcpy(&port, sa + 2, 2);
        inet_ntop(AF_INET, sa + 4, ip, sizeof ip);
        sb_printf(b, ", sin_port=htons(%u), sin_addr=inet_addr(\"%s\")", ntohs(port), ip);
    } else if (fam == 10 && len >= 28) { /* AF_INET6 */
        uint16_t port;
        uint32_t flow, scope;
        char ip[INET6_ADDRSTRLEN];
        memcpy(&port, sa + 2, 2);
        memcpy(&flow, sa + 4, 4);
        memcpy(&scope, sa + 24, 4);
        inet_ntop(AF_INET6, sa + 8, ip, sizeof ip);
        sb_printf(b, ", sin6_port=htons(%u), sin6_flowinfo=htonl(%u), "
                     "inet_pton(AF_INET6, \"%s\", &sin6_addr), sin6_scope_id=%u",
                  ntohs(port), ntohl(flow), ip, scope);
    } else {
        sb_puts(b, ", ...");
    }
    sb_putc(b, '}');
}

void print_statfs(struct sb *b, const uint8_t *st, size_t len)
{
    static const struct xlat magic[] = {
        {0xef53, "EXT2_SUPER_MAGIC"}, {0x01021994, "TMPFS_MAGIC"}, {0x9fa0, "PROC_SUPER_MAGIC"},
        {0x62656572, "SYSFS_MAGIC"}, {0x794c7630, "OVERLAYFS_SUPER_MAGIC"}, {0x58465342, "XFS_SUPER_MAGIC"},
        {0x9123683e, "BTRFS_SUPER_MAGIC"}, {0x63677270, "CGROUP2_SUPER_MAGIC"}, {0x27e0eb, "CGROUP_SUPER_MAGIC"},
        {0x1cd1, "DEVPTS_SUPER_MAGIC"}, {0x6969, "NFS_SUPER_MAGIC"}, {0x73717368, "SQUASHFS_MAGIC"},
        {0x4d44, "MSDOS_SUPER_MAGIC"}, {0x65735546, "FUSE_SUPER_MAGIC"}, {0x01021997, "V9FS_MAGIC"},
        {0x64626720, "DEBUGFS_MAGIC"}, {0x74726163, "TRACEFS_MAGIC"}, {0x73636673, "SECURITYFS_MAGIC"},
        {0xcafe4a11, "BPF_FS_MAGIC"}, {0x858458f6, "RAMFS_MAGIC"}, {0x42494e4d, "BINFMTFS_MAGIC"},
        {0x19800202, "MQUEUE_MAGIC"}, {0x50495045, "PIPEFS_MAGIC"}, {0x534f434b, "SOCKFS_MAGIC"},
        {0x2bad1dea, "INOTIFYFS_SUPER_MAGIC"}, {0x9660, "ISOFS_SUPER_MAGIC"}, XEND,
    };
    static const struct xlat stflags[] = {
        {1, "ST_RDONLY"}, {2, "ST_NOSUID"}, {4, "ST_NODEV"}, {8, "ST_NOEXEC"}, {16, "ST_SYNCHRONOUS"},
        {0x20, "ST_VALID"}, {64, "ST_MANDLOCK"}, {128, "ST_WRITE"}, {256, "ST_APPEND"},
        {512, "ST_IMMUTABLE"}, {0x400, "ST_NOATIME"}, {0x800, "ST_NODIRATIME"}, {0x1000, "ST_RELATIME"},
        {0x2000, "ST_NOSYMFOLLOW"}, XEND,
    };
    if (len < 120)
        return;
    sb_puts(b, "{f_type=");
    print_xval(b, magic, rd64(st), "%#llx");
    sb_printf(b, ", f_bsize=%lld, f_blocks=%llu, f_bfree=%llu, f_bavail=%llu, f_files=%llu, f_ffree=%llu, "
                 "f_fsid={val=[%#x, %#x]}, f_namelen=%lld, f_frsize=%lld, f_flags=",
              (long long)rd64(st + 8), (unsigned long long)rd64(st + 16), (unsigned long long)rd64(st + 24),
              (unsigned long long)rd64(st + 32), (unsigned long long)rd64(st + 40),
              (unsigned long long)rd64(st + 48), rd32(st + 56), rd32(st + 60), (long long)rd64(st + 64),
              (long long)rd64(st + 72));
    print_flags(b, stflags, rd64(st + 80), "0");
    sb_putc(b, '}');
}

void print_sysinfo(struct sb *b, const uint8_t *si, size_t len)
{
    if (len < 112)
        return;
    uint16_t procs;
    memcpy(&procs, si + 80, 2);
    sb_printf(b, "{uptime=%lld, loads=[%llu, %llu, %llu], totalram=%llu, freeram=%llu, sharedram=%llu, "
                 "bufferram=%llu, totalswap=%llu, freeswap=%llu, procs=%u, totalhigh=%llu, freehigh=%llu, "
                 "mem_unit=%u}",
              (long long)rd64(si), (unsigned long long)rd64(si + 8), (unsigned long long)rd64(si + 16),
              (unsigned long long)rd64(si + 24), (unsigned long long)rd64(si + 32),
              (unsigned long long)rd64(si + 40), (unsigned long long)rd64(si + 48),
              (unsigned long long)rd64(si + 56), (unsigned long long)rd64(si + 64),
              (unsigned long long)rd64(si + 72), procs, (unsigned long long)rd64(si + 88),
              (unsigned long long)rd64(si + 96), rd32(si + 104));
}

void print_cpuset(struct sb *b, const uint8_t *set, size_t len)
{
    char sep = '[';
    for (size_t i = 0; i < len * 8; i++)
        if (set[i / 8] & (1u << (i % 8))) {
            sb_printf(b, "%c%zu", sep, i);
            sep = ' ';
        }
    if (sep == '[')
        sb_putc(b, '[');
    sb_putc(b, ']');
}

static const struct xlat x_poll_events[] = {
    {1, "POLLIN"}, {2, "POLLPRI"}, {4, "POLLOUT"}, {8, "POLLERR"}, {0x10, "POLLHUP"}, {0x20, "POLLNVAL"},
    {0x40, "POLLRDNORM"}, {0x80, "POLLRDBAND"}, {0x100, "POLLWRNORM"}, {0x200, "POLLWRBAND"},
    {0x400, "POLLMSG"}, {0x1000, "POLLREMOVE"}, {0x2000, "POLLRDHUP"}, XEND,
};

void print_pollfds(struct sb *b, const uint8_t *p, size_t len, int revents)
{
    int n = 0;
    sb_putc(b, '[');
    for (size_t off = 0; off + 8 <= len; off += 8) {
        int fd = (int)rd32(p + off);
        uint16_t ev, rev;
        memcpy(&ev, p + off + 4, 2);
        memcpy(&rev, p + off + 6, 2);
        if (revents && !rev)
            continue;
        sb_printf(b, "%s{fd=%d, %s=", n++ ? ", " : "", fd, revents ? "revents" : "events");
        print_flags(b, x_poll_events, revents ? rev : ev, "0");
        sb_putc(b, '}');
    }
    sb_putc(b, ']');
}

void print_iov(struct sb *b, const uint8_t *p, size_t len, uint64_t count, uint32_t strsize, int hex)
{
    size_t off = 0;
    uint64_t shown = 0;
    sb_putc(b, '[');
    while (off + 20 <= len && shown < count) {
        uint64_t base = rd64(p + off), l = rd64(p + off + 8);
        uint32_t n = rd32(p + off + 16);
        if (off + 20 + n > len)
            break;
        if (shown == strsize) {
            sb_puts(b, ", ...");
            break;
        }
        if (shown)
            sb_puts(b, ", ");
        sb_puts(b, "{iov_base=");
        if (!base) {
            sb_puts(b, "NULL");
        } else {
            size_t k = n < strsize ? n : strsize;
            print_quoted(b, p + off + 20, k, hex, 0);
            if (l > k && (n > k || n == strsize))
                sb_puts(b, "...");
        }
        sb_printf(b, ", iov_len=%llu}", (unsigned long long)l);
        off += 20 + n;
        shown++;
    }
    if (shown < count && off >= len && shown != strsize)
        sb_puts(b, shown ? ", ..." : "...");
    sb_putc(b, ']');
}

void print_socket_protocol(struct sb *b, int family, int proto)
{
    static const struct xlat ip[] = {
        {0, "IPPROTO_IP"}, {1, "IPPROTO_ICMP"}, {2, "IPPROTO_IGMP"}, {6, "IPPROTO_TCP"},
        {17, "IPPROTO_UDP"}, {41, "IPPROTO_IPV6"}, {58, "IPPROTO_ICMPV6"}, {132, "IPPROTO_SCTP"},
        {136, "IPPROTO_UDPLITE"}, {255, "IPPROTO_RAW"}, {262, "IPPROTO_MPTCP"}, XEND,
    };
    static const struct xlat nl[] = {
        {0, "NETLINK_ROUTE"}, {4, "NETLINK_SOCK_DIAG"}, {6, "NETLINK_XFRM"}, {9, "NETLINK_AUDIT"},
        {15, "NETLINK_KOBJECT_UEVENT"}, {16, "NETLINK_GENERIC"}, XEND,
    };
    if (family == 2 || family == 10)
        print_xval(b, ip, (uint64_t)proto, "%llu");
    else if (family == 16)
        print_xval(b, nl, (uint64_t)proto, "%llu");
    else
        sb_printf(b, "%d", proto);
}

void print_termios(struct sb *b, const uint8_t *t, size_t len)
{
    static const struct xlat bauds[] = {
        {0, "B0"}, {1, "B50"}, {2, "B75"}, {3, "B110"}, {4, "B134"}, {5, "B150"}, {6, "B200"},
        {7, "B300"}, {8, "B600"}, {9, "B1200"}, {10, "B1800"}, {11, "B2400"}, {12, "B4800"},
        {13, "B9600"}, {14, "B19200"}, {15, "B38400"}, {010001, "B57600"}, {010002, "B115200"},
        {010003, "B230400"}, {010004, "B460800"}, {010005, "B500000"}, {010006, "B576000"},
        {010007, "B921600"}, {010010, "B1000000"}, {010011, "B1152000"}, {010012, "B1500000"},
        {010013, "B2000000"}, {010014, "B2500000"}, {010015, "B3000000"}, {010016, "B3500000"},
        {010017, "B4000000"}, {010000, "BOTHER"}, XEND,
    };
    static const struct xlat iflags[] = {
        {1, "IGNBRK"}, {2, "BRKINT"}, {4, "IGNPAR"}, {010, "PARMRK"}, {020, "INPCK"}, {040, "ISTRIP"},
        {0100, "INLCR"}, {0200, "IGNCR"}, {0400, "ICRNL"}, {01000, "IUCLC"}, {02000, "IXON"},
        {04000, "IXANY"}, {010000, "IXOFF"}, {020000, "IMAXBEL"}, {040000, "IUTF8"}, XEND,
    };
    static const struct xlat oflags[] = {
        {1, "OPOST"}, {2, "OLCUC"}, {4, "ONLCR"}, {010, "OCRNL"}, {020, "ONOCR"}, {040, "ONLRET"},
        {0100, "OFILL"}, {0200, "OFDEL"}, XEND,
    };
    static const struct xlat cflags[] = {
        {0100, "CSTOPB"}, {0200, "CREAD"}, {0400, "PARENB"}, {01000, "PARODD"}, {02000, "HUPCL"},
        {04000, "CLOCAL"}, {04000000000, "CTVB"}, {010000000000, "CMSPAR"}, {020000000000, "CRTSCTS"}, XEND,
    };
    static const struct xlat lflags[] = {
        {1, "ISIG"}, {2, "ICANON"}, {4, "XCASE"}, {010, "ECHO"}, {020, "ECHOE"}, {040, "ECHOK"},
        {0100, "ECHONL"}, {0200, "NOFLSH"}, {0100000, "IEXTEN"}, {01000, "ECHOCTL"}, {02000, "ECHOPRT"},
        {04000, "ECHOKE"}, {010000, "FLUSHO"}, {040000, "PENDIN"}, {0400, "TOSTOP"},
        {0200000, "EXTPROC"}, XEND,
    };
    if (len < 36)
        return;
    uint32_t iflag = rd32(t), oflag = rd32(t + 4), cflag = rd32(t + 8), lflag = rd32(t + 12);
    sb_puts(b, "{c_iflag=");
    print_flags(b, iflags, iflag, "0");
    /* output delays by their field, then the flags */
    sb_printf(b, ", c_oflag=NL%u|CR%u|TAB%u|BS%u|VT%u|FF%u", (oflag >> 8) & 1, (oflag >> 9) & 3,
              (oflag >> 11) & 3, (oflag >> 13) & 1, (oflag >> 14) & 1, (oflag >> 15) & 1);
    if (oflag & 0377) {
        sb_putc(b, '|');
        print_flags(b, oflags, oflag & 0377, "0");
    }
    if (oflag & ~0177777u)
        sb_printf(b, "|%#x", oflag & ~0177777u);
    sb_puts(b, ", c_cflag=");
    print_xval(b, bauds, cflag & 010017, "%#llx");
    sb_printf(b, "|CS%u", 5 + ((cflag >> 4) & 3));
    uint32_t rest = cflag & ~(010017u | 060u);
    if (rest & 02003600000u) { /* CIBAUD: an input speed of its own */
        sb_puts(b, "|");
        print_xval(b, bauds, (rest & 02003600000u) >> 16, "%#llx");
        sb_puts(b, "<<IBSHIFT");
        rest &= ~02003600000u;
    }
    if (rest) {
        sb_putc(b, '|');
        print_flags(b, cflags, rest, "0");
    }
    sb_puts(b, ", c_lflag=");
    print_flags(b, lflags, lflag, "0");
    sb_puts(b, ", ...}");
}

void print_winsize(struct sb *b, const uint8_t *w, size_t len)
{
    uint16_t v[4];
    if (len < 8)
        return;
    memcpy(v, w, 8);
    sb_printf(b, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}", v[0], v[1], v[2], v[3]);
}

void print_epoll_events(struct sb *b, const uint8_t *p, size_t len, int array)
{
    static const struct xlat ev[] = {
        {1, "EPOLLIN"}, {2, "EPOLLPRI"}, {4, "EPOLLOUT"}, {8, "EPOLLERR"}, {0x10, "EPOLLHUP"},
        {0x20, "EPOLLNVAL"}, {0x40, "EPOLLRDNORM"}, {0x80, "EPOLLRDBAND"}, {0x100, "EPOLLWRNORM"},
        {0x200, "EPOLLWRBAND"}, {0x400, "EPOLLMSG"}, {0x2000, "EPOLLRDHUP"}, {1u << 28, "EPOLLEXCLUSIVE"},
        {1u << 29, "EPOLLWAKEUP"}, {1u << 30, "EPOLLONESHOT"}, {1ull << 31, "EPOLLET"}, XEND,
    };
    if (array)
        sb_putc(b, '[');
    for (size_t off = 0; off + 12 <= len; off += 12) {
        uint64_t data = rd64(p + off + 4);
        sb_puts(b, off ? ", {events=" : "{events=");
        print_flags(b, ev, rd32(p + off), "0");
        sb_printf(b, ", data={u32=%u, u64=%llu}}", (uint32_t)data, (unsigned long long)data);
        if (!array)
            break;
    }
    if (array)
        sb_putc(b, ']');
}

void print_cloexec_flags(struct sb *b, const char *sc, uint64_t v)
{
    const char *pre = !strcmp(sc, "epoll_create1") ? "EPOLL" : !strcmp(sc, "eventfd2") ? "EFD"
                    : !strcmp(sc, "signalfd4") ? "SFD" : !strcmp(sc, "timerfd_create") ? "TFD"
                    : !strcmp(sc, "inotify_init1") ? "IN" : "O";
    int n = 0;
    if (!v) {
        sb_putc(b, '0');
        return;
    }
    if (v & 02000000) {
        sb_printf(b, "%s_CLOEXEC", pre);
        n++;
    }
    if ((v & 04000) && strcmp(pre, "EPOLL")) {
        sb_printf(b, "%s%s_NONBLOCK", n++ ? "|" : "", pre);
        v &= ~04000ull;
    }
    if ((v & 1) && !strcmp(pre, "EFD")) {
        sb_printf(b, "%sEFD_SEMAPHORE", n++ ? "|" : "");
        v &= ~1ull;
    }
    v &= ~02000000ull;
    if (v)
        sb_printf(b, "%s%#llx", n ? "|" : "", (unsigned long long)v);
}

void print_utsname(struct sb *b, const uint8_t *u, size_t len)
{
    if (len < 130)
        return;
    sb_puts(b, "{sysname=");
    print_quoted(b, u, strnlen((const char *)u, 65), 0, 0);
    sb_puts(b, ", nodename=");
    print_quoted(b, u + 65, strnlen((const char *)u + 65, 65), 0, 0);
    sb_puts(b, ", ...}");
}

void print_wait_status(struct sb *b, int s)
{
    if ((s & 0x7f) == 0)
        sb_printf(b, "[{WIFEXITED(s) && WEXITSTATUS(s) == %d}", (s >> 8) & 0xff);
    else if ((s & 0xff) == 0x7f) {
        sb_puts(b, "[{WIFSTOPPED(s) && WSTOPSIG(s) == ");
        print_signal(b, (s >> 8) & 0xff);
        sb_putc(b, '}');
    } else if (s == 0xffff) {
        sb_puts(b, "[{WIFCONTINUED(s)}");
    } else {
        sb_puts(b, "[{WIFSIGNALED(s) && WTERMSIG(s) == ");
        print_signal(b, s & 0x7f);
        sb_puts(b, (s & 0x80) ? " && WCOREDUMP(s)}" : "}");
    }
    if (s >> 16)
        sb_printf(b, " | %#x", (unsigned)s & 0xffff0000u);
    sb_putc(b, ']');
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
static void print_clock_t(struct sb *b, uint64_t v)
{
    sb_printf(b, "%llu", (unsigned long long)v);
    if (!v)
        return;
    sb_printf(b, " /* %llu", (unsigned long long)(v / 100));
    unsigned rem = (unsigned)(v % 100);
    if (rem)
        sb_printf(b, rem % 10 ? ".%02u" : ".%u", rem % 10 ? rem : rem / 10);
    sb_puts(b, " s */");
}

void print_siginfo(struct sb *b, const uint8_t *si, size_t len)
{
    if (len < 48) {
        sb_puts(b, "{}");
        return;
    }
    int signo = (int)rd32(si), err = (int)rd32(si + 4), code = (int)rd32(si + 8);
    sb_puts(b, "{si_signo=");
    print_signal(b, signo);
    sb_puts(b, ", si_code=");
    const char *cn = si_code_name(signo, code);
    if (cn)
        sb_puts(b, cn);
    else
        sb_printf(b, "%d", code);
    if (err)
        sb_printf(b, ", si_errno=%d", err);
    int32_t pid = (int32_t)rd32(si + 16);
    uint32_t uid = rd32(si + 20);
    if (code <= 0 || (code == 0x80 && signo != 11 && signo != 7 && signo != 4 && signo != 8)) {
        if (code == -2) { /* SI_TIMER */
            sb_printf(b, ", si_timerid=%#x, si_overrun=%d, si_int=%d, si_ptr=%#llx", (unsigned)pid,
                      (int)uid, (int)rd32(si + 24), (unsigned long long)rd64(si + 24));
        } else if (code == 0x80) {
            /* SI_KERNEL with no fields */
        } else {
            sb_printf(b, ", si_pid=%d, si_uid=%u", pid, uid);
            if (code == -1 || code == -3)
                sb_printf(b, ", si_int=%d, si_ptr=%#llx", (int)rd32(si + 24),
                          (unsigned long long)rd64(si + 24));
        }
    } else if (signo == 17) {
        sb_printf(b, ", si_pid=%d, si_uid=%u, si_status=", pid, uid);
        int st = (int)rd32(si + 24);
        if (code == 1)
            sb_printf(b, "%d", st);
        else
            print_signal(b, st);
        sb_puts(b, ", si_utime=");
        print_clock_t(b, rd64(si + 32));
        sb_puts(b, ", si_stime=");
        print_clock_t(b, rd64(si + 40));
    } else if (signo == 11 || signo == 7 || signo == 4 || signo == 8 || signo == 5) {
        sb_puts(b, ", si_addr=");
        print_addr(b, rd64(si + 16));
    } else if (signo == 29) { /* SIGIO/SIGPOLL */
        sb_printf(b, ", si_band=%lld, si_fd=%d", (long long)rd64(si + 16), (int)rd32(si + 24));
    } else if (signo == 31 && code == 1) { /* SYS_SECCOMP */
        sb_printf(b, ", si_call_addr=%#llx, si_syscall=%d, si_arch=%#x",
                  (unsigned long long)rd64(si + 16), (int)rd32(si + 24), rd32(si + 28));
    }
    sb_putc(b, '}');
}
