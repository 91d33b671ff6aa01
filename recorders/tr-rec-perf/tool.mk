TOOLS += tr-rec-perf
tr-rec-perf_SRCS := $(wildcard recorders/tr-rec-perf/*.c) $(UPROBE_SRCS)
# PMU events by name (pfm.c): perf's --pfm-events, libpfm4 opened when needed; user probes (uprobes.c): model/uprobe, and
# libdw for parameters by name (probedwarf.c)
tr-rec-perf_LIBS += $(UPROBE_LIBS) $(or $(call pc,--libs,libdw),-ldw)
