/* dump.c - every decoded field of every record, through the library alone:
 * what "reads identically" means for golden traces and vectors. */
#include <inttypes.h>
#include <stdio.h>

#include "synth.h"

static void hex(const uint8_t *p, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
    putchar(']');
}

static void str(tr_reader *r, uint32_t id)
{
    size_t n;
    const char *s = tr_reader_string(r, id, &n);
    if (s) printf("\"%.*s\"", (int)n, s);
    else printf("#%u", id);
}

static void stack(tr_reader *r, uint32_t id)
{
    const uint32_t *fr;
    int n = tr_reader_stack(r, id, &fr);
    printf(" stack=%u:%d", id, n);
    for (int i = 0; i < n; i++) {
        const tr_frame *f = tr_reader_frame(r, fr[i]);
        if (!f) { printf(" ?"); continue; }
        printf(" {%" PRIx64 " f=%u ", f->addr, f->flags);
        str(r, f->func), putchar(' '), str(r, f->module), putchar(' '), str(r, f->file);
        printf(" +%" PRIu64 " :%u}", f->offset, f->line);
    }
}

static void caps(tr_reader *r, uint32_t n, const tr_capture *c)
{
    for (uint32_t i = 0; i < n; i++) {
        printf(" cap{%u %u %u ", c[i].arg, c[i].kind, c[i].flags);
        str(r, c[i].struct_name);
        putchar(' ');
        hex(c[i].data, c[i].len);
        putchar('}');
    }
}

int synth_dump(tr_reader *r)
{
    tr_record rec;
    int rc, status = 0;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            printf("error %d %s @%" PRIu64 "\n", rc, tr_strerror(rc), tr_reader_last_diag(r)->offset);
            status = 1;
            if (!tr_error_recoverable(rc)) break;
            continue;
        }
        const __typeof__(rec.u) *u = &rec.u;
        printf("%s s=%u t=%" PRIu64 " %d/%d c=%d", tr_rec_type_name(rec.type), rec.stream, rec.time, rec.pid, rec.tid, rec.cpu);
        switch (rec.type) {
        case TR_REC_STREAM_START: {
            printf(" v%u.%u", u->stream_start.major, u->stream_start.minor);
            if (u->stream_start.incompat) printf(" incompat=0x%x", u->stream_start.incompat);
            break;
        }
        case TR_REC_STREAM_END: {
            printf(" complete=%u chunks=%" PRIu64 " records=%" PRIu64 " lost=%" PRIu64, u->stream_end.complete,
                   u->stream_end.chunks, u->stream_end.records, u->stream_end.lost);
            const char *k, *v;
            for (size_t i = 0; tr_reader_meta_at(r, i, &k, &v); i++) printf("\n  meta %s=%s", k, v);
            for (uint32_t id = 1; tr_reader_event(r, id); id++) {
                const tr_event_def *d = tr_reader_event(r, id);
                printf("\n  event %u %u %" PRIu64 " %" PRIu64 " %u %s", d->id, d->kind, d->config, d->sample_value, d->flags, d->name);
            }
            const char *bn;
            const uint8_t *bd;
            size_t bl;
            for (size_t i = 0; tr_reader_blob_at(r, "", i, &bn, &bd, &bl); i++) printf("\n  blob %s %zu", bn, bl);
            for (uint32_t nr = 0; nr < 512; nr++) {
                const char *sn = tr_reader_syscall_name(r, NULL, nr);
                if (sn) printf("\n  syscall %u %s", nr, sn);
            }
            break;
        }
        case TR_REC_COMM: printf(" exec=%u \"%.*s\"", u->comm.exec, (int)u->comm.len, u->comm.comm); break;
        case TR_REC_FORK: printf(" %d/%d", u->fork.ppid, u->fork.ptid); break;
        case TR_REC_EXIT: printf(" %d %u", u->exit.status, u->exit.flags); break;
        case TR_REC_SWITCH: printf(" %u", u->sw.flags); break;
        case TR_REC_MMAP:
            printf(" %" PRIx64 " %" PRIx64 " %" PRIx64 " %u %u ", u->mmap.start, u->mmap.len, u->mmap.pgoff, u->mmap.prot, u->mmap.flags);
            hex(u->mmap.build_id, u->mmap.build_id_len);
            printf(" %.*s", (int)u->mmap.path_len, u->mmap.path);
            break;
        case TR_REC_SAMPLE:
            printf(" ev=%u period=%" PRIu64, u->sample.event, u->sample.period);
            stack(r, u->sample.stack);
            if (u->sample.abi) {
                printf(" abi=%u mask=%" PRIx64, u->sample.abi, u->sample.regs_mask);
                for (uint32_t i = 0; i < u->sample.nregs; i++) printf(" %" PRIx64, u->sample.regs[i]);
            }
            if (u->sample.stack_copy_len) hex(u->sample.stack_copy, u->sample.stack_copy_len);
            if (u->sample.raw_len) printf(" raw%u", u->sample.raw_flags), hex(u->sample.raw, u->sample.raw_len);
            break;
        case TR_REC_COUNTER:
            printf(" ev=%u %" PRIu64 " %" PRIu64 " %" PRIu64 " run=%u f=%u", u->counter.event, u->counter.value,
                   u->counter.enabled, u->counter.running, u->counter.run, u->counter.flags);
            break;
        case TR_REC_SYSCALL:
            printf(" nr=%u f=%u ret=%" PRId64 " d=%" PRIu64 " args", u->syscall.nr, u->syscall.flags, u->syscall.ret, u->syscall.duration);
            for (uint32_t i = 0; i < u->syscall.nargs; i++) printf(" %" PRIx64, u->syscall.args[i]);
            caps(r, u->syscall.ncaptures, u->syscall.captures);
            if (u->syscall.stack) stack(r, u->syscall.stack);
            break;
        case TR_REC_SIGNAL:
            printf(" %u %d %u ", u->signal.signo, u->signal.code, u->signal.flags);
            hex(u->signal.siginfo, u->signal.siginfo_len);
            break;
        case TR_REC_LIBCALL:
            printf(" "), str(r, u->libcall.func);
            printf(" f=%u ret=%" PRId64 " d=%" PRIu64 " args", u->libcall.flags, u->libcall.ret, u->libcall.duration);
            for (uint32_t i = 0; i < u->libcall.nargs; i++) printf(" %" PRIx64, u->libcall.args[i]);
            caps(r, u->libcall.ncaptures, u->libcall.captures);
            break;
        case TR_REC_TRACE_EVENT:
            printf(" ev=%u f=%u ", u->trace_event.event, u->trace_event.flags);
            hex(u->trace_event.data, u->trace_event.len);
            break;
        case TR_REC_FUNCTION:
            printf(" %" PRIx64 " %" PRIx64 " %u %u %" PRIu64, u->function.ip, u->function.parent_ip, u->function.kind,
                   u->function.depth, u->function.duration);
            break;
        case TR_REC_LOST: printf(" ev=%u kind=%u %" PRIu64, u->lost.event, u->lost.kind, u->lost.count); break;
        case TR_REC_SYMBOL:
            printf(" "), str(r, u->symbol.module);
            printf(" %" PRIx64 " %" PRIx64 " ", u->symbol.start, u->symbol.size), str(r, u->symbol.name);
            printf(" %u", u->symbol.flags);
            break;
        case TR_REC_MODULE_STATUS:
            printf(" "), str(r, u->module_status.module);
            printf(" %u ", u->module_status.status), str(r, u->module_status.detail), putchar(' ');
            hex(u->module_status.build_id, u->module_status.build_id_len);
            break;
        }
        putchar('\n');
    }
    return status;
}
