#!/usr/bin/env python3
"""check-architecture.py: the checks of docs/ARCHITECTURE.md (`make check-architecture`; CI).

1. Folders: every folder the page's folder table names exists, and every top-level folder of the
   repository (tracked, not hidden) is named there.
2. Arrows run one way: a C or CUDA file includes only headers of its own layer or a lower one
   (the layer table below, which the page shows). A lesson includes another lesson's files only
   where they are headers (.h, .cuh) of a lesson its Makefile names in LESSON_USES.
3. Short functions: no function in common/ longer than 80 lines, none in a lesson folder longer
   than 100, except the seed's kernel that day 05 keeps as it was written.
4. One command line: no C or CUDA file in common/ or a lesson folder reads `argv` itself
   (indexes it past argv[0], calls getopt, atoi, atof, or sscanf/strto* on it) except
   common/cli.c; programs parse with hist_program_options() (common/options.h).
5. No hidden state in the harness: no `static` variable in common/ that can change (a pointer to
   const included), except the few listed in STATE_ALLOWED with the reason each must be one.
6. Headers are headers (every C and CUDA file of common/, the lessons and tests/): no file
   includes a source file (.c, .cu); every #include comes before the file's first declaration
   (comments, blank lines and preprocessor lines may come before it); local includes form no
   cycle; every .h and .cuh compiles alone, a .h as C11 with gcc (it is a C header: a C file may
   include it; the CUDA toolkit's include folder is on the path, as for any C program that calls
   the CUDA runtime's C API), a .cuh as CUDA C++ with nvcc, one job per core.
7. No hidden state in a lesson: no `static` variable in a lesson's file (its test_*.c aside) can
   change, except a function's `static char NAME[N]` text that a registry entry's plan or
   unsupported returns (directly or as the result of the function it returns), and the variables
   docs/LESSON_CONTRACT.md lists in its table under "State a lesson keeps" (file, variable, why),
   which this check reads (a row naming no such static is a finding too); and no variable that
   can change is defined at file scope without `static` in common/ or a lesson (a global a test
   or a program could set; `__shared__` memory, which lives for one block, aside).
8. One launch path: no lesson launches a kernel itself (`<<<`, cudaLaunchKernel,
   cudaLaunchCooperativeKernel, cudaLaunchKernelEx): it calls common/device.cuh's hist_launch,
   hist_launch_args, hist_launch_cluster or hist_launch_cluster_args.

One line per finding, then one line counting them, and exit status 1; or one summary line and 0.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PAGE = "docs/ARCHITECTURE.md"
CONTRACT = "docs/LESSON_CONTRACT.md"
STATE_SECTION = "## State a lesson keeps"  # the contract's table of a lesson's allowed statics
SOURCES = (".c", ".h", ".cu", ".cuh")
HEADERS = (".h", ".cuh")
INCLUDED_SOURCES = (".c", ".cu", ".cc", ".cpp", ".cxx")
LAUNCHES = re.compile(r"<<<|\bcudaLaunch(Kernel|CooperativeKernel|KernelEx)\w*\s*\(")

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


def lesson_of(path):
    """The lesson folder @path is in, or None."""
    m = re.match(r"(day[0-9][0-9]_[^/]+)/", path)
    return m.group(1) if m else None


def resolve(includer, name, present):
    """The repository path an #include "name" of @includer names: its own folder first, then
    the folders the build puts on the path (common/, tests/, tests/wrong/), then the
    repository's root, or None."""
    for folder in (os.path.dirname(includer), "common", "tests", "tests/wrong", ""):
        path = os.path.normpath(os.path.join(folder, name))
        if path in present:
            return path
    return None


def uncommented(path):
    """The lines of a C or CUDA file with its comments blanked (string literals kept)."""
    text = open(os.path.join(ROOT, path), errors="replace").read()
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0)) if m.group(0)[0] == "/" else m.group(0)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', blank,
                  text, flags=re.S)
    return text.split("\n")


