"""The Triton report's histogram kernel, measured on the same data as the CUDA C lesson.

The [rows, channels] uint8 array is flattened; each program handles BLOCK_SIZE elements; each
element's channel is offset % channels, its bin its value, and one tl.atomic_add counts it.

usage: python3 hist_triton.py INPUT.npy   (a uint8 [rows, channels] file, byte histogram)

Timing: triton.testing.do_bench, median, which clears the L2 before every repetition; the zeroing
of the output is inside the timed function, as in the course's runner.
"""
import sys

import numpy as np
import torch
import triton
import triton.language as tl

## Elements per program: 1024, as in the Triton report.
BLOCK_SIZE = 1024


## One program counts BLOCK_SIZE consecutive elements of the flattened input.
#
#  @param x_ptr         the uint8 input, flattened
#  @param hist_ptr      the int32 [channels, bins] output
#  @param n_elements    rows * channels
#  @param num_channels  channels (an element's channel is its offset modulo this)
#  @param num_bins      256 (the byte histogram)
#  @param BLOCK_SIZE    elements per program
#  @param SEM           the atomics' memory semantics ("acq_rel" or "relaxed")
#  @return nothing (a Triton kernel)
@triton.jit
def hist_kernel(x_ptr, hist_ptr, n_elements, num_channels, num_bins,
                BLOCK_SIZE: tl.constexpr, SEM: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    values = tl.load(x_ptr + offsets, mask=mask, other=0).to(tl.int64)
    channels = offsets % num_channels
    tl.atomic_add(hist_ptr + channels * num_bins + values, 1, mask=mask, sem=SEM)


## Zero @p hist and count @p x into it (the timed function).
#
#  @param x     the [rows, channels] uint8 tensor on the GPU
#  @param hist  the int32 [channels * 256] output on the GPU
#  @param sem   the atomics' memory semantics
#  @return hist
def histogram(x, hist, sem):
    n = x.numel()
    hist.zero_()
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    hist_kernel[grid](x, hist, n, x.shape[1], 256, BLOCK_SIZE=BLOCK_SIZE, SEM=sem)
    return hist


## Load the .npy file named on the command line, check and time both atomic semantics.
#
#  @return nothing; exits with a message on a bad file or a mismatch
def main():
    if len(sys.argv) != 2:
        sys.exit("usage: hist_triton.py INPUT.npy")
    data = np.load(sys.argv[1])
    if data.dtype != np.uint8 or data.ndim != 2:
        sys.exit("hist_triton.py: expected a uint8 [rows, channels] array")
    rows, channels = data.shape
    x = torch.from_numpy(np.ascontiguousarray(data)).cuda()
    hist = torch.empty(channels * 256, dtype=torch.int32, device="cuda")

    # reference: counts of channel * 256 + value
    keys = (torch.arange(channels, device="cuda", dtype=torch.int64) * 256 + x.to(torch.int64))
    expected = torch.bincount(keys.flatten(), minlength=channels * 256).to(torch.int32)
    del keys

    print(f"# Triton {triton.__version__}, torch {torch.__version__}, "
          f"{torch.cuda.get_device_name()}: rows={rows} channels={channels}")
    for sem in ("acq_rel", "relaxed"):  # Triton's default, and what CUDA's atomicAdd does
        got = histogram(x, hist, sem)
        exact = torch.equal(got, expected)
        ms = triton.testing.do_bench(lambda: histogram(x, hist, sem), warmup=100, rep=1000,
                                     return_mode="median")
        print(f"triton_naive sem={sem:8s} median {ms * 1000:10.1f} us  "
              f"{rows * channels / (ms * 1e6):7.1f} GB/s  {'exact' if exact else 'MISMATCH'}")
        if not exact:
            sys.exit(1)


if __name__ == "__main__":
    main()
