/*
 * hashmap.h - the one hash map of the tools: open addressing, keyed by two
 * 64-bit words (a pid and an address, an id and an offset, a string's hash
 * and length ...), values are non-NULL pointers.  And an interning pool of
 * strings built on the same hashing.
 *
 * A zeroed struct is an empty map or pool.  Never prints or exits.
 */
#ifndef MODEL_HASHMAP_H
#define MODEL_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct hashmap_slot {
    uint64_t a, b;
    void *val; /* NULL: empty slot */
} hashmap_slot;

typedef struct hashmap {
    hashmap_slot *slots;
    size_t cap, count; /* cap is a power of two */
} hashmap;

/* The value of key (a, b), or NULL. */
void *hashmap_get(const hashmap *m, uint64_t a, uint64_t b);
/* val must not be NULL.  Replaces an existing value.  0 or TR_E_NOMEM. */
int hashmap_put(hashmap *m, uint64_t a, uint64_t b, void *val);
/* Room for n entries without growing (a table presized from what the
 * input tells).  0 or TR_E_NOMEM. */
int hashmap_reserve(hashmap *m, size_t n);
void hashmap_del(hashmap *m, uint64_t a, uint64_t b);
/* Frees the slots, not the values. */
void hashmap_free(hashmap *m);
/* Iterate: *i from 0; returns the next occupied slot, NULL at the end. */
hashmap_slot *hashmap_next(const hashmap *m, size_t *i);

/* FNV-1a of the bytes, with a final mix (the demangle cache keeps these:
 * never changed). */
uint64_t hash_bytes(const void *data, size_t len);
/* A hash of the bytes a 64-bit word at a time, chained from seed: for
 * arrays of ids kept only in memory (a stack's elements), several times
 * faster than hash_bytes on them. */
uint64_t hash_words(const void *data, size_t len, uint64_t seed);

typedef struct strpool {
    char **slots;
    size_t cap, count;
} strpool;
/* The interned copy of s[0..len) (NUL-terminated), NULL when out of memory.
 * The copy lives until strpool_free. */
const char *strpool_intern(strpool *p, const char *s, size_t len);
void strpool_free(strpool *p);

#endif
