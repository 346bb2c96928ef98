#!/usr/bin/env python3
"""writable.py INSTRUCTOR STUDENT FILE...: can each // SOLUTION region of FILE be written from what
the student edition says? For every region, each name its solution uses (a function, a field, a
macro, a parameter) must be named in the student's copy of the file (the TODO text or the code
given around it) or in common/; names the solution declares itself (its locals) and C/CUDA's own
are the student's to choose or know. Prints one line per region; exit status 1 if a region uses
a name its student edition never gives (tests/student-walk.sh runs it on days 04 and 06)."""
import os
import re
import sys

KNOWN = set("""if else for while do return break continue const static inline void int unsigned
signed char short long float double bool true false auto struct typedef sizeof template typename
uint8_t uint16_t uint32_t uint64_t int32_t int64_t size_t uint4 uint2 min max threadIdx blockIdx
blockDim gridDim warpSize x y z w __syncthreads __syncwarp atomicAdd atomicExch __ldcg __forceinline__
__device__ __global__ __shared__ extern pragma unroll NULL""".split())
DECL = re.compile(r"\b(?:const\s+)?(?:u?int(?:8|16|32|64)?_t|int|bool|uint4|unsigned(?:\s+int)?|"
                  r"size_t|auto|load_type|float)\s*\*?\s*(?:__restrict__\s+)?(\w+)\s*(?:\[[^\]]*\])?\s*[=;,)]")
NAME = re.compile(r"[A-Za-z_]\w*")


def regions(text):
    """(name, solution code without comments) of each region."""
    out = []
    for m in re.finditer(r"// SOLUTION (\w+) \[[^\]]*\]:.*?\n(.*?)// END SOLUTION", text, re.S):
        body = "\n".join(line for line in m.group(2).split("\n")
                         if not re.match(r"\s*//", line))
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        out.append((m.group(1), body))
    return out


def names_in(path):
    with open(path) as f:
        return set(NAME.findall(f.read()))


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    inst, stud, files = argv[0], argv[1], argv[2:]
    common = set()
    for root in (os.path.join(stud, "common"),):
        for f in os.listdir(root):
            if f.endswith((".h", ".cuh", ".c", ".cu")):
                common |= names_in(os.path.join(root, f))
    status = 0
    for rel in files:
        with open(os.path.join(inst, rel)) as f:
            text = f.read()
        lesson = os.path.dirname(rel)
        given = set(common)
        for f in os.listdir(os.path.join(stud, lesson)):
            if f.endswith((".h", ".cuh", ".c", ".cu")):
                given |= names_in(os.path.join(stud, lesson, f))
        for name, body in regions(text):
            declared = set(DECL.findall(body))
            # string and number literals out first (a suffix such as the u of 1u is no name)
            code = re.sub(r'"(?:\\.|[^"])*"|\b\d[\w.]*', "", body)
            missing = sorted(set(NAME.findall(code)) - declared - KNOWN - given)
            if missing:
                status = 1
                print(f"writable: {rel}: region {name}: uses {', '.join(missing)}, "
                      "which the student edition never names")
            else:
                print(f"writable: {rel}: region {name}: every name it uses is given")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
