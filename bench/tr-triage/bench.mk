# make bench-tr-triage: each tests/triage workload with and without tr-triage, and its syscall
# recording against tr-rec-strace's
.PHONY: bench-tr-triage
bench-tr-triage: $(B)/bin/tr-triage $(B)/bin/tr-rec-perf $(B)/bin/tr-rec-strace
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin bash bench/tr-triage/bench.sh
