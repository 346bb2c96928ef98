"""check_commands.py [--programs] PAGE.md...: every command a page shows a reader, tried (make
check-pages runs the make commands; make check-commands, which CI and tests/student-check.sh run
after a build, runs both kinds).

A command is a line of a shell code block, or a span of inline code, that starts with `make` or
`./build/` (a line of a block may chain several with `&&`, `||`, `;` or `|`; a kept output, a
table that `make tables` writes, is not a command):

  - `make ARGS`: `make -n ARGS` (a dry run) must succeed, as typed, from the repository's root
    (`make -C day04_shared run` included), and must not be a goal that this edition refuses (a
    recipe that starts with `test -f FILE ||`, where FILE is not here: `make answers` in the
    student edition). A dry run still runs a recipe's lines that call $(MAKE), redirections
    included, so the dry runs run in a copy of the repository (its build outputs left out);
  - `./build/PROGRAM OPTIONS` (--programs): the program must exist after `make all` (a path
    `build/sm_90/...` is read in the configuration built last, the one `build/course` names), and
    `PROGRAM --help` must succeed; each `--option` shown must be one its help names, and each
    implementation named by `--impl` one its `--list` names.

A placeholder is filled in first (`DAY=NN` is `DAY=01`); a command that is only a pattern (`make X`)
is left out. Exit status 1, with one line per problem: the page, the line, the command, what failed.
`--known FILE` first: as in check_pages.py, the problems FILE lists are known, not counted."""
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from check_pages import apply_known, known_problems

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FENCE = re.compile(r"^\s*(```|~~~)\s*(\w*)")
SHELL_FENCES = ("", "sh", "bash", "shell", "console")
TABLE_BEGIN = re.compile(r"^<!-- table ")
TABLE_END = "<!-- /table -->"
INLINE = re.compile(r"`((?:make|\./build/)[^`]*)`")
# a placeholder of a pattern, not a command: `make X`, `make X DAY=04`, `dayNN_name`
PATTERN = re.compile(r"^[A-Z]$|NN|\.\.\.")
# a guard that refuses a goal where a file is missing (tools/student/student.mk)
GUARD = re.compile(r"\btest -f (\S+) \|\|")
SEPARATORS = ("&&", "||", ";", "|", "&")


