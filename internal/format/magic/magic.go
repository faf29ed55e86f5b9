// Package magic tells what kind of file a run of bytes is, by its first
// bytes, the way LLVM 22's identify_magic does. Every tool in this module
// decides "is this an object, an archive, bitcode, an OffloadBinary?" here,
// so that they all agree with each other and with LLVM.
//
// Identify looks at a prefix only. IdentifyReader also follows the one
// pointer LLVM follows (a PE image's signature offset), so it needs the
// whole input.
package magic

import (
	"encoding/binary"
	"io"
)

// A Kind is what a file is, as far as its first bytes tell.
type Kind int

// The kinds LLVM's identify_magic distinguishes that matter to offload
// tools. Unknown covers everything else (text, empty files, short files).
const (
	Unknown Kind = iota
	Bitcode
	Archive // GNU, BSD or thin "!<arch>\n" / "!<thin>\n", or AIX big "<bigaf>\n"
	ELFRelocatable
	ELFExecutable
	ELFShared
	ELFCore
	ELFOther // an ELF file of another e_type
	COFFObject
	COFFImportLibrary
	COFFClGlObject // an object compiled with cl.exe /GL (LTO)
	PEExecutable
	MachO
	MachOUniversal
	Wasm
	XCOFF
	GOFF
	SPIRV
	OffloadBinary    // 0x10FF10AD
	OffloadBundle    // "__CLANG_OFFLOAD_BUNDLE__" (binary bundle)
	CompressedBundle // "CCOB"
	CUDAFatBinary    // 0xBA55ED50
	ClangAST         // "CPCH"
	WindowsResource
	DXContainer // "DXBC": a DirectX container
)

var names = [...]string{
	Unknown:           "unknown",
	Bitcode:           "LLVM bitcode",
	Archive:           "archive",
	ELFRelocatable:    "ELF relocatable",
	ELFExecutable:     "ELF executable",
	ELFShared:         "ELF shared object",
	ELFCore:           "ELF core",
	ELFOther:          "ELF",
	COFFObject:        "COFF object",
	COFFImportLibrary: "COFF import library",
	COFFClGlObject:    "COFF /GL object",
	PEExecutable:      "PE executable",
	MachO:             "Mach-O",
	MachOUniversal:    "Mach-O universal binary",
	Wasm:              "WebAssembly",
	XCOFF:             "XCOFF",
	GOFF:              "GOFF",
	SPIRV:             "SPIR-V",
	OffloadBinary:     "OffloadBinary",
	OffloadBundle:     "offload bundle",
	CompressedBundle:  "compressed offload bundle",
	CUDAFatBinary:     "CUDA fat binary",
	ClangAST:          "clang AST",
	WindowsResource:   "Windows resource",
	DXContainer:       "DXContainer",
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(names) {
		return names[k]
	}
	return "unknown"
}

// IsELF reports whether k is any kind of ELF file.
func (k Kind) IsELF() bool { return k >= ELFRelocatable && k <= ELFOther }

// IsObject reports whether LLVM 22's createBinary makes an object file of
// this kind, when the file's structure checks out (as opposed to an
// archive, bitcode or a non-object format): ELF (every e_type), COFF
// objects and PE images, Mach-O, Wasm, XCOFF and DXContainer. GOFF is not
// among them: LLVM 22 identifies it but reads no GOFF file (not even
// clang-22's own output) as an object ("The file was not recognized as a
// valid object file").
func (k Kind) IsObject() bool {
	switch k {
	case ELFRelocatable, ELFExecutable, ELFShared, ELFCore, ELFOther,
		COFFObject, PEExecutable, MachO, Wasm, XCOFF, DXContainer:
		return true
	}
	return false
}

// Len is the longest prefix Identify looks at: the end of a COFF big-object
// header's class ID.
const Len = 32

// Magic numbers and signatures, as stored.
const (
	OffloadBinaryMagic = "\x10\xff\x10\xad"
	BundleMagic        = "__CLANG_OFFLOAD_BUNDLE__"
	CCOBMagic          = "CCOB"
	ELFMagic           = "\x7fELF"
	ArchiveMagic       = "!<arch>\n"
	ThinArchiveMagic   = "!<thin>\n"
	BigArchiveMagic    = "<bigaf>\n"
	BitcodeMagic       = "BC\xc0\xde"
	BitcodeWrapper     = "\xde\xc0\x17\x0b"
	DXContainerMagic   = "DXBC"
	clGlClassID        = "\x38\xfe\xb3\x0c\xa5\xd9\xab\x4d\xac\x9b\xd6\xb6\x22\x26\x53\xc2"
	winResMagic        = "\x00\x00\x00\x00\x20\x00\x00\x00\xff\xff\x00\x00\xff\xff\x00\x00"
)

