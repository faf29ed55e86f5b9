#!/bin/sh
# Remakes hda's golden archives: what LLVM 22's clang-offload-bundler
# -type=a -unbundle writes from libt.a for TestGolden's six targets.
#
#   sh gen.sh [LLVM_BIN]         the six expected archives from libt.a
#   sh gen.sh --input [LLVM_BIN] first rebuild libt.a itself, then them
#
# libt.a holds four members: memA.o, an ELF fat object from a HIP
# -fgpu-rdc compile (bitcode for gfx906 and gfx90a:xnack+); memB.o, a
# binary bundle; memC.o, a compressed (v3 zstd) bundle; plain.o, an
# object without device code. memB.o and memC.o come out byte for byte;
# memA.o and plain.o carry clang's version string and a CUID, so a
# rebuilt libt.a differs from the checked-in one wherever clang does,
# and the member sizes in example_test.go's Output need updating.
# Run from this folder.
set -eu
rebuild=
if [ "${1:-}" = --input ]; then rebuild=1; shift; fi
L=${1:-${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}}
B=$L/clang-offload-bundler
if [ -n "$rebuild" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	cat > "$tmp/k.hip" <<'SRC'
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 {
  unsigned x, y, z;
  __attribute__((host, device)) dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
extern "C" int hipLaunchKernel(const void*, dim3, dim3, void**, unsigned long, void*);
extern "C" int __hipPushCallConfiguration(dim3, dim3, unsigned long = 0, void* = 0);
extern "C" int __hipPopCallConfiguration(dim3*, dim3*, unsigned long*, void*);
__device__ int devglobal;
__global__ void kern(int *p) { *p = devglobal; }
void launch(int *p) { kern<<<1, 1>>>(p); }
SRC
	printf 'int plainfn(void) { return 1; }\n' > "$tmp/plain.c"
	(cd "$tmp" && "$L/clang" -x hip -fgpu-rdc -c -O1 -nogpulib -nogpuinc \
		--offload-arch=gfx906 --offload-arch=gfx90a:xnack+ k.hip -o memA.o)
	"$L/clang" -c -O1 "$tmp/plain.c" -o "$tmp/plain.o"
	printf HOST > "$tmp/h"
	printf 'DEV1 code' > "$tmp/d1"
	printf 'DEV2 code!' > "$tmp/d2"
	"$B" -type=o -targets=host-x86_64-unknown-linux-gnu-,hip-amdgcn-amd-amdhsa--gfx906:xnack+,openmp-amdgcn-amd-amdhsa--gfx908 \
		-input="$tmp/h" -input="$tmp/d1" -input="$tmp/d2" -output="$tmp/memB.o"
	"$B" -type=o -targets=hip-amdgcn-amd-amdhsa--gfx908,hipv4-amdgcn-amd-amdhsa--gfx1030 \
		-input="$tmp/d1" -input="$tmp/d2" -output="$tmp/memC.o" -compress
	rm -f libt.a
	(cd "$tmp" && "$L/llvm-ar" rcD "$OLDPWD/libt.a" memA.o memB.o memC.o plain.o)
fi
"$B" -type=a -unbundle -input=libt.a \
	-targets=hip-amdgcn-amd-amdhsa--gfx906:xnack+,hip-amdgcn-amd-amdhsa--gfx90a:xnack+,openmp-amdgcn-amd-amdhsa--gfx908,hip-amdgcn-amd-amdhsa--gfx1030,host-x86_64-pc-linux-gnu-,hip-amdgcn-amd-amdhsa--gfx1100 \
	-output=gfx906xp.a -output=gfx90axp.a -output=omp908.a -output=gfx1030.a -output=host.a -output=gfx1100.a \
	-allow-missing-bundles -hip-openmp-compatible
