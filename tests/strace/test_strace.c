/* test_strace.c - unit tests of tr-rec-strace's filter and seccomp program and of
 * the strace-style decoders (model/syscalls_decode.h) they share with tr-cat. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "filter.h"
#include "syscalls.h"
#include "syscalls_decode.h"

static int nr(const char *name)
{
    int n = syscalls_host_nr(name);
    assert_true(n >= 0);
    return n;
}

static void test_systab(void **state)
{
    (void)state;
    assert_int_equal(syscalls_host_nr("read"), 0);
    assert_int_equal(syscalls_host_nr("openat"), 257);
    assert_string_equal(syscalls_host_name(59), "execve");
    assert_true(syscalls_host_count() > 300);
    assert_null(syscalls_host_name(SYSCALLS_NR_MAX - 1));
}

static void test_trace_names(void **state)
{
    (void)state;
    struct filter f;
    char err[160];
    filter_init(&f);
    assert_false(filter_restricted(&f));
    assert_int_equal(filter_parse_e(&f, "trace=openat,close", err, sizeof err), 0);
    assert_true(filter_restricted(&f));
    assert_true(filter_selects(&f, (uint32_t)nr("openat")));
    assert_true(filter_selects(&f, (uint32_t)nr("close")));
    assert_false(filter_selects(&f, (uint32_t)nr("read")));
    /* a second -e trace= adds */
    assert_int_equal(filter_parse_e(&f, "read", err, sizeof err), 0);
    assert_true(filter_selects(&f, (uint32_t)nr("read")));
    assert_int_equal(filter_parse_e(&f, "trace=nosuchcall", err, sizeof err), -1);
    assert_non_null(strstr(err, "nosuchcall"));
    assert_int_equal(filter_parse_e(&f, "trace=?nosuchcall", err, sizeof err), 0);
    assert_int_equal(filter_parse_e(&f, "abbrev=none", err, sizeof err), -1);
    filter_free(&f);
}

static void test_trace_classes(void **state)
{
    (void)state;
    struct filter f;
    char err[160];
    filter_init(&f);
    assert_int_equal(filter_parse_e(&f, "trace=%file", err, sizeof err), 0);
    assert_true(filter_selects(&f, (uint32_t)nr("openat")));
    assert_true(filter_selects(&f, (uint32_t)nr("execve")));
    assert_false(filter_selects(&f, (uint32_t)nr("read")));
    filter_free(&f);

    filter_init(&f);
    assert_int_equal(filter_parse_e(&f, "trace=!%memory,read", err, sizeof err), 0);
    assert_false(filter_selects(&f, (uint32_t)nr("mmap")));
    assert_false(filter_selects(&f, (uint32_t)nr("read")));
    assert_true(filter_selects(&f, (uint32_t)nr("write")));
    filter_free(&f);

    filter_init(&f);
    assert_int_equal(filter_parse_e(&f, "trace=/^(get|set)uid$", err, sizeof err), 0);
    assert_true(filter_selects(&f, (uint32_t)nr("getuid")));
    assert_true(filter_selects(&f, (uint32_t)nr("setuid")));
    assert_false(filter_selects(&f, (uint32_t)nr("getgid")));
    assert_int_equal(filter_parse_e(&f, "trace=%nosuchclass", err, sizeof err), -1);
    filter_free(&f);

    filter_init(&f);
    assert_int_equal(filter_parse_e(&f, "trace=%%stat", err, sizeof err), 0);
    assert_true(filter_selects(&f, (uint32_t)nr("newfstatat")));
    assert_true(filter_selects(&f, (uint32_t)nr("statx")));
    assert_false(filter_selects(&f, (uint32_t)nr("statfs")));
    filter_free(&f);
}

