/* cat-syscall-format.c - arguments and return values as strace prints them
 * (see cat-syscall-format.h); the types come from cat-syscall-desc.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cat-syscall-desc.h"
#include "cat-syscall-format.h"

/* ---- helpers -------------------------------------------------------------- */

static char *names[1024]; /* syscall names by number, copied from the stream's table */

void sc_names_reset(void)
{
    for (int i = 0; i < 1024; i++) {
        free(names[i]);
        names[i] = NULL;
    }
}

const char *sc_sys_name(struct cat_ctx *c, uint32_t nr)
{
    static char buf[32];
    if (nr < 1024 && names[nr])
        return names[nr];
    const char *n = c->r ? tr_reader_syscall_name(c->r, NULL, nr) : NULL;
    if (n && nr < 1024) {
        names[nr] = strdup(n);
        if (names[nr])
            return names[nr];
    }
    if (n)
        return n;
    snprintf(buf, sizeof buf, "syscall_%#x", nr);
    return buf;
}

int sc_is_err(int64_t ret) { return ret < 0 && ret >= -4095; }

const struct sc_cap *sc_find_cap(const struct sc_item *it, uint32_t arg, uint32_t kind)
{
    for (uint32_t i = 0; i < it->ncap; i++)
        if (it->cap[i].arg == arg && it->cap[i].kind == kind)
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
    const struct sc_desc *d;
    const char *name;
    struct sb *b;
};

static void fmt_fd(struct fmt *F, int64_t fd, uint32_t arg)
{
    sb_printf(F->b, "%d", (int)fd);
    if (F->c->o->decode_fds) {
        const struct sc_cap *cp = sc_find_cap(F->it, arg, TR_CAP_FD_PATH);
        if (cp) {
            sb_putc(F->b, '<');
            sb_put(F->b, (const char *)sc_cap_data(F->it, cp), cp->len);
            sb_putc(F->b, '>');
        }
    }
}

static void fmt_string(struct fmt *F, unsigned i, size_t limit)
{
    const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRING);
    uint64_t v = F->it->args[i];
    if (!v) {
        sb_puts(F->b, "NULL");
        return;
    }
    if (!cp || (cp->flags & TR_CAPF_FAULT)) {
        print_addr(F->b, v);
        return;
    }
    size_t n = cp->len < limit ? cp->len : limit;
    print_quoted(F->b, sc_cap_data(F->it, cp), n, F->c->o->hex, 0);
    if (n < cp->len || (cp->flags & TR_CAPF_TRUNCATED))
        sb_puts(F->b, "...");
}

/* a buffer of total bytes of which the capture holds a prefix */
static void fmt_buffer(struct fmt *F, unsigned i, uint64_t total, int force_hex)
{
    const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_BUFFER);
    uint64_t v = F->it->args[i];
    if (!cp || (cp->flags & TR_CAPF_FAULT) || (cp->len == 0 && total > 0)) {
        print_addr(F->b, v);
        return;
    }
    size_t lim = F->c->o->strsize;
    size_t n = cp->len < lim ? cp->len : lim;
    print_quoted(F->b, sc_cap_data(F->it, cp), n, F->c->o->hex, force_hex);
    if (total > n)
        sb_puts(F->b, "...");
}

static void fmt_argv(struct fmt *F, unsigned i)
{
    const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRINGS);
    if (!F->it->args[i]) {
        sb_puts(F->b, "NULL");
        return;
    }
    if (!cp || (cp->flags & TR_CAPF_FAULT)) {
        print_addr(F->b, F->it->args[i]);
        return;
    }
    const uint8_t *p = sc_cap_data(F->it, cp), *end = p + cp->len;
    size_t lim = F->c->o->strsize, count = 0;
    sb_putc(F->b, '[');
    while (p < end) {
        const uint8_t *z = memchr(p, 0, (size_t)(end - p));
        size_t len = z ? (size_t)(z - p) : (size_t)(end - p);
        if (count == lim) {
            sb_puts(F->b, ", ...");
            break;
        }
        if (count++)
            sb_puts(F->b, ", ");
        size_t n = len < lim ? len : lim;
        print_quoted(F->b, p, n, F->c->o->hex, 0);
        if (len > n)
            sb_puts(F->b, "...");
        p += len + 1;
    }
    if (cp->flags & TR_CAPF_TRUNCATED)
        sb_puts(F->b, ", ...");
    sb_putc(F->b, ']');
}

