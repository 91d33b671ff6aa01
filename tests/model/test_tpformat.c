/* model/tpformat.h: formats from a stream's blobs (both names), events by id
 * and by name, fields by name, values in the payload's byte order and word
 * size, printing, formats arriving late, reset, and hostile format texts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <glob.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "keys.h"
#include "tpformat.h"
#include "tr.h"

#define SWITCH_ID 372
static const char switch_format[] =
    "name: sched_switch\n"
    "ID: 372\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d "
    "next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | "
    "0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) "
    "- 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | "
    "0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { "
    "0x00000002, \"D\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 "
    "| 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
    "REC->next_pid, REC->next_prio\n";

/* A made-up event of a 32-bit big-endian kernel: every kind of field. */
#define MIXED_ID 901
static const char mixed_format[] =
    "name: mixed\n"
    "ID: 901\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:signed char small;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield:short half;\toffset:10;\tsize:2;\tsigned:1;\n"
    "\tfield:long word;\toffset:12;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned long uword;\toffset:16;\tsize:4;\tsigned:0;\n"
    "\tfield:u64 big;\toffset:20;\tsize:8;\tsigned:0;\n"
    "\tfield:char tag[8];\toffset:28;\tsize:8;\tsigned:0;\n"
    "\tfield:__data_loc char[] msg;\toffset:36;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned int vals[3];\toffset:40;\tsize:12;\tsigned:0;\n"
    "\n"
    "print fmt: \"uword=%lu big=%llu msg=%s\", REC->uword, REC->big, __get_str(msg)\n";

/* An event with kernel functions in its fields (as timer:timer_start, kmem:kmalloc). */
#define TIMER_ID 77
static const char timer_format[] =
    "name: timer_start\n"
    "ID: 77\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:void * timer;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long call_site;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:int width;\toffset:32;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"100%% timer=%p w=%*d function=%ps call_site=%pS\", REC->timer, REC->width, REC->width, "
    "REC->function, (void *)REC->call_site\n";
static const char timer_kallsyms[] = "ffffffff81001000 t my_timer_fn\n"
                                     "ffffffff81001100 T next_fn\n"
                                     "ffffffff81002000 T caller_fn\n"
                                     "ffffffff81002100 T after_caller\n";

/* ---- payloads ---- */

