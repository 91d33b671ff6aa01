/* events.c - syscalls (count, errors, latency quantiles per syscall and per
 * process: the RED method's rate, errors, duration) and tracepoint events
 * (counts per event and task; run-queue latency per task, as perf sched
 * latency prints it). */
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"

/* ---- syscalls ------------------------------------------------------------- */

static struct sysrow *row_of(struct sysrow **v, size_t *n, size_t *cap, hashmap *m, uint64_t key, uint32_t name,
                             int32_t pid)
{
    void *p = hashmap_get(m, key, 0);
    if (p)
        return &(*v)[(uintptr_t)p - 1];
    if (array_reserve(v, cap, *n + 1, sizeof **v, 64) < 0 || hashmap_put(m, key, 0, (void *)(uintptr_t)(*n + 1)) < 0)
        return NULL;
    struct sysrow *s = &(*v)[(*n)++];
    memset(s, 0, sizeof *s);
    s->name = name, s->pid = pid;
    return s;
}

static int row_add(struct sysrow *s, uint64_t time, int failed, uint64_t ns)
{
    if (!s->lat.n || time < s->first)
        s->first = time;
    if (time > s->last)
        s->last = time;
    s->errors += failed;
    return lathist_add(&s->lat, ns);
}

int report_syscall(struct report *r, tr_reader *rd, const tr_record *rec, const char *comm)
{
    if (rec->u.syscall.flags & TR_SYSF_UNFINISHED)
        return 0;
    char buf[32];
    const char *name = tr_reader_syscall_name(rd, NULL, rec->u.syscall.nr);
    if (!name) {
        snprintf(buf, sizeof buf, "syscall_%u", rec->u.syscall.nr);
        name = buf;
    }
    int64_t nid = strtab_id(&r->str, name, strlen(name)), cid = strtab_id(&r->str, comm, strlen(comm));
    if (nid < 0 || cid < 0)
        return -1;
    int failed = (rec->u.syscall.flags & TR_SYSF_HAS_RET) && rec->u.syscall.ret < 0 && rec->u.syscall.ret > -4096;
    uint64_t ns = rec->u.syscall.duration, t = rec->time;
    struct sysrow *s = row_of(&r->sys, &r->nsys, &r->capsys, &r->sysmap, (uint64_t)nid, (uint32_t)nid, 0);
    struct sysrow *p = row_of(&r->proc, &r->nproc, &r->capproc, &r->procmap, (uint32_t)rec->pid, (uint32_t)cid, rec->pid);
    if (!s || !p || row_add(s, t, failed, ns) < 0 || row_add(p, t, failed, ns) < 0 ||
        row_add(&r->systotal, t, failed, ns) < 0)
        return -1;
    p->name = (uint32_t)cid; /* the latest name (after an exec) */
    return 0;
}

