#!/usr/bin/env python3
## @file torch16.py
## @brief PyTorch's histograms of the 16-bit samples the runner counted: `torch.bincount` and
##        `torch.histc`, checked exactly against the runner's output and timed as day 06's GPU MODE
##        check times PyTorch (events, two calls of warm-up, the L2 written over before each call,
##        median of 20).
##
## usage: torch16.py LABEL INPUT.npy EXPECTED.npy FLOOR_US
##   INPUT.npy     the samples, uint16 [rows, 1] (`day08_wide --preset u16 --save-input`)
##   EXPECTED.npy  the exact histogram, uint32 [65536] (the same run's `--output`)
##   FLOOR_US      the same run's read floor in microseconds (its CSV's floor_median_us)
## Prints one line a call: "LABEL, NAME: MEDIAN us PERCENT% exact|DIFFERS". Exit 0, or 77 where
## PyTorch or a CUDA device is missing (measure.sh then skips the step).
import sys

## @brief Bins of the full 16-bit range.
BINS = 65536


## @brief day 06's timing of a PyTorch call (test_gpumode.median_us: events, two calls of
##        warm-up, the L2 written over before each call, median of 20), loaded from its file.
## @return the function
def day06_median_us():
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "day06_roofline",
                        "test_gpumode.py")
    spec = importlib.util.spec_from_file_location("course_test_gpumode", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.median_us


## @brief The calls a PyTorch user would make on 16-bit samples, each from the tensor as it
##        arrives (int16: PyTorch has no unsigned 16-bit histogram; the widening is part of each).
## @param x the samples on the GPU, int16 [n] @return [(name, function)]
def calls(x):
    import torch
    return [("torch.bincount (int32 keys)",
             lambda: torch.bincount(x.to(torch.int32) & 0xFFFF, minlength=BINS)),
            ("torch.histc (float32, 65,536 bins over 0..65535)",
             lambda: torch.histc((x.to(torch.int32) & 0xFFFF).to(torch.float32), bins=BINS,
                                 min=0, max=BINS - 1))]


## @brief Check and time each call on one file.
## @param label the line's label @param input_path the samples @param expected_path the
## histogram @param floor_us the read floor @return the exit status
def main(label, input_path, expected_path, floor_us):
    try:
        import numpy as np
        import torch
    except ImportError as e:
        print(f"skipped: {e}")
        return 77
    if not torch.cuda.is_available():
        print("skipped: PyTorch sees no CUDA device")
        return 77
    data = np.load(input_path)
    if data.dtype != np.uint16 or data.ndim != 2 or data.shape[1] != 1:
        sys.stderr.write("torch16.py: expected a uint16 [rows, 1] array\n")
        return 2
    x = torch.from_numpy(data.reshape(-1).view(np.int16)).cuda()
    want = torch.from_numpy(np.load(expected_path).reshape(-1).astype(np.int64)).cuda()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    scratch = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    median_us = day06_median_us()
    for name, fn in calls(x):
        exact = torch.equal(fn().to(torch.int64), want)
        us = median_us(fn, scratch)
        print(f"{label}, {name}: {us:.3f} us {100 * floor_us / us:.2f}% "
              f"{'exact' if exact else 'DIFFERS'}")
    return 0


## @brief The command line. @return the exit status
def cli():
    if len(sys.argv) != 5:
        sys.stderr.write("usage: torch16.py LABEL INPUT.npy EXPECTED.npy FLOOR_US\n")
        return 2
    return main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]))


if __name__ == "__main__":
    sys.exit(cli())
