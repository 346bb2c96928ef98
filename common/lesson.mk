# lesson.mk: what a lesson's Makefile includes (docs/LESSON_CONTRACT.md is the whole contract).
#
# A lesson's Makefile sets, then includes this file with
#     include $(dir $(lastword $(MAKEFILE_LIST)))../common/lesson.mk
#   LESSON_SRCS      its kernel file(s), e.g. shared.cu (they define the lesson's registry)
#   LESSON_PROGRAMS  optional: programs of its own, one source file each, e.g. race_demo.c
#   LESSON_TARGETS   optional: the names of make targets it adds (after the include, inside
#                    `ifdef COURSE`), listed by `make help`
#   LESSON_USES      optional: earlier lesson folders whose kernels it calls (extern "C"
#                    functions of theirs), e.g. day06_roofline: linked after its own library
#
# Included by the top-level Makefile (COURSE is set), it declares the lesson's build rules. In the
# lesson's own folder, it hands every goal to the top-level Makefile for this lesson alone:
# `make -C day04_shared test` is `make test DAY=04`, one make for the whole course.
ifdef COURSE
ifeq ($(strip $(LESSON_SRCS)),)
$(error $(L)/Makefile: set LESSON_SRCS to the lesson's kernel file(s) before including common/lesson.mk (see docs/LESSON_CONTRACT.md))
endif
$(eval $(call lesson_rules,$(L),$(LESSON_SRCS),$(LESSON_PROGRAMS),$(LESSON_TARGETS),$(LESSON_USES)))
LESSON_SRCS :=
LESSON_USES :=
LESSON_PROGRAMS :=
LESSON_TARGETS :=
else
ifeq ($(MAKELEVEL),0) # as the top-level Makefile does: one build job per core (JOBS=1: one)
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
MAKEFLAGS += -j$(JOBS)
endif
HIST_THIS_LESSON := $(lastword $(notdir $(CURDIR)))
HIST_GOALS := $(or $(MAKECMDGOALS),all)
.PHONY: $(HIST_GOALS) hist-to-top
$(HIST_GOALS): hist-to-top ; @:
hist-to-top:
	@$(MAKE) --no-print-directory -C .. $(HIST_GOALS) \
	  DAY=$(patsubst day%,%,$(firstword $(subst _, ,$(HIST_THIS_LESSON))))
endif
