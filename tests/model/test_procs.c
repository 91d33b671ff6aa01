/* model/procs.h: fork, exec, exit, command names over time, threads, maps cut and replaced,
 * look-ups at a time (checked against the plain rule "the newest mmap covering the address"),
 * and hostile sequences.  The traces are written with tr_writer and read back from memory. */
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

#include "procs.h"
#include "tr.h"

/* ---- traces in memory ---- */

struct trace {
    uint8_t *buf;
    size_t len;
    tr_reader *r;
};

static struct trace *trace_build(const tr_record *recs, size_t n)
{
    int fd = memfd_create("trace", 0);
    assert_true(fd >= 0);
    tr_writer *w;
    assert_int_equal(tr_writer_open(&w, fd, NULL), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tr_writer_add(w, &recs[i]), 0);
    assert_int_equal(tr_writer_finish(w, 0), 0);
    tr_writer_free(w);
    struct trace *t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->len = (size_t)lseek(fd, 0, SEEK_END);
    t->buf = malloc(t->len);
    assert_non_null(t->buf);
    assert_int_equal(pread(fd, t->buf, t->len, 0), (ssize_t)t->len);
    close(fd);
    assert_int_equal(tr_reader_open_mem(&t->r, t->buf, t->len, NULL), 0);
    return t;
}

/* Feed the next n records of t (the stream frames come along uncounted). */
static void trace_feed(struct trace *t, struct procs *pm, size_t n)
{
    tr_record rec;
    while (n > 0) {
        assert_int_equal(tr_reader_next(t->r, &rec), 1);
        assert_int_equal(procs_feed(pm, &rec), 0);
        if (rec.type != TR_REC_STREAM_START && rec.type != TR_REC_STREAM_END)
            n--;
    }
}

static void trace_free(struct trace *t)
{
    tr_reader_free(t->r);
    free(t->buf);
    free(t);
}

static tr_record comm(uint64_t time, int32_t pid, int32_t tid, const char *name, int exec)
{
    tr_record r = {.type = TR_REC_COMM, .time = time, .pid = pid, .tid = tid, .cpu = -1};
    r.u.comm.comm = name;
    r.u.comm.len = strlen(name);
    r.u.comm.exec = (uint32_t)exec;
    return r;
}

static tr_record fork_rec(uint64_t time, int32_t pid, int32_t tid, int32_t ppid, int32_t ptid)
{
    tr_record r = {.type = TR_REC_FORK, .time = time, .pid = pid, .tid = tid, .cpu = -1};
    r.u.fork.ppid = ppid;
    r.u.fork.ptid = ptid;
    return r;
}

static tr_record exit_rec(uint64_t time, int32_t pid, int32_t tid, uint32_t flags)
{
    tr_record r = {.type = TR_REC_EXIT, .time = time, .pid = pid, .tid = tid, .cpu = -1};
    r.u.exit.flags = flags;
    return r;
}

static tr_record mmap_rec(uint64_t time, int32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
                          const char *path)
{
    tr_record r = {.type = TR_REC_MMAP, .time = time, .pid = pid, .tid = pid, .cpu = -1};
    r.u.mmap.start = start;
    r.u.mmap.len = len;
    r.u.mmap.pgoff = pgoff;
    r.u.mmap.prot = PROT_READ | PROT_EXEC;
    r.u.mmap.path = path;
    r.u.mmap.path_len = strlen(path);
    return r;
}

static const char *path_at(struct procs *pm, int32_t pid, uint64_t addr)
{
    const procs_map *m = procs_find_map(procs_proc_get(pm, pid), addr);
    return m ? m->path : NULL;
}

/* ---- fork, exec, exit ---- */

