TOOLS += tr-report
tr-report_SRCS := $(wildcard renderers/tr-report/*.c) $(REPORT_SRCS) $(FOLD_SRCS) $(SYM_SRCS)
tr-report_LIBS := $(SYM_LIBS) -lpthread -lm