static void fmt_struct(struct fmt *F, unsigned i, char t)
{
    const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRUCT);
    uint64_t v = F->it->args[i];
    if (!cp || !cp->len) {
        print_addr(F->b, v);
        return;
    }
    const uint8_t *p = sc_cap_data(F->it, cp);
    switch (t) {
    case 'l': case 'k': print_rlimit(F->b, p, cp->len); break;
    case 'q': case 'Q': print_sigset(F->b, p, cp->len); break;
    case 'c': case 'C': print_sigaction(F->b, p, cp->len); break;
    case 't': case 'e': case '3': print_timespec(F->b, p, cp->len); break;
    case 'T': print_stat(F->b, p, cp->len); break;
    case 'U': print_utsname(F->b, p, cp->len); break;
    case 'B': print_statx(F->b, p, cp->len); break;
    case '7': print_statfs(F->b, p, cp->len); break;
    case '6': print_sysinfo(F->b, p, cp->len); break;
    case '5': print_cpuset(F->b, p, cp->len); break;
    case '8': print_pollfds(F->b, p, cp->len, 0); break;
    case '9': print_iov(F->b, p, cp->len, F->it->args[i + 1], F->c->o->strsize, F->c->o->hex); break;
    case '0': print_iov(F->b, p, cp->len, F->it->args[i + 1], F->c->o->strsize, F->c->o->hex); break;
    case '4': {
        sb_putc(F->b, '[');
        for (size_t k = 0; k + 4 <= cp->len; k += 4) {
            uint32_t g;
            memcpy(&g, p + k, 4);
            sb_printf(F->b, "%s%u", k ? ", " : "", g);
        }
        sb_putc(F->b, ']');
        break;
    }
    case 'z': print_sockaddr(F->b, p, cp->len); break;
    case 'I': {
        int fds[2];
        memcpy(fds, p, 8);
        sb_putc(F->b, '[');
        fmt_fd(F, fds[0], 6);
        sb_puts(F->b, ", ");
        fmt_fd(F, fds[1], 7);
        sb_putc(F->b, ']');
        break;
    }
    case 'N': {
        int st;
        memcpy(&st, p, 4);
        print_wait_status(F->b, st);
        break;
    }
    case 'Y': {
        uint32_t n;
        memcpy(&n, p, 4);
        print_addr(F->b, v);
        sb_printf(F->b, " /* %u entries */", n);
        break;
    }
    case 'E': {
        uint32_t n;
        memcpy(&n, p, 4);
        print_addr(F->b, v);
        sb_printf(F->b, " /* %u var%s */", n, n == 1 ? "" : "s");
        break;
    }
    default: print_addr(F->b, v); break;
    }
}

/* A value whose low bits (kind_mask) name a kind and whose other bits are
 * flags: "O_RDONLY|O_CLOEXEC", "MAP_PRIVATE|MAP_ANONYMOUS", "SOCK_STREAM|SOCK_CLOEXEC". */
static void print_kind_flags(struct sb *b, const struct xlat *kinds, uint64_t kind_mask, const struct xlat *flags,
                             uint64_t v)
{
    print_xval(b, kinds, v & kind_mask, "%#llx");
    if (v & ~kind_mask) {
        sb_putc(b, '|');
        print_flags(b, flags, v & ~kind_mask, "0");
    }
}

static void fmt_at_flags(struct fmt *F, uint64_t v)
{
    if (strcmp(F->name, "faccessat2") == 0) {
        static const struct xlat fa[] = { {0x100, "AT_SYMLINK_NOFOLLOW"}, {0x200, "AT_EACCESS"},
                                          {0x1000, "AT_EMPTY_PATH"}, XEND };
        print_flags(F->b, fa, v, "0");
        return;
    }
    if (strcmp(F->name, "statx") == 0) {
        static const struct xlat sx[] = { {0x100, "AT_SYMLINK_NOFOLLOW"}, {0x800, "AT_NO_AUTOMOUNT"},
                                          {0x1000, "AT_EMPTY_PATH"}, {0x2000, "AT_STATX_FORCE_SYNC"},
                                          {0x4000, "AT_STATX_DONT_SYNC"}, XEND };
        if (!(v & 0x6000)) {
            sb_puts(F->b, "AT_STATX_SYNC_AS_STAT");
            if (v)
                sb_putc(F->b, '|');
            else
                return;
        }
        print_flags(F->b, sx, v, "0");
        return;
    }
    print_flags(F->b, x_at_flags, v, "0");
}

