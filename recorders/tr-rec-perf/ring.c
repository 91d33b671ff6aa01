/* ring.c - perf_event mmap ring buffer reader. */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ring_map(struct perf_ring *r, int fd, size_t data_pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    memset(r, 0, sizeof *r);
    r->map_len = (data_pages + 1) * page;
    void *p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    r->meta = p;
    r->data = (uint8_t *)p + page;
    r->data_size = data_pages * page;
    return 0;
}

void ring_unmap(struct perf_ring *r)
{
    if (r->meta)
        munmap(r->meta, r->map_len);
    free(r->scratch);
    memset(r, 0, sizeof *r);
}

uint64_t ring_begin(struct perf_ring *r)
{
    r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
    r->tail = r->meta->data_tail;
    return r->head - r->tail;
}

const struct perf_event_header *ring_next(struct perf_ring *r)
{
    if (r->head - r->tail < sizeof(struct perf_event_header))
        return NULL;
    size_t mask = r->data_size - 1;
    size_t off = (size_t)(r->tail & mask);
    struct perf_event_header h;
    if (off + sizeof h <= r->data_size) {
        memcpy(&h, r->data + off, sizeof h);
    } else {
        size_t first = r->data_size - off;
        memcpy(&h, r->data + off, first);
        memcpy((uint8_t *)&h + first, r->data, sizeof h - first);
    }
    if (h.size < sizeof h || h.size > r->head - r->tail)
        return NULL; /* corrupt or not yet complete: stop this batch */
    const struct perf_event_header *rec;
    if (off + h.size <= r->data_size) {
        rec = (const void *)(r->data + off);
    } else {
        if (r->scratch_cap < h.size) {
            uint8_t *s = realloc(r->scratch, 65536);
            if (!s)
                return NULL;
            r->scratch = s;
            r->scratch_cap = 65536;
        }
        size_t first = r->data_size - off;
        memcpy(r->scratch, r->data + off, first);
        memcpy(r->scratch + first, r->data, h.size - first);
        rec = (const void *)r->scratch;
    }
    r->tail += h.size;
    return rec;
}

void ring_unread(struct perf_ring *r, const struct perf_event_header *h)
{
    r->tail -= h->size;
}

void ring_end(struct perf_ring *r)
{
    __atomic_store_n(&r->meta->data_tail, r->tail, __ATOMIC_RELEASE);
}
