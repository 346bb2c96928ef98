#!/bin/bash
# cuda12-toolkit.sh [DIR]: Debian's CUDA 12.4 toolkit (nvcc 12.4, CCCL 2.3: the oldest the course
# builds with, README.md "Prerequisites"), unpacked into DIR without installing anything, so that
# the course can be built and tested with it beside the CUDA 13 build:
#     PATH=DIR/bin:$PATH make all test      (into build/sm_90-cuda12.4; make carry: tools/build)
# DIR defaults to ${XDG_CACHE_HOME:-~/.cache}/gpu-histogram-course/cuda-12.4, outside the checkout,
# so that make clean and a fresh clone (CI) find it again. Once DIR/bin/nvcc runs, the script
# does nothing more (idempotent); otherwise it downloads about 1 GB of Debian 13's non-free CUDA
# packages from the Debian mirror this machine already uses, through a private apt list (the
# system's apt configuration is not touched), and keeps about 210 MB of them. Its last line names
# the toolkit: "cuda12-toolkit: DIR/bin/nvcc is CUDA 12.4".
set -euo pipefail
dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-histogram-course/cuda-12.4}
done_line() { echo "cuda12-toolkit: $dir/bin/nvcc is CUDA $("$dir/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')"; }
if "$dir/bin/nvcc" --version >/dev/null 2>&1; then
    done_line
    exit 0
fi
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || { echo "cuda12-toolkit: no Debian mirror configured on this machine" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/root"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror trixie main contrib non-free" \
    > "$work/sources.list"
O=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
   -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache")
echo "cuda12-toolkit: downloading Debian's CUDA 12.4 packages (about 1 GB) for $dir"
apt-get "${O[@]}" -qq update 2>&1 | { grep -v unsandboxed || true; }
(cd "$work/debs" && apt-get "${O[@]}" -qq download nvidia-cuda-toolkit nvidia-cuda-dev libcudart12 \
    libnvvm4 libcub-dev libthrust-dev libcu++-dev 2>&1 | { grep -v unsandboxed || true; })
for f in "$work"/debs/*.deb; do dpkg -x "$f" "$work/root"; done
r=$work/root
# the toolkit's layout, as nvcc expects it (bin/, include/, lib64/, nvvm/libdevice/), made beside
# DIR and moved into place whole, so that an interrupted run leaves no half toolkit behind
t=$dir.partial.$$
rm -rf "$t"
mkdir -p "$t/bin" "$t/nvvm/libdevice" "$t/include" "$t/lib64"
cp "$r/usr/lib/nvidia-cuda-toolkit/bin/nvcc" "$r/usr/lib/nvidia-cuda-toolkit/bin/cicc" "$t/bin/"
cp -r "$r/usr/lib/nvidia-cuda-toolkit/bin/crt" "$t/bin/"
for b in ptxas fatbinary cudafe++ nvlink bin2c cuobjdump nvdisasm nvprune cu++filt; do
    [ ! -f "$r/usr/bin/$b" ] || cp "$r/usr/bin/$b" "$t/bin/"
done
cp -r "$r"/usr/include/* "$t/include/"
cp "$r"/usr/lib/nvidia-cuda-toolkit/libdevice/* "$t/nvvm/libdevice/"
cp -a "$r"/usr/lib/x86_64-linux-gnu/libcudart* "$r"/usr/lib/x86_64-linux-gnu/libcudadevrt* "$t/lib64/"
[ ! -d "$r/usr/lib/x86_64-linux-gnu/stubs" ] || cp -a "$r/usr/lib/x86_64-linux-gnu/stubs" "$t/lib64/"
cat > "$t/bin/nvcc.profile" <<'PROFILE'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64" "-L$(TOP)/lib64/stubs"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
PROFILE
"$t/bin/nvcc" --version >/dev/null || { echo "cuda12-toolkit: the unpacked nvcc does not run" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$t" "$dir"
done_line
