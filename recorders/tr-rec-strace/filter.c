/* filter.c - syscall selection (see filter.h). */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include "array.h"
#include "filter.h"

void filter_init(struct filter *f)
{
    memset(f, 0, sizeof *f);
    memset(f->trace, 1, sizeof f->trace);
    f->status = ST_ALL;
}

void filter_free(struct filter *f)
{
    for (size_t i = 0; i < f->npaths; i++)
        free(f->paths[i]);
    free(f->paths);
    f->paths = NULL;
    f->npaths = f->paths_cap = 0;
}

/* Mark in set every syscall the token names; 0, or -1 when it names nothing. */
static int select_token(uint8_t *set, const char *tok, char *err, size_t errlen)
{
    int optional = 0, any = 0;
    if (tok[0] == '?') {
        optional = 1;
        tok++;
    }
    if (strcmp(tok, "all") == 0) {
        memset(set, 1, SYSCALLS_NR_MAX);
        return 0;
    }
    if (strcmp(tok, "none") == 0)
        return 0;
    if (tok[0] == '%' || (syscalls_class_from_name(tok) && syscalls_host_nr(tok) < 0)) {
        uint32_t cls = syscalls_class_from_name(tok);
        if (!cls) {
            if (optional)
                return 0;
            snprintf(err, errlen, "invalid system call class '%s'", tok);
            return -1;
        }
        struct syscalls_table host = {0};
        if (syscalls_table_host(&host) < 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (uint32_t nr = 0; nr < SYSCALLS_NR_MAX; nr++) {
            const struct syscalls_entry *e = syscalls_table_get(&host, nr);
            if (e && e->desc && (e->desc->classes & cls))
                set[nr] = any = 1;
        }
        syscalls_table_free(&host);
        return 0;
    }
    if (tok[0] == '/') {
        regex_t re;
        if (regcomp(&re, tok + 1, REG_EXTENDED | REG_NOSUB) != 0) {
            snprintf(err, errlen, "invalid regular expression '%s'", tok + 1);
            return -1;
        }
        for (size_t i = 0; i < syscalls_host_count(); i++) {
            uint32_t nr;
            const char *name;
            syscalls_host_entry(i, &nr, &name);
            if (nr < SYSCALLS_NR_MAX && regexec(&re, name, 0, NULL, 0) == 0)
                set[nr] = any = 1;
        }
        regfree(&re);
        if (!any && !optional) {
            snprintf(err, errlen, "no system call matches '%s'", tok + 1);
            return -1;
        }
        return 0;
    }
    int nr = syscalls_host_nr(tok);
    if (nr < 0) {
        /* strace accepts a number too */
        char *end;
        errno = 0;
        long v = strtol(tok, &end, 10);
        if (*tok && !*end && !errno && v >= 0 && v < SYSCALLS_NR_MAX)
            nr = (int)v;
    }
    if (nr < 0 || nr >= SYSCALLS_NR_MAX) {
        if (optional)
            return 0;
        snprintf(err, errlen, "invalid system call '%s'", tok);
        return -1;
    }
    set[nr] = 1;
    return 0;
}

static int parse_trace(struct filter *f, const char *list, char *err, size_t errlen)
{
    uint8_t set[SYSCALLS_NR_MAX];
    int negate = 0;
    memset(set, 0, sizeof set);
    if (*list == '!') {
        negate = 1;
        list++;
    }
    char *copy = strdup(list);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if ((rc = select_token(set, tok, err, errlen)) < 0)
            break;
    free(copy);
    if (rc < 0)
        return -1;
    if (!f->seen_trace) {
        memset(f->trace, 0, sizeof f->trace);
        f->seen_trace = 1;
    }
    for (int i = 0; i < SYSCALLS_NR_MAX; i++)
        if (negate ? !set[i] : set[i])
            f->trace[i] = 1;
    return 0;
}

static int parse_status(struct filter *f, const char *list, char *err, size_t errlen)
{
    static const struct { const char *name; uint32_t bit; } names[] = {
        {"successful", ST_SUCCESSFUL}, {"failed", ST_FAILED}, {"unfinished", ST_UNFINISHED},
        {"unavailable", ST_UNAVAILABLE}, {"detached", ST_DETACHED}, {"all", ST_ALL},
        {"none", 0},
    };
    int negate = 0;
    uint32_t set = 0;
    if (*list == '!') {
        negate = 1;
        list++;
    }
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        size_t i;
        for (i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == n && strncmp(names[i].name, p, n) == 0)
                break;
        if (i == sizeof names / sizeof names[0]) {
            snprintf(err, errlen, "invalid status '%.*s'", (int)n, p);
            return -1;
        }
        set |= names[i].bit;
        p += n;
        if (*p == ',')
            p++;
    }
    f->status = negate ? ST_ALL & ~set : set;
    return 0;
}

