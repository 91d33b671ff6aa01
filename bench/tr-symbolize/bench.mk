# perfdata2tr: also a test program (tests/perf/cases/cat-perf-script: tr-cat against perf script)
TEST_PROGS += perfdata2tr
perfdata2tr_SRCS := bench/tr-symbolize/perfdata2tr.c
.PHONY: bench-symbolize
bench-symbolize: tools $(B)/tests/perfdata2tr $(B)/tests/sym-dump
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin TR_TESTBIN=$(CURDIR)/$(B)/tests bash bench/tr-symbolize/bench.sh
