/* tr-top - a live profile (perf top): records every CPU, processes or a
 * command with tr-rec-perf, or reads a trace as it comes, and shows the
 * hottest functions about once a second in a terminal UI, or as tables. */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "report/report.h"

enum { OPT_STDIO = 256, ZOOMS = 8 };

static const struct cli_opt opts[] = {
    {'a', "all-cpus", NULL, "record every CPU (the default without -p, a command or an input)", 0, NULL},
    {'p', "pid", "PID[,PID]", "record these processes", 0, "pid"},
    {'F', "freq", "HZ", "sample at HZ per second (default 999)", 0, NULL},
    {'i', "input", "FILE", "read a trace from FILE (- : stdin, the default when it is a pipe)", 0, "file"},
    {'d', "delay", "SECONDS", "refresh every SECONDS (default 1)", 0, NULL},
    {'s', "sort", "KEYS", "sort keys among comm,pid,tid,dso,sym (default dso,sym)", 0, "comm pid tid dso sym"},
    {'g', NULL, NULL, "show call graphs (Children and Self)", 0, NULL},
    {'z', "zero", NULL, "zero the counts at each refresh instead of decaying them", 0, NULL},
    {'E', "entries", "N", "show at most N rows of each --stdio table (default 30)", 0, NULL},
    {'v', "verbose", NULL, "after each --stdio table, print what the view holds on stderr", 0, NULL},
    {0, "stdio", NULL, "print a table per interval instead of the terminal UI", OPT_STDIO, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-top",
    .synopsis = {"[-a | -p PID[,PID]] [-F HZ] [-g] [-d SECONDS] [-s KEYS] [-z] [--stdio] [-E N] [-v]",
                 "[OPTIONS] [--] COMMAND [ARG...]",
                 "[OPTIONS] -i FILE"},
    .summary = "show the hottest functions live, recorded or read as they come (perf top)",
    .opts = opts,
    .stop_at_nonopt = 1,
    .operands = "cmd",
};

/* The sort key sets the s key goes through. */
static const char *const sorts[] = {"dso,sym", "sym", "comm,dso,sym", "pid,sym", "tid,sym"};

static struct top {
    struct report *r;
    int fd;                        /* the trace */
    pid_t rec;                     /* the recorder we started, 0 none */
    int rec_err;                   /* its stderr (a memory file), -1 none */
    int rec_status;                /* its exit status once reaped */
    int stdio, zero, entries, verbose;
    uint64_t delay_ns, next, last;
    uint64_t seen;                 /* samples after the last decay */
    const char *what;              /* "all CPUs", "pid 12", the input */
    /* the terminal UI */
    int ui, tty;
    SCREEN *scr;
    size_t cursor, top_line;
    int help, sort_i;              /* sort_i: the s key's place in sorts */
    const char *sort_name;         /* the sort keys shown */
    struct report_zoom zoom[ZOOMS]; /* zoom[0]: none; zooms stack */
    char zoom_dso[ZOOMS][256];     /* their DSOs (the report's strings go when it compacts) */
    int nzoom;
    struct report_row *rows;       /* the last view's */
    size_t nrows;
    double rate;                   /* samples per second in the last interval */
} T;

static volatile sig_atomic_t stop_signal;

static _Noreturn void finish(int status);

static void on_signal(int sig) { stop_signal = sig; }

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the recorder ----------------------------------------------------------- */

static void start_recorder(const char *pids, const char *freq, int argc, char **argv)
{
    char path[PATH_MAX];
    cli_sibling_tool("tr-rec-perf", path, sizeof path);
    char **args = calloc((size_t)argc + 10, sizeof *args);
    int p[2];
    if (!args || pipe2(p, O_CLOEXEC) < 0)
        cli_die(CLI_EXIT_FAIL, "cannot start tr-rec-perf: %s", strerror(errno));
    int n = 0;
    args[n++] = path;
    args[n++] = "-q";
    args[n++] = "-g";
    args[n++] = "-F";
    args[n++] = (char *)freq;
    if (pids) {
        args[n++] = "-p";
        args[n++] = (char *)pids;
    } else if (!argc) {
        args[n++] = "-a";
    } else {
        args[n++] = "--";
    }
    for (int i = 0; i < argc; i++)
        args[n++] = argv[i];
    if ((T.rec_err = memfd_create("tr-top", MFD_CLOEXEC)) < 0)
        cli_die(CLI_EXIT_FAIL, "cannot start tr-rec-perf: %s", strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        cli_die(CLI_EXIT_FAIL, "cannot start tr-rec-perf: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* a tr-top killed outright stops it too */
        if (getppid() != parent)
            _exit(127);
        dup2(p[1], STDOUT_FILENO);
        dup2(T.rec_err, STDERR_FILENO);
        signal(SIGPIPE, SIG_DFL);
        execvp(path, args);
        fprintf(stderr, "tr-top: %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(p[1]);
    free(args);
    T.rec = pid;
    T.fd = p[0];
}

/* Stop the recorder (kill_it: it still runs) and reap it: rec_status is
 * its exit status (0 when we stopped it: a broken pipe then is no failure). */
static void stop_recorder(int kill_it)
{
    if (!T.rec)
        return;
    if (kill_it) { /* its pipe closed first: a write it is blocked in fails */
        close(T.fd);
        kill(T.rec, SIGTERM);
    }
    int ws;
    while (waitpid(T.rec, &ws, 0) < 0 && errno == EINTR)
        ;
    T.rec = 0;
    T.rec_status = kill_it ? 0 : WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* ---- views ------------------------------------------------------------------ */

static const struct report_zoom *zoom(void) { return &T.zoom[T.nzoom]; }

static void row_keys(const struct report_row *w, char *buf, size_t size)
{
    const struct report_opts *o = report_options(T.r);
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < o->nsort && len < size; i++) {
        switch (o->sort[i]) {
        case RK_COMM: len += (size_t)snprintf(buf + len, size - len, "%-16s ", w->comm); break;
        case RK_PID: len += (size_t)snprintf(buf + len, size - len, "%7d:%-16s ", w->pid, w->comm); break;
        case RK_TID: len += (size_t)snprintf(buf + len, size - len, "%7d:%-16s ", w->tid, w->comm); break;
        case RK_DSO: len += (size_t)snprintf(buf + len, size - len, "%-20s ", w->dso); break;
        default: len += (size_t)snprintf(buf + len, size - len, "[%c] %s ", w->kernel ? 'k' : '.', w->sym); break;
        }
    }
    if (len && len <= size)
        buf[len - 1] = 0; /* the last key's space */
}

static void row_text(const struct report_row *w, char *buf, size_t size)
{
    char keys[1024];
    row_keys(w, keys, sizeof keys);
    if (report_options(T.r)->children)
        snprintf(buf, size, "  %7.2f%%  %7.2f%%  %s", w->children, w->self, keys);
    else
        snprintf(buf, size, "  %7.2f%%  %s", w->self, keys);
}

static void zoom_text(char *buf, size_t size)
{
    const struct report_zoom *z = zoom();
    size_t len = 0;
    buf[0] = 0;
    if (z->pid)
        len += (size_t)snprintf(buf + len, size - len, " process %d", z->pid);
    if (z->tid && len < size)
        len += (size_t)snprintf(buf + len, size - len, " thread %d", z->tid);
    if (z->dso && len < size)
        snprintf(buf + len, size - len, " DSO %s", z->dso);
}

static void header(char *buf, size_t size, const char *event)
{
    char zt[400];
    zoom_text(zt, sizeof zt);
    snprintf(buf, size, "   tr-top: %8.0f samples/s  event: %s  (%s)%s%s", T.rate, event ? event : "-", T.what,
             *zt ? "  zoom:" : "", zt);
}

static void print_table(const char *event)
{
    char line[2048];
    header(line, sizeof line, event);
    printf("%s\n", line);
    for (int i = 0; i < 100; i++)
        putchar('-');
    fputs("\n\n", stdout);
    for (size_t i = 0; i < T.nrows && i < (size_t)T.entries; i++) {
        row_text(&T.rows[i], line, sizeof line);
        printf("%s\n", line);
        if (T.rows[i].graph)
            fputs(T.rows[i].graph, stdout);
    }
    fputc('\n', stdout);
    if (fflush(stdout) != 0) /* the reader went away: no one to show it to */
        finish(cli_finish_stdout(CLI_EXIT_FAIL));
}

static const char *const help_lines[] = {
    "  q, Ctrl-C   quit",
    "  Up, Down, PgUp, PgDn, Home, End   move",
    "  s           next sort keys (dso,sym; sym; comm,dso,sym; pid,sym; tid,sym)",
    "  d           zoom into the selected row's DSO",
    "  p           zoom into the selected row's process",
    "  t           zoom into the selected row's thread",
    "  Esc, Left   zoom out",
    "  g, +        call graphs on or off",
    "  z           zero at each refresh, or decay",
    "  h, ?        this help (any key closes it)",
};

static const char *next_line(const char *s)
{
    s += strcspn(s, "\n");
    return *s ? s + 1 : s;
}

static void draw(const char *event)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    erase();
    char line[2048];
    header(line, sizeof line, event);
    attron(A_BOLD);
    mvaddnstr(0, 0, line, cols);
    attroff(A_BOLD);
    const struct report_opts *o = report_options(T.r);
    snprintf(line, sizeof line, "   sort: %s  %s  call graphs %s   h: help  q: quit", T.sort_name,
             T.zero ? "zeroed" : "decaying", o->graph != RG_NONE ? "on" : "off");
    mvaddnstr(1, 0, line, cols);
    size_t len = (size_t)snprintf(line, sizeof line, "%s", o->children ? "  Children      Self  " : "  Overhead  ");
    for (int i = 0; i < o->nsort && len < sizeof line; i++) {
        static const char *const names[] = {[RK_COMM] = "Command", [RK_PID] = "Pid:Command",
                                            [RK_TID] = "Tid:Command", [RK_DSO] = "Shared Object",
                                            [RK_SYM] = "Symbol"};
        int width = o->sort[i] == RK_COMM ? 16 : o->sort[i] == RK_DSO ? 20 : o->sort[i] == RK_SYM ? 0 : 24;
        len += (size_t)snprintf(line + len, sizeof line - len, "%-*s ", width, names[o->sort[i]]);
    }
    mvaddnstr(2, 0, line, cols);
    if (T.help) {
        for (size_t i = 0; i < sizeof help_lines / sizeof *help_lines && (int)i + 4 < rows; i++)
            mvaddnstr((int)i + 4, 0, help_lines[i], cols);
        refresh();
        return;
    }
    if (T.nrows && T.cursor >= T.nrows)
        T.cursor = T.nrows - 1;
    /* the lines: each row and its graph; the cursor's row stays in sight */
    size_t cur_line = 0, nlines = 0;
    for (size_t i = 0; i < T.nrows; i++) {
        if (i == T.cursor)
            cur_line = nlines;
        nlines++;
        for (const char *g = T.rows[i].graph; g && *g; g = next_line(g))
            nlines++;
    }
    size_t height = rows > 4 ? (size_t)rows - 4 : 1;
    if (cur_line < T.top_line)
        T.top_line = cur_line;
    if (cur_line >= T.top_line + height)
        T.top_line = cur_line - height + 1;
    size_t ln = 0;
    int y = 4;
    for (size_t i = 0; i < T.nrows && y < rows; i++) {
        if (ln >= T.top_line) {
            row_text(&T.rows[i], line, sizeof line);
            if (i == T.cursor)
                attron(A_REVERSE);
            mvaddnstr(y++, 0, line, cols);
            if (i == T.cursor)
                attroff(A_REVERSE);
        }
        ln++;
        for (const char *g = T.rows[i].graph; g && *g && y < rows; ln++, g = next_line(g))
            if (ln >= T.top_line)
                mvaddnstr(y++, 0, g, (int)strcspn(g, "\n") < cols ? (int)strcspn(g, "\n") : cols);
    }
    if (!T.nrows)
        mvaddnstr(4, 0, "   (no samples yet)", cols);
    refresh();
}

/* Build the rows and show them (decay: after an interval). */
static void view(int decay)
{
    uint64_t now = now_ns();
    const char *event;
    uint64_t samples;
    report_rows_free(T.rows, T.nrows);
    T.rows = NULL, T.nrows = 0;
    if (report_compact(T.r) < 0 || report_rows(T.r, zoom(), T.ui ? T.cursor + (size_t)LINES : (size_t)T.entries, &T.rows, &T.nrows, &event, &samples) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    if (decay) {
        T.rate = now > T.last && samples > T.seen ? (double)(samples - T.seen) * 1e9 / (double)(now - T.last) : 0;
        T.last = now;
    }
    if (T.ui)
        draw(event);
    else if (decay || T.nrows)
        print_table(event);
    if (T.verbose && !T.ui) {
        struct report_stats st;
        report_stats(T.r, &st);
        size_t graphs = 0;
        for (size_t i = 0; i < T.nrows; i++)
            graphs += !!T.rows[i].graph;
        fprintf(stderr, "tr-top: %zu rows, %zu call graphs, %zu groups, %zu stacks, %zu frames, %zu symbols, %zu strings\n",
                T.nrows, graphs, st.groups, st.stacks, st.frames, st.symbols, st.strings);
    }
    if (decay)
        T.seen = report_decay(T.r, T.zero ? 0 : 7, 8);
}

static _Noreturn void finish(int status)
{
    if (T.ui) {
        endwin();
        delscreen(T.scr);
    }
    stop_recorder(1);
    if (T.rec_err >= 0) {
        if (T.rec_status) { /* what the recorder said, now that the terminal is back */
            char buf[4096];
            ssize_t n;
            lseek(T.rec_err, 0, SEEK_SET);
            while ((n = read(T.rec_err, buf, sizeof buf)) > 0)
                if (write(STDERR_FILENO, buf, (size_t)n) < 0)
                    break;
        }
        close(T.rec_err);
    }
    report_rows_free(T.rows, T.nrows);
    report_free(T.r);
    cli_exit(status ? status : T.rec_status ? CLI_EXIT_FAIL : CLI_EXIT_OK);
}

static void set_sort(int i)
{
    const char *bad;
    T.sort_i = i;
    T.sort_name = sorts[i];
    report_parse_sort(report_options(T.r), sorts[i], &bad);
}

static void push_zoom(const struct report_zoom *z)
{
    if (T.nzoom + 1 < ZOOMS) {
        T.zoom[++T.nzoom] = *z;
        if (z->dso) {
            snprintf(T.zoom_dso[T.nzoom], sizeof T.zoom_dso[T.nzoom], "%s", z->dso);
            T.zoom[T.nzoom].dso = T.zoom_dso[T.nzoom];
        }
        T.cursor = T.top_line = 0;
    }
}

static void key(int c)
{
    struct report_opts *o = report_options(T.r);
    const struct report_row *w = T.cursor < T.nrows ? &T.rows[T.cursor] : NULL;
    struct report_zoom z = *zoom();
    if (T.help) {
        T.help = 0;
        return;
    }
    switch (c) {
    case 'q': case 'Q': case 3: finish(0); break;
    case KEY_UP: case 'k': if (T.cursor) T.cursor--; break;
    case KEY_DOWN: case 'j': if (T.cursor + 1 < T.nrows) T.cursor++; break;
    case KEY_PPAGE: T.cursor = T.cursor > 20 ? T.cursor - 20 : 0; break;
    case KEY_NPAGE: T.cursor += 20; break;
    case KEY_HOME: T.cursor = 0; break;
    case KEY_END: T.cursor = T.nrows ? T.nrows - 1 : 0; break;
    case 's': set_sort((T.sort_i + 1) % (int)(sizeof sorts / sizeof *sorts)); break;
    case 'S': set_sort(T.sort_i ? T.sort_i - 1 : (int)(sizeof sorts / sizeof *sorts) - 1); break;
    case 'd': if (w) z.dso = w->dso, push_zoom(&z); break;
    case 'p': if (w) z.pid = w->pid, push_zoom(&z); break;
    case 't': if (w) z.tid = w->tid, push_zoom(&z); break;
    case 27: case KEY_LEFT: case KEY_BACKSPACE:
        if (T.nzoom) {
            T.nzoom--;
            T.cursor = T.top_line = 0;
        }
        break;
    case 'g': case '+':
        o->graph = o->graph == RG_NONE ? RG_GRAPH : RG_NONE;
        o->children = o->graph != RG_NONE;
        break;
    case 'z': T.zero = !T.zero; break;
    case 'h': case '?': T.help = 1; break;
    default: return;
    }
}

/* The reader's input: while no bytes are waiting, the view refreshes when
 * it is due and keys are read. */
static ssize_t read_source(void *ctx, void *buf, size_t len)
{
    (void)ctx;
    for (;;) {
        if (stop_signal)
            finish(0);
        uint64_t now = now_ns();
        if (now >= T.next) {
            view(1);
            T.next = now + T.delay_ns;
        }
        struct pollfd p[2] = {{.fd = T.fd, .events = POLLIN}, {.fd = T.tty, .events = POLLIN}};
        int timeout = (int)((T.next - now) / 1000000) + 1;
        int n = poll(p, T.ui ? 2 : 1, timeout);
        if (n < 0 && errno != EINTR)
            return -1;
        if (T.ui && (n < 0 || p[1].revents)) { /* keys, or a signal (SIGWINCH: KEY_RESIZE) */
            int c, any = 0;
            while ((c = getch()) != ERR)
                key(c), any = 1;
            if (any)
                view(0);
        }
        if (n > 0 && p[0].revents)
            return read(T.fd, buf, len);
    }
}

static void start_ui(void)
{
    FILE *in = stdin, *out = stdout;
    if (!isatty(STDOUT_FILENO))
        cli_die(CLI_EXIT_USAGE, "standard output is not a terminal: use --stdio");
    if (!isatty(STDIN_FILENO) && !(in = fopen("/dev/tty", "r")))
        cli_die(CLI_EXIT_FAIL, "/dev/tty: %s (--stdio works without a terminal)", strerror(errno));
    if (!(T.scr = newterm(NULL, out, in)))
        cli_die(CLI_EXIT_FAIL, "cannot drive this terminal (TERM=%s): use --stdio",
                getenv("TERM") ? getenv("TERM") : "");
    T.tty = fileno(in);
    cbreak();
    noecho();
    nodelay(stdscr, TRUE);
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
}

int main(int argc, char **argv)
{
    const char *pids = NULL, *freq = "999", *input = NULL, *sort = NULL;
    int graph = 0, all = 0, c;
    T.delay_ns = 1000000000ull;
    T.entries = 30;
    cli_init(&tool, argc, argv);
    struct report_opts o;
    report_opts_init(&o);
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'a': all = 1; break;
        case 'p': pids = cli_optarg; break;
        case 'F': cli_parse_u64(cli_optarg, 1, 1000000, "frequency"); freq = cli_optarg; break;
        case 'i': input = cli_optarg; break;
        case 'd': T.delay_ns = cli_parse_seconds(cli_optarg, 3600000000000ull, "delay"); break;
        case 's': sort = cli_optarg; break;
        case 'g': graph = 1; break;
        case 'z': T.zero = 1; break;
        case 'v': T.verbose = 1; break;
        case 'E': T.entries = (int)cli_parse_u64(cli_optarg, 1, 100000, "entries"); break;
        case OPT_STDIO: T.stdio = 1; break;
        default: cli_usage_exit();
        }
    }
    if (T.delay_ns < 10000000)
        cli_die(CLI_EXIT_USAGE, "invalid delay: at least 0.01 seconds");
    argc -= cli_optind;
    argv += cli_optind;
    if (input && (pids || argc || all))
        cli_die(CLI_EXIT_USAGE, "-i reads a trace: no -a, -p or command with it");
    if (!!pids + !!argc + all > 1)
        cli_die(CLI_EXIT_USAGE, "one of -a, -p and a command");
    const char *bad;
    T.sort_name = sort ? sort : sorts[0];
    for (size_t i = 0; i < sizeof sorts / sizeof *sorts; i++)
        if (!strcmp(T.sort_name, sorts[i]))
            T.sort_i = (int)i;
    if (report_parse_sort(&o, T.sort_name, &bad) < 0 || strstr(T.sort_name, "srcline") || strstr(T.sort_name, "cpu"))
        cli_die(CLI_EXIT_USAGE, "invalid sort key in '%s': use comm, pid, tid, dso, sym", T.sort_name);
    o.children = graph;
    o.children_set = 1;
    o.graph = graph ? RG_GRAPH : RG_NONE;
    o.quiet = 1;
    if (!(T.r = report_new(&o)))
        cli_die(CLI_EXIT_FAIL, "out of memory");
    T.ui = !T.stdio;
    T.rec_err = -1;
    if (!input && !pids && !argc && !all && !isatty(STDIN_FILENO))
        input = "-";
    const char *shown = "tr-rec-perf";
    char what[64];
    if (input) {
        T.fd = cli_open_input(input, &shown);
        T.what = shown;
    } else {
        if (pids)
            snprintf(what, sizeof what, "pid %s", pids);
        T.what = pids ? what : argc ? argv[0] : "all CPUs";
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    cli_ignore_sigpipe();
    if (T.ui)
        start_ui();
    if (!input)
        start_recorder(pids, freq, argc, argv);
    T.last = now_ns();
    T.next = T.last + T.delay_ns;
    int status = report_follow(T.r, read_source, NULL, shown);
    if (status == CLI_EXIT_OK)
        stop_recorder(0); /* it ended: the pipe did */
    if (!T.ui && status != CLI_EXIT_FAIL && !T.rec_status)
        view(1);
    finish(status == CLI_EXIT_OK ? 0 : status);
}
