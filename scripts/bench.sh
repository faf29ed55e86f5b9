#!/usr/bin/env bash
# Benchmarks goffload's clang-offload-bundler against LLVM 22's in one run:
# list, bundle and unbundle of a 1.5 GiB bundle (1 GiB + 512 MiB device
# files), with `cp` of the same bytes as the floor; prints wall time and peak
# RSS for each. Usage: scripts/bench.sh [workdir]  (needs ~6 GiB free).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
LLVM=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}/clang-offload-bundler
OURS=$work/goffload-bundler
mkdir -p "$work"
(cd "$root" && go build -o "$OURS" ./cmd/clang-offload-bundler)

[ -f "$work/dev1" ] || head -c $((1 << 30)) /dev/urandom > "$work/dev1"
[ -f "$work/dev2" ] || head -c $((512 << 20)) /dev/urandom > "$work/dev2"
printf 'host' > "$work/host"
T=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a

measure() { # label command...
  /usr/bin/time -o "$work/time.out" -f '%e %M' "$@" >/dev/null 2>&1 || true
  set -- $(tail -1 "$work/time.out")
  printf '%-10s %8.2f s %10.1f MB\n' "$label" "$1" "$(echo "$2/1024" | bc -l)"
}
run() { # what
  local what=$1; shift
  echo "== $what"
  for tool in LLVM ours; do
    bin=$LLVM; [ $tool = ours ] && bin=$OURS
    [ -x "$bin" ] || { echo "$tool: not found"; continue; }
    # Start each run without the previous run's outputs: replacing a large
    # existing file costs its removal, which is not the tool's work.
    for a in "$@"; do case $a in -output=*) rm -f "${a#-output=}";; esac; done
    sync
    label=$tool measure "$bin" "$@"
  done
}

cd "$work"
sync
echo "== floor"
label="cp" measure sh -c 'cat host dev1 dev2 > floor.bin'
rm -f floor.bin
run "bundle 1.5 GiB" -type=bc -targets=$T -input=host -input=dev1 -input=dev2 -output=b.bc
run "list" -type=bc -list -input=b.bc
run "unbundle 1 GiB target" -type=bc -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx906 -input=b.bc -output=out1
rm -f b.bc out1

# Fat objects: a 500 MB device payload into a small host object, and back.
printf 'int f(void){return 1;}\n' > h.c
clang=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}/clang
if [ -x "$clang" ]; then
  "$clang" -c h.c -o host.o
  head -c $((500 << 20)) dev1 > dev500
  echo "== floor"
  label="cp 500MB" measure cp dev500 floor.bin
  rm -f floor.bin
  run "bundle -type=o 500 MB" -type=o -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906 -input=host.o -input=dev500 -output=fat.o
  run "unbundle -type=o 500 MB" -type=o -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx906 -input=fat.o -output=dev.out
  rm -f fat.o dev.out dev500

  # Archives of fat objects: N members x 3 GPU targets, unbundled for two.
  llvmar=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}/llvm-ar
  head -c 20000 /dev/urandom > c906; head -c 20000 /dev/urandom > c90a; head -c 20000 /dev/urandom > c1030
  "$LLVM" -type=o -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx1030 \
    -input=host.o -input=c906 -input=c90a -input=c1030 -output=fat.o
  for n in 400 5000; do
    rm -rf members; mkdir members
    for i in $(seq 1 $n); do ln fat.o members/m$i.o; done
    (cd members && ls | sort -V | xargs "$llvmar" qc ../lib$n.a)
    run "archive $n members" -type=a -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a \
      -input=lib$n.a -output=o906.a -output=o90a.a
    rm -rf members lib$n.a o906.a o90a.a
  done
  rm -f fat.o c906 c90a c1030
fi
