package prune

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/hipfatbin"
	"github.com/goffload/goffload/internal/objfile"
)

// ELF64 little-endian layout: the only kind rewritten (x86-64, AArch64).
const (
	ehdrSize  = 64
	phdrSize  = 56
	shdrSize  = 64
	ptLoad    = 1
	ptPhdr    = 6
	shtNobits = 8
	shtRela   = 4
	shtRel    = 9
	shtSymtab = 2
	shtDynsym = 11
	shtRelr   = 19
	etRel     = 1
	etExec    = 2
	etDyn     = 3
	emX86_64  = 62
	emAArch64 = 183
)

var le = binary.LittleEndian

type phdr struct {
	typ, flags                              uint32
	off, vaddr, paddr, filesz, memsz, align uint64
}

type shdr struct {
	name                   string
	nameOff, typ           uint32
	flags, addr, off, size uint64
	link, info             uint32
	align, entsize         uint64
}

type elfFile struct {
	r            io.ReaderAt
	size         int64
	ehdr         [ehdrSize]byte
	typ, machine uint16
	phoff, shoff uint64
	phdrs        []phdr
	shdrs        []shdr
	// o and osecs are the file as package objfile read it: the one
	// decoder of its symbols and relocations.
	o     *objfile.ELF
	osecs []objfile.Section
}

func (f *elfFile) read(off, n uint64, what string) ([]byte, error) {
	if off > uint64(f.size) || n > uint64(f.size)-off {
		return nil, refuse("%s (offset %d, %d bytes) lies past the end of the file (%d bytes)", what, off, n, f.size)
	}
	b := make([]byte, n)
	if _, err := f.r.ReadAt(b, int64(off)); err != nil {
		return nil, err
	}
	return b, nil
}

