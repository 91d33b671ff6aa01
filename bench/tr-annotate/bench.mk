# make bench-tr-annotate: tr-annotate against perf annotate --stdio on the same perf.data; timings only here
.PHONY: bench-tr-annotate
bench-tr-annotate: $(B)/bin/tr-annotate $(B)/bin/tr-import-perf
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin TR_TESTBIN=$(CURDIR)/$(B)/tests bash bench/tr-annotate/bench.sh
