# notes.mk: the top-level Makefile's goals of the notes: make check-pages and make docs.
# Included by the Makefile after every variable of the course is defined.

# The instructors' notes: Doxygen HTML in docs/html (warnings fail the build, an undocumented
# parameter included); every lesson folder is an input, with pages made here in build/docs: the
# Lessons page, the Exercises page and one results page per GPU with kept data (DATA_TAGS).
DATA_TAGS := $(sort $(patsubst docs/data/%_main_uniform.csv,%,$(wildcard docs/data/*_main_uniform.csv)))
# What a reader would trip over (tools/notes/check_pages.py): links and page names that resolve,
# every file, page and section a page names there (in the student edition too), every image
# shown, "above"/"below" that point the right way, each lesson's length; and every make command
# a page shows, dry-run (tools/notes/check_commands.py).
# KNOWN_PROBLEMS=FILE: the problems FILE lists are printed as known, not counted; a line of it
# that matches no problem is one (default: tools/notes/known-pages.txt, instructor edition only;
# tests/student-check.sh names tools/notes/known-student-pages.txt for the student edition).
PAGES = README.md docs/*.md tools/README.md tools/*/README.md $(foreach l,$(ALL_LESSONS),$(wildcard $(l)/*.md))
KNOWN_PROBLEMS ?= $(wildcard tools/notes/known-pages.txt)
KNOWN_OPTION = $(if $(KNOWN_PROBLEMS),--known "$(KNOWN_PROBLEMS)")
check-pages:
	@status=0; python3 tools/notes/check_pages.py $(KNOWN_OPTION) $(PAGES) || status=1; \
	  python3 tools/notes/check_commands.py $(KNOWN_OPTION) $(PAGES) || status=1; exit $$status

# Every command a page shows, tried after a build: the make commands dry-run, each ./build/
# program with --help (its options and --impl names among those it lists). CI runs it, and
# tests/student-check.sh in the student edition.
.PHONY: check-commands
check-commands: all
	@python3 tools/notes/check_commands.py $(KNOWN_OPTION) --programs $(PAGES)

docs: check-pages
	$(call need,doxygen python3)
	@tools/notes/check-refs.sh README.md docs/*.md tools/README.md $(foreach l,$(ALL_LESSONS),$(wildcard $(l)/*.md))
	rm -rf docs/html build/docs
	tools/notes/exercises-page.sh build/docs/EXERCISES.md $(ALL_LESSONS)
	@set -e; for tag in $(DATA_TAGS); do python3 tools/results/tables.py --results-page $$tag build/docs/RESULTS_$$tag.md; done
	tools/notes/lessons-page.sh build/docs/LESSONS.md "$(DATA_TAGS)" $(ALL_LESSONS)
	@# Doxygen cannot resolve the READMEs' links to each other under a path with a space: there,
	@# it runs on a copy of its inputs in a folder without one, and the HTML is moved back
	@set -e; inputs="README.md docs common tests tools $(ALL_LESSONS)"; dir=.; \
	  case "$(CURDIR)" in *" "*) dir=$$(mktemp -d); cp -r $$inputs "$$dir/"; rm -rf "$$dir/docs/html"; \
	    mkdir -p "$$dir/build"; cp -r build/docs "$$dir/build/";; esac; \
	  echo "doxygen docs/Doxyfile (INPUT: README.md docs/*.md build/docs/*.md common tests $(ALL_LESSONS))"; \
	  (cd "$$dir" && { cat docs/Doxyfile; \
	    echo "INPUT = README.md build/docs/LESSONS.md docs/DAY00.md build/docs/EXERCISES.md $$(ls build/docs/RESULTS_*.md 2>/dev/null | tr '\n' ' ') docs/SOURCES.md docs/GPUS.md docs/RELIABILITY.md docs/ARCHITECTURE.md docs/LESSON_CONTRACT.md tools/README.md $$(ls tools/*/README.md | tr "\n" " ") common tests $(ALL_LESSONS)"; } | doxygen -); \
	  if [ "$$dir" != . ]; then mv "$$dir/docs/html" docs/html; rm -rf "$$dir"; fi
	@# the lessons' figures: the READMEs name them from their folder (../docs/images/)
	cp docs/images/*.svg docs/html/ && sed -i 's|src="\.\./docs/images/|src="|g' docs/html/*.html
	@# previous / next links and the links to the lesson's code on the lesson pages, a link back
	@# to the lesson on its code pages; links to sources and data files made to work, then every
	@# link and anchor checked
	tools/notes/docs-nav.sh docs/html $(ALL_LESSONS)
	tools/notes/docs-links.sh docs/html
	@echo "open docs/html/index.html (print a lesson page for its printable form)"
