/*
 * sym-dump - print what the symbolize tests check, in a stable form.
 *   sym-dump [-mlrs] FILE
 * One line per sample: its stack root first, frames separated by ';', each
 * frame its function name (or 0xADDR when not symbolized), with -m
 * "[module basename]" appended, with -l ":line" and "@file basename".
 * Inline frames get "(inline)", kernel frames "[k]", JIT "[j]".
 * -s: also module status lines; -r: also every other record's type, pid,
 * tid and time (for comparing whole traces).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tr.h"

static const char *base(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p ? p : "";
}

static void frame(tr_reader *r, uint32_t id, int mod, int lines)
{
    const tr_frame *f = tr_reader_frame(r, id);
    if (!f) {
        printf("<bad frame %u>", id);
        return;
    }
    if (!(f->flags & TR_FRAME_SYMBOLIZED)) {
        printf("0x%llx", (unsigned long long)f->addr);
        return;
    }
    const char *fn = f->func ? tr_reader_string(r, f->func, NULL) : NULL;
    printf("%s", fn ? fn : "<nofunc>");
    if (f->flags & TR_FRAME_INLINE)
        printf("(inline)");
    if (f->flags & TR_FRAME_KERNEL)
        printf("[k]");
    if (f->flags & TR_FRAME_JIT)
        printf("[j]");
    if (mod)
        printf("[%s]", base(f->module ? tr_reader_string(r, f->module, NULL) : NULL));
    if (lines && f->file)
        printf("@%s:%u", base(tr_reader_string(r, f->file, NULL)), f->line);
}

int main(int argc, char **argv)
{
    int c, mod = 0, lines = 0, status = 0, all = 0;
    while ((c = getopt(argc, argv, "mlrs")) != -1) {
        switch (c) {
        case 'm': mod = 1; break;
        case 'l': lines = 1; break;
        case 'r': all = 1; break;
        case 's': status = 1; break;
        default: return 2;
        }
    }
    int fd = optind < argc ? open(argv[optind], O_RDONLY) : 0;
    tr_reader *r;
    if (fd < 0 || tr_reader_open(&r, fd, NULL) < 0) {
        fprintf(stderr, "sym-dump: cannot read %s\n", optind < argc ? argv[optind] : "stdin");
        return 1;
    }
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            fprintf(stderr, "sym-dump: %s\n", tr_strerror(rc));
            if (tr_error_recoverable(rc))
                continue;
            return 3;
        }
        if (rec.type == TR_REC_SAMPLE) {
            const uint32_t *ids;
            int n = rec.u.sample.stack ? tr_reader_stack(r, rec.u.sample.stack, &ids) : 0;
            if (all)
                printf("sample %d/%d %llu regs=%u copy=%zu ", rec.pid, rec.tid,
                       (unsigned long long)rec.time, rec.u.sample.nregs, rec.u.sample.stack_copy_len);
            for (int i = n - 1; i >= 0; i--) {
                frame(r, ids[i], mod, lines);
                if (i)
                    putchar(';');
            }
            putchar('\n');
        } else if (rec.type == TR_REC_MODULE_STATUS && (status || all)) {
            const char *m = tr_reader_string(r, rec.u.module_status.module, NULL);
            const char *d = tr_reader_string(r, rec.u.module_status.detail, NULL);
            printf("module %s status=%u %s\n", m ? m : "?", rec.u.module_status.status, d ? d : "");
        } else if (all) {
            const char *t = tr_rec_type_name(rec.type);
            printf("%s %d/%d %llu\n", t ? t : "?", rec.pid, rec.tid, (unsigned long long)rec.time);
        }
    }
    tr_reader_free(r);
    return 0;
}
