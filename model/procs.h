/*
 * procs.h - processes, threads, command names and memory maps, as a trace's
 * COMM, FORK, EXIT and MMAP records tell them: fed the records in order,
 * the model answers for "now" (the last record fed) and, for a tool that
 * asks after reading, for any earlier time of the stream.
 *
 *     struct procs *pm = procs_new(NULL);
 *     while (tr_reader_next(r, &rec) > 0) {
 *         if (procs_feed(pm, &rec) < 0) ...out of memory...
 *         const procs_map *m = procs_find_map(procs_proc_get(pm, rec.pid), addr);
 *         const char *comm = procs_comm(pm, rec.tid);
 *     }
 *     procs_free(pm);
 *
 * The semantics are perf's:
 *   - STREAM_START forgets everything: a stream is one recording.
 *   - FORK with pid != ppid makes a new process pid (a pid seen before is a
 *     new process then: the old one is kept only for time queries) whose
 *     maps are a copy of the parent's; with pid == ppid it is a new thread
 *     of that process and shares its maps.  A new thread's command name is
 *     its parent thread's (ptid's) when that is known.
 *   - COMM names the thread from then on; with exec set, the process's maps
 *     are dropped (exec replaces the address space).
 *   - MMAP of [start, start + len) in process pid replaces whatever that
 *     range held: older maps it overlaps are cut (the part before and the
 *     part after stay, with their file offsets) or removed.  Records of
 *     length 0 or whose range wraps are ignored.  Maps of pid -1 (the
 *     kernel's, as tr-rec-perf records them) are a process like any other;
 *     procs_lookup() falls back to them.
 *   - EXIT ends a thread (TR_EXITF_THREAD, or tid != pid) or the process;
 *     the maps stay: samples may follow.
 * The model's clock is the largest record time seen so far (records of
 * time 0 happen "now"), so lifetimes never run backwards.
 *
 * Memory grows with the number of processes, threads, COMM and MMAP records
 * (and maps copied at forks), never with the number of other records.  The
 * look-up of an address is a check of the last map found, else a binary
 * search; an MMAP costs O(log n + what it overlaps), so a million mmaps are
 * not quadratic.
 *
 * Like every module of model/, it never prints or exits.
 */
#ifndef MODEL_PROCS_H
#define MODEL_PROCS_H

#include <stddef.h>
#include <stdint.h>

#include "tr.h"

#define PROCS_COMM_MAX 31 /* command names are kept to this many bytes */
#define PROCS_BUILD_ID_MAX 64

typedef struct procs_map {
    uint64_t start, end, pgoff; /* [start, end), file offset of start */
    uint32_t prot, flags;       /* PROT_*, MAP_* as recorded (0: unknown) */
    const char *path;           /* interned (equal paths are one pointer), valid
                                   until procs_free(); "" none */
    uint8_t build_id[PROCS_BUILD_ID_MAX];
    uint8_t build_id_len;
    uint64_t born;              /* time it came to this process (its mmap, the fork) */
    /* The tool's, one pointer per map (symbolize: the binary it resolves in).
     * The model never reads it; it is copied with the map when a fork copies
     * it or a new mmap cuts it.  NULL in a new map. */
    void *user;
} procs_map;

typedef struct procs_proc {
    int32_t pid;
    int32_t ppid;      /* the parent from its FORK, -1 unknown */
    uint64_t born;     /* time of its FORK, 0 when it was there from the start */
    uint64_t exec_time;/* time of its last exec, 0 none */
    uint64_t exit_time;/* time of its EXIT, 0 while it lives */
    int exited;
    /* +1 whenever its maps change (mmap, exec, the copy at fork): a tool's
     * caches of what addresses mean stay valid while it stays the same. */
    uint64_t maps_gen;
    size_t nmaps;      /* maps now */
    /* The tool's per-process data, freed with procs_options.user_free when
     * the process is forgotten: replaced by a new process of the same pid
     * (FORK), at STREAM_START, procs_reset() and procs_free(). */
    void *user;
    struct procs_proc_priv *priv; /* the model's */
} procs_proc;

