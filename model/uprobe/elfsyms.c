/* elfsyms.c - the function symbols of ELF files and the libraries they need (uprobe.h). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <capstone/capstone.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uprobe/uprobe.h"

static int push_str(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

static int push_sym(struct elfsym **v, size_t *len, const char *name, uint64_t vaddr, int ifunc)
{
    struct elfsym *nv = realloc(*v, (*len + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    size_t n = strcspn(name, "@"); /* symtab's versioned names: memcpy@GLIBC_2.2.5 */
    if (!(nv[*len].name = strndup(name, n)))
        return -1;
    nv[*len].vaddr = vaddr;
    nv[*len].ifunc = ifunc;
    (*len)++;
    return 0;
}

/* The symbols of one symbol table; versym (dynsym) marks the hidden, non-default versions. */
static int read_symtab(struct elffile *f, Elf *e, Elf_Scn *scn, GElf_Shdr *sh, Elf_Data *versym)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
    for (size_t i = 1; d && i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            continue;
        int type = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
        const char *name = elf_strptr(e, sh->sh_link, s.st_name);
        if (!name || !*name)
            continue;
        if (s.st_shndx == SHN_UNDEF) {
            if (sh->sh_type == SHT_DYNSYM && (type == STT_FUNC || type == STT_NOTYPE) &&
                bind != STB_LOCAL && push_str(&f->imports, &f->nimports, name) < 0)
                return -1;
            continue;
        }
        if (type == STT_OBJECT) {
            if (push_sym(&f->objs, &f->nobjs, name, s.st_value, 0) < 0)
                return -1;
            continue;
        }
        if (type != STT_FUNC && type != STT_GNU_IFUNC)
            continue;
        if (versym) {
            GElf_Versym v;
            if (gelf_getversym(versym, (int)i, &v) && (v & 0x8000))
                continue;
        }
        if (push_sym(&f->defs, &f->ndefs, name, s.st_value, type == STT_GNU_IFUNC) < 0)
            return -1;
    }
    return 0;
}

Elf *elf_open_file(const char *path, int *fd, char *err, size_t errlen)
{
    elf_version(EV_CURRENT);
    if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    Elf *e = elf_begin(*fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    if (!e || !gelf_getehdr(e, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
        snprintf(err, errlen, "%s: not an x86-64 ELF file", path);
        if (e)
            elf_end(e);
        close(*fd);
        return NULL;
    }
    return e;
}

int elf_load(struct elffile *f, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    int fd;
    Elf *e = elf_open_file(path, &fd, err, errlen);
    if (!e)
        return -1;
    f->path = strdup(path);
    size_t nph = 0;
    elf_getphdrnum(e, &nph);
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && f->nload < 16) {
            f->load[f->nload].vaddr = ph.p_vaddr;
            f->load[f->nload].off = ph.p_offset;
            f->load[f->nload].filesz = ph.p_filesz;
            f->nload++;
        }
    }
    Elf_Data *versym = NULL;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
            versym = elf_getdata(scn, NULL);
    }
    int rc = 0;
    for (Elf_Scn *scn = NULL; !rc && (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_DYNSYM)
            rc = read_symtab(f, e, scn, &sh, versym);
        else if (sh.sh_type == SHT_SYMTAB)
            rc = read_symtab(f, e, scn, &sh, NULL);
        else if (sh.sh_type == SHT_DYNAMIC) {
            Elf_Data *d = elf_getdata(scn, NULL);
            size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
            for (size_t i = 0; d && i < n && !rc; i++) {
                GElf_Dyn dyn;
                if (!gelf_getdyn(d, (int)i, &dyn))
                    continue;
                const char *s = NULL;
                if (dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH)
                    s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
                if (!s)
                    continue;
                if (dyn.d_tag == DT_NEEDED)
                    rc = push_str(&f->needed, &f->nneeded, s);
                else if (!f->runpath || dyn.d_tag == DT_RUNPATH) {
                    free(f->runpath);
                    f->runpath = strdup(s);
                }
            }
        }
    }
    elf_end(e);
    close(fd);
    if (rc < 0 || !f->path) {
        snprintf(err, errlen, "out of memory");
        elf_free(f);
        return -1;
    }
    return 0;
}

