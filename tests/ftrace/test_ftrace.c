/* test_ftrace.c - tr-rec-ftrace's parts that need no kernel: event specs, instance names,
 * ring-buffer sub-buffer parsing (synthetic pages), the task maps (header_page: tests/model). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <kbuffer.h>

#include "ftrace.h"

static void test_split_spec(void **state)
{
    (void)state;
    char s[64], e[64];
    assert_int_equal(ft_split_spec("sched:sched_switch", s, sizeof s, e, sizeof e), 0);
    assert_string_equal(s, "sched");
    assert_string_equal(e, "sched_switch");
    assert_int_equal(ft_split_spec("syscalls/sys_enter_*", s, sizeof s, e, sizeof e), 0);
    assert_string_equal(s, "syscalls");
    assert_string_equal(e, "sys_enter_*");
    assert_int_equal(ft_split_spec("sched_switch", s, sizeof s, e, sizeof e), 0);
    assert_string_equal(s, "*");
    assert_string_equal(e, "sched_switch");
    assert_int_equal(ft_split_spec("", s, sizeof s, e, sizeof e), -1);
    assert_int_equal(ft_split_spec(":x", s, sizeof s, e, sizeof e), -1);
    assert_int_equal(ft_split_spec("a:", s, sizeof s, e, sizeof e), -1);
    assert_int_equal(ft_split_spec("a:b:c", s, sizeof s, e, sizeof e), -1);
}

static void test_event_matches(void **state)
{
    (void)state;
    struct ft_event ev = {.system = "syscalls", .name = "sys_enter_openat"};
    assert_true(ft_event_matches(&ev, "syscalls", "sys_enter_*"));
    assert_true(ft_event_matches(&ev, "*", "sys_enter_openat"));
    assert_false(ft_event_matches(&ev, "sched", "*"));
}

static void test_instance_names(void **state)
{
    (void)state;
    char name[64];
    /* the pid repeats in every PID namespace, the nonce tells them apart */
    ft_instance_name(name, sizeof name, 4242, 0xc0ffee);
    assert_string_equal(name, "tr-rec-ftrace-4242-0000000000c0ffee");
}

/* ---- synthetic sub-buffers (little-endian, 64-bit) ---- */

struct got {
    int n;
    uint64_t ts[8];
    size_t len[8];
    uint8_t first[8];
    long long missed;
    int missed_calls;
};

static int got_event(void *ctx, int cpu, uint64_t ts, const void *data, size_t len)
{
    struct got *g = ctx;
    assert_int_equal(cpu, 3);
    if (g->n < 8) {
        g->ts[g->n] = ts;
        g->len[g->n] = len;
        g->first[g->n] = *(const uint8_t *)data;
    }
    g->n++;
    return 0;
}

static int got_missed(void *ctx, int cpu, uint64_t ts, long long count)
{
    (void)cpu;
    (void)ts;
    struct got *g = ctx;
    g->missed = count;
    g->missed_calls++;
    return 0;
}

static size_t put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
    return 4;
}

/* header: type_len in the low 5 bits, time delta in the upper 27 */
static size_t put_event(uint8_t *p, unsigned type_len, uint32_t delta, uint8_t fill, size_t datalen)
{
    size_t n = put32(p, (delta << 5) | type_len);
    memset(p + n, fill, datalen);
    return n + datalen;
}

static size_t build_page(uint8_t *page, size_t size, int missed_flag, uint64_t missed)
{
    memset(page, 0, size);
    uint64_t ts0 = 1000;
    memcpy(page, &ts0, 8);
    uint8_t *d = page + 16;
    size_t n = 0;
    n += put_event(d + n, 4, 100, 0xa1, 16);            /* 16 bytes at 1100 */
    n += put32(d + n, (5u << 5) | 30);                   /* time extend: 5 + (1 << 27) */
    n += put32(d + n, 1);
    n += put_event(d + n, 2, 0, 0xb2, 8);               /* 8 bytes at 1105 + 2^27 */
    n += put32(d + n, (7u << 5) | 0);                    /* type_len 0: length word */
    n += put32(d + n, 4 + 40);
    memset(d + n, 0xc3, 40);
    n += 40;
    uint64_t commit = n;
    if (missed_flag) {
        commit |= 1ull << 31;
        commit |= 1ull << 30;
        memcpy(d + n, &missed, 8);
    }
    memcpy(page + 8, &commit, 8);
    return n;
}

