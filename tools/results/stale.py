"""stale.py: whether a kept measurement still describes the code (tables.py's staleness line).

Every kept file names the commit it was measured at: the runner's CSVs in their `commit` column,
the others in their first line ("# GPU, date, course COMMIT: command"). A table is stale when one
of its files names no commit (measured before commits were recorded), a commit this history does
not hold, or one after which a measured source's code changed (its comments and layout aside):
the kernel files of the page's lesson
(its folder's .cu, .cuh and .c files other than tests) and the harness's timing code. A file that
holds several runs (make answers' logs, one header each) is judged by its last run; the table
names each row's run.

Three kinds of kept file are never stale: a record of a version tried (TAG-try_NAME: the code before
a change, or a variant built for one run; the line under its table says so and names the commit);
a record of a GPU the course cannot measure again (TAG-at-COMMIT_NAME, e.g. an H200's run: the
code of COMMIT on that GPU; the line under its table says so, so that no page shows it as the
current code's figure); and published figures of others (published_NAME: not a measurement of
ours)."""
import csv
import glob
import os
import re
import subprocess

from kept import data_path

#: the harness's code that every measurement goes through: the timing and the GPU's roofs
TIMING_SOURCES = ["common/timing.c", "common/timing.h", "common/gpu.cu"]

#: Renames that leave a measured source the same code for the data kept before them: (path, the
#: name before, the name after, why). A source whose only difference from the measured commit's is
#: these names, token for token, is the same code. Day 08's 16-bit samples made the harness copy
#: and read `hist_input_bytes(p)` bytes where it read `hist_samples(p)`: the same number for 8-bit
#: samples, which every measurement before day 08 took.
SAME_VALUE_RENAMES = [
    ("common/gpu.cu", "hist_samples", "hist_input_bytes",
     "hist_input_bytes(p) == hist_samples(p) for 8-bit samples (hist.h)"),
]

#: Commits whose change to a measured source touched no code that a measurement runs:
#: (path, commit, why). A source that changed since a measurement only in these commits' own
#: diffs is the same code for it (it is compared interval by interval, each such commit skipped).
UNTIMED_CHANGES = [
    ("common/gpu.cu", "0ca637c",
     "hist_gpu_run_offset() passes the tests' block cap to the implementation: a test's run, "
     "never a timed one"),
    ("common/gpu.cu", "84403e5",
     "spin_kernel() reads %globaltimer through cuda::ptx::get_sreg_globaltimer() instead of "
     "inline asm: the same SASS (cuobjdump), in a kernel no table times"),
    ("common/gpu.cu", "6706ae1",
     "hist_gpu_run_offset() passes the tests' caps (hist_caps) where it passed a block cap: a "
     "test's run, never a timed one (hist_gpu_time_impl() gained a comment only)"),
] + [
    (path, "6aa4bec", "without a GPU (or a GPU it cannot use) the program ends with exit status 4 "
     "and one line on standard error: only the path that measures nothing changed")
    for path in ("day02_naive/race_demo.c", "day06_roofline/probe.cu",
                 "day06_roofline/breakdown.cu", "day07_scale/bigger.cu", "day07_scale/gpus.cu",
                 "day09_clusters/cluster_probe.cu")
] + [
    ("common/gpu.cu", "0af9f97",
     "the merge of e4ef970 (the graded timing's fresh inputs): a new function and two untimed "
     "hooks of the timing loop (before each call's poison, after its stop event), NULL in every "
     "measuring program"),
    ("common/gpu.cu", "7ee35cb",
     "the merge of 92f46fb: includes ptx.cuh, the same cuda::ptx call under CUDA 13"),
    ("common/ptx.cuh", "92f46fb",
     "fallbacks for CCCL before 2.4 / 2.8 (CUDA 12), chosen by CCCL_VERSION: CUDA 13 compiles "
     "the same calls"),
    ("day07_scale/pipeline.cu", "92f46fb", "an include of ptx.cuh"),
    ("day02_naive/library.cu", "f943553",
     "CUB's MultiHistogramRange called through one function by CUB's version: under CUDA 13 the "
     "same CUB 3 call, its arrays filled on the host"),
] + [
    ("day09_clusters/cluster_probe.cu", "43ad554",
     "--keep-sms is refused as an option cluster_probe does not take: its command line only"),
]

