# model/report: a trace summed up as perf report, perf diff, perf sched
# latency and strace -c do (model/report/report.h): tr-report, and tr-top
# after it.  It folds off-CPU time through model/fold and symbolizes through
# model/symbolize, so a tool that reports adds, in its tool.mk:
#     NAME_SRCS += $(REPORT_SRCS) $(FOLD_SRCS) $(SYM_SRCS)
#     NAME_LIBS += $(SYM_LIBS) -lpthread -lm
REPORT_SRCS := $(wildcard model/report/*.c)
