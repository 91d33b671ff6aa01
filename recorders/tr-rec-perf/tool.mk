TOOLS += tr-rec-perf
tr-rec-perf_SRCS := $(wildcard recorders/tr-rec-perf/*.c)
