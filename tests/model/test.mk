# Unit tests of model/: each tests/model/test_NAME.c is one cmocka program, linked with
# libmodel.a and libtr.a (the template adds both), and with MODEL_LIBS.
MODEL_TESTS := $(patsubst tests/model/%.c,%,$(wildcard tests/model/test_*.c))
UNIT_TESTS += $(MODEL_TESTS)
$(foreach t,$(MODEL_TESTS),$(eval $(t)_SRCS := tests/model/$(t).c))
# model/uprobe (a directory of its own, linked only where used)
test_uprobe_SRCS += $(UPROBE_SRCS)
test_uprobe_LIBS := $(UPROBE_LIBS)
