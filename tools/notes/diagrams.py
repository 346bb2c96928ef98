#!/usr/bin/env python3
"""The lessons' diagrams (docs/images/day0N_*.svg), drawn as plain SVG: who counts which samples
into which counters, lesson by lesson.

`make tables` runs it (through `make charts`) and CI fails if a kept SVG differs from what it
draws; the SVGs are kept in the tree, so building the course or the notes never needs Python.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "docs", "images")
FONT = 'font-family="DejaVu Sans, Arial, sans-serif"'
BANK_COLOURS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
                "#ff9da7"]


class Svg:
    def __init__(self, width, height, title):
        self.parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                      f'viewBox="0 0 {width} {height}" {FONT} font-size="12">',
                      f'<title>{title}</title>',
                      f'<rect width="{width}" height="{height}" fill="white"/>']

    def rect(self, x, y, w, h, fill="none", stroke="#333", sw=1, opacity=1.0):
        self.parts.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" '
                          f'fill-opacity="{opacity}" stroke="{stroke}" stroke-width="{sw}"/>')

    def text(self, x, y, s, size=12, anchor="start", weight="normal", fill="#111"):
        s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.parts.append(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
                          f'font-weight="{weight}" fill="{fill}">{s}</text>')

    def line(self, x1, y1, x2, y2, stroke="#333", sw=1.5, arrow=False):
        marker = ' marker-end="url(#arrow)"' if arrow else ""
        self.parts.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{stroke}" '
                          f'stroke-width="{sw}"{marker}/>')

    def arrow_def(self):
        self.parts.append('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" '
                          'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
                          '<path d="M 0 0 L 10 5 L 0 10 z" fill="#333"/></marker></defs>')

    def save(self, name):
        with open(os.path.join(OUT, name), "w") as f:
            f.write("\n".join(self.parts + ["</svg>"]) + "\n")


def day04_tiling():
    s = Svg(920, 420, "Day 04: blocks tiled over channel groups and row chunks")
    s.arrow_def()
    s.text(20, 28, "Day 04: the grid tiles the [rows, channels] input; each block counts one tile",
           15, weight="bold")
    x0, y0, cw, rh = 130, 70, 46, 26
    for g in range(8):
        s.text(x0 + g * cw + cw / 2, y0 - 8, f"{g * 64}-{g * 64 + 63}", 10, "middle")
    s.text(x0 + 4 * cw, y0 - 24, "channel groups of 64 (blockIdx.x)", 12, "middle")
    for c in range(10):
        label = f"chunk {c}" if c < 9 else "..."
        s.text(x0 - 6, y0 + c * rh + 17, label, 10, "end")
        for g in range(8):
            hot = (g == 2 and c == 3)
            s.rect(x0 + g * cw, y0 + c * rh, cw, rh, fill="#f28e2b" if hot else "#dde6f0")
    s.text(x0 - 6, y0 - 8, "row chunks (blockIdx.y)", 10, "end")
    s.text(x0 + 4 * cw, y0 + 10 * rh + 22, "198 chunks x 8 groups = 1,584 blocks of 512 threads",
           11, "middle")
    s.text(x0 + 4 * cw, y0 + 10 * rh + 38, "(3 blocks per SM: 4 waves on 132 SMs)", 11, "middle")
    # the block's shared histogram
    bx, by = 580, 70
    s.text(bx, by - 24, "block (2, 3): its shared histogram s_hist", 12, weight="bold")
    s.text(bx, by - 8, "[64 channels][256 bins] x 4 bytes = 64 KiB", 11)
    for ch in range(8):
        s.rect(bx, by + ch * 22, 280, 22, fill="#fbe3cc")
        s.text(bx - 6, by + ch * 22 + 15, f"ch {128 + ch}" if ch < 7 else "...", 10, "end")
    s.text(bx + 140, by + 8 * 22 + 16, "bins 0 ... 255 (row of 1 KiB)", 10, "middle")
    s.line(x0 + 2 * cw + cw, y0 + 3 * rh + rh / 2, bx - 40, by + 80, arrow=True)
    steps = ["1. zero s_hist, barrier",
             "2. each thread reads its channel down its rows:",
             "   a warp reads 32 consecutive bytes of a row (coalesced);",
             "   one shared atomicAdd per sample",
             "3. barrier, then one global atomicAdd per non-zero",
             "   counter into hist[channel][bin] (the other chunks",
             "   of the same group add into the same counters)"]
    for i, t in enumerate(steps):
        s.text(bx, by + 8 * 22 + 44 + i * 17, t, 11)
    s.save("day04_tiling.svg")


def day05_padded():
    s = Svg(1020, 400, "Day 05: the padded [64][258] shared histogram and its banks")
    s.text(20, 28, "Day 05: channel ch's bin v sits at word ch * 257 + ch / 4 + v; its bank is that "
           "word mod 32", 15, weight="bold")
    s.text(20, 50, "16 lanes of a half-warp read one row's 16 words (4 channels each); on constant "
           "data (every v equal) their byte-0 channels 0, 4, 8, ... 60 land in:", 11)
    x0, y0 = 40, 80
    for w in range(16):
        ch = 4 * w
        for b in range(4):
            c = ch + b
            bank = (c * 257 + c // 4) % 32
            s.rect(x0 + w * 52, y0 + b * 30, 50, 28, fill=BANK_COLOURS[bank % 8], opacity=0.35)
            s.text(x0 + w * 52 + 25, y0 + b * 30 + 12, f"ch {c}", 9, "middle")
            s.text(x0 + w * 52 + 25, y0 + b * 30 + 24, f"bank {bank}", 9, "middle")
        s.text(x0 + w * 52 + 25, y0 - 6, f"lane {w}", 9, "middle")
    for b in range(4):
        s.text(x0 - 6, y0 + b * 30 + 18, f"byte {b}", 9, "end")
    s.text(x0, y0 + 4 * 30 + 22, "bank of (ch, v) = (5w + b + v) mod 32 for ch = 4w + b: the 16 "
           "lanes of one byte position use 16 different banks, whatever v is.", 11)
    s.text(x0, y0 + 4 * 30 + 40, "Without the padding (ch * 256 + v) each lane would use bank "
           "v mod 32 of its own v: a 16-way conflict on constant data (exercise 2 asks what it "
           "costs on uniform data).", 11)
    # the table
    ty = y0 + 4 * 30 + 70
    s.text(x0, ty, "the table: 64 rows of 258 words (256 bins, then padding); 66,048 bytes", 11,
           weight="bold")
    for r in range(5):
        s.rect(x0, ty + 10 + r * 20, 640, 20, fill="#dde6f0")
        s.rect(x0 + 640, ty + 10 + r * 20, 10, 20, fill="#bbbbbb")
        s.text(x0 - 6, ty + 24 + r * 20, f"ch {r}" if r < 4 else "...", 9, "end")
    s.text(x0 + 320, ty + 24, "bins 0 ... 255", 10, "middle")
    s.text(x0 + 660, ty + 24, "+ 1 word per channel, + 1 more after every 4 channels", 10)
    s.save("day05_padded.svg")


def day06_layout():
    s = Svg(1000, 580, "Day 06: the [bin][slot] histogram, the lanes' slots, and the flush")
    s.arrow_def()
    s.text(20, 28, "Day 06: a warp reads 128 channels of one row, 4 per lane; byte b of lane L's "
           "word is counted at slot 32b + L", 15, weight="bold")
    x0, y0 = 60, 70
    s.text(x0, y0 - 14, "one row of the block's 128 channels: lane L loads the 32-bit word of "
           "channels 4L .. 4L+3", 11)
    for L in range(8):
        for b in range(4):
            s.rect(x0 + (4 * L + b) * 22, y0, 22, 22, fill=BANK_COLOURS[L % 8], opacity=0.35)
            s.text(x0 + (4 * L + b) * 22 + 11, y0 + 15, f"{4 * L + b}", 8, "middle")
        s.text(x0 + (4 * L + 2) * 22, y0 + 36, f"lane {L}", 9, "middle")
    s.text(x0 + 32 * 22 + 6, y0 + 15, "... channel 127 (lane 31)", 10)
    # histogram rows
    hy = y0 + 80
    s.text(x0, hy - 10, "s_hist: [256 bins][128 slots] of 4-byte counters = 128 KiB; "
           "slot s is in bank s mod 32", 11, weight="bold")
    for row, label in enumerate(["bin 0", "bin 1", "...", "bin v", "...", "bin 255"]):
        for q in range(4):
            s.rect(x0 + q * 176, hy + row * 26, 176, 26, fill="#f4f4f4")
        s.text(x0 - 6, hy + row * 26 + 17, label, 10, "end")
    for q in range(4):
        s.text(x0 + q * 176 + 88, hy + 6 * 26 + 16, f"slots {32 * q}-{32 * q + 31}: byte {q}", 10,
               "middle")
    # the atomics of one instruction
    ry = hy + 3 * 26
    for L in range(32):
        s.rect(x0 + 2 * 176 + L * 5.5, ry, 5.5, 26, fill=BANK_COLOURS[L % 8], opacity=0.8,
               stroke="none")
    s.text(x0 + 4 * 176 + 8, ry + 4, "one instruction on constant data (value v):", 10)
    s.text(x0 + 4 * 176 + 8, ry + 17, "byte 2 of all 32 lanes, slots 64 + L:", 10)
    s.text(x0 + 4 * 176 + 8, ry + 30, "banks 0..31, all different (other data:", 10)
    s.text(x0 + 4 * 176 + 8, ry + 43, "other rows, the same 32 banks)", 10)
    s.text(x0, hy + 6 * 26 + 40, "Lane L always uses bank L, whatever the bins are: every "
           "warp-wide atomicAdd is conflict-free, constant data included.", 11)
    # the transposition buffer
    ty = hy + 6 * 26 + 80
    s.text(x0, ty, "The flush, 64 bins at a time: s_hist[bin][slot] -> s_flush[slot][64 + 1] -> "
           "hist[channel][bin]", 11, weight="bold")
    s.rect(x0, ty + 12, 200, 90, fill="#f4f4f4")
    s.text(x0 + 100, ty + 60, "[64 bins][128 slots]", 10, "middle")
    s.rect(x0 + 300, ty + 12, 200, 90, fill="#dde6f0")
    s.rect(x0 + 500, ty + 12, 8, 90, fill="#bbbbbb")
    s.text(x0 + 400, ty + 52, "s_flush [128 slots][64 bins", 10, "middle")
    s.text(x0 + 400, ty + 66, "+ 1 word of padding]", 10, "middle")
    s.rect(x0 + 600, ty + 12, 200, 90, fill="#fbe3cc")
    s.text(x0 + 700, ty + 52, "hist[c0 + channel][b0 + bin]", 10, "middle")
    s.text(x0 + 700, ty + 66, "32 consecutive bins per warp", 10, "middle")
    s.line(x0 + 205, ty + 57, x0 + 295, ty + 57, arrow=True)
    s.line(x0 + 512, ty + 57, x0 + 595, ty + 57, arrow=True)
    s.text(x0 + 250, ty + 120, "write: 32 lanes, 32 slots", 10, "middle")
    s.text(x0 + 250, ty + 134, "(65 words apart: 32 banks)", 10, "middle")
    s.text(x0 + 555, ty + 120, "read slot-major;", 10, "middle")
    s.text(x0 + 555, ty + 134, "atomicAdd of non-zero", 10, "middle")
    s.save("day06_layout.svg")


def private_copies(s, y0, workers, copies, output, note):
    """Four workers, each counting its share into its own copy, the copies summed into one output
    (days 01 and 03): WORKERS and COPIES are one label (a copy's: a list of lines) per worker,
    OUTPUT the output box's two lines, NOTE the line under it all."""
    x0, row, cx = 40, 50, 310
    for w, (worker, copy) in enumerate(zip(workers, copies)):
        y = y0 + w * row
        s.rect(x0, y, 160, 40, fill=BANK_COLOURS[w], opacity=0.35)
        s.text(x0 + 80, y + 25, worker, 11, "middle")
        s.rect(cx, y, 230, 40, fill=BANK_COLOURS[w], opacity=0.6)
        for n, line in enumerate(copy):
            s.text(cx + 115, y + (25 if len(copy) == 1 else 18 + 14 * n), line, 10, "middle")
        s.line(x0 + 162, y + 20, cx - 4, y + 20, arrow=True)
        s.line(cx + 232, y + 20, 656, y0 + 95, arrow=True)
    s.rect(660, y0 + 70, 210, 50, fill="#dde6f0")
    s.text(765, y0 + 90, output[0], 11, "middle")
    s.text(765, y0 + 106, output[1], 10, "middle")
    s.text(450, y0 + len(workers) * row + 20, note, 11, "middle")


def day01_private():
    s = Svg(900, 310, "Day 01: one private histogram per thread, merged once")
    s.arrow_def()
    s.text(20, 28, "Day 01: each thread counts a contiguous range of rows into its own copy; "
           "one merge at the end", 15, weight="bold")
    s.text(40, 62, "[rows, channels] bytes", 11)
    private_copies(s, 70, [f"rows of thread {t}" for t in range(4)],
                   [[f"thread {t}: [copies][channels][stride]"] for t in range(4)],
                   ["hist[channel][bin]", "the sum of every copy"],
                   "no locks, no sharing: a thread's increments hit its own cache lines")
    s.save("day01_private.svg")


def day02_global():
    s = Svg(900, 300, "Day 02: one thread per sample, one global atomic each")
    s.arrow_def()
    s.text(20, 28, "Day 02: thread i reads sample i and adds 1 to one counter of the global "
           "histogram", 15, weight="bold")
    x0, y0, w = 40, 70, 26
    s.text(x0, y0 - 10, "samples (row-major), one thread each", 11)
    for i in range(24):
        c = i % 4
        s.rect(x0 + i * w, y0, w, 26, fill=BANK_COLOURS[c], opacity=0.45)
        s.text(x0 + i * w + w / 2, y0 + 17, str(i), 9, "middle")
    s.text(x0, y0 + 44, "channel = i % channels (4 here), bin = hist_bin_of(sample)", 11)
    hx, hy = 140, 180
    s.text(hx, hy - 10, "hist[channel][bin] in global memory (L2): 512 x 256 counters", 11)
    for c in range(4):
        s.rect(hx + c * 150, hy, 140, 28, fill=BANK_COLOURS[c], opacity=0.3)
        s.text(hx + c * 150 + 70, hy + 18, f"channel {c}: 256 bins", 10, "middle")
    for i in (0, 5, 10, 15):
        c = i % 4
        s.line(x0 + i * w + w / 2, y0 + 28, hx + c * 150 + 70, hy - 2, arrow=True)
    s.text(450, 250, "every sample is one atomicAdd in L2: equal samples of one channel queue on "
           "one counter", 11, "middle")
    s.save("day02_global.svg")


def day03_private():
    s = Svg(900, 310, "Day 03: a private copy per block in global memory, merged at the end")
    s.arrow_def()
    s.text(20, 28, "Day 03: each block counts into its own copy (in L2); at its end it adds its "
           "non-zero counters into the output", 15, weight="bold")
    private_copies(s, 70, [f"block {b}: its samples" for b in range(4)],
                   [[f"d_private + {b} * counters", "atomicAdd per sample"] for b in range(4)],
                   ["hist[channel][bin]", "__syncthreads, then atomicAdd"],
                   "fewer blocks share a counter than threads did on day 02: contention falls, "
                   "but every atomic still goes to L2")
    s.save("day03_private.svg")


def day06_gate():
    s = Svg(980, 330, "Day 06, step 9: the zeroing block opens the gate; each gatekeeper waits there")
    s.arrow_def()
    s.text(20, 28, "Day 06, step 9: no grid barrier: one block zeroes the output and opens a gate "
           "that each block's gatekeeper waits at", 15, weight="bold")
    x0, unit = 210, 70  # time runs left to right, unit pixels per step
    rows = [("zeroing block", 70), ("counting warps (16)", 135), ("gatekeeper warp", 200)]
    for name, y in rows:
        s.text(x0 - 12, y + 22, name, 12, "end")
    s.line(20, 117, 960, 117, stroke="#bbb", sw=1)
    s.text(20, 132, "each counting block:", 11, "start", "bold")
    # the zeroing block: zero the output, then its release add flips the gate's top bit
    s.rect(x0, 70, 2 * unit, 34, fill=BANK_COLOURS[1], opacity=0.6)
    s.text(x0 + unit, 91, "out[k] = 0", 11, "middle")
    s.rect(x0 + 2 * unit, 70, 2.4 * unit, 34, fill=BANK_COLOURS[2], opacity=0.6)
    s.text(x0 + 3.2 * unit, 86, "gate += 2^31 - (blocks - 1)", 10, "middle")
    s.text(x0 + 3.2 * unit, 99, "(release)", 10, "middle")
    # the counting warps
    parts = [("loads asked", 1.3, 0), ("counters = 0", 1.3, 3), ("count: atomics", 3.4, 4),
             ("sum lanes", 1.4, 5)]
    x = x0
    for label, w, c in parts:
        s.rect(x, 135, w * unit, 34, fill=BANK_COLOURS[c], opacity=0.6)
        s.text(x + w * unit / 2, 156, label, 11, "middle")
        x += w * unit
    barrier = x + 8
    s.line(barrier, 128, barrier, 242, stroke="#333", sw=3)
    s.text(barrier, 258, "__syncthreads()", 11, "middle", "bold")
    s.rect(barrier + 8, 135, 1.6 * unit, 34, fill=BANK_COLOURS[6], opacity=0.6)
    s.text(barrier + 8 + 0.8 * unit, 156, "out += sums", 11, "middle")
    # the gatekeeper: arrive relaxed, then read until the top bit flips
    s.rect(x0, 200, 1.2 * unit, 34, fill=BANK_COLOURS[2], opacity=0.35)
    s.text(x0 + 0.6 * unit, 221, "gate += 1", 11, "middle")
    s.rect(x0 + 1.2 * unit, 200, 4.2 * unit, 34, fill="#eee")
    s.text(x0 + 3.3 * unit, 221, "read the gate (acquire) until its top bit flips", 11, "middle")
    s.line(x0 + 4.4 * unit, 106, x0 + 4.6 * unit, 198, stroke=BANK_COLOURS[2], arrow=True)
    s.text(x0 + 4.7 * unit, 185, "the last add flips it", 10)
    s.line(x0 + 5.4 * unit, 217, barrier - 4, 217, arrow=True)
    s.text(20, 290, "The gate is one word per GPU. Every counting block adds 1, the zeroing block "
           "2^31 less their number, so its top bit flips once all have added,", 11)
    s.text(20, 306, "whatever their order, and its low bits are back where they were for the next "
           "launch. A block adds into the output only after its gatekeeper saw the flip.", 11)
    s.save("day06_gate.svg")


def day07_streams():
    s = Svg(920, 280, "Day 07, step 4: one stream copies, one counts, events tie them")
    s.arrow_def()
    s.text(20, 28, "Day 07, step 4: chunk k's count waits for its copy; buffer b's next copy "
           "waits for its last count", 15, weight="bold")
    x0, y0, w = 150, 70, 110
    s.text(x0 - 10, y0 + 22, "copy stream", 12, "end")
    s.text(x0 - 10, y0 + 92, "count stream", 12, "end")
    for k in range(6):
        b = k % 3
        s.rect(x0 + k * w, y0, w - 6, 34, fill=BANK_COLOURS[b], opacity=0.55)
        s.text(x0 + k * w + (w - 6) / 2, y0 + 21, f"copy {k} -> buf {b}", 10, "middle")
        cx = x0 + (k + 1) * w
        s.rect(cx, y0 + 70, w * 0.4, 34, fill=BANK_COLOURS[b], opacity=0.9)
        s.text(cx + w * 0.2, y0 + 91, f"count {k}", 9, "middle")
        s.line(x0 + k * w + w - 8, y0 + 36, cx + 4, y0 + 68, arrow=True)
    s.line(x0 + 1 * w + w * 0.4, y0 + 70, x0 + 3 * w + 4, y0 + 36, stroke="#b07aa1", arrow=True)
    s.text(x0, y0 + 140, "black arrows: event copied[b] (the count waits for the copy); purple: "
           "event counted[b] (buffer b is copied into", 11)
    s.text(x0, y0 + 156, "again only after its chunk is counted, 3 buffers later). The copy "
           "engine gets one queue of back-to-back copies,", 11)
    s.text(x0, y0 + 172, "as the pinned-copy floor does; each count hides under the next copy.", 11)
    s.save("day07_streams.svg")


def day08_packed():
    s = Svg(980, 360, "Day 08, step 4: 16-bit counters two to a word, and what a wrap books")
    s.arrow_def()
    s.text(20, 28, "Day 08, step 4: 65,536 counters in 128 KiB; each atomicAdd returns the word "
           "before it", 15, weight="bold")
    x0, y0, ww = 40, 60, 110
    for j in range(8):  # words 0..7 of the packed array
        x = x0 + j * ww
        label = f"word {j}" if j < 7 else "..."
        s.text(x + ww / 2, y0 - 6, label, 11, "middle")
        s.rect(x, y0, ww / 2, 30, fill=BANK_COLOURS[j % 8], opacity=0.35)
        s.rect(x + ww / 2, y0, ww / 2, 30, fill=BANK_COLOURS[j % 8], opacity=0.7)
        if j < 7:
            s.text(x + ww / 4, y0 + 19, f"bin {2 * j}", 10, "middle")
            s.text(x + 3 * ww / 4, y0 + 19, f"bin {2 * j + 1}", 10, "middle")
    s.text(x0, y0 + 48, "bin b lives in word b / 2 (bank (b / 2) mod 32): the low half for even "
           "b, the high half for odd b; a word's two halves are added to by one 32-bit atomicAdd",
           11)
    # the wrap of a low half, step by step
    y1 = 160
    s.text(20, y1, "A low half wraps (thread A adds 1 to bin 2j, which holds 65,535):", 12,
           "start", "bold")
    steps = [("old = atomicAdd(w, 1)", "high h, low 65,535 -> high h+1, low 0", 0),
             ("spill[2j] += 65,536", "the low half lost 65,536: booked", 2),
             ("back = atomicAdd(w, 0xFFFF0000)", "the carry into the high half taken back", 4),
             ("spill[2j+1] += up - down", "+65,536 if old's high was 65,535 (the carry wrapped it),"
              " -65,536 if back's high is 0", 6)]
    for k, (code, what, c) in enumerate(steps):
        y = y1 + 16 + k * 36
        s.rect(40, y, 250, 28, fill=BANK_COLOURS[c], opacity=0.45)
        s.text(50, y + 18, code, 11)
        s.text(305, y + 18, what, 11)
    s.text(20, 330, "Between the first add and the taking-back, another thread adding to bin "
           "2j+1 sees it one too high: it books its own wrap from the word it gets back,", 11)
    s.text(20, 346, "and the taking-back books the rest, so each half's final value plus its "
           "spill is what was added to it, under every order of the adds.", 11)
    s.save("day08_packed.svg")


def day09_cluster():
    s = Svg(980, 300, "Day 09, step 1: a cluster's blocks hold one histogram between them")
    s.arrow_def()
    s.text(20, 28, "Day 09, step 1: a cluster of 4 blocks; each sample's atomic goes to the block "
           "that owns its bin", 15, weight="bold")
    x0, y0, bw = 60, 70, 210
    for r in range(4):
        x = x0 + r * (bw + 20)
        s.rect(x, y0, bw, 150, fill="#f6f6f6")
        s.text(x + bw / 2, y0 + 18, f"block rank {r} (an SM)", 12, "middle", "bold")
        s.rect(x + 15, y0 + 30, bw - 30, 40, fill=BANK_COLOURS[r], opacity=0.55)
        s.text(x + bw / 2, y0 + 54, f"bins {r * 16384} .. {r * 16384 + 16383}", 11, "middle")
        s.rect(x + 15, y0 + 95, bw - 30, 40, fill="#ddd")
        s.text(x + bw / 2, y0 + 119, "reads its share of the input", 11, "middle")
    # a few remote adds from block 0's samples
    for r, label in ((0, "local"), (1, "remote"), (3, "remote")):
        x = x0 + r * (bw + 20) + bw / 2
        s.line(x0 + bw / 2 + 10 * r, y0 + 95, x - 20 + 10 * r, y0 + 72, stroke=BANK_COLOURS[r],
               arrow=True)
    s.text(x0, y0 + 170, "owner = f / per_block, index f % per_block (owner_add); the add "
           "goes through cluster.map_shared_rank(): distributed shared memory.", 11)
    s.text(x0, y0 + 188, "cluster.sync() after zeroing (no block adds to counters not yet zero) "
           "and before the flush (every add landed); each block flushes its own.", 11)
    s.text(x0, y0 + 206, "In a cluster of 4, 3 of 4 samples' atomics leave the SM: the lesson's "
           "table measures what that costs.", 11)
    s.save("day09_cluster.svg")


def day09_exchange():
    s = Svg(980, 400, "Day 09, step 2: one round of the exchange in a cluster of 8")
    s.arrow_def()
    s.text(20, 28, "Day 09, step 2: round i of the exchange, seen from block r (channel r's "
           "counters) of a cluster of 8", 15, weight="bold")
    # the sender's side
    x0, y0 = 30, 60
    s.rect(x0, y0, 250, 150, fill="#f6f6f6")
    s.text(x0 + 125, y0 + 18, "every thread of every block", 12, "middle", "bold")
    s.text(x0 + 10, y0 + 42, "1. 2 rows (8 channels each)", 11)
    s.text(x0 + 10, y0 + 58, "   loaded two rounds ahead", 11)
    s.text(x0 + 10, y0 + 80, "2. turned around in registers:", 11)
    s.text(x0 + 10, y0 + 96, "   word c = channel c's 2 samples", 11)
    s.text(x0 + 10, y0 + 118, "3. st.async word c -> block c,", 11)
    s.text(x0 + 10, y0 + 134, "   buffer i % 3, its mbarrier", 11)
    # block r's three buffers
    bx, by = 360, 60
    s.text(bx + 150, by - 6, "block r: 128 KiB of packed counters + 3 buffers of 32 KiB", 12,
           "middle", "bold")
    labels = ["buffer i % 3: round i lands", "buffer (i - 1) % 3: counted now",
              "buffer (i - 2) % 3: freed by the barrier"]
    fills = [BANK_COLOURS[1], BANK_COLOURS[4], "#ddd"]
    for k in range(3):
        y = by + 10 + k * 46
        s.rect(bx, y, 300, 36, fill=fills[k], opacity=0.5)
        s.text(bx + 10, y + 22, labels[k], 11)
        s.rect(bx + 310, y + 8, 60, 20, fill="#fff")
        s.text(bx + 340, y + 22, "mbarrier", 10, "middle")
    s.line(x0 + 250, y0 + 126, bx - 4, by + 28, arrow=True)
    s.text(bx - 40, by + 170, "each word's st.async counts its 4 bytes off its buffer's mbarrier "
           "(complete_tx); the phase", 11)
    s.text(bx - 40, by + 186, "completes when 32 KiB have landed and thread 0's arrive.expect_tx "
           "has come", 11)
    # the round in program order
    y1 = 270
    s.text(20, y1, "A thread's round i, in order:", 12, "start", "bold")
    steps = [("send(i)", "its 8 words of round i, st.async: no wait", 1),
             ("receive(i - 1)", "try_wait on buffer (i - 1) % 3's mbarrier (parity of its phase), "
              "arm it again, count the buffer", 4),
             ("xch_wait_counted()", "cluster barrier wait: every thread has counted round i - 2, "
              "whose buffer round i + 1 writes", 6),
             ("xch_counted()", "fence of shared memory (release, cluster), then a relaxed arrive: "
              "this thread has counted round i - 1", 2)]
    for k, (code, what, c) in enumerate(steps):
        y = y1 + 10 + k * 28
        s.rect(30, y, 170, 22, fill=BANK_COLOURS[c], opacity=0.45)
        s.text(40, y + 15, code, 11)
        s.text(215, y + 15, what, 11)
    s.save("day09_exchange.svg")


if __name__ == "__main__":
    day01_private()
    day02_global()
    day03_private()
    day04_tiling()
    day05_padded()
    day06_layout()
    day06_gate()
    day07_streams()
    day08_packed()
    day09_cluster()
    day09_exchange()