static void test_status(void **state)
{
    (void)state;
    struct filter f;
    char err[160];
    filter_init(&f);
    assert_int_equal(f.status, ST_ALL);
    assert_int_equal(filter_parse_e(&f, "status=failed", err, sizeof err), 0);
    assert_int_equal(f.status, ST_FAILED);
    assert_int_equal(filter_parse_e(&f, "status=!failed", err, sizeof err), 0);
    assert_int_equal(f.status, ST_ALL & ~ST_FAILED);
    assert_int_equal(filter_parse_e(&f, "status=successful,unfinished", err, sizeof err), 0);
    assert_int_equal(f.status, ST_SUCCESSFUL | ST_UNFINISHED);
    assert_int_equal(filter_parse_e(&f, "status=bogus", err, sizeof err), -1);
    filter_free(&f);
}

/* A tiny classic-BPF interpreter for the instructions filter_bpf emits. */
static uint32_t run_bpf(const struct sock_filter *p, unsigned short n, const struct seccomp_data *d)
{
    uint32_t a = 0;
    for (unsigned pc = 0; pc < n; pc++) {
        const struct sock_filter *i = &p[pc];
        switch (i->code) {
        case BPF_LD | BPF_W | BPF_ABS: memcpy(&a, (const char *)d + i->k, 4); break;
        case BPF_JMP | BPF_JEQ | BPF_K: pc += a == i->k ? i->jt : i->jf; break;
        case BPF_JMP | BPF_JGE | BPF_K: pc += a >= i->k ? i->jt : i->jf; break;
        case BPF_RET | BPF_K: return i->k;
        default: fail_msg("unexpected BPF instruction %#x", i->code);
        }
    }
    fail_msg("BPF program fell off its end");
    return 0;
}

static void check_bpf(const char *expr)
{
    struct filter f;
    char err[160];
    struct sock_filter *prog;
    unsigned short len;
    filter_init(&f);
    assert_int_equal(filter_parse_e(&f, expr, err, sizeof err), 0);
    assert_int_equal(filter_bpf(&f, &prog, &len), 0);
    assert_true(len < BPF_MAXINSNS);
    struct seccomp_data d;
    memset(&d, 0, sizeof d);
    d.arch = AUDIT_ARCH_X86_64;
    for (int i = 0; i < SYSCALLS_NR_MAX; i++) {
        d.nr = i;
        uint32_t r = run_bpf(prog, len, &d);
        assert_int_equal(r, f.trace[i] ? SECCOMP_RET_TRACE : SECCOMP_RET_ALLOW);
    }
    d.nr = 0x40000000 + 1; /* x32 */
    assert_int_equal(run_bpf(prog, len, &d), SECCOMP_RET_TRACE);
    d.arch = AUDIT_ARCH_I386;
    d.nr = 5;
    assert_int_equal(run_bpf(prog, len, &d), SECCOMP_RET_TRACE);
    free(prog);
    filter_free(&f);
}

static void test_bpf(void **state)
{
    (void)state;
    check_bpf("trace=openat,close");
    check_bpf("trace=!write");          /* the complement is listed */
    check_bpf("trace=%file,%process");
}

static const char *q(const char *s, size_t n, int hex)
{
    static struct syscalls_buf b;
    syscalls_buf_reset(&b);
    syscalls_print_quoted(&b, (const uint8_t *)s, n, hex, 0);
    return b.p;
}

static void test_quoting(void **state)
{
    (void)state;
    assert_string_equal(q("a\"b\\c\n\t", 7, 0), "\"a\\\"b\\\\c\\n\\t\"");
    /* octal: minimal digits unless an octal digit follows */
    assert_string_equal(q("\177ELF\2\1\0" "1", 8, 0), "\"\\177ELF\\2\\1\\0001\"");
    assert_string_equal(q("\20t", 2, 0), "\"\\20t\"");
    /* -x: the whole string in hex when it has a non-printable byte; -xx always */
    assert_string_equal(q("ab\1", 3, 1), "\"\\x61\\x62\\x01\"");
    assert_string_equal(q("ab\n", 3, 1), "\"ab\\n\"");
    assert_string_equal(q("ab", 2, 2), "\"\\x61\\x62\"");
}

