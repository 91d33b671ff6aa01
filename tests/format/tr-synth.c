/* tr-synth - write deterministic synthetic traces (tests, golden files, bench).
 *   tr-synth all            one record of every type
 *   tr-synth samples N      every type, then N stack samples
 *   tr-synth stacks N MAX   N samples with stack copies of up to MAX bytes (no other types)
 *   tr-synth phase NAME N   N samples over 64 stacks of functions NAME_0..7, then NAME_end
 *   tr-synth remap          one raw stack sampled twice in a.so, then twice in b.so
 *                           mapped over it (what it folds to changes)
 *   tr-synth twoprocs       two processes sample one raw stack, other modules mapped there
 *   tr-synth switch         a thread switched out (preempted, then blocked) and in
 *                           on two CPUs (format 1.3's switch record)
 *   tr-synth dump < FILE    every decoded field of every record (golden files)
 *   options: -c CHUNK (raw bytes per chunk), -k KEY (key interval), -u (unfinished),
 *            -d (stack copies delta-coded: format 1.1's STACK_DELTA),
 *            -a (stack copies placed by address: format 1.2's STACK_ADDR),
 *            -r (stack nodes defined in runs: format 1.2's STACK_RUNS),
 *            -C (stack nodes and their frames in chains: format 1.4's STACK_CHAINS) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth.h"

/* A cpu-clock event and the raw stack of addrs[0 .. n) (leaf first). */
static int cpu_clock_stack(tr_writer *w, const uint64_t *addrs, size_t n, uint32_t *ev, uint32_t *stack)
{
    tr_event_def d = {.kind = TR_EV_SOFTWARE, .sample_value = 999, .flags = TR_EVF_FREQ | TR_EVF_CALLCHAIN,
                      .name = "cpu-clock", .name_len = 9};
    int e = tr_writer_event(w, &d, ev);
    return e ? e : tr_writer_stack_addrs(w, addrs, NULL, n, stack);
}

/* r (its type, time and task set) as the mapping of path at 0x10000. */
static int put_mmap(tr_writer *w, tr_record *r, const char *path)
{
    memset(&r->u, 0, sizeof r->u);
    r->type = TR_REC_MMAP;
    r->u.mmap.start = 0x10000;
    r->u.mmap.len = 0x10000;
    r->u.mmap.prot = 5; /* PROT_READ | PROT_EXEC */
    r->u.mmap.path = path;
    r->u.mmap.path_len = strlen(path);
    return tr_writer_add(w, r);
}

/* r (its task set) as a sample of stack 1000 ns later, on CPU 0. */
static int put_sample(tr_writer *w, tr_record *r, uint32_t ev, uint32_t stack)
{
    memset(&r->u, 0, sizeof r->u);
    r->type = TR_REC_SAMPLE;
    r->time += 1000;
    r->cpu = 0;
    r->u.sample.event = ev;
    r->u.sample.period = 1000;
    r->u.sample.stack = stack;
    return tr_writer_add(w, r);
}

/* The remap trace: process 3000 "remap" samples a raw stack (one frame at
 * 0x10100) twice with /usr/lib/a.so mapped there, then twice after
 * /usr/lib/b.so is mapped over it. */
static int synth_remap(tr_writer *w)
{
    uint32_t ev, stack;
    uint64_t addr = 0x10100;
    int e;
    if ((e = cpu_clock_stack(w, &addr, 1, &ev, &stack))) return e;
    tr_record r = {.type = TR_REC_COMM, .time = 1000, .pid = 3000, .tid = 3000, .cpu = -1};
    r.u.comm.comm = "remap";
    r.u.comm.len = 5;
    if ((e = tr_writer_add(w, &r))) return e;
    for (int i = 0; i < 4; i++) {
        if (i % 2 == 0) {
            r.time += 1000;
            if ((e = put_mmap(w, &r, i ? "/usr/lib/b.so" : "/usr/lib/a.so"))) return e;
        }
        if ((e = put_sample(w, &r, ev, stack))) return e;
    }
    return 0;
}

/* The twoprocs trace: processes 3000 "one" and 3001 "two" have a.so and
 * b.so mapped at the same address and take turns sampling one raw stack
 * (0x10100 called from 0x10200): the same frame ids, other functions.
 * same_comm: both named "one". */
