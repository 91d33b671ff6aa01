# model/fold: stacks folded into counted paths, from a trace (symbolizing on
# the fly through model/symbolize) or from perf script text (model/fold/fold.h).
# A tool that folds adds, in its tool.mk:
#     NAME_SRCS += $(FOLD_SRCS) $(SYM_SRCS)
#     NAME_LIBS += $(SYM_LIBS) -lpthread
# and includes "fold/fold.h".
FOLD_SRCS := $(wildcard model/fold/*.c)
