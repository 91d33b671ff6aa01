# make bench-tr-fold: tr-fold against stackcollapse-perf.pl (FLAMEGRAPH_DIR); timings only here
bench-tr-fold: $(B)/bin/tr-fold $(B)/bin/tr-rec-perf $(B)/bin/tr-cat
	$(Q)B=$(CURDIR)/$(B) bash bench/tr-fold/bench.sh