static void put(uint8_t *p, uint64_t v, int size, int big)
{
    for (int i = 0; i < size; i++)
        p[big ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

struct switch_vals {
    int32_t pid, prev_pid, prev_prio, next_pid, next_prio;
    int64_t prev_state;
    const char *prev_comm, *next_comm;
};

static size_t switch_payload(uint8_t *p, const struct switch_vals *v)
{
    memset(p, 0, 64);
    put(p, SWITCH_ID, 2, 0);
    put(p + 4, (uint32_t)v->pid, 4, 0);
    snprintf((char *)p + 8, 16, "%s", v->prev_comm);
    put(p + 24, (uint32_t)v->prev_pid, 4, 0);
    put(p + 28, (uint32_t)v->prev_prio, 4, 0);
    put(p + 32, (uint64_t)v->prev_state, 8, 0);
    snprintf((char *)p + 40, 16, "%s", v->next_comm);
    put(p + 56, (uint32_t)v->next_pid, 4, 0);
    put(p + 60, (uint32_t)v->next_prio, 4, 0);
    return 64;
}

struct mixed_vals {
    int8_t small;
    int16_t half;
    int32_t word;
    uint32_t uword;
    uint64_t big;
    const char *tag, *msg;
    uint32_t vals[3];
};

static size_t mixed_payload(uint8_t *p, const struct mixed_vals *v)
{
    memset(p, 0, 128);
    put(p, MIXED_ID, 2, 1);
    put(p + 4, 77, 4, 1);
    p[8] = (uint8_t)v->small;
    put(p + 10, (uint16_t)v->half, 2, 1);
    put(p + 12, (uint32_t)v->word, 4, 1);
    put(p + 16, v->uword, 4, 1);
    put(p + 20, v->big, 8, 1);
    memcpy(p + 28, v->tag, strlen(v->tag));
    size_t ml = strlen(v->msg) + 1;
    put(p + 36, (uint32_t)(ml << 16 | 52), 4, 1);
    for (int i = 0; i < 3; i++)
        put(p + 40 + 4 * i, v->vals[i], 4, 1);
    memcpy(p + 52, v->msg, ml);
    return 52 + ml;
}

/* ---- a stream in memory: blobs, then one trace event per payload ---- */

struct blob { const char *name, *text; };
struct trace { uint8_t *p; size_t len; };

static struct trace make_trace(const struct blob *blobs, size_t nblobs, const uint8_t *const *payloads,
                               const size_t *lens, size_t n, uint32_t flags, const struct blob *late)
{
    int fd = memfd_create("t", 0);
    assert_true(fd >= 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
    for (size_t i = 0; i < nblobs; i++)
        assert_int_equal(tr_writer_blob(w, blobs[i].name, blobs[i].text, strlen(blobs[i].text), 1), 0);
    tr_event_def d = {0};
    d.kind = TR_EV_TRACEPOINT;
    d.name = "test:event";
    d.name_len = strlen(d.name);
    uint32_t ev;
    assert_int_equal(tr_writer_event(w, &d, &ev), 0);
    for (size_t i = 0; i < n; i++) {
        if (late && i == n - 1)
            assert_int_equal(tr_writer_blob(w, late->name, late->text, strlen(late->text), 1), 0);
        tr_record r;
        memset(&r, 0, sizeof r);
        r.type = TR_REC_TRACE_EVENT;
        r.time = 1000 + i;
        r.pid = r.tid = 5;
        r.cpu = 1;
        r.u.trace_event.event = ev;
        r.u.trace_event.flags = flags;
        r.u.trace_event.data = payloads[i];
        r.u.trace_event.len = lens[i];
        assert_int_equal(tr_writer_add(w, &r), 0);
    }
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_free(w);
    struct trace t;
    t.len = (size_t)lseek(fd, 0, SEEK_END);
    t.p = malloc(t.len);
    assert_non_null(t.p);
    assert_int_equal(pread(fd, t.p, t.len, 0), (ssize_t)t.len);
    close(fd);
    return t;
}

/* The next trace event of r (its payload stays valid until the next read). */
static void next_event(tr_reader *r, tr_record *rec)
{
    int rc;
    while ((rc = tr_reader_next(r, rec)) > 0 && rec->type != TR_REC_TRACE_EVENT)
        ;
    assert_int_equal(rc, 1);
}

static int64_t field_value(const tpformat_event *ev, const char *name, uint32_t flags, const tr_record *rec)
{
    tpformat_field f;
    assert_int_equal(tpformat_field_find(ev, name, &f), 1);
    uint64_t v = 0;
    assert_int_equal(tpformat_read(&f, flags, rec->u.trace_event.data, rec->u.trace_event.len, &v), 0);
    return (int64_t)v;
}

static void test_sched_switch(void **state)
{
    (void)state;
    struct switch_vals v = {.pid = 4242, .prev_pid = 4242, .prev_prio = 120, .prev_state = 1, .next_pid = 0,
                            .next_prio = -1, .prev_comm = "worker", .next_comm = "swapper/1"};
    uint8_t pl[64];
    size_t len = switch_payload(pl, &v);
    const uint8_t *pls[1] = {pl};
    struct blob b[1] = {{BLOB_FTRACE_FORMAT_PREFIX "sched/sched_switch", switch_format}};
    struct trace tr = make_trace(b, 1, pls, &len, 1, 0, NULL);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, tr.p, tr.len, NULL), 0);
    tr_record rec;
    next_event(r, &rec);
    tpformat *t;
    assert_int_equal(tpformat_new(&t), 0);
    assert_int_equal(tpformat_use(t, r, rec.u.trace_event.flags), 1);
    assert_int_equal(tpformat_has_header_page(t), 0);

    const tpformat_event *ev = tpformat_event_of(t, rec.u.trace_event.data, rec.u.trace_event.len);
    assert_non_null(ev);
    assert_string_equal(tpformat_event_system(ev), "sched");
    assert_string_equal(tpformat_event_name(ev), "sched_switch");
    assert_int_equal(tpformat_event_id(ev), SWITCH_ID);
    assert_ptr_equal(tpformat_event_by_id(t, SWITCH_ID), ev);
    assert_ptr_equal(tpformat_event_by_name(t, "sched", "sched_switch"), ev);

    assert_int_equal(field_value(ev, "common_pid", 0, &rec), v.pid);
    assert_int_equal(field_value(ev, "prev_pid", 0, &rec), v.prev_pid);
    assert_int_equal(field_value(ev, "prev_state", 0, &rec), v.prev_state);
    assert_int_equal(field_value(ev, "next_pid", 0, &rec), v.next_pid);
    assert_int_equal(field_value(ev, "next_prio", 0, &rec), v.next_prio); /* sign-extended */

    tpformat_field f;
    assert_int_equal(tpformat_field_find(ev, "prev_comm", &f), 1);
    assert_true(f.flags & TPF_ARRAY);
    assert_true(f.flags & TPF_STRING);
    uint64_t x;
    assert_int_equal(tpformat_read(&f, 0, rec.u.trace_event.data, rec.u.trace_event.len, &x), TR_E_INVAL);
    const uint8_t *p;
    size_t n;
    assert_int_equal(tpformat_field_bytes(&f, 0, rec.u.trace_event.data, rec.u.trace_event.len, &p, &n), 0);
    assert_int_equal(n, 16);
    assert_string_equal((const char *)p, v.prev_comm);
    /* own fields in order, common ones left out */
    size_t i = 0;
    static const char *const order[] = {"prev_comm", "prev_pid", "prev_prio", "prev_state",
                                        "next_comm", "next_pid", "next_prio"};
    while (tpformat_field_at(ev, i, &f)) {
        assert_true(i < 7);
        assert_string_equal(f.name, order[i]);
        i++;
    }
    assert_int_equal(i, 7);

    /* by the stream's event definition: its kernel id, else its name */
    tr_event_def def = {.kind = TR_EV_TRACEPOINT, .config = SWITCH_ID, .name = "x:y", .name_len = 3};
    assert_ptr_equal(tpformat_event_by_def(t, &def), ev);
    def.config = 12345;
    assert_null(tpformat_event_by_def(t, &def));
    def.name = "sched:sched_switch";
    def.name_len = strlen(def.name);
    assert_ptr_equal(tpformat_event_by_def(t, &def), ev);
    def.kind = TR_EV_SOFTWARE;
    def.name = "sched:sched_switchy";
    def.name_len = 12; /* "sched:sched_" */
    assert_null(tpformat_event_by_def(t, &def));
    assert_null(tpformat_event_by_def(t, NULL));

    /* unknown field and events */
    assert_int_equal(tpformat_field_find(ev, "prev_pidx", &f), 0);
    assert_null(tpformat_event_by_id(t, SWITCH_ID + 1));
    assert_null(tpformat_event_by_name(t, "sched", "sched_wakeup"));
    assert_null(tpformat_event_by_name(t, "schedx", "sched_switch"));
    uint8_t other[8] = {0};
    put(other, 999, 2, 0);
    assert_null(tpformat_event_of(t, other, sizeof other));
    assert_null(tpformat_event_of(t, other, 1));
    /* a payload cut short: the field is beyond it */
    assert_int_equal(field_value(ev, "prev_pid", 0, &rec), v.prev_pid);
    assert_int_equal(tpformat_field_find(ev, "next_prio", &f), 1);
    assert_int_equal(tpformat_read(&f, 0, rec.u.trace_event.data, 62, &x), TR_E_CORRUPT_RECORD);

    /* printed as its print format says */
    const char *s = tpformat_print(t, ev, rec.time, rec.cpu, rec.u.trace_event.data, rec.u.trace_event.len);
    assert_non_null(s);
    char want[256];
    snprintf(want, sizeof want, "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=S ==> next_comm=%s next_pid=%d "
             "next_prio=%d", v.prev_comm, v.prev_pid, v.prev_prio, v.next_comm, v.next_pid, v.next_prio);
    assert_string_equal(s, want);

    /* a new stream: nothing until used again */
    tpformat_reset(t);
    assert_null(tpformat_event_by_id(t, SWITCH_ID));
    tpformat_free(t);
    tr_reader_free(r);
    free(tr.p);
}

static void test_big_endian_32bit(void **state)
{
    (void)state;
    struct mixed_vals v = {.small = -3, .half = -300, .word = -5, .uword = 0xfffffffbu,
                           .big = 0x0102030405060708ull, .tag = "tagged", .msg = "hello",
                           .vals = {7, 0x80000000u, 65536}};
    uint8_t pl[128];
    size_t len = mixed_payload(pl, &v);
    const uint8_t *pls[1] = {pl};
    const uint32_t flags = TR_RAW_BIG_ENDIAN | TR_RAW_32BIT;
    /* the older blob name */
    struct blob b[1] = {{BLOB_FORMAT_OLD_PREFIX "tr_test:mixed", mixed_format}};
    struct trace tr = make_trace(b, 1, pls, &len, 1, flags, NULL);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, tr.p, tr.len, NULL), 0);
    tr_record rec;
    next_event(r, &rec);
    assert_int_equal(rec.u.trace_event.flags, flags);
    tpformat *t;
    assert_int_equal(tpformat_new(&t), 0);
    assert_int_equal(tpformat_use(t, r, flags), 1);
    const tpformat_event *ev = tpformat_event_of(t, rec.u.trace_event.data, rec.u.trace_event.len);
    assert_non_null(ev);
    assert_string_equal(tpformat_event_system(ev), "tr_test");
    assert_int_equal(tpformat_event_id(ev), MIXED_ID);

    assert_int_equal(field_value(ev, "common_pid", flags, &rec), 77);
    assert_int_equal(field_value(ev, "small", flags, &rec), v.small);
    assert_int_equal(field_value(ev, "half", flags, &rec), v.half);
    assert_int_equal(field_value(ev, "word", flags, &rec), v.word);
    assert_int_equal((uint64_t)field_value(ev, "uword", flags, &rec), v.uword); /* zero-extended */
    assert_int_equal((uint64_t)field_value(ev, "big", flags, &rec), v.big);
    /* read as little-endian, the same bytes say something else */
    tpformat_field f;
    uint64_t x;
    assert_int_equal(tpformat_field_find(ev, "big", &f), 1);
    assert_int_equal(tpformat_read(&f, TR_RAW_32BIT, rec.u.trace_event.data, rec.u.trace_event.len, &x), 0);
    assert_int_equal(x, __builtin_bswap64(v.big));

    assert_int_equal(tpformat_field_find(ev, "word", &f), 1);
    assert_true(f.flags & TPF_SIGNED);
    assert_true(f.flags & TPF_LONG);
    assert_int_equal(f.size, 4);

    const uint8_t *p;
    size_t n;
    assert_int_equal(tpformat_field_find(ev, "msg", &f), 1);
    assert_true(f.flags & TPF_DYNAMIC);
    assert_int_equal(tpformat_read(&f, flags, rec.u.trace_event.data, rec.u.trace_event.len, &x), TR_E_INVAL);
    assert_int_equal(tpformat_field_bytes(&f, flags, rec.u.trace_event.data, rec.u.trace_event.len, &p, &n), 0);
    assert_int_equal(n, strlen(v.msg) + 1);
    assert_string_equal((const char *)p, v.msg);
    /* its location read in the wrong byte order points outside the payload */
    assert_int_equal(tpformat_field_bytes(&f, 0, rec.u.trace_event.data, rec.u.trace_event.len, &p, &n),
                     TR_E_CORRUPT_RECORD);

    assert_int_equal(tpformat_field_find(ev, "vals", &f), 1);
    assert_true(f.flags & TPF_ARRAY);
    assert_int_equal(f.elementsize, 4);
    assert_int_equal(tpformat_field_bytes(&f, flags, rec.u.trace_event.data, rec.u.trace_event.len, &p, &n), 0);
    assert_int_equal(n / (size_t)f.elementsize, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(tpformat_number(flags, p + 4 * i, 4), v.vals[i]);
    assert_int_equal(tpformat_field_find(ev, "tag", &f), 1);
    assert_int_equal(tpformat_field_bytes(&f, flags, rec.u.trace_event.data, rec.u.trace_event.len, &p, &n), 0);
    assert_memory_equal(p, v.tag, strlen(v.tag));

    const char *s = tpformat_print(t, ev, rec.time, rec.cpu, rec.u.trace_event.data, rec.u.trace_event.len);
    char want[128];
    snprintf(want, sizeof want, "uword=%u big=%llu msg=%s", v.uword, (unsigned long long)v.big, v.msg);
    assert_non_null(s);
    assert_string_equal(s, want);
    assert_ptr_equal(tpformat_event_by_name(t, "tr_test", "mixed"), ev);
    tpformat_free(t);
    tr_reader_free(r);
    free(tr.p);
}

