/*
 * uprobes.c - user probes as events (uprobes.h), spelled after perf probe:
 *
 *   probe:BIN:FUNC[+OFF] [ARG...]      entry (or an offset into FUNC)
 *   probe:BIN:FUNC%return [ARG...]     return, $retval the return value
 *   probe:BIN:0xADDR [ARG...]          a virtual address of BIN
 *   probe:FUNC...                      FUNC in the command's binary or libraries
 *   sdt:BIN:PROVIDER:NAME              an SDT probe of BIN (<sys/sdt.h>), its arguments arg1..
 *   sdt_PROVIDER:NAME                  ... searched in the command's binary and libraries
 *
 * ARG: [NAME=]FETCH[:TYPE], FETCH a register (%di or %rdi), memory (+8(%di), -4(%bp)),
 * $retval, $comm, $stackN, @ADDR, \IMM as uprobe_events takes them, or with DWARF a
 * parameter's name (its location at the probe address), NAME:string for what a char *
 * parameter points to, or $params (every parameter).  Unnamed arguments are argN.
 */
#include <errno.h>
#include <fnmatch.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tr.h"
#include "uprobe/uprobe.h"
#include "uprobes.h"

static struct uprobe_group group;
static int group_made;

void uprobes_remove(void)
{
    if (group_made)
        uprobe_group_destroy(&group);
}

static int ensure_group(char *why, size_t why_len)
{
    if (group_made)
        return 0;
    if (uprobe_cleanup_stale("tr_perf_", "tr-rec-perf", why, why_len) < 0)
        return -1;
    uprobe_group_init(&group, "tr_perf_");
    group_made = 1;
    atexit(uprobes_remove);
    return 0;
}

int uprobes_is_spec(const char *spec)
{
    return !strncmp(spec, "probe:", 6) || !strncmp(spec, "sdt:", 4) || !strncmp(spec, "sdt_", 4);
}

/* --- binaries --------------------------------------------------------- */

/* A path, a library name as the loader finds it (libc.so.6) or a command in PATH */
static char *resolve_bin(const char *name)
{
    char found[PATH_MAX];
    char *r = NULL;
    if (strchr(name, '/') || access(name, R_OK) == 0)
        r = realpath(name, NULL);
    if (!r)
        r = elf_find_library(name, NULL, NULL);
    if (!r && cli_find_command(name, found, sizeof found) == 0)
        r = realpath(found, NULL);
    return r;
}

int uprobes_is_bin(const char *name)
{
    char *p = strpbrk(name, "*?[:") ? NULL : resolve_bin(name);
    int found = p != NULL;
    free(p);
    return found;
}

struct paths { char **v; size_t n; };

static void paths_add(struct paths *p, char *path)
{
    if (!path)
        return;
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->v[i], path)) {
            free(path);
            return;
        }
    char **v = realloc(p->v, (p->n + 1) * sizeof *v);
    if (!v) {
        free(path);
        return;
    }
    p->v = v;
    p->v[p->n++] = path;
}

static void paths_free(struct paths *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
}

/* The command's binary and the libraries it needs, transitively; or the files the
 * -p processes map. */
static void search_paths(char *const *cmd, const pid_t *pids, int npids, struct paths *out)
{
    if (cmd && cmd[0]) {
        paths_add(out, resolve_bin(cmd[0]));
        for (size_t i = 0; i < out->n && i < 256; i++) {
            struct elffile f;
            char err[256];
            if (elf_load(&f, out->v[i], err, sizeof err) < 0)
                continue;
            char *dir = strdup(out->v[i]);
            for (size_t k = 0; k < f.nneeded && dir; k++)
                paths_add(out, elf_find_library(f.needed[k], f.runpath, dirname(dir)));
            free(dir);
            elf_free(&f);
        }
    }
    for (int i = 0; i < npids; i++) {
        char path[64], line[PATH_MAX + 128];
        snprintf(path, sizeof path, "/proc/%d/maps", (int)pids[i]);
        FILE *m = fopen(path, "re");
        while (m && fgets(line, sizeof line, m)) {
            char *file = strchr(line, '/');
            if (!file || !strstr(line, " r-xp ") || strstr(line, " (deleted)"))
                continue;
            file[strcspn(file, "\n")] = 0;
            paths_add(out, realpath(file, NULL));
        }
        if (m)
            fclose(m);
    }
}