static int synth_twoprocs(tr_writer *w, int same_comm)
{
    uint32_t ev, stack;
    uint64_t addrs[2] = {0x10100, 0x10200};
    int e;
    if ((e = cpu_clock_stack(w, addrs, 2, &ev, &stack))) return e;
    tr_record r = {.time = 1000, .cpu = -1};
    for (int p = 0; p < 2; p++) {
        memset(&r.u, 0, sizeof r.u);
        r.type = TR_REC_COMM;
        r.pid = r.tid = 3000 + p;
        r.u.comm.comm = p && !same_comm ? "two" : "one";
        r.u.comm.len = 3;
        if ((e = tr_writer_add(w, &r)) || (e = put_mmap(w, &r, p ? "/usr/lib/b.so" : "/usr/lib/a.so"))) return e;
    }
    for (int i = 0; i < 4; i++) {
        r.pid = r.tid = 3000 + i % 2;
        if ((e = put_sample(w, &r, ev, stack))) return e;
    }
    return 0;
}

/* The switch trace: thread 4001 of process 4000 "switcher" leaves CPU 0
 * preempted, comes back on CPU 1, leaves it blocked and comes back on CPU 0. */
static int synth_switch(tr_writer *w)
{
    tr_record r = {.type = TR_REC_COMM, .time = 1000, .pid = 4000, .tid = 4001, .cpu = -1};
    r.u.comm.comm = "switcher";
    r.u.comm.len = 8;
    int e = tr_writer_add(w, &r);
    static const struct { int cpu; uint32_t flags; } sw[] = {
        {0, TR_SWF_OUT | TR_SWF_PREEMPT}, {1, 0}, {1, TR_SWF_OUT}, {0, 0},
    };
    for (size_t i = 0; !e && i < sizeof sw / sizeof sw[0]; i++) {
        memset(&r.u, 0, sizeof r.u);
        r.type = TR_REC_SWITCH;
        r.time += 250;
        r.cpu = sw[i].cpu;
        r.u.sw.flags = sw[i].flags;
        e = tr_writer_add(w, &r);
    }
    return e;
}

int main(int argc, char **argv)
{
    tr_writer_options o = {0};
    int c, unfinished = 0;
    while ((c = getopt(argc, argv, "c:k:udarC")) != -1) {
        if (c == 'c') o.chunk_size = strtoull(optarg, NULL, 0);
        else if (c == 'k') o.key_interval = strtoull(optarg, NULL, 0);
        else if (c == 'u') unfinished = 1;
        else if (c == 'd') o.stack_delta = 1;
        else if (c == 'a') o.stack_delta = 2;
        else if (c == 'r') o.stack_runs = 1;
        else if (c == 'C') o.stack_runs = 2;
        else return 2;
    }
    if (optind < argc && !strcmp(argv[optind], "dump")) {
        tr_reader *r;
        if (tr_reader_open(&r, 0, NULL)) return 1;
        int st = synth_dump(r);
        tr_reader_free(r);
        return st;
    }
    if (optind >= argc || isatty(1)) {
        fprintf(stderr, "usage: tr-synth [-c CHUNK] [-k KEY] [-u] [-d] [-a] [-r] [-C] all|samples N|stacks N MAX|phase NAME N|remap|twoprocs|twoprocs-one-comm|switch > FILE\n");
        return 2;
    }
    tr_writer *w;
    int e = tr_writer_open(&w, 1, &o);
    if (!e && !strcmp(argv[optind], "stacks"))
        e = synth_stack_copies(w, optind + 1 < argc ? strtoull(argv[optind + 1], NULL, 0) : 100,
                               optind + 2 < argc ? strtoull(argv[optind + 2], NULL, 0) : 8192, 7);
    else if (!e && !strcmp(argv[optind], "phase") && optind + 2 < argc)
        e = synth_phase(w, argv[optind + 1], strtoull(argv[optind + 2], NULL, 0));
    else if (!e && !strcmp(argv[optind], "remap"))
        e = synth_remap(w);
    else if (!e && !strcmp(argv[optind], "twoprocs"))
        e = synth_twoprocs(w, 0);
    else if (!e && !strcmp(argv[optind], "twoprocs-one-comm"))
        e = synth_twoprocs(w, 1);
    else if (!e && !strcmp(argv[optind], "switch"))
        e = synth_switch(w);
    else if (!e) e = synth_all_types(w);
    if (!e && !strcmp(argv[optind], "samples")) e = synth_samples(w, optind + 1 < argc ? strtoull(argv[optind + 1], NULL, 0) : 1000, 42);
    if (!e) e = unfinished ? tr_writer_flush(w) : tr_writer_finish(w, 0);
    tr_writer_free(w);
    if (e) {
        fprintf(stderr, "tr-synth: %s\n", tr_strerror(e));
        return 1;
    }
    return 0;
}
