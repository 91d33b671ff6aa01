/* report_int.h - what the parts of model/report share (not a public header). */
#ifndef TR_REPORT_INT_H
#define TR_REPORT_INT_H

#include "report.h"

#include "hashmap.h"
#include "tpformat.h"
#include "tr.h"

/* Strings by id: each distinct string once. */
struct strtab {
    strpool pool;
    hashmap ids;               /* interned pointer -> id + 1 */
    const char **v;
    size_t n, cap;
};
/* The id of s[0..len), or -1 out of memory. */
int64_t strtab_id(struct strtab *t, const char *s, size_t len);

/* Sequences of uint32 by id (stacks: frame ids, leaf first). */
struct seqtab {
    uint32_t *data;
    size_t ndata, capdata;
    size_t *off;               /* start of sequence i in data; off[i+1] its end */
    size_t n, cap;
    hashmap map;               /* (hash, len) -> id + 1, probing hash+1 on collisions */
};
int64_t seqtab_id(struct seqtab *t, const uint32_t *v, uint32_t len);
static inline uint32_t seqtab_len(const struct seqtab *t, uint32_t id) { return (uint32_t)(t->off[id + 1] - t->off[id]); }
static inline const uint32_t *seqtab_get(const struct seqtab *t, uint32_t id) { return t->data + t->off[id]; }
void seqtab_free(struct seqtab *t);

struct rsym {
    uint32_t name, dso;        /* string ids (dso: the module's base name) */
    uint64_t addr;             /* unknown symbols: the address */
    int kernel, unknown;
};
struct rframe {
    uint32_t sym;              /* rsym id */
    uint32_t srcline;          /* string id: "file:line", "sym+off" */
};
/* Samples of equal stack, process, thread, comm and CPU. */
struct rgroup {
    uint32_t stack, comm;
    int32_t pid, tid, cpu;
    uint64_t samples, period;
};
struct rsection {
    const char *name;          /* the event's name (strtab) */
    hashmap groups;            /* (stack << 32 | tid, mix) -> group + 1 */
    struct rgroup *g;
    size_t ng, capg;
    uint64_t samples, period;
    int offcpu;                /* period is ns blocked */
    int stacks;                /* some sample had more than one frame */
};

/* One syscall's or one process's numbers. */
struct sysrow {
    uint32_t name;             /* syscall name or comm (string id) */
    int32_t pid;
    uint64_t errors;
    uint64_t first, last;      /* times of the first and last call */
    struct lathist lat;
};
/* A task's state for the run-queue latency. */
struct schedtask {
    int32_t tid;
    uint32_t comm;
    uint64_t in_since;         /* on the CPU since (0: not known to run) */
    uint64_t ready_since;      /* runnable since (woken or preempted), 0 none */
    uint64_t runtime, switches, delays, delay_sum, delay_max, max_at;
};
struct evcount { uint32_t event, comm; int32_t tid; uint64_t n; };

struct report {
    struct report_opts o;
    struct strtab str;
    struct seqtab stacks;
    struct rsym *syms; size_t nsyms, capsyms;
    hashmap symmap;            /* (name << 32 | dso, addr) -> sym + 1 */
    struct rframe *frames; size_t nframes, capframes;
    hashmap framemap;          /* (sym << 32 | srcline, 0) -> frame + 1 */
    struct rsection *sec; size_t nsec, capsec;
    uint64_t lost;
    /* syscalls */
    struct sysrow *sys; size_t nsys, capsys;     /* per syscall name */
    hashmap sysmap;            /* (name id, 0) -> row + 1 */
    struct sysrow *proc; size_t nproc, capproc;  /* per process */
    hashmap procmap;           /* (pid, 0) -> row + 1 */
    struct sysrow systotal;
    /* tracepoint events */
    struct evcount *ev; size_t nev, capev;
    hashmap evmap;             /* (event << 32 | tid, comm) -> row + 1 */
    uint64_t events;
    struct schedtask *st; size_t nst, capst;
    hashmap stmap;             /* (tid, 0) -> task + 1 */
    int sched_seen;            /* sched_switch events were read */
    uint64_t first_time, last_time;
    unsigned gen;              /* report_compact's count: the ids of stacks, groups and strings changed */
};

/* events.c: one syscall record, one tracepoint event (comm: the task's) */
int report_syscall(struct report *r, tr_reader *rd, const tr_record *rec, const char *comm);
int report_trace_event(struct report *r, tr_reader *rd, tpformat *tp, const tr_record *rec, const char *comm);
void report_print_syscalls(struct report *r, FILE *out);
void report_print_events(struct report *r, FILE *out);
void report_json_syscalls(struct report *r, FILE *out);
void report_json_events(struct report *r, FILE *out);
void report_events_free(struct report *r);
/* profile.c */
int report_wanted_comm(const struct report *r, const char *comm);
/* JSON string */
void report_json_str(FILE *out, const char *s);

#endif
