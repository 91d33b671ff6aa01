/*
 * buildid.h - the GNU build-id of an ELF file or an ELF image in memory,
 * read from its PT_NOTE segments (or SHT_NOTE sections).
 */
#ifndef TR_MODEL_BUILDID_H
#define TR_MODEL_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define BUILD_ID_MAX 64

/* Returns the build-id length (1..64), 0 when there is none, -1 when the
 * file cannot be read or is no ELF file. */
int build_id_from_file(const char *path, uint8_t *id);
int build_id_from_mem(const void *image, size_t len, uint8_t *id);
/* A build-id as lower-case hex into out (2 * len + 1 bytes). */
void build_id_hex(char *out, const uint8_t *id, size_t len);
/* The blobs of a file of len bytes stored by build-id (model/keys.h
 * BLOB_BUILD_ID_PREFIX): how many parts, and the name of part k of nparts
 * of HEX[suffix] into name (n bytes). */
size_t build_id_blob_parts(size_t len);
void build_id_blob_name(char *name, size_t n, const char *hex, const char *suffix, size_t k, size_t nparts);
/* Scan a raw note area (/sys/kernel/notes). */
int build_id_from_notes(const void *notes, size_t len, uint8_t *id);
/* The size of an ELF image in memory (end of its last section header table
 * or segment), 0 when not ELF. */
size_t elf_image_size(const void *image, size_t max);

#endif
