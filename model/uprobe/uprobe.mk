# model/uprobe: user probes, for the recorders that make them (model/uprobe/uprobe.h): ELF
# symbols and SDT notes to file offsets, DWARF-free; the probe group in tracefs. A tool adds,
# in its tool.mk:
#     NAME_SRCS += $(UPROBE_SRCS)
#     NAME_LIBS += $(UPROBE_LIBS)
# and includes "uprobe/uprobe.h".
UPROBE_SRCS := $(wildcard model/uprobe/*.c)
# Capstone is opened when first needed (elf_probe_point), not linked: its headers only.
UPROBE_LIBS := $(or $(call pc,--libs,libelf),-lelf) -ldl
CFLAGS_model/uprobe := $(call pc,--cflags,capstone)
