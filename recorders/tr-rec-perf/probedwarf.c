/*
 * probedwarf.c - a probed function's parameters by name, from the binary's DWARF
 * (uprobes.h): where the function's body starts past its prologue (perf probe's probe
 * point), and each parameter's location at the probe address as a uprobe fetch argument.
 * Locations taken: a register (DW_OP_regN, DW_OP_regx), memory at a register plus an
 * offset (DW_OP_bregN) and memory in the frame (DW_OP_fbreg, with a frame base of a
 * register plus offset or the CFA, which the call frame information gives at the
 * address).  Refused: values computed on the DWARF stack (DW_OP_stack_value,
 * DW_OP_entry_value), pieces, floating point and aggregate types.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uprobes.h"

struct dwfunc {
    int fd;
    Dwarf *dw;
    Dwarf_Die func;
    Dwarf_CFI *cfi;
    int own_cfi;          /* .eh_frame's, freed here (.debug_frame's is the Dwarf's) */
    uint64_t entry;
};

struct dwfunc *dwf_open(const char *path, uint64_t func_vaddr)
{
    struct dwfunc *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0 || !(f->dw = dwarf_begin(f->fd, DWARF_C_READ)))
        goto fail;
    Dwarf_Die cu, *scopes = NULL;
    if (!dwarf_addrdie(f->dw, func_vaddr, &cu))
        goto fail;
    int n = dwarf_getscopes(&cu, func_vaddr, &scopes), found = 0;
    for (int i = 0; i < n && !found; i++) {
        Dwarf_Addr lo;
        if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram && dwarf_lowpc(&scopes[i], &lo) == 0 && lo == func_vaddr) {
            f->func = scopes[i];
            found = 1;
        }
    }
    free(scopes);
    if (!found)
        goto fail;
    f->entry = func_vaddr;
    Dwarf_Addr *bk = NULL;
    int nb = dwarf_entry_breakpoints(&f->func, &bk);
    if (nb > 0)
        f->entry = bk[0];
    free(bk);
    f->cfi = dwarf_getcfi(f->dw);
    if (!f->cfi && (f->cfi = dwarf_getcfi_elf(dwarf_getelf(f->dw))))
        f->own_cfi = 1;
    return f;
fail:
    dwf_close(f);
    return NULL;
}

void dwf_close(struct dwfunc *f)
{
    if (!f)
        return;
    if (f->own_cfi)
        dwarf_cfi_end(f->cfi);
    if (f->dw)
        dwarf_end(f->dw);
    if (f->fd >= 0)
        close(f->fd);
    free(f);
}

uint64_t dwf_entry(const struct dwfunc *f)
{
    return f->entry;
}

size_t dwf_params(struct dwfunc *f, const char **names, size_t max)
{
    Dwarf_Die c;
    size_t n = 0;
    if (dwarf_child(&f->func, &c) != 0)
        return 0;
    do
        if (dwarf_tag(&c) == DW_TAG_formal_parameter && dwarf_diename(&c) && n < max)
            names[n++] = dwarf_diename(&c);
    while (dwarf_siblingof(&c, &c) == 0);
    return n;
}

/* DWARF register numbers of x86-64 to uprobe names */
static const char *const dw_regs[17] = {"ax", "dx", "cx", "bx", "si", "di", "bp", "sp", "r8",
                                        "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip"};

static const char *dw_reg(unsigned r)
{
    return r < 17 ? dw_regs[r] : NULL;
}

/* One op DW_OP_bregN off: its register and offset */
static int breg(const Dwarf_Op *op, size_t n, const char **reg, int64_t *off)
{
    if (n != 1)
        return -1;
    if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31)
        *reg = dw_reg(op->atom - DW_OP_breg0), *off = (int64_t)op->number;
    else if (op->atom == DW_OP_bregx)
        *reg = dw_reg((unsigned)op->number), *off = (int64_t)op->number2;
    else
        return -1;
    return *reg ? 0 : -1;
}

/* The frame base of the function at addr as a register plus offset */
static int frame_base(struct dwfunc *f, uint64_t addr, const char **reg, int64_t *off)
{
    Dwarf_Attribute a;
    Dwarf_Op *expr;
    size_t len;
    if (!dwarf_attr_integrate(&f->func, DW_AT_frame_base, &a) || dwarf_getlocation_addr(&a, addr, &expr, &len, 1) != 1)
        return -1;
    if (len == 1 && expr->atom == DW_OP_call_frame_cfa) {
        Dwarf_Frame *fr;
        Dwarf_Op *ops;
        size_t nops;
        if (!f->cfi || dwarf_cfi_addrframe(f->cfi, addr, &fr) != 0)
            return -1;
        int rc = dwarf_frame_cfa(fr, &ops, &nops) == 0 ? breg(ops, nops, reg, off) : -1;
        free(fr);
        return rc;
    }
    return breg(expr, len, reg, off);
}

