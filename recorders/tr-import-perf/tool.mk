TOOLS += tr-import-perf
tr-import-perf_SRCS := $(wildcard recorders/tr-import-perf/*.c)
