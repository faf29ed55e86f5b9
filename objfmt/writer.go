package objfmt

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// A Section is a section to append with AddSections.
type Section struct {
	Name string
	Data io.ReaderAt // read from offset 0
	Size int64
}

// AddSections writes host with secs appended as sections of type
// SHT_PROGBITS, flags SHF_EXCLUDE, alignment 1, in the given order; the
// output is byte-identical to
//
//	llvm-objcopy --add-section=NAME=FILE --set-section-flags=NAME=readonly,exclude ... -- host out
//
// (host must be an ELF file; see IsELF). Section contents are streamed; when
// a Data and w are both *os.File, large contents are copied by the kernel
// (copy_file_range) through the file offset of Data, which therefore moves.
func AddSections(w io.Writer, host io.ReaderAt, hostSize int64, secs []Section) error {
	f, err := parseELF(host, hostSize)
	if err != nil {
		return err
	}
	for _, s := range secs {
		if s.Size < 0 {
			return fmt.Errorf("objfmt: section %q: negative size %d", s.Name, s.Size)
		}
	}
	return f.rewrite(w, func(*elfSection) bool { return false }, secs)
}

// StripBundles writes in without its bundle sections (every section whose
// name starts with BundlePrefix), byte-identical to
//
//	llvm-objcopy --regex --remove-section=__CLANG_OFFLOAD_BUNDLE__.* -- in out
//
// Relocation sections of removed sections are removed too, and symbols
// defined in them dropped. An object without bundles is still re-laid out,
// as llvm-objcopy does.
func StripBundles(w io.Writer, in io.ReaderAt, size int64) error {
	f, err := parseELF(in, size)
	if err != nil {
		return err
	}
	return f.rewrite(w, func(s *elfSection) bool {
		_, ok := cutPrefix(s.name, BundlePrefix)
		return ok
	}, nil)
}

// outSection is a section of the output file.
type outSection struct {
	elfSection
	old   int    // index in the input, -1 for an added section
	data  []byte // rebuilt contents; nil means copy from src
	src   io.ReaderAt
	srcAt int64
	fixed bool // inside a segment: keeps its offset
}

