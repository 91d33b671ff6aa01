/*
 * ftrace.h - tr-rec-ftrace's modules: the private tracing instance
 * (instance.c), event selection (events.c), sub-buffer parsing (pages.c),
 * the traced command (target.c), the task table (tasks.c) and the
 * recording loop (record.c).
 */
#ifndef TR_REC_FTRACE_H
#define TR_REC_FTRACE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "tr.h"

#define FT_INSTANCE_PREFIX "tr-rec-ftrace-"

/* ---- instance.c: the tracefs mount and the private instance ---- */

/* Mount tracefs when it is not mounted; the tracing directory or NULL with
 * *why set. */
const char *ft_tracing_dir(const char **why);
/* Name of an instance of ours for pid and a random nonce ("tr-rec-ftrace-1234-00c0ffee..."):
 * pids repeat across PID namespaces, the nonce does not. */
void ft_instance_name(char *buf, size_t len, pid_t pid, uint64_t nonce);
/* Remove instances left by killed runs; returns how many were removed.  A live recorder holds
 * a file of its instance open from its creation on, and the kernel refuses to remove an
 * instance in use (EBUSY), in whatever PID namespace that recorder runs. */
int ft_remove_stale_instances(void);
/* Create our instance (stopped, clock mono); registers its removal at exit.
 * 0, or -1 with a message in err. */
int ft_instance_create(char *err, size_t errlen);
/* Our pid as the kernel's events carry it and set_event_pid takes it: the pid in the initial
 * PID namespace, read back from a trace_marker write in our instance (getpid() outside a
 * PID namespace, or when it cannot be told).  Valid after ft_instance_create. */
pid_t ft_kernel_pid(void);
/* The first pid in the instance's set_event_pid other than pid, or 0. */
pid_t ft_instance_other_pid(pid_t pid);
/* Remove our instance now (closes the registered fds first).  Idempotent. */
void ft_instance_remove(void);
/* Absolute path of a file in our instance (static buffer per call site: copy it). */
const char *ft_instance_path(char *buf, size_t len, const char *file);
/* Write str to a file of our instance; 0 or -errno. */
int ft_instance_write(const char *file, const char *str);
/* Read a whole file into a malloc'd NUL-terminated buffer; NULL with errno. */
/* Register an fd in the instance that must be closed before its removal. */
void ft_instance_track_fd(int fd);
void ft_instance_untrack_fd(int fd);
/* In a forked child: close the registered fds (the child does not use the instance). */
void ft_instance_close_in_child(void);
/* The kernel's last error_log line of our instance (malloc'd) or NULL. */
char *ft_instance_error_log(void);

/* ---- events.c: which events, their ids and formats ---- */

struct ft_event {
    char *system, *name;   /* "sched", "sched_switch" */
    int id;                /* kernel event id (common_type) */
    char *filter;          /* --filter for this event, or NULL */
    uint32_t def;          /* tr event def id once written */
    int used;              /* its format blob is in the trace */
};

struct ft_events {
    struct ft_event *v;
    size_t n, cap;
};

/* Split "sys:event" (or "sys/event", or "event" meaning any system) into
 * two globs; 0 or -1 when malformed. */
int ft_split_spec(const char *spec, char *sys, size_t syslen, char *ev, size_t evlen);
/* Add the events matching spec to set (no duplicates); returns how many
 * matched (0: unknown event), -1 on error with errno.  enable_only: skip
 * events that cannot be enabled (the ftrace system). */
int ft_events_add(struct ft_events *set, const char *tracing_dir, const char *spec,
                  int enable_only, size_t *first_added);
void ft_events_free(struct ft_events *set);
/* 1 when e matches the two globs of a split spec. */
int ft_event_matches(const struct ft_event *e, const char *sysglob, const char *evglob);
/* Find by kernel id. */
struct ft_event *ft_events_by_id(struct ft_events *set, int id);
/* Look up the event with kernel id in the whole tracing dir and add it
 * (for records of events not asked for, like ftrace:function).  NULL if none. */