static void fmt_arg(struct fmt *F, unsigned i, char t)
{
    uint64_t v = F->it->args[i];
    struct sb *b = F->b;
    switch (t) {
    case 'd': sb_printf(b, "%d", (int)v); break;
    case 'i': sb_printf(b, "%lld", (long long)v); break;
    case 'u': sb_printf(b, "%llu", (unsigned long long)v); break;
    case 'o': sb_printf(b, "%#03llo", (unsigned long long)v); break;
    case 'p': print_addr(b, v); break;
    case 'f': fmt_fd(F, (int)v, i); break;
    case 'a':
        if ((int)v == -100) {
            sb_puts(b, "AT_FDCWD");
            const struct sc_cap *cp = F->c->o->decode_fds ? sc_find_cap(F->it, i, TR_CAP_FD_PATH) : NULL;
            if (cp) {
                sb_putc(b, '<');
                sb_put(b, (const char *)sc_cap_data(F->it, cp), cp->len);
                sb_putc(b, '>');
            }
        } else
            fmt_fd(F, (int)v, i);
        break;
    case 's': case 'n': fmt_string(F, i, (size_t)-1); break;
    case 'S': fmt_string(F, i, F->c->o->strsize); break;
    case 'w': fmt_buffer(F, i, i + 1 < 6 ? F->it->args[i + 1] : 0, 0); break;
    case 'r': case 'R':
        if (sc_is_err(F->it->ret) || !(F->it->flags & TR_SYSF_HAS_RET))
            print_addr(b, v);
        else if (F->it->ret == 0)
            sb_puts(b, "\"\"");
        else
            fmt_buffer(F, i, (uint64_t)F->it->ret, t == 'R');
        break;
    case 'A': fmt_argv(F, i); break;
    case 'O': print_kind_flags(b, x_open_access, 3, x_open_flags, v); break;
    case 'M': sb_printf(b, "%#03o", (unsigned)v); break;
    case '1': print_flags(b, x_open_flags, v, "0"); break;
    case 'P': print_flags(b, x_mmap_prot, v, "PROT_NONE"); break;
    case 'm': print_kind_flags(b, x_mmap_type, 0xf, x_mmap_flags, v); break;
    case 'G': print_signal(b, (int)v); break;
    case 'X':
        if (v == 0)
            sb_puts(b, "F_OK");
        else
            print_flags(b, x_access_modes, v, "F_OK");
        break;
    case 'Z': fmt_at_flags(F, v); break;
    case 'W': print_xval(b, x_whence, v, "%llu"); break;
    case 'V': print_xval(b, x_madvise, v, "%#llx"); break;
    case 'L': print_xval(b, x_rlimit, v, "%#llx"); break;
    case 'h': print_xval(b, x_sigprocmask, v, "%#llx"); break;
    case 'H': print_flags(b, x_wait_opts, v, "0"); break;
    case 'F': print_xval(b, x_af, v, "%llu"); break;
    case 'K': print_kind_flags(b, x_sock_type, 0xf, x_sock_flags, v); break;
    case 'g': print_flags(b, x_grnd, v, "0"); break;
    case 'j': print_xval(b, x_clocks, v, "%llu"); break;
    case 'y': print_flags(b, x_timer_flags, v, "0"); break;
    case 'b': print_flags(b, x_statx_mask, v, "0"); break;
    case '#': print_socket_protocol(b, (int)F->it->args[0], (int)v); break;
    case '$': print_flags(b, x_msg_flags, v, "0"); break;
    case '@': print_cloexec_flags(b, F->name, v); break;
    case '!': {
        static const struct xlat ops[] = { {1, "EPOLL_CTL_ADD"}, {2, "EPOLL_CTL_DEL"}, {3, "EPOLL_CTL_MOD"}, XEND };
        print_xval(b, ops, v, "%llu");
        break;
    }
    case '^': case '~': {
        const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRUCT);
        if (t == '~' && (F->it->flags & TR_SYSF_HAS_RET) && F->it->ret == 0)
            sb_puts(b, "[]");
        else if (cp && cp->len)
            print_epoll_events(b, sc_cap_data(F->it, cp), cp->len, t == '~');
        else
            print_addr(b, v);
        break;
    }
    case '%': {
        const struct sc_cap *cp = sc_find_cap(F->it, i, TR_CAP_STRUCT);
        if (cp && cp->len)
            print_sockaddr(b, sc_cap_data(F->it, cp), cp->len);
        else
            print_addr(b, v);
        break;
    }
    case '&': {
        const struct sc_cap *in = NULL, *out = NULL;
        for (uint32_t k = 0; k < F->it->ncap; k++)
            if (F->it->cap[k].arg == i && F->it->cap[k].kind == TR_CAP_STRUCT && F->it->cap[k].len == 4)
                *((F->it->cap[k].flags & TR_CAPF_EXIT) ? &out : &in) = &F->it->cap[k];
        if (!in) {
            print_addr(b, v);
            break;
        }
        uint32_t a, o = 0;
        memcpy(&a, sc_cap_data(F->it, in), 4);
        if (out)
            memcpy(&o, sc_cap_data(F->it, out), 4);
        if (out && o != a)
            sb_printf(b, "[%u => %u]", a, o);
        else
            sb_printf(b, "[%u]", a);
        break;
    }
    case '4':
        if (!v)
            sb_puts(b, "NULL");
        else if ((F->it->flags & TR_SYSF_HAS_RET) && !sc_is_err(F->it->ret) &&
            (F->it->ret == 0 || F->it->args[0] == 0))
            sb_puts(b, "[]");
        else if (!v)
            sb_puts(b, "NULL");
        else
            fmt_struct(F, i, t);
        break;
    case 'D': print_xval(b, x_fadvise, v, "%llu"); break;
    case 'E': case 'Y': case 'l': case 'k': case 'q': case 'Q': case 'c': case 'C': case 't':
    case 'e': case 'T': case 'U': case 'I': case 'N': case 'z': case 'B': case '3':
    case '5': case '6': case '7': case '8': case '9': case '0':
        if (!v && t != 'Y')
            sb_puts(b, "NULL");
        else if (!v)
            sb_puts(b, "NULL");
        else
            fmt_struct(F, i, t);
        break;
    case 'x':
    default:
        if (v)
            sb_printf(b, "%#llx", (unsigned long long)v);
        else
            sb_puts(b, "0");
        break;
    }
}

