/* record.h - tr-triage's recording: the recorders started together, their
 * streams joined into one trace with tr-triage's own (record.c). */
#ifndef TR_TRIAGE_RECORD_H
#define TR_TRIAGE_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#define TRIAGE_MAX_PIDS 64

struct triage_rec {
    char **argv;               /* the command (argc words), or none */
    int argc;
    pid_t pids[TRIAGE_MAX_PIDS];
    size_t npids;
    int all;                   /* -a */
    uint64_t duration_ns;      /* -d */
    unsigned freq;             /* -F */
    const char *output;        /* the trace */
    int failed;                /* set: no trace was written (the reason was printed) */
};

/* Record as r says into r->output: the command's exit status (as
 * cli_command_status gives it), or 0 with -p and -a. */
int triage_record(struct triage_rec *r);
/* When this process is the recorded command's start (tr-triage runs itself
 * between the counting recorder and the command, to give the command back
 * its standard error): exec the command.  Else return. */
void triage_shim(char **argv);

#endif
