#!/bin/sh
# Remakes the inputs of offloadbin's and the packager's tests with LLVM 22
# (clang, llvm-offload-binary, llvm-mc, ld.lld, llvm-ar) and python3.
# Clang's outputs carry its version string, so a rebuild differs from the
# checked-in files in bytes, not in shape: the container and image counts
# pinned by offloadbin/extract_test.go hold for either. One test pins a
# byte offset inside khost.bc (internal/tool/packager/diff3_test.go, the bit
# flip LLVM rejects) and must follow a rebuilt khost.bc.
# Usage: sh gen.sh [LLVM_BIN]   (run from this folder)
set -eu
L=${1:-${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# p2.bin: two OffloadBinaries, a HIP object for gfx906 ("ABC") and
# OpenMP bitcode for sm_70 ("hello world!").
printf ABC > "$tmp/abc.o"
printf 'hello world!' > "$tmp/hw.bc"
"$L/llvm-offload-binary" -o p2.bin \
	--image=file="$tmp/abc.o",triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip \
	--image=file="$tmp/hw.bc",triple=nvptx64-nvidia-cuda,arch=sm_70,kind=openmp

# Clang's new offload driver: HIP (k.hip, bitcode for two GPUs) and
# OpenMP (omp.c), for Linux and Windows; khost.bc is the host bitcode
# with the device code embedded.
hip="-x hip --offload-new-driver -fgpu-rdc -nogpulib -nogpuinc -O1 --offload-arch=gfx906 --offload-arch=gfx90a:xnack+"
"$L/clang" $hip -c k.hip -o knew.o
"$L/clang" $hip -c -emit-llvm k.hip -o khost.bc
omp="-fopenmp --offload-arch=gfx906 -nogpulib -O1"
"$L/clang" $omp -c omp.c -o omp.o
"$L/clang" --target=x86_64-pc-windows-msvc $omp -nogpuinc -c omp.c -o omp_win.obj
python3 tobigobj.py omp_win.obj omp_big.obj

# Linked and relocatable. ld.lld drops SHF_EXCLUDE sections from linked
# files, so the linked ones are made from a copy whose .llvm.offloading
# is SHF_ALLOC instead: it lands in a PT_LOAD as in a loadable image.
"$L/llvm-objcopy" --set-section-flags=.llvm.offloading=alloc knew.o "$tmp/kalloc.o"
"$L/ld.lld" -shared "$tmp/kalloc.o" -o knew.so
"$L/ld.lld" -e 0 --unresolved-symbols=ignore-all "$tmp/kalloc.o" -o knew.exe
"$L/ld.lld" -r knew.o omp.o -o reloc.o

# p2.bin included by assembler, in sections LLVM does and does not read.
"$L/llvm-mc" -filetype=obj -triple=x86_64-linux-gnu inc_elf.s -o inc_elf64.o
"$L/llvm-mc" -filetype=obj -triple=i386-linux-gnu inc_elf.s -o inc_elf32.o
"$L/llvm-mc" -filetype=obj -triple=powerpc64-linux-gnu inc_elf.s -o inc_elf64be.o
"$L/llvm-mc" -filetype=obj -triple=mips-linux-gnu inc_elf.s -o inc_elf32be.o
"$L/llvm-mc" -filetype=obj -triple=x86_64-windows-msvc inc_coff.s -o inc_coff.obj
"$L/llvm-mc" -filetype=obj -triple=aarch64-windows-msvc inc_coff.s -o inc_coff_arm64.obj
"$L/llvm-mc" -filetype=obj -triple=i386-windows-msvc inc_coff.s -o inc_coff_i386.obj
"$L/llvm-mc" -filetype=obj -triple=x86_64-apple-darwin inc_macho.s -o inc_macho.o

# Archives: GNU, BSD and thin; one mixing a raw OffloadBinary (r.bin),
# bitcode and an object; one holding another archive.
rm -f libk.a libk_bsd.a libk_thin.a libmix.a libnest.a
"$L/llvm-ar" rcD libk.a knew.o omp.o
"$L/llvm-ar" rcD --format=bsd libk_bsd.a knew.o omp.o
"$L/llvm-ar" rcD --thin libk_thin.a knew.o omp.o
cp p2.bin "$tmp/r.bin"
cp khost.bc knew.o "$tmp/"
(cd "$tmp" && "$L/llvm-ar" rcD "$OLDPWD/libmix.a" r.bin khost.bc knew.o)
"$L/llvm-ar" rcD libnest.a libk.a omp.o
