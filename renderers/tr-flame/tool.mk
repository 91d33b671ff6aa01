TOOLS += tr-flame
tr-flame_SRCS := $(wildcard renderers/tr-flame/*.c) $(FLAME_SRCS)
