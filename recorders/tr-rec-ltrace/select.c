/* select.c - which functions to probe: ltrace's -e rules, -l and -x, applied to the
 * functions the main binary imports from its libraries and to its own (-x). */
#include <fnmatch.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ltrace.h"

struct rule { int neg; char *func, *lib; /* lib NULL: any library */ };

struct select {
    struct rule *rules; size_t nrules;
    char **x; size_t nx;
};

struct select *select_new(void)
{
    return calloc(1, sizeof(struct select));
}

static int add_rule(struct select *s, int neg, const char *tok, size_t n)
{
    struct rule *nv = realloc(s->rules, (s->nrules + 1) * sizeof *nv);
    if (!nv)
        return -1;
    s->rules = nv;
    char *t = strndup(tok, n), *at = t ? strchr(t, '@') : NULL;
    if (!t)
        return -1;
    if (at)
        *at++ = 0;
    nv[s->nrules].neg = neg;
    nv[s->nrules].func = strdup(*t ? t : "*");
    nv[s->nrules].lib = at ? strdup(at) : NULL;
    free(t);
    s->nrules++;
    return 0;
}

/* [!]rule[+rule|-rule]...: '-' before a rule, or '!' before the first, excludes it */
int select_add_e(struct select *s, const char *expr, char *err, size_t errlen)
{
    const char *p = expr;
    int neg = 0;
    if (*p == '!') {
        neg = 1;
        p++;
        if (!s->nrules && add_rule(s, 0, "*", 1) < 0) /* "!free": everything but free */
            return -1;
    }
    while (*p) {
        size_t n = strcspn(p, "+-");
        if (!n) {
            snprintf(err, errlen, "empty rule");
            return -1;
        }
        if (add_rule(s, neg, p, n) < 0)
            return -1;
        p += n;
        if (*p) {
            neg = *p == '-';
            if (!*++p) {
                snprintf(err, errlen, "empty rule");
                return -1;
            }
        }
    }
    return 0;
}

int select_named(const struct select *s)
{
    return s->nrules > 0;
}

void select_add_lib(struct select *s, const char *lib)
{
    char buf[PATH_MAX + 2];
    snprintf(buf, sizeof buf, "*@%s", lib);
    add_rule(s, 0, buf, strlen(buf));
}

void select_add_x(struct select *s, const char *pattern)
{
    char **nv = realloc(s->x, (s->nx + 1) * sizeof *nv);
    if (nv) {
        s->x = nv;
        if ((nv[s->nx] = strdup(pattern)))
            s->nx++;
    }
}

/* The C runtime's own calls from the binary's startup and teardown code, not the
 * program's (ltrace does not see them either): only when a rule names them. */
static const char *const runtime[] = {"__libc_start_main", "__cxa_finalize", "__gmon_start__"};

static int selected(const struct select *s, const char *name, const char *libpath)
{
    int rt = 0;
    for (size_t i = 0; i < sizeof runtime / sizeof runtime[0]; i++)
        rt |= !strcmp(runtime[i], name);
    if (!s->nrules)
        return !rt; /* nothing asked: every import (-x adds to them, as ltrace's) */
    char *copy = strdup(libpath);
    const char *base = copy ? basename(copy) : libpath;
    int in = 0;
    for (size_t i = 0; i < s->nrules; i++) {
        const struct rule *r = &s->rules[i];
        if ((!rt || !strcmp(r->func, name)) && fnmatch(r->func, name, 0) == 0 && (!r->lib || fnmatch(r->lib, base, 0) == 0 ||
                                               fnmatch(r->lib, libpath, 0) == 0))
            in = !r->neg;
    }
    free(copy);
    return in;
}

/* A return probe replaces the return address on the stack with the kernel's trampoline:
 * setjmp would save the trampoline's address for a later longjmp, and a vfork child would
 * return through it on its parent's stack.  These functions get an entry probe only, and so
 * do those that never return. */
