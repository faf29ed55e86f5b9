#!/usr/bin/env bash
# real-prune.sh: goffload on real ROCm libraries from Debian 12 (bookworm):
# librocsparse0 (rocSPARSE 5.3, GNU ld, 111 bundles x 7 GPUs, 1.25 GB) and
# librocrand1 (rocRAND 5.3, gfx90a built twice: xnack+ and xnack-). It
# downloads the two packages (about 100 MB) with apt-get download, which CI
# does not do, then for each library:
#   - the one target rule: extract --target gfx90a must stop and name the
#     modes (exit 1), a misspelt name must be a usage error (exit 2), a
#     prune that drops nothing must write the input byte for byte;
#   - prune to gfx90a:xnack- (time and peak memory), then run GNU strip,
#     objcopy --only-keep-debug, eu-strip -f and patchelf --set-rpath on the
#     result: each must print nothing;
#   - load the original and every result with dlopen(RTLD_LAZY) against the
#     recording stand-in for the HIP runtime (prune/testdata/src/record.c,
#     built as libamdhip64.so.5 with the hip_4.2 symbol version), which
#     copies every bundle __hipRegisterFatBinary is handed: each result must
#     register as many bundles as the original, holding only gfx90a:xnack-
#     code, each byte-identical to the original's.
# Usage: scripts/real-prune.sh [WORKDIR]   (default: a temporary folder, removed)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work" && cd "$work"
for t in apt-get dpkg-deb cc strip objcopy eu-strip patchelf; do
  command -v $t >/dev/null || { echo "real-prune.sh: $t is needed" >&2; exit 2; }
done
(cd "$root" && go build -o "$work/goffload" ./cmd/goffload)
g=$work/goffload
[ -d root ] || {
  apt-get download librocsparse0 librocrand1 >/dev/null 2>&1
  for d in *.deb; do dpkg-deb -x "$d" root; done
}
echo 'hip_4.2 { global: *; };' >v.map
cc -shared -fPIC -O1 "$root/prune/testdata/src/record.c" -Wl,--version-script=v.map \
  -Wl,-soname,libamdhip64.so.5 -o libamdhip64.so.5
cat >load.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int c, char **v) {
  if (!dlopen(v[1], RTLD_LAZY)) { printf("dlopen: %s\n", dlerror()); return 1; }
  return 0;
}
C
cc load.c -o load -ldl
fail=0
bad() { echo "FAIL: $*"; fail=1; }
record() { # record DIR FILE: load FILE, bundles into DIR
  rm -rf "$1" && mkdir -p "$1"
  HIP_RECORD_DIR=$1 LD_LIBRARY_PATH=$work ./load "$2" || bad "loading $2"
}
for lib in root/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1 root/usr/lib/x86_64-linux-gnu/librocrand.so.1.1; do
  name=$(basename "$lib")
  echo "== $name ($(stat -c %s "$lib") bytes)"
  set +e
  $g extract --target gfx90a -o x "$lib" >/dev/null 2>err; [ $? = 1 ] && grep -q 'leaves xnack open' err || bad "extract --target gfx90a"
  $g prune --keep GFX90A -o y "$lib" >/dev/null 2>err; [ $? = 2 ] && grep -q 'did you mean gfx90a' err || bad "prune --keep GFX90A"
  $g prune --drop gfx942 -o same "$lib" >/dev/null && cmp -s same "$lib" || bad "prune --drop gfx942 is not the input"
  set -e
  /usr/bin/time -f "prune --keep gfx90a:xnack-: %e s wall, %U+%S s CPU, %M KB peak" \
    $g prune --keep gfx90a:xnack- -o "$name.p" "$lib" | tail -1
  strip --strip-unneeded -o "$name.s" "$name.p" 2>err && [ ! -s err ] || bad "strip: $(cat err)"
  objcopy --only-keep-debug "$name.p" "$name.dbg" 2>err && [ ! -s err ] || bad "objcopy --only-keep-debug: $(cat err)"
  eu-strip -f "$name.eudbg" -o "$name.eu" "$name.p" 2>err && [ ! -s err ] || bad "eu-strip: $(cat err)"
  cp "$name.p" "$name.pe" && patchelf --set-rpath /opt/x "$name.pe" 2>err && [ ! -s err ] || bad "patchelf: $(cat err)"
  record orig "$lib"
  n=$(ls orig | wc -l)
  for v in p s eu pe; do
    record "got.$v" "./$name.$v"
    [ "$(ls "got.$v" | wc -l)" = "$n" ] || bad "$name.$v registers $(ls "got.$v" | wc -l) bundles, not $n"
    targets=$($g list --json "got.$v"/*.bin | grep -o '"target_id": *"[^"]*"' | tr -d ' ' | grep -v '""$' | sort -u)
    [ "$targets" = '"target_id":"gfx90a:xnack-"' ] || bad "$name.$v registers $targets"
    for b in orig/*.bin; do
      cmp -s <($g extract --target gfx90a:xnack- -o - "$b") <($g extract --target gfx90a:xnack- -o - "got.$v/$(basename "$b")") ||
        bad "$name.$v: $(basename "$b") differs"
    done
  done
  echo "$name: $(stat -c %s "$name.p") bytes pruned; $n bundles registered by the original and by each of pruned, strip, eu-strip, patchelf"
done
[ $fail = 0 ] && echo "all checks passed"
exit $fail
