/* tr-viewtrace - write a small deterministic trace whose records show how tr-cat's views
 * differ (tests/perf/cases/cat-views):
 *   tr-viewtrace PRODUCER [VIEW] > FILE
 * The stream's metadata has producer = PRODUCER and, when given, view = VIEW (META_VIEW);
 * the records: a comm, a fork, an mmap, a syscall (a family record), a signal, a lost
 * record and two exits. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "keys.h"
#include "tr.h"

static int add(tr_writer *w, tr_record rec)
{
    return tr_writer_add(w, &rec);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || isatty(1)) {
        fprintf(stderr, "usage: tr-viewtrace PRODUCER [VIEW] > FILE\n");
        return 2;
    }
    tr_writer *w;
    int e = tr_writer_open(&w, 1, NULL);
    if (!e) e = tr_writer_meta(w, "producer", argv[1]);
    if (!e) e = tr_writer_meta(w, "arch", "x86_64");
    if (!e && argc == 3) e = tr_writer_meta(w, META_VIEW, argv[2]);
    uint32_t nrs[] = {39};
    const char *names[] = {"getpid"};
    if (!e) e = tr_writer_syscall_table(w, "x86_64", nrs, names, 1);
    uint64_t t = 1000000000ull;
    tr_record r = {.type = TR_REC_COMM, .time = t, .pid = 10, .tid = 10, .cpu = 0};
    r.u.comm.comm = "prog";
    r.u.comm.len = 4;
    if (!e) e = add(w, r);
    r = (tr_record){.type = TR_REC_FORK, .time = t + 1000, .pid = 11, .tid = 11, .cpu = 0};
    r.u.fork.ppid = r.u.fork.ptid = 10;
    if (!e) e = add(w, r);
    r = (tr_record){.type = TR_REC_MMAP, .time = t + 2000, .pid = 10, .tid = 10, .cpu = 0};
    r.u.mmap.start = 0x400000;
    r.u.mmap.len = 0x1000;
    r.u.mmap.prot = 5;
    r.u.mmap.path = "/bin/prog";
    r.u.mmap.path_len = 9;
    if (!e) e = add(w, r);
    r = (tr_record){.type = TR_REC_SYSCALL, .time = t + 3000, .pid = 10, .tid = 10, .cpu = 0};
    r.u.syscall.nr = 39;
    r.u.syscall.flags = TR_SYSF_HAS_RET;
    r.u.syscall.ret = 10;
    r.u.syscall.duration = 500;
    if (!e) e = add(w, r);
    r = (tr_record){.type = TR_REC_LOST, .time = t + 4000, .pid = -1, .tid = -1, .cpu = 0};
    r.u.lost.kind = TR_LOST_OVERRUN;
    r.u.lost.count = 5;
    if (!e) e = add(w, r);
    r = (tr_record){.type = TR_REC_EXIT, .time = t + 5000, .pid = 11, .tid = 11, .cpu = 0};
    if (!e) e = add(w, r);
    r = (tr_record){.type = TR_REC_SIGNAL, .time = t + 6000, .pid = 10, .tid = 10, .cpu = 0};
    r.u.signal.signo = 17; /* SIGCHLD */
    r.u.signal.code = 1;   /* CLD_EXITED */
    if (!e) e = add(w, r);
    r = (tr_record){.type = TR_REC_EXIT, .time = t + 7000, .pid = 10, .tid = 10, .cpu = 0};
    r.u.exit.status = 3 << 8;
    if (!e) e = add(w, r);
    if (!e) e = tr_writer_finish(w, 5);
    tr_writer_free(w);
    if (e) {
        fprintf(stderr, "tr-viewtrace: %s\n", tr_strerror(e));
        return 1;
    }
    return 0;
}
