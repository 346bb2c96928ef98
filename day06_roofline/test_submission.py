#!/usr/bin/env python3
## @file test_submission.py
## @brief Build the CS149 submission (`make submission`) with PyTorch's load_inline and compare
##        histogram_kernel() with torch.bincount on awkward shapes, binnings and an unaligned
##        input. Exit 0: exact; 1: a difference; 77: skipped (no PyTorch or no CUDA device).
import os
import sys
import tempfile


## @brief The reference: per-channel torch.bincount of the values below num_bins.
## @param data uint8 [length, channels] on the GPU
## @param num_bins bins
## @return int32 [channels, num_bins]
def reference(data, num_bins):
    import torch
    length, channels = data.shape
    values = data.long()
    index = torch.arange(channels, device=data.device).expand(length, channels) * num_bins + values
    counted = index[values < num_bins]
    return torch.bincount(counted, minlength=channels * num_bins).view(channels, num_bins).int()


## @brief Build the submission and check it.
## @param path the generated .cu file
## @return the exit status
def main(path):
    try:
        import torch
        from torch.utils.cpp_extension import load_inline
    except ImportError as e:
        print(f"skipped: PyTorch is not installed here ({e})")
        return 77
    if not torch.cuda.is_available():
        print("skipped: PyTorch sees no CUDA device")
        return 77
    with open(path) as f:
        source = f.read()
    build = tempfile.mkdtemp(prefix="cs149_submission_")
    module = load_inline(name="course_histogram_submission",
                         cpp_sources="torch::Tensor histogram_kernel(torch::Tensor data, int num_bins);",
                         cuda_sources=source, functions=["histogram_kernel"],
                         extra_cuda_cflags=["-O3"], build_directory=build, verbose=False)
    gen = torch.Generator(device="cuda").manual_seed(149)
    cases = [  # (length, channels, num_bins, how)
        (1048576, 512, 256, "uniform"), (1048576, 513, 256, "uniform"), (131072, 4096, 256, "uniform"),
        (1048576, 512, 256, "constant"), (65537, 65, 20, "uniform"), (1000, 3, 100, "uniform"),
        (7, 1, 256, "uniform"), (1, 1, 256, "uniform"), (0, 5, 256, "uniform"),
        (4099, 127, 256, "unaligned"), (33, 510, 7, "unaligned"), (1000, 4, 256, "transposed"),
    ]
    failed = 0
    for length, channels, num_bins, how in cases:
        if how == "constant":
            data = torch.full((length, channels), 42, dtype=torch.uint8, device="cuda")
        elif how == "unaligned":  # a view that starts 1 byte into its storage
            flat = torch.randint(0, 256, (length * channels + 1,), dtype=torch.uint8,
                                 device="cuda", generator=gen)
            data = flat[1:].view(length, channels)
        elif how == "transposed":  # not contiguous: the entry point copies it first
            data = torch.randint(0, 256, (channels, length), dtype=torch.uint8, device="cuda",
                                 generator=gen).t()
        else:
            data = torch.randint(0, 256, (length, channels), dtype=torch.uint8, device="cuda",
                                 generator=gen)
        got = module.histogram_kernel(data, num_bins)
        want = reference(data, num_bins)
        ok = got.dtype == torch.int32 and got.shape == want.shape and torch.equal(got, want)
        print(f"{'exact' if ok else 'DIFFERS'}: {length} x {channels}, num_bins {num_bins}, {how}")
        failed += not ok
    print(f"histogram_kernel (CS149 asst5 submission): {len(cases) - failed} of {len(cases)} exact "
          f"against torch.bincount on {torch.cuda.get_device_name()}")
    return 1 if failed else 0


## @brief The command line: check the file named by the only argument.
## @return the exit status
def cli():
    if len(sys.argv) != 2 or not os.path.isfile(sys.argv[1]):
        sys.stderr.write("usage: test_submission.py SUBMISSION.cu (make submission writes it)\n")
        return 2
    return main(sys.argv[1])


if __name__ == "__main__":
    sys.exit(cli())