static int is_output_type(char t) { return t && strchr("rRnkQCeTUINYB34567%&~", t) != NULL; }

/* the first argument printed at exit */
static unsigned split_of(const struct sc_desc *d)
{
    for (unsigned i = 0; i < d->nargs; i++)
        if (is_output_type(d->args[i]))
            return i;
    return d->nargs;
}

static int skip_arg(const struct fmt *F, unsigned i)
{
    /* open's mode is printed only with O_CREAT or O_TMPFILE */
    const struct sc_desc *d = F->d;
    if (d->args[i] == 'M' && i > 0 && d->args[i - 1] == 'O')
        return !(F->it->args[i - 1] & (0100 | 020000000));
    return 0;
}

static void fmt_range(struct fmt *F, unsigned from, unsigned to, int trailing_sep)
{
    int first = 1;
    for (unsigned i = from; i < to; i++) {
        if (skip_arg(F, i))
            continue;
        if (!first)
            sb_puts(F->b, ", ");
        first = 0;
        fmt_arg(F, i, F->d->args[i]);
    }
    if (trailing_sep && !first)
        sb_puts(F->b, ", ");
}

/* ---- special decoders ---------------------------------------------------------- */

static void fmt_clone_flags(struct sb *b, uint64_t flags)
{
    uint64_t sig = flags & 0xff;
    flags &= ~0xffull;
    if (flags)
        print_flags(b, x_clone_flags, flags, "0");
    if (sig) {
        if (flags)
            sb_putc(b, '|');
        print_signal(b, (int)sig);
    } else if (!flags) {
        sb_putc(b, '0');
    }
}

