/* fold.c - tr-fold's input dispatch and output. */
#include "fold.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "cli.h"
#include "tr.h"

void fold_opts_init(struct fold_opts *o)
{
    memset(o, 0, sizeof *o);
}

void fold_opts_free(struct fold_opts *o)
{
    free(o->pids.v);
    free(o->tids.v);
    free(o->comms);
    free(o->debug_dirs);
    memset(o, 0, sizeof *o);
}

int fold_add_id(struct id_set *s, int64_t id)
{
    if (array_reserve(&s->v, &s->cap, s->n + 1, sizeof *s->v, 8) < 0)
        return -1;
    s->v[s->n++] = id;
    return 0;
}

int fold_add_comm(struct fold_opts *o, const char *comm)
{
    if (array_reserve(&o->comms, &o->capcomms, o->ncomms + 1, sizeof *o->comms, 8) < 0)
        return -1;
    o->comms[o->ncomms++] = (char *)comm;
    return 0;
}

int fold_init(struct fold *f, const struct fold_opts *o)
{
    memset(f, 0, sizeof *f);
    f->o = o;
    smap_init(&f->map);
    return 0;
}

void fold_free(struct fold *f)
{
    smap_free(&f->map);
}

void fold_warn_other_events(const struct fold *f, const char *shown, const char *event, uint64_t n,
                            const char *other)
{
    if (!f->o->quiet)
        cli_warn("%s: folded event '%s' only; skipped %llu samples of others such as '%s' "
                 "(choose with --event)", shown, event, (unsigned long long)n, other);
}

int fold_text_lines(struct fold *f, struct lines *l, const char *shown)
{
    /* perf script text never holds a NUL byte: binary data is no input to fold */
    const char *head;
    size_t hl;
    if (lines_peek(l, 65536, &head, &hl) == 0 && memchr(head, 0, hl)) {
        cli_warn("%s: binary data, neither a trace nor perf script text", shown);
        return CLI_EXIT_FAIL;
    }
    /* times and fields come from a trace's records: text would fold sample counts under their name */
    if (f->o->offcpu || f->o->syscall_time || f->o->weight) {
        cli_warn("%s: perf script text: %s weighs a trace's %s; fold the trace itself", shown,
                 f->o->offcpu ? "--offcpu" : f->o->syscall_time ? "--syscall-time" : "--weight",
                 f->o->offcpu ? "sched_switch samples by time" : f->o->syscall_time ? "syscalls by time"
                                                                : "records by a field");
        return CLI_EXIT_FAIL;
    }
    struct pscript_stats st;
    int rc = pscript_fold(l, &f->o->ps, &f->map, &st);
    char msg[160];
    if (lines_error(l, rc, msg, sizeof msg)) {
        cli_warn("%s%s", shown, msg);
        return CLI_EXIT_FAIL;
    }
    if (rc < 0) {
        cli_warn("%s: out of memory", shown);
        return CLI_EXIT_FAIL;
    }
    if (st.other_event[0])
        fold_warn_other_events(f, shown, st.event, st.filtered, st.other_event);
    if (st.unrecognized && !f->o->quiet)
        cli_warn("%s: skipped %llu unrecognized lines (first at line %llu)", shown,
                 (unsigned long long)st.unrecognized,
                 (unsigned long long)st.first_unrecognized_line);
    if (st.unterminated && !f->o->quiet)
        cli_warn("%s: the last sample has no terminating blank line (truncated?): not counted, "
                 "as stackcollapse-perf.pl does", shown);
    if (st.records == 0 && st.unrecognized > 0) {
        cli_warn("%s: no perf script samples found", shown);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

int fold_input(struct fold *f, const char *path)
{
    const char *shown;
    int fd = cli_open_input(path, &shown);
    struct lines l;
    lines_init(&l, fd, f->o->max_line);
    const char *head;
    size_t hl;
    int status;
    if (lines_peek(&l, TR_SNIFF_BYTES, &head, &hl) < 0) {
        cli_warn("%s: read error: %s", shown, strerror(l.err));
        status = CLI_EXIT_FAIL;
    } else if (!f->o->force_perf_script && tr_is_trace(head, hl)) {
        status = fold_trace(f, &l, shown);
    } else {
        status = fold_text_lines(f, &l, shown);
    }
    lines_free(&l);
    if (fd != 0)
        close(fd);
    return status;
}

void fold_print(struct fold *f, FILE *out)
{
    size_t *idx = smap_sorted(&f->map);
    if (!idx) {
        cli_warn("out of memory");
        return;
    }
    for (size_t i = 0; i < f->map.n; i++) {
        const struct smap_entry *e = &f->map.e[idx[i]];
        uint64_t n = f->units_ns ? (e->n + 500) / 1000 : e->n;
        if (f->units_ns && n == 0)
            continue;
        /* " COUNT\n" by hand: cheaper than a printf per line */
        char num[24], *p = num + sizeof num;
        *--p = '\n';
        do
            *--p = (char)('0' + n % 10);
        while (n /= 10);
        *--p = ' ';
        fwrite(smap_key(&f->map, e), 1, e->len, out);
        fwrite(p, 1, (size_t)(num + sizeof num - p), out);
    }
    free(idx);
}
