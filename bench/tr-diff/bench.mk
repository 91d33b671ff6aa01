# make bench-tr-diff: tr-diff against difffolded.pl (FLAMEGRAPH_DIR); timings only here
bench-tr-diff: $(B)/bin/tr-diff $(B)/bin/tr-rec-perf $(B)/bin/tr-cat
	$(Q)B=$(CURDIR)/$(B) bash bench/tr-diff/bench.sh
