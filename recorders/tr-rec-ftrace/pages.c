/* pages.c - one ring-buffer sub-buffer (as read from trace_pipe_raw) into events. */
#include <stdlib.h>
#include <string.h>

#include <kbuffer.h>

#include "ftrace.h"

/* The commit word after the 8-byte time stamp: bytes of data (low 27 bits;
 * the top bits flag missed events). */
static uint64_t commit_word(const void *subbuf, int long_size)
{
    if (long_size == 4) {
        uint32_t c;
        memcpy(&c, (const char *)subbuf + 8, 4);
        return c;
    }
    uint64_t c;
    memcpy(&c, (const char *)subbuf + 8, 8);
    return c;
}

int ft_subbuf_check(const void *subbuf, size_t subbuf_size, int long_size, long long *missed)
{
    /* a commit beyond the sub-buffer would make kbuffer read past it */
    size_t hdr = 8 + (size_t)long_size;
    *missed = 0;
    if (subbuf_size < hdr + (size_t)long_size)
        return FT_PAGE_CORRUPT;
    uint64_t word = commit_word(subbuf, long_size);
    uint64_t bytes = word & ((1u << 27) - 1);
    int stored = (word >> 30) & 1; /* a missed-events count follows the data */
    if (bytes > subbuf_size - hdr || (stored && bytes + (size_t)long_size > subbuf_size - hdr))
        return FT_PAGE_CORRUPT;
    /* from the commit word: kbuffer_missed_events() says 0 once the first
     * entry is a time extend */
    if ((word >> 31) & 1) { /* bits above 31 may carry the flag's sign extension */
        *missed = -1;
        if (stored) {
            if (long_size == 4) {
                uint32_t v;
                memcpy(&v, (const char *)subbuf + hdr + bytes, 4);
                *missed = v;
            } else {
                uint64_t v;
                memcpy(&v, (const char *)subbuf + hdr + bytes, 8);
                *missed = (long long)v;
            }
        }
    }
    return 0;
}

int ft_parse_subbuf(struct kbuffer *kbuf, void *subbuf, size_t subbuf_size, int long_size, int cpu,
                    const struct ft_page_sink *sink)
{
    long long missed;
    if (ft_subbuf_check(subbuf, subbuf_size, long_size, &missed) < 0 ||
        kbuffer_load_subbuffer(kbuf, subbuf) < 0)
        return FT_PAGE_CORRUPT;
    unsigned long long ts = 0;
    void *data = kbuffer_read_event(kbuf, &ts);
    if (missed != 0 && sink->missed) {
        int rc = sink->missed(sink->ctx, cpu, data ? ts : kbuffer_timestamp(kbuf), missed);
        if (rc < 0)
            return rc;
    }
    int n = 0;
    while (data) {
        int len = kbuffer_event_size(kbuf);
        if (len > 0) {
            int rc = sink->event(sink->ctx, cpu, ts, data, (size_t)len);
            if (rc < 0)
                return rc;
            n++;
        }
        data = kbuffer_next_event(kbuf, &ts);
    }
    return n;
}
