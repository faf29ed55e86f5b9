package offloadbin

// Layout of the OffloadBinary container. Every integer is little-endian and
// every offset counts from the first byte of the binary (its magic).
//
//	v1 (the only version LLVM 22 writes or reads):
//	  header        32 bytes: magic, u32 version, u64 size, u64 entry offset, u64 entry size (40)
//	  entry         40 bytes: u16 image kind, u16 offload kind, u32 flags,
//	                u64 string-entries offset, u64 string-entry count,
//	                u64 image offset, u64 image size
//	  string entries N × 16 bytes: u64 key offset, u64 value offset (NUL-terminated strings)
//	  string table  "\0" then the strings, tail-merged
//	  image         at an 8-aligned offset; the binary's size is rounded up to 8
//
//	v2 (newer LLVM): the u64 at 0x18 counts the entries; string entries are
//	  24 bytes (a u64 value length is added).
//	v3 (newer LLVM): the header grows to 40 bytes with a u64 inflated size;
//	  when it is non-zero, everything after the header is zlib or zstd
//	  compressed.

import "github.com/goffload/goffload/internal/format/magic"

// Magic is the first four bytes of every OffloadBinary: 10 ff 10 ad.
const Magic = magic.OffloadBinaryMagic

// Versions of the format.
const (
	Version1 = 1 // written and read by LLVM 22
	Version2 = 2 // several entries per header (newer LLVM)
	Version3 = 3 // optional compression (newer LLVM)
)

// Alignment is the alignment of images inside a binary and of binary sizes.
const Alignment = 8

const (
	headerSize      = 32 // v1 and v2
	headerSizeV3    = 40
	entrySize       = 40
	stringEntrySize = 16 // v1
	stringEntryV2   = 24 // v2 and v3
	minBinarySizeV1 = headerSize + entrySize

	// Header field offsets.
	offMagic       = 0x00
	offVersion     = 0x04
	offSize        = 0x08
	offEntryOffset = 0x10
	offEntrySize   = 0x18 // v1: entry struct size; v2+: entry count
	offInflated    = 0x20 // v3

	// Entry field offsets.
	entImageKind   = 0x00
	entOffloadKind = 0x02
	entFlags       = 0x04
	entStrOffset   = 0x08
	entNumStrings  = 0x10
	entImageOffset = 0x18
	entImageSize   = 0x20
)

// ImageKind says what an image holds (u16 at entry+0).
type ImageKind uint16

const (
	ImageNone      ImageKind = 0
	ImageObject    ImageKind = 1
	ImageBitcode   ImageKind = 2
	ImageCubin     ImageKind = 3
	ImageFatbinary ImageKind = 4
	ImagePTX       ImageKind = 5
	// ImageSPIRV is known to newer LLVM only; LLVM 22 neither writes nor
	// names it.
	ImageSPIRV ImageKind = 6
)

// Extension returns the file-name extension LLVM 22 uses for the kind
// ("" for none and for kinds it does not know, SPIR-V included).
func (k ImageKind) Extension() string {
	switch k {
	case ImageObject:
		return "o"
	case ImageBitcode:
		return "bc"
	case ImageCubin:
		return "cubin"
	case ImageFatbinary:
		return "fatbin"
	case ImagePTX:
		return "s"
	}
	return ""
}

// String returns the name llvm-objdump --offloading prints for the kind.
func (k ImageKind) String() string {
	switch k {
	case ImageObject:
		return "elf"
	case ImageBitcode:
		return "llvm ir"
	case ImageCubin:
		return "cubin"
	case ImageFatbinary:
		return "fatbinary"
	case ImagePTX:
		return "ptx"
	}
	return "<none>"
}

// ImageKindFromExtension maps a file-name extension (without the dot,
// case-sensitive) to an image kind as LLVM 22 does: "o", "bc", "cubin",
// "fatbin" and "s"; anything else is ImageNone.
func ImageKindFromExtension(ext string) ImageKind {
	switch ext {
	case "o":
		return ImageObject
	case "bc":
		return ImageBitcode
	case "cubin":
		return ImageCubin
	case "fatbin":
		return ImageFatbinary
	case "s":
		return ImagePTX
	}
	return ImageNone
}

// OffloadKind names the programming model that produced an image (u16 at
// entry+2).
type OffloadKind uint16

const (
	OffloadNone   OffloadKind = 0
	OffloadOpenMP OffloadKind = 1
	OffloadCUDA   OffloadKind = 2
	OffloadHIP    OffloadKind = 4
	OffloadSYCL   OffloadKind = 8
)

// ParseOffloadKind maps "openmp", "cuda", "hip" and "sycl" (exactly, case
// sensitive) to their kinds; anything else is OffloadNone.
func ParseOffloadKind(s string) OffloadKind {
	switch s {
	case "openmp":
		return OffloadOpenMP
	case "cuda":
		return OffloadCUDA
	case "hip":
		return OffloadHIP
	case "sycl":
		return OffloadSYCL
	}
	return OffloadNone
}

// String returns the kind's name ("none" for unknown values).
func (k OffloadKind) String() string {
	switch k {
	case OffloadOpenMP:
		return "openmp"
	case OffloadCUDA:
		return "cuda"
	case OffloadHIP:
		return "hip"
	case OffloadSYCL:
		return "sycl"
	}
	return "none"
}

// IsBitcode reports whether b starts with LLVM bitcode magic ("BC\xC0\xDE")
// or the bitcode wrapper magic (DE C0 17 0B).
func IsBitcode(b []byte) bool { return magic.Identify(b) == magic.Bitcode }
