#!/usr/bin/env python3
"""comment-share.py [REV]: the share of comment lines in each lesson's sources and in the harness
headers (a line is a comment line if it holds a comment and no code), from the working tree or,
given REV, from that commit. One line per group; the measure issue 39 asks for."""
import re
import subprocess
import sys

GROUPS = [("day01_cpu", r"^day01_cpu/"), ("day02_naive", r"^day02_naive/"),
          ("day03_privatized", r"^day03_privatized/"), ("day04_shared", r"^day04_shared/"),
          ("day05_optimized_h100", r"^day05_optimized_h100/"), ("day06_roofline", r"^day06_roofline/"),
          ("day07_scale", r"^day07_scale/"), ("common headers", r"^common/[^/]*\.(h|cuh)$")]
SOURCE = re.compile(r"\.(c|h|cu|cuh)$")


def files(rev):
    cmd = ["git", "ls-tree", "-r", "--name-only", rev] if rev else ["git", "ls-files"]
    return [f for f in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
            if SOURCE.search(f) and not re.search(r"/test_[^/]*$", f)]


def text(rev, path):
    if rev:
        return subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, text=True).stdout
    with open(path) as f:
        return f.read()


def counts(src):
    """(comment lines, code lines) of a C source; blank lines count as neither."""
    comment = code = 0
    in_block = False
    for line in src.split("\n"):
        s = line.strip()
        if not s:
            continue
        has_comment, has_code = in_block, False
        i = 0
        while i < len(s):
            if in_block:
                end = s.find("*/", i)
                if end < 0:
                    i = len(s)
                else:
                    in_block, i = False, end + 2
                has_comment = True
            elif s.startswith("//", i):
                has_comment = True
                break
            elif s.startswith("/*", i):
                in_block, has_comment, i = True, True, i + 2
            else:
                if s[i] not in " \t":
                    has_code = True
                i += 1
        if has_code:
            code += 1
        elif has_comment:
            comment += 1
    return comment, code


def main(argv):
    rev = argv[0] if argv else None
    paths = files(rev)
    for name, pattern in GROUPS:
        c = k = 0
        for p in paths:
            if re.search(pattern, p):
                a, b = counts(text(rev, p))
                c, k = c + a, k + b
        share = 100.0 * c / (c + k) if c + k else 0.0
        print(f"{name:22s} {c:5d} comment lines, {k:5d} code lines: {share:4.1f}% comments")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
