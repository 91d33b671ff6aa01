/* code.c - a module's code, symbols and lines for tools that read the
 * instructions at sampled addresses (symbolize.h, "The code of a module").
 * The binary is the one the session found for resolving. */
#include <dwarf.h>
#include <gelf.h>
#include <string.h>

#include "sym_int.h"

sym_code *sym_code_at(sym_session *s, int32_t pid, uint64_t addr, uint64_t *vaddr)
{
    procs_proc *mp = procs_proc_get(s->procs, pid);
    procs_map *m = mp && pid >= 0 ? procs_find_map(mp, addr) : NULL;
    /* a file's, or the vDSO (anonymous memory and JIT code have no binary) */
    if (!m || !sym_map_usable(m) || sym_path_is_anon(m->path) ||
        (m->path[0] != '/' && strcmp(m->path, "[vdso]") != 0))
        return NULL;
    sym_symfile *f = sym_map_symfile(s, m);
    if (f)
        *vaddr = sym_symfile_vaddr(f, addr - m->start + m->pgoff);
    return f;
}

void sym_code_info(const sym_code *c, sym_module_info *info, const char **found)
{
    *found = c->found;
    *info = (sym_module_info){ c->path, c->status, c->build_id, c->build_id_len,
                               c->detail ? c->detail : "" };
}

int sym_code_symbol(sym_session *s, sym_code *c, uint64_t vaddr, const char **name, uint64_t *start,
                    uint64_t *size)
{
    return sym_symfile_symbol(s, c, vaddr, name, start, size);
}

size_t sym_code_read(sym_code *c, uint64_t vaddr, uint8_t *buf, size_t len)
{
    Dwarf_Addr bias = 0;
    Elf *elf = c->mod ? dwfl_module_getelf(c->mod, &bias) : NULL;
    Elf_Scn *scn = NULL;
    while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type != SHT_PROGBITS ||
            vaddr < sh.sh_addr || vaddr - sh.sh_addr >= sh.sh_size)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        uint64_t off = vaddr - sh.sh_addr;
        if (!d || !d->d_buf || off >= d->d_size)
            return 0;
        size_t n = d->d_size - off < len ? (size_t)(d->d_size - off) : len;
        memcpy(buf, (const uint8_t *)d->d_buf + off, n);
        return n;
    }
    return 0;
}

int sym_code_line(sym_session *s, sym_code *c, uint64_t vaddr, const char **file, uint32_t *line)
{
    Dwfl_Line *l = c->mod ? dwfl_module_getsrc(c->mod, vaddr) : NULL;
    int lineno = 0;
    const char *f = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (!f || lineno <= 0)
        return -1;
    /* a relative name is relative to the unit's compilation directory */
    Dwarf_Die *cu = f[0] != '/' ? dwfl_linecu(l) : NULL;
    Dwarf_Attribute at;
    const char *dir = cu && dwarf_attr(cu, DW_AT_comp_dir, &at) ? dwarf_formstring(&at) : NULL;
    char buf[4096];
    if (dir && snprintf(buf, sizeof buf, "%s/%s", dir, f) < (int)sizeof buf)
        f = buf;
    if (!(*file = strpool_intern(&s->strings, f, strlen(f))))
        return -1;
    *line = (uint32_t)lineno;
    return 0;
}
