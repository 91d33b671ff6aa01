TOOLS += tr-cat
tr-cat_SRCS := $(wildcard renderers/tr-cat/*.c)
