/*
 * unwind.c - the user stack of a syscall (-k), unwound while its thread is
 * stopped at the syscall, as strace -k does: libdwfl's unwinder over the
 * process's own binaries (their .eh_frame), so code without frame pointers
 * (every Debian library) unwinds too.  One libdwfl session per
 * process, its modules reported again when its mappings may have changed
 * (after mmap, munmap, mprotect, mremap: stacks_maps_changed) and once more
 * when an address falls outside them.  Threads are read through ptrace,
 * which the tracer holds.
 *
 * The stack is written as raw addresses (the instruction after the
 * syscall, then return addresses); the executable mapping of each address
 * is written as an MMAP record (with its build-id) before the first stack
 * that needs it, so that tr-symbolize resolves the frames offline.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "array.h"
#include "hashmap.h"
#include "unwind.h"

#define STACK_MAX 64

struct emitted {
    uint64_t start, end;
};

struct proc {
    pid_t tgid;
    Dwfl *dwfl;
    int stale;            /* mappings may have changed: report the modules again */
    struct emitted *maps; /* executable mappings written as MMAP records */
    size_t nmaps, cap;
};

struct stacks {
    tr_writer *w;
    hashmap procs;        /* (tgid, 0) -> struct proc */
    char *debuginfo_path;
    Dwfl_Callbacks cb;
};

/* Unwinding needs the binaries' own CFI: separate debug files are never
 * looked for.  Reading them cost a third of the time (libc6-dbg's are
 * compressed), and ld.so's .debug_frame from libc6-dbg unwound _dl_start
 * into itself once more, where its .eh_frame agrees with gdb and strace. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
    (void)debuglink_crc, (void)debuginfo_file_name;
    return -1;
}

struct stacks *stacks_new(tr_writer *w)
{
    struct stacks *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->w = w;
    s->cb.find_elf = dwfl_linux_proc_find_elf;
    s->cb.find_debuginfo = no_debuginfo;
    s->cb.debuginfo_path = &s->debuginfo_path;
    return s;
}

static void proc_free(struct proc *p)
{
    if (p->dwfl)
        dwfl_end(p->dwfl);
    free(p->maps);
    free(p);
}

static struct proc *proc_of(struct stacks *s, pid_t tgid, int create)
{
    struct proc *p = hashmap_get(&s->procs, (uint64_t)tgid, 0);
    if (p || !create)
        return p;
    if (!(p = calloc(1, sizeof *p)))
        return NULL;
    p->tgid = tgid;
    if (hashmap_put(&s->procs, (uint64_t)tgid, 0, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* The process's modules, reported (again): 0, or -1 when it cannot be read. */
static int report(struct stacks *s, struct proc *p)
{
    int fresh = !p->dwfl;
    if (fresh && !(p->dwfl = dwfl_begin(&s->cb)))
        return -1;
    dwfl_report_begin(p->dwfl);
    int ok = dwfl_linux_proc_report(p->dwfl, p->tgid) == 0 && dwfl_report_end(p->dwfl, NULL, NULL) == 0 &&
             (!fresh || dwfl_linux_proc_attach(p->dwfl, p->tgid, true) == 0); /* we hold it stopped */
    if (!ok && fresh) {
        dwfl_end(p->dwfl);
        p->dwfl = NULL;
    }
    if (ok)
        p->stale = 0;
    return ok ? 0 : -1;
}

struct walk {
    uint64_t pc[STACK_MAX];
    size_t n;
};

