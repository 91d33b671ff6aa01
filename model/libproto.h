/*
 * libproto.h - library-call prototypes as ltrace writes them
 * ("addr malloc(ulong);") and ltrace's formatting of arguments and return
 * values from them.  A table of common libc functions is built in; more
 * lines (a -F file, or the prototypes a trace carries) are added on top
 * and win over the built-in ones.  An unknown function is shown as ltrace
 * shows one: four integer registers and a return value, each guessed as ltrace does.
 */
#ifndef TR_MODEL_LIBPROTO_H
#define TR_MODEL_LIBPROTO_H

#include <stddef.h>
#include <stdint.h>

#include "syscalls_decode.h"
#include "tr.h"

enum lp_type {
    LP_VOID, LP_INT, LP_UINT, LP_LONG, LP_ULONG, LP_HEX, LP_OCT, LP_ADDR, LP_STRING, LP_CHAR,
    LP_FORMAT, /* a printf format: shown as its string */
};

#define LP_MAX_ARGS 6
/* ltrace.conf's enum(NAME[=VALUE], ...): a value shown by its name */
struct lp_enum {
    size_t n;
    struct { char name[32]; int64_t v; } e[];
};

struct libproto {
    char name[64];
    enum lp_type ret;
    unsigned nargs;
    enum lp_type args[LP_MAX_ARGS];
    const struct lp_enum *ret_enum, *arg_enum[LP_MAX_ARGS]; /* NULL: not an enum */
};

struct libprotos {
    struct libproto *v;
    size_t n, cap;
    struct lp_typedef { char name[32]; enum lp_type t; const struct lp_enum *en; } *tdefs; /* typedef NAME = TYPE; */
    size_t ntdefs;
    struct lp_enum **enums; /* owned */
    size_t nenums;
};

/* Parse one line: 0 and *p set, 1 a blank or comment line, -1 malformed. */
int libproto_parse(const char *line, struct libproto *p);
/* Add the lines of text (one prototype per line, and ltrace.conf's "typedef NAME = TYPE;" for the
 * lines after it; enum(...) as a type); -1 with *bad_line set on a malformed one. */
int libprotos_add_text(struct libprotos *t, const char *text, size_t len, unsigned *bad_line);
void libprotos_free(struct libprotos *t);
/* The prototype of name: t's last, else the built-in one, else NULL. */
const struct libproto *libproto_find(const struct libprotos *t, const char *name);
/* The prototype used for an unknown function. */
const struct libproto *libproto_unknown(void);
/* Whether arguments of this type are strings read at entry. */
static inline int libproto_is_string(enum lp_type t) { return t == LP_STRING || t == LP_FORMAT; }

/* Append ltrace's text of the arguments "16" / "\"hello\", 5" (captures:
 * strings read at entry, arg index 0..5) and of the return value. */
void libproto_format_args(struct syscalls_buf *b, const struct libproto *p, const uint64_t *args,
                          unsigned nargs, const tr_capture *caps, unsigned ncaps, uint32_t strsize);
void libproto_format_ret(struct syscalls_buf *b, const struct libproto *p, int64_t ret,
                         const tr_capture *caps, unsigned ncaps, uint32_t strsize);

#endif
