/* cat-syscall-format.c - arguments and return values as strace prints them
 * (see cat-syscall-format.h); the argument kinds come from model/syscalls.h,
 * their spelling from model/syscalls_decode.h. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <linux/sched.h>

#include "cat-syscall-format.h"

#ifndef F_LINUX_SPECIFIC_BASE
#define F_LINUX_SPECIFIC_BASE 1024
#endif

/* ---- helpers -------------------------------------------------------------- */

int sc_is_err(int64_t ret) { return ret < 0 && ret >= -4095; }

const struct sc_cap *sc_find_cap(const struct sc_item *it, uint32_t arg, uint32_t kind)
{
    for (uint32_t i = 0; i < it->ncap; i++)
        if (it->cap[i].arg == arg && it->cap[i].kind == kind)
            return &it->cap[i];
    return NULL;
}

const struct sc_cap *sc_find_cap_at(const struct sc_item *it, uint32_t arg, uint32_t kind, int at_exit)
{
    for (uint32_t i = 0; i < it->ncap; i++)
        if (it->cap[i].arg == arg && it->cap[i].kind == kind && !(it->cap[i].flags & TR_CAPF_EXIT) == !at_exit)
            return &it->cap[i];
    return NULL;
}

const uint8_t *sc_cap_data(const struct sc_item *it, const struct sc_cap *cp)
{
    return it->data + cp->off;
}

/* ---- argument formatting ------------------------------------------------------ */

struct fmt {
    struct cat_ctx *c;
    const struct sc_item *it;
    const struct syscall_desc *d;
    struct syscalls_buf *b;
};

static void fmt_fd(struct fmt *F, int64_t fd, uint32_t arg)
{
    syscalls_buf_printf(F->b, "%d", (int)fd);
    if (F->c->o->decode_fds) {
        const struct sc_cap *cp = sc_find_cap(F->it, arg, TR_CAP_FD_PATH);
        if (cp) {
            syscalls_buf_putc(F->b, '<');
            syscalls_buf_put(F->b, (const char *)sc_cap_data(F->it, cp), cp->len);
            syscalls_buf_putc(F->b, '>');
        }
    }
}

static void fmt_string(struct fmt *F, unsigned i, size_t limit)
{
    const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRING);
    uint64_t v = F->it->args[i];
    if (!v) {
        syscalls_buf_puts(F->b, "NULL");
        return;
    }
    if (!cp || (cp->flags & TR_CAPF_FAULT)) {
        syscalls_print_addr(F->b, v);
        return;
    }
    size_t n = cp->len < limit ? cp->len : limit;
    syscalls_print_quoted(F->b, sc_cap_data(F->it, cp), n, F->c->o->hex, 0);
    if (n < cp->len || (cp->flags & TR_CAPF_TRUNCATED))
        syscalls_buf_puts(F->b, "...");
}

/* a buffer of total bytes of which the capture holds a prefix */
static void fmt_buffer(struct fmt *F, unsigned i, uint64_t total, int force_hex)
{
    const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_BUFFER);
    uint64_t v = F->it->args[i];
    if (!cp || (cp->flags & TR_CAPF_FAULT) || (cp->len == 0 && total > 0)) {
        syscalls_print_addr(F->b, v);
        return;
    }
    size_t lim = F->c->o->strsize;
    size_t n = cp->len < lim ? cp->len : lim;
    syscalls_print_quoted(F->b, sc_cap_data(F->it, cp), n, F->c->o->hex, force_hex);
    if (total > n)
        syscalls_buf_puts(F->b, "...");
}

static void fmt_argv(struct fmt *F, unsigned i)
{
    const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRINGS);
    if (!F->it->args[i]) {
        syscalls_buf_puts(F->b, "NULL");
        return;
    }
    if (!cp || (cp->flags & TR_CAPF_FAULT)) {
        syscalls_print_addr(F->b, F->it->args[i]);
        return;
    }
    const uint8_t *p = sc_cap_data(F->it, cp), *end = p + cp->len;
    size_t lim = F->c->o->strsize, count = 0;
    syscalls_buf_putc(F->b, '[');
    while (p < end) {
        const uint8_t *z = memchr(p, 0, (size_t)(end - p));
        size_t len = z ? (size_t)(z - p) : (size_t)(end - p);
        if (count == lim) {
            syscalls_buf_puts(F->b, ", ...");
            break;
        }
        if (count++)
            syscalls_buf_puts(F->b, ", ");
        size_t n = len < lim ? len : lim;
        syscalls_print_quoted(F->b, p, n, F->c->o->hex, 0);
        if (len > n)
            syscalls_buf_puts(F->b, "...");
        p += len + 1;
    }
    if (cp->flags & TR_CAPF_TRUNCATED)
        syscalls_buf_puts(F->b, ", ...");
    syscalls_buf_putc(F->b, ']');
}

/* The int recorded for argument arg (an int the call read or wrote): 1 and *v, or 0 */
static int cap_int(const struct sc_item *it, unsigned arg, int *v)
{
    const struct sc_cap *cp = sc_find_cap(it, arg, TR_CAP_STRUCT);
    if (!cp || cp->len != sizeof *v)
        return 0;
    memcpy(v, sc_cap_data(it, cp), sizeof *v);
    return 1;
}

/* fd_set bytes as strace lists them: [3 4], the fds below nfds that are set */
static void fmt_fdset(struct syscalls_buf *b, const uint8_t *p, size_t len, uint64_t nfds)
{
    char sep = '[';
    for (uint64_t fd = 0; fd < nfds && fd / 8 < len; fd++)
        if (p[fd / 8] & (1u << (fd % 8))) {
            syscalls_buf_printf(b, "%c%llu", sep, (unsigned long long)fd);
            sep = ' ';
        }
    if (sep == '[')
        syscalls_buf_putc(b, '[');
    syscalls_buf_putc(b, ']');
}

