#!/usr/bin/env python3
"""tables.py FILE.md...: rewrite every measured table and figure of the course's Markdown pages
from the data kept in docs/data (written by `make measure` and `make run`), so that no figure is
typed by hand. `make tables` runs it over every README; CI runs it and fails on any difference.

A table is the text between two markers; everything between them is replaced:

    <!-- table KIND key=value ... -->
    <!-- /table -->

and a figure in running text is the value right after its marker (number, then unit):

    the final kernel takes <!-- fig run h100 main/uniform gpu_roofline median -->198.0 us here

Values with spaces are quoted (shell rules). RUN is PRESET/DIST and names the runner's CSV
docs/data/TAG_PRESET_DIST.csv (':' in DIST becomes '-'); PROFILE names docs/data/TAG_profile_NAME.csv,
Nsight Compute's CSV. Table kinds:

    runs     data=TAG runs=RUN,... impls=NAME,... cols=COL,...   one row per run and implementation
             (COL: preset dist run shape bins impl median min e2e gbps pct cleanpct floor copyfloor
             vsref vs:IMPL; a host-input row's pct and floor are against the pinned-copy floor)
    pivot    data=TAG preset=P dists=D,... impls=NAME,... [value=median] [pct=DIST] [floor=1]
             one row per implementation, one column per distribution (fastest in bold)
    profile  cols="LABEL=TAG:PROFILE:KERNEL;..." metrics=M,...   one row per metric
             (a column may be LABEL=quote:FILE:COLUMN, a published figure kept in docs/data/FILE.csv)
    probe    data=TAG                                             day 06's probe, one row per line
    sweep    data=TAG                                             where each GPU version beats the CPU
    triton   data=TAG                                             day 02's CUDA C and Triton kernels
    scaling  file=FILE                                            day 01's thread scaling (text log)
    gpus     file=FILE [sum=peer|nccl] [gpus=N,...]                day 07's `gpus --csv`: one row per GPU
             count, weak and strong scaling's median and speed-up side by side, for one sum
    lessons  data=TAG [library=IMPL,...] [more=RUN,...]           the course's lesson table: each lesson
             folder (dayNN_*/ with a Makefile), its README's title, its fastest version on main/uniform;
             library calls (default gpu_cub) on a line of their own; lessons missing from main/uniform
             taken from the MORE runs (day 07's own run)
    text     file=FILE                                            a kept output, verbatim, as a code block
    phases   file=FILE                                            `gpus`' account of a call's time (day 07's
             TAG_gpus-phases.txt): each GPU's count queued at, count, sum after it, end seen at
    csv      file=FILE [cols=NAME,...] [rows=lessons] [where=C:V] a kept CSV (a program's own table) as it is,
             or only the named columns; rows=lessons: a row per lesson folder, one not measured
             saying so; where=COLUMN:VALUE: only the rows whose COLUMN is VALUE (V1|V2: either;
             C1:V1;C2:V2: both)
    variants file=FILE                                            an exercise's kept runs (make answers)
    regions                                                       the code a student writes: every
             // SOLUTION region of the sources (read from them; no provenance line)
    code     file=PATH (fn=FUNCTION | name=MARKER)                lines of a source as a code block: a
             function's definition, or the lines between two `//! [MARKER]` lines (snippets.py)
    diff     file=PATH (from=FN to=FN | steps=FN:FN,...)          the lines that differ
             between two functions' bodies, as a diff block

`tables.py --code-only FILE.md...` rewrites the code and diff blocks alone (the student edition's
pages, from its own sources: a region's TODO where the instructor's page shows its solution).

`tables.py --results-page TAG OUT` writes the notes' results page of one GPU (make docs).

`tables.py --chart-data PAGE OUT` writes the progression chart's rows (make charts): the runs of
PAGE's lesson table, every implementation that ran, as one runner's CSV.

Figures (fig KIND ...):

    run TAG RUN IMPL FIELD             FIELD as COL above, or e2e, or status, or pct1 (% of
                                       floor with one decimal)
    ratio TAG RUN IMPL_A IMPL_B        median of A / median of B, as 1.23x
    overfloor TAG RUN IMPL             median / the same run's floor, as 36x or 1.98x
    diff TAG RUN IMPL_A IMPL_B         median of A - median of B, as a time
    log FILE CONTEXT IMPL [FIELD]      in a kept text log, IMPL's median (or min) on the first
                                       table line after the first line that contains CONTEXT
    prof TAG PROFILE KERNEL METRIC     METRIC as in profile tables, or wpi (wavefronts per atomic)
    probe TAG TEXT                     the time on the probe's line containing TEXT
    kept FILE TEXT                     in a kept text file, the first number after TEXT, in us
    kept FILE TEXT time                the same as a time in the tables' form (us, ms or s)
    date TAG RUN                       the run's date (written as 2026-11-22)
    cell FILE ROW COLUMN               in a kept CSV, COLUMN of the first row that starts with
                                       ROW (cells joined by commas), as it is (with the unit of
                                       a header such as "median (s)")
    phase FILE BLOCK COLUMN            in `gpus`' account of a call's time (TAG_gpus-phases.txt),
                                       block BLOCK ("split over the GPUs (peer add), 4 GPUs"):
                                       the call's time (call), or the largest over its GPUs of
                                       queued, count, sum or end, in us
    lessons gpu                        the lessons whose registry has a GPU entry, as one range of
                                       their numbers (02-09), from the lesson folders
"""
import csv
import glob
import os
import re
import shlex
import sys
from kept import (
    DATA, Error, cell_value, fmt_ratio, fmt_time, gpu_lessons, kept_value, load_run, phase_value,
    probe_value, prof_value, run_row, run_value, source_line, table)
