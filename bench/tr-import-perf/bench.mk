.PHONY: bench-tr-import-perf
bench-tr-import-perf: tools $(WORKLOADS)
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin bash bench/tr-import-perf/bench.sh
