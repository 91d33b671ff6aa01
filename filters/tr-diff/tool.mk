TOOLS += tr-diff
tr-diff_SRCS := $(wildcard filters/tr-diff/*.c) $(FOLD_SRCS) $(SYM_SRCS)
tr-diff_LIBS := $(SYM_LIBS) -lpthread
