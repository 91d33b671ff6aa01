TOOLS += tr-rec-ltrace
tr-rec-ltrace_SRCS := $(wildcard recorders/tr-rec-ltrace/*.c) $(UPROBE_SRCS)
tr-rec-ltrace_LIBS := $(UPROBE_LIBS)
