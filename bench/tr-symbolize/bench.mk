.PHONY: bench-symbolize
bench-symbolize: tools $(B)/tests/sym-dump
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin TR_TESTBIN=$(CURDIR)/$(B)/tests bash bench/tr-symbolize/bench.sh
