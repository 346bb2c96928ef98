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
    lessons  data=TAG [library=IMPL,...] [more=RUN,...]           the course's lesson table: each lesson
             folder (dayNN_*/ with a Makefile), its README's title, its fastest version on main/uniform;
             library calls (default gpu_cub) on a line of their own; lessons missing from main/uniform
             taken from the MORE runs (day 07's own run)
    text     file=FILE                                            a kept output, verbatim, as a code block
    csv      file=FILE [cols=NAME,...]                            a kept CSV (a program's own table) as it is,
             or only the named columns
    variants file=FILE                                            an exercise's kept runs (make answers)

`tables.py --results-page TAG OUT` writes the notes' results page of one GPU (make docs).

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
    date TAG RUN                       the run's date (written as 2026-11-22)
    cell FILE ROW COLUMN               in a kept CSV, COLUMN of the first row that starts with
                                       ROW (cells joined by commas), as it is (with the unit of
                                       a header such as "median (s)")
"""
import csv
import glob
import os
import re
import shlex
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DATA = os.path.join(ROOT, "docs", "data")


class Error(Exception):
    pass


# ---- the kept data ----

_cache = {}


def data_path(name):
    path = os.path.join(DATA, name)
    if not os.path.exists(path):
        raise Error(f"docs/data/{name} does not exist (make measure on a GPU machine writes it)")
    return path


def run_file(tag, run):
    if "/" not in run:
        raise Error(f"run '{run}': write PRESET/DIST, e.g. main/uniform")
    preset, dist = run.split("/", 1)
    return f"{tag}_{preset}_{dist.replace(':', '-')}.csv"


def load_run(tag, run):
    """The runner's CSV of one run: {implementation: row}, and the rows in order."""
    name = run_file(tag, run)
    if name not in _cache:
        with open(data_path(name), newline="") as f:
            rows = [r for r in csv.DictReader(f)]
        _cache[name] = ({r["implementation"]: r for r in rows}, rows, name)
    return _cache[name]


def run_row(tag, run, impl):
    by_impl, _, name = load_run(tag, run)
    if impl not in by_impl:
        raise Error(f"docs/data/{name} has no implementation '{impl}'")
    row = by_impl[impl]
    if row["status"] != "ran":
        raise Error(f"docs/data/{name}: {impl} did not run ({row['check']})")
    return row


def header_lines(name):
    """The '# ...' provenance lines at the top of a kept text or profile file."""
    with open(data_path(name)) as f:
        return [line[2:].strip() for line in f if line.startswith("# ")][:1]


def load_profile(tag, prof):
    """Nsight Compute's CSV: {kernel: {metric: (value, unit)}}, first launch of each kernel."""
    name = f"{tag}_profile_{prof}.csv"
    if name not in _cache:
        kernels, first = {}, {}
        with open(data_path(name), newline="") as f:
            lines = [line for line in f if line.startswith('"')]
        for r in csv.DictReader(lines):
            kernel = re.sub(r"\(.*$", "", r["Kernel Name"]).replace("void ", "").strip()
            first.setdefault(kernel, r["ID"])
            if first[kernel] != r["ID"]:
                continue
            kernels.setdefault(kernel, {})[r["Metric Name"]] = (r["Metric Value"], r["Metric Unit"])
        _cache[name] = (kernels, name)
    return _cache[name]


# ---- formats ----

def fmt_time(us):
    us = float(us)
    if us >= 1e6:
        return f"{us / 1e6:.3f} s"
    if us >= 1e3:
        return f"{us / 1e3:.2f} ms"
    return f"{us:.1f} us"


def fmt_ratio(x):
    return f"{x:.0f}x" if x >= 10 else f"{x:.1f}x" if x >= 2 else f"{x:.2f}x"


def run_value(row, field):
    """A run's field; a host-input ("h2d") row's time is end to end and its floor the
    pinned-copy floor of the same run."""
    t = float(row["median_us"])
    h2d = row["where"] == "h2d"
    floor = float(row["copy_floor_median_us"] if h2d else row["floor_median_us"])
    clean = float(row.get("clean_floor_median_us") or 0)
    if field == "median":
        return fmt_time(t)
    if field == "min":
        return fmt_time(row["min_us"])
    if field == "e2e":
        return fmt_time(row["e2e_median_us"]) if row["where"] in ("device", "h2d") else "(no copy)"
    if field == "gbps":
        return f"{float(row['gb_per_s']):.1f}"
    if field == "pct":
        return f"{100 * floor / t:.0f}%" if row["where"] in ("device", "h2d") else ""
    if field == "pct1": # one decimal, for a figure next to a target
        return f"{100 * floor / t:.1f}%" if row["where"] in ("device", "h2d") else ""
    if field == "cleanpct":
        return f"{100 * clean / t:.0f}%" if row["where"] == "device" else ""
    if field == "floor":
        return fmt_time(floor)
    if field == "copyfloor":
        return fmt_time(row["copy_floor_median_us"])
    if field == "cleanfloor":
        return fmt_time(clean)
    if field == "vsref":
        return f"{float(row['speedup_vs_reference']):.2f}x"
    if field == "vsprev":
        v = float(row["speedup_vs_previous_lesson"])
        return f"{v:.2f}x" if v > 0 else ""
    if field == "preset":
        return row.get("_preset", "")
    if field == "dist":
        return row["dist"]
    if field == "shape":
        return f"{int(row['rows']):,} x {int(row['channels']):,}"
    if field == "bins":
        return row["bins"]
    if field == "impl":
        return f"`{row['implementation']}`"
    raise Error(f"unknown field '{field}'")


HEAD = {"preset": "preset", "dist": "data", "run": "run", "impl": "version", "median": "median",
        "min": "min", "e2e": "end-to-end", "gbps": "GB/s", "pct": "% of floor",
        "cleanpct": "% of clean-L2 read", "floor": "floor", "vsref": "vs `cpu_reference`",
        "vsprev": "vs previous lesson", "shape": "rows x channels", "bins": "bins",
        "copyfloor": "pinned-copy floor"}

# the profile tables' metrics: short name -> (ncu metric, label, kind)
METRICS = {
    "duration": ("gpu__time_duration.sum", "Duration", "ns"),
    "sm": ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) throughput", "%"),
    "smbusy": ("sm__instruction_throughput.avg.pct_of_peak_sustained_active", "SM busy", "%"),
    "l1": ("l1tex__throughput.avg.pct_of_peak_sustained_active", "L1/TEX cache throughput", "%"),
    "l2": ("lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 cache throughput", "%"),
    "dram": ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput", "%"),
    "l1hit": ("l1tex__t_sector_hit_rate.pct", "L1 hit rate", "%"),
    "l2hit": ("lts__t_sector_hit_rate.pct", "L2 hit rate", "%"),
    "dramread": ("dram__bytes_read.sum", "DRAM read", "bytes"),
    "l2l1": ("lts__t_sectors_srcunit_tex_op_read.sum", "L2-to-L1 traffic", "sectors"),
    "atom": ("smsp__sass_inst_executed_op_shared_atom.sum", "shared atomic instructions", "count"),
    "wavefronts": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
                   "shared atomic wavefronts", "count"),
    "conflicts": ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
                  "shared atomic bank conflicts", "count"),
    "wpi": (None, "wavefronts per shared atomic", "ratio"),
    "inst": ("sm__inst_executed.sum", "warp instructions", "count"),
    "ldreq": ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global load requests", "count"),
    "ldsec": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global load sectors", "count"),
    "lsuwave": ("l1tex__data_pipe_lsu_wavefronts.sum", "L1 wavefronts (all LSU)", "count"),
}


