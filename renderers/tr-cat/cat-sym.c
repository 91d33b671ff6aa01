/* cat-sym.c - raw frames symbolized on the fly (model/symbolize), as tr-fold
 * does: one session per input, fed every record by cat_track.  The blobs
 * recorders write at a stream's end (kallsyms) are looked for in the input
 * file only when a raw frame first needs them, so that a trace symbolized
 * already costs nothing more than its reading. */
#include <sys/mman.h>

#include "cat.h"
#include "cli.h"
#include "symbolize/symbolize.h"

/* The symbolizer's warnings (a module not found, a process that cannot be
 * unwound) are not tr-cat's to print: its frames say [unknown]. */
static void sym_quiet(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

int cat_sym_open(struct cat_ctx *c, int fd)
{
    sym_options so;
    sym_options_init(&so);
    so.inlines = 0; /* perf script's frames: one per address */
    so.warn = sym_quiet;
    if (!(c->sym = sym_new(&so)))
        return -1;
    c->prescanned = 0;
    c->map = sym_map_input(fd, 0, &c->maplen);
    return 0;
}

struct sym_session *cat_sym(struct cat_ctx *c)
{
    if (c->sym && !c->prescanned) {
        c->prescanned = 1;
        if (c->map && sym_prescan_lazy(c->sym, c->map, c->maplen) < 0)
            cli_warn("%s: out of memory", c->file);
    }
    return c->sym;
}

void cat_sym_close(struct cat_ctx *c)
{
    if (c->sym) {
        sym_finish(c->sym);
        sym_free(c->sym);
        c->sym = NULL;
    }
    if (c->map)
        munmap(c->map, c->maplen);
    c->map = NULL;
}

const char *cat_sym_kernel(void *ctx, uint64_t addr, uint64_t *start)
{
    sym_session *s = cat_sym(ctx);
    sym_frame f;
    struct cat_ctx *c = ctx;
    /* the trace's symbols, as trace-cmd report has them: never this machine's read for a field */
    if (!s || sym_sync(s, c->r) < 0 || !sym_kernel_known(s) ||
        sym_resolve_addr(s, -1, addr, TR_FRAME_KERNEL, &f, 1) < 1 || (f.flags & SYM_UNKNOWN))
        return NULL;
    *start = addr - f.offset;
    return f.func;
}