/* A format written after the stream began is found when its event comes;
 * the stream's saved_cmdlines names pids. */
static void test_late_format_and_comms(void **state)
{
    (void)state;
    struct switch_vals v = {.pid = 9, .prev_pid = 9, .next_pid = 10, .prev_comm = "a", .next_comm = "b"};
    struct mixed_vals m = {.small = 1, .half = 2, .word = 3, .tag = "t", .msg = "m"};
    uint8_t p1[64], p2[128];
    size_t lens[2] = {switch_payload(p1, &v), 0};
    lens[1] = mixed_payload(p2, &m); /* (big-endian: looked up by id below) */
    const uint8_t *pls[2] = {p1, p2};
    struct blob b[2] = {{BLOB_FTRACE_FORMAT_PREFIX "sched/sched_switch", switch_format},
                        {BLOB_FTRACE_SAVED_CMDLINES, "9 first\n10 second\n"}};
    struct blob late = {BLOB_FTRACE_FORMAT_PREFIX "tr_test/mixed", mixed_format};
    struct trace tr = make_trace(b, 2, pls, lens, 2, 0, &late);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, tr.p, tr.len, NULL), 0);
    tr_record rec;
    next_event(r, &rec);
    tpformat *t;
    assert_int_equal(tpformat_new(&t), 0);
    assert_int_equal(tpformat_use(t, r, 0), 1);
    assert_non_null(tpformat_event_of(t, rec.u.trace_event.data, rec.u.trace_event.len));
    assert_null(tpformat_event_by_id(t, MIXED_ID)); /* not written yet */
    assert_string_equal(tpformat_comm(t, 9), "first");
    assert_string_equal(tpformat_comm(t, 10), "second");
    assert_null(tpformat_comm(t, 11));
    next_event(r, &rec);
    const tpformat_event *ev = tpformat_event_by_id(t, MIXED_ID);
    assert_non_null(ev);
    assert_string_equal(tpformat_event_name(ev), "mixed");
    tpformat_free(t);
    tr_reader_free(r);
    free(tr.p);
}

