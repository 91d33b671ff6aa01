TOOLS += tr-rec-perf
tr-rec-perf_SRCS := $(wildcard recorders/tr-rec-perf/*.c)
# PMU events by name (pfm.c): perf's --pfm-events
tr-rec-perf_LIBS += -lpfm
