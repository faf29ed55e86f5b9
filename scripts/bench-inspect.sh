#!/usr/bin/env bash
# Benchmarks `goffload list` and `goffload extract` on two big HIP shared
# libraries, against what LLVM 22 offers for the same questions, in one run:
#
#   libbig.so       TUS (100) non-RDC HIP translation units, each for 8 GPUs
#                   (gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100 gfx1101
#                   gfx1200): .hip_fatbin holds one 4 KiB-aligned bundle per TU,
#                   800 code objects of ~1.35 MB, ~1.08 GB (1.0 GiB) in all
#   libbig-ccob.so  the same sources (CCOB_TUS of them, default all) built with
#                   --offload-compress: one CCOB (v3, zstd) per TU, ~3.3x smaller
#
# Each TU holds a __device__ array of BLOB_SIZE bytes read by its kernel (so it
# is kept), filled with #embed from a pseudo-random pool: runs of random bytes
# and copies of earlier runs, so zstd gets ~3.3x: between random data (1x)
# and zeros, like real code objects. Every GPU of a TU gets its own
# slice of the pool (the __gfxNNN__ macros pick the #embed offset), so that a
# CCOB cannot shrink by matching one GPU's copy against another's.
#
# Measured, for each library (columns side by side), every command run once
# untimed to warm the page cache (the cache is not dropped: that needs root
# and measures the disk, not the tools), then REPEAT times, keeping the
# fastest run (wall time) with its CPU time (user+sys) and peak RSS:
#   goffload list FILE, goffload list --no-headers FILE
#   llvm-readobj --offloading FILE
#   llvm-objdump --offloading FILE: run in a scratch folder on a symlink, since
#     it also *extracts* every bundle entry to FILE.<bundle>.<ID> next to the
#     path it is given (~1 GB per run here); the files are removed between runs
#   clang-offload-bundler -list -type=o -input=SECTION, SECTION being
#     .hip_fatbin written out by llvm-objcopy --dump-section (the dump is timed
#     on its own row); the bundler reads only the first bundle of it
# and how many GPU code objects each found, counted from its output (lines
# naming an amdgcn ID), against the TUS*8 the library holds.
# Then `goffload extract --target gfx90a -o DIR libbig.so` (and from
# libbig-ccob.so) against two floors that move the same bytes: `head -c N
# libbig.so > F` with N the extracted files' total size, and `cp -r` of the
# extracted folder; outputs are removed before every run. The files from
# libbig.so are checked against the ones llvm-objdump wrote, those from
# libbig-ccob.so against those from libbig.so (same SHA-256 multiset).
# Prints markdown tables (for the README) on stdout, progress on stderr.
#
# Usage: scripts/bench-inspect.sh [DIR]
#   DIR (or $BENCH_DIR; default /tmp/goffload-bench-inspect) caches the built
#   libraries: they are built once and reused while DIR/build.info matches the
#   settings below. Build: 200 HIP compiles (8 GPUs each, JOBS at a time) and
#   2 ld.lld links; 216 s on 2 shared cores (2026-11; the time is measured,
#   stored in DIR/build.info and printed with the tables). Needs ~2.9 GB in DIR
#   while building (the objects are deleted after the links, leaving the two
#   libraries, 1.4 GB) and up to ~1.5 GB more in DIR/run while measuring
#   (llvm-objdump's extracted files, the dumped section; removed at the end).
#   The measurements take ~1 minute.
#
# Environment:
#   GOFFLOAD_LLVM_DIR  LLVM 22 bin folder (default /usr/lib/llvm-22/bin)
#   GOFFLOAD           goffload binary to test (default: go build of
#                      ./cmd/goffload from this checkout into DIR/run)
#   JOBS               parallel compiles (default: nproc)
#   REPEAT             timed runs per measurement, fastest kept (default 5)
#   TUS                translation units of libbig.so (default 100)
#   CCOB_TUS           translation units of libbig-ccob.so (default TUS)
#   BLOB_SIZE          bytes of device data per TU and GPU (default 1344000)
#   TARGET             GPU for the extract benchmark (default gfx90a)
#   REBUILD=1          rebuild the libraries even if cached
#   BUILD_ONLY=1       build (or check) the libraries and stop (bench-prune.sh)
#   TIMER=gnu          time with /usr/bin/time -f '%e %U %S %M' (Debian
#                      package time; 10 ms resolution) instead of the default,
#                      a 20-line wait4(2) wrapper built with that clang (same
#                      numbers, 0.1 ms resolution: goffload list takes a few ms)
#
# Timings on a shared machine are noisy: the tables say how many CPUs and the
# load average before and after; compare columns of one run, not runs.
# shellcheck disable=SC2016
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-${BENCH_DIR:-/tmp/goffload-bench-inspect}}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
llvm=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}
CLANG=$llvm/clang
JOBS=${JOBS:-$(nproc)}
REPEAT=${REPEAT:-5}
TUS=${TUS:-100}
CCOB_TUS=${CCOB_TUS:-$TUS}
BLOB_SIZE=${BLOB_SIZE:-1344000}
TARGET=${TARGET:-gfx90a}
archs=(gfx906 gfx908 gfx90a gfx942 gfx1030 gfx1100 gfx1101 gfx1200)
[ "$CCOB_TUS" -le "$TUS" ] || { echo "$0: CCOB_TUS must be <= TUS" >&2; exit 2; }
for t in "$CLANG" "$llvm/llvm-readobj" "$llvm/llvm-objdump" "$llvm/llvm-objcopy" \
  "$llvm/clang-offload-bundler" "$llvm/llvm-readelf"; do
  [ -x "$t" ] || { echo "$0: $t not found" >&2; exit 1; }
