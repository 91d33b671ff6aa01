TOOLS += tr-rec-strace
tr-rec-strace_SRCS := $(wildcard recorders/tr-rec-strace/*.c) renderers/tr-cat/cat-syscall-desc.c
tr-rec-strace_LIBS := $(call pc,--libs,libdw)
CFLAGS_recorders/tr-rec-strace := -I$(B)/gen/tr-rec-strace -Irenderers/tr-cat

# The syscall table is generated from the kernel headers, never typed by hand.
TR_STRACE_UNISTD ?= /usr/include/x86_64-linux-gnu/asm/unistd_64.h
$(B)/gen/tr-rec-strace/syscalls_x86_64.h: recorders/tr-rec-strace/gen-syscalls.sh $(TR_STRACE_UNISTD)
	@mkdir -p $(dir $@)
	$(Q)sh recorders/tr-rec-strace/gen-syscalls.sh $(TR_STRACE_UNISTD) $@
$(B)/obj/recorders/tr-rec-strace/systab.o: $(B)/gen/tr-rec-strace/syscalls_x86_64.h
