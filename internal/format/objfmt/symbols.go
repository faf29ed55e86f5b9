package objfmt

import (
	"encoding/binary"
	"fmt"

	"github.com/goffload/goffload/internal/objfile"
)

// symbols is the rewritten symbol table.
type symbols struct {
	index       int     // input index of .symtab
	shndxIndex  int     // input index of its SHT_SYMTAB_SHNDX, or -1
	newSym      []int64 // input symbol index -> output index, -1 if dropped
	local       []bool  // input symbol index -> binding is STB_LOCAL
	changed     bool    // some symbol moved or was dropped
	data        []byte  // new .symtab contents
	shndx       []byte  // new .symtab_shndx contents
	firstGlobal uint32  // sh_info of .symtab
	needXIndex  bool    // some symbol section index needs SHT_SYMTAB_SHNDX
	fill        func()  // writes data and shndx once the string table is final
}

// rewriteSymbols rewrites the kept SHT_SYMTAB, if any, for the new section
// numbering: symbols defined in removed sections are dropped and locals go
// first; their names go to the string table's builder in strtabs. It
// returns nil without a symbol table.
func (f *elfFile) rewriteSymbols(removed []bool, newIdx []uint32, strtabs map[int]*strtabBuilder) (*symbols, error) {
	symIdx, err := f.keptSymtab(removed)
	if err != nil || symIdx < 0 {
		return nil, err
	}
	st := &f.secs[symIdx]
	ent := f.symEntry()
	entsz := ent.size
	if err := f.checkSymtabHeader(symIdx, entsz, removed); err != nil {
		return nil, err
	}
	raw, err := f.readAt(st.off, st.size, "symbol table")
	if err != nil {
		return nil, err
	}
	strSec := &f.secs[st.link]
	strBytes, err := f.readAt(strSec.off, strSec.size, "symbol string table")
	if err != nil {
		return nil, err
	}
	count := int(st.size / entsz)
	nameOffs := make([]uint32, count)
	for i := range nameOffs {
		nameOffs[i] = f.bo.Uint32(raw[uint64(i)*entsz+uint64(ent.nameAt):])
	}
	names, found := objfile.Names(strBytes, nameOffs)
	sy := &symbols{index: symIdx, shndxIndex: -1, newSym: make([]int64, count), local: make([]bool, count)}
	xtab, err := f.readXIndexTable(sy, count, removed)
	if err != nil {
		return nil, err
	}
	b := strtabs[int(st.link)]
	if b == nil {
		b = newStrtab()
		strtabs[int(st.link)] = b
	}
	syms := make([]symInfo, 0, count)
	var order []int // input indices of kept symbols
	for i := 0; i < count; i++ {
		e := raw[uint64(i)*entsz:]
		nameOff := nameOffs[i]
		name := ""
		if nameOff != 0 || len(strBytes) > 0 { // offset 0 is read like any other
			if name = names[i]; !found[i] {
				return nil, formatErr(int64(st.off)+int64(i)*int64(entsz), "symbol %d: name offset %#x is past the end of the string table (%#x bytes)", i, nameOff, len(strBytes))
			}
		}
		sh := f.symbolShndx(e, ent, xtab, i)
		keep := true
		if sh != shnUndef && sh < 0xffff0000 {
			if uint64(sh) >= uint64(len(f.secs)) {
				return nil, formatErr(int64(st.off)+int64(i)*int64(entsz), "symbol %d (%s) has section index %d, but there are only %d sections", i, name, sh, len(f.secs))
			}
			if removed[sh] {
				keep = false
			} else {
				sh = newIdx[sh]
				sy.needXIndex = sy.needXIndex || sh >= shnLoReserve
			}
		}
		if i == 0 {
			keep = true
		}
		sy.newSym[i] = -1
		sy.local[i] = e[ent.infoAt]>>4 == stbLocal
		syms = append(syms, symInfo{name: name, shndx: sh, local: sy.local[i], offset: int(uint64(i) * entsz)})
		if keep {
			order = append(order, i)
			b.add(name)
		} else {
			sy.changed = true
		}
	}
	var sorted []int
	sorted, sy.firstGlobal = localsFirst(syms, order)
	sy.data = make([]byte, uint64(len(sorted))*entsz)
	if sy.shndxIndex >= 0 {
		sy.shndx = make([]byte, 4*len(sorted))
	}
	for j, i := range sorted {
		if i != j {
			sy.changed = true
		}
		sy.newSym[i] = int64(j)
	}
	// Names are filled in by fill (which finishTables calls) once the
	// string table is final.
	sy.fill = func() { sy.encode(raw, syms, sorted, b, ent, f.bo) }
	return sy, nil
}

