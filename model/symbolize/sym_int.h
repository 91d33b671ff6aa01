/*
 * sym_int.h - internals of the symbolize library (not installed).
 */
#ifndef SYM_INT_H
#define SYM_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

#include "symbolize.h"

#include "array.h"
#include "hashmap.h"
#include "procs.h"

/* ---- demangle.c ---- */
/* The demangled form of a C++, Rust legacy or Rust v0 name (malloc'd), or
 * NULL to keep name as it is (not mangled, or malformed). */
char *sym_demangle(const char *name);

/* ---- symtab.c: sorted address tables (kallsyms, perf maps) ---- */
typedef struct sym_tab_entry {
    uint64_t start, size; /* size 0: up to the next entry */
    const char *name;     /* interned (perf maps) or in the table's text (kallsyms) */
    const char *module;   /* interned: "[kernel.kallsyms]", "[ext4]", "[jit]" */
} sym_tab_entry;
typedef struct sym_tab {
    uint64_t id; /* unique per table, for the address cache */
    sym_tab_entry *e;
    size_t n;
    char *text;   /* kallsyms: the names live here */
    uint32_t crc; /* of the text it was parsed from */
    size_t text_len;
} sym_tab;
/* Parse /proc/kallsyms text (kernel text symbols only).  NULL: nomem. */
sym_tab *sym_tab_kallsyms(strpool *p, const char *text, size_t len);
/* The same, taking buf (malloc'd, len + 1 bytes) instead of copying it. */
sym_tab *sym_tab_kallsyms_take(strpool *p, char *buf, size_t len);
/* Parse a perf map ("START SIZE name" in hex). */
sym_tab *sym_tab_perfmap(strpool *p, const char *text, size_t len);
const sym_tab_entry *sym_tab_find(const sym_tab *t, uint64_t addr);
void sym_tab_free(sym_tab *t);

/* ---- symtable.c: a module's symbol table, sorted, built or mapped from the cache ---- */
/* A sized symbol libdwfl may choose (32 bytes: the cache file's record). */
typedef struct sym_rec {
    uint64_t start, end, maxend; /* maxend: the largest end up to this one */
    uint32_t name;               /* offset in the table's strings */
    uint32_t order;              /* libdwfl's index (its search order) << 2 | rank of its binding */
} sym_rec;
#define SYM_REC_INDEX(r) ((r)->order >> 2)
#define SYM_REC_RANK(r) ((r)->order & 3) /* libdwfl's preference: 3 global, 2 weak, 1 local, 0 other */
typedef struct sym_dem_new sym_dem_new;
/* Between two consecutive bounds (of a symbol or an allocated section)
 * every address has the same symbol. */
typedef struct sym_symtable {
    const uint64_t *bounds; size_t nbounds;     /* sorted, unique */
    const sym_rec *sized; size_t nsized;        /* by start */
    const uint64_t *sizeless; size_t nsizeless; /* starts of the sizeless symbols, sorted */
    const char *str; size_t nstr;               /* names (nstr > 0, str[nstr - 1] == 0) */
    int first_global;  /* libdwfl's index of the first symbol of its global pass (0: one pass) */
    const void *image; size_t len; int mapped;  /* all of the above: malloc'd or the cache's */
    /* the demangled forms of names: the cache's (mapped when first needed) and this run's */
    const char *cache_dir; char key[129];       /* key: hex build-id, "" when none */
    const void *dem; size_t dem_len; int dem_tried;
    sym_dem_new *added; size_t nadded, addcap, nnew; /* nnew: of added, not in the cache */
    char *addstr; size_t naddstr, addstrcap;    /* their mangled names */
    hashmap seen;                               /* hash -> 1 + index in added */
    int from_cache;    /* the table was mapped from the cache (for tests) */
    size_t dem_found;  /* names found demangled in the cache (for tests) */
} sym_symtable;
/* Build mod's table, or map it from CACHE_DIR/symbols/BUILD-ID when a
 * good one for the same table is there (cache_dir NULL: no cache).  0, or
 * -1 when it could not be built. */
int sym_symtable_open(sym_symtable *t, Dwfl_Module *mod, const char *cache_dir);
/* The demangled form of name (NUL-terminated, len bytes), interned in
 * pool, from the cache when it is there; NULL: keep it as it is. */
