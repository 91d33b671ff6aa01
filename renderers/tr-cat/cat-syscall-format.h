/*
 * cat-syscall-format.h - one syscall record spelled as strace spells it: the entry
 * part ("read(3, "), the exit part ("\"...\"..., 832) = 832") and the return value,
 * from the raw arguments and the captures tr-rec-strace recorded.
 */
#ifndef CAT_SYSCALL_FORMAT_H
#define CAT_SYSCALL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "cat.h"
#include "syscalls.h"
#include "syscalls_decode.h"

struct sc_cap {
    uint32_t arg, kind, flags;
    size_t off, len;
};

struct sc_item {
    uint32_t type;        /* TR_REC_SYSCALL / SIGNAL / EXIT */
    uint64_t time;
    int32_t pid, tid;
    uint32_t nr, flags;   /* syscall; signal: signo, flags */
    int64_t ret;          /* syscall; exit: status */
    uint64_t dur;
    uint64_t args[6];
    uint32_t nargs, ncap;
    struct sc_cap cap[TR_MAX_CAPTURES];
    uint8_t *data;        /* captures or siginfo */
    size_t data_len;
    char *stack;          /* -k: its " > module(func+0xoff) [0xaddr]" lines, NUL-terminated */
    int32_t code;
    int interrupted;      /* its entry line was cut by "<unfinished ...>" */
    int entry_done;       /* its entry line was printed by an earlier flush */
    int detached;         /* unfinished, and nothing of its thread follows: a detach */
    int done;
};

/* The name and descriptor of nr in the stream's own syscall table (mapped
 * once per number and stream, cat-syscall.c), NULL when the table lacks it. */
const struct syscalls_entry *sc_entry(struct cat_ctx *c, uint32_t nr);
/* The syscall's name ("syscall_0x1c3" when the table lacks it: valid until the next call). */
const char *sc_sys_name(struct cat_ctx *c, uint32_t nr);
int sc_is_err(int64_t ret);
/* -T: given to tr-cat, or recorded by tr-rec-strace -T */
int sc_show_time(const struct cat_ctx *c);
const struct sc_cap *sc_find_cap(const struct sc_item *it, uint32_t arg, uint32_t kind);
/* the same, recorded at exit (at_exit 1) or at entry (0) */
const struct sc_cap *sc_find_cap_at(const struct sc_item *it, uint32_t arg, uint32_t kind, int at_exit);
const uint8_t *sc_cap_data(const struct sc_item *it, const struct sc_cap *cp);
/* "name(" and the arguments known at entry, with ", " when more follow at exit */
void sc_format_entry(struct cat_ctx *c, const struct sc_item *it, struct syscalls_buf *b);
/* the arguments printed at exit, ")", padding to column 40 from line_start, "= ret" and -T */
void sc_format_exit(struct cat_ctx *c, const struct sc_item *it, struct syscalls_buf *b, size_t line_start);

#endif