static void test_parse_subbuf(void **state)
{
    (void)state;
    uint8_t page[4096];
    struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
    assert_non_null(kb);
    struct got g = {0};
    const struct ft_page_sink sink = {&g, got_event, got_missed};

    build_page(page, sizeof page, 0, 0);
    assert_int_equal(ft_parse_subbuf(kb, page, sizeof page, 8, 3, &sink), 3);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.ts[0], 1100);
    assert_int_equal(g.len[0], 16);
    assert_int_equal(g.first[0], 0xa1);
    assert_int_equal(g.ts[1], 1100 + 5 + (1ull << 27));
    assert_int_equal(g.len[1], 8);
    assert_int_equal(g.first[1], 0xb2);
    assert_int_equal(g.ts[2], 1100 + 5 + (1ull << 27) + 7);
    assert_int_equal(g.len[2], 40);
    assert_int_equal(g.first[2], 0xc3);
    assert_int_equal(g.missed_calls, 0);

    memset(&g, 0, sizeof g);
    build_page(page, sizeof page, 1, 77);
    assert_int_equal(ft_parse_subbuf(kb, page, sizeof page, 8, 3, &sink), 3);
    assert_int_equal(g.missed_calls, 1);
    assert_int_equal(g.missed, 77);

    /* a commit beyond the sub-buffer is refused, not followed */
    memset(&g, 0, sizeof g);
    uint64_t bad = 8000;
    memcpy(page + 8, &bad, 8);
    assert_int_equal(ft_parse_subbuf(kb, page, sizeof page, 8, 3, &sink), FT_PAGE_CORRUPT);
    assert_int_equal(g.n, 0);

    /* an empty page has no events */
    memset(page, 0, sizeof page);
    assert_int_equal(ft_parse_subbuf(kb, page, sizeof page, 8, 3, &sink), 0);
    kbuffer_free(kb);
}

static void test_tasks(void **state)
{
    (void)state;
    struct ft_tasks *t = ft_tasks_new();
    assert_non_null(t);
    int is_new = 0;
    struct ft_task *me = ft_tasks_get(t, getpid(), &is_new);
    assert_non_null(me);
    assert_true(is_new);
    assert_true(me->known);
    assert_int_equal(me->tgid, getpid());
    char mycomm[16];
    memcpy(mycomm, me->comm, sizeof mycomm);
    assert_non_null(ft_tasks_get(t, getpid(), &is_new));
    assert_false(is_new);
    for (int i = 1; i < 2000; i++) /* grows; dead tids are kept unknown */
        assert_non_null(ft_tasks_get(t, 0x3ffffff0 - i, &is_new));
    struct ft_task *idle = ft_tasks_get(t, 0, &is_new);
    assert_string_equal(idle->comm, "<idle>");

    size_t len;
    char kernel[64];
    snprintf(kernel, sizeof kernel, "1 init\n");
    char *m = ft_tasks_cmdlines(t, kernel, &len);
    assert_non_null(m);
    assert_int_equal(strlen(m), len);
    assert_memory_equal(m, "1 init\n", 7);
    char mine[64];
    snprintf(mine, sizeof mine, "%d %s\n", getpid(), mycomm);
    assert_non_null(strstr(m, mine));
    free(m);
    /* the kernel's entry wins */
    snprintf(kernel, sizeof kernel, "%d other\n", getpid());
    m = ft_tasks_cmdlines(t, kernel, &len);
    assert_null(strstr(m, mine));
    free(m);
    m = ft_tasks_tgids(t, NULL, &len);
    snprintf(mine, sizeof mine, "%d %d\n", getpid(), getpid());
    assert_non_null(strstr(m, mine));
    free(m);
    ft_tasks_free(t);
}

/* ---- merging the CPUs in time order ---- */

struct emitted {
    int n, disorder;
    uint64_t latest;
    uint64_t ts[64];
    int cpu[64];
    long long lost[64];
    uint8_t tag[64];
};

static int collect(void *ctx, int cpu, uint64_t ts, const void *data, size_t len, long long lost)
{
    struct emitted *e = ctx;
    if (ts < e->latest)
        e->disorder++;
    e->latest = ts;
    if (e->n < 64) {
        e->ts[e->n] = ts;
        e->cpu[e->n] = cpu;
        e->lost[e->n] = lost;
        e->tag[e->n] = len ? *(const uint8_t *)data : 0;
    }
    e->n++;
    return 0;
}

/* A sub-buffer of cpu with events at the given times (8 bytes each, first byte = tag + i),
 * after missed lost events (0 none, -1 unknown). */