def includes_of(path):
    """(line, name, quoted, first code line before it or None) of each #include of a file."""
    found, first_code, continued = [], None, False
    for n, line in enumerate(uncommented(path), 1):
        s = line.strip()
        if continued:  # a preprocessor line continued with a backslash
            continued = s.endswith("\\")
            continue
        if not s:
            continue
        if s.startswith("#"):
            continued = s.endswith("\\")
            m = re.match(r'#\s*include\s*([<"])([^>"]+)[>"]', s)
            if m:
                found.append((n, m.group(2), m.group(1) == '"', first_code))
            continue
        if first_code is None:
            first_code = n
    return found


def lesson_uses(files):
    """lesson folder -> the set of lesson folders its Makefile names in LESSON_USES."""
    uses = {}
    for f in files:
        lesson = lesson_of(f)
        if not lesson or f != f"{lesson}/Makefile":
            continue
        text = open(os.path.join(ROOT, f), errors="replace").read().replace("\\\n", " ")
        for m in re.finditer(r"^\s*LESSON_USES\s*[:+]?=([^\n#]*)", text, re.M):
            uses.setdefault(lesson, set()).update(m.group(1).split())
    return uses


def check_includes(files, findings):
    """Rules 2 and 6 (but the headers' compilation): arrows, sources included, includes
    part-way; returns the count of local includes and the graph of them."""
    present = set(files)
    uses = lesson_uses(files)
    arrows, graph = 0, {}
    for f in files:
        if not f.endswith(SOURCES) or layer_of(f) is None:
            continue
        mine = layer_of(f)
        for n, name, quoted, first_code in includes_of(f):
            if name.endswith(INCLUDED_SOURCES):
                findings.append(f"{f}:{n}: includes {name}, a source file; a file includes "
                                "headers only: put what it shares in a header (.h for C, .cuh for "
                                "CUDA) and include that, or link the source's object")
            if first_code is not None:
                findings.append(f"{f}:{n}: includes {name} part-way, after its first "
                                f"declaration (line {first_code}); move every #include to the "
                                "top of the file, before any declaration")
            target = resolve(f, name, present) if quoted else None
            if target is None:
                continue  # a system header, or generated by the build (none is, by name, today)
            arrows += 1
            graph.setdefault(f, []).append((n, target))
            theirs = layer_of(target)
            if mine == "lessons" and theirs == "lessons":
                lesson, other = lesson_of(f), lesson_of(target)
                if other != lesson and not (target.endswith(HEADERS) and
                                            other in uses.get(lesson, ())):
                    findings.append(f"{f}:{n}: includes {target}, another lesson's file; a lesson "
                                    "includes only headers of lessons its Makefile names in "
                                    f"LESSON_USES: name {other} there ({lesson}/Makefile) and "
                                    "include its .h or .cuh, or call its extern \"C\" functions")
            elif theirs not in LAYERS[mine][1]:
                findings.append(f"{f}:{n}: includes {name} ({theirs}); the {mine} layer "
                                f"may include only {', '.join(sorted(LAYERS[mine][1]))}")
    return arrows, graph


def check_cycles(graph, findings):
    """Rule 6: no cycle of local includes (one line per cycle, at its first include)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def connect(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for _, w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            components.append(component)

    for v in sorted(graph):
        if v not in index:
            connect(v)
    cycles = 0
    for component in components:
        members = set(component)
        start = min(component)
        if len(component) == 1 and start not in [w for _, w in graph.get(start, ())]:
            continue
        # the shortest way round from start back to start, within the component
        ways, queue, first = {start: [start]}, [start], None
        while queue and first is None:
            v = queue.pop(0)
            for n, w in graph.get(v, ()):
                if w == start:
                    first = ways[v] + [start]
                    break
                if w in members and w not in ways:
                    ways[w] = ways[v] + [w]
                    queue.append(w)
        line = next(n for n, w in graph[start] if w == first[1])
        cycles += 1
        findings.append(f"{start}:{line}: a cycle of includes: {' -> '.join(first)}; break it: "
                        "move what they share into a header that includes none of them")
    return cycles


def toolkit():
    """nvcc (NVCC, else on the PATH) and the CUDA toolkit's include folder, or (None, None)."""
    nvcc = shutil.which(os.environ.get("NVCC", "nvcc"))
    if nvcc is None:
        return None, None
    return nvcc, os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(nvcc)), "..",
                                               "include"))


