/* model/syscalls.h and model/syscalls_decode.h: a trace's own numbers map to
 * the descriptors of their names; each argument kind captures what its rule
 * says; the kernel's sizes are the headers' sizeof; the value tables agree
 * with the headers' constants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cmocka.h>

#include "syscalls.h"
#include "syscalls_decode.h"
#include "tr.h"

/* ---- a trace's table --------------------------------------------------------- */

/* A trace whose syscall table numbers calls unlike the host, read back from memory. */
static uint8_t *write_trace(size_t *len)
{
    int fd = memfd_create("test_syscalls", 0);
    assert_true(fd >= 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
    assert_int_equal(tr_writer_meta(w, "arch", "x86_64"), 0);
    static const uint32_t nrs[] = { 3, 7, 9, 2000, 11 };
    static const char *const names[] = { "read", "openat", "nosuchcall", "close", "clone" };
    assert_int_equal(tr_writer_syscall_table(w, "x86_64", nrs, names, 5), 0);
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_free(w);
    off_t end = lseek(fd, 0, SEEK_END);
    assert_true(end > 0);
    uint8_t *buf = malloc((size_t)end);
    assert_non_null(buf);
    assert_int_equal(pread(fd, buf, (size_t)end, 0), end);
    close(fd);
    *len = (size_t)end;
    return buf;
}

static void test_table_from_trace(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = write_trace(&len);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, buf, len, NULL), 0);
    tr_record rec;
    while (tr_reader_next(r, &rec) == 1 && rec.type != TR_REC_STREAM_END)
        ;
    struct syscalls_table t = {0};
    /* the trace's numbers, not the host's: 3 is read here, close on the host */
    const struct syscalls_entry *e = syscalls_table_lookup(&t, r, 3);
    assert_non_null(e);
    assert_string_equal(e->name, "read");
    assert_ptr_equal(e->desc, syscalls_desc_find("read"));
    assert_int_equal(e->desc->nargs, 3);
    assert_int_equal(syscalls_arg(e->desc, 0), SYSCALL_ARG_FD);
    assert_int_equal(syscalls_arg(e->desc, 1), SYSCALL_ARG_OUTBUF);
    assert_int_equal(syscalls_arg(e->desc, 5), SYSCALL_ARG_HEX); /* beyond its arity */
    e = syscalls_table_lookup(&t, r, 7);
    assert_non_null(e);
    assert_string_equal(e->desc->name, "openat");
    assert_int_equal(e->desc->ret, SYSCALL_RET_FD);
    assert_true(e->desc->classes & SYSCALL_CLASS_FILE);
    /* a number beyond the array, and a name without a descriptor */
    e = syscalls_table_lookup(&t, r, 2000);
    assert_non_null(e);
    assert_string_equal(e->desc->name, "close");
    e = syscalls_table_lookup(&t, r, 9);
    assert_non_null(e);
    assert_string_equal(e->name, "nosuchcall");
    assert_null(e->desc);
    /* the family decodes clone; its arguments have no kinds */
    e = syscalls_table_lookup(&t, r, 11);
    assert_int_equal(e->desc->family, SYSCALL_FAMILY_CLONE);
    assert_false(syscalls_by_args(e->desc));
    assert_int_equal(syscalls_arg(e->desc, 0), SYSCALL_ARG_HEX);
    /* not in the trace's table */
    assert_null(syscalls_table_lookup(&t, r, 0));
    assert_null(syscalls_table_lookup(&t, r, 5000));
    /* looked up once: the entries stay after the reader is gone */
    tr_reader_free(r);
    free(buf);
    e = syscalls_table_lookup(&t, NULL, 3);
    assert_non_null(e);
    assert_string_equal(e->name, "read");
    assert_int_equal(syscalls_table_nr(&t, "close"), 2000);
    assert_int_equal(syscalls_table_nr(&t, "openat"), 7);
    assert_int_equal(syscalls_table_nr(&t, "write"), -1);
    syscalls_table_free(&t);
    assert_null(syscalls_table_get(&t, 3));
}

