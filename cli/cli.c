/* cli.c - option tables, usage, errors and checked output for tr tools. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <malloc.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tr.h"
#include "array.h"

char *cli_optarg;
int cli_optind = 1;

static const struct cli_tool *tool;
static struct option longopts[128];
static char shortopts[256];

const char *cli_name(void) { return tool ? tool->name : "tr"; }

void cli_vwarn(const char *fmt, va_list ap)
{
    fflush(stdout);
    fprintf(stderr, "%s: ", cli_name());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vwarn(fmt, ap);
    va_end(ap);
}

void cli_die(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vwarn(fmt, ap);
    va_end(ap);
    exit(status);
}

void cli_usage(FILE *f)
{
    for (int i = 0; i < 4 && tool->synopsis[i]; i++)
        fprintf(f, "%s %s %s\n", i ? "      " : "usage:", tool->name, tool->synopsis[i]);
}

void cli_usage_exit(void)
{
    cli_usage(stderr);
    exit(CLI_EXIT_USAGE);
}

static void print_help(void)
{
    printf("%s - %s\n\n", tool->name, tool->summary);
    cli_usage(stdout);
    printf("\noptions:\n");
    for (const struct cli_opt *o = tool->opts; o->help; o++) {
        char left[96];
        int n = 0;
        if (o->short_name > 0 && o->short_name < 256)
            n += snprintf(left + n, sizeof left - n, "-%c%s", o->short_name, o->long_name ? ", " : "");
        else
            n += snprintf(left + n, sizeof left - n, "    ");
        if (o->long_name)
            n += snprintf(left + n, sizeof left - n, "--%s", o->long_name);
        if (o->arg)
            snprintf(left + n, sizeof left - n, "%s%s", o->arg[0] == '[' ? "" : " ", o->arg);
        printf("  %-28s %s\n", left, o->help);
    }
    printf("  %-28s %s\n", "-h, --help", "show this help and exit");
    printf("  %-28s %s\n", "-V, --version", "show the version and exit");
    exit(0);
}

static void print_table(void)
{
    /* tab-separated: short, long, arg, completion, help */
    for (const struct cli_opt *o = tool->opts; o->help; o++) {
        char s[2] = {0, 0};
        if (o->short_name > 0 && o->short_name < 256)
            s[0] = (char)o->short_name;
        printf("%s\t%s\t%s\t%s\t%s\n", s, o->long_name ? o->long_name : "", o->arg ? o->arg : "",
               o->complete ? o->complete : "", o->help);
    }
    printf("h\thelp\t\t\tshow this help and exit\n");
    printf("V\tversion\t\t\tshow the version and exit\n");
    printf("#operands\t%s\n", tool->operands ? tool->operands : "");
    for (int i = 0; i < 4 && tool->synopsis[i]; i++)
        printf("#synopsis\t%s\n", tool->synopsis[i]);
    exit(0);
}

void cli_init(const struct cli_tool *t, int argc, char **argv)
{
    tool = t;
    /* Tables of a MiB or more live in their own mappings: they grow by
     * mremap, never by copying into fresh pages (glibc's threshold would
     * otherwise rise to 32 MiB as grown tables are freed, and a million
     * stack nodes were copied, and faulted in, at every doubling). */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    size_t nl = 0, ns = 0;
    if (t->stop_at_nonopt)
        shortopts[ns++] = '+';
    shortopts[ns++] = ':';
    for (const struct cli_opt *o = t->opts; o->help; o++) {
        int has_arg = !o->arg ? no_argument : o->arg[0] == '[' ? optional_argument : required_argument;
        if (o->short_name > 0 && o->short_name < 256) {
            shortopts[ns++] = (char)o->short_name;
            if (has_arg != no_argument)
                shortopts[ns++] = ':';
            if (has_arg == optional_argument)
                shortopts[ns++] = ':';
        }
        if (o->long_name)
            longopts[nl++] = (struct option){o->long_name, has_arg, NULL,
                                             o->short_name > 0 && o->short_name < 256 ? o->short_name : o->id};
    }
    longopts[nl++] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[nl++] = (struct option){"version", no_argument, NULL, 'V'};
    longopts[nl++] = (struct option){"options-table", no_argument, NULL, 0x7fff};
    longopts[nl] = (struct option){0, 0, 0, 0};
    strcat(shortopts, "hV");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--options-table"))
            print_table();
    }
}