static void fmt_struct(struct fmt *F, unsigned i, enum syscall_arg t)
{
    const struct sc_cap *cp = sc_find_cap_at(F->it, i, TR_CAP_STRUCT, 0);
    if (!cp)
        cp = sc_find_cap(F->it, i, TR_CAP_STRUCT);
    uint64_t v = F->it->args[i];
    if (!cp || !cp->len) {
        syscalls_print_addr(F->b, v);
        return;
    }
    const uint8_t *p = sc_cap_data(F->it, cp);
    switch (t) {
    case SYSCALL_ARG_RLIMIT_IN: case SYSCALL_ARG_RLIMIT_OUT: syscalls_print_rlimit(F->b, p, cp->len); break;
    case SYSCALL_ARG_SIGSET_IN: case SYSCALL_ARG_SIGSET_OUT: syscalls_print_sigset(F->b, p, cp->len); break;
    case SYSCALL_ARG_SIGACTION_IN: case SYSCALL_ARG_SIGACTION_OUT:
        syscalls_print_sigaction(F->b, p, cp->len);
        break;
    case SYSCALL_ARG_TIMESPEC_IN: case SYSCALL_ARG_TIMESPEC_OUT: case SYSCALL_ARG_TIMESPEC_REMAINING:
        syscalls_print_timespec(F->b, p, cp->len);
        break;
    case SYSCALL_ARG_STAT_OUT: syscalls_print_stat(F->b, p, cp->len); break;
    case SYSCALL_ARG_UTIMENS_IN: syscalls_print_utimens(F->b, p, cp->len); break;
    case SYSCALL_ARG_TIMEVAL_PAIR_IN: syscalls_print_timeval_pair(F->b, p, cp->len); break;
    case SYSCALL_ARG_RUSAGE_OUT: syscalls_print_rusage(F->b, p, cp->len); break;
    case SYSCALL_ARG_STACK_IN: case SYSCALL_ARG_STACK_OUT: syscalls_print_stack(F->b, p, cp->len); break;
    case SYSCALL_ARG_ITIMERSPEC_IN: case SYSCALL_ARG_ITIMERSPEC_OUT: syscalls_print_itimerspec(F->b, p, cp->len); break;
    case SYSCALL_ARG_ITIMERVAL_IN: case SYSCALL_ARG_ITIMERVAL_OUT: syscalls_print_itimerval(F->b, p, cp->len); break;
    case SYSCALL_ARG_SIGEVENT_IN: syscalls_print_sigevent(F->b, p, cp->len); break;
    case SYSCALL_ARG_TMS_OUT: syscalls_print_tms(F->b, p, cp->len); break;
    case SYSCALL_ARG_FDSET_INOUT: fmt_fdset(F->b, p, cp->len, (uint32_t)F->it->args[0]); break;
    case SYSCALL_ARG_TIMEVAL_INOUT: syscalls_print_timeval(F->b, p, cp->len); break;
    case SYSCALL_ARG_TIMESPEC_INOUT: syscalls_print_timespec(F->b, p, cp->len); break;
    case SYSCALL_ARG_PSELECT_SIGMASK: {
        uint64_t d[2]; /* the sigset's address and size (strace reads the set too) */
        if (cp->len < sizeof d)
            break;
        memcpy(d, p, sizeof d);
        syscalls_buf_puts(F->b, "{sigmask=");
        syscalls_print_addr(F->b, d[0]);
        syscalls_buf_printf(F->b, ", sigsetsize=%llu}", (unsigned long long)d[1]);
        break;
    }
    case SYSCALL_ARG_SIGINFO_OUT: syscalls_print_siginfo(F->b, p, cp->len); break;
    case SYSCALL_ARG_TIMERID_OUT: case SYSCALL_ARG_SCHED_PARAM_OUT: case SYSCALL_ARG_SCHED_PARAM_IN:
    case SYSCALL_ARG_ID_OUT: {
        int v32;
        if (cap_int(F->it, i, &v32))
            syscalls_buf_printf(F->b, "[%d]", v32);
        break;
    }
    case SYSCALL_ARG_UTSNAME_OUT: syscalls_print_utsname(F->b, p, cp->len); break;
    case SYSCALL_ARG_STATX_OUT: syscalls_print_statx(F->b, p, cp->len); break;
    case SYSCALL_ARG_STATFS_OUT: syscalls_print_statfs(F->b, p, cp->len); break;
    case SYSCALL_ARG_SYSINFO_OUT: syscalls_print_sysinfo(F->b, p, cp->len); break;
    case SYSCALL_ARG_CPUSET_OUT: syscalls_print_cpuset(F->b, p, cp->len); break;
    case SYSCALL_ARG_POLLFDS: syscalls_print_pollfds(F->b, p, cp->len, 0); break;
    case SYSCALL_ARG_IOVEC_IN: case SYSCALL_ARG_IOVEC_OUT:
        syscalls_print_iov(F->b, p, cp->len, F->it->args[i + 1], F->c->o->strsize, F->c->o->hex);
        break;
    case SYSCALL_ARG_GIDS_OUT: {
        syscalls_buf_putc(F->b, '[');
        for (size_t k = 0; k + 4 <= cp->len; k += 4) {
            uint32_t g;
            memcpy(&g, p + k, 4);
            syscalls_buf_printf(F->b, "%s%u", k ? ", " : "", g);
        }
        syscalls_buf_putc(F->b, ']');
        break;
    }
    case SYSCALL_ARG_SOCKADDR_IN: syscalls_print_sockaddr(F->b, p, cp->len); break;
    case SYSCALL_ARG_PIPEFDS_OUT: {
        int fds[2];
        memcpy(fds, p, 8);
        syscalls_buf_putc(F->b, '[');
        fmt_fd(F, fds[0], 6);
        syscalls_buf_puts(F->b, ", ");
        fmt_fd(F, fds[1], 7);
        syscalls_buf_putc(F->b, ']');
        break;
    }
    case SYSCALL_ARG_WAIT_STATUS_OUT: {
        int st;
        memcpy(&st, p, 4);
        syscalls_print_wait_status(F->b, st);
        break;
    }
    case SYSCALL_ARG_DIRENTS_OUT: {
        uint32_t n;
        memcpy(&n, p, 4);
        syscalls_print_addr(F->b, v);
        syscalls_buf_printf(F->b, " /* %u entries */", n);
        break;
    }
    case SYSCALL_ARG_ENVP: {
        uint32_t n;
        memcpy(&n, p, 4);
        syscalls_print_addr(F->b, v);
        syscalls_buf_printf(F->b, " /* %u var%s */", n, n == 1 ? "" : "s");
        break;
    }
    default: syscalls_print_addr(F->b, v); break;
    }
}

/* the netlink protocol tr-rec-strace recorded for the socket in argument 0, or -1 */
static int netlink_proto(const struct sc_item *it)
{
    const struct sc_cap *cp = sc_find_cap(it, 0, TR_CAP_STRUCT);
    int v;
    if (!cp || cp->len != sizeof v)
        return -1;
    memcpy(&v, sc_cap_data(it, cp), sizeof v);
    return v;
}

/* sendto's buffer to a netlink socket (tr-rec-strace recorded its protocol) or
 * to an AF_NETLINK address: netlink messages, as strace decodes them */
static int netlink_inbuf(struct fmt *F, unsigned i)
{
    const struct sc_cap *sa = sc_find_cap(F->it, i + 3, TR_CAP_STRUCT), *cp = sc_find_cap(F->it, i, TR_CAP_BUFFER);
    uint16_t family = 0;
    if (i + 3 >= 6 || F->d->args[i + 3] != SYSCALL_ARG_SOCKADDR_IN || !cp || (cp->flags & TR_CAPF_FAULT))
        return 0;
    if (sa && sa->len >= sizeof family)
        memcpy(&family, sc_cap_data(F->it, sa), sizeof family);
    if (family != AF_NETLINK && netlink_proto(F->it) < 0)
        return 0;
    syscalls_print_netlink(F->b, sc_cap_data(F->it, cp), cp->len, F->it->args[i + 1], netlink_proto(F->it),
                           F->c->o->strsize);
    return 1;
}

/* sendmsg's and recvmsg's struct msghdr, sendmmsg's and recvmmsg's struct mmsghdr array */
static void fmt_msghdr(struct fmt *F, unsigned i, enum syscall_arg t)
{
    const struct sc_cap *cp = NULL, *head = NULL;
    for (uint32_t k = 0; k < F->it->ncap; k++) {
        const struct sc_cap *c = &F->it->cap[k];
        if (c->arg == i && c->kind == TR_CAP_STRUCT)
            *((c->flags & TR_CAPF_EXIT) || t == SYSCALL_ARG_MSGHDR_IN ? &cp : &head) = c;
    }
    uint64_t v = F->it->args[i];
    int64_t ret = F->it->ret;
    int ok = (F->it->flags & TR_SYSF_HAS_RET) && !sc_is_err(ret);
    int nl = netlink_proto(F->it);
    const struct cat_opts *o = F->c->o;
    int namelen_in = -1; /* recvmsg's, as it was given */
    if (head && head->len >= sizeof(struct msghdr)) {
        struct msghdr m;
        memcpy(&m, sc_cap_data(F->it, head), sizeof m);
        namelen_in = (int)m.msg_namelen;
    }
    if (t == SYSCALL_ARG_MSGHDR_OUT && !ok && (F->it->flags & TR_SYSF_HAS_RET) && namelen_in >= 0) {
        syscalls_buf_printf(F->b, "{msg_namelen=%d}", namelen_in); /* failed: what it was given */
    } else if (!cp || !cp->len) {
        syscalls_print_addr(F->b, v);
    } else if (t == SYSCALL_ARG_MMSGHDR_SEND || t == SYSCALL_ARG_MMSGHDR_RECV) {
        uint64_t n = t == SYSCALL_ARG_MMSGHDR_SEND ? F->it->args[i + 1] : (uint64_t)ret;
        syscalls_print_mmsghdrs(F->b, sc_cap_data(F->it, cp), cp->len, (uint32_t)n, ok ? (uint64_t)ret : 0, nl,
                                o->strsize, o->hex);
    } else {
        if (!syscalls_print_msghdr(F->b, sc_cap_data(F->it, cp), cp->len, namelen_in, nl, o->strsize, o->hex))
            syscalls_print_addr(F->b, v);
    }
}

