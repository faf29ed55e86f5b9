// Package hipfatbin reads what a HIP program's host code keeps about its
// device code: the wrappers of .hipFatBinSegment, which the HIP runtime
// registers, and the load-time relocations that set their addresses. It
// is the one reader of both under package inspect (which lists them) and
// package prune (which moves the bundles they point at).
package hipfatbin

import (
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/objfile"
)

// Wrapper layout and magic numbers.
const (
	WrapperSize = 24
	MagicHIPF   = 0x48495046 // a fat binary in .hip_fatbin
	MagicHIPK   = 0x4B504948 // code kept in a KPAK archive
	// MaxWrappers bounds the wrappers read from one section.
	MaxWrappers = 1 << 20
)

// A Wrapper is one entry of .hipFatBinSegment: magic, version, the address
// of what it points at, and a reserved word (a HIPK wrapper's translation
// unit index).
type Wrapper struct {
	Index   int
	Offset  int64 // file offset of the wrapper
	Magic   uint32
	Version uint32
	// Stored is the address field as the file holds it; Address is what
	// it holds once loaded: lld leaves the field 0 and writes the address
	// as a RELATIVE relocation's addend, GNU ld writes both, and an
	// -fgpu-rdc library's wrapper is a 64-bit absolute relocation against
	// its exported __hip_fatbin_<id> symbol.
	Stored, Address uint64
	// Relocated is set when a load-time relocation sets the address field.
	Relocated bool
	Reserved  uint64
}

// AddressAt is the file offset of the wrapper's address field.
func (w Wrapper) AddressAt() int64 { return w.Offset + 8 }

// Wrappers reads the wrappers of seg, a .hipFatBinSegment section of f,
// and resolves their addresses through the load-time relocations of f
// (LoadRelocations). Wrappers are 64-bit fields; a section that is no whole
// number of them is read up to its last whole one.
func Wrappers(f *objfile.ELF, secs []objfile.Section, seg *objfile.Section) ([]Wrapper, error) {
	ws, err := Decode(f, seg)
	if err != nil || len(ws) == 0 {
		return ws, err
	}
	rel, err := LoadRelocations(f, secs, seg.Addr, seg.Addr+seg.Size)
	if err != nil {
		return nil, err
	}
	for i := range ws {
		if v, ok := rel[seg.Addr+uint64(i*WrapperSize)+8]; ok {
			ws[i].Relocated = true
			if v.Known {
				ws[i].Address = v.Value
			}
		}
	}
	return ws, nil
}

// Decode reads the wrappers of seg as the file stores them (Address is
// Stored, Relocated unset): for a caller that accounts for the
// relocations itself, as prune does, without a second pass over them.
func Decode(f *objfile.ELF, seg *objfile.Section) ([]Wrapper, error) {
	off, n, err := f.Contents(seg)
	if err != nil {
		return nil, err
	}
	count := n / WrapperSize
	if count > MaxWrappers {
		return nil, &objfile.Error{Format: "ELF", Offset: off, Field: seg.Name, Msg: fmt.Sprintf("%d wrappers, more than %d", count, MaxWrappers), Err: fmterr.ErrLimit}
	}
	buf := make([]byte, count*WrapperSize)
	if _, err := f.ReaderAt().ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, err
	}
	bo := f.ByteOrder
	ws := make([]Wrapper, count)
	for i := range ws {
		b := buf[i*WrapperSize:]
		ws[i] = Wrapper{Index: i, Offset: off + int64(i*WrapperSize), Magic: bo.Uint32(b), Version: bo.Uint32(b[4:]),
			Stored: bo.Uint64(b[8:]), Reserved: bo.Uint64(b[16:])}
		ws[i].Address = ws[i].Stored
	}
	return ws, nil
}

// A Load is what a load-time relocation writes at its place.
type Load struct {
	// Value is the address written (RELATIVE: base + addend, shown as the
	// addend; 64-bit absolute: the symbol's value + addend; RELR: the
	// address in place), when Known. A relocation against an undefined
	// symbol, or of another type, is not Known.
	Value uint64
	Known bool
}

// LoadRelocations returns, for every place in [lo, hi) a load-time
// relocation of f sets (SHT_RELA sections of a linked file, SHT_RELR
// sections), what it writes there. A relocatable object's relocations are
// applied at link time, not load time: none.
func LoadRelocations(f *objfile.ELF, secs []objfile.Section, lo, hi uint64) (map[uint64]Load, error) {
	out := map[uint64]Load{}
	if f.Type == 1 { // ET_REL
		return out, nil
	}
	relative, abs64, ok := Types(f.Machine)
	for i := range secs {
		s := &secs[i]
		if _, _, err := f.Contents(s); err != nil {
			continue // a table outside the file sets nothing (prune refuses such files)
		}
		switch s.Type {
		case objfile.SHTRela:
			if s.Flags&2 == 0 { // not SHF_ALLOC: kept by --emit-relocs, not applied at load time
				continue
			}
			var symtab *objfile.Section
			if int(s.Link) > 0 && int(s.Link) < len(secs) {
				symtab = &secs[s.Link]
			}
			err := f.Relocations(s, func(r objfile.Reloc) error {
				if r.Place < lo || r.Place >= hi {
					return nil
				}
				switch {
				case ok && r.Type == relative:
					out[r.Place] = Load{r.Addend, true}
				case ok && r.Type == abs64 && symtab != nil:
					if sym, found := f.SymbolAt(symtab, r.Sym); found && sym.Shndx != 0 && r.Sym != 0 {
						out[r.Place] = Load{sym.Value + r.Addend, true}
					} else {
						out[r.Place] = Load{}
					}
				default:
					out[r.Place] = Load{}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		case objfile.SHTRelr:
			err := f.RelrPlaces(s, func(place uint64) error {
				if place < lo || place >= hi {
					return nil
				}
				l := Load{}
				if fo, found := objfile.AddrOffset(secs, place, 8); found {
					var b [8]byte
					if _, err := f.ReaderAt().ReadAt(b[:], int64(fo)); err == nil {
						l = Load{f.ByteOrder.Uint64(b[:]), true}
					}
				}
				out[place] = l
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Types returns a machine's RELATIVE and 64-bit absolute relocation types
// (x86-64, AArch64, PowerPC64); false for others.
func Types(machine uint16) (relative, abs64 uint32, ok bool) {
	switch machine {
	case 62: // EM_X86_64
		return 8, 1, true
	case 183: // EM_AARCH64
		return 1027, 257, true
	case 21: // EM_PPC64
		return 22, 38, true
	}
	return 0, 0, false
}
