# common.mk: the toolchain, the build configuration and the harness library. Included by the
# top-level Makefile only: the whole course is one make (no recursion), so `make -jN` never builds
# a file twice. All paths are relative to the repository root, so a clone in a path with spaces
# builds too.
#
# Configuration: ARCH (nvcc target; default: the GPU that is present, else sm_90; `all`: every
# architecture of COURSE_ARCHS in one binary), SANITIZE=1
# (host code under ASan and UBSan), OPT, CMOCKA_ROOT. Every configuration builds in its own folder,
# build/$(CONFIG)/ (e.g. build/sm_90, build/sm_80-san), and every object there also depends on a
# stamp of the exact flags, so no object is ever linked with objects made by other flags.

CC := gcc
NVCC ?= nvcc

ifndef ARCH
ARCH := $(or $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | \
          head -n 1 | sed -n 's/^ *\([0-9][0-9]*\)\.\([0-9]\) *$$/sm_\1\2/p'),sm_90)
endif
# Every architecture the course serves, T4 (sm_75) to RTX 50 (sm_120): `make archs` builds each,
# and ARCH=all builds one fat binary with machine code for each and PTX for the newest.
COURSE_ARCHS := sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120
comma := ,
# The architectures this nvcc can build (an older toolkit knows fewer: make archs names the rest)
NVCC_ARCHS = $(filter $(COURSE_ARCHS),$(patsubst compute_%,sm_%,$(shell $(NVCC) --list-gpu-arch 2>/dev/null)))
ifeq ($(ARCH),all)
ALL_ARCHS := $(NVCC_ARCHS)
NEWEST_CC := $(patsubst sm_%,%,$(lastword $(ALL_ARCHS)))
ARCH_FLAGS := $(foreach a,$(patsubst sm_%,%,$(ALL_ARCHS)),-gencode=arch=compute_$(a)$(comma)code=sm_$(a)) \
              -gencode=arch=compute_$(NEWEST_CC)$(comma)code=compute_$(NEWEST_CC)
else ifeq ($(shell echo '$(ARCH)' | grep -Ex 'sm_[0-9]+a?'),)
$(error ARCH=$(ARCH): expected an nvcc GPU target such as sm_80 or sm_90, or all)
else
ARCH_FLAGS := -arch=$(ARCH)
endif
OPT ?= -O2

# The toolkit's release (13.0, 12.4; empty where there is no nvcc). A CUDA 12 toolkit builds into
# a folder of its own (build/sm_90-cuda12.4), so that its objects and programs never mix with those
# of the CUDA 13 build beside it; a change of toolkit within a folder rebuilds (the flags stamp).
NVCC_VERSION := $(shell tools/build/check-toolkit.sh $(NVCC))
TOOLKIT_TAG := $(if $(filter 12.%,$(NVCC_VERSION)),-cuda$(NVCC_VERSION))
SANITIZE_ON := $(filter 1,$(SANITIZE))
CONFIG := $(ARCH)$(if $(SANITIZE_ON),-san)$(TOOLKIT_TAG)
# PREBUILT=CONFIG: make test and make run take the programs and tests already in build/CONFIG and
# build nothing: a build made elsewhere and carried here (make carry, tools/build/README.md), e.g.
# one made by nvcc 12.4 and run on a GPU machine that has only CUDA 13
ifdef PREBUILT
CONFIG := $(PREBUILT)
endif
BUILD := build/$(CONFIG)

CFLAGS := -std=c11 $(OPT) -g -Wall -Wextra -Werror -Icommon -MMD -MP
# designated initializers (registry entries, option tables) leave the fields they do not name zero,
# as in C: g++ would warn about each one it leaves out
NVCCFLAGS := -std=c++17 -O3 -g -lineinfo $(ARCH_FLAGS) -Icommon \
             -Xcompiler -Wall,-Wextra,-Wno-missing-field-initializers \
             -Xptxas -warn-spills -Werror all-warnings -MMD -MP
LDFLAGS := $(ARCH_FLAGS)
LDLIBS := -lpthread -lm

