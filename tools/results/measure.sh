#!/bin/sh
# measure.sh CONFIG_BUILD_DIR OUTDIR [STEPS]: every measurement the lesson READMEs quote, taken on
# this machine's GPU and kept as data files OUTDIR/TAG_* (TAG from the GPU's name, e.g. h100, and
# the number of GPUs where several are visible, e.g. h200x4; or DATA_TAG). `make measure` calls
# it with OUTDIR docs/data; `make tables` then rewrites every table and figure of the READMEs from
# those files. Each file says its GPU, date and command: the runner's
# CSVs in their columns, the others in their first lines ("# ...").
#   runs     the course runner on the main preset x 4 distributions and on small-binned
#   profile  Nsight Compute on the kernels the READMEs discuss (make profile's metrics)
#   probe    day 06's probe (the two ceilings), and its atomics under Nsight Compute
#   sweep    small-binned at growing sizes (make sweep)
#   triton   day 02's Triton comparison (skipped where torch and triton are absent)
#   demo     day 02's race demonstration (make demo)
#   shapes   day 06's last two steps on the shapes and binnings of its targets (one CSV each)
#   pmpp     GPU MODE's histogram_v2 benchmark shapes (--preset pmpp:1 .. pmpp:6, one channel of
#            bytes): CUB, day 04's kernel and day 06's steps 7, 9 and 8 + 9, 50 repetitions each, in one
#            table with the floor of each size (TAG_pmpp.csv)
#   breakdown day 06's breakdown of the final kernel's time (make breakdown DAY=06)
#   pmpp-breakdown the same on GPU MODE's sizes pmpp:1, pmpp:4 and pmpp:6, where step 9 runs (TAG_pmpp-breakdown.txt)
#   shapes-profile  Nsight Compute on day 06's final kernel in four of those shapes: its loads'
#            requests, sectors and wavefronts, and its instructions
#   plans    day 06's final kernel in the plan of each emulated GPU class (a100: 163 KiB, rtx4090:
#            99 KiB, t4: 64 KiB; the present GPU's SMs kept, --keep-sms) and in its own, on four
#            distributions (TAG_plans.csv; the header of each row says "limited to NAME")
#   scale    day 07's pipelines on the main preset (TAG_scale_uniform.csv, against the pinned-copy
#            floor), and its two chunked pipelines at chunk sizes 4 to 256 MiB (TAG_chunks.csv)
#   bigger   day 07's chunked pipelines on 96 GiB of pinned host memory (BIGGER_GIB to change)
#   gpus     day 07's scaling over 1 .. every GPU of the machine, weak and strong (TAG_gpus.csv),
#            and where one call's time goes on each GPU (TAG_gpus-phases.txt)
#   ranks    day 07's ranks under mpirun on the main preset (TAG_ranks.csv): day 06's program alone
#            first (the same kernel, one process, no MPI), then 1 rank (NCCL), 2 and 4 sharing the
#            GPU (MPI), 1, 2 and 4 counting on the CPU, and the same file read by 1, 2 and 4 ranks
#            against `cat FILE > /dev/null` (the file in the page cache)
#   reduce   day 07's ways to sum the ranks' histograms, side by side (TAG_reduce.csv), one rank per
#            GPU, on 2, 4 and 8 GPUs as far as the machine has them (skipped on one): the peer
#            path, ncclReduce under each of NCCL's protocols (NCCL_PROTO unset, LL, LL128,
#            Simple), ncclAllReduce and MPI, on the main preset; then the peer path, ncclReduce
#            and MPI on 8x its rows
#   wide     every 16-bit entry of the course (day 08's steps and day 09's clusters, CUB's
#            HistogramEven beside them), run by the course runner so that the two lessons share
#            one floor: u16 (one channel, 512 MiB) and u16x8 (8 channels), each under four
#            distributions (TAG_u16_DIST.csv, TAG_u16x8_DIST.csv; the entries that take bytes only
#            are listed as skipped); day 08's tables and day 09's read the same files
#   wide-plans day 08's final kernel in the plan of each emulated GPU class (b200, a100, rtx4090,
#            t4; the present GPU's SMs kept) and in its own, on u16 under four distributions and
#            on u16x8 (TAG_wide-plans.csv)
#   cluster-probe day 09's probe of distributed shared memory: local and remote atomics in
#            clusters, bulk stores and loads to another block (TAG_cluster-probe.txt)
#   torch16  PyTorch's torch.bincount and torch.histc on day 08's u16 samples under four
#            distributions, beside the runner's CUB line of the same data (TAG_torch16.txt;
#            skipped where torch is absent)
# Two more, not in the default list (they check rather than time; docs/RELIABILITY.md shows them):
#   sanitize make sanitize's verdicts (TAG_sanitize.txt)
#   soak     tools/lab/soak.sh, 1,000 runs (TAG_soak.txt)
set -eu
build=$1 out=$2
steps=${3:-}
[ -n "$steps" ] || steps="runs profile probe sweep triton demo shapes pmpp pmpp-breakdown breakdown shapes-profile plans wide wide-plans cluster-probe torch16 scale bigger gpus ranks reduce"
cd "$(dirname "$0")/../.."
course=$build/course
[ -x "$course" ] || { echo "measure: $course is not built (make all first)" >&2; exit 2; }
# kept data are the real GPU's: under GPU_LIMITS they would land in its files (the plans step
# emulates each plan itself, by --gpu-limits, and says so in every row)
case ${HIST_GPU_LIMITS:-none} in
none) ;;
*) echo "measure: GPU_LIMITS=$HIST_GPU_LIMITS: make measure keeps the real GPU's figures; run it without GPU_LIMITS (its plans step measures every emulated plan)" >&2; exit 2 ;;
esac
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || :)
[ -n "$gpu" ] || { echo "measure: no CUDA GPU found (nvidia-smi lists none)" >&2; exit 2; }
# the GPUs this run sees: CUDA_VISIBLE_DEVICES' list where it is set, else every one nvidia-smi lists
if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
    ngpus=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c . || :)
