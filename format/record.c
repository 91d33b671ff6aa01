/* record.c - record bodies: one encoder and one decoder per type, and the
 * type names.  Layouts are specified in spec/FORMAT.md, "Records". */
#include "internal.h"

/* The type names by type number: constant, so any number of threads read
 * them at once. */
static const char *const type_names[128] = {
    [TR_REC_STRING] = "string",       [TR_REC_FRAME] = "frame",
    [TR_REC_STACK] = "stack",         [TR_REC_EVENT_DEF] = "event",
    [TR_REC_STACK_RUN] = "stack_run",  [TR_REC_STACK_CHAIN] = "stack_chain",
    [TR_REC_META] = "meta",           [TR_REC_SYSCALL_TABLE] = "syscall_table",
    [TR_REC_BLOB] = "blob",           [TR_REC_COMM] = "comm",
    [TR_REC_FORK] = "fork",           [TR_REC_EXIT] = "exit",
    [TR_REC_MMAP] = "mmap",           [TR_REC_SWITCH] = "switch",
    [TR_REC_SAMPLE] = "sample",
    [TR_REC_COUNTER] = "counter",     [TR_REC_SYSCALL] = "syscall",
    [TR_REC_SIGNAL] = "signal",       [TR_REC_LIBCALL] = "libcall",
    [TR_REC_TRACE_EVENT] = "trace_event", [TR_REC_FUNCTION] = "function",
    [TR_REC_LOST] = "lost",           [TR_REC_SYMBOL] = "symbol",
    [TR_REC_MODULE_STATUS] = "module_status",
    [TR_REC_STREAM_START] = "stream_start", [TR_REC_STREAM_END] = "stream_end",
};

const char *tr_rec_type_name(uint32_t type)
{
    return type < 128 ? type_names[type] : NULL;
}

uint32_t tr_rec_type_from_name(const char *name)
{
    for (uint32_t t = 1; t < 128; t++)
        if (type_names[t] && !strcmp(type_names[t], name)) return t;
    return 0;
}

/* ---- encoding ---- */

#define PUT(x) do { int e_ = buf_varint(b, (x)); if (e_) return e_; } while (0)
#define PUTS(x) do { int e_ = buf_svarint(b, (x)); if (e_) return e_; } while (0)
#define PUTB(p, n) do { int e_ = buf_put(b, (p), (n)); if (e_) return e_; } while (0)
#define PUTLB(p, n) do { PUT(n); PUTB(p, n); } while (0)

static int put_captures(buf *b, uint32_t n, const tr_capture *caps)
{
    if (n > TR_MAX_CAPTURES) return TR_E_INVAL;
    PUT(n);
    for (uint32_t i = 0; i < n; i++) {
        PUT(caps[i].arg);
        PUT(caps[i].kind);
        PUT(caps[i].flags);
        PUT(caps[i].struct_name);
        PUTLB(caps[i].data, caps[i].len);
    }
    return 0;
}

static int put_args(buf *b, uint32_t n, const uint64_t *args)
{
    if (n > 6) return TR_E_INVAL;
    PUT(n);
    for (uint32_t i = 0; i < n; i++) PUT(args[i]);
    return 0;
}

int tr_internal_frame_encode(buf *b, const tr_frame *f)
{
    PUT(f->flags);
    PUT(f->addr);
    if (f->flags & TR_FRAME_SYMBOLIZED) {
        PUT(f->func);
        PUT(f->module);
        PUT(f->file);
        PUT(f->offset);
        PUT(f->line);
    }
    return 0;
}

