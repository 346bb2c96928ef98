"""kinds.py: the table kinds of tables.py (`<!-- table KIND ... -->`), one function each, and
KINDS, which maps a kind's name to its function. tables.py's docstring lists their keys."""
import csv
import glob
import os
import re
from kept import (
    Error, HEAD, METRICS, ROOT, data_path, fmt_ratio, fmt_time, kept_csv, lesson_folders,
    load_profile, load_run, phase_blocks, probe_lines, prof_value, run_file, run_row, run_value,
    table)


# ---- the table kinds ----

def kv(args, required, optional=()):
    opts = {}
    for a in args:
        if "=" not in a:
            raise Error(f"'{a}': write key=value")
        k, v = a.split("=", 1)
        if k not in required and k not in optional:
            raise Error(f"unknown key '{k}' (keys: {' '.join(list(required) + list(optional))})")
        opts[k] = v
    missing = [k for k in required if k not in opts]
    if missing:
        raise Error(f"missing {', '.join(missing)}")
    return opts


def t_runs(page, args):
    o = kv(args, ("data", "runs", "impls", "cols"))
    cols = o["cols"].split(",")
    rows, names = [], []
    for run in o["runs"].split(","):
        for impl in o["impls"].split(","):
            r = dict(run_row(o["data"], run, impl))
            r["_preset"] = run.split("/")[0]
            names.append(run_file(o["data"], run))
            cells = []
            for c in cols:
                if c == "run":
                    cells.append(run.replace("/", ", "))
                elif c.startswith("vs:"):  # speed-up over another implementation of the same run
                    other = float(run_row(o["data"], run, c[3:])["median_us"])
                    cells.append(fmt_ratio(other / float(r["median_us"])))
                else:
                    cells.append(run_value(r, c))
            rows.append(cells)
    head = [f"vs `{c[3:]}`" if c.startswith("vs:") else HEAD.get(c, c) for c in cols]
    return table(head, rows), names


def t_pivot(page, args):
    o = kv(args, ("data", "preset", "dists", "impls"), ("value", "pct", "floor", "ceiling"))
    dists = o["dists"].split(",")
    value = o.get("value", "median")
    runs = [f"{o['preset']}/{d}" for d in dists]
    names = [run_file(o["data"], r) for r in runs]
    # pct=DIST, ceiling=DIST: a column of the share of the read floor / of the shared-atomic
    # ceiling's speed in DIST
    extra = [(k, f"% of {'floor' if k == 'pct' else 'atomic ceiling'} ({o[k]})")
             for k in ("pct", "ceiling") if k in o]
    head = ["version"] + dists + [h for _, h in extra]
    rows = []
    if o.get("floor") == "1":
        rows.append(["floor (the same run's read of the input)"] +
                    [fmt_time(load_run(o["data"], r)[1][0]["floor_median_us"]) for r in runs] +
                    [""] * len(extra))
    impls = o["impls"].split(",")
    best = {}
    for r in runs:
        times = [float(run_row(o["data"], r, i)["median_us"]) for i in impls]
        best[r] = min(times)
    for impl in impls:
        cells = [f"`{impl}`"]
        for r in runs:
            row = run_row(o["data"], r, impl)
            cell = run_value(row, value)
            if len(impls) > 1 and float(row["median_us"]) == best[r] and value == "median":
                cell = f"**{cell}**"
            cells.append(cell)
        for k, _ in extra:
            cells.append(run_value(run_row(o["data"], f"{o['preset']}/{o[k]}", impl),
                                   "pct" if k == "pct" else "ceilpct"))
        rows.append(cells)
    return table(head, rows), names


