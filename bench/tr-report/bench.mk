# make bench-tr-report: tr-report against perf report --stdio on the same recordings
.PHONY: bench-tr-report
bench-tr-report: $(B)/bin/tr-report $(B)/bin/tr-import-perf
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin TR_TESTBIN=$(CURDIR)/$(B)/tests bash bench/tr-report/bench.sh