static void test_flags(void **state)
{
    (void)state;
    struct syscalls_buf b = {0};
    syscalls_print_flags(&b, syscalls_xlat_open_flags, 02000000 | 0200000 | 04000, "0");
    assert_string_equal(b.p, "O_NONBLOCK|O_CLOEXEC|O_DIRECTORY");
    syscalls_buf_reset(&b);
    syscalls_print_flags(&b, syscalls_xlat_mmap_prot, 0, "PROT_NONE");
    assert_string_equal(b.p, "PROT_NONE");
    syscalls_buf_reset(&b);
    syscalls_print_flags(&b, syscalls_xlat_mmap_prot, 1 | 4 | 0x100, "PROT_NONE");
    assert_string_equal(b.p, "PROT_READ|PROT_EXEC|0x100"); /* unknown bits as a number */
    syscalls_buf_reset(&b);
    syscalls_print_value(&b, syscalls_xlat_fcntl_cmds, 999, "%#llx");
    assert_string_equal(b.p, "0x3e7");
    syscalls_buf_reset(&b);
    syscalls_print_mode(&b, 0041777);
    assert_string_equal(b.p, "S_IFDIR|S_ISVTX|0777");
    syscalls_buf_reset(&b);
    syscalls_print_mode(&b, 0100644);
    assert_string_equal(b.p, "S_IFREG|0644");
    syscalls_buf_free(&b);
}

static void test_signals(void **state)
{
    (void)state;
    struct syscalls_buf b = {0};
    uint64_t m = 0;
    syscalls_print_sigset(&b, (const uint8_t *)&m, 8);
    assert_string_equal(b.p, "[]");
    syscalls_buf_reset(&b);
    m = 1ull << 16; /* SIGCHLD */
    syscalls_print_sigset(&b, (const uint8_t *)&m, 8);
    assert_string_equal(b.p, "[CHLD]");
    syscalls_buf_reset(&b);
    m = ~((1ull << 31) | (1ull << 32)); /* all but RTMIN and RT_1 */
    syscalls_print_sigset(&b, (const uint8_t *)&m, 8);
    assert_string_equal(b.p, "~[RTMIN RT_1]");
    assert_string_equal(syscalls_signal_name(17), "SIGCHLD");
    assert_string_equal(syscalls_signal_name(34), "SIGRT_2");
    syscalls_buf_reset(&b);
    syscalls_print_wait_status(&b, 3 << 8);
    assert_string_equal(b.p, "[{WIFEXITED(s) && WEXITSTATUS(s) == 3}]");
    syscalls_buf_reset(&b);
    syscalls_print_wait_status(&b, 11 | 0x80);
    assert_string_equal(b.p, "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}]");
    assert_string_equal(syscalls_errno_name(2), "ENOENT");
    assert_string_equal(syscalls_errno_message(2), "No such file or directory");
    assert_string_equal(syscalls_errno_name(512), "ERESTARTSYS");
    syscalls_buf_free(&b);
}

static void test_descriptors(void **state)
{
    (void)state;
    /* every descriptor's kinds are known, its arity the kernel's at most */
    for (size_t i = 0; syscalls_desc_at(i); i++) {
        const struct syscall_desc *d = syscalls_desc_at(i);
        assert_true(d->nargs <= 6);
        assert_true(d->ret < SYSCALL_RET_COUNT);
        assert_true(d->family < SYSCALL_FAMILY_COUNT);
        if (syscalls_by_args(d))
            for (unsigned k = 0; k < d->nargs; k++)
                assert_non_null(syscalls_arg_info((enum syscall_arg)d->args[k]));
        /* every described syscall exists in the generated table */
        assert_true(syscalls_host_nr(d->name) >= 0);
    }
    assert_int_equal(syscalls_class_from_name("%network"), SYSCALL_CLASS_NETWORK);
    assert_int_equal(syscalls_class_from_name("%bogus"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_systab),
        cmocka_unit_test(test_trace_names),
        cmocka_unit_test(test_trace_classes),
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_bpf),
        cmocka_unit_test(test_quoting),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_signals),
        cmocka_unit_test(test_descriptors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
