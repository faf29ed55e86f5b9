#!/usr/bin/env bash
# gen.sh: builds, with LLVM 22's yaml2obj, clang-offload-bundler and
# llvm-offload-binary, small inputs of the shapes LLVM's own regression tests
# for --offloading use (llvm/test/tools/llvm-objdump/Offloading/*.test and
# llvm/test/tools/llvm-readobj/ELF/AMDGPU/offloading*.test), and saves what
# LLVM 22's tools say about each. The YAML below is ours: it describes the
# same shapes (a .hip_fatbin bundle, a CCOB, a COFF .hip_fatbin, an
# OffloadBinary in .llvm.offloading, nested OffloadBinaries, a bundle header
# cut short, a section past the end of the file), not LLVM's bytes.
# The outputs are committed next to this script so that the tests need no
# LLVM; llvmtests_test.go (package inspect) and the goffloadcmd tests compare
# goffload with the saved outputs, and with the live tools where they exist.
#
# Usage: testdata/llvmtests/gen.sh [OUTDIR]   (OUTDIR defaults to this folder)
#
# Writes, for each input F (see MANIFEST below):
#   F                 the input
#   F.readobj         llvm-readobj --offloading F (object files only; 22
#                     crashes on a bare OffloadBinary): exit status, then
#                     stdout and stderr with the path replaced by FILE
#   F.objdump         llvm-objdump --offloading F, run in an empty folder: exit
#                     status, stdout and stderr (FILE for the path), then the
#                     name, size and SHA-256 of every file it extracted
#   F.offload-binary  for OffloadBinaries and elf-exec.elf: per triple and
#                     arch objdump lists, what llvm-offload-binary F
#                     --image=triple=T,arch=A,file=X extracts (exit status,
#                     size and SHA-256 of X, or "none")
#
# Environment: GOFFLOAD_LLVM_DIR, LLVM 22's bin folder (default
# /usr/lib/llvm-22/bin).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here}
mkdir -p "$out"
out=$(cd "$out" && pwd)
llvm=${GOFFLOAD_LLVM_DIR:-/usr/lib/llvm-22/bin}
Y2O=$llvm/yaml2obj
BUNDLER=$llvm/clang-offload-bundler
PACKAGER=$llvm/llvm-offload-binary
READOBJ=$llvm/llvm-readobj
OBJDUMP=$llvm/llvm-objdump
export LC_ALL=C TZ=UTC
unset COMPRESSED_BUNDLE_FORMAT_VERSION OFFLOAD_BUNDLER_COMPRESS \
  OFFLOAD_BUNDLER_VERBOSE OFFLOAD_BUNDLER_IGNORE_ENV_VAR

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }

# A gfx908 code object: an AMDGPU ELF (code object v4) with one kernel
# descriptor symbol and an s_endpgm.
cat > gfx908.yaml <<'EOF'
--- !ELF
FileHeader:
  Class:      ELFCLASS64
  Data:       ELFDATA2LSB
  OSABI:      ELFOSABI_AMDGPU_HSA
  ABIVersion: 2
  Type:       ET_DYN
  Machine:    EM_AMDGPU
  Flags:      [ EF_AMDGPU_MACH_AMDGCN_GFX908 ]
Sections:
  - Name:    .rodata
    Type:    SHT_PROGBITS
    Flags:   [ SHF_ALLOC ]
    AddressAlign: 0x40
    Size:    0x40
  - Name:    .text
    Type:    SHT_PROGBITS
    Flags:   [ SHF_ALLOC, SHF_EXECINSTR ]
    AddressAlign: 0x100
    Content: "000081BF"
Symbols:
  - Name:    k
    Type:    STT_FUNC
    Section: .text
    Binding: STB_GLOBAL
  - Name:    k.kd
    Type:    STT_OBJECT
    Section: .rodata
    Binding: STB_GLOBAL
    Size:    0x40
EOF
"$Y2O" gfx908.yaml -o gfx908.co
: > host.o
printf 'Content of device file 906\n' > dev906.txt
printf 'Content of device file 908\n' > dev908.txt
printf 'host content\n' > host.txt

# Bundles as clang makes them for HIP: a host entry and a code object,
# 4 KiB aligned; the same compressed; three small entries unaligned.
"$BUNDLER" -type=bc -bundle-align=4096 \
  -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx908 \
  -input=host.o -input=gfx908.co -output=fatbin.bundle
"$BUNDLER" -type=bc -bundle-align=4096 -compress -compression-level=3 \
  -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx908 \
  -input=host.o -input=gfx908.co -output=fatbin.ccob
"$BUNDLER" -type=bc \
  -targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx908 \
  -input=host.txt -input=dev906.txt -input=dev908.txt -output=arch-name.bundle