def first_error(header, output):
    """(line in @header, message) of the first error a compiler printed."""
    for line in output.split("\n"):
        m = re.match(r"(.*?)(?::(\d+):\d+:|\((\d+)\):) (?:fatal |catastrophic )?error: (.*)", line)
        if m:
            where, n = m.group(1), m.group(2) or m.group(3)
            if os.path.normpath(where) == os.path.join(ROOT, header):
                return n, m.group(4).strip()
            shown = os.path.relpath(where, ROOT) if os.path.isabs(where) else where
            return "1", f"{m.group(4).strip()} (in {shown}:{n})"
    lines = [l for l in output.split("\n") if l.strip()]
    return "1", lines[0].strip() if lines else "failed"


def compile_alone(header, nvcc, cuda_include, scratch, k):
    """Compile @header in a translation unit that includes only it; (header, None) or (header,
    (line, message, compiler))."""
    folder = os.path.dirname(header) or "."
    unit = os.path.join(scratch, f"unit{k}" + (".cu" if header.endswith(".cuh") else ".c"))
    with open(unit, "w") as out:
        out.write(f'#include "{os.path.join(ROOT, header)}"\n')
    if header.endswith(".cuh"):
        cmd = [nvcc, "-std=c++17", "-arch=sm_90", "-Icommon", f"-I{folder}", "-c", unit, "-o",
               os.path.join(scratch, f"unit{k}.o")]
    else:
        cmd = ["gcc", "-std=c11", "-fsyntax-only", "-Icommon", f"-I{folder}", "-isystem",
               cuda_include, unit]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if run.returncode == 0:
        return header, None
    line, message = first_error(header, run.stdout + run.stderr)
    return header, (line, message, "nvcc" if header.endswith(".cuh") else "gcc as C11")


def check_headers(files, findings):
    """Rule 6: every .h and .cuh of common/, the lessons and tests/ compiles alone, in parallel;
    returns (headers, .cuh among them, seconds, jobs)."""
    headers = sorted((f for f in files if f.endswith(HEADERS) and layer_of(f) is not None),
                     key=lambda f: (not f.endswith(".cuh"), f))  # nvcc's first: the slow ones
    nvcc, cuda_include = toolkit()
    if nvcc is None:
        findings.append("nvcc: not found (NVCC, PATH), so no header was compiled alone; put the "
                        "CUDA toolkit's bin/ on the PATH")
        return len(headers), 0, 0.0, 0
    try:
        jobs = len(os.sched_getaffinity(0))
    except AttributeError:
        jobs = os.cpu_count() or 1
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = dict(pool.map(lambda job: compile_alone(job[1], nvcc, cuda_include, scratch,
                                                           job[0]), enumerate(headers)))
    for h in sorted(results):
        if results[h] is None:
            continue
        line, message, compiler = results[h]
        advice = "include what it uses (its own includes), and declare what it calls"
        if h.endswith(".h"):
            advice += "; a .h is a C header: one that only CUDA code can include is a .cuh"
        findings.append(f"{h}:{line}: does not compile alone ({compiler}): {message}; {advice}")
    cuh = sum(1 for h in headers if h.endswith(".cuh"))
    return len(headers), cuh, time.monotonic() - began, jobs


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


STATIC_DECL = re.compile(r"^\s*(?:__\w+__\s+)*static\s+([^=;(]*?)\b([A-Za-z_]\w*)\s*"
                         r"((\[[^\]]*\]\s*)*)(=|;)")


