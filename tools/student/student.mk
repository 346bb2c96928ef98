# student.mk: the top-level Makefile's goals of the two editions: make student and make answers.
# Included by the Makefile after every variable of the course is defined.

# The student edition (tools/student/student.sh): every SOLUTION region of the sources replaced by a
# TODO block, the answer keys and other instructor-only files left out; made from one commit
# (STUDENT_COMMIT=rev, default HEAD), never from uncommitted files.
STUDENT_DIR ?= $(abspath $(CURDIR)/../$(notdir $(CURDIR))-student)
student:
	@test -f tools/student/student.sh || { echo "make student: this is the student edition already" >&2; exit 2; }
	@STUDENT_COMMIT="$(STUDENT_COMMIT)" tools/student/student.sh "$(STUDENT_DIR)"

# Every exercise measured on this machine (instructor edition: tools/answers/exercises.py writes
# docs/answers/data/, which the lessons' ANSWERS.md quote). EXERCISES=day04 for some only.
answers:
	@test -f tools/answers/exercises.py || { echo "make answers: the instructor edition only" >&2; exit 2; }
	python3 tools/answers/exercises.py $(EXERCISES)
