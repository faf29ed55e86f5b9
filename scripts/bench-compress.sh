#!/usr/bin/env bash
# Compression benchmark: goffload's clang-offload-bundler against LLVM 22's, in
# the same run, on real HIP code objects for 8 AMD GPU targets (made by
# scripts/gen-corpus.sh). Bundles them as clang does for a HIP fat binary
# (-type=o, empty host, -bundle-align=4096) with `-compress
# -compression-level=N` for N in 1 3 6 9 19, then unbundles gfx90a from each
# tool's level-3 output with each tool and checks that all four extractions
# equal the input code object. Prints markdown tables: size, ratio
# (uncompressed bundle / compressed file), wall time and peak RSS.
#
# Usage: scripts/bench-compress.sh [WORKDIR]
#   WORKDIR keeps the corpus (WORKDIR/corpus) between runs; default: a temp dir.
# Environment:
#   GOFFLOAD_LLVM_DIR  LLVM 22 tools (default /usr/lib/llvm-22/bin)
#   LEVELS             compression levels (default "1 3 6 9 19")
#   REPEAT             runs per measurement; the fastest is kept (default 3)
#   CORPUS_*, CLANG    passed to gen-corpus.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
LLVM=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}/clang-offload-bundler
OURS=$work/bin/clang-offload-bundler
levels=${LEVELS:-1 3 6 9 19}
repeat=${REPEAT:-3}
archs=${CORPUS_ARCHS:-gfx906,gfx908,gfx90a,gfx942,gfx1030,gfx1100,gfx1101,gfx1200}
pick=gfx90a
corpus=$work/corpus

[ -x "$LLVM" ] || { echo "$0: $LLVM not found" >&2; exit 1; }
mkdir -p "$work/bin"
(cd "$root" && go build -o "$OURS" ./cmd/clang-offload-bundler)

IFS=, read -ra arch_list <<<"$archs"
for a in "${arch_list[@]}"; do
  if [ ! -f "$corpus/$a.o" ]; then
    echo "building the corpus in $corpus (scripts/gen-corpus.sh)" >&2
    CORPUS_ARCHS=$archs "$root/scripts/gen-corpus.sh" "$corpus" >&2
    break
  fi
done

# The bundler job clang 22 runs for `clang -x hip --offload-compress`.
targets=host-x86_64-unknown-linux-gnu
inputs=(-input=/dev/null)
for a in "${arch_list[@]}"; do
  targets+=,hipv4-amdgcn-amd-amdhsa--$a
  inputs+=(-input="$corpus/$a.o")
done
bundle=(-type=o -bundle-align=4096 -targets="$targets" "${inputs[@]}")

commas() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/; ta' <<<"$1"; }
size() { wc -c < "$1" | tr -d ' '; }

# measure CMD...: runs CMD $repeat times under /usr/bin/time; sets $secs and
# $rss_mb for the fastest run, or secs=FAILED if any run fails (its stderr is
# left in $work/err).
measure() {
  local i best=
  secs=FAILED rss_mb=-
  for ((i = 0; i < repeat; i++)); do
    if ! /usr/bin/time -o "$work/time.out" -f '%e %M' "$@" >/dev/null 2>"$work/err"; then
      secs=FAILED rss_mb=-
      return
    fi
    read -r t kb < <(tail -1 "$work/time.out")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then
      best=$t
      secs=$t
      rss_mb=$(awk "BEGIN{printf \"%.1f\", $kb/1024}")
    fi
  done
}
cell() { # file: "size | ratio | time | RSS" for the last measure
  if [ "$secs" = FAILED ]; then
    printf 'FAILED: %s | | | ' "$(head -c 60 "$work/err" | tr '\n|' '  ')"
    return
  fi
  local s; s=$(size "$1")
  printf '%s | %.2f | %s | %s' "$(commas "$s")" "$(awk "BEGIN{print $raw/$s}")" "$secs" "$rss_mb"
}

cd "$work"
total=0
for a in "${arch_list[@]}"; do total=$((total + $(size "$corpus/$a.o"))); done
echo "corpus: ${#arch_list[@]} code objects, $(commas $total) bytes ($corpus)"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "LLVM: $LLVM ($("$LLVM" --version | grep -o 'version [0-9.]*' | head -1))"
echo "ours: $OURS (go build of $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo

# Uncompressed bundle: the reference size for the ratios, and a floor for
# the times.
measure "$LLVM" "${bundle[@]}" -output=llvm.raw
[ "$secs" != FAILED ] || { cat "$work/err" >&2; exit 1; }
raw=$(size llvm.raw)
echo "| level | LLVM size | ratio | time s | RSS MB | ours size | ratio | time s | RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|"
row="| none | $(cell llvm.raw) | "
measure "$OURS" "${bundle[@]}" -output=ours.raw
row+="$(cell ours.raw) |"
echo "$row"
if [ "$secs" != FAILED ] && ! cmp -s llvm.raw ours.raw; then
  echo "warning: uncompressed bundles differ" >&2
fi

for n in $levels; do
  row="| $n | "
  measure "$LLVM" "${bundle[@]}" -compress -compression-level="$n" -output="llvm.$n"
  row+="$(cell "llvm.$n") | "
  measure "$OURS" "${bundle[@]}" -compress -compression-level="$n" -output="ours.$n"
  row+="$(cell "ours.$n") |"
  echo "$row"
done

# Decompress and unbundle one target from each tool's level-3 file.
echo
echo "Unbundle $pick ($(commas "$(size "$corpus/$pick.o")") bytes) from the level-3 files:"
echo
echo "| input | unbundled by | time s | RSS MB | output |"
echo "|---|---|---|---|---|"
bad=0
for from in llvm ours; do
  [ -f "$from.3" ] || continue
  for tool in LLVM ours; do
    bin=$LLVM; [ $tool = ours ] && bin=$OURS
    o=unb.$from.$tool
    rm -f "$o"
    measure "$bin" -type=o -unbundle -targets=hipv4-amdgcn-amd-amdhsa--$pick \
      -input="$from.3" -output="$o"
    if [ "$secs" = FAILED ]; then
      res="FAILED: $(head -c 60 "$work/err" | tr '\n|' '  ')"; bad=1
    elif cmp -s "$o" "$corpus/$pick.o"; then
      res="identical to $pick.o"
    else
      res="DIFFERS from $pick.o"; bad=1
    fi
    src=LLVM; [ $from = ours ] && src=ours
    echo "| $src level 3 | $tool | $secs | $rss_mb | $res |"
  done
done
rm -f unb.* llvm.raw ours.raw
exit $bad
