#!/bin/bash
# doctor.sh NVCC MIN COURSE_BIN: `make doctor`: one line per thing the course uses, what this machine
# has of it, and for each missing piece what it turns off and the command that brings it.
nvcc=$1 min=$2 course=$3
line() { printf '%-10s %s\n' "$1" "$2"; }
sudo="sudo " # the advice's install commands: as they are typed by this user (root needs no sudo)
[ "$(id -u)" -ne 0 ] || sudo=""

problem=$(tools/build/check-toolkit.sh "$nvcc" "$min")
version=$("$nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
if [ -z "$problem" ]; then
    line nvcc "CUDA $version ($(command -v "$nvcc")), $min or newer needed: ok; builds $("$nvcc" --list-gpu-arch 2>/dev/null | sed 's/compute_/sm_/' | paste -sd' ')"
else
    line nvcc "${problem#error: }: nothing builds (https://developer.nvidia.com/cuda-downloads)"
fi

if driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1) && [ -n "$driver" ]; then
    line driver "$driver"
    plan=""
    if [ -x "$course" ]; then
        plan=$("$course" --impl gpu_roofline --rows 1 --channels 1 --reps 1 --warmup 0 2>/dev/null |
            sed -n 's/^# plan on this GPU: //p' | head -n 1)
    fi
    nvidia-smi --query-gpu=index,name,compute_cap,memory.total --format=csv,noheader 2>/dev/null |
        while IFS=, read -r i name cc mem; do
            line "GPU $i" "${name# }, compute capability${cc}, ${mem# }; the final kernel's plan: ${plan:-build first (make), then make doctor says it}"
        done
else
    line driver "no NVIDIA driver or GPU: the GPU lessons are built but skipped (make test runs the CPU parts, make run times day 01)"
fi

if tools/build/ensure-deps.sh --check cmocka; then line cmocka "found${CMOCKA_ROOT:+ in CMOCKA_ROOT=$CMOCKA_ROOT}"
else line cmocka "missing: make test cannot build the tests; ${sudo}apt-get install libcmocka-dev (offline: README.md, \"Offline machines\")"; fi

nccl=$(make -s --no-print-directory nccl-info DAY=07 2>/dev/null)
line NCCL "$(printf '%s\n' "$nccl" | sed -n 's/^NCCL //p')"
line MPI "$(printf '%s\n' "$nccl" | sed -n 's/^MPI //p')"

tool() { # NAME WHAT-IT-TURNS-OFF PACKAGES (present as ensure-deps.sh judges it)
    if tools/build/ensure-deps.sh --check "$1"; then line "$1" "$("$1" --version 2>&1 | head -n 1)"
    else line "$1" "missing: $2; ${sudo}apt-get install $3"; fi
}
tool doxygen "no notes (make docs)" "doxygen graphviz"
tool gnuplot "no charts (make plot, make tables)" gnuplot-nox
if command -v python3 >/dev/null 2>&1; then
    mods=$(python3 -c 'import importlib.util as u; print(" ".join(m + (" yes" if u.find_spec(m) else " no") for m in ("numpy", "torch")))' 2>/dev/null)
    # shellcheck disable=SC2086 # "numpy yes torch no": four words
    set -- $mods
    line python3 "$(python3 --version 2>&1); numpy: $2, torch: $4$([ "$2" = no ] && echo " (numpy: the .npy checks of the README; pip install numpy)")"
else
    line python3 "missing: no tables, no notes; ${sudo}apt-get install python3"
fi