def number(text):
    return float(text.replace(",", ""))


def prof_value(tag, prof, kernel, metric):
    kernels, name = load_profile(tag, prof)
    if kernel not in kernels:
        raise Error(f"docs/data/{name} has no kernel '{kernel}' (it has: {', '.join(kernels)})")
    if metric not in METRICS:
        raise Error(f"unknown metric '{metric}' ({' '.join(METRICS)})")
    ncu, _, kind = METRICS[metric]
    values = kernels[kernel]
    if kind == "ratio":
        atoms = number(values[METRICS["atom"][0]][0])
        waves = number(values[METRICS["wavefronts"][0]][0])
        return f"{waves / atoms:.3f}" if atoms else "-"
    if ncu not in values:
        raise Error(f"docs/data/{name}: no metric {ncu} for {kernel}")
    v, unit = values[ncu]
    x = number(v)
    if kind == "ns":
        scale = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "nsecond": 1e-3, "ms": 1e3, "msecond": 1e3}
        return fmt_time(x * scale.get(unit, 1e-3))
    if kind == "%":
        return f"{x:.1f}%"
    if kind == "bytes":
        scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(unit, 1)
        return f"{x * scale / 2**20:,.1f} MiB"
    if kind == "sectors":
        return f"{x * 32 / 2**20:,.1f} MiB"
    return f"{int(x):,}"


