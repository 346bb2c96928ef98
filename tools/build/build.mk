# build.mk: the top-level Makefile's goals of the build itself: make doctor, make archs, the architecture
# and format checks.
# Included by the Makefile after every variable of the course is defined.

# What this machine has of what the course uses, a line each, and what each missing piece turns off
doctor:
	@tools/build/doctor.sh $(NVCC) $(NVCC_MIN) $(COURSE_BIN)

# Every lesson and test compiled for every architecture the course serves (common.mk's
# COURSE_ARCHS, T4 to RTX 50), warnings as errors, each in its own build/sm_XX (CI runs it);
# ARCH=all builds one binary for a lab of mixed GPUs instead.
archs:
	@set -e; for a in $(NVCC_ARCHS) all; do \
	  $(MAKE) --no-print-directory -s all test-programs ARCH=$$a >/dev/null; echo "archs: $$a built, every lesson and test"; \
	done; skipped="$(filter-out $(NVCC_ARCHS),$(COURSE_ARCHS))"; \
	[ -z "$$skipped" ] || echo "archs: skipped $$skipped: this nvcc ($(NVCC), CUDA $(NVCC_VERSION)) cannot build them (a newer CUDA toolkit can)"

# A build to carry to another machine, e.g. one made by nvcc 12.4 to a GPU machine that has only
# CUDA 13: every program and test of this configuration, the tests naming the programs from the
# checkout's root (TEST_ROOT=.), packed into build/carry-CONFIG.tar.xz (tools/build/carry.sh says
# what to run there)
.PHONY: carry
carry: all test-programs
	@NVCC=$(NVCC) tools/build/carry.sh $(BUILD) build/carry-$(CONFIG).tar.xz

# The rules of docs/ARCHITECTURE.md: its folders, includes only downwards, short functions (CI)
check-architecture:
	$(call need,python3)
	@python3 tests/check-architecture.py

# clang-format (.clang-format) over every C and CUDA source; CI runs format-check
FORMAT_SRCS = $(shell git ls-files '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null)
format:
	clang-format -i $(FORMAT_SRCS)
format-check:
	@clang-format --dry-run --Werror $(FORMAT_SRCS) && echo "format-check: $(words $(FORMAT_SRCS)) files clean"
