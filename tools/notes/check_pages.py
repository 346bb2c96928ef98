"""check_pages.py PAGE.md...: what a reader of the pages would trip over, checked (make check-pages,
which CI runs; `make docs` runs it too).

  - links: every relative link or image of a page names a file of the repository (its #anchor
    aside), and every other `NAME.md` a page names is a page of the repository (no page outside
    it, such as a development note, is cited);
  - what a page names is here, in this edition (the student edition too, where the instructor's
    files are left out): every path of the repository (`tests/wrong/`, `day07_scale/NOTES.md`),
    file name (`test_wrong.c`), test (`test_lesson`) and page (`ANSWERS.md`; "the notebook" is
    the lesson's NOTES.md), and every section named with a link (`[day 00](docs/DAY00.md)'s *The
    two roofs*`); the make targets a page names are tried by check_commands.py;
  - images: every file in docs/images is shown by some page;
  - "above" and "below": a section named in italics next to either word (`*Plans* above`,
    `(*Step 8* below)`) is a heading of the same page, on the side the word says;
  - length: each lesson README's words are printed (as `wc -w` counts them, but for the
    `*Stale: ...*` notes `make tables` writes under a table measured before its code changed); a
    lesson is at most LESSON_WORDS words: what is not the lesson goes to its notebook page, NOTES.md.

Exit status 1, with one line per problem. `--known FILE` first: the problems FILE lists (one a
line, as printed but without the line number, `check-pages: PAGE: problem`; its lines for
check_commands.py are that tool's) are printed as known and not counted, and a line of FILE that
matches no problem is one (make check-pages: tools/notes/known-pages.txt; tests/student-check.sh:
tools/notes/known-student-pages.txt, for the student edition: pages still to be fixed)."""
import bisect
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LESSON_WORDS = 3000
#: what a page may name that is not a file of the repository: a template's placeholders
#: (docs/LESSON_CONTRACT.md), a system header, the notes that make docs writes
NOT_FILES = {"main.c", "kernel.cu", "demo.c", "mpi.h", "docs/html"}
#: a path of the repository: from one of its top-level folders (CI's .ci included)
REPO_PATH = re.compile(r"(?<![\w/.~$-])((?:\.ci|common|tests|tools|docs|day\d\d_[a-z0-9_]+)/[\w./*-]*)")
#: a file's name alone, of a kind the course keeps
FILE_NAME = re.compile(r"(?<![\w/.<$-])([A-Za-z_][\w-]*\.(?:c|cu|cuh|h|py|sh|mk|gp|txt|csv|svg))\b")
#: a pattern, not a name: dayNN_name, tools/GROUP/GROUP.mk, OUT.csv, build/CONFIG/
PLACEHOLDER = re.compile(r"NN|GROUP|NAME|TAG|CONFIG|FILE|[*<>{}]|^[A-Z_]+\.\w+$")
TEST_NAME = re.compile(r"(?<![\w/.-])(test_[a-z0-9_]+)\b(?!\.\w)")
NOTEBOOK = re.compile(r"\bnotebooks?\b", re.I)
#: a section of another page: a link to it, then 's and the section's name in italics
LINKED_SECTION = re.compile(r"\]\(([^)#\s]+\.md)\)'s \*([^*\n]+)\*")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
MD_NAME = re.compile(r"(?<![\w/.:-])([A-Za-z0-9_][A-Za-z0-9_./-]*\.md)\b")
NEAR = re.compile(r"\*([A-Z][^*\n]{1,60}?)\*\)?,?\s+(above|below)\b|\b(above|below)\s+\(\*([A-Z][^*\n]{1,60}?)\*")
HEADING = re.compile(r"^#{1,6} +(.*?)(?: \{#[^}]*\})?\s*$")
FENCE = re.compile(r"^(```|~~~)")
STALE_NOTE = re.compile(r"^\*Stale: .*\*$")


def prose_lines(text):
    """The page's lines, those inside code fences and HTML comments blanked (kept for numbering)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line.strip()):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else re.sub(r"<!--.*?-->", "", line))
    return out


def check_links(page, lines, raw, problems):
    here, name_of_page = os.path.dirname(page), os.path.relpath(page, ROOT)
    for n, line in enumerate(lines, 1):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = os.path.normpath(os.path.join(here, target.split("#")[0]))
            if not os.path.exists(path):
                problems.append(f"{name_of_page}:{n}: link to '{target}', which does not exist")
            elif not path.startswith(ROOT):
                problems.append(f"{name_of_page}:{n}: link to '{target}', outside the repository")
    for n, line in enumerate(raw, 1):  # page names, in code blocks too (a tree, a command)
        bare = re.sub(r"https?://\S+", "", LINK.sub("", line))
        for name in MD_NAME.findall(bare):
            base = os.path.basename(name)
            if not glob.glob(os.path.join(ROOT, "**", base), recursive=True):
                problems.append(f"{name_of_page}:{n}: names {name}, a page this edition does not hold")


def test_names():
    """Every test_* name of the edition's tests: their files and the functions they define."""
    names = set()
    for path in glob.glob(os.path.join(ROOT, "tests", "*.c")) + \
            glob.glob(os.path.join(ROOT, "day[0-9][0-9]_*", "test_*.c")):
        names.add(os.path.splitext(os.path.basename(path))[0])
        names.update(re.findall(r"\b(test_\w+)\s*\(", open(path, encoding="utf-8").read()))
    return names


