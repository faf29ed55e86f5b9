#!/usr/bin/env bash
# Compression benchmark: goffload's clang-offload-bundler against LLVM 22's, in
# the same run, on real HIP code objects for AMD GPU targets (made by
# scripts/gen-corpus.sh). Bundles them as clang does for a HIP fat binary
# (-type=o, empty host, -bundle-align=4096) with `-compress
# -compression-level=N` for every N in LEVELS and SLOW_LEVELS, on up to three
# corpora, each its own table:
#   a  the default gen-corpus.sh corpus (8 targets; WORKDIR/corpus)
#   b  CORPUS_KERNELS=2 CORPUS_DEBUG=1: other kernels, with -g debug info
#      (8 targets; WORKDIR/corpus-b)
#   c  a small 2-target bundle: gfx90a and gfx1100 from corpus b
#   d  held out: CORPUS_KERNELS=3 CORPUS_DEBUG=1, kernels written after the
#      encoder was tuned, with -g, for the 12 targets of HELDOUT_ARCHS
#      (WORKDIR/corpus-d)
#   e  held out: gfx90a and gfx1100 from corpus d
#   real:LIB:N  bundle N of the .hip_fatbin of LIB, a real HIP library (code
#      objects cut out with goffload list and extract into WORKDIR): kernels
#      the encoder was not tuned on, e.g. Debian's ROCm libraries
#      (scripts/fetch-trixie-rocm.sh); named R1, R2, ... in the order given
#   text:TYPE:F1,F2,F3  a text bundle (-type=TYPE: ii, s, ll, ...) of three
#      text files (absolute paths), as host, gfx90a and gfx1100 entries, e.g. preprocessed
#      sources (clang -E) or disassembly (llvm-objdump -d); named T1, T2, ...
# Each table gives size, ratio (uncompressed bundle / compressed file), wall
# and CPU time (user + sys, as /usr/bin/time's %e and %U + %S report them,
# child processes included) and peak RSS, for both tools; then a goals table
# saying per level whether ours is no larger, uses no more CPU time and takes
# no more wall time than LLVM (with ours/LLVM in parentheses). On corpus a it
# also unbundles gfx90a from each tool's level-3 output (or the first level's
# if 3 is not measured) with each tool, and checks that all four extractions
# equal the input code object.
#
# Usage: scripts/bench-compress.sh [WORKDIR]
#   WORKDIR keeps the corpora (WORKDIR/corpus, WORKDIR/corpus-b) between runs,
#   and builds ours into WORKDIR/bin; default: a temp dir. A corpus is built
#   only if one of its code objects is missing.
# Environment:
#   GOFFLOAD_LLVM_DIR  LLVM 22 tools (default /usr/lib/llvm-22/bin)
#   CORPORA            corpora to measure (default "a b c")
#   LEVELS             compression levels (default "1 2 3 4 5 6 7 8 9 10 11 12
#                      19")
#   SLOW_LEVELS        levels appended to LEVELS (default empty; e.g.
#                      "20 21 22"; LEVELS= SLOW_LEVELS=... runs them alone)
#   REPEAT             runs per measurement; wall and CPU time are the mean
#                      of all runs, peak RSS is the last run's (default 5)
#   CORPUS_ARCHS       targets of corpora a and b (default the 8 below)
#   HELDOUT_ARCHS      targets of corpus d (default the 12 below)
#   CORPUS_VARIANTS, CLANG, JOBS  passed to gen-corpus.sh (CORPUS_KERNELS and
#                      CORPUS_DEBUG are set per corpus)
# Exits 1 if a run fails or an unbundled code object differs; goals not met
# do not change the exit status.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
LLVM=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}/clang-offload-bundler
OURS=$work/bin/clang-offload-bundler
read -ra levels <<<"${LEVELS-1 2 3 4 5 6 7 8 9 10 11 12 19} ${SLOW_LEVELS:-}"
repeat=${REPEAT:-5}
corpora=${CORPORA:-a b c}
archs=${CORPUS_ARCHS:-gfx906,gfx908,gfx90a,gfx942,gfx1030,gfx1100,gfx1101,gfx1200}
small_archs=gfx90a,gfx1100
heldout_archs=${HELDOUT_ARCHS:-gfx900,gfx906,gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1101,gfx1151,gfx1200,gfx1201}
pick=gfx90a
unset CORPUS_KERNELS CORPUS_DEBUG

