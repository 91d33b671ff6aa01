/*
 * syscount.h - the strace -c table: calls, errors and time per syscall name,
 * sorted and spelled as strace -c prints it.  tr-cat -c builds it from a
 * trace, tr-rec-strace -c while it records.  Prints nothing: the table's
 * text goes into a syscalls_buf.
 */
#ifndef MODEL_SYSCOUNT_H
#define MODEL_SYSCOUNT_H

#include <stdint.h>
#include <stddef.h>

#include "syscalls.h"
#include "syscalls_decode.h"

struct syscount_row {
    char *name;
    uint64_t calls, errors, ns;
};

struct syscount {
    struct syscount_row *rows;
    size_t nrows, cap;
    int32_t by_nr[SYSCALLS_NR_MAX]; /* row index + 1 of a number (one stream's table), 0 unknown */
};

void syscount_init(struct syscount *s);
void syscount_free(struct syscount *s);
/* Forget the numbers (a new stream has its own table); the rows stay. */
void syscount_forget_numbers(struct syscount *s);
/* One call that returned: nr of the current table (or >= SYSCALLS_NR_MAX), its
 * name, whether it failed, the time it took.  0, or TR_E_NOMEM. */
int syscount_add(struct syscount *s, uint32_t nr, const char *name, int failed, uint64_t ns);
/* Sort by "time" (the default, NULL), "calls", "errors", "name" or "nothing". */
void syscount_sort(struct syscount *s, const char *key);
/* The table as strace -c prints it (nothing when no call was counted). */
void syscount_format(const struct syscount *s, struct syscalls_buf *b);
/* The JSON Lines of tr-cat -j -c. */
void syscount_format_json(const struct syscount *s, struct syscalls_buf *b);

#endif
