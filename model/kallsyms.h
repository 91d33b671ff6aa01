/* kallsyms.h - the part of a /proc/kallsyms text a trace needs. */
#ifndef TR_MODEL_KALLSYMS_H
#define TR_MODEL_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

/* From the /proc/kallsyms text all (NUL-terminated), the lines of the text
 * symbols covering each of the n addresses (sorted here, in place) and of
 * the symbol after each (which bounds its size), newline-terminated, in a
 * new buffer of *out_len bytes; NULL when out of memory.  text and etext
 * (each may be NULL) receive the addresses of _text and _etext (0 if absent). */
char *kallsyms_subset(const char *all, uint64_t *addrs, size_t n, size_t *out_len, uint64_t *text,
                      uint64_t *etext);

#endif
