#!/bin/sh
# check-toolkit.sh NVCC [MIN]: with MIN, prints nothing if NVCC is CUDA MIN or newer; otherwise one
# line saying what is wrong and what to do (make stops with it: common/common.mk's `toolkit`; make
# doctor). Without MIN, prints NVCC's release (13.0, 12.4), or nothing if there is no NVCC.
nvcc=$1 min=${2:-}
version=$("$nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
if [ -z "$min" ]; then
    echo "$version"
elif [ -z "$version" ]; then
    echo "error: $nvcc not found: the course needs the CUDA toolkit $min or newer on the PATH (README.md, \"Prerequisites\"; make doctor lists what this machine has)"
elif [ "$(printf '%s\n%s\n' "$min" "$version" | sort -V | head -n 1)" != "$min" ]; then
    echo "error: $nvcc is CUDA $version; the course needs $min or newer (its harness and days 06, 07 and 09 include <cuda/ptx>, which came with CCCL 2.3 in CUDA 12.4: README.md, \"Prerequisites\")"
fi