int tr_internal_rec_encode_body(buf *b, const tr_record *rec, const copy_delta *d)
{
    const __typeof__(rec->u) *u = &rec->u;
    switch (rec->type) {
    case TR_REC_STRING:
        PUT(u->string.id);
        PUTB(u->string.str, u->string.len);
        return 0;
    case TR_REC_FRAME:
        PUT(u->frame.id);
        return tr_internal_frame_encode(b, &u->frame.frame);
    case TR_REC_STACK:
        PUT(u->stack.id);
        PUT(u->stack.parent);
        PUT(u->stack.frame);
        return 0;
    case TR_REC_EVENT_DEF:
        PUT(u->event_def.id);
        PUT(u->event_def.kind);
        PUT(u->event_def.config);
        PUT(u->event_def.sample_value);
        PUT(u->event_def.flags);
        PUTB(u->event_def.name, u->event_def.name_len);
        return 0;
    case TR_REC_META:
        PUTLB(u->meta.key, u->meta.key_len);
        PUTB(u->meta.value, u->meta.value_len);
        return 0;
    case TR_REC_SYSCALL_TABLE:
        PUTLB(u->syscall_table.arch, u->syscall_table.arch_len);
        PUT(u->syscall_table.count);
        PUTB(u->syscall_table.entries, u->syscall_table.entries_len);
        return 0;
    case TR_REC_BLOB:
        PUTLB(u->blob.name, u->blob.name_len);
        PUTB(u->blob.data, u->blob.len);
        return 0;
    case TR_REC_COMM:
        PUT(u->comm.exec);
        PUTB(u->comm.comm, u->comm.len);
        return 0;
    case TR_REC_FORK:
        PUTS(u->fork.ppid);
        PUTS(u->fork.ptid);
        return 0;
    case TR_REC_EXIT:
        PUTS(u->exit.status);
        PUT(u->exit.flags);
        return 0;
    case TR_REC_SWITCH:
        PUT(u->sw.flags);
        return 0;
    case TR_REC_MMAP:
        if (u->mmap.build_id_len > 64) return TR_E_INVAL;
        PUT(u->mmap.start);
        PUT(u->mmap.len);
        PUT(u->mmap.pgoff);
        PUT(u->mmap.prot);
        PUT(u->mmap.flags);
        PUTLB(u->mmap.build_id, u->mmap.build_id_len);
        PUTB(u->mmap.path, u->mmap.path_len);
        return 0;
    case TR_REC_SAMPLE: {
        size_t kept = d ? d->kept : 0, tail = d && d->addressed ? d->tail : 0;
        if (kept > u->sample.stack_copy_len || tail > u->sample.stack_copy_len - kept) return TR_E_INVAL;
        size_t written = u->sample.stack_copy_len - kept;
        uint32_t f = (u->sample.abi ? 1u : 0) | (written ? 2u : 0) | (u->sample.raw_len ? 4u : 0) |
                     (kept ? 8u : 0) | (d && d->addressed ? 16u : 0) | (d && d->stack_rel ? 32u : 0);
        PUT(u->sample.event);
        PUT(u->sample.period);
        if (f & 32) PUTS((int64_t)u->sample.stack - d->stack_base);
        else PUT(u->sample.stack);
        PUT(f);
        if (f & 1) {
            int n = __builtin_popcountll(u->sample.regs_mask);
            if ((uint32_t)n != u->sample.nregs) return TR_E_INVAL;
            PUT(u->sample.abi);
            PUT(u->sample.regs_mask);
            for (int i = 0; i < n; i++) PUT(u->sample.regs[i]);
        }
        if (f & 2) { /* the copy but its kept bytes: those below them, those above (tail) */
            PUT(written);
            PUTB(u->sample.stack_copy, written - tail);
            PUTB(u->sample.stack_copy + u->sample.stack_copy_len - tail, tail);
        }
        if (f & 4) {
            PUT(u->sample.raw_flags);
            PUTLB(u->sample.raw, u->sample.raw_len);
        }
        if (f & 8) PUT(kept);
        if (f & 16) {
            PUT(u->sample.stack_copy_addr);
            PUT(tail);
        }
        return 0;
    }
    case TR_REC_COUNTER:
        PUT(u->counter.event);
        PUT(u->counter.value);
        PUT(u->counter.enabled);
        PUT(u->counter.running);
        PUT(u->counter.run);
        PUT(u->counter.flags);
        return 0;
    case TR_REC_SYSCALL: {
        int e;
        PUT(u->syscall.nr);
        PUT(u->syscall.flags);
        PUTS(u->syscall.ret);
        PUT(u->syscall.duration);
        if ((e = put_args(b, u->syscall.nargs, u->syscall.args))) return e;
        PUT(u->syscall.stack);
        return put_captures(b, u->syscall.ncaptures, u->syscall.captures);
    }
    case TR_REC_SIGNAL:
        PUT(u->signal.signo);
        PUTS(u->signal.code);
        PUT(u->signal.flags);
        PUTLB(u->signal.siginfo, u->signal.siginfo_len);
        return 0;
    case TR_REC_LIBCALL: {
        int e;
        PUT(u->libcall.func);
        PUT(u->libcall.flags);
        PUTS(u->libcall.ret);
        PUT(u->libcall.duration);
        if ((e = put_args(b, u->libcall.nargs, u->libcall.args))) return e;
        PUT(u->libcall.stack);
        return put_captures(b, u->libcall.ncaptures, u->libcall.captures);
    }
    case TR_REC_TRACE_EVENT:
        PUT(u->trace_event.event);
        PUT(u->trace_event.flags);
        PUTB(u->trace_event.data, u->trace_event.len);
        return 0;
    case TR_REC_FUNCTION:
        PUT(u->function.ip);
        PUT(u->function.parent_ip);
        PUT(u->function.kind);
        PUT(u->function.depth);
        PUT(u->function.duration);
        return 0;
    case TR_REC_LOST:
        PUT(u->lost.event);
        PUT(u->lost.kind);
        PUT(u->lost.count);
        return 0;
    case TR_REC_SYMBOL:
        PUT(u->symbol.module);
        PUT(u->symbol.start);
        PUT(u->symbol.size);
        PUT(u->symbol.name);
        PUT(u->symbol.flags);
        return 0;
    case TR_REC_MODULE_STATUS:
        if (u->module_status.build_id_len > 64) return TR_E_INVAL;
        PUT(u->module_status.module);
        PUT(u->module_status.status);
        PUT(u->module_status.detail);
        PUTLB(u->module_status.build_id, u->module_status.build_id_len);
        return 0;
    default:
        return TR_E_INVAL;
    }
}

