/* kallsyms.h - the part of a /proc/kallsyms text a trace needs: the
 * "kallsyms" blob recorders write (tr-rec-perf: the sampled kernel
 * addresses; tr-rec-ftrace: the functions tracepoint fields point to). */
#ifndef MODEL_KALLSYMS_H
#define MODEL_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"

/* From the /proc/kallsyms text all (NUL-terminated), the lines of the text
 * symbols covering each of the n addresses (sorted here, in place) and of
 * the symbol after each (which bounds its size), newline-terminated, in a
 * new buffer of *out_len bytes; NULL when out of memory.  text and etext
 * (each may be NULL) receive the addresses of _text and _etext (0 if absent). */
char *kallsyms_subset(const char *all, uint64_t *addrs, size_t n, size_t *out_len, uint64_t *text,
                      uint64_t *etext);
/* The same from this machine's /proc/kallsyms, for the addresses that are
 * the keys (a) of addrs; NULL when it cannot be read or out of memory
 * (errno says which).  Addresses all in the core kernel's text are looked up
 * in a copy of its symbols cached for the boot ($XDG_CACHE_HOME/tr/kallsyms,
 * kallsyms.c), which reads in a fraction of the time. */
char *kallsyms_of(const hashmap *addrs, size_t *out_len, uint64_t *text, uint64_t *etext);

#endif