else
    ngpus=$(nvidia-smi -L | grep -c '^GPU' || :)
fi
# the tag names the machine: the GPU (h100, h200), and with several GPUs visible their number
# (h200x4), as the kept files of the machines of two and four GPUs are named; a run with
# CUDA_VISIBLE_DEVICES=0 measures one GPU of such a machine as a machine of one
base=$(echo "$gpu" | grep -oE '[A-Z]{1,2}[0-9]{2,3}' | head -n 1 | tr 'A-Z' 'a-z')
[ -n "$base" ] || base=$(echo "$gpu" | tr -c 'A-Za-z0-9\n' '_')
tag=${DATA_TAG:-$base$([ "$ngpus" -le 1 ] || echo "x$ngpus")}
mkdir -p "$out"
# the commit, "-dirty" when the working tree differs from it (measurements of uncommitted code)
# (COURSE_COMMIT: the commit measured, where this copy's .git does not know it)
# (CUDA_VISIBLE_DEVICES, where set, said: GPUs of a bigger machine hidden from the run)
stamp() { echo "# $gpu, $(date -u +%Y-%m-%dT%H:%M:%SZ), course ${COURSE_COMMIT:-$(git describe --always --dirty 2>/dev/null || echo '?')}: ${CUDA_VISIBLE_DEVICES+CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES }$*"; }
NCU=${NCU:-ncu}
# the main preset's bytes in day 06's other shapes (the shapes and shapes-profile steps)
C510="--rows 1052688 --channels 510" C513="--rows 1046578 --channels 513"
C4096="--rows 131072 --channels 4096"

