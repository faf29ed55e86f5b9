package objfmt

import (
	"encoding/binary"
	"io"

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/objfile"
)

// IsELF reports whether r is an ELF file that LLVM's object reader accepts
// (and that this package's writer handles): a full header with a known class
// and byte order, and a section header table of the right entry size inside
// the file. Section contents are not checked.
func IsELF(r io.ReaderAt, size int64) bool {
	f, err := objfile.NewELF(r, size)
	if err != nil {
		return false
	}
	_, err = f.Sections()
	return err == nil
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
	case magic.COFFObject, magic.PEExecutable:
		_, err := objfile.NewCOFF(r, size)
		return err == nil
	case magic.DXContainer:
		return dxContainerOK(r, size)
	}
	return k.IsELF() && IsELF(r, size)
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