// parseELF reads the headers of an ELF64 little-endian file of the kinds
// this package rewrites, through package objfile.
func parseELF(r io.ReaderAt, size int64) (*elfFile, error) {
	o, err := objfile.NewELF(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	if !o.Is64 || o.ByteOrder != binary.LittleEndian {
		return nil, unsupported("only 64-bit little-endian ELF files are rewritten (class %d, data %d)", o.Ident[4], o.Ident[5])
	}
	if o.Machine != emX86_64 && o.Machine != emAArch64 {
		return nil, unsupported("ELF machine %d: only x86-64 and AArch64 files are rewritten", o.Machine)
	}
	f := &elfFile{r: r, size: size, typ: o.Type, machine: o.Machine, phoff: o.Phoff, shoff: o.Shoff, o: o}
	if _, err := r.ReadAt(f.ehdr[:], 0); err != nil {
		return nil, err
	}
	if o.Phnum > 0 && o.Phentsize != phdrSize || o.Shnum > 0 && o.Shentsize != shdrSize {
		return nil, refuse("unusual program or section header entry size")
	}
	if f.shoff == 0 || o.Shnum == 0 {
		return nil, refuse("the file has no section headers (stripped): the device code cannot be located safely")
	}
	if o.Shstrndx == objfile.SHNXIndex || o.Shstrndx >= o.Shnum {
		return nil, refuse("extended section numbering is not supported")
	}
	progs, err := o.Progs()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	for _, p := range progs {
		f.phdrs = append(f.phdrs, phdr{p.Type, p.Flags, p.Offset, p.Vaddr, p.Paddr, p.Filesz, p.Memsz, p.Align})
	}
	secs, err := o.Sections()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	if _, err := o.NameSections(secs); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	f.osecs = secs
	for i, x := range secs {
		if x.Type != shtNobits && x.Size > 0 {
			if _, _, err := o.Contents(&secs[i]); err != nil {
				return nil, refuse("section %d lies past the end of the file", i)
			}
		}
		f.shdrs = append(f.shdrs, shdr{name: x.Name, nameOff: x.NameOff, typ: x.Type, flags: x.Flags, addr: x.Addr,
			off: x.Offset, size: x.Size, link: x.Link, info: x.Info, align: x.Align, entsize: x.EntSize})
	}
	return f, nil
}

func (f *elfFile) section(name string) (int, *shdr) {
	idx, n := -1, 0
	for i := range f.shdrs {
		if f.shdrs[i].name == name {
			idx = i
			n++
		}
	}
	if n != 1 {
		return -1, nil
	}
	return idx, &f.shdrs[idx]
}

func encodePhdr(b []byte, p phdr) {
	le.PutUint32(b, p.typ)
	le.PutUint32(b[4:], p.flags)
	le.PutUint64(b[8:], p.off)
	le.PutUint64(b[16:], p.vaddr)
	le.PutUint64(b[24:], p.paddr)
	le.PutUint64(b[32:], p.filesz)
	le.PutUint64(b[40:], p.memsz)
	le.PutUint64(b[48:], p.align)
}

func encodeShdr(b []byte, s shdr) {
	le.PutUint32(b, s.nameOff)
	le.PutUint32(b[4:], s.typ)
	le.PutUint64(b[8:], s.flags)
	le.PutUint64(b[16:], s.addr)
	le.PutUint64(b[24:], s.off)
	le.PutUint64(b[32:], s.size)
	le.PutUint32(b[40:], s.link)
	le.PutUint32(b[44:], s.info)
	le.PutUint64(b[48:], s.align)
	le.PutUint64(b[56:], s.entsize)
}

// A pointer is a field of a linked file that points at a bundle start.
type pointer struct {
	off    uint64 // input offset of the 8-byte field
	bundle int
	secRel bool // the field holds an offset into .hip_fatbin, not an address
}

// relativeType is the relocation type of a RELATIVE relocation (B + A).
func relativeType(machine uint16) uint32 {
	if machine == emAArch64 {
		return 1027
	}
	return 8
}

// abs64Type is the relocation type of a plain 64-bit address (S + A).
func abs64Type(machine uint16) uint32 {
	if machine == emAArch64 {
		return 257
	}
	return 1
}

// pointers finds every pointer to a bundle start in a linked file: the
// .hipFatBinSegment wrappers (in place, and as the addends of RELATIVE
// relocations), other RELATIVE relocations and symbols. starts maps a
// bundle's old address to its index. It refuses anything pointing into
// .hip_fatbin that is not a bundle start.
func (f *elfFile) pointers(fat *shdr, fatIdx int, starts map[uint64]int) ([]pointer, error) {
	ps := &pointerScan{f: f, fatIdx: fatIdx, starts: starts, lo: fat.addr, hi: fat.addr + fat.size,
		relocated: map[uint64]bool{}, toBundle: map[uint64]bool{}}
	for i, s := range f.shdrs {
		var err error
		switch s.typ {
		case shtRelr:
			err = ps.packedRelocations(i, s)
		case shtRel:
			if s.size > 0 {
				return nil, refuse("REL relocations (%s) are not rewritten", s.name)
			}
		case shtRela:
			if f.typ == etRel {
				continue
			}
			err = ps.relocations(i, s)
		case shtSymtab, shtDynsym:
			err = ps.symbols(i, s)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := ps.wrappers(); err != nil {
		return nil, err
	}
	return ps.ptrs, nil
}

// pointerScan is what pointers has found so far.
type pointerScan struct {
	f         *elfFile
	fatIdx    int
	starts    map[uint64]int
	lo, hi    uint64 // the addresses of .hip_fatbin
	ptrs      []pointer
	relocated map[uint64]bool // places with a RELATIVE relocation
	toBundle  map[uint64]bool // places whose RELATIVE addend is a bundle start
}

func (ps *pointerScan) inFat(v uint64) bool { return v >= ps.lo && v < ps.hi }

// fileOf returns where a mapped address lives in the file, for in-place
// fields.
func (ps *pointerScan) fileOf(addr uint64) (uint64, bool) {
	for _, s := range ps.f.shdrs {
		if s.typ != shtNobits && s.addr != 0 && addr >= s.addr && addr+8 <= s.addr+s.size {
			return s.off + (addr - s.addr), true
		}
	}
	return 0, false
}

// relocations finds the pointers among the relocations of SHT_RELA section
// s (section i).
func (ps *pointerScan) relocations(i int, s shdr) error {
	f := ps.f
	var symtab *objfile.Section
	symbols := func() (*objfile.Section, error) {
		if symtab == nil {
			if int(s.link) <= 0 || int(s.link) >= len(f.shdrs) || f.shdrs[s.link].typ != shtSymtab && f.shdrs[s.link].typ != shtDynsym {
				return nil, refuse("%s is linked to section %d, not a symbol table", s.name, s.link)
			}
			symtab = &f.osecs[s.link]
		}
		return symtab, nil
	}
	return f.o.Relocations(&f.osecs[i], func(r objfile.Reloc) error {
		if r.Type != relativeType(f.machine) {
			return ps.symbolRelocation(s, r, symbols)
		}
		return ps.relativeRelocation(s, r)
	})
}

// symbolRelocation handles a relocation against a symbol of .hip_fatbin: an
// RDC library's wrappers (R_X86_64_64 against the exported
// __hip_fatbin_<id>), or the static relocations kept by --emit-relocs
// (against the section symbol, the addend an offset into the section).
// symbols gives the symbol table the relocations name.
func (ps *pointerScan) symbolRelocation(s shdr, r objfile.Reloc, symbols func() (*objfile.Section, error)) error {
	f := ps.f
	if r.Sym == 0 {
		return nil
	}
	symtab, err := symbols()
	if err != nil {
		return err
	}
	sym, ok := f.o.SymbolAt(symtab, r.Sym)
	if !ok {
		return refuse("relocation %d of %s names symbol %d past its table", r.Index, s.name, r.Sym)
	}
	if int(sym.Shndx) != ps.fatIdx {
		return nil
	}
	v := sym.Value
	var b int
	switch {
	case sym.Info&0xf == 3 && r.Type == abs64Type(f.machine): // section symbol
		b, ok = ps.starts[ps.lo+r.Addend]
		if ok {
			ps.ptrs = append(ps.ptrs, pointer{uint64(f.o.AddendAt(r)), b, true})
		}
		v += r.Addend
	case sym.Info&0xf != 3 && r.Addend == 0: // the symbol is patched
		b, ok = ps.starts[v]
	default:
		ok = false
	}
	if !ok {
		return refuse("relocation %d of %s (type %d) points into .hip_fatbin at %#x+%d, not at a bundle start", r.Index, s.name, r.Type, sym.Value, int64(r.Addend))
	}
	if s.flags&2 != 0 && r.Type == abs64Type(f.machine) { // SHF_ALLOC: applied at load time
		ps.relocated[r.Place] = true
		ps.toBundle[r.Place] = true
		if fo, ok := objfile.AddrOffset(f.osecs, r.Place, 8); ok {
			if x, err := f.read(fo, 8, "relocated field"); err == nil && le.Uint64(x) == v {
				ps.ptrs = append(ps.ptrs, pointer{fo, b, false})
			}
		}
	}
	return nil
}

// relativeRelocation handles a RELATIVE relocation, whose addend may be a
// bundle start.
func (ps *pointerScan) relativeRelocation(s shdr, r objfile.Reloc) error {
	ps.relocated[r.Place] = true
	if !ps.inFat(r.Addend) {
		return nil
	}
	b, ok := ps.starts[r.Addend]
	if !ok {
		return refuse("relocation %d of %s points into .hip_fatbin at %#x, not at a bundle start", r.Index, s.name, r.Addend)
	}
	ps.ptrs = append(ps.ptrs, pointer{uint64(ps.f.o.AddendAt(r)), b, false})
	ps.toBundle[r.Place] = true
	if fo, ok := objfile.AddrOffset(ps.f.osecs, r.Place, 8); ok {
		if v, err := ps.f.read(fo, 8, "relocated field"); err == nil && le.Uint64(v) == r.Addend {
			ps.ptrs = append(ps.ptrs, pointer{fo, b, false}) // written in place too (GNU ld)
		}
	}
	return nil
}

// packedRelocations handles SHT_RELR section s (section i): each place it
// relocates holds its address in place, which may be a bundle start.
func (ps *pointerScan) packedRelocations(i int, s shdr) error {
	return ps.f.o.RelrPlaces(&ps.f.osecs[i], func(place uint64) error {
		ps.relocated[place] = true
		fo, ok := objfile.AddrOffset(ps.f.osecs, place, 8)
		if !ok {
			return nil
		}
		v, err := ps.f.read(fo, 8, "relocated field")
		if err != nil || !ps.inFat(le.Uint64(v)) {
			return err
		}
		b, ok := ps.starts[le.Uint64(v)]
		if !ok {
			return refuse("%s relocates the field at %#x, which points into .hip_fatbin at %#x, not at a bundle start", s.name, place, le.Uint64(v))
		}
		ps.ptrs = append(ps.ptrs, pointer{fo, b, false})
		ps.toBundle[place] = true
		return nil
	})
}

// symbols finds the symbols of symbol table s (section i) that point at
// bundles.
func (ps *pointerScan) symbols(i int, s shdr) error {
	return ps.f.o.Symbols(&ps.f.osecs[i], func(sym objfile.Symbol) error {
		v := sym.Value
		if int(sym.Shndx) != ps.fatIdx || !ps.inFat(v) && v != ps.hi {
			return nil
		}
		b, ok := ps.starts[v]
		if !ok {
			return refuse("symbol %d of %s (section %d) points into .hip_fatbin at %#x, not at a bundle start", sym.Index, s.name, i, v)
		}
		ps.ptrs = append(ps.ptrs, pointer{uint64(ps.f.o.ValueAt(sym)), b, false})
		return nil
	})
}

// wrappers checks the wrappers of .hipFatBinSegment: each must point at a
// bundle start, in place or by a RELATIVE relocation.
func (ps *pointerScan) wrappers() error {
	f := ps.f
	segIdx, seg := f.section(".hipFatBinSegment")
	if seg == nil {
		return refuse("no (single) .hipFatBinSegment section: the pointers to the bundles cannot be accounted for")
	}
	if seg.typ == shtNobits {
		return refuse(".hipFatBinSegment holds no data: the pointers to the bundles cannot be accounted for")
	}
	if seg.size%hipfatbin.WrapperSize != 0 || seg.size == 0 {
		return refuse(".hipFatBinSegment is %d bytes, not a whole number of 24-byte wrappers", seg.size)
	}
	ws, err := hipfatbin.Decode(f.o, &f.osecs[segIdx]) // its relocations are in ps already
	if err != nil {
		return err
	}
	for _, w := range ws {
		j := w.Index * hipfatbin.WrapperSize
		switch w.Magic {
		case hipfatbin.MagicHIPF:
		case hipfatbin.MagicHIPK:
			return refuse("kpack'd binary (HIPK wrapper): its code objects live in KPAK archives")
		default:
			return refuse("wrapper %d has magic %#x, not HIPF", w.Index, w.Magic)
		}
		v := w.Stored
		place := seg.addr + uint64(j) + 8
		switch {
		case v == 0 && ps.relocated[place]:
			// lld: the address is the relocation's addend, found above.
			if !ps.toBundle[place] {
				return refuse("wrapper %d: its relocation does not point at a bundle start", j/24)
			}
		case ps.inFat(v):
			b, ok := ps.starts[v]
			if !ok {
				return refuse("wrapper %d points into .hip_fatbin at %#x, not at a bundle start", j/24, v)
			}
			if !ps.relocated[place] {
				ps.ptrs = append(ps.ptrs, pointer{seg.off + uint64(j) + 8, b, false})
			}
		default:
			return refuse("wrapper %d points at %#x, outside .hip_fatbin", j/24, v)
		}
	}
	return nil
}

// hasInterp reports whether the file has a PT_INTERP segment: an executable
// (PIE or not), whose program headers the kernel locates.
func (f *elfFile) hasInterp() bool {
	for _, p := range f.phdrs {
		if p.typ == 3 { // PT_INTERP
			return true
		}
	}
	return false
}
