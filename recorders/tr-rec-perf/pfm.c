/* pfm.c - PMU events by name through libpfm4 (perf's --pfm-events), for
 * -e and -l: "INST_RETIRED:ANY_P", "skl::INST_RETIRED:ANY_P". */
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <string.h>

#include "pfm.h"

/* 0 when libpfm4 is ready, else its error (once). */
static int pfm_ready(void)
{
    static int done, rc;
    if (!done) {
        rc = pfm_initialize();
        done = 1;
    }
    return rc;
}

int perf_pfm_encode(const char *spec, uint32_t *type, uint64_t *config, char *why, size_t why_len)
{
    int rc = pfm_ready();
    if (rc != PFM_SUCCESS) {
        snprintf(why, why_len, "unknown event (libpfm4 not ready: %s)", pfm_strerror(rc));
        return -1;
    }
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    rc = pfm_get_os_event_encoding(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    if (rc == PFM_ERR_NOTFOUND) {
        snprintf(why, why_len, "unknown event");
        return -1;
    }
    if (rc != PFM_SUCCESS) {
        snprintf(why, why_len, "libpfm4: %s", pfm_strerror(rc));
        return -1;
    }
    *type = attr.type;
    *config = attr.config;
    return 0;
}

void perf_pfm_list(const char *glob, void (*line)(const char *glob, const char *name, const char *kind))
{
    if (pfm_ready() != PFM_SUCCESS)
        return;
    pfm_pmu_t pmu;
    pfm_for_all_pmus(pmu) {
        pfm_pmu_info_t pinfo;
        memset(&pinfo, 0, sizeof pinfo);
        pinfo.size = sizeof pinfo;
        if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
            continue;
        for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
            pfm_event_info_t info;
            memset(&info, 0, sizeof info);
            info.size = sizeof info;
            if (pfm_get_event_info(i, PFM_OS_PERF_EVENT, &info) != PFM_SUCCESS)
                continue;
            char name[256];
            snprintf(name, sizeof name, "%s::%s", pinfo.name, info.name);
            line(glob, name, "Kernel PMU event (libpfm4)");
        }
    }
}
