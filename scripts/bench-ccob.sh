#!/usr/bin/env bash
# Facts inside real compressed bundles: recompresses every bundle of a real
# HIP library's .hip_fatbin with LLVM 22's bundler (`-compress`, what
# `clang --offload-compress` and ROCm 6.2+ libraries do) into one file of
# CCOBs back to back, 4 KiB apart (what a ROCm 6.2+ .hip_fatbin holds), then
# times, fastest of REPEAT runs after a warm-up:
#   goffload list FILE               every code object's facts (inflates each
#                                    CCOB as far as its last code object)
#   goffload list --no-headers FILE  entry tables only
#   zstd -d of the same payloads     libzstd, on one core (taskset -c 0) and
#                                    as it likes: issue 24's floor is 2x the
#                                    one-core time over the CPUs
# Debian's ROCm libraries hold uncompressed bundles (scripts/fetch-trixie-rocm.sh
# fetches some); this makes CCOBs of their real kernels.
#
# Usage: scripts/bench-ccob.sh LIB [DIR]
#   DIR (default /tmp/goffload-bench-ccob) holds the CCOB file and the tools.
# Environment: GOFFLOAD_LLVM_DIR (default /usr/lib/llvm-22/bin), REPEAT
# (default 5). Needs zstd and taskset for the floor rows.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 LIB [DIR]" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lib=$1
dir=${2:-/tmp/goffload-bench-ccob}
llvm=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}
REPEAT=${REPEAT:-5}
mkdir -p "$dir/entries"
(cd "$root" && go build -o "$dir/goffload" ./cmd/goffload)
gof=$dir/goffload
out=$dir/$(basename "$lib").ccob

# One bundle at a time: its entries cut out by index, bundled again with
# -compress, appended 4 KiB-aligned.
: >"$out"
declare -A ids idx
order=()
while IFS=$'\t' read -r i id b; do
  [ -n "${ids[$b]:-}" ] || order+=("$b")
  ids[$b]+="${ids[$b]:+,}$id" idx[$b]+="${idx[$b]:+ }$i"
done < <("$gof" list "$lib" | awk -F'  +' '$6 ~ /bundle [0-9]+$/ { n = split($6, p, " "); print $2 "\t" $3 "\t" p[n] }')
for b in "${order[@]}"; do
  inputs=() targets=()
  read -ra is <<<"${idx[$b]}"
  IFS=, read -ra ts <<<"${ids[$b]}"
  for k in "${!is[@]}"; do
    t=${ts[$k]}
    if [[ $t == host-* ]]; then
      targets+=(host-x86_64-unknown-linux-gnu-) # LLVM 22 takes the 4-field triple only
      inputs+=(-input=/dev/null)
    else
      targets+=("$t")
      "$gof" extract --index "${is[$k]}" -o - "$lib" >"$dir/entries/$k.o"
      inputs+=(-input="$dir/entries/$k.o")
    fi
  done
  "$llvm/clang-offload-bundler" -type=o -bundle-align=4096 -targets="$(IFS=,; echo "${targets[*]}")" \
    "${inputs[@]}" -compress -output="$dir/bundle.ccob"
  pad=$(( (4096 - $(stat -c %s "$out") % 4096) % 4096 ))
  head -c "$pad" /dev/zero >>"$out"
  cat "$dir/bundle.ccob" >>"$out"
done
rm -rf "$dir/entries" "$dir/bundle.ccob"

# The payloads for zstd: each CCOB's bytes after its header.
"$root/scripts/ccob-payloads.sh" "$gof" "$out" "$dir/payloads.zst" >/dev/null

best() { # CMD...: "wall s | CPU s | RSS MB" of the fastest of REPEAT runs
  local i t u s m b= line=
  "$@" >/dev/null 2>&1
  for ((i = 0; i < REPEAT; i++)); do
    /usr/bin/time -o "$dir/time" -f '%e %U %S %M' "$@" >/dev/null 2>&1
    read -r t u s m <"$dir/time"
    if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then
      b=$t line=$(awk -v t="$t" -v u="$u" -v s="$s" -v m="$m" 'BEGIN { printf "%.2f | %.2f | %.0f", t, u + s, m / 1024 }')
    fi
  done
  echo "$line"
}
n=$(grep -c . < <("$gof" list "$out" | awk -F'  +' '$3 ~ /amdgcn/'))
echo "## Facts inside CCOBs: $(basename "$lib")'s bundles, recompressed by LLVM 22"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
  "$(stat -c %s "$out") bytes of CCOBs, $n GPU code objects, payloads inflate to" \
  "$(zstd -q -d -c "$dir/payloads.zst" | wc -c) bytes; fastest of $REPEAT runs, /usr/bin/time"
echo
echo "| command | wall s | CPU s | RSS MB |"
echo "|---|---|---|---|"
echo "| \`goffload list\` | $(best "$gof" list "$out") |"
echo "| \`goffload list --no-headers\` | $(best "$gof" list --no-headers "$out") |"
if command -v zstd >/dev/null && command -v taskset >/dev/null; then
  echo "| \`zstd -d\` of the payloads | $(best zstd -q -d -c "$dir/payloads.zst") |"
  echo "| the same on one core (\`taskset -c 0\`) | $(best taskset -c 0 zstd -q -d -c "$dir/payloads.zst") |"
fi