static void test_fork_exec_exit(void **state)
{
    (void)state;
    static const uint8_t bid[3] = {0xde, 0xad, 0x01};
    tr_record recs[] = {
        comm(10, 100, 100, "sh", 1),
        mmap_rec(20, 100, 0x400000, 0x10000, 0, "/bin/sh"),
        fork_rec(30, 200, 200, 100, 100),
        comm(40, 200, 200, "ls", 1),
        mmap_rec(50, 200, 0x500000, 0x8000, 0x1000, "/bin/ls"),
        exit_rec(60, 200, 200, 0),
    };
    recs[1].u.mmap.build_id = bid;
    recs[1].u.mmap.build_id_len = sizeof bid;
    struct trace *t = trace_build(recs, sizeof recs / sizeof *recs);
    struct procs *pm = procs_new(NULL);
    assert_non_null(pm);

    static int marker;
    trace_feed(t, pm, 2); /* sh, its map */
    procs_find_map(procs_proc_get(pm, 100), 0x400000)->user = &marker;
    trace_feed(t, pm, 1); /* the fork */
    procs_proc *parent = procs_proc_get(pm, 100), *child = procs_proc_get(pm, 200);
    assert_non_null(parent);
    assert_non_null(child);
    assert_int_equal(child->ppid, 100);
    assert_int_equal(child->born, 30);
    assert_int_equal(child->nmaps, 1);
    const procs_map *m = procs_find_map(child, 0x400123);
    assert_non_null(m);
    assert_string_equal(m->path, "/bin/sh");
    assert_ptr_equal(m->user, &marker); /* the tool's pointer came along */
    assert_ptr_equal(m->path, path_at(pm, 100, 0x40ffff)); /* interned */
    assert_int_equal(m->build_id_len, 3);
    assert_memory_equal(m->build_id, bid, 3);
    assert_string_equal(procs_comm(pm, 200), "sh"); /* inherited */
    assert_null(procs_thread_get(pm, 200)->comm_recorded);
    assert_null(procs_find_map(child, 0x410000)); /* end is exclusive */
    uint64_t gen = child->maps_gen;

    trace_feed(t, pm, 2); /* exec ls, its map */
    assert_true(child->maps_gen > gen);
    assert_int_equal(child->exec_time, 40);
    assert_null(path_at(pm, 200, 0x400123)); /* exec dropped the copy */
    assert_string_equal(path_at(pm, 200, 0x500000), "/bin/ls");
    assert_string_equal(path_at(pm, 100, 0x400123), "/bin/sh"); /* not the parent's */
    assert_null(path_at(pm, 100, 0x500000));
    assert_string_equal(procs_comm(pm, 200), "ls");
    assert_string_equal(procs_thread_get(pm, 200)->comm_recorded, "ls");

    trace_feed(t, pm, 1); /* exit */
    assert_true(child->exited);
    assert_int_equal(child->exit_time, 60);
    assert_true(procs_thread_get(pm, 200)->exited);
    assert_false(parent->exited);
    assert_string_equal(path_at(pm, 200, 0x500000), "/bin/ls"); /* late samples still resolve */

    procs_stats st;
    procs_get_stats(pm, &st);
    assert_int_equal(st.processes, 2);
    assert_int_equal(st.threads, 2);
    assert_int_equal(st.maps, 2);
    procs_free(pm);
    trace_free(t);
}

/* ---- command names over time, threads ---- */

static void test_comm_over_time_and_threads(void **state)
{
    (void)state;
    tr_record recs[] = {
        comm(100, 7, 7, "first", 0),
        mmap_rec(110, 7, 0x1000, 0x1000, 0, "/a"),
        fork_rec(150, 7, 8, 7, 7), /* a thread */
        comm(200, 7, 7, "second", 0),
        comm(300, 7, 8, "worker", 0),
        mmap_rec(310, 7, 0x2000, 0x1000, 0, "/b"), /* by the process: the thread sees it too */
        exit_rec(400, 7, 8, TR_EXITF_THREAD),
    };
    struct trace *t = trace_build(recs, sizeof recs / sizeof *recs);
    struct procs *pm = procs_new(NULL);
    trace_feed(t, pm, 3);
    procs_proc *p = procs_proc_get(pm, 7);
    uint64_t gen = p->maps_gen;
    assert_int_equal(procs_pid_of(pm, 8), 7);
    assert_string_equal(procs_comm(pm, 8), "first");
    assert_null(procs_proc_get(pm, 8)); /* no process of its own */
    trace_feed(t, pm, 4);
    assert_int_equal(p->maps_gen, gen + 1); /* the thread changed nothing; /b did */
    assert_string_equal(procs_comm(pm, 7), "second");
    assert_string_equal(procs_comm(pm, 8), "worker");
    assert_null(procs_comm_at(pm, 7, 99));
    assert_string_equal(procs_comm_at(pm, 7, 100), "first");
    assert_string_equal(procs_comm_at(pm, 7, 199), "first");
    assert_string_equal(procs_comm_at(pm, 7, 200), "second");
    assert_string_equal(procs_comm_at(pm, 7, UINT64_MAX), "second");
    assert_null(procs_comm_at(pm, 8, 149));
    assert_string_equal(procs_comm_at(pm, 8, 150), "first");
    assert_string_equal(procs_comm_at(pm, 8, 299), "first");
    assert_string_equal(procs_comm_at(pm, 8, 300), "worker");
    assert_true(procs_thread_get(pm, 8)->exited);
    assert_false(procs_proc_get(pm, 7)->exited); /* a thread's exit is not the process's */
    assert_string_equal(path_at(pm, procs_pid_of(pm, 8), 0x2000), "/b");
    assert_null(procs_comm(pm, 9));
    assert_int_equal(procs_pid_of(pm, 9), -1);
    procs_free(pm);
    trace_free(t);
}