static const char *resolver_calls(void *ctx, uint64_t addr, uint64_t *start)
{
    ++*(int *)ctx;
    if (addr != 0xffffffff81001000ull)
        return NULL;
    *start = addr;
    return "resolved_fn";
}

/* Kernel functions in fields: which fields hold them, and their names from
 * a kallsyms blob written after the first event (streamed): before it, the
 * resolver's names, else addresses; after it, the blob's. */
static void test_function_names(void **state)
{
    (void)state;
    uint8_t pl[40];
    memset(pl, 0, sizeof pl);
    put(pl, TIMER_ID, 2, 0);
    put(pl + 4, 5, 4, 0);
    put(pl + 8, 0xffff888012345678ull, 8, 0);
    put(pl + 16, 0xffffffff81001000ull, 8, 0);
    put(pl + 24, 0xffffffff81002010ull, 8, 0);
    put(pl + 32, 3, 4, 0);
    const uint8_t *pls[2] = {pl, pl};
    size_t lens[2] = {sizeof pl, sizeof pl};
    struct blob b = {BLOB_FTRACE_FORMAT_PREFIX "timer/timer_start", timer_format};
    struct blob late = {BLOB_KALLSYMS, timer_kallsyms};
    struct trace tr = make_trace(&b, 1, pls, lens, 2, 0, &late);
    for (int with_resolver = 0; with_resolver < 2; with_resolver++) {
        tr_reader *r;
        assert_int_equal(tr_reader_open_mem(&r, tr.p, tr.len, NULL), 0);
        tpformat *t;
        int calls = 0;
        assert_int_equal(tpformat_new(&t), 0);
        if (with_resolver)
            tpformat_set_resolver(t, resolver_calls, &calls);
        tr_record rec;
        next_event(r, &rec);
        assert_int_equal(tpformat_use(t, r, 0), 1);
        const tpformat_event *ev = tpformat_event_of(t, rec.u.trace_event.data, rec.u.trace_event.len);
        assert_non_null(ev);
        tpformat_funcs fs;
        assert_int_equal(tpformat_funcs_of(ev, &fs), 2);
        assert_string_equal(fs.f[0].name, "function");
        assert_string_equal(fs.f[1].name, "call_site");
        uint64_t a[TPFORMAT_FUNCS_MAX];
        assert_int_equal(tpformat_funcs_read(&fs, 0, pl, sizeof pl, a), 2);
        assert_true(a[0] == 0xffffffff81001000ull && a[1] == 0xffffffff81002010ull);
        const char *s = tpformat_print(t, ev, rec.time, rec.cpu, rec.u.trace_event.data, rec.u.trace_event.len);
        assert_non_null(s);
        if (with_resolver)
            assert_non_null(strstr(s, "function=resolved_fn call_site=0xffffffff81002010"));
        else
            assert_non_null(strstr(s, "function=0xffffffff81001000 call_site=0xffffffff81002010"));
        tpformat_blob_arrived(t); /* the kallsyms blob comes before the second event */
        next_event(r, &rec);
        int before = calls;
        s = tpformat_print(t, ev, rec.time, rec.cpu, rec.u.trace_event.data, rec.u.trace_event.len);
        assert_non_null(s);
        if (!strstr(s, "function=my_timer_fn call_site=caller_fn+0x10"))
            fail_msg("%s", s);
        assert_int_equal(calls, before); /* the blob's names, not the resolver's */
        assert_true(!with_resolver || calls > 0);
        tpformat_free(t);
        tr_reader_free(r);
    }
    free(tr.p);
}

