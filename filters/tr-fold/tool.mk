TOOLS += tr-fold
tr-fold_SRCS := $(wildcard filters/tr-fold/*.c) $(FOLD_SRCS) $(SYM_SRCS)
tr-fold_LIBS := $(SYM_LIBS) -lpthread