/* ---- maps cut and replaced ---- */

struct want {
    uint64_t start, end, pgoff;
    const char *path;
};

static void check_maps(procs_proc *p, const struct want *w, size_t n)
{
    size_t it = 0, i = 0;
    for (procs_map *m; (m = procs_maps_next(p, &it)); i++) {
        assert_true(i < n);
        assert_int_equal(m->start, w[i].start);
        assert_int_equal(m->end, w[i].end);
        assert_int_equal(m->pgoff, w[i].pgoff);
        assert_string_equal(m->path, w[i].path);
    }
    assert_int_equal(i, n);
    assert_int_equal(p->nmaps, n);
}

static void test_maps_split_replaced(void **state)
{
    (void)state;
    tr_record recs[] = {
        mmap_rec(1, 5, 0x1000, 0x8000, 0, "a"),       /* a: 1000-9000 */
        mmap_rec(2, 5, 0x3000, 0x1000, 0x100000, "b"), /* inside a: a splits */
        mmap_rec(3, 5, 0x0, 0x2000, 0, "c"),          /* over a's front */
        mmap_rec(4, 5, 0x3800, 0x1800, 0x7000, "d"),  /* b's back, the tail's front */
        mmap_rec(5, 5, 0x8000, 0x2000, 0, "e"),       /* a's back and beyond */
        mmap_rec(6, 5, 0x0, 0x100000, 0x50000, "f"),  /* everything */
        mmap_rec(7, 5, 0x10, 0, 0, "zero"),           /* ignored: empty */
        mmap_rec(8, 5, UINT64_MAX - 0xfff, 0x2000, 0, "wraps"), /* ignored */
    };
    struct trace *t = trace_build(recs, sizeof recs / sizeof *recs);
    struct procs *pm = procs_new(NULL);
    static int marker;
    trace_feed(t, pm, 1);
    procs_proc *p = procs_proc_get(pm, 5);
    procs_find_map(p, 0x1000)->user = &marker;
    trace_feed(t, pm, 1);
    check_maps(p, (struct want[]){{0x1000, 0x3000, 0, "a"}, {0x3000, 0x4000, 0x100000, "b"},
                                  {0x4000, 0x9000, 0x3000, "a"}}, 3);
    assert_ptr_equal(procs_find_map(p, 0x2fff)->user, &marker); /* both parts keep it */
    assert_ptr_equal(procs_find_map(p, 0x4000)->user, &marker);
    assert_null(procs_find_map(p, 0x3000)->user);
    trace_feed(t, pm, 1);
    check_maps(p, (struct want[]){{0x0, 0x2000, 0, "c"}, {0x2000, 0x3000, 0x1000, "a"},
                                  {0x3000, 0x4000, 0x100000, "b"}, {0x4000, 0x9000, 0x3000, "a"}}, 4);
    trace_feed(t, pm, 1);
    check_maps(p, (struct want[]){{0x0, 0x2000, 0, "c"}, {0x2000, 0x3000, 0x1000, "a"},
                                  {0x3000, 0x3800, 0x100000, "b"}, {0x3800, 0x5000, 0x7000, "d"},
                                  {0x5000, 0x9000, 0x4000, "a"}}, 5);
    trace_feed(t, pm, 1);
    check_maps(p, (struct want[]){{0x0, 0x2000, 0, "c"}, {0x2000, 0x3000, 0x1000, "a"},
                                  {0x3000, 0x3800, 0x100000, "b"}, {0x3800, 0x5000, 0x7000, "d"},
                                  {0x5000, 0x8000, 0x4000, "a"}, {0x8000, 0xa000, 0, "e"}}, 6);
    /* the file offset of an address is the same whichever piece holds it */
    const procs_map *m = procs_find_map(p, 0x7abc);
    assert_int_equal(0x7abc - m->start + m->pgoff, 0x7abc - 0x1000);
    trace_feed(t, pm, 3);
    check_maps(p, (struct want[]){{0x0, 0x100000, 0x50000, "f"}}, 1);
    procs_stats st;
    procs_get_stats(pm, &st);
    assert_int_equal(st.maps, 1);
    procs_free(pm);
    trace_free(t);
}