def split_commands(line):
    """The simple commands of one shell line: word lists, split at && || ; | (quotes kept whole)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        words = list(lexer)
    except ValueError:  # an unclosed quote: a line the reader would not type alone
        return []
    out, cur = [], []
    for w in words:
        if w in SEPARATORS:
            out.append(cur)
            cur = []
        else:
            cur.append(w)
    return [c for c in out + [cur] if c]


def commands(page):
    """(line number, the command as shown, its words) for every make or ./build/ command."""
    found, fenced, shell, in_table, heredoc, pending = [], False, False, False, None, ""
    for n, line in enumerate(open(page, encoding="utf-8").read().split("\n"), 1):
        if TABLE_BEGIN.match(line):
            in_table = True
        if in_table:
            in_table = line.strip() != TABLE_END
            continue
        m = FENCE.match(line)
        if m:
            fenced, shell = not fenced, m.group(2) in SHELL_FENCES
            continue
        if fenced:
            if not shell:
                continue
            if heredoc:
                heredoc = None if line.strip() == heredoc else heredoc
                continue
            h = re.search(r"<<-?\s*'?\"?(\w+)", line)
            if h:
                heredoc = h.group(1)
                line = line[:h.start()]
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            line, pending = pending + line, ""
            spans = [line]
        else:
            spans = [s for m in INLINE.finditer(line) for s in re.split(r",? then ", m.group(1))]
        for span in spans:
            for words in split_commands(span):
                if words[0] == "make" or words[0].startswith("./build/"):
                    found.append((n, " ".join(words), words))
    return found


def filled(words):
    """The command with its placeholders filled, or None when it is only a pattern."""
    out = []
    for w in words:
        w = re.sub(r"^DAY=NN$", "DAY=01", w)
        if PATTERN.search(w):
            return None
        out.append(w)
    return out


def clean_env():
    """The environment of a reader at a shell: none of the make that runs this check."""
    return {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


# Refusals that say a step a page shows just before the command was not taken here: the offline
# CMocka unpacked into CMOCKA_ROOT, a carried build unpacked for PREBUILT. The command is right;
# its dry run stops at the check that it names that step (which is what a reader who skipped it
# should see).
STEP_BEFORE = (re.compile(r"CMOCKA_ROOT=\S+ has no include/cmocka\.h"),
               re.compile(r"PREBUILT=\S+: \S+ has no built tests; unpack the carried build first"))


def try_make(words, copy):
    r = subprocess.run(["make", "-n", "--no-print-directory", *words[1:]], cwd=copy,
                       env=clean_env(), capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        why = (r.stderr.strip().split("\n") or ["?"])[-1]
        if any(p.search(why) for p in STEP_BEFORE):
            return None
        return f"`make -n` fails: {why}"
    for f in GUARD.findall(r.stdout):
        if not os.path.exists(os.path.join(copy, f)):
            return f"a goal this edition refuses (its recipe needs {f}, which this edition does not have)"
    return None


def config_dir():
    """The configuration built last: where build/course points (build/sm_90/course)."""
    link = os.path.join(ROOT, "build", "course")
    return os.path.dirname(os.readlink(link)) if os.path.islink(link) else None


def try_program(words, cache):
    path = words[0]
    real = os.path.join(ROOT, path)
    config = config_dir()
    if not os.path.exists(real) and config and re.match(r"\./build/sm_[\w-]+/", path):
        real = os.path.join(ROOT, re.sub(r"^\./build/sm_[\w-]+/", f"build/{config}/", path))
    if not os.path.isfile(real) or not os.access(real, os.X_OK):
        parts = path.split("/")
        program = next(("/".join(parts[:k]) for k in range(2, len(parts))
                        if os.path.isfile(os.path.join(ROOT, *parts[:k]))), None)
        why = f"Not a directory ({program} is the program)" if program else "no such program"
        return f"{path}: {why} after `make all`"
    if real not in cache:
        h = subprocess.run([real, "--help"], capture_output=True, text=True, timeout=60)
        lst = subprocess.run([real, "--list"], capture_output=True, text=True, timeout=60)
        cache[real] = (h.returncode, h.stdout + h.stderr, lst.stdout if lst.returncode == 0 else None)
    rc, help_text, listed = cache[real]
    if rc != 0:
        return f"`{path} --help` exits with status {rc}"
    problems = []
    for k, w in enumerate(words[1:], 1):
        if not w.startswith("--"):
            continue
        opt = w.split("=")[0]
        if not re.search(re.escape(opt) + r"\b", help_text):
            problems.append(f"its --help has no option {opt}")
        if opt == "--impl" and listed is not None and k + 1 < len(words):
            for impl in words[k + 1].split(","):
                if not re.search(r"(?<!\w)" + re.escape(impl) + r"(?!\w)", listed):
                    problems.append(f"its --list has no implementation {impl}")
    return "; ".join(problems) or None


def main(argv):
    known, argv = known_problems(argv)
    programs = argv[:1] == ["--programs"]
    pages = argv[1:] if programs else argv
    if known and not programs:  # the programs' known problems are not looked for
        known = [k for k in known if not re.match(r"check-commands: [^:]+: `\./build/", k)]
    todo = {}  # the command's words -> every (page, line, as shown)
    for page in pages:
        rel = os.path.relpath(os.path.abspath(page), ROOT)
        for n, shown, words in commands(page):
            w = filled(words)
            if w is not None and (w[0] == "make" or programs):
                todo.setdefault(tuple(w), []).append((rel, n, shown))
    cache, results = {}, {}
    makes = [w for w in todo if w[0] == "make"]
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "course")
        shutil.copytree(ROOT, copy, symlinks=True, ignore=lambda d, names: [
            n for n in names if d == ROOT and n in ("build", "results", ".git")
            or os.path.join(d, n) == os.path.join(ROOT, "docs", "html")])
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            for w, why in zip(makes, pool.map(lambda w: try_make(w, copy), makes)):
                results[w] = why
    for w in todo:
        if w[0] != "make":
            results[w] = try_program(w, cache)
    problems = [f"{rel}:{n}: `{shown}`: {results[w]}" for w, where in todo.items() if results[w]
                for rel, n, shown in where]
    problems = apply_known("check-commands", sorted(problems), known)
    for p in problems:
        print(f"check-commands: {p}")
    kinds = "make and program" if programs else "make"
    print(f"check-commands: {len(todo)} {kinds} commands of {len(pages)} pages tried, "
          f"{'no problem' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