struct ft_event *ft_events_resolve_id(struct ft_events *set, const char *tracing_dir, int id);
/* -l: print "system:event" for available events matching any glob (all when n == 0). */
int ft_list_events(FILE *out, const char *tracing_dir, char *const *globs, size_t n);
/* --format: print the format text of events matching spec; 0, or -1 no match. */
int ft_print_formats(FILE *out, const char *tracing_dir, const char *spec);

/* ---- pages.c: one ring-buffer sub-buffer into events ---- */

struct ft_page_sink {
    void *ctx;
    /* one event: ts in ring-buffer clock ns, data/len the raw record */
    int (*event)(void *ctx, int cpu, uint64_t ts, const void *data, size_t len);
    /* events lost before this sub-buffer: count, or -1 when unknown */
    int (*missed)(void *ctx, int cpu, uint64_t ts, long long count);
};
struct kbuffer;
#define FT_PAGE_CORRUPT (-1000)
/* Parse one sub-buffer of subbuf_size bytes read from trace_pipe_raw;
 * long_size is the kernel's (8 or 4).  Returns events parsed, the sink's
 * negative return, or FT_PAGE_CORRUPT for a header that does not fit. */
int ft_parse_subbuf(struct kbuffer *kbuf, void *subbuf, size_t subbuf_size, int long_size, int cpu,
                    const struct ft_page_sink *sink);
/* Check that a sub-buffer's header fits it; *missed = events lost before it
 * (-1: lost, count unknown; 0: none).  0 or FT_PAGE_CORRUPT. */
int ft_subbuf_check(const void *subbuf, size_t subbuf_size, int long_size, long long *missed);

/* ---- order.c: the per-CPU streams merged in time order ---- */

struct ft_item;
struct ft_order;
/* kbuffers for ncpus CPUs of a kernel with that word size and byte order. */
struct ft_order *ft_order_new(int ncpus, int long_size, int big_endian, size_t subbuf_size);
void ft_order_free(struct ft_order *o);
/* A CPU that is read (an offline CPU bounds nothing). */
void ft_order_online(struct ft_order *o, int cpu);
/* Queue a sub-buffer item of its CPU (the item is the order's until ft_order_done). */
void ft_order_add(struct ft_order *o, struct ft_item *item);
/* cpu was read empty: what it delivers later is stamped after t. */
void ft_order_bound(struct ft_order *o, int cpu, uint64_t t);
/* One event (len > 0, data inside a queued sub-buffer) or a loss of lost events before a
 * sub-buffer (len 0; lost -1 when the kernel did not say how many). */
typedef int (*ft_order_emit)(void *ctx, int cpu, uint64_t ts, const void *data, size_t len,
                             long long lost);
/* Emit, oldest first, what no CPU can precede any more (final: everything); returns how many,
 * or emit's negative return.  Malformed sub-buffers are skipped and counted. */
int ft_order_release(struct ft_order *o, int final, ft_order_emit emit, void *ctx);
/* Sub-buffer items emitted completely (a list for ft_reader_recycle), and the malformed count. */
struct ft_item *ft_order_done(struct ft_order *o);
uint64_t ft_order_corrupt(const struct ft_order *o);

/* ---- tasks.c: tid -> tgid and comm ---- */

struct ft_task {
    int32_t tid, tgid;
    char comm[16];
    int known;             /* comm read from /proc */
};
struct ft_tasks;
struct ft_tasks *ft_tasks_new(void);
void ft_tasks_free(struct ft_tasks *t);
/* The entry for tid, reading /proc the first time; *is_new set when it was
 * not in the table. */