/* AT_* flags; statx's with its sync type (AT_STATX_SYNC_AS_STAT when none) */
static void fmt_at_flags(struct fmt *F, const struct syscalls_xlat *x, int statx, uint64_t v)
{
    if (statx && !(v & syscalls_statx_sync_type)) {
        syscalls_buf_puts(F->b, "AT_STATX_SYNC_AS_STAT");
        if (v)
            syscalls_buf_putc(F->b, '|');
        else
            return;
    }
    syscalls_print_flags(F->b, x, v, "0");
}

static void fmt_arg(struct fmt *F, unsigned i, enum syscall_arg t)
{
    uint64_t v = F->it->args[i];
    struct syscalls_buf *b = F->b;
    switch (t) {
    case SYSCALL_ARG_INT: syscalls_buf_printf(b, "%d", (int)v); break;
    case SYSCALL_ARG_LONG: syscalls_buf_printf(b, "%lld", (long long)v); break;
    case SYSCALL_ARG_ULONG: syscalls_buf_printf(b, "%llu", (unsigned long long)v); break;
    case SYSCALL_ARG_OCTAL: syscalls_buf_printf(b, "%#03llo", (unsigned long long)v); break;
    case SYSCALL_ARG_ADDR: syscalls_print_addr(b, v); break;
    case SYSCALL_ARG_FD: fmt_fd(F, (int)v, i); break;
    case SYSCALL_ARG_DIRFD:
        if ((int)v == AT_FDCWD) {
            syscalls_buf_puts(b, "AT_FDCWD");
            const struct sc_cap *cp = F->c->o->decode_fds ? sc_find_cap(F->it, i, TR_CAP_FD_PATH) : NULL;
            if (cp) {
                syscalls_buf_putc(b, '<');
                syscalls_buf_put(b, (const char *)sc_cap_data(F->it, cp), cp->len);
                syscalls_buf_putc(b, '>');
            }
        } else
            fmt_fd(F, (int)v, i);
        break;
    case SYSCALL_ARG_PATH: case SYSCALL_ARG_OUTPATH: fmt_string(F, i, (size_t)-1); break;
    case SYSCALL_ARG_STRING: fmt_string(F, i, F->c->o->strsize); break;
    case SYSCALL_ARG_INBUF:
        if (netlink_inbuf(F, i))
            break;
        fmt_buffer(F, i, i + 1 < 6 ? F->it->args[i + 1] : 0, 0);
        break;
    case SYSCALL_ARG_MSGHDR_IN: case SYSCALL_ARG_MSGHDR_OUT: case SYSCALL_ARG_MMSGHDR_SEND:
    case SYSCALL_ARG_MMSGHDR_RECV:
        fmt_msghdr(F, i, t);
        break;
    case SYSCALL_ARG_OUTBUF: case SYSCALL_ARG_OUTBUF_HEX: case SYSCALL_ARG_XATTR_OUT:
        if (sc_is_err(F->it->ret) || !(F->it->flags & TR_SYSF_HAS_RET) ||
            (t == SYSCALL_ARG_XATTR_OUT && (i + 1 >= 6 || !F->it->args[i + 1])))
            syscalls_print_addr(b, v);
        else if (F->it->ret == 0)
            syscalls_buf_puts(b, "\"\"");
        else
            fmt_buffer(F, i, (uint64_t)F->it->ret, t == SYSCALL_ARG_OUTBUF_HEX);
        break;
    case SYSCALL_ARG_ARGV: fmt_argv(F, i); break;
    case SYSCALL_ARG_OPEN_FLAGS: syscalls_print_open_flags(b, v); break;
    case SYSCALL_ARG_MODE: syscalls_buf_printf(b, "%#03o", (unsigned)v); break;
    case SYSCALL_ARG_O_FLAGS: syscalls_print_flags(b, syscalls_xlat_open_flags, v, "0"); break;
    case SYSCALL_ARG_MMAP_PROT: syscalls_print_flags(b, syscalls_xlat_mmap_prot, v, "PROT_NONE"); break;
    case SYSCALL_ARG_MMAP_FLAGS: syscalls_print_mmap_flags(b, v); break;
    case SYSCALL_ARG_SIGNAL: syscalls_print_signal(b, (int)v); break;
    case SYSCALL_ARG_ACCESS_MODE:
        if (v == 0)
            syscalls_buf_puts(b, "F_OK");
        else
            syscalls_print_flags(b, syscalls_xlat_access_modes, v, "F_OK");
        break;
    case SYSCALL_ARG_AT_FLAGS: fmt_at_flags(F, syscalls_xlat_at_flags, 0, v); break;
    case SYSCALL_ARG_FACCESSAT2_FLAGS: fmt_at_flags(F, syscalls_xlat_faccessat2_flags, 0, v); break;
    case SYSCALL_ARG_STATX_AT_FLAGS: fmt_at_flags(F, syscalls_xlat_statx_at_flags, 1, v); break;
    case SYSCALL_ARG_WHENCE: syscalls_print_value(b, syscalls_xlat_whence, v, "%llu"); break;
    case SYSCALL_ARG_MADVISE: syscalls_print_value(b, syscalls_xlat_madvise, v, "%#llx"); break;
    case SYSCALL_ARG_RLIMIT_RESOURCE: syscalls_print_value(b, syscalls_xlat_rlimit, v, "%#llx"); break;
    case SYSCALL_ARG_SIGPROCMASK_HOW: syscalls_print_value(b, syscalls_xlat_sigprocmask, v, "%#llx"); break;
    case SYSCALL_ARG_WAIT_OPTIONS: syscalls_print_flags(b, syscalls_xlat_wait_opts, v, "0"); break;
    case SYSCALL_ARG_SOCKET_FAMILY: syscalls_print_value(b, syscalls_xlat_af, v, "%llu"); break;
    case SYSCALL_ARG_SOCKET_TYPE: syscalls_print_socket_type(b, v); break;
    case SYSCALL_ARG_SOCKET_FLAGS: syscalls_print_flags(b, syscalls_xlat_sock_flags, v, "0"); break;
    case SYSCALL_ARG_GETRANDOM_FLAGS: syscalls_print_flags(b, syscalls_xlat_grnd, v, "0"); break;
    case SYSCALL_ARG_CLOCK_ID: syscalls_print_value(b, syscalls_xlat_clocks, v, "%llu"); break;
    case SYSCALL_ARG_TIMER_FLAGS: syscalls_print_flags(b, syscalls_xlat_timer_flags, v, "0"); break;
    case SYSCALL_ARG_STATX_MASK: syscalls_print_flags(b, syscalls_xlat_statx_mask, v, "0"); break;
    case SYSCALL_ARG_SOCKET_PROTOCOL: syscalls_print_socket_protocol(b, (int)F->it->args[0], (int)v); break;
    case SYSCALL_ARG_MSG_FLAGS: syscalls_print_flags(b, syscalls_xlat_msg_flags, v, "0"); break;
    case SYSCALL_ARG_EPOLL_CREATE_FLAGS: syscalls_print_flags(b, syscalls_xlat_epoll_create_flags, v, "0"); break;
    case SYSCALL_ARG_EVENTFD_FLAGS: syscalls_print_flags(b, syscalls_xlat_eventfd_flags, v, "0"); break;
    case SYSCALL_ARG_SIGNALFD_FLAGS: syscalls_print_flags(b, syscalls_xlat_signalfd_flags, v, "0"); break;
    case SYSCALL_ARG_TIMERFD_FLAGS: syscalls_print_flags(b, syscalls_xlat_timerfd_flags, v, "0"); break;
    case SYSCALL_ARG_INOTIFY_FLAGS: syscalls_print_flags(b, syscalls_xlat_inotify_flags, v, "0"); break;
    case SYSCALL_ARG_EPOLL_OP: syscalls_print_value(b, syscalls_xlat_epoll_ops, v, "%llu"); break;
    case SYSCALL_ARG_EPOLL_EVENT_IN: case SYSCALL_ARG_EPOLL_EVENTS_OUT: {
        const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRUCT);
        if (t == SYSCALL_ARG_EPOLL_EVENTS_OUT && (F->it->flags & TR_SYSF_HAS_RET) && F->it->ret == 0)
            syscalls_buf_puts(b, "[]");
        else if (cp && cp->len)
            syscalls_print_epoll_events(b, sc_cap_data(F->it, cp), cp->len, t == SYSCALL_ARG_EPOLL_EVENTS_OUT);
        else
            syscalls_print_addr(b, v);
        break;
    }
    case SYSCALL_ARG_SOCKADDR_OUT: {
        const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRUCT);
        if (cp && cp->len)
            syscalls_print_sockaddr(b, sc_cap_data(F->it, cp), cp->len);
        else
            syscalls_print_addr(b, v);
        break;
    }
    case SYSCALL_ARG_SOCKLEN_INOUT: {
        const struct sc_cap *in = NULL, *out = NULL;
        for (uint32_t k = 0; k < F->it->ncap; k++)
            if (F->it->cap[k].arg == i && F->it->cap[k].kind == TR_CAP_STRUCT && F->it->cap[k].len == 4)
                *((F->it->cap[k].flags & TR_CAPF_EXIT) ? &out : &in) = &F->it->cap[k];
        if (!in) {
            syscalls_print_addr(b, v);
            break;
        }
        uint32_t a, o = 0;
        memcpy(&a, sc_cap_data(F->it, in), 4);
        if (out)
            memcpy(&o, sc_cap_data(F->it, out), 4);
        if (out && o != a)
            syscalls_buf_printf(b, "[%u => %u]", a, o);
        else
            syscalls_buf_printf(b, "[%u]", a);
        break;
    }
    case SYSCALL_ARG_GIDS_OUT:
        if (!v)
            syscalls_buf_puts(b, "NULL");
        else if ((F->it->flags & TR_SYSF_HAS_RET) && !sc_is_err(F->it->ret) &&
            (F->it->ret == 0 || F->it->args[0] == 0))
            syscalls_buf_puts(b, "[]");
        else if (!v)
            syscalls_buf_puts(b, "NULL");
        else
            fmt_struct(F, i, t);
        break;
    case SYSCALL_ARG_FADVISE: syscalls_print_value(b, syscalls_xlat_fadvise, v, "%llu"); break;
    case SYSCALL_ARG_RUSAGE_WHO: syscalls_print_value(b, syscalls_xlat_rusage_who, (uint64_t)(int64_t)(int)v, "%#llx /* RUSAGE_??? */"); break;
    case SYSCALL_ARG_XATTR_FLAGS: syscalls_print_flags(b, syscalls_xlat_xattr_flags, v, "0"); break;
    case SYSCALL_ARG_FLOCK_OP: syscalls_print_flags(b, syscalls_xlat_flock_ops, v, "0"); break;
    case SYSCALL_ARG_SCHED_POLICY:
        syscalls_print_value(b, syscalls_xlat_sched_policies, (uint32_t)v, "%#llx /* SCHED_??? */");
        break;
    case SYSCALL_ARG_INOTIFY_MASK: syscalls_print_flags(b, syscalls_xlat_inotify_mask, (uint32_t)v, "0"); break;
    case SYSCALL_ARG_CLONE_FLAGS: syscalls_print_flags(b, syscalls_xlat_clone_flags, v, "0"); break;
    case SYSCALL_ARG_PRIO_WHICH: syscalls_print_value(b, syscalls_xlat_prio_which, v, "%#llx /* PRIO_??? */"); break;
    case SYSCALL_ARG_SHUTDOWN_HOW: syscalls_print_value(b, syscalls_xlat_shutdown_how, v, "%#llx /* SHUT_??? */"); break;
    case SYSCALL_ARG_MREMAP_FLAGS: syscalls_print_flags(b, syscalls_xlat_mremap_flags, v, "0"); break;
    case SYSCALL_ARG_MREMAP_ADDR: syscalls_print_addr(b, v); break;
    case SYSCALL_ARG_MSYNC_FLAGS: syscalls_print_flags(b, syscalls_xlat_msync_flags, v, "0"); break;
    case SYSCALL_ARG_ITIMER_WHICH: syscalls_print_value(b, syscalls_xlat_itimer_which, v, "%#llx /* ITIMER_??? */"); break;
    case SYSCALL_ARG_IDTYPE: syscalls_print_value(b, syscalls_xlat_idtype, v, "%#llx /* P_??? */"); break;
    case SYSCALL_ARG_TIMERFD_SETTIME_FLAGS: syscalls_print_flags(b, syscalls_xlat_timerfd_settime_flags, v, "0"); break;
    case SYSCALL_ARG_RENAME_FLAGS: syscalls_print_flags(b, syscalls_xlat_rename_flags, v, "0"); break;
    case SYSCALL_ARG_SOCKOPT_LEVEL:
        syscalls_print_value(b, syscalls_xlat_sockopt_levels, (uint32_t)v, "%#llx /* SOL_?? */");
        break;
    case SYSCALL_ARG_SOCKOPT_NAME: syscalls_print_sockopt_name(b, (int)F->it->args[1], (int)v); break;
    case SYSCALL_ARG_SOCKOPT_IN: case SYSCALL_ARG_SOCKOPT_OUT: {
        /* setsockopt: the length is the next argument; getsockopt: the socklen it returned */
        const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRUCT);
        int get = t == SYSCALL_ARG_SOCKOPT_OUT;
        int64_t len = cp ? (get ? (int64_t)cp->len : (int)F->it->args[i + 1]) : 0;
        syscalls_print_sockopt_value(b, (int)F->it->args[1], (int)F->it->args[2], v, cp ? sc_cap_data(F->it, cp) : NULL,
                                     cp ? cp->len : 0, len, F->c->o->strsize, F->c->o->hex, get);
        break;
    }
    case SYSCALL_ARG_ENVP: case SYSCALL_ARG_DIRENTS_OUT: case SYSCALL_ARG_RLIMIT_IN: case SYSCALL_ARG_RLIMIT_OUT:
    case SYSCALL_ARG_SIGSET_IN: case SYSCALL_ARG_SIGSET_OUT: case SYSCALL_ARG_SIGACTION_IN:
    case SYSCALL_ARG_SIGACTION_OUT: case SYSCALL_ARG_TIMESPEC_IN: case SYSCALL_ARG_TIMESPEC_OUT:
    case SYSCALL_ARG_STAT_OUT: case SYSCALL_ARG_UTSNAME_OUT: case SYSCALL_ARG_PIPEFDS_OUT:
    case SYSCALL_ARG_WAIT_STATUS_OUT: case SYSCALL_ARG_SOCKADDR_IN: case SYSCALL_ARG_STATX_OUT:
    case SYSCALL_ARG_TIMESPEC_REMAINING: case SYSCALL_ARG_CPUSET_OUT: case SYSCALL_ARG_SYSINFO_OUT:
    case SYSCALL_ARG_STATFS_OUT: case SYSCALL_ARG_POLLFDS: case SYSCALL_ARG_IOVEC_IN: case SYSCALL_ARG_IOVEC_OUT:
    case SYSCALL_ARG_UTIMENS_IN: case SYSCALL_ARG_TIMEVAL_PAIR_IN: case SYSCALL_ARG_RUSAGE_OUT:
    case SYSCALL_ARG_STACK_IN: case SYSCALL_ARG_STACK_OUT: case SYSCALL_ARG_ITIMERSPEC_IN:
    case SYSCALL_ARG_ITIMERSPEC_OUT: case SYSCALL_ARG_ITIMERVAL_IN: case SYSCALL_ARG_ITIMERVAL_OUT:
    case SYSCALL_ARG_SIGEVENT_IN: case SYSCALL_ARG_TIMERID_OUT: case SYSCALL_ARG_SIGINFO_OUT:
    case SYSCALL_ARG_SCHED_PARAM_OUT: case SYSCALL_ARG_FDSET_INOUT: case SYSCALL_ARG_TIMEVAL_INOUT:
    case SYSCALL_ARG_TIMESPEC_INOUT: case SYSCALL_ARG_PSELECT_SIGMASK: case SYSCALL_ARG_TMS_OUT:
    case SYSCALL_ARG_SCHED_PARAM_IN: case SYSCALL_ARG_ID_OUT:
        if (!v && t != SYSCALL_ARG_DIRENTS_OUT)
            syscalls_buf_puts(b, "NULL");
        else if (!v)
            syscalls_buf_puts(b, "NULL");
        else
            fmt_struct(F, i, t);
        break;
    case SYSCALL_ARG_HEX:
    default:
        if (v)
            syscalls_buf_printf(b, "%#llx", (unsigned long long)v);
        else
            syscalls_buf_puts(b, "0");
        break;
    }
}