[ -x "$LLVM" ] || { echo "$0: $LLVM not found" >&2; exit 1; }
for c in $corpora; do
  case $c in a|b|c|d|e|real:*:*|text:*:*,*,*) ;; *) echo "$0: CORPORA: unknown corpus '$c' (a, b, c, d, e, real:LIB:N or text:TYPE:F1,F2,F3)" >&2; exit 2;; esac
done
[ ${#levels[@]} -gt 0 ] || { echo "$0: no LEVELS" >&2; exit 2; }
[ "$repeat" -ge 1 ] 2>/dev/null || { echo "$0: REPEAT must be >= 1" >&2; exit 2; }
mkdir -p "$work/bin"
(cd "$root" && go build -o "$OURS" ./cmd/clang-offload-bundler && go build -o "$work/bin/goffload" ./cmd/goffload)

# real_corpus LIB N DIR: cuts bundle N's GPU code objects out of LIB into
# DIR/<target ID>.o, and prints their target IDs, comma-separated.
real_corpus() {
  local lib=$1 n=$2 dir=$3 i id tid list=
  mkdir -p "$dir"
  while IFS=$'\t' read -r i id; do
    tid=${id#*-*-*-*-*-}
    "$work/bin/goffload" extract --index "$i" -o - "$lib" >"$dir/$tid.o"
    list+=${list:+,}$tid
  done < <("$work/bin/goffload" list "$lib" | awk -F'  +' -v want="bundle $n" '
    $6 ~ ("(^| )" want "$") && $3 !~ /^host-/ { print $2 "\t" $3 }')
  [ -n "$list" ] || { echo "$0: no GPU code object in bundle $n of $lib" >&2; exit 1; }
  echo "$list"
}

# ensure_corpus DIR ARCHS KERNELS DEBUG: runs gen-corpus.sh into DIR unless
# DIR holds <gfx>.o for every target of ARCHS (comma-separated).
ensure_corpus() {
  local dir=$1 list=$2 a
  for a in ${list//,/ }; do
    if [ ! -f "$dir/$a.o" ]; then
      echo "building a corpus in $dir (CORPUS_KERNELS=$3 CORPUS_DEBUG=$4 scripts/gen-corpus.sh)" >&2
      CORPUS_ARCHS=$list CORPUS_KERNELS=$3 CORPUS_DEBUG=$4 \
        "$root/scripts/gen-corpus.sh" "$dir" >&2
      return
    fi
  done
}

commas() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/; ta' <<<"$1"; }
size() { wc -c < "$1" | tr -d ' '; }

# measure CMD...: runs CMD $repeat times under /usr/bin/time; sets $wall and
# $cpu (user + sys) to the means over the runs in ms, and $rss_mb to the last
# run's peak RSS; or wall=FAILED if any run fails (its stderr is left in
# $work/err).
measure() {
  local i t u s kb sw=0 sc=0
  wall=FAILED cpu=- rss_mb=-
  for ((i = 0; i < repeat; i++)); do
    if ! /usr/bin/time -o "$work/time.out" -f '%e %U %S %M' "$@" >/dev/null 2>"$work/err"; then
      wall=FAILED cpu=- rss_mb=-
      bad=1
      return
    fi
    read -r t u s kb < <(tail -1 "$work/time.out")
    sw=$(awk "BEGIN{print $sw + $t}")
    sc=$(awk "BEGIN{print $sc + $u + $s}")
    rss_mb=$(awk "BEGIN{printf \"%.1f\", $kb/1024}")
  done
  wall=$(awk "BEGIN{printf \"%.0f\", $sw * 1000 / $repeat}")
  cpu=$(awk "BEGIN{printf \"%.0f\", $sc * 1000 / $repeat}")
}
cell() { # file: "size | ratio | wall | CPU | RSS" for the last measure
  if [ "$wall" = FAILED ]; then
    printf 'FAILED: %s | | | | ' "$(head -c 60 "$work/err" | tr '\n|' '  ')"
    return
  fi
  local s; s=$(size "$1")
  printf '%s | %.2f | %s | %s | %s' "$(commas "$s")" "$(awk "BEGIN{print $raw/$s}")" \
    "$wall" "$cpu" "$rss_mb"
}
ok() { # OURS LLVM: "yes (ours/LLVM)" if OURS <= LLVM, else "NO (...)"
  if [ "$1" = FAILED ] || [ "$2" = FAILED ] || [ "$1" = - ] || [ "$2" = - ]; then
    echo -; return
  fi
  awk -v o="$1" -v l="$2" 'BEGIN{
    r = l > 0 ? sprintf("%.2f", o / l) : (o > 0 ? "inf" : "1.00")
    printf "%s (%s)", (o <= l ? "yes" : "NO"), r }'
}

# bench_corpus NAME DIR ARCHS DESCRIPTION: the tables for one corpus. Leaves
# the compressed files as WORKDIR/{llvm,ours}.NAME.LEVEL.
bench_corpus() {
  local name=$1 dir=$2 list=$3 desc=$4 a total=0
  local -a alist inputs
  local targets=host-x86_64-unknown-linux-gnu
  IFS=, read -ra alist <<<"$list"
  inputs=(-input=/dev/null)
  for a in "${alist[@]}"; do
    targets+=,hipv4-amdgcn-amd-amdhsa--$a
    inputs+=(-input="$dir/$a.o")
    total=$((total + $(size "$dir/$a.o")))
  done
  # The bundler job clang 22 runs for `clang -x hip --offload-compress`.
  bundle=(-type=o -bundle-align=4096 -targets="$targets" "${inputs[@]}")
  bench_bundle "$name" "$desc" "${#alist[@]} code objects ($list), $(commas $total) bytes ($dir)"
}

# bench_text NAME TYPE FILES DESCRIPTION: the tables for a text bundle of
# the three comma-separated FILES.
bench_text() {
  local name=$1 type=$2 files=$3 desc=$4 f total=0
  local -a flist inputs
  IFS=, read -ra flist <<<"$files"
  [ ${#flist[@]} -eq 3 ] || { echo "$0: text corpus: three files, comma-separated (host, gfx90a, gfx1100), not '$files'" >&2; exit 2; }
  for f in "${flist[@]}"; do
    [ -f "$f" ] || { echo "$0: text corpus: no file $f" >&2; exit 1; }
    inputs+=(-input="$f")
    total=$((total + $(size "$f")))
  done
  bundle=(-type="$type" -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx1100 "${inputs[@]}")
  bench_bundle "$name" "$desc" "${#flist[@]} text files ($files), $(commas $total) bytes"
}

# bench_bundle NAME DESCRIPTION WHAT: the tables for the bundler arguments
# in the array bundle (WHAT says what it holds).
bench_bundle() {
  local name=$1 desc=$2 what=$3 n row goals missed=
  echo "## Corpus ${name^^}: $desc"
  echo
  echo "$what;" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg); times: mean of $repeat run(s)"
  echo

  # Uncompressed bundle: the reference size for the ratios, and a floor for
  # the times.
  measure "$LLVM" "${bundle[@]}" -output=llvm.raw
  [ "$wall" != FAILED ] || { cat "$work/err" >&2; exit 1; }
  raw=$(size llvm.raw)
  echo "| level | LLVM size | ratio | wall ms | CPU ms | RSS MB | ours size | ratio | wall ms | CPU ms | RSS MB |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  row="| none | $(cell llvm.raw) | "
  measure "$OURS" "${bundle[@]}" -output=ours.raw
  row+="$(cell ours.raw) |"
  echo "$row"
  if [ "$wall" != FAILED ] && ! cmp -s llvm.raw ours.raw; then
    echo "warning: uncompressed bundles of corpus $name differ" >&2
  fi
  rm -f llvm.raw ours.raw

  goals=
  local lsz lw lc osz ow oc sok cok wok
  for n in "${levels[@]}"; do
    row="| $n | "
    measure "$LLVM" "${bundle[@]}" -compress -compression-level="$n" -output="llvm.$name.$n"
    row+="$(cell "llvm.$name.$n") | "
    lsz=-; [ "$wall" = FAILED ] || lsz=$(size "llvm.$name.$n")
    lw=$wall lc=$cpu
    measure "$OURS" "${bundle[@]}" -compress -compression-level="$n" -output="ours.$name.$n"
    row+="$(cell "ours.$name.$n") |"
    osz=-; [ "$wall" = FAILED ] || osz=$(size "ours.$name.$n")
    ow=$wall oc=$cpu
    echo "$row"
    sok=$(ok "$osz" "$lsz") cok=$(ok "$oc" "$lc") wok=$(ok "$ow" "$lw")
    goals+="| $n | $sok | $cok | $wok |"$'\n'
    case "$sok $cok $wok" in
      *NO*|*-*) missed+=" $n" ;;
    esac
  done
  echo
  echo "Goals on corpus ${name^^} (ours <= LLVM; ours/LLVM in parentheses):"
  echo
  echo "| level | size ok | cpu ok | wall ok |"
  echo "|---|---|---|---|"
  printf '%s' "$goals"
  echo
  if [ -z "$missed" ]; then
    echo "corpus ${name^^}: every goal met at every level (${levels[*]})"
  else
    echo "corpus ${name^^}: goals missed at level(s)$missed"
  fi
  echo
}

# unbundle_section DIR LEVEL: decompress and unbundle $pick from each tool's
# corpus-a file of LEVEL with each tool.
unbundle_section() {
  local dir=$1 lv=$2 from tool bin o res src
  echo "### Unbundle $pick ($(commas "$(size "$dir/$pick.o")") bytes) from corpus A's level-$lv files"
  echo
  echo "| input | unbundled by | wall ms | CPU ms | RSS MB | output |"
  echo "|---|---|---|---|---|---|"
  for from in llvm ours; do
    [ -f "$from.a.$lv" ] || continue
    for tool in LLVM ours; do
      bin=$LLVM; [ $tool = ours ] && bin=$OURS
      o=unb.$from.$tool
      rm -f "$o"
      measure "$bin" -type=o -unbundle -targets=hipv4-amdgcn-amd-amdhsa--$pick \
        -input="$from.a.$lv" -output="$o"
      if [ "$wall" = FAILED ]; then
        res="FAILED: $(head -c 60 "$work/err" | tr '\n|' '  ')"; bad=1
      elif cmp -s "$o" "$dir/$pick.o"; then
        res="identical to $pick.o"
      else
        res="DIFFERS from $pick.o"; bad=1
      fi
      src=LLVM; [ $from = ours ] && src=ours
      echo "| $src level $lv | $tool | $wall | $cpu | $rss_mb | $res |"
    done
  done
  rm -f unb.*
  echo
}

for c in $corpora; do
  case $c in
    a) ensure_corpus "$work/corpus" "$archs" 1 0 ;;
    b) ensure_corpus "$work/corpus-b" "$archs" 2 1 ;;
    c) ensure_corpus "$work/corpus-b" "$small_archs" 2 1 ;;
    d) ensure_corpus "$work/corpus-d" "$heldout_archs" 3 1 ;;
    e) ensure_corpus "$work/corpus-d" "$small_archs" 3 1 ;;
  esac
