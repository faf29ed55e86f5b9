#!/bin/sh
# Remakes the golden text bundles three.{i,ll,d,s} with LLVM 22's
# clang-offload-bundler: a host entry and two device entries, the last
# without a trailing newline (TestWriteGolden's payloads).
# Usage: sh gen.sh [LLVM_BIN]   (run from this folder)
set -eu
B=${1:-${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}}/clang-offload-bundler
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'host content\n' > "$tmp/h"
printf 'device A\n' > "$tmp/a"
printf 'device B no newline' > "$tmp/b"
for typ in i ll d s; do
	"$B" -type=$typ \
		-targets=host-x86_64-unknown-linux-gnu-,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx908 \
		-input="$tmp/h" -input="$tmp/a" -input="$tmp/b" -output=three.$typ
done
