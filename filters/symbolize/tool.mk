# The symbolize library (filters/symbolize/symbolize.h): not a tool itself.
# A tool that uses it adds, in its own tool.mk:
#     NAME_SRCS += $(SYM_SRCS)
#     NAME_LIBS += $(SYM_LIBS)
# and includes "../symbolize/symbolize.h".
SYM_SRCS := $(wildcard filters/symbolize/*.c)
SYM_LIBS := $(or $(call pc,--libs,libdw libelf zlib),-ldw -lelf -lz) -ldl
