/* model/weight.h: expressions parsed and scaled; tracepoint fields and syscall arguments
 * weighed; brk's growth followed per process over fork and exec; failed calls and negative
 * values weigh 0; why a record is not weighed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "keys.h"
#include "tr.h"
#include "weight.h"

#define ALLOC_ID 901
static const char alloc_format[] =
    "name: alloc\n"
    "ID: 901\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:unsigned int order;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:int delta;\toffset:12;\tsize:4;\tsigned:1;\n"
    "\tfield:char name[8];\toffset:16;\tsize:8;\tsigned:0;\n"
    "\n"
    "print fmt: \"order=%u delta=%d\", REC->order, REC->delta\n";

enum { NR_OPEN = 2, NR_MMAP = 9, NR_BRK = 12 };
#define NOT UINT64_C(0xdead) /* not weighed */
#define BIG UINT64_MAX

static uint8_t *trace;
static size_t trace_len;

static void alloc_event(tr_writer *w, uint32_t ev, uint32_t order, int32_t delta)
{
    uint8_t p[24] = {0};
    p[0] = ALLOC_ID & 0xff, p[1] = ALLOC_ID >> 8;
    memcpy(p + 8, &order, 4);
    memcpy(p + 12, &delta, 4);
    memcpy(p + 16, "name", 4);
    tr_record r = {.type = TR_REC_TRACE_EVENT, .time = 1, .pid = 10, .tid = 10, .cpu = 0};
    r.u.trace_event.event = ev;
    r.u.trace_event.data = p;
    r.u.trace_event.len = sizeof p;
    assert_int_equal(tr_writer_add(w, &r), 0);
}

static void sys_call(tr_writer *w, int32_t pid, uint32_t nr, uint64_t arg0, uint64_t arg1, int64_t ret)
{
    tr_record r = {.type = TR_REC_SYSCALL, .time = 2, .pid = pid, .tid = pid, .cpu = -1};
    r.u.syscall.nr = nr;
    r.u.syscall.flags = TR_SYSF_HAS_RET;
    r.u.syscall.ret = ret;
    r.u.syscall.nargs = 2;
    r.u.syscall.args[0] = arg0;
    r.u.syscall.args[1] = arg1;
    assert_int_equal(tr_writer_add(w, &r), 0);
}

static int setup(void **state)
{
    (void)state;
    int fd = memfd_create("t", 0);
    assert_true(fd >= 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
    const uint32_t nrs[] = {NR_OPEN, NR_MMAP, NR_BRK};
    const char *const names[] = {"open", "mmap", "brk"};
    assert_int_equal(tr_writer_syscall_table(w, "x86_64", nrs, names, 3), 0);
    assert_int_equal(tr_writer_blob(w, BLOB_FTRACE_FORMAT_PREFIX "test/alloc", alloc_format,
                                    strlen(alloc_format), 1), 0);
    tr_event_def d = {.kind = TR_EV_TRACEPOINT, .config = ALLOC_ID, .name = "test:alloc", .name_len = 10};
    uint32_t ev;
    assert_int_equal(tr_writer_event(w, &d, &ev), 0);
    alloc_event(w, ev, 3, -5);                         /* 0 */
    alloc_event(w, ev, 70, 7);                         /* 1 */
    sys_call(w, 10, NR_MMAP, 0, 65536, 0x7f0000000000); /* 2 */
    sys_call(w, 10, NR_MMAP, 0, 4096, -12);             /* 3: ENOMEM */
    sys_call(w, 10, NR_BRK, 0, 0, 0x1000000);           /* 4: brk(NULL): the first break seen */
    sys_call(w, 10, NR_BRK, 0x1004000, 0, 0x1004000);   /* 5: +16 KiB */
    sys_call(w, 10, NR_BRK, 0x1002000, 0, 0x1002000);   /* 6: a shrink */
    sys_call(w, 10, NR_BRK, 0x9000000, 0, 0x1002000);   /* 7: failed: the old break */
    tr_record f = {.type = TR_REC_FORK, .time = 3, .pid = 11, .tid = 11, .cpu = -1};
    f.u.fork.ppid = f.u.fork.ptid = 10;
    assert_int_equal(tr_writer_add(w, &f), 0);
    sys_call(w, 11, NR_BRK, 0x1003000, 0, 0x1003000);   /* 8: the child grows from its parent's */
    tr_record c = {.type = TR_REC_COMM, .time = 4, .pid = 11, .tid = 11, .cpu = -1};
    c.u.comm.comm = "child";
    c.u.comm.len = 5;
    c.u.comm.exec = 1;
    assert_int_equal(tr_writer_add(w, &c), 0);
    sys_call(w, 11, NR_BRK, 0, 0, 0x5000000);           /* 9: a new program's first break */
    sys_call(w, 10, NR_OPEN, 0, 0, 3);                  /* 10 */
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_free(w);
    trace_len = (size_t)lseek(fd, 0, SEEK_END);
    trace = malloc(trace_len);
    assert_non_null(trace);
    assert_int_equal(pread(fd, trace, trace_len, 0), (ssize_t)trace_len);
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(trace);
    return 0;
}

/* The weights of the trace's 11 records under spec (NOT: not weighed), and why. */
static void weigh(const char *spec, const uint64_t want[11], const char *why)
{
    weight *w;
    assert_int_equal(weight_new(spec, &w), 0);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, trace, trace_len, NULL), 0);
    tr_record rec;
    int rc, i = 0;
    while ((rc = tr_reader_next(r, &rec)) > 0) {
        assert_int_equal(weight_observe(w, r, &rec), 0);
        if (rec.type != TR_REC_SYSCALL && rec.type != TR_REC_TRACE_EVENT)
            continue;
        uint64_t v = 77;
        rc = weight_of(w, r, &rec, &v);
        assert_in_range(rc, 0, 1);
        if (!rc)
            assert_int_equal(v, 0);
        assert_int_equal(rc ? v : NOT, want[i]);
        i++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(i, 11);
    assert_string_equal(weight_why(w), why);
    tr_reader_free(r);
    weight_free(w);
}