def mutable_statics(path):
    """(line, name, declared type, array brackets) of each static variable of a file that can
    change (a pointer to const included; __shared__ memory, which lives for one block, left
    out)."""
    for n, line in code_lines(path):
        m = STATIC_DECL.match(line)
        if not m or "(" in line.split("=")[0]:
            continue
        kind, name = m.group(1), m.group(2)
        fixed = re.search(r"\*\s*const\s*$", kind) if "*" in kind else \
            re.search(r"\bconst(expr)?\b", kind)
        if not fixed and "__shared__" not in kind:
            yield n, name, kind.strip(), m.group(3).strip()


GLOBAL_DECL = re.compile(r"^\s*(?:__\w+__\s+)*(?!(?:static|extern|typedef|using|return|template|"
                         r"namespace|struct|enum|union|class|friend|goto)\b)"
                         r"([A-Za-z_][\w:<>,\s*&]*?[\s*&])([A-Za-z_]\w*)\s*((\[[^\]]*\]\s*)*)(=|;)")


def file_scope_lines(path):
    """(line, text) of each line of a C or CUDA file that starts outside every brace (a
    definition at file scope), comments and strings blanked."""
    depth = 0
    for n, line in code_lines(path):
        if depth == 0:
            yield n, line
        line = re.sub(r"'(\\.|[^'\\])'", "''", line)  # a character literal '{' is no brace
        depth += line.count("{") - line.count("}")


def mutable_globals(path):
    """(line, name) of each variable a file defines at file scope without `static` that can
    change: a global other files (a test, a program) can set, hidden state as much as a static."""
    for n, line in file_scope_lines(path):
        if line.lstrip().startswith("#") or "(" in line.split("=")[0]:
            continue
        m = GLOBAL_DECL.match(line)
        if not m:
            continue
        kind = m.group(1)
        fixed = re.search(r"\*\s*const\s*$", kind) if "*" in kind else \
            re.search(r"\bconst(expr)?\b", kind)
        if not fixed and "__shared__" not in line:  # shared memory lives for one block
            yield n, m.group(2)


def check_globals(files, findings):
    """Rule 7, its other half: no mutable variable at file scope without `static` in common/ or
    a lesson (tests aside): what a test or a program sets there, every later call sees."""
    for f in files:
        if not (f.startswith("common/") or lesson_of(f)) or not f.endswith(SOURCES) or \
                os.path.basename(f).startswith("test_"):
            continue
        for n, name in mutable_globals(f):
            findings.append(f"{f}:{n}: global '{name}' can change: state every later call sees "
                            "(a test or a program could set it); pass it as a value (an argument, "
                            "hist_args' caps, a struct the caller holds)")


def check_state(files, findings):
    """Rule 5: static variables in common/ that can change."""
    for f in files:
        if not f.startswith("common/") or not f.endswith(SOURCES):
            continue
        for n, name, _, _ in mutable_statics(f):
            if (f, name) not in STATE_ALLOWED:
                findings.append(f"{f}:{n}: static '{name}' can change: state hidden in the "
                                "harness; pass it as a value (a struct the caller holds)")


def kept_state(findings):
    """The contract's table of the statics a lesson keeps: {(file, variable): why}."""
    text = open(os.path.join(ROOT, CONTRACT)).read()
    if STATE_SECTION not in text:
        findings.append(f"{CONTRACT}: no table under '{STATE_SECTION}' (file, variable, why)")
        return {}
    section = text.split(STATE_SECTION, 1)[1].split("\n## ", 1)[0]
    return {(m.group(1), m.group(2)): m.group(3).strip() for m in
            re.finditer(r"^\| `([^`]+)` \| `([^`]+)` \| (.+?) \|\s*$", section, re.M)}


def registry_texts(lesson_files):
    """The functions of a lesson whose text a registry entry shows: those its entries name as
    `plan` or `unsupported`, and those whose result such a function returns."""
    named, returns = set(), {}
    for f in lesson_files:
        lines = dict(code_lines(f))
        for line in lines.values():
            named.update(m.group(2) for m in
                         re.finditer(r"\.(plan|unsupported)\s*=\s*([A-Za-z_]\w*)", line))
        for name, first, length in functions(f):
            body = " ".join(lines.get(k, "") for k in range(first, first + length))
            returns.setdefault(name, set()).update(
                re.findall(r"\breturn\s+([A-Za-z_]\w*)\s*(?:<[^;()]*>)?\s*\(", body))
    texts, todo = set(), list(named)
    while todo:
        name = todo.pop()
        if name not in texts:
            texts.add(name)
            todo += returns.get(name, ())
    return texts