static void special_entry(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct sb *b = F->b;
    const char *n = F->name;
    if (!strcmp(n, "clone")) {
        /* x86_64: clone(flags, stack, parent_tid, child_tid, tls) */
        sb_puts(b, "child_stack=");
        print_addr(b, a[1]);
        sb_puts(b, ", flags=");
        fmt_clone_flags(b, a[0]);
        if (a[0] & (0x100000 | 0x1000)) { /* PARENT_SETTID, PIDFD: printed at exit */
            sb_puts(b, ", ");
            return;
        }
        if (a[0] & (0x1000000 | 0x200000))
            sb_printf(b, ", child_tidptr=%#llx", (unsigned long long)a[3]);
        if (a[0] & 0x80000)
            sb_printf(b, ", tls=%#llx", (unsigned long long)a[4]);
    } else if (!strcmp(n, "clone3")) {
        const struct sc_cap *cp = sc_find_cap(F->it, 0, TR_CAP_STRUCT);
        if (!cp || cp->len < 64) {
            print_addr(b, a[0]);
            return;
        }
        uint64_t f[11] = {0};
        memcpy(f, sc_cap_data(F->it, cp), cp->len < 88 ? cp->len : 88);
        /* flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
         * set_tid_size, cgroup */
        sb_puts(b, "{flags=");
        print_flags(b, x_clone_flags, f[0], "0");
        if (f[0] & 0x1000)
            sb_printf(b, ", pidfd=%#llx", (unsigned long long)f[1]);
        if (f[0] & (0x1000000 | 0x200000))
            sb_printf(b, ", child_tid=%#llx", (unsigned long long)f[2]);
        if (f[0] & 0x100000)
            sb_printf(b, ", parent_tid=%#llx", (unsigned long long)f[3]);
        sb_puts(b, ", exit_signal=");
        if (f[4])
            print_signal(b, (int)f[4]);
        else
            sb_putc(b, '0');
        sb_puts(b, ", stack=");
        print_addr(b, f[5]);
        sb_printf(b, ", stack_size=%#llx", (unsigned long long)f[6]);
        if (f[0] & 0x80000)
            sb_printf(b, ", tls=%#llx", (unsigned long long)f[7]);
        if (f[9])
            sb_printf(b, ", set_tid=%#llx, set_tid_size=%llu", (unsigned long long)f[8],
                      (unsigned long long)f[9]);
        if (f[0] & 0x200000000ull)
            sb_printf(b, ", cgroup=%llu", (unsigned long long)f[10]);
        sb_putc(b, '}');
    } else if (!strcmp(n, "futex")) {
        int op = (int)a[1], base = op & 0x7f;
        print_addr(b, a[0]);
        sb_puts(b, ", ");
        const struct xlat *x;
        for (x = x_futex_ops; x->name && x->val != (uint64_t)base; x++)
            ;
        if (x->name) {
            sb_puts(b, x->name);
            if (op & 128)
                sb_puts(b, "_PRIVATE");
            if (op & 256)
                sb_puts(b, "|FUTEX_CLOCK_REALTIME");
            if (op & ~0x1ff)
                sb_printf(b, "|%#x", op & ~0x1ff);
        } else {
            sb_printf(b, "%#x", op);
        }
        struct fmt G = *F;
        switch (base) {
        case 0: /* WAIT */
            sb_printf(b, ", %d, ", (int)a[2]);
            if (!a[3]) sb_puts(b, "NULL"); else fmt_struct(&G, 3, 't');
            break;
        case 1: case 7: case 8: /* WAKE, UNLOCK_PI, TRYLOCK_PI */
            if (base == 1)
                sb_printf(b, ", %d", (int)a[2]);
            break;
        case 9: case 10: /* WAIT_BITSET, WAKE_BITSET */
            sb_printf(b, ", %d, ", (int)a[2]);
            if (!a[3]) sb_puts(b, "NULL"); else if (base == 9) fmt_struct(&G, 3, 't'); else print_addr(b, a[3]);
            if ((uint32_t)a[5] == 0xffffffffu)
                sb_puts(b, ", FUTEX_BITSET_MATCH_ANY");
            else
                sb_printf(b, ", %#x", (unsigned)a[5]);
            break;
        case 3: /* REQUEUE */
            sb_printf(b, ", %d, %u, %#llx", (int)a[2], (unsigned)a[3], (unsigned long long)a[4]);
            break;
        case 4: /* CMP_REQUEUE */
            sb_printf(b, ", %d, %u, %#llx, %d", (int)a[2], (unsigned)a[3], (unsigned long long)a[4],
                      (int)a[5]);
            break;
        case 6: case 13: /* LOCK_PI */
            sb_puts(b, ", ");
            if (!a[3]) sb_puts(b, "NULL"); else fmt_struct(&G, 3, 't');
            break;
        default:
            sb_printf(b, ", %d, %#llx, %#llx, %#llx", (int)a[2], (unsigned long long)a[3],
                      (unsigned long long)a[4], (unsigned long long)a[5]);
            break;
        }
    } else if (!strcmp(n, "fcntl")) {
        fmt_fd(F, (int)a[0], 0);
        sb_puts(b, ", ");
        print_xval(b, x_fcntl_cmds, a[1], "%#llx");
        switch (a[1]) {
        case 1: case 3: case 9: case 11: case 1025: case 1032: case 1034: case 1028:
            break; /* F_GET*: no argument */
        case 0: case 1030: case 10: case 1031: case 1027:
            sb_printf(b, ", %d", (int)a[2]);
            break;
        case 2: sb_puts(b, ", "); print_flags(b, x_fd_flags, a[2], "0"); break;
        case 4:
            sb_puts(b, ", ");
            print_xval(b, x_open_access, a[2] & 3, "%#llx");
            if (a[2] & ~3ull) {
                sb_putc(b, '|');
                print_flags(b, x_open_flags, a[2] & ~3ull, "0");
            }
            break;
        case 8: sb_printf(b, ", %d", (int)a[2]); break;
        default:
            sb_puts(b, ", ");
            print_addr(b, a[2]);
            break;
        }
    } else if (!strcmp(n, "ioctl")) {
        fmt_fd(F, (int)a[0], 0);
        sb_puts(b, ", ");
        print_xval(b, x_ioctl, (uint32_t)a[1], "%#llx");
        uint32_t req = (uint32_t)a[1];
        const struct sc_cap *cp = sc_find_cap(F->it, 2, TR_CAP_STRUCT);
        if (req == 0x5401 || req == 0x5413 || req == 0x541b || req == 0x540f)
            sb_puts(b, ", "); /* output argument: at exit */
        else if (req == 0x5450 || req == 0x5451)
            ;
        else if (req >= 0x5402 && req <= 0x5404 && cp && !(cp->flags & TR_CAPF_EXIT) && cp->len == 36) {
            sb_puts(b, ", ");
            print_termios(b, sc_cap_data(F->it, cp), cp->len);
        } else if (req == 0x5414 && cp && cp->len == 8) {
            sb_puts(b, ", ");
            print_winsize(b, sc_cap_data(F->it, cp), cp->len);
        } else {
            sb_puts(b, ", ");
            print_addr(b, a[2]);
        }
    } else if (!strcmp(n, "prctl")) {
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
        switch (a[0]) {
        case 1: sb_puts(b, "PR_SET_PDEATHSIG, "); print_signal(b, (int)a[1]); break;
        case 15: sb_puts(b, "PR_SET_NAME, "); fmt_string(F, 1, 16); break;
        case 16: sb_puts(b, "PR_GET_NAME, "); break; /* the name at exit */
        case 23:
            sb_puts(b, "PR_CAPBSET_READ, ");
            if (a[1] < sizeof caps / sizeof caps[0])
                sb_puts(b, caps[a[1]]);
            else
                sb_printf(b, "%#llx /* CAP_??? */", (unsigned long long)a[1]);
            break;
        case 38: sb_printf(b, "PR_SET_NO_NEW_PRIVS, %llu, %llu, %llu, %llu", (unsigned long long)a[1],
                           (unsigned long long)a[2], (unsigned long long)a[3], (unsigned long long)a[4]); break;
        case 39: sb_printf(b, "PR_GET_NO_NEW_PRIVS, %llu, %llu, %llu, %llu", (unsigned long long)a[1],
                           (unsigned long long)a[2], (unsigned long long)a[3], (unsigned long long)a[4]); break;
        default:
            sb_printf(b, "%#llx", (unsigned long long)a[0]);
            for (int k = 1; k < 5; k++)
                sb_printf(b, a[k] ? ", %#llx" : ", %llu", (unsigned long long)a[k]);
            break;
        }
    } else if (!strcmp(n, "arch_prctl")) {
        print_xval(b, x_arch_prctl, a[0], "%#llx");
        sb_printf(b, ", %#llx", (unsigned long long)a[1]);
    } else if (!strcmp(n, "rt_sigreturn")) {
        const struct sc_cap *cp = sc_find_cap(F->it, 0, TR_CAP_STRUCT);
        if (cp && cp->len == 8) {
            sb_puts(b, "{mask=");
            print_sigset(b, sc_cap_data(F->it, cp), 8);
            sb_putc(b, '}');
        }
    } else {
        for (unsigned i = 0; i < F->it->nargs && i < 6; i++) {
            if (i)
                sb_puts(b, ", ");
            fmt_arg(F, i, 'x');
        }
    }
}