/* ---- look-up at a time, against the plain rule ---- */

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The newest mmap of recs[0..n) (one process) at or before time covering addr, after
 * the last exec at or before time; NULL if none. */
static const tr_record *newest(const tr_record *recs, size_t n, uint64_t addr, uint64_t time)
{
    const tr_record *hit = NULL;
    for (size_t i = 0; i < n && recs[i].time <= time; i++) {
        if (recs[i].type == TR_REC_COMM)
            hit = NULL;
        else if (addr >= recs[i].u.mmap.start && addr - recs[i].u.mmap.start < recs[i].u.mmap.len)
            hit = &recs[i];
    }
    return hit;
}

static void check_at(struct procs *pm, const tr_record *recs, size_t n, uint64_t addr, uint64_t time)
{
    const tr_record *want = newest(recs, n, addr, time);
    const procs_map *m = procs_map_at(pm, 3, addr, time);
    if (!want) {
        assert_null(m);
        return;
    }
    assert_non_null(m);
    assert_true(addr >= m->start && addr < m->end);
    assert_int_equal(strlen(m->path), want->u.mmap.path_len);
    assert_memory_equal(m->path, want->u.mmap.path, want->u.mmap.path_len);
    assert_int_equal(addr - m->start + m->pgoff, addr - want->u.mmap.start + want->u.mmap.pgoff);
    assert_true(m->born <= time);
}

static void test_lookup_at_time(void **state)
{
    (void)state;
    enum { N = 3000 };
    static char names[N][16];
    tr_record *recs = calloc(N, sizeof *recs);
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "m%zu", i);
        uint64_t page = next_rand() % 256, pages = 1 + next_rand() % (i % 50 == 0 ? 64 : 6);
        recs[i] = mmap_rec(1000 + 10 * i, 3, 0x10000 + page * 0x1000, pages * 0x1000, next_rand() % 64 * 0x1000,
                           names[i]);
        if (i == N / 2)
            recs[i] = comm(recs[i].time, 3, 3, "exec", 1);
    }
    struct trace *t = trace_build(recs, N);
    struct procs *pm = procs_new(NULL);
    for (size_t done = 0; done < N; done += 500) {
        trace_feed(t, pm, 500);
        /* now, as a reader in order asks */
        for (int q = 0; q < 200; q++) {
            uint64_t addr = 0x10000 + next_rand() % (300 * 0x1000);
            const tr_record *want = newest(recs, done + 500, addr, UINT64_MAX);
            const procs_map *m = procs_find_map(procs_proc_get(pm, 3), addr);
            assert_true(!want == !m);
            if (m)
                assert_int_equal(addr - m->start + m->pgoff, addr - want->u.mmap.start + want->u.mmap.pgoff);
        }
    }
    /* any time of the trace, after it was read */
    for (int q = 0; q < 20000; q++) {
        uint64_t addr = 0x10000 + next_rand() % (300 * 0x1000) - 0x800;
        uint64_t time = 990 + next_rand() % (10 * N + 20);
        check_at(pm, recs, N, addr, time);
    }
    /* the times of the records themselves: the record is in effect from then on */
    for (size_t i = 0; i < N; i += 7)
        if (recs[i].type == TR_REC_MMAP) {
            check_at(pm, recs, N, recs[i].u.mmap.start, recs[i].time);
            check_at(pm, recs, N, recs[i].u.mmap.start, recs[i].time - 1);
        }
    procs_free(pm);
    trace_free(t);
    free(recs);
}

