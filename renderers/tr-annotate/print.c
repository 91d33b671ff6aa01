/* print.c - the functions chosen, disassembled with capstone, each
 * instruction with its share of the function's samples, source lines
 * interleaved from the line table, jump targets labelled; per source line
 * shares; the source view; JSON.  Where the binary is missing: the sampled
 * addresses and their counts, which the trace alone gives. */
#include <capstone.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "array.h"
#include "cli.h"
#include "json.h"
#include "tr.h"

#define MAX_CODE (4u << 20) /* the most bytes of one function disassembled */

/* One row of the listing: an instruction, or (no code) a sampled address. */
struct row {
    uint64_t addr;            /* file address; the raw address when there is no code */
    uint32_t size;
    char text[192];           /* "mnemonic operands" */
    uint64_t samples, weight;
    const char *file;         /* line table, NULL none */
    uint32_t line;
    int label;                /* > 0: the jumps here are to label L<label> */
    uint64_t target;          /* a jump inside the function: its target's row + 1 */
};

/* A source line's share. */
struct lineshare {
    const char *file;
    uint32_t line;
    uint64_t samples, weight;
};

/* A source file's text, split into lines. */
struct srcfile {
    const char *path;
    char *text;
    size_t *starts; size_t nlines; /* line k (1-based) starts at text[starts[k-1]] */
};

struct view {
    struct an_fn *fn;
    sym_module_info mod;
    const char *binary;       /* the file used: NULL when there is no code */
    const char *why;          /* why there is no disassembly, NULL when there is */
    uint64_t start, size;
    struct row *rows; size_t nrows, caprows;
    struct lineshare *lines; size_t nlines, caplines;
};

struct printer {
    struct annotate *a;
    FILE *out;
    csh cs;
    int cs_ok;
    struct srcfile *files; size_t nfiles, capfiles;
    int first_json;
};

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The text of a source file (read once), NULL when it cannot be read. */
static struct srcfile *source(struct printer *p, const char *path)
{
    for (size_t i = 0; i < p->nfiles; i++)
        if (p->files[i].path == path || strcmp(p->files[i].path, path) == 0)
            return p->files[i].text ? &p->files[i] : NULL;
    if (array_reserve(&p->files, &p->capfiles, p->nfiles + 1, sizeof *p->files, 8) < 0)
        return NULL;
    struct srcfile *f = &p->files[p->nfiles++];
    memset(f, 0, sizeof *f);
    f->path = path;
    size_t len = 0, cap = 0;
    f->text = cli_read_file(path, &len);
    if (!f->text) {
        cli_warn("%s: source file not readable: source lines left out", path);
        return NULL;
    }
    for (size_t i = 0; i < len;) {
        if (array_reserve(&f->starts, &cap, f->nlines + 1, sizeof *f->starts, 256) < 0)
            break;
        f->starts[f->nlines++] = i;
        const char *nl = memchr(f->text + i, '\n', len - i);
        i = nl ? (size_t)(nl - f->text) + 1 : len;
    }
    return f;
}

/* Line n of f without its newline (length in *len), or NULL. */
static const char *source_line(struct srcfile *f, uint32_t n, int *len)
{
    if (!f || n == 0 || n > f->nlines)
        return NULL;
    const char *s = f->text + f->starts[n - 1];
    const char *e = strchr(s, '\n');
    *len = e ? (int)(e - s) : (int)strlen(s);
    return s;
}

/* ---- building a function's view ---- */

