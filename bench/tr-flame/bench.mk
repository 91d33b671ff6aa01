# make bench-tr-flame: tr-flame against flamegraph.pl (FLAMEGRAPH_DIR); timings only here
bench-tr-flame: $(B)/bin/tr-flame $(B)/bin/tr-fold $(B)/bin/tr-rec-perf $(B)/bin/tr-cat
	$(Q)B=$(CURDIR)/$(B) bash bench/tr-flame/bench.sh
