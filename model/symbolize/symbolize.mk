# model/symbolize: names, inline frames, lines and DWARF unwinding
# (model/symbolize/symbolize.h). A tool that symbolizes adds, in its tool.mk:
#     NAME_SRCS += $(SYM_SRCS)
#     NAME_LIBS += $(SYM_LIBS)
# and includes "symbolize/symbolize.h".
SYM_SRCS := $(wildcard model/symbolize/*.c)
# demangle.c: libiberty (libiberty-dev: a static library, no pkg-config file)
SYM_LIBS := $(or $(call pc,--libs,libdw libelf zlib),-ldw -lelf -lz) -liberty -ldl
