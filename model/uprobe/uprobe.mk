# model/uprobe: user probes, for the recorders that make them (model/uprobe/uprobe.h): ELF
# symbols and SDT notes to file offsets, DWARF-free; the probe group in tracefs. A tool adds,
# in its tool.mk:
#     NAME_SRCS += $(UPROBE_SRCS)
#     NAME_LIBS += $(UPROBE_LIBS)
# and includes "uprobe/uprobe.h".
UPROBE_SRCS := $(wildcard model/uprobe/*.c)
UPROBE_LIBS := $(or $(call pc,--libs,libelf),-lelf) $(or $(call pc,--libs,capstone),-lcapstone) -ldl
CFLAGS_model/uprobe := $(call pc,--cflags,capstone)
