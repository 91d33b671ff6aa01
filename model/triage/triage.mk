# model/triage: tr-triage's analysis and report (model/triage/triage.h): a
# trace of its recorders into counters, profiles, syscalls, run-queue latency,
# the USE checklist and findings, as text, JSON or HTML.  It symbolizes, folds
# and draws flame graphs, so a tool that triages adds, in its tool.mk:
#     NAME_SRCS += $(TRIAGE_SRCS) $(FLAME_SRCS) $(FOLD_SRCS) $(SYM_SRCS)
#     NAME_LIBS += $(SYM_LIBS) -lpthread -lm
TRIAGE_SRCS := $(wildcard model/triage/*.c)
