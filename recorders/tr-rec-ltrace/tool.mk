TOOLS += tr-rec-ltrace
tr-rec-ltrace_SRCS := $(wildcard recorders/tr-rec-ltrace/*.c)
tr-rec-ltrace_LIBS := $(call pc,--libs,libelf) $(or $(call pc,--libs,capstone),-lcapstone)
CFLAGS_recorders/tr-rec-ltrace := $(call pc,--cflags,capstone)
