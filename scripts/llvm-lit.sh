#!/bin/bash
# Runs LLVM's own regression tests of the three drop-in tools twice with
# lit: with LLVM 22's tools, then with ours first on PATH (the rest, clang,
# FileCheck, llvm-ar, yaml2obj..., stays LLVM 22's), and prints the tests
# that pass with LLVM 22 and fail with ours, and for the tests that fail
# with both, whether ours fails at the same RUN line.
#
# Usage: scripts/llvm-lit.sh LLVM_PROJECT [WORKDIR]
#   LLVM_PROJECT  an llvm-project checkout (best release/22.x: tests of
#                 newer releases use options LLVM 22 lacks, and fail with
#                 both); only the files below are read from it
#   WORKDIR       where the tests are copied and run (default: a temp dir)
# Environment:
#   GOFFLOAD_LLVM_DIR  LLVM 22's tools (default /usr/lib/llvm-22/bin); lit
#                      is taken from there, else from PATH
# Tests: clang/test/Driver/clang-offload-bundler*, fat-archive-unbundle-ext.c,
# offload-packager.c, and llvm/test/tools/llvm-offload-binary/, with the
# Inputs they use. Tests that REQUIRE asserts (-debug-only) are unsupported
# with a release build of LLVM, as Debian's is, and with ours alike.
# Exits 1 if a test fails with ours only, or at another line than with LLVM.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:?usage: scripts/llvm-lit.sh LLVM_PROJECT [WORKDIR]}
work=${2:-$(mktemp -d)}
# Absolute paths: the script changes folders, and lit's PATH must find ours.
work=$(mkdir -p "$work" && cd "$work" && pwd)
llvm=$(cd "${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}" && pwd)
lit=$llvm/lit
[ -x "$lit" ] || lit=$(command -v lit || command -v llvm-lit) || { echo "no lit" >&2; exit 1; }

rm -rf "$work/tests" "$work/out"
mkdir -p "$work/bin" "$work/tests"
(cd "$root" && go build -o "$work/bin/" ./cmd/clang-offload-bundler ./cmd/llvm-offload-binary ./cmd/clang-offload-packager)
for t in clang-offload-bundler llvm-offload-binary clang-offload-packager; do
	[ "$(PATH="$work/bin:$llvm" command -v $t)" = "$work/bin/$t" ] || { echo "$t: ours is not first on PATH" >&2; exit 1; }
done

cd "$src"
files=$(ls -d clang/test/Driver/clang-offload-bundler* clang/test/Driver/fat-archive-unbundle-ext.c \
	clang/test/Driver/offload-packager.c llvm/test/tools/llvm-offload-binary/* 2>/dev/null || true)
[ -n "$files" ] || { echo "$src: none of the tests found (not an llvm-project checkout?)" >&2; exit 1; }
for f in $files; do
	mkdir -p "$work/tests/$(dirname "$f")"
	cp -r "$f" "$work/tests/$f"
done
# The Inputs the tests name (%S/Inputs/...).
for f in $files; do
	grep -o '%S/Inputs/[A-Za-z0-9_./-]*' "$f" 2>/dev/null | sed "s|%S|$(dirname "$f")|" || true
done | sort -u | while read -r in; do
	[ -e "$in" ] && mkdir -p "$work/tests/$(dirname "$in")" && cp -r "$in" "$work/tests/$in"
done

cat >"$work/tests/lit.cfg.py" <<'PY'
import os
import lit.formats
params = lit_config.params
mode, work, llvm = params["mode"], params["work"], params["llvm"]
config.name = "goffload-" + mode
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp", ".hip", ".ll", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(work, "out", mode)
path = [llvm, "/usr/local/bin", "/usr/bin", "/bin"]
if mode == "ours":
    path.insert(0, os.path.join(work, "bin"))
config.environment["PATH"] = os.pathsep.join(path)
for v in ("HOME", "TMPDIR"):
    if v in os.environ:
        config.environment[v] = os.environ[v]
clang = os.path.join(llvm, "clang")
resource = os.popen(clang + " -print-resource-dir").read().strip()
config.substitutions.append(("%clang_cc1", "%s -cc1 -internal-isystem %s/include -nostdsysteminc" % (clang, resource)))
config.substitutions.append(("%clangxx", os.path.join(llvm, "clang++")))
config.substitutions.append(("%clang", clang))
config.substitutions.append(("%itanium_abi_triple", "x86_64-unknown-linux-gnu"))
config.substitutions.append(("%errc_ENOENT", "'No such file or directory'"))
config.substitutions.append(("%python", "python3"))
config.target_triple = config.host_triple = "x86_64-unknown-linux-gnu"
config.available_features.update(["x86-registered-target", "amdgpu-registered-target",
    "nvptx-registered-target", "zlib", "zstd", "shell", "system-linux"])
PY

for mode in llvm ours; do
	"$lit" -v --param mode=$mode --param work="$work" --param llvm="$llvm" "$work/tests" >"$work/lit-$mode.txt" 2>&1 || true
done
# First failing RUN line of each failing test.
firstfail() {
	awk '/^FAIL: /{t=$4} /^# RUN: at line/{l=$5} /^# error: command failed/{if (t != "" && !(t in seen)) {seen[t]=1; print t, l}}' "$1" | sort
}
firstfail "$work/lit-llvm.txt" >"$work/fail-llvm.txt"
firstfail "$work/lit-ours.txt" >"$work/fail-ours.txt"
ran=$(grep -cE '^[A-Z]+: goffload-' "$work/lit-ours.txt" || true)
echo "tests run: $ran"
[ "$ran" -gt 0 ] || { echo "lit ran no test: see $work/lit-ours.txt" >&2; exit 1; }
for mode in llvm ours; do
	echo "$mode: $(grep -cE '^PASS: ' "$work/lit-$mode.txt") passed, $(grep -cE '^FAIL: ' "$work/lit-$mode.txt") failed, $(grep -cE '^UNSUPPORTED: ' "$work/lit-$mode.txt") unsupported"
done
bad=0
while read -r t line; do
	ref=$(awk -v t="$t" '$1==t{print $2}' "$work/fail-llvm.txt")
	if [ -z "$ref" ]; then
		echo "FAILS WITH OURS ONLY: $t (RUN line $line)"
		bad=1
	elif [ "$ref" != "$line" ]; then
		echo "FAILS AT ANOTHER LINE: $t (ours at $line, LLVM 22 at $ref)"
		bad=1
	else
		echo "fails with both at RUN line $line: $t"
	fi
done <"$work/fail-ours.txt"
# Any other verdict that differs (a pass with ours where LLVM 22 fails,
# XPASS, UNRESOLVED, TIMEOUT).
verdicts() { sed -n 's/^\([A-Z]*\): goffload-[a-z]* :: \(.*\) (.*/\2 \1/p' "$1" | sort; }
while read -r t v; do
	w=$(verdicts "$work/lit-ours.txt" | awk -v t="$t" '$1==t{print $2}')
	if [ "$v" != "$w" ] && ! grep -q "^$t " "$work/fail-ours.txt"; then
		echo "VERDICT DIFFERS: $t: LLVM 22 $v, ours ${w:-none}"
		bad=1
	fi
done < <(verdicts "$work/lit-llvm.txt")
echo "A test stops at its first failing RUN line: a test that fails with both compared"
echo "only the lines before it. logs: $work/lit-llvm.txt $work/lit-ours.txt"
exit $bad