done

cd "$work"
echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "LLVM: $LLVM ($("$LLVM" --version | grep -o 'version [0-9.]*' | head -1))"
echo "ours: $OURS (go build of $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD -- 2>/dev/null || echo ', with uncommitted changes'))"
echo "levels: ${levels[*]}; REPEAT=$repeat"
echo

bad=0
unb_level=3
case " ${levels[*]} " in *" 3 "*) ;; *) unb_level=${levels[0]} ;; esac
for c in $corpora; do
  case $c in
    a) bench_corpus a "$work/corpus" "$archs" "scripts/gen-corpus.sh (default kernels, no -g)"
       unbundle_section "$work/corpus" "$unb_level" ;;
    b) bench_corpus b "$work/corpus-b" "$archs" \
         "CORPUS_KERNELS=2 CORPUS_DEBUG=1 scripts/gen-corpus.sh (other kernels, -g)" ;;
    c) bench_corpus c "$work/corpus-b" "$small_archs" "2 targets of corpus B" ;;
    d) bench_corpus d "$work/corpus-d" "$heldout_archs" \
         "CORPUS_KERNELS=3 CORPUS_DEBUG=1 scripts/gen-corpus.sh, 12 targets (held out: kernels written after tuning, -g)" ;;
    e) bench_corpus e "$work/corpus-d" "$small_archs" "2 targets of corpus D (held out)" ;;
    real:*)
      realn=$((${realn:-0} + 1))
      spec=${c#real:}
      lib=${spec%:*} bn=${spec##*:}
      list=$(real_corpus "$lib" "$bn" "$work/real$realn")
      bench_corpus "r$realn" "$work/real$realn" "$list" "bundle $bn of $(basename "$lib") (real kernels, not tuned on)" ;;
    text:*)
      textn=$((${textn:-0} + 1))
      spec=${c#text:}
      bench_text "t$textn" "${spec%%:*}" "${spec#*:}" "a -type=${spec%%:*} text bundle" ;;
  esac
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $bad
