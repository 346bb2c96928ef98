#!/bin/bash
# build-checks.sh [CHECK...]: the build's own regressions, each on a fresh copy of the tracked tree
# (CI runs them all; no GPU needed). Checks: parallel, day, arch, space, lesson.
#   parallel  `make -j8 all` from clean, three times; the course has every lesson; a second
#             `make` (all, run, test) compiles and links nothing
#   day       `make DAY=01`, then a plain `make` has every lesson; `make run DAY=04` after a full
#             build works; the course is never partial
#   arch      `make ARCH=sm_80` from clean builds sm_80 code (and keeps the sm_90 build apart)
#   space     build, test (DAY=01) and run from a path with a space
#   lesson    a throwaway lesson folder plugs in with nothing outside it changed but the pages that
#             list every lesson (README.md, docs/DAY00.md); one that breaks the contract fails with
#             one line naming the folder
#   architecture  `make check-architecture` passes, and fails on each planted breach of
#             docs/ARCHITECTURE.md: an upward include, a long function, mutable state in
#             common/, argv read outside common/cli.c, an unnamed folder, a .cu included, an
#             include part-way, a cycle of two headers, a header that does not compile alone
#             (a .cuh; a .h only CUDA can include), another lesson's header without LESSON_USES,
#             a mutable static, a mutable global and a text buffer no registry entry returns
#             in a lesson, a raw `<<<` launch and a cudaLaunchKernelEx in a lesson; with
#             LESSON_USES, the other lesson's header is allowed
#   offline   CMocka missing and an apt-get that fails first on the PATH: make test stops with exit
#             status 2 and one line naming the README's "Offline machines" and CMOCKA_ROOT (as
#             root, after a line saying what apt-get installs and why); a CMOCKA_ROOT without
#             include/cmocka.h is that one line too, before any build; the
#             default build prints one short line per step, V=1 the whole commands
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
checks=${*:-architecture offline parallel day arch space lesson}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "build-checks: FAILED: $*" >&2; exit 1; }

# a fresh copy of the tracked files (and the untracked ones git does not ignore) at $1
fresh() {
    rm -rf "$1" && mkdir -p "$1"
    (cd "$src" && git ls-files -z --cached --others --exclude-standard |
        xargs -0 tar -cf - --no-recursion) | (cd "$1" && tar -xf -)
}
count_lessons() { "$1" --list | awk '$1 ~ /^day[0-9][0-9]_/ { print $1 }' | sort -u | wc -l; }
lessons=$(cd "$src" && ls -d day[0-9][0-9]_*/ | wc -l)

