/*
 * smap.h - a hash map from byte strings to counts: the folded stacks of
 * tr-fold and tr-diff (stack -> count), the frame names of tr-flame.
 *
 * Keys are copied into the map (one growing block of bytes, each key
 * NUL-terminated); entries are never removed, and their index (e - m->e)
 * stays theirs, so an index can name a key.  Entries and key bytes move
 * when the map grows: keep indices, not pointers, across smap_get.
 *
 * Not on model/hashmap.h: that map is keyed by two words and would need
 * the key bytes compared behind it anyway; this one keeps the key's hash
 * and the high half of it in each slot (most mismatches never touch the
 * entry) and hashes 16 bytes per step, which folding at 1.2 GiB/s needs.
 *
 * A map from smap_init is empty.  Never prints or exits.
 */
#ifndef MODEL_SMAP_H
#define MODEL_SMAP_H

#include <stddef.h>
#include <stdint.h>

struct smap_entry {
    uint64_t hash;
    size_t off;      /* key bytes at map->keys + off */
    size_t len;
    uint64_t n;      /* integer count (tr-fold), or the user's value */
    double v[2];     /* real counts (tr-diff) */
};

struct smap_slot {
    uint32_t idx;    /* entry index + 1, 0: empty */
    uint32_t tag;    /* the high half of its hash: most mismatches never touch the entry */
};

struct smap {
    struct smap_entry *e;
    size_t n, cap;   /* entries */
    struct smap_slot *slot; /* open addressing, linear probing, at most half full */
    size_t nslot;
    char *keys;
    size_t keys_len, keys_cap;
};

void smap_init(struct smap *m);
/* Frees the entries and keys; the map is empty again. */
void smap_free(struct smap *m);
/* The hash of the bytes (also usable for other keys: tr-flame's tree). */
uint64_t smap_hash(const void *p, size_t len);
/* The entry for key (created zeroed when new), or NULL when out of memory
 * (or at 2^32 - 2 entries). */
struct smap_entry *smap_get(struct smap *m, const void *key, size_t len);
/* The entry for key, or NULL when there is none. */
struct smap_entry *smap_find(const struct smap *m, const void *key, size_t len);
/* The key of e, NUL-terminated. */
static inline const char *smap_key(const struct smap *m, const struct smap_entry *e)
{
    return m->keys + e->off;
}
/* Entry indices sorted bytewise by key (as Perl's sort); the caller frees
 * the array; NULL when out of memory. */
size_t *smap_sorted(const struct smap *m);

#endif
