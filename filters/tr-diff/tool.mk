TOOLS += tr-diff
tr-diff_SRCS := $(wildcard filters/tr-diff/*.c) $(wildcard filters/folded/*.c) $(SYM_SRCS)
tr-diff_LIBS := $(SYM_LIBS) -lpthread
CFLAGS_filters/tr-diff := -Ifilters/folded $(CFLAGS_filters/folded)
