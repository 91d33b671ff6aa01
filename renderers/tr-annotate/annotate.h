/* annotate.h - tr-annotate: the samples of a trace per function and
 * instruction (collect.c), the functions' code disassembled with those
 * shares, source lines interleaved (print.c). */
#ifndef TR_ANNOTATE_H
#define TR_ANNOTATE_H

#include <stdint.h>
#include <stdio.h>

#include "hashmap.h"
#include "symbolize/symbolize.h"

struct an_opts {
    const char *const *symbols; size_t nsymbols; /* -s: these functions (else the hottest) */
    size_t hottest;           /* -n: how many (default 1) */
    const char *dso;          /* -d: only functions of this module (path or basename) */
    const char *event;        /* -e: the event annotated (default: the first sampled) */
    int samples;              /* --samples: count samples, not periods */
    int json, source;         /* --json, --source */
    int intel;                /* -M intel */
    int verbose;
    sym_options sym;
};

/* The samples at one address of a function. */
struct an_hit {
    uint64_t key;             /* offset from the function's start; raw address when unknown */
    uint64_t samples, weight;
    struct an_hit *next;
};

/* One function of one module: the samples whose leaf address is in it. */
struct an_fn {
    const char *func, *module; /* interned by the session: compared as pointers */
    int unknown;               /* no symbol: the hits are raw addresses */
    int kernel;
    sym_code *code;            /* its module's binary; NULL: none (kernel, JIT, anonymous) */
    int have_start;
    uint64_t start;            /* the function's start as a file address of code */
    uint64_t addr_start;       /* its start as recorded (the first sample's address - offset) */
    uint64_t samples, weight;
    struct an_hit *hits;
    size_t nhits;
};

struct annotate {
    const struct an_opts *o;
    sym_session *sym;
    hashmap fns;               /* (func, module) -> an_fn */
    struct an_fn **list; size_t nfns, capfns;
    hashmap hits;              /* (an_fn, key) -> an_hit */
    char event[256];           /* the event annotated */
    int event_chosen;
    char other[256];           /* another event's name, and its samples skipped */
    uint64_t other_samples;
    uint64_t samples, weight;  /* of the event, in all functions */
    char arch[32];
    struct an_map { void *p; size_t len; } *maps; /* the input files, mapped for the session */
    size_t nmaps, capmaps;
};

int an_init(struct annotate *a, const struct an_opts *o);
void an_free(struct annotate *a);
/* Read one input (NULL or "-": stdin): a CLI_EXIT_* status. */
int an_input(struct annotate *a, const char *path);
/* Print what the options ask for: a CLI_EXIT_* status. */
int an_print(struct annotate *a, FILE *out);

#endif