from kinds import KINDS, kv, lesson_rows, log_value
import stale


# ---- figures in running text ----

def figure(args):
    kind, rest = args[0], args[1:]
    if kind == "run" and len(rest) == 4:
        return run_value(run_row(rest[0], rest[1], rest[2]), rest[3])
    if kind == "ratio" and len(rest) == 4:
        a = float(run_row(rest[0], rest[1], rest[2])["median_us"])
        b = float(run_row(rest[0], rest[1], rest[3])["median_us"])
        return fmt_ratio(a / b)
    if kind == "diff" and len(rest) == 4:
        a = float(run_row(rest[0], rest[1], rest[2])["median_us"])
        b = float(run_row(rest[0], rest[1], rest[3])["median_us"])
        return fmt_time(a - b)
    if kind == "log" and len(rest) in (3, 4):
        return log_value(*rest)
    if kind == "overfloor" and len(rest) == 3:
        row = run_row(*rest)
        return fmt_ratio(float(row['median_us']) / float(row['floor_median_us']))
    if kind == "prof" and len(rest) == 4:
        return prof_value(*rest)
    if kind == "probe" and len(rest) == 2:
        return probe_value(*rest)
    if kind == "kept" and len(rest) == 2:
        return kept_value(*rest)
    if kind == "kept" and len(rest) == 3 and rest[2] == "time":
        number, unit = kept_value(rest[0], rest[1]).split()
        return fmt_time(float(number) * {"us": 1, "ms": 1e3, "s": 1e6}[unit])
    if kind == "date" and len(rest) == 2:
        return load_run(rest[0], rest[1])[1][0]["date_utc"][:10]
    if kind == "cell" and len(rest) == 3:
        return cell_value(*rest)
    if kind == "phase" and len(rest) == 3:
        return phase_value(*rest)
    if kind == "lessons" and rest == ["gpu"]:
        numbers = [l[3:5] for l in gpu_lessons()]
        if not numbers or [int(n) for n in numbers] != list(range(int(numbers[0]), int(numbers[-1]) + 1)):
            raise Error(f"the lessons that need a GPU are not one range ({', '.join(numbers)})")
        return f"{numbers[0]}-{numbers[-1]}"
    raise Error(f"figure '{' '.join(args)}': see tools/results/tables.py for the forms")


# (a unit only where no letter follows it: "747 shared" is a number and a word, not 747 s)
FIG = re.compile(r"(<!-- fig (.*?) -->)(\*\*)?([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{2}-[0-9]{2}(?![0-9])"
                 r"|[-+]?[0-9][0-9,]*(?:\.[0-9]+)?(?: ?(?:us|ms|s|%|x|MiB)(?![A-Za-z]))?)")
BEGIN = re.compile(r"^<!-- table (.*?) -->\s*$")
END = "<!-- /table -->"


CODE_KINDS = ("code", "diff")


def rewrite(page, text, code_only=False):
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        m = BEGIN.match(line)
        if not m:
            out.append(line)
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() != END:
            j += 1
        if j == len(lines):
            raise Error(f"line {i + 1}: '{line}' has no '{END}'")
        args = shlex.split(m.group(1))
        if code_only and args[0] not in CODE_KINDS:
            out += lines[i:j + 1]
            i = j + 1
            continue
        if args[0] not in KINDS:
            raise Error(f"line {i + 1}: unknown table kind '{args[0]}' ({' '.join(KINDS)})")
        try:
            body, names = KINDS[args[0]](page, args[1:])
        except Error as e:
            raise Error(f"line {i + 1}: {e}")
        note = stale.stale_line(page, names) if names else None
        out += [line] + body + (["", source_line(page, names)] if names else [])
        out += ([note] if note else []) + [END]
        i = j + 1
    text = "\n".join(out)
    if code_only:
        return text

    def fig(m):
        try:
            value = figure(shlex.split(m.group(2)))
        except Error as e:
            raise Error(f"line {text[:m.start()].count(chr(10)) + 1}: {e}")
        return m.group(1) + (m.group(3) or "") + value

    return FIG.sub(fig, text)