/* 1 for the kinds strace prints at exit (the first of them ends the entry part) */
static int printed_at_exit(enum syscall_arg t)
{
    switch (t) {
    case SYSCALL_ARG_OUTBUF: case SYSCALL_ARG_OUTBUF_HEX: case SYSCALL_ARG_OUTPATH: case SYSCALL_ARG_XATTR_OUT:
    case SYSCALL_ARG_RLIMIT_OUT: case SYSCALL_ARG_SIGSET_OUT: case SYSCALL_ARG_SIGACTION_OUT:
    case SYSCALL_ARG_TIMESPEC_OUT: case SYSCALL_ARG_STAT_OUT: case SYSCALL_ARG_UTSNAME_OUT:
    case SYSCALL_ARG_PIPEFDS_OUT: case SYSCALL_ARG_WAIT_STATUS_OUT: case SYSCALL_ARG_DIRENTS_OUT:
    case SYSCALL_ARG_STATX_OUT: case SYSCALL_ARG_TIMESPEC_REMAINING: case SYSCALL_ARG_GIDS_OUT:
    case SYSCALL_ARG_CPUSET_OUT: case SYSCALL_ARG_SYSINFO_OUT: case SYSCALL_ARG_STATFS_OUT:
    case SYSCALL_ARG_SOCKADDR_OUT: case SYSCALL_ARG_SOCKLEN_INOUT: case SYSCALL_ARG_EPOLL_EVENTS_OUT:
    case SYSCALL_ARG_RUSAGE_OUT: case SYSCALL_ARG_STACK_OUT: case SYSCALL_ARG_SOCKOPT_OUT:
    case SYSCALL_ARG_ITIMERSPEC_OUT: case SYSCALL_ARG_ITIMERVAL_OUT: case SYSCALL_ARG_TIMERID_OUT:
    case SYSCALL_ARG_SIGINFO_OUT: case SYSCALL_ARG_SCHED_PARAM_OUT: case SYSCALL_ARG_TMS_OUT:
    case SYSCALL_ARG_ID_OUT: case SYSCALL_ARG_MSGHDR_OUT: case SYSCALL_ARG_MMSGHDR_SEND:
    case SYSCALL_ARG_MMSGHDR_RECV:
        return 1;
    default:
        return 0;
    }
}