static int cmp_hit(const void *x, const void *y)
{
    const struct an_hit *a = *(const struct an_hit *const *)x, *b = *(const struct an_hit *const *)y;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* The function's hits sorted by key. */
static struct an_hit **sorted_hits(const struct an_fn *fn)
{
    struct an_hit **h = malloc((fn->nhits ? fn->nhits : 1) * sizeof *h);
    if (!h)
        return NULL;
    size_t n = 0;
    for (struct an_hit *x = fn->hits; x; x = x->next)
        h[n++] = x;
    qsort(h, n, sizeof *h, cmp_hit);
    return h;
}

static struct row *add_row(struct view *v)
{
    if (array_reserve(&v->rows, &v->caprows, v->nrows + 1, sizeof *v->rows, 64) < 0)
        return NULL;
    struct row *r = &v->rows[v->nrows++];
    memset(r, 0, sizeof *r);
    return r;
}

/* The target of a direct jump or call (1), or 0. */
static int branch_target(const struct printer *p, const cs_insn *in, int *is_jump, uint64_t *t)
{
    const cs_detail *d = in->detail;
    *is_jump = cs_insn_group(p->cs, in, CS_GRP_JUMP);
    if (!d || (!*is_jump && !cs_insn_group(p->cs, in, CS_GRP_CALL)))
        return 0;
    if (strcmp(p->a->arch, "aarch64") == 0 || strcmp(p->a->arch, "arm64") == 0) {
        for (int i = d->arm64.op_count; i-- > 0;)
            if (d->arm64.operands[i].type == ARM64_OP_IMM) {
                *t = (uint64_t)d->arm64.operands[i].imm;
                return 1;
            }
        return 0;
    }
    if (d->x86.op_count == 1 && d->x86.operands[0].type == X86_OP_IMM) {
        *t = (uint64_t)d->x86.operands[0].imm;
        return 1;
    }
    return 0;
}

/* The instructions of the function, with the hits on each. */
static int disassemble(struct printer *p, struct view *v, struct an_hit **h, size_t nh)
{
    struct an_fn *fn = v->fn;
    uint8_t *buf = malloc(v->size);
    size_t got = buf ? sym_code_read(fn->code, v->start, buf, v->size) : 0;
    if (!got) {
        free(buf);
        v->why = buf ? "its binary holds no code there (a separate debug file?)" : "out of memory";
        return 0;
    }
    cs_insn *ins = NULL;
    size_t n = cs_disasm(p->cs, buf, got, v->start, 0, &ins);
    free(buf);
    if (n == 0) {
        v->why = "capstone could not disassemble it";
        return 0;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        struct row *r = add_row(v);
        if (!r) {
            cs_free(ins, n);
            return -1;
        }
        r->addr = ins[i].address;
        r->size = ins[i].size;
        int is_jump;
        uint64_t t;
        if (branch_target(p, &ins[i], &is_jump, &t)) {
            const char *name;
            uint64_t s, sz;
            if (t >= v->start && t < v->start + v->size)
                snprintf(r->text, sizeof r->text, "%-6s %" PRIx64 " <%s+0x%" PRIx64 ">", ins[i].mnemonic, t,
                         fn->func, t - v->start);
            else if (sym_code_symbol(p->a->sym, fn->code, t, &name, &s, &sz) == 0)
                snprintf(r->text, sizeof r->text, "%-6s %" PRIx64 " <%s%s%.0" PRIx64 ">", ins[i].mnemonic, t,
                         name, t > s ? "+0x" : "", t - s);
            else
                snprintf(r->text, sizeof r->text, "%-6s %" PRIx64, ins[i].mnemonic, t);
            if (is_jump && t >= v->start && t < v->start + v->size)
                r->target = t + 1; /* made a row index below */
        } else {
            snprintf(r->text, sizeof r->text, "%-6s %s", ins[i].mnemonic, ins[i].op_str);
        }
        size_t tl = strlen(r->text);
        while (tl && r->text[tl - 1] == ' ')
            r->text[--tl] = '\0';
        /* the hits inside the instruction (normally at its first byte) */
        for (; k < nh && fn->start + h[k]->key < r->addr + r->size; k++) {
            r->samples += h[k]->samples;
            r->weight += h[k]->weight;
        }
        if (sym_code_line(p->a->sym, fn->code, r->addr, &r->file, &r->line) < 0)
            r->file = NULL;
    }
    cs_free(ins, n);
    /* jump targets: row indices, and labels in address order */
    int labels = 0;
    for (size_t i = 0; i < v->nrows; i++) {
        if (!v->rows[i].target)
            continue;
        uint64_t t = v->rows[i].target - 1;
        size_t lo = 0, hi = v->nrows;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (v->rows[mid].addr < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        v->rows[i].target = lo < v->nrows && v->rows[lo].addr == t ? lo + 1 : 0;
        if (v->rows[i].target)
            v->rows[lo].label = -1;
    }
    for (size_t i = 0; i < v->nrows; i++)
        if (v->rows[i].label)
            v->rows[i].label = ++labels;
    return 0;
}

static int cmp_share(const void *x, const void *y)
{
    const struct lineshare *a = x, *b = y;
    if (a->weight != b->weight)
        return a->weight > b->weight ? -1 : 1;
    int c = strcmp(a->file, b->file);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* The share of each source line: the sum over its instructions. */
static int line_shares(struct view *v)
{
    for (size_t i = 0; i < v->nrows; i++) {
        const struct row *r = &v->rows[i];
        if (!r->file)
            continue;
        size_t j = 0;
        while (j < v->nlines && !(v->lines[j].line == r->line && strcmp(v->lines[j].file, r->file) == 0))
            j++;
        if (j == v->nlines) {
            if (array_reserve(&v->lines, &v->caplines, v->nlines + 1, sizeof *v->lines, 32) < 0)
                return -1;
            v->lines[v->nlines++] = (struct lineshare){ r->file, r->line, 0, 0 };
        }
        v->lines[j].samples += r->samples;
        v->lines[j].weight += r->weight;
    }
    if (v->nlines)
        qsort(v->lines, v->nlines, sizeof *v->lines, cmp_share);
    return 0;
}

static int build_view(struct printer *p, struct view *v, struct an_fn *fn)
{
    memset(v, 0, sizeof *v);
    v->fn = fn;
    struct an_hit **h = sorted_hits(fn);
    if (!h)
        return -1;
    const char *found = NULL;
    if (fn->code)
        sym_code_info(fn->code, &v->mod, &found);
    else
        v->mod = (sym_module_info){ fn->module, TR_MOD_NOT_FOUND, NULL, 0, "" };
    const char *name;
    uint64_t s = 0, sz = 0;
    if (fn->kernel)
        v->why = "kernel code is not disassembled";
    else if (!fn->code)
        v->why = "no binary: not a file's code (JIT or anonymous memory)";
    else if (v->mod.status != TR_MOD_RESOLVED)
        v->why = v->mod.detail;
    else if (fn->unknown || !fn->have_start)
        v->why = "no symbol holds these addresses";
    else if (!p->cs_ok)
        v->why = "no disassembler for this architecture";
    if (!v->why) {
        v->start = fn->start;
        v->size = fn->nhits ? h[fn->nhits - 1]->key + 16 : 16;
        if (sym_code_symbol(p->a->sym, fn->code, fn->start, &name, &s, &sz) == 0 && s == fn->start && sz)
            v->size = sz > MAX_CODE ? MAX_CODE : sz;
        if (disassemble(p, v, h, fn->nhits) < 0) {
            free(h);
            return -1;
        }
    }
    if (v->why) { /* the addresses sampled, as the trace gives them */
        v->nrows = 0;
        for (size_t i = 0; i < fn->nhits; i++) {
            struct row *r = add_row(v);
            if (!r) {
                free(h);
                return -1;
            }
            r->addr = fn->unknown ? h[i]->key : fn->addr_start + h[i]->key;
            r->samples = h[i]->samples;
            r->weight = h[i]->weight;
            if (!fn->unknown)
                snprintf(r->text, sizeof r->text, "%s+0x%" PRIx64, fn->func, h[i]->key);
            else if (fn->code)
                snprintf(r->text, sizeof r->text, "[%s+0x%" PRIx64 "]", base_name(fn->module), h[i]->key);
        }
    } else {
        v->binary = found;
    }
    free(h);
    return line_shares(v);
}

static void free_view(struct view *v)
{
    free(v->rows);
    free(v->lines);
}

/* ---- stdio ---- */

static const char *weighing(const struct printer *p)
{
    return p->a->o->samples ? "samples" : "period";
}

/* JSON: the samples, and the period when shares weigh by it */
static void json_counts(const struct printer *p, uint64_t samples, uint64_t weight)
{
    fprintf(p->out, "\"samples\":%" PRIu64, samples);
    if (!p->a->o->samples)
        fprintf(p->out, ",\"period\":%" PRIu64, weight);
}

static void print_header(struct printer *p, const struct view *v, const char *what)
{
    const struct an_fn *fn = v->fn;
    FILE *o = p->out;
    fprintf(o, " Percent |\t%s of %s for %s (%" PRIu64 " samples, percent: local %s)\n", what,
            base_name(fn->module), p->a->event, fn->samples, weighing(p));
    fprintf(o, "--------------------------------------------------------------------------------------"
               "-----------------\n");
    fprintf(o, "         : %s  %s  %.2f%% of all samples\n", fn->func, fn->module, pct(fn->weight, p->a->weight));
    if (v->binary)
        fprintf(o, "         : binary %s\n", v->binary);
    else
        fprintf(o, "         : no disassembly: %s\n", v->why);
}

static void print_source_row(struct printer *p, const char *file, uint32_t line, const char *main_file)
{
    int len = 0;
    const char *text = source_line(source(p, file), line, &len);
    if (file == main_file || strcmp(file, main_file) == 0)
        fprintf(p->out, "         : %-6u %.*s\n", line, len, text ? text : "");
    else
        fprintf(p->out, "         : %s:%u %.*s\n", base_name(file), line, len, text ? text : "");
}

static void print_summary(struct printer *p, const struct view *v)
{
    if (!v->nlines)
        return;
    fprintf(p->out, "\nSorted summary for %s (per source line)\n"
                    "----------------------------------------------\n\n", v->fn->func);
    for (size_t i = 0; i < v->nlines; i++)
        if (v->lines[i].weight)
            fprintf(p->out, "  %6.2f %s:%u\n", pct(v->lines[i].weight, v->fn->weight),
                    base_name(v->lines[i].file), v->lines[i].line);
}

static void print_listing(struct printer *p, const struct view *v)
{
    FILE *o = p->out;
    print_header(p, v, v->binary ? "Source code & Disassembly" : "Sampled addresses");
    const char *main_file = v->nrows && v->rows[0].file ? v->rows[0].file : "";
    const char *lf = NULL;
    uint32_t ll = 0;
    for (size_t i = 0; i < v->nrows; i++) {
        const struct row *r = &v->rows[i];
        if (r->file && (r->line != ll || !lf || strcmp(r->file, lf))) {
            print_source_row(p, r->file, r->line, main_file);
            lf = r->file;
            ll = r->line;
        }
        if (r->label)
            fprintf(o, "         : L%d:\n", r->label);
        fprintf(o, "  %6.2f : %8" PRIx64 ":   %s", pct(r->weight, v->fn->weight), r->addr, r->text);
        if (r->target) {
            size_t t = (size_t)r->target - 1;
            fprintf(o, "   %s L%d", t <= i ? "^" : "v", v->rows[t].label);
        }
        fputc('\n', o);
    }
    print_summary(p, v);
}

/* --source: the lines of the function's main source file from its first to
 * its last, each with its share (blank: no code). */
static void print_source_view(struct printer *p, const struct view *v)
{
    print_header(p, v, "Source");
    if (!v->nlines) {
        fprintf(p->out, "         : no source lines (no line table for these addresses)\n");
        return;
    }
    const char *file = v->lines[0].file;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < v->nlines; i++)
        if (strcmp(v->lines[i].file, file) == 0) {
            lo = v->lines[i].line < lo ? v->lines[i].line : lo;
            hi = v->lines[i].line > hi ? v->lines[i].line : hi;
        }
    struct srcfile *sf = source(p, file);
    fprintf(p->out, "         : %s\n", file);
    for (uint32_t l = lo; l <= hi; l++) {
        const struct lineshare *s = NULL;
        for (size_t i = 0; i < v->nlines && !s; i++)
            if (v->lines[i].line == l && strcmp(v->lines[i].file, file) == 0)
                s = &v->lines[i];
        int len = 0;
        const char *text = source_line(sf, l, &len);
        if (s)
            fprintf(p->out, "  %6.2f : %-6u %.*s\n", pct(s->weight, v->fn->weight), l, len, text ? text : "");
        else
            fprintf(p->out, "         : %-6u %.*s\n", l, len, text ? text : "");
    }
    uint64_t elsewhere = 0;
    for (size_t i = 0; i < v->nlines; i++)
        if (strcmp(v->lines[i].file, file))
            elsewhere += v->lines[i].weight;
    if (elsewhere)
        fprintf(p->out, "  %6.2f : in other source files (inlined code)\n", pct(elsewhere, v->fn->weight));
}

/* ---- JSON ---- */

static void jstr(FILE *o, const char *s)
{
    if (!s) {
        fputs("null", o);
        return;
    }
    fputc('"', o);
    json_str(o, s, strlen(s));
    fputc('"', o);
}

static void print_json(struct printer *p, const struct view *v)
{
    FILE *o = p->out;
    const struct an_fn *fn = v->fn;
    fputs(p->first_json ? "\n" : ",\n", o);
    p->first_json = 0;
    fputs("{\"function\":", o);
    jstr(o, fn->func);
    fputs(",\"module\":", o);
    jstr(o, fn->module);
    fputs(",\"binary\":", o);
    jstr(o, v->binary);
    fprintf(o, ",\"status\":\"%s\",\"detail\":", v->mod.status == TR_MOD_RESOLVED ? "resolved" :
            v->mod.status == TR_MOD_BUILD_ID_MISMATCH ? "build-id mismatch" :
            v->mod.status == TR_MOD_NO_SYMBOLS ? "no symbols" : v->mod.status == TR_MOD_CORRUPT ? "corrupt" : "not found");
    jstr(o, v->why ? v->why : v->mod.detail);
    fputs(",\"build_id\":\"", o);
    for (size_t i = 0; i < v->mod.build_id_len; i++)
        fprintf(o, "%02x", v->mod.build_id[i]);
    fputs("\",", o);
    json_counts(p, fn->samples, fn->weight);
    fprintf(o, ",\"percent_of_all\":%.2f", pct(fn->weight, p->a->weight));
    if (v->binary)
        fprintf(o, ",\"start\":\"0x%" PRIx64 "\",\"size\":%" PRIu64, v->start, v->size);
    fputs(",\"instructions\":[", o);
    for (size_t i = 0; i < v->nrows; i++) {
        const struct row *r = &v->rows[i];
        fprintf(o, "%s\n {\"addr\":\"0x%" PRIx64 "\"", i ? "," : "", r->addr);
        if (v->binary || r->text[0]) {
            fputs(",\"asm\":", o);
            jstr(o, r->text);
        }
        fputc(',', o);
        json_counts(p, r->samples, r->weight);
        fprintf(o, ",\"percent\":%.2f", pct(r->weight, fn->weight));
        if (r->file) {
            fputs(",\"file\":", o);
            jstr(o, r->file);
            fprintf(o, ",\"line\":%u", r->line);
        }
        if (r->label)
            fprintf(o, ",\"label\":\"L%d\"", r->label);
        if (r->target)
            fprintf(o, ",\"jump\":\"L%d\"", v->rows[r->target - 1].label);
        fputc('}', o);
    }
    fputs("],\"lines\":[", o);
    for (size_t i = 0; i < v->nlines; i++) {
        fputs(i ? ",\n {\"file\":" : "\n {\"file\":", o);
        jstr(o, v->lines[i].file);
        fprintf(o, ",\"line\":%u,", v->lines[i].line);
        json_counts(p, v->lines[i].samples, v->lines[i].weight);
        fprintf(o, ",\"percent\":%.2f}", pct(v->lines[i].weight, fn->weight));
    }
    fputs("]}", o);
}

/* ---- choosing the functions ---- */

static int cmp_fn(const void *x, const void *y)
{
    const struct an_fn *a = *(const struct an_fn *const *)x, *b = *(const struct an_fn *const *)y;
    if (a->weight != b->weight)
        return a->weight > b->weight ? -1 : 1;
    int c = strcmp(a->func, b->func);
    return c ? c : strcmp(a->module, b->module);
}

static int dso_matches(const struct an_opts *o, const struct an_fn *fn)
{
    return !o->dso || strcmp(o->dso, fn->module) == 0 || strcmp(o->dso, base_name(fn->module)) == 0;
}

static int open_disassembler(struct printer *p)
{
    const char *arch = p->a->arch;
    cs_err e;
    if (!arch[0] || strcmp(arch, "x86_64") == 0)
        e = cs_open(CS_ARCH_X86, CS_MODE_64, &p->cs);
    else if (strcmp(arch, "aarch64") == 0 || strcmp(arch, "arm64") == 0)
        e = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &p->cs);
    else
        return 0;
    if (e != CS_ERR_OK)
        return 0;
    cs_option(p->cs, CS_OPT_DETAIL, CS_OPT_ON);
    if (!p->a->o->intel && (!arch[0] || strcmp(arch, "x86_64") == 0))
        cs_option(p->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
    p->cs_ok = 1;
    return 0;
}

int an_print(struct annotate *a, FILE *out)
{
    const struct an_opts *o = a->o;
    sym_finish(a->sym);
    if (a->other_samples)
        cli_warn("annotated event '%s' only; skipped %" PRIu64 " samples of others such as '%s' (-e to choose)",
                 a->event, a->other_samples, a->other);
    if (!a->samples) {
        cli_warn("no samples to annotate");
        return CLI_EXIT_FAIL;
    }
    struct an_fn **sel = malloc(a->nfns * sizeof *sel);
    if (!sel) {
        cli_warn("out of memory");
        return CLI_EXIT_FAIL;
    }
    memcpy(sel, a->list, a->nfns * sizeof *sel);
    qsort(sel, a->nfns, sizeof *sel, cmp_fn);
    size_t n = 0;
    int status = CLI_EXIT_OK;
    for (size_t i = 0; i < a->nfns; i++) {
        int want = dso_matches(o, sel[i]);
        if (want && o->nsymbols) {
            want = 0;
            for (size_t k = 0; k < o->nsymbols && !want; k++)
                want = strcmp(o->symbols[k], sel[i]->func) == 0;
        } else if (want) {
            want = n < o->hottest;
        }
        if (want)
            sel[n++] = sel[i];
    }
    for (size_t k = 0; k < o->nsymbols; k++) {
        size_t i = 0;
        while (i < n && strcmp(o->symbols[k], sel[i]->func))
            i++;
        if (i == n) {
            cli_warn("no samples in function '%s'%s%s", o->symbols[k], o->dso ? " of " : "", o->dso ? o->dso : "");
            status = CLI_EXIT_FAIL;
        }
    }
    struct printer p = { .a = a, .out = out, .first_json = 1 };
    open_disassembler(&p);
    if (o->json)
    {
        fputs("{\"event\":", out);
        jstr(out, a->event);
        fputc(',', out);
        json_counts(&p, a->samples, a->weight);
        fputs(",\"functions\":[", out);
    }
    for (size_t i = 0; i < n; i++) {
        struct view v;
        if (build_view(&p, &v, sel[i]) < 0) {
            free_view(&v);
            cli_warn("out of memory");
            status = CLI_EXIT_FAIL;
            break;
        }
        if (o->json)
            print_json(&p, &v);
        else if (o->source)
            print_source_view(&p, &v);
        else
            print_listing(&p, &v);
        if (!o->json && i + 1 < n)
            fputc('\n', out);
        free_view(&v);
    }
    if (o->json)
        fputs("]}\n", out);
    if (p.cs_ok)
        cs_close(&p.cs);
    for (size_t i = 0; i < p.nfiles; i++) {
        free(p.files[i].text);
        free(p.files[i].starts);
    }
    free(p.files);
    free(sel);
    return status;
}