// rewrite writes f without the sections for which remove is true and with
// add appended, laid out as llvm-objcopy lays it out.
func (f *elfFile) rewrite(w io.Writer, remove func(*elfSection) bool, add []Section) error {
	if len(f.secs) == 0 {
		if f.shstrndx != shnUndef {
			return llvmErr("e_shstrndx field value %d in elf header  is invalid", f.shstrndx)
		}
		// Without a section header table llvm-objcopy writes none
		// either: the contents of added sections follow the segments,
		// unnamed and unlisted.
		f.noShdrs = true
		_, out, _ := f.numberSections(nil, add)
		segs, err := f.segments()
		if err != nil {
			return err
		}
		end, err := f.layout(out, segs)
		if err != nil {
			return err
		}
		return f.write(w, out, segs, end, 0)
	}
	if err := f.objcopyCheck(); err != nil {
		return err
	}
	if err := f.checkSections(); err != nil {
		return err
	}
	n := len(f.secs)
	removed := make([]bool, n)
	for i := 1; i < n; i++ {
		removed[i] = remove(&f.secs[i])
	}
	// Relocation sections of removed sections go too.
	for i := 1; i < n; i++ {
		s := &f.secs[i]
		if (s.typ == shtRel || s.typ == shtRela) && s.info != 0 && int64(s.info) < int64(n) && removed[s.info] {
			removed[i] = true
		}
	}
	// llvm-objcopy refuses relocation sections whose sh_link is not a
	// symbol table it can use; an allocated one (as in static glibc
	// executables, .rela.plt) may only use the dynamic symbol table.
	for i := 1; i < n; i++ {
		s := &f.secs[i]
		if (s.typ != shtRel && s.typ != shtRela) || s.link == 0 {
			continue
		}
		ok := int64(s.link) < int64(n)
		if ok {
			t := f.secs[s.link].typ
			ok = t == shtDynsym || (t == shtSymtab && s.flags&shfAlloc == 0)
		}
		if !ok {
			return llvmErr("Link field value %d in section %s is not a symbol table", s.link, s.name)
		}
	}
	// A group whose members are all removed goes too (and with it the
	// symbols defined in it).
	for i := 1; i < n; i++ {
		s := &f.secs[i]
		if s.typ != shtGroup || removed[i] || s.size <= 4 || s.size%4 != 0 {
			continue
		}
		raw, err := f.readAt(s.off, s.size, "section group")
		if err != nil {
			return err
		}
		empty := true
		for j := 4; j < len(raw); j += 4 {
			if m := f.bo.Uint32(raw[j:]); uint64(m) >= uint64(n) || !removed[m] {
				empty = false
				break
			}
		}
		removed[i] = empty
	}
	if removed[f.shstrndx] {
		return fmt.Errorf("objfmt: cannot remove the section name string table %q", f.secs[f.shstrndx].name)
	}
	var (
		newIdx  []uint32
		out     []*outSection
		shstr   *strtabBuilder
		strtabs map[int]*strtabBuilder
		sym     *symbols
		err     error
	)
	// Twice at most: llvm-objcopy drops an SHT_SYMTAB_SHNDX section that
	// no symbol needs any more, which renumbers the sections after it.
	for range 2 {
		newIdx, out, err = f.numberSections(removed, add)
		if err != nil {
			return err
		}
		shstr = newStrtab()
		strtabs = map[int]*strtabBuilder{f.shstrndx: shstr}
		for _, s := range out[1:] {
			shstr.add(s.name)
		}
		sym, err = f.rewriteSymbols(removed, newIdx, strtabs)
		if err != nil {
			return err
		}
		if sym == nil || sym.shndxIndex < 0 || sym.needXIndex {
			break
		}
		removed[sym.shndxIndex] = true
	}
	// Other non-allocated string tables are rebuilt too, empty.
	for _, s := range out[1:] {
		if s.old >= 0 && s.typ == shtStrtab && s.flags&shfAlloc == 0 && strtabs[s.old] == nil {
			strtabs[s.old] = newStrtab()
		}
	}
	for _, b := range strtabs {
		b.finalize()
	}
	if sym != nil {
		sym.fill()
	}

	// Contents and header fields that depend on the new numbering.
	for _, s := range out[1:] {
		if s.old < 0 {
			continue
		}
		if s.link != 0 && int64(s.link) < int64(n) {
			s.link = newIdx[s.link]
		}
		if (s.typ == shtRel || s.typ == shtRela || s.flags&shfInfoLink != 0) && s.info != 0 && int64(s.info) < int64(n) {
			s.info = newIdx[s.info]
		}
		if b, ok := strtabs[s.old]; ok && s.typ == shtStrtab {
			s.data, s.size = b.data, b.size
			continue
		}
		if sym == nil {
			if s.typ == shtGroup {
				if err := f.rewriteGroup(s, removed, newIdx, nil); err != nil {
					return err
				}
			}
			continue
		}
		switch {
		case s.old == sym.index:
			s.data, s.size, s.info = sym.data, uint64(len(sym.data)), sym.firstGlobal
		case s.old == sym.shndxIndex:
			s.data, s.size = sym.shndx, uint64(len(sym.shndx))
		case s.typ == shtGroup:
			if err := f.rewriteGroup(s, removed, newIdx, sym); err != nil {
				return err
			}
		case !sym.changed:
		case (s.typ == shtRel || s.typ == shtRela) && int(f.secs[s.old].link) == sym.index:
			if err := f.rewriteRelocs(s, sym); err != nil {
				return err
			}
		case s.typ == shtLLVMAddrsig && int(f.secs[s.old].link) == sym.index:
			// llvm-objcopy keeps the old symbol indices and unlinks the
			// table, which tells linkers to ignore it.
			s.link = 0
		}
	}
	for _, s := range out[1:] {
		s.nameOff = shstr.offset(s.name)
	}
	if err := f.setAddedFlags(out, add); err != nil {
		return err
	}

	segs, err := f.segments()
	if err != nil {
		return err
	}
	shoff, err := f.layout(out, segs)
	if err != nil {
		return err
	}
	return f.write(w, out, segs, shoff, newIdx[f.shstrndx])
}

// numberSections lists the output sections (the kept ones, then the added
// ones) and maps input section indices to output ones.
func (f *elfFile) numberSections(removed []bool, add []Section) ([]uint32, []*outSection, error) {
	n := len(f.secs)
	newIdx := make([]uint32, n)
	out := []*outSection{{old: 0}}
	for i := 1; i < n; i++ {
		if removed[i] {
			continue
		}
		newIdx[i] = uint32(len(out))
		s := f.secs[i]
		s.entsize &= 0xffffffff // llvm-objcopy keeps 32 bits of it
		if s.typ == shtSymtab || f.isStaticReloc(&s) {
			// llvm-objcopy aligns these to the word size, whatever
			// the input says.
			s.align = f.wordSize()
		}
		out = append(out, &outSection{elfSection: s, old: i, src: f.r, srcAt: int64(s.off)})
	}
	for _, a := range add {
		out = append(out, &outSection{
			elfSection: elfSection{name: a.Name, typ: shtProgbits, flags: shfExclude, size: uint64(a.Size), align: 1},
			old:        -1, src: a.Data,
		})
	}
	// A kept section must not link to a removed one.
	for _, s := range out[1:] {
		if s.old < 0 || s.link == 0 || int64(s.link) >= int64(n) {
			continue
		}
		if removed[s.link] {
			return nil, nil, fmt.Errorf("objfmt: section %d (%s) links to section %d (%s), which is being removed", s.old, s.name, s.link, f.secs[s.link].name)
		}
	}
	return newIdx, out, nil
}

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

