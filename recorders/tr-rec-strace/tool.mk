TOOLS += tr-rec-strace
tr-rec-strace_SRCS := $(wildcard recorders/tr-rec-strace/*.c)
tr-rec-strace_LIBS := $(call pc,--libs,libdw)
