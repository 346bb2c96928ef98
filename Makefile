# The GPU histogram course. `make help` lists the targets.
#
#   make run             every lesson on the main and small-binned presets
#   make test            the harness's tests, then every lesson's tests (CMocka)
#   make test DAY=04     one lesson only (likewise run, all, profile, ptxas)
#   make run ARGS="--preset small-binned --dist contention:90"
#
# The whole course is this one make: each lesson's Makefile is included here (in its own folder
# it hands its goals back to this file with DAY set). docs/LESSON_CONTRACT.md is the lesson contract.
# This file builds, runs and tests; the goals of each group of tools (the results, the notes, the
# lab, the two editions, the build's own checks) are in that group's folder, tools/GROUP/GROUP.mk.
# Variables: ARCH, SANITIZE=1, CMOCKA_ROOT (common/common.mk), DAY, ARGS, REQUIRE_GPU=1,
# NCCL_ROOT and REQUIRE_NCCL=1 (day07_scale/Makefile).

COURSE := 1
define newline


endef
# one build job per core (JOBS=1 builds one file at a time): a lesson rebuilt after an edit is
# then a few seconds on a lab machine, not a minute; a make started by this one shares its jobs
ifeq ($(MAKELEVEL),0)
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
MAKEFLAGS += -j$(JOBS)
endif
include common/common.mk

# GPU_LIMITS=NAME: every program and test of this make runs as if on GPU NAME, the present GPU's
# limits capped to NAME's (common/gpu_limits.c holds the table; `make gpu-limits` prints it);
# KEEP_SMS=1 keeps the present GPU's multiprocessors (benchmarks of a plan). The name is checked
# by the program that applies it, before a test or a run (gpu-limits-check below).
ifneq ($(GPU_LIMITS),)
export HIST_GPU_LIMITS := $(GPU_LIMITS)
GPU_LIMITS_CHECK := gpu-limits-check
endif
ifeq ($(KEEP_SMS),1)
export HIST_GPU_KEEP_SMS := 1
endif

