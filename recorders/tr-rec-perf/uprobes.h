/*
 * uprobes.h - tr-rec-perf's user probes (-e probe:..., sdt:..., sdt_PROVIDER:NAME): each
 * becomes a uprobe in the run's own tracefs group tr_perf_<pid> (model/uprobe), recorded
 * as a tracepoint under perf's names (probe_BIN:FUNC, sdt_PROVIDER:NAME).
 */
#ifndef TRP_UPROBES_H
#define TRP_UPROBES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"

/* Whether an -e value names a user probe. */
int uprobes_is_spec(const char *spec);
/* Make the probes of one spec: the events into evs (up to max; an SDT probe whose sites
 * differ in argument types is one event per kind of site).  The binaries searched for
 * sdt_PROVIDER:NAME or probe:FUNC are the command's (cmd, NULL none) and its libraries,
 * or the -p processes' mappings.  Returns the count, or -1 with a reason in why. */
int uprobes_make(const char *spec, char *const *cmd, const pid_t *pids, int npids, struct perf_ev *evs,
                 size_t max, char *why, size_t why_len);
/* Remove this run's probes (after the perf events on them are closed; also at exit). */
void uprobes_remove(void);
/* Whether name is a binary: a path, a library the loader finds or a command in PATH. */
int uprobes_is_bin(const char *name);
/* -l with binaries: the SDT probes of each bin whose sdt_PROVIDER:NAME matches glob
 * (NULL: all); 0, or -1 with a reason in why. */
int uprobes_list_sdt(const char *glob, char *const *bins, int nbins, char *why, size_t why_len);

/* DWARF of a probed function (probedwarf.c) */
struct dwfunc;
/* NULL: no DWARF for the function at func_vaddr in path. */
struct dwfunc *dwf_open(const char *path, uint64_t func_vaddr);
void dwf_close(struct dwfunc *f);
/* Where perf probe puts a probe on the function: past its prologue. */
uint64_t dwf_entry(const struct dwfunc *f);
/* Its parameters' names (valid until dwf_close); the count. */
size_t dwf_params(struct dwfunc *f, const char **names, size_t max);
/* Parameter name as a uprobe fetch argument with its type at address addr ("%di:s32",
 * "-20(%bp):u64"); string: the string it points to.  -1 with err when refused. */
int dwf_param_fetch(struct dwfunc *f, const char *name, uint64_t addr, int string, char *out, size_t outlen,
                    char *err, size_t errlen);
/* The fetch type of the return value ("s32"), NULL when void or refused. */
const char *dwf_return_type(struct dwfunc *f, char *buf, size_t len);

#endif
