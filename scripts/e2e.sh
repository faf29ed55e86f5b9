#!/usr/bin/env bash
# End-to-end check that goffload's tools are drop-in replacements for LLVM 22's,
# on your own sources: every job runs once with LLVM's clang-offload-bundler and
# llvm-offload-binary and once with goffload's (`clang -B DIR`), in the same
# folder, and the outputs are compared byte for byte. The Go tests in e2e/ run
# the same jobs on e2e/testdata.
#
# Usage: scripts/e2e.sh [options] [SOURCE...]
#   SOURCE     .hip/.cu/.cpp-with-HIP files get the HIP jobs; .c files get the
#              OpenMP jobs. Default: e2e/testdata/kernel.hip e2e/testdata/omp.c
#   -a ARCHS   GPU targets for HIP, comma-separated (default gfx906,gfx90a:xnack+)
#   -f FLAGS   extra HIP flags (default "-nogpulib -nogpuinc"; clear them to use
#              an installed ROCm's headers and device libraries)
#   -o DIR     test the tools in DIR instead of building goffload's
#              (also: GOFFLOAD_E2E_OURS_DIR)
#   -s         self-check: "ours" are symlinks to LLVM's own tools, so every
#              job must come out identical
#   -k DIR     keep all inputs and outputs in DIR (default: a removed temp dir)
#   -v         print each job's log on failure
# LLVM 22 is looked up in $GOFFLOAD_LLVM_DIR (default /usr/lib/llvm-22/bin).
#
# Prints one line per job: identical, equivalent (compressed bytes differ but
# the compressed-bundle headers, the code objects and the rest of the file
# agree), DIFFERENT, or FAILED; exits 1 if any job is not identical or
# equivalent.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
LLVM=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}
archs=gfx906,gfx90a:xnack+
hipflags="-nogpulib -nogpuinc"
ours=${GOFFLOAD_E2E_OURS_DIR:-}
selfcheck=0 keep= verbose=0
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while getopts a:f:o:k:svh opt; do
  case $opt in
  a) archs=$OPTARG ;;
  f) hipflags=$OPTARG ;;
  o) ours=$OPTARG ;;
  k) keep=$OPTARG ;;
  s) selfcheck=1 ;;
  v) verbose=1 ;;
  h) usage 0 ;;
  *) usage 2 >&2 ;;
  esac
done
shift $((OPTIND - 1))
sources=("$@")
[ ${#sources[@]} -gt 0 ] || sources=("$root/e2e/testdata/kernel.hip" "$root/e2e/testdata/omp.c")

die() { echo "e2e.sh: $*" >&2; exit 2; }
CLANG=$LLVM/clang
for tool in clang clang-offload-bundler llvm-offload-binary llvm-objcopy llvm-ar; do
  [ -x "$LLVM/$tool" ] || die "LLVM 22's $tool not found in $LLVM (install clang-22 lld-22 llvm-22, or set GOFFLOAD_LLVM_DIR)"
done
case $("$CLANG" --version | head -1) in
*"version 22."*) ;;
*) die "$CLANG is not clang 22: $("$CLANG" --version | head -1)" ;;
esac