static void test_host_table(void **state)
{
    (void)state;
    struct syscalls_table t = {0};
    assert_int_equal(syscalls_table_host(&t), 0);
    assert_true(syscalls_host_count() > 300);
    size_t described = 0;
    for (size_t i = 0; i < syscalls_host_count(); i++) {
        uint32_t nr;
        const char *name;
        syscalls_host_entry(i, &nr, &name);
        const struct syscalls_entry *e = syscalls_table_get(&t, nr);
        assert_non_null(e);
        assert_string_equal(e->name, name);
        assert_string_equal(syscalls_host_name(nr), name);
        assert_ptr_equal(e->desc, syscalls_desc_find(name));
        described += e->desc != NULL;
    }
    assert_true(described > 300);
    /* every descriptor names a syscall of the host */
    for (size_t i = 0; syscalls_desc_at(i); i++)
        assert_true(syscalls_host_nr(syscalls_desc_at(i)->name) >= 0);
    syscalls_table_free(&t);
}

/* ---- captures ------------------------------------------------------------------- */

static void test_capture_rules(void **state)
{
    (void)state;
    const struct syscall_arg_info *i;
    i = syscalls_arg_info(SYSCALL_ARG_PATH);
    assert_int_equal(i->entry.what, SYSCALL_CAPTURE_STRING);
    assert_int_equal(i->entry.size, PATH_MAX);
    assert_int_equal(i->exit.what, SYSCALL_CAPTURE_NONE);
    i = syscalls_arg_info(SYSCALL_ARG_STRING);
    assert_int_equal(i->entry.what, SYSCALL_CAPTURE_STRING);
    assert_int_equal(i->entry.size, 0); /* the -s limit */
    i = syscalls_arg_info(SYSCALL_ARG_OUTBUF);
    assert_int_equal(i->entry.what, SYSCALL_CAPTURE_NONE);
    assert_int_equal(i->exit.what, SYSCALL_CAPTURE_BUFFER);
    assert_int_equal(i->exit.count, SYSCALL_COUNT_RET);
    assert_int_equal(i->exit.cond, SYSCALL_IF_RET_POSITIVE);
    i = syscalls_arg_info(SYSCALL_ARG_INBUF);
    assert_int_equal(i->entry.what, SYSCALL_CAPTURE_BUFFER);
    assert_int_equal(i->entry.count, SYSCALL_COUNT_NEXT_ARG);
    i = syscalls_arg_info(SYSCALL_ARG_STAT_OUT);
    assert_int_equal(i->exit.what, SYSCALL_CAPTURE_STRUCT);
    assert_int_equal(i->exit.size, sizeof(struct stat));
    assert_int_equal(i->exit.cond, SYSCALL_IF_RET_ZERO);
    assert_string_equal(i->exit.struct_name, "stat");
    i = syscalls_arg_info(SYSCALL_ARG_POLLFDS); /* events at entry, revents at exit */
    assert_int_equal(i->entry.size, sizeof(struct pollfd));
    assert_int_equal(i->entry.count, SYSCALL_COUNT_NEXT_ARG);
    assert_int_equal(i->exit.size, sizeof(struct pollfd));
    assert_int_equal(i->exit.cond, SYSCALL_IF_RET_POSITIVE);
    i = syscalls_arg_info(SYSCALL_ARG_TIMESPEC_REMAINING);
    assert_int_equal(i->exit.cond, SYSCALL_IF_EINTR);
    assert_int_equal(i->exit.size, sizeof(struct timespec));
    i = syscalls_arg_info(SYSCALL_ARG_EPOLL_EVENTS_OUT);
    assert_int_equal(i->exit.size, sizeof(struct epoll_event));
    assert_int_equal(i->exit.count, SYSCALL_COUNT_RET);
    assert_true(i->exit.max > 0);
    i = syscalls_arg_info(SYSCALL_ARG_SOCKADDR_OUT);
    assert_int_equal(i->exit.count, SYSCALL_COUNT_NEXT_ARG_SOCKLEN);
    assert_int_equal(i->exit.max, sizeof(struct sockaddr_storage));
    assert_true(syscalls_arg_info(SYSCALL_ARG_FD)->fd);
    assert_true(syscalls_arg_info(SYSCALL_ARG_DIRFD)->fd);
    assert_false(syscalls_arg_info(SYSCALL_ARG_INT)->fd);
    assert_null(syscalls_arg_info(SYSCALL_ARG_COUNT));
    /* every kind is described, and a struct capture always has a size and
     * a name for the trace */
    for (int k = 0; k < SYSCALL_ARG_COUNT; k++) {
        i = syscalls_arg_info((enum syscall_arg)k);
        assert_non_null(i->name);
        const struct syscall_capture *c[2] = { &i->entry, &i->exit };
        for (int j = 0; j < 2; j++)
            if (c[j]->what == SYSCALL_CAPTURE_STRUCT) {
                assert_true(c[j]->size > 0);
                assert_non_null(c[j]->struct_name);
            }
    }
    /* the kinds a descriptor uses capture at the right time: read's buffer at
     * exit, write's at entry */
    const struct syscall_desc *rd = syscalls_desc_find("read"), *wr = syscalls_desc_find("write");
    assert_int_equal(syscalls_arg_info(syscalls_arg(rd, 1))->exit.what, SYSCALL_CAPTURE_BUFFER);
    assert_int_equal(syscalls_arg_info(syscalls_arg(wr, 1))->entry.what, SYSCALL_CAPTURE_BUFFER);
    assert_int_equal(syscalls_arg_info(syscalls_arg(wr, 1))->exit.what, SYSCALL_CAPTURE_NONE);
}