done

export LC_ALL=C
unset COMPRESSED_BUNDLE_FORMAT_VERSION OFFLOAD_BUNDLER_COMPRESS \
  OFFLOAD_BUNDLER_VERBOSE OFFLOAD_BUNDLER_IGNORE_ENV_VAR CCC_OVERRIDE_OPTIONS \
  CPATH C_INCLUDE_PATH CPLUS_INCLUDE_PATH LIBRARY_PATH
log() { echo "bench-inspect: $*" >&2; }
commas() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/; ta' <<<"$1"; }
size() { stat -c %s "$1"; }
secsince() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# ------------------------------------------------------------------- build
# The stride between two GPUs' slices of the pool leaves room for 16 TU
# shifts of 4 KiB, so that TUs differ and a TU's slices never overlap.
stride=$((BLOB_SIZE + 16 * 4096))
stamp="bench-inspect v1: tus=$TUS ccob_tus=$CCOB_TUS blob=$BLOB_SIZE archs=${archs[*]} $("$CLANG" --version | head -1)"
built() {
  [ "${REBUILD:-0}" != 1 ] && [ -f "$dir/libbig.so" ] && [ -f "$dir/libbig-ccob.so" ] &&
    [ "$(head -1 "$dir/build.info" 2>/dev/null)" = "$stamp" ]
}

