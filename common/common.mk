# common.mk: the make rules every lesson shares.
#
# A lesson's Makefile sets LESSON (its folder name) and LESSON_SRCS (its .c and .cu files, main.c
# among them), then includes this file. It gets:
#   make            build build/$(LESSON)
#   make run        run it on the presets (ARGS="..." to pass options instead)
#   make test       build and run tests/test_$(LESSON).c with CMocka
#   make clean      remove build/
#
# Variables: ARCH=sm_90 (nvcc target), CMOCKA_ROOT=/prefix (CMocka outside /usr, e.g. unpacked
# .deb files on an offline machine), ARGS="--reps 5 ...", PRESETS="main small-binned".

.DEFAULT_GOAL := all

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
COMMON := $(ROOT)/common
TESTS := $(ROOT)/tests

CC := gcc
NVCC ?= nvcc
ARCH ?= sm_90
OPT ?= -O2

CFLAGS := -std=c11 $(OPT) -g -Wall -Wextra -Werror -I$(COMMON) -MMD -MP
NVCCFLAGS := -std=c++17 -O3 -g -lineinfo -arch=$(ARCH) -I$(COMMON) -Xcompiler -Wall,-Wextra \
             -Werror all-warnings -MMD -MP
LDFLAGS := -arch=$(ARCH)
LDLIBS := -lpthread -lm

# SANITIZE=1: host code and tests with AddressSanitizer and UndefinedBehaviorSanitizer, built in
# build-san/ folders so that they never mix with normal objects
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address -fsanitize=undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined
CFLAGS += $(SAN_FLAGS)
NVCCFLAGS += $(foreach flag,$(SAN_FLAGS),-Xcompiler $(flag))
LDFLAGS += $(foreach flag,$(SAN_FLAGS),-Xcompiler $(flag))
BUILD_SUFFIX := -san
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

# ---- the harness library ----

COMMON_BUILD := $(COMMON)/build$(BUILD_SUFFIX)
COMMON_C := $(wildcard $(COMMON)/*.c)
COMMON_CU := $(wildcard $(COMMON)/*.cu)
COMMON_OBJS := $(patsubst $(COMMON)/%.c,$(COMMON_BUILD)/%.o,$(COMMON_C)) \
               $(patsubst $(COMMON)/%.cu,$(COMMON_BUILD)/%.o,$(COMMON_CU))
LIBHIST := $(COMMON_BUILD)/libhist.a

$(COMMON_BUILD)/%.o: $(COMMON)/%.c | $(COMMON_BUILD)
	$(CC) $(CFLAGS) -c $< -o $@

$(COMMON_BUILD)/%.o: $(COMMON)/%.cu | $(COMMON_BUILD)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(LIBHIST): $(COMMON_OBJS)
	ar rcs $@ $^

$(COMMON_BUILD):
	mkdir -p $@

-include $(COMMON_OBJS:.o=.d)

# ---- the lesson ----

ifdef LESSON
BUILD := build$(BUILD_SUFFIX)
LESSON_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(filter %.c,$(LESSON_SRCS))) \
               $(patsubst %.cu,$(BUILD)/%.o,$(filter %.cu,$(LESSON_SRCS)))
KERNEL_OBJS := $(filter-out $(BUILD)/main.o,$(LESSON_OBJS))
BIN := $(BUILD)/$(LESSON)
LESSON_LIB := $(BUILD)/lib$(LESSON).a
TEST_SRC := $(TESTS)/test_$(LESSON).c
TEST_BIN := $(BUILD)/test_$(LESSON)
PRESETS ?= main small-binned

.PHONY: all run test clean
all: $(BIN) $(LESSON_LIB)

# the lesson's kernels and registry, for the course runner that links every lesson
$(LESSON_LIB): $(KERNEL_OBJS)
	ar rcs $@ $^

$(BUILD)/%.o: %.c | $(BUILD)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cu | $(BUILD)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(BUILD):
	mkdir -p $@

$(BIN): $(LESSON_OBJS) $(LIBHIST)
	$(NVCC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

run: $(BIN)
ifdef ARGS
	./$(BIN) $(ARGS)
else
	@set -e; for preset in $(PRESETS); do echo "== $(LESSON) --preset $$preset"; \
	  ./$(BIN) --preset $$preset; echo; done
endif

test: $(TEST_BIN)
	./$(TEST_BIN)

$(TEST_BIN): $(TEST_SRC) $(TESTS)/test_util.c $(KERNEL_OBJS) $(LIBHIST) | cmocka $(BIN)
	$(CC) $(CFLAGS) $(CMOCKA_CFLAGS) -I. -I$(TESTS) -DLESSON_BIN='"$(abspath $(BIN))"' \
	  -c $(TEST_SRC) -o $(BUILD)/test_$(LESSON).o
	$(CC) $(CFLAGS) $(CMOCKA_CFLAGS) -I$(TESTS) -c $(TESTS)/test_util.c -o $(BUILD)/test_util.o
	$(NVCC) $(LDFLAGS) -o $@ $(BUILD)/test_$(LESSON).o $(BUILD)/test_util.o $(KERNEL_OBJS) \
	  $(LIBHIST) $(CMOCKA_LIBS) $(LDLIBS)

# Nsight Compute on one call of the implementations (seed 004's metrics), as one table (the
# runner's own output, with its times slowed by the profiler, goes to $(BUILD)/profile-run.txt).
NCU ?= ncu
PROFILE_ARGS ?= --reps 1 --warmup 0
PROFILE_METRICS := gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,$\
  sm__instruction_throughput.avg.pct_of_peak_sustained_active,$\
  l1tex__throughput.avg.pct_of_peak_sustained_active,$\
  lts__throughput.avg.pct_of_peak_sustained_elapsed,$\
  gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,$\
  lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,$\
  smsp__sass_inst_executed_op_shared_atom.sum,$\
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,$\
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
.PHONY: profile
profile: $(BIN)
	$(NCU) --clock-control none --metrics $(PROFILE_METRICS) --csv \
	  --log-file $(BUILD)/profile.csv ./$(BIN) $(PROFILE_ARGS) > $(BUILD)/profile-run.txt
	@awk -f $(COMMON)/profile.awk $(BUILD)/profile.csv | tee $(BUILD)/profile.txt

clean:
	rm -rf $(BUILD)

-include $(LESSON_OBJS:.o=.d)
endif

# ---- dependencies a fresh machine may lack ----

.PHONY: cmocka
cmocka:
ifndef CMOCKA_ROOT
	@$(COMMON)/ensure-deps.sh cmocka
endif
