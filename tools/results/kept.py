"""kept.py: the data kept in docs/data, read for tables.py: the runner's CSVs, Nsight Compute's
profiles, the probe and other kept outputs; how their values are formatted; the provenance line
under each table. tables.py's docstring says how a page names them."""
import csv
import glob
import os
import re

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
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
    if field == "ceiling": # the shared-atomic ceiling of the same run (DAY00: the two roofs)
        return fmt_time(row["atomic_ceiling_median_us"])
    if field == "ceilpct": # the share of the ceiling's speed: the roof days 02-05 are graded by
        c = float(row.get("atomic_ceiling_median_us") or 0)
        return f"{100 * c / t:.1f}%" if row["where"] == "device" and c > 0 else ""
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
        "min": "min", "e2e": "end-to-end", "gbps": "GB/s", "pct": "% of floor", "pct1": "% of floor",
        "cleanpct": "% of clean-L2 read", "floor": "floor", "ceiling": "shared-atomic ceiling",
        "ceilpct": "% of atomic ceiling", "vsref": "vs `cpu_reference`",
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
    """In a kept text file, the first number after TEXT on the first line containing it, with the
    unit written after it there (us, ms or s; a ratio's x or a share's % as written, with no
    space), else in us."""
    with open(data_path(name)) as f:
        for line in f:
            if text in line and not line.startswith("#"):
                m = re.search(r"([0-9]+(?:\.[0-9]+)?)(?: (us|ms|s)\b|(x|%)(?![A-Za-z0-9]))?",
                              line.split(text, 1)[1])
                if m and m.group(3):
                    return f"{m.group(1)}{m.group(3)}"
                if m:
                    return f"{m.group(1)} {m.group(2) or 'us'}"
    raise Error(f"docs/data/{name}: no line with '{text}' and a number after it")


#: the columns of a GPU's line in `gpus`' account of where a call's time goes (TAG_gpus-phases.txt)
PHASES = ("queued", "count", "sum", "end")


def phase_blocks(name):
    """`gpus`' account of where one call's time goes (TAG_gpus-phases.txt: a line "# BLOCK: the
    call T us ..." then a line "#   GPU g: queued count sum end" per GPU), as a list of (BLOCK, T,
    [(g, [queued, count, sum, end]), ...]), in the file's order."""
    with open(data_path(name)) as f:
        lines = f.read().split("\n")
    blocks = []
    for k, line in enumerate(lines):
        if not line.startswith("# ") or ": the call " not in line:
            continue
        block, rest = line[2:].split(": the call ", 1)
        gpus = []
        for gpu in lines[k + 1:]:
            m = re.match(r"#\s+GPU ([0-9]+):((?:\s+[0-9.]+){4})\s*$", gpu)
            if not m:
                break
            gpus.append((int(m.group(1)), [float(v) for v in m.group(2).split()]))
        blocks.append((block, rest.split()[0], gpus))
    return blocks


def phase_value(name, block, column):
    """In `gpus`' account of where one call's time goes (phase_blocks()), block BLOCK's call time
    T (COLUMN "call"), or the largest value of COLUMN (queued, count, sum or end) over the block's
    GPUs: the last GPU's, which the call waits for. In us."""
    if column != "call" and column not in PHASES:
        raise Error(f"phase column '{column}': call or one of {', '.join(PHASES)}")
    for name_of, call, gpus in phase_blocks(name):
        if name_of != block or not gpus:
            continue
        if column == "call":
            return f"{call} us"
        return f"{max(v[PHASES.index(column)] for _, v in gpus):.1f} us"
    raise Error(f"docs/data/{name}: no block '# {block}: the call ...' with its GPUs' lines")


def lesson_folders():
    """Every lesson folder (dayNN_name/ with a Makefile) in lesson order: the build's lesson list
    (the top-level Makefile's ALL_LESSONS)."""
    return [os.path.basename(os.path.dirname(m))
            for m in sorted(glob.glob(os.path.join(ROOT, "day[0-9][0-9]_*", "Makefile")))]


def gpu_lessons():
    """The lesson folders whose registry has an entry that runs on the GPU (`.where` other than
    HIST_HOST, as the registries in the lesson's sources declare it)."""
    out = []
    for lesson in lesson_folders():
        for path in sorted(glob.glob(os.path.join(ROOT, lesson, "*.c*"))):
            if re.search(r"\.where = HIST_(?!HOST\b)\w+", open(path, encoding="utf-8").read()):
                out.append(lesson)
                break
    return out


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
