#!/usr/bin/env bash
# Writes the zstd payloads of every CCOB in FILE, back to back, to OUT (one
# stream zstd -d decodes: concatenated frames), and prints how many CCOBs
# there were. The CCOBs are found by `goffload list --json` (each CCOB's
# file offset, size and version); a payload is the CCOB's bytes after its
# header (20, 24 or 32 bytes for versions 1, 2, 3). bench-inspect.sh and
# bench-ccob.sh measure libzstd on these, the floor for facts inside CCOBs.
#
# Usage: scripts/ccob-payloads.sh GOFFLOAD FILE OUT
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 GOFFLOAD FILE OUT" >&2; exit 2; }
gof=$1 file=$2 out=$3
: >"$out"
n=0
while read -r off sz ver; do
  case $ver in 1) h=20 ;; 2) h=24 ;; *) h=32 ;; esac
  dd if="$file" iflag=skip_bytes,count_bytes skip=$((off + h)) count=$((sz - h)) \
    bs=1M status=none >>"$out"
  n=$((n + 1))
done < <("$gof" list --json "$file" |
  awk '/"compressed": \{/ { c = 1 } c && /"version":/ { gsub(/[^0-9]/, ""); v = $0 }
    c && /"offset":/ { gsub(/[^0-9]/, ""); o = $0 }
    c && /"size":/ { gsub(/[^0-9]/, ""); if (!seen[o]++) print o, $0, v; c = 0 }')
echo "$n"
