/* model/uprobe/uprobe.h: SDT notes read from this program's own (a probe with a semaphore,
 * its arguments as <sys/sdt.h> notes them), SDT argument specs to uprobe fetch arguments,
 * register names of every width, data symbols at their file offsets, probe points past leading
 * AVX instructions (capstone, opened at run time). */
#define _SDT_HAS_SEMAPHORES 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include <cmocka.h>

#include "uprobe/uprobe.h"

volatile unsigned short trtest_unit_semaphore __attribute__((section(".probes")));
long tr_test_var = 42;

__attribute__((noinline)) static void fire(long a, int b)
{
    if (trtest_unit_semaphore)
        STAP_PROBE2(trtest, unit, a, b);
}

static char exe[4096];

static int self_exe(void **state)
{
    (void)state;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    return n > 0 ? 0 : -1;
}

static void test_sdt_read(void **state)
{
    (void)state;
    char err[256];
    fire(1, 2);
    struct sdt_probes p;
    assert_int_equal(sdt_read(exe, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 1);
    assert_string_equal(p.v[0].provider, "trtest");
    assert_string_equal(p.v[0].name, "unit");
    assert_int_equal(strchr(p.v[0].args, ' ') != NULL, 1); /* two arguments */
    struct elffile f;
    assert_int_equal(elf_load(&f, exe, err, sizeof err), 0);
    const struct elfsym *sem = elf_symbol(&f, "trtest_unit_semaphore");
    assert_non_null(sem);
    assert_int_equal(p.v[0].semaphore, sem->vaddr);
    assert_true(elf_offset(&f, p.v[0].pc) > 0);
    sdt_free(&p);
    elf_free(&f);
    assert_int_equal(sdt_read("/nonexistent", &p, err, sizeof err), -1);
}

static void test_sdt_args(void **state)
{
    (void)state;
    char out[128], err[256];
    struct elffile f;
    assert_int_equal(elf_load(&f, exe, err, sizeof err), 0);
    static const char *const cases[][2] = {
        {"8@%rdi", "%di:u64"},         {"-4@%eax", "%ax:s32"},       {"-4@-20(%rbp)", "-20(%bp):s32"},
        {"8@8(%rsp)", "+8(%sp):u64"},  {"2@(%r12)", "+0(%r12):u16"}, {"1@%r8b", "%r8:u8"},
        {"-8@$5", "\\5:s64"},          {"%rsi", "%si:u64"},          {"-4@0x10(%r15d)", "+16(%r15):s32"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(sdt_arg_fetch(cases[i][0], &f, out, sizeof out, err, sizeof err), 0);
        assert_string_equal(out, cases[i][1]);
    }
    /* a variable: the file offset of its symbol, plus an addend */
    const struct elfsym *v = elf_symbol(&f, "tr_test_var");
    assert_non_null(v);
    char want[64];
    snprintf(want, sizeof want, "@+0x%llx:s64", (unsigned long long)elf_offset(&f, v->vaddr + 8));
    assert_int_equal(sdt_arg_fetch("-8@tr_test_var+8(%rip)", &f, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, want);
    /* refused: an index register, an unknown symbol or register, a size */
    assert_int_equal(sdt_arg_fetch("8@(%rax,%rbx,8)", &f, out, sizeof out, err, sizeof err), -1);
    assert_int_equal(sdt_arg_fetch("8@nosuchsym(%rip)", &f, out, sizeof out, err, sizeof err), -1);
    assert_int_equal(sdt_arg_fetch("8@%xmm0", &f, out, sizeof out, err, sizeof err), -1);
    assert_int_equal(sdt_arg_fetch("3@%rax", &f, out, sizeof out, err, sizeof err), -1);
    elf_free(&f);
}

static void test_registers(void **state)
{
    (void)state;
    assert_string_equal(uprobe_register("%rdi", 4), "di");
    assert_string_equal(uprobe_register("%edi", 4), "di");
    assert_string_equal(uprobe_register("%dil", 4), "di");
    assert_string_equal(uprobe_register("%r10d", 5), "r10");
    assert_string_equal(uprobe_register("%di", 3), "di");
    assert_string_equal(uprobe_register("%rip", 4), "ip");
    assert_null(uprobe_register("%foo", 4));
    assert_null(uprobe_register("rdi", 3));
}

/* glibc's __strcmp_avx2 begins with vpxor %xmm15,%xmm15,%xmm15 (5 bytes), then mov %edi,%eax:
 * uprobes cannot step the first, the probe goes on the second; a function starting with an
 * ordinary instruction keeps its point. */
static void test_probe_point(void **state)
{
    (void)state;
    char path[] = "/tmp/tr-test-probe-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const uint8_t code[] = {0x90, 0xc4, 0x41, 0x01, 0xef, 0xff, 0x89, 0xf8, 0x09, 0xf0, 0xc3};
    assert_int_equal(write(fd, code, sizeof code), (int)sizeof code);
    close(fd);
    assert_int_equal(elf_probe_point(path, 1), 6);
    assert_int_equal(elf_probe_point(path, 0), 0);
    assert_int_equal(elf_probe_point(path, 6), 6);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdt_read),
        cmocka_unit_test(test_sdt_args),
        cmocka_unit_test(test_registers),
        cmocka_unit_test(test_probe_point),
    };
    return cmocka_run_group_tests(tests, self_exe, NULL);
}
