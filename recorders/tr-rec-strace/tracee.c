/* tracee.c - tracees by tid, in the model's hash map (see tracee.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "tracee.h"

struct tracee *tracee_find(struct tracee_table *t, pid_t tid)
{
    if (tid <= 0)
        return NULL;
    return hashmap_get(&t->map, (uint64_t)tid, 0);
}

struct tracee *tracee_add(struct tracee_table *t, pid_t tid)
{
    struct tracee *tr = tracee_find(t, tid);
    if (tr)
        return tr;
    if (tid <= 0 || !(tr = calloc(1, sizeof *tr)))
        return NULL;
    if (hashmap_put(&t->map, (uint64_t)tid, 0, tr) < 0) {
        free(tr);
        return NULL;
    }
    tr->tid = tid;
    tr->tgid = tid;
    t->count++;
    return tr;
}

void tracee_remove(struct tracee_table *t, pid_t tid)
{
    struct tracee *tr = tracee_find(t, tid);
    if (!tr)
        return;
    hashmap_del(&t->map, (uint64_t)tid, 0);
    free(tr->buf);
    free(tr);
    t->count--;
}

struct tracee *tracee_next(const struct tracee_table *t, size_t *i)
{
    hashmap_slot *s = hashmap_next(&t->map, i);
    return s ? s->val : NULL;
}

void tracee_table_free(struct tracee_table *t)
{
    size_t i = 0;
    for (struct tracee *tr; (tr = tracee_next(t, &i));) {
        free(tr->buf);
        free(tr);
    }
    hashmap_free(&t->map);
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
    if (array_reserve(&tr->buf, &tr->buf_cap, tr->buf_len + n, 1, 4096) < 0)
        return NULL;
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
