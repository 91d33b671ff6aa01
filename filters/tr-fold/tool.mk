TOOLS += tr-fold
tr-fold_SRCS := $(wildcard filters/tr-fold/*.c) $(wildcard filters/folded/*.c) $(SYM_SRCS)
tr-fold_LIBS := $(SYM_LIBS) -lpthread
CFLAGS_filters/tr-fold := -Ifilters/folded
CFLAGS_filters/folded := -Ifilters/folded