// BigObjClassID is the class ID at offset 12 of a COFF big-object header
// (after 00 00 FF FF, a version and a machine).
const BigObjClassID = "\xc7\xa1\xba\xd1\xee\xba\xa9\x4b\xaf\x20\xfa\xf6\x6a\xa4\xdc\xb8"

// Identify classifies head, the first bytes of a file (at least Len of
// them when the file has that many). A PE image is recognised only when
// its signature lies within head; use IdentifyReader for files.
func Identify(head []byte) Kind {
	if len(head) < 4 {
		return Unknown
	}
	// Comparisons of string(head[...]) with constants do not copy head.
	has := func(p string) bool { return len(head) >= len(p) && string(head[:len(p)]) == p }
	switch head[0] {
	case 0x00:
		if has("\x00\x00\xff\xff") {
			return anonObjectKind(head)
		}
		if has(winResMagic) {
			return WindowsResource
		}
		if head[1] == 0 { // COFF, machine type unknown (0)
			return COFFObject
		}
		if has("\x00asm") {
			return Wasm
		}
	case 0x01:
		if has("\x01\xdf") || has("\x01\xf7") {
			return XCOFF
		}
	case 0x03:
		if has("\x03\xf0\x00") {
			return GOFF
		}
		if has("\x03\x02\x23\x07") {
			return SPIRV
		}
	case 0x07:
		if has("\x07\x23\x02\x03") {
			return SPIRV
		}
	case 0x10:
		if has(OffloadBinaryMagic) {
			return OffloadBinary
		}
	case 0xde:
		if has(BitcodeWrapper) {
			return Bitcode
		}
	case 'B':
		if has(BitcodeMagic) {
			return Bitcode
		}
	case 'C':
		if has(CCOBMagic) {
			return CompressedBundle
		}
		if has("CPCH") {
			return ClangAST
		}
	case '_':
		// LLVM compares sizeof("__CLANG_OFFLOAD_BUNDLE__"), its NUL
		// included, with the size: the magic alone is not a bundle.
		if has(BundleMagic) && len(head) > len(BundleMagic) {
			return OffloadBundle
		}
	case 'D':
		if has(DXContainerMagic) {
			return DXContainer
		}
	case '!':
		if has(ArchiveMagic) || has(ThinArchiveMagic) {
			return Archive
		}
	case '<':
		if has(BigArchiveMagic) {
			return Archive
		}
	case 0x7f:
		if has(ELFMagic) && len(head) >= 18 {
			return elfKind(head)
		}
	case 0xca:
		// Mach-O universal binaries (32- and 64-bit) share their magic
		// with Java class files; LLVM tells them apart by the low byte of
		// the architecture count alone, as a signed char: below 43
		// (which takes in 0 and 0x80-0xFF).
		if (has("\xca\xfe\xba\xbe") || has("\xca\xfe\xba\xbf")) && len(head) >= 8 && int8(head[7]) < 43 {
			return MachOUniversal
		}
	case 0xfe, 0xce, 0xcf:
		if machOFileType(head) != 0 {
			return MachO
		}
	case 'M':
		if has("MZ") && len(head) >= 0x40 {
			off := binary.LittleEndian.Uint32(head[0x3c:])
			if uint64(off)+4 <= uint64(len(head)) && string(head[off:off+4]) == "PE\x00\x00" {
				return PEExecutable
			}
		}
	}
	if isCOFFMachine(head[0], head[1]) {
		return COFFObject
	}
	if has("\x50\xed\x55\xba") {
		return CUDAFatBinary
	}
	return Unknown
}

// anonObjectKind classifies a head starting 00 00 FF FF: a big object,
// cl.exe's LTO object or a short import library.
func anonObjectKind(head []byte) Kind {
	if len(head) < 28 {
		return COFFImportLibrary
	}
	switch string(head[12:28]) {
	case BigObjClassID:
		return COFFObject
	case clGlClassID:
		return COFFClGlObject
	}
	return COFFImportLibrary
}

// elfKind classifies an ELF head (at least 18 bytes) by its e_type.
func elfKind(head []byte) Kind {
	hi, lo := head[17], head[16]
	if head[5] == 2 { // big-endian
		hi, lo = lo, hi
	}
	if hi != 0 {
		return ELFOther
	}
	switch lo {
	case 1:
		return ELFRelocatable
	case 2:
		return ELFExecutable
	case 3:
		return ELFShared
	case 4:
		return ELFCore
	}
	return ELFOther
}

