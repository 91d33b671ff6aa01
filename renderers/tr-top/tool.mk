TOOLS += tr-top
NCURSES_LIBS = $(or $(call pc,--libs,ncursesw),-lncursesw -ltinfo)
tr-top_SRCS := $(wildcard renderers/tr-top/*.c) $(REPORT_SRCS) $(FOLD_SRCS) $(SYM_SRCS)
tr-top_LIBS := $(SYM_LIBS) $(NCURSES_LIBS) -lpthread -lm
