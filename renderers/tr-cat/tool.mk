TOOLS += tr-cat
tr-cat_SRCS := $(wildcard renderers/tr-cat/*.c)
tr-cat_LIBS := $(call pc,--libs,libtraceevent)
CFLAGS_renderers/tr-cat := $(call pc,--cflags,libtraceevent)
