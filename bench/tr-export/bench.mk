# make bench-tr-export: tr-export's three formats on a million samples, side by side with
# what perf users run for the same (perf script | stackcollapse, perf data convert --to-json,
# perf script for speedscope), and its memory at a tenth of the samples
.PHONY: bench-tr-export
bench-tr-export: tools $(B)/bin/tr-import-perf
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin TR_TESTBIN=$(CURDIR)/$(B)/tests bash bench/tr-export/bench.sh
