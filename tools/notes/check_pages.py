"""check_pages.py PAGE.md...: what a reader of the pages would trip over, checked (make check-pages,
which CI runs; `make docs` runs it too).

  - links: every relative link or image of a page names a file of the repository (its #anchor
    aside), and every other `NAME.md` a page names is a page of the repository (no page outside
    it, such as a development note, is cited);
  - images: every file in docs/images is shown by some page;
  - "above" and "below": a section named in italics next to either word (`*Plans* above`,
    `(*Step 8* below)`) is a heading of the same page, on the side the word says;
  - length: each lesson README's words are printed (as `wc -w` counts them, but for the
    `*Stale: ...*` notes `make tables` writes under a table measured before its code changed); a
    lesson is at most LESSON_WORDS words: what is not the lesson goes to its notebook page, NOTES.md.

Exit status 1, with one line per problem."""
import bisect
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LESSON_WORDS = 3000
#: the pages the student edition leaves out (tools/student/instructor-only.txt, absent there)
INSTRUCTOR_PAGES = {"ANSWERS.md", "NOTES.md"}
STUDENT_EDITION = not os.path.exists(os.path.join(ROOT, "tools", "student", "instructor-only.txt"))
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
            if STUDENT_EDITION and base in INSTRUCTOR_PAGES:
                continue  # named (what the instructors have), not there: the student edition
            if not glob.glob(os.path.join(ROOT, "**", base), recursive=True):
                problems.append(f"{name_of_page}:{n}: names {name}, a page the repository does not hold")


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


def main(pages):
    problems, shown = [], set()
    for page in pages:
        page = os.path.abspath(page)
        text = open(page).read()
        lines = prose_lines(text)
        check_links(page, lines, text.split("\n"), problems)
        check_near(os.path.relpath(page, ROOT), lines, problems)
        check_length(page, text, problems)
        for target in LINK.findall(text):
            shown.add(os.path.normpath(os.path.join(os.path.dirname(page), target.split("#")[0])))
    for image in sorted(glob.glob(os.path.join(ROOT, "docs", "images", "*"))):
        if os.path.normpath(image) not in shown:
            problems.append(f"docs/images/{os.path.basename(image)}: no page shows it")
    for p in problems:
        print(f"check-pages: {p}")
    print(f"check-pages: {len(pages)} pages, {'no problem' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
