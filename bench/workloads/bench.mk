# The benchmark workloads of the suite (bench/README.md, bench/suite/run.sh): each compiled one
# twice into $(B)/bench/: NAME-fp (frame pointers, for -g) and NAME-nofp (-fomit-frame-pointer, for
# --call-graph dwarf), -O2 -g.  python.py and cc.sh run from the source tree; hot3 is
# tests/workloads/hot3.  Never built with the sanitizers' flags: they are the programs measured.
BENCH_WORKLOADS := $(foreach n,deep server cxx,$(B)/bench/$(n)-fp $(B)/bench/$(n)-nofp)
BENCH_WL_FLAGS := -O2 -g -Wall -Wextra -Werror
BENCH_WL_FP := -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
BENCH_WL_NOFP := -fomit-frame-pointer

$(B)/bench/%-fp: bench/workloads/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(BENCH_WL_FLAGS) $(BENCH_WL_FP) -o $@ $< -pthread

$(B)/bench/%-nofp: bench/workloads/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(BENCH_WL_FLAGS) $(BENCH_WL_NOFP) -o $@ $< -pthread

$(B)/bench/%-fp: bench/workloads/%.cc
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CXX     $@")
	$(Q)g++ $(BENCH_WL_FLAGS) $(BENCH_WL_FP) -o $@ $<

$(B)/bench/%-nofp: bench/workloads/%.cc
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CXX     $@")
	$(Q)g++ $(BENCH_WL_FLAGS) $(BENCH_WL_NOFP) -o $@ $<

# the suite's own measuring of a command (bench/suite/measure.c)
$(B)/bench/measure: bench/suite/measure.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $<

.PHONY: bench-workloads bench-suite
bench-workloads: $(BENCH_WORKLOADS) $(B)/bench/measure

# make bench-suite: every workload, tr against perf, one run (bench/suite/run.sh --help; pass
# options with SUITE_ARGS="--quick --only deep")
bench-suite: test-deps tools $(BENCH_WORKLOADS) $(B)/bench/measure $(WORKLOADS)
	$(Q)B=$(CURDIR)/$(B) sh bench/suite/run.sh $(SUITE_ARGS)