// keptSymtab returns the index of the one SHT_SYMTAB section that is not
// removed, or -1 if there is none.
func (f *elfFile) keptSymtab(removed []bool) (int, error) {
	symIdx := -1
	for i := 1; i < len(f.secs); i++ {
		if f.secs[i].typ == shtSymtab && !removed[i] {
			if symIdx >= 0 {
				return 0, formatErr(f.shdrOff(i), "found multiple SHT_SYMTAB sections (%d and %d)", symIdx, i)
			}
			symIdx = i
		}
	}
	return symIdx, nil
}

// checkSymtabHeader checks the header of symbol table symIdx, whose entries
// are entsz bytes, and that its string table is kept.
func (f *elfFile) checkSymtabHeader(symIdx int, entsz uint64, removed []bool) error {
	st := &f.secs[symIdx]
	if st.entsize != entsz {
		return formatErr(f.shdrOff(symIdx), "symbol table (section %d) has sh_entsize %d, want %d", symIdx, st.entsize, entsz)
	}
	if st.size%entsz != 0 {
		return formatErr(f.shdrOff(symIdx), "symbol table (section %d) size %d is not a multiple of %d", symIdx, st.size, entsz)
	}
	if st.link == 0 || int64(st.link) >= int64(len(f.secs)) || f.secs[st.link].typ != shtStrtab {
		return formatErr(f.shdrOff(symIdx), "symbol table (section %d) links to section %d, which is not a string table", symIdx, st.link)
	}
	if removed[st.link] {
		return fmt.Errorf("objfmt: cannot remove the symbol string table %q", f.secs[st.link].name)
	}
	return nil
}

// readXIndexTable reads the SHT_SYMTAB_SHNDX section of the symbol table
// sy.index, which has count symbols, and returns its contents (nil without
// one). sy.shndxIndex is set to its index if it is kept.
func (f *elfFile) readXIndexTable(sy *symbols, count int, removed []bool) ([]byte, error) {
	var xtab []byte
	var err error
	for i := 1; i < len(f.secs); i++ {
		if f.secs[i].typ == shtSymtabShndx && int(f.secs[i].link) == sy.index {
			s := &f.secs[i]
			if s.size != uint64(count)*4 {
				return nil, formatErr(f.shdrOff(i), "SHT_SYMTAB_SHNDX section %d has size %d, want %d for %d symbols", i, s.size, count*4, count)
			}
			if xtab, err = f.readAt(s.off, s.size, "extended section index table"); err != nil {
				return nil, err
			}
			if !removed[i] { // else dropped as unneeded; still read for the indices
				sy.shndxIndex = i
			}
		}
	}
	return xtab, nil
}

// symEntry is the layout of a symbol table entry: its size and where
// st_name, st_info and st_shndx are.
type symEntry struct {
	size                    uint64
	nameAt, infoAt, shndxAt int
}

func (f *elfFile) symEntry() symEntry {
	if f.is64 {
		return symEntry{size: sym64Size, nameAt: 0, infoAt: 4, shndxAt: 6} // Elf64_Sym
	}
	return symEntry{size: sym32Size, nameAt: 0, infoAt: 12, shndxAt: 14} // Elf32_Sym
}

// symbolShndx returns the section index of symbol i, whose entry is e: its
// st_shndx, or for SHN_XINDEX its entry in xtab when there is one. Other
// reserved values get the upper 16 bits set, to be kept as they are.
func (f *elfFile) symbolShndx(e []byte, ent symEntry, xtab []byte, i int) uint32 {
	sh := uint32(f.bo.Uint16(e[ent.shndxAt:]))
	if sh == shnXIndex && xtab != nil {
		sh = f.bo.Uint32(xtab[4*i:])
	} else if sh >= shnLoReserve {
		sh |= 0xffff0000 // reserved: keep as is
	}
	return sh
}

// symInfo is an input symbol as the rewrite keeps it.
type symInfo struct {
	name   string
	shndx  uint32 // new section index, or the reserved value
	local  bool
	offset int // in the input symbol table
}

// localsFirst returns the output order of the kept symbols (order, input
// indices) and the number of locals: locals first, each group in input
// order (the null symbol too is placed by its binding).
func localsFirst(syms []symInfo, order []int) ([]int, uint32) {
	sorted := make([]int, 0, len(order))
	for _, i := range order {
		if syms[i].local {
			sorted = append(sorted, i)
		}
	}
	locals := uint32(len(sorted))
	for _, i := range order {
		if !syms[i].local {
			sorted = append(sorted, i)
		}
	}
	return sorted, locals
}

