TOOLS += tr-triage
tr-triage_SRCS := $(wildcard renderers/tr-triage/*.c) $(TRIAGE_SRCS) $(FLAME_SRCS) $(FOLD_SRCS) $(SYM_SRCS)
tr-triage_LIBS := $(SYM_LIBS) -lpthread -lm