/* ---- decoding ---- */

#define LBYTES(ptr, lenv) do { (lenv) = cur_varint(c); (ptr) = (const void *)cur_bytes(c, (lenv)); } while (0)
#define REST(ptr, lenv) do { (lenv) = cur_left(c); (ptr) = (const void *)c->p; c->p = c->end; } while (0)

static void get_captures(cur *c, uint32_t *n, tr_capture *caps)
{
    uint64_t k = cur_varint(c);
    if (k > TR_MAX_CAPTURES) {
        c->bad = 1;
        k = 0;
    }
    *n = (uint32_t)k;
    for (uint32_t i = 0; i < *n && !c->bad; i++) {
        caps[i].arg = cur_u32(c);
        caps[i].kind = cur_u32(c);
        caps[i].flags = cur_u32(c);
        caps[i].struct_name = cur_u32(c);
        LBYTES(caps[i].data, caps[i].len);
    }
}

static void get_args(cur *c, uint32_t *n, uint64_t *args)
{
    uint64_t k = cur_varint(c);
    if (k > 6) {
        c->bad = 1;
        k = 0;
    }
    *n = (uint32_t)k;
    for (uint32_t i = 0; i < *n; i++) args[i] = cur_varint(c);
    for (uint32_t i = *n; i < 6; i++) args[i] = 0;
}

void tr_internal_frame_decode(cur *c, tr_frame *f)
{
    memset(f, 0, sizeof *f);
    f->flags = cur_u32(c);
    f->addr = cur_varint(c);
    if (f->flags & TR_FRAME_SYMBOLIZED) {
        f->func = cur_u32(c);
        f->module = cur_u32(c);
        f->file = cur_u32(c);
        f->offset = cur_varint(c);
        f->line = cur_u32(c);
    }
}

