#!/usr/bin/env bash
# gen.sh: real clang 22 outputs for the tests of the one target rule
# (package targetid, bundle.Select, inspect.ForTarget, goffload's
# --target/--keep/--drop): bundles of the shapes LLVM writes when one GPU is
# built in several modes, or beside its generic family, and a shared library
# shaped like Debian 12's rocRAND (gfx90a built twice, xnack+ and xnack-).
# The files are committed next to this script so the tests need no LLVM.
#
# Usage: testdata/targets/gen.sh [OUTDIR]   (OUTDIR defaults to this folder)
#
# Writes:
#   modes.hipfb     gfx90a:xnack+, gfx90a:xnack-, gfx1030 (rocRAND's shape)
#   sramecc.hipfb   gfx942:sramecc+:xnack-, gfx942:sramecc-:xnack+, gfx942:sramecc+:xnack+
#   generic.hipfb   gfx9-generic, gfx906, gfx10-3-generic:..., gfx1030
#   anymode.hipfb   gfx90a, gfx942, gfx1100 (builds for any mode)
#   libmodes.so     k1.hip for gfx90a:xnack+, gfx90a:xnack-, gfx1030, linked
#                   with ld.lld -shared (the .hip_fatbin holds one bundle)
#   libk2.so        k2.hip for gfx1030 only
#   app             main.hip for gfx90a and gfx1030, DT_NEEDED libk2.so,
#                   libmodes.so and libamdhip64.so (not shipped), RUNPATH
#                   $ORIGIN: a program one of whose libraries lacks gfx90a
# Each .hipfb is what clang writes for a non-RDC HIP compile: the bundler run
# as clang runs it (-type=o -bundle-align=4096, an empty host entry from
# /dev/null, one code object per GPU made by clang --cuda-device-only).
#
# Environment: GOFFLOAD_LLVM_DIR, LLVM 22's bin folder (default
# /usr/lib/llvm-22/bin). The outputs are the same from run to run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here}
mkdir -p "$out"
out=$(cd "$out" && pwd)
llvm=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}
CLANG=$llvm/clang
BUNDLER=$llvm/clang-offload-bundler
export LC_ALL=C TZ=UTC
unset COMPRESSED_BUNDLE_FORMAT_VERSION OFFLOAD_BUNDLER_COMPRESS OFFLOAD_BUNDLER_VERBOSE \
  OFFLOAD_BUNDLER_IGNORE_ENV_VAR CCC_OVERRIDE_OPTIONS CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/../inspect/src/hip.h "$here"/../inspect/src/k1.hip "$here"/../inspect/src/k2.hip "$here"/../inspect/src/main.hip "$here"/../../e2e/testdata/stub.c "$work"/
cd "$work"

# co ARCH: one device code object, as clang makes it for a HIP compile.
co() {
  "$CLANG" -x hip -nogpulib -nogpuinc -fdebug-compilation-dir=. -cuid=targets \
    --cuda-device-only --no-gpu-bundle-output --offload-arch="$1" -c k1.hip -o "$1.co"
}
# fatbin OUT ARCH...: the bundle clang writes for those GPUs.
fatbin() {
  local o=$1 t=host-x86_64-unknown-linux-gnu- ins=(-input=/dev/null) a
  shift
  for a; do
    co "$a"
    t+=,hipv4-amdgcn-amd-amdhsa--$a
    ins+=(-input="$a.co")
  done
  "$BUNDLER" -type=o -bundle-align=4096 -targets="$t" "${ins[@]}" -output="$out/$o"
}
fatbin modes.hipfb gfx90a:xnack+ gfx90a:xnack- gfx1030
fatbin sramecc.hipfb gfx942:sramecc+:xnack- gfx942:sramecc-:xnack+ gfx942:sramecc+:xnack+
fatbin generic.hipfb gfx9-generic gfx906 gfx10-3-generic gfx1030
fatbin anymode.hipfb gfx90a gfx942 gfx1100

"$CLANG" -shared -fPIC -fuse-ld=lld -Wl,--build-id=none stub.c -o libamdhip64.so
"$CLANG" -x hip -nogpulib -nogpuinc -fdebug-compilation-dir=. -cuid=targets-so -fPIC \
  --offload-arch=gfx90a:xnack+ --offload-arch=gfx90a:xnack- --offload-arch=gfx1030 -c k1.hip -o k1.o
"$CLANG" -fuse-ld=lld -shared -fPIC k1.o -L. -lamdhip64 -Wl,--build-id=none -Wl,-soname,libmodes.so -o "$out/libmodes.so"

hip() { "$CLANG" -x hip -nogpulib -nogpuinc -fdebug-compilation-dir=. "$@"; }
hip -cuid=targets-k2 -fPIC --offload-arch=gfx1030 -c k2.hip -o k2.o
"$CLANG" -fuse-ld=lld -shared -fPIC k2.o -L. -lamdhip64 -Wl,--build-id=none -Wl,-soname,libk2.so -o "$out/libk2.so"
cp "$out/libmodes.so" "$out/libk2.so" .
hip -cuid=targets-main -fPIE --offload-arch=gfx90a --offload-arch=gfx1030 -c main.hip -o main.o
"$CLANG" -fuse-ld=lld -pie main.o -L. -lk2 -lmodes -lamdhip64 -Wl,--build-id=none '-Wl,-rpath,$ORIGIN' -Wl,--enable-new-dtags -o "$out/app"