/* the first argument printed at exit */
static unsigned split_of(const struct syscall_desc *d)
{
    for (unsigned i = 0; i < d->nargs; i++)
        if (printed_at_exit((enum syscall_arg)d->args[i]))
            return i;
    return d->nargs;
}

static int skip_arg(const struct fmt *F, unsigned i)
{
    /* open's mode is printed only with O_CREAT or O_TMPFILE; mremap's new address only when
     * it is one (MREMAP_MAYMOVE|MREMAP_FIXED) */
    const struct syscall_desc *d = F->d;
    if (d->args[i] == SYSCALL_ARG_MODE && i > 0 && d->args[i - 1] == SYSCALL_ARG_OPEN_FLAGS)
        return !syscalls_open_has_mode(F->it->args[i - 1]);
    if (d->args[i] == SYSCALL_ARG_MREMAP_ADDR && i > 0)
        return (F->it->args[i - 1] & (MREMAP_MAYMOVE | MREMAP_FIXED)) != (MREMAP_MAYMOVE | MREMAP_FIXED);
    return 0;
}

static void fmt_range(struct fmt *F, unsigned from, unsigned to, int trailing_sep)
{
    int first = 1;
    for (unsigned i = from; i < to; i++) {
        if (skip_arg(F, i))
            continue;
        if (!first)
            syscalls_buf_puts(F->b, ", ");
        first = 0;
        fmt_arg(F, i, (enum syscall_arg)F->d->args[i]);
    }
    if (trailing_sep && !first)
        syscalls_buf_puts(F->b, ", ");
}

/* ---- the families' own decoders ------------------------------------------------ */

/* the call succeeded (its exit part is decoded) */
static int returned_ok(const struct sc_item *it)
{
    return (it->flags & TR_SYSF_HAS_RET) && !sc_is_err(it->ret);
}

static void fmt_clone_flags(struct syscalls_buf *b, uint64_t flags)
{
    uint64_t sig = flags & CSIGNAL;
    flags &= ~(uint64_t)CSIGNAL;
    if (flags)
        syscalls_print_flags(b, syscalls_xlat_clone_flags, flags, "0");
    if (sig) {
        if (flags)
            syscalls_buf_putc(b, '|');
        syscalls_print_signal(b, (int)sig);
    } else if (!flags) {
        syscalls_buf_putc(b, '0');
    }
}

/* x86_64: clone(flags, stack, parent_tid, child_tid, tls).  As strace: child_stack and
 * flags at entry; parent_tid, child_tidptr and tls, when the flags give them a meaning,
 * at exit (each after its ", "), so an unfinished clone is split after its flags. */
static int clone_has_exit(const struct sc_item *it)
{
    return (it->args[0] & (CLONE_PARENT_SETTID | CLONE_PIDFD | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID |
                           CLONE_SETTLS)) != 0;
}

static void clone_entry(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct syscalls_buf *b = F->b;
    syscalls_buf_puts(b, "child_stack=");
    syscalls_print_addr(b, a[1]);
    syscalls_buf_puts(b, ", flags=");
    fmt_clone_flags(b, a[0]);
}

static void clone_exit(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct syscalls_buf *b = F->b;
    int v;
    if (a[0] & (CLONE_PARENT_SETTID | CLONE_PIDFD)) {
        syscalls_buf_puts(b, ", parent_tid=");
        if (returned_ok(F->it) && cap_int(F->it, 2, &v))
            syscalls_buf_printf(b, "[%u]", (unsigned)v);
        else
            syscalls_print_addr(b, a[2]);
    }
    if (a[0] & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID)) {
        syscalls_buf_puts(b, ", child_tidptr=");
        syscalls_print_addr(b, a[3]);
    }
    if (a[0] & CLONE_SETTLS) {
        syscalls_buf_puts(b, ", tls=");
        syscalls_print_addr(b, a[4]);
    }
}

/* clone3's struct clone_args as recorded at entry (zeroed beyond what was), 0 when too short */
static int clone3_args(const struct sc_item *it, struct clone_args *ca)
{
    const struct sc_cap *cp = sc_find_cap(it, 0, TR_CAP_STRUCT);
    if (!cp || (cp->flags & TR_CAPF_EXIT) || cp->len < CLONE_ARGS_SIZE_VER0)
        return 0;
    memset(ca, 0, sizeof *ca);
    memcpy(ca, sc_cap_data(it, cp), cp->len < sizeof *ca ? cp->len : sizeof *ca);
    return 1;
}

/* As strace: clone3 has an exit part (the parent_tid it wrote) with CLONE_PARENT_SETTID or
 * CLONE_PIDFD; otherwise its size is printed at entry and nothing at exit. */
static int clone3_has_exit(const struct sc_item *it)
{
    struct clone_args ca;
    return !clone3_args(it, &ca) || (ca.flags & (CLONE_PIDFD | CLONE_PARENT_SETTID)) != 0;
}