/* The binary bin, or with bin NULL the ones search_paths finds */
static int binaries(const char *bin, char *const *cmd, const pid_t *pids, int npids, struct paths *out, char *why,
                    size_t why_len)
{
    if (!bin) {
        search_paths(cmd, pids, npids, out);
        return 0;
    }
    paths_add(out, resolve_bin(bin));
    if (!out->n) {
        snprintf(why, why_len, "%s: no such file, library or command", bin);
        return -1;
    }
    return 0;
}

/* --- events ------------------------------------------------------------ */

/* "libc.so.6" -> "libc", "python3.11" -> "python3": perf's group names probe_BIN */
static void sanitize(char *out, size_t len, const char *s, int stop_at_dot)
{
    size_t n = 0;
    for (; *s && n + 1 < len && !(stop_at_dot && *s == '.'); s++)
        out[n++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ? *s : '_');
    out[n] = 0;
}

static int name_used(const char *name)
{
    for (size_t i = 0; i < group.n; i++)
        if (!strcmp(group.events[i], name))
            return 1;
    return 0;
}

/* A name of this run's group not taken yet: base, base_1, base_2... */
static void unique_name(char *out, size_t len, const char *base)
{
    snprintf(out, len, "%s", base);
    for (int k = 1; name_used(out); k++)
        snprintf(out, len, "%.48s_%d", base, k);
}

static void fill_event(struct perf_ev *ev, const char *sys, const char *name, uint64_t id)
{
    memset(ev, 0, sizeof *ev);
    snprintf(ev->name, sizeof ev->name, "%.63s:%.63s", sys, name);
    snprintf(ev->tracefs, sizeof ev->tracefs, "%.63s:%.63s", group.name, name);
    ev->type = PERF_TYPE_TRACEPOINT;
    ev->config = ev->tp_id = id;
    ev->tr_kind = TR_EV_TRACEPOINT;
}

/* --- arguments ------------------------------------------------------------ */

/* Registers as the assembler spells them (%rdi) to uprobe's (%di), anywhere in s */
static void map_registers(const char *s, char *out, size_t len)
{
    size_t n = 0;
    while (*s && n + 1 < len) {
        if (*s == '%') {
            size_t k = 1 + strspn(s + 1, "abcdefghijklmnopqrstuvwxyz0123456789");
            const char *r = uprobe_register(s, k);
            n += (size_t)snprintf(out + n, len - n, "%%%.*s", r ? (int)strlen(r) : (int)k - 1, r ? r : s + 1);
            s += k;
        } else {
            out[n++] = *s++;
        }
    }
    out[n < len ? n : len - 1] = 0;
}

