/* fuzz_cat.c - tr-cat's renderers on arbitrary bytes: every record of a
 * hostile trace printed as text, as JSON and into the summaries (strace
 * decoding of captures, libtraceevent on stored formats, stacks symbolized
 * on the fly ...). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../renderers/tr-cat/cat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* sym: with the symbolize session tr-cat's text has (raw frames, kernel functions in fields) */
static void render(const uint8_t *data, size_t size, struct cat_opts *o, int info, int sym)
{
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "w");
    tr_reader *r;
    tr_reader_options ro = {.max_chunk = 1 << 20};
    if (tr_reader_open_mem(&r, data, size, &ro)) return;
    struct cat_ctx c = {.out = devnull, .o = o, .info = info};
    struct cat_filter f = {0};
    if (!sym || cat_sym_open(&c, -1) == 0)
        cat_read(&c, r, "fuzz", &f);
    cat_sym_close(&c);
    cat_free(&c);
    tr_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cat_opts text = {.strsize = 32, .follow = 1, .timestamps = 2, .show_time = 1, .decode_fds = 1, .hex = 1};
    struct cat_opts json = {.json = 1, .strsize = 32};
    struct cat_opts summary = {.summary = 1, .strsize = 32};
    render(data, size, &text, 0, 0);
    render(data, size, &text, 0, 1);
    render(data, size, &json, 0, 0);
    render(data, size, &summary, 0, 0);
    render(data, size, &text, 1, 0);
    return 0;
}