static void clone3_entry(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct syscalls_buf *b = F->b;
    struct clone_args ca;
    if (!clone3_args(F->it, &ca)) {
        syscalls_print_addr(b, a[0]);
        return;
    }
    syscalls_buf_puts(b, "{flags=");
    syscalls_print_flags(b, syscalls_xlat_clone_flags, ca.flags, "0");
    if (ca.flags & CLONE_PIDFD)
        syscalls_buf_printf(b, ", pidfd=%#llx", (unsigned long long)ca.pidfd);
    if (ca.flags & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID))
        syscalls_buf_printf(b, ", child_tid=%#llx", (unsigned long long)ca.child_tid);
    if (ca.flags & CLONE_PARENT_SETTID)
        syscalls_buf_printf(b, ", parent_tid=%#llx", (unsigned long long)ca.parent_tid);
    syscalls_buf_puts(b, ", exit_signal=");
    if (ca.exit_signal)
        syscalls_print_signal(b, (int)ca.exit_signal);
    else
        syscalls_buf_putc(b, '0');
    syscalls_buf_puts(b, ", stack=");
    syscalls_print_addr(b, ca.stack);
    syscalls_buf_printf(b, ", stack_size=%#llx", (unsigned long long)ca.stack_size);
    if (ca.flags & CLONE_SETTLS)
        syscalls_buf_printf(b, ", tls=%#llx", (unsigned long long)ca.tls);
    if (ca.set_tid_size)
        syscalls_buf_printf(b, ", set_tid=%#llx, set_tid_size=%llu", (unsigned long long)ca.set_tid,
                            (unsigned long long)ca.set_tid_size);
    if (ca.flags & CLONE_INTO_CGROUP)
        syscalls_buf_printf(b, ", cgroup=%llu", (unsigned long long)ca.cgroup);
    syscalls_buf_putc(b, '}');
    if (!clone3_has_exit(F->it))
        syscalls_buf_printf(b, ", %llu", (unsigned long long)a[1]);
}

static void clone3_exit(struct fmt *F)
{
    if (!clone3_has_exit(F->it))
        return;
    int v;
    if (returned_ok(F->it) && cap_int(F->it, 1, &v))
        syscalls_buf_printf(F->b, " => {parent_tid=[%d]}", v);
    syscalls_buf_printf(F->b, ", %llu", (unsigned long long)F->it->args[1]);
}

static void futex_entry(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct syscalls_buf *b = F->b;
    int op = (int)a[1], base = op & 0x7f; /* the command, without FUTEX_PRIVATE_FLAG ... */
    syscalls_print_addr(b, a[0]);
    syscalls_buf_puts(b, ", ");
    const struct syscalls_xlat *x;
    for (x = syscalls_xlat_futex_ops; x->name && x->val != (uint64_t)base; x++)
        ;
    if (x->name) {
        syscalls_buf_puts(b, x->name);
        if (op & FUTEX_PRIVATE_FLAG)
            syscalls_buf_puts(b, "_PRIVATE");
        if (op & FUTEX_CLOCK_REALTIME)
            syscalls_buf_puts(b, "|FUTEX_CLOCK_REALTIME");
        if (op & ~0x1ff)
            syscalls_buf_printf(b, "|%#x", op & ~0x1ff);
    } else {
        syscalls_buf_printf(b, "%#x", op);
    }
    struct fmt G = *F;
    switch (base) {
    case FUTEX_WAIT:
        syscalls_buf_printf(b, ", %d, ", (int)a[2]);
        if (!a[3]) syscalls_buf_puts(b, "NULL"); else fmt_struct(&G, 3, SYSCALL_ARG_TIMESPEC_IN);
        break;
    case FUTEX_WAKE: case FUTEX_UNLOCK_PI: case FUTEX_TRYLOCK_PI:
        if (base == FUTEX_WAKE)
            syscalls_buf_printf(b, ", %d", (int)a[2]);
        break;
    case FUTEX_WAIT_BITSET: case FUTEX_WAKE_BITSET:
        syscalls_buf_printf(b, ", %d, ", (int)a[2]);
        if (!a[3])
            syscalls_buf_puts(b, "NULL");
        else if (base == FUTEX_WAIT_BITSET)
            fmt_struct(&G, 3, SYSCALL_ARG_TIMESPEC_IN);
        else
            syscalls_print_addr(b, a[3]);
        if ((uint32_t)a[5] == FUTEX_BITSET_MATCH_ANY)
            syscalls_buf_puts(b, ", FUTEX_BITSET_MATCH_ANY");
        else
            syscalls_buf_printf(b, ", %#x", (unsigned)a[5]);
        break;
    case FUTEX_REQUEUE:
        syscalls_buf_printf(b, ", %d, %u, %#llx", (int)a[2], (unsigned)a[3], (unsigned long long)a[4]);
        break;
    case FUTEX_CMP_REQUEUE:
        syscalls_buf_printf(b, ", %d, %u, %#llx, %d", (int)a[2], (unsigned)a[3], (unsigned long long)a[4],
                            (int)a[5]);
        break;
    case FUTEX_LOCK_PI: case FUTEX_LOCK_PI2:
        syscalls_buf_puts(b, ", ");
        if (!a[3]) syscalls_buf_puts(b, "NULL"); else fmt_struct(&G, 3, SYSCALL_ARG_TIMESPEC_IN);
        break;
    default:
        syscalls_buf_printf(b, ", %d, %#llx, %#llx, %#llx", (int)a[2], (unsigned long long)a[3],
                            (unsigned long long)a[4], (unsigned long long)a[5]);
        break;
    }
}

static int fcntl_has_exit(const struct sc_item *it)
{
    return syscalls_fcntl_lock(it->args[1]) == 2;
}

static void fcntl_exit(struct fmt *F)
{
    if (!fcntl_has_exit(F->it))
        return;
    const struct sc_cap *cp = sc_find_cap(F->it, 2, TR_CAP_STRUCT);
    if (returned_ok(F->it) && cp && cp->len == syscalls_abi.flock)
        syscalls_print_flock(F->b, sc_cap_data(F->it, cp), cp->len, 1);
    else
        syscalls_print_addr(F->b, F->it->args[2]);
}

static void fcntl_entry(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct syscalls_buf *b = F->b;
    fmt_fd(F, (int)a[0], 0);
    syscalls_buf_puts(b, ", ");
    syscalls_print_value(b, syscalls_xlat_fcntl_cmds, a[1], "%#llx");
    switch (a[1]) {
    case F_GETFD: case F_GETFL: case F_GETOWN: case F_GETSIG: case F_GETLEASE: case F_GETPIPE_SZ:
    case F_GET_SEALS: case F_LINUX_SPECIFIC_BASE + 4: /* F_CREATED_QUERY */
        break; /* F_GET*: no argument */
    case F_DUPFD: case F_DUPFD_CLOEXEC: case F_SETSIG: case F_SETPIPE_SZ:
    case F_LINUX_SPECIFIC_BASE + 3: /* F_DUPFD_QUERY */
        syscalls_buf_printf(b, ", %d", (int)a[2]);
        break;
    case F_SETFD:
        syscalls_buf_puts(b, ", ");
        syscalls_print_flags(b, syscalls_xlat_fd_flags, a[2], "0");
        break;
    case F_SETFL:
        syscalls_buf_puts(b, ", ");
        syscalls_print_open_flags(b, a[2]);
        break;
    case F_SETOWN: syscalls_buf_printf(b, ", %d", (int)a[2]); break;
    case F_SETLK: case F_SETLKW: case F_OFD_SETLK: case F_OFD_SETLKW: {
        const struct sc_cap *cp = sc_find_cap(F->it, 2, TR_CAP_STRUCT);
        syscalls_buf_puts(b, ", ");
        if (cp && cp->len == syscalls_abi.flock)
            syscalls_print_flock(b, sc_cap_data(F->it, cp), cp->len, 0);
        else
            syscalls_print_addr(b, a[2]);
        break;
    }
    case F_GETLK: case F_OFD_GETLK: syscalls_buf_puts(b, ", "); break; /* the lock at exit */
    default:
        syscalls_buf_puts(b, ", ");
        syscalls_print_addr(b, a[2]);
        break;
    }
}

/* the ioctls whose argument is written by the call: printed at exit */
static int ioctl_output(uint32_t req)
{
    return req == TCGETS || req == TIOCGWINSZ || req == FIONREAD || req == TIOCGPGRP;
}

static int ioctl_has_exit(const struct sc_item *it)
{
    return ioctl_output((uint32_t)it->args[1]);
}

