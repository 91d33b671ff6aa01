/* export.c - what tr-export's formats share (export.h). */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "json.h"
#include "keys.h"

int exp_frames(struct exp *x, const tr_record *rec, const sym_frame **fr)
{
    size_t n = 0;
    if (sym_resolve_stack(x->sym, x->r, rec, fr, &n) < 0) {
        x->unresolved++;
        return 0;
    }
    if (!x->no_inline)
        return (int)n;
    if (array_reserve(&x->frames, &x->cap_frames, n + 1, sizeof *x->frames, 64) < 0)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!((*fr)[i].flags & TR_FRAME_INLINE))
            x->frames[k++] = (*fr)[i];
    *fr = x->frames;
    return (int)k;
}

const char *exp_comm(const struct exp *x, int32_t tid)
{
    const char *c = procs_comm(x->procs, tid);
    return c ? c : "-";
}

const char *exp_event(struct exp *x, uint32_t id, const tr_event_def **def)
{
    const tr_event_def *ev = tr_reader_event(x->r, id);
    if (def)
        *def = ev;
    return ev ? ev->name : "[unknown event]";
}

int exp_period_is_ns(const tr_event_def *def)
{
    /* by config, not name: perf names events with their modifiers ("cpu-clock/period=1000/") */
    return def && def->kind == TR_EV_SOFTWARE &&
           (def->config == PERF_COUNT_SW_CPU_CLOCK || def->config == PERF_COUNT_SW_TASK_CLOCK);
}

static int is_switch(const char *name)
{
    return !strcmp(name, "sched:sched_switch");
}

int exp_offcpu(struct exp *x, offcpu *o, const tr_record *rec, offcpu_switch_info *sw)
{
    switch (rec->type) {
    case TR_REC_STREAM_START:
        offcpu_reset(o);
        return 0;
    case TR_REC_EXIT:
        offcpu_running(o, rec->tid, rec->time); /* it ran until its exit */
        return 0;
    case TR_REC_SWITCH:
        if (!(rec->u.sw.flags & TR_SWF_OUT))
            offcpu_switch_in(o, rec->tid, rec->time); /* a traced thread's switch-in (tr-rec-perf) */
        return 0;
    case TR_REC_SAMPLE: {
        const char *name = exp_event(x, rec->u.sample.event, NULL);
        const uint8_t *d = rec->u.sample.raw;
        size_t n = rec->u.sample.raw_len;
        uint32_t fl = rec->u.sample.raw_flags;
        if (!is_switch(name)) {
            offcpu_running(o, rec->tid, rec->time);
            offcpu_wakeup(o, x->r, name, strlen(name), d, n, fl, rec->time);
            return 0;
        }
        /* the sample's thread is the one switching out, with its stack */
        offcpu_switch(o, x->r, fl, d, n, sw);
        offcpu_switch_in(o, sw->next, rec->time);
        offcpu_running(o, rec->tid, rec->time);
        sw->prev = rec->tid;
        return offcpu_waits(rec->tid, sw->state);
    }
    case TR_REC_TRACE_EVENT: {
        const char *name = exp_event(x, rec->u.trace_event.event, NULL);
        const uint8_t *d = rec->u.trace_event.data;
        size_t n = rec->u.trace_event.len;
        uint32_t fl = rec->u.trace_event.flags;
        if (rec->tid > 0)
            offcpu_running(o, rec->tid, rec->time);
        if (!is_switch(name)) {
            offcpu_wakeup(o, x->r, name, strlen(name), d, n, fl, rec->time);
            return 0;
        }
        if (!offcpu_switch(o, x->r, fl, d, n, sw))
            return 0;
        offcpu_switch_in(o, sw->next, rec->time);
        return offcpu_waits(sw->prev, sw->state);
    }
    default:
        return 0;
    }
}

const char *exp_call_name(struct exp *x, const tr_record *rec, char *buf, size_t size)
{
    const char *name = NULL;
    if (rec->type == TR_REC_LIBCALL) {
        size_t len;
        name = tr_reader_string(x->r, rec->u.libcall.func, &len);
        if (name)
            snprintf(buf, size, "%.*s", (int)len, name), name = buf;
    } else {
        name = tr_reader_syscall_name(x->r, NULL, rec->u.syscall.nr);
    }
    if (!name)
        snprintf(buf, size, rec->type == TR_REC_LIBCALL ? "[unknown]" : "syscall_%u", rec->u.syscall.nr), name = buf;
    return name;
}

uint64_t exp_wall_ns(struct exp *x, uint64_t t)
{
    const char *mono = tr_reader_meta(x->r, META_TIME_MONOTONIC_NS);
    const char *real = tr_reader_meta(x->r, META_TIME_REALTIME_NS);
    if (!mono || !real)
        return 0;
    return strtoull(real, NULL, 10) + (t - strtoull(mono, NULL, 10));
}

void exp_us(FILE *f, uint64_t ns)
{
    fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

void exp_json(FILE *f, const char *s)
{
    fputc('"', f);
    json_str(f, s, strlen(s));
    fputc('"', f);
}

int exp_copy(FILE *out, FILE *tmp)
{
    char buf[1 << 16];
    size_t n;
    if (fflush(tmp) != 0 || fseek(tmp, 0, SEEK_SET) != 0)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, tmp)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            return -1;
    return ferror(tmp) ? (errno = EIO, -1) : 0;
}
