#!/usr/bin/env bash
# gen.sh: builds real clang 22 outputs that hold AMD GPU code, for the tests
# of the package that lists every GPU code object in a file (bundles, CCOBs,
# fat ELF objects, shared libraries, executables, archives, OffloadBinaries).
# The files are committed next to this script so the tests need no LLVM; the
# script is here to show how each was made and to remake them.
#
# Usage: testdata/inspect/gen.sh [OUTDIR]
#   OUTDIR defaults to the script's own folder. Sources come from src/ beside
#   the script and are compiled in a temporary folder under their bare names.
#
# Writes, into OUTDIR (MANIFEST.md says what each holds):
#   hip-nonrdc.o hip-nonrdc-ccob.o         HIP -c, .hip_fatbin (bundle / CCOB v3)
#   libmulti.so libmulti-ccob.so libmulti-ccob-v2.so
#                                          3 HIP TUs, ld.lld -shared
#   exe-pie exe-nopie [exe-nopie-bfd]      2 HIP TUs, ld.lld / GNU ld
#   rdc.o librdc.a                         -fgpu-rdc fat objects, llvm-ar
#   newdriver.o newdriver-nonrdc.o omp.o   --offload-new-driver, OpenMP
#   newdriver-exe                          new driver -fgpu-rdc link
#   kernel.bc kernel.s kernel.ll           binary / text bundles
#   coff.obj coff-ccob.obj pe.dll pe-ccob.dll coff-fat.obj
#                                          COFF objects and PE DLLs
#   gfx90a.co gfx90a-ccob.co packaged.bin  code object, standalone CCOB,
#                                          llvm-offload-binary of two images
#   F.readobj for each output F: the exact stdout of
#     llvm-readobj --offloading F
#   (or F.readobj.err, with the exit status and stderr, where it fails),
#   and MANIFEST.md.
#
# The GPUs are gfx906, gfx90a:xnack+ and gfx942:sramecc+:xnack- (a plain one
# and two with target-ID features). No ROCm is needed: -nogpulib -nogpuinc,
# src/hip.h declares the three launch functions clang calls, and every host
# link goes against a no-op libamdhip64.so built from e2e/testdata/stub.c in the
# temporary folder (-L. -lamdhip64, so the outputs have DT_NEEDED
# libamdhip64.so, as with the real runtime; the stub is not linked in).
#
# Environment:
#   GOFFLOAD_LLVM_DIR  LLVM 22 bin folder (default /usr/lib/llvm-22/bin);
#                      clang runs clang-offload-bundler, lld, etc. from there
#
# Determinism: the outputs are byte-identical from run to run and from one
# checkout to another: fixed -cuid per translation unit, bare relative
# source names, -fdebug-compilation-dir=., no -g, --build-id=none, llvm-ar's
# deterministic mode, single-threaded zstd. omp.c is compiled from standard
# input, because clang names OpenMP target regions after the source file's
# device and inode numbers (__omp_offloading_<dev>_<inode>_sum_l10), which
# differ for every copy of the file; for "<stdin>" it uses fixed ones.
# Bundler settings from the environment are cleared (the CCOB v2 variant
# sets COMPRESSED_BUNDLE_FORMAT_VERSION=2 for its own commands only).
#
# Backquotes in single quotes below are Markdown; -Wl,... is one argument.
# shellcheck disable=SC2016,SC2054
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here}
mkdir -p "$out"
out=$(cd "$out" && pwd)
llvm=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}
CLANG=$llvm/clang
BUNDLER=$llvm/clang-offload-bundler
PACKAGER=$llvm/llvm-offload-binary
AR=$llvm/llvm-ar
READELF=$llvm/llvm-readelf

"$CLANG" --version | grep -q 'clang version 22\.' ||
  echo "$0: warning: $CLANG is not clang 22; the outputs will differ" >&2