/* Format texts that are no format fail cleanly, in a stream or added. */
static void test_hostile_formats(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "name:",
        "ID: 12\n",
        "name: x\nID: 13\nformat:\n\tfield:int",
        "name: y\nID: 14\nformat:\n\tfield:int a;\toffset:99999999999;\tsize:-5;\tsigned:1;\n\nprint fmt: \"%d\", REC->a\n",
        "name: z\nID: 15\nformat:\n\tfield:char s[99999999];\toffset:0;\tsize:4;\tsigned:0;\n\nprint fmt: \"%s %s %s\", "
        "REC->s, __print_flags(((((((((, \"\n",
        "\xff\xfe\x00garbage\nID: 16\n\x01\x02",
        "name: w\nID: 17\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
        "print fmt: \"%s\", __get_str(\n",
        "name: v\nID: 18\nformat:\n\tfield:int\nprint fmt: \"%d\", REC->a\n",
        "name: u\nID: 19\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\n\tfield:int\n\nprint fmt: \"%d\", REC->a\n",
        "name: s\nID: 20\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"%d %s\", REC->a, "
        "__print_symbolic(REC->a, {1, \"x\"}",
        /* unary-only operators where libtraceevent's parser dereferences NULL or leaks (fuzz_cat) */
        "name: r\nID: 21\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"%s\", "
        "__print_flags(REC->a~ & 3, \"|\", { 1, \"S\" })\n",
        "name: q\nID: 22\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"%s\", "
        "__print_flags(~, \"|\", { 1, \"S\" })\n",
        /* a field the format does not declare, where the parser dereferences NULL */
        "name: p\nID: 23\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: \"%s\", "
        "__print_symbolic(REC->mode, { 0, \"A\" })\n",
        /* spaces in an array size, where the field parser dereferences NULL (fuzz_fold_trace) */
        "name: o\nID: 24\nformat:\n\tfield:char c[                                        16];\toffset:8;\tsize:16;"
        "\tsigned:0;\n\nprint fmt: \"%s\", REC->c\n",
    };
    tpformat *t;
    assert_int_equal(tpformat_new(&t), 0);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = tpformat_add_format(t, "evil", bad[i], strlen(bad[i]));
        assert_true(rc == 0 || rc == TR_E_CORRUPT_RECORD);
        if (i < 4 || i == 8 || i == 9 || i >= 11)
            assert_int_equal(rc, TR_E_CORRUPT_RECORD);
    }
    assert_int_equal(tpformat_add_format(t, "evil", "", 0), TR_E_CORRUPT_RECORD);
    /* what did parse reads only inside a payload */
    uint8_t pl[8] = {0};
    for (int id = 12; id <= 24; id++) {
        const tpformat_event *ev = tpformat_event_by_id(t, id);
        if (!ev)
            continue;
        tpformat_field f;
        for (size_t i = 0; tpformat_field_at(ev, i, &f); i++) {
            uint64_t x;
            const uint8_t *p;
            size_t n;
            int rc = tpformat_read(&f, 0, pl, sizeof pl, &x);
            assert_true(rc == 0 || rc == TR_E_INVAL || rc == TR_E_CORRUPT_RECORD);
            if (tpformat_field_bytes(&f, 0, pl, sizeof pl, &p, &n) == 0)
                assert_true(p >= pl && p + n <= pl + sizeof pl);
        }
        put(pl, (uint64_t)id, 2, 0);
        tpformat_print(t, ev, 0, 0, pl, sizeof pl);
    }
    /* and a good one still goes in after them */
    assert_int_equal(tpformat_add_format(t, "sched", switch_format, strlen(switch_format)), 0);
    assert_non_null(tpformat_event_by_name(t, "sched", "sched_switch"));
    tpformat_free(t);

    /* in a stream: the hostile blob is skipped, the good one read */
    uint8_t p1[64];
    struct switch_vals v = {.pid = 1, .prev_pid = 1, .next_pid = 2, .prev_comm = "x", .next_comm = "y"};
    size_t len = switch_payload(p1, &v);
    const uint8_t *pls[1] = {p1};
    struct blob b[3] = {{BLOB_FTRACE_FORMAT_PREFIX "evil/x", bad[4]},
                        {BLOB_FTRACE_FORMAT_PREFIX "noslash", bad[5]},
                        {BLOB_FTRACE_FORMAT_PREFIX "sched/sched_switch", switch_format}};
    struct trace tr = make_trace(b, 3, pls, &len, 1, 0, NULL);
    tr_reader *r;
    assert_int_equal(tr_reader_open_mem(&r, tr.p, tr.len, NULL), 0);
    tr_record rec;
    next_event(r, &rec);
    assert_int_equal(tpformat_new(&t), 0);
    assert_int_equal(tpformat_use(t, r, 0), 1);
    assert_null(tpformat_event_by_id(t, 15)); /* its blob name has no system */
    tpformat_event_by_id(t, 14);
    assert_non_null(tpformat_event_of(t, rec.u.trace_event.data, rec.u.trace_event.len));
    tpformat_free(t);
    tr_reader_free(r);
    free(tr.p);
}