_diffs = {}
counts = {"tables": 0, "stale": 0}


def measured_commit(name):
    """The commit NAME was measured at ('-dirty' dropped; its last run's, if it holds several), or
    None if it names none."""
    with open(data_path(name), newline="") as f:
        lines = list(f)
    if name.endswith(".csv") and lines and not lines[0].startswith("#"):
        row = next(csv.DictReader(lines), {})
        return (row.get("commit") or "").replace("-dirty", "") or None
    commits = [m.group(1) for line in lines if line.startswith("# ")
               for m in [re.search(r"\bcourse ([0-9a-f]{7,40})\b", line)] if m]
    return commits[-1] if commits else None


def machine(tag):
    """A data tag as words: h200 -> "the H200", h100x2 -> "two H100s"."""
    m = re.fullmatch(r"([a-z]+[0-9]+)x([0-9]+)", tag)
    if not m:
        return f"the {tag.upper()}"
    n = int(m.group(2))
    count = {2: "two", 3: "three", 4: "four", 8: "eight"}.get(n, str(n))
    return f"{count} {m.group(1).upper()}s"


def is_try(name):
    """A record of a version tried, kept as it was measured (TAG-try_NAME)."""
    return "-try_" in name


def record_of(name):
    """(GPU tag, commit) of a record of a GPU not measured again (TAG-at-COMMIT_NAME), else None."""
    m = re.match(r"([a-z0-9]+)-at-([0-9a-f]{7,40})_", os.path.basename(name))
    return (m.group(1), m.group(2)) if m else None


def sources_of(page):
    """The measured sources a table on PAGE describes: its lesson's kernel files, the timing."""
    folder = os.path.dirname(os.path.relpath(page))
    own = []
    if re.match(r"day\d\d_", folder):
        own = sorted(p for ext in ("cu", "cuh", "c") for p in glob.glob(f"{folder}/*.{ext}")
                     if not os.path.basename(p).startswith("test_"))
    return own + TIMING_SOURCES


def _git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True)


_C_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)


def _code_of(text):
    """C or CUDA source without its comments and whitespace (string literals kept whole)."""
    code = _C_TOKENS.sub(lambda m: " " if m.group(0)[0] == "/" else m.group(0), text)
    return "".join(code.split())


_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\w+|\S')

#: Registry fields that are data, not code, when they restate what the build or a default already
#: says: an entry's `.lesson` (the folder of its registry, since ba96201 never written), and
#: `.target = 0`, `.roof = HIST_ROOF_BOUND`, `.library = 0`, `.samples16 = 0` (the values a field
#: left out of a designated initializer has). Written or not, the entry is the same: they are
#: dropped from both sides before two versions of a source are compared.
_DEFAULT_FIELDS = re.compile(r'\.lesson="(?:\\.|[^"\\])*"(?=[,}])|\.(?:target=0|roof=HIST_ROOF_BOUND|'
                             r'library=0|samples16=0)(?=[,}])')


def _without_default_fields(code):
    """CODE (as _code_of() gives it) without the registry fields of _DEFAULT_FIELDS."""
    code = re.sub(r",{2,}", ",", _DEFAULT_FIELDS.sub("", code))
    return code.replace(",}", "}").replace("{,", "{")


def _renamed_only(old_code, new_code, path):
    """Whether NEW_CODE is OLD_CODE with some of PATH's SAME_VALUE_RENAMES applied, token for
    token."""
    renames = {(a, b) for p, a, b, _ in SAME_VALUE_RENAMES if p == path}
    if not renames:
        return False
    old_t, new_t = _TOKENS.findall(old_code), _TOKENS.findall(new_code)
    return len(old_t) == len(new_t) and all(
        a == b or (a, b) in renames for a, b in zip(old_t, new_t))