static const char *const no_return_probe[] = {
    "setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "getcontext", "swapcontext", "vfork",
    "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "setcontext", "exit", "_exit", "_Exit",
    "abort", "__stack_chk_fail", "__assert_fail", "pthread_exit", "execv", "execve", "execvp",
};

/* Function name (shown as shown) at file offset off of path. */
static int add_func(struct funcs *out, const char *name, const char *shown, const char *path, uint64_t off,
                    int in_main, const struct libprotos *protos)
{
    for (size_t i = 0; i < out->n; i++)
        if (out->v[i].off == off && !strcmp(out->v[i].path, path))
            return 0;
    if (array_reserve(&out->v, &out->cap, out->n + 1, sizeof *out->v, 32) < 0)
        return -1;
    struct func *f = &out->v[out->n];
    memset(f, 0, sizeof *f);
    f->name = strdup(shown);
    f->path = strdup(path);
    f->off = off;
    f->probe_off = elf_probe_point(path, off);
    f->in_main = in_main;
    f->proto = libproto_find(protos, name);
    const struct libproto *p = f->proto ? f->proto : libproto_unknown();
    f->nargs = p->nargs;
    for (unsigned i = 0; i < p->nargs; i++) {
        f->nstr += libproto_is_string(p->args[i]);
        if (p->args[i] == LP_FORMAT && !f->format) {
            f->format = i + 1;
            f->nargs = 6;
        }
    }
    f->ret_string = libproto_is_string(p->ret);
    for (size_t i = 0; i < sizeof no_return_probe / sizeof no_return_probe[0]; i++)
        f->no_ret |= !strcmp(name, no_return_probe[i]);
    if (!f->name || !f->path)
        return -1;
    out->n++;
    return 0;
}

/* Add path (taken) unless it is there already. */
static int add_path(char ***paths, size_t *n, char *p)
{
    if (!p)
        return 0;
    for (size_t j = 0; j < *n; j++)
        if (!strcmp((*paths)[j], p)) {
            free(p);
            return 0;
        }
    char **nv = realloc(*paths, (*n + 1) * sizeof *nv);
    if (!nv) {
        free(p);
        return -1;
    }
    *paths = nv;
    nv[(*n)++] = p;
    return 0;
}

/* The files of who's DT_NEEDED entries, as the dynamic loader finds them. */
static int add_needed(const struct elffile *who, char ***paths, size_t *n)
{
    char origin[PATH_MAX];
    snprintf(origin, sizeof origin, "%s", who->path);
    char *slash = strrchr(origin, '/');
    if (slash)
        *slash = 0;
    for (size_t k = 0; k < who->nneeded; k++)
        if (add_path(paths, n, elf_find_library(who->needed[k], who->runpath, origin)) < 0)
            return -1;
    return 0;
}

static int matches_x(const struct select *s, const char *name)
{
    for (size_t k = 0; k < s->nx; k++)
        if (fnmatch(s->x[k], name, 0) == 0)
            return 1;
    return 0;
}

/* The functions of library lf that -x patterns match: every call counts, shown as ltrace
 * shows them, NAME@LIB; with later (dlopen'ed) libraries also the functions -e rules name
 * (a rule naming the library, or a function pattern other than "*"). */
static int add_lib_funcs(const struct select *s, const struct elffile *lf, int later,
                         const struct libprotos *protos, struct funcs *out)
{
    const char *base = strrchr(lf->path, '/') ? strrchr(lf->path, '/') + 1 : lf->path;
    int rc = 0;
    for (size_t k = 0; k < lf->ndefs && !rc; k++) {
        const struct elfsym *d = &lf->defs[k];
        int x = matches_x(s, d->name), e = 0;
        for (size_t i = 0; later && !x && i < s->nrules; i++)
            e |= !s->rules[i].neg && (s->rules[i].lib || strcmp(s->rules[i].func, "*"));
        if (!x && !(e && selected(s, d->name, lf->path)))
            continue;
        int64_t off = d->ifunc ? elf_ifunc_offset(lf, d->name) : elf_offset(lf, d->vaddr);
        if (off < 0)
            continue;
        char shown[256];
        snprintf(shown, sizeof shown, x ? "%s@%s" : "%s", d->name, base);
        rc = add_func(out, d->name, shown, lf->path, (uint64_t)off, x, protos);
    }
    return rc;
}

