/*
 * uprobe.h - user probes for the recorders (tr-rec-ltrace, tr-rec-perf): where in an ELF
 * file a probe goes (symbols, IFUNCs, libraries, SDT notes) and the probes themselves in
 * tracefs uprobe_events, created in a group of the recorder's own and removed on every way
 * out.  Functions return 0 or -1 with a message in err; none prints or exits.
 */
#ifndef TR_UPROBE_H
#define TR_UPROBE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* --- ELF files (elfsyms.c) --- */
struct elfsym { char *name; uint64_t vaddr; int ifunc; };
struct elffile {
    char *path;
    struct elfsym *defs; size_t ndefs;   /* defined functions: dynsym (default versions) and symtab */
    struct elfsym *objs; size_t nobjs;   /* defined data objects (STT_OBJECT) */
    char **imports; size_t nimports;     /* undefined function symbols of dynsym */
    char **needed; size_t nneeded;       /* DT_NEEDED */
    char *runpath;                       /* DT_RUNPATH or DT_RPATH, NULL none */
    struct { uint64_t vaddr, off, filesz; } load[16]; unsigned nload;
};
/* An x86-64 ELF file opened with libelf (elf_end it, close *fd); NULL with err set. */
struct Elf *elf_open_file(const char *path, int *fd, char *err, size_t errlen);
/* 0, or -1 with err set (not an ELF file, unreadable). */
int elf_load(struct elffile *f, const char *path, char *err, size_t errlen);
void elf_free(struct elffile *f);
/* The defined function, else data object, of that name; NULL none. */
const struct elfsym *elf_symbol(const struct elffile *f, const char *name);
/* File offset of a virtual address; -1 when no segment holds it. */
int64_t elf_offset(const struct elffile *f, uint64_t vaddr);
/* The file a DT_NEEDED name resolves to as the dynamic loader finds it (runpath of
 * the object needing it, LD_LIBRARY_PATH, the system directories); NULL not found. */
char *elf_find_library(const char *name, const char *runpath, const char *origin);
/* The file offset of the implementation an IFUNC symbol of path selects on this machine. */
int64_t elf_ifunc_offset(const struct elffile *f, const char *name);
/* Where a probe on the function at file offset off of path can go: off, or past leading
 * instructions uprobes cannot step (AVX) that change neither arguments nor stack. */
uint64_t elf_probe_point(const char *path, uint64_t off);

/* --- SDT probes: the .note.stapsdt notes of <sys/sdt.h> (sdt.c) --- */
struct sdt_probe {
    char *provider, *name, *args; /* args as noted: "8@%rdi -4@-20(%rbp) 8@sym(%rip)" */
    uint64_t pc, semaphore;       /* virtual addresses, .stapsdt.base adjusted; semaphore 0: none */
};
struct sdt_probes { struct sdt_probe *v; size_t n; };
/* The SDT probes of an ELF file (none: n 0); -1 with err when it is no x86-64 ELF file. */
int sdt_read(const char *path, struct sdt_probes *out, char *err, size_t errlen);
void sdt_free(struct sdt_probes *p);
/* An x86-64 register of any width as the assembler spells it ("%rdi", "%r8d", len chars)
 * to its name in uprobe fetch arguments ("di", "r8"); NULL unknown. */
const char *uprobe_register(const char *s, size_t len);
/* One SDT argument ("-4@8(%rbp)") as a uprobe fetch argument with its type
 * ("+8(%bp):s32"); symbols (sym(%rip)) through f, as file offsets (@+OFF).  -1 with
 * err for what uprobes cannot fetch (an index register). */
int sdt_arg_fetch(const char *arg, const struct elffile *f, char *out, size_t outlen, char *err,
                  size_t errlen);

/* --- the probes in tracefs (uprobe.c) --- */
/* tracefs is model/tracing.h's, mounted when absent: the recorder calls tracing_release on
 * every way out, after removing its probes. */
/* A run's probes: group PREFIX<pid of the recorder>, events in the order made. */
struct uprobe_group {
    char name[64];
    pid_t owner;          /* only this process removes them (not a forked child) */
    char **events; size_t n;
};
/* Remove the groups PREFIX<pid> whose pid no longer runs a process named comm: what a
 * recorder killed with SIGKILL left.  Nothing else in uprobe_events is touched. */
int uprobe_cleanup_stale(const char *prefix, const char *comm, char *err, size_t errlen);
void uprobe_group_init(struct uprobe_group *g, const char *prefix);
/* Make probe GROUP/event: kind 'p' (entry) or 'r' (return), def "PATH:0xOFF[(0xREF)] [ARG...]".
 * Its tracepoint id into *id. */
int uprobe_add(struct uprobe_group *g, char kind, const char *event, const char *def, uint64_t *id,
               char *err, size_t errlen);
/* The perf tracepoint id of tracefs event SYSTEM/NAME (a probe or any tracepoint). */
int uprobe_tracepoint_id(const char *system, const char *name, uint64_t *id, char *err,
                         size_t errlen);
/* Remove the group's probes, last first (the perf events on them must be closed). */
void uprobe_group_destroy(struct uprobe_group *g);

#endif
