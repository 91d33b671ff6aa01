# tr - Linux tracing and profiling toolchain.
#
#   make            build the library and every tool (calls `make deps` when a package is missing)
#   make test       cmocka unit tests and command-line tests; SAN=1 under ASan+UBSan (calls
#                   `make test-deps` first, and mounts tracefs when it is not mounted)
#   make demo       build, record a bundled workload, and render it
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       install the missing Debian packages of the build (needs root or sudo)
#   make test-deps  install the missing Debian packages the tests run (needs root or sudo)
#
# Each tool and test area contributes a fragment: */*/tool.mk and tests/*/test.mk.

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
SAN ?= 0
V ?= 0

# The build: the compiler and make (a minimal Debian root has neither), pkg-config, the libraries.
DEB_PACKAGES := gcc libc6-dev make pkg-config \
	libdw-dev libelf-dev zlib1g-dev libzstd-dev libtracefs-dev libtraceevent-dev libcmocka-dev libpfm4-dev libcapstone-dev \
	libiberty-dev libncurses-dev
PKGS := libzstd libdw libelf zlib libtracefs libtraceevent cmocka capstone ncursesw
# What the tests run besides the build, the one list (`make test-deps`, .ci/run): g++ and rustc
# build the demangling cases' programs (rustc: unless rustup's is in ~/.cargo/bin), binutils'
# objcopy/readelf/strip/nm make split and stripped binaries, python3 runs the strace and
# debuginfod cases' helpers, perl tests/flame/frames.pl, procps' ps and util-linux's unshare and
# taskset; the anchors compared with: strace, linux-perf (perf), trace-cmd, zstd (zstdcat); jq
# reads tr-cat --json, valgrind checks the reader, libdebuginfod1 is what tr-symbolize loads for
# debuginfod, chromium driven by nodejs runs the flame graph's browser test; clang builds the
# fuzz targets (make fuzz, fuzz-cat, fuzz-folded, fuzz-symbolize), bc does the benchmarks' sums,
# zsh runs the zsh completion's case, golang-go is go tool pprof, the reference reader of
# tr-export --pprof, npm fetches speedscope for tr-export's browser cases (NodeSource's nodejs
# has its own npm: then the package is not needed), tmux drives tr-top's terminal UI in its cases,
# ltrace is tr-rec-ltrace's anchor (its cases compare calls, counts and lines with it), curl
# sends a pprof export to a stand-in ingest API as the README shows it.
# systemtap-sdt-dev: <sys/sdt.h>, the SDT probe of tr-rec-perf's user probe cases (tests/perf/probed.c).
TEST_DEB_PACKAGES := g++ rustc binutils python3 perl procps util-linux mount bsdutils \
	strace linux-perf trace-cmd zstd jq valgrind libdebuginfod1 chromium nodejs npm clang bc zsh \
	golang-go tmux ltrace curl systemtap-sdt-dev

ifeq ($(SAN),1)
B := build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT := -O1
else
B := build/release
SANFLAGS :=
OPT := -O2
endif

# Frame pointers everywhere: tr profiles itself with tr.
CFLAGS ?= $(OPT) -g
override CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fno-omit-frame-pointer $(SANFLAGS) -Iformat -Imodel -Icli
override LDFLAGS += $(SANFLAGS)

pc = $(shell pkg-config $(1) $(2) 2>/dev/null)
ZSTD_LIBS = $(or $(call pc,--libs,libzstd),-lzstd)

ifeq ($(V),0)
Q := @
else
Q :=
endif

LIB := $(B)/libtr.a
LIB_SRCS := $(wildcard format/*.c)
# libtr.so.X.Y.Z, soname libtr.so.X, from TR_LIB_VERSION "X.Y.Z" (format/tr.h)
LIB_VERSION := $(shell sed -n 's/^\#define TR_LIB_VERSION "\([^"]*\)".*/\1/p' format/tr.h)
LIB_SONAME := libtr.so.$(firstword $(subst ., ,$(LIB_VERSION)))
SHLIB := $(B)/libtr.so.$(LIB_VERSION)
CLI_SRCS := $(wildcard cli/*.c)
# model/: the middle layer every tool reads traces through (model/README.md)
MODEL_LIB := $(B)/libmodel.a
MODEL_SRCS := $(wildcard model/*.c)
MODEL_LIBS :=

TOOLS :=
UNIT_TESTS :=
TEST_PROGS :=
CLI_TEST_DIRS :=
BENCHES :=

.PHONY: all test demo install deps test-deps tracefs clean completions fuzz bench libs
all: tools libs

# Missing packages are installed before the fragments are read: their
# pkg-config look-ups must see the installed libraries.
ifeq ($(filter deps test-deps clean,$(MAKECMDGOALS)),)
MISSING_PKGS := $(shell command -v $(firstword $(CC)) >/dev/null 2>&1 || echo $(firstword $(CC)); \
	command -v pkg-config >/dev/null 2>&1 || echo pkg-config; \
	for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || echo $$p; done; \
	[ -e /usr/include/perfmon/pfmlib.h ] || echo libpfm4; \
	[ -e /usr/include/libiberty/demangle.h ] || echo libiberty) # (neither has a pkg-config file)
ifneq ($(strip $(MISSING_PKGS)),)
$(info deps: missing $(strip $(MISSING_PKGS)); installing them)
DEPS_STATUS := $(shell $(MAKE) --no-print-directory deps >&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error deps: could not install the packages; run `make deps` as root)
endif
endif
endif

# --- the fragments -------------------------------------------------------
include model/model.mk model/symbolize/symbolize.mk model/fold/fold.mk model/report/report.mk model/flame/flame.mk model/triage/triage.mk \
	model/uprobe/uprobe.mk
include $(sort $(wildcard recorders/*/tool.mk filters/*/tool.mk renderers/*/tool.mk))
include $(sort $(wildcard tests/*/test.mk))
-include $(sort $(wildcard bench/*/bench.mk))

