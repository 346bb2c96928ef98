# results.mk: the top-level Makefile's goals of the measurements: the sweep, the charts and
# tables, ptxas, profiles, make measure.
# Included by the Makefile after every variable of the course is defined.

# The 1-D lesson's question: from what size does each GPU lesson beat the CPU? (results/sweep.csv)
sweep: $(COURSE_BIN)
	tools/results/sweep.sh ./$(COURSE_BIN) $(ARGS)

# The charts of your own runs: the newest main-preset CSV of a GPU under results/ (make run) and
# results/sweep.csv (make sweep), drawn into results/charts/. Nothing tracked is touched: the
# course's own charts are drawn from docs/data by make charts (make tables runs it).
PLOT_CSV ?= $(firstword $(filter-out results/cpu-only_%,$(shell ls -t results/*_main_uniform.csv 2>/dev/null)))
PLOT_SWEEP ?= $(firstword $(wildcard results/sweep.csv) docs/data/h100_sweep.csv)
PLOT_DIR ?= results/charts
plot:
	$(if $(PLOT_CSV),$(call need,gnuplot))
	@test -n "$(PLOT_CSV)" || { echo "make plot: no GPU results to draw yet: run make run on a machine with a GPU (results/ holds $(words $(wildcard results/*.csv)) CSV files, none of a GPU's main preset)"; exit 0; }; \
	  mkdir -p $(PLOT_DIR) && \
	  gnuplot -e "progression='$(PLOT_CSV)'; sweep='$(PLOT_SWEEP)'; outdir='$(PLOT_DIR)'" tools/results/plot.gp && \
	  echo "$(PLOT_DIR)/progression.svg|png from $(PLOT_CSV); $(PLOT_DIR)/sweep.svg|png from $(PLOT_SWEEP)"

# Every measured table and figure of the READMEs, from the data kept in docs/data (tools/results/tables.py
# says how a README marks them), the lesson table of README.md included (it lists every lesson
# folder). `make measure` on a lab GPU, then `make tables`, refreshes them all; CI runs it and
# fails if the READMEs differ from docs/data. First, tools/results/test_tables.py checks markers
# on fake data (a table whose kept file no GPU has written yet).
TABLE_PAGES = README.md docs/DAY00.md docs/RELIABILITY.md $(foreach l,$(ALL_LESSONS),$(l)/README.md) \
              $(wildcard day*/ANSWERS.md) $(wildcard day*/NOTES.md)
tables: gpus-page charts
	$(call need,python3)
	@python3 tools/results/test_tables.py
	python3 tools/results/tables.py $(TABLE_PAGES)

# The course's two charts, from the same kept data as the tables (the runs of README.md's lesson
# table: the H100's main-preset run, each lesson's rows from its own run where the table takes
# them, day 07's and day 08's; and the sweep), drawn as SVG (text: the same data and gnuplot give
# the same bytes, so CI's diff after make tables fails on a chart that no longer matches its data)
CHART_RUN = $(BUILD)/progression.csv
CHART_SWEEP = docs/data/h100_sweep.csv
charts:
	$(call need,gnuplot python3)
	@python3 tools/notes/diagrams.py
	@python3 tools/results/tables.py --chart-data README.md $(CHART_RUN)
	@gnuplot -e "progression='$(CHART_RUN)'; sweep='$(CHART_SWEEP)'; outdir='docs/images'; formats='svg'" tools/results/plot.gp
	@sed -i '/<desc>Produced by GNUPLOT/d' docs/images/progression.svg docs/images/sweep.svg
	@echo "charts: docs/images/progression.svg from the runs of README.md's lesson table ($(CHART_RUN)), docs/images/sweep.svg from $(CHART_SWEEP), the lessons' diagrams from tools/notes/diagrams.py"

# docs/GPUS.md's generated part (between its gpus-page markers): what runs where, and the plans,
# from the limits table and the registries (no GPU needed); and docs/DAY00.md's table of which
# GPU each lesson needs (between its gpus-lessons markers), from the same; make tables runs it
.PHONY: gpus-page
# $(call insert_generated,PAGE,MARKER,FILE): the lines between PAGE's <!-- MARKER --> and
# <!-- /MARKER --> replaced by FILE's
insert_generated = awk -v gen=$(3) '/^<!-- $(2) -->$$/ { print; while ((getline l < gen) > 0) print l; skip = 1; next } \
	  /^<!-- \/$(2) -->$$/ { skip = 0 } !skip' $(1) > $(1).tmp && mv $(1).tmp $(1)
gpus-page: $(GPUS_PAGE_BIN)
	@./$(GPUS_PAGE_BIN) > $(BUILD)/gpus-page.md
	@./$(GPUS_PAGE_BIN) --lessons > $(BUILD)/gpus-lessons.md
	@$(call insert_generated,docs/GPUS.md,gpus-page,$(BUILD)/gpus-page.md)
	@$(call insert_generated,docs/DAY00.md,gpus-lessons,$(BUILD)/gpus-lessons.md)
	@echo "gpus-page: docs/GPUS.md's tables and docs/DAY00.md's lesson table from $(GPUS_PAGE_BIN)"

# ptxas's report (registers, spills, barriers) for the kernels of DAY's lessons, each kernel by its
# name (c++filt, its parameters dropped); every build already fails on a register spill
# (-Xptxas -warn-spills with warnings as errors).
ptxas:
	@set -e; for src in $(filter %.cu,$(foreach l,$(LESSONS),$($(l)_SRCS))); do \
	  $(NVCC) $(NVCCFLAGS) -Xptxas -v -c "$$src" -o /dev/null 2>&1 | \
	    grep -E "Compiling|registers|spill" | sed 's/ptxas info *: //' | c++filt | \
	    sed "s/^\(Compiling entry function '[^(']*\)([^']*)'/\1'/"; done

# The same report kept for a lesson's README as docs/data/ARCH_ptxas_LESSON.txt, its first line the
# compiler, the date and the commit (make ptxas-kept DAY=05; make tables then shows it). No GPU needed.
.PHONY: ptxas-kept
ptxas-kept:
	@test -n "$(DAY)" || { echo "make ptxas-kept: say which lesson, e.g. make ptxas-kept DAY=05" >&2; exit 2; }
	@set -e; for l in $(LESSONS); do f=docs/data/$(ARCH)_ptxas_$$l.txt; \
	  { echo "# nvcc $$($(NVCC) --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p') for $(ARCH), $$(date -u +%Y-%m-%dT%H:%M:%SZ), course $$(git describe --always --dirty 2>/dev/null || echo '?'): make ptxas DAY=$(DAY_NN)"; \
	    $(MAKE) -s --no-print-directory ptxas DAY=$$l; } > $$f.tmp; mv $$f.tmp $$f; cat $$f; done

# Nsight Compute on one lesson: make profile DAY=05 [PROFILE_ARGS="--impl ..."] (the published profile's
# metrics, one table; the runner's own output, slowed by the profiler, goes to profile-run.txt)
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
profile: $(if $(DAY),$(foreach l,$(LESSONS),$($(l)_BIN)))
	@test -n "$(DAY)" || { echo "make profile: say which lesson, e.g. make profile DAY=05" >&2; exit 2; }
	@set -e; for l in $(LESSONS); do \
	  $(NCU) --clock-control none --metrics $(PROFILE_METRICS) --csv \
	    --log-file $(BUILD)/$$l/profile.csv ./$(BUILD)/$$l/$$l $(PROFILE_ARGS) \
	    > $(BUILD)/$$l/profile-run.txt; \
	  awk -f tools/results/profile.awk $(BUILD)/$$l/profile.csv | tee $(BUILD)/$$l/profile.txt; done

print-profile-metrics:
	@echo "$(PROFILE_METRICS)"

# Every measurement the READMEs quote, on this machine's GPU, kept in docs/data as TAG_* files
# (tools/results/measure.sh; MEASURE_STEPS="runs ... shapes breakdown shapes-profile" picks
# some); then `make tables` rewrites the READMEs' tables and figures from them.
MEASURE_DIR ?= docs/data
measure: all
	tools/results/measure.sh $(BUILD) $(MEASURE_DIR) "$(MEASURE_STEPS)"