def _name_at(commit, path):
    """PATH's name at COMMIT: the name it had before the renames git finds since (a file moved
    without a change to its code is the same code)."""
    log = _git("log", "--follow", "--name-status", "--format=", f"{commit}..HEAD", "--", path)
    name = path
    for line in log.stdout.splitlines():  # newest first: each rename takes the name one back
        parts = line.split("\t")
        if parts[0].startswith("R") and len(parts) == 3 and parts[2] == name:
            name = parts[1]
    return name


def _same_code(commit, path):
    """Whether PATH differs from its version at COMMIT only in whitespace, line breaks and comments
    (as `make format` or a documentation change leaves it), in registry fields that restate a
    default (_DEFAULT_FIELDS), by a rename of SAME_VALUE_RENAMES, or in the changes of
    UNTIMED_CHANGES' commits since: the same code, so no measurement of it goes stale."""
    if not os.path.exists(path):
        return False
    with open(path) as f:
        now = f.read()
    versions = [commit]  # the intervals to compare: COMMIT .. the first skipped commit's parent ..
    for p, skipped, _ in UNTIMED_CHANGES:
        if p == path and _git("merge-base", "--is-ancestor", commit, skipped).returncode == 0:
            versions += [f"{skipped}^", skipped]
    texts = []
    for rev in versions:
        old = _git("show", f"{rev}:{_name_at(rev, path)}")
        if old.returncode != 0:
            return False
        texts.append(old.stdout)
    texts.append(now)
    # pairs (COMMIT, skipped^), (skipped, next skipped^), ..., (last skipped, the working tree)
    return all(_same_text(texts[i], texts[i + 1], path) for i in range(0, len(texts), 2))


def _same_text(old, now, path):
    """Whether two versions of PATH are the same code (see _same_code())."""
    old_code, new_code = _code_of(old), _code_of(now)
    if _without_default_fields(old_code) == _without_default_fields(new_code):
        return True
    return old_code == new_code or _renamed_only(_strip(old), _strip(now), path)


def _strip(text):
    """C or CUDA source without its comments (tokens keep their spaces apart)."""
    return _C_TOKENS.sub(lambda m: " " if m.group(0)[0] == "/" else m.group(0), text)


def changed_since(commit, sources):
    """The sources that differ between COMMIT and the working tree (not in layout alone); None if
    git does not know COMMIT."""
    key = (commit, tuple(sources))
    if key not in _diffs:
        if _git("rev-parse", "--verify", "-q", commit + "^{commit}").returncode != 0:
            _diffs[key] = None
        else:
            names = _git("diff", "--name-only", commit, "--", *sources).stdout.split()
            _diffs[key] = [n for n in names if not _same_code(commit, n)]
    return _diffs[key]


def stale_line(page, names):
    """The line under a table whose data may not describe the code, or None."""
    counts["tables"] += 1
    if _git("rev-parse", "--git-dir").returncode != 0:
        return None  # no history to compare with (an exported copy)
    sources = sources_of(page)
    tried = [n for n in dict.fromkeys(names) if is_try(n)]
    records = [n for n in dict.fromkeys(names) if record_of(n)]
    for name in dict.fromkeys(names):
        if name.startswith("published_") or is_try(name) or record_of(name):
            continue
        commit = measured_commit(name)
        if commit is None:
            why = f"{name} was measured before the course recorded commits"
        else:
            changed = changed_since(commit, sources)
            if changed is None:
                why = f"{name} was measured at {commit}, a commit this history does not hold"
            elif changed:
                what = changed[0] + (f" and {len(changed) - 1} more files have" if
                                     len(changed) > 1 else " has")
                why = f"{name} was measured at {commit}; {what} changed since"
            else:
                continue
        counts["stale"] += 1
        return f"*Stale: {why}: make measure on the GPU, then make tables.*"
    lines = []
    if tried:
        lines.append("*" + "; ".join(f"{n}: a record of the version tried at "
                                     f"{measured_commit(n) or '?'}" for n in tried) +
                     ", kept as measured; not the code as it is now.*")
    if records:
        tags = sorted({record_of(n) for n in records})
        lines.append("*A record: " + "; ".join(f"the code of {c} on {machine(t)}" for t, c in tags) +
                     ", kept as measured (that machine was not lent when the code last changed, so "
                     "it was not measured again); not the code as it is now.*")
    return "\n".join(lines) or None