int cli_getopt(int argc, char **argv)
{
    opterr = 0;
    optind = cli_optind;
    int c = getopt_long(argc, argv, shortopts, longopts, NULL);
    cli_optind = optind;
    cli_optarg = optarg;
    switch (c) {
    case 'h':
        print_help();
        break;
    case 'V':
        printf("%s %s (trace format %d.%d)\n", tool->name, TR_LIB_VERSION, TR_VERSION_MAJOR,
               TR_VERSION_MINOR);
        exit(cli_finish_stdout(0));
    case '?':
        if (optopt && optopt < 256)
            cli_warn("unknown option '-%c'", optopt);
        else
            cli_warn("unknown option '%s'", argv[optind - 1]);
        cli_usage_exit();
    case ':':
        if (optopt && optopt < 256)
            cli_warn("option '-%c' needs an argument", optopt);
        else
            cli_warn("option '%s' needs an argument", argv[optind - 1]);
        cli_usage_exit();
    }
    return c;
}

static void bad_number(const char *s, const char *what, const char *why)
{
    cli_warn("invalid %s '%s': %s", what, s, why);
    exit(CLI_EXIT_USAGE);
}

uint64_t cli_parse_u64(const char *s, uint64_t min, uint64_t max, const char *what)
{
    char *end;
    if (!s || !*s || *s == '-' || *s == ' ')
        bad_number(s ? s : "", what, "not a non-negative number");
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end)
        bad_number(s, what, "not a number");
    if (errno == ERANGE || v > max) {
        char why[64];
        snprintf(why, sizeof why, "larger than %llu", (unsigned long long)max);
        bad_number(s, what, why);
    }
    if (v < min) {
        char why[64];
        snprintf(why, sizeof why, "smaller than %llu", (unsigned long long)min);
        bad_number(s, what, why);
    }
    return v;
}

int64_t cli_parse_i64(const char *s, int64_t min, int64_t max, const char *what)
{
    char *end;
    if (!s || !*s)
        bad_number("", what, "empty");
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (*end)
        bad_number(s, what, "not a number");
    if (errno == ERANGE || v > max || v < min) {
        char why[96];
        snprintf(why, sizeof why, "not between %lld and %lld", (long long)min, (long long)max);
        bad_number(s, what, why);
    }
    return v;
}

uint64_t cli_parse_seconds(const char *s, uint64_t max_ns, const char *what)
{
    uint64_t ns = 0;
    const char *p = s;
    int digits = 0;
    if (!s || !*s)
        bad_number("", what, "empty");
    for (; *p >= '0' && *p <= '9'; p++, digits++) { /* whole seconds, bounded before scaling */
        ns = ns * 10 + (uint64_t)(*p - '0');
        if (ns > max_ns / 1000000000ull)
            bad_number(s, what, "too large");
    }
    ns *= 1000000000ull;
    if (*p == '.') {
        uint64_t scale = 100000000ull;
        for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
            ns += (uint64_t)(*p - '0') * scale;
            scale /= 10;
        }
    }
    if (*p || !digits)
        bad_number(s, what, "not a number of seconds");
    if (ns > max_ns)
        bad_number(s, what, "too large");
    return ns;
}

/* The trace file being written under a temporary name until the commit. */
static struct {
    char tmp[PATH_MAX], final[PATH_MAX + 8];
    int pending, keep_old;
    pid_t owner;
} out;

static void remove_uncommitted(void)
{
    if (out.pending && getpid() == out.owner) /* not in a forked child */
        unlink(out.tmp);
}