struct ft_task *ft_tasks_get(struct ft_tasks *t, int32_t tid, int *is_new);
/* Read comm again (after exec); 1 if it changed. */
int ft_tasks_refresh(struct ft_tasks *t, struct ft_task *task);
/* Kernel saved_cmdlines text merged with our table ("PID COMM\n"), malloc'd. */
char *ft_tasks_cmdlines(struct ft_tasks *t, const char *kernel, size_t *len);
/* Kernel saved_tgids merged with our table ("PID TGID\n"), malloc'd. */
char *ft_tasks_tgids(struct ft_tasks *t, const char *kernel, size_t *len);

/* ---- target.c: the traced command ---- */

struct ft_target {
    pid_t pid;             /* command or -p pid; 0 system-wide */
    pid_t kpid;            /* the command's pid in the kernel's events (ft_kernel_pid) */
    int spawned;           /* we forked it */
    int started;           /* it was let go to exec */
    int go_fd;             /* write end: closing it lets the child exec */
    int err_fd;            /* read end: exec errno, EOF on success */
    int exited;            /* reaped or gone */
    int status;            /* wait status */
};
/* Fork the command, stopped before exec until ft_target_go. */
int ft_target_spawn(struct ft_target *t, char *const argv[], int stdout_to_stderr);
/* Let it exec; 0, or -1 with errno of the failed exec. */
int ft_target_go(struct ft_target *t);
/* 1 when the target ended (reaps a spawned child). */
int ft_target_done(struct ft_target *t);
/* Threads of pid as "tid tid ...", malloc'd. */
char *ft_pid_threads(pid_t pid);

/* ---- reader.c: a thread emptying the ring buffers into memory ---- */

struct ft_item {
    struct ft_item *next;
    int cpu;
    uint32_t len;          /* sub-buffer bytes; 0: no data, bound is set */
    uint64_t bound;        /* the CPU was empty at this time (CLOCK_MONOTONIC ns) */
    int eof;               /* the last item: everything was read */
    uint8_t *data;
};
struct tracefs_cpu;
struct ft_reader;
/* Start reading tcpus[i] (NULL: no such CPU) whose fds[i] are polled; at most
 * max_pages sub-buffers wait in memory; a byte is written to notify_fd when
 * items are queued. */
struct ft_reader *ft_reader_start(int ncpus, struct tracefs_cpu **tcpus, const int *fds,
                                  size_t subbuf_size, size_t max_pages, int notify_fd);
/* All queued items, oldest first (per CPU in read order); give them back. */
struct ft_item *ft_reader_take(struct ft_reader *r);
void ft_reader_recycle(struct ft_reader *r, struct ft_item *list);
/* Tracing is off: read everything left, then queue an eof item. */
void ft_reader_finish(struct ft_reader *r);
/* Finish, join, free. */
void ft_reader_free(struct ft_reader *r);

/* ---- record.c ---- */

struct ft_options {
    char **specs;          /* -e in order */
    char **filters;        /* --filter for specs[i] or NULL */
    size_t nspecs;
    char **func_filters;   /* -l after --function */
    size_t nfunc_filters;
    char **func_notrace;
    size_t nfunc_notrace;
    int function;          /* 1 function, 2 function_graph */
    uint64_t buffer_kb;    /* 0: kernel default */
    uint64_t duration_ns;  /* -d, 0 none */
    pid_t pid;             /* -p */
    char *const *cmd;      /* command or NULL */
    const char *output;    /* -o or NULL */
    int quiet;
    int argc;
    char **argv;
};
/* ---- setup.c: what the instance records (errors exit, removing the instance) ---- */

/* Resolve every -e of o into ev with its --filter (unknown event: exit 2). */
void ft_select_events(struct ft_events *ev, const char *dir, const struct ft_options *o);
/* Write the event's filter (a refused filter: the kernel's reason, exit 2), enable it. */
void ft_enable_event(struct ft_event *e);
/* Set up the function tracer of o for pidlist (NULL: system-wide) and add its events to ev. */
void ft_setup_function(struct ft_events *ev, const char *dir, const struct ft_options *o,
                       const char *pidlist);

/* Record; returns the exit status for main. */
int ft_record(const struct ft_options *o);

#endif
