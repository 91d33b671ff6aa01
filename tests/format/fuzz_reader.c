/* fuzz_reader.c - the reader on arbitrary bytes: every record decoded, every
 * reference looked up.  Built with libFuzzer by `make fuzz`; without it,
 * fuzz_replay.c runs the kept corpus and the crashes once found (make test). */
#include <stddef.h>
#include <stdint.h>

#include "tr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tr_reader *r;
    /* the input's size picks among the ways of reading: stack runs absorbed
     * whole (keep_definitions 2) or node by node, chunks decompressed here
     * or ahead on the reader's thread */
    tr_reader_options o = {.keep_definitions = size & 2 ? 2 : 1, .max_chunk = 1 << 20,
                           .decompress_thread = (int)(size & 1)};
    if (tr_reader_open_mem(&r, data, size, &o)) return 0;
    tr_record rec;
    int rc;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) {
            if (!tr_error_recoverable(rc)) break;
            continue;
        }
        const uint32_t *fr;
        size_t len;
        switch (rec.type) {
        case TR_REC_SAMPLE: {
            int n = tr_reader_stack(r, rec.u.sample.stack, &fr);
            for (int i = 0; i < n; i++) {
                const tr_frame *f = tr_reader_frame(r, fr[i]);
                if (f) tr_reader_string(r, f->func, &len);
            }
            tr_reader_event(r, rec.u.sample.event);
            break;
        }
        case TR_REC_SYSCALL:
            tr_reader_syscall_name(r, NULL, rec.u.syscall.nr);
            tr_reader_stack(r, rec.u.syscall.stack, &fr);
            break;
        case TR_REC_SYSCALL_TABLE: {
            size_t pos = 0, nl;
            uint32_t nr;
            const char *name;
            while (tr_syscall_table_iter(&rec, &pos, &nr, &name, &nl) == 1) {}
            break;
        }
        case TR_REC_STREAM_END:
            tr_reader_meta(r, "arch");
            tr_reader_blob(r, "kallsyms", &len);
            break;
        }
    }
    tr_reader_free(r);
    return 0;
}