static int on_frame(Dwfl_Frame *f, void *arg)
{
    struct walk *w = arg;
    Dwarf_Addr pc;
    if (!dwfl_frame_pc(f, &pc, NULL) || pc == 0)
        return DWARF_CB_ABORT;
    w->pc[w->n++] = pc;
    return w->n < STACK_MAX ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Unwind thread tid; the addresses that fall in no module of the session
 * are counted in *outside. */
static void unwind(struct proc *p, pid_t tid, struct walk *w, size_t *outside)
{
    w->n = 0;
    *outside = 0;
    dwfl_getthread_frames(p->dwfl, tid, on_frame, w); /* ends at the outermost frame or an error */
    for (size_t i = 0; i < w->n; i++)
        if (!dwfl_addrmodule(p->dwfl, w->pc[i]))
            (*outside)++;
}

static int emitted(const struct proc *p, uint64_t addr)
{
    for (size_t i = 0; i < p->nmaps; i++)
        if (addr >= p->maps[i].start && addr < p->maps[i].end)
            return 1;
    return 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Write the MMAP record of the executable mapping of p holding addr (from
 * /proc/PID/maps): 0, or a tr_error. */
static int emit_mapping(struct stacks *s, struct proc *p, pid_t tid, uint64_t addr)
{
    char path[64], line[4096 + 128];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)p->tgid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        uint64_t start, end, pgoff;
        char perms[8];
        int name_at = 0;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &end, perms, &pgoff,
                   &name_at) < 4 || addr < start || addr >= end)
            continue;
        if (perms[2] != 'x')
            break;
        char *name = line + name_at;
        name[strcspn(name, "\n")] = '\0';
        if (array_reserve(&p->maps, &p->cap, p->nmaps + 1, sizeof *p->maps, 16) < 0) {
            rc = TR_E_NOMEM;
            break;
        }
        p->maps[p->nmaps++] = (struct emitted){start, end};
        const unsigned char *bid = NULL;
        GElf_Addr bid_vaddr;
        Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, addr);
        int bid_len = mod ? dwfl_module_build_id(mod, &bid, &bid_vaddr) : 0;
        tr_record rec = {.type = TR_REC_MMAP, .time = now_ns(), .pid = p->tgid, .tid = tid, .cpu = -1};
        rec.u.mmap.start = start;
        rec.u.mmap.len = end - start;
        rec.u.mmap.pgoff = pgoff;
        rec.u.mmap.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
        rec.u.mmap.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
        rec.u.mmap.build_id = bid;
        rec.u.mmap.build_id_len = bid_len > 0 && bid_len <= 64 ? (size_t)bid_len : 0;
        rec.u.mmap.path = name;
        rec.u.mmap.path_len = strlen(name);
        rc = tr_writer_add(s->w, &rec);
        break;
    }
    fclose(f);
    return rc;
}

int stacks_capture(struct stacks *s, pid_t tgid, pid_t tid, uint32_t *stack_id)
{
    *stack_id = 0;
    struct proc *p = proc_of(s, tgid, 1);
    if (!p)
        return TR_E_NOMEM;
    int fresh = !p->dwfl || p->stale;
    if (fresh && report(s, p) < 0)
        return 0; /* it cannot be read: no stack */
    struct walk w;
    size_t outside;
    unwind(p, tid, &w, &outside);
    if (outside && !fresh && report(s, p) == 0) /* mappings changed unseen (a seccomp filter) */
        unwind(p, tid, &w, &outside);
    if (!w.n)
        return 0;
    uint32_t flags[STACK_MAX] = {0};
    for (size_t i = 0; i < w.n; i++) {
        if (emitted(p, w.pc[i]))
            continue;
        int rc = emit_mapping(s, p, tid, w.pc[i]);
        if (rc < 0)
            return rc;
    }
    return tr_writer_stack_addrs(s->w, w.pc, flags, w.n, stack_id);
}

void stacks_maps_changed(struct stacks *s, pid_t tgid, int unmapped)
{
    struct proc *p = proc_of(s, tgid, 0);
    if (!p)
        return;
    p->stale = 1;
    if (unmapped)
        p->nmaps = 0; /* a range written before may now hold another file */
}

void stacks_forget(struct stacks *s, pid_t tgid)
{
    struct proc *p = proc_of(s, tgid, 0);
    if (p) {
        hashmap_del(&s->procs, (uint64_t)tgid, 0);
        proc_free(p);
    }
}

void stacks_free(struct stacks *s)
{
    if (!s)
        return;
    size_t i = 0;
    for (hashmap_slot *sl; (sl = hashmap_next(&s->procs, &i));)
        proc_free(sl->val);
    hashmap_free(&s->procs);
    free(s);
}
