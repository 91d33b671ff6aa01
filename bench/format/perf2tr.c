/* perf2tr - the samples of `perf script -F comm,pid,tid,time,period,event,ip`
 * (with callchains) as a tr trace: the same samples and stacks, raw
 * addresses, to weigh the format against perf.data byte for byte. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "tr.h"

int main(void)
{
    tr_writer *w;
    if (tr_writer_open(&w, 1, NULL) || tr_writer_meta_defaults(w, "perf2tr", 0, NULL)) return 1;
    if (tr_writer_meta(w, META_VIEW, VIEW_SAMPLES)) return 1;
    char line[8192];
    uint64_t addrs[1024];
    uint32_t flags[1024], ev = 0;
    size_t n = 0;
    tr_record rec;
    memset(&rec, 0, sizeof rec);
    int have = 0;
    char evname[128] = "";
    for (;;) {
        char *l = fgets(line, sizeof line, stdin);
        if (!l || line[0] != '\t') {
            if (have) {
                if (!ev) {
                    tr_event_def d = {.kind = TR_EV_SOFTWARE, .name = evname, .name_len = strlen(evname)};
                    if (tr_writer_event(w, &d, &ev)) return 1;
                }
                rec.u.sample.event = ev;
                if (tr_writer_stack_addrs(w, addrs, flags, n, &rec.u.sample.stack) || tr_writer_add(w, &rec)) return 1;
                have = 0;
            }
            if (!l) break;
            char comm[64];
            int pid, tid;
            unsigned long long sec, usec, period;
            if (sscanf(line, " %63s %d/%d %llu.%llu: %llu %127[^:]:", comm, &pid, &tid, &sec, &usec, &period,
                       evname) == 7) {
                rec.type = TR_REC_SAMPLE;
                rec.pid = pid, rec.tid = tid, rec.cpu = -1;
                rec.time = sec * 1000000000ull + usec * 1000ull;
                rec.u.sample.period = period;
                n = 0;
                have = 1;
            }
            continue;
        }
        if (n < 1024) {
            addrs[n] = strtoull(line + 1, NULL, 16);
            flags[n] = addrs[n] >= 0xffff800000000000ull ? TR_FRAME_KERNEL : 0;
            n++;
        }
    }
    return tr_writer_finish(w, 0) ? 1 : 0;
}
