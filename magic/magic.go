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
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(names) {
		return names[k]
	}
	return "unknown"
}

// IsELF reports whether k is any kind of ELF file.
func (k Kind) IsELF() bool { return k >= ELFRelocatable && k <= ELFOther }

// IsObject reports whether LLVM's createBinary makes an object file of this
// kind (as opposed to an archive, bitcode or a non-object format): ELF
// (every e_type), COFF objects and PE images, Mach-O, Wasm, XCOFF and GOFF.
func (k Kind) IsObject() bool {
	switch k {
	case ELFRelocatable, ELFExecutable, ELFShared, ELFCore, ELFOther,
		COFFObject, PEExecutable, MachO, Wasm, XCOFF, GOFF:
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
	bigObjClassID      = "\xc7\xa1\xba\xd1\xee\xba\xa9\x4b\xaf\x20\xfa\xf6\x6a\xa4\xdc\xb8"
	clGlClassID        = "\x38\xfe\xb3\x0c\xa5\xd9\xab\x4d\xac\x9b\xd6\xb6\x22\x26\x53\xc2"
	winResMagic        = "\x00\x00\x00\x00\x20\x00\x00\x00\xff\xff\x00\x00\xff\xff\x00\x00"
)

// Identify classifies head, the first bytes of a file (at least Len of
// them when the file has that many). A PE image is recognised only when
// its signature lies within head; use IdentifyReader for files.
func Identify(head []byte) Kind {
	if len(head) < 4 {
		return Unknown
	}
	s := string(head)
	has := func(p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
	switch head[0] {
	case 0x00:
		if has("\x00\x00\xff\xff") {
			// A big object, cl.exe's LTO object or a short import library.
			if len(head) < 28 {
				return COFFImportLibrary
			}
			switch s[12:28] {
			case bigObjClassID:
				return COFFObject
			case clGlClassID:
				return COFFClGlObject
			}
			return COFFImportLibrary
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
		if has(BundleMagic) {
			return OffloadBundle
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
	case 0xca:
		// Mach-O universal binaries share their magic with Java class
		// files; LLVM tells them apart by the architecture count.
		if has("\xca\xfe\xba\xbe") && len(head) >= 8 && head[4] == 0 && head[5] == 0 && head[6] == 0 && head[7] > 0 && head[7] < 43 {
			return MachOUniversal
		}
		if has("\xca\xfe\xba\xbf") {
			return MachOUniversal
		}
	case 0xfe, 0xce, 0xcf:
		if has("\xfe\xed\xfa\xce") || has("\xfe\xed\xfa\xcf") || has("\xce\xfa\xed\xfe") || has("\xcf\xfa\xed\xfe") {
			return MachO
		}
	case 'M':
		if has("MZ") && len(head) >= 0x40 {
			off := binary.LittleEndian.Uint32(head[0x3c:])
			if uint64(off)+4 <= uint64(len(head)) && s[off:off+4] == "PE\x00\x00" {
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
	n := int(min(size, Len))
	if n < 0 {
		n = 0
	}
	if _, err := r.ReadAt(buf[:n], 0); err != nil && !(err == io.EOF && n == 0) {
		return Unknown, err
	}
	head := buf[:n]
	k := Identify(head)
	if k == Unknown && n >= 2 && head[0] == 'M' && head[1] == 'Z' && size >= 0x40 {
		var p [4]byte
		if _, err := r.ReadAt(p[:], 0x3c); err != nil {
			return Unknown, err
		}
		off := int64(binary.LittleEndian.Uint32(p[:]))
		if off+4 <= size {
			if _, err := r.ReadAt(p[:], off); err != nil {
				return Unknown, err
			}
			if string(p[:]) == "PE\x00\x00" {
				return PEExecutable, nil
			}
		}
	}
	return k, nil
}
