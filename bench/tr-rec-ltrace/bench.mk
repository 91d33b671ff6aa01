# make bench-tr-rec-ltrace: tr-rec-ltrace against ltrace (timings only here, never in tests)
.PHONY: bench-tr-rec-ltrace
bench-tr-rec-ltrace: $(B)/bin/tr-rec-ltrace $(B)/bin/tr-cat $(B)/tests/ltwork
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin TR_TESTBIN=$(CURDIR)/$(B)/tests bash bench/tr-rec-ltrace/bench.sh
