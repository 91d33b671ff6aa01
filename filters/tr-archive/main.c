/* tr-archive - the binaries and debug files a trace needs, by build-id. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive.h"
#include "buildid.h"
#include "cli.h"
#include "keys.h"

enum { OPT_SYMFS = 256, OPT_DEBUG_DIR };

static const struct cli_opt opts[] = {
    {'o', "output", "FILE", "write the trace with the files as blobs in it (self-contained)", 0, "file"},
    {'d', "dir", "DIR", "write the files as a build-id tree in DIR (default: TRACE.debug)", 0, "dir"},
    {0, "symfs", "DIR", "look for the recorded binaries under DIR first", OPT_SYMFS, "dir"},
    {0, "debug-dir", "DIR", "a build-id tree to search (repeatable; /usr/lib/debug is searched too)",
     OPT_DEBUG_DIR, "dir"},
    {'v', "verbose", NULL, "one line per module: what was found", 0, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-archive",
    .synopsis = {"[-v] [-o FILE | -d DIR] [--symfs DIR] [--debug-dir DIR]... TRACE"},
    .summary = "collect the binaries and debug files a trace needs, by build-id",
    .opts = opts,
    .operands = "file",
};

/* The input, copied to the output as it is read (-o). */
struct tee {
    int in, out;
    const char *shown_out;
};

static ssize_t tee_read(void *ctx, void *buf, size_t len)
{
    struct tee *t = ctx;
    ssize_t n = read(t->in, buf, len);
    for (ssize_t w = 0, k; n > 0 && t->out >= 0 && w < n; w += k)
        if ((k = write(t->out, (char *)buf + w, (size_t)(n - w))) < 0)
            cli_die(CLI_EXIT_FAIL, "%s: write error: %s", t->shown_out, strerror(errno));
    return n;
}

static int mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            int rc = mkdir(path, 0755);
            *p = '/';
            if (rc < 0 && errno != EEXIST)
                return -1;
        }
    return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static char *slurp(const char *path, size_t *len)
{
    char *d = cli_read_file(path, len);
    if (!d)
        cli_warn("%s: %s", path, strerror(errno));
    return d;
}

static uint64_t bytes_out;

/* DIR/.build-id/xx/rest[suffix] := data */
static void tree_put(const char *dir, const char *hex, const char *suffix, const void *data, size_t len)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/.build-id/%.2s", dir, hex);
    if (mkdirs(path) < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/.build-id/%.2s/%s%s", dir, hex, hex + 2, suffix);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        cli_die(CLI_EXIT_FAIL, "%s: %s", path, strerror(errno));
    for (size_t w = 0; w < len;) {
        ssize_t k = write(fd, (const char *)data + w, len - w);
        if (k < 0)
            cli_die(CLI_EXIT_FAIL, "%s: write error: %s", path, strerror(errno));
        w += (size_t)k;
    }
    if (close(fd) < 0)
        cli_die(CLI_EXIT_FAIL, "%s: write error: %s", path, strerror(errno));
    bytes_out += len;
}

