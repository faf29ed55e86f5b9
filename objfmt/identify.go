package objfmt

import (
	"encoding/binary"
	"io"

	"github.com/goffload/goffload/magic"
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

// IsObject reports whether LLVM 22's createBinary would give an ObjectFile
// for these bytes, which is when clang-offload-bundler uses the object
// format for -type=o: files that package magic (LLVM's identify_magic)
// calls objects (ELF, COFF objects and PE images, thin Mach-O, Wasm, XCOFF,
// DXContainer) and whose headers LLVM's reader for the format accepts.
// Bitcode, archives, universal Mach-O, GOFF, text, empty and truncated
// files are not objects.
//
// ELF files get IsELF's checks. COFF objects and PE images get those of
// LLVM's COFFObjectFile::initialize, up to the section table (a symbol
// table LLVM cannot read it ignores; the data directories of a PE image,
// which it follows, are not checked here). Other formats get a check of
// their headers only.
func IsObject(r io.ReaderAt, size int64) bool {
	k, err := magic.IdentifyReader(r, size)
	if err != nil || !k.IsObject() {
		return false
	}
	var m [64]byte
	n, _ := r.ReadAt(m[:min(size, int64(len(m)))], 0)
	b := m[:n]
	switch k {
	case magic.MachO:
		hdr := int64(32)
		if b[0] == 0xce || b[3] == 0xce {
			hdr = 28
		}
		return machOOK(r, size, b, hdr)
	case magic.Wasm:
		return len(b) >= 8 && binary.LittleEndian.Uint32(b[4:]) == 1 && wasmSections(r, size, nil)
	case magic.XCOFF:
		hdr := int64(20)
		if b[1] == 0xf7 {
			hdr = 24
		}
		return size >= hdr
	case magic.COFFObject:
		if magic.IsBigObj(b) {
			return bigObjOK(r, size)
		}
		return coffOK(r, size, 0)
	case magic.PEExecutable:
		return peOK(r, size)
	case magic.DXContainer:
		return dxContainerOK(r, size)
	}
	return k.IsELF() && IsELF(r, size)
}

// coffOK checks a COFF file header at off and that its section table lies
// within the file, as LLVM 22 does for an object (off 0) or a PE image
// (after its signature; pe then points at the optional header). A section
// count of 0xFFFF marks an import library's header to LLVM: it reads no
// further and takes the file for an object without sections. The symbol
// table is not checked: LLVM ignores one it cannot read.
func coffOK(r io.ReaderAt, size, off int64) bool {
	var h [20]byte
	if off+20 > size {
		return false
	}
	if _, err := r.ReadAt(h[:], off); err != nil {
		return false
	}
	nsec := int64(binary.LittleEndian.Uint16(h[2:]))
	opt := int64(binary.LittleEndian.Uint16(h[16:]))
	if nsec == 0xffff {
		return true
	}
	return off+20+opt+nsec*40 <= size
}

// peOK checks a PE image as LLVM 22's COFFObjectFile::initialize does: the
// COFF header after the signature, then (unless the section count marks an
// import library) a PE32 or PE32+ optional header with its data directory,
// then the section table. Where the data directories point is not checked.
// A file too short for an MS-DOS header and a signature (68 bytes) is read
// as a plain COFF object from its first byte.
func peOK(r io.ReaderAt, size int64) bool {
	if size < 0x40+4 {
		return coffOK(r, size, 0)
	}
	var b [4]byte
	if _, err := r.ReadAt(b[:], 0x3c); err != nil {
		return false
	}
	off := int64(binary.LittleEndian.Uint32(b[:])) + 4 // the COFF header
	if off+20 > size {
		return false
	}
	var h [20]byte
	if _, err := r.ReadAt(h[:], off); err != nil {
		return false
	}
	nsec := int64(binary.LittleEndian.Uint16(h[2:]))
	opt := int64(binary.LittleEndian.Uint16(h[16:]))
	if nsec == 0xffff {
		return true
	}
	ph := off + 20 // the optional header
	var hdr, count int64
	switch {
	case ph+96 > size:
		return false // smaller than a PE32 header
	case readU16(r, ph) == 0x10b: // PE32
		hdr, count = 96, 92
	case readU16(r, ph) == 0x20b: // PE32+
		hdr, count = 112, 108
	default:
		return false // "incorrect PE magic"
	}
	if ph+hdr > size {
		return false
	}
	var c [4]byte
	if _, err := r.ReadAt(c[:], ph+count); err != nil {
		return false
	}
	if ph+hdr+8*int64(binary.LittleEndian.Uint32(c[:])) > size {
		return false
	}
	return ph+opt+nsec*40 <= size
}

func readU16(r io.ReaderAt, off int64) uint16 {
	var b [2]byte
	if _, err := r.ReadAt(b[:], off); err != nil {
		return 0
	}
	return binary.LittleEndian.Uint16(b[:])
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

// bigObjOK checks a file that starts as a COFF big object does, as LLVM 22
// reads it: of at least 56 bytes and version 2, a big object whose section
// table must fit (its symbol table, like a COFF object's, need not);
// otherwise a header with the 0xFFFF section count of an import library,
// which LLVM takes for an object without sections.
func bigObjOK(r io.ReaderAt, size int64) bool {
	var h [56]byte
	if size < 56 {
		return true
	}
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return false
	}
	if binary.LittleEndian.Uint16(h[4:]) < 2 {
		return true
	}
	nsec := int64(binary.LittleEndian.Uint32(h[44:]))
	return 56+nsec*40 <= size
}

// dxContainerOK checks a DirectX container as LLVM 22's DXContainer::create
// does: the 32-byte header; a part offset table whose offsets each lie past
// the previous part and leave room for a part's name and size; and, for the
// parts it reads, at most one of each and contents large enough for their
// headers (DXIL 24 bytes, SFI0 8, HASH 20, a signature 8 and its
// parameters; a PSV0 part needs a DXIL part). The contents of PSV0 parts and
// of signature parameters are not checked further.
func dxContainerOK(r io.ReaderAt, size int64) bool {
	var h [32]byte
	if size < 32 {
		return false
	}
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return false
	}
	le := binary.LittleEndian
	parts := uint64(le.Uint32(h[28:]))
	last := uint32(32 + 4*parts) // LLVM keeps it in 32 bits
	seen := map[string]bool{}
	need := map[string]int64{"DXIL": 24, "SFI0": 8, "HASH": 20, "PSV0": 0} // header sizes
	for i := uint64(0); i < parts; i++ {
		var w [4]byte
		at := int64(32 + 4*i)
		if at+4 > size {
			return false
		}
		if _, err := r.ReadAt(w[:], at); err != nil {
			return false
		}
		off := le.Uint32(w[:])
		if off < last || int64(off) >= size || int64(off) >= size-4 || int64(off)+8 > size {
			return false
		}
		var ph [8]byte
		if _, err := r.ReadAt(ph[:], int64(off)); err != nil {
			return false
		}
		name, psize := string(ph[:4]), le.Uint32(ph[4:])
		last = off + psize
		// The part's contents, cut at the end of the file.
		n := min(int64(psize), size-(int64(off)+8))
		switch name {
		case "DXIL", "SFI0", "HASH", "PSV0":
			if seen[name] || n < need[name] {
				return false
			}
			seen[name] = true
		case "ISG1", "OSG1", "PSG1":
			if n < 8 {
				return false
			}
			var sh [8]byte
			if _, err := r.ReadAt(sh[:], int64(off)+8); err != nil {
				return false
			}
			count, first := int64(le.Uint32(sh[:])), int64(le.Uint32(sh[4:]))
			if n < 32*count+first {
				return false
			}
		}
	}
	return !seen["PSV0"] || seen["DXIL"]
}
