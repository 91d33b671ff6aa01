# tr-rec-perf: unit tests of the perf_event plumbing (event names, ELF build-ids, the mmap ring
# on a live software event), end-to-end tests of the recorder against the real kernel with the
# bundled workloads (tests/workloads), and command-line cases.
UNIT_TESTS += test_perf_events test_perf_record
test_perf_events_SRCS := tests/perf/test_perf_events.c recorders/tr-rec-perf/events.c recorders/tr-rec-perf/pfm.c \
  recorders/tr-rec-perf/ring.c recorders/tr-rec-perf/target.c
test_perf_record_SRCS := tests/perf/test_perf_record.c tests/perf/tracefile.c
test_perf_record_LIBS := $(or $(call pc,--libs,libelf),-lelf)
test_perf_events_LIBS :=
CFLAGS_tests/perf := -Irecorders/tr-rec-perf
CLI_TEST_DIRS += tests/perf/cases
# tr-viewtrace: a small trace with a chosen producer and view, for tr-cat's views (cases/cat-views)
TEST_PROGS += tr-viewtrace
tr-viewtrace_SRCS := tests/perf/viewtrace.c
# User probes (cases/uprobe-*): probed, with DWARF and an SDT probe with its semaphore
# (<sys/sdt.h>: systemtap-sdt-dev), built at -O0 (parameters in the frame past the prologue)
# and -O2 (in registers); without the sanitizers even with SAN=1: it is what is traced.
$(B)/tests/probed: tests/perf/probed.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O0 -g -fno-omit-frame-pointer -std=c11 -Wall -Wextra -Werror -o $@ $<
$(B)/tests/probed-O2: tests/perf/probed.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer -std=c11 -Wall -Wextra -Werror -o $@ $<
tools: $(B)/tests/probed $(B)/tests/probed-O2
test: $(B)/tests/probed $(B)/tests/probed-O2