export LC_ALL=C TZ=UTC
unset COMPRESSED_BUNDLE_FORMAT_VERSION OFFLOAD_BUNDLER_COMPRESS \
  OFFLOAD_BUNDLER_VERBOSE OFFLOAD_BUNDLER_IGNORE_ENV_VAR CCC_OVERRIDE_OPTIONS \
  CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH SOURCE_DATE_EPOCH

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/src/* "$work"/
# The no-op HIP runtime the links go against is the end-to-end tests' own.
cp "$here"/../../e2e/testdata/stub.c "$work"/
cd "$work"

archs=(--offload-arch=gfx906 --offload-arch=gfx90a:xnack+ --offload-arch=gfx942:sramecc+:xnack-)
# hipcc SRC.hip CUID ARGS...: a HIP compile for the three GPUs.
hipcc() {
  local src=$1 cuid=$2
  shift 2
  "$CLANG" -x hip -nogpulib -nogpuinc -fdebug-compilation-dir=. \
    -cuid="inspect-$cuid" "${archs[@]}" "$@" "$src"
}
ld_flags=(-L. -lamdhip64 -Wl,--build-id=none)
outputs=()
keep() { # keep FILE...: copy the temporary folder's FILEs to OUTDIR
  local f
  for f; do
    cp "$f" "$out/$f"
    outputs+=("$f")
  done
}
note() { echo "gen.sh: $*" >&2; }

"$CLANG" -shared -fPIC -fuse-ld=lld -Wl,--build-id=none stub.c -o libamdhip64.so

# 1, 2: HIP -c (non-RDC). clang links each GPU's code object with lld and
# bundles them (clang-offload-bundler -type=o -bundle-align=4096, empty host
# entry, [-compress]); the host object embeds the result as .hip_fatbin, and
# .hipFatBinSegment holds the 24-byte wrapper (magic "HIPF", version 1,
# pointer to the fat binary, null) that __hipRegisterFatBinary is given.
hipcc k1.hip k1 -c -o hip-nonrdc.o
hipcc k1.hip k1 -c --offload-compress -o hip-nonrdc-ccob.o
keep hip-nonrdc.o hip-nonrdc-ccob.o

# 3-5: a shared library of three non-RDC TUs. ld.lld concatenates the three
# .hip_fatbin input sections (each 4096-aligned) and the three wrappers.
for k in k1 k2 k3; do
  hipcc $k.hip $k -fPIC -c -o so-$k.o
  hipcc $k.hip $k -fPIC -c --offload-compress -o so-$k-ccob.o
  COMPRESSED_BUNDLE_FORMAT_VERSION=2 \
    hipcc $k.hip $k -fPIC -c --offload-compress -o so-$k-ccob-v2.o
done
for v in "" -ccob -ccob-v2; do
  "$CLANG" -fuse-ld=lld -shared -fPIC so-k1$v.o so-k2$v.o so-k3$v.o \
    "${ld_flags[@]}" -o libmulti$v.so
done
keep libmulti.so libmulti-ccob.so libmulti-ccob-v2.so

# 6, 7: executables of two non-RDC TUs (main.hip calls into k2.hip).
hipcc main.hip main -fPIE -c -o pie-main.o
hipcc k2.hip k2 -fPIE -c -o pie-k2.o
hipcc main.hip main -fno-pic -c -o nopie-main.o
hipcc k2.hip k2 -fno-pic -c -o nopie-k2.o
"$CLANG" -fuse-ld=lld -pie pie-main.o pie-k2.o "${ld_flags[@]}" -o exe-pie
"$CLANG" -fuse-ld=lld -no-pie nopie-main.o nopie-k2.o "${ld_flags[@]}" -o exe-nopie
keep exe-pie exe-nopie
if command -v ld.bfd >/dev/null; then
  "$CLANG" -fuse-ld=bfd -no-pie nopie-main.o nopie-k2.o "${ld_flags[@]}" -o exe-nopie-bfd
  keep exe-nopie-bfd
else
  note "no GNU ld (ld.bfd; Debian package binutils): exe-nopie-bfd skipped"
  rm -f "$out/exe-nopie-bfd" "$out/exe-nopie-bfd.readobj" "$out/exe-nopie-bfd.readobj.err"
fi

# 8: -fgpu-rdc -c: clang-offload-bundler -type=o writes an ELF fat object,
# the host object plus one __CLANG_OFFLOAD_BUNDLE__<id> section per GPU
# (bitcode) and an empty host one. librdc.a: two such objects (k2.o, k3.o).
hipcc k1.hip k1 -fgpu-rdc -c -o rdc.o
hipcc k2.hip k2 -fgpu-rdc -c -o k2.o
hipcc k3.hip k3 -fgpu-rdc -c -o k3.o
"$AR" rcs librdc.a k2.o k3.o
keep rdc.o librdc.a

# 9: the new offload driver. With -fgpu-rdc, llvm-offload-binary packs the
# per-GPU bitcode into an OffloadBinary, embedded as .llvm.offloading.
# Without -fgpu-rdc it links code objects and embeds a bundle as
# .hip_fatbin, like the old driver but with "hip-" IDs in reverse order.
# OpenMP always uses the new driver (compiled from stdin: see the top).
hipcc k1.hip k1 --offload-new-driver -fgpu-rdc -c -o newdriver.o
hipcc k1.hip k1 --offload-new-driver -c -o newdriver-nonrdc.o
"$CLANG" -fopenmp --offload-arch=gfx90a -nogpulib -fdebug-compilation-dir=. \
  -x c -c - -o omp.o <omp.c
keep newdriver.o newdriver-nonrdc.o omp.o

# 10: bundles of a whole file: -c -emit-llvm (binary bundle of bitcode),
# -S (text bundle of assembly), -S -emit-llvm (text bundle of LLVM IR).
hipcc k1.hip k1 -c -emit-llvm -o kernel.bc
hipcc k1.hip k1 -S -o kernel.s
hipcc k1.hip k1 -S -emit-llvm -o kernel.ll
keep kernel.bc kernel.s kernel.ll

# 11: a plain code object (--no-gpu-bundle-output: without it, device-only
# -c writes a bundle), and a standalone CCOB of a bundle of an empty host
# entry and that code object, the way Tensile ships its .co files.
"$CLANG" -x hip -nogpulib -nogpuinc -fdebug-compilation-dir=. -cuid=inspect-k1 \
  --offload-arch=gfx90a --cuda-device-only --no-gpu-bundle-output -c k1.hip -o gfx90a.co
"$BUNDLER" -type=o -compress \
  -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a \
  -input=/dev/null -input=gfx90a.co -output=gfx90a-ccob.co
keep gfx90a.co gfx90a-ccob.co

# 12: an OffloadBinary file of two images: gfx90a.co and a gfx942 code
# object of k2.hip (arch carries the target-ID features). llvm-offload-binary
# takes the image kind from the file name's extension: gfx90a.co is passed
# as gfx90a.o (kind elf, as clang-linker-wrapper writes), gfx942.co as is
# (kind none), so that both kinds occur.
"$CLANG" -x hip -nogpulib -nogpuinc -fdebug-compilation-dir=. -cuid=inspect-k2 \
  --offload-arch=gfx942:sramecc+:xnack- --cuda-device-only --no-gpu-bundle-output \
  -c k2.hip -o gfx942.co
cp gfx90a.co gfx90a.o
"$PACKAGER" -o packaged.bin \
  --image=file=gfx90a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip \
  --image=file=gfx942.co,triple=amdgcn-amd-amdhsa,arch=gfx942:sramecc+:xnack-,kind=hip
keep packaged.bin

# 13: a new-driver executable: clang-linker-wrapper links the GPU bitcode of
# the two TUs' .llvm.offloading sections with lld and embeds the bundle.
hipcc main.hip main --offload-new-driver -fgpu-rdc -c -o nd-main.o
hipcc k2.hip k2 --offload-new-driver -fgpu-rdc -c -o nd-k2.o
if "$CLANG" --offload-new-driver -fgpu-rdc --hip-link -nogpulib "${archs[@]}" \
  -fuse-ld=lld nd-main.o nd-k2.o "${ld_flags[@]}" -o newdriver-exe; then
  keep newdriver-exe
else
  note "the new-driver HIP link failed: newdriver-exe skipped"
  rm -f "$out/newdriver-exe" "$out/newdriver-exe.readobj" "$out/newdriver-exe.readobj.err"
fi

# 14: COFF and PE. clang 22 cannot compile HIP for Windows here (it
# crashes), so the HIP .hip_fatbin sections of hip-nonrdc.o and
# hip-nonrdc-ccob.o are put into a small COFF object with llvm-objcopy (a
# long section name, stored in the string table), and lld-link makes DLLs
# of them (image section names are cut to 8 characters: ".hip_fat").
# coff-fat.obj is a fat COFF object made by the bundler (which runs
# llvm-objcopy for COFF hosts): __CLANG_OFFLOAD_BUNDLE__ sections.
echo 'int host_function(void) { return 1; }' >host.c
# No time stamps: -mno-incremental-linker-compatible, /Brepro.
"$CLANG" --target=x86_64-pc-windows-msvc -mno-incremental-linker-compatible -c host.c -o host.obj
"$llvm/llvm-objcopy" --dump-section=.hip_fatbin=fatbin.bin hip-nonrdc.o
"$llvm/llvm-objcopy" --dump-section=.hip_fatbin=fatbin-ccob.bin hip-nonrdc-ccob.o
"$llvm/llvm-objcopy" --add-section=.hip_fatbin=fatbin.bin \
  --set-section-flags=.hip_fatbin=alloc,load,readonly,data,contents host.obj coff.obj
"$llvm/llvm-objcopy" --add-section=.hip_fatbin=fatbin-ccob.bin \
  --set-section-flags=.hip_fatbin=alloc,load,readonly,data,contents host.obj coff-ccob.obj
"$llvm/lld-link" /dll /noentry /nodefaultlib /opt:noref /Brepro /out:pe.dll coff.obj
"$llvm/lld-link" /dll /noentry /nodefaultlib /opt:noref /Brepro /out:pe-ccob.dll coff-ccob.obj
PATH=$llvm:$PATH "$BUNDLER" -type=o -targets=host-x86_64-pc-windows-msvc,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx906 \
  -input=host.obj -input=gfx90a.co -input=gfx942.co -output=coff-fat.obj
keep coff.obj coff-ccob.obj pe.dll pe-ccob.dll coff-fat.obj

# ccob FILE: one line per "CCOB" magic found in FILE: offset, version,
# method (1 zstd, 0 zlib), total size (v2 and v3 only), uncompressed size.
ccob() {
  local off v
  grep -obUa CCOB "$1" | cut -d: -f1 | while read -r off; do
    v=$(od -An -tu2 -j $((off + 4)) -N2 "$1" | tr -d ' ')
    case $v in
    1) echo "@$off v1 method $(od -An -tu2 -j $((off + 6)) -N2 "$1" | tr -d ' ')" \
      "raw $(od -An -tu4 -j $((off + 8)) -N4 "$1" | tr -d ' ')" ;;
    2) echo "@$off v2 method $(od -An -tu2 -j $((off + 6)) -N2 "$1" | tr -d ' ')" \
      "total $(od -An -tu4 -j $((off + 8)) -N4 "$1" | tr -d ' ')" \
      "raw $(od -An -tu4 -j $((off + 12)) -N4 "$1" | tr -d ' ')" ;;
    3) echo "@$off v3 method $(od -An -tu2 -j $((off + 6)) -N2 "$1" | tr -d ' ')" \
      "total $(od -An -tu8 -j $((off + 8)) -N8 "$1" | tr -d ' ')" \
      "raw $(od -An -tu8 -j $((off + 16)) -N8 "$1" | tr -d ' ')" ;;
    *) echo "@$off version $v?" ;;
    esac
  done
}
for f in libmulti-ccob-v2.so libmulti-ccob.so; do
  want=3
  [ $f = libmulti-ccob.so ] && v=v3 || v=v2
  got=$(ccob $f | grep -c " $v method 1 " || true)
  [ "$got" = $want ] || { echo "$0: $f: $got zstd CCOB $v headers, want $want:" >&2; ccob $f >&2; exit 1; }
done

# F.readobj / F.readobj.err. llvm-readobj runs by its bare name, so that
# its messages (which start with argv[0]) do not depend on GOFFLOAD_LLVM_DIR,
# and in an inner shell, which keeps the "Segmentation fault" report of its
# crash on packaged.bin off our stderr (the exit status says it: 139).
cd "$out"
for f in "${outputs[@]}"; do
  rm -f "$f.readobj" "$f.readobj.err"
  if PATH=$llvm:$PATH bash -c 'llvm-readobj --offloading "$1" >"$1.readobj" 2>"$2"; exit $?' \
    _ "$f" "$work/err" 2>/dev/null; then
    :
  else
    { echo "exit status $?"; cat "$work/err"; } >"$f.readobj.err"
    rm -f "$f.readobj"
  fi
done

# ---------------------------------------------------------------- MANIFEST.md
# One line per output: what it is and how it was made (by hand, below), then
# what the LLVM tools find in it (computed): the offload sections (offsets
# and sizes in hex, file offsets), the .hipFatBinSegment wrappers and where
# they point, the CCOB headers, and the GPU entries with their IDs.
declare -A what how
what[hip-nonrdc.o]='HIP non-RDC relocatable object (k1.hip)'
how[hip-nonrdc.o]='`clang -x hip -c` for the three GPUs'
what[hip-nonrdc-ccob.o]='as hip-nonrdc.o, .hip_fatbin a CCOB'
how[hip-nonrdc-ccob.o]='`clang -x hip -c --offload-compress`'
what[libmulti.so]='shared library of k1.hip, k2.hip, k3.hip (non-RDC, -fPIC)'
how[libmulti.so]='`clang -fuse-ld=lld -shared -fPIC` + `-L. -lamdhip64` (stub built as its own libamdhip64.so, DT_NEEDED)'
what[libmulti-ccob.so]='as libmulti.so, each TU with --offload-compress'
how[libmulti-ccob.so]='the link of libmulti.so, of objects compiled with `--offload-compress`'
what[libmulti-ccob-v2.so]='as libmulti-ccob.so with CCOB format version 2'
how[libmulti-ccob-v2.so]='the link of libmulti.so, of objects compiled with `--offload-compress` under `COMPRESSED_BUNDLE_FORMAT_VERSION=2`'
what[exe-pie]='PIE executable of main.hip + k2.hip (non-RDC, -fPIE)'
how[exe-pie]='`clang -fuse-ld=lld -pie` + stub libamdhip64.so'
what[exe-nopie]='non-PIE executable of main.hip + k2.hip (non-RDC, -fno-pic)'
how[exe-nopie]='`clang -fuse-ld=lld -no-pie` + stub libamdhip64.so'
what[exe-nopie-bfd]='as exe-nopie, linked by GNU ld'
how[exe-nopie-bfd]='`clang -fuse-ld=bfd -no-pie` + stub libamdhip64.so'
what[rdc.o]='HIP -fgpu-rdc ELF fat object (k1.hip): per-GPU bitcode in __CLANG_OFFLOAD_BUNDLE__ sections'
how[rdc.o]='`clang -x hip -fgpu-rdc -c` (bundler -type=o via llvm-objcopy)'
what[librdc.a]='static library of two -fgpu-rdc fat objects (k2.o, k3.o)'
how[librdc.a]='`clang -x hip -fgpu-rdc -c`, then `llvm-ar rcs`'
what[newdriver.o]='HIP new-driver RDC object (k1.hip): OffloadBinary of per-GPU bitcode in .llvm.offloading'
how[newdriver.o]='`clang -x hip --offload-new-driver -fgpu-rdc -c`'
what[newdriver-nonrdc.o]='HIP new-driver non-RDC object (k1.hip): linked code objects in a .hip_fatbin bundle'
how[newdriver-nonrdc.o]='`clang -x hip --offload-new-driver -c`'
what[omp.o]='OpenMP offload object (omp.c): OffloadBinary of gfx90a bitcode in .llvm.offloading'
how[omp.o]='`clang -fopenmp --offload-arch=gfx90a -nogpulib -x c -c - <omp.c`'
what[newdriver-exe]='PIE executable of main.hip + k2.hip, new driver, -fgpu-rdc'
how[newdriver-exe]='`clang --offload-new-driver -fgpu-rdc -c` per TU, then `clang --offload-new-driver -fgpu-rdc --hip-link -fuse-ld=lld` (clang-linker-wrapper) + stub libamdhip64.so'
what[kernel.bc]='binary bundle (whole file) of per-GPU and host bitcode of k1.hip'
how[kernel.bc]='`clang -x hip -c -emit-llvm`'
what[kernel.s]='text bundle ("#" comments) of per-GPU and host assembly of k1.hip'
how[kernel.s]='`clang -x hip -S`'
what[kernel.ll]='text bundle (";" comments) of per-GPU and host LLVM IR of k1.hip'
how[kernel.ll]='`clang -x hip -S -emit-llvm`'
what[gfx90a.co]='plain AMDGPU code object (ET_DYN, EM_AMDGPU) of k1.hip for gfx90a'
how[gfx90a.co]='`clang -x hip --cuda-device-only --no-gpu-bundle-output --offload-arch=gfx90a -c`'
what[gfx90a-ccob.co]='standalone CCOB (whole file) of a bundle of an empty host entry and gfx90a.co'
how[gfx90a-ccob.co]='`clang-offload-bundler -type=o -compress -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a -input=/dev/null -input=gfx90a.co`'
what[coff.obj]='COFF object (x86_64-pc-windows-msvc) with the .hip_fatbin bundle of hip-nonrdc.o (long section name)'
how[coff.obj]='`llvm-objcopy --add-section=.hip_fatbin=...` into a clang COFF object'
what[coff-ccob.obj]='COFF object with the compressed .hip_fatbin of hip-nonrdc-ccob.o'
how[coff-ccob.obj]='as coff.obj'
what[pe.dll]='PE DLL of coff.obj: section name cut to .hip_fat'
how[pe.dll]='`lld-link /dll /noentry /nodefaultlib /opt:noref /Brepro`'
what[pe-ccob.dll]='PE DLL of coff-ccob.obj'
how[pe-ccob.dll]='as pe.dll'
what[coff-fat.obj]='fat COFF object: host.obj plus __CLANG_OFFLOAD_BUNDLE__ sections for gfx90a and gfx906 (the latter holding the gfx942 code object: IDs are labels)'
how[coff-fat.obj]='`clang-offload-bundler -type=o -targets=host-x86_64-pc-windows-msvc,...` (runs llvm-objcopy)'
what[packaged.bin]='OffloadBinary file of two images: gfx90a.co (as gfx90a.o: image kind elf) and a gfx942:sramecc+:xnack- code object of k2.hip (as gfx942.co: image kind none)'
how[packaged.bin]='`llvm-offload-binary -o packaged.bin --image=file=gfx90a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip --image=file=gfx942.co,...,arch=gfx942:sramecc+:xnack-,kind=hip`'

declare -A lister=(
  [rdc.o]=bundler:o [librdc.a]=archive [kernel.bc]=bundler:bc
  [kernel.s]=bundler:s [kernel.ll]=bundler:ll [gfx90a-ccob.co]=bundler:o
  [newdriver.o]=objdump [omp.o]=objdump [packaged.bin]=objdump
  [gfx90a.co]=self [coff-fat.obj]=bundler:o
)

strip0() { printf '%x' $((16#$1)); }

# sections FILE: "name type off size align" for each offload section of an
# ELF file (prefixed with "member:" for an archive), one a line.
sections() {
  "$READELF" -SW "$1" 2>/dev/null | sed 's/^ *\[ *[0-9]*\] *//' | awk '
    /^File: .*\(.*\)$/ { m = $2; sub(/^.*\(/, "", m); sub(/\)$/, "", m); m = m ":"; next }
    $1 ~ /^(\.hip_fatbin|\.hipFatBinSegment|__CLANG_OFFLOAD_BUNDLE__.*|\.llvm\.offloading|\.llvm\.rodata\.offloading|llvm_offload_entries)$/ {
      print m $1, $2, $3, $4, $5, $NF }'
}