int filter_parse_e(struct filter *f, const char *expr, char *err, size_t errlen)
{
    const char *eq = strchr(expr, '=');
    if (!eq)
        return parse_trace(f, expr, err, errlen);
    size_t klen = (size_t)(eq - expr);
    if ((klen == 5 && strncmp(expr, "trace", 5) == 0) || (klen == 1 && expr[0] == 't'))
        return parse_trace(f, eq + 1, err, errlen);
    if (klen == 6 && strncmp(expr, "status", 6) == 0)
        return parse_status(f, eq + 1, err, errlen);
    snprintf(err, errlen, "unsupported qualifier '%.*s' (supported: trace, status)", (int)klen, expr);
    return -1;
}

void filter_add_path(struct filter *f, const char *path)
{
    char resolved[PATH_MAX];
    if (array_reserve(&f->paths, &f->paths_cap, f->npaths + 2, sizeof *f->paths, 4) < 0)
        return;
    if ((f->paths[f->npaths] = strdup(path)))
        f->npaths++;
    if (realpath(path, resolved) && strcmp(resolved, path) != 0)
        if ((f->paths[f->npaths] = strdup(resolved)))
            f->npaths++;
}

int filter_restricted(const struct filter *f)
{
    for (size_t i = 0; i < syscalls_host_count(); i++) {
        uint32_t nr;
        const char *name;
        syscalls_host_entry(i, &nr, &name);
        if (nr < SYSCALLS_NR_MAX && !f->trace[nr])
            return 1;
    }
    return 0;
}

int filter_path_matches(const struct filter *f, const char *path, size_t len)
{
    for (size_t i = 0; i < f->npaths; i++)
        if (strlen(f->paths[i]) == len && memcmp(f->paths[i], path, len) == 0)
            return 1;
    return 0;
}

int filter_bpf(const struct filter *f, struct sock_filter **prog, unsigned short *len)
{
    size_t traced = 0, allowed = 0;
    for (int i = 0; i < SYSCALLS_NR_MAX; i++)
        f->trace[i] ? traced++ : allowed++;
    /* list whichever set is smaller; the other is the default */
    int list_traced = traced <= allowed;
    size_t n = list_traced ? traced : allowed;
    size_t cap = 6 + 2 * n + 1;
    struct sock_filter *p = calloc(cap, sizeof *p), *q = p;
    if (!p)
        return -1;
    uint32_t hit = list_traced ? SECCOMP_RET_TRACE : SECCOMP_RET_ALLOW;
    uint32_t miss = list_traced ? SECCOMP_RET_ALLOW : SECCOMP_RET_TRACE;
    *q++ = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    *q++ = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    *q++ = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    *q++ = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    /* x32 and numbers beyond the table: stop, the tracer decides */
    *q++ = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SYSCALLS_NR_MAX, 0, 1);
    *q++ = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    for (int i = 0; i < SYSCALLS_NR_MAX; i++) {
        if (!f->trace[i] != !list_traced)
            continue;
        *q++ = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)i, 0, 1);
        *q++ = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, hit);
    }
    *q++ = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, miss);
    *prog = p;
    *len = (unsigned short)(q - p);
    return 0;
}
