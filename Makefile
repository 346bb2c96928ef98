# The GPU histogram course. `make help` lists the targets.
#
#   make run             every lesson on the main and small-binned presets
#   make test            the harness's tests, then every lesson's tests (CMocka)
#   make test DAY=01     one lesson only (likewise run, all, clean)
#   make run ARGS="--preset small-binned --dist contention:90"
#
# Variables: ARCH=sm_90 (nvcc target), CMOCKA_ROOT=/prefix (CMocka outside /usr).

LESSONS := $(patsubst %/,%,$(sort $(dir $(wildcard day*/Makefile))))
ifdef DAY
LESSONS := $(filter day$(DAY)_%,$(LESSONS))
ifeq ($(LESSONS),)
$(error DAY=$(DAY): no lesson folder dayNN_* matches; lessons: $(patsubst %/,%,$(dir $(wildcard day*/Makefile))))
endif
endif

.PHONY: all run test help clean
all:
	@set -e; for lesson in $(LESSONS); do $(MAKE) --no-print-directory -C $$lesson all; done

run: all
	@set -e; for lesson in $(LESSONS); do $(MAKE) --no-print-directory -C $$lesson run; done

test:
	@status=0; \
	$(if $(DAY),,$(MAKE) --no-print-directory -C tests test || status=1;) \
	for lesson in $(LESSONS); do $(MAKE) --no-print-directory -C $$lesson test || status=1; done; \
	if [ $$status -ne 0 ]; then echo "make test: some tests FAILED" >&2; fi; exit $$status

help:
	@echo "make all     build every lesson (DAY=NN: one lesson)"
	@echo "make run     run every lesson on the main and small-binned presets (ARGS=\"...\" to choose)"
	@echo "make test    build and run the CMocka tests: the harness, then every lesson"
	@echo "make help    this list"
	@echo "make clean   remove every build folder"
	@echo "lessons: $(LESSONS)"
	@echo "variables: DAY=NN, ARGS=\"--preset small-binned ...\", ARCH=sm_90, CMOCKA_ROOT=/prefix"

clean:
	@for dir in common tests $(LESSONS); do rm -rf $$dir/build; done
