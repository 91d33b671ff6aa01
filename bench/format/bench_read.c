/* bench_read - read a trace through the library as fast as it goes:
 * decompress, decode every record, resolve every sample's stack.
 * Prints: records, seconds, records/s, raw MB/s. */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "tr.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_read FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    tr_reader *r;
    if (fd < 0 || tr_reader_open(&r, fd, NULL)) return 1;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    tr_record rec;
    int rc;
    uint64_t n = 0, depth = 0;
    while ((rc = tr_reader_next(r, &rec)) != 0) {
        if (rc < 0) return 1;
        n++;
        if (rec.type == TR_REC_SAMPLE) {
            const uint32_t *fr;
            depth += (uint64_t)tr_reader_stack(r, rec.u.sample.stack, &fr);
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    tr_reader_stats st;
    tr_reader_get_stats(r, &st);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    printf("%llu records %.3f s %.1f Mrec/s %.1f MB/s raw (avg depth %.1f)\n", (unsigned long long)n, s, n / s / 1e6,
           (double)st.raw_bytes / s / 1e6, (double)depth / (double)(n ? n : 1));
    tr_reader_free(r);
    return 0;
}