def check_lesson_state(files, findings):
    """Rule 7: static variables in a lesson's files that can change; returns how many are kept
    (the contract's table)."""
    allowed = kept_state(findings)
    seen = set()
    by_lesson = {}
    for f in files:
        if lesson_of(f) and f.endswith(SOURCES) and not os.path.basename(f).startswith("test_"):
            by_lesson.setdefault(lesson_of(f), []).append(f)
    for lesson, lesson_files in sorted(by_lesson.items()):
        texts = registry_texts(lesson_files)
        for f in lesson_files:
            lines = dict(code_lines(f))
            spans = [(name, first, first + length - 1) for name, first, length in functions(f)]
            for n, name, kind, brackets in mutable_statics(f):
                if (f, name) in allowed:
                    seen.add((f, name))
                    continue
                owner, a, b = next((s for s in spans if s[1] <= n <= s[2]), (None, 0, -1))
                body = " ".join(lines.get(k, "") for k in range(a, b + 1))
                if kind == "char" and brackets and owner in texts and \
                        re.search(rf"\breturn\s+{name}\s*;", body):
                    continue  # an entry's plan or unsupported text (the contract's rule)
                text = " (a static text buffer only where a registry entry's plan or unsupported " \
                    "returns it)" if kind == "char" and brackets else ""
                findings.append(f"{f}:{n}: static '{name}' can change: state hidden in the lesson"
                                f"{text}; pass it as a value (an argument, a struct the caller "
                                "holds, the workspace), or list it with its reason in "
                                f"{CONTRACT} ('{STATE_SECTION[3:]}')")
    for f, name in sorted(set(allowed) - seen):
        findings.append(f"{CONTRACT}: its table of kept state lists '{name}' of {f}, which "
                        "holds no such static; remove the row")
    return len(allowed)


def check_launches(files, findings):
    """Rule 8: a kernel launched in a lesson other than through common/device.cuh's helpers."""
    for f in files:
        if not lesson_of(f) or not f.endswith(SOURCES):
            continue
        for n, line in code_lines(f):
            if LAUNCHES.search(line):
                findings.append(f"{f}:{n}: launches a kernel itself; launch through "
                                "hist_launch(), hist_launch_args(), hist_launch_cluster() or "
                                "hist_launch_cluster_args() (common/device.cuh)")


def main():
    files = tracked()
    findings = []
    folders = check_folders(files, findings)
    arrows, graph = check_includes(files, findings)
    check_cycles(graph, findings)
    headers, cuh, seconds, jobs = check_headers(files, findings)
    count = check_lengths(files, findings)
    readers = check_argv(files, findings)
    check_state(files, findings)
    check_globals(files, findings)
    kept = check_lesson_state(files, findings)
    check_launches(files, findings)
    for f in findings:
        print(f"check-architecture: {f}", file=sys.stderr)
    if findings:
        print(f"check-architecture: {len(findings)} finding{'s' * (len(findings) > 1)} ({headers} "
              f"headers compiled alone in {seconds:.1f} s on {jobs} jobs)", file=sys.stderr)
        return 1
    print(f"check-architecture: {folders} folders as {PAGE} names them; {arrows} includes, none "
          f"upward, part-way, of a source or in a cycle; {headers} headers compile alone "
          f"({headers - cuh} .h as C11, {cuh} .cuh with nvcc: {seconds:.1f} s on {jobs} "
          f"jobs); {count} functions, none too long; {readers} files, none reading argv; no "
          f"hidden state in common/, none in the lessons but {kept} listed in {CONTRACT}; no "
          "kernel launched but through hist_launch*")
    return 0


if __name__ == "__main__":
    sys.exit(main())
