# tr-rec-ftrace: unit tests of the parts that need no kernel, command-line cases against the
# real kernel (root, tracefs), and the bundled workload ftwork (openat calls, syscall storms).
UNIT_TESTS += test_ftrace
test_ftrace_SRCS := tests/ftrace/test_ftrace.c recorders/tr-rec-ftrace/events.c \
  recorders/tr-rec-ftrace/pages.c recorders/tr-rec-ftrace/tasks.c recorders/tr-rec-ftrace/instance.c \
  recorders/tr-rec-ftrace/order.c
test_ftrace_LIBS := $(or $(call pc,--libs,libtracefs libtraceevent),-ltracefs -ltraceevent)
CFLAGS_tests/ftrace := $(call pc,--cflags,libtracefs libtraceevent) -Irecorders/tr-rec-ftrace
CLI_TEST_DIRS += tests/ftrace/cases

# The workload is built without the sanitizers even with SAN=1: LeakSanitizer's exit-time tracer
# task would be one of the workload's descendants and show up in its traces.
$(B)/tests/ftwork: tests/ftrace/ftwork.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -o $@ $<
tools: $(B)/tests/ftwork
test: $(B)/tests/ftwork