const char *sym_symtable_demangle(sym_symtable *t, strpool *pool, const char *name, size_t len);
/* Free the table, first writing the demangled names this run added to
 * the cache. */
void sym_symtable_free(sym_symtable *t);
/* Sort n elements of size bytes by the uint64_t each begins with, stably.
 * 0, or -1 when out of memory. */
int sym_sort_by_key(void *base, size_t n, size_t size);

/* ---- session.c ---- */
typedef struct sym_symfile sym_symfile;
typedef struct sym_proc sym_proc;

/* One resolved address: the chain of functions, innermost (inlined) first. */
typedef struct sym_entry {
    uint32_t n;
    sym_frame f[]; /* addr not set */
} sym_entry;
/* A new entry of n frames, in the session's arena (freed with the session,
 * never one by one: one per distinct address), NULL when out of memory. */
sym_entry *sym_entry_new(sym_session *s, uint32_t n);

/* A process's maps are the model's (model/procs.h); a map's user pointer is
 * the sym_symfile it resolves in, found on first use (NULL until then). */
static inline sym_symfile *sym_map_file(const procs_map *m)
{
    return m->user;
}

/* The session's data of one process, hung off the model's process (its user
 * pointer, freed with it): a new process of the same pid starts afresh. */
struct sym_proc {
    int32_t pid;
    procs_proc *mp;    /* the model's process: maps, maps_gen */
    sym_tab *jit;      /* perf-map:PID */
    Dwfl *unwind;      /* per-process unwinding session */
    uint64_t unwind_gen; /* rebuild the session when mp->maps_gen changed */
    uint8_t unwind_failed, warned_nomap;
    uint64_t unwind_used;   /* session clock of its last unwinding */
    sym_session *session;
    const uint8_t *jit_blob; size_t jit_blob_len; /* the reader's blob jit came from */
    const void *jit_reader; uint64_t jit_blob_gen; /* the reader and blob_gen it was last looked for at */
    struct sym_rule_slot *rules; /* unwind.c: address -> its CFI rule, while maps_gen holds */
    struct sym_addr_slot *addrs; /* session.c: address -> its entry, while maps_gen holds */
};

#define SYM_FRAMES_HINT_MAX (1u << 18) /* beyond, tables grow as they are filled */

struct sym_session {
    sym_options opt;
    strpool strings;
    struct procs *procs; /* processes and their maps, fed by sym_observe */
    hashmap files;       /* interned key -> sym_symfile */
    hashmap cache;       /* (owner id, address) -> sym_entry (sym_entry_new's) */
    struct sym_arena *arena; /* sym_entry_new's blocks, the newest first */
    hashmap symbols_seen;/* (owner id, start) -> (void*)1 */
    sym_symfile **filelist; size_t nfiles, filecap;
    sym_tab *kernel;     /* kallsyms of the current stream */
    void *pre; size_t npre, precap; /* sym_prescan's blobs */
    const uint8_t *lazy_buf; size_t lazy_len; /* sym_prescan_lazy's trace */
    int lazy_full_done;  /* the whole trace was scanned */
    struct sym_ahead *ahead; int in_ahead; /* ahead.c: lazy_buf's addresses resolved while waiting */
    struct tail_raw *tails; size_t ntails; /* chunks it decompressed, for the reader */
    size_t frames_hint;  /* FRAME records in those chunks (the frames of a one-chunk
                          * trace), up to SYM_FRAMES_HINT_MAX: tables presized once */
    int archived_seen;   /* the prescan met archived ELF files (build-id blobs) */
    uint32_t cur_stream; /* index of the stream being read */
    uint8_t *vdso; size_t vdso_len; /* the trace's vDSO image */
    tr_reader *cur_reader;
    const tr_reader *synced; uint64_t synced_gen; /* sync_reader's last reader, at this tr_reader_defs_gen */
    const uint8_t *kblob; size_t kblob_len; /* the reader's kallsyms blob last parsed */
    int kernel_tried;
    uint32_t kernel_status; const char *kernel_detail; int kernel_reported, kernel_used;
    char kernel_release[128], arch[32];
    uint64_t arch_gen;   /* +1 whenever arch changes (unwind.c caches what it means) */
    uint64_t arch_kind_gen; int arch_kind;
    uint64_t next_owner_id;
    uint64_t stream_no;  /* counts STREAM_START records (1 = the first stream) */
    uint64_t blob_gen;   /* counts BLOB and STREAM_START records: the readers' blobs may have changed */
    size_t live_unwind;  /* processes with an unwinding session open */
    uint64_t unwind_clock;
    char *debuginfo_path;
    struct sym_prefetch *prefetch; size_t nprefetch, prefetchcap; /* symfile.c: debug files opened ahead */
    int sampled;         /* the stream had a sample: its mappings since are not opened ahead */
    Dwfl_Callbacks dwfl_callbacks;
    /* results */
    sym_frame *out; size_t outcap;
    uint64_t *addrs; uint8_t *adjust; size_t naddrs, addrcap, adjustcap;
    /* warnings */
    char **warnings; size_t nwarn, warncap, warnpos; char *lastwarn;
    struct sym_pid_warning { char *first; uint64_t n; } pidwarn[2]; /* SYM_PW_*: summed up */
    /* pending SYMBOL records */
    sym_symbol_info *syms; size_t nsyms, symcap, sympos;
    /* unwinding scratch: the sample being unwound */
    const tr_record *cur_sample; sym_proc *cur_proc;
    sym_proc *last_proc; /* get_proc's last answer: its pid's process until proc_free */
    uint64_t cur_sp; int cur_arch_ok;
    hashmap cfi;         /* (symfile id, vaddr) -> sym_cfi_rule (fast unwinder) */
    uint64_t fast_unwinds, slow_unwinds;
    sym_stats stats;
    const char *s_unknown, *s_unknown_mod, *s_kernel, *s_jit;
};