static void test_fields(void **state)
{
    (void)state;
    static const char sys_why[] = "syscall 'mmap' has no argument 'order' (its arguments: addr len prot flags fd off ret)";
    weigh("4096<<order", (const uint64_t[]){32768, BIG, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT}, sys_why);
    weigh("order<<1", (const uint64_t[]){6, 140, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT},
          "syscall 'mmap' has no argument 'order' (its arguments: addr len prot flags fd off ret)");
    weigh("order*3", (const uint64_t[]){9, 210, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT}, sys_why);
    weigh("0x10*order", (const uint64_t[]){48, 1120, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT}, sys_why);
    /* a negative value weighs 0 */
    weigh("delta", (const uint64_t[]){0, 7, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT},
          "syscall 'mmap' has no argument 'delta' (its arguments: addr len prot flags fd off ret)");
    weigh("name", (const uint64_t[]){NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT},
          "field 'name' of event 'test:alloc' is not an integer");
    weigh("bogus,nope", (const uint64_t[]){NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT, NOT},
          "event 'test:alloc' has no field 'bogus' or 'nope' (its fields: order delta name)");
}

static void test_syscalls(void **state)
{
    (void)state;
    /* mmap's length (a failed call: 0), brk's growth: from the break before, none at the
     * process's first, none for a shrink or a failure, the parent's inherited, forgotten at exec */
    weigh("len,brk", (const uint64_t[]){NOT, NOT, 65536, 0, 0, 16384, 0, 0, 4096, 0, NOT},
          "event 'test:alloc' has no field 'len' or 'brk' (its fields: order delta name)");
    weigh("len*2", (const uint64_t[]){NOT, NOT, 131072, 0, NOT, NOT, NOT, NOT, NOT, NOT, NOT},
          "event 'test:alloc' has no field 'len' (its fields: order delta name)");
    /* ret: any syscall's return value, an error's 0 */
    weigh("order,ret", (const uint64_t[]){3, 70, 0x7f0000000000, 0, 0x1000000, 0x1004000, 0x1002000, 0x1002000,
                                          0x1003000, 0x5000000, 3}, "");
}

static void test_parse(void **state)
{
    (void)state;
    const char *good[] = {"len", "len*4096", "4096*len", "len<<12", "4096<<order", "0x1000<<order", "a,b_2,C*2"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(weight_valid(good[i]));
    const char *bad[] = {"", "2*", "*len", "len,", ",len", "a,,b", "1len", "len<<64", "4096<<", "len len",
                         "len*x", "2*3", "len<<1<<2", "a-b", "a,b,c,d,e,f,g,h,i"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(weight_valid(bad[i]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_syscalls),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
