# make bench-tr-top: tr-top's CPU use against perf top's, following -a at 999 Hz
.PHONY: bench-tr-top
bench-tr-top: $(B)/bin/tr-top $(B)/bin/tr-rec-perf
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin bash bench/tr-top/bench.sh