int select_library(struct select *s, const char *path, const struct libprotos *protos, struct funcs *out)
{
    struct elffile lf;
    char err[256];
    if (elf_load(&lf, path, err, sizeof err) < 0)
        return 0; /* not a library we can read: nothing to probe there */
    int rc = add_lib_funcs(s, &lf, 1, protos, out);
    elf_free(&lf);
    return rc;
}

int select_resolve(struct select *s, const char *exe, char *const *libs, size_t nlibs,
                   const struct libprotos *protos, struct funcs *out, char ***examined, size_t *nexamined,
                   char *err, size_t errlen)
{
    struct elffile main;
    if (elf_load(&main, exe, err, errlen) < 0)
        return -1;
    /* the libraries in the dynamic loader's search order: breadth first from the binary */
    struct elffile *lf = NULL;
    size_t nlf = 0;
    char **paths = NULL;
    size_t npaths = 0;
    int rc = 0;
    if (libs)
        for (size_t i = 0; i < nlibs && !rc; i++)
            rc = add_path(&paths, &npaths, strdup(libs[i]));
    else
        rc = add_needed(&main, &paths, &npaths);
    for (size_t i = 0; i < npaths && !rc; i++) {
        struct elffile *nv = realloc(lf, (nlf + 1) * sizeof *lf);
        if (!nv) {
            rc = -1;
            break;
        }
        lf = nv;
        if (elf_load(&lf[nlf], paths[i], err, errlen) < 0)
            continue; /* the loader's vdso, a data file: no library to probe */
        if (!libs)
            rc = add_needed(&lf[nlf], &paths, &npaths);
        nlf++;
    }
    for (size_t i = 0; i < main.nimports && !rc; i++) {
        const char *name = main.imports[i];
        for (size_t l = 0; l < nlf; l++) {
            const struct elfsym *d = NULL;
            for (size_t k = 0; k < lf[l].ndefs && !d; k++)
                if (!strcmp(lf[l].defs[k].name, name))
                    d = &lf[l].defs[k];
            if (!d)
                continue;
            if (selected(s, name, lf[l].path)) {
                int64_t off = d->ifunc ? elf_ifunc_offset(&lf[l], name) : elf_offset(&lf[l], d->vaddr);
                if (off >= 0)
                    rc = add_func(out, name, name, lf[l].path, (uint64_t)off, 0, protos);
            }
            break;
        }
    }
    for (size_t i = 0; i < main.ndefs && !rc; i++)
        if (matches_x(s, main.defs[i].name)) {
            int64_t off = elf_offset(&main, main.defs[i].vaddr);
            if (off >= 0)
                rc = add_func(out, main.defs[i].name, main.defs[i].name, main.path, (uint64_t)off, 1, protos);
        }
    for (size_t i = 0; i < nlf; i++) {
        if (!rc)
            rc = add_lib_funcs(s, &lf[i], 0, protos, out);
        elf_free(&lf[i]);
    }
    if (examined && !rc) {
        *examined = paths;
        *nexamined = npaths;
    } else {
        for (size_t i = 0; i < npaths; i++)
            free(paths[i]);
        free(paths);
    }
    free(lf);
    elf_free(&main);
    if (rc < 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

void select_free(struct select *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nrules; i++) {
        free(s->rules[i].func);
        free(s->rules[i].lib);
    }
    for (size_t i = 0; i < s->nx; i++)
        free(s->x[i]);
    free(s->rules);
    free(s->x);
    free(s);
}

void funcs_free(struct funcs *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].name);
        free(f->v[i].path);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}