static void free_user(void *user, void *ctx)
{
    (void)ctx;
    free(user);
}

static void test_pid_reused(void **state)
{
    (void)state;
    tr_record recs[] = {
        mmap_rec(10, 1, 0x1000, 0x1000, 0, "/init"),
        mmap_rec(20, 50, 0x1000, 0x1000, 0, "/old"),
        comm(25, 50, 50, "old", 0),
        exit_rec(30, 50, 50, 0),
        fork_rec(40, 50, 50, 1, 1), /* pid 50 again: a new process, a copy of init's maps */
        mmap_rec(50, 50, 0x2000, 0x1000, 0, "/new"),
    };
    struct trace *t = trace_build(recs, sizeof recs / sizeof *recs);
    struct procs *pm = procs_new(&(procs_options){.user_free = free_user});
    trace_feed(t, pm, 4);
    procs_proc_get(pm, 50)->user = malloc(16); /* freed when the process is replaced */
    trace_feed(t, pm, 2);
    procs_proc *p = procs_proc_get(pm, 50);
    assert_null(p->user);
    assert_false(p->exited);
    assert_int_equal(p->ppid, 1);
    assert_string_equal(path_at(pm, 50, 0x1000), "/init");
    assert_string_equal(path_at(pm, 50, 0x2000), "/new");
    assert_string_equal(procs_map_at(pm, 50, 0x1000, 35)->path, "/old"); /* before the fork */
    assert_null(procs_map_at(pm, 50, 0x2000, 35));
    assert_string_equal(procs_map_at(pm, 50, 0x1000, 40)->path, "/init");
    assert_null(procs_map_at(pm, 50, 0x2000, 45));
    assert_string_equal(procs_map_at(pm, 50, 0x2000, 50)->path, "/new");
    assert_null(procs_map_at(pm, 50, 0x1000, 19));
    assert_string_equal(procs_comm(pm, 50), "old"); /* init had no name to give */
    procs_proc_get(pm, 1)->user = malloc(16); /* freed by procs_free (ASan would tell) */
    procs_free(pm);
    trace_free(t);
}

static int freed;
static void count_free(void *user, void *ctx)
{
    assert_ptr_equal(ctx, &freed);
    freed += *(int *)user;
    free(user);
}

static void test_stream_start_resets(void **state)
{
    (void)state;
    tr_record recs[] = {comm(1, 9, 9, "x", 0), mmap_rec(2, 9, 0x1000, 0x1000, 0, "/x")};
    struct trace *t1 = trace_build(recs, 2), *t2 = trace_build(recs, 1);
    struct procs *pm = procs_new(&(procs_options){.user_free = count_free, .ctx = &freed});
    trace_feed(t1, pm, 2);
    int *u = malloc(sizeof *u);
    *u = 1;
    procs_proc_get(pm, 9)->user = u;
    freed = 0;
    trace_feed(t2, pm, 1); /* its STREAM_START forgets the first */
    assert_int_equal(freed, 1);
    assert_string_equal(procs_comm(pm, 9), "x");
    assert_null(path_at(pm, 9, 0x1000));
    u = malloc(sizeof *u);
    *u = 2;
    procs_proc_make(pm, 9)->user = u;
    procs_reset(pm);
    assert_int_equal(freed, 3);
    assert_null(procs_proc_get(pm, 9));
    procs_free(pm);
    trace_free(t1);
    trace_free(t2);
}

/* ---- hostile ---- */

