#!/usr/bin/env python3
"""bundle.py FILE...: one source text from the course's files, as the preprocessor would see them.

Each FILE (a .c or .cu translation unit, or a header) is written out in order with every local
`#include "name"` replaced by the text of the header it names, recursively, each header once (the
first time it is included, as its include guard would have it); `#include <...>` lines stay where
they are. A local header is looked up as the build does: beside the including file, then in
common/. Each file begins with a `// ---- path ----` line, so the bundle says where every line
came from. Nothing else is changed: the bundle is the sources, whole.

The hand-in files are made with it (day06_roofline/submission.sh, gpumode.sh): a change to a
kernel or a header is in the next bundle. An include it cannot find is an error (exit status 2,
one line naming the file and the include), never a silent gap.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LOCAL = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*(//.*|/\*.*\*/\s*)?$')


class BundleError(Exception):
    pass


def resolve(includer, name):
    """The repository path that `#include "name"` in @includer names, or None."""
    for folder in (os.path.dirname(includer), "common"):
        path = os.path.normpath(os.path.join(folder, name))
        if os.path.isfile(os.path.join(ROOT, path)):
            return path
    return None


def emit(path, seen, out):
    """Write @path to @out, its local includes replaced by their headers (each once)."""
    seen.add(path)
    out.append(f"// ---- {path} ----")
    with open(os.path.join(ROOT, path)) as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, 1):
        m = LOCAL.match(line)
        if not m:
            out.append(line)
            continue
        header = resolve(path, m.group(1))
        if header is None:
            raise BundleError(f"{path}:{n}: #include \"{m.group(1)}\" names no file beside it "
                              "or in common/")
        if header not in seen:
            emit(header, seen, out)
            out.append(f"// ---- {path} (continued) ----")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: tools/build/bundle.py FILE... (paths relative to the repository root)",
              file=sys.stderr)
        return 2
    seen, out = set(), []
    try:
        for path in argv:
            path = os.path.normpath(path)
            if not os.path.isfile(os.path.join(ROOT, path)):
                raise BundleError(f"{path}: no such file in the repository")
            if path in seen:
                raise BundleError(f"{path}: named twice, or already included by a file before it")
            emit(path, seen, out)
    except BundleError as e:
        print(f"bundle.py: {e}", file=sys.stderr)
        return 2
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