# A bundle whose header does not hold its entry table: the first entry's ID
# says 30 bytes, but only 4 are there before the next entry's fields, so the
# table runs on into the payload (readobj's offloading-fail shape; the
# "ID" swallows control bytes).
{
  printf '__CLANG_OFFLOAD_BUNDLE__'
  printf '\002\000\000\000\000\000\000\000'                   # 2 entries
  printf '\000\020\000\000\000\000\000\000'                   # offset 0x1000
  printf '\000\000\000\000\000\000\000\000'                   # size 0
  printf '\036\000\000\000\000\000\000\000'                   # ID: 30 bytes
  printf 'ux--'                                               # ... but 4
  printf '\000\020\000\000\000\000\000\000'                   # offset 0x1000
  printf '\320\017\000\000\000\000\000\000'                   # size 4048
  printf '\037\000\000\000\000\000\000\000'                   # ID: 31 bytes
  printf 'hipv4-amdgcn-amd-amdhsa--gfx908'
} > fail.bundle
# pad to 0x1000, then the code object
size=$(stat -c %s fail.bundle)
head -c $((4096 - size)) /dev/zero >> fail.bundle
cat gfx908.co >> fail.bundle

# ELF and COFF hosts holding a bundle in .hip_fatbin.
elf_fatbin() { # name content-file [extra yaml]
  cat > "$1.yaml" <<EOF
--- !ELF
FileHeader:
  Class:   ELFCLASS64
  Data:    ELFDATA2LSB
  Type:    ET_EXEC
  Machine: EM_X86_64
Sections:
  - Name:    .hip_fatbin
    Type:    SHT_PROGBITS
    Flags:   [ SHF_ALLOC ]
    Address: 0x201000
    AddressAlign: 0x1000
    Content: $(hex "$2")
EOF
  "$Y2O" "$1.yaml" -o "$out/$1"
}
coff_fatbin() {
  cat > "$1.yaml" <<EOF
--- !COFF
header:
  Machine:         IMAGE_FILE_MACHINE_AMD64
  Characteristics: []
sections:
  - Name:            .hip_fatbin
    Characteristics: [ IMAGE_SCN_CNT_INITIALIZED_DATA, IMAGE_SCN_MEM_READ ]
    Alignment:       4096
    SectionData:     $(hex "$2")
symbols:
EOF
  "$Y2O" "$1.yaml" -o "$out/$1"
}
elf_fatbin fatbin.elf fatbin.bundle
elf_fatbin fatbin-compress.elf fatbin.ccob
elf_fatbin fatbin-arch-name.elf arch-name.bundle
elf_fatbin offloading-fail.elf fail.bundle
coff_fatbin fatbin.coff fatbin.bundle
coff_fatbin fatbin-compress.coff fatbin.ccob

# OffloadBinaries: four empty images (bitcode for two AMD GPUs, a cubin, and
# one of no kind from no producer), as llvm-offload-binary packs them.
: > e.bc; : > e.cubin; : > e.none
"$PACKAGER" -o "$out/binary.bin" \
  --image=file=e.bc,triple=amdgcn-amd-amdhsa,arch=gfx908,kind=openmp \
  --image=file=e.bc,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp \
  --image=file=e.cubin,triple=nvptx64-nvidia-cuda,arch=sm_52,kind=openmp \
  --image=file=e.none,triple=nvptx64-nvidia-cuda,arch=sm_70
elf_offloading() { # name type section-type content-file [align]
  cat > "$1.yaml" <<EOF
--- !ELF
FileHeader:
  Class: ELFCLASS64
  Data:  ELFDATA2LSB
  Type:  $2
Sections:
  - Name:  .misaligned
    Type:  SHT_PROGBITS
    AddressAlign: 1
    Content: "41424300"
  - Name:  .llvm.offloading
    Type:  $3
    Flags: [ SHF_EXCLUDE ]
    AddressAlign: ${5:-8}
    Content: $(hex "$4")
EOF
  "$Y2O" "$1.yaml" -o "$out/$1"
}
elf_offloading elf-exec.elf ET_EXEC SHT_LLVM_OFFLOADING "$out/binary.bin"
elf_offloading elf-dyn.so ET_DYN SHT_LLVM_OFFLOADING "$out/binary.bin"
elf_offloading elf-rel.o ET_REL SHT_LLVM_OFFLOADING "$out/binary.bin"
elf_offloading alignment.elf ET_EXEC SHT_LLVM_OFFLOADING "$out/binary.bin" 1
# A good binary followed by a bad one (warning.test's shape), and a
# section holding four bytes that are not the magic (failure.test's)
# The bad one: a one-image binary whose entry offset (bytes 16-23) points
# far past its end.
printf 'deadbeef' > e4.cubin
"$PACKAGER" -o bad.bin --image=file=e4.cubin,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=openmp
printf '\377\311\232\073' | dd of=bad.bin bs=1 seek=16 conv=notrunc status=none
cat "$out/binary.bin" bad.bin > good-bad.bin
elf_offloading warning.elf ET_EXEC SHT_LLVM_OFFLOADING good-bad.bin
# (10 ff b0 ad: one byte off the magic 10 ff 10 ad).
printf '\020\377\260\255' > not-magic.bin
elf_offloading failure.elf ET_EXEC SHT_LLVM_OFFLOADING not-magic.bin
cat > coff.yaml <<EOF
--- !COFF
header:
  Machine:         IMAGE_FILE_MACHINE_AMD64
  Characteristics: []