static void test_family_captures(void **state)
{
    (void)state;
    struct syscall_family_capture fc[SYSCALLS_FAMILY_CAPTURES_MAX];
    const struct syscall_desc *ioctl_d = syscalls_desc_find("ioctl");
    /* ioctl(1, TCSETS, p): the fd's path (-y) and the kernel's termios, at entry */
    uint64_t a[6] = { 1, TCSETS, 0x1000, 0, 0, 0 };
    assert_int_equal(syscalls_family_captures(ioctl_d, a, 0, 0, 0, NULL, 0, fc), 2);
    assert_int_equal(fc[0].c.what, SYSCALL_CAPTURE_FD_PATH);
    assert_int_equal(fc[0].value, 1);
    assert_int_equal(fc[1].c.what, SYSCALL_CAPTURE_STRUCT);
    assert_int_equal(fc[1].arg, 2);
    assert_int_equal(fc[1].value, 0x1000);
    assert_int_equal(fc[1].c.size, syscalls_abi.termios);
    assert_string_equal(fc[1].c.struct_name, "termios");
    /* TIOCGWINSZ: its winsize at exit, only when it succeeded */
    a[1] = TIOCGWINSZ;
    assert_int_equal(syscalls_family_captures(ioctl_d, a, 0, 1, 0, NULL, 0, fc), 1);
    assert_int_equal(fc[0].c.size, sizeof(struct winsize));
    assert_int_equal(syscalls_family_captures(ioctl_d, a, 0, 1, -25, NULL, 0, fc), 0);
    /* fcntl(F_DUPFD_CLOEXEC): the new fd's path at exit */
    uint64_t f[6] = { 3, F_DUPFD_CLOEXEC, 10, 0, 0, 0 };
    assert_int_equal(syscalls_family_captures(syscalls_desc_find("fcntl"), f, 0, 1, 12, NULL, 0, fc), 1);
    assert_int_equal(fc[0].arg, 6);
    assert_int_equal(fc[0].value, 12);
    /* clone3: parent_tid at exit, from the clone_args copied at entry
     * (flags, pidfd, child_tid, parent_tid, ...) */
    const struct syscall_desc *clone3 = syscalls_desc_find("clone3");
    uint64_t c[6] = { 0x2000, syscalls_abi.clone_args, 0, 0, 0, 0 };
    assert_int_equal(syscalls_family_captures(clone3, c, 0, 0, 0, NULL, 0, fc), 1);
    assert_int_equal(fc[0].c.size, syscalls_abi.clone_args);
    uint64_t args[11] = { CLONE_PARENT_SETTID, 0, 0, 0x3000 };
    assert_int_equal(syscalls_family_captures(clone3, c, 0, 1, 42, (const uint8_t *)args, sizeof args, fc), 1);
    assert_int_equal(fc[0].arg, 1);
    assert_int_equal(fc[0].value, 0x3000);
    assert_int_equal(fc[0].c.size, sizeof(int));
    args[0] = 0; /* no CLONE_PARENT_SETTID: nothing */
    assert_int_equal(syscalls_family_captures(clone3, c, 0, 1, 42, (const uint8_t *)args, sizeof args, fc), 0);
    /* rt_sigreturn: the mask it restores, in the ucontext on the stack */
    uint64_t none[6] = {0};
    assert_int_equal(syscalls_family_captures(syscalls_desc_find("rt_sigreturn"), none, 0x7000, 0, 0, NULL, 0, fc), 1);
    assert_int_equal(fc[0].value, 0x7000 + offsetof(ucontext_t, uc_sigmask));
    assert_int_equal(fc[0].c.size, syscalls_abi.sigset);
    /* prctl(PR_SET_NAME): the name, at most a comm */
    uint64_t p[6] = { PR_SET_NAME, 0x4000, 0, 0, 0, 0 };
    assert_int_equal(syscalls_family_captures(syscalls_desc_find("prctl"), p, 0, 0, 0, NULL, 0, fc), 1);
    assert_int_equal(fc[0].c.what, SYSCALL_CAPTURE_STRING);
    assert_int_equal(fc[0].c.size, 16);
    /* calls decoded by their kinds have none */
    assert_int_equal(syscalls_family_captures(syscalls_desc_find("read"), a, 0, 0, 0, NULL, 0, fc), 0);
}

