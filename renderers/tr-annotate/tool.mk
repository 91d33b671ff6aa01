TOOLS += tr-annotate
tr-annotate_SRCS := $(wildcard renderers/tr-annotate/*.c) $(SYM_SRCS)
tr-annotate_LIBS := $(SYM_LIBS) $(or $(call pc,--libs,capstone),-lcapstone)
CFLAGS_renderers/tr-annotate := $(call pc,--cflags,capstone)
