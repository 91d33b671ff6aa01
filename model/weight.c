/* weight.c - records weighed by a field (weight.h). */
#include "weight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "tpformat.h"

enum { MAX_ITEMS = 8 };
enum op { OP_NONE, OP_MUL, OP_SHL_BY_FIELD, OP_SHL_FIELD };

/* One alternative of the expression: a field, scaled. */
struct item {
    char name[64];
    enum op op;
    uint64_t n;
};

/* What a record of one event or syscall weighs by, found at its first record. */
enum { SLOT_NONE, SLOT_NOT_INT, SLOT_FIELD, SLOT_ARG, SLOT_RET, SLOT_BRK };
struct slot {
    int state;
    int item;            /* the alternative found */
    int arg;             /* SLOT_ARG: the argument's index */
    int brk;             /* a brk syscall (its break is followed whatever the expression) */
    tpformat_field f;    /* SLOT_FIELD */
};

struct weight {
    struct item items[MAX_ITEMS];
    int nitems;
    tpformat *tp;
    hashmap slots;       /* (0, event id) or (1, syscall nr) -> struct slot */
    struct slot *last;   /* the slot of event last_id, weighed by its field: samples come in runs */
    uint32_t last_id;
    hashmap breaks;      /* pid -> the process's break */
    uint64_t growth;     /* the growth of the last brk observed */
    char why[1024];
};

/* The kernel's names of the memory syscalls' arguments (syscalls:sys_enter_NAME's fields). */
static const struct {
    const char *name;
    const char *args[6];
} sys_args[] = {
    {"mmap", {"addr", "len", "prot", "flags", "fd", "off"}},
    {"munmap", {"addr", "len"}},
    {"mremap", {"addr", "old_len", "new_len", "flags", "new_addr"}},
    {"brk", {"brk"}},
    {"mprotect", {"start", "len", "prot"}},
    {"pkey_mprotect", {"start", "len", "prot", "pkey"}},
    {"madvise", {"start", "len_in", "behavior"}},
    {"mlock", {"start", "len"}},
    {"mlock2", {"start", "len", "flags"}},
    {"munlock", {"start", "len"}},
    {"msync", {"start", "len", "flags"}},
    {"mincore", {"start", "len", "vec"}},
    {"mbind", {"start", "len", "mode", "nmask", "maxnode", "flags"}},
    {"remap_file_pages", {"start", "size", "prot", "pgoff", "flags"}},
};

