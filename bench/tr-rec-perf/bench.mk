# make bench-tr-rec-perf: tr-rec-perf against perf record / perf stat (timings only here, never in tests)
bench-tr-rec-perf: $(B)/bin/tr-rec-perf $(B)/bin/tr-cat $(WORKLOADS)
	$(Q)B=$(CURDIR)/$(B) bash bench/tr-rec-perf/bench.sh
