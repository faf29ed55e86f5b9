package objfile

import (
	"bufio"
	"fmt"
	"io"
)

// A Reloc is one entry of a SHT_RELA or SHT_REL section.
type Reloc struct {
	Index  int    // the entry's index in its section
	At     int64  // file offset of the entry
	Place  uint64 // r_offset: the address (or, in an object, section offset) relocated
	Type   uint32
	Sym    uint32
	Addend uint64 // r_addend (RELA); 0 for REL, whose addend is in place
}

// AddendAt is the file offset of a RELA entry's r_addend field.
func (f *ELF) AddendAt(r Reloc) int64 {
	if f.Is64 {
		return r.At + 16
	}
	return r.At + 8
}

// Relocations calls fn for every entry of relocation section s (SHT_RELA
// or SHT_REL), in order, streaming the section; fn's error stops it.
func (f *ELF) Relocations(s *Section, fn func(Reloc) error) error {
	rela := s.Type == SHTRela
	size := 2 * f.WordSize()
	if rela {
		size += f.WordSize()
	}
	off, n, err := f.Contents(s)
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f.r, off, n), 64<<10)
	e := make([]byte, size)
	bo := f.ByteOrder
	for i := 0; int64(i+1)*int64(size) <= n; i++ {
		if _, err := io.ReadFull(br, e); err != nil {
			return fmt.Errorf("objfile: reading relocation %d of section %d: %w", i, s.Index, err)
		}
		r := Reloc{Index: i, At: off + int64(i*size)}
		if f.Is64 {
			info := bo.Uint64(e[8:])
			r.Place, r.Type, r.Sym = bo.Uint64(e), uint32(info), uint32(info>>32)
			if rela {
				r.Addend = bo.Uint64(e[16:])
			}
		} else {
			info := bo.Uint32(e[4:])
			r.Place, r.Type, r.Sym = uint64(bo.Uint32(e)), info&0xff, info>>8
			if rela {
				r.Addend = uint64(int64(int32(bo.Uint32(e[8:]))))
			}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// RelrPlaces calls fn with each address SHT_RELR section s relocates
// (packed relative relocations: an even word is an address, an odd word a
// bitmap of the words after the last address or bitmap).
func (f *ELF) RelrPlaces(s *Section, fn func(place uint64) error) error {
	off, n, err := f.Contents(s)
	if err != nil {
		return err
	}
	w := int64(f.WordSize())
	br := bufio.NewReaderSize(io.NewSectionReader(f.r, off, n), 64<<10)
	b := make([]byte, w)
	bits := uint64(8*w - 1)
	var next uint64
	for j := int64(0); j+w <= n; j += w {
		if _, err := io.ReadFull(br, b); err != nil {
			return err
		}
		var v uint64
		if w == 8 {
			v = f.ByteOrder.Uint64(b)
		} else {
			v = uint64(f.ByteOrder.Uint32(b))
		}
		if v&1 == 0 {
			if err := fn(v); err != nil {
				return err
			}
			next = v + uint64(w)
			continue
		}
		for i := uint64(0); i < bits; i++ {
			if v>>(i+1)&1 != 0 {
				if err := fn(next + i*uint64(w)); err != nil {
					return err
				}
			}
		}
		next += bits * uint64(w)
	}
	return nil
}

// A Symbol is one symbol table entry, as far as relocations need it.
type Symbol struct {
	Index int
	At    int64 // file offset of the entry
	Name  uint32
	Info  byte
	Shndx uint16
	Value uint64
	Size  uint64
}

// SymbolSize is the size of one symbol table entry.
func (f *ELF) SymbolSize() int {
	if f.Is64 {
		return 24
	}
	return 16
}

// ValueAt is the file offset of a symbol's st_value field.
func (f *ELF) ValueAt(s Symbol) int64 {
	if f.Is64 {
		return s.At + 8
	}
	return s.At + 4
}

// SymbolAt reads symbol i of symbol table s; false when i is past it.
func (f *ELF) SymbolAt(s *Section, i uint32) (Symbol, bool) {
	off, n, err := f.Contents(s)
	es := int64(f.SymbolSize())
	if err != nil || (int64(i)+1)*es > n {
		return Symbol{}, false
	}
	b := make([]byte, es)
	if readFull("ELF", f.r, b, off+int64(i)*es) != nil {
		return Symbol{}, false
	}
	return f.decodeSym(b, int(i), off+int64(i)*es), true
}

// Symbols calls fn for every entry of symbol table s, in order, streaming
// it; fn's error stops it.
func (f *ELF) Symbols(s *Section, fn func(Symbol) error) error {
	off, n, err := f.Contents(s)
	if err != nil {
		return err
	}
	es := f.SymbolSize()
	br := bufio.NewReaderSize(io.NewSectionReader(f.r, off, n), 64<<10)
	b := make([]byte, es)
	for i := 0; int64(i+1)*int64(es) <= n; i++ {
		if _, err := io.ReadFull(br, b); err != nil {
			return err
		}
		if err := fn(f.decodeSym(b, i, off+int64(i*es))); err != nil {
			return err
		}
	}
	return nil
}

func (f *ELF) decodeSym(b []byte, i int, at int64) Symbol {
	bo := f.ByteOrder
	if f.Is64 {
		return Symbol{Index: i, At: at, Name: bo.Uint32(b), Info: b[4], Shndx: bo.Uint16(b[6:]), Value: bo.Uint64(b[8:]), Size: bo.Uint64(b[16:])}
	}
	return Symbol{Index: i, At: at, Name: bo.Uint32(b), Value: uint64(bo.Uint32(b[4:])), Size: uint64(bo.Uint32(b[8:])), Info: b[12], Shndx: bo.Uint16(b[14:])}
}

// AddrOffset returns where the n bytes at virtual address addr lie in the
// file: in the first section with contents that holds them.
func AddrOffset(secs []Section, addr, n uint64) (uint64, bool) {
	for _, s := range secs {
		if s.Type != SHTNobits && s.Addr != 0 && addr >= s.Addr && addr+n <= s.Addr+s.Size {
			return s.Offset + (addr - s.Addr), true
		}
	}
	return 0, false
}
