#!/usr/bin/env python3
"""leaks.py INSTRUCTOR_DIR STUDENT_DIR: does the student edition give away a solution?

For every `// SOLUTION` region of the instructor edition's sources, its code lines (comments, blank
lines and lines of punctuation alone left out; white space folded) are looked for in every text
file of the student edition: a run of RUN consecutive solution lines that stands, in the same
order, anywhere in the student's files (a sibling kernel, a README's code, an answer) is a leak.
A line of a file counts once, however many runs cover it.

Known runs that are no answer (a loop header every kernel of the lesson has) are listed in
tools/student/leaks-allowed.txt, one normalised line each, with the reason; they are skipped.
`make student` writes the student edition; tests/student-check.sh runs this on it (CI).
One line per leak and exit status 1, or a summary line and 0.
"""
import os
import re
import sys

RUN = 3
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = (".c", ".h", ".cu", ".cuh")
TEXT = SOURCES + (".md", ".py", ".sh", ".txt", ".csv")


def normalise(line):
    """A line as compared: no comment, white space folded; '' when nothing is left to give away."""
    line = re.sub(r"//.*$", "", line)
    line = re.sub(r"/\*.*?\*/", "", line)
    line = " ".join(line.split())
    if not re.search(r"[A-Za-z0-9]", line) or line.startswith(("#include", "*", "/*")):
        return ""
    return line


def regions(root):
    """(file, function, [normalised code lines]) of every SOLUTION region under @root."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in ("build", "results")]
        for name in filenames:
            if not name.endswith(SOURCES):
                continue
            path = os.path.join(dirpath, name)
            inside, code, function = False, [], ""
            for line in open(path, errors="replace"):
                m = re.match(r"\s*// SOLUTION (\w+)", line)
                if m:
                    inside, code, function = True, [], m.group(1)
                elif "// END SOLUTION" in line:
                    inside = False
                    found.append((os.path.relpath(path, root), function, code))
                elif inside and not re.match(r"\s*//", line):
                    n = normalise(line)
                    if n:
                        code.append(n)
    return found


def student_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in ("build", "results")]
        for name in filenames:
            if name.endswith(TEXT) or name == "Makefile":
                yield os.path.join(dirpath, name)


def allowed():
    lines = set()
    path = os.path.join(HERE, "leaks-allowed.txt")
    for raw in open(path) if os.path.exists(path) else []:
        raw = raw.rstrip("\n")
        if raw and not raw.startswith("#"):
            lines.add(normalise(raw.split(" #", 1)[0]))
    return lines


def main(argv):
    if len(argv) != 2:
        print("usage: leaks.py INSTRUCTOR_DIR STUDENT_DIR", file=sys.stderr)
        return 2
    instructor, student = argv
    ok = allowed()
    runs = {}  # a run of RUN solution lines -> (file, function)
    total = 0
    for path, function, code in regions(instructor):
        total += len(code)
        for i in range(len(code) - RUN + 1):
            run = tuple(code[i:i + RUN])
            if not all(line in ok for line in run):
                runs.setdefault(run, (path, function))
    leaks = {}
    for path in student_files(student):
        lines = [normalise(line) for line in open(path, errors="replace")]
        lines = [line for line in lines if line]
        for i in range(len(lines) - RUN + 1):
            hit = runs.get(tuple(lines[i:i + RUN]))
            if hit:
                key = (os.path.relpath(path, student), hit)
                leaks.setdefault(key, set()).update(lines[i:i + RUN])
    for (where, (src, function)), shown in sorted(leaks.items()):
        print(f"leaks: {where} gives away {len(shown)} line(s) of the solution of {function} "
              f"({src}), e.g. '{sorted(shown)[0]}'", file=sys.stderr)
    if leaks:
        return 1
    print(f"leaks: none: no {RUN} consecutive lines of the {total} solution lines stand anywhere "
          "in the student edition")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