# wrappers FILE: where each 24-byte __hip_fatbin_wrapper in .hipFatBinSegment
# points (the pointer at +8: in the file, or given by a relocation).
wrappers() {
  local f=$1 name type addr off size al fbaddr="" fboff="" n i o a ptr rel tgt
  local etype
  etype=$("$READELF" -h "$f" | awk '/Type:/ { print $2 }')
  while read -r name type addr off size al; do
    case $name in
    .hip_fatbin) fbaddr=$((16#$addr)) fboff=$((16#$off)) ;;
    .hipFatBinSegment) set -- $((16#$addr)) $((16#$off)) $((16#$size)) ;;
    esac
  done < <(sections "$f")
  [ $# -eq 3 ] || return 0
  addr=$1 off=$2 size=$3
  n=$((size / 24))
  for ((i = 0; i < n; i++)); do
    o=$((off + 24 * i))
    a="magic $(printf '0x%x' "$(od -An -tu4 -j "$o" -N4 "$f" | tr -d ' ')")"
    a+=" (\"$(od -An -c -j "$o" -N4 "$f" | tr -d ' ')\") version $(od -An -tu4 -j $((o + 4)) -N4 "$f" | tr -d ' ')"
    ptr=$(od -An -tu8 -j $((o + 8)) -N8 "$f" | tr -d ' ')
    printf -v ptr '0x%x' "$ptr"
    if [ "$etype" = REL ]; then
      rel=$("$READELF" -rW "$f" | awk -v want="$(printf '%016x' $((24 * i + 8)))" \
        -v sec="'.rela.hipFatBinSegment'" '
        /^Relocation section/ { on = ($3 == sec); next }
        on && $1 == want { print $3, $5, $6, $7 }')
      echo "[$i] $a, pointer $ptr in file, relocated by $rel"
      continue
    fi
    rel=$("$READELF" -rW "$f" | awk -v want="$(printf '%016x' $((addr + 24 * i + 8)))" '
      $1 == want { print $3, $4 }')
    tgt=$ptr
    [ -n "$rel" ] && tgt=0x${rel#* }
    if [ -n "$fbaddr" ]; then
      echo "[$i] $a, pointer $ptr in file${rel:+, relocated by $rel} -> .hip_fatbin+$(printf '0x%x' $((tgt - fbaddr))) = file offset $((tgt - fbaddr + fboff))"
    else
      echo "[$i] $a, pointer $ptr in file${rel:+, relocated by $rel}"
    fi
  done
}

# entries FILE: one line per entry: "ID<TAB>where".
entries() {
  local f=$1 m
  case ${lister[$f]:-readobj} in
  readobj)
    [ -f "$f.readobj" ] || return 0
    awk -F'\t' '$2 ~ /^file:/ { w = $2; sub(/^[^#]*#/, "", w); print $1 "\t" w }' "$f.readobj" ;;
  bundler:*)
    "$BUNDLER" -list -type="${lister[$f]#bundler:}" -input="$f" | sed 's/$/\t/' ;;
  archive)
    rm -rf "$work/ar" && mkdir "$work/ar"
    for m in $("$AR" t "$f"); do
      (cd "$work/ar" && "$AR" x "$out/$f" "$m" &&
        "$BUNDLER" -list -type=o -input="$m" | sed "s/\$/\tmember $m/")
    done ;;
  objdump)
    rm -rf "$work/od" && mkdir "$work/od"
    (cd "$work/od" && "$llvm/llvm-objdump" --offloading "$out/$f") | awk '
      $1 == "kind" { k = $2 " " $3; sub(/ $/, "", k) }
      $1 == "arch" { a = $2 } $1 == "triple" { t = $2 }
      $1 == "producer" { print $2 "-" t "--" a "\timage kind " k }' ;;
  self)
    "$READELF" -h "$f" | awk '/Flags:/ { sub(/^ *Flags: */, ""); g = $2; sub(/,$/, "", g)
      print "amdgcn-amd-amdhsa--" g "\te_flags " $0 }' ;;
  esac
}