static void ioctl_entry(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct syscalls_buf *b = F->b;
    fmt_fd(F, (int)a[0], 0);
    syscalls_buf_puts(b, ", ");
    syscalls_print_value(b, syscalls_xlat_ioctl, (uint32_t)a[1], "%#llx");
    uint32_t req = (uint32_t)a[1];
    const struct sc_cap *cp = sc_find_cap(F->it, 2, TR_CAP_STRUCT);
    int v;
    if (ioctl_output(req)) {
        syscalls_buf_puts(b, ", "); /* output argument: at exit */
    } else if (req == FIONCLEX || req == FIOCLEX) {
        /* no argument */
    } else if ((req == TCSETS || req == TCSETSW || req == TCSETSF) && cp && !(cp->flags & TR_CAPF_EXIT) &&
               cp->len == syscalls_abi.termios) {
        syscalls_buf_puts(b, ", ");
        syscalls_print_termios(b, sc_cap_data(F->it, cp), cp->len);
    } else if (req == TIOCSWINSZ && cp && cp->len == syscalls_abi.winsize) {
        syscalls_buf_puts(b, ", ");
        syscalls_print_winsize(b, sc_cap_data(F->it, cp), cp->len);
    } else if ((req == FIONBIO || req == FIOASYNC) && cap_int(F->it, 2, &v)) {
        syscalls_buf_printf(b, ", [%d]", v);
    } else if (req == FICLONE) { /* the source fd */
        syscalls_buf_printf(b, ", %d", (int)a[2]);
    } else {
        syscalls_buf_puts(b, ", ");
        syscalls_print_addr(b, a[2]);
    }
}

static void ioctl_exit(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct syscalls_buf *b = F->b;
    uint32_t req = (uint32_t)a[1];
    int ok = returned_ok(F->it);
    const struct sc_cap *cp = sc_find_cap(F->it, 2, TR_CAP_STRUCT);
    int v;
    if (req == TIOCGWINSZ && ok && cp && cp->len == syscalls_abi.winsize) {
        syscalls_print_winsize(b, sc_cap_data(F->it, cp), cp->len);
    } else if (req == TCGETS && ok && cp && cp->len == syscalls_abi.termios) {
        syscalls_print_termios(b, sc_cap_data(F->it, cp), cp->len);
    } else if ((req == FIONREAD || req == TIOCGPGRP) && ok && cap_int(F->it, 2, &v)) {
        syscalls_buf_printf(b, "[%d]", v);
    } else if (ioctl_output(req)) {
        syscalls_print_addr(b, a[2]);
    }
}

static int prctl_has_exit(const struct sc_item *it)
{
    enum syscall_prctl_shape sh = syscalls_prctl_shape(it->args[0]);
    return sh == SYSCALL_PRCTL_NAME_OUT || sh == SYSCALL_PRCTL_INT_OUT;
}

static void prctl_entry(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct syscalls_buf *b = F->b;
    static const char *const caps[] = {
        "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
        "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
        "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK",
        "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
        "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE",
        "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
        "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG",
        "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
        "CAP_CHECKPOINT_RESTORE",
    };
    enum syscall_prctl_shape sh = syscalls_prctl_shape(a[0]);
    syscalls_print_value(b, syscalls_xlat_prctl_options, a[0], "%#llx /* PR_??? */");
    switch (sh) {
    case SYSCALL_PRCTL_NONE: break;
    case SYSCALL_PRCTL_NAME_OUT: case SYSCALL_PRCTL_INT_OUT: syscalls_buf_puts(b, ", "); break; /* at exit */
    case SYSCALL_PRCTL_SIGNAL: syscalls_buf_puts(b, ", "); syscalls_print_signal(b, (int)a[1]); break;
    case SYSCALL_PRCTL_NAME_IN: syscalls_buf_puts(b, ", "); fmt_string(F, 1, syscalls_abi.comm); break;
    case SYSCALL_PRCTL_ULONG1: syscalls_buf_printf(b, ", %llu", (unsigned long long)a[1]); break;
    case SYSCALL_PRCTL_DUMPABLE:
        syscalls_buf_puts(b, ", ");
        syscalls_print_value(b, syscalls_xlat_suid_dump, a[1], "%#llx /* SUID_DUMP_??? */");
        break;
    case SYSCALL_PRCTL_CAP:
        if (a[1] < sizeof caps / sizeof caps[0])
            syscalls_buf_printf(b, ", %s", caps[a[1]]);
        else
            syscalls_buf_printf(b, ", %#llx /* CAP_??? */", (unsigned long long)a[1]);
        break;
    case SYSCALL_PRCTL_ULONG4:
        for (int k = 1; k < 5; k++)
            syscalls_buf_printf(b, ", %llu", (unsigned long long)a[k]);
        break;
    case SYSCALL_PRCTL_HEX4:
        for (int k = 1; k < 5; k++)
            syscalls_buf_printf(b, a[k] ? ", %#llx" : ", %llu", (unsigned long long)a[k]);
        break;
    }
}

static void prctl_exit(struct fmt *F)
{
    enum syscall_prctl_shape sh = syscalls_prctl_shape(F->it->args[0]);
    int v;
    if (sh == SYSCALL_PRCTL_INT_OUT) {
        if (returned_ok(F->it) && cap_int(F->it, 1, &v))
            syscalls_buf_printf(F->b, "[%d]", v);
        else
            syscalls_print_addr(F->b, F->it->args[1]);
        return;
    }
    if (sh != SYSCALL_PRCTL_NAME_OUT)
        return;
    const struct sc_cap *cp = sc_find_cap(F->it, 1, TR_CAP_STRING);
    if (returned_ok(F->it) && cp)
        syscalls_print_quoted(F->b, sc_cap_data(F->it, cp), cp->len, F->c->o->hex, 0);
    else
        syscalls_print_addr(F->b, F->it->args[1]);
}

static void arch_prctl_entry(struct fmt *F)
{
    syscalls_print_value(F->b, syscalls_xlat_arch_prctl, F->it->args[0], "%#llx");
    syscalls_buf_printf(F->b, ", %#llx", (unsigned long long)F->it->args[1]);
}

static void rt_sigreturn_entry(struct fmt *F)
{
    const struct sc_cap *cp = sc_find_cap(F->it, 0, TR_CAP_STRUCT);
    if (cp && cp->len == syscalls_abi.sigset) {
        syscalls_buf_puts(F->b, "{mask=");
        syscalls_print_sigset(F->b, sc_cap_data(F->it, cp), cp->len);
        syscalls_buf_putc(F->b, '}');
    }
}

/* The decoder of each family that decodes its calls itself: what it prints at
 * entry, at exit, and whether the call has an exit part (strace: not
 * RVAL_DECODED at entry).  A record's decoder is one index away from its
 * number: number -> descriptor (the stream's syscalls_table) -> family. */
static const struct family_decoder {
    void (*entry)(struct fmt *F);
    void (*exit)(struct fmt *F);
    int (*has_exit)(const struct sc_item *it);
} decoders[SYSCALL_FAMILY_COUNT] = {
    [SYSCALL_FAMILY_CLONE] = { clone_entry, clone_exit, clone_has_exit },
    [SYSCALL_FAMILY_CLONE3] = { clone3_entry, clone3_exit, clone3_has_exit },
    [SYSCALL_FAMILY_FUTEX] = { futex_entry, NULL, NULL },
    [SYSCALL_FAMILY_FCNTL] = { fcntl_entry, fcntl_exit, fcntl_has_exit },
    [SYSCALL_FAMILY_IOCTL] = { ioctl_entry, ioctl_exit, ioctl_has_exit },
    [SYSCALL_FAMILY_PRCTL] = { prctl_entry, prctl_exit, prctl_has_exit },
    [SYSCALL_FAMILY_ARCH_PRCTL] = { arch_prctl_entry, NULL, NULL },
    [SYSCALL_FAMILY_RT_SIGRETURN] = { rt_sigreturn_entry, NULL, NULL },
};

/* 1 when part of the call is printed at exit (strace: not RVAL_DECODED at entry) */
static int has_exit_part(const struct sc_item *it, const struct syscall_desc *d)
{
    if (!d)
        return 0;
    if (syscalls_by_args(d))
        return split_of(d) < d->nargs;
    const struct family_decoder *fd = &decoders[d->family];
    return fd->has_exit ? fd->has_exit(it) : 0;
}

