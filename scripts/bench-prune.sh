#!/usr/bin/env bash
# Benchmarks `goffload prune` on the two HIP shared libraries that
# scripts/bench-inspect.sh builds (libbig.so: 100 bundles x 8 GPUs, 1.08 GB;
# libbig-ccob.so: the same with one CCOB per bundle, 332 MB): prune each to
# one GPU (TARGET, default gfx90a), next to `cp` of the whole input in the
# same run. Reports wall time, CPU time (user+sys), peak RSS and the output
# size, fastest of REPEAT runs (default 5), outputs removed before each run,
# page cache warm (one untimed run first). Checks that the output lists only
# TARGET's code objects and that llvm-readelf reads it without a warning.
#
# Usage: scripts/bench-prune.sh [DIR]   (DIR as for bench-inspect.sh, which
#   builds the libraries there first if needed: ~4 minutes on 2 cores)
# Environment: GOFFLOAD_LLVM_DIR, GOFFLOAD (binary to test; default a go build
#   of ./cmd/goffload), REPEAT, TARGET, and bench-inspect.sh's build settings.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-${BENCH_DIR:-/tmp/goffload-bench-inspect}}
llvm=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}
REPEAT=${REPEAT:-5}
TARGET=${TARGET:-gfx90a}
BUILD_ONLY=1 "$root/scripts/bench-inspect.sh" "$dir"
run=$dir/prune-run
rm -rf "$run" && mkdir -p "$run"
trap 'rm -rf "$run"' EXIT
GOFFLOAD=${GOFFLOAD:-}
if [ -z "$GOFFLOAD" ]; then
  (cd "$root" && go build -o "$run/goffload" ./cmd/goffload)
  GOFFLOAD=$run/goffload
fi
command -v /usr/bin/time >/dev/null || { echo "$0: needs /usr/bin/time (Debian package time)" >&2; exit 1; }

# measure CMD...: fastest of REPEAT runs (after one untimed run), $run/out
# removed before each: sets wall, cpu, rss (MB).
measure() {
  local i t u s m best=
  rm -f "$run/out"
  "$@" >/dev/null
  for ((i = 0; i < REPEAT; i++)); do
    rm -f "$run/out"
    /usr/bin/time -o "$run/time" -f '%e %U %S %M' "$@" >/dev/null
    read -r t u s m <"$run/time"
    if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
      best=$t wall=$t
      cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
      rss=$(awk -v m="$m" 'BEGIN { printf "%.1f", m / 1024 }')
    fi
  done
}

echo "## goffload prune --keep $TARGET ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d'))"
echo
echo "| input | command | wall s | CPU s | RSS MB | output bytes |"
echo "|---|---|---|---|---|---|"
for lib in libbig.so libbig-ccob.so; do
  in=$dir/$lib
  measure cp "$in" "$run/out"
  echo "| $lib ($(stat -c %s "$in") bytes) | \`cp\` | $wall | $cpu | $rss | $(stat -c %s "$run/out") |"
  measure "$GOFFLOAD" prune --keep "$TARGET" -o "$run/out" "$in"
  echo "| | \`goffload prune --keep $TARGET\` | $wall | $cpu | $rss | $(stat -c %s "$run/out") |"
  if "$llvm/llvm-readelf" -lS "$run/out" 2>&1 >/dev/null | grep -q .; then
    echo "$0: llvm-readelf warns on the pruned $lib" >&2; exit 1
  fi
  others=$("$GOFFLOAD" list --json "$run/out" | grep -c '"target_id": "gfx[0-9]' || true)
  mine=$("$GOFFLOAD" list --target "$TARGET" --json "$run/out" | grep -c '"target_id": "gfx[0-9]' || true)
  [ "$others" = "$mine" ] || { echo "$0: the pruned $lib holds other targets ($others objects, $mine for $TARGET)" >&2; exit 1; }
done