// encode writes sy.data and sy.shndx: the entries of the input symbol table
// raw in the order sorted, each with its name's offset in b and its new
// section index (in sy.shndx when it needs SHN_XINDEX).
func (sy *symbols) encode(raw []byte, syms []symInfo, sorted []int, b *strtabBuilder, ent symEntry, bo binary.ByteOrder) {
	entsz := ent.size
	for j, i := range sorted {
		e := sy.data[uint64(j)*entsz:][:entsz]
		copy(e, raw[syms[i].offset:])
		bo.PutUint32(e[ent.nameAt:], b.offset(syms[i].name))
		sh := syms[i].shndx
		switch {
		case sh >= 0xffff0000:
			bo.PutUint16(e[ent.shndxAt:], uint16(sh))
		case sh >= shnLoReserve:
			bo.PutUint16(e[ent.shndxAt:], shnXIndex)
			if sy.shndx != nil {
				bo.PutUint32(sy.shndx[4*j:], sh)
			}
		default:
			bo.PutUint16(e[ent.shndxAt:], uint16(sh))
		}
	}
}

// rewriteGroup renumbers the members of an SHT_GROUP section (dropping
// removed ones) and its signature symbol.
func (f *elfFile) rewriteGroup(s *outSection, removed []bool, newIdx []uint32, sym *symbols) error {
	if s.size%4 != 0 || s.size == 0 {
		return formatErr(int64(s.off), "SHT_GROUP section %d (%s) has size %d, not a positive multiple of 4", s.old, s.name, s.size)
	}
	raw, err := f.readAt(s.off, s.size, "section group")
	if err != nil {
		return err
	}
	data := raw[:4:4]
	for i := 4; i < len(raw); i += 4 {
		m := f.bo.Uint32(raw[i:])
		if m == 0 || uint64(m) >= uint64(len(f.secs)) {
			return formatErr(int64(s.off)+int64(i), "SHT_GROUP section %d (%s) has member index %d out of range", s.old, s.name, m)
		}
		if removed[m] {
			continue
		}
		data = append(data, 0, 0, 0, 0)
		f.bo.PutUint32(data[len(data)-4:], newIdx[m])
	}
	// llvm-objcopy drops GRP_COMDAT from a group whose signature symbol
	// is local (gcc names some C++ groups by local aliases such as
	// _ZN1SD5Ev), so that linkers do not deduplicate it.
	if sym != nil && uint64(s.info) < uint64(len(sym.local)) && sym.local[s.info] {
		f.bo.PutUint32(data, f.bo.Uint32(data)&^grpComdat)
	}
	s.data, s.size = data, uint64(len(data))
	if sym != nil && sym.changed {
		if uint64(s.info) >= uint64(len(sym.newSym)) || sym.newSym[s.info] < 0 {
			return fmt.Errorf("objfmt: SHT_GROUP section %d (%s) has a signature symbol %d that is invalid or removed", s.old, s.name, s.info)
		}
		s.info = uint32(sym.newSym[s.info])
	}
	return nil
}

// rewriteRelocs renumbers the symbols of a relocation section.
func (f *elfFile) rewriteRelocs(s *outSection, sym *symbols) error {
	if f.machine == emMIPS && f.is64 {
		return fmt.Errorf("%w: renumbering symbols in MIPS64 relocation section %s", ErrUnsupported, s.name)
	}
	ent := uint64(8)
	if f.is64 {
		ent = 16
	}
	if s.typ == shtRela {
		ent += ent / 2
	}
	if s.size%ent != 0 {
		return formatErr(int64(s.off), "relocation section %d (%s) size %d is not a multiple of %d", s.old, s.name, s.size, ent)
	}
	data, err := f.readAt(s.off, s.size, "relocation section")
	if err != nil {
		return err
	}
	for off := uint64(0); off < s.size; off += ent {
		e := data[off:]
		var idx uint64
		if f.is64 {
			idx = f.bo.Uint64(e[8:]) >> 32
		} else {
			idx = uint64(f.bo.Uint32(e[4:]) >> 8)
		}
		if idx >= uint64(len(sym.newSym)) || sym.newSym[idx] < 0 {
			return fmt.Errorf("objfmt: relocation section %s refers to symbol %d, which is invalid or defined in a removed section", s.name, idx)
		}
		n := uint64(sym.newSym[idx])
		if f.is64 {
			f.bo.PutUint64(e[8:], n<<32|f.bo.Uint64(e[8:])&0xffffffff)
		} else {
			f.bo.PutUint32(e[4:], uint32(n)<<8|f.bo.Uint32(e[4:])&0xff)
		}
	}
	s.data = data
	return nil
}