typedef struct procs_thread {
    int32_t tid, pid;
    /* Its command name now (a COMM record's, or inherited at its fork), NULL
     * unknown; interned, valid until procs_free(). */
    const char *comm;
    /* The name of its last COMM record, NULL if it had none (tr-cat shows
     * only those, as it always has). */
    const char *comm_recorded;
    uint64_t born;     /* time of its FORK, 0 when it was there from the start */
    uint64_t exit_time;
    int exited;
    struct procs_thread_priv *priv; /* the model's */
} procs_thread;

typedef struct procs_options {
    /* Frees a process's user pointer (not called for NULL). */
    void (*user_free)(void *user, void *ctx);
    void *ctx;
} procs_options;

/* A new, empty model (opt may be NULL), or NULL when out of memory. */
struct procs *procs_new(const procs_options *opt);
/* Free it, calling user_free on every process's user pointer. */
void procs_free(struct procs *pm);
/* Forget every process and thread (what STREAM_START does). */
void procs_reset(struct procs *pm);

/* Whether a record of this type may change what an address or a stack
 * means (a mapping, a fork, an exec, a blob, a new stream...): every type
 * but the measurements (samples, counters, syscalls, signals, library
 * calls, tracepoint events, functions, losses, switches).  Tools that
 * cache what frames resolved to drop their caches on these. */
int procs_may_remap(uint32_t type);

/* Feed one record (any type: those that do not concern processes only move
 * the clock; a tool that asks only about now may feed only STREAM_START,
 * COMM, FORK, EXIT and MMAP).  0, or TR_E_NOMEM (the model then lacks that
 * record's effect but stays consistent). */
int procs_feed(struct procs *pm, const tr_record *rec);

/* The process pid now, or NULL when the model never heard of it. */
procs_proc *procs_proc_get(const struct procs *pm, int32_t pid);
/* The same, creating an empty process when unknown (a tool that meets a pid
 * only in samples).  NULL when out of memory. */
procs_proc *procs_proc_make(struct procs *pm, int32_t pid);
/* Iterate the processes now (in no particular order): *it from 0; NULL at
 * the end.  Feeding records invalidates the iteration. */
procs_proc *procs_next(const struct procs *pm, size_t *it);
/* The thread tid now, or NULL. */
const procs_thread *procs_thread_get(const struct procs *pm, int32_t tid);

/* The command name of thread tid now, or NULL when unknown.  Names are
 * interned and stay valid until procs_free() (resets keep them). */
const char *procs_comm(const struct procs *pm, int32_t tid);
/* Its name at time (the one it had then), or NULL when unknown then. */
const char *procs_comm_at(const struct procs *pm, int32_t tid, uint64_t time);
/* The process of thread tid, or -1 when unknown. */
int32_t procs_pid_of(const struct procs *pm, int32_t tid);

/* The map of p holding addr now, or NULL (p may be NULL).  The pointer is
 * valid until the next procs_feed(); the tool may set its user field. */
procs_map *procs_find_map(procs_proc *p, uint64_t addr);
/* procs_find_map of process pid, else of pid -1 (the kernel's maps). */
const procs_map *procs_lookup(const struct procs *pm, int32_t pid, uint64_t addr);
/* The map that held addr in process pid at time, or NULL: the process pid
 * was then (a pid reused by a later fork answers for its old process
 * before that fork), with the maps it had then.  A time at or after the
 * process's last change answers like procs_find_map; an earlier one builds
 * an index of the process's history on first use (O(n log n) for its n
 * maps, rebuilt when it changed since), then costs O(log^2 n).  The map may
 * be a piece of the one recorded (the part a later mmap cut away, or the
 * part that stayed; pgoff is its start's); valid until the next
 * procs_feed() or procs_map_at().  NULL too when out of memory. */
const procs_map *procs_map_at(struct procs *pm, int32_t pid, uint64_t addr, uint64_t time);

/* Iterate the maps of p now, in address order: *it from 0; NULL at the
 * end.  Feeding records invalidates the iteration. */
procs_map *procs_maps_next(procs_proc *p, size_t *it);

/* Counts, for statistics and tests. */
typedef struct procs_stats {
    uint64_t processes, threads; /* known now */
    uint64_t maps;               /* maps now, over all processes */
    uint64_t history;            /* pieces of maps kept for time queries */
} procs_stats;
void procs_get_stats(const struct procs *pm, procs_stats *st);

#endif
