/* tracefile.h - test helper: load a tr trace written by tr-rec-perf into
 * arrays and symbolize user addresses from its mmap records and the ELF
 * symbol tables of the mapped files. */
#ifndef TF_H
#define TF_H

#include <stddef.h>
#include <stdint.h>

struct tf_frame { uint64_t addr; uint32_t flags; };
struct tf_sample {
    int32_t pid, tid, cpu;
    uint64_t time, period;
    char event[64];
    uint32_t evflags;
    int nframes;
    struct tf_frame *frames;
    uint32_t abi, nregs;
    size_t stack_copy_len, raw_len;
};
struct tf_mmap { int32_t pid; uint64_t start, len, pgoff; uint32_t prot; char path[512]; size_t build_id_len; };
struct tf_task { int32_t pid, tid, ppid; int exec; char comm[32]; };
struct tf_counter { char event[64]; uint64_t value, enabled, running; uint32_t run, flags; };

struct tf {
    struct tf_sample *samples; size_t nsamples;
    struct tf_mmap *mmaps; size_t nmmaps;
    struct tf_task *comms; size_t ncomms;
    struct tf_task *forks; size_t nforks;
    size_t nexits, nlost_records;
    uint64_t lost;
    int lost_cpu_ok;          /* every LOST record names a CPU */
    char **blobs; size_t nblobs;
    struct tf_counter *counters; size_t ncounters;
    int complete;             /* stream end frame read */
    int truncated;            /* TR_E_TRUNCATED at the end */
    int errors;               /* other errors */
    int child_exit_status;    /* EXIT record of the first exec'd pid, -1 */
};

/* 0 when the file could be opened as a trace (see complete/truncated). */
int tf_load(const char *path, struct tf *t);
void tf_free(struct tf *t);
/* Name of the function containing addr in process pid, or NULL. */
const char *tf_symbol(struct tf *t, int32_t pid, uint64_t addr);
/* 1 if one of the sample's frames is in func. */
int tf_stack_has(struct tf *t, const struct tf_sample *s, const char *func);
int tf_has_blob(const struct tf *t, const char *prefix);

#endif
