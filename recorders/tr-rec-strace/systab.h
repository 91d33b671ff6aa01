/* systab.h - the recording architecture's syscall numbers and names. */
#ifndef TR_STRACE_SYSTAB_H
#define TR_STRACE_SYSTAB_H

#include <stdint.h>
#include <stddef.h>

#define SYSTAB_MAX 1024 /* numbers are below this on x86_64 */
#define SYSTAB_ARCH "x86_64"

/* The name of nr, or NULL. */
const char *systab_name(uint32_t nr);
/* The number of name, or -1. */
int systab_nr(const char *name);
/* Entries in table order, for tr_writer_syscall_table. */
size_t systab_count(void);
void systab_entry(size_t i, uint32_t *nr, const char **name);

#endif