static int row_cmp(const void *a, const void *b)
{
    const struct sysrow *x = a, *y = b;
    if (x->lat.sum != y->lat.sum)
        return x->lat.sum > y->lat.sum ? -1 : 1;
    if (x->lat.n != y->lat.n)
        return x->lat.n > y->lat.n ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static void dots(FILE *out, const int *w, int n)
{
    fputs("#", out);
    for (int i = 0; i < n; i++) {
        fputs(i ? "  " : " ", out);
        for (int j = 0; j < w[i]; j++)
            fputc('.', out);
    }
    fputs("\n#\n", out);
}

static void lat_cells(FILE *out, const struct lathist *h)
{
    fprintf(out, "  %10.3f  %10.3f  %10.3f  %10.3f  %10.3f\n", (double)h->sum / 1e6,
            (double)lathist_quantile(h, 0.5) / 1e3, (double)lathist_quantile(h, 0.9) / 1e3,
            (double)lathist_quantile(h, 0.99) / 1e3, (double)h->max / 1e3);
}

static void rate(char *buf, size_t size, const struct sysrow *s)
{
    if (s->last > s->first)
        snprintf(buf, size, "%.1f", (double)s->lat.n * 1e9 / (double)(s->last - s->first));
    else
        snprintf(buf, size, "-");
}

void report_print_syscalls(struct report *r, FILE *out)
{
    const struct sysrow *t = &r->systotal;
    if (!t->lat.n)
        return;
    char rb[32];
    rate(rb, sizeof rb, t);
    fprintf(out, "# Syscalls: %llu calls in %.6f s (%s/s), %llu errors (%.2f%%)\n#\n", (unsigned long long)t->lat.n,
            (double)(t->last - t->first) / 1e9, rb, (unsigned long long)t->errors,
            (double)t->errors * 100.0 / (double)t->lat.n);
    if (r->nsys)
        qsort(r->sys, r->nsys, sizeof *r->sys, row_cmp);
    int wname = 7;
    for (size_t i = 0; i < r->nsys; i++) {
        int l = (int)strlen(r->str.v[r->sys[i].name]);
        wname = l > wname ? l : wname;
    }
    fprintf(out, "# %-*s  %9s  %8s  %10s  %10s  %10s  %10s  %10s\n", wname, "Syscall", "Calls", "Errors",
            "Total ms", "p50 us", "p90 us", "p99 us", "Max us");
    int w[] = {wname, 9, 8, 10, 10, 10, 10, 10};
    dots(out, w, 8);
    for (size_t i = 0; i < r->nsys; i++) {
        const struct sysrow *s = &r->sys[i];
        fprintf(out, "  %-*s  %9llu  %8llu", wname, r->str.v[s->name], (unsigned long long)s->lat.n,
                (unsigned long long)s->errors);
        lat_cells(out, &s->lat);
    }
    fprintf(out, "  %-*s  %9llu  %8llu", wname, "total", (unsigned long long)t->lat.n, (unsigned long long)t->errors);
    lat_cells(out, &t->lat);
    fputs("\n#\n# Per process (rate: calls per second between its first and last call)\n#\n", out);
    if (r->nproc)
        qsort(r->proc, r->nproc, sizeof *r->proc, row_cmp);
    int wp = 15;
    for (size_t i = 0; i < r->nproc; i++) {
        int l = 8 + (int)strlen(r->str.v[r->proc[i].name]);
        wp = l > wp ? l : wp;
    }
    fprintf(out, "# %-*s  %9s  %10s  %8s  %10s  %10s  %10s  %10s  %10s\n", wp, "    Pid:Command", "Calls", "Rate/s",
            "Errors", "Total ms", "p50 us", "p90 us", "p99 us", "Max us");
    int wq[] = {wp, 9, 10, 8, 10, 10, 10, 10, 10};
    dots(out, wq, 9);
    for (size_t i = 0; i < r->nproc; i++) {
        const struct sysrow *s = &r->proc[i];
        char pc[512];
        snprintf(pc, sizeof pc, "%7d:%s", s->pid, r->str.v[s->name]);
        rate(rb, sizeof rb, s);
        fprintf(out, "  %-*s  %9llu  %10s  %8llu", wp, pc, (unsigned long long)s->lat.n, rb,
                (unsigned long long)s->errors);
        lat_cells(out, &s->lat);
    }
    fputs("\n\n", out);
}

static void json_lat(FILE *out, const struct lathist *h)
{
    fprintf(out, "\"calls\":%llu,\"total_ns\":%llu,\"p50_ns\":%llu,\"p90_ns\":%llu,\"p99_ns\":%llu,\"max_ns\":%llu",
            (unsigned long long)h->n, (unsigned long long)h->sum, (unsigned long long)lathist_quantile(h, 0.5),
            (unsigned long long)lathist_quantile(h, 0.9), (unsigned long long)lathist_quantile(h, 0.99),
            (unsigned long long)h->max);
}

void report_json_syscalls(struct report *r, FILE *out)
{
    const struct sysrow *t = &r->systotal;
    if (!t->lat.n)
        return;
    if (r->nsys)
        qsort(r->sys, r->nsys, sizeof *r->sys, row_cmp);
    if (r->nproc)
        qsort(r->proc, r->nproc, sizeof *r->proc, row_cmp);
    fputs("{\"type\":\"syscalls\",", out);
    json_lat(out, &t->lat);
    fprintf(out, ",\"errors\":%llu,\"duration_ns\":%llu,\"syscalls\":[", (unsigned long long)t->errors,
            (unsigned long long)(t->last - t->first));
    for (size_t i = 0; i < r->nsys; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        report_json_str(out, r->str.v[r->sys[i].name]);
        fprintf(out, ",\"errors\":%llu,", (unsigned long long)r->sys[i].errors);
        json_lat(out, &r->sys[i].lat);
        fputc('}', out);
    }
    fputs("],\"processes\":[", out);
    for (size_t i = 0; i < r->nproc; i++) {
        const struct sysrow *s = &r->proc[i];
        fprintf(out, "%s{\"pid\":%d,\"comm\":", i ? "," : "", s->pid);
        report_json_str(out, r->str.v[s->name]);
        fprintf(out, ",\"errors\":%llu,\"duration_ns\":%llu,", (unsigned long long)s->errors,
                (unsigned long long)(s->last - s->first));
        json_lat(out, &s->lat);
        fputc('}', out);
    }
    fputs("]}\n", out);
}

/* ---- tracepoint events ------------------------------------------------------- */

static struct schedtask *task_of(struct report *r, int32_t tid)
{
    void *p = hashmap_get(&r->stmap, (uint32_t)tid, 0);
    if (p)
        return &r->st[(uintptr_t)p - 1];
    if (array_reserve(&r->st, &r->capst, r->nst + 1, sizeof *r->st, 64) < 0 ||
        hashmap_put(&r->stmap, (uint32_t)tid, 0, (void *)(uintptr_t)(r->nst + 1)) < 0)
        return NULL;
    struct schedtask *t = &r->st[r->nst++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    return t;
}

static int64_t field_int(const tpformat_event *ev, const char *name, const tr_record *rec)
{
    tpformat_field f;
    uint64_t v;
    if (!tpformat_field_find(ev, name, &f) ||
        tpformat_read(&f, rec->u.trace_event.flags, rec->u.trace_event.data, rec->u.trace_event.len, &v) < 0)
        return -1;
    return (int64_t)v;
}

/* The comm field name of the payload as a string id, or -1 (none), -2 out of memory. */
static int64_t field_comm(struct report *r, const tpformat_event *ev, const char *name, const tr_record *rec)
{
    tpformat_field f;
    const uint8_t *p;
    size_t n;
    if (!tpformat_field_find(ev, name, &f) ||
        tpformat_field_bytes(&f, rec->u.trace_event.flags, rec->u.trace_event.data, rec->u.trace_event.len, &p, &n) < 0)
        return -1;
    size_t l = strnlen((const char *)p, n);
    int64_t id = strtab_id(&r->str, (const char *)p, l);
    return id < 0 ? -2 : id;
}

/* The task tid, named by the payload's comm field (when it has one); NULL out of memory. */
static struct schedtask *task_named(struct report *r, const tpformat_event *ev, int64_t tid, const char *field,
                                    const tr_record *rec)
{
    struct schedtask *t = task_of(r, (int32_t)tid);
    int64_t c = field_comm(r, ev, field, rec);
    if (!t || c == -2)
        return NULL;
    if (c >= 0)
        t->comm = (uint32_t)c;
    return t;
}

static int sched_event(struct report *r, tpformat *tp, const char *name, const tr_record *rec)
{
    const tpformat_event *ev;
    if (!(ev = tpformat_event_of(tp, rec->u.trace_event.data, rec->u.trace_event.len)))
        return 0;
    uint64_t now = rec->time;
    if (!strcmp(name, "sched:sched_switch")) {
        int64_t prev = field_int(ev, "prev_pid", rec), next = field_int(ev, "next_pid", rec);
        int64_t state = field_int(ev, "prev_state", rec);
        r->sched_seen = 1;
        if (prev > 0) {
            struct schedtask *t = task_named(r, ev, prev, "prev_comm", rec);
            if (!t)
                return -1;
            if (t->in_since && now > t->in_since)
                t->runtime += now - t->in_since;
            t->in_since = 0;
            t->switches++;
            if (state == 0 && !t->ready_since) /* preempted: it waits in the run queue */
                t->ready_since = now;
        }
        if (next > 0) {
            struct schedtask *t = task_named(r, ev, next, "next_comm", rec);
            if (!t)
                return -1;
            t->in_since = now;
            if (t->ready_since && now >= t->ready_since) {
                uint64_t d = now - t->ready_since;
                t->delays++;
                t->delay_sum += d;
                if (d > t->delay_max || t->delays == 1)
                    t->delay_max = d, t->max_at = t->ready_since;
            }
            t->ready_since = 0;
        }
    } else if (!strcmp(name, "sched:sched_wakeup") || !strcmp(name, "sched:sched_waking") ||
               !strcmp(name, "sched:sched_wakeup_new")) {
        int64_t pid = field_int(ev, "pid", rec);
        if (pid > 0) {
            struct schedtask *t = task_named(r, ev, pid, "comm", rec);
            if (!t)
                return -1;
            if (!t->in_since && !t->ready_since)
                t->ready_since = now;
        }
    }
    return 0;
}

int report_trace_event(struct report *r, tr_reader *rd, tpformat *tp, const tr_record *rec, const char *comm)
{
    const tr_event_def *ev = tr_reader_event(rd, rec->u.trace_event.event);
    char name[256];
    snprintf(name, sizeof name, "%.*s", ev ? (int)ev->name_len : 15, ev ? ev->name : "[unknown event]");
    if (r->o.event && strcmp(r->o.event, name) && strncmp(name, "sched:", 6))
        return 0;
    int64_t nid = strtab_id(&r->str, name, strlen(name)), cid = strtab_id(&r->str, comm, strlen(comm));
    if (nid < 0 || cid < 0)
        return -1;
    if (!strncmp(name, "sched:sched_", 12)) {
        if (tpformat_use(tp, rd, rec->u.trace_event.flags) < 0 || sched_event(r, tp, name, rec) < 0)
            return -1;
    }
    if (r->o.event && strcmp(r->o.event, name))
        return 0;
    if (!report_wanted_comm(r, comm) || (r->o.npids && rec->pid < 0))
        return 0;
    for (size_t i = 0; i < r->o.npids; i++)
        if (r->o.pids[i] == rec->pid)
            goto wanted;
    if (r->o.npids)
        return 0;
wanted:
    r->events++;
    uint64_t a = (uint64_t)nid << 32 | (uint32_t)rec->tid;
    void *p = hashmap_get(&r->evmap, a, (uint64_t)cid);
    if (p) {
        r->ev[(uintptr_t)p - 1].n++;
        return 0;
    }
    if (array_reserve(&r->ev, &r->capev, r->nev + 1, sizeof *r->ev, 64) < 0 ||
        hashmap_put(&r->evmap, a, (uint64_t)cid, (void *)(uintptr_t)(r->nev + 1)) < 0)
        return -1;
    r->ev[r->nev++] = (struct evcount){.event = (uint32_t)nid, .comm = (uint32_t)cid, .tid = rec->tid, .n = 1};
    return 0;
}

static const struct report *ev_ctx;

static int ev_cmp(const void *a, const void *b)
{
    const struct evcount *x = a, *y = b;
    int c = strcmp(ev_ctx->str.v[x->event], ev_ctx->str.v[y->event]);
    if (c)
        return c;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static int task_cmp(const void *a, const void *b)
{
    const struct schedtask *x = a, *y = b;
    uint64_t ax = x->delays ? x->delay_sum / x->delays : 0, ay = y->delays ? y->delay_sum / y->delays : 0;
    if (ax != ay)
        return ax > ay ? -1 : 1;
    if (x->delay_max != y->delay_max)
        return x->delay_max > y->delay_max ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

static void print_latency(struct report *r, FILE *out)
{
    if (r->nst)
        qsort(r->st, r->nst, sizeof *r->st, task_cmp);
    fputs("\n -------------------------------------------------------------------------------------------------------"
          "------------------------------------\n", out);
    fputs("  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Max delay start  "
          "         | Max delay end          |\n", out);
    fputs(" -------------------------------------------------------------------------------------------------------"
          "------------------------------------\n", out);
    uint64_t all_runtime = 0, all_count = 0;
    for (size_t i = 0; i < r->nst; i++) {
        const struct schedtask *t = &r->st[i];
        if (!t->delays || !report_wanted_comm(r, r->str.v[t->comm]))
            continue;
        char task[512], s0[32], s1[32];
        int l = snprintf(task, sizeof task, "  %s:%d ", r->str.v[t->comm], t->tid);
        uint64_t end = t->max_at + t->delay_max;
        snprintf(s0, sizeof s0, "%llu.%06llu", (unsigned long long)(t->max_at / 1000000000),
                 (unsigned long long)(t->max_at % 1000000000 / 1000));
        snprintf(s1, sizeof s1, "%llu.%06llu", (unsigned long long)(end / 1000000000),
                 (unsigned long long)(end % 1000000000 / 1000));
        fprintf(out, "%s%*s|%11.3f ms |%9llu | avg:%8.3f ms | max:%8.3f ms | max start: %12s s | max end: %12s s\n",
                task, l < 24 ? 24 - l : 0, "", (double)t->runtime / 1e6, (unsigned long long)t->switches,
                (double)t->delay_sum / (double)t->delays / 1e6, (double)t->delay_max / 1e6, s0, s1);
        all_runtime += t->runtime;
        all_count += t->switches;
    }
    fputs(" -----------------------------------------------------------------------------------------------------------------\n", out);
    fprintf(out, "  TOTAL:                |%11.3f ms |%9llu |\n", (double)all_runtime / 1e6, (unsigned long long)all_count);
    fputs(" ---------------------------------------------------\n\n", out);
}

void report_print_events(struct report *r, FILE *out)
{
    if ((!r->events && !r->sched_seen) || (r->o.event && !r->events))
        return;
    ev_ctx = r;
    if (r->nev)
        qsort(r->ev, r->nev, sizeof *r->ev, ev_cmp);
    int wt = 15;
    for (size_t i = 0; i < r->nev; i++) {
        int l = 8 + (int)strlen(r->str.v[r->ev[i].comm]);
        wt = l > wt ? l : wt;
    }
    for (size_t i = 0; i < r->nev;) {
        uint32_t e = r->ev[i].event;
        uint64_t total = 0;
        size_t j = i;
        for (; j < r->nev && r->ev[j].event == e; j++)
            total += r->ev[j].n;
        fprintf(out, "# Event '%s': %llu events\n#\n# %8s  %7s  %s\n", r->str.v[e], (unsigned long long)total,
                "Overhead", "  Count", "    Tid:Command");
        fputs("# ........  .......  ...............\n#\n", out);
        for (; i < j; i++)
            fprintf(out, "  %7.2f%%  %7llu  %7d:%s\n", (double)r->ev[i].n * 100.0 / (double)total,
                    (unsigned long long)r->ev[i].n, r->ev[i].tid, r->str.v[r->ev[i].comm]);
        fputs("\n\n", out);
    }
    if (r->sched_seen)
        print_latency(r, out);
}

void report_json_events(struct report *r, FILE *out)
{
    if (!r->events && !r->sched_seen)
        return;
    ev_ctx = r;
    if (r->nev)
        qsort(r->ev, r->nev, sizeof *r->ev, ev_cmp);
    fputs("{\"type\":\"events\",\"counts\":[", out);
    for (size_t i = 0; i < r->nev; i++) {
        fputs(i ? ",{\"event\":" : "{\"event\":", out);
        report_json_str(out, r->str.v[r->ev[i].event]);
        fprintf(out, ",\"tid\":%d,\"comm\":", r->ev[i].tid);
        report_json_str(out, r->str.v[r->ev[i].comm]);
        fprintf(out, ",\"count\":%llu}", (unsigned long long)r->ev[i].n);
    }
    fputs("],\"latency\":[", out);
    if (r->nst)
        qsort(r->st, r->nst, sizeof *r->st, task_cmp);
    int first = 1;
    for (size_t i = 0; i < r->nst; i++) {
        const struct schedtask *t = &r->st[i];
        if (!t->delays || !report_wanted_comm(r, r->str.v[t->comm]))
            continue;
        fprintf(out, "%s{\"tid\":%d,\"comm\":", first ? "" : ",", t->tid);
        report_json_str(out, r->str.v[t->comm]);
        fprintf(out, ",\"runtime_ns\":%llu,\"switches\":%llu,\"delays\":%llu,\"avg_delay_ns\":%llu,\"max_delay_ns\":%llu}",
                (unsigned long long)t->runtime, (unsigned long long)t->switches, (unsigned long long)t->delays,
                (unsigned long long)(t->delay_sum / t->delays), (unsigned long long)t->delay_max);
        first = 0;
    }
    fputs("]}\n", out);
}

void report_events_free(struct report *r)
{
    for (size_t i = 0; i < r->nsys; i++)
        lathist_free(&r->sys[i].lat);
    for (size_t i = 0; i < r->nproc; i++)
        lathist_free(&r->proc[i].lat);
    lathist_free(&r->systotal.lat);
    free(r->sys);
    free(r->proc);
    hashmap_free(&r->sysmap);
    hashmap_free(&r->procmap);
    free(r->ev);
    hashmap_free(&r->evmap);
    free(r->st);
    hashmap_free(&r->stmap);
}
