/*
 * events.h - perf event names to perf_event_attr, as perf spells them.
 *
 *   hardware   cycles instructions cache-references cache-misses branches
 *              branch-misses bus-cycles stalled-cycles-frontend ... ref-cycles
 *   software   cpu-clock task-clock page-faults (faults) context-switches (cs)
 *              cpu-migrations (migrations) minor-faults major-faults
 *              alignment-faults emulation-faults dummy
 *   cache      L1-dcache-load-misses, LLC-loads, dTLB-load-misses, ...
 *   tracepoint SUBSYS:NAME (id from tracefs)
 *   raw        rNNNN (hex config for the CPU's PMU)
 * A ":u" / ":k" suffix counts only user / kernel mode; "p" (up to 3) asks for
 * precise (skid-free) samples: "cycles:pp".
 */
#ifndef TRP_EVENTS_H
#define TRP_EVENTS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_ev {
    char name[128];         /* as perf prints it: "cpu-clock", "sched:sched_switch" */
    uint32_t type;          /* PERF_TYPE_* */
    uint64_t config;
    uint32_t tr_kind;       /* TR_EV_* */
    int exclude_user, exclude_kernel;
    int precise;            /* :p count, attr.precise_ip */
    uint64_t tp_id;         /* tracepoint id */
    char tracefs[128];      /* "GROUP:EVENT" in tracefs when not name: a user probe (uprobes.h) */
    int at_entry;           /* a user probe on a function's first instruction: the return
                             * address is at the stack pointer, not yet in a frame */
};

/* Parse one event name; 0 on success, -1 with a reason in why. */
int perf_ev_parse(const char *spec, struct perf_ev *ev, char *why, size_t why_len);
/* Parse a comma-separated list (perf -e a,b); returns the count or -1.
 * Commas inside tracepoint filters are not supported. */
int perf_ev_parse_list(const char *list, struct perf_ev *evs, size_t max, char *why, size_t why_len);

/* perf list: hardware, software, cache, tracepoint and PMU events whose
 * names match glob (NULL: all) on stdout; 0, or 1 on a write error. */
int perf_list(const char *glob);

/* /proc/sys/kernel/perf_event_paranoid (0 when unreadable). */
int perf_paranoid(void);
/* As perf record and perf stat fall back where perf_event_paranoid lets this user count only
 * user mode: every event that may not count kernel mode (and may count user mode) becomes
 * user-only, NAME:u, said in one note on stderr unless quiet.  Returns how many changed. */
int perf_evs_user_only(struct perf_ev *evs, int n, int quiet);
/* Why perf_event_open(ev, pid) failed with EACCES or EPERM, into buf: the ptrace access mode
 * check for another user's process, every CPU (pid -1) or perf_event_paranoid. */
const char *perf_permission_error(const struct perf_ev *ev, pid_t pid, char *buf, size_t len);

/* The format file of tracepoint "sys:name" in tracefs (model/tracing.h), malloc'd; NULL none. */
char *perf_tracepoint_format(const char *sysname, size_t *len);

/* Thin wrapper over the syscall. */
int perf_event_open_fd(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
                       unsigned long flags);

#endif