/* LeakSanitizer's switch, under SAN=1 only */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

/* What refuses hostile formats accepts every format of the running kernel.
 * (libtraceevent itself leaks a few bytes on some of them, kvm's
 * "__print_symbolic(REC->error_code, { })": not counted here.) */
static void test_kernel_formats(void **state)
{
    (void)state;
    glob_t g;
    if (glob("/sys/kernel/tracing/events/*/*/format", 0, NULL, &g) || g.gl_pathc == 0) {
        print_message("SKIP: the kernel has no tracepoint formats in /sys/kernel/tracing\n");
        skip();
    }
    if (__lsan_disable)
        __lsan_disable();
    static char buf[1 << 17];
    for (size_t i = 0; i < g.gl_pathc; i++) {
        FILE *f = fopen(g.gl_pathv[i], "r");
        if (!f && errno == ENOENT)
            continue; /* a probe event removed since the glob (another tracer's uprobes) */
        assert_non_null(f);
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        tpformat *t;
        assert_int_equal(tpformat_new(&t), 0);
        int rc = tpformat_add_format(t, "k", buf, n);
        if (rc)
            fail_msg("%s refused (%d)", g.gl_pathv[i], rc);
        tpformat_free(t);
    }
    if (__lsan_enable)
        __lsan_enable();
    globfree(&g);
}

