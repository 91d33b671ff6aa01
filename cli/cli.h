/*
 * cli.h - what every tr tool's main() shares: the option table that drives
 * getopt, --help, --version, the man page's SYNOPSIS and the completions;
 * bounded number parsing; one-line errors naming the tool; checked output.
 *
 * The shape of every main (after OpenBSD's head.c):
 *     cli_init(&tool, argc, argv);
 *     while ((c = cli_getopt(&tool, argc, argv)) != -1) switch (c) { ... }
 *     ... work ...
 *     return cli_finish_stdout();   (a failed write to stdout is an error)
 */
#ifndef TR_CLI_H
#define TR_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>
#include <sys/types.h>

/* Exit statuses shared by the tools (each tool's spec lists its own). */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAIL = 1,      /* the tool's own failure (bad input, I/O) */
    CLI_EXIT_USAGE = 2,     /* bad command line */
    CLI_EXIT_TRUNCATED = 3, /* input readable but truncated or partly corrupt */
};

/* One option.  Options with short_name >= 256 (or 0) are long-only and
 * cli_getopt returns .id for them; otherwise it returns short_name. */
struct cli_opt {
    int short_name;        /* 'o', or 0 for long-only */
    const char *long_name; /* "output", or NULL */
    const char *arg;       /* "FILE" (required argument), "[=WHEN]" optional, NULL none */
    const char *help;      /* one line */
    int id;                /* returned for long-only options (>= 256) */
    const char *complete;  /* completion hint: "file", "dir", "pid", "cmd", or a
                              space-separated word list, where PREFIX@tracepoint,
                              PREFIX@event and PREFIX@syscall stand for the running
                              system's names after PREFIX; NULL none.  On an option
                              without argument: what the operands complete to
                              when it is given (tr-rec-ftrace -l GLOB...) */
};

struct cli_tool {
    const char *name;          /* "tr-cat" */
    const char *synopsis[4];   /* argument parts, each one usage line: "[-j] [FILE...]" */
    const char *summary;       /* one line: what the tool does */
    const struct cli_opt *opts;/* terminated by an entry with help == NULL */
    int stop_at_nonopt;        /* 1: the first non-option word ends options (commands) */
    const char *operands;      /* completion for operands: "file", "cmd", ... */
};

/* Set the tool, handle the hidden --options-table (prints the table for
 * tests and completion generators and exits 0). */
void cli_init(const struct cli_tool *t, int argc, char **argv);
/* getopt_long over the table; handles -h/--help and -V/--version itself
 * (exit 0) and unknown options (usage on stderr, exit 2). */
int cli_getopt(int argc, char **argv);
extern char *cli_optarg;
extern int cli_optind;

const char *cli_name(void);
/* "usage: tr-cat [...]" lines, exactly the man page's SYNOPSIS. */
void cli_usage(FILE *f);
_Noreturn void cli_usage_exit(void);

/* "tool: message\n" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_vwarn(const char *fmt, va_list ap);
/* cli_warn, then exit(status). */
_Noreturn void cli_die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse a number with bounds; on failure: "tool: invalid WHAT 'S': reason",
 * exit 2.  Accepts decimal and 0x hex. */
uint64_t cli_parse_u64(const char *s, uint64_t min, uint64_t max, const char *what);
int64_t cli_parse_i64(const char *s, int64_t min, int64_t max, const char *what);
/* Seconds with a fraction ("1.5") to nanoseconds; bounds in ns. */
uint64_t cli_parse_seconds(const char *s, uint64_t max_ns, const char *what);

/* Output for binary traces: path "-" or NULL means stdout.  Refuses a
 * terminal with a clear error (exit 2) unless default_path is given, in
 * which case that file is written instead (tr-rec-perf's trace.tr).
 * Returns the fd; *shown receives the name to use in messages.
 * A regular file is written as a new file beside it (".NAME.XXXXXX") that
 * takes the name only at cli_commit_trace_output(): an error before
 * recording starts leaves the old file as it was, and the new file is
 * removed at exit.  An existing default_path (a symlink too, never
 * followed) is renamed to NAME.old at the commit, as perf keeps
 * perf.data.old.  A device or FIFO is opened as it is. */
