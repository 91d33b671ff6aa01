/* cat-generic.c - text and JSON for every record type, --info, comm names. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cat.h"
#include "cli.h"
#include "keys.h"
#include "procs.h"
#include "tpformat.h"
#include "symbolize/symbolize.h"

/* ---- processes: comms and maps (model/procs.h) ---- */

void cat_track(struct cat_ctx *c, const tr_record *rec)
{
    if (rec->type == TR_REC_BLOB && c->ftrace) tpformat_blob_arrived(cat_tpformat(c)); /* kallsyms at last? */
    if ((rec->type < TR_REC_COMM || rec->type > TR_REC_MMAP) && rec->type != TR_REC_STREAM_START &&
        (!c->sym || (rec->type != TR_REC_META && rec->type != TR_REC_BLOB)))
        return; /* tr-cat asks about now only: the model needs no other record, the session no more */
    if (c->sym) { /* its model serves tr-cat too */
        if (sym_observe(c->sym, c->r, rec) < 0) cli_warn("%s: out of memory", c->file);
        return;
    }
    if (!c->procs && !(c->procs = procs_new(NULL))) return; /* out of memory: "-" and [unknown] */
    procs_feed(c->procs, rec);
}

/* The process model: the symbolize session's, else tr-cat's own (NULL before any record). */
static const struct procs *procs_of(const struct cat_ctx *c)
{
    return c->sym ? sym_procs(c->sym) : c->procs;
}

const char *cat_comm_raw(struct cat_ctx *c, int32_t tid)
{
    const struct procs *pm = procs_of(c);
    const procs_thread *t = pm ? procs_thread_get(pm, tid) : NULL;
    return t && t->comm_recorded ? t->comm_recorded : "-";
}

const char *cat_comm(struct cat_ctx *c, int32_t tid)
{
    return cat_text(c, cat_comm_raw(c, tid));
}

const char *cat_text(struct cat_ctx *c, const char *s)
{
    const char *p = s;
    while (*p >= ' ' && *p < 0x7f && *p != '\\')
        p++;
    return *p ? cat_textn(c, s, strlen(s)) : s;
}

const char *cat_textn(struct cat_ctx *c, const char *s, size_t len)
{
    syscalls_buf_reset(&c->text);
    syscalls_print_escaped(&c->text, (const uint8_t *)s, len, 0);
    return c->text.p ? c->text.p : ""; /* out of memory: nothing raw */
}

const char *cat_module_of(struct cat_ctx *c, int32_t pid, uint64_t addr, uint64_t *file_off)
{
    const struct procs *pm = procs_of(c);
    const procs_map *m = pm ? procs_lookup(pm, pid, addr) : NULL;
    if (!m) return NULL;
    if (file_off) *file_off = addr - m->start + m->pgoff;
    return m->path;
}

void cat_free(struct cat_ctx *c)
{
    procs_free(c->procs);
    c->procs = NULL;
    syscalls_buf_free(&c->text);
}

/* ---- small printers ---- */

void cat_time(FILE *f, uint64_t ns)
{
    fprintf(f, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
}

/* Printable text of a byte string, with C escapes for the rest. */
static void text_str(FILE *f, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\\' || ch == '"') fprintf(f, "\\%c", ch);
        else if (ch >= 0x20 && ch < 0x7f) fputc(ch, f);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch == '\t') fputs("\\t", f);
        else fprintf(f, "\\x%02x", ch);
    }
}

static void hex(FILE *f, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) fprintf(f, "%02x", p[i]);
}

void cat_frame(struct cat_ctx *c, uint32_t frame_id, char *out, size_t len)
{
    const tr_frame *fr = tr_reader_frame(c->r, frame_id);
    if (!fr) {
        snprintf(out, len, "[frame %u lost]", frame_id);
        return;
    }
    if (fr->flags & TR_FRAME_SYMBOLIZED) {
        const char *fn = tr_reader_string(c->r, fr->func, NULL);
        const char *mod = tr_reader_string(c->r, fr->module, NULL);
        const char *file = tr_reader_string(c->r, fr->file, NULL);
        int n = snprintf(out, len, "%" PRIx64 " %s+0x%" PRIx64 " (%s)", fr->addr, fn ? fn : "[unknown]",
                         fr->offset, mod ? mod : "[unknown]");
        if (file && n > 0 && (size_t)n < len) n += snprintf(out + n, len - (size_t)n, " %s:%u", file, fr->line);
        if ((fr->flags & TR_FRAME_INLINE) && n > 0 && (size_t)n < len) snprintf(out + n, len - (size_t)n, " [inline]");
        const char *t = cat_text(c, out); /* the program's names (paths, symbols) never raw */
        if (t != out) snprintf(out, len, "%s", t);
    } else {
        snprintf(out, len, "%" PRIx64 " [unknown] (%s)", fr->addr, fr->flags & TR_FRAME_KERNEL ? "[kernel.kallsyms]" : "[unknown]");
    }
}

