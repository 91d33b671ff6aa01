/* offcpu.c - off-CPU waits from sched_switch (offcpu.h). */
#include "offcpu.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "smap.h"
#include "tpformat.h"

/* A task off the CPU since time, its wait named cookie; woken: when a
 * wakeup of it was seen (0 none). */
struct pending { uint64_t time, woken, cookie; int32_t tid; int used; };

struct offcpu {
    offcpu_end_fn end;
    void *ctx;
    tpformat *tp;
    struct smap tids;          /* tid -> index + 1 into pend */
    struct pending *pend;
    size_t npend, cap_pend;
    /* sched_switch payload layout, from the stream's formats */
    tpformat_field sw_next, sw_prev, sw_state;
    int sw_known, sw_has_state;
    /* the "pid" field of sched_wakeup, sched_waking, sched_wakeup_new: 1 known, 0 unknown,
     * -1 not looked up */
    tpformat_field wk[3];
    int wk_known[3];
};

offcpu *offcpu_new(offcpu_end_fn end, void *ctx)
{
    offcpu *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    if (tpformat_new(&o->tp) < 0) {
        free(o);
        return NULL;
    }
    o->end = end;
    o->ctx = ctx;
    smap_init(&o->tids);
    for (int i = 0; i < 3; i++)
        o->wk_known[i] = -1;
    return o;
}

void offcpu_free(offcpu *o)
{
    if (!o)
        return;
    tpformat_free(o->tp);
    smap_free(&o->tids);
    free(o->pend);
    free(o);
}

void offcpu_reset(offcpu *o)
{
    o->sw_known = 0;
    tpformat_reset(o->tp);
    for (int i = 0; i < 3; i++)
        o->wk_known[i] = -1;
    smap_free(&o->tids);
    smap_init(&o->tids);
    o->npend = 0;
}

/* The integer field f of a payload, -1 when it cannot be read. */
static int64_t payload_int(const tpformat_field *f, uint32_t raw_flags, const uint8_t *data, size_t len)
{
    uint64_t v;
    return tpformat_read(f, raw_flags, data, len, &v) < 0 ? -1 : (int64_t)v;
}

int offcpu_switch(offcpu *o, tr_reader *r, uint32_t raw_flags, const uint8_t *data, size_t len,
                  offcpu_switch_info *sw)
{
    *sw = (offcpu_switch_info){-1, -1, -1};
    if (!o->sw_known) {
        const tpformat_event *ev = NULL;
        if (tpformat_use(o->tp, r, raw_flags) >= 0)
            ev = tpformat_event_by_name(o->tp, "sched", "sched_switch");
        o->sw_known = ev && tpformat_field_find(ev, "next_pid", &o->sw_next) &&
                      tpformat_field_find(ev, "prev_pid", &o->sw_prev);
        o->sw_has_state = ev && tpformat_field_find(ev, "prev_state", &o->sw_state);
        if (!o->sw_known)
            return 0;
    }
    sw->prev = (int32_t)payload_int(&o->sw_prev, raw_flags, data, len);
    sw->next = (int32_t)payload_int(&o->sw_next, raw_flags, data, len);
    if (o->sw_has_state)
        sw->state = payload_int(&o->sw_state, raw_flags, data, len);
    return 1;
}

int offcpu_layout_known(const offcpu *o)
{
    return o->sw_known;
}

int offcpu_waits(int32_t prev, int64_t state)
{
    return prev > 0 && !(state > 0 && (state & 0x30));
}

static struct pending *pending_of(offcpu *o, int32_t tid, int create)
{
    struct smap_entry *e = create ? smap_get(&o->tids, &tid, sizeof tid) : smap_find(&o->tids, &tid, sizeof tid);
    if (!e)
        return NULL;
    if (!e->n) {
        if (array_reserve(&o->pend, &o->cap_pend, o->npend + 1, sizeof *o->pend, 64) < 0)
            return NULL;
        memset(&o->pend[o->npend], 0, sizeof *o->pend);
        e->n = ++o->npend;
    }
    return &o->pend[e->n - 1];
}

int offcpu_switch_out(offcpu *o, int32_t tid, uint64_t time, uint64_t cookie)
{
    struct pending *p = pending_of(o, tid, 1);
    if (!p)
        return TR_E_NOMEM;
    *p = (struct pending){.time = time, .cookie = cookie, .tid = tid, .used = 1};
    return 0;
}

static void end_wait(offcpu *o, struct pending *p, uint64_t time)
{
    p->used = 0;
    o->end(o->ctx, p->cookie, p->tid, p->time, time > p->time ? time : p->time);
}

void offcpu_switch_in(offcpu *o, int32_t tid, uint64_t time)
{
    struct pending *p = tid > 0 ? pending_of(o, tid, 0) : NULL;
    if (p && p->used)
        end_wait(o, p, time);
}

void offcpu_running(offcpu *o, int32_t tid, uint64_t time)
{
    struct pending *p = pending_of(o, tid, 0);
    if (p && p->used)
        end_wait(o, p, p->woken && p->woken < time ? p->woken : time);
}

void offcpu_wakeup(offcpu *o, tr_reader *r, const char *name, size_t nl, const uint8_t *data,
                   size_t len, uint32_t raw_flags, uint64_t time)
{
    static const char *const events[3] = {"sched_wakeup", "sched_waking", "sched_wakeup_new"};
    int i = 0;
    if (nl < 6 || memcmp(name, "sched:", 6))
        return;
    while (i < 3 && (nl - 6 != strlen(events[i]) || memcmp(name + 6, events[i], nl - 6)))
        i++;
    if (i == 3)
        return;
    if (o->wk_known[i] < 0) {
        const tpformat_event *ev = NULL;
        if (tpformat_use(o->tp, r, raw_flags) >= 0)
            ev = tpformat_event_by_name(o->tp, "sched", events[i]);
        o->wk_known[i] = ev && tpformat_field_find(ev, "pid", &o->wk[i]);
    }
    int32_t pid = o->wk_known[i] ? (int32_t)payload_int(&o->wk[i], raw_flags, data, len) : -1;
    struct pending *p = pid > 0 ? pending_of(o, pid, 0) : NULL;
    if (p && p->used && !p->woken)
        p->woken = time;
}

const char *offcpu_state_name(int64_t state)
{
    static const char *const names[] = {"[off-cpu S]", "[off-cpu D]", "[off-cpu T]", "[off-cpu t]",
                                        "[off-cpu X]", "[off-cpu Z]", "[off-cpu P]", "[off-cpu I]"};
    if (state < 0) return "[off-cpu]";
    if ((state & 0xff) == 0) return "[off-cpu R]";
    for (int i = 0; i < 8; i++)
        if (state & (1 << i)) return names[i];
    return "[off-cpu]";
}
