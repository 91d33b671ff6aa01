# Bundled workloads with known behaviour (see tests/workloads/README.md).
# Each is built twice: NAME-fp (-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer: gcc
# otherwise drops the frame of leaf functions, hiding their callers) and NAME-nofp
# (-fomit-frame-pointer), both -O1 -g, into $(B)/workloads/.
WORKLOAD_NAMES := hot3 forker sleeper faulter offwork memuser
WORKLOAD_CFLAGS := -O1 -g -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
WORKLOADS := $(foreach n,$(WORKLOAD_NAMES),$(B)/workloads/$(n)-fp $(B)/workloads/$(n)-nofp)

$(B)/workloads/%-fp: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o $@ $< -pthread

$(B)/workloads/%-nofp: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -fomit-frame-pointer -o $@ $< -pthread

.PHONY: workloads
workloads: $(WORKLOADS)
tools: $(WORKLOADS)
test: $(WORKLOADS)