/* A recorder's formats, read from tracefs: no reader. */
static void test_without_a_trace(void **state)
{
    (void)state;
    tpformat *t;
    assert_int_equal(tpformat_new(&t), 0);
    assert_int_equal(tpformat_use(t, NULL, 0), 0);
    assert_null(tpformat_event_by_id(t, SWITCH_ID));
    assert_int_equal(tpformat_add_format(t, "sched", switch_format, sizeof switch_format - 1), 0);
    assert_int_equal(tpformat_use(t, NULL, 0), 1);
    const tpformat_event *ev = tpformat_event_by_id(t, SWITCH_ID);
    assert_non_null(ev);
    tpformat_field f;
    assert_int_equal(tpformat_field_find(ev, "common_type", &f), 1);
    assert_int_equal(f.offset, 0);
    assert_int_equal(f.size, 2);
    assert_int_equal(tpformat_field_find(ev, "common_pid", &f), 1);
    struct switch_vals v = {.pid = 31337, .prev_comm = "", .next_comm = ""};
    uint8_t pl[64];
    switch_payload(pl, &v);
    uint64_t x;
    assert_int_equal(tpformat_read(&f, 0, pl, sizeof pl, &x), 0);
    assert_int_equal(x, v.pid);
    tpformat_free(t);
}