def probe_lines(tag):
    name = f"{tag}_probe.txt"
    out = []
    with open(data_path(name)) as f:
        for line in f:
            m = re.match(r"\s+(.*?):?\s+([0-9.]+) us(.*)$", line.rstrip())
            if m:
                out.append((m.group(1).strip(), float(m.group(2)), m.group(3).strip(" ()")))
    if not out:
        raise Error(f"docs/data/{name}: no probe line")
    return out, name


def probe_value(tag, text):
    lines, name = probe_lines(tag)
    hits = [v for what, v, _ in lines if text in what]
    if len(hits) != 1:
        raise Error(f"docs/data/{name}: {len(hits)} lines contain '{text}' (need exactly one)")
    return fmt_time(hits[0])


# ---- provenance ----

def kept_value(name, text):
    """In a kept text file, the first number after TEXT on the first line containing it, in us."""
    with open(data_path(name)) as f:
        for line in f:
            if text in line and not line.startswith("#"):
                m = re.search(r"[0-9]+(?:\.[0-9]+)?", line.split(text, 1)[1])
                if m:
                    return f"{m.group(0)} us"
    raise Error(f"docs/data/{name}: no line with '{text}' and a number after it")


def kept_csv(name):
    """A kept CSV of a lesson program's own (its '# ' provenance lines left out): header, rows."""
    with open(data_path(name), newline="") as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    if not rows:
        raise Error(f"docs/data/{name} holds no rows")
    return rows[0], rows[1:]


def cell_value(name, row, column):
    """In a kept CSV, the cell of COLUMN on the first row that starts with ROW (its cells joined
    by commas), with the unit a header such as "median (s)" names."""
    head, rows = kept_csv(name)
    if column not in head:
        raise Error(f"docs/data/{name} has no column '{column}'")
    unit = re.search(r"\((s|ms|us)\)$", column)
    for r in rows:
        if ",".join(r).startswith(row):
            return r[head.index(column)] + (f" {unit.group(1)}" if unit else "")
    raise Error(f"docs/data/{name}: no row starting with '{row}'")


def rel(page, name):
    """A link from the page to docs/data/NAME."""
    return os.path.relpath(os.path.join(DATA, name), os.path.dirname(os.path.abspath(page)))


def source_line(page, names):
    parts = []
    for name in dict.fromkeys(names):
        row = {}
        if name.endswith(".csv") and "_profile_" not in name:
            with open(data_path(name), newline="") as f:
                row = next(csv.DictReader(line for line in f if not line.startswith("#")), {})
        if "command" in row:
            # the command that reproduces the figures: where the CSV went is not part of it
            command = re.sub(r" --(csv|results) \S+| --require-gpu", "", row["command"])
            if name.endswith("_sweep.csv"):
                command = "make sweep"
            what = f"{row['gpu']}, {row['date_utc'][:10]}, `{command}`"
        else:
            head = header_lines(name)
            what = head[0] if head else ""
            m = re.match(r"(.*?), (\d{4}-\d\d-\d\d)T[0-9:]+Z, course \S+: (.*)$", what)
            if m:
                what = f"{m.group(1)}, {m.group(2)}, `{m.group(3)}`"
        parts.append(f"[{name}]({rel(page, name)}): {what}" if what else f"[{name}]({rel(page, name)})")
    return "*Measured: " + "; ".join(parts) + ". Generated by `make tables`.*"


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


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
    o = kv(args, ("data", "preset", "dists", "impls"), ("value", "pct", "floor"))
    dists = o["dists"].split(",")
    value = o.get("value", "median")
    runs = [f"{o['preset']}/{d}" for d in dists]
    names = [run_file(o["data"], r) for r in runs]
    head = ["version"] + dists + ([f"% of floor ({o['pct']})"] if "pct" in o else [])
    rows = []
    if o.get("floor") == "1":
        rows.append(["floor (the same run's read of the input)"] +
                    [fmt_time(load_run(o["data"], r)[1][0]["floor_median_us"]) for r in runs] +
                    ([""] if "pct" in o else []))
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
        if "pct" in o:
            cells.append(run_value(run_row(o["data"], f"{o['preset']}/{o['pct']}", impl), "pct"))
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
    o = kv(args, ("data",))
    name = f"{o['data']}_sweep.csv"
    with open(data_path(name), newline="") as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))
                if r["status"] == "ran"]
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


