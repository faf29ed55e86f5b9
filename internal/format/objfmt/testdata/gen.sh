#!/bin/sh
# Regenerates the golden files with LLVM 22 (Debian's llvm-22, clang-22,
# lld-22) and GCC. Run from this directory: sh gen.sh
#
#   NAME.host.o   a host object (or .so / executable) made by a compiler
#   NAME.fat.o    llvm-objcopy --add-section=...  of NAME.host.o (see ADD below)
#   NAME.strip.o  llvm-objcopy --regex --remove-section='__CLANG_OFFLOAD_BUNDLE__.*'
#                 of NAME.fat.o (the same bytes as of NAME.host.o)
set -eu
L=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}
CC=$L/clang
OBJCOPY=$L/llvm-objcopy
P=__CLANG_OFFLOAD_BUNDLE__
printf '\0' > payload-nul.bin
printf 'ABCD' > payload-4.bin
i=0; : > payload-300.bin
while [ $i -lt 10 ]; do printf 'device payload line %04d ....\n' $i >> payload-300.bin; i=$((i+1)); done

host() { # name, then the command that writes $name.host.o
	name=$1; shift
	"$@"
	$OBJCOPY \
		--add-section=${P}host-x86_64-unknown-linux-gnu-=payload-nul.bin \
		--set-section-flags=${P}host-x86_64-unknown-linux-gnu-=readonly,exclude \
		--add-section=${P}hip-amdgcn-amd-amdhsa--gfx906=payload-4.bin \
		--set-section-flags=${P}hip-amdgcn-amd-amdhsa--gfx906=readonly,exclude \
		--add-section=${P}openmp-x86_64-unknown-linux-gnu-=payload-300.bin \
		--set-section-flags=${P}openmp-x86_64-unknown-linux-gnu-=readonly,exclude \
		-- $name.host.o $name.fat.o
	$OBJCOPY --regex --remove-section="${P}.*" -- $name.fat.o $name.strip.o
}
host clang-O1 $CC -c -O1 src/a.c -o clang-O1.host.o
host clang-noaddrsig $CC -c -O1 -fno-addrsig src/a.c -o clang-noaddrsig.host.o
host clang-g $CC -c -g src/a.c -o clang-g.host.o
host clang-function-sections $CC -c -O1 -ffunction-sections -fdata-sections src/a.c -o clang-function-sections.host.o
host clang++-comdat $L/clang++ -c -O0 src/b.cpp -o clang++-comdat.host.o
host clang-i686 $CC -c -O1 --target=i686-linux-gnu src/a.c -o clang-i686.host.o
host clang-ppc64 $CC -c -O1 --target=powerpc64-linux-gnu src/a.c -o clang-ppc64.host.o
host clang-aarch64_be $CC -c -O1 --target=aarch64_be-linux-gnu src/a.c -o clang-aarch64_be.host.o
host clang-shared $CC -O1 -shared -fPIC -nostdlib -fuse-ld=lld -Wl,-z,noseparate-code src/st.c -o clang-shared.host.o
host clang-exe $CC -O1 -static -nostdlib -fuse-ld=lld -Wl,-z,noseparate-code src/st.c -o clang-exe.host.o
host clang-exe-i686 $CC -O1 -m32 -static -nostdlib -fuse-ld=lld -Wl,-z,noseparate-code src/st.c -o clang-exe-i686.host.o
host gcc-O1 gcc -c -O1 src/a.c -o gcc-O1.host.o
host gcc-g gcc -c -g src/a.c -o gcc-g.host.o
host g++-comdat g++ -c -O0 src/b.cpp -o g++-comdat.host.o

# A real HIP fat object made by clang, and a hand-written one whose bundle
# sections sit between others, are in a COMDAT group, define symbols and
# have relocations.
$CC -x hip --offload-arch=gfx906 -nogpulib -nogpuinc -fgpu-rdc -c src/k.hip -cuid=abc -o hip-rdc.fat.o
$OBJCOPY --regex --remove-section="${P}.*" -- hip-rdc.fat.o hip-rdc.strip.o
$L/llvm-mc -filetype=obj -triple=x86_64-linux-gnu src/removal.s -o removal.fat.o
$OBJCOPY --regex --remove-section="${P}.*" -- removal.fat.o removal.strip.o

# A COFF fat object made by the real bundler (through llvm-objcopy).
$CC --target=x86_64-pc-windows-msvc -c src/a.c -o coff.tmp.obj
$L/clang-offload-bundler -type=o \
	-targets=host-x86_64-pc-windows-msvc,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx908 \
	-input=coff.tmp.obj -input=payload-4.bin -input=payload-nul.bin -output=coff-x86_64.fat.obj
rm coff.tmp.obj

# A COMDAT group holding only a bundle section: the group and its signature
# symbol are removed with it.
$L/llvm-mc -filetype=obj -triple=x86_64-linux-gnu src/removal-group.s -o removal-group.fat.o
$OBJCOPY --regex --remove-section="${P}.*" -- removal-group.fat.o removal-group.strip.o

# COMDAT groups whose signature symbol is local lose GRP_COMDAT.
host local-group $L/llvm-mc -filetype=obj -triple=x86_64-linux-gnu src/local-group.s -o local-group.host.o

# Relocations and the symbol table aligned to 1 (llvm-objcopy writes the
# word size), and sections named like the added bundles with other flags
# and types (--set-section-flags changes them too).
host odd $L/yaml2obj src/odd.yaml -o odd.host.o

# A WebAssembly object with bundle custom sections added by llvm-objcopy.
$CC --target=wasm32 -c -O1 src/w.c -o wasm.tmp.o
$OBJCOPY --add-section=${P}hip-amdgcn-amd-amdhsa--gfx906=payload-4.bin \
	--add-section=${P}host-x86_64-unknown-linux-gnu-=payload-nul.bin wasm.tmp.o wasm.fat.o
rm wasm.tmp.o

# A GOFF object (z/OS): LLVM 22 identifies it but reads it as no object.
$CC --target=s390x-ibm-zos -c src/w.c -o clang-zos.goff