for step in $steps; do
    case $step in
    runs)
        for run in main:uniform main:constant main:contention:90 main:runs:64 small-binned:uniform; do
            preset=${run%%:*} dist=${run#*:}
            file=$out/${tag}_${preset}_$(echo "$dist" | tr ':' '-').csv
            echo "measure: $file"
            "$course" --preset "$preset" --dist "$dist" --reps 20 --csv "$file" --require-gpu
        done ;;
    profile)
        METRICS=$(make -s print-profile-metrics) # the metrics of make profile, one list
        # FILE-SUFFIX LESSON-PROGRAM ARGS: what each README's profile table shows
        while read -r name program args; do
            file=$out/${tag}_profile_$name.csv
            echo "measure: $file"
            cmd="$NCU --clock-control none --metrics \$PROFILE_METRICS --csv $build/$program/$program $args"
            { stamp "$cmd"
              $NCU --clock-control none --metrics "$METRICS" --csv --log-file "$file.part" \
                  "$build/$program/$program" $args > /dev/null
              cat "$file.part"; } > "$file.tmp"
            rm -f "$file.part"; mv "$file.tmp" "$file"
        done <<EOF
day02 day02_naive --reps 1 --warmup 0 --impl gpu_naive,gpu_naive_coarse
day03 day03_privatized --reps 1 --warmup 0
day04 day04_shared --reps 1 --warmup 0
day05 day05_optimized_h100 --reps 1 --warmup 0
day06_uniform day06_roofline --reps 1 --warmup 0
day06_constant day06_roofline --reps 1 --warmup 0 --dist constant
EOF
        ;;
    probe)
        file=$out/${tag}_probe.txt
        echo "measure: $file"
        { stamp "$build/day06_roofline/probe"; "$build/day06_roofline/probe"; } > "$file.tmp"
        mv "$file.tmp" "$file"
        file=$out/${tag}_profile_probe.csv
        echo "measure: $file"
        m=smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
        { stamp "$NCU --clock-control none --kernel-name atomics_only_kernel --metrics $m --csv $build/day06_roofline/probe"
          $NCU --clock-control none --kernel-name atomics_only_kernel --metrics "$m" --csv \
              --log-file "$file.part" "$build/day06_roofline/probe" > /dev/null
          cat "$file.part"; } > "$file.tmp"
        rm -f "$file.part"; mv "$file.tmp" "$file" ;;
    sweep)
        file=$out/${tag}_sweep.csv
        echo "measure: $file"
        SWEEP_CSV=$file tools/results/sweep.sh "$course" --require-gpu > /dev/null ;;
    triton)
        file=$out/${tag}_triton.txt
        if python3 -c "import torch, triton, numpy; assert torch.cuda.is_available()" 2>/dev/null; then
            echo "measure: $file"
            dir=$(mktemp -d)
            { stamp "$build/day02_naive/day02_naive --impl gpu_naive --reps 20 --save-input X.npy --csv X.csv; python3 day02_naive/triton/hist_triton.py X.npy"
              "$build/day02_naive/day02_naive" --impl gpu_naive --reps 20 --save-input "$dir/x.npy" \
                  --csv "$dir/x.csv" > /dev/null
              cat "$dir/x.csv"
              python3 day02_naive/triton/hist_triton.py "$dir/x.npy"; } > "$file.tmp"
            rm -rf "$dir"; mv "$file.tmp" "$file"
        else
            echo "measure: triton skipped (needs python3 with numpy, torch and triton)"
        fi ;;
    demo)
        file=$out/${tag}_race.txt
        echo "measure: $file"
        { stamp "$build/day02_naive/race_demo --dist constant; ... --dist uniform"
          "$build/day02_naive/race_demo" --dist constant
          "$build/day02_naive/race_demo" --dist uniform; } > "$file.tmp"
        mv "$file.tmp" "$file" ;;
    shapes)
        # NAME:IMPLEMENTATIONS:ARGS (the main preset's bytes in other shapes, other binnings, the
        # small preset; step 6 where it runs, for comparison)
        both=gpu_r6_v6_one_kernel,gpu_r6_v7_any_shape,gpu_roofline
        any=gpu_r6_v7_any_shape,gpu_roofline
        while IFS=: read -r name impls args; do
            file=$out/${tag}_shapes_$name.csv
            echo "measure: $file"
            # shellcheck disable=SC2086
            "$build/day06_roofline/day06_roofline" --impl "$impls" --reps 20 --csv "$file" \
                --require-gpu $args > /dev/null
        done <<EOF