def check_named(page, raw, problems, tests):
    """What a page names (paths, file names, tests, the notebook, other pages' sections) is in
    this edition: in the student edition, what only the instructors have is not."""
    here, name_of_page = os.path.dirname(page), os.path.relpath(page, ROOT)
    lesson = re.match(r"day\d\d_[^/]+/", name_of_page)
    for n, line in enumerate(raw, 1):
        line = re.sub(r"https?://\S+", "", line)
        for path in REPO_PATH.findall(line):
            path = path.rstrip(".,:;/")
            if path in NOT_FILES or PLACEHOLDER.search(path):
                continue
            if not os.path.exists(os.path.join(ROOT, path)):
                problems.append(f"{name_of_page}:{n}: names {path}, which this edition does not have")
        for name in FILE_NAME.findall(line):
            if name in NOT_FILES or PLACEHOLDER.search(name):
                continue
            if not glob.glob(os.path.join(ROOT, "**", name), recursive=True):
                problems.append(f"{name_of_page}:{n}: names {name}, a file this edition does not have")
        for name in TEST_NAME.findall(line):
            if not PLACEHOLDER.search(name) and name not in tests:
                problems.append(f"{name_of_page}:{n}: names the test {name}, which this edition does not have")
        if NOTEBOOK.search(line) and "NOTES.md" not in line:
            notes = os.path.join(here, "NOTES.md") if lesson else None
            if not (os.path.exists(notes) if notes else glob.glob(os.path.join(ROOT, "*", "NOTES.md"))):
                problems.append(f"{name_of_page}:{n}: names the notebook (NOTES.md), a page this "
                                f"edition does not hold")
        for target, section in LINKED_SECTION.findall(line):
            path = os.path.normpath(os.path.join(here, target))
            if not os.path.exists(path):
                continue  # the link's own problem
            titles = [HEADING.match(l).group(1).lower() for l in prose_lines(open(path).read())
                      if HEADING.match(l)]
            key = " ".join(section.lower().rstrip(".").split())
            if not any(key in t for t in titles):
                problems.append(f"{name_of_page}:{n}: names the section *{section}* of {target}, "
                                f"which it does not have here")


def check_near(page, lines, problems):
    headings = [(n, HEADING.match(l).group(1).lower()) for n, l in enumerate(lines, 1)
                if HEADING.match(l)]
    joined = " ".join(lines)  # a name may break across lines
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for m in NEAR.finditer(joined):
        n = bisect.bisect_right(starts, m.start())  # the match's line, counted from 1
        name, where = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        key = " ".join(name.lower().rstrip(".").split())
        found = [h for h, title in headings if key in title]
        side = [h for h in found if (h < n if where == "above" else h > n)]
        if not found:
            problems.append(f"{page}:{n}: *{name}* {where}: no heading of this page says it")
        elif not side:
            problems.append(f"{page}:{n}: *{name}* {where}: its heading is on the other side")


def check_length(page, text, problems):
    rel = os.path.relpath(page, ROOT)
    if not re.match(r"day\d\d_[^/]+/README\.md$", rel):
        return
    # as `wc -w` counts them, the figures' markers included; not the lines `make tables` writes
    # under a table whose data predate a code change (*Stale: ...*): a note to the maintainer
    # that goes when the data is measured again, not words of the lesson
    lesson = "\n".join(line for line in text.split("\n") if not STALE_NOTE.match(line))
    words = len(lesson.split())
    print(f"check-pages: {rel}: {words:,} words (at most {LESSON_WORDS:,})")
    if words > LESSON_WORDS:
        problems.append(f"{rel}: {words:,} words, more than {LESSON_WORDS:,}: move what is not the "
                        f"lesson to its notebook page (NOTES.md)")


def known_problems(argv):
    """--known FILE's lines (blank and # lines aside), and the rest of the arguments."""
    if argv[:1] != ["--known"]:
        return None, argv
    with open(argv[1]) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")], argv[2:]


def apply_known(tool, problems, known):
    """The problems left once those of the known list are printed as known; a line of the list
    (`TOOL: PAGE: problem`, the line number left out) that matches none is a problem."""
    if known is None:
        return problems
    def unnumbered(p):
        return f"{tool}: " + re.sub(r"^([^:]+):\d+: ", r"\1: ", p)
    mine = [k for k in known if k.startswith(f"{tool}: ")]
    for p in problems:
        if unnumbered(p) in mine:
            print(f"{tool}: known, to be fixed: {p}")
    seen = {unnumbered(p) for p in problems}
    return [p for p in problems if unnumbered(p) not in mine] + \
        [f"the known list's line matches no problem now (delete it): {k}" for k in mine if k not in seen]


def main(argv):
    known, pages = known_problems(argv)
    problems, shown, tests = [], set(), test_names()
    for page in pages:
        page = os.path.abspath(page)
        text = open(page).read()
        lines = prose_lines(text)
        check_links(page, lines, text.split("\n"), problems)
        check_named(page, text.split("\n"), problems, tests)
        check_near(os.path.relpath(page, ROOT), lines, problems)
        check_length(page, text, problems)
        for target in LINK.findall(text):
            shown.add(os.path.normpath(os.path.join(os.path.dirname(page), target.split("#")[0])))
    for image in sorted(glob.glob(os.path.join(ROOT, "docs", "images", "*"))):
        if os.path.normpath(image) not in shown:
            problems.append(f"docs/images/{os.path.basename(image)}: no page shows it")
    problems = apply_known("check-pages", problems, known)
    for p in problems:
        print(f"check-pages: {p}")
    print(f"check-pages: {len(pages)} pages, {'no problem' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
