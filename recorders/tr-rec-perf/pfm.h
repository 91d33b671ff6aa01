/*
 * pfm.h - PMU events by name through libpfm4 (perf's --pfm-events).  Apart
 * from events.h: libpfm4's headers declare perf_event_attr themselves.
 */
#ifndef TRP_PFM_H
#define TRP_PFM_H

#include <stddef.h>
#include <stdint.h>

/* The perf_event_attr type and config of libpfm4's name of an event of the
 * machine's PMU ("INST_RETIRED:ANY_P", "skl::INST_RETIRED:ANY_P"): 0, or -1
 * with a reason in why. */
int perf_pfm_encode(const char *spec, uint32_t *type, uint64_t *config, char *why, size_t why_len);
/* perf_list's PMU part: the events of the PMUs present, through line(). */
void perf_pfm_list(const char *glob, void (*line)(const char *glob, const char *name, const char *kind));

#endif
