#!/bin/sh
# Regenerates the bitcode test inputs and their golden files with LLVM 22.1.8.
# Usage: cd bitcode/testdata && sh gen.sh   (needs /usr/lib/llvm-22/bin)
set -e
B=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
$B/clang -fcommon -c -emit-llvm src/syms.c -o syms.bc
$B/clang -c -emit-llvm src/tmpl.cpp -o tmpl.bc
$B/clang -x hip --offload-arch=gfx906 -nogpulib -nogpuinc --cuda-device-only -c -emit-llvm src/dev.hip -o hipdev.bc
$B/clang -target x86_64-apple-macos11 -c -emit-llvm src/mac.c -o mac-wrapper.bc
$B/clang -target x86_64-pc-windows-msvc -c -emit-llvm src/win.c -o win64.bc
$B/clang -target i686-pc-windows-msvc -c -emit-llvm src/win.c -o win32.bc
$B/clang -c -emit-llvm src/empty.c -o nosyms.bc
$B/clang -flto=thin -c src/a1.c -o thinlto.bc
$B/clang -c -emit-llvm src/a1.c -o $T/a1.bc
$B/clang -c -emit-llvm src/a2.c -o $T/a2.bc
$B/llvm-cat -b $T/a1.bc $T/a2.bc -o multi.bc
$B/llvm-as src/notarget.ll -o notarget.bc
$B/llvm-as src/linkages.ll -o linkages.bc
# Host bitcode with embedded offloading images, and the bytes of the
# initializer (the .llvm.offloading section of the compiled host object).
$B/clang -x hip --offload-arch=gfx906 --offload-arch=gfx90a:xnack+ -nogpulib -nogpuinc --offload-new-driver -fgpu-rdc -c -emit-llvm src/k.hip -o khost.bc
$B/clang -x hip --offload-arch=gfx906 -nogpulib -nogpuinc --offload-new-driver -fgpu-rdc -g -c -emit-llvm src/k.hip -o khost-g.bc
$B/clang -fopenmp --offload-arch=gfx906 -nogpulib -c -emit-llvm src/omp.c -o omp.bc
for f in khost khost-g omp; do
	$B/clang -c $f.bc -o $T/$f.o
	$B/llvm-objcopy --dump-section .llvm.offloading=$f.0.obj $T/$f.o
done
# Named-metadata shapes llvm-offload-binary accepts or skips; every accepted
# initializer holds the same small OffloadBinary (src/small.bin).
$B/llvm-as src/shapes.ll -o shapes.bc
for i in 0 1 2 3; do cp src/small.bin shapes.$i.obj; done
# Golden symbol lists: the "/" member of a GNU archive written by llvm-ar.
for f in *.bc; do
	rm -f $T/x.a
	$B/llvm-ar qcsD --format=gnu $T/x.a $f
	python3 - $T/x.a > ${f%.bc}.syms <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
if d[8:10] == b'/ ':
    size = int(d[8+48:8+58])
    body = d[68:68+size]
    n = struct.unpack('>I', body[:4])[0]
    for name in body[4+4*n:].split(b'\0')[:n]:
        sys.stdout.buffer.write(name + b'\n')
PY
done
