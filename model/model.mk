# model/: the middle layer (model/README.md), compiled into $(MODEL_LIB).
# A module that needs a library adds it here:
#     MODEL_LIBS += $(call pc,--libs,NAME)
#     CFLAGS_model += $(call pc,--cflags,NAME)
CFLAGS_model :=
# tpformat.c: tracepoint formats through libtraceevent
MODEL_LIBS += $(or $(call pc,--libs,libtraceevent),-ltraceevent)
CFLAGS_model += $(call pc,--cflags,libtraceevent)

# model/syscalls: the host's syscall table is generated from the kernel headers, never typed by hand.
TR_STRACE_UNISTD ?= /usr/include/x86_64-linux-gnu/asm/unistd_64.h
CFLAGS_model += -I$(B)/gen/model
$(B)/gen/model/syscalls_x86_64.h: model/gen-syscalls.sh $(TR_STRACE_UNISTD)
	@mkdir -p $(dir $@)
	$(Q)sh model/gen-syscalls.sh $(TR_STRACE_UNISTD) $@
$(B)/obj/model/syscalls.o: $(B)/gen/model/syscalls_x86_64.h
