#!/bin/sh
# Remakes the golden binary bundles with LLVM 22's clang-offload-bundler
# (TestWriteGolden's sources): four entries at bundle alignments 1, 16
# and 3; an empty last entry at alignment 4096; and dupstd.bc, two
# spellings of one target (…-amdhsa--gfx906 and …-amdhsa-unknown-gfx906)
# that LLVM writes under one standardised ID. four.list is -list's output.
# Usage: sh gen.sh [LLVM_BIN]   (run from this folder)
set -eu
B=${1:-${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}}/clang-offload-bundler
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf HOSTDATA > "$tmp/h"
printf DEV1 > "$tmp/d1"
printf DEV22 > "$tmp/d2"
printf DEV333 > "$tmp/d3"
: > "$tmp/e"
host=host-x86_64-unknown-linux-gnu-
T=$host,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx908,hip-amdgcn-amd-amdhsa--gfx90a
four="-input=$tmp/h -input=$tmp/d1 -input=$tmp/d2 -input=$tmp/d3"
"$B" -type=bc -targets=$T $four -output=four.bc
"$B" -type=bc -targets=$T $four -output=four-align16.bc -bundle-align=16
"$B" -type=bc -targets=$T $four -output=four-align3.bc -bundle-align=3
"$B" -type=bc -targets=$host,hip-amdgcn-amd-amdhsa--gfx906 \
	-input="$tmp/h" -input="$tmp/e" -output=emptylast-align4096.bc -bundle-align=4096
"$B" -type=bc -targets=$host,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa-unknown-gfx906 \
	-input="$tmp/h" -input="$tmp/d3" -input="$tmp/d1" -output=dupstd.bc
"$B" -type=bc -list -input=four.bc > four.list
