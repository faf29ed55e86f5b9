#!/usr/bin/env bash
# fetch-trixie-rocm.sh DIR: downloads Debian 13 (trixie)'s ROCm libraries
# (librocblas0 with its Tensile library, librocsparse0, librocsolver0,
# librccl1, librocrand1, libamdhip64-5) and unpacks them into DIR/root: a
# real ROCm install of about 5 GB, for scripts/real-install.sh and
# scripts/bench-installs.sh. It uses an apt configuration of its own in
# DIR/apt that names the trixie suite of the archive this machine's apt
# sources already use; the machine's apt state is not touched. Not run by
# CI (gigabytes).
set -euo pipefail
dir=${1:?usage: fetch-trixie-rocm.sh DIR}
mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$dir/debs"
dir=$(cd "$dir" && pwd)
# The archive this machine uses for Debian's own packages.
uri=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -1)
[ -n "$uri" ] || uri=$(grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}' | head -1)
[ -n "$uri" ] || { echo "fetch-trixie-rocm.sh: no Debian archive in the apt sources" >&2; exit 2; }
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri trixie main" >"$dir/apt/sources.list"
apt=(apt-get -o "Dir::Etc::sourcelist=$dir/apt/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::lists=$dir/apt/lists" -o "Dir::Cache::archives=$dir/apt/archives" -o "Dir::State::status=/dev/null")
"${apt[@]}" update >"$dir/apt/update.log"
pkgs=(librocblas0 librocsparse0 librocsolver0 librccl1 librocrand1 libamdhip64-5)
# The Tensile library ships in its own package on some releases.
extra=$("${apt[@]}" -s install librocblas0 2>/dev/null | awk '/^Inst/ {print $2}' | grep -E 'rocblas' || true)
(cd "$dir/debs" && "${apt[@]}" download "${pkgs[@]}" $extra >"$dir/apt/download.log" 2>&1)
for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
du -sh "$dir/root"