def load_quote(name, column):
    with open(data_path(name + ".csv"), newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    return {r["metric"]: r[column] for r in csv.DictReader(lines)}, name + ".csv"


def t_profile(page, args):
    o = kv(args, ("cols", "metrics"))
    cols, names = [], []
    for spec in o["cols"].split(";"):
        label, src = spec.split("=", 1)
        parts = src.split(":", 2)
        if parts[0] == "quote":
            values, name = load_quote(parts[1], parts[2])
            cols.append((label, lambda m, values=values: values.get(m, "")))
        else:
            tag, prof, kernel = parts
            name = load_profile(tag, prof)[1]
            cols.append((label, lambda m, t=tag, p=prof, k=kernel: prof_value(t, p, k, m)))
        names.append(name)
    rows = [[METRICS[m][1]] + [f(m) for _, f in cols] for m in o["metrics"].split(",")]
    return table(["metric"] + [c[0] for c in cols], rows), names


def t_probe(page, args):
    o = kv(args, ("data",))
    lines, name = probe_lines(o["data"])
    rows = [[what, fmt_time(v), extra] for what, v, extra in lines]
    return table(["probe", "median", "throughput / work"], rows), [name]


def t_sweep(page, args):
    """Where each GPU version beats the CPU; upto=dayNN keeps the lessons up to that one (those a
    student has met on that page)."""
    o = kv(args, ("data",), ("upto",))
    name = f"{o['data']}_sweep.csv"
    upto = o.get("upto", "day99")
    with open(data_path(name), newline="") as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))
                if r["status"] == "ran" and r["lesson"][:5] <= upto[:5]]
    sizes = sorted({int(r["rows"]) for r in rows})
    cpu = {}
    gpu, order = {}, []
    for r in rows:
        n, t = int(r["rows"]), float(r["median_us"])
        if r["where"] == "host":
            cpu[n] = min(cpu.get(n, t), t)
        else:
            if r["implementation"] not in gpu:
                order.append(r["implementation"])
            gpu.setdefault(r["implementation"], {})[n] = (t, float(r["e2e_median_us"]))

    def crossover(times, k):
        """The smallest size from which the GPU version wins at every larger size."""
        start = None
        for n in reversed(sizes):
            if n not in times or n not in cpu or times[n][k] >= cpu[n]:
                break
            start = n
        return f"{start:,} rows" if start else "never"

    out = [[f"`{impl}`", crossover(gpu[impl], 0), crossover(gpu[impl], 1)] for impl in order]
    return table(["version", "beats the CPU from (kernel time)", "from (end to end)"], out), [name]


def t_triton(page, args):
    o = kv(args, ("data",))
    name = f"{o['data']}_triton.txt"
    rows = []
    with open(data_path(name)) as f:
        text = f.read()
    for r in csv.DictReader(line for line in text.splitlines() if line.startswith(("lesson,", "day"))):
        rows.append([f"CUDA C `{r['implementation']}` (same input)", fmt_time(r["median_us"]),
                     f"{float(r['gb_per_s']):.1f}"])
    for m in re.finditer(r"triton_naive sem=(\S+)\s+median\s+([0-9.]+) us\s+([0-9.]+) GB/s", text):
        label = {"acq_rel": "Triton, `tl.atomic_add` default semantics (`acq_rel`)",
                 "relaxed": 'Triton, `sem="relaxed"`'}.get(m.group(1), f"Triton, sem={m.group(1)}")
        rows.append([label, fmt_time(m.group(2)), m.group(3)])
    if len(rows) < 2:
        raise Error(f"docs/data/{name}: no Triton line")
    return table(["kernel", "median", "GB/s"], rows), [name]


def t_scaling(page, args):
    o = kv(args, ("file",))
    name = o["file"]
    rows, cur = [], None
    with open(data_path(name)) as f:
        for line in f:
            m = re.match(r"== cpu_private --threads (\d+) --dist (\S+)", line)
            if m:
                cur = {"threads": m.group(1), "dist": m.group(2)}
                continue
            m = ROW.match(line)
            if m and cur is not None:
                cur[m.group(1)] = to_us(m.group(2))
                if "cpu_reference" in cur and "cpu_private" in cur:
                    rows.append(cur)
                    cur = None
    out = []
    for r in rows:
        ref, priv = r["cpu_reference"], r["cpu_private"]
        out.append([r["dist"], r["threads"], fmt_time(ref), fmt_time(priv), f"{ref / priv:.2f}x"])
    if not out:
        raise Error(f"docs/data/{name}: no scaling section")
    return table(["data", "threads", "`cpu_reference`", "`cpu_private`", "speed-up"], out), [name]


