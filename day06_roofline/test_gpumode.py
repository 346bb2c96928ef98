#!/usr/bin/env python3
## @file test_gpumode.py
## @brief Import the GPU MODE file (`make gpumode`), which PyTorch's load_inline builds, and
##        compare custom_kernel() with torch.bincount on histogram_v2's test and benchmark cases,
##        drawn as that problem draws them (random bytes, then a share of them set to one random
##        value), an output that starts as garbage, and an input one byte past a word; then time
##        both on the benchmark cases (events, L2 written over before each call, median of 20).
##        Exit 0: exact; 1: a difference; 77: skipped (no PyTorch or no CUDA device).
import importlib.util
import sys

## @brief histogram_v2's test cases: (samples, contention percent).
TESTS = [(5120, 10), (7840, 10), (30080, 10), (30080, 90), (100000, 10)]
## @brief histogram_v2's benchmark cases: (samples, contention percent).
BENCHMARKS = [(1310720, 10), (2621440, 10), (2621440, 40), (2621440, 90), (5242880, 10),
              (10485760, 10)]


## @brief A case's input, as histogram_v2 makes it.
## @param size samples @param contention percent set to one value @param seed the generator's seed
## @return uint8 [size] on the GPU
def make_input(size, contention, seed):
    import torch
    gen = torch.Generator(device="cuda").manual_seed(seed)
    data = torch.randint(0, 256, (size,), dtype=torch.uint8, device="cuda", generator=gen)
    hot = torch.randint(0, 256, (1,), dtype=torch.uint8, device="cuda", generator=gen)
    data[torch.rand(size, device="cuda", generator=gen) < contention / 100] = hot
    return data


## @brief Median time of fn() in microseconds, the L2 written over before each call.
## @param fn the call @param scratch a buffer twice the L2 @return microseconds
def median_us(fn, scratch):
    import torch
    times = []
    for i in range(22):
        scratch.fill_(i)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        if i >= 2:
            times.append(start.elapsed_time(stop) * 1000)
    return sorted(times)[len(times) // 2]


## @brief Import the file, check every case, time the benchmarks.
## @param path the generated submission.py @return the exit status
def main(path):
    try:
        import torch
    except ImportError as e:
        print(f"skipped: PyTorch is not installed here ({e})")
        return 77
    if not torch.cuda.is_available():
        print("skipped: PyTorch sees no CUDA device")
        return 77
    spec = importlib.util.spec_from_file_location("course_gpumode_submission", path)
    sub = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sub)
    failed = 0
    for k, (size, contention) in enumerate(TESTS + BENCHMARKS):
        data = make_input(size, contention, 4242 + k)
        want = torch.bincount(data, minlength=256)
        for what, x in (("aligned", data), ("one byte past a word", data[1:])):
            out = torch.full((256,), -7, dtype=torch.int64, device="cuda")
            got = sub.custom_kernel((x, out))
            ref = want if x is data else torch.bincount(x, minlength=256)
            ok = torch.equal(got, ref) and got.data_ptr() == out.data_ptr()
            failed += not ok
            print(f"{'exact' if ok else 'DIFFERS'}: {x.numel()} samples, contention {contention}%, {what}")
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    scratch = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    print("samples,contention,custom_kernel (us),torch.bincount (us)")
    for k, (size, contention) in enumerate(BENCHMARKS):
        data = make_input(size, contention, 99 + k)
        out = torch.empty(256, dtype=torch.int64, device="cuda")
        ours = median_us(lambda: sub.custom_kernel((data, out)), scratch)
        theirs = median_us(lambda: torch.bincount(data, minlength=256), scratch)
        print(f"{size},{contention},{ours:.1f},{theirs:.1f}")
    name = torch.cuda.get_device_name(0)
    print(f"custom_kernel (GPU MODE histogram_v2 submission): {2 * (len(TESTS) + len(BENCHMARKS)) - failed} "
          f"of {2 * (len(TESTS) + len(BENCHMARKS))} exact against torch.bincount on {name}")
    return 1 if failed else 0


## @brief The command line: check the file named by the only argument.
## @return the exit status
def cli():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: test_gpumode.py SUBMISSION.py (make gpumode writes it)\n")
        return 2
    return main(sys.argv[1])


if __name__ == "__main__":
    sys.exit(cli())
