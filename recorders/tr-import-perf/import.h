/* import.h - a perf.data file (perfdata.h) written as a tr trace. */
#ifndef TRI_IMPORT_H
#define TRI_IMPORT_H

#include <stdint.h>

#include "perfdata.h"
#include "tr.h"

struct import_opts {
    const char *kallsyms;     /* --kallsyms FILE, or NULL */
    const char *buildid_dir;  /* perf's build-id cache: ~/.debug */
    const char *perf_map_dir; /* where JIT maps are: /tmp */
};

struct import_stats {
    uint64_t samples, lost, malformed, unknown_event;
    int no_kallsyms, no_vdso, bad_tracing;
};

/* Write the trace of pd on fd, reading its records as they are written;
 * argc/argv name this run in the trace.  0 or a negative tr_error (the writer's, or TR_E_IO for an unreadable --kallsyms). */
int import_perfdata(struct perfdata *pd, const struct import_opts *o, int fd, int argc, char **argv,
                    struct import_stats *st);

#endif