/* A new file beside final, or -1 (errno) when its directory takes none. */
static int open_beside(const char *final)
{
    const char *slash = strrchr(final, '/');
    int dirlen = slash ? (int)(slash - final + 1) : 0;
    if (snprintf(out.tmp, sizeof out.tmp, "%.*s.%s.XXXXXX", dirlen, final,
                 final + dirlen) >= (int)sizeof out.tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkostemp(out.tmp, O_CLOEXEC);
    if (fd < 0)
        return -1;
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0644 & ~mask) < 0) { /* mkostemp's 0600 is still safe */ }
    if (!out.owner)
        atexit(remove_uncommitted);
    out.owner = getpid();
    out.pending = 1;
    return fd;
}

int cli_open_trace_output(const char *path, const char *default_path, const char **shown)
{
    int keep_old = 0;
    if (!path || !strcmp(path, "-")) {
        if (isatty(STDOUT_FILENO)) {
            if (!default_path)
                cli_die(CLI_EXIT_USAGE, "refusing to write a binary trace to a terminal; "
                                        "use -o FILE or a pipe");
            path = default_path;
            keep_old = 1;
        } else {
            *shown = "stdout";
            return STDOUT_FILENO;
        }
    }
    *shown = path;
    /* -o through a symlink writes where it points; the default name is never followed */
    struct stat st;
    char real[PATH_MAX];
    const char *final = path;
    if (!keep_old && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real))
        final = real;
    if (keep_old || stat(final, &st) < 0 || S_ISREG(st.st_mode)) {
        snprintf(out.final, sizeof out.final, "%s", final);
        out.keep_old = keep_old;
        int fd = open_beside(final);
        if (fd >= 0)
            return fd;
        /* a directory that takes no new file: write the file itself (never through a
         * symlink at the default name) */
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (keep_old ? O_NOFOLLOW : 0), 0644);
    if (fd < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", path, strerror(errno));
    return fd;
}

void cli_commit_trace_output(void)
{
    if (!out.pending)
        return;
    out.pending = 0;
    struct stat st;
    char old[sizeof out.final + 4];
    snprintf(old, sizeof old, "%s.old", out.final);
    if (out.keep_old && lstat(out.final, &st) == 0 && rename(out.final, old) < 0) {
        int e = errno;
        unlink(out.tmp);
        cli_die(CLI_EXIT_FAIL, "%s: cannot keep it as %s: %s", out.final, old, strerror(e));
    }
    if (rename(out.tmp, out.final) < 0) {
        int e = errno;
        unlink(out.tmp);
        cli_die(CLI_EXIT_FAIL, "%s: %s", out.final, strerror(e));
    }
}

int cli_open_input(const char *path, const char **shown)
{
    if (!path || !strcmp(path, "-")) {
        *shown = "stdin";
        return STDIN_FILENO;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", path, strerror(errno));
    *shown = path;
    return fd;
}

int cli_finish_stdout(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        if (e == EPIPE)
            return status ? status : CLI_EXIT_FAIL;
        fprintf(stderr, "%s: write error: stdout: %s\n", cli_name(), strerror(e ? e : EIO));
        return status ? status : CLI_EXIT_FAIL;
    }
    return status;
}