/* libdw's standard search for separate debug info (see session.c). */
int sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                       char **debuginfo_file_name);

/* A frame needs a table (kallsyms, JIT map, vDSO image) the session lacks:
 * scan the whole trace once if sym_prescan_lazy left it for later. */
void sym_need_prescan(sym_session *s);
/* An ELF file tr-archive stored in the trace (blob build-id/KEY, KEY "HEX" or
 * "HEX.debug", whole or joined from its parts), from any stream; NULL when
 * the trace has none. */
const void *sym_archived(sym_session *s, const char *key, size_t *len);
/* An image in memory as a memfd (symfile.c), or -1. */
int sym_memfd(const void *img, size_t size);

void sym_warnf(sym_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning about one process, of cause SYM_PW_*: as sym_warnf with
 * each_process, else counted for sym_finish's one line per cause. */
enum { SYM_PW_NOMAP, SYM_PW_UNWIND };
void sym_warn_pid(sym_session *s, int cause, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The map of p holding addr that symbolize resolves in: an executable one
 * of a process (not the kernel's), else NULL. */
procs_map *sym_proc_find_map(sym_proc *p, uint64_t addr);
/* Is m one of those (the maps of pid < 0 are not)? */
int sym_map_usable(const procs_map *m);
/* Is path a mapping of no file (anonymous memory, heap, stack, memfd, a
 * JIT's perf map)? */
int sym_path_is_anon(const char *path);
/* m's binary, found on first use: NULL when out of memory. */
sym_symfile *sym_map_symfile(sym_session *s, procs_map *m);
int sym_push_symbol(sym_session *s, uint64_t owner, const char *module, const char *name,
                    uint64_t start, uint64_t size, uint32_t flags);

/* ---- symfile.c: finding a module's binary and resolving in it ---- */
struct sym_symfile {
    uint64_t id;               /* owner id for the address cache */
    const char *path;          /* recorded path (interned) = sym_frame.module */
    uint8_t build_id[64];
    size_t build_id_len;
    const char *found;         /* file used (malloc'd), NULL when not found */
    int fd;                    /* of found, -1 */
    Dwfl *dwfl;                /* offline session at bias 0 */
    Dwfl_Module *mod;
    int is_exec;               /* ET_EXEC */
    struct { uint64_t off, vaddr, filesz; } seg[16];
    size_t nseg;
    uint32_t status;           /* TR_MOD_* */
    const char *detail;        /* interned */
    uint64_t used_stream;      /* the session's stream number it last resolved in */
    uint64_t reported;         /* the stream number it was last reported in */
    int has_dwarf, dwarf_tried;
    struct sym_dwpart *part;   /* its separate debug file's DWARF, inflated as needed */
    Dwarf_CFI *eh_cfi;         /* .eh_frame of the module, for the fast unwinder */
    Dwarf_Addr eh_bias;
    int eh_tried;
    /* symfile.c's look-up tables, built as addresses need them: the
     * symbol table (symtable.c), the symbol of each interval met, and
     * for each DIE on an address's scope path the ranges of its children */
    sym_symtable tab; int tab_done;
    struct interval_sym *isyms; size_t nisyms, isymcap; /* the symbols of the intervals met */
    hashmap interval_syms; /* interval index -> index in isyms + 1 */
    uint32_t *bucket; size_t nbucket, searches; unsigned bucket_shift; /* symfile.c's index of tab.bounds */
    hashmap child_index;   /* DIE offset -> the ranges of its children */
    hashmap scope_ids;     /* scope DIE offset -> index + 1 in scopes */
    hashmap walk_units;    /* (unit offset, Dwarf) -> its abbreviations, for walking its DIEs */
    struct sym_scope_info *scopes; size_t nscopes, scopecap; /* a scope's name and entry, once */
    uint64_t symtab_lookups, unit_walks; /* libdwfl symbol searches, unit indexes built */
    uint64_t libdw_walks;  /* scopes whose children libdw's walk read (not symfile.c's) */
    struct sym_addrcache *ac; int ac_none; /* addrcache.c: its answers of other runs */
};
/* The symfile of (path, build_id), found and opened on first use (never NULL
 * unless out of memory; check ->status). */
sym_symfile *sym_symfile_get(sym_session *s, const char *path, const uint8_t *build_id,
                             size_t build_id_len);
/* n bytes as 2n lowercase hex digits and a NUL. */
void sym_hexstr(char *out, const uint8_t *b, size_t n);
/* A module is mapped (path, plen bytes; its build-id, or none): open its
 * separate debug file ahead of its first address (see symfile.c). */
void sym_symfile_prefetch(sym_session *s, const char *path, size_t plen, const uint8_t *build_id,
                          size_t build_id_len);
/* An executable mapping of a process (not the kernel's): one whose
 * module's debug file a stream's start opens ahead. */
int sym_prefetchable_mmap(const tr_record *rec);
/* Drop the debug files opened ahead that no module took. */
void sym_symfile_prefetch_free(sym_session *s);
/* File vaddr of file offset off. */
uint64_t sym_symfile_vaddr(const sym_symfile *f, uint64_t off);
/* Resolve vaddr (already adjusted for return addresses) into a new entry
 * (malloc'd), pushing the SYMBOL it names (sym_push_symbol). */
sym_entry *sym_symfile_resolve(sym_session *s, sym_symfile *f, uint64_t vaddr);
/* The same, the entry sym_entry_new's, the SYMBOL in *sym instead (name
 * NULL: none), for the caller to push (sym_push_symbol keeps each once). */
sym_entry *sym_symfile_lookup(sym_session *s, sym_symfile *f, uint64_t vaddr, sym_symbol_info *sym);
void sym_symfile_free(sym_symfile *f);
/* The symbol of vaddr as resolving names it (name interned, start and
 * size file addresses): 0, or -1 when none. */
int sym_symfile_symbol(sym_session *s, sym_symfile *f, uint64_t vaddr, const char **name,
                       uint64_t *start, uint64_t *size);
/* 1 when resolving vaddr of f would wait now for its debug file's view
 * to inflate (or inflate it), else 0. */
int sym_symfile_waits(const sym_symfile *f, uint64_t vaddr);
/* Read 8 bytes at file offset off of f's found file: 0 or -1. */
int sym_symfile_read(sym_symfile *f, uint64_t off, uint64_t *val);

/* ---- addrcache.c: the answers of a binary's addresses, from run to run ---- */
/* The answer of vaddr of f when the cache holds it: 1 with *out a new
 * entry (NULL: out of memory), its SYMBOL pushed; 0 when it is not there. */
int sym_addrcache_get(sym_session *s, sym_symfile *f, uint64_t vaddr, sym_entry **out);
/* Keep this answer (frames fr, n of them; the SYMBOL sym, name NULL: none)
 * for the cache. */
void sym_addrcache_add(sym_session *s, sym_symfile *f, uint64_t vaddr, const sym_frame *fr, size_t n,
                       const sym_symbol_info *sym);
/* Write the answers kept, merged with the cache's, and free f's cache. */
void sym_addrcache_free(sym_symfile *f);

/* ---- dwpart.c: compressed separate debug info, inflated only as needed ---- */
typedef struct sym_dwpart sym_dwpart;
/* NULL when path does not suit (libdw then loads it whole).  cache_dir:
 * the views built are kept in CACHE_DIR/dwarf/BUILD-ID.debug and read
 * from there (NULL: no cache).  f NULL: opened ahead of need, for
 * sym_dwpart_adopt (the whole view starts inflating on its thread; the
 * cache is not looked at). */
sym_dwpart *sym_dwpart_open(const char *path, const sym_symfile *f, const char *cache_dir);
/* A prefetched p as sym_dwpart_open(path, f) would give it (it may free p
 * and return NULL). */
sym_dwpart *sym_dwpart_adopt(sym_dwpart *p, const sym_symfile *f);
/* The unit DIE holding vaddr (a file vaddr of f): 0, or -1 when none. */
int sym_dwpart_addrdie(sym_dwpart *p, uint64_t vaddr, Dwarf_Die *cu);
/* 1 when sym_dwpart_addrdie(p, vaddr) would wait for the view's thread or
 * inflate .debug_info further, else 0. */
int sym_dwpart_waits(sym_dwpart *p, uint64_t vaddr);
/* While sym_dwpart_addrdie waits for the view's thread, it calls
 * work(ctx) until that returns 0 (no more to do) or the view is ready. */
void sym_dwpart_on_wait(sym_dwpart *p, int (*work)(void *ctx), void *ctx);
void sym_dwpart_free(sym_dwpart *p);

/* ---- ahead.c: addresses resolved while a view inflates ---- */
typedef struct sym_ahead sym_ahead;
/* Resolve the addresses of a few more records ahead of the run, reading
 * s->lazy_buf from its start (session: the sym_session): 1 when there are
 * more, 0 when done (or called while it runs: it does not nest). */
int sym_ahead_step(void *session);
/* The answer found ahead for vaddr of f: 1 with the entry and the SYMBOL
 * it names (not pushed yet), else 0. */
int sym_ahead_take(sym_session *s, sym_symfile *f, uint64_t vaddr, sym_entry **e, sym_symbol_info *sym);
void sym_ahead_free(sym_ahead *a);

/* ---- cache.c: files of the on-disk cache (sym_options.cache_dir) ---- */
/* DIR/SUB/NAME opened for reading: an fd or -1. */
int sym_cache_open(const char *dir, const char *sub, const char *name);
/* DIR/SUB/NAME mapped read-only (a regular file, not empty): its bytes
 * and *len, or NULL.  munmap when done. */
const void *sym_cache_map(const char *dir, const char *sub, const char *name, size_t *len);
/* Write DIR/SUB/NAME whole or not at all (creating DIR/SUB 0700 as needed),
 * through a temporary file renamed over it.  Failures are silent. */
void sym_cache_write(const char *dir, const char *sub, const char *name, const void *data,
                     size_t len);
/* A 64-bit checksum of data[0..len) against accidental damage, not
 * forgery (seed: another range's checksum, to chain them; or 0). */
uint64_t sym_checksum(const void *data, size_t len, uint64_t seed);
/* A cache image is a header of hdr_size bytes, then its body.  The header
 * ends with three 64-bit fields: the image's size, a checksum of the body,
 * a checksum of the header up to that one (SYM_SEALED checks a header
 * type's layout).  sym_seal_image fills them in (the rest of the header
 * already in place); sym_image_sealed: 1 when an image of len bytes has
 * its size and both checksums right. */
#define SYM_SEALED(hdr, size_field, hdr_sum_field) \
    _Static_assert(offsetof(hdr, size_field) == sizeof(hdr) - 24 && \
                   offsetof(hdr, hdr_sum_field) == sizeof(hdr) - 8, #hdr " ends with its seal")
void sym_seal_image(void *img, size_t hdr_size, size_t size);
int sym_image_sealed(const void *img, size_t len, size_t hdr_size);

/* ---- unwind.c ---- */
/* Unwind the user stack of sample rec of process p into s->addrs.
 * Returns the number of addresses (0: could not). */
size_t sym_unwind(sym_session *s, sym_proc *p, const tr_record *rec);
void sym_unwind_free(sym_proc *p);
/* Free the session's cache of unwinding rules. */
void sym_unwind_cache_free(sym_session *s);

#endif