# --- dependencies --------------------------------------------------------
# `make deps` installs what is missing of the build's packages, `make test-deps` of the tests';
# every other goal checks the build's first, `make test` runs test-deps.
# apt_install GOAL,PACKAGES: install those of PACKAGES dpkg does not list as installed (as
# root, else through sudo); rustc counts as installed when rustup's is there.
define apt_install
	@missing=""; for p in $(2); do \
	  if [ $$p = rustc ] && [ -x "$${HOME:-/root}/.cargo/bin/rustc" ]; then continue; fi; \
	  if [ $$p = npm ] && command -v npm >/dev/null 2>&1; then continue; fi; \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "$(1): all installed"; exit 0; fi; \
	echo "$(1): installing$$missing"; \
	if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
	$$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null
endef
deps:
	$(call apt_install,deps,$(DEB_PACKAGES))
test-deps:
	$(call apt_install,test-deps,$(TEST_DEB_PACKAGES))

# The ftrace cases (and tr-rec-perf's tracepoints) read /sys/kernel/tracing: mounted when it
# is not (as root; otherwise the cases say what is missing).
tracefs:
	@if [ -d /sys/kernel/tracing ] && ! [ -e /sys/kernel/tracing/events ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "tracefs: mounting /sys/kernel/tracing"; \
	    mount -t tracefs nodev /sys/kernel/tracing; \
	  else echo "tracefs: /sys/kernel/tracing is not mounted (mount -t tracefs nodev /sys/kernel/tracing as root)"; fi; \
	fi

# --- library and tools ---------------------------------------------------
obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(CFLAGS_$(patsubst %/,%,$(dir $<))) -MMD -MP -c $< -o $@

$(LIB): $(call obj,$(LIB_SRCS))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The shared library: the same sources, position-independent; it exports the
# API of tr.h only (format/libtr.map).  The tools link the static one.
pic_obj = $(patsubst %.c,$(B)/pic/%.o,$(1))
$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $< (PIC)")
	$(Q)$(CC) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(SHLIB): $(call pic_obj,$(LIB_SRCS)) format/libtr.map
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=format/libtr.map \
	  -Wl,--no-undefined -o $@ $(filter %.o,$^) $(ZSTD_LIBS)
	$(Q)ln -sf $(notdir $@) $(B)/$(LIB_SONAME) && ln -sf $(LIB_SONAME) $(B)/libtr.so

libs: $(LIB) $(SHLIB)

$(MODEL_LIB): $(call obj,$(MODEL_SRCS))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libcli.a: $(call obj,$(CLI_SRCS))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# A tool NAME has NAME_SRCS and optional NAME_LIBS; sources in directory D get CFLAGS_D too
# (for example CFLAGS_renderers/tr-cat := $(call pc,--cflags,libtraceevent)).
define TOOL_template
$(B)/bin/$(1): $(call obj,$($(1)_SRCS)) $(B)/libcli.a $(MODEL_LIB) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(if $(Q),@echo "  LD      $$@")
	$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$^ $$($(1)_LIBS) $$(MODEL_LIBS) $$(ZSTD_LIBS) -lm
endef
$(foreach t,$(TOOLS),$(eval $(call TOOL_template,$(t))))

.PHONY: tools
tools: $(LIB) $(MODEL_LIB) $(addprefix $(B)/bin/,$(TOOLS))

# --- tests ---------------------------------------------------------------
# A unit test NAME has NAME_SRCS (test sources plus the modules under test)
# and optional NAME_LIBS.
CMOCKA_LIBS = $(or $(call pc,--libs,cmocka),-lcmocka)
define TEST_template
$(B)/tests/$(1): $(call obj,$($(1)_SRCS)) $(B)/libcli.a $(MODEL_LIB) $(LIB)
	@mkdir -p $$(dir $$@)
	$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$^ $$($(1)_LIBS) $$(CMOCKA_LIBS) $$(MODEL_LIBS) $$(ZSTD_LIBS) -lm
endef
$(foreach t,$(UNIT_TESTS) $(TEST_PROGS) $(BENCHES),$(eval $(call TEST_template,$(t))))

# the tests' packages installed and tracefs mounted before the tests run
test: test-deps tracefs tools $(addprefix $(B)/tests/,$(UNIT_TESTS) $(TEST_PROGS))
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin TR_TESTBIN=$(CURDIR)/$(B)/tests TR_ROOT=$(CURDIR) SAN=$(SAN) \
	  bash tests/run.sh $(UNIT_TESTS) -- $(CLI_TEST_DIRS)

# --- completions are generated from the option tables -------------------
completions: tools
	$(Q)bash completions/generate.sh $(B)/bin $(TOOLS)

# --- demo ----------------------------------------------------------------
demo: tools $(B)/tests/tr-synth
	$(Q)TR_BIN=$(CURDIR)/$(B)/bin bash bench/demo.sh

# --- install -------------------------------------------------------------
install: tools libs
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 755 $(addprefix $(B)/bin/,$(TOOLS)) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libtr.a
	install -m 755 $(SHLIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(SHLIB)) $(DESTDIR)$(PREFIX)/lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(PREFIX)/lib/libtr.so
	install -m 644 format/tr.h $(DESTDIR)$(PREFIX)/include/tr.h
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(wildcard man/*.5) $(DESTDIR)$(PREFIX)/share/man/man5/
	for t in $(TOOLS); do install -m 644 completions/tr.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t; done
	install -m 644 completions/_tr-tools $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tr-tools
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIB_VERSION)|' \
	  format/tr.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tr.pc

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