static const char *event_name(struct cat_ctx *c, uint32_t id)
{
    const tr_event_def *d = tr_reader_event(c->r, id);
    return d ? d->name : "[unknown event]";
}

static const char *str_or(struct cat_ctx *c, uint32_t id, const char *dflt)
{
    const char *s = tr_reader_string(c->r, id, NULL);
    return s ? s : dflt;
}

/* ---- text ---- */

int cat_generic_text(struct cat_ctx *c, const tr_record *rec)
{
    FILE *f = c->out;
    const __typeof__(rec->u) *u = &rec->u;
    const char *tn = tr_rec_type_name(rec->type);
    /* a single stream prints as its anchor would; from the second on, each
     * stream is announced (--info tells the rest) */
    if (rec->type == TR_REC_STREAM_START) {
        if (rec->stream > 0)
            fprintf(f, "# stream %u: format %u.%u at byte %" PRIu64 "\n", rec->stream, u->stream_start.major,
                    u->stream_start.minor, u->stream_start.offset);
        return 0;
    }
    if (rec->type == TR_REC_STREAM_END) return 0;
    if (rec->time || rec->pid != -1) {
        fprintf(f, "%s %6d/%-6d [%03d] ", rec->type == TR_REC_COMM ? "-" : cat_comm(c, rec->tid), rec->pid, rec->tid,
                rec->cpu);
        cat_time(f, rec->time);
        fprintf(f, ": %s:", tn);
    } else {
        fprintf(f, "%s:", tn);
    }
    switch (rec->type) {
    case TR_REC_STRING:
        fprintf(f, " id=%u \"", u->string.id);
        text_str(f, u->string.str, u->string.len);
        fputc('"', f);
        break;
    case TR_REC_FRAME: {
        char b[512];
        cat_frame(c, u->frame.id, b, sizeof b);
        fprintf(f, " id=%u %s", u->frame.id, b);
        break;
    }
    case TR_REC_STACK:
        fprintf(f, " id=%u parent=%u frame=%u", u->stack.id, u->stack.parent, u->stack.frame);
        break;
    case TR_REC_EVENT_DEF:
        fprintf(f, " id=%u kind=%u config=0x%" PRIx64 " %s=%" PRIu64 " flags=0x%x name=%.*s", u->event_def.id,
                u->event_def.kind, u->event_def.config, u->event_def.flags & TR_EVF_FREQ ? "freq" : "period",
                u->event_def.sample_value, u->event_def.flags, (int)u->event_def.name_len, u->event_def.name);
        break;
    case TR_REC_META:
        fprintf(f, " %.*s=", (int)u->meta.key_len, u->meta.key);
        text_str(f, u->meta.value, u->meta.value_len);
        break;
    case TR_REC_SYSCALL_TABLE:
        fprintf(f, " arch=%.*s entries=%u", (int)u->syscall_table.arch_len, u->syscall_table.arch, u->syscall_table.count);
        break;
    case TR_REC_BLOB:
        fprintf(f, " name=%.*s bytes=%zu", (int)u->blob.name_len, u->blob.name, u->blob.len);
        break;
    case TR_REC_COMM:
        fprintf(f, " %s%s", u->comm.exec ? "exec " : "", cat_textn(c, u->comm.comm, u->comm.len));
        break;
    case TR_REC_FORK:
        fprintf(f, " parent %d/%d", u->fork.ppid, u->fork.ptid);
        break;
    case TR_REC_EXIT:
        if (u->exit.flags & TR_EXITF_SIGNALED) fprintf(f, " killed by signal %d", u->exit.status & 0x7f);
        else fprintf(f, " status %d", (u->exit.status >> 8) & 0xff);
        if (u->exit.flags & TR_EXITF_THREAD) fprintf(f, " (thread)");
        break;
    case TR_REC_SWITCH:
        fprintf(f, " %s%s", u->sw.flags & TR_SWF_OUT ? "out" : "in", u->sw.flags & TR_SWF_PREEMPT ? " preempt" : "");
        break;
    case TR_REC_MMAP:
        fprintf(f, " %016" PRIx64 "-%016" PRIx64 " pgoff 0x%" PRIx64 " prot %c%c%c ", u->mmap.start,
                u->mmap.start + u->mmap.len, u->mmap.pgoff, u->mmap.prot & 1 ? 'r' : '-', u->mmap.prot & 2 ? 'w' : '-',
                u->mmap.prot & 4 ? 'x' : '-');
        text_str(f, u->mmap.path, u->mmap.path_len);
        if (u->mmap.build_id_len) {
            fprintf(f, " build-id ");
            hex(f, u->mmap.build_id, u->mmap.build_id_len);
        }
        break;
    case TR_REC_SAMPLE: {
        fprintf(f, " %s period=%" PRIu64, event_name(c, u->sample.event), u->sample.period);
        if (u->sample.stack_copy_len) fprintf(f, " stack-copy=%zu regs=%u", u->sample.stack_copy_len, u->sample.nregs);
        if (u->sample.raw_len) fprintf(f, " raw=%zu", u->sample.raw_len);
        const uint32_t *fr;
        int n = tr_reader_stack(c->r, u->sample.stack, &fr);
        if (n < 0) fprintf(f, "\n\t[stack %u lost]", u->sample.stack);
        for (int i = 0; i < n; i++) {
            char b[512];
            cat_frame(c, fr[i], b, sizeof b);
            fprintf(f, "\n\t%s", b);
        }
        break;
    }
    case TR_REC_COUNTER:
        fprintf(f, " %s value=%" PRIu64 " enabled=%" PRIu64 " running=%" PRIu64 " run=%u%s",
                event_name(c, u->counter.event), u->counter.value, u->counter.enabled, u->counter.running,
                u->counter.run, u->counter.flags & TR_CNTF_NOT_SUPPORTED ? " <not supported>" : "");
        break;
    case TR_REC_SYSCALL: {
        const char *nm = tr_reader_syscall_name(c->r, NULL, u->syscall.nr);
        if (nm) fprintf(f, " %s(", nm);
        else fprintf(f, " syscall_%u(", u->syscall.nr);
        for (uint32_t i = 0; i < u->syscall.nargs; i++) fprintf(f, "%s0x%" PRIx64, i ? ", " : "", u->syscall.args[i]);
        if (u->syscall.flags & TR_SYSF_UNFINISHED) fprintf(f, ") = ?");
        else fprintf(f, ") = %" PRId64, u->syscall.ret);
        fprintf(f, " <%" PRIu64 ".%06" PRIu64 ">", u->syscall.duration / 1000000000u, u->syscall.duration % 1000000000u / 1000u);
        break;
    }
    case TR_REC_SIGNAL:
        fprintf(f, " signo=%u code=%d", u->signal.signo, u->signal.code);
        break;
    case TR_REC_LIBCALL:
        fprintf(f, " %s(", cat_text(c, str_or(c, u->libcall.func, "?")));
        for (uint32_t i = 0; i < u->libcall.nargs; i++) fprintf(f, "%s0x%" PRIx64, i ? ", " : "", u->libcall.args[i]);
        fprintf(f, ") = %" PRId64, u->libcall.ret);
        break;
    case TR_REC_TRACE_EVENT:
        fprintf(f, " %s bytes=%zu", event_name(c, u->trace_event.event), u->trace_event.len);
        break;
    case TR_REC_FUNCTION:
        fprintf(f, " ip=0x%" PRIx64 " parent=0x%" PRIx64 " kind=%u depth=%u", u->function.ip, u->function.parent_ip,
                u->function.kind, u->function.depth);
        break;
    case TR_REC_LOST:
        fprintf(f, " %" PRIu64 " %s", u->lost.count,
                u->lost.kind == TR_LOST_SAMPLES ? "samples" : u->lost.kind == TR_LOST_OVERRUN ? "events (overrun)"
                : u->lost.kind == TR_LOST_THROTTLE ? "samples (throttled)" : "events");
        if (u->lost.event) fprintf(f, " of %s", event_name(c, u->lost.event));
        break;
    case TR_REC_SYMBOL:
        fprintf(f, " %016" PRIx64 " %" PRIu64 " %s", u->symbol.start, u->symbol.size,
                cat_text(c, str_or(c, u->symbol.name, "?")));
        fprintf(f, " (%s)", cat_text(c, str_or(c, u->symbol.module, "?")));
        break;
    case TR_REC_MODULE_STATUS:
        fprintf(f, " %s status=%u", cat_text(c, str_or(c, u->module_status.module, "?")), u->module_status.status);
        fprintf(f, " %s", cat_text(c, str_or(c, u->module_status.detail, "")));
        break;
    }
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

/* ---- JSON ---- */

static void jkey_str(FILE *f, const char *k, const char *s, size_t len)
{
    fprintf(f, ",\"%s\":\"", k);
    json_str(f, s, len);
    fputc('"', f);
}

static void jframe(struct cat_ctx *c, FILE *f, uint32_t id)
{
    const tr_frame *fr = tr_reader_frame(c->r, id);
    if (!fr) {
        fprintf(f, "{\"lost\":true}");
        return;
    }
    fprintf(f, "{\"addr\":\"0x%" PRIx64 "\"", fr->addr);
    if (fr->flags & TR_FRAME_KERNEL) fprintf(f, ",\"kernel\":true");
    if (fr->flags & TR_FRAME_JIT) fprintf(f, ",\"jit\":true");
    if (fr->flags & TR_FRAME_INLINE) fprintf(f, ",\"inline\":true");
    if (fr->flags & TR_FRAME_SYMBOLIZED) {
        const char *s;
        size_t l;
        if ((s = tr_reader_string(c->r, fr->func, &l))) jkey_str(f, "func", s, l);
        if ((s = tr_reader_string(c->r, fr->module, &l))) jkey_str(f, "module", s, l);
        fprintf(f, ",\"offset\":%" PRIu64, fr->offset);
        if ((s = tr_reader_string(c->r, fr->file, &l))) {
            jkey_str(f, "file", s, l);
            fprintf(f, ",\"line\":%u", fr->line);
        }
    }
    fputc('}', f);
}

static void jstack(struct cat_ctx *c, FILE *f, uint32_t stack)
{
    const uint32_t *fr;
    int n = tr_reader_stack(c->r, stack, &fr);
    fprintf(f, ",\"stack\":[");
    for (int i = 0; i < n; i++) {
        if (i) fputc(',', f);
        jframe(c, f, fr[i]);
    }
    fputc(']', f);
    if (n < 0) fprintf(f, ",\"stack_lost\":true");
}

static void jcaptures(FILE *f, uint32_t n, const tr_capture *cap)
{
    fprintf(f, ",\"captures\":[");
    for (uint32_t i = 0; i < n; i++) {
        fprintf(f, "%s{\"arg\":%u,\"kind\":%u,\"flags\":%u,\"hex\":\"", i ? "," : "", cap[i].arg, cap[i].kind, cap[i].flags);
        hex(f, cap[i].data, cap[i].len);
        fprintf(f, "\"}");
    }
    fputc(']', f);
}

int cat_generic_json(struct cat_ctx *c, const tr_record *rec)
{
    FILE *f = c->out;
    const __typeof__(rec->u) *u = &rec->u;
    fprintf(f, "{\"type\":\"%s\",\"stream\":%u", tr_rec_type_name(rec->type), rec->stream);
    if (rec->time || rec->pid != -1)
        fprintf(f, ",\"time\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"cpu\":%d", rec->time, rec->pid, rec->tid, rec->cpu);
    switch (rec->type) {
    case TR_REC_STRING:
        fprintf(f, ",\"id\":%u", u->string.id);
        jkey_str(f, "value", u->string.str, u->string.len);
        break;
    case TR_REC_FRAME:
        fprintf(f, ",\"id\":%u,\"frame\":", u->frame.id);
        jframe(c, f, u->frame.id);
        break;
    case TR_REC_STACK:
        fprintf(f, ",\"id\":%u,\"parent\":%u,\"frame\":%u", u->stack.id, u->stack.parent, u->stack.frame);
        break;
    case TR_REC_EVENT_DEF:
        fprintf(f, ",\"id\":%u,\"kind\":%u,\"config\":%" PRIu64 ",\"sample_value\":%" PRIu64 ",\"flags\":%u",
                u->event_def.id, u->event_def.kind, u->event_def.config, u->event_def.sample_value, u->event_def.flags);
        jkey_str(f, "name", u->event_def.name, u->event_def.name_len);
        break;
    case TR_REC_META:
        jkey_str(f, "key", u->meta.key, u->meta.key_len);
        jkey_str(f, "value", u->meta.value, u->meta.value_len);
        break;
    case TR_REC_SYSCALL_TABLE:
        jkey_str(f, "arch", u->syscall_table.arch, u->syscall_table.arch_len);
        fprintf(f, ",\"entries\":%u", u->syscall_table.count);
        break;
    case TR_REC_BLOB:
        jkey_str(f, "name", u->blob.name, u->blob.name_len);
        fprintf(f, ",\"bytes\":%zu", u->blob.len);
        break;
    case TR_REC_COMM:
        jkey_str(f, "comm", u->comm.comm, u->comm.len);
        fprintf(f, ",\"exec\":%s", u->comm.exec ? "true" : "false");
        break;
    case TR_REC_FORK:
        fprintf(f, ",\"ppid\":%d,\"ptid\":%d", u->fork.ppid, u->fork.ptid);
        break;
    case TR_REC_EXIT:
        fprintf(f, ",\"status\":%d,\"flags\":%u", u->exit.status, u->exit.flags);
        break;
    case TR_REC_SWITCH:
        fprintf(f, ",\"flags\":%u", u->sw.flags);
        break;
    case TR_REC_MMAP:
        fprintf(f, ",\"start\":%" PRIu64 ",\"len\":%" PRIu64 ",\"pgoff\":%" PRIu64 ",\"prot\":%u,\"flags\":%u",
                u->mmap.start, u->mmap.len, u->mmap.pgoff, u->mmap.prot, u->mmap.flags);
        jkey_str(f, "path", u->mmap.path, u->mmap.path_len);
        fprintf(f, ",\"build_id\":\"");
        hex(f, u->mmap.build_id, u->mmap.build_id_len);
        fputc('"', f);
        break;
    case TR_REC_SAMPLE: {
        const char *ev = event_name(c, u->sample.event);
        jkey_str(f, "event", ev, strlen(ev));
        fprintf(f, ",\"period\":%" PRIu64, u->sample.period);
        jstack(c, f, u->sample.stack);
        if (u->sample.abi) fprintf(f, ",\"regs\":%u,\"stack_copy\":%zu", u->sample.nregs, u->sample.stack_copy_len);
        if (u->sample.raw_len) fprintf(f, ",\"raw\":%zu", u->sample.raw_len);
        break;
    }
    case TR_REC_COUNTER: {
        const char *ev = event_name(c, u->counter.event);
        jkey_str(f, "event", ev, strlen(ev));
        fprintf(f, ",\"value\":%" PRIu64 ",\"enabled\":%" PRIu64 ",\"running\":%" PRIu64 ",\"run\":%u,\"flags\":%u",
                u->counter.value, u->counter.enabled, u->counter.running, u->counter.run, u->counter.flags);
        break;
    }
    case TR_REC_SYSCALL: {
        const char *nm = tr_reader_syscall_name(c->r, NULL, u->syscall.nr);
        fprintf(f, ",\"nr\":%u", u->syscall.nr);
        if (nm) jkey_str(f, "name", nm, strlen(nm));
        fprintf(f, ",\"args\":[");
        for (uint32_t i = 0; i < u->syscall.nargs; i++) fprintf(f, "%s%" PRIu64, i ? "," : "", u->syscall.args[i]);
        fprintf(f, "],\"ret\":%" PRId64 ",\"duration\":%" PRIu64 ",\"flags\":%u", u->syscall.ret, u->syscall.duration,
                u->syscall.flags);
        jcaptures(f, u->syscall.ncaptures, u->syscall.captures);
        if (u->syscall.stack) jstack(c, f, u->syscall.stack);
        break;
    }
    case TR_REC_SIGNAL:
        fprintf(f, ",\"signo\":%u,\"code\":%d,\"flags\":%u", u->signal.signo, u->signal.code, u->signal.flags);
        break;
    case TR_REC_LIBCALL: {
        const char *fn = str_or(c, u->libcall.func, "");
        jkey_str(f, "func", fn, strlen(fn));
        fprintf(f, ",\"args\":[");
        for (uint32_t i = 0; i < u->libcall.nargs; i++) fprintf(f, "%s%" PRIu64, i ? "," : "", u->libcall.args[i]);
        fprintf(f, "],\"ret\":%" PRId64 ",\"duration\":%" PRIu64, u->libcall.ret, u->libcall.duration);
        jcaptures(f, u->libcall.ncaptures, u->libcall.captures);
        if (u->libcall.stack) jstack(c, f, u->libcall.stack);
        break;
    }
    case TR_REC_TRACE_EVENT: {
        const char *ev = event_name(c, u->trace_event.event);
        jkey_str(f, "event", ev, strlen(ev));
        fprintf(f, ",\"flags\":%u,\"hex\":\"", u->trace_event.flags);
        hex(f, u->trace_event.data, u->trace_event.len);
        fputc('"', f);
        break;
    }
    case TR_REC_FUNCTION:
        fprintf(f, ",\"ip\":%" PRIu64 ",\"parent_ip\":%" PRIu64 ",\"kind\":%u,\"depth\":%u,\"duration\":%" PRIu64,
                u->function.ip, u->function.parent_ip, u->function.kind, u->function.depth, u->function.duration);
        break;
    case TR_REC_LOST:
        fprintf(f, ",\"event\":%u,\"kind\":%u,\"count\":%" PRIu64, u->lost.event, u->lost.kind, u->lost.count);
        break;
    case TR_REC_SYMBOL: {
        const char *m = str_or(c, u->symbol.module, ""), *n = str_or(c, u->symbol.name, "");
        jkey_str(f, "module", m, strlen(m));
        jkey_str(f, "name", n, strlen(n));
        fprintf(f, ",\"start\":%" PRIu64 ",\"size\":%" PRIu64 ",\"flags\":%u", u->symbol.start, u->symbol.size,
                u->symbol.flags);
        break;
    }
    case TR_REC_MODULE_STATUS: {
        const char *m = str_or(c, u->module_status.module, ""), *d = str_or(c, u->module_status.detail, "");
        jkey_str(f, "module", m, strlen(m));
        fprintf(f, ",\"status\":%u", u->module_status.status);
        jkey_str(f, "detail", d, strlen(d));
        break;
    }
    case TR_REC_STREAM_END:
        fprintf(f, ",\"complete\":%s", u->stream_end.complete ? "true" : "false");
        break;
    }
    fprintf(f, "}\n");
    return ferror(f) ? -1 : 0;
}

/* ---- --info ---- */

static void wall_time(FILE *f, struct cat_ctx *c, uint64_t mono)
{
    const char *m = tr_reader_meta(c->r, META_TIME_MONOTONIC_NS), *rt = tr_reader_meta(c->r, META_TIME_REALTIME_NS);
    if (!m || !rt) {
        fprintf(f, "unknown");
        return;
    }
    long double wall = (long double)strtoull(rt, NULL, 10) + ((long double)mono - (long double)strtoull(m, NULL, 10));
    time_t sec = (time_t)(wall / 1e9L);
    struct tm tm;
    char b[64];
    gmtime_r(&sec, &tm);
    strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(f, "%s.%06luZ", b, (unsigned long)((uint64_t)(wall - (long double)sec * 1e9L) / 1000u));
}

/* The end of a stream's --info; 1 when its end frame's counts are not what
 * was read (said on stderr too unless the stream's damage was reported). */
static int info_stream_end(struct cat_ctx *c, const tr_record *end, uint64_t first, uint64_t last,
                           const tr_reader_stats *before, int printed_header, int reported)
{
    FILE *f = c->out;
    tr_reader_stats st;
    tr_reader_get_stats(c->r, &st);
    if (!printed_header) return 0;
    fprintf(f, "records:\n");
    for (uint32_t t = 0; t < 128; t++) {
        uint64_t n = st.per_type[t] - before->per_type[t];
        if (n) fprintf(f, "  %-16s %" PRIu64 "\n", tr_rec_type_name(t) ? tr_rec_type_name(t) : "(unknown)", n);
    }
    if (last >= first && last) {
        fprintf(f, "time span:      ");
        cat_time(f, first);
        fprintf(f, " .. ");
        cat_time(f, last);
        fprintf(f, " (%.6f s)\nfirst event:    ", (double)(last - first) / 1e9);
        wall_time(f, c, first);
        fputc('\n', f);
    }
    uint64_t raw = st.raw_bytes - before->raw_bytes, comp = st.compressed_bytes - before->compressed_bytes;
    fprintf(f, "size:           %" PRIu64 " bytes compressed, %" PRIu64 " raw (%.2fx)\n", comp, raw,
            comp ? (double)raw / (double)comp : 0.0);
    fprintf(f, "chunks:         %" PRIu64 "\n", st.chunks - before->chunks);
    uint64_t records = st.records - before->records, chunks = st.chunks - before->chunks;
    if (!end || !end->u.stream_end.complete) {
        fprintf(f, "complete:       no (no end frame)\n");
        return 0;
    }
    const __typeof__(end->u.stream_end) *e = &end->u.stream_end;
    if (e->records == records && e->chunks == chunks) {
        fprintf(f, "complete:       yes (%" PRIu64 " records, %" PRIu64 " lost events)\n", records, e->lost);
        return 0;
    }
    /* the end frame is not to be trusted over what was read */
    fprintf(f, "complete:       no (the end frame counts %" PRIu64 " records in %" PRIu64 " chunks, %" PRIu64
               " were read in %" PRIu64 ")\n", e->records, e->chunks, records, chunks);
    if (!reported)
        cli_warn("%s: stream %u: its end frame counts %" PRIu64 " records in %" PRIu64 " chunks; %" PRIu64
                 " were read in %" PRIu64, c->file, end->stream, e->records, e->chunks, records, chunks);
    return 1;
}

int cat_info(struct cat_ctx *c)
{
    FILE *f = c->out;
    tr_record rec;
    tr_reader_stats before = {0};
    uint64_t first = 0, last = 0;
    int rc, status = 0, open = 0, any = 0, reported = 0;
    fprintf(f, "file:           %s\n", c->file);
    while ((rc = tr_reader_next(c->r, &rec)) != 0) {
        if (rc < 0) {
            const tr_reader_diag *d = tr_reader_last_diag(c->r);
            cli_warn("%s: byte %llu: %s: %s", c->file, (unsigned long long)d->offset, tr_strerror(rc), d->detail);
            status = cat_error_status(rc, any);
            if (status == CLI_EXIT_FAIL) return status;
            reported = 1;
            if (!tr_error_recoverable(rc)) break;
            continue;
        }
        any = 1;
        if (rec.type == TR_REC_STREAM_START) {
            reported = 0;
            tr_reader_get_stats(c->r, &before);
            first = last = 0;
            open = 1;
            uint32_t incompat = rec.u.stream_start.incompat;
            fprintf(f, "stream %u:       format %u.%u at byte %" PRIu64 "%s%s\n", rec.stream, rec.u.stream_start.major,
                    rec.u.stream_start.minor, rec.u.stream_start.offset,
                    incompat & TR_INCOMPAT_STACK_ADDR    ? ", stack copies delta-coded by address"
                    : incompat & TR_INCOMPAT_STACK_DELTA ? ", stack copies delta-coded"
                                                         : "",
                    incompat & TR_INCOMPAT_STACK_CHAINS ? ", stack nodes in chains"
                    : incompat & TR_INCOMPAT_STACK_RUNS ? ", stack nodes in runs"
                                                        : "");
            continue;
        }
        if (rec.type == TR_REC_STREAM_END) {
            fprintf(f, "metadata:\n");
            const char *k, *v;
            for (size_t i = 0; tr_reader_meta_at(c->r, i, &k, &v); i++) {
                fprintf(f, "  %-16s ", cat_text(c, k));
                fprintf(f, "%s\n", cat_text(c, v));
            }
            fprintf(f, "events:\n");
            for (uint32_t id = 1; id < 4096; id++) {
                const tr_event_def *d = tr_reader_event(c->r, id);
                if (!d) break;
                fprintf(f, "  %-3u %s (kind %u, %s %" PRIu64 ")\n", d->id, d->name, d->kind,
                        d->flags & TR_EVF_FREQ ? "freq" : "period", d->sample_value);
            }
            const char *bn;
            const uint8_t *bd;
            size_t bl;
            for (size_t i = 0; tr_reader_blob_at(c->r, "", i, &bn, &bd, &bl); i++)
                fprintf(f, "  blob %s (%zu bytes)\n", bn, bl);
            if (info_stream_end(c, &rec, first, last, &before, open, reported)) status = CLI_EXIT_TRUNCATED;
            open = 0;
            continue;
        }
        if (rec.time) {
            if (!first || rec.time < first) first = rec.time;
            if (rec.time > last) last = rec.time;
        }
    }
    return status;
}