main-uniform:$both:--dist uniform
main-constant:$both:--dist constant
main-contention-90:$both:--dist contention:90
main-runs-1000:$both:--dist runs:1000
channels-510:$any:$C510
channels-513:$any:$C513
channels-4096:$both:$C4096
main-binned:$any:--lo 1 --hi 100 --width 20 --values 1:100
small-binned:$any:--preset small-binned
EOF
        ;;
    pmpp)
        file=$out/${tag}_pmpp.csv
        echo "measure: $file"
        impls=gpu_cub,gpu_shared,gpu_r6_v7_any_shape,gpu_r6_v9_small,gpu_roofline
        tmp=$(mktemp -d)
        { stamp "for K in 1 .. 6: $course --preset pmpp:K --impl $impls --reps 50"
          for k in 1 2 3 4 5 6; do
              "$course" --preset "pmpp:$k" --impl "$impls" --reps 50 --csv "$tmp/$k.csv" \
                  --require-gpu > /dev/null
          done
          echo "samples,contention,gpu_cub (us),gpu_shared (us),gpu_r6_v7_any_shape (us),gpu_r6_v9_small (us),gpu_roofline (us),floor (us),gpu_roofline vs gpu_cub,gpu_roofline of the floor,check,commit"
          for k in 1 2 3 4 5 6; do
              # the runner's columns by name; one row per implementation
              awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                  { t[$(c["implementation"])] = $(c["median_us"]); floor = $(c["floor_median_us"])
                    rows = $(c["rows"]); dist = $(c["dist"]); commit = $(c["commit"])
                    if ($(c["check"]) != "exact") check = check " " $(c["implementation"]) ":" $(c["check"]) }
                  END { sub(/^contention:/, "", dist)
                    printf "%s,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.2fx,%.0f%%,%s,%s\n", rows, dist,
                        t["gpu_cub"], t["gpu_shared"], t["gpu_r6_v7_any_shape"], t["gpu_r6_v9_small"], t["gpu_roofline"],
                        floor, t["gpu_cub"] / t["gpu_roofline"], 100 * floor / t["gpu_roofline"],
                        check == "" ? "exact" : "NOT EXACT:" check, commit }' "$tmp/$k.csv"
          done; } > "$file.tmp"
        rm -rf "$tmp"; mv "$file.tmp" "$file" ;;
    breakdown)
        file=$out/${tag}_breakdown.txt
        echo "measure: $file"
        # shellcheck disable=SC2086
        { stamp "$build/day06_roofline/breakdown; ... --dist constant; ... $C510; ... $C513"
          "$build/day06_roofline/breakdown"
          "$build/day06_roofline/breakdown" --dist constant
          "$build/day06_roofline/breakdown" $C510
          "$build/day06_roofline/breakdown" $C513; } > "$file.tmp"
        mv "$file.tmp" "$file" ;;
    pmpp-breakdown)
        file=$out/${tag}_pmpp-breakdown.txt
        echo "measure: $file"
        { stamp "$build/day06_roofline/breakdown --preset pmpp:1; ... pmpp:4; ... pmpp:6"
          for k in 1 4 6; do "$build/day06_roofline/breakdown" --preset "pmpp:$k"; done; } > "$file.tmp"
        mv "$file.tmp" "$file" ;;
    shapes-profile)
        m=gpu__time_duration.sum,sm__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
        m=$m,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum
        m=$m,l1tex__data_pipe_lsu_wavefronts.sum,dram__bytes_read.sum
        m=$m,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
        while IFS=: read -r name args; do
            file=$out/${tag}_profile_shapes_$name.csv
            echo "measure: $file"
            cmd="$NCU --clock-control none --kernel-name regex:step8_kernel --metrics $m --csv $build/day06_roofline/day06_roofline --impl gpu_roofline --reps 1 --warmup 0 $args"
            # shellcheck disable=SC2086
            { stamp "$cmd"
              $NCU --clock-control none --kernel-name regex:step8_kernel --metrics "$m" --csv \
                  --log-file "$file.part" "$build/day06_roofline/day06_roofline" \
                  --impl gpu_roofline --reps 1 --warmup 0 $args > /dev/null
              cat "$file.part"; } > "$file.tmp"
            rm -f "$file.part"; mv "$file.tmp" "$file"
        done <<EOF