// machOFileType returns the file type of a thin Mach-O header (1 for an
// object, 2 for an executable, ... 12 for a file set), or 0 when head is
// not a Mach-O file to LLVM 22: no Mach-O magic, a head shorter than the
// header (28 bytes, 32 for 64-bit), or a file type outside 1-12.
//
// LLVM assembles the big-endian file type as
// b[12]<<24 | b[13]<<12 | b[14]<<8 | b[15] from signed chars into a
// uint16 (the little-endian one likewise from b[15] down to b[12]): only
// the low nibble of the second byte counts, the first not at all, and a
// last byte of 0x80 or more sets the upper eight bits. This reproduces it.
func machOFileType(head []byte) int {
	if len(head) < 4 {
		return 0
	}
	var b1, b2, b3 byte // the file type's bytes but the most significant
	switch string(head[:4]) {
	case "\xfe\xed\xfa\xce", "\xfe\xed\xfa\xcf":
		if len(head) < machOHeaderSize(head[3]) {
			return 0
		}
		b1, b2, b3 = head[13], head[14], head[15]
	case "\xce\xfa\xed\xfe", "\xcf\xfa\xed\xfe":
		if len(head) < machOHeaderSize(head[0]) {
			return 0
		}
		b1, b2, b3 = head[14], head[13], head[12]
	default:
		return 0
	}
	t := uint16(int32(int8(b1))<<12) | uint16(int32(int8(b2))<<8) | uint16(int32(int8(b3)))
	if t >= 1 && t <= 12 {
		return int(t)
	}
	return 0
}

// machOHeaderSize is the size of a Mach-O header whose magic ends (or, byte
// swapped, starts) with c: 0xce for 32-bit, 0xcf for 64-bit.
func machOHeaderSize(c byte) int {
	if c == 0xce {
		return 28
	}
	return 32
}

// IsBigObj reports whether head starts with a COFF big-object header's
// identification: 00 00 FF FF and, at offset 12, BigObjClassID. LLVM reads
// such a file as a big object only if it is also at least 56 bytes long
// and of version 2 or more; otherwise as a COFF object with the section
// count 0xFFFF of an import library's header, that is without sections.
func IsBigObj(head []byte) bool {
	return len(head) >= 28 && string(head[:4]) == "\x00\x00\xff\xff" && string(head[12:28]) == BigObjClassID
}

// isCOFFMachine reports whether a file starting with b0 b1 is a COFF object
// to LLVM 22: the machine types its identify_magic lists (probed against
// the 22.1.8 binary). Other machine numbers, valid as they may be to
// Microsoft's tools, are not objects to LLVM.
func isCOFFMachine(b0, b1 byte) bool {
	switch b0 {
	case 0x4c, 0xc4, // i386, ARMNT
		0xf0, 0x83, 0x84, 0x66, 0x50: // PowerPC, Alpha, Alpha64, MIPS R4000, mc68k
		return b1 == 0x01 || b1 == 0x02
	case 0x90, 0x68: // PA-RISC, mc68k
		return b1 == 0x02
	case 0x64: // x86-64, ARM64
		return b1 == 0x86 || b1 == 0xaa
	case 0x41, 0x4e: // ARM64EC, ARM64X
		return b1 == 0xa6
	}
	return false
}

// IdentifyReader classifies the size bytes of r, reading the first Len
// bytes and, for an MS-DOS stub, the PE signature it points to.
func IdentifyReader(r io.ReaderAt, size int64) (Kind, error) {
	var buf [Len]byte
	head := buf[:max(0, min(size, Len))]
	if err := readFull(r, head, 0); err != nil {
		return Unknown, err
	}
	k := Identify(head)
	if k == Unknown && len(head) >= 2 && head[0] == 'M' && head[1] == 'Z' && size >= 0x40 {
		var p [4]byte
		if err := readFull(r, p[:], 0x3c); err != nil {
			return Unknown, err
		}
		off := int64(binary.LittleEndian.Uint32(p[:]))
		if off+4 <= size {
			if err := readFull(r, p[:], off); err != nil {
				return Unknown, err
			}
			if string(p[:]) == "PE\x00\x00" {
				return PEExecutable, nil
			}
		}
	}
	return k, nil
}

// readFull fills b from r at off. A reader may return io.EOF along with the
// last bytes of its input (io.ReaderAt allows it): that is no error here; a
// short read is.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	switch {
	case n == len(b):
		return nil
	case err == nil || err == io.EOF:
		return io.ErrUnexpectedEOF
	}
	return err
}
