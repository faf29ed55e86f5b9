package objfmt

import (
	"encoding/binary"
	"io"
)

// IsELF reports whether r is an ELF file that LLVM's object reader accepts
// (and that this package's writer handles): a full header with a known class
// and byte order, and a section header table of the right entry size inside
// the file. Section contents are not checked.
func IsELF(r io.ReaderAt, size int64) bool {
	var id [16]byte
	if size < 16 {
		return false
	}
	if _, err := r.ReadAt(id[:], 0); err != nil {
		return false
	}
	is64, bo, ok := elfIdent(id[:])
	if !ok {
		return false
	}
	f := &elfFile{r: r, size: size, is64: is64, bo: bo}
	eh, err := f.readAt(0, uint64(f.ehdrSize()), "ELF header")
	if err != nil {
		return false
	}
	var shoff uint64
	var shentsize, shnum int
	if is64 {
		shoff = bo.Uint64(eh[40:])
		shentsize, shnum = int(bo.Uint16(eh[58:])), int(bo.Uint16(eh[60:]))
	} else {
		shoff = uint64(bo.Uint32(eh[32:]))
		shentsize, shnum = int(bo.Uint16(eh[46:])), int(bo.Uint16(eh[48:]))
	}
	if shoff == 0 {
		return true
	}
	shsz := f.shdrSize()
	if shentsize != shsz {
		return false
	}
	first, err := f.readAt(shoff, uint64(shsz), "section header table")
	if err != nil {
		return false
	}
	n := uint64(shnum)
	if n == 0 {
		n = f.decodeShdr(first).size
	}
	return n <= (uint64(size)-shoff)/uint64(shsz)
}

// IsObject reports whether LLVM's createBinary would give an ObjectFile for
// these bytes, which is when clang-offload-bundler uses the object format for
// -type=o: ELF (see IsELF), COFF objects and PE images, thin Mach-O, Wasm,
// XCOFF and GOFF. Bitcode, archives, universal Mach-O, text, empty and
// truncated files are not objects.
//
// Formats other than ELF get a structural check of their headers only.
func IsObject(r io.ReaderAt, size int64) bool {
	var m [64]byte
	n, _ := r.ReadAt(m[:min(size, int64(len(m)))], 0)
	b := m[:n]
	if len(b) >= 4 && string(b[:4]) == "\x7fELF" {
		return IsELF(r, size)
	}
	switch {
	case len(b) >= 4 && (string(b[:4]) == "\xfe\xed\xfa\xce" || string(b[:4]) == "\xce\xfa\xed\xfe"):
		return machOOK(r, size, b, 28)
	case len(b) >= 4 && (string(b[:4]) == "\xfe\xed\xfa\xcf" || string(b[:4]) == "\xcf\xfa\xed\xfe"):
		return machOOK(r, size, b, 32)
	case len(b) >= 8 && string(b[:4]) == "\x00asm":
		return binary.LittleEndian.Uint32(b[4:]) == 1 && wasmSections(r, size, nil)
	case len(b) >= 2 && (b[0] == 0x01 && (b[1] == 0xdf || b[1] == 0xf7)):
		hdr := int64(20)
		if b[1] == 0xf7 {
			hdr = 24
		}
		return size >= hdr
	case len(b) >= 3 && b[0] == 0x03 && b[1] == 0xf0 && b[2] == 0x00:
		return size%80 == 0
	case len(b) >= 32 && string(b[:4]) == "\x00\x00\xff\xff":
		// Big-object COFF; other files with this start are import
		// libraries, which are not object files.
		if binary.LittleEndian.Uint16(b[4:]) < 2 || string(b[12:28]) != bigObjMagic {
			return false
		}
		return bigObjOK(r, size)
	case len(b) >= 2 && string(b[:2]) == "MZ":
		return peOK(r, size)
	case len(b) >= 2 && isCOFFMachine(b[0], b[1]):
		return coffOK(r, size, 0)
	}
	return false
}

func isCOFFMachine(b0, b1 byte) bool {
	switch {
	case b0 == 0x4c && b1 == 0x01, // i386
		b0 == 0xc4 && b1 == 0x01,                 // ARMNT
		b0 == 0x64 && (b1 == 0x86 || b1 == 0xaa), // x86-64, ARM64
		b0 == 0x4e && b1 == 0xa6,                 // ARM64EC
		b0 == 0x41 && b1 == 0xa6,                 // ARM64X
		(b0 == 0x90 || b0 == 0x68 || b0 == 0x4c || b0 == 0xc4) && b1 == 0x02:
		return true
	}
	return false
}

// coffOK checks a COFF file header at off and that its section table and
// symbol table lie within the file.
func coffOK(r io.ReaderAt, size, off int64) bool {
	var h [20]byte
	if off+20 > size {
		return false
	}
	if _, err := r.ReadAt(h[:], off); err != nil {
		return false
	}
	nsec := int64(binary.LittleEndian.Uint16(h[2:]))
	symptr := int64(binary.LittleEndian.Uint32(h[8:]))
	nsym := int64(binary.LittleEndian.Uint32(h[12:]))
	opt := int64(binary.LittleEndian.Uint16(h[16:]))
	if off+20+opt+nsec*40 > size {
		return false
	}
	if symptr != 0 && symptr+nsym*18 > size {
		return false
	}
	return true
}

func peOK(r io.ReaderAt, size int64) bool {
	var b [4]byte
	if size < 0x40 {
		return false
	}
	if _, err := r.ReadAt(b[:], 0x3c); err != nil {
		return false
	}
	off := int64(binary.LittleEndian.Uint32(b[:]))
	if off+4 > size {
		return false
	}
	if _, err := r.ReadAt(b[:], off); err != nil || string(b[:]) != "PE\x00\x00" {
		return false
	}
	return coffOK(r, size, off+4)
}

// machOOK checks that a thin Mach-O header and its load commands fit.
func machOOK(r io.ReaderAt, size int64, b []byte, hdr int64) bool {
	if size < hdr || int64(len(b)) < 24 {
		return false
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if b[0] == 0xfe {
		bo = binary.BigEndian
	}
	sizeofcmds := int64(bo.Uint32(b[20:]))
	return hdr+sizeofcmds <= size
}

// bigObjMagic is the class ID of a big-object COFF header.
const bigObjMagic = "\xc7\xa1\xba\xd1\xee\xba\xa9\x4b\xaf\x20\xfa\xf6\x6a\xa4\xdc\xb8"

// bigObjOK checks that a big-object COFF section table and symbol table fit.
func bigObjOK(r io.ReaderAt, size int64) bool {
	var h [56]byte
	if size < 56 {
		return false
	}
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return false
	}
	nsec := int64(binary.LittleEndian.Uint32(h[44:]))
	symptr := int64(binary.LittleEndian.Uint32(h[48:]))
	nsym := int64(binary.LittleEndian.Uint32(h[52:]))
	if 56+nsec*40 > size {
		return false
	}
	return symptr == 0 || symptr+nsym*20 <= size
}