int tr_internal_rec_decode_body(cur *c, tr_record *rec, copy_delta *d)
{
    __typeof__(rec->u) *u = &rec->u;
    *d = (copy_delta){0};
    switch (rec->type) {
    case TR_REC_STRING:
        u->string.id = cur_u32(c);
        REST(u->string.str, u->string.len);
        break;
    case TR_REC_FRAME:
        u->frame.id = cur_u32(c);
        tr_internal_frame_decode(c, &u->frame.frame);
        break;
    case TR_REC_STACK:
        u->stack.id = cur_u32(c);
        u->stack.parent = cur_u32(c);
        u->stack.frame = cur_u32(c);
        break;
    case TR_REC_EVENT_DEF:
        u->event_def.id = cur_u32(c);
        u->event_def.kind = cur_u32(c);
        u->event_def.config = cur_varint(c);
        u->event_def.sample_value = cur_varint(c);
        u->event_def.flags = cur_u32(c);
        REST(u->event_def.name, u->event_def.name_len);
        break;
    case TR_REC_META:
        LBYTES(u->meta.key, u->meta.key_len);
        REST(u->meta.value, u->meta.value_len);
        break;
    case TR_REC_SYSCALL_TABLE:
        LBYTES(u->syscall_table.arch, u->syscall_table.arch_len);
        u->syscall_table.count = cur_u32(c);
        REST(u->syscall_table.entries, u->syscall_table.entries_len);
        break;
    case TR_REC_BLOB:
        LBYTES(u->blob.name, u->blob.name_len);
        REST(u->blob.data, u->blob.len);
        break;
    case TR_REC_COMM:
        u->comm.exec = cur_u32(c);
        REST(u->comm.comm, u->comm.len);
        break;
    case TR_REC_FORK:
        u->fork.ppid = cur_s32(c);
        u->fork.ptid = cur_s32(c);
        break;
    case TR_REC_EXIT:
        u->exit.status = cur_s32(c);
        u->exit.flags = cur_u32(c);
        break;
    case TR_REC_SWITCH:
        u->sw.flags = cur_u32(c);
        break;
    case TR_REC_MMAP:
        u->mmap.start = cur_varint(c);
        u->mmap.len = cur_varint(c);
        u->mmap.pgoff = cur_varint(c);
        u->mmap.prot = cur_u32(c);
        u->mmap.flags = cur_u32(c);
        LBYTES(u->mmap.build_id, u->mmap.build_id_len);
        if (u->mmap.build_id_len > 64) c->bad = 1;
        REST(u->mmap.path, u->mmap.path_len);
        break;
    case TR_REC_SAMPLE: {
        u->sample.event = cur_u32(c);
        u->sample.period = cur_varint(c);
        uint64_t stack = cur_varint(c);
        uint32_t f = cur_u32(c);
        if (f & 32) { /* relative: the reader resolves it */
            d->stack_rel = 1;
            d->stack_delta = unzigzag(stack);
            stack = 0;
        } else if (stack > UINT32_MAX) {
            c->bad = 1;
        }
        u->sample.stack = (uint32_t)stack;
        u->sample.abi = 0;
        u->sample.regs_mask = 0;
        u->sample.nregs = 0;
        u->sample.stack_copy = NULL;
        u->sample.stack_copy_len = 0;
        u->sample.stack_copy_addr = 0;
        u->sample.raw = NULL;
        u->sample.raw_len = 0;
        u->sample.raw_flags = 0;
        if (f & 1) {
            u->sample.abi = cur_u32(c);
            u->sample.regs_mask = cur_varint(c);
            u->sample.nregs = (uint32_t)__builtin_popcountll(u->sample.regs_mask);
            for (uint32_t i = 0; i < u->sample.nregs; i++) u->sample.regs[i] = cur_varint(c);
        }
        if (f & 2) LBYTES(u->sample.stack_copy, u->sample.stack_copy_len);
        if (f & 4) {
            u->sample.raw_flags = cur_u32(c);
            LBYTES(u->sample.raw, u->sample.raw_len);
        }
        if (f & 8) {
            uint64_t k = cur_varint(c);
            if (k == 0 || k > TR_RAW_MAX) c->bad = 1;
            d->kept = (size_t)k;
        }
        if (f & 16) {
            u->sample.stack_copy_addr = cur_varint(c);
            uint64_t t = cur_varint(c);
            if (t > u->sample.stack_copy_len) c->bad = 1;
            d->tail = (size_t)t;
            d->addressed = 1;
        }
        break;
    }
    case TR_REC_COUNTER:
        u->counter.event = cur_u32(c);
        u->counter.value = cur_varint(c);
        u->counter.enabled = cur_varint(c);
        u->counter.running = cur_varint(c);
        u->counter.run = cur_u32(c);
        u->counter.flags = cur_u32(c);
        break;
    case TR_REC_SYSCALL:
        u->syscall.nr = cur_u32(c);
        u->syscall.flags = cur_u32(c);
        u->syscall.ret = cur_svarint(c);
        u->syscall.duration = cur_varint(c);
        get_args(c, &u->syscall.nargs, u->syscall.args);
        u->syscall.stack = cur_u32(c);
        get_captures(c, &u->syscall.ncaptures, u->syscall.captures);
        break;
    case TR_REC_SIGNAL:
        u->signal.signo = cur_u32(c);
        u->signal.code = cur_s32(c);
        u->signal.flags = cur_u32(c);
        LBYTES(u->signal.siginfo, u->signal.siginfo_len);
        break;
    case TR_REC_LIBCALL:
        u->libcall.func = cur_u32(c);
        u->libcall.flags = cur_u32(c);
        u->libcall.ret = cur_svarint(c);
        u->libcall.duration = cur_varint(c);
        get_args(c, &u->libcall.nargs, u->libcall.args);
        u->libcall.stack = cur_u32(c);
        get_captures(c, &u->libcall.ncaptures, u->libcall.captures);
        break;
    case TR_REC_TRACE_EVENT:
        u->trace_event.event = cur_u32(c);
        u->trace_event.flags = cur_u32(c);
        REST(u->trace_event.data, u->trace_event.len);
        break;
    case TR_REC_FUNCTION:
        u->function.ip = cur_varint(c);
        u->function.parent_ip = cur_varint(c);
        u->function.kind = cur_u32(c);
        u->function.depth = cur_u32(c);
        u->function.duration = cur_varint(c);
        break;
    case TR_REC_LOST:
        u->lost.event = cur_u32(c);
        u->lost.kind = cur_u32(c);
        u->lost.count = cur_varint(c);
        break;
    case TR_REC_SYMBOL:
        u->symbol.module = cur_u32(c);
        u->symbol.start = cur_varint(c);
        u->symbol.size = cur_varint(c);
        u->symbol.name = cur_u32(c);
        u->symbol.flags = cur_u32(c);
        break;
    case TR_REC_MODULE_STATUS:
        u->module_status.module = cur_u32(c);
        u->module_status.status = cur_u32(c);
        u->module_status.detail = cur_u32(c);
        LBYTES(u->module_status.build_id, u->module_status.build_id_len);
        if (u->module_status.build_id_len > 64) c->bad = 1;
        break;
    default:
        return 0; /* unknown: the caller skips it */
    }
    return c->bad ? TR_E_CORRUPT_RECORD : 0;
}

int tr_syscall_table_iter(const tr_record *rec, size_t *pos, uint32_t *nr, const char **name,
                          size_t *name_len)
{
    if (rec->type != TR_REC_SYSCALL_TABLE) return TR_E_INVAL;
    const uint8_t *e = rec->u.syscall_table.entries;
    size_t len = rec->u.syscall_table.entries_len;
    if (*pos >= len) return 0;
    cur c = {e + *pos, e + len, 0};
    *nr = cur_u32(&c);
    uint64_t n = cur_varint(&c);
    *name = (const char *)cur_bytes(&c, n);
    *name_len = (size_t)n;
    if (c.bad) return TR_E_CORRUPT_RECORD;
    *pos = (size_t)(c.p - e);
    return 1;
}