for check in $checks; do
    echo "== build check: $check"
    case $check in
    architecture)
        fresh "$work/c"
        passes() { # $1: what the copy holds; the check passes on it
            make -C "$work/c" -s check-architecture > "$work/c.log" 2>&1 ||
                { cat "$work/c.log"; fail "check-architecture on $1"; }
        }
        passes "the tracked tree"
        planted() { # $1: what was planted; the check must fail naming $2
            if make -C "$work/c" -s check-architecture > "$work/c.log" 2>&1; then fail "check-architecture missed $1"; fi
            grep -q -- "$2" "$work/c.log" || { cat "$work/c.log"; fail "check-architecture on $1: no line naming $2"; }
        }
        cp "$work/c/common/data.c" "$work/c.keep"
        printf '#include "runner.h"\n' >> "$work/c/common/data.c"
        planted "an upward include" "common/data.c"
        { printf 'int too_long(void) {\n    int x = 0;\n'; for i in $(seq 81); do printf '    x += %d;\n' "$i"; done
          printf '    return x;\n}\n'; } >> "$work/c/common/data.c"
        sed -i '/#include "runner.h"/d' "$work/c/common/data.c"
        planted "a long function" "too_long"
        cp "$work/c.keep" "$work/c/common/data.c"
        printf 'static const char *chosen_gpu;\n' >> "$work/c/common/data.c"
        planted "mutable state in common/ (a pointer to const)" "static 'chosen_gpu' can change"
        cp "$work/c.keep" "$work/c/common/data.c"
        cp "$work/c/day07_scale/gpus.cu" "$work/c.keep"
        printf 'static int own_reps(char **argv) { return atoi(argv[2]); }\n' >> "$work/c/day07_scale/gpus.cu"
        planted "argv read outside cli.c" "day07_scale/gpus.cu:.*reads the command line itself"
        cp "$work/c.keep" "$work/c/day07_scale/gpus.cu"
        # headers: a source included, an include part-way, a cycle, headers that do not compile alone
        sed -i '0,/^#include "cuda_check.h"/s//#include "cuda_check.h"\n#include "pipeline.cu"/' "$work/c/day07_scale/gpus.cu"
        planted "a .cu included" "day07_scale/gpus.cu:[0-9]*: includes pipeline.cu, a source file"
        cp "$work/c.keep" "$work/c/day07_scale/gpus.cu"
        printf '#include "add.h"\n' >> "$work/c/day07_scale/gpus.cu"
        planted "an include part-way" "day07_scale/gpus.cu:[0-9]*: includes add.h part-way"
        cp "$work/c.keep" "$work/c/day07_scale/gpus.cu"
        printf '#ifndef PLANT_A_CUH\n#define PLANT_A_CUH\n#include "plant_b.cuh"\n#endif\n' > "$work/c/day04_shared/plant_a.cuh"
        printf '#ifndef PLANT_B_CUH\n#define PLANT_B_CUH\n#include "plant_a.cuh"\n#endif\n' > "$work/c/day04_shared/plant_b.cuh"
        planted "a cycle of two headers" "a cycle of includes: day04_shared/plant_a.cuh -> day04_shared/plant_b.cuh -> day04_shared/plant_a.cuh"
        rm "$work/c/day04_shared/plant_a.cuh" "$work/c/day04_shared/plant_b.cuh"
        printf '#pragma once\nstatic inline int planted_alone(void) { return d04_undeclared(); }\n' > "$work/c/day04_shared/plant.cuh"
        planted "a .cuh that does not compile alone" "day04_shared/plant.cuh:2: does not compile alone (nvcc)"
        rm "$work/c/day04_shared/plant.cuh"
        printf '#pragma once\ntemplate <int N> struct planted_cuda { int x[N]; };\n' > "$work/c/day07_scale/plant.h"
        planted "a .h only CUDA code can include" "day07_scale/plant.h:2: does not compile alone (gcc as C11)"
        rm "$work/c/day07_scale/plant.h"
        # another lesson's header: refused, then allowed once the Makefile names it in LESSON_USES
        printf '#ifndef PLANT_H\n#define PLANT_H\nint planted_uses(int x);\n#endif\n' > "$work/c/day03_privatized/plant.h"
        cp "$work/c/day04_shared/shared.cu" "$work/c.keep"
        cp "$work/c/day04_shared/Makefile" "$work/c.keep.mk"
        sed -i '0,/^#include "cuda_check.h"/s//#include "..\/day03_privatized\/plant.h"\n#include "cuda_check.h"/' "$work/c/day04_shared/shared.cu"
        planted "another lesson's header without LESSON_USES" "day04_shared/shared.cu:[0-9]*: includes day03_privatized/plant.h, another lesson's file"
        sed -i 's/^include /LESSON_USES := day03_privatized\ninclude /' "$work/c/day04_shared/Makefile"
        passes "an include of a LESSON_USES lesson's header"
        cp "$work/c.keep" "$work/c/day04_shared/shared.cu"
        cp "$work/c.keep.mk" "$work/c/day04_shared/Makefile"
        rm "$work/c/day03_privatized/plant.h"
        # a lesson's state and launches
        printf 'static int planted_count;\n' >> "$work/c/day04_shared/shared.cu"
        planted "a mutable static in a lesson" "day04_shared/shared.cu:[0-9]*: static 'planted_count' can change"
        cp "$work/c.keep" "$work/c/day04_shared/shared.cu"
        printf 'size_t planted_chunk = 32;\n' >> "$work/c/day04_shared/shared.cu"
        planted "a mutable global in a lesson" "day04_shared/shared.cu:[0-9]*: global 'planted_chunk' can change"
        cp "$work/c.keep" "$work/c/day04_shared/shared.cu"
        printf 'static const char *planted_text(void) {\n    static char text[8];\n    return text;\n}\n' >> "$work/c/day04_shared/shared.cu"
        planted "a text buffer no registry entry returns" "day04_shared/shared.cu:[0-9]*: static 'text' can change"
        cp "$work/c.keep" "$work/c/day04_shared/shared.cu"
        printf 'static void planted_launch(void) { count_kernel<<<1, 1>>>(); }\n' >> "$work/c/day04_shared/shared.cu"
        planted "a raw <<< launch in a lesson" "day04_shared/shared.cu:[0-9]*: launches a kernel itself"
        cp "$work/c.keep" "$work/c/day04_shared/shared.cu"
        printf 'static void planted_launch(cudaLaunchConfig_t *c) { cudaLaunchKernelEx(c, count_kernel); }\n' >> "$work/c/day04_shared/shared.cu"
        planted "a cudaLaunchKernelEx in a lesson" "day04_shared/shared.cu:[0-9]*: launches a kernel itself"
        cp "$work/c.keep" "$work/c/day04_shared/shared.cu"
        passes "the tracked tree again"
        mkdir "$work/c/extras" && touch "$work/c/extras/file.txt"
        planted "an unnamed folder" "extras/" ;;
    parallel)
        fresh "$work/p"
        for i in 1 2 3; do
            rm -rf "$work/p/build"
            make -C "$work/p" -j8 all > "$work/p.log" 2>&1 || { tail -20 "$work/p.log"; fail "make -j8 all, try $i"; }
        done
        [ "$(count_lessons "$work/p/build/course")" -eq "$lessons" ] || fail "course lacks lessons"
        for goal in all run; do
            # V=1: the commands as they are (by default each starts with its short line's printf)
            redo=$(make -C "$work/p" -n V=1 "$goal" | grep -E '^(gcc|nvcc|ar) ' || true)
            [ -z "$redo" ] || fail "an up-to-date build remade files for make $goal: $redo"
        done ;;
    day)
        fresh "$work/d"
        make -C "$work/d" -j8 all DAY=01 > /dev/null
        make -C "$work/d" -j8 all > /dev/null
        [ "$(count_lessons "$work/d/build/course")" -eq "$lessons" ] || fail "make after DAY=01: a partial course"
        make -C "$work/d" run DAY=04 ARGS="--rows 10 --channels 3 --reps 1" > "$work/d.log" 2>&1 ||
            { cat "$work/d.log"; fail "make run DAY=04 after a full build"; }
        grep -q "gpu_shared" "$work/d.log" || fail "make run DAY=04 did not run day04"
        make -C "$work/d/day01_cpu" run ARGS="--rows 10 --channels 3 --reps 1" > /dev/null ||
            fail "make -C day01_cpu run"
        [ -x "$work/d/build/course" ] || fail "build/course removed"
        [ "$(count_lessons "$work/d/build/course")" -eq "$lessons" ] || fail "a partial course after DAY runs" ;;
    arch)
        fresh "$work/a"
        make -C "$work/a" -j8 all ARCH=sm_80 > "$work/a.log" 2>&1 || { tail -20 "$work/a.log"; fail "make ARCH=sm_80"; }
        # every GPU object records the ptxas options it was assembled with
        strings "$work/a/build/sm_80/course" | grep -- "-arch sm_80" > /dev/null || fail "no sm_80 code"
        ! strings "$work/a/build/sm_80/course" | grep -- "-arch sm_90" > /dev/null || fail "sm_90 code in the sm_80 build"
        touch "$work/a/common/hist.h"
        make -C "$work/a" -j8 all ARCH=sm_80 -q 2>/dev/null && fail "a header change did not rebuild" || true
        make -C "$work/a" -j8 all ARCH=sm_80 OPT=-O1 -n | grep "gcc.*-O1" > /dev/null || fail "a flag change did not rebuild" ;;
    space)
        fresh "$work/with space/course"
        (cd "$work/with space/course" && make -j8 all > "$work/s.log" 2>&1 &&
            make test DAY=01 >> "$work/s.log" 2>&1 &&
            ./build/course --rows 100 --channels 3 --reps 1 >> "$work/s.log" 2>&1) ||
            { tail -30 "$work/s.log"; fail "a path with a space"; } ;;
    lesson)
        fresh "$work/l"
        (cd "$work/l" && git init -q && git add -A && git -c user.email=ci@x -c user.name=ci commit -qm base)
        mkdir "$work/l/day99_scratch"
        printf '# Day 99: a throwaway lesson\n' > "$work/l/day99_scratch/README.md"
        cat > "$work/l/day99_scratch/Makefile" <<'MK'
