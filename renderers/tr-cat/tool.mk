TOOLS += tr-cat
tr-cat_SRCS := $(wildcard renderers/tr-cat/*.c) $(SYM_SRCS)
tr-cat_LIBS := $(SYM_LIBS)
