BENCHES += bench_read perf2tr
bench_read_SRCS := bench/format/bench_read.c
perf2tr_SRCS := bench/format/perf2tr.c
bench-format: $(B)/tests/bench_read $(B)/tests/perf2tr $(B)/tests/tr-synth
	$(Q)TR_TESTBIN=$(CURDIR)/$(B)/tests bash bench/format/run.sh