if [ -n "$keep" ]; then
  work=$(mkdir -p "$keep" && cd "$keep" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# Our tools.
ourtools="clang-offload-bundler llvm-offload-binary clang-offload-packager"
declare -A missing=()
if [ $selfcheck = 1 ]; then
  bin=$work/ours-bin
  mkdir -p "$bin"
  # LLVM's bundler looks for llvm-objcopy next to the path it was run as.
  for t in $ourtools llvm-objcopy; do ln -sf "$LLVM/$t" "$bin/$t"; done
  echo "ours: symlinks to LLVM's own tools (self-check) in $bin"
elif [ -n "$ours" ]; then
  bin=$(cd "$ours" && pwd) || die "no folder $ours"
  echo "ours: $bin"
else
  bin=$work/ours-bin
  mkdir -p "$bin"
  echo "ours: building goffload's tools into $bin"
  for t in $ourtools; do
    (cd "$root" && go build -o "$bin/$t" "./cmd/$t") >"$work/build-$t.log" 2>&1 ||
      echo "  go build ./cmd/$t failed (see below)"
  done
fi
for t in $ourtools; do
  [ -x "$bin/$t" ] || missing[$t]=1
done
[ -z "${missing[*]:-}" ] || echo "ours: missing ${!missing[*]}; jobs that need them are marked FAILED"

# Stub runtime libraries so host links succeed without ROCm.
stub=$work/stub
mkdir -p "$stub"
for l in amdhip64 omp omptarget; do
  "$CLANG" -shared -fPIC -Wl,--build-id=none "$root/e2e/testdata/stub.c" -o "$stub/lib$l.so" ||
    die "cannot build the stub runtime library lib$l.so"
done

read -ra hipf <<<"$hipflags"
archflags=()
IFS=, read -ra alist <<<"$archs"
for a in "${alist[@]}"; do archflags+=("--offload-arch=$a"); done

# Job steps. $CC is the clang command line of the current side; each job
# writes its outputs, named in $outs, in the current folder.
hip() { "${CC[@]}" -x hip "${hipf[@]}" "-cuid=e2e-$(basename "$src")" "${archflags[@]}" "$@"; }
job_c() { hip -c "$src" -o out.o; }
job_rdc() { hip -c -fgpu-rdc "$src" -o out.o; }
job_s() { hip -S "$src" -o out.s; }
job_ll() { hip -S -emit-llvm "$src" -o out.ll; }
job_bc() { hip -c -emit-llvm "$src" -o out.bc; }
job_e() { hip -E "$src" -o out.hipi; }
job_cz() { hip -c --offload-compress "$src" -o out.o; }
job_rdcz() { hip -c -fgpu-rdc --offload-compress "$src" -o out.o; }
job_bcz() { hip -c -emit-llvm --offload-compress "$src" -o out.bc; }
job_sz() { hip -S --offload-compress "$src" -o out.s; }
job_new() { hip --offload-new-driver -fgpu-rdc -c "$src" -o out.o; }
job_link() {
  hip -fgpu-rdc -c "$src" -o out.o &&
    "${CC[@]}" -x hip "${hipf[@]}" -cuid=e2e-lib "${archflags[@]}" -fgpu-rdc -c "$root/e2e/testdata/lib.hip" -o lib.o &&
    "$LLVM/llvm-ar" rcs libe2e.a lib.o &&
    "${CC[@]}" --hip-link -fgpu-rdc "${archflags[@]}" out.o libe2e.a -L"$stub" -lamdhip64 \
      -Wl,--build-id=none -Wl,--unresolved-symbols=ignore-all -o app
}
job_omp() { "${CC[@]}" -fopenmp --offload-arch="${alist[0]}" -nogpulib -c "$src" -o out.o; }
job_omplink() {
  job_omp && "${CC[@]}" -fopenmp --offload-arch="${alist[0]}" -nogpulib out.o -L"$stub" \
    -Wl,--build-id=none -Wl,--unresolved-symbols=ignore-all \
    -Xoffload-linker --unresolved-symbols=ignore-all -o app
}

# compressed_equiv A B: for outputs holding CCOBs, compare CCOB headers (all
# but the total size), the code objects LLVM's bundler extracts, and (ELF)
# the file with the .hip_fatbin section's contents replaced.
compressed_equiv() {
  local a=$1 b=$2 d=$1.cmp fa fb
  mkdir -p "$d"
  if [ "$(head -c 4 "$a")" = $'\x7fELF' ]; then
    fa=$d/llvm.fb fb=$d/ours.fb
    "$LLVM/llvm-objcopy" --dump-section=.hip_fatbin="$fa" "$a" "$d/x" 2>/dev/null &&
      "$LLVM/llvm-objcopy" --dump-section=.hip_fatbin="$fb" "$b" "$d/x" 2>/dev/null || return 1
    : >"$d/empty"
    "$LLVM/llvm-objcopy" --update-section=.hip_fatbin="$d/empty" "$a" "$d/llvm.rest" &&
      "$LLVM/llvm-objcopy" --update-section=.hip_fatbin="$d/empty" "$b" "$d/ours.rest" &&
      cmp -s "$d/llvm.rest" "$d/ours.rest" || { echo "outside .hip_fatbin" >"$d/why"; return 1; }
  else
    fa=$a fb=$b
  fi
  [ "$(head -c 4 "$fa")" = CCOB ] && [ "$(head -c 4 "$fb")" = CCOB ] || { echo "no CCOB" >"$d/why"; return 1; }
  # version+method (8 bytes), then per version the fields after the total size.
  local ver hdr_a hdr_b
  ver=$(od -An -tu2 -j4 -N2 "$fa" | tr -d ' ')
  case $ver in
  1) hdr_a=$(od -An -tx1 -N20 "$fa" | tr -s " \n" " "); hdr_b=$(od -An -tx1 -N20 "$fb" | tr -s " \n" " ") ;;
  2) hdr_a=$( (head -c 8 "$fa"; tail -c +13 "$fa" | head -c 12) | od -An -tx1 | tr -s " \n" " ")
     hdr_b=$( (head -c 8 "$fb"; tail -c +13 "$fb" | head -c 12) | od -An -tx1 | tr -s " \n" " ") ;;
  *) hdr_a=$( (head -c 8 "$fa"; tail -c +17 "$fa" | head -c 16) | od -An -tx1 | tr -s " \n" " ")
     hdr_b=$( (head -c 8 "$fb"; tail -c +17 "$fb" | head -c 16) | od -An -tx1 | tr -s " \n" " ") ;;
  esac
  [ "$hdr_a" = "$hdr_b" ] || { echo "CCOB headers differ: LLVM$hdr_a/ ours$hdr_b" >"$d/why"; return 1; }
  local ids side f outs i typ=o
  # A CCOB of a text bundle (-S, -E with --offload-compress) is read as one.
  case $a in *.s | *.ll | *.hipi) typ=${a##*.} ;; esac
  ids=$("$LLVM/clang-offload-bundler" -list -type=$typ -input="$fa") || return 1
  [ "$ids" = "$("$LLVM/clang-offload-bundler" -list -type=$typ -input="$fb")" ] || { echo "bundle IDs" >"$d/why"; return 1; }
  for side in llvm ours; do
    f=$fa; [ $side = ours ] && f=$fb
    outs=() i=0
    for id in $ids; do outs+=("-output=$d/$side.$i"); i=$((i + 1)); done
    "$LLVM/clang-offload-bundler" -unbundle -type=$typ -input="$f" -targets="$(echo $ids | tr ' ' ,)" "${outs[@]}" || return 1
  done
  for ((j = 0; j < i; j++)); do
    cmp -s "$d/llvm.$j" "$d/ours.$j" || { echo "code object $j" >"$d/why"; return 1; }
  done
}

