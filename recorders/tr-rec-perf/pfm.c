/* pfm.c - PMU events by name through libpfm4 (perf's --pfm-events), for
 * -e and -l: "INST_RETIRED:ANY_P", "skl::INST_RETIRED:ANY_P".  libpfm4 is
 * opened when an event name needs it, not linked: its event tables, relocated
 * at load, would be 2 MB of every recording's resident memory. */
#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <string.h>

#include "pfm.h"

/* The soname of the header's ABI. */
#define PFM_SONAME "libpfm.so.4"
_Static_assert(PFM_MAJ_VERSION(LIBPFM_VERSION) == 4, "libpfm4's soname");

static struct {
    pfm_err_t (*initialize)(void);
    const char *(*strerror)(int);
    pfm_err_t (*encode)(const char *, int, pfm_os_t, void *);
    pfm_err_t (*pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
    int (*event_next)(int);
    pfm_err_t (*event_info)(int, pfm_os_t, pfm_event_info_t *);
} pfm;

/* 0 when libpfm4 is ready, else -1 with why set (once). */
static int pfm_ready(char *why, size_t why_len)
{
    static int done, rc;
    static char err[200];
    if (!done) {
        done = 1;
        void *h = dlopen(PFM_SONAME, RTLD_LAZY | RTLD_LOCAL);
        if (h) {
            pfm.initialize = (pfm_err_t(*)(void))(uintptr_t)dlsym(h, "pfm_initialize");
            pfm.strerror = (const char *(*)(int))(uintptr_t)dlsym(h, "pfm_strerror");
            pfm.encode = (pfm_err_t(*)(const char *, int, pfm_os_t, void *))(uintptr_t)dlsym(
                h, "pfm_get_os_event_encoding");
            pfm.pmu_info = (pfm_err_t(*)(pfm_pmu_t, pfm_pmu_info_t *))(uintptr_t)dlsym(h, "pfm_get_pmu_info");
            pfm.event_next = (int (*)(int))(uintptr_t)dlsym(h, "pfm_get_event_next");
            pfm.event_info = (pfm_err_t(*)(int, pfm_os_t, pfm_event_info_t *))(uintptr_t)dlsym(
                h, "pfm_get_event_info");
        }
        if (!h || !pfm.initialize || !pfm.strerror || !pfm.encode || !pfm.pmu_info || !pfm.event_next ||
            !pfm.event_info) {
            snprintf(err, sizeof err, "%s", h ? "a libpfm4 function is missing" : dlerror());
            rc = -1;
        } else if ((rc = pfm.initialize()) != PFM_SUCCESS) {
            snprintf(err, sizeof err, "%s", pfm.strerror(rc));
        }
    }
    if (rc != PFM_SUCCESS && why)
        snprintf(why, why_len, "unknown event (libpfm4 not ready: %s)", err);
    return rc == PFM_SUCCESS ? 0 : -1;
}

int perf_pfm_encode(const char *spec, uint32_t *type, uint64_t *config, char *why, size_t why_len)
{
    if (pfm_ready(why, why_len))
        return -1;
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    pfm_perf_encode_arg_t arg;
    memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    int rc = pfm.encode(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
    if (rc == PFM_ERR_NOTFOUND) {
        snprintf(why, why_len, "unknown event");
        return -1;
    }
    if (rc != PFM_SUCCESS) {
        snprintf(why, why_len, "libpfm4: %s", pfm.strerror(rc));
        return -1;
    }
    *type = attr.type;
    *config = attr.config;
    return 0;
}

void perf_pfm_list(const char *glob, void (*line)(const char *glob, const char *name, const char *kind))
{
    if (pfm_ready(NULL, 0))
        return;
    pfm_pmu_t pmu;
    pfm_for_all_pmus(pmu) {
        pfm_pmu_info_t pinfo;
        memset(&pinfo, 0, sizeof pinfo);
        pinfo.size = sizeof pinfo;
        if (pfm.pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
            continue;
        for (int i = pinfo.first_event; i != -1; i = pfm.event_next(i)) {
            pfm_event_info_t info;
            memset(&info, 0, sizeof info);
            info.size = sizeof info;
            if (pfm.event_info(i, PFM_OS_PERF_EVENT, &info) != PFM_SUCCESS)
                continue;
            char name[256];
            snprintf(name, sizeof name, "%s::%s", pinfo.name, info.name);
            line(glob, name, "Kernel PMU event (libpfm4)");
        }
    }
}