/* "name(" and the arguments known at entry */
void sc_format_entry(struct cat_ctx *c, const struct sc_item *it, struct syscalls_buf *b)
{
    const struct syscalls_entry *e = sc_entry(c, it->nr);
    const char *name = sc_sys_name(c, it->nr);
    const struct syscall_desc *d = e ? e->desc : NULL;
    struct fmt F = { c, it, d, b };
    syscalls_buf_puts(b, name);
    syscalls_buf_putc(b, '(');
    if (c->o->raw || !d || (!syscalls_by_args(d) && !decoders[d->family].entry)) {
        for (unsigned i = 0; i < it->nargs && i < 6; i++) {
            if (i)
                syscalls_buf_puts(b, ", ");
            fmt_arg(&F, i, SYSCALL_ARG_HEX);
        }
        return;
    }
    if (!syscalls_by_args(d)) {
        decoders[d->family].entry(&F);
        return;
    }
    unsigned split = split_of(d);
    fmt_range(&F, 0, split, split < d->nargs);
}

static void format_ret(struct cat_ctx *c, const struct sc_item *it, struct syscalls_buf *b)
{
    const struct syscalls_entry *e = c->o->raw ? NULL : sc_entry(c, it->nr);
    const struct syscall_desc *d = e ? e->desc : NULL;
    int64_t r = it->ret;
    if (!(it->flags & TR_SYSF_HAS_RET)) {
        syscalls_buf_puts(b, "?");
        return;
    }
    if (sc_is_err(r)) {
        int en = (int)-r;
        const char *ename = syscalls_errno_name(en), *msg = syscalls_errno_message(en);
        /* ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND, ERESTART_RESTARTBLOCK: to be restarted */
        int restart = en == 512 || en == 513 || en == 514 || en == 516;
        syscalls_buf_puts(b, restart ? "? " : "-1 ");
        if (ename)
            syscalls_buf_puts(b, ename);
        else
            syscalls_buf_printf(b, "errno %d", en);
        if (msg)
            syscalls_buf_printf(b, " (%s)", msg);
        return;
    }
    enum syscall_ret rt = d ? (enum syscall_ret)d->ret : SYSCALL_RET_DEC;
    if (d && d->family == SYSCALL_FAMILY_FCNTL) {
        if (it->args[1] == F_GETFD) {
            syscalls_buf_printf(b, "%#llx", (unsigned long long)r);
            if (r) {
                syscalls_buf_puts(b, " (flags ");
                syscalls_print_flags(b, syscalls_xlat_fd_flags, (uint64_t)r, "0");
                syscalls_buf_putc(b, ')');
            }
            return;
        }
        if (it->args[1] == F_GETFL) {
            syscalls_buf_printf(b, "%#llx (flags ", (unsigned long long)r);
            syscalls_print_open_flags(b, (uint64_t)r);
            syscalls_buf_putc(b, ')');
            return;
        }
        if (it->args[1] == F_DUPFD || it->args[1] == F_DUPFD_CLOEXEC)
            rt = SYSCALL_RET_FD;
    }
    if (d && d->family == SYSCALL_FAMILY_PRCTL && it->args[0] == PR_GET_DUMPABLE) {
        syscalls_buf_printf(b, "%lld (", (long long)r);
        syscalls_print_value(b, syscalls_xlat_suid_dump, (uint64_t)r, "SUID_DUMP_???");
        syscalls_buf_putc(b, ')');
        return;
    }
    if (d && (d->family == SYSCALL_FAMILY_POLL || d->family == SYSCALL_FAMILY_SELECT)) {
        syscalls_buf_printf(b, "%lld", (long long)r);
        if (r == 0) {
            syscalls_buf_puts(b, " (Timeout)");
            return;
        }
        size_t start = b->len; /* what follows goes in parentheses, when anything does */
        syscalls_buf_puts(b, " (");
        size_t open = b->len;
        unsigned timeout_arg = d->family == SYSCALL_FAMILY_POLL ? 2 : 4;
        if (d->family == SYSCALL_FAMILY_POLL) {
            const struct sc_cap *cp = sc_find_cap_at(it, 0, TR_CAP_STRUCT, 1);
            if (cp && cp->len)
                syscalls_print_pollfds(b, sc_cap_data(it, cp), cp->len, 1);
        } else {
            static const char *const names[] = { "in", "out", "except" };
            for (unsigned k = 1; k <= 3; k++) {
                const struct sc_cap *cp = sc_find_cap_at(it, k, TR_CAP_STRUCT, 1);
                uint64_t nfds = (uint32_t)it->args[0];
                int any = 0;
                for (uint64_t fd = 0; cp && fd < nfds && fd / 8 < cp->len; fd++)
                    any |= sc_cap_data(it, cp)[fd / 8] & (1u << (fd % 8));
                if (!any)
                    continue;
                syscalls_buf_printf(b, "%s%s ", b->len > open ? ", " : "", names[k - 1]);
                fmt_fdset(b, sc_cap_data(it, cp), cp->len, nfds);
            }
        }
        const struct sc_cap *left = d->nargs > timeout_arg ? sc_find_cap_at(it, timeout_arg, TR_CAP_STRUCT, 1) : NULL;
        if (left && left->len) {
            syscalls_buf_puts(b, b->len > open ? ", left " : "left ");
            if (d->args[timeout_arg] == SYSCALL_ARG_TIMEVAL_INOUT)
                syscalls_print_timeval(b, sc_cap_data(it, left), left->len);
            else
                syscalls_print_timespec(b, sc_cap_data(it, left), left->len);
        }
        if (b->len > open) {
            syscalls_buf_putc(b, ')');
        } else if (b->p) {
            b->len = start;
            b->p[start] = 0;
        }
        return;
    }
    if (d && d->nargs == 5 && d->args[1] == SYSCALL_ARG_MMSGHDR_RECV && (r == 0 || it->args[4])) {
        /* recvmmsg: the time left of its timeout, as select's */
        const struct sc_cap *left = sc_find_cap_at(it, 4, TR_CAP_STRUCT, 1);
        syscalls_buf_printf(b, "%lld", (long long)r);
        if (r == 0) {
            syscalls_buf_puts(b, " (Timeout)");
        } else if (left && left->len) {
            syscalls_buf_puts(b, " (left ");
            syscalls_print_timespec(b, sc_cap_data(it, left), left->len);
            syscalls_buf_putc(b, ')');
        }
        return;
    }
    switch (rt) {
    case SYSCALL_RET_HEX: syscalls_buf_printf(b, "%#llx", (unsigned long long)r); break;
    case SYSCALL_RET_OCTAL: syscalls_buf_printf(b, "%#03llo", (unsigned long long)r); break;
    case SYSCALL_RET_SCHED_POLICY: {
        const struct syscalls_xlat *x = syscalls_xlat_sched_policies;
        while (x->name && x->val != (uint64_t)r)
            x++;
        syscalls_buf_printf(b, x->name ? "%lld (%s)" : "%lld", (long long)r, x->name);
        break;
    }
    case SYSCALL_RET_FD: {
        struct fmt F = { c, it, d, b };
        fmt_fd(&F, r, 6);
        break;
    }
    default: syscalls_buf_printf(b, "%lld", (long long)r); break;
    }
}

/* the arguments printed at exit, ")" and " = ret" with strace's padding */
void sc_format_exit(struct cat_ctx *c, const struct sc_item *it, struct syscalls_buf *b, size_t line_start)
{
    const struct syscalls_entry *e = sc_entry(c, it->nr);
    const struct syscall_desc *d = e ? e->desc : NULL;
    struct fmt F = { c, it, d, b };
    if (!c->o->raw && d && (it->flags & TR_SYSF_HAS_RET)) {
        if (!syscalls_by_args(d)) {
            if (decoders[d->family].exit)
                decoders[d->family].exit(&F);
        } else {
            fmt_range(&F, split_of(d), d->nargs, 0);
        }
    } else if (!c->o->raw && has_exit_part(it, d)) {
        /* unfinished: what is printed at exit stays unknown, as strace says */
        syscalls_buf_puts(b, " <unfinished ...>");
    }
    syscalls_buf_puts(b, ") ");
    size_t col = b->len - line_start;
    while (col < 40) {
        syscalls_buf_putc(b, ' ');
        col++;
    }
    syscalls_buf_puts(b, "= ");
    format_ret(c, it, b);
    if (sc_show_time(c) && (it->flags & TR_SYSF_HAS_RET))
        syscalls_buf_printf(b, " <%" PRIu64 ".%06" PRIu64 ">", it->dur / 1000000000u, it->dur % 1000000000u / 1000u);
}
