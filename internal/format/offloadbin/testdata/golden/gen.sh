#!/bin/sh
# Remakes the golden binaries with LLVM 22's llvm-offload-binary.
set -e
cd "$(dirname "$0")"
python3 gen.py
T=${LLVM_OFFLOAD_BINARY:-/usr/lib/llvm-22/bin/llvm-offload-binary}
while IFS="$(printf '\t')" read -r name rest; do
	# shellcheck disable=SC2086
	(IFS="$(printf '\t')"; set -f; "$T" -o "$name.bin" $rest)
done < cases.txt