static void test_hostile_sequence(void **state)
{
    (void)state;
    char longname[64];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    tr_record nul = comm(9, 11, 11, "ab", 0);
    nul.u.comm.comm = "ab\0cd";
    nul.u.comm.len = 5;
    tr_record recs[] = {
        exit_rec(1, 7, 7, 0),             /* exit before anything */
        fork_rec(2, 7, 7, 6, 6),          /* then the fork, of an unknown parent */
        fork_rec(3, INT32_MAX, INT32_MAX, 7, 7),
        mmap_rec(4, INT32_MIN, 0x1000, 0x1000, 0, "/neg"),
        mmap_rec(5, -1, 0xffffffff81000000ull, 0x1000000, 0, "[kernel.kallsyms]"),
        comm(6, INT32_MAX, INT32_MAX, longname, 1),
        fork_rec(7, 12, 12, 12, 12),      /* a thread of itself */
        exit_rec(8, 12, 12, 0),
        nul,
        mmap_rec(10, 7, 0x5000, 0x1000, 0, "/a"),
        mmap_rec(10, 7, 0x5000, 0x1000, 0, "/b"), /* the same range at the same time: the later */
    };
    struct trace *t = trace_build(recs, sizeof recs / sizeof *recs);
    struct procs *pm = procs_new(NULL);
    trace_feed(t, pm, sizeof recs / sizeof *recs);
    procs_proc *p = procs_proc_get(pm, 7);
    assert_non_null(p);
    assert_false(p->exited);
    assert_false(procs_thread_get(pm, 7)->exited);
    assert_int_equal(procs_proc_get(pm, INT32_MAX)->ppid, 7);
    assert_string_equal(path_at(pm, INT32_MIN, 0x1000), "/neg");
    assert_int_equal(strlen(procs_comm(pm, INT32_MAX)), PROCS_COMM_MAX);
    assert_string_equal(procs_comm(pm, 11), "ab");
    assert_true(procs_proc_get(pm, 12)->exited);
    assert_string_equal(procs_lookup(pm, 7, 0xffffffff81001234ull)->path, "[kernel.kallsyms]");
    assert_null(procs_lookup(pm, 7, 0x1000)); /* pid INT32_MIN's, not 7's */
    assert_string_equal(path_at(pm, 7, 0x5000), "/b");
    assert_string_equal(procs_map_at(pm, 7, 0x5000, 10)->path, "/b");
    procs_free(pm);
    trace_free(t);
}

/* A million mmaps of one page each: downwards, as the kernel places them, then a million
 * over the same page.  Fed directly (the model is what is tested, not the format). */
static void test_million_mmaps(void **state)
{
    (void)state;
    enum { N = 1000000 };
    struct procs *pm = procs_new(NULL);
    tr_record r = mmap_rec(0, 4, 0, 0x1000, 0, "/lib");
    for (uint64_t i = 0; i < N; i++) {
        r.time = 1 + i;
        r.u.mmap.start = 0x7f0000000000ull - i * 0x2000;
        assert_int_equal(procs_feed(pm, &r), 0);
    }
    procs_proc *p = procs_proc_get(pm, 4);
    assert_int_equal(p->nmaps, N);
    for (uint64_t i = 0; i < N; i += 997) {
        uint64_t a = 0x7f0000000000ull - i * 0x2000;
        assert_non_null(procs_find_map(p, a + 0xfff));
        assert_null(procs_find_map(p, a + 0x1000));
        assert_int_equal(procs_find_map(p, a)->born, 1 + i);
    }
    assert_null(procs_map_at(pm, 4, 0x7f0000000000ull - 5 * 0x2000, 5));
    assert_non_null(procs_map_at(pm, 4, 0x7f0000000000ull - 5 * 0x2000, 6));
    /* one page, mapped over and over */
    r.pid = 5;
    r.u.mmap.start = 0x400000;
    for (uint64_t i = 0; i < N; i++) {
        r.time = 2 * N + i;
        r.u.mmap.pgoff = i * 0x1000;
        assert_int_equal(procs_feed(pm, &r), 0);
    }
    p = procs_proc_get(pm, 5);
    assert_int_equal(p->nmaps, 1);
    assert_int_equal(procs_find_map(p, 0x400000)->pgoff, (uint64_t)(N - 1) * 0x1000);
    for (uint64_t i = 0; i < N; i += 9973)
        assert_int_equal(procs_map_at(pm, 5, 0x400800, 2 * N + i)->pgoff, i * 0x1000);
    procs_stats st;
    procs_get_stats(pm, &st);
    assert_int_equal(st.maps, N + 1);
    assert_int_equal(st.history, N - 1);
    procs_free(pm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fork_exec_exit),
        cmocka_unit_test(test_comm_over_time_and_threads),
        cmocka_unit_test(test_maps_split_replaced),
        cmocka_unit_test(test_lookup_at_time),
        cmocka_unit_test(test_pid_reused),
        cmocka_unit_test(test_stream_start_resets),
        cmocka_unit_test(test_hostile_sequence),
        cmocka_unit_test(test_million_mmaps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