static struct ft_item *page_item(int cpu, const uint64_t *ts, int n, uint8_t tag, long long missed)
{
    struct ft_item *it = calloc(1, sizeof *it + 4096);
    assert_non_null(it);
    it->data = (uint8_t *)(it + 1);
    it->cpu = cpu;
    it->len = 4096;
    uint64_t t0 = n ? ts[0] : 0;
    memcpy(it->data, &t0, 8);
    uint8_t *d = it->data + 16;
    size_t len = 0;
    uint64_t prev = t0;
    for (int i = 0; i < n; i++) {
        len += put_event(d + len, 2, (uint32_t)(ts[i] - prev), (uint8_t)(tag + i), 8);
        prev = ts[i];
    }
    uint64_t commit = len;
    if (missed) {
        commit |= 1ull << 31;
        if (missed > 0) {
            commit |= 1ull << 30;
            uint64_t m = (uint64_t)missed;
            memcpy(d + len, &m, 8);
        }
    }
    memcpy(it->data + 8, &commit, 8);
    return it;
}

static void free_items(struct ft_item *l)
{
    while (l) {
        struct ft_item *n = l->next;
        free(l);
        l = n;
    }
}

static void test_order(void **state)
{
    (void)state;
    struct ft_order *o = ft_order_new(3, 8, 0, 4096);
    assert_non_null(o);
    ft_order_online(o, 0);
    ft_order_online(o, 1); /* cpu 2 is offline: it holds nothing back */
    struct emitted e = {0};
    const uint64_t a[] = {10, 30}, b[] = {20};
    ft_order_add(o, page_item(0, a, 2, 'a', 0));
    ft_order_add(o, page_item(1, b, 1, 'c', 0));
    /* cpu 1 may still deliver something after 20: only 10 and 20 are safe */
    assert_int_equal(ft_order_release(o, 0, collect, &e), 2);
    assert_int_equal(e.ts[0], 10);
    assert_int_equal(e.tag[0], 'a');
    assert_int_equal(e.ts[1], 20);
    assert_int_equal(e.cpu[1], 1);
    assert_int_equal(e.tag[1], 'c');
    free_items(ft_order_done(o)); /* cpu 1's sub-buffer is spent, cpu 0's is not */
    /* cpu 1 read empty at 25: still not past 30 */
    ft_order_bound(o, 1, 25);
    assert_int_equal(ft_order_release(o, 0, collect, &e), 0);
    ft_order_bound(o, 1, 40);
    assert_int_equal(ft_order_release(o, 0, collect, &e), 1);
    assert_int_equal(e.ts[2], 30);
    assert_int_equal(e.tag[2], 'b');
    /* losses come before their sub-buffer's events, at their time */
    const uint64_t c[] = {50, 60}, d[] = {48}, f[] = {70};
    ft_order_add(o, page_item(0, c, 2, 'd', 7));
    ft_order_add(o, page_item(1, d, 1, 'x', 0));
    ft_order_add(o, page_item(1, f, 1, 'y', -1));
    assert_int_equal(ft_order_release(o, 1, collect, &e), 6);
    assert_int_equal(e.ts[3], 48);
    assert_int_equal(e.tag[3], 'x');
    assert_int_equal(e.ts[4], 50);
    assert_int_equal(e.lost[4], 7);
    assert_int_equal(e.tag[4], 0);
    assert_int_equal(e.ts[5], 50);
    assert_int_equal(e.tag[5], 'd');
    assert_int_equal(e.ts[6], 60);
    assert_int_equal(e.ts[7], 70);
    assert_int_equal(e.lost[7], -1);
    assert_int_equal(e.ts[8], 70);
    assert_int_equal(e.tag[8], 'y');
    assert_int_equal(e.disorder, 0);
    /* a malformed sub-buffer is skipped and counted */
    struct ft_item *bad = page_item(0, c, 2, 'z', 0);
    uint64_t huge = 9000;
    memcpy(bad->data + 8, &huge, 8);
    ft_order_add(o, bad);
    assert_int_equal(ft_order_release(o, 1, collect, &e), 0);
    assert_int_equal(ft_order_corrupt(o), 1);
    /* many sub-buffers on both CPUs interleave */
    for (int p = 0; p < 40; p++) {
        uint64_t t[10];
        for (int i = 0; i < 10; i++)
            t[i] = 1000 + (uint64_t)p * 100 + (uint64_t)i * 10 + (uint64_t)(p % 2) * 5;
        ft_order_add(o, page_item(p % 2, t, 10, 0, 0));
    }
    struct emitted many = {0};
    assert_int_equal(ft_order_release(o, 1, collect, &many), 400);
    assert_int_equal(many.disorder, 0);
    free_items(ft_order_done(o));
    ft_order_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_spec),    cmocka_unit_test(test_event_matches),
        cmocka_unit_test(test_instance_names),
        cmocka_unit_test(test_parse_subbuf),  cmocka_unit_test(test_tasks),
        cmocka_unit_test(test_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
