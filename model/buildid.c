/* buildid.c - GNU build-id notes from ELF files and images. */
#include "buildid.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "keys.h"

struct src {
    int fd;
    const uint8_t *mem;
    size_t len;
};

static int src_read(const struct src *s, uint64_t off, void *buf, size_t n)
{
    if (s->mem) {
        if (off > s->len || n > s->len - off)
            return -1;
        memcpy(buf, s->mem + off, n);
        return 0;
    }
    ssize_t r = pread(s->fd, buf, n, (off_t)off);
    return r == (ssize_t)n ? 0 : -1;
}

/* Scan a note area for NT_GNU_BUILD_ID. */
static int scan_notes(const struct src *s, uint64_t off, uint64_t size, uint8_t *id)
{
    uint8_t buf[4096];
    if (size > sizeof buf)
        size = sizeof buf;
    if (src_read(s, off, buf, (size_t)size))
        return 0;
    size_t p = 0;
    while (p + sizeof(Elf64_Nhdr) <= size) {
        Elf64_Nhdr n;
        memcpy(&n, buf + p, sizeof n);
        size_t name_off = p + sizeof n;
        size_t desc_off = name_off + ((n.n_namesz + 3u) & ~3u);
        size_t next = desc_off + ((n.n_descsz + 3u) & ~3u);
        if (next > size || desc_off > size)
            break;
        if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && !memcmp(buf + name_off, "GNU", 4) &&
            n.n_descsz > 0 && n.n_descsz <= BUILD_ID_MAX && desc_off + n.n_descsz <= size) {
            memcpy(id, buf + desc_off, n.n_descsz);
            return (int)n.n_descsz;
        }
        p = next;
    }
    return 0;
}

static int build_id_src(const struct src *s, uint8_t *id)
{
    Elf64_Ehdr eh;
    if (src_read(s, 0, &eh, sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64)
        return -1;
    for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
        Elf64_Phdr ph;
        if (src_read(s, eh.e_phoff + (uint64_t)i * eh.e_phentsize, &ph, sizeof ph))
            break;
        if (ph.p_type != PT_NOTE)
            continue;
        int n = scan_notes(s, ph.p_offset, ph.p_filesz, id);
        if (n > 0)
            return n;
    }
    for (unsigned i = 0; i < eh.e_shnum && i < 4096; i++) {
        Elf64_Shdr sh;
        if (src_read(s, eh.e_shoff + (uint64_t)i * eh.e_shentsize, &sh, sizeof sh))
            break;
        if (sh.sh_type != SHT_NOTE)
            continue;
        int n = scan_notes(s, sh.sh_offset, sh.sh_size, id);
        if (n > 0)
            return n;
    }
    return 0;
}

int build_id_from_file(const char *path, uint8_t *id)
{
    struct src s = {.fd = open(path, O_RDONLY | O_CLOEXEC)};
    if (s.fd < 0)
        return -1;
    int n = build_id_src(&s, id);
    close(s.fd);
    return n;
}

int build_id_from_mem(const void *image, size_t len, uint8_t *id)
{
    struct src s = {.fd = -1, .mem = image, .len = len};
    return build_id_src(&s, id);
}

size_t elf_image_size(const void *image, size_t max)
{
    Elf64_Ehdr eh;
    if (max < sizeof eh)
        return 0;
    memcpy(&eh, image, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
        return 0;
    uint64_t end = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        uint64_t o = eh.e_phoff + (uint64_t)i * eh.e_phentsize;
        if (o + sizeof ph > max)
            break;
        memcpy(&ph, (const uint8_t *)image + o, sizeof ph);
        if (ph.p_offset + ph.p_filesz > end)
            end = ph.p_offset + ph.p_filesz;
    }
    return end <= max ? (size_t)end : max;
}

void build_id_hex(char *out, const uint8_t *id, size_t len)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = hx[id[i] >> 4];
        out[2 * i + 1] = hx[id[i] & 15];
    }
    out[2 * len] = 0;
}

int build_id_from_notes(const void *notes, size_t len, uint8_t *id)
{
    struct src s = {.fd = -1, .mem = notes, .len = len};
    return scan_notes(&s, 0, len, id);
}

size_t build_id_blob_parts(size_t len) { return len ? (len + BLOB_BUILD_ID_PART - 1) / BLOB_BUILD_ID_PART : 1; }

void build_id_blob_name(char *name, size_t n, const char *hex, const char *suffix, size_t k, size_t nparts)
{
    if (nparts == 1)
        snprintf(name, n, BLOB_BUILD_ID_PREFIX "%s%s", hex, suffix);
    else
        snprintf(name, n, BLOB_BUILD_ID_PREFIX "%s%s:%zu/%zu", hex, suffix, k, nparts);
}
