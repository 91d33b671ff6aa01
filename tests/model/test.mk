# Unit tests of model/: each tests/model/test_NAME.c is one cmocka program, linked with
# libmodel.a and libtr.a (the template adds both), and with MODEL_LIBS.
MODEL_TESTS := $(patsubst tests/model/%.c,%,$(wildcard tests/model/test_*.c))
UNIT_TESTS += $(MODEL_TESTS)
$(foreach t,$(MODEL_TESTS),$(eval $(t)_SRCS := tests/model/$(t).c))