# pool.c: N bytes (argv[1]) from xorshift64 with a fixed seed: runs of 256 to
# 4095 bytes, each fresh random bytes (PCT% of runs, argv[2], and all of the
# first 64 KiB) or a copy of the bytes 1 B..256 KiB back.
pool_c='#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static unsigned long long s = 0x9E3779B97F4A7C15ull;
static unsigned long long next(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
int main(int argc, char **argv) {
  long n = atol(argv[1]), o = 0, pct = atol(argv[2]);
  unsigned char *b = malloc(n);
  while (o < n) {
    long len = 256 + next() % 3840, back;
    if (len > n - o) len = n - o;
    if (o < 65536 || (long)(next() % 100) < pct) {
      for (long i = 0; i < len; i += 8) {
        unsigned long long r = next();
        memcpy(b + o + i, &r, len - i < 8 ? len - i : 8);
      }
    } else {
      back = 1 + next() % (o < 262144 ? o : 262144);
      if (back < len) back = len;
      memcpy(b + o, b + o - back, len);
    }
    o += len;
  }
  return fwrite(b, 1, n, stdout) != (size_t)n;
}'

# tu_source N: translation unit N: the array, a kernel reading it at a
# runtime index (so it is kept whole), and a host launcher. Names carry N,
# as the host shadows and stubs of all TUs meet in one library.
tu_source() {
  local n=$1 i
  echo '#include "hip.h"'
  echo '#ifdef __HIP_DEVICE_COMPILE__'
  for i in "${!archs[@]}"; do
    [ "$i" = 0 ] && printf '#if' || printf '#elif'
    printf ' defined(__%s__)\n#define SLICE %d\n' "${archs[$i]}" "$i"
  done
  echo '#endif'
  echo '#endif'
  cat <<EOF
__device__ const unsigned char blob_${n}[$BLOB_SIZE] = {
#ifdef __HIP_DEVICE_COMPILE__
#embed "pool.bin" clang::offset(SLICE * ${stride}ul + $((10#$n % 16 * 4096))ul) limit($BLOB_SIZE)
#endif
};
__global__ void k_$n(unsigned char *out, unsigned long i) {
  out[tid()] = blob_${n}[(i + tid()) % sizeof blob_$n];
}
extern "C" void run_$n(unsigned char *out, unsigned long i) {
  k_$n<<<dim3{1, 1, 1}, dim3{64, 1, 1}>>>(out, i);
}
EOF
}

# compile_one tuN.o|tuN-ccob.o: one clang -x hip -c (run by xargs, in src/).
compile_one() {
  local o=$1 n extra=()
  n=${o#tu}
  n=${n%%[-.]*}
  case $o in *-ccob.o) extra=(--offload-compress) ;; esac
  "$CLANG" -x hip -nogpulib -nogpuinc -Wno-c23-extensions -O2 \
    -fdebug-compilation-dir=. -cuid="bench-inspect-tu$n" "${arch_flags[@]}" \
    -fPIC "${extra[@]}" -c "tu$n.hip" -o "../obj/$o"
}

build() {
  local b=$dir/build t0 i objs=() cobjs=()
  t0=$(date +%s.%N)
  log "building $TUS + $CCOB_TUS HIP TUs for ${#archs[@]} GPUs in $b, $JOBS at a time"
  rm -rf "$b" "$dir/libbig.so" "$dir/libbig-ccob.so" "$dir/build.info"
  mkdir -p "$b/src" "$b/obj"
  cp "$root/testdata/inspect/src/hip.h" "$root/e2e/testdata/stub.c" "$b/src/"
  cd "$b/src"
  printf '%s\n' "$pool_c" >pool.c
  "$CLANG" -O2 pool.c -o pool
  ./pool $((${#archs[@]} * stride)) 30 >pool.bin
  "$CLANG" -shared -fPIC -fuse-ld=lld -Wl,--build-id=none stub.c -o libamdhip64.so
  for ((i = 0; i < TUS; i++)); do
    tu_source "$(printf '%03d' $i)" >"$(printf 'tu%03d.hip' $i)"
    objs+=("$(printf '../obj/tu%03d.o' $i)")
    [ "$i" -ge "$CCOB_TUS" ] || cobjs+=("$(printf '../obj/tu%03d-ccob.o' $i)")
  done
  arch_flags=("${archs[@]/#/--offload-arch=}")
  export CLANG
  export -f compile_one
  # Arrays cannot be exported: pass the flags in a string.
  printf '%s\n' "${objs[@]#../obj/}" "${cobjs[@]#../obj/}" |
    ARCHS="${arch_flags[*]}" xargs -P "$JOBS" -n 1 bash -c \
      'read -ra arch_flags <<<"$ARCHS"; compile_one "$1"' _
  log "compiled in $(secsince "$t0") s; linking"
  "$CLANG" -fuse-ld=lld -shared "${objs[@]}" -L. -lamdhip64 -Wl,--build-id=none \
    -o "$dir/libbig.so"
  "$CLANG" -fuse-ld=lld -shared "${cobjs[@]}" -L. -lamdhip64 -Wl,--build-id=none \
    -o "$dir/libbig-ccob.so"
  cd "$dir"
  rm -rf "$b/obj"
  {
    echo "$stamp"
    echo "build_seconds=$(secsince "$t0")"
    echo "built=$(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPUs, JOBS=$JOBS"
  } >"$dir/build.info"
  log "built in $(sed -n 's/^build_seconds=//p' "$dir/build.info") s"
}

built || build
if [ -n "${BUILD_ONLY:-}" ]; then exit 0; fi
build_secs=$(sed -n 's/^build_seconds=//p' "$dir/build.info")
build_when=$(sed -n 's/^built=//p' "$dir/build.info")

# ------------------------------------------------------------- measuring
run=$dir/run
rm -rf "$run"
mkdir -p "$run/bin" "$run/scratch"
trap 'rm -rf "$run"' EXIT
GOFFLOAD=${GOFFLOAD:-}
if [ -z "$GOFFLOAD" ]; then
  GOFFLOAD=$run/bin/goffload
  (cd "$root" && go build -o "$GOFFLOAD" ./cmd/goffload)
  rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
  git -C "$root" diff --quiet HEAD 2>/dev/null || rev+=" + uncommitted changes"
  ours="go build of ./cmd/goffload at $rev"
else
  ours=$GOFFLOAD
fi

if [ "${TIMER:-}" = gnu ]; then
  [ -x /usr/bin/time ] || { echo "$0: TIMER=gnu needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
  timed() { /usr/bin/time -o "$run/time.out" -f '%e %U %S %M' "$@"; }
  timer_desc="/usr/bin/time -f '%e %U %S %M'"
else
  cat >"$run/timer.c" <<'EOF'
/* timer OUT CMD...: runs CMD; writes "wall user sys maxrss_kb" to OUT. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
  struct timespec a, b;
  struct rusage ru;
  int st;
  if (argc < 3) return 2;
  clock_gettime(CLOCK_MONOTONIC, &a);
  pid_t p = fork();
  if (p == 0) { execvp(argv[2], argv + 2); perror(argv[2]); _exit(127); }
  if (p < 0 || wait4(p, &st, 0, &ru) < 0) return 125;
  clock_gettime(CLOCK_MONOTONIC, &b);
  FILE *f = fopen(argv[1], "w");
  if (!f) return 125;
  fprintf(f, "%.4f %.4f %.4f %ld\n",
          (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
          ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
          ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
  fclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
EOF
  "$CLANG" -O2 "$run/timer.c" -o "$run/bin/timer"
  timed() { "$run/bin/timer" "$run/time.out" "$@"; }
  timer_desc="wait4(2) wrapper (ru_maxrss)"
fi

# measure CMD...: one untimed warm-up run, whose stdout/stderr stay in
# $run/out and $run/err and whose exit status is $status; then $REPEAT
# timed runs. Before each run, $cleanup (if set) is evaluated. Sets wall,
# cpu (user+sys) and rss (MB) of the fastest timed run.
measure() {
  local i t u s m best=
  eval "${cleanup:-:}"
  status=0
  "$@" >"$run/out" 2>"$run/err" || status=$?
  for ((i = 0; i < REPEAT; i++)); do
    eval "${cleanup:-:}"
    timed "$@" >/dev/null 2>&1 || true
    read -r t u s m <"$run/time.out"
    if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
      best=$t
      wall=$(awk -v t="$t" 'BEGIN { printf "%.3f", t }')
      cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
      rss=$(awk -v m="$m" 'BEGIN { printf "%.1f", m / 1024 }')
    fi
  done
}

# count KIND: GPU code objects in the warm-up run's output.
count() {
  case $1 in
  goffload) grep -cE '^ +[0-9]+ +[^ ]*amdgcn' "$run/out" ;;
  readobj) awk -F'\t' '$1 ~ /amdgcn/ && $2 ~ /^file:/' "$run/out" | wc -l ;;
  objdump) grep -c '^Extracting offload bundle: .*amdgcn' "$run/out" ;;
  bundler) grep -c 'amdgcn' "$run/out" ;;
  esac || true
}
# note LIB LABEL: a footnote for a failed or short warm-up run.
notes=()
note_run() {
  local lib=$1 label=$2 found=$3 want=$4 msg=
  [ "$status" = 0 ] || msg="exit status $status"
  if [ -s "$run/err" ]; then
    msg+="${msg:+; }stderr: $(head -c 300 "$run/err" | tr '\n|' '  ')"
  fi
  [ "$found" = "$want" ] || msg+="${msg:+; }found $found of $want"
  [ -z "$msg" ] || notes+=("$label on $lib: $msg")
}

libs=(libbig.so libbig-ccob.so)
declare -A want secsize bundles
want[libbig.so]=$((TUS * ${#archs[@]}))
want[libbig-ccob.so]=$((CCOB_TUS * ${#archs[@]}))
for l in "${libs[@]}"; do
  ln -s "$dir/$l" "$run/scratch/$l"
  read -r fb seg < <("$llvm/llvm-readelf" -SW "$dir/$l" | awk '
    { sub(/^ *\[ *[0-9]+\] */, "") }
    $1 == ".hip_fatbin" { fb = $5 } $1 == ".hipFatBinSegment" { seg = $5 }
    END { print fb, seg }')
  secsize[$l]=$((16#$fb))
  bundles[$l]=$((16#$seg / 24))
done

log "measuring (REPEAT=$REPEAT)"
declare -A cells
labels=("goffload list" "goffload list --no-headers" "llvm-readobj --offloading"
  "llvm-objdump --offloading (extracts too)" "llvm-objcopy --dump-section .hip_fatbin"
  "clang-offload-bundler -list (on the dump)")
declare -A objdump_sums objdump_files objdump_elf
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for l in "${libs[@]}"; do
  for label in "${labels[@]}"; do
    log "  $l: $label"
    cleanup='' kind=''
    case $label in
    "goffload list") kind=goffload
      measure "$GOFFLOAD" list "$dir/$l" ;;
    "goffload list --no-headers") kind=goffload
      measure "$GOFFLOAD" list --no-headers "$dir/$l" ;;
    llvm-readobj*) kind=readobj
      measure "$llvm/llvm-readobj" --offloading "$dir/$l" ;;
    llvm-objdump*) kind=objdump
      cleanup='find "$run/scratch" -mindepth 1 -not -type l -delete'
      measure env -C "$run/scratch" "$llvm/llvm-objdump" --offloading "$l"
      # Keep what the last run wrote for TARGET, to check goffload extract.
      objdump_sums[$l]=$(find "$run/scratch" -name "*--$TARGET" -type f -exec sha256sum {} + |
        cut -d' ' -f1 | sort | sha256sum | cut -c1-16)
      objdump_files[$l]=$(find "$run/scratch" -name "*--$TARGET" -type f | wc -l)
      objdump_elf[$l]=$(find "$run/scratch" -name "*--$TARGET" -type f -exec head -c4 {} \; -exec echo \; |
        grep -c "^"$'\x7f'"ELF\$" || true)
      eval "$cleanup" ;;
    llvm-objcopy*)
      cleanup='rm -f "$run/section"'
      measure "$llvm/llvm-objcopy" --dump-section=.hip_fatbin="$run/section" "$dir/$l" /dev/null ;;
    clang-offload-bundler*) kind=bundler
      measure "$llvm/clang-offload-bundler" -list -type=o -input="$run/section" ;;
    esac
    found=-
    if [ -n "$kind" ]; then
      found=$(count $kind)
      note_run "$l" "$label" "$found" "${want[$l]}"
      found="$found / ${want[$l]}"
    elif [ "$status" != 0 ]; then
      note_run "$l" "$label" 0 0
    fi
    cells[$l,$label]="$found | $wall | $cpu | $rss"
  done
  rm -f "$run/section"
done

# ------------------------------------------------------------ zstd floor
# The floor for facts inside CCOBs: libzstd (the zstd CLI) decoding the
# same payloads (scripts/ccob-payloads.sh), on one core (taskset -c 0) and
# as it likes.
zstd_rows=()
if command -v zstd >/dev/null && command -v taskset >/dev/null; then
  pin=$("$root/scripts/ccob-payloads.sh" "$GOFFLOAD" "$dir/libbig-ccob.so" "$run/payloads.zst")
  pbytes=$(size "$run/payloads.zst")
  cleanup=''
  measure zstd -q -d -c "$run/payloads.zst"
  ubytes=$(zstd -q -d -c "$run/payloads.zst" | wc -c)
  zstd_rows+=("| \`zstd -d\` of the $pin CCOB payloads ($(commas "$pbytes") bytes to $(commas "$ubytes")) | | | | | | $wall | $cpu | $rss |")
  measure taskset -c 0 zstd -q -d -c "$run/payloads.zst"
  zstd_rows+=("| the same on one core (\`taskset -c 0\`): the issue's floor is 2x this over the CPUs | | | | | | $wall | $cpu | $rss |")
  rm -f "$run/payloads.zst"
else
  zstd_rows+=("| \`zstd -d\` floor not measured: zstd or taskset missing | | | | | | | | |")
fi

# --------------------------------------------------------------- extract
log "measuring extract --target $TARGET"
declare -A xrows xn xb
ex=$run/ex
for l in "${libs[@]}"; do
  cleanup='rm -rf "$ex.$l"'
  measure "$GOFFLOAD" extract --target "$TARGET" -o "$ex.$l" "$dir/$l"
  n=$(find "$ex.$l" -type f | wc -l)
  bytes=$(find "$ex.$l" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  sum=$(find "$ex.$l" -type f -exec sha256sum {} + | cut -d' ' -f1 | sort | sha256sum | cut -c1-16)
  if [ "$l" = libbig.so ]; then
    # Against the files llvm-objdump --offloading wrote for TARGET.
    check="same SHA-256s as llvm-objdump's ${objdump_files[$l]:-?} $TARGET files"
    [ "$sum" = "${objdump_sums[$l]:-}" ] ||
      check="DIFFERS from llvm-objdump's ${objdump_files[$l]:-?} $TARGET files"
  else
    # Against the same TUs' files from libbig.so (file names carry the
    # goffload list index: bundle = index / (GPUs + 1 host entry)).
    ref=$(find "$ex.libbig.so" -type f -printf '%f\n' | while read -r f; do
      i=${f#libbig.so-}
      i=${i%%-*}
      [ $((i / (${#archs[@]} + 1))) -ge "$CCOB_TUS" ] || sha256sum "$ex.libbig.so/$f"
    done | cut -d' ' -f1 | sort | sha256sum | cut -c1-16)
    check="same SHA-256s as from libbig.so"
    [ "$sum" = "$ref" ] || check="DIFFERS from libbig.so's"
  fi
  [ "$status" = 0 ] || check="exit status $status: $(head -c 200 "$run/err" | tr '\n|' '  ')"
  xrows[$l]="| \`goffload extract --target $TARGET\` $l | $n | $(commas "$bytes") | $wall | $cpu | $rss | $check |"
  xn[$l]=$n xb[$l]=$bytes
done
# Floors for libbig.so's extraction (its folder from the last run is kept).
xbytes=${xb[libbig.so]} xfiles=${xn[libbig.so]}
cleanup='rm -f "$run/floor.bin"'
measure sh -c 'head -c "$1" "$2" >"$3"' _ "$xbytes" "$dir/libbig.so" "$run/floor.bin"
floor_head="| \`head -c $xbytes libbig.so > F\` | 1 | $(commas "$xbytes") | $wall | $cpu | $rss | floor: one sequential copy |"
cleanup='rm -rf "$run/cp"'
measure cp -r "$ex.libbig.so" "$run/cp"
floor_cp="| \`cp -r\` of the $xfiles extracted files | $xfiles | $(commas "$xbytes") | $wall | $cpu | $rss | floor: same files |"
rm -rf "$run/cp" "$run/floor.bin" "$ex".*

# ---------------------------------------------------------------- report
llvm_version=$("$CLANG" --version | grep -o 'version [0-9.]*' | head -1)
cat <<EOF
## \`goffload list\` and \`extract\` on big HIP shared libraries

$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')),
load average $load0 before and $(cut -d' ' -f1-3 /proc/loadavg) after. goffload: $ours.
LLVM: $llvm ($llvm_version). Timer: $timer_desc. Fastest of $REPEAT runs after
one untimed warm-up run (page cache warm, not dropped).

| library | TUs = bundles | GPU code objects | file bytes | .hip_fatbin bytes |
|---|---|---|---|---|
EOF
for l in "${libs[@]}"; do
  echo "| $l | ${bundles[$l]} | ${want[$l]} | $(commas "$(size "$dir/$l")") | $(commas "${secsize[$l]}") |"
done
cat <<EOF

Built by scripts/bench-inspect.sh in $build_secs s ($build_when).

### Listing ("found" counts GPU code objects in the output)

| command | libbig.so found | wall s | CPU s | RSS MB | libbig-ccob.so found | wall s | CPU s | RSS MB |
|---|---|---|---|---|---|---|---|---|
EOF
for label in "${labels[@]}"; do
  echo "| \`$label\` | ${cells[libbig.so,$label]} | ${cells[libbig-ccob.so,$label]} |"
done
for r in "${zstd_rows[@]}"; do echo "$r"; done
for l in "${libs[@]}"; do
  [ "${objdump_elf[$l]:-0}" = "${objdump_files[$l]:-0}" ] ||
    notes+=("llvm-objdump --offloading on $l: only ${objdump_elf[$l]:-0} of the ${objdump_files[$l]:-0} $TARGET files it wrote start with an ELF header")
done
if [ ${#notes[@]} -gt 0 ]; then
  echo
  for n in "${notes[@]}"; do echo "- $n"; done
fi
cat <<EOF

### Extracting what a $TARGET loads

| command | files | bytes | wall s | CPU s | RSS MB | check |
|---|---|---|---|---|---|---|
${xrows[libbig.so]}
$floor_head
$floor_cp
${xrows[libbig-ccob.so]}
EOF