static void special_exit(struct fmt *F)
{
    const uint64_t *a = F->it->args;
    struct sb *b = F->b;
    const char *n = F->name;
    int ok = (F->it->flags & TR_SYSF_HAS_RET) && !sc_is_err(F->it->ret);
    if (!strcmp(n, "clone") && (a[0] & (0x100000 | 0x1000))) {
        const struct sc_cap *cp = sc_find_cap(F->it, 2, TR_CAP_STRUCT);
        sb_puts(b, "parent_tid=");
        if (ok && cp && cp->len == 4) {
            int v;
            memcpy(&v, sc_cap_data(F->it, cp), 4);
            sb_printf(b, "[%d]", v);
        } else {
            print_addr(b, a[2]);
        }
        if (a[0] & (0x1000000 | 0x200000))
            sb_printf(b, ", child_tidptr=%#llx", (unsigned long long)a[3]);
        if (a[0] & 0x80000)
            sb_printf(b, ", tls=%#llx", (unsigned long long)a[4]);
    } else if (!strcmp(n, "prctl") && a[0] == 16) {
        const struct sc_cap *cp = sc_find_cap(F->it, 1, TR_CAP_STRING);
        if (ok && cp)
            print_quoted(b, sc_cap_data(F->it, cp), cp->len, F->c->o->hex, 0);
        else
            print_addr(b, a[1]);
    } else if (!strcmp(n, "clone3")) {
        const struct sc_cap *cp = sc_find_cap(F->it, 1, TR_CAP_STRUCT);
        if (ok && cp && cp->len == 4) {
            int v;
            memcpy(&v, sc_cap_data(F->it, cp), 4);
            sb_printf(b, " => {parent_tid=[%d]}", v);
        }
        sb_printf(b, ", %llu", (unsigned long long)a[1]);
    } else if (!strcmp(n, "ioctl")) {
        uint32_t req = (uint32_t)a[1];
        const struct sc_cap *cp = sc_find_cap(F->it, 2, TR_CAP_STRUCT);
        if (req == 0x5413 && ok && cp && cp->len == 8) {
            print_winsize(b, sc_cap_data(F->it, cp), cp->len);
        } else if (req == 0x5401 && ok && cp && cp->len == 36) {
            print_termios(b, sc_cap_data(F->it, cp), cp->len);
        } else if ((req == 0x541b || req == 0x540f) && ok && cp && cp->len == 4) {
            int v;
            memcpy(&v, sc_cap_data(F->it, cp), 4);
            sb_printf(b, "[%d]", v);
        } else if (req == 0x5401 || req == 0x5413 || req == 0x541b || req == 0x540f) {
            print_addr(b, a[2]);
        }
    }
}