def lesson_rows(data, more):
    """The rows of the lesson table and the progression chart: the course runner's main/uniform
    run of DATA, each lesson's rows replaced by those of the first MORE run (RUN,...) in which
    that lesson ran: a lesson's own run on the same preset (day 07's host-input pipelines), or
    on the preset its samples need (day 08's u16: the main preset's bytes as 16-bit samples,
    marked preset_shown), so that they say what the lesson's own table says. Rows in lesson
    order; with the names of the runs read."""
    _, rows, name = load_run(data, "main/uniform")
    names = [name]
    for run in more.split(",") if more else []:
        _, extra, extra_name = load_run(data, run)
        if run.split("/")[0] != "main":
            extra = [dict(r, preset_shown=run.split("/")[0]) if r.get("bits") == "16" else r
                     for r in extra]
        own = {r["lesson"] for r in extra if r["status"] == "ran"}
        rows = [r for r in rows if r["lesson"] not in own] + [r for r in extra if r["lesson"] in own]
        names.append(extra_name)
    order = {l: k for k, l in enumerate(lesson_folders())}
    rows.sort(key=lambda r: order.get(r["lesson"], len(order)))  # stable: registry order kept
    return rows, names


def t_lessons(page, args):
    o = kv(args, ("data",), ("library", "more"))
    library = o.get("library", "gpu_cub").split(",")
    rows, names = lesson_rows(o["data"], o.get("more", ""))
    gpu = rows[0]["gpu"]
    out = []
    for lesson in lesson_folders():
        with open(os.path.join(ROOT, lesson, "README.md")) as f:
            title = re.sub(r"^# *Day [0-9]*: *", "", f.readline().strip())
        ran = [r for r in rows if r["lesson"] == lesson and r["status"] == "ran"
               and r["implementation"] not in library]
        best = min(ran, key=lambda r: float(r["median_us"])) if ran else None
        link = os.path.relpath(os.path.join(ROOT, lesson, "README.md"),
                               os.path.dirname(os.path.abspath(page)))
        pct = run_value(best, "pct") if best else ""
        if best and best["where"] == "h2d":
            pct += " of the pinned copy (end to end)"
        if best and best.get("preset_shown"):
            pct += f" (on `{best['preset_shown']}`, the same bytes as 16-bit samples)"
        out.append([f"[{lesson}]({link})", title, run_value(best, "median") if best else "-", pct])
    body = table(["lesson", "what it teaches", f"best median, main preset ({gpu})", "% of floor"], out)
    calls = []
    for impl in library:
        r = next((r for r in rows if r["implementation"] == impl and r["status"] == "ran"), None)
        if r:
            on = f" on `{r['preset_shown']}`" if r.get("preset_shown") else ""
            calls.append(f"`{impl}` ({r['lesson']}) {run_value(r, 'median')}, "
                         f"{run_value(r, 'pct')} of the floor{on}")
    if calls:
        body += ["", f"The library call{'s' if len(calls) > 1 else ''} for comparison: "
                     f"{'; '.join(calls)}."]
    return body, names


