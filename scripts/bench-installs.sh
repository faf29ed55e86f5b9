#!/usr/bin/env bash
# bench-installs.sh DIR: goffload list, check and prune of a whole real
# install (Debian 13's ROCm libraries, unpacked into DIR/root by
# scripts/fetch-trixie-rocm.sh, which it runs when DIR/root is missing),
# next to cp -a of the same folder in the same run; then prune of a wheel
# of part of it next to zip of the kept members. Warm page cache, fastest
# of REPEAT runs (default 3); wall time, CPU time (user + system) and peak
# RSS from /usr/bin/time. Writes a Markdown table to stdout.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: bench-installs.sh DIR}
repeat=${REPEAT:-3}
[ -d "$dir/root/usr" ] || "$root/scripts/fetch-trixie-rocm.sh" "$dir" >&2
dir=$(cd "$dir" && pwd)
(cd "$root" && go build -o "$dir/goffload" ./cmd/goffload)
g=$dir/goffload
cd "$dir"
best() { # best NAME CMD...: fastest of $repeat runs
  local name=$1 b="" line
  shift
  for _ in $(seq "$repeat"); do
    rm -rf out.tmp cpa pruned pruned.whl kept.zip
    /usr/bin/time -o time.out -f '%e %U %S %M' "$@" >/dev/null 2>&1 || true
    line=$(tail -1 time.out)
    if [ -z "$b" ] || awk -v a="$line" -v b="$b" 'BEGIN{split(a,x," ");split(b,y," ");exit !(x[1]<y[1])}'; then b=$line; fi
  done
  echo "$b" | awk -v n="$name" '{printf "| %s | %.2f | %.2f | %.1f |\n", n, $1, $2+$3, $4/1024}'
}
cat "$(find root -name '*.so*' -type f | head -1)" >/dev/null
files=$(find root/usr -type f | wc -l)
bytes=$(du -sb root/usr | cut -f1)
echo "Install: $files files, $bytes bytes (Debian 13 ROCm libraries); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| job | wall s | CPU s | RSS MB |"
echo "|---|---|---|---|"
best "goffload list root/usr" $g list root/usr
best "goffload check --gpu gfx90a root/usr" $g check --gpu gfx90a root/usr
best "goffload prune --keep gfx90a -o pruned root/usr" $g prune --keep gfx90a -o pruned root/usr
best "cp -a root/usr cpa" cp -a root/usr cpa
# A wheel of rocSPARSE and rocBLAS's Tensile library, stored members as
# pip does for binaries (zip -0), and the zip of what pruning keeps.
if [ ! -f bench.whl ]; then
  rm -rf whl && mkdir -p whl/rocm && cp -a root/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1 root/usr/lib/x86_64-linux-gnu/rocblas whl/rocm/
  (cd whl && zip -q -0 -r ../bench.whl .)
fi
$g prune --keep gfx90a -o pruned-ref.whl bench.whl >/dev/null 2>&1 || true
rm -rf kept && mkdir kept && (cd kept && unzip -q ../pruned-ref.whl)
best "goffload prune --keep gfx90a -o pruned.whl bench.whl ($(du -h bench.whl | cut -f1))" $g prune --keep gfx90a -o pruned.whl bench.whl
best "zip -0 of the kept members" sh -c 'cd kept && zip -q -0 -r ../kept.zip .'
rm -rf pruned-ref.whl kept out.tmp cpa pruned pruned.whl kept.zip time.out