def results_page(tag, out):
    """The notes' results page of one GPU: every run kept for it, every implementation."""
    runs = sorted(glob.glob(os.path.join(DATA, f"{tag}_*_*.csv")))
    runs = [r for r in runs if "_profile_" not in r and not r.endswith("_sweep.csv")
            and open(r).readline().startswith("lesson,implementation,")]  # the runner's CSVs
    if not runs:
        raise Error(f"no docs/data/{tag}_PRESET_DIST.csv")
    first = list(csv.DictReader(open(runs[0], newline="")))[0]
    lines = [f"# Results: {first['gpu']} {{#results_{tag}}}", "",
             f"Every run kept in `docs/data` for the {first['gpu']}: every implementation, in lesson "
             "order, one table per preset and distribution, each with its date and command. "
             "`make measure` on a machine with this GPU writes them; `make docs` makes this page. "
             "\"% of floor\" is the run's own read-only floor time over the median (for a "
             "host-input version, day 07's, its pinned-copy floor over its end-to-end time); "
             "a skipped implementation says why."]
    order = {"uniform": 0, "constant": 1, "contention:90": 2, "runs:64": 3}
    def key(path):
        rows = list(csv.DictReader(open(path, newline="")))
        return (rows[0]["rows"] != "1048576", order.get(rows[0]["dist"], 9))
    for path in sorted(runs, key=key):
        rows = list(csv.DictReader(open(path, newline="")))
        r0 = rows[0]
        name = os.path.basename(path)
        command = re.sub(r" --(csv|results) \S+| --require-gpu", "", r0["command"])
        lines += ["", f"## {r0['rows']} x {r0['channels']}, {r0['bins']} bins, {r0['dist']}", "",
                  f"{r0['date_utc'][:10]}, `{command}`: read-only floor "
                  f"{fmt_time(r0['floor_median_us'])} (on a clean L2 "
                  f"{fmt_time(r0['clean_floor_median_us'])}), {r0['reps']} repetitions, "
                  f"{r0['threads']} host threads. Data: `docs/data/{name}`.", ""]
        body = []
        for r in rows:
            if r["status"] != "ran":
                body.append([r["lesson"], f"`{r['implementation']}`", r["check"], "", "", "", "", ""])
                continue
            body.append([r["lesson"], f"`{r['implementation']}`", run_value(r, "median"),
                         run_value(r, "min"), run_value(r, "e2e"), run_value(r, "gbps"),
                         run_value(r, "pct"), r["check"]])
        lines += table(["lesson", "version", "median", "min", "end-to-end", "GB/s",
                        "% of floor", "check"], body)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def chart_data(page, out):
    """The progression chart's rows (make charts): those of PAGE's lesson table (its `<!-- table
    lessons ... -->` marker's runs, tools/results/kinds.py's lesson_rows), every implementation
    that ran, as the runner's CSV (its columns, and preset_shown where a lesson's rows come from
    another preset), so that the chart and the table show the same runs."""
    with open(page) as f:
        marker = next((BEGIN.match(l) for l in f if BEGIN.match(l) and
                       BEGIN.match(l).group(1).split()[0] == "lessons"), None)
    if not marker:
        raise Error(f"{page} has no lesson table (<!-- table lessons ... -->)")
    o = kv(shlex.split(marker.group(1))[1:], ("data",), ("library", "more"))
    rows, _ = lesson_rows(o["data"], o.get("more", ""))
    rows = [r for r in rows if r["status"] == "ran"]
    head = list(dict.fromkeys(k for r in rows for k in r))
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, head, restval="", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main(argv):
    # the two one-file modes: the chart's data (make tables), a results page (make docs)
    one_file = {"--chart-data": chart_data, "--results-page": results_page}
    if argv[:1] and argv[0] in one_file:
        try:
            one_file[argv[0]](argv[1], argv[2])
        except Error as e:
            print(f"tables: {e}", file=sys.stderr)
            return 1
        return 0
    status, code_only = 0, argv[:1] == ["--code-only"]
    for page in argv[1:] if code_only else argv:
        with open(page) as f:
            old = f.read()
        try:
            new = rewrite(page, old, code_only)
        except Error as e:
            print(f"tables: {page}: {e}", file=sys.stderr)
            status = 1
            continue
        if new != old:
            with open(page, "w") as f:
                f.write(new)
            print(f"tables: {page} rewritten")
    if code_only:
        return status
    print(f"tables: {stale.counts['stale']} of {stale.counts['tables']} measured tables stale "
          "(measured before their code changed, or at no recorded commit: make measure on the GPU)")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