/* The type's fetch type: "s32", "u8", "x64" (pointer); NULL refused */
static const char *fetch_type(Dwarf_Die *param, char *buf, size_t len, int *pointer)
{
    Dwarf_Attribute a;
    Dwarf_Die t;
    *pointer = 0;
    if (!dwarf_attr_integrate(param, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
        return NULL;
    for (;;) {
        int tag = dwarf_tag(&t);
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
            tag != DW_TAG_restrict_type)
            break;
        if (!dwarf_attr_integrate(&t, DW_AT_type, &a) || !dwarf_formref_die(&a, &t))
            return NULL;
    }
    int tag = dwarf_tag(&t), size = dwarf_bytesize(&t);
    if (tag == DW_TAG_pointer_type) {
        *pointer = 1;
        return "x64";
    }
    Dwarf_Word enc = DW_ATE_unsigned;
    if (tag == DW_TAG_base_type) {
        if (dwarf_attr_integrate(&t, DW_AT_encoding, &a))
            dwarf_formudata(&a, &enc);
    } else if (tag != DW_TAG_enumeration_type) {
        return NULL;
    }
    if (enc == DW_ATE_float || (size != 1 && size != 2 && size != 4 && size != 8))
        return NULL;
    int sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
    snprintf(buf, len, "%c%d", sign ? 's' : 'u', size * 8);
    return buf;
}

int dwf_param_fetch(struct dwfunc *f, const char *name, uint64_t addr, int string, char *out, size_t outlen,
                    char *err, size_t errlen)
{
    Dwarf_Die c;
    int found = 0;
    if (dwarf_child(&f->func, &c) == 0)
        do
            found = dwarf_tag(&c) == DW_TAG_formal_parameter && dwarf_diename(&c) && !strcmp(dwarf_diename(&c), name);
        while (!found && dwarf_siblingof(&c, &c) == 0);
    if (!found) {
        snprintf(err, errlen, "'%s': no such parameter of %s", name, dwarf_diename(&f->func));
        return -1;
    }
    char tbuf[8];
    int pointer;
    const char *type = fetch_type(&c, tbuf, sizeof tbuf, &pointer);
    if (!type) {
        snprintf(err, errlen, "'%s': its type is not an integer, enum or pointer", name);
        return -1;
    }
    if (string && !pointer) {
        snprintf(err, errlen, "'%s:string': not a pointer", name);
        return -1;
    }
    Dwarf_Attribute a;
    Dwarf_Op *expr;
    size_t len;
    if (!dwarf_attr_integrate(&c, DW_AT_location, &a) || dwarf_getlocation_addr(&a, addr, &expr, &len, 1) != 1 ||
        len == 0) {
        snprintf(err, errlen, "'%s': no location at 0x%llx (optimized out)", name, (unsigned long long)addr);
        return -1;
    }
    char loc[96];
    const char *reg = NULL;
    int64_t off = 0, fboff;
    if (len == 1 && expr->atom >= DW_OP_reg0 && expr->atom <= DW_OP_reg31 && (reg = dw_reg(expr->atom - DW_OP_reg0)))
        snprintf(loc, sizeof loc, "%%%s", reg);
    else if (len == 1 && expr->atom == DW_OP_regx && (reg = dw_reg((unsigned)expr->number)))
        snprintf(loc, sizeof loc, "%%%s", reg);
    else if (breg(expr, len, &reg, &off) == 0 ||
             (len == 1 && expr->atom == DW_OP_fbreg && frame_base(f, addr, &reg, &fboff) == 0 &&
              (off = (int64_t)expr->number + fboff, 1)))
        snprintf(loc, sizeof loc, "%c%lld(%%%s)", off < 0 ? '-' : '+', (long long)(off < 0 ? -off : off), reg);
    else {
        snprintf(err, errlen, "'%s': its location at 0x%llx is a DWARF expression uprobes cannot fetch "
                 "(only a register, register plus offset or frame slot)", name, (unsigned long long)addr);
        return -1;
    }
    if (string)
        snprintf(out, outlen, "+0(%s):string", loc);
    else
        snprintf(out, outlen, "%s:%s", loc, type);
    return 0;
}

const char *dwf_return_type(struct dwfunc *f, char *buf, size_t len)
{
    int pointer;
    return fetch_type(&f->func, buf, len, &pointer);
}