void elf_free(struct elffile *f)
{
    for (size_t i = 0; i < f->ndefs; i++)
        free(f->defs[i].name);
    for (size_t i = 0; i < f->nobjs; i++)
        free(f->objs[i].name);
    free(f->objs);
    for (size_t i = 0; i < f->nimports; i++)
        free(f->imports[i]);
    for (size_t i = 0; i < f->nneeded; i++)
        free(f->needed[i]);
    free(f->defs);
    free(f->imports);
    free(f->needed);
    free(f->runpath);
    free(f->path);
    memset(f, 0, sizeof *f);
}

const struct elfsym *elf_symbol(const struct elffile *f, const char *name)
{
    for (size_t i = 0; i < f->ndefs; i++)
        if (!strcmp(f->defs[i].name, name))
            return &f->defs[i];
    for (size_t i = 0; i < f->nobjs; i++)
        if (!strcmp(f->objs[i].name, name))
            return &f->objs[i];
    return NULL;
}

int64_t elf_offset(const struct elffile *f, uint64_t vaddr)
{
    for (unsigned i = 0; i < f->nload; i++)
        if (vaddr >= f->load[i].vaddr && vaddr < f->load[i].vaddr + f->load[i].filesz)
            return (int64_t)(vaddr - f->load[i].vaddr + f->load[i].off);
    return -1;
}

static char *try_dir(const char *dir, size_t dlen, const char *name, const char *origin)
{
    char p[PATH_MAX];
    if (dlen >= 7 && !strncmp(dir, "$ORIGIN", 7) && origin)
        snprintf(p, sizeof p, "%s%.*s/%s", origin, (int)(dlen - 7), dir + 7, name);
    else
        snprintf(p, sizeof p, "%.*s/%s", (int)dlen, dir, name);
    return access(p, R_OK) == 0 ? realpath(p, NULL) : NULL;
}

static char *try_list(const char *list, const char *name, const char *origin)
{
    for (const char *s = list; s && *s;) {
        size_t n = strcspn(s, ":;");
        char *r = n ? try_dir(s, n, name, origin) : NULL;
        if (r)
            return r;
        s += n;
        if (*s)
            s++;
    }
    return NULL;
}

char *elf_find_library(const char *name, const char *runpath, const char *origin)
{
    if (strchr(name, '/'))
        return realpath(name, NULL);
    char *r = try_list(runpath, name, origin);
    if (!r)
        r = try_list(getenv("LD_LIBRARY_PATH"), name, origin);
    if (!r)
        r = try_list("/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib:"
                     "/usr/local/lib",
                     name, origin);
    return r;
}

/* An IFUNC's implementation is chosen by its resolver from the CPU's features: this
 * process, on the same CPU, asks its own dynamic loader for the choice. */
