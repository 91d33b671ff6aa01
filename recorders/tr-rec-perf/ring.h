/*
 * ring.h - a perf_event mmap ring buffer, read record by record.
 * Records that wrap around the end of the buffer are copied to a scratch
 * buffer so the caller always sees one contiguous record.
 */
#ifndef TRP_RING_H
#define TRP_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct perf_ring {
    struct perf_event_mmap_page *meta;
    uint8_t *data;
    size_t data_size;   /* power of two */
    size_t map_len;
    uint64_t head, tail;/* snapshot of this batch */
    uint8_t *scratch;
    size_t scratch_cap;
};

/* Map data_pages (a power of two) pages of ring for fd; 0 or -errno. */
int ring_map(struct perf_ring *r, int fd, size_t data_pages);
void ring_unmap(struct perf_ring *r);
/* Begin a batch: snapshot the head.  Returns bytes available. */
uint64_t ring_begin(struct perf_ring *r);
/* The next record of the batch, or NULL at its end.  Valid until the next call. */
const struct perf_event_header *ring_next(struct perf_ring *r);
/* Give back the record ring_next returned last: the next batch reads it again. */
void ring_unread(struct perf_ring *r, const struct perf_event_header *h);
/* Release everything read so far to the kernel. */
void ring_end(struct perf_ring *r);

#endif