static int is_ident(const char *s, size_t n)
{
    if (!n || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return 0;
    return 1;
}

struct probe_ctx {
    const char *bin;
    struct dwfunc *dwf;   /* NULL: no DWARF for the function */
    uint64_t at;          /* the probe's virtual address (DWARF locations) */
    int ret;              /* a return probe */
    unsigned nargs;
};

static int append(char *def, size_t len, const char *name, const char *fetch, char *why, size_t why_len)
{
    size_t n = strlen(def);
    if ((size_t)snprintf(def + n, len - n, " %s=%s", name, fetch) >= len - n) {
        snprintf(why, why_len, "too many arguments");
        return -1;
    }
    return 0;
}

static int add_param(struct probe_ctx *c, const char *name, const char *field, int string, char *def, size_t len,
                     char *why, size_t why_len)
{
    char fetch[160], err[200];
    if (!c->dwf) {
        snprintf(why, why_len, "'%s': no DWARF for this function in %s (a parameter by name needs debug info; "
                 "a register, %%di, needs none)", name, c->bin);
        return -1;
    }
    if (dwf_param_fetch(c->dwf, name, c->at, string, fetch, sizeof fetch, err, sizeof err) < 0) {
        snprintf(why, why_len, "%s", err);
        return -1;
    }
    c->nargs++;
    return append(def, len, field ? field : name, fetch, why, why_len);
}

/* The next whitespace-separated ARG of *p into buf; NULL at the end */
static const char *next_arg(const char **p, char *buf, size_t len)
{
    *p += strspn(*p, " \t");
    size_t n = strcspn(*p, " \t");
    if (!n)
        return NULL;
    snprintf(buf, len, "%.*s", (int)n, *p);
    *p += n;
    return buf;
}

/* An ARG's value, past NAME= */
static const char *arg_value(const char *arg)
{
    const char *eq = strchr(arg, '=');
    return eq && is_ident(arg, (size_t)(eq - arg)) ? eq + 1 : arg;
}

/* Whether an ARG's value names parameters: NAME, NAME:string, $params */
static int is_param(const char *v)
{
    size_t idl = strcspn(v, ":");
    return !strcmp(v, "$params") || (is_ident(v, idl) && (!v[idl] || !strcmp(v + idl, ":string")));
}

/* One ARG onto def */
static int add_arg(struct probe_ctx *c, const char *arg, char *def, size_t len, char *why, size_t why_len)
{
    char field[64] = "", fetch[256];
    const char *v = arg_value(arg);
    if (v != arg)
        snprintf(field, sizeof field, "%.*s", (int)(v - arg - 1), arg);
    arg = v;
    if (!strcmp(arg, "$params")) {
        const char *names[64];
        size_t n = c->dwf ? dwf_params(c->dwf, names, 64) : 0;
        if (!c->dwf)
            return add_param(c, arg, NULL, 0, def, len, why, why_len);
        for (size_t i = 0; i < n; i++)
            if (add_param(c, names[i], NULL, 0, def, len, why, why_len) < 0)
                return -1;
        return 0;
    }
    if (is_param(arg)) { /* NAME or NAME:string */
        size_t idl = strcspn(arg, ":");
        char pname[64];
        snprintf(pname, sizeof pname, "%.*s", (int)idl, arg);
        return add_param(c, pname, field[0] ? field : NULL, arg[idl] != 0, def, len, why, why_len);
    }
    if (!strchr("%+-@\\$", arg[0])) {
        snprintf(why, why_len, "'%s': not an argument (NAME=FETCH[:TYPE]: %%REG, +OFF(%%REG), $retval, a parameter)",
                 arg);
        return -1;
    }
    if (!strncmp(arg, "$retval", 7) && !c->ret) {
        snprintf(why, why_len, "'%s': $retval is for return probes (FUNC%%return)", arg);
        return -1;
    }
    map_registers(arg, fetch, sizeof fetch);
    char tbuf[8];
    const char *rt;
    if (!strcmp(arg, "$retval") && c->dwf && (rt = dwf_return_type(c->dwf, tbuf, sizeof tbuf))) {
        size_t n = strlen(fetch);
        snprintf(fetch + n, sizeof fetch - n, ":%s", rt);
    }
    c->nargs++;
    if (!field[0])
        snprintf(field, sizeof field, "arg%u", c->nargs);
    return append(def, len, field, fetch, why, why_len);
}

/* --- probe:BIN:LOC [ARG...] ------------------------------------------------ */

static int64_t func_offset(const struct elffile *f, const char *func, uint64_t *vaddr)
{
    for (size_t i = 0; i < f->ndefs; i++)
        if (!strcmp(f->defs[i].name, func)) {
            *vaddr = f->defs[i].vaddr;
            return f->defs[i].ifunc ? elf_ifunc_offset(f, func) : elf_offset(f, f->defs[i].vaddr);
        }
    return -1;
}

static int make_probe(const char *spec, char *const *cmd, const pid_t *pids, int npids, struct perf_ev *ev,
                      char *why, size_t why_len)
{
    char loc[512];
    size_t l = strcspn(spec, " \t");
    if (l >= sizeof loc) {
        snprintf(why, why_len, "probe location too long");
        return -1;
    }
    snprintf(loc, sizeof loc, "%.*s", (int)l, spec);
    const char *args = spec + l;
    char *colon = strchr(loc, ':'), *where = colon ? colon + 1 : loc;
    if (colon)
        *colon = 0;
    int ret = 0;
    char *pct = strstr(where, "%return");
    if (pct && !pct[7]) {
        ret = 1;
        *pct = 0;
    }
    char func[256];
    uint64_t plus = 0;
    char *pl = strchr(where, '+');
    if (pl) {
        char *end;
        plus = strtoull(pl + 1, &end, 0);
        if (*end || end == pl + 1) {
            snprintf(why, why_len, "'%s': not an offset", pl + 1);
            return -1;
        }
        *pl = 0;
    }
    snprintf(func, sizeof func, "%.255s", where);
    int is_addr = !strncmp(func, "0x", 2);
    if (!*func || (ret && pl)) {
        snprintf(why, why_len, "expected probe:BIN:FUNC[+OFF], probe:BIN:FUNC%%return or probe:BIN:0xADDR");
        return -1;
    }
    /* the binary: given, or the one of the command's that defines FUNC */
    struct paths ps = {0};
    if (binaries(colon ? loc : NULL, cmd, pids, npids, &ps, why, why_len) < 0)
        return -1;
    struct elffile f = {0};
    int64_t off = -1;
    uint64_t fvaddr = 0;
    int rc = -1;
    char err[300] = "";
    for (size_t i = 0; i < ps.n && off < 0; i++) {
        if (f.path)
            elf_free(&f);
        if (elf_load(&f, ps.v[i], err, sizeof err) < 0)
            continue;
        if (is_addr)
            off = elf_offset(&f, fvaddr = strtoull(func, NULL, 16));
        else
            off = func_offset(&f, func, &fvaddr);
    }
    struct probe_ctx c = {0};
    char def[4096], base[72], name[72], sys[64];
    if (off < 0) {
        if (colon && !f.path)
            snprintf(why, why_len, "%s", err);
        else if (colon)
            snprintf(why, why_len, "%s: %s %s", f.path, is_addr ? "no segment holds" : "no function", func);
        else
            snprintf(why, why_len, "no function %s in the command's binary or libraries (name BIN: probe:BIN:%s)",
                     func, func);
        goto out;
    }
    c.bin = f.path;
    c.ret = ret;
    c.dwf = is_addr ? NULL : dwf_open(f.path, fvaddr);
    uint64_t at = fvaddr + plus;
    char one[512];
    int params = 0;
    for (const char *a = args; next_arg(&a, one, sizeof one);)
        params |= is_param(arg_value(one));
    if (c.dwf && params && !plus && !ret)
        at = dwf_entry(c.dwf); /* as perf probe: parameters are read past the prologue */
    c.at = at;
    off = (int64_t)(at - fvaddr) + off;
    if (!plus && at == fvaddr)
        off = (int64_t)elf_probe_point(f.path, (uint64_t)off);
    if (strpbrk(f.path, " \n")) {
        snprintf(why, why_len, "%s: a path uprobe_events cannot take (a space)", f.path);
        goto out;
    }
    snprintf(def, sizeof def, "%s:0x%llx", f.path, (unsigned long long)off);
    for (const char *a = args; next_arg(&a, one, sizeof one);)
        if (add_arg(&c, one, def, sizeof def, why, why_len) < 0)
            goto out;
    char *bn = strdup(f.path);
    sanitize(sys, sizeof sys, "probe_", 0);
    sanitize(sys + 6, sizeof sys - 6, bn ? basename(bn) : "bin", 1);
    free(bn);
    if (is_addr)
        snprintf(base, sizeof base, "abs_%llx", (unsigned long long)fvaddr);
    else if (plus)
        snprintf(base, sizeof base, "%.40s_%llu", func, (unsigned long long)plus);
    else
        snprintf(base, sizeof base, "%.48s%s", func, ret ? "__return" : "");
    sanitize(base, sizeof base, base, 0);
    unique_name(name, sizeof name, base);
    uint64_t id;
    if (ensure_group(why, why_len) < 0 || uprobe_add(&group, ret ? 'r' : 'p', name, def, &id, why, why_len) < 0)
        goto out;
    fill_event(ev, sys, name, id);
    ev->at_entry = !ret && !is_addr && at == fvaddr;
    rc = 1;
out:
    dwf_close(c.dwf);
    if (f.path)
        elf_free(&f);
    paths_free(&ps);
    return rc;
}

/* --- sdt:BIN:PROVIDER:NAME, sdt_PROVIDER:NAME ------------------------------------ */

/* The uprobe_events definition of one SDT site of f */
static int sdt_def(const struct elffile *f, const struct sdt_probe *p, char *def, size_t len, char *why,
                   size_t why_len)
{
    int64_t off = elf_offset(f, p->pc), ref = p->semaphore ? elf_offset(f, p->semaphore) : 0;
    if (off < 0 || ref < 0) {
        snprintf(why, why_len, "%s: SDT probe %s:%s at an address outside the file", f->path, p->provider, p->name);
        return -1;
    }
    size_t n = (size_t)snprintf(def, len, "%s:0x%llx", f->path, (unsigned long long)off);
    if (ref)
        n += (size_t)snprintf(def + n, len - n, "(0x%llx)", (unsigned long long)ref);
    char *args = strdup(p->args), *save = NULL, fetch[160], err[200];
    unsigned k = 0;
    for (char *a = args ? strtok_r(args, " ", &save) : NULL; a; a = strtok_r(NULL, " ", &save)) {
        if (sdt_arg_fetch(a, f, fetch, sizeof fetch, err, sizeof err) < 0) {
            snprintf(why, why_len, "%s: %s:%s: %s", f->path, p->provider, p->name, err);
            free(args);
            return -1;
        }
        n += (size_t)snprintf(def + n, len - n, " arg%u=%s", ++k, fetch);
    }
    free(args);
    return n < len ? 0 : -1;
}

static int make_sdt(const char *spec, char *const *cmd, const pid_t *pids, int npids, struct perf_ev *evs, size_t max,
                    char *why, size_t why_len)
{
    char bin[PATH_MAX] = "", prov[128], pname[128];
    const char *pn;
    if (!strncmp(spec, "sdt:", 4)) { /* sdt:BIN:PROVIDER:NAME */
        const char *c1 = strchr(spec + 4, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) {
            snprintf(why, why_len, "expected sdt:BIN:PROVIDER:NAME");
            return -1;
        }
        snprintf(bin, sizeof bin, "%.*s", (int)(c1 - spec - 4), spec + 4);
        snprintf(prov, sizeof prov, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
        pn = c2 + 1;
    } else { /* sdt_PROVIDER:NAME */
        const char *c1 = strchr(spec, ':');
        if (!c1) {
            snprintf(why, why_len, "expected sdt_PROVIDER:NAME");
            return -1;
        }
        snprintf(prov, sizeof prov, "%.*s", (int)(c1 - spec - 4), spec + 4);
        pn = c1 + 1;
    }
    snprintf(pname, sizeof pname, "%s", pn);
    if (!*prov || !*pname || strpbrk(pname, " \t")) {
        snprintf(why, why_len, "expected PROVIDER:NAME (an SDT probe takes no arguments: its own are arg1...)");
        return -1;
    }
    struct paths ps = {0};
    if (binaries(*bin ? bin : NULL, cmd, pids, npids, &ps, why, why_len) < 0)
        return -1;
    if (!ps.n) {
        snprintf(why, why_len, "sdt_PROVIDER:NAME searches the command's binaries or -p's: name the "
                 "binary, sdt:BIN:PROVIDER:NAME");
        return -1;
    }
    size_t n = 0;
    int rc = 0;
    char def[4096], sys[64], name[72], (*bases)[136] = calloc(max, sizeof *bases);
    if (!bases) {
        paths_free(&ps);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < ps.n && !rc; i++) {
        struct sdt_probes sp;
        struct elffile f;
        char err[300];
        if (sdt_read(ps.v[i], &sp, err, sizeof err) < 0) {
            if (*bin) {
                snprintf(why, why_len, "%s", err);
                rc = -1;
            }
            continue;
        }
        if (!sp.n || elf_load(&f, ps.v[i], err, sizeof err) < 0) {
            sdt_free(&sp);
            continue;
        }
        for (size_t k = 0; k < sp.n && !rc; k++) {
            const struct sdt_probe *p = &sp.v[k];
            if (fnmatch(prov, p->provider, 0) || fnmatch(pname, p->name, 0))
                continue;
            if (ensure_group(why, why_len) < 0 || sdt_def(&f, p, def, sizeof def, why, why_len) < 0) {
                rc = -1;
                break;
            }
            sanitize(sys, sizeof sys, "sdt_", 0);
            sanitize(sys + 4, sizeof sys - 4, p->provider, 0);
            char base[136];
            snprintf(base, sizeof base, "%.63s:", sys);
            sanitize(base + strlen(base), sizeof base - strlen(base), p->name, 0);
            /* another site of a probe already made: appended to its event when the kernel takes
             * it (the same argument types), else an event of its own (NAME_1) */
            uint64_t id;
            int added = 0;
            for (size_t e = 0; e < n && !added; e++)
                added = !strcmp(bases[e], base) &&
                        uprobe_add(&group, 'p', strchr(evs[e].name, ':') + 1, def, &id, err, sizeof err) == 0;
            if (added)
                continue;
            if (n == max) {
                snprintf(why, why_len, "too many events");
                rc = -1;
                break;
            }
            unique_name(name, sizeof name, strchr(base, ':') + 1);
            if (uprobe_add(&group, 'p', name, def, &id, why, why_len) < 0) {
                rc = -1;
                break;
            }
            snprintf(bases[n], sizeof bases[n], "%s", base);
            fill_event(&evs[n++], sys, name, id);
        }
        elf_free(&f);
        sdt_free(&sp);
    }
    free(bases);
    paths_free(&ps);
    if (!rc && !n) {
        snprintf(why, why_len, "no SDT probe %s:%s in %s", prov, pname, *bin ? bin : "the command's binary or libraries");
        rc = -1;
    }
    return rc < 0 ? -1 : (int)n;
}

int uprobes_make(const char *spec, char *const *cmd, const pid_t *pids, int npids, struct perf_ev *evs,
                 size_t max, char *why, size_t why_len)
{
    if (!max) {
        snprintf(why, why_len, "too many events");
        return -1;
    }
    if (!strncmp(spec, "probe:", 6))
        return make_probe(spec + 6, cmd, pids, npids, evs, why, why_len);
    return make_sdt(spec, cmd, pids, npids, evs, max, why, why_len);
}

int uprobes_list_sdt(const char *glob, char *const *bins, int nbins, char *why, size_t why_len)
{
    for (int i = 0; i < nbins; i++) {
        char *path = resolve_bin(bins[i]);
        struct sdt_probes sp;
        if (!path) {
            snprintf(why, why_len, "%s: no such file, library or command", bins[i]);
            return -1;
        }
        int rc = sdt_read(path, &sp, why, why_len);
        free(path);
        if (rc < 0)
            return -1;
        for (size_t k = 0; k < sp.n; k++) {
            char name[300];
            snprintf(name, sizeof name, "sdt_%s:%s", sp.v[k].provider, sp.v[k].name);
            int dup = 0;
            for (size_t j = 0; j < k && !dup; j++)
                dup = !strcmp(sp.v[j].provider, sp.v[k].provider) && !strcmp(sp.v[j].name, sp.v[k].name);
            if (!dup && (!glob || !fnmatch(glob, name, 0)))
                printf("  %-50s [SDT event]\n", name);
        }
        sdt_free(&sp);
    }
    return 0;
}
