package prune

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/objfile"
)

// ELF64 little-endian layout: the only kind rewritten (x86-64, AArch64).
const (
	ehdrSize  = 64
	phdrSize  = 56
	shdrSize  = 64
	symSize   = 24
	relaSize  = 24
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
		return nil, refuse("only 64-bit little-endian ELF files are rewritten (class %d, data %d)", o.Ident[4], o.Ident[5])
	}
	if o.Machine != emX86_64 && o.Machine != emAArch64 {
		return nil, refuse("ELF machine %d: only x86-64 and AArch64 files are rewritten", o.Machine)
	}
	f := &elfFile{r: r, size: size, typ: o.Type, machine: o.Machine, phoff: o.Phoff, shoff: o.Shoff}
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
			err = ps.packedRelocations(s)
		case shtRel:
			if s.size > 0 {
				return nil, refuse("REL relocations (%s) are not rewritten", s.name)
			}
		case shtRela:
			if f.typ == etRel {
				continue
			}
			err = ps.relocations(s)
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

// A rela is an Elf64_Rela entry, j bytes into its section.
type rela struct {
	j                   int
	place, info, addend uint64
}

// relocations finds the pointers among the relocations of SHT_RELA section
// s.
func (ps *pointerScan) relocations(s shdr) error {
	f := ps.f
	data, err := f.read(s.off, s.size, s.name)
	if err != nil {
		return err
	}
	var syms []byte // the symbol table the relocations name
	symtab := func() ([]byte, error) {
		if syms == nil {
			if int(s.link) <= 0 || int(s.link) >= len(f.shdrs) || f.shdrs[s.link].typ != shtSymtab && f.shdrs[s.link].typ != shtDynsym {
				return nil, refuse("%s is linked to section %d, not a symbol table", s.name, s.link)
			}
			st := f.shdrs[s.link]
			if syms, err = f.read(st.off, st.size, st.name); err != nil {
				return nil, err
			}
		}
		return syms, nil
	}
	for j := 0; j+relaSize <= len(data); j += relaSize {
		r := rela{j, le.Uint64(data[j:]), le.Uint64(data[j+8:]), le.Uint64(data[j+16:])}
		if uint32(r.info) != relativeType(f.machine) {
			err = ps.symbolRelocation(s, r, symtab)
		} else {
			err = ps.relativeRelocation(s, r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// symbolRelocation handles a relocation against a symbol of .hip_fatbin: an
// RDC library's wrappers (R_X86_64_64 against the exported
// __hip_fatbin_<id>), or the static relocations kept by --emit-relocs
// (against the section symbol, the addend an offset into the section).
// symtab reads the symbol table the relocations name.
func (ps *pointerScan) symbolRelocation(s shdr, r rela, symtab func() ([]byte, error)) error {
	f, j, info, addend := ps.f, r.j, r.info, r.addend
	sym := info >> 32
	if sym == 0 {
		return nil
	}
	syms, err := symtab()
	if err != nil {
		return err
	}
	if sym >= uint64(len(syms)/symSize) {
		return refuse("relocation %d of %s names symbol %d past its table", j/relaSize, s.name, sym)
	}
	e := syms[sym*symSize:]
	if int(le.Uint16(e[6:])) != ps.fatIdx {
		return nil
	}
	v := le.Uint64(e[8:])
	var b int
	var ok bool
	switch {
	case e[4]&0xf == 3 && uint32(info) == abs64Type(f.machine): // section symbol
		b, ok = ps.starts[ps.lo+addend]
		if ok {
			ps.ptrs = append(ps.ptrs, pointer{s.off + uint64(j) + 16, b, true})
		}
		v += addend
	case e[4]&0xf != 3 && addend == 0: // the symbol is patched
		b, ok = ps.starts[v]
	}
	if !ok {
		return refuse("relocation %d of %s (type %d) points into .hip_fatbin at %#x+%d, not at a bundle start", j/relaSize, s.name, uint32(info), le.Uint64(e[8:]), int64(addend))
	}
	if s.flags&2 != 0 && uint32(info) == abs64Type(f.machine) { // SHF_ALLOC: applied at load time
		ps.relocated[r.place] = true
		ps.toBundle[r.place] = true
		if fo, ok := ps.fileOf(r.place); ok {
			if x, err := f.read(fo, 8, "relocated field"); err == nil && le.Uint64(x) == v {
				ps.ptrs = append(ps.ptrs, pointer{fo, b, false})
			}
		}
	}
	return nil
}

// relativeRelocation handles a RELATIVE relocation, whose addend may be a
// bundle start.
func (ps *pointerScan) relativeRelocation(s shdr, r rela) error {
	j, place, addend := r.j, r.place, r.addend
	ps.relocated[place] = true
	if !ps.inFat(addend) {
		return nil
	}
	b, ok := ps.starts[addend]
	if !ok {
		return refuse("relocation %d of %s points into .hip_fatbin at %#x, not at a bundle start", j/relaSize, s.name, addend)
	}
	ps.ptrs = append(ps.ptrs, pointer{s.off + uint64(j) + 16, b, false})
	ps.toBundle[place] = true
	if fo, ok := ps.fileOf(place); ok {
		if v, err := ps.f.read(fo, 8, "relocated field"); err == nil && le.Uint64(v) == addend {
			ps.ptrs = append(ps.ptrs, pointer{fo, b, false}) // written in place too (GNU ld)
		}
	}
	return nil
}

// forRelr calls fn with each address a SHT_RELR section relocates (packed
// relative relocations: an even word is an address, an odd word a bitmap
// of the 63 words after the last address or bitmap).
func forRelr(data []byte, fn func(place uint64) error) error {
	var next uint64
	for j := 0; j+8 <= len(data); j += 8 {
		w := le.Uint64(data[j:])
		if w&1 == 0 {
			if err := fn(w); err != nil {
				return err
			}
			next = w + 8
			continue
		}
		for i := uint64(0); i < 63; i++ {
			if w>>(i+1)&1 != 0 {
				if err := fn(next + i*8); err != nil {
					return err
				}
			}
		}
		next += 63 * 8
	}
	return nil
}

// packedRelocations handles a SHT_RELR section: each place it relocates
// holds its address in place, which may be a bundle start.
func (ps *pointerScan) packedRelocations(s shdr) error {
	data, err := ps.f.read(s.off, s.size, s.name)
	if err != nil {
		return err
	}
	return forRelr(data, func(place uint64) error {
		ps.relocated[place] = true
		fo, ok := ps.fileOf(place)
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
	data, err := ps.f.read(s.off, s.size, s.name)
	if err != nil {
		return err
	}
	for j := 0; j+symSize <= len(data); j += symSize {
		v := le.Uint64(data[j+8:])
		shndx := int(le.Uint16(data[j+6:]))
		if shndx != ps.fatIdx || !ps.inFat(v) && v != ps.hi {
			continue
		}
		b, ok := ps.starts[v]
		if !ok {
			return refuse("symbol %d of %s (section %d) points into .hip_fatbin at %#x, not at a bundle start", j/symSize, s.name, i, v)
		}
		ps.ptrs = append(ps.ptrs, pointer{s.off + uint64(j) + 8, b, false})
	}
	return nil
}

// wrappers checks the wrappers of .hipFatBinSegment: each must point at a
// bundle start, in place or by a RELATIVE relocation.
func (ps *pointerScan) wrappers() error {
	f := ps.f
	_, seg := f.section(".hipFatBinSegment")
	if seg == nil {
		return refuse("no (single) .hipFatBinSegment section: the pointers to the bundles cannot be accounted for")
	}
	data, err := f.read(seg.off, seg.size, ".hipFatBinSegment")
	if err != nil {
		return err
	}
	if len(data)%24 != 0 || len(data) == 0 {
		return refuse(".hipFatBinSegment is %d bytes, not a whole number of 24-byte wrappers", len(data))
	}
	for j := 0; j < len(data); j += 24 {
		switch m := le.Uint32(data[j:]); m {
		case 0x48495046: // HIPF
		case 0x4B504948:
			return refuse("kpack'd binary (HIPK wrapper): its code objects live in KPAK archives")
		default:
			return refuse("wrapper %d has magic %#x, not HIPF", j/24, m)
		}
		v := le.Uint64(data[j+8:])
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
