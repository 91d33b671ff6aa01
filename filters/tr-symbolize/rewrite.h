/* rewrite.h - tr-symbolize's work: copy a trace, rewriting its stacks. */
#ifndef TR_SYMBOLIZE_REWRITE_H
#define TR_SYMBOLIZE_REWRITE_H

#include "symbolize/symbolize.h"

struct rewrite_options {
    sym_options sym;
    int symbols;         /* also write SYMBOL records */
    int keep_stack_copy; /* keep sample registers and stack copies */
    int stream;          /* no prescan: read the input as it comes */
    int stats;           /* print statistics on stderr */
    const char *in_name, *out_name;
};

/* Read in_fd, write out_fd; returns a CLI_EXIT_* status (errors printed). */
int rewrite_trace(const struct rewrite_options *o, int in_fd, int out_fd);

#endif