int cli_open_trace_output(const char *path, const char *default_path, const char **shown);
/* Recording has started: the trace takes its name (see above).  Idempotent;
 * nothing to do for stdout.  Exits 1 when the rename fails. */
void cli_commit_trace_output(void);
/* Input: "-" or NULL is stdin.  Returns fd or exits 1 with the error. */
int cli_open_input(const char *path, const char **shown);

/* The whole content of a file (a /proc or tracefs file, whose size is not
 * known in advance), NUL-terminated; *len (may be NULL) gets its length.
 * NULL with errno set when it cannot be opened or read. */
char *cli_read_file(const char *path, size_t *len);
/* The comm of thread tid of process pid (/proc/PID/task/TID/comm, without
 * its newline) into buf: 0, or -1 (then buf is "") when it cannot be read. */
int cli_read_comm(pid_t pid, pid_t tid, char *buf, size_t size);

/* A negative rc of tr_reader_next(r) reading input shown: a damage the
 * reader reads past is warned about once (*warned counts them) and gives 1
 * (read on) with *status CLI_EXIT_TRUNCATED; anything else gets one message
 * and gives 0 (stop) with *status CLI_EXIT_TRUNCATED when a stream was read
 * before (or the input ends early), else CLI_EXIT_FAIL.  How every tool that
 * reads a whole trace meets damage (clitrace.c; links libtr). */
struct tr_reader;
int cli_read_error(struct tr_reader *r, int rc, const char *shown, int *warned, int *status);

/* Flush stdout; on failure print "tool: write error: stdout: ..." and
 * return 1, else return status unchanged. */
int cli_finish_stdout(int status);
/* The exit status that reports a command's wait status: its exit code, or
 * 128+N when signal N killed it, which cli_exit then re-raises. */
int cli_command_status(int wstatus);
/* exit(status), but when status is 128+N from cli_command_status, die of
 * signal N as the command did (core dumps off), as strace does; a signal
 * that does not kill leaves exit(status). */
_Noreturn void cli_exit(int status);
/* The tool name beside this program's executable when it is there, else name (for PATH). */
void cli_sibling_tool(const char *name, char *path, size_t size);
/* The file a command runs, found in PATH as execvp finds it; 0 with path filled, or -errno. */
int cli_find_command(const char *cmd, char *path, size_t len);
/* Add the pids of "PID[,PID...]" to pids[n..max); the new count.  Exits 2 on a bad or
 * excess pid. */
size_t cli_parse_pids(const char *s, pid_t *pids, size_t n, size_t max);
/* A recorder's view on a terminal: the trace is written into a pipe read by
 * tr-cat (the one beside the recorder, else on PATH) with the options args
 * (NULL-terminated), its text going to stderr.  tr-cat ignores SIGINT and
 * SIGQUIT: it reads on to the trace's end.  Returns the pipe's write end;
 * *viewer is tr-cat's pid.  Exits 1 when the pipe or fork fails. */
int cli_start_viewer(char *const args[], pid_t *viewer);
/* Ignore SIGPIPE so a closed pipe is an EPIPE error, not a silent death. */
void cli_ignore_sigpipe(void);

/* Put the heap on transparent huge pages where the system gives them on
 * request (/sys/kernel/mm/transparent_hugepage/enabled "madvise" or
 * "always"): a first touch of fresh memory then faults once per 2 MiB
 * instead of per 4 KiB.  It reserves 256 MiB of address space for the
 * heap and keeps what is freed for reuse instead of returning it.  For
 * tr-symbolize and tr-fold, which build their tables in tens of
 * milliseconds: page faults were a third of a warm run's time (python -g,
 * 3,600 faults), for a peak RSS higher by up to half (deep -g, 81 -> 120
 * MB: the untouched tail of grown arrays now counts).  Not for
 * recorders, whose memory is measured against perf's. */
void cli_heap_on_huge_pages(void);

#endif
