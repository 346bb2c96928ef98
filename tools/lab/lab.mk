# lab.mk: the top-level Makefile's goals of the lab: the fuzzers and the sanitizer.
# Included by the Makefile after every variable of the course is defined.

# libFuzzer for FUZZ_SECONDS each on the .npy reader (tests/fuzz_npy.c; crashes are kept in
# tests/fuzz/regressions/, which test_harness replays on every make test) and on the command line
# (tests/fuzz_cli.c: every refusal one line and exit status 2). CI runs both for a short time.
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -Icommon
fuzz:
	$(call need,fuzzer)
	@mkdir -p build/fuzz-corpus build/fuzz-cli-corpus
	clang $(FUZZ_FLAGS) tests/fuzz_npy.c common/npy.c common/data.c common/parallel.c \
	  common/outfile.c common/status.c -lpthread -o build/fuzz_npy
	clang $(FUZZ_FLAGS) tests/fuzz_cli.c common/cli.c common/data.c common/parallel.c \
	  common/outfile.c common/status.c common/gpu_limits.c -lpthread -o build/fuzz_cli
	./build/fuzz_npy -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	  -artifact_prefix=tests/fuzz/regressions/ build/fuzz-corpus tests/fuzz/seeds
	./build/fuzz_cli -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	  -artifact_prefix=build/fuzz-cli- build/fuzz-cli-corpus tests/fuzz/cli-seeds

# make fuzz, its runs' summaries kept for docs/RELIABILITY.md as docs/data/$(FUZZ_TAG)_fuzz.txt
# (FUZZ_TAG names the machine; default dev-Ncore), its first line the CPU, the date and the commit
FUZZ_TAG ?= dev-$(shell nproc)core
.PHONY: fuzz-kept
fuzz-kept:
	@set -e; f=docs/data/$(FUZZ_TAG)_fuzz.txt; \
	{ echo "# $$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1) ($$(nproc) cores), $$(date -u +%Y-%m-%dT%H:%M:%SZ), course $$(git describe --always --dirty 2>/dev/null || echo '?'): make fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)"; \
	  $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) 2>&1 | \
	    grep -E "^(\./build/fuzz|Done [0-9]+ runs|stat::(number_of_executed_units|peak_rss_mb|new_units_added)|==[0-9]+==ERROR|SUMMARY)"; } \
	  > $$f.tmp; mv $$f.tmp $$f; cat $$f

# compute-sanitizer's four tools over every GPU implementation (needs a GPU), after the smallest
# program that shows NCCL's own handled reports (NCCL_INIT above)
sanitize: $(COURSE_BIN) $(NCCL_INIT)
	tools/lab/sanitize.sh ./$(COURSE_BIN) $(NCCL_INIT)
