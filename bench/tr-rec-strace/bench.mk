# make bench-tr-rec-strace: tr-rec-strace against strace (timings only here, never in tests)
.PHONY: bench-tr-rec-strace
bench-tr-rec-strace: $(B)/bin/tr-rec-strace $(B)/bin/tr-cat $(B)/bin/tr-symbolize
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin bash bench/tr-rec-strace/bench.sh