sections:
  - Name:            .rdata
    Characteristics: []
  - Name:            .llvm.offloading
    Characteristics: [ IMAGE_SCN_LNK_REMOVE, IMAGE_SCN_MEM_DISCARDABLE ]
    Alignment:       8
    SectionData:     $(hex "$out/binary.bin")
symbols:
EOF
"$Y2O" coff.yaml -o "$out/binary.coff"

# A zero-size .llvm.offloading section whose offset lies past the end of
# the file (content-failure.test's shape).
cat > content-failure.yaml <<'EOF'
--- !ELF
FileHeader:
  Class: ELFCLASS64
  Data:  ELFDATA2LSB
  Type:  ET_EXEC
Sections:
  - Name:  .llvm.offloading
    Type:  SHT_PROGBITS
    Flags: [ SHF_EXCLUDE ]
    ShOffset: 0x77777
    AddressAlign: 8
EOF
"$Y2O" content-failure.yaml -o "$out/content-failure.elf"

# Nested OffloadBinaries: two images (triples x-y-z and a-b-c) that each
# hold the same OffloadBinary of two empty bitcode images; and an image that
# holds only the OffloadBinary magic.
"$PACKAGER" -o inner.bin \
  --image=file=e.bc,triple=x-y-z,arch=arch1,kind=openmp \
  --image=file=e.bc,triple=x-y-z,arch=arch2,kind=openmp
cp inner.bin inner.o
"$PACKAGER" -o "$out/nested.bin" \
  --image=file=inner.o,triple=x-y-z,arch=none,kind=openmp \
  --image=file=inner.o,triple=a-b-c,arch=none,kind=openmp
printf '\020\377\020\255' > magic.o
"$PACKAGER" -o "$out/nested-empty.bin" \
  --image=file=magic.o,triple=x-y-z,arch=none,kind=openmp

# Not ELF nor COFF: a Mach-O object.
cat > macho.yaml <<'EOF'
--- !mach-o
FileHeader:
  magic:      0xFEEDFACE
  cputype:    0x00000007
  cpusubtype: 0x00000003
  filetype:   0x00000001
  ncmds:      0
  sizeofcmds: 0
  flags:      0x00002000
EOF
"$Y2O" macho.yaml -o "$out/non-elf.macho"

# What LLVM 22 says about each.
inputs=(fatbin.elf fatbin-compress.elf fatbin-arch-name.elf offloading-fail.elf
  fatbin.coff fatbin-compress.coff binary.bin elf-exec.elf elf-dyn.so elf-rel.o
  alignment.elf warning.elf failure.elf binary.coff content-failure.elf
  nested.bin nested-empty.bin non-elf.macho)
for f in "${inputs[@]}"; do
  case $f in
  *.bin) ;; # llvm-readobj 22 crashes on a bare OffloadBinary: objects only
  *)
    set +e
    "$READOBJ" --offloading "$out/$f" > ro.out 2> ro.err; rc=$?
    set -e
    { echo "exit $rc"; echo "-- stdout"; sed "s|$out/$f|FILE|g" ro.out
      echo "-- stderr"; sed "s|$out/$f|FILE|g; s|$llvm/||g" ro.err; } > "$out/$f.readobj" ;;
  esac
  rm -rf dump && mkdir dump && cp "$out/$f" dump/FILE
  set +e
  (cd dump && "$OBJDUMP" --offloading FILE > ../od.out 2> ../od.err); rc=$?
  set -e
  { echo "exit $rc"; echo "-- stdout"; cat od.out; echo "-- stderr"; sed "s|$llvm/||g" od.err
    echo "-- files"
    (cd dump && for x in $(ls | LC_ALL=C sort); do
      [ "$x" = FILE ] && continue
      case $f in
      # LLVM 22's objdump reads an entry of a compressed bundle at its
      # inflated offset in the file: the bytes vary from run to run.
      *compress*) echo "$x $(stat -c %s "$x") unreliable" ;;
      *) echo "$x $(stat -c %s "$x") $(sha256sum < "$x" | cut -d' ' -f1)" ;;
      esac
    done); } > "$out/$f.objdump"
done
# What llvm-offload-binary extracts from each OffloadBinary image objdump
# listed, chosen by triple and arch.
for f in binary.bin nested.bin nested-empty.bin elf-exec.elf; do
  awk '/^arch /{a=$2} /^triple /{print $2, a}' "$out/$f.objdump" | sort -u |
  while read -r triple arch; do
    rm -f x.out
    set +e
    "$PACKAGER" "$out/$f" --image=triple="$triple",arch="$arch",file=x.out > pk.out 2>&1; rc=$?
    set -e
    if [ -f x.out ]; then
      echo "$triple $arch exit $rc $(stat -c %s x.out) $(sha256sum < x.out | cut -d' ' -f1)"
    else
      echo "$triple $arch exit $rc none"
    fi
  done > "$out/$f.offload-binary"
done
