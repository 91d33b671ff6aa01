/* tracee.c - tracees by tid: open addressing with linear probing. */
#include <stdlib.h>
#include <string.h>

#include "tracee.h"

static size_t slot_of(const struct tracee_table *t, pid_t tid)
{
    return ((size_t)tid * 2654435761u) & (t->cap - 1);
}

struct tracee *tracee_find(struct tracee_table *t, pid_t tid)
{
    if (!t->cap || tid <= 0)
        return NULL;
    for (size_t i = slot_of(t, tid), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
        if (t->slots[i].tid == tid)
            return &t->slots[i];
        if (t->slots[i].tid == 0)
            return NULL;
    }
    return NULL;
}

static int grow(struct tracee_table *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    struct tracee *ns = calloc(ncap, sizeof *ns), *old = t->slots;
    if (!ns)
        return -1;
    size_t ocap = t->cap;
    t->slots = ns;
    t->cap = ncap;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].tid <= 0)
            continue;
        size_t j = slot_of(t, old[i].tid);
        while (ns[j].tid)
            j = (j + 1) & (ncap - 1);
        ns[j] = old[i];
    }
    free(old);
    t->used = t->count;
    return 0;
}

struct tracee *tracee_add(struct tracee_table *t, pid_t tid)
{
    struct tracee *tr = tracee_find(t, tid);
    if (tr)
        return tr;
    if ((t->used + 1) * 2 > t->cap && grow(t) < 0)
        return NULL;
    size_t i = slot_of(t, tid);
    while (t->slots[i].tid > 0)
        i = (i + 1) & (t->cap - 1);
    /* a tombstone (-1) or a free slot */
    if (t->slots[i].tid == 0)
        t->used++;
    memset(&t->slots[i], 0, sizeof t->slots[i]);
    t->slots[i].tid = tid;
    t->slots[i].tgid = tid;
    t->count++;
    return &t->slots[i];
}

void tracee_remove(struct tracee_table *t, pid_t tid)
{
    struct tracee *tr = tracee_find(t, tid);
    if (!tr)
        return;
    free(tr->buf);
    memset(tr, 0, sizeof *tr);
    tr->tid = -1; /* tombstone keeps probe chains intact */
    t->count--;
}

void tracee_table_free(struct tracee_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].tid > 0)
            free(t->slots[i].buf);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

void tracee_reset_caps(struct tracee *tr)
{
    tr->ncaps = 0;
    tr->buf_len = 0;
}

uint8_t *tracee_cap_begin(struct tracee *tr, size_t n)
{
    if (tr->ncaps >= TR_MAX_CAPTURES)
        return NULL;
    if (tr->buf_len + n > tr->buf_cap) {
        size_t ncap = tr->buf_cap ? tr->buf_cap : 4096;
        while (ncap < tr->buf_len + n)
            ncap *= 2;
        uint8_t *nb = realloc(tr->buf, ncap);
        if (!nb)
            return NULL;
        tr->buf = nb;
        tr->buf_cap = ncap;
    }
    return tr->buf + tr->buf_len;
}

void tracee_cap_end(struct tracee *tr, uint32_t arg, uint32_t kind, uint32_t flags,
                    const char *struct_name, size_t len)
{
    struct cap *c = &tr->caps[tr->ncaps++];
    c->arg = arg;
    c->kind = kind;
    c->flags = flags;
    c->struct_name = struct_name;
    c->off = tr->buf_len;
    c->len = len;
    tr->buf_len += len;
}
