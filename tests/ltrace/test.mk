# tr-rec-ltrace (its prototypes: tests/model/test_libproto.c): command-line cases against the real
# kernel (root, tracefs uprobe_events), and the bundled workload ltwork built twice: with the PLT
# (where ltrace works) and with -fno-plt -z now (where ltrace 0.7.3 records nothing).
CLI_TEST_DIRS += tests/ltrace/cases

# Built without the sanitizers even with SAN=1: the workload is what is traced, not tested.
$(B)/tests/ltwork: tests/ltrace/ltwork.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O1 -fno-builtin -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread -o $@ $<
$(B)/tests/ltwork-noplt: tests/ltrace/ltwork.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O1 -fno-builtin -fno-plt -Wl,-z,now -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread -o $@ $<
$(B)/tests/ltwork-child: tests/ltrace/ltwork.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O1 -fno-builtin -DLTWORK_CHILD -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -o $@ $<
$(B)/tests/libltplug.so: tests/ltrace/ltplug.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $@")
	$(Q)$(CC) -O1 -fno-builtin -fPIC -shared -std=c11 -Wall -Wextra -Werror -o $@ $<
LTRACE_WORK := $(addprefix $(B)/tests/,ltwork ltwork-noplt ltwork-child libltplug.so)
tools: $(LTRACE_WORK)
test: $(LTRACE_WORK)
