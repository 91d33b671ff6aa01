TOOLS += tr-rec-ftrace
tr-rec-ftrace_SRCS := $(wildcard recorders/tr-rec-ftrace/*.c)
tr-rec-ftrace_LIBS := $(or $(call pc,--libs,libtracefs libtraceevent),-ltracefs -ltraceevent) -lpthread
CFLAGS_recorders/tr-rec-ftrace := $(call pc,--cflags,libtracefs libtraceevent)
