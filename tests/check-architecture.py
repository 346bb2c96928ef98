#!/usr/bin/env python3
"""check-architecture.py: the checks of docs/ARCHITECTURE.md (`make check-architecture`; CI).

1. Folders: every folder the page's folder table names exists, and every top-level folder of the
   repository (tracked, not hidden) is named there.
2. Arrows run one way: a C or CUDA file includes only headers of its own layer or a lower one
   (the layer table below, which the page shows).
3. Short functions: no function in common/ longer than 80 lines, none in a lesson folder longer
   than 100, except the seed's kernel that day 05 keeps as it was written.
4. One command line: no C or CUDA file in common/ or a lesson folder reads `argv` itself
   (indexes it past argv[0], calls getopt, atoi, atof, or sscanf/strto* on it) except
   common/cli.c; programs parse with hist_program_options() (common/options.h).
5. No hidden state in the harness: no `static` variable in common/ that can change (a pointer to
   const included), except the few listed in STATE_ALLOWED with the reason each must be one.

One line per finding and exit status 1, or one summary line and 0.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PAGE = "docs/ARCHITECTURE.md"

# layer -> (rank, the layers it may include); a file's layer comes from layer_of()
LAYERS = {
    "problem": (0, {"problem"}),
    "harness": (1, {"problem", "harness"}),
    "runner": (2, {"problem", "harness", "runner"}),
    "programs": (3, {"problem", "harness", "runner"}),
    "lessons": (3, {"problem", "harness", "tests"}),  # a lesson's own tests use tests/test_util.h
    "tests": (4, {"problem", "harness", "runner", "tests"}),
}
RUNNER = {"runner.c", "runner.h", "report.c", "report.h"}
LIMITS = {"common": 80, "lessons": 100}
SEED_KERNEL = ("day05_optimized_h100/optimized.cu", "histogram_optimized_kernel")
ARGV_READERS = {"common/cli.c"}
# (file, variable) -> why it must be mutable static state
STATE_ALLOWED = {
    ("common/outfile.c", "pending"): "a signal handler can reach only globals",
    ("common/outfile.c", "handlers_installed"): "the handlers are installed once per process",
    ("common/status.c", "last_error"): "per thread, as errno is (hist_last_error())",
    ("common/impl.c", "message"): "per thread, as hist_last_error()'s message is",
}


def tracked():
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode == 0 and out.stdout:
        return [f for f in out.stdout.split("\n") if f]
    found = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        top = os.path.samefile(dirpath, ROOT)
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and
                       not (top and d in ("build", "results"))]
        found += [os.path.relpath(os.path.join(dirpath, f), ROOT) for f in filenames]
    return found


def layer_of(path):
    parts = path.split("/")
    if parts[0] == "common":
        if path == "common/hist.h":
            return "problem"
        if parts[1] == "course":
            return "programs"
        return "runner" if parts[-1] in RUNNER else "harness"
    if re.match(r"day[0-9][0-9]_", parts[0]):
        return "lessons"
    if parts[0] == "tests":
        return "tests"
    return None


def check_folders(files, findings):
    text = open(os.path.join(ROOT, PAGE)).read()
    section = text.split("## Folders", 1)[1].split("\n## ", 1)[0] if "## Folders" in text else ""
    named = set(re.findall(r"^\| `([^`]+)/`", section, re.M))
    if not named:
        findings.append(f"{PAGE}: no folder table under '## Folders'")
    for folder in sorted(named):
        if not os.path.isdir(os.path.join(ROOT, folder.replace("*", "").rstrip("_"))) and \
                not any(f.startswith(folder.split("*")[0]) for f in files):
            findings.append(f"{PAGE}: names `{folder}/`, which does not exist")
    top = {f.split("/")[0] for f in files if "/" in f and not f.startswith(".")}
    for folder in sorted(top):
        if not any(folder == n or (n.endswith("*") and folder.startswith(n[:-1])) for n in named):
            findings.append(f"{PAGE}: the folder `{folder}/` is not named in its folder table")
    return len(named)


def resolve(includer, name, present):
    """The repository path an #include "name" of @includer names: its own folder first, then
    the folders the build puts on the path (common/, tests/, tests/wrong/), or None."""
    for folder in (os.path.dirname(includer), "common", "tests", "tests/wrong"):
        path = os.path.normpath(os.path.join(folder, name))
        if path in present:
            return path
    return None


def check_includes(files, findings):
    present = set(files)
    arrows = 0
    for f in files:
        if not f.endswith((".c", ".h", ".cu", ".cuh")) or layer_of(f) is None:
            continue
        mine = layer_of(f)
        for n, line in enumerate(open(os.path.join(ROOT, f), errors="replace"), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            target = resolve(f, m.group(1), present)
            if target is None:
                continue  # generated by the build (none is included by name today)
            arrows += 1
            theirs = layer_of(target)
            if mine == "lessons" and theirs == "lessons":
                if target.split("/")[0] != f.split("/")[0]:
                    findings.append(f"{f}:{n}: includes {target}, another lesson's file; call its "
                                    "extern \"C\" functions (LESSON_USES) instead")
            elif theirs not in LAYERS[mine][1]:
                findings.append(f"{f}:{n}: includes {m.group(1)} ({theirs}); the {mine} layer "
                                f"may include only {', '.join(sorted(LAYERS[mine][1]))}")
    return arrows


def functions(path):
    """(name, first line, length in lines) of each function defined at the top level of a C or
    CUDA file: from the line that opens its body to the one that closes it."""
    lines = open(os.path.join(ROOT, path), errors="replace").read().split("\n")
    depth, start, name, signature = 0, None, None, ""
    in_comment = False
    for i, raw in enumerate(lines):
        line = re.sub(r'"(\\.|[^"\\])*"', '""', raw)
        line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
        if in_comment:
            if "*/" not in line:
                continue
            line, in_comment = line.split("*/", 1)[1], False
        line = re.sub(r"/\*.*?\*/", "", line)
        if "/*" in line:
            line, in_comment = line.split("/*", 1)[0], True
        line = line.split("//", 1)[0]
        if line.lstrip().startswith("#"):
            continue  # a preprocessor line is no part of a signature
        if depth == 0:
            line_sig = re.sub(r"__launch_bounds__\s*\([^)]*\)", "", line)
            signature = (signature + " " + line_sig)[-400:] if line.strip() else signature
        for ch in line:
            if ch == "{":
                if depth == 0:
                    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\([^;{}]*\)[^;{}()]*$",
                                  signature.split("{")[0] if "{" in signature else signature)
                    name = m.group(1) if m else None
                    start = i
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0 and name and name not in ("if", "for", "while", "switch"):
                    yield name, start + 1, i - start + 1
                if depth == 0:
                    name, signature = None, ""
        if depth == 0 and line.strip().endswith((";", "}")):
            signature = ""


def check_lengths(files, findings):
    count = 0
    for f in files:
        if not f.endswith((".c", ".cu", ".h", ".cuh")):
            continue
        kind = "common" if f.startswith("common/") else \
            "lessons" if re.match(r"day[0-9][0-9]_", f) else None
        if kind is None:
            continue
        for name, line, length in functions(f):
            count += 1
            if length > LIMITS[kind] and (f, name) != SEED_KERNEL:
                findings.append(f"{f}:{line}: {name}() is {length} lines; at most {LIMITS[kind]} "
                                f"in {'common/' if kind == 'common' else 'a lesson'}: split it "
                                "into named steps")
    return count


def code_lines(path):
    """(line number, text) of a C or CUDA file with comments and string literals blanked."""
    text = open(os.path.join(ROOT, path), errors="replace").read()
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    for n, line in enumerate(text.split("\n"), 1):
        line = re.sub(r'"(\\.|[^"\\])*"', '""', line.split("//", 1)[0])
        yield n, line


def check_argv(files, findings):
    """Rule 4: argv read outside common/cli.c."""
    reads = re.compile(r"\bargv\s*\[\s*(?!0\s*\]|\])|\bgetopt\w*\s*\(|\bato[if]\s*\(|"
                       r"\b(sscanf|strto\w+)\s*\(\s*argv")
    count = 0
    for f in files:
        if not f.endswith((".c", ".cu")) or f in ARGV_READERS or "/test_" in f:
            continue
        if not (f.startswith("common/") or re.match(r"day[0-9][0-9]_", f)):
            continue
        count += 1
        for n, line in code_lines(f):
            if reads.search(line):
                findings.append(f"{f}:{n}: reads the command line itself; parse with "
                                "hist_program_options() (common/options.h) instead")
    return count


def check_state(files, findings):
    """Rule 5: static variables in common/ that can change."""
    decl = re.compile(r"^\s*static\s+([^=;(]*?)\b([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*(=|;)")
    for f in files:
        if not f.startswith("common/") or not f.endswith((".c", ".cu", ".h", ".cuh")):
            continue
        for n, line in code_lines(f):
            m = decl.match(line)
            if not m or "(" in line.split("=")[0]:
                continue
            kind, name = m.group(1), m.group(2)
            fixed = re.search(r"\*\s*const\s*$", kind) if "*" in kind else \
                re.search(r"\bconst(expr)?\b", kind)
            if not fixed and (f, name) not in STATE_ALLOWED:
                findings.append(f"{f}:{n}: static '{name}' can change: state hidden in the "
                                "harness; pass it as a value (a struct the caller holds)")


def main():
    files = tracked()
    findings = []
    folders = check_folders(files, findings)
    arrows = check_includes(files, findings)
    count = check_lengths(files, findings)
    readers = check_argv(files, findings)
    check_state(files, findings)
    for f in findings:
        print(f"check-architecture: {f}", file=sys.stderr)
    if findings:
        return 1
    print(f"check-architecture: {folders} folders as {PAGE} names them; {arrows} includes, none "
          f"upward; {count} functions, none too long; {readers} files, none reading argv; no "
          "hidden state in common/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
