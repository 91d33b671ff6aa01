TOOLS += tr-rec-ltrace
tr-rec-ltrace_SRCS := $(wildcard recorders/tr-rec-ltrace/*.c)
tr-rec-ltrace_LIBS := $(call pc,--libs,libelf)