def t_csv(page, args):
    """A kept CSV file (a lesson program's own output, '# ' provenance lines first) as it is, or
    only the columns named by cols=NAME,... (its header's names). rows=lessons: one row per
    lesson folder, in lesson order, found by its first cell; a lesson the file lacks says that
    it is not measured yet, and a row of no lesson folder is an error. where=COLUMN:VALUE: only
    the rows whose COLUMN is VALUE (day 07's reduce on the main preset's rows of a file that holds
    two sizes); VALUE may be several, V1|V2 (any of them), and the conditions several,
    C1:V1;C2:V2 (all of them)."""
    o = kv(args, ("file",), ("cols", "rows", "where"))
    head, rows = kept_csv(o["file"])
    for cond in o["where"].split(";") if "where" in o else []:
        column, _, values = cond.partition(":")
        if column not in head:
            raise Error(f"where={o['where']}: docs/data/{o['file']} has no column '{column}'")
        rows = [r for r in rows if r[head.index(column)] in values.split("|")]
    if "where" in o and not rows:
        raise Error(f"where={o['where']}: no row of docs/data/{o['file']}")
    if o.get("rows") not in (None, "lessons"):
        raise Error("rows=lessons is the one choice of rows")
    if o.get("rows") == "lessons":
        lessons, by = lesson_folders(), {r[0]: r for r in rows}
        gone = [k for k in by if k not in lessons]
        if gone:
            raise Error(f"docs/data/{o['file']}: rows of no lesson folder: {', '.join(gone)}")
        rows = [by.get(l) or [l, f"not measured yet (no row in {o['file']})"] + [""] * (len(head) - 2)
                for l in lessons]
    keep = list(range(len(head)))
    if "cols" in o:
        missing = [c for c in o["cols"].split(",") if c not in head]
        if missing:
            raise Error(f"docs/data/{o['file']} has no column {', '.join(missing)}")
        keep = [head.index(c) for c in o["cols"].split(",")]
    return table([head[k] for k in keep], [[r[k] for k in keep] for r in rows]), [o["file"]]


def t_gpus(page, args):
    """`make gpus`' weak and strong scaling side by side (day 07): one row per GPU count (those of
    gpus=N,... or every one the file has), each scaling's median and speed-up for one sum (sum=peer,
    the default: the peer add; sum=nccl: NCCL's all-reduce), from the program's CSV."""
    o = kv(args, ("file",), ("sum", "gpus"))
    head, rows = kept_csv(o["file"])
    sums = {"peer": "(peer add)", "nccl": "(ncclAllReduce)"}
    if o.get("sum", "peer") not in sums:
        raise Error(f"sum={o['sum']}: peer or nccl")
    missing = [c for c in ("data", "GPUs", "median (ms)", "speed-up") if c not in head]
    if missing:
        raise Error(f"docs/data/{o['file']} has no column {', '.join(missing)} (gpus --csv's)")
    col = {c: head.index(c) for c in ("data", "GPUs", "median (ms)", "speed-up")}
    way = {"weak": f"on the GPUs {sums[o.get('sum', 'peer')]}",
           "strong": f"split over the GPUs {sums[o.get('sum', 'peer')]}"}
    cells = {(w, r[col["GPUs"]]): r for w, data in way.items() for r in rows
             if r[col["data"]] == data}
    counts = o["gpus"].split(",") if "gpus" in o else sorted(
        {n for _, n in cells}, key=int)
    out = []
    for n in counts:
        line = [n]
        for w in ("weak", "strong"):
            if (w, n) not in cells:
                raise Error(f"docs/data/{o['file']} has no row '{way[w]},{n}'")
            r = cells[(w, n)]
            line += [f"{r[col['median (ms)']]} ms", r[col["speed-up"]]]
        out.append(line)
    head = ["GPUs", "weak: median", "speed-up", "strong: median", "speed-up"]
    return table(head, out), [o["file"]]


def t_phases(page, args):
    """`gpus`' account of where one call's time goes (day 07's TAG_gpus-phases.txt): a row per
    GPU of each block (the pass, its GPU count and the call's median), its count queued at, the
    count, the sum after it, its end seen at (us, each the median of the calls)."""
    o = kv(args, ("file",))
    rows = []
    for block, call, gpus in phase_blocks(o["file"]):
        for g, v in gpus:
            rows.append([f"{block}: {call} us" if g == gpus[0][0] else "", str(g)] +
                        [f"{x:.1f}" for x in v])
    if not rows:
        raise Error(f"docs/data/{o['file']} holds no account of a call's time (gpus' output)")
    head = ["call (its median)", "GPU", "count queued at (us)", "count (us)",
            "sum after it (us)", "end seen at (us)"]
    return table(head, rows), [o["file"]]