# day99_scratch: a throwaway lesson made by tests/build-checks.sh.
LESSON_SRCS := scratch.c
include $(dir $(lastword $(MAKEFILE_LIST)))../common/lesson.mk
MK
        cat > "$work/l/day99_scratch/scratch.c" <<'C'
#include <string.h>

#include "reference.h"

static hist_status run_scratch(const hist_args *a) {
    hist_reference(a->problem, a->samples, a->hist);
    return HIST_OK;
}

HIST_DECLARE_REGISTRY(day99);
const hist_impl day99_impls[] = {
    {"cpu_scratch", HIST_HOST, "the reference again", "any problem", NULL, NULL, run_scratch, 0,
     0, HIST_ROOF_BOUND, NULL, 0},
};
const size_t day99_impl_count = sizeof day99_impls / sizeof day99_impls[0];
C
        (cd "$work/l" && make -j8 all > "$work/l.log" 2>&1 && make test DAY=99 >> "$work/l.log" 2>&1) ||
            { tail -30 "$work/l.log"; fail "a new lesson folder"; }
        "$work/l/build/course" --list | grep cpu_scratch > /dev/null || fail "the course lacks the new lesson"
        (cd "$work/l" && make tables > /dev/null && grep -q day99_scratch README.md) ||
            fail "the README's lesson table lacks the new lesson"
        grep -q '^| day99_scratch | no GPU' "$work/l/docs/DAY00.md" ||
            fail "day 00's table of which GPU each lesson needs lacks the new lesson"
        # the two pages that list every lesson (generated), the only ones outside the folder
        (cd "$work/l" && git checkout -q README.md docs/DAY00.md)
        # make tables' stale lines need the course's history, which this copy has not: those
        # lines alone may differ
        (cd "$work/l" && git diff --quiet -I '^\*Stale: ' && git checkout -q -- .) || true
        changed=$(cd "$work/l" && git status --porcelain | grep -v '^?? day99_scratch/$' || true)
        [ -z "$changed" ] || fail "adding a lesson changed: $changed"
        # a registry under another name: one line naming the folder
        sed -i 's/day99_impls/day98_impls/g' "$work/l/day99_scratch/scratch.c"
        if (cd "$work/l" && make all DAY=99 > "$work/l.log" 2>&1); then fail "a broken registry built"; fi
        grep -q "^day99_scratch: .*day99_impls" "$work/l.log" || { tail "$work/l.log"; fail "no line naming the folder"; } ;;
    offline)
        mkdir -p "$work/bin"
        printf '#!/bin/sh\necho "E: Unable to locate package $*" >&2\nexit 100\n' >"$work/bin/apt-get"
        printf '#!/bin/sh\nexit 1\n' >"$work/bin/cc" # ensure-deps.sh's probe: no CMocka
        chmod +x "$work/bin/apt-get" "$work/bin/cc"
        fresh "$work/o"
        set +e
        out=$(cd "$work/o" && PATH="$work/bin:$PATH" make test 2>&1)
        rc=$?
        set -e
        last=$(printf '%s\n' "$out" | tail -n 1)
        [ $rc -eq 2 ] || fail "a missing CMocka: exit status $rc, not 2 ($out)"
        case $last in *'"Offline machines"'*CMOCKA_ROOT=*) ;; *) fail "a missing CMocka: the last line is '$last'" ;; esac
        ! printf '%s\n' "$out" | grep -q "Unable to locate" || fail "apt-get's own error was shown: $out"
        if [ "$(id -u)" -eq 0 ]; then # as root it tried apt-get, saying so first
            printf '%s\n' "$out" | grep -q "^cmocka is missing (make test builds its tests with it): installing libcmocka-dev with apt-get as root" ||
                fail "no line before apt-get said what it installs and why: $out"
        fi
        # a CMOCKA_ROOT without include/cmocka.h: the one offline line naming it, before anything is built
        set +e
        out=$(cd "$work/o" && make test CMOCKA_ROOT="$work/no-cmocka" 2>&1)
        rc=$?
        set -e
        [ $rc -eq 2 ] || fail "a CMOCKA_ROOT without cmocka.h: exit status $rc, not 2 ($out)"
        [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "a CMOCKA_ROOT without cmocka.h: more than one line: $out"
        case $out in *"CMOCKA_ROOT=$work/no-cmocka has no include/cmocka.h"*'"Offline machines"'*) ;;
        *) fail "a CMOCKA_ROOT without cmocka.h: '$out'" ;; esac
        (cd "$work/o" && make DAY=01 all) >"$work/o.log" 2>&1 || { tail "$work/o.log"; fail "build"; }
        grep -q '^  CC    day01_cpu/cpu_hist.c$' "$work/o.log" || fail "no short line for cpu_hist.c"
        ! grep -q -- '-Wextra' "$work/o.log" || fail "the default build printed whole commands"
        rm -rf "$work/o/build"
        (cd "$work/o" && make DAY=01 all V=1) >"$work/o.log" 2>&1 || fail "V=1 build"
        grep -q -- '-Wextra' "$work/o.log" || fail "V=1 printed no whole command" ;;
    *) fail "unknown check '$check'" ;;
    esac
    echo "   ok"
done