/* 1 when part of the call is printed at exit (strace: not RVAL_DECODED at entry) */
static int has_exit_part(const struct sc_item *it, const struct sc_desc *d, const char *n)
{
    if (!d)
        return 0;
    if (d->args[0] != '*')
        return split_of(d) < d->nargs;
    if (!strcmp(n, "clone"))
        return (it->args[0] & (0x100000 | 0x1000)) != 0;
    if (!strcmp(n, "clone3"))
        return 1;
    if (!strcmp(n, "prctl"))
        return it->args[0] == 16;
    if (!strcmp(n, "ioctl")) {
        uint32_t req = (uint32_t)it->args[1];
        return req == 0x5401 || req == 0x5413 || req == 0x541b || req == 0x540f;
    }
    return 0;
}

/* "name(" and the arguments known at entry */
void sc_format_entry(struct cat_ctx *c, const struct sc_item *it, struct sb *b)
{
    const char *name = sc_sys_name(c, it->nr);
    const struct sc_desc *d = sc_desc_find(name);
    struct fmt F = { c, it, d, name, b };
    sb_puts(b, name);
    sb_putc(b, '(');
    if (c->o->raw || !d) {
        for (unsigned i = 0; i < it->nargs && i < 6; i++) {
            if (i)
                sb_puts(b, ", ");
            fmt_arg(&F, i, 'x');
        }
        return;
    }
    if (d->args[0] == '*') {
        special_entry(&F);
        return;
    }
    unsigned split = split_of(d);
    fmt_range(&F, 0, split, split < d->nargs);
}

