"""snippets.py: the `code` and `diff` kinds of tables.py: lines of the course's own sources shown in a
page, read from the sources each time `make tables` runs, so that no line of code is typed into a
page. A function is found by its name where it is defined (its `template <...>` line included);
a part of a function by two `//! [NAME]` lines around it (Doxygen's \\snippet markers).

In the instructor edition a // SOLUTION region shows its solution without the region's comment
lines; the student edition (tools/student/student.sh) runs `tables.py --code-only` over its own
pages, whose sources hold the TODO blocks instead, so the same block shows the student's TODO."""
import difflib
import os
import re

from kept import ROOT, Error

MARK = re.compile(r"^\s*//! \[(\w+)\]\s*$")
SOLUTION_COMMENT = re.compile(r"^\s*// (SOLUTION |END SOLUTION|stub: )")


def source(path):
    full = os.path.join(ROOT, path)
    if not os.path.isfile(full):
        raise Error(f"no source file {path}")
    with open(full) as f:
        return f.read().split("\n")


def marked(lines, name, path):
    """The lines between the two `//! [name]` lines."""
    at = [i for i, line in enumerate(lines) if (m := MARK.match(line)) and m.group(1) == name]
    if len(at) != 2:
        raise Error(f"{path}: {len(at)} lines '//! [{name}]' (two are needed)")
    return lines[at[0] + 1:at[1]]


def function(lines, name, path):
    """The definition of function `name`: from its first line (a `template` line right above
    included) to the brace that closes its body."""
    head = re.compile(r"^(?:[A-Za-z_].*[\s*&])?" + re.escape(name) + r"\s*\(")
    for i, line in enumerate(lines):
        if not head.match(line) or line.rstrip().endswith(";"):
            continue
        depth, seen = 0, False
        for j in range(i, len(lines)):
            code = re.sub(r"//.*|/\*.*?\*/|\"(?:\\.|[^\"])*\"|'(?:\\.|[^'])'", "", lines[j])
            depth += code.count("{") - code.count("}")
            seen = seen or "{" in code
            if code.rstrip().endswith(";") and not seen:
                break  # a declaration
            if seen and depth == 0:
                start = i - 1 if i > 0 and lines[i - 1].startswith("template") else i
                if start > 0 and lines[start - 1].startswith("__global__"):
                    start -= 1
                return lines[start:j + 1]
    raise Error(f"{path}: no definition of {name}()")


def shown(lines):
    """What a reader sees: no SOLUTION region comments, no markers, common indent removed."""
    out, in_head = [], False
    for line in lines:
        if SOLUTION_COMMENT.match(line):
            in_head = bool(re.match(r"^\s*// SOLUTION ", line))
            continue
        if in_head and re.match(r"^\s*//   ", line):
            continue
        in_head = False
        if MARK.match(line):
            continue
        out.append(line.rstrip())
    indent = min((len(x) - len(x.lstrip()) for x in out if x.strip()), default=0)
    return [x[indent:] for x in out]


def pick(o):
    lines = source(o["file"])
    if ("fn" in o) == ("name" in o):
        raise Error("give fn=FUNCTION or name=MARKER")
    return shown(function(lines, o["fn"], o["file"]) if "fn" in o else marked(lines, o["name"], o["file"]))


def link(page, path):
    return os.path.relpath(os.path.join(ROOT, path), os.path.dirname(os.path.join(ROOT, page)))


def t_code(page, args, kv):
    """code file=PATH (fn=FUNCTION | name=MARKER): those lines of the source, as a code block."""
    o = kv(args, ("file",), ("fn", "name"))
    body = pick(o)
    what = f"`{o['fn']}()`" if "fn" in o else f"the lines marked `{o['name']}`"
    lang = "c" if o["file"].endswith((".c", ".h")) else "cpp"
    return ([f"```{lang}"] + body + ["```"] +
            [f"*[{os.path.basename(o['file'])}]({link(page, o['file'])}): {what}, "
             "copied from the source by `make tables`.*"]), None


def t_diff(page, args, kv):
    """diff file=PATH from=FUNCTION to=FUNCTION: the lines that differ between two functions'
    bodies, as a unified diff (no context); steps=A:B,C:D,... gives several pairs in one block,
    each under its own @@ line."""
    o = kv(args, ("file",), ("from", "to", "steps"))
    pairs = ([p.split(":") for p in o["steps"].split(",")] if "steps" in o
             else [(o.get("from"), o.get("to"))])
    body, lines_of = [], source(o["file"])
    for a, b in pairs:
        if not a or not b:
            raise Error("give from= and to=, or steps=FROM:TO,...")
        old, new = (shown(function(lines_of, f, o["file"])) for f in (a, b))
        # the bodies only: the name line differs always
        lines = list(difflib.unified_diff(old[1:], new[1:], lineterm="", n=0))[2:]
        lines = [x for x in lines if not x.startswith("@@")]
        if not lines:
            raise Error(f"{a}() and {b}() have the same body")
        body += [f"@@ {a} -> {b} @@"] + lines
    return ["```diff"] + body + ["```"], None