status=0
printf '%-60s %s\n' JOB RESULT
run_job() { # label needs(tool) compressed(0|1) function outputs...
  local label=$1 need=$2 compressed=$3 fn=$4
  shift 4
  local outs=("$@") d side result=identical o
  d=$work/jobs/$(basename "$src")/$fn
  rm -rf "$d" && mkdir -p "$d/run" "$d/llvm" "$d/ours"
  if [ -n "${missing[$need]:-}" ]; then
    printf '%-60s %s\n' "$label" "FAILED (our $need is missing)"
    status=1
    return
  fi
  for side in llvm ours; do
    CC=("$CLANG")
    [ $side = ours ] && CC=("$CLANG" -B "$bin")
    rm -rf "$d/run" && mkdir -p "$d/run/tmp"
    if ! (cd "$d/run" && TMPDIR=$d/run/tmp $fn) >"$d/$side.log" 2>&1; then
      if [ $side = llvm ]; then
        result="skipped (fails with LLVM's own tools; see $side.log)"
      else
        result="FAILED with ours"
      fi
      break
    fi
    for o in "${outs[@]}"; do mv "$d/run/$o" "$d/$side/$o"; done
  done
  if [ "$result" = identical ]; then
    for o in "${outs[@]}"; do
      cmp -s "$d/llvm/$o" "$d/ours/$o" && continue
      if [ "$compressed" = 1 ] && compressed_equiv "$d/llvm/$o" "$d/ours/$o"; then
        result="equivalent (compressed bytes differ)"
      else
        result="DIFFERENT ($o$([ -s "$d/llvm/$o.cmp/why" ] && echo ": $(cat "$d/llvm/$o.cmp/why")"))"
        break
      fi
    done
  fi
  case $result in identical | equivalent* | skipped*) ;; *) status=1 ;; esac
  printf '%-60s %s\n' "$label" "$result"
  if [ $verbose = 1 ] && [ "${result#FAILED}" != "$result" ]; then sed 's/^/    /' "$d/ours.log"; fi
}

for src in "${sources[@]}"; do
  [ -f "$src" ] || die "no source file $src"
  src=$(cd "$(dirname "$src")" && pwd)/$(basename "$src")
  n=$(basename "$src")
  case $src in
  *.c)
    run_job "$n: openmp -c" llvm-offload-binary 0 job_omp out.o
    run_job "$n: openmp -c, link" llvm-offload-binary 0 job_omplink out.o app
    ;;
  *)
    run_job "$n: hip -c" clang-offload-bundler 0 job_c out.o
    run_job "$n: hip -c -fgpu-rdc" clang-offload-bundler 0 job_rdc out.o
    run_job "$n: hip -S" clang-offload-bundler 0 job_s out.s
    run_job "$n: hip -S -emit-llvm" clang-offload-bundler 0 job_ll out.ll
    run_job "$n: hip -c -emit-llvm" clang-offload-bundler 0 job_bc out.bc
    run_job "$n: hip -E" clang-offload-bundler 0 job_e out.hipi
    run_job "$n: hip -c --offload-compress" clang-offload-bundler 1 job_cz out.o
    run_job "$n: hip -c -fgpu-rdc --offload-compress" clang-offload-bundler 0 job_rdcz out.o
    run_job "$n: hip -c -emit-llvm --offload-compress" clang-offload-bundler 1 job_bcz out.bc
    run_job "$n: hip -S --offload-compress" clang-offload-bundler 1 job_sz out.s
    run_job "$n: hip --offload-new-driver -fgpu-rdc -c" llvm-offload-binary 0 job_new out.o
    run_job "$n: hip -fgpu-rdc -c + lib.a, --hip-link" clang-offload-bundler 0 job_link out.o lib.o libe2e.a app
    ;;
  esac
done
for t in $ourtools; do
  [ -s "$work/build-$t.log" ] && { echo "--- go build ./cmd/$t:"; cat "$work/build-$t.log"; }
done
[ -n "$keep" ] && echo "inputs, outputs and logs kept in $work/jobs"
exit $status
