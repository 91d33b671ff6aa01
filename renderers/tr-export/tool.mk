TOOLS += tr-export
tr-export_SRCS := $(wildcard renderers/tr-export/*.c) $(SYM_SRCS)
tr-export_LIBS := $(SYM_LIBS) -lpthread
