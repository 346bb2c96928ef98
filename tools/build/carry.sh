#!/bin/sh
# carry.sh BUILD ARCHIVE: every program and test of the build folder BUILD (build/CONFIG, made by
# make carry), their host debug information stripped, with the CMocka library the tests load, in
# one xz archive whose paths are the build's own (build/CONFIG/...); then its size and what to run
# where it is unpacked: at the root of a checkout of the same commit, on a machine that may have
# another CUDA toolkit or none (the programs link the CUDA runtime statically),
#     tar xJf ARCHIVE && make test REQUIRE_GPU=1 PREBUILT=CONFIG
# (common/common.mk's PREBUILT: make test and make run take these programs and build nothing).
set -eu
build=${1:?usage: carry.sh BUILD ARCHIVE} archive=${2:?usage: carry.sh BUILD ARCHIVE}
config=$(basename "$build")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# the programs: every executable file of the folder (the objects and libraries stay behind)
find "$build" -type f -perm -u+x | while read -r f; do
    mkdir -p "$stage/$(dirname "$f")"
    strip --strip-debug -o "$stage/$f" "$f"
done
# CMocka, which a GPU machine may lack: found there through LD_LIBRARY_PATH (PREBUILT's make test)
cmocka=$(ldd "$build/tests/test_harness" | sed -n 's/^[[:space:]]*\(libcmocka[^ ]*\) => \([^ ]*\).*/\1 \2/p')
[ -n "$cmocka" ] || { echo "carry: $build/tests/test_harness loads no CMocka" >&2; exit 1; }
mkdir -p "$stage/$build/lib"
cp -L "${cmocka#* }" "$stage/$build/lib/${cmocka%% *}"
{
    echo "built $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n), commit $(git describe --always --dirty 2>/dev/null || echo unknown)"
    echo "toolkit: $(${NVCC:-nvcc} --version 2>/dev/null | sed -n 's/.*release \([^,]*\),.*/CUDA \1/p')"
    echo "unpack at the root of a checkout of that commit: tar xJf $archive"
    echo "then: make test REQUIRE_GPU=1 PREBUILT=$config"
} > "$stage/$build/carried.txt"
mkdir -p "$(dirname "$archive")"
tar -C "$stage" -cJf "$archive.tmp" build
mv "$archive.tmp" "$archive"
echo "carry: $archive, $(du -k "$archive" | cut -f1) KiB ($(find "$stage/$build" -type f | wc -l) files)"
echo "carry: on the other machine, at the root of a checkout of the same commit:"
echo "       tar xJf $archive && make test REQUIRE_GPU=1 PREBUILT=$config"