# SANITIZE=1: host code and tests with AddressSanitizer and UndefinedBehaviorSanitizer
ifneq ($(SANITIZE_ON),)
SAN_FLAGS := -fsanitize=address -fsanitize=undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined
CFLAGS += $(SAN_FLAGS)
NVCCFLAGS += $(foreach flag,$(SAN_FLAGS),-Xcompiler $(flag))
LDFLAGS += $(foreach flag,$(SAN_FLAGS),-Xcompiler $(flag))
# the CUDA driver maps memory where ASan keeps its shadow gap; an impossible allocation must
# return NULL (the program then exits 3), not abort
export ASAN_OPTIONS ?= protect_shadow_gap=0:detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS ?= print_stacktrace=1
endif

ifdef CMOCKA_ROOT
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
CMOCKA_LIBDIR := $(firstword $(wildcard $(CMOCKA_ROOT)/lib/$(MULTIARCH) $(CMOCKA_ROOT)/lib))
CMOCKA_CFLAGS := -I$(CMOCKA_ROOT)/include
CMOCKA_LIBS := -L$(CMOCKA_LIBDIR) -Xlinker -rpath=$(CMOCKA_LIBDIR) -lcmocka
else
CMOCKA_CFLAGS :=
CMOCKA_LIBS := -lcmocka
endif

# ---- the flags stamp: rewritten (at parse time, before any job starts) only when they change ----

FLAGS_STAMP := $(BUILD)/flags.txt
FLAGS_TEXT := $(CC) $(CFLAGS) | $(NVCC) $(NVCC_VERSION) $(NVCCFLAGS) | $(LDFLAGS) $(LDLIBS) | $(CMOCKA_CFLAGS)
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
ifneq ($(file < $(FLAGS_STAMP)),$(FLAGS_TEXT))
$(shell mkdir -p $(BUILD))
$(file > $(FLAGS_STAMP),$(FLAGS_TEXT))
endif
endif

# ---- what a build step prints: one short line (CC file, NVCC file, LINK program), or with V=1
#      the whole command; the compilers' warnings and errors are shown whole either way ----

ifeq ($(V),1)
quiet =
else
quiet = @printf '  %-5s %s\n' '$(1)' '$(2)';
endif

# ---- the toolkit: the oldest CUDA the course builds with (README.md, "Prerequisites"); checked
#      once per make, before the first object, and make stops with one line if it is older ----

NVCC_MIN := 12.4
.PHONY: toolkit
toolkit:
	$(eval toolkit_error := $(shell tools/build/check-toolkit.sh $(NVCC) $(NVCC_MIN)))$(if \
	  $(toolkit_error),$(error $(toolkit_error)))

# ---- how every object is made: build/CONFIG/path/name.o from path/name.c or .cu ----

$(BUILD)/%.o: %.c $(FLAGS_STAMP) | toolkit
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cu $(FLAGS_STAMP) | toolkit
	@mkdir -p $(@D)
	$(call quiet,NVCC,$<)$(NVCC) $(NVCCFLAGS) -c $< -o $@

# ---- the harness library ----

COMMON_OBJS := $(patsubst %,$(BUILD)/%.o,$(basename $(wildcard common/*.c common/*.cu)))
LIBHIST := $(BUILD)/common/libhist.a

$(LIBHIST): $(COMMON_OBJS)
	@rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

# ---- dependencies a fresh machine may lack ----

# $(call need,DEP ...) in a recipe: ensure-deps.sh installs what is missing (as root, with apt-get,
# after a line on the terminal that says what and why) or make stops with its one line (what is
# missing, and the commands that bring it offline); CMOCKA_ROOT, where set, is looked in only
need = $(eval need_error := $(shell $(if $(CMOCKA_ROOT),CMOCKA_ROOT='$(CMOCKA_ROOT)') \
       tools/build/ensure-deps.sh $(1) 3>&2 2>&1 >/dev/null))$(if $(need_error),$(error $(need_error)))

# CMocka, for the tests: the goals that build them look for it once, before any job starts, so
# that a machine without it (and without a way to install it), or a CMOCKA_ROOT without it, ends
# with the one line and nothing after it; another build of a test object looks when it gets there
# (the order-only `cmocka`). (PREBUILT: the tests are built, and carry their CMocka with them.)
ifndef PREBUILT
ifneq ($(filter test grade test-programs carry,$(MAKECMDGOALS)),)
$(call need,cmocka)
CMOCKA_CHECKED := 1
endif
endif
.PHONY: cmocka
cmocka:
	$(if $(CMOCKA_CHECKED),,$(call need,cmocka))