def t_lessons(page, args):
    o = kv(args, ("data",), ("library", "more"))
    library = o.get("library", "gpu_cub").split(",")
    _, rows, name = load_run(o["data"], "main/uniform")
    gpu = rows[0]["gpu"]
    names = [name]
    for run in o.get("more", "").split(",") if o.get("more") else []:
        # a lesson's own run on the same preset (day 07's host-input pipelines): its lessons only
        _, extra, extra_name = load_run(o["data"], run)
        have = {r["lesson"] for r in rows}
        rows = rows + [r for r in extra if r["lesson"] not in have]
        names.append(extra_name)
    out = []
    for make in sorted(glob.glob(os.path.join(ROOT, "day[0-9][0-9]_*", "Makefile"))):
        lesson = os.path.basename(os.path.dirname(make))
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
        out.append([f"[{lesson}]({link})", title, run_value(best, "median") if best else "-", pct])
    body = table(["lesson", "what it teaches", f"best median, main preset ({gpu})", "% of floor"], out)
    for impl in library:
        r = next((r for r in rows if r["implementation"] == impl and r["status"] == "ran"), None)
        if r:
            body += ["", f"The library call for comparison: `{impl}` ({r['lesson']}) "
                         f"{run_value(r, 'median')}, {run_value(r, 'pct')} of the floor."]
    return body, names


def t_csv(page, args):
    """A kept CSV file (a lesson program's own output, '# ' provenance lines first) as it is, or
    only the columns named by cols=NAME,... (its header's names)."""
    o = kv(args, ("file",), ("cols",))
    head, rows = kept_csv(o["file"])
    keep = list(range(len(head)))
    if "cols" in o:
        missing = [c for c in o["cols"].split(",") if c not in head]
        if missing:
            raise Error(f"docs/data/{o['file']} has no column {', '.join(missing)}")
        keep = [head.index(c) for c in o["cols"].split(",")]
    return table([head[k] for k in keep], [[r[k] for k in keep] for r in rows]), [o["file"]]


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


KINDS = {"lessons": t_lessons, "variants": t_variants, "text": t_text, "csv": t_csv, "runs": t_runs, "pivot": t_pivot, "profile": t_profile, "probe": t_probe,
         "sweep": t_sweep, "triton": t_triton, "scaling": t_scaling}


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
    if kind == "date" and len(rest) == 2:
        return load_run(rest[0], rest[1])[1][0]["date_utc"][:10]
    if kind == "cell" and len(rest) == 3:
        return cell_value(*rest)
    raise Error(f"figure '{' '.join(args)}': see common/tables.py for the forms")


FIG = re.compile(r"(<!-- fig (.*?) -->)(\*\*)?([-+]?[0-9][0-9,]*(?:\.[0-9]+)?(?: ?(?:us|ms|s|%|x|MiB))?"
                 r"|[0-9]{4}-[0-9]{2}-[0-9]{2})")
BEGIN = re.compile(r"^<!-- table (.*?) -->\s*$")
END = "<!-- /table -->"


def rewrite(page, text):
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
        if args[0] not in KINDS:
            raise Error(f"line {i + 1}: unknown table kind '{args[0]}' ({' '.join(KINDS)})")
        try:
            body, names = KINDS[args[0]](page, args[1:])
        except Error as e:
            raise Error(f"line {i + 1}: {e}")
        out += [line] + body + ["", source_line(page, names), END]
        i = j + 1
    text = "\n".join(out)

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


def main(argv):
    if argv[:1] == ["--results-page"]:
        try:
            results_page(argv[1], argv[2])
        except Error as e:
            print(f"tables: {e}", file=sys.stderr)
            return 1
        return 0
    status = 0
    for page in argv:
        with open(page) as f:
            old = f.read()
        try:
            new = rewrite(page, old)
        except Error as e:
            print(f"tables: {page}: {e}", file=sys.stderr)
            status = 1
            continue
        if new != old:
            with open(page, "w") as f:
                f.write(new)
            print(f"tables: {page} rewritten")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
