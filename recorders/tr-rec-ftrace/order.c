/* order.c - merge the per-CPU event streams into one in time order.
 *
 * Each CPU's ring buffer is in time order, the CPUs are not with each other.  The sub-buffers
 * read from a CPU wait in its queue, with a kbuffer on the oldest, until no CPU can still
 * deliver an earlier event: a CPU whose queue is empty bounds the others by the time of the
 * last thing known about it (its latest event, or the moment it was read empty).  Events are
 * handed out from the sub-buffers themselves (no copy); a sub-buffer is done when its last
 * event is. */
#include <stdlib.h>
#include <string.h>

#include <kbuffer.h>

#include "ftrace.h"

enum { NONE, LOSS, EVENT };

struct cpuq {
    struct ft_item *head, *tail; /* head: the sub-buffer being handed out */
    struct kbuffer *kb;
    int loaded;        /* head is loaded in kb */
    int cur;           /* NONE, or what cur_* hold */
    uint64_t cur_ts;
    void *cur_data;
    int cur_len;
    long long lost;    /* a loss to hand out before the loaded sub-buffer's first event */
    uint64_t bound;    /* what this CPU delivers from now on is later than this */
    uint64_t last;     /* time of the latest entry handed out */
    int online;
};

struct ft_order {
    int ncpus, long_size;
    size_t subbuf_size;
    struct cpuq *cpu;
    struct ft_item *done, *done_tail;
    uint64_t corrupt;
};

struct ft_order *ft_order_new(int ncpus, int long_size, int big_endian, size_t subbuf_size)
{
    struct ft_order *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->cpu = calloc((size_t)ncpus, sizeof *o->cpu);
    o->ncpus = ncpus;
    o->long_size = long_size;
    o->subbuf_size = subbuf_size;
    for (int i = 0; o->cpu && i < ncpus; i++) {
        o->cpu[i].kb = kbuffer_alloc(long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
                                     big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
        if (!o->cpu[i].kb) {
            ft_order_free(o);
            return NULL;
        }
    }
    if (!o->cpu) {
        free(o);
        return NULL;
    }
    return o;
}

static void free_list(struct ft_item *l)
{
    while (l) {
        struct ft_item *n = l->next;
        free(l);
        l = n;
    }
}

void ft_order_free(struct ft_order *o)
{
    if (!o)
        return;
    for (int i = 0; o->cpu && i < o->ncpus; i++) {
        if (o->cpu[i].kb)
            kbuffer_free(o->cpu[i].kb);
        free_list(o->cpu[i].head);
    }
    free_list(o->done);
    free(o->cpu);
    free(o);
}

void ft_order_online(struct ft_order *o, int cpu)
{
    if (cpu >= 0 && cpu < o->ncpus)
        o->cpu[cpu].online = 1;
}

void ft_order_add(struct ft_order *o, struct ft_item *it)
{
    struct cpuq *c = &o->cpu[it->cpu];
    it->next = NULL;
    if (c->tail)
        c->tail->next = it;
    else
        c->head = it;
    c->tail = it;
}

void ft_order_bound(struct ft_order *o, int cpu, uint64_t t)
{
    if (cpu >= 0 && cpu < o->ncpus && t > o->cpu[cpu].bound)
        o->cpu[cpu].bound = t;
}

static void retire_head(struct ft_order *o, struct cpuq *c)
{
    struct ft_item *it = c->head;
    c->head = it->next;
    if (!c->head)
        c->tail = NULL;
    it->next = NULL;
    if (o->done_tail)
        o->done_tail->next = it;
    else
        o->done = it;
    o->done_tail = it;
    c->loaded = 0;
}

static void set_event(struct cpuq *c, void *data, unsigned long long ts)
{
    c->cur = EVENT;
    c->cur_data = data;
    c->cur_len = kbuffer_event_size(c->kb);
    c->cur_ts = ts;
}

/* Make c->cur the CPU's next entry if it has one; returns c->cur. */
static int peek(struct ft_order *o, struct cpuq *c)
{
    while (c->cur == NONE && c->head) {
        if (!c->loaded) {
            long long missed;
            if (ft_subbuf_check(c->head->data, o->subbuf_size, o->long_size, &missed) < 0 ||
                kbuffer_load_subbuffer(c->kb, c->head->data) < 0) {
                o->corrupt++;
                retire_head(o, c);
                continue;
            }
            c->loaded = 1;
            unsigned long long ts;
            void *data = kbuffer_read_event(c->kb, &ts);
            if (missed) {
                /* the loss goes first, at the time of what follows it */
                c->cur = LOSS;
                c->lost = missed;
                c->cur_ts = data ? ts : kbuffer_timestamp(c->kb);
                c->cur_data = data; /* the event after the loss, if any */
            } else if (data) {
                set_event(c, data, ts);
            } else {
                retire_head(o, c);
            }
            continue;
        }
        /* loaded with nothing current: the last event was handed out */
        unsigned long long ts;
        void *data = kbuffer_next_event(c->kb, &ts);
        if (data)
            set_event(c, data, ts);
        else
            retire_head(o, c);
    }
    if (c->cur != NONE) {
        /* keep each CPU in order (a sub-buffer's time can precede the last event) */
        if (c->cur_ts < c->last)
            c->cur_ts = c->last;
    }
    return c->cur;
}

/* The current entry was handed out: go past it. */
static void consume(struct cpuq *c)
{
    c->last = c->cur_ts;
    if (c->cur_ts > c->bound)
        c->bound = c->cur_ts;
    if (c->cur == LOSS && c->cur_data) {
        /* the sub-buffer's first event, read when it was loaded */
        unsigned long long ts = kbuffer_timestamp(c->kb);
        set_event(c, c->cur_data, ts);
        return;
    }
    c->cur = NONE;
}

int ft_order_release(struct ft_order *o, int final, ft_order_emit emit, void *ctx)
{
    uint64_t horizon = UINT64_MAX;
    if (!final)
        for (int i = 0; i < o->ncpus; i++) {
            struct cpuq *c = &o->cpu[i];
            if (c->online && peek(o, c) == NONE && c->bound < horizon)
                horizon = c->bound;
        }
    int n = 0;
    for (;;) {
        struct cpuq *best = NULL;
        int best_cpu = -1;
        for (int i = 0; i < o->ncpus; i++) {
            struct cpuq *c = &o->cpu[i];
            if (peek(o, c) != NONE && (!best || c->cur_ts < best->cur_ts)) {
                best = c;
                best_cpu = i;
            }
        }
        if (!best || best->cur_ts > horizon)
            return n;
        int rc = best->cur == EVENT
                     ? emit(ctx, best_cpu, best->cur_ts, best->cur_data, (size_t)best->cur_len, 0)
                     : emit(ctx, best_cpu, best->cur_ts, NULL, 0, best->lost);
        if (rc < 0)
            return rc;
        consume(best);
        n++;
        /* an emptied queue now bounds the others */
        if (!final && peek(o, best) == NONE && best->bound < horizon)
            horizon = best->bound;
    }
}

struct ft_item *ft_order_done(struct ft_order *o)
{
    struct ft_item *l = o->done;
    o->done = o->done_tail = NULL;
    return l;
}

uint64_t ft_order_corrupt(const struct ft_order *o) { return o->corrupt; }