ALL_LESSONS := $(patsubst %/Makefile,%,$(sort $(wildcard day[0-9][0-9]_*/Makefile)))
ifdef DAY
# DAY=4, DAY=04, DAY=day04 and DAY=day04_shared all name day04_shared
DAY_NN := $(shell printf '%s' '$(DAY)' | sed -E 's/^day//; s/_.*$$//; s/^([0-9])$$/0\1/')
LESSONS := $(filter day$(DAY_NN)_%,$(ALL_LESSONS))
ifeq ($(LESSONS),)
$(error DAY=$(DAY) names no lesson; DAY takes a lesson's number or folder (4, 04, day04_shared) of: $(ALL_LESSONS))
endif
else
LESSONS := $(ALL_LESSONS)
endif

# ---- one lesson: what common/lesson.mk declares for the folder $(1) ----
#   $(1)/<kernel sources>  -> build/CONFIG/$(1)/lib$(1).a   its kernels and registry entries
#   common/course/lesson_main.c   -> build/CONFIG/$(1)/$(1)       the lesson's program
#   tests/test_lesson.c    -> build/CONFIG/$(1)/test_lesson the generic tests of its registry
#   $(1)/test_$(1).c       -> build/CONFIG/$(1)/test_$(1)  its own tests, if it has them
# $(5): the earlier lesson folders whose kernels it calls (LESSON_USES), linked after its own.
define lesson_rules
$(1)_ID := $(firstword $(subst _, ,$(1)))
$(1)_SRCS := $(addprefix $(1)/,$(2))
$(1)_OBJS := $(patsubst %,$(BUILD)/$(1)/%.o,$(basename $(2)))
$(1)_TARGETS := $(4)
$(1)_LIB := $(BUILD)/$(1)/lib$(1).a
$(1)_BIN := $(BUILD)/$(1)/$(1)
$(1)_PROGRAMS := $(patsubst %,$(BUILD)/$(1)/%,$(basename $(3)))
$(1)_TESTS := $(BUILD)/$(1)/test_lesson $(if $(wildcard $(1)/test_$(1).c),$(BUILD)/$(1)/test_$(1))
$(1)_DEFS := -DHIST_LESSON=$$($(1)_ID) -DHIST_LESSON_FOLDER='"$(1)"'
$(1)_USES_LIBS := $(foreach u,$(5),$(BUILD)/$(u)/lib$(u).a)
ALL_OBJS += $$($(1)_OBJS) $(patsubst %,$(BUILD)/$(1)/%.o,main test_lesson test_$(1) $(basename $(3)))

$$($(1)_LIB): $$($(1)_OBJS)
	@rm -f $$@
	$$(call quiet,AR,$$@)ar rcs $$@ $$^
	@tools/build/check-lesson.sh $(1) $$($(1)_ID) $$@

$(BUILD)/$(1)/main.o: common/course/lesson_main.c $(FLAGS_STAMP)
	@mkdir -p $$(@D)
	$$(call quiet,CC,$$<)$$(CC) $$(CFLAGS) $$($(1)_DEFS) -c $$< -o $$@

$$($(1)_BIN): $(BUILD)/$(1)/main.o $$($(1)_LIB) $$($(1)_USES_LIBS) $(LIBHIST)
	$$(call quiet,LINK,$$@)$$(NVCC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)

# (a program of several files names its other objects as prerequisites: objects link first)
$$($(1)_PROGRAMS): $(BUILD)/$(1)/%: $(BUILD)/$(1)/%.o $$($(1)_LIB) $$($(1)_USES_LIBS) $(LIBHIST)
	$$(call quiet,LINK,$$@)$$(NVCC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(filter-out %.o,$$^) \
	    $$(LDLIBS)

$(BUILD)/$(1)/test_lesson.o $(BUILD)/$(1)/test_$(1).o: CFLAGS += $(TEST_CFLAGS) $$($(1)_DEFS) \
    -DLESSON_BIN='"$$(TEST_ROOT)/$$($(1)_BIN)"'
$(BUILD)/$(1)/test_lesson.o: tests/test_lesson.c $(FLAGS_STAMP) $(TEST_ROOT_STAMP) | cmocka
	@mkdir -p $$(@D)
	$$(call quiet,CC,$$<)$$(CC) $$(CFLAGS) -c $$< -o $$@
$(BUILD)/$(1)/test_$(1).o: $(TEST_ROOT_STAMP) | cmocka

$$($(1)_TESTS): $(BUILD)/$(1)/%: $(BUILD)/$(1)/%.o $(BUILD)/tests/test_util.o $$($(1)_LIB) \
                   $$($(1)_USES_LIBS) $(LIBHIST) | $$($(1)_BIN) $$($(1)_PROGRAMS)
	$$(call quiet,LINK,$$@)$$(NVCC) $$(LDFLAGS) -o $$@ $$^ $$(CMOCKA_LIBS) $$(LDLIBS)
endef

TEST_CFLAGS := $(CMOCKA_CFLAGS) -Itests
# Where the tests find the lesson programs and tests/fuzz: this folder; TEST_ROOT=. names them
# from the folder make runs in (make carry: a build that runs from another checkout). The test
# objects are rebuilt when it changes (its stamp, like FLAGS_STAMP).
TEST_ROOT ?= $(if $(filter carry,$(MAKECMDGOALS)),.,$(CURDIR))
TEST_ROOT_STAMP := $(BUILD)/test-root.txt
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
ifneq ($(file < $(TEST_ROOT_STAMP)),$(TEST_ROOT))
$(shell mkdir -p $(BUILD))
$(file > $(TEST_ROOT_STAMP),$(TEST_ROOT))
endif
endif
$(foreach L,$(ALL_LESSONS),$(eval include $(L)/Makefile))

# ---- the course runner: every lesson's registry in one program ----

define registry_text
/* generated by the top-level Makefile from the lesson folders: do not edit */
#include "runner.h"
$(foreach l,$(ALL_LESSONS),
HIST_DECLARE_REGISTRY($($(l)_ID));)

/** @brief Every lesson folder with its registry, in lesson order. */
const hist_lesson course_lessons[] = {$(foreach l,$(ALL_LESSONS),
    {"$(l)", $($(l)_ID)_impls, &$($(l)_ID)_impl_count},)
};
/** @brief How many lessons course_lessons holds. */
const size_t course_lesson_count = $(words $(ALL_LESSONS));
endef
# rewritten at parse time, and only when the set of lessons changed
REGISTRY_C := $(BUILD)/registry.c
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
ifneq ($(file < $(REGISTRY_C)),$(registry_text))
$(shell mkdir -p $(BUILD))
$(file > $(REGISTRY_C),$(registry_text))
endif
endif

$(BUILD)/registry.o: $(REGISTRY_C) $(FLAGS_STAMP)
	$(call quiet,CC,$<)$(CC) $(CFLAGS) -c $< -o $@

# ---- the student's unwritten code: the TODO(student) blocks of the sources (tools/student/student.sh) ----
# Listed by a rule whenever a source changes (the file is rewritten only when the list does) into
# the harness library, so that the runner reports those entries as "not written yet" and the tests
# fail on them by name.
TODO_SRCS := $(wildcard $(foreach l,$(ALL_LESSONS),$(l)/*.c $(l)/*.cu $(l)/*.h $(l)/*.cuh)) \
             common/device.cuh
TODOS_C := $(BUILD)/todos.c
$(TODOS_C): $(TODO_SRCS) tools/student/todos.sh
	@tools/student/todos.sh $@ $(TODO_SRCS)
$(BUILD)/todos.o: $(TODOS_C) $(FLAGS_STAMP)
	$(call quiet,CC,$<)$(CC) $(CFLAGS) -c $< -o $@
$(LIBHIST): $(BUILD)/todos.o

# The commit every program reports (the runner's CSVs, column `commit`): COURSE_COMMIT (a copy
# whose .git does not know it, e.g. the GPU machine's), else git's, "-dirty" for uncommitted
# code. Rewritten at parse time only when it changes, so a commit relinks and rebuilds one file.
COURSE_COMMIT ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
COMMIT_C := $(BUILD)/commit.c
commit_text := /* generated by the Makefile: the commit this build was made from */$(newline)const char hist_course_commit[] = "$(COURSE_COMMIT)";
ifeq ($(filter clean help,$(MAKECMDGOALS)),)
ifneq ($(file < $(COMMIT_C)),$(commit_text))
$(shell mkdir -p $(BUILD))
$(file > $(COMMIT_C),$(commit_text))
endif
endif
$(BUILD)/commit.o: $(COMMIT_C) $(FLAGS_STAMP)
	$(call quiet,CC,$<)$(CC) $(CFLAGS) -c $< -o $@
$(LIBHIST): $(BUILD)/commit.o

LESSON_LIBS := $(foreach l,$(ALL_LESSONS),$($(l)_LIB))
COURSE_BIN := $(BUILD)/course
$(COURSE_BIN): $(BUILD)/common/course/course.o $(BUILD)/registry.o $(LESSON_LIBS) $(LIBHIST)
	$(call quiet,LINK,$@)$(NVCC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# the tables of the notes' which-GPU page (docs/GPUS.md), from every registry and the limits
GPUS_PAGE_BIN := $(BUILD)/gpus_page
$(GPUS_PAGE_BIN): $(BUILD)/common/course/gpus_page.o $(BUILD)/registry.o $(LESSON_LIBS) $(LIBHIST)
	$(call quiet,LINK,$@)$(NVCC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# ---- the harness's tests and the property test of the whole course ----

HARNESS_TESTS := $(BUILD)/tests/test_harness $(BUILD)/tests/test_gpu_harness
PROPERTY_TEST := $(BUILD)/tests/test_properties
$(BUILD)/tests/%.o: CFLAGS += $(TEST_CFLAGS) -DFUZZ_DIR='"$(TEST_ROOT)/tests/fuzz"' \
                             -DBUILD_DIR='"$(TEST_ROOT)/$(BUILD)"'
$(BUILD)/tests/test_harness.o: $(TEST_ROOT_STAMP)
$(BUILD)/tests/test_util.o $(BUILD)/tests/test_harness.o $(BUILD)/tests/test_gpu_harness.o \
$(BUILD)/tests/test_properties.o: | cmocka
$(HARNESS_TESTS): $(BUILD)/tests/%: $(BUILD)/tests/%.o $(BUILD)/tests/test_util.o $(LIBHIST)
	$(call quiet,LINK,$@)$(NVCC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)
$(PROPERTY_TEST): $(BUILD)/tests/test_properties.o $(BUILD)/tests/test_util.o $(BUILD)/registry.o \
                  $(LESSON_LIBS) $(LIBHIST)
	$(call quiet,LINK,$@)$(NVCC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

# The deliberately wrong kernels and the test that the lesson tests catch them (instructor
# edition only: the student edition has no tests/wrong/).
WRONG_TEST := $(if $(wildcard tests/wrong/wrong.h),$(BUILD)/tests/test_wrong)
WRONG_OBJS := $(if $(WRONG_TEST),$(BUILD)/tests/wrong/wrong_host.o $(BUILD)/tests/wrong/wrong_device.o)
$(BUILD)/tests/wrong/%.o: CFLAGS += -Itests/wrong
$(BUILD)/tests/wrong/%.o: NVCCFLAGS += -Itests/wrong
$(BUILD)/tests/test_wrong.o: | cmocka
$(BUILD)/tests/test_wrong: $(BUILD)/tests/test_wrong.o $(WRONG_OBJS) $(BUILD)/tests/test_util.o \
                           $(LIBHIST)
	$(call quiet,LINK,$@)$(NVCC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

ALL_OBJS += $(WRONG_OBJS) $(BUILD)/tests/test_wrong.o
ALL_OBJS += $(COMMON_OBJS) $(BUILD)/common/course/course.o $(BUILD)/common/course/gpus_page.o \
            $(patsubst %,$(BUILD)/tests/%.o,test_util test_harness test_gpu_harness test_properties)
ifndef PREBUILT
-include $(ALL_OBJS:.o=.d)
endif

# ---- the goals ----

.PHONY: doctor check-pages check-architecture archs measure print-profile-metrics tables charts answers grade student all run test help clean profile ptxas sweep sanitize plot docs fuzz format \
        format-check
.DEFAULT_GOAL := all

# build/course and build/dayNN_name name the programs of the configuration built last: every
# target that builds them (all, run, test, grade, ...) makes the links, so the README's commands
# work after any of them
LINKS := $(if $(DAY),,build/course) $(foreach l,$(LESSONS),build/$(l))
LINKED_BINS := $(if $(DAY),,$(COURSE_BIN)) $(foreach l,$(LESSONS),$($(l)_BIN))
.PHONY: links
links: $(LINKED_BINS)
	@$(if $(DAY),,ln -sfn $(CONFIG)/course build/course;) \
	  for l in $(LESSONS); do ln -sfn "$(CONFIG)/$$l/$$l" "build/$$l"; done
all: links $(foreach l,$(LESSONS),$($(l)_PROGRAMS))
	@echo "built for $(ARCH)$(if $(SANITIZE_ON), with sanitizers)$(if $(TOOLKIT_TAG), by CUDA $(NVCC_VERSION) in $(BUILD)): $(LINKS)"

RUN_PRESETS ?= main small-binned
# the course runner, or with DAY the lesson's own program
RUN_BIN := $(if $(DAY),$(foreach l,$(LESSONS),$($(l)_BIN)),$(COURSE_BIN))
# Where the results CSVs go: the whole course's own runs in results/ (make plot draws them);
# a lesson's run in results/<lesson>/, a run with ARGS in results/args/, so that neither
# replaces the course's
RUN_RESULTS := results$(if $(DAY),/$(LESSONS))$(if $(ARGS),/args)
# What make run and make test build first; with PREBUILT (common/common.mk), nothing: the
# programs are there, and their libraries are this build's own (CMocka, which make carry packs)
# and this machine's NCCL
ifdef PREBUILT
ifneq ($(filter-out test run,$(or $(MAKECMDGOALS),all)),)
$(error PREBUILT=$(PREBUILT) is for make test and make run alone (they take the carried build as it is))
endif
ifeq ($(wildcard $(BUILD)/tests/test_harness),)
$(error PREBUILT=$(PREBUILT): $(BUILD) has no built tests; unpack the carried build first (tar xJf build/carry-$(PREBUILT).tar.xz, made by make carry))
endif
BUILT_FIRST :=
PREBUILT_ENV = LD_LIBRARY_PATH="$(CURDIR)/$(BUILD)/lib$(if $(NCCL_LIBFILE),:$(patsubst %/,%,$(dir \
               $(NCCL_LIBFILE))))$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}"
else
BUILT_FIRST = links $(GPU_LIMITS_CHECK) $(1)
endif
# It ends with three lines (tools/results/run-summary.sh): what ran and was exact, what was
# skipped and why, and the tables this run wrote (those newer than its stamp).
RUN_STAMP := $(BUILD)/run-started
run: $(call BUILT_FIRST,$(RUN_BIN))
	@mkdir -p $(RUN_RESULTS); touch $(RUN_STAMP)
ifdef ARGS
	@set -e; for bin in $(RUN_BIN); do $(PREBUILT_ENV) ./$$bin --results $(RUN_RESULTS) $(ARGS); done
else
	@set -e; for bin in $(RUN_BIN); do for preset in $(RUN_PRESETS); do \
	  echo "== $${bin##*/} --preset $$preset"; $(PREBUILT_ENV) ./$$bin --results $(RUN_RESULTS) \
	    --preset $$preset; echo; \
	done; done
endif
	@find $(RUN_RESULTS) -maxdepth 1 -name '*.csv' -newer $(RUN_STAMP) | sort | \
	  tr '\n' '\0' | xargs -0 tools/results/run-summary.sh

# REQUIRE_GPU=1: a GPU test that would skip fails instead (for the lab GPU machine); SLOW=1: the
# long checks too, and the CPU's datasets at full size (CI; tests/test_util.h, test_slow())
TEST_BINS := $(if $(DAY),,$(HARNESS_TESTS)) $(foreach l,$(LESSONS),$($(l)_TESTS)) \
             $(if $(DAY),,$(PROPERTY_TEST) $(WRONG_TEST))
# Each lesson's test also writes its verdicts to $(GRADES)/<lesson>.tsv (make grade adds them up);
# a run under GPU_LIMITS keeps its verdicts and logs apart (never mixed with the real GPU's)
LIMITS_TAG := $(if $(filter-out none,$(GPU_LIMITS)),-limited-to-$(GPU_LIMITS)$(if $(filter 1,$(KEEP_SMS)),-sms-kept))
GRADES := $(BUILD)/grades$(LIMITS_TAG)
# The output: one line per lesson (and per harness test), the first failing test's own output
# (tests/run-tests.sh);
# V=1 prints everything CMocka says, and every program's output is kept in build/CONFIG/test-logs.
test: $(call BUILT_FIRST,$(TEST_BINS))
	@mkdir -p $(GRADES); $(PREBUILT_ENV) HIST_GRADES=$(GRADES) HIST_REQUIRE_GPU=$(filter 1,$(REQUIRE_GPU)) \
	  HIST_SLOW=$(filter 1,$(SLOW)) tests/run-tests.sh $(BUILD)/test-logs$(LIMITS_TAG) $(TEST_BINS)

# The whole course's grade: make test for every lesson (failures included), then one table of
# points per lesson from the verdicts (tools/student/grade.sh says how points are given).
grade: links $(GPU_LIMITS_CHECK) $(foreach l,$(LESSONS),$($(l)_TESTS))
	@mkdir -p $(GRADES); rm -f $(GRADES)/*.tsv; for t in $(filter-out links gpu-limits-check,$^); do \
	  HIST_GRADES=$(GRADES) HIST_REQUIRE_GPU=$(filter 1,$(REQUIRE_GPU)) ./$$t >/dev/null 2>&1 || :; \
	done; HIST_ALL_LESSONS="$(ALL_LESSONS)" tools/student/grade.sh $(foreach l,$(LESSONS),$(GRADES)/$(l).tsv)
	@$(if $(filter day06_roofline,$(LESSONS)),$(MAKE) --no-print-directory test-submission | tail -n 1)

# the smallest program that shows NCCL's own handled sanitizer reports (tests/sanitize/nccl_init.cu;
# make sanitize runs it first), built where NCCL is found
NCCL_INIT := $(if $(NCCL_FOUND),$(BUILD)/tests/sanitize/nccl_init)
$(BUILD)/tests/sanitize/nccl_init.o: NVCCFLAGS += $(NCCL_FLAGS)
$(BUILD)/tests/sanitize/nccl_init: $(BUILD)/tests/sanitize/nccl_init.o
	$(call quiet,LINK,$@)$(NVCC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
ALL_OBJS += $(if $(NCCL_INIT),$(BUILD)/tests/sanitize/nccl_init.o)
.PHONY: archs test-programs
test-programs: $(TEST_BINS) $(NCCL_INIT)
# The goals of each group of the course's tools, in that group's folder
include tools/build/build.mk tools/results/results.mk tools/notes/notes.mk tools/lab/lab.mk \
        tools/student/student.mk

# The student edition (make student) has no tools/student/instructor-only.txt: its make help
# starts with where to begin and lists only the goals that work there (not student, answers,
# measure, tables or the NAME-kept goals, which make and keep the instructor edition's data)
STUDENT_EDITION := $(if $(wildcard tools/student/instructor-only.txt),,1)
# a lesson's own goals as make help lists them: in the student edition, not those that keep data
# for the instructor edition's pages (NAME-kept)
shown_goals = $(if $(STUDENT_EDITION),$(filter-out %-kept,$($(1)_TARGETS)),$($(1)_TARGETS))
help:
ifdef STUDENT_EDITION
	@printf '%s\n' "Start here: read docs/DAY00.md (what the course assumes, which GPU each lesson needs)," \
	  "then make doctor (what this machine has), then make test DAY=01: your first task, which" \
	  "day01_cpu/README.md describes (\"Your task\"). The goals:" ""
endif
	@printf '%-14s %s\n' \
	  "make doctor" "what this machine has of what the course uses, a line each, and what to install" \
	  "make all" "build every lesson and the course runner (build/course, build/dayNN_name)" \
	  "make run" "every implementation of every lesson, main and small-binned presets" \
	  "" "(ARGS=\"--preset small-binned --dist constant\" to choose; results in results/)" \
	  "make test" "the CMocka tests: the harness, every lesson, the property test" \
	  "" "(REQUIRE_GPU=1: a skipped GPU test fails; SANITIZE=1: ASan and UBSan;" \
	  "" "SLOW=1: the long checks too, at full size, as CI runs them)" \
	  "make grade" "make test for every lesson, then one table of points per lesson" \
	  "make docs" "the notes: Doxygen HTML in docs/html" \
	  "make plot" "charts of your newest GPU results, in results/charts (gnuplot)" \
	  "make sweep" "small-binned at growing sizes: where each GPU lesson overtakes the CPU" \
	  "make profile" "Nsight Compute table of one lesson's kernels (DAY=05)" \
	  "make ptxas" "registers and shared memory of the kernels (DAY=06 for one lesson)" \
	  "make sanitize" "compute-sanitizer (memcheck, racecheck, initcheck, synccheck) on every GPU kernel" \
	  "make fuzz" "libFuzzer on the .npy reader and the command line, FUZZ_SECONDS each" \
	  $(if $(STUDENT_EDITION),,"make fuzz-kept" "the same, its summary kept in docs/data for docs/RELIABILITY.md" \
	  "make measure" "every measurement the READMEs quote, kept in docs/data (on a lab GPU)" \
	  "make tables" "every measured table and figure of the READMEs, from docs/data") \
	  "make format" "clang-format every C and CUDA source (format-check: CI's check)" \
	  "make archs" "compile every lesson and test for sm_75 ... sm_120 (ARCH=all: one fat binary)" \
	  "make carry" "every program and test in build/carry-CONFIG.tar.xz, for a GPU machine without" \
	  "" "this toolkit (there: make test PREBUILT=CONFIG; tools/build/README.md)" \
	  "make check-architecture" "" \
	  "" "the rules of docs/ARCHITECTURE.md (folders, includes, function size)" \
	  "make check-pages" "" \
	  "" "the pages: links, images shown, above/below, each lesson's length" \
	  $(if $(STUDENT_EDITION),,"make student" "the student edition in STUDENT_DIR (default: next to this folder)" \
	  "make answers" "measure every exercise (instructor edition; docs/answers/data)") \
	  "make clean" "remove every build folder"
	@echo "lessons (DAY=4, DAY=04 or DAY=day04_shared): $(ALL_LESSONS)"
	@$(foreach l,$(ALL_LESSONS),$(if $(strip $(call shown_goals,$(l))),printf '  %-22s adds: %s\n' "$(l)" "$(strip $(call shown_goals,$(l)))";)) :
	@echo "variables: DAY=NN, ARGS=\"...\", ARCH=$(ARCH) (from the GPU present, else sm_90; all: every"
	@echo "           architecture in one binary), JOBS=N (build jobs; default one per core),"
	@echo "           SANITIZE=1, REQUIRE_GPU=1, SLOW=1, CMOCKA_ROOT=/prefix, NCCL_ROOT=/prefix, REQUIRE_NCCL=1,"
	@echo "           PREBUILT=CONFIG (make test and run on a carried build, building nothing),"
	@echo "           GPU_LIMITS=NAME (run as if on NAME: make gpu-limits lists them), KEEP_SMS=1"

# The GPUs GPU_LIMITS can name, as the programs know them; and the check that a test or a run
# under GPU_LIMITS=NAME makes first (the course runner refuses an unknown name in one line)
.PHONY: gpu-limits gpu-limits-check
gpu-limits: $(COURSE_BIN)
	@./$< --gpu-limits list
gpu-limits-check: $(COURSE_BIN)
	@./$< --list > /dev/null

clean:
	rm -rf build