int64_t elf_ifunc_offset(const struct elffile *f, const char *name)
{
    void *h = dlopen(f->path, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        h = dlopen(f->path, RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return -1;
    void *a = dlsym(h, name);
    Dl_info info;
    int64_t off = -1;
    if (a && dladdr(a, &info) && info.dli_fname) {
        char *real = realpath(info.dli_fname, NULL);
        if (real && !strcmp(real, f->path))
            off = elf_offset(f, (uint64_t)((uintptr_t)a - (uintptr_t)info.dli_fbase));
        free(real);
    }
    dlclose(h);
    return off;
}

/* x86 uprobes cannot single-step a VEX or EVEX encoded instruction (AVX): a probe on one is
 * accepted by uprobe_events and never fires.  glibc's AVX string functions begin with one
 * (__strcmp_avx2: vpxor %xmm15,...).  Such leading instructions that write only vector
 * registers leave the arguments (integer registers) and the return address (at the stack
 * pointer) as they were at entry: the probe goes on the first instruction after them. */
/* Capstone, loaded when a probe point is first checked: linked, its 3 MB of relocated tables
 * would be in the resident memory of every run of the tools that link this library (a
 * recorder's peak RSS counts them).  The soname is the one of the header's ABI. */
#define CS_SONAME_(v) "libcapstone.so." #v
#define CS_SONAME(v) CS_SONAME_(v)
static struct capstone {
    cs_err (*open)(cs_arch, cs_mode, csh *);
    cs_err (*option)(csh, cs_opt_type, size_t);
    size_t (*disasm)(csh, const uint8_t *, size_t, uint64_t, size_t, cs_insn **);
    cs_err (*regs_access)(csh, const cs_insn *, cs_regs, uint8_t *, cs_regs, uint8_t *);
    const char *(*reg_name)(csh, unsigned int);
    void (*free)(cs_insn *, size_t);
    cs_err (*close)(csh *);
} *capstone(void)
{
    static struct capstone cs;
    static int tried;
    if (!tried) {
        tried = 1;
        void *h = dlopen(CS_SONAME(CS_API_MAJOR), RTLD_LAZY | RTLD_LOCAL);
        if (h) {
            cs.open = (cs_err(*)(cs_arch, cs_mode, csh *))(uintptr_t)dlsym(h, "cs_open");
            cs.option = (cs_err(*)(csh, cs_opt_type, size_t))(uintptr_t)dlsym(h, "cs_option");
            cs.disasm = (size_t(*)(csh, const uint8_t *, size_t, uint64_t, size_t, cs_insn **))(uintptr_t)dlsym(
                h, "cs_disasm");
            cs.regs_access = (cs_err(*)(csh, const cs_insn *, cs_regs, uint8_t *, cs_regs, uint8_t *))(uintptr_t)dlsym(
                h, "cs_regs_access");
            cs.reg_name = (const char *(*)(csh, unsigned int))(uintptr_t)dlsym(h, "cs_reg_name");
            cs.free = (void (*)(cs_insn *, size_t))(uintptr_t)dlsym(h, "cs_free");
            cs.close = (cs_err(*)(csh *))(uintptr_t)dlsym(h, "cs_close");
        }
    }
    return cs.open && cs.option && cs.disasm && cs.regs_access && cs.reg_name && cs.free && cs.close ? &cs : NULL;
}

uint64_t elf_probe_point(const char *path, uint64_t off)
{
    struct capstone *c = capstone();
    if (!c)
        return off;
    uint8_t code[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return off;
    ssize_t n = pread(fd, code, sizeof code, (off_t)off);
    close(fd);
    csh cs;
    if (n <= 0 || c->open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
        return off;
    c->option(cs, CS_OPT_DETAIL, CS_OPT_ON);
    cs_insn *insn = NULL;
    size_t count = c->disasm(cs, code, (size_t)n, off, 4, &insn);
    uint64_t at = off;
    for (size_t i = 0; i < count; i++) {
        const cs_insn *in = &insn[i];
        uint8_t b = in->bytes[0];
        if (b != 0xc4 && b != 0xc5 && b != 0x62)
            break;
        cs_regs rd, wr;
        uint8_t nrd = 0, nwr = 0;
        if (c->regs_access(cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
            break;
        int vector_only = 1;
        for (uint8_t k = 0; k < nwr && vector_only; k++) {
            const char *r = c->reg_name(cs, wr[k]);
            vector_only = r && (!strncmp(r, "xmm", 3) || !strncmp(r, "ymm", 3) || !strncmp(r, "zmm", 3));
        }
        for (uint8_t k = 0; k < in->detail->x86.op_count && vector_only; k++)
            vector_only = in->detail->x86.operands[k].type != X86_OP_MEM ||
                          !(in->detail->x86.operands[k].access & CS_AC_WRITE);
        if (!vector_only)
            break;
        at = in->address + in->size;
    }
    if (count)
        c->free(insn, count);
    c->close(&cs);
    return at;
}
