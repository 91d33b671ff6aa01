/* syscount.c - the strace -c table (syscount.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "syscount.h"
#include "tr.h"

void syscount_init(struct syscount *s)
{
    memset(s, 0, sizeof *s);
}

void syscount_free(struct syscount *s)
{
    for (size_t i = 0; i < s->nrows; i++)
        free(s->rows[i].name);
    free(s->rows);
    syscount_init(s);
}

void syscount_forget_numbers(struct syscount *s)
{
    memset(s->by_nr, 0, sizeof s->by_nr);
}

int syscount_add(struct syscount *s, uint32_t nr, const char *name, int failed, uint64_t ns)
{
    size_t i = nr < SYSCALLS_NR_MAX && s->by_nr[nr] ? (size_t)s->by_nr[nr] - 1 : s->nrows;
    if (i == s->nrows) {
        for (i = 0; i < s->nrows && strcmp(s->rows[i].name, name); i++)
            ;
        if (i == s->nrows) {
            if (array_reserve(&s->rows, &s->cap, s->nrows + 1, sizeof *s->rows, 64) < 0)
                return TR_E_NOMEM;
            struct syscount_row *r = &s->rows[s->nrows];
            memset(r, 0, sizeof *r);
            if (!(r->name = strdup(name)))
                return TR_E_NOMEM;
            s->nrows++;
        }
        if (nr < SYSCALLS_NR_MAX)
            s->by_nr[nr] = (int32_t)i + 1;
    }
    struct syscount_row *r = &s->rows[i];
    r->calls++;
    r->errors += failed != 0;
    r->ns += ns;
    return 0;
}

static int cmp_row(const void *a, const void *b, void *key)
{
    const struct syscount_row *x = a, *y = b;
    const char *k = key;
    if (!strcmp(k, "calls") && x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    if (!strcmp(k, "errors") && x->errors != y->errors)
        return x->errors > y->errors ? -1 : 1;
    if (!strcmp(k, "time") && x->ns != y->ns)
        return x->ns > y->ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

void syscount_sort(struct syscount *s, const char *key)
{
    if (!key)
        key = "time";
    if (strcmp(key, "nothing"))
        qsort_r(s->rows, s->nrows, sizeof *s->rows, cmp_row, (void *)key);
    syscount_forget_numbers(s); /* indexes moved */
}

static void totals(const struct syscount *s, struct syscount_row *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < s->nrows; i++) {
        t->calls += s->rows[i].calls;
        t->errors += s->rows[i].errors;
        t->ns += s->rows[i].ns;
    }
}

static void format_row(struct syscalls_buf *b, const struct syscount_row *r, uint64_t total_ns,
                       const char *name)
{
    double pct = total_ns ? 100.0 * (double)r->ns / (double)total_ns : 0.0;
    syscalls_buf_printf(b, "%6.2f %11.6f %11" PRIu64 " %9" PRIu64 " ", pct, (double)r->ns / 1e9,
                        r->calls ? r->ns / 1000 / r->calls : 0, r->calls);
    if (r->errors)
        syscalls_buf_printf(b, "%9" PRIu64, r->errors);
    else
        syscalls_buf_printf(b, "%9s", "");
    syscalls_buf_printf(b, " %s\n", name);
}

void syscount_format(const struct syscount *s, struct syscalls_buf *b)
{
    if (!s->nrows)
        return;
    struct syscount_row t;
    totals(s, &t);
    const char *dash = "------ ----------- ----------- --------- --------- ----------------\n";
    syscalls_buf_printf(b, "%% time     seconds  usecs/call     calls    errors syscall\n%s", dash);
    for (size_t i = 0; i < s->nrows; i++)
        format_row(b, &s->rows[i], t.ns, s->rows[i].name);
    syscalls_buf_puts(b, dash);
    format_row(b, &t, t.ns, "total");
}

void syscount_format_json(const struct syscount *s, struct syscalls_buf *b)
{
    if (!s->nrows)
        return;
    struct syscount_row t;
    totals(s, &t);
    for (size_t i = 0; i < s->nrows; i++) {
        const struct syscount_row *r = &s->rows[i];
        syscalls_buf_printf(b, "{\"type\":\"syscall_summary\",\"name\":\"%s\",\"calls\":%" PRIu64
                               ",\"errors\":%" PRIu64 ",\"ns\":%" PRIu64 "}\n",
                            r->name, r->calls, r->errors, r->ns);
    }
    syscalls_buf_printf(b, "{\"type\":\"syscall_summary_total\",\"calls\":%" PRIu64 ",\"errors\":%" PRIu64
                           ",\"ns\":%" PRIu64 "}\n", t.calls, t.errors, t.ns);
}