static void format_ret(struct cat_ctx *c, const struct sc_item *it, struct sb *b)
{
    const char *name = sc_sys_name(c, it->nr);
    const struct sc_desc *d = c->o->raw ? NULL : sc_desc_find(name);
    int64_t r = it->ret;
    if (!(it->flags & TR_SYSF_HAS_RET)) {
        sb_puts(b, "?");
        return;
    }
    if (sc_is_err(r)) {
        int e = (int)-r;
        const char *en = errno_name(e), *msg = errno_message(e);
        int restart = e == 512 || e == 513 || e == 514 || e == 516;
        sb_puts(b, restart ? "? " : "-1 ");
        if (en)
            sb_puts(b, en);
        else
            sb_printf(b, "errno %d", e);
        if (msg)
            sb_printf(b, " (%s)", msg);
        return;
    }
    char rt = d ? d->ret : 'd';
    if (d && !strcmp(name, "fcntl")) {
        if (it->args[1] == 1) { /* F_GETFD */
            sb_printf(b, "%#llx", (unsigned long long)r);
            if (r) { sb_puts(b, " (flags "); print_flags(b, x_fd_flags, (uint64_t)r, "0"); sb_putc(b, ')'); }
            return;
        }
        if (it->args[1] == 3) { /* F_GETFL */
            sb_printf(b, "%#llx (flags ", (unsigned long long)r);
            print_xval(b, x_open_access, (uint64_t)r & 3, "%#llx");
            if ((uint64_t)r & ~3ull) {
                sb_putc(b, '|');
                print_flags(b, x_open_flags, (uint64_t)r & ~3ull, "0");
            }
            sb_putc(b, ')');
            return;
        }
        if (it->args[1] == 0 || it->args[1] == 1030)
            rt = 'f';
    }
    if (d && !strcmp(name, "poll")) {
        sb_printf(b, "%lld", (long long)r);
        const struct sc_cap *cp = NULL;
        for (uint32_t k = 0; k < it->ncap; k++)
            if (it->cap[k].arg == 0 && (it->cap[k].flags & TR_CAPF_EXIT))
                cp = &it->cap[k];
        if (r == 0)
            sb_puts(b, " (Timeout)");
        else if (cp && cp->len) {
            sb_puts(b, " (");
            print_pollfds(b, sc_cap_data(it, cp), cp->len, 1);
            sb_putc(b, ')');
        }
        return;
    }
    switch (rt) {
    case 'x': sb_printf(b, "%#llx", (unsigned long long)r); break;
    case 'o': sb_printf(b, "%#03llo", (unsigned long long)r); break;
    case 'f': {
        struct fmt F = { c, it, d, name, b };
        fmt_fd(&F, r, 6);
        break;
    }
    default: sb_printf(b, "%lld", (long long)r); break;
    }
}

/* the arguments printed at exit, ")" and " = ret" with strace's padding */
void sc_format_exit(struct cat_ctx *c, const struct sc_item *it, struct sb *b, size_t line_start)
{
    const char *name = sc_sys_name(c, it->nr);
    const struct sc_desc *d = sc_desc_find(name);
    struct fmt F = { c, it, d, name, b };
    if (!c->o->raw && d && (it->flags & TR_SYSF_HAS_RET)) {
        if (d->args[0] == '*')
            special_exit(&F);
        else
            fmt_range(&F, split_of(d), d->nargs, 0);
    } else if (!c->o->raw && has_exit_part(it, d, name)) {
        /* unfinished: what is printed at exit stays unknown, as strace says */
        sb_puts(b, " <unfinished ...>");
    }
    sb_puts(b, ") ");
    size_t col = b->len - line_start;
    while (col < 40) {
        sb_putc(b, ' ');
        col++;
    }
    sb_puts(b, "= ");
    format_ret(c, it, b);
    if (c->o->show_time && (it->flags & TR_SYSF_HAS_RET))
        sb_printf(b, " <%" PRIu64 ".%06" PRIu64 ">", it->dur / 1000000000u, it->dur % 1000000000u / 1000u);
}