def t_regions(page, args):
    """The code a student writes: every `// SOLUTION name [impls]` region of the sources, read
    from the sources themselves (not measured: no provenance line)."""
    kv(args, ())
    rows = []
    for path in sorted(glob.glob(os.path.join(ROOT, "day[0-9][0-9]_*", "*.*")) +
                       glob.glob(os.path.join(ROOT, "common", "*.*"))):
        if not path.endswith((".c", ".h", ".cu", ".cuh")):
            continue
        for line in open(path):
            m = re.match(r"\s*// SOLUTION (\w+) \[([\w ]+)\]", line)
            if m:
                rows.append([f"`{os.path.relpath(path, ROOT)}`", f"`{m.group(1)}`",
                             ", ".join(f"`{n}`" for n in m.group(2).split())])
    if not rows:
        raise Error("no SOLUTION region in the sources")
    return table(["file", "what the student writes", "needed by"], rows), None


def t_text(page, args):
    o = kv(args, ("file",))
    with open(data_path(o["file"])) as f:
        body = [line.rstrip("\n") for line in f if not line.startswith("# ")]
    return ["```"] + body + ["```"], [o["file"]]


ROW = re.compile(r"^\S+\s+(\S+)\s+(?:host|device)\s+([0-9.]+ (?:us|ms|s))\s+([0-9.]+ (?:us|ms|s))")


def to_us(text):
    v, unit = text.split()
    return float(v) * {"us": 1, "ms": 1e3, "s": 1e6}[unit]


def log_value(name, context, impl, field="median"):
    with open(data_path(name)) as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines) if context in line), None)
    if start is None:
        raise Error(f"docs/data/{name}: no line contains '{context}'")
    for line in lines[start:]:
        m = ROW.match(line)
        if m and m.group(1) == impl:
            return fmt_time(to_us(m.group(2 if field == "median" else 3)))
    raise Error(f"docs/data/{name}: no {impl} line after '{context}'")


def t_variants(page, args):
    """make answers' log: '# ... measured DATE on GPU, course C' per run, '## variant NAME' and
    '$ command' per measurement, then the runner's table line."""
    o = kv(args, ("file",), ("labels",))
    name = o["file"]
    labels = dict(x.split("=", 1) for x in o.get("labels", "").split(";") if x)
    cells, order, run, variant, dist = {}, [], "", "", ""
    with open(data_path(name)) as f:
        for line in f:
            m = re.match(r"# \S+: measured (\S+) .* on (.*), course (\w+)", line)
            if m:
                run = f"course {m.group(3)}"
                continue
            m = re.match(r"## variant (\S+)", line)
            if m:
                variant = m.group(1)
                continue
            if line.startswith("$ "):
                m = re.search(r"--dist (\S+)", line)
                dist = m.group(1) if m else "uniform"
                continue
            m = ROW.match(line)
            if m and variant:
                key = (run, variant)
                if key not in cells:
                    order.append(key)
                    cells[key] = {}
                cells[key][dist] = fmt_time(to_us(m.group(2)))
    dists = sorted({d for c in cells.values() for d in c}, key=lambda d: d != "constant")
    rows = []
    for run, variant in order:
        m = re.match(r"d\d\d_stride(\d+)$", variant)
        label = labels.get(f"{run.split()[-1]}:{variant}") or (
            f"stride {m.group(1)} counters ({int(m.group(1)) * 4 // 64} lines)" if m else variant)
        rows.append([run, label] + [cells[(run, variant)].get(d, "") for d in dists])
    if not rows:
        raise Error(f"docs/data/{name}: no variant")
    return table(["run", "variant"] + [f"`--dist {d}`" for d in dists], rows), [name]


import snippets as _code


def t_code(page, args):
    return _code.t_code(page, args, kv)


def t_diff(page, args):
    return _code.t_diff(page, args, kv)


KINDS = {"code": t_code, "diff": t_diff, "regions": t_regions, "lessons": t_lessons, "variants": t_variants, "text": t_text, "csv": t_csv, "runs": t_runs, "pivot": t_pivot, "profile": t_profile, "probe": t_probe,
         "sweep": t_sweep, "triton": t_triton, "scaling": t_scaling, "gpus": t_gpus,
         "phases": t_phases}