/* BLOB_BUILD_ID_PREFIX HEX[suffix], in parts of at most BLOB_BUILD_ID_PART bytes when larger. */
static void blob_put(tr_writer *w, const char *shown, const char *hex, const char *suffix, const void *data,
                     size_t len)
{
    size_t nparts = build_id_blob_parts(len);
    for (size_t k = 0; k < nparts; k++) {
        char name[256];
        size_t off = k * BLOB_BUILD_ID_PART, n = len - off < BLOB_BUILD_ID_PART ? len - off : BLOB_BUILD_ID_PART;
        build_id_blob_name(name, sizeof name, hex, suffix, k, nparts);
        int rc = tr_writer_blob(w, name, (const char *)data + off, n, 0);
        if (rc == 0)
            rc = tr_writer_flush(w);
        if (rc < 0)
            cli_die(CLI_EXIT_FAIL, "%s: %s", shown, tr_strerror(rc));
    }
    bytes_out += len;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *dir = NULL;
    const char **dirs = NULL;
    size_t ndirs = 0;
    int verbose = 0;
    struct archive a = {0};
    cli_init(&tool, argc, argv);
    int c;
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case 'o': out = cli_optarg; break;
        case 'd': dir = cli_optarg; break;
        case 'v': verbose = 1; break;
        case OPT_SYMFS: a.symfs = cli_optarg; break;
        case OPT_DEBUG_DIR:
            if (!(dirs = realloc(dirs, (ndirs + 1) * sizeof *dirs)))
                cli_die(CLI_EXIT_FAIL, "out of memory");
            dirs[ndirs++] = cli_optarg;
            break;
        default: cli_usage_exit();
        }
    }
    if (cli_optind + 1 != argc || (out && dir))
        cli_usage_exit();
    a.debug_dirs = dirs;
    a.ndebug_dirs = ndirs;
    const char *in_name = argv[cli_optind], *shown_in, *shown_out = NULL;
    char defdir[4096];
    if (!out && !dir) {
        if (!strcmp(in_name, "-"))
            cli_die(CLI_EXIT_USAGE, "a trace on stdin needs -o FILE or -d DIR");
        snprintf(defdir, sizeof defdir, "%s.debug", in_name);
        dir = defdir;
    }
    struct tee t = {cli_open_input(in_name, &shown_in), -1, NULL};
    if (out) {
        cli_ignore_sigpipe();
        t.out = cli_open_trace_output(out, NULL, &shown_out);
        t.shown_out = shown_out; /* the file takes its name once the input reads as a trace */
    }
    tr_reader *r;
    tr_reader_options ro = {.keep_definitions = 0};
    if (tr_reader_open_fn(&r, tee_read, &t, NULL, 0, &ro) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    int rc = archive_scan(&a, r), status = CLI_EXIT_OK;
    if (rc < 0) {
        const tr_reader_diag *d = tr_reader_last_diag(r);
        const char *why = d && d->detail[0] ? d->detail : tr_strerror(rc);
        if (rc != TR_E_TRUNCATED && !a.nmods)
            cli_die(CLI_EXIT_FAIL, "%s: %s", shown_in, why); /* the reader's message: not freed first */
        cli_warn("%s: %s at byte %llu: archiving what the trace read before", shown_in, why,
                 (unsigned long long)(d ? d->offset : 0));
        status = CLI_EXIT_TRUNCATED;
    }
    tr_reader_free(r);
    if (out)
        cli_commit_trace_output();
    archive_find(&a);

    tr_writer *w = NULL;
    if (out) {
        tr_writer_options wo = {.chunk_size = 16u << 20};
        if ((rc = tr_writer_open(&w, t.out, &wo)) < 0 || (rc = tr_writer_meta_defaults(w, "tr-archive", argc, argv)) < 0)
            cli_die(CLI_EXIT_FAIL, "%s: %s", shown_out, tr_strerror(rc));
    }
    size_t nbin = 0, ndbg = 0, missing = 0;
    const char *first_missing = NULL;
    for (size_t i = 0; i < a.nmods; i++) {
        struct module *m = &a.mods[i];
        char hex[129];
        build_id_hex(hex, m->id, m->idlen);
        if (!strcmp(m->path, "[vdso]")) {
            uint8_t id[BUILD_ID_MAX];
            if (dir && a.vdso && build_id_from_mem(a.vdso, a.vdso_len, id) > 0) /* -o: the trace has it */
                tree_put(dir, hex, "", a.vdso, a.vdso_len);
            if (verbose)
                cli_warn("%s: the trace's image%s", m->path, a.vdso ? "" : ": none");
            continue;
        }
        if (verbose)
            cli_warn("%s%s%s: binary %s, debug file %s", m->path, m->idlen ? " " : "", hex,
                     m->in_trace ? "in the trace" : m->binary ? m->binary : "not found",
                     m->debug ? m->debug : "none found");
        if (!m->binary && !m->in_trace && !m->debug) {
            missing++;
            first_missing = first_missing ? first_missing : m->path;
            continue;
        }
        if (m->in_trace) { /* -o: in the output already */
            if (dir)
                tree_put(dir, hex, "", m->in_trace->data, m->in_trace->len);
            nbin++;
        }
        for (int k = 0; k < 2; k++) {
            const char *f = k ? m->debug : m->binary;
            size_t len;
            char *data = f ? slurp(f, &len) : NULL;
            if (!data)
                continue;
            if (dir)
                tree_put(dir, hex, k ? ".debug" : "", data, len);
            else
                blob_put(w, shown_out, hex, k ? ".debug" : "", data, len);
            free(data);
            k ? ndbg++ : nbin++;
        }
    }
    if (w) {
        if ((rc = tr_writer_finish(w, 0)) < 0)
            cli_die(CLI_EXIT_FAIL, "%s: %s", shown_out, tr_strerror(rc));
        tr_writer_free(w);
        if (t.out > 2 && close(t.out) < 0)
            cli_die(CLI_EXIT_FAIL, "%s: write error: %s", shown_out, strerror(errno));
    }
    cli_warn("%zu modules: %zu binaries, %zu debug files, %llu bytes into %s", a.nmods, nbin, ndbg,
             (unsigned long long)bytes_out, dir ? dir : shown_out);
    if (missing)
        cli_warn("%zu modules not found by build-id (%s%s): their frames stay unresolved elsewhere", missing,
                 first_missing, missing > 1 ? ", ..." : "");
    if (a.no_build_id)
        cli_warn("%zu modules without a recorded build-id: not archived", a.no_build_id);
    archive_free(&a);
    free(dirs);
    return status;
}
