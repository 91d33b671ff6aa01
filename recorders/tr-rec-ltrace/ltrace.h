/*
 * ltrace.h - tr-rec-ltrace's parts: the functions to probe (select.c, on the ELF
 * reading of model/uprobe), the uprobes in tracefs (probes.c, a model/uprobe group)
 * and the recording through perf events (record.c).
 */
#ifndef TR_LTRACE_H
#define TR_LTRACE_H

#include <stdint.h>
#include <sys/types.h>

#include "libproto.h"
#include "uprobe/uprobe.h"
#include "tr.h"

/* One probed function: an entry uprobe and a return uprobe. */
struct func {
    char *name;            /* as shown */
    char *path;            /* the file it is defined in */
    uint64_t off;          /* its file offset there */
    uint64_t probe_off;    /* where its probes go (elf_probe_point) */
    int in_main;           /* a -x function of the main binary: every call counts */
    const struct libproto *proto;
    unsigned nargs, nstr;  /* registers fetched at entry, strings among them */
    unsigned format;       /* a printf format at argument format - 1 (0: none): all six registers
                            * and VA_STACK stack words fetched, and a string from each after it */
    int ret_string;        /* the return value is a string, read at return */
    int no_ret;            /* no return probe: returns twice (setjmp, vfork) or never (longjmp, exit) */
    uint64_t id_entry, id_ret; /* tracepoint ids */
    uint32_t name_id;      /* string id in the trace */
};

struct funcs {
    struct func *v;
    size_t n, cap;
};

#define VA_STACK 4 /* the stack words read for a printf's variadic arguments */

/* Which functions (select.c): -e rules, -l, -x */
struct select;
struct select *select_new(void);
int select_add_e(struct select *s, const char *expr, char *err, size_t errlen);
void select_add_lib(struct select *s, const char *lib);
void select_add_x(struct select *s, const char *pattern);
/* Whether -e or -l chose the calls: ltrace then names them CALLER->NAME. */
int select_named(const struct select *s);
/* Add the functions to probe for main binary exe whose libraries are libs[0..nlibs) (NULL:
 * those it needs, as the dynamic loader finds them) to out (those there already are not
 * added twice); the paths of the libraries looked at in *examined when not NULL. */
int select_resolve(struct select *s, const char *exe, char *const *libs, size_t nlibs,
                   const struct libprotos *protos, struct funcs *out, char ***examined, size_t *nexamined,
                   char *err, size_t errlen);
/* Add the functions to probe in a library loaded later (dlopen). */
int select_library(struct select *s, const char *path, const struct libprotos *protos, struct funcs *out);
void select_free(struct select *s);
void funcs_free(struct funcs *f);

/* Uprobes (probes.c): created in group tr_ltrace_<our pid>, removed by probes_remove
 * (also at exit: every way out removes them). */
int probes_cleanup_stale(char *err, size_t errlen);
int probes_create(struct funcs *f, size_t from, char *err, size_t errlen); /* f->v[from..] */
void probes_remove(void);

/* Recording (record.c) */
struct rec_opts {
    int follow;            /* -f */
    int syscalls;          /* -S */
    uint64_t sys_id[2];    /* -S: the ids of raw_syscalls sys_enter, sys_exit */
    uint32_t strsize;      /* -s */
    const char *exe;       /* the main binary */
    char **libs; size_t nlibs; /* the libraries looked at for it */
    struct select *sel;    /* for the libraries and programs mapped later */
    const struct libprotos *protos;
};
struct rec_result { uint64_t calls; uint64_t lost; int status; /* wait status, -1 none */ };
/* Record the calls of child (stopped at the handshake: released by writing go_fd) or of
 * the attached pids.  Returns 0 or -1 (message printed). */
int record_run(tr_writer *w, const struct rec_opts *o, struct funcs *f, pid_t child, int go_fd,
               const pid_t *pids, size_t npids, struct rec_result *res);
extern volatile int record_stop; /* set by SIGINT/SIGTERM */

#endif