join() { local IFS=';'; local s="$*"; echo "${s//;/; }"; }

{
  cat <<'HEAD'
# testdata/inspect

Generated by `gen.sh` (clang 22, no ROCm); do not edit by hand. Each output
`F` has `F.readobj`, the exact stdout of `llvm-readobj --offloading F`, or
`F.readobj.err` (exit status and stderr) where llvm-readobj fails. Sources
are in `src/`. GPUs: gfx906, gfx90a:xnack+, gfx942:sramecc+:xnack-.

Per file: what, how it was made, the offload sections (`name type @file
offset size alignment`, hex), the `.hipFatBinSegment` wrappers (magic,
the pointer stored in the file, its relocation, and the bundle it points
at), the CCOB headers found (file offset, version, method 1 = zstd, total
and uncompressed sizes), and the GPU entries with their bundle IDs and
where the listing tool says they are (llvm-readobj's `offset` is a file
offset for plain bundles but an offset in the *decompressed* bundle for
CCOBs). Host entries are listed apart.

HEAD
  for f in "${outputs[@]}"; do
    line="- \`$f\` ($(stat -c %s "$f") bytes): ${what[$f]}. Made by ${how[$f]}."
    secs=()
    while read -r name type addr off size al; do
      secs+=("\`$name\` $type @0x$(strip0 "$off") size 0x$(strip0 "$size") align $al")
    done < <(sections "$f")
    [ ${#secs[@]} -eq 0 ] || line+=" Sections: $(join "${secs[@]}")."
    mapfile -t ws < <(wrappers "$f" 2>/dev/null || true)
    [ ${#ws[@]} -eq 0 ] || line+=" Wrappers: $(join "${ws[@]}")."
    mapfile -t cs < <(ccob "$f")
    [ ${#cs[@]} -eq 0 ] || line+=" CCOB: $(join "${cs[@]}")."
    gpu=() host=()
    while IFS=$'\t' read -r id where; do
      e="\`$id\`${where:+ ($where)}"
      case $id in host-*) host+=("$e") ;; *) gpu+=("$e") ;; esac
    done < <(entries "$f")
    line+=" GPU entries (${#gpu[@]}, by ${lister[$f]:-llvm-readobj}): $(join "${gpu[@]}")."
    [ ${#host[@]} -eq 0 ] || line+=" Host: $(join "${host[@]}")."
    if [ -f "$f.readobj.err" ]; then
      line+=" llvm-readobj fails ($(head -1 "$f.readobj.err"))."
    elif ! grep -q 'file://' "$f.readobj"; then
      line+=" llvm-readobj lists no entries."
    fi
    echo "$line"
  done
  cat <<'NOTES'

## Notes on the layouts (clang 22.1.8, ld.lld 22, GNU ld 2.40)

- `.hip_fatbin` is 4096-aligned in objects and in lld and GNU ld outputs.
  A link concatenates the TUs' sections: each TU's bundle (or CCOB) starts
  on a 4096 boundary, with zero bytes between the end of one and the start
  of the next; a CCOB's length is its header's total size, not the gap.
- Inside a bundle, code objects are 4096-aligned relative to the bundle's
  start (`-bundle-align=4096`); the empty host entry has the offset of the
  first code object. In `newdriver-exe`, `.hip_fatbin` is only 16-aligned
  (file offset 0x960), so its code objects are not 4096-aligned in the file.
- `.hipFatBinSegment`: one 24-byte wrapper per TU: magic 0x48495046 (bytes
  "FPIH"), version 1, pointer to the TU's bundle/CCOB start, a zero word.
  Relocatable objects: R_X86_64_64 against the `.hip_fatbin` section symbol
  (non-RDC) or the undefined `__hip_fatbin_<hash>` (RDC). lld PIE and shared
  outputs: the pointer in the file is 0 and an R_X86_64_RELATIVE in
  `.rela.dyn` carries the address as its addend. Non-PIE outputs (lld and
  GNU ld): the absolute address is in the file, no relocation. The section
  is writable (`WA`) from -fPIC/-fPIE objects, read-only (`A`) from
  -fno-pic ones.
- IDs: non-RDC `.hip_fatbin` bundles use `hipv4-amdgcn-amd-amdhsa--<gpu>`
  and `host-x86_64-unknown-linux-gnu-` in command-line order; the new
  driver's use `hip-` and the reverse order; RDC fat objects, `.bc`, `.s`
  and `.ll` bundles use `hip-` and `host-x86_64-pc-linux-gnu-`.
- CCOBs are version 3 (or 2 under `COMPRESSED_BUNDLE_FORMAT_VERSION=2`),
  method 1 (zstd); the uncompressed size is the bundle's size.
- llvm-readobj `--offloading` lists `.hip_fatbin` bundles only (plain or
  CCOB; for a CCOB its `offset` is in the decompressed bundle), not
  `__CLANG_OFFLOAD_BUNDLE__` sections, `.llvm.offloading` or whole-file
  bundles; its entry lines come before the `File:` header block. It
  crashes (SIGSEGV, exit 139) on `packaged.bin`, with or without
  `--offloading`. `clang-offload-bundler -list -type=o` finds
  nothing in a `.hip_fatbin` object, and `llvm-objdump --offloading` on one
  writes the code objects it finds into the current folder.
NOTES
} >MANIFEST.md