main:--dist uniform
channels-510:$C510
channels-513:$C513
channels-4096:$C4096
EOF
        ;;
    plans)
        file=$out/${tag}_plans.csv
        echo "measure: $file"
        : > "$file.tmp"
        for limits in none a100 rtx4090 t4; do
            for dist in uniform constant contention:90 runs:1000; do
                "$build/day06_roofline/day06_roofline" --impl gpu_roofline --gpu-limits "$limits" \
                    --keep-sms --dist "$dist" --reps 20 --csv "$file.part" --require-gpu > /dev/null
                # the header once, then each run's row
                if [ ! -s "$file.tmp" ]; then head -n 1 "$file.part" > "$file.tmp"; fi
                tail -n +2 "$file.part" >> "$file.tmp"
            done
        done
        rm -f "$file.part"; mv "$file.tmp" "$file" ;;
    wide)
        for run in u16:uniform u16:constant u16:contention:90 u16:runs:1000 u16x8:uniform \
            u16x8:constant u16x8:contention:90 u16x8:runs:1000; do
            preset=${run%%:*} dist=${run#*:}
            file=$out/${tag}_${preset}_$(echo "$dist" | tr ':' '-').csv
            echo "measure: $file"
            "$course" --preset "$preset" --dist "$dist" --reps 20 --csv "$file" --require-gpu
        done ;;
    wide-plans)
        file=$out/${tag}_wide-plans.csv
        echo "measure: $file"
        : > "$file.tmp"
        for limits in none b200 a100 rtx4090 t4; do
            for run in u16:uniform u16:constant u16:contention:90 u16:runs:1000 u16x8:uniform; do
                preset=${run%%:*} dist=${run#*:}
                "$build/day08_wide/day08_wide" --preset "$preset" --impl gpu_wide \
                    --gpu-limits "$limits" --keep-sms --dist "$dist" --reps 20 --csv "$file.part" \
                    --require-gpu > /dev/null
                if [ ! -s "$file.tmp" ]; then head -n 1 "$file.part" > "$file.tmp"; fi
                tail -n +2 "$file.part" >> "$file.tmp"
            done
        done
        rm -f "$file.part"; mv "$file.tmp" "$file" ;;
    cluster-probe)
        file=$out/${tag}_cluster-probe.txt
        echo "measure: $file"
        { stamp "$build/day09_clusters/cluster_probe"; "$build/day09_clusters/cluster_probe"; } > "$file.tmp"
        mv "$file.tmp" "$file" ;;
    torch16)
        file=$out/${tag}_torch16.txt
        if python3 -c "import torch, numpy; assert torch.cuda.is_available()" 2>/dev/null; then
            echo "measure: $file"
            dir=$(mktemp -d)
            { stamp "for D in uniform constant contention:90 runs:1000: $build/day08_wide/day08_wide --preset u16 --dist D --impl gpu_cub16 --reps 20 --save-input X.npy --output H.npy --csv X.csv; python3 day08_wide/torch16.py D X.npy H.npy FLOOR (the CSV's floor_median_us): the runner's CUB line, then PyTorch's (median us, % of the floor, the check against the runner's output)"
              for dist in uniform constant contention:90 runs:1000; do
                  "$build/day08_wide/day08_wide" --preset u16 --dist "$dist" --impl gpu_cub16 \
                      --reps 20 --save-input "$dir/x.npy" --output "$dir/h.npy" --csv "$dir/x.csv" \
                      --require-gpu > /dev/null
                  echo "$dist, gpu_cub16: $(awk -F, 'NR == 2 { printf "%s us %s%% %s", $5, $10, $13 }' "$dir/x.csv")"
                  python3 day08_wide/torch16.py "$dist" "$dir/x.npy" "$dir/h.npy" \
                      "$(awk -F, 'NR == 2 { print $14 }' "$dir/x.csv")"
              done; } > "$file.tmp"
            rm -rf "$dir"; mv "$file.tmp" "$file"
        else
            echo "measure: torch16 skipped (needs python3 with numpy and torch)"
        fi ;;
    scale)
        file=$out/${tag}_scale_uniform.csv
        echo "measure: $file"
        "$build/day07_scale/day07_scale" --reps 20 --csv "$file" --require-gpu > /dev/null
        file=$out/${tag}_chunks.csv
        echo "measure: $file"
        { stamp "for M in 4 8 16 32 64 128 256: $build/day07_scale/bigger --gib 0.5 --reps 15 --chunk-mib \$M"
          for mib in 4 8 16 32 64 128 256; do
              "$build/day07_scale/bigger" --gib 0.5 --reps 15 --chunk-mib "$mib" \
                  --csv "$file.part" > /dev/null
              # the header once, then each size's floor and pipelines (not the pinning)
              if [ "$mib" = 4 ]; then head -n 1 "$file.part"; fi
              tail -n +2 "$file.part" | grep -v '^pinning'
          done; } > "$file.tmp"
        rm -f "$file.part"; mv "$file.tmp" "$file" ;;
    bigger)
        file=$out/${tag}_bigger.csv
        echo "measure: $file"
        gib=${BIGGER_GIB:-96}
        avail=$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo 2>/dev/null || echo 0)
        if [ "${avail:-0}" -le "$gib" ]; then
            echo "measure: bigger skipped: $gib GiB of input, ${avail:-0} GiB of host memory available (BIGGER_GIB=N for less)"
            continue
        fi
        { stamp "$build/day07_scale/bigger --gib $gib --reps 3"
          "$build/day07_scale/bigger" --gib "$gib" --reps 3 --csv "$file.part" > /dev/null
          cat "$file.part"; } > "$file.tmp"
        rm -f "$file.part"; mv "$file.tmp" "$file" ;;
    gpus)
        # the table (weak and strong scaling) as TAG_gpus.csv; the program's whole output, with
        # where each call's time goes on one GPU and on all, as TAG_gpus-phases.txt
        file=$out/${tag}_gpus.csv text=$out/${tag}_gpus-phases.txt
        echo "measure: $file $text"
        { stamp "$build/day07_scale/gpus --reps 11"
          "$build/day07_scale/gpus" --reps 11 --csv "$file.part" > "$text.part"
          cat "$file.part"; } > "$file.tmp"
        { stamp "$build/day07_scale/gpus --reps 11 (its output: the table, then where the time goes)"
          cat "$text.part"; } > "$text.tmp"
        rm -f "$file.part" "$text.part"; mv "$file.tmp" "$file"; mv "$text.tmp" "$text" ;;
    ranks)
        file=$out/${tag}_ranks.csv
        echo "measure: $file"
        ranks=$build/day07_scale/ranks
        [ -x "$ranks" ] || { echo "measure: $ranks is not built (Open MPI: make nccl-info DAY=07)" >&2; exit 2; }
        # no --oversubscribe: at most one rank a core, so that MPI polls instead of yielding;
        # --bind-to none: a rank's read and reference use every core (mpirun binds one or two
        # ranks to a core each otherwise)
        mpirun="mpirun -q --bind-to none $([ "$(id -u)" = 0 ] && echo --allow-run-as-root)"
        tmp=$(mktemp -d)
        { stamp "ranks under $mpirun (50 repetitions on the GPU, 5 on the CPU); day 06 alone: $build/day06_roofline/day06_roofline --impl gpu_roofline --reps 50"
          "$build/day06_roofline/day06_roofline" --impl gpu_roofline --reps 50 --csv "$tmp/day06.csv" \
              --save-input "$tmp/main.npy" > /dev/null
          # day 06's own program, in the ranks' columns: its median is the count's
          awk -F, 'NR > 1 && $2 == "gpu_roofline" { printf "day 06 alone,1,-,GPU,generated,%s,%s,-,-,-,%.1f,-,-,-,-,-,%s,-\n", $16, $17, $5, $13 }' "$tmp/day06.csv" > "$tmp/rows"
          for np in 1 2 4; do $mpirun -np $np "$ranks" --reps 50 --csv "$tmp/ranks.csv" > /dev/null; done
          for np in 1 2 4; do $mpirun -np $np "$ranks" --reps 5 --cpu --csv "$tmp/ranks.csv" > /dev/null; done
          cat "$tmp/main.npy" > /dev/null # into the page cache
          t0=$(date +%s%N); cat "$tmp/main.npy" > /dev/null; t1=$(date +%s%N)
          bytes=$(stat -c %s "$tmp/main.npy")
          awk -v ns=$((t1 - t0)) -v b="$bytes" 'BEGIN { printf "cat FILE > /dev/null,1,-,-,one file,-,-,-,%.2f,%.2f,-,-,-,-,-,-,-,-\n", ns / 1e6, b / ns }' >> "$tmp/rows"
          for np in 1 2 4; do $mpirun -np $np "$ranks" --reps 5 --input "$tmp/main.npy" --csv "$tmp/ranks.csv" > /dev/null; done
          head -n 1 "$tmp/ranks.csv"; head -n 1 "$tmp/rows"; tail -n +2 "$tmp/ranks.csv" | head -n 6
          tail -n 1 "$tmp/rows"; tail -n +8 "$tmp/ranks.csv"; } > "$file.tmp"
        rm -rf "$tmp"; mv "$file.tmp" "$file" ;;
    reduce)
        file=$out/${tag}_reduce.csv
        ranks=$build/day07_scale/ranks
        [ -x "$ranks" ] || { echo "measure: $ranks is not built (Open MPI: make nccl-info DAY=07)" >&2; exit 2; }
        [ "$ngpus" -le 8 ] || ngpus=8
        if [ "$ngpus" -lt 2 ]; then echo "measure: reduce skipped: one GPU (it compares sums across GPUs)"; continue; fi
        echo "measure: $file"
        mpirun="mpirun -q --bind-to none $([ "$(id -u)" = 0 ] && echo --allow-run-as-root)"
        tmp=$(mktemp -d)
        # METHOD: PATH or PATH:NCCL_PROTO (mpirun passes the environment to its local ranks)
        one() { np=$1 rows=$2 method=$3
            proto=$(echo "$method" | cut -s -d: -f2)
            env ${proto:+NCCL_PROTO=$proto} $mpirun -np "$np" "$ranks" --rows "$rows" --reps 50 \
                --path "${method%%:*}" --csv "$tmp/reduce.csv" > /dev/null; }
        nps=$(for np in 2 4 8; do [ "$np" -gt "$ngpus" ] || echo "$np"; done | paste -sd' ')
        { stamp "ranks under $mpirun -np N --rows R --reps 50 --path P, N = $nps (NCCL_PROTO as the path column says)"
          for np in $nps; do
              for m in peer nccl nccl:LL nccl:LL128 nccl:Simple nccl-allreduce mpi; do one "$np" 1048576 "$m"; done
              for m in peer nccl mpi; do one "$np" 8388608 "$m"; done
          done
          cat "$tmp/reduce.csv"; } > "$file.tmp"
        rm -rf "$tmp"; mv "$file.tmp" "$file" ;;
    sanitize | soak)
        file=$out/${tag}_$step.txt
        echo "measure: $file"
        if [ "$step" = sanitize ]; then cmd="make sanitize"; else cmd="tools/lab/soak.sh $build 1000"; fi
        # the verdicts are kept whatever they are (a failure is a finding), and said here
        { stamp "$cmd"
          if [ "$step" = sanitize ]; then make -s sanitize 2>&1 | sed -n '/^sanitize: on/,$p'
          else tools/lab/soak.sh "$build" 1000 2>&1; fi; } > "$file.tmp" || :
        mv "$file.tmp" "$file"
        tail -n 1 "$file" ;;
    *) echo "measure: unknown step '$step' (runs profile probe sweep triton demo shapes pmpp pmpp-breakdown breakdown shapes-profile plans wide wide-plans cluster-probe torch16 scale bigger gpus ranks reduce sanitize soak)" >&2; exit 2 ;;
    esac
done
echo "measure: done; now make tables"
