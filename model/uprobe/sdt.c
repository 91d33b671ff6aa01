/*
 * sdt.c - the SDT probes of <sys/sdt.h> (uprobe.h): .note.stapsdt notes, owner "stapsdt",
 * type 3, each the probe's address, the link-time address of .stapsdt.base, the
 * semaphore's address, then provider, name and argument strings.  A prelinked file's
 * addresses move with .stapsdt.base.
 */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uprobe/uprobe.h"

#define NT_STAPSDT 3

static int push(struct sdt_probes *out, const char *desc, size_t len, uint64_t base_now)
{
    if (len < 3 * 8 + 3)
        return 0;
    uint64_t a[3];
    memcpy(a, desc, sizeof a);
    const char *prov = desc + 24, *end = desc + len;
    const char *name = memchr(prov, 0, (size_t)(end - prov));
    const char *args = name ? memchr(name + 1, 0, (size_t)(end - name - 1)) : NULL;
    if (!args || !memchr(args + 1, 0, (size_t)(end - args - 1)))
        return 0; /* truncated: not a probe */
    name++, args++;
    struct sdt_probe *v = realloc(out->v, (out->n + 1) * sizeof *v);
    if (!v)
        return -1;
    out->v = v;
    struct sdt_probe *p = &v[out->n];
    uint64_t shift = base_now && a[1] ? base_now - a[1] : 0;
    p->pc = a[0] + shift;
    p->semaphore = a[2] ? a[2] + shift : 0;
    p->provider = strdup(prov);
    p->name = strdup(name);
    p->args = strdup(args);
    out->n++;
    return p->provider && p->name && p->args ? 0 : -1;
}

int sdt_read(const char *path, struct sdt_probes *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int fd;
    Elf *e = elf_open_file(path, &fd, err, errlen);
    size_t shstrndx;
    if (!e)
        return -1;
    if (elf_getshdrstrndx(e, &shstrndx) < 0) {
        elf_end(e);
        close(fd);
        return 0; /* no sections: no notes */
    }
    uint64_t base_now = 0;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        const char *n;
        if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) && !strcmp(n, ".stapsdt.base"))
            base_now = sh.sh_addr;
    }
    int rc = 0;
    for (Elf_Scn *scn = NULL; !rc && (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        const char *n;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(n = elf_strptr(e, shstrndx, sh.sh_name)) ||
            strcmp(n, ".note.stapsdt"))
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        GElf_Nhdr nh;
        size_t off = 0, name_off, desc_off;
        while (d && !rc && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
            if (nh.n_type == NT_STAPSDT && nh.n_namesz == 8 && !memcmp((char *)d->d_buf + name_off, "stapsdt", 8))
                rc = push(out, (const char *)d->d_buf + desc_off, nh.n_descsz, base_now);
    }
    elf_end(e);
    close(fd);
    if (rc < 0) {
        sdt_free(out);
        snprintf(err, errlen, "out of memory");
    }
    return rc;
}

void sdt_free(struct sdt_probes *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].provider);
        free(p->v[i].name);
        free(p->v[i].args);
    }
    free(p->v);
    memset(p, 0, sizeof *p);
}

/* x86-64 register names, every width, to the names of uprobe fetch arguments */
static const char *const reg_names[][5] = {
    {"ax", "rax", "eax", "ax", "al"},     {"bx", "rbx", "ebx", "bx", "bl"},
    {"cx", "rcx", "ecx", "cx", "cl"},     {"dx", "rdx", "edx", "dx", "dl"},
    {"si", "rsi", "esi", "si", "sil"},    {"di", "rdi", "edi", "di", "dil"},
    {"bp", "rbp", "ebp", "bp", "bpl"},    {"sp", "rsp", "esp", "sp", "spl"},
    {"r8", "r8", "r8d", "r8w", "r8b"},    {"r9", "r9", "r9d", "r9w", "r9b"},
    {"r10", "r10", "r10d", "r10w", "r10b"}, {"r11", "r11", "r11d", "r11w", "r11b"},
    {"r12", "r12", "r12d", "r12w", "r12b"}, {"r13", "r13", "r13d", "r13w", "r13b"},
    {"r14", "r14", "r14d", "r14w", "r14b"}, {"r15", "r15", "r15d", "r15w", "r15b"},
    {"ip", "rip", "eip", "ip", "ip"},
};

const char *uprobe_register(const char *s, size_t len)
{
    if (len < 2 || s[0] != '%')
        return NULL;
    for (size_t i = 0; i < sizeof reg_names / sizeof reg_names[0]; i++)
        for (int k = 1; k < 5; k++)
            if (strlen(reg_names[i][k]) == len - 1 && !strncmp(s + 1, reg_names[i][k], len - 1))
                return reg_names[i][0];
    return NULL;
}

int sdt_arg_fetch(const char *arg, const struct elffile *f, char *out, size_t outlen, char *err, size_t errlen)
{
    /* [-]SIZE@OPERAND; an old note has the operand alone (8 bytes) */
    const char *at = strchr(arg, '@'), *op = at ? at + 1 : arg;
    long size = at ? strtol(arg, NULL, 10) : 8;
    int sign = size < 0;
    size = labs(size);
    if (size != 1 && size != 2 && size != 4 && size != 8) {
        snprintf(err, errlen, "SDT argument '%s': size %ld", arg, size);
        return -1;
    }
    char type[8];
    snprintf(type, sizeof type, "%c%ld", sign ? 's' : 'u', size * 8);
    const char *reg;
    if ((reg = uprobe_register(op, strlen(op)))) { /* %rdi */
        snprintf(out, outlen, "%%%s:%s", reg, type);
        return 0;
    }
    if (op[0] == '$') { /* $5: a constant */
        snprintf(out, outlen, "\\%s:%s", op + 1, type);
        return 0;
    }
    const char *paren = strchr(op, '('), *close = paren ? strchr(paren, ')') : NULL;
    if (!close || close[1] || !(reg = uprobe_register(paren + 1, (size_t)(close - paren - 1)))) {
        snprintf(err, errlen, "SDT argument '%s': an operand uprobes cannot fetch", arg);
        return -1;
    }
    char disp[128];
    snprintf(disp, sizeof disp, "%.*s", (int)(paren - op), op);
    if (!strcmp(reg, "ip")) { /* sym(%rip), sym+8(%rip): the variable at a file offset */
        size_t n = strcspn(disp, "+-");
        long add = disp[n] ? strtol(disp + n, NULL, 0) : 0;
        disp[n] = 0;
        const struct elfsym *s = n && f ? elf_symbol(f, disp) : NULL;
        int64_t off = s ? elf_offset(f, s->vaddr + (uint64_t)add) : -1;
        if (off < 0) {
            snprintf(err, errlen, "SDT argument '%s': no symbol '%s' in the file", arg, disp);
            return -1;
        }
        snprintf(out, outlen, "@+0x%llx:%s", (unsigned long long)off, type);
        return 0;
    }
    char *end;
    long d = *disp ? strtol(disp, &end, 0) : 0;
    if (*disp && *end) {
        snprintf(err, errlen, "SDT argument '%s': an operand uprobes cannot fetch", arg);
        return -1;
    }
    snprintf(out, outlen, "%c%ld(%%%s):%s", d < 0 ? '-' : '+', labs(d), reg, type);
    return 0;
}