char *cli_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 0, n = 0;
    char *buf = NULL;
    for (;;) {
        /* room for a read and the terminating NUL */
        if (array_reserve(&buf, &cap, n + 4096 + 1, 1, 8192) < 0) {
            free(buf);
            buf = NULL;
            errno = ENOMEM;
            break;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            buf = NULL;
            errno = e;
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    int e = errno;
    close(fd);
    if (buf) {
        buf[n] = 0;
        if (len)
            *len = n;
    }
    errno = e;
    return buf;
}

void cli_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

void cli_heap_on_huge_pages(void)
{
    enum { HEAP_RESERVE = 256 << 20, HUGE_PAGE = 2 << 20 };
    /* the heap grows by HEAP_RESERVE once, is advised, and is never
     * trimmed back below it */
    mallopt(M_TRIM_THRESHOLD, 2 * HEAP_RESERVE);
    mallopt(M_TOP_PAD, HEAP_RESERVE);
    char *start = sbrk(0);
    /* more than the heap's free top holds, so that it grows (volatile: a
     * malloc the compiler may not drop); under cli_init's mmap threshold */
    void *volatile grow = malloc(mallinfo2().keepcost + 4096);
    free(grow);
    char *end = sbrk(0);
    mallopt(M_TOP_PAD, 128 << 10); /* glibc's default again */
    uintptr_t lo = ((uintptr_t)start + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (start != (char *)-1 && (uintptr_t)end > lo)
        madvise((void *)lo, (uintptr_t)end - lo, MADV_HUGEPAGE); /* EINVAL without THP: no matter */
}

static int command_signal; /* the signal that killed the command */

int cli_command_status(int wstatus)
{
    if (WIFEXITED(wstatus))
        return WEXITSTATUS(wstatus);
    if (!WIFSIGNALED(wstatus))
        return CLI_EXIT_FAIL;
    command_signal = WTERMSIG(wstatus);
    return 128 + command_signal;
}

void cli_exit(int status)
{
    int sig = command_signal;
    if (sig && status == 128 + sig) {
        fflush(NULL);
        /* the command's core dump (if any) is the one to keep */
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        raise(sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
    }
    exit(status);
}

int cli_read_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        n = 0;
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n] = '\0';
    return n > 0 ? 0 : -1;
}

void cli_sibling_tool(const char *name, char *path, size_t size)
{
    char self[PATH_MAX];
    snprintf(path, size, "%s", name);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return;
    *slash = 0;
    char beside[PATH_MAX + 64];
    snprintf(beside, sizeof beside, "%s/%s", self, name);
    if (access(beside, X_OK) == 0 && strlen(beside) < size)
        snprintf(path, size, "%s", beside);
}

size_t cli_parse_pids(const char *s, pid_t *pids, size_t n, size_t max)
{
    char *copy = strdup(s), *save = NULL;
    if (!copy)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        if (n == max)
            cli_die(CLI_EXIT_USAGE, "too many processes to attach (at most %zu)", max);
        pids[n++] = (pid_t)cli_parse_u64(t, 1, 0x3fffffff, "process id");
    }
    free(copy);
    return n;
}

int cli_start_viewer(char *const args[], pid_t *viewer)
{
    char path[PATH_MAX];
    cli_sibling_tool("tr-cat", path, sizeof path);
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        cli_die(CLI_EXIT_FAIL, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        cli_die(CLI_EXIT_FAIL, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* Ctrl-C is the command's (or, with -p, the tracer's, which then ends the trace):
         * the viewer reads on to the trace's end */
        signal(SIGINT, SIG_IGN);
        signal(SIGQUIT, SIG_IGN);
        if (dup2(p[0], STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            _exit(CLI_EXIT_FAIL);
        char *argv[16] = {"tr-cat"};
        for (size_t i = 0; args && args[i] && i < 14; i++)
            argv[i + 1] = args[i];
        execvp(path, argv); /* a path with a slash runs as it is */
        fprintf(stderr, "%s: cannot run tr-cat to show the trace: %s (use -o FILE or a pipe)\n", cli_name(),
                strerror(errno));
        _exit(CLI_EXIT_FAIL);
    }
    close(p[0]);
    *viewer = pid;
    return p[1];
}

int cli_find_command(const char *cmd, char *path, size_t len)
{
    struct stat st;
    if (strchr(cmd, '/')) {
        if (stat(cmd, &st) < 0)
            return -errno;
        snprintf(path, len, "%s", cmd);
        return 0;
    }
    const char *env = getenv("PATH");
    if (!env)
        env = "/usr/local/bin:/usr/bin:/bin";
    int err = -ENOENT;
    for (const char *p = env;; p++) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0)
            snprintf(path, len, "%s", cmd);
        else
            snprintf(path, len, "%.*s/%s", (int)n, p, cmd);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(path, X_OK) == 0)
                return 0;
            err = -EACCES;
        }
        if (!e)
            break;
        p = e;
    }
    return err;
}