func (f *elfFile) rewriteSymbols(removed []bool, newIdx []uint32, strtabs map[int]*strtabBuilder) (*symbols, error) {
	symIdx := -1
	for i := 1; i < len(f.secs); i++ {
		if f.secs[i].typ == shtSymtab && !removed[i] {
			if symIdx >= 0 {
				return nil, formatErr(f.shdrOff(i), "found multiple SHT_SYMTAB sections (%d and %d)", symIdx, i)
			}
			symIdx = i
		}
	}
	if symIdx < 0 {
		return nil, nil
	}
	st := &f.secs[symIdx]
	entsz := uint64(sym32Size)
	if f.is64 {
		entsz = sym64Size
	}
	if st.entsize != entsz {
		return nil, formatErr(f.shdrOff(symIdx), "symbol table (section %d) has sh_entsize %d, want %d", symIdx, st.entsize, entsz)
	}
	if st.size%entsz != 0 {
		return nil, formatErr(f.shdrOff(symIdx), "symbol table (section %d) size %d is not a multiple of %d", symIdx, st.size, entsz)
	}
	if st.link == 0 || int64(st.link) >= int64(len(f.secs)) || f.secs[st.link].typ != shtStrtab {
		return nil, formatErr(f.shdrOff(symIdx), "symbol table (section %d) links to section %d, which is not a string table", symIdx, st.link)
	}
	if removed[st.link] {
		return nil, fmt.Errorf("objfmt: cannot remove the symbol string table %q", f.secs[st.link].name)
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
	strData := newStrtabReader(strBytes)
	count := int(st.size / entsz)
	sy := &symbols{index: symIdx, shndxIndex: -1, newSym: make([]int64, count), local: make([]bool, count)}
	var xtab []byte
	for i := 1; i < len(f.secs); i++ {
		if f.secs[i].typ == shtSymtabShndx && int(f.secs[i].link) == symIdx {
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
	b := strtabs[int(st.link)]
	if b == nil {
		b = newStrtab()
		strtabs[int(st.link)] = b
	}
	type symInfo struct {
		name   string
		shndx  uint32 // new section index, or the reserved value
		local  bool
		offset int // in raw
	}
	syms := make([]symInfo, 0, count)
	var order []int // input indices of kept symbols
	bo := f.bo
	nameAt, shndxAt, infoAt := 0, 14, 12 // Elf32_Sym
	if f.is64 {
		shndxAt, infoAt = 6, 4 // Elf64_Sym
	}
	for i := 0; i < count; i++ {
		e := raw[uint64(i)*entsz:]
		nameOff := bo.Uint32(e[nameAt:])
		name := ""
		if nameOff != 0 || len(strBytes) > 0 { // offset 0 is read like any other
			if name, err = strData.at(nameOff); err != nil {
				return nil, formatErr(int64(st.off)+int64(i)*int64(entsz), "symbol %d: name offset %#x is past the end of the string table (%#x bytes)", i, nameOff, len(strBytes))
			}
		}
		sh := uint32(bo.Uint16(e[shndxAt:]))
		if sh == shnXIndex && xtab != nil {
			sh = bo.Uint32(xtab[4*i:])
		} else if sh >= shnLoReserve {
			sh |= 0xffff0000 // reserved: keep as is
		}
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
		sy.local[i] = e[infoAt]>>4 == stbLocal
		syms = append(syms, symInfo{name: name, shndx: sh, local: sy.local[i], offset: int(uint64(i) * entsz)})
		if keep {
			order = append(order, i)
			b.add(name)
		} else {
			sy.changed = true
		}
	}
	// Locals first, each group in input order (the null symbol too is
	// placed by its binding).
	sorted := make([]int, 0, len(order))
	for _, i := range order {
		if syms[i].local {
			sorted = append(sorted, i)
		}
	}
	sy.firstGlobal = uint32(len(sorted))
	for _, i := range order {
		if !syms[i].local {
			sorted = append(sorted, i)
		}
	}
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
	// Names are filled in by finishSymbols once the string table is final.
	sy.fill = func() {
		for j, i := range sorted {
			e := sy.data[uint64(j)*entsz:][:entsz]
			copy(e, raw[syms[i].offset:])
			bo.PutUint32(e[nameAt:], b.offset(syms[i].name))
			sh := syms[i].shndx
			switch {
			case sh >= 0xffff0000:
				bo.PutUint16(e[shndxAt:], uint16(sh))
			case sh >= shnLoReserve:
				bo.PutUint16(e[shndxAt:], shnXIndex)
				if sy.shndx != nil {
					bo.PutUint32(sy.shndx[4*j:], sh)
				}
			default:
				bo.PutUint16(e[shndxAt:], uint16(sh))
			}
		}
	}
	return sy, nil
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

// segment is a program header: its file range, and for SHT_NOBITS
// sections its memory range and whether it is PT_TLS.
type segment struct {
	off, end      uint64
	vaddr, memEnd uint64
	tls           bool
}

const ptTLS = 7

func (f *elfFile) segments() ([]segment, error) {
	if err := f.checkProgramHeaders(); err != nil {
		return nil, err
	}
	if f.phnum == 0 {
		return nil, nil
	}
	psz := f.phentsize
	tab, err := f.readAt(f.phoff, uint64(f.phnum*psz), "program header table")
	if err != nil {
		return nil, err
	}
	var segs []segment
	for i := 0; i < f.phnum; i++ {
		p := tab[i*psz:]
		var off, filesz, vaddr, memsz uint64
		typ := f.bo.Uint32(p)
		if f.is64 {
			off, filesz = f.bo.Uint64(p[8:]), f.bo.Uint64(p[32:])
			vaddr, memsz = f.bo.Uint64(p[16:]), f.bo.Uint64(p[40:])
		} else {
			off, filesz = uint64(f.bo.Uint32(p[4:])), uint64(f.bo.Uint32(p[16:]))
			vaddr, memsz = uint64(f.bo.Uint32(p[8:])), uint64(f.bo.Uint32(p[20:]))
		}
		if end := off + filesz; end >= off && end > uint64(f.size) {
			return nil, llvmErr("program header with offset 0x%x and file size 0x%x goes past the end of the file", off, filesz)
		}
		if off > uint64(f.size) || filesz > uint64(f.size)-off {
			// Wraps around: llvm-objcopy takes it, we do not.
			return nil, formatErr(int64(f.phoff)+int64(i*psz), "program header %d: offset %#x + file size %#x past the end of the file (%#x bytes)", i, off, filesz, f.size)
		}
		segs = append(segs, segment{off: off, end: off + filesz, vaddr: vaddr, memEnd: vaddr + memsz, tls: typ == ptTLS})
	}
	return segs, nil
}

// phdrTableOffset returns where llvm-objcopy puts the program header table,
// which it always writes. A segment whose file range holds the table's first
// byte carries it along (segments keep their offsets here, so it stays at
// e_phoff). Else llvm-objcopy lays it out as a segment of its own, aligned to
// an address's size at an offset congruent to e_phoff, right after the ELF
// header and the segments that start no later than the table: without
// program headers 0-7 bytes (0-3 for ELF32) after the ELF header, and a
// table of an executable that no segment covers moves there too.
func (f *elfFile) phdrTableOffset(segs []segment) uint64 {
	if f.phnum > 0 {
		for _, g := range segs {
			if g.off <= f.phoff && f.phoff < g.end {
				return f.phoff
			}
		}
	}
	cur := uint64(f.ehdrSize())
	for _, g := range segs {
		if g.off <= f.phoff {
			cur = max(cur, g.end)
		}
	}
	return cur + (f.phoff-cur)%f.wordSize()
}

func alignTo(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) / a * a
}

// layout assigns file offsets as llvm-objcopy does and returns the offset of
// the section header table.
func (f *elfFile) layout(out []*outSection, segs []segment) (uint64, error) {
	f.outPhoff = f.phdrTableOffset(segs)
	start := max(uint64(f.ehdrSize()), f.outPhoff+uint64(f.phnum*f.phentsize))
	for _, g := range segs {
		start = max(start, g.end)
	}
	var free []*outSection
	for _, s := range out[1:] {
		if s.old >= 0 && len(segs) > 0 && inSegment(&s.elfSection, segs) {
			if s.data != nil && uint64(len(s.data)) != f.secs[s.old].size {
				return 0, fmt.Errorf("%w: section %s inside a segment would change size", ErrUnsupported, s.name)
			}
			s.fixed = true
			continue
		}
		free = append(free, s)
	}
	slices.SortStableFunc(free, func(a, b *outSection) int {
		if a.old < 0 || b.old < 0 {
			return cmp.Compare(boolInt(a.old < 0), boolInt(b.old < 0))
		}
		return cmp.Compare(f.secs[a.old].off, f.secs[b.old].off)
	})
	// Alignment padding is the only growth beyond the input and the new
	// contents; a huge sh_addralign from a damaged file must not make us
	// write terabytes of zeros (or wrap around).
	limit := uint64(f.size) + maxPadding
	for _, s := range out[1:] {
		if s.old < 0 || s.data != nil || s.src == (zeros{}) {
			limit += s.size
		}
	}
	// Lay out as llvm-objcopy does, in wrapping 64-bit arithmetic, to
	// know the size it would ask for; refuse to write past the limit.
	cur := start
	wrapped := false
	var bad *outSection
	for _, s := range free {
		a := s.align
		if a > 1 && cur+a-1 < cur {
			wrapped = true
		}
		s.off = alignTo(cur, a)
		next := s.off
		if s.typ != shtNobits {
			next += s.size
		}
		if next < cur {
			wrapped = true
		}
		cur = next
		if bad == nil && (wrapped || cur > limit) {
			bad = s
		}
	}
	shoff := alignTo(cur, f.wordSize())
	if bad == nil {
		return shoff, nil
	}
	le := &LayoutError{
		Err: &FormatError{Offset: f.shdrOff(max(bad.old, 0)), Msg: fmt.Sprintf("section %s: layout would grow the output past %#x bytes (input %#x bytes)", bad.name, limit, f.size), Err: ErrMalformed},
	}
	if !wrapped {
		le.Size = shoff + uint64(len(out))*uint64(f.shdrSize())
	}
	return 0, le
}

// A LayoutError is an output AddSections or StripBundles refuses to lay
// out: alignment padding from a damaged sh_addralign or sh_offset would
// grow it far past its input (terabytes, or past 2^64). llvm-objcopy lays
// it out all the same and asks for an output buffer of Size bytes, which
// it may fail to allocate; Size is 0 when its layout wraps around 64 bits.
type LayoutError struct {
	Err  *FormatError // where and what
	Size uint64       // the output size llvm-objcopy's layout gives, 0 if it wraps
}

func (e *LayoutError) Error() string { return e.Err.Error() }

func (e *LayoutError) Unwrap() error { return e.Err }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// inSegment reports whether llvm-objcopy takes a section to lie in a
// segment (and so keeps its offset): an SHT_NOBITS section by address, if
// allocated, in a segment of its own TLS kind; any other by file offset. An
// empty section counts as one byte long, so that one on the boundary of two
// segments belongs to the second.
func inSegment(s *elfSection, segs []segment) bool {
	size := max(s.size, 1)
	for _, g := range segs {
		if s.typ == shtNobits {
			if s.flags&shfAlloc != 0 && (s.flags&shfTLS != 0) == g.tls &&
				g.vaddr <= s.addr && s.addr+size >= s.addr && s.addr+size <= g.memEnd {
				return true
			}
			continue
		}
		if g.off <= s.off && s.off+size >= s.off && s.off+size <= g.end {
			return true
		}
	}
	return false
}

// setAddedFlags applies to existing sections what the bundler's
// --set-section-flags=NAME=readonly,exclude does to every section of that
// name, not only the added one: the flags llvm-objcopy controls are
// replaced by SHF_EXCLUDE alone (the others, and the upper 32 bits, are
// dropped too), and a section without contents gets zeros, since only
// allocated sections may be SHT_NOBITS.
func (f *elfFile) setAddedFlags(out []*outSection, add []Section) error {
	if len(add) == 0 {
		return nil
	}
	names := make(map[string]bool, len(add))
	for _, a := range add {
		names[a.Name] = true
	}
	keep := uint64(0x7ff00ec0) // INFO_LINK, LINK_ORDER, GROUP, TLS, COMPRESSED, OS and processor bits
	if f.machine == emX86_64 {
		keep &^= 0x10000000 // SHF_X86_64_LARGE
	}
	for _, s := range out[1:] {
		if s.old < 0 || !names[s.name] {
			continue
		}
		s.flags = s.flags&keep | shfExclude
		if s.typ == shtNobits {
			if s.size > maxZeroFill {
				return fmt.Errorf("objfmt: section %d (%s): %#x bytes of zeros to write for an SHT_NOBITS section turned into contents", s.old, s.name, s.size)
			}
			s.typ = shtProgbits
			s.src, s.srcAt = zeros{}, 0
		}
	}
	return nil
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) ReadAt(p []byte, off int64) (int, error) {
	clear(p)
	return len(p), nil
}