static int is_name(const char *s, size_t n)
{
    if (n == 0 || n >= sizeof ((struct item *)0)->name || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

static int is_number(const char *s, size_t n, uint64_t *v)
{
    char buf[32], *end;
    if (n == 0 || n >= sizeof buf || s[0] < '0' || s[0] > '9')
        return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    *v = strtoull(buf, &end, 0);
    return *end == 0;
}

/* One alternative, s[0..n): FIELD, FIELD*N, N*FIELD, FIELD<<N, N<<FIELD. */
static int parse_item(const char *s, size_t n, struct item *it)
{
    const char *op = NULL;
    size_t oplen = 0;
    for (size_t i = 0; i < n && !op; i++)
        if (s[i] == '*')
            op = s + i, oplen = 1;
        else if (s[i] == '<' && i + 1 < n && s[i + 1] == '<')
            op = s + i, oplen = 2;
    const char *name = s, *num = NULL;
    size_t nl = n, numl = 0;
    if (op) {
        const char *a = s, *b = op + oplen;
        size_t al = (size_t)(op - s), bl = n - al - oplen;
        int field_first = is_name(a, al);
        name = field_first ? a : b, nl = field_first ? al : bl;
        num = field_first ? b : a, numl = field_first ? bl : al;
        it->op = oplen == 1 ? OP_MUL : field_first ? OP_SHL_FIELD : OP_SHL_BY_FIELD;
        if (!is_number(num, numl, &it->n) || (it->op == OP_SHL_FIELD && it->n >= 64))
            return -1;
    }
    if (!is_name(name, nl))
        return -1;
    memcpy(it->name, name, nl);
    it->name[nl] = 0;
    return 0;
}

int weight_new(const char *spec, weight **out)
{
    weight *w = calloc(1, sizeof *w);
    if (!w || tpformat_new(&w->tp) < 0) {
        weight_free(w);
        return TR_E_NOMEM;
    }
    for (const char *s = spec;; s++) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (w->nitems == MAX_ITEMS || parse_item(s, n, &w->items[w->nitems++]) < 0) {
            weight_free(w);
            return TR_E_INVAL;
        }
        if (!e)
            break;
        s = e;
    }
    *out = w;
    return 0;
}

int weight_valid(const char *spec)
{
    weight *w;
    int rc = weight_new(spec, &w);
    weight_free(rc == 0 ? w : NULL);
    return rc != TR_E_INVAL;
}

static void forget(weight *w)
{
    size_t i = 0;
    for (hashmap_slot *s; (s = hashmap_next(&w->slots, &i));)
        free(s->val);
    hashmap_free(&w->slots);
    w->last = NULL;
    hashmap_free(&w->breaks);
    if (w->tp)
        tpformat_reset(w->tp);
}

void weight_free(weight *w)
{
    if (!w)
        return;
    forget(w);
    tpformat_free(w->tp);
    free(w);
}

const char *weight_why(const weight *w)
{
    return w->why;
}

static int sys_index(const char *name)
{
    for (size_t i = 0; name && i < sizeof sys_args / sizeof sys_args[0]; i++)
        if (!strcmp(sys_args[i].name, name))
            return (int)i;
    return -1;
}

/* The slot of a syscall number, made at its first record. */
static struct slot *sys_slot(weight *w, tr_reader *r, uint32_t nr)
{
    struct slot *s = hashmap_get(&w->slots, 1, nr);
    if (s)
        return s;
    if (!(s = calloc(1, sizeof *s)) || hashmap_put(&w->slots, 1, nr, s) < 0) {
        free(s);
        return NULL;
    }
    int k = sys_index(tr_reader_syscall_name(r, NULL, nr));
    s->brk = k >= 0 && !strcmp(sys_args[k].name, "brk");
    for (int i = 0; i < w->nitems && s->state == SLOT_NONE; i++) {
        if (!strcmp(w->items[i].name, "ret"))
            s->state = SLOT_RET, s->item = i;
        for (int a = 0; k >= 0 && a < 6 && sys_args[k].args[a] && s->state == SLOT_NONE; a++)
            if (!strcmp(w->items[i].name, sys_args[k].args[a]))
                s->state = s->brk ? SLOT_BRK : SLOT_ARG, s->item = i, s->arg = a;
    }
    return s;
}

/* The process pid's break, 0 unknown. */
static uint64_t brk_of(weight *w, int32_t pid)
{
    return (uint64_t)(uintptr_t)hashmap_get(&w->breaks, (uint32_t)pid, 0);
}

static int set_brk(weight *w, int32_t pid, uint64_t brk)
{
    if (!brk) {
        hashmap_del(&w->breaks, (uint32_t)pid, 0);
        return 0;
    }
    return hashmap_put(&w->breaks, (uint32_t)pid, 0, (void *)(uintptr_t)brk);
}

int weight_observe(weight *w, tr_reader *r, const tr_record *rec)
{
    switch (rec->type) {
    case TR_REC_STREAM_START:
        forget(w);
        return 0;
    case TR_REC_FORK: /* a new process starts with its parent's break */
        return rec->pid != rec->u.fork.ppid ? set_brk(w, rec->pid, brk_of(w, rec->u.fork.ppid)) : 0;
    case TR_REC_COMM:
        return rec->u.comm.exec ? set_brk(w, rec->pid, 0) : 0;
    case TR_REC_EXIT:
        return rec->u.exit.flags & TR_EXITF_THREAD ? 0 : set_brk(w, rec->pid, 0);
    case TR_REC_SYSCALL: {
        const struct slot *s = sys_slot(w, r, rec->u.syscall.nr);
        if (!s)
            return TR_E_NOMEM;
        if (!s->brk || !(rec->u.syscall.flags & TR_SYSF_HAS_RET))
            return 0;
        /* brk returns the new break, the old one when it fails */
        uint64_t before = brk_of(w, rec->pid), now = (uint64_t)rec->u.syscall.ret;
        w->growth = before && now > before ? now - before : 0;
        return set_brk(w, rec->pid, now);
    }
    default:
        return 0;
    }
}

/* The value v of item it, scaled; negative values of signed fields weigh 0. */
static uint64_t scaled(const struct item *it, uint64_t v)
{
    switch (it->op) {
    case OP_MUL:
        return it->n && v > UINT64_MAX / it->n ? UINT64_MAX : v * it->n;
    case OP_SHL_FIELD:
        return v > UINT64_MAX >> it->n ? UINT64_MAX : v << it->n;
    case OP_SHL_BY_FIELD:
        return v >= 64 || it->n > UINT64_MAX >> v ? UINT64_MAX : it->n << v;
    default:
        return v;
    }
}

/* "'a' or 'b'": the fields the expression names */
static void names(const weight *w, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < w->nitems && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s'%s'", i ? " or " : "", w->items[i].name);
}

/* Why the first record not weighed was not: a syscall's */
static void syscall_why(weight *w, tr_reader *r, uint32_t nr)
{
    char want[256], have[128] = "only ret: arguments are named for the memory syscalls";
    const char *name = tr_reader_syscall_name(r, NULL, nr);
    int k = sys_index(name);
    names(w, want, sizeof want);
    if (k >= 0) {
        size_t n = (size_t)snprintf(have, sizeof have, "its arguments:");
        for (int a = 0; a < 6 && sys_args[k].args[a]; a++)
            n += (size_t)snprintf(have + n, sizeof have - n, " %s", sys_args[k].args[a]);
        snprintf(have + n, sizeof have - n, " ret");
    }
    if (name)
        snprintf(w->why, sizeof w->why, "syscall '%s' has no argument %s (%s)", name, want, have);
    else
        snprintf(w->why, sizeof w->why, "syscall %u has no argument %s (not in the trace's table)", nr, want);
}

static void event_why(weight *w, const tr_event_def *def, const tpformat_event *ev, const struct slot *s)
{
    char want[256], have[256] = "";
    names(w, want, sizeof want);
    int nl = def ? (int)(def->name_len < 200 ? def->name_len : 200) : 15;
    const char *name = def ? def->name : "[unknown event]";
    if (!ev) {
        snprintf(w->why, sizeof w->why, "event '%.*s' has no field %s: it has no tracepoint format in the "
                 "trace (--weight weighs a tracepoint's or a probe's fields)", nl, name, want);
        return;
    }
    if (s->state == SLOT_NOT_INT) {
        snprintf(w->why, sizeof w->why, "field '%s' of event '%.*s' is not an integer", w->items[s->item].name,
                 nl, name);
        return;
    }
    tpformat_field f;
    size_t n = 0;
    for (size_t i = 0; tpformat_field_at(ev, i, &f) && n < sizeof have; i++)
        n += (size_t)snprintf(have + n, sizeof have - n, "%s%s", i ? " " : "", f.name);
    snprintf(w->why, sizeof w->why, "event '%.*s' has no field %s (its fields: %s)", nl, name, want, have);
}

/* The slot of an event of r's stream, NULL out of memory.  Looked for again
 * while its format lacks the field: a format may come later in the stream. */
static struct slot *event_slot(weight *w, tr_reader *r, uint32_t id, uint32_t raw_flags)
{
    if (w->last && w->last_id == id)
        return w->last;
    const tr_event_def *def = tr_reader_event(r, id);
    struct slot *s = hashmap_get(&w->slots, 0, id);
    if (s && s->state != SLOT_NONE)
        return s;
    if (tpformat_use(w->tp, r, raw_flags) < 0)
        return NULL;
    const tpformat_event *ev = def ? tpformat_event_by_def(w->tp, def) : NULL;
    if (!s && (!(s = calloc(1, sizeof *s)) || hashmap_put(&w->slots, 0, id, s) < 0)) {
        free(s);
        return NULL;
    }
    for (int i = 0; ev && i < w->nitems && s->state == SLOT_NONE; i++) {
        if (!tpformat_field_find(ev, w->items[i].name, &s->f))
            continue;
        s->item = i;
        int size = s->f.size;
        int integer = !(s->f.flags & (TPF_ARRAY | TPF_STRING | TPF_DYNAMIC)) &&
                      (size == 1 || size == 2 || size == 4 || size == 8);
        s->state = integer ? SLOT_FIELD : SLOT_NOT_INT;
    }
    if (s->state == SLOT_FIELD)
        w->last = s, w->last_id = id;
    else if (!w->why[0])
        event_why(w, def, ev, s);
    return s;
}

int weight_of(weight *w, tr_reader *r, const tr_record *rec, uint64_t *v)
{
    *v = 0;
    if (rec->type == TR_REC_SYSCALL) {
        const struct slot *s = sys_slot(w, r, rec->u.syscall.nr);
        if (!s)
            return TR_E_NOMEM;
        if (s->state == SLOT_NONE) {
            if (!w->why[0])
                syscall_why(w, r, rec->u.syscall.nr);
            return 0;
        }
        int64_t ret = rec->u.syscall.ret;
        if (!(rec->u.syscall.flags & TR_SYSF_HAS_RET) || (ret < 0 && ret >= -4095))
            return 1; /* failed, or never returned */
        uint64_t x = s->state == SLOT_RET   ? (uint64_t)ret
                     : s->state == SLOT_BRK ? w->growth
                                            : rec->u.syscall.args[s->arg];
        *v = scaled(&w->items[s->item], x);
        return 1;
    }
    uint32_t id, flags;
    const uint8_t *data;
    size_t len;
    if (rec->type == TR_REC_SAMPLE)
        id = rec->u.sample.event, flags = rec->u.sample.raw_flags, data = rec->u.sample.raw,
        len = rec->u.sample.raw_len;
    else if (rec->type == TR_REC_TRACE_EVENT)
        id = rec->u.trace_event.event, flags = rec->u.trace_event.flags, data = rec->u.trace_event.data,
        len = rec->u.trace_event.len;
    else
        return 0;
    const struct slot *s = event_slot(w, r, id, flags);
    if (!s)
        return TR_E_NOMEM;
    if (s->state != SLOT_FIELD)
        return 0;
    uint64_t x;
    if (tpformat_read(&s->f, flags, data, len, &x) < 0 || ((s->f.flags & TPF_SIGNED) && (int64_t)x < 0))
        return 1; /* a payload too short for it, a negative value: 0 */
    *v = scaled(&w->items[s->item], x);
    return 1;
}