static void test_sizes(void **state)
{
    (void)state;
    const struct syscalls_abi *a = &syscalls_abi;
    /* where the C library's structs are the kernel's (x86_64) */
    assert_int_equal(a->stat, sizeof(struct stat));
    assert_int_equal(a->statx, sizeof(struct statx));
    assert_int_equal(a->statfs, sizeof(struct statfs));
    assert_int_equal(a->sysinfo, sizeof(struct sysinfo));
    assert_int_equal(a->utsname, sizeof(struct utsname));
    assert_int_equal(a->rlimit, sizeof(struct rlimit));
    assert_int_equal(a->timespec, sizeof(struct timespec));
    assert_int_equal(a->pollfd, sizeof(struct pollfd));
    assert_int_equal(a->epoll_event, sizeof(struct epoll_event));
    assert_int_equal(a->iovec, sizeof(struct iovec));
    assert_int_equal(a->sockaddr_max, sizeof(struct sockaddr_storage));
    assert_int_equal(a->gid, sizeof(gid_t));
    assert_int_equal(a->rusage, sizeof(struct rusage));
    assert_int_equal(a->stack, sizeof(stack_t));
    assert_int_equal(a->timeval, sizeof(struct timeval));
    assert_int_equal(a->path_max, PATH_MAX);
    assert_int_equal(a->uc_sigmask, offsetof(ucontext_t, uc_sigmask));
    /* the kernel's own: a sigset of _NSIG - 1 bits; sigaction is handler,
     * flags, restorer and that mask */
    assert_int_equal(a->sigset, (_NSIG - 1) / 8);
    assert_int_equal(a->sigaction, 3 * sizeof(void *) + a->sigset);
    /* clone_args grows by version: at least its first (64 bytes, CLONE_ARGS_SIZE_VER0) */
    assert_true(a->clone_args >= 64 && a->clone_args % 8 == 0);
}

/* ---- decoders --------------------------------------------------------------------- */

static const char *flags(const struct syscalls_xlat *x, uint64_t v)
{
    static struct syscalls_buf b;
    syscalls_buf_reset(&b);
    syscalls_print_flags(&b, x, v, "0");
    return b.p;
}

static uint64_t value_of(const struct syscalls_xlat *x, const char *name)
{
    for (; x->name; x++)
        if (!strcmp(x->name, name))
            return x->val;
    fail_msg("%s not in the table", name);
    return 0;
}

