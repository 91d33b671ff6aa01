.PHONY: bench-tr-archive
bench-tr-archive: tools $(WORKLOADS)
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin bash bench/tr-archive/bench.sh