/* The kernel's word and sub-buffer size from header_page text. */
static void test_header_page(void **state)
{
    (void)state;
    static const struct { const char *text; int long_size; size_t subbuf; } cases[] = {
        {"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
         "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
         "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
         "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n", 8, 4096},
        {"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
         "\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
         "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
         "\tfield: char data;\toffset:12;\tsize:16372;\tsigned:0;\n", 4, 16384},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tpformat *t;
        assert_int_equal(tpformat_new(&t), 0);
        assert_int_equal(tpformat_header_long_size(t), 0);
        assert_int_equal(tpformat_add_header_page(t, cases[i].text, strlen(cases[i].text)), 0);
        assert_int_equal(tpformat_has_header_page(t), 1);
        assert_int_equal(tpformat_header_long_size(t), cases[i].long_size);
        assert_int_equal(tpformat_header_subbuf_size(t), cases[i].subbuf);
        tpformat_free(t);
    }
    static const char *const bad[] = {"nothing", "", "\tfield: local_t commit;\toffset:8;\tsize:",
                                      "\tfield: local_t commit;\toffset:8;\tsize:3;\tsigned:1;\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tpformat *t;
        assert_int_equal(tpformat_new(&t), 0);
        tpformat_add_header_page(t, bad[i], strlen(bad[i]));
        assert_int_equal(tpformat_header_long_size(t), 0);
        tpformat_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sched_switch),
        cmocka_unit_test(test_big_endian_32bit),
        cmocka_unit_test(test_late_format_and_comms),
        cmocka_unit_test(test_hostile_formats),
        cmocka_unit_test(test_kernel_formats),
        cmocka_unit_test(test_without_a_trace),
        cmocka_unit_test(test_header_page),
        cmocka_unit_test(test_function_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