static void test_decoders(void **state)
{
    (void)state;
    struct syscalls_buf b = {0};
    /* the table's values are the headers' constants */
    assert_int_equal(value_of(syscalls_xlat_open_flags, "O_CREAT"), O_CREAT);
    assert_int_equal(value_of(syscalls_xlat_open_flags, "O_CLOEXEC"), O_CLOEXEC);
    assert_int_equal(value_of(syscalls_xlat_open_flags, "O_DIRECTORY"), O_DIRECTORY);
    assert_int_equal(value_of(syscalls_xlat_open_flags, "O_TMPFILE"), O_TMPFILE);
    assert_int_equal(value_of(syscalls_xlat_mmap_flags, "MAP_ANONYMOUS"), MAP_ANONYMOUS);
    assert_int_equal(value_of(syscalls_xlat_mmap_prot, "PROT_EXEC"), PROT_EXEC);
    assert_int_equal(value_of(syscalls_xlat_sock_flags, "SOCK_CLOEXEC"), SOCK_CLOEXEC);
    assert_int_equal(value_of(syscalls_xlat_at_flags, "AT_SYMLINK_NOFOLLOW"), AT_SYMLINK_NOFOLLOW);
    assert_int_equal(value_of(syscalls_xlat_sa_flags, "SA_RESTART"), SA_RESTART);
    assert_int_equal(value_of(syscalls_xlat_epoll_events, "EPOLLET"), (uint32_t)EPOLLET);
    /* open modes: access mode, then flags in strace's order */
    syscalls_print_open_flags(&b, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
    assert_string_equal(b.p, "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC");
    syscalls_buf_reset(&b);
    syscalls_print_open_flags(&b, O_RDONLY);
    assert_string_equal(b.p, "O_RDONLY");
    syscalls_buf_reset(&b);
    syscalls_print_open_flags(&b, O_RDWR | O_TMPFILE);
    assert_string_equal(b.p, "O_RDWR|O_TMPFILE");
    syscalls_buf_reset(&b);
    syscalls_print_open_flags(&b, O_ACCMODE); /* no access mode of that value */
    assert_string_equal(b.p, "0x3");
    assert_true(syscalls_open_has_mode(O_CREAT | O_WRONLY));
    assert_true(syscalls_open_has_mode(O_TMPFILE | O_RDWR));
    assert_false(syscalls_open_has_mode(O_DIRECTORY | O_RDONLY));
    syscalls_buf_reset(&b);
    syscalls_print_mmap_flags(&b, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED);
    assert_string_equal(b.p, "MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS");
    syscalls_buf_reset(&b);
    syscalls_print_socket_type(&b, SOCK_STREAM | SOCK_NONBLOCK);
    assert_string_equal(b.p, "SOCK_STREAM|SOCK_NONBLOCK");
    assert_string_equal(flags(syscalls_xlat_mmap_prot, PROT_READ | PROT_WRITE), "PROT_READ|PROT_WRITE");
    /* leftover bits as hex, after the names */
    assert_string_equal(flags(syscalls_xlat_poll_events, POLLIN | 0x8000), "POLLIN|0x8000");
    assert_string_equal(flags(syscalls_xlat_eventfd_flags, 0), "0");
    /* each flag alone prints as its own name: no earlier entry is part of it */
    const struct syscalls_xlat *tabs[] = { syscalls_xlat_open_flags, syscalls_xlat_mmap_flags,
                                           syscalls_xlat_clone_flags, syscalls_xlat_msg_flags,
                                           syscalls_xlat_epoll_events, syscalls_xlat_wait_opts };
    for (size_t t = 0; t < sizeof tabs / sizeof tabs[0]; t++)
        for (const struct syscalls_xlat *x = tabs[t]; x->name; x++)
            assert_string_equal(flags(tabs[t], x->val), x->name);
    syscalls_buf_reset(&b);
    syscalls_print_value(&b, syscalls_xlat_fcntl_cmds, F_DUPFD_CLOEXEC, "%#llx");
    assert_string_equal(b.p, "F_DUPFD_CLOEXEC");
    syscalls_buf_reset(&b);
    syscalls_print_signal(&b, SIGCHLD);
    assert_string_equal(b.p, "SIGCHLD");
    syscalls_buf_free(&b);
    syscalls_buf_free(&(struct syscalls_buf){0});
}

/* socket option values as strace 6.1 prints them; prctl's shapes; fcntl's lock commands */
static void test_sockopt_and_prctl(void **state)
{
    (void)state;
    struct syscalls_buf b = {0};
    int one = 1;
    struct linger l = { 1, 5 };
    syscalls_print_sockopt_value(&b, SOL_SOCKET, SO_REUSEADDR, 0x1000, (const uint8_t *)&one, 4, 4, 32, 0, 0);
    assert_string_equal(b.p, "[1]");
    syscalls_buf_reset(&b); /* an int option shorter than an int: its address */
    syscalls_print_sockopt_value(&b, SOL_SOCKET, SO_REUSEADDR, 0x1000, (const uint8_t *)&one, 2, 2, 32, 0, 0);
    assert_string_equal(b.p, "0x1000");
    syscalls_buf_reset(&b);
    syscalls_print_sockopt_value(&b, SOL_SOCKET, SO_LINGER, 0x1000, (const uint8_t *)&l, sizeof l, sizeof l, 32, 0, 1);
    assert_string_equal(b.p, "{l_onoff=1, l_linger=5}");
    syscalls_buf_reset(&b); /* anything else: a string of its length, cut at -s */
    syscalls_print_sockopt_value(&b, SOL_SOCKET, SO_BINDTODEVICE, 0x1000, (const uint8_t *)"lo\0", 3, 3, 32, 0, 0);
    assert_string_equal(b.p, "\"lo\\0\"");
    syscalls_buf_reset(&b);
    syscalls_print_sockopt_value(&b, SOL_TCP, TCP_CONGESTION, 0x1000, (const uint8_t *)"cubic", 5, 5, 2, 0, 1);
    assert_string_equal(b.p, "\"cu\"...");
    syscalls_buf_reset(&b);
    syscalls_print_sockopt_name(&b, SOL_SOCKET, 999);
    assert_string_equal(b.p, "0x3e7 /* SO_??? */");
    syscalls_buf_reset(&b);
    syscalls_print_sockopt_name(&b, SOL_TCP, TCP_NODELAY);
    assert_string_equal(b.p, "TCP_NODELAY");
    syscalls_buf_free(&b);
    assert_int_equal(syscalls_prctl_shape(PR_GET_DUMPABLE), SYSCALL_PRCTL_NONE);
    assert_int_equal(syscalls_prctl_shape(PR_GET_PDEATHSIG), SYSCALL_PRCTL_INT_OUT);
    assert_int_equal(syscalls_prctl_shape(0x1234), SYSCALL_PRCTL_HEX4);
    assert_int_equal(syscalls_fcntl_lock(F_SETLKW), 1);
    assert_int_equal(syscalls_fcntl_lock(F_OFD_GETLK), 2);
    assert_int_equal(syscalls_fcntl_lock(F_GETFL), 0);
}

/* tr-rec-strace's "msghdr" capture as strace prints it; every cut of it is read within its bytes */
static void put_sized(uint8_t *cap, size_t *len, const void *p, uint32_t n)
{
    memcpy(cap + *len, &n, 4);
    memcpy(cap + *len + 4, p, n);
    *len += 4 + n;
}

static void test_msghdr(void **state)
{
    (void)state;
    struct syscalls_buf b = {0};
    uint8_t cap[512], ctl[CMSG_SPACE(2 * sizeof(int)) + CMSG_SPACE(1)], iov[20 + 2];
    struct mmsghdr mm;
    size_t len = 0;
    memset(&mm, 0, sizeof mm);
    memset(ctl, 0, sizeof ctl);
    mm.msg_hdr.msg_iov = (struct iovec *)0x1000;
    mm.msg_hdr.msg_iovlen = 1;
    mm.msg_hdr.msg_control = ctl;
    mm.msg_hdr.msg_controllen = sizeof ctl;
    mm.msg_len = 2;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mm.msg_hdr);
    int fds[2] = { 3, 4 };
    *c = (struct cmsghdr){ CMSG_LEN(sizeof fds), SOL_SOCKET, SCM_RIGHTS };
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    c = CMSG_NXTHDR(&mm.msg_hdr, c);
    *c = (struct cmsghdr){ CMSG_LEN(1), SOL_IP, 99 };
    *CMSG_DATA(c) = 7;
    uint64_t v[2] = { 0x2000, 64 };
    uint32_t got = 2;
    memcpy(iov, v, 16);
    memcpy(iov + 16, &got, 4);
    memcpy(iov + 20, "hi", 2);
    memcpy(cap, &mm, sizeof mm);
    len = sizeof mm;
    put_sized(cap, &len, "", 0);
    put_sized(cap, &len, iov, sizeof iov);
    put_sized(cap, &len, ctl, sizeof ctl);
    assert_int_equal(syscalls_print_msghdr(&b, cap, len, -1, -1, 32, 0), len);
    assert_string_equal(b.p, "{msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"hi\", iov_len=64}], msg_iovlen=1, "
                             "msg_control=[{cmsg_len=24, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[3, 4]}, "
                             "{cmsg_len=17, cmsg_level=SOL_IP, cmsg_type=0x63, cmsg_data=\"\\x07\"}], "
                             "msg_controllen=48, msg_flags=0}");
    syscalls_buf_reset(&b);
    syscalls_print_mmsghdrs(&b, cap, len, 1, 1, -1, 32, 0);
    assert_true(strstr(b.p, "[{msg_hdr={msg_name=NULL, ") == b.p);
    assert_non_null(strstr(b.p, "msg_flags=0}, msg_len=2}]"));
    for (size_t cut = 0; cut < len; cut++) { /* ASan: nothing read beyond the cut */
        uint8_t *p = malloc(cut ? cut : 1);
        memcpy(p, cap, cut);
        syscalls_buf_reset(&b);
        assert_true(syscalls_print_msghdr(&b, p, cut, 10, 0, 32, 1) == 0);
        syscalls_print_mmsghdrs(&b, p, cut, 3, 3, 0, 32, 1);
        free(p);
    }
    /* netlink: two messages in one buffer, the second beyond what was recorded */
    struct nlmsghdr h[2] = { { 20, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 1, 0 }, { 16, NLMSG_DONE, 0, 2, 0 } };
    uint8_t nl[40] = {0};
    memcpy(nl, &h[0], sizeof h[0]);
    nl[16] = 2;
    memcpy(nl + 20, &h[1], sizeof h[1]);
    syscalls_buf_reset(&b);
    syscalls_print_netlink(&b, nl, 36, 36, NETLINK_ROUTE, 32);
    assert_string_equal(b.p, "[[{nlmsg_len=20, nlmsg_type=RTM_GETADDR, nlmsg_flags=NLM_F_REQUEST|NLM_F_DUMP, nlmsg_seq=1, "
                             "nlmsg_pid=0}, \"\\x02\\x00\\x00\\x00\"], {nlmsg_len=16, nlmsg_type=NLMSG_DONE, "
                             "nlmsg_flags=0, nlmsg_seq=2, nlmsg_pid=0}]");
    syscalls_buf_reset(&b);
    syscalls_print_netlink(&b, nl, 24, 36, -1, 32);
    assert_string_equal(b.p, "[[{nlmsg_len=20, nlmsg_type=0x16 /* NLMSG_??? */, nlmsg_flags=NLM_F_REQUEST|0x300, "
                             "nlmsg_seq=1, nlmsg_pid=0}, \"\\x02\\x00\\x00\\x00\"], ...]");
    syscalls_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_from_trace),
        cmocka_unit_test(test_host_table),
        cmocka_unit_test(test_capture_rules),
        cmocka_unit_test(test_family_captures),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_decoders),
        cmocka_unit_test(test_sockopt_and_prctl),
        cmocka_unit_test(test_msghdr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
