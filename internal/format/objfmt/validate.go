package objfmt

// objcopyCheck rejects, with llvm-objcopy 22's message, the malformed input
// it rejects: names, contents outside the file, links, the symbol table,
// relocations and groups, in the order llvm-objcopy meets them (each defect
// alone gives LLVM's message; for several at once the first reported may
// differ).
func (f *elfFile) objcopyCheck() error {
	n := len(f.secs)
	if f.badName >= 0 {
		return f.nameErr(f.badName)
	}
	// Contents of ordinary sections are read with the headers; the
	// symbol table and relocations are read (and checked) later.
	for i := 1; i < n; i++ {
		s := &f.secs[i]
		if s.typ == shtNobits || s.typ == shtNull || s.typ == shtSymtab || f.isStaticReloc(s) {
			continue
		}
		if !f.inFile(s) {
			return rangeErr(i, s.off, s.size, f.size)
		}
	}
	if st := &f.secs[f.shstrndx]; f.shstrndx != shnUndef && st.flags&shfAlloc != 0 {
		return llvmErr("e_shstrndx field value %d in elf header  does not reference a string table", f.shstrndx)
	}
	nsyms, err := f.checkSymtab()
	if err != nil {
		return err
	}
	for i := 1; i < n; i++ {
		s := &f.secs[i]
		switch {
		case f.isStaticReloc(s):
			if err := f.checkRelocs(i, nsyms); err != nil {
				return err
			}
		case s.typ == shtGroup:
			if err := f.checkGroup(i, nsyms); err != nil {
				return err
			}
		case s.typ == shtSymtab, s.typ == shtStrtab && s.flags&shfAlloc == 0:
			// The symbol table's link was checked above; string
			// tables keep any sh_link.
		default:
			if s.link != 0 && int64(s.link) >= int64(n) {
				return llvmErr("Link field value %d in section %s is invalid", s.link, s.name)
			}
		}
	}
	return f.checkProgramHeaders()
}

// checkProgramHeaders applies llvm-objcopy's checks of the program header
// table, which it makes even when there are no program headers (e_phoff
// must then still lie within the file), in wrapping 64-bit arithmetic.
func (f *elfFile) checkProgramHeaders() error {
	psz := phdrSize32
	if f.is64 {
		psz = phdrSize64
	}
	if f.phnum != 0 && f.phentsize != psz {
		return llvmErr("invalid e_phentsize: %d", f.phentsize)
	}
	if end := f.phoff + uint64(f.phnum)*uint64(f.phentsize); end < f.phoff || end > uint64(f.size) {
		return llvmErr("program headers are longer than binary of size %d: e_phoff = 0x%x, e_phnum = %d, e_phentsize = %d", f.size, f.phoff, f.phnum, f.phentsize)
	}
	return nil
}

// isStaticReloc reports a relocation section of a relocatable object (not
// allocated): llvm-objcopy checks and renumbers its entries.
func (f *elfFile) isStaticReloc(s *elfSection) bool {
	return (s.typ == shtRel || s.typ == shtRela) && s.flags&shfAlloc == 0
}

func (f *elfFile) inFile(s *elfSection) bool {
	return s.off <= uint64(f.size) && s.size <= uint64(f.size)-s.off
}

// checkTable checks the entry size, size and extent of a table section.
func (f *elfFile) checkTable(i int, entsize uint64) error {
	s := &f.secs[i]
	if s.entsize != entsize {
		return llvmErr("section [index %d] has invalid sh_entsize: expected %d, but got %d", i, entsize, s.entsize)
	}
	if s.size%entsize != 0 {
		return llvmErr("section [index %d] has an invalid sh_size (%d) which is not a multiple of its sh_entsize (%d)", i, s.size, entsize)
	}
	if !f.inFile(s) {
		return rangeErr(i, s.off, s.size, f.size)
	}
	return nil
}

// checkSymtab checks the symbol table and returns its symbol count (0
// without one).
func (f *elfFile) checkSymtab() (int, error) {
	n := len(f.secs)
	idx := -1
	for i := 1; i < n; i++ {
		if f.secs[i].typ == shtSymtab {
			if idx >= 0 {
				return 0, llvmErr("found multiple SHT_SYMTAB sections")
			}
			idx = i
		}
	}
	if idx < 0 {
		return 0, nil
	}
	st := &f.secs[idx]
	if st.link == 0 || int64(st.link) >= int64(n) {
		return 0, llvmErr("Symbol table has link index of %d which is not a valid index", st.link)
	}
	str := &f.secs[st.link]
	if str.typ != shtStrtab || str.flags&shfAlloc != 0 {
		return 0, llvmErr("Symbol table has link index of %d which is not a string table", st.link)
	}
	if str.size == 0 {
		return 0, llvmErr("SHT_STRTAB string table section [index %d] is empty", st.link)
	}
	if last, err := f.readAt(str.off+str.size-1, 1, "string table"); err == nil && last[0] != 0 {
		return 0, llvmErr("SHT_STRTAB string table section [index %d] is non-null terminated", st.link)
	}
	entsz := uint64(sym32Size)
	if f.is64 {
		entsz = sym64Size
	}
	if err := f.checkTable(idx, entsz); err != nil {
		return 0, err
	}
	raw, err := f.readAt(st.off, st.size, "symbol table")
	if err != nil {
		return 0, err
	}
	strSize := f.secs[st.link].size
	shndxAt := 14
	if f.is64 {
		shndxAt = 6
	}
	count := int(st.size / entsz)
	var xtab []byte
	for i := 1; i < n; i++ {
		if s := &f.secs[i]; s.typ == shtSymtabShndx && int(s.link) == idx {
			if err := f.checkTable(i, 4); err != nil {
				return 0, err
			}
			if s.size != uint64(count)*4 {
				return 0, llvmErr("symbol section index table does not have the same number of entries as the symbol table")
			}
			xtab, _ = f.readAt(s.off, s.size, "extended section index table")
		}
	}
	for k := 0; k < count; k++ {
		e := raw[uint64(k)*entsz:]
		nameOff := f.bo.Uint32(e)
		if uint64(nameOff) >= strSize {
			return 0, llvmErr("st_name (0x%x) is past the end of the string table of size 0x%x", nameOff, strSize)
		}
		if k == 0 {
			continue
		}
		sh := uint32(f.bo.Uint16(e[shndxAt:]))
		switch {
		case sh == shnXIndex && xtab == nil:
			return 0, llvmErr("symbol '%s' has index SHN_XINDEX but no SHT_SYMTAB_SHNDX section exists", f.symName(st.link, nameOff))
		case sh == shnXIndex:
			sh = f.bo.Uint32(xtab[4*k:])
		case sh >= shnLoReserve:
			if !f.reservedIndexOK(uint16(sh)) {
				return 0, llvmErr("symbol '%s' has unsupported value greater than or equal to SHN_LORESERVE: %d", f.symName(st.link, nameOff), sh)
			}
			continue
		}
		if sh != shnUndef && int64(sh) >= int64(n) {
			return 0, llvmErr("symbol '%s' is defined has invalid section index %d", f.symName(st.link, nameOff), sh)
		}
	}
	return count, nil
}

// symName is a symbol's name for a message ("" when unreadable).
func (f *elfFile) symName(strIdx uint32, off uint32) string {
	s := &f.secs[strIdx]
	if !f.inFile(s) || uint64(off) >= s.size {
		return ""
	}
	b, err := f.readAt(s.off+uint64(off), min(s.size-uint64(off), 4096), "symbol name")
	if err != nil {
		return ""
	}
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func (f *elfFile) relocEntSize(typ uint32) uint64 {
	ent := uint64(8)
	if f.is64 {
		ent = 16
	}
	if typ == shtRela {
		ent += ent / 2
	}
	return ent
}

// relocSym returns the symbol index of the relocation entry e.
func (f *elfFile) relocSym(e []byte) uint64 {
	switch {
	case f.is64 && f.machine == emMIPS && f.ident[5] == elfData2LSB:
		// MIPS64 little-endian: r_sym is the first word of r_info.
		return uint64(f.bo.Uint32(e[8:]))
	case f.is64:
		return f.bo.Uint64(e[8:]) >> 32
	}
	return uint64(f.bo.Uint32(e[4:]) >> 8)
}

func (f *elfFile) checkRelocs(i, nsyms int) error {
	s := &f.secs[i]
	n := len(f.secs)
	if s.link != 0 {
		if int64(s.link) >= int64(n) {
			return llvmErr("Link field value %d in section %s is invalid", s.link, s.name)
		}
		if f.secs[s.link].typ != shtSymtab {
			return llvmErr("Link field value %d in section %s is not a symbol table", s.link, s.name)
		}
	}
	if s.info != 0 && int64(s.info) >= int64(n) {
		return llvmErr("Info field value %d in section %s is invalid", s.info, s.name)
	}
	ent := f.relocEntSize(s.typ)
	if err := f.checkTable(i, ent); err != nil {
		return err
	}
	if s.link == 0 {
		return nil
	}
	data, err := f.readAt(s.off, s.size, "relocation section")
	if err != nil {
		return err
	}
	for off := uint64(0); off < s.size; off += ent {
		if sym := f.relocSym(data[off:]); sym >= uint64(nsyms) && !(sym == 0 && nsyms == 0) {
			return llvmErr("invalid symbol index: %d", sym)
		}
	}
	return nil
}

func (f *elfFile) checkGroup(i, nsyms int) error {
	s := &f.secs[i]
	n := len(f.secs)
	if s.align%4 != 0 {
		return llvmErr("invalid alignment %d of group section '%s'", s.align, s.name)
	}
	if int64(s.link) >= int64(n) {
		return llvmErr("link field value '%d' in section '%s' is invalid", s.link, s.name)
	}
	if f.secs[s.link].typ != shtSymtab {
		return llvmErr("link field value '%d' in section '%s' is not a symbol table", s.link, s.name)
	}
	if int64(s.info) >= int64(nsyms) {
		return llvmErr("info field value '%d' in section '%s' is not a valid symbol index", s.info, s.name)
	}
	if s.size < 4 || s.size%4 != 0 || !f.inFile(s) {
		return nil // left to the writer's own checks
	}
	raw, err := f.readAt(s.off, s.size, "section group")
	if err != nil {
		return err
	}
	for j := 4; j < len(raw); j += 4 {
		if m := f.bo.Uint32(raw[j:]); int64(m) >= int64(n) {
			return llvmErr("group member index %d in section '%s' is invalid", m, s.name)
		}
	}
	return nil
}

// reservedIndexOK reports the reserved section indices llvm-objcopy 22
// accepts in a symbol: SHN_ABS, SHN_COMMON, the small-data commons of
// Hexagon, three of MIPS's and AMDGPU's SHN_AMDGPU_LDS (observed).
func (f *elfFile) reservedIndexOK(sh uint16) bool {
	switch {
	case sh == 0xfff1 || sh == 0xfff2:
		return true
	case f.machine == emHexagon:
		return sh <= 0xff04
	case f.machine == emAMDGPU:
		return sh == 0xff00
	case f.machine == emMIPS:
		return sh == 0xff00 || sh == 0xff03 || sh == 0xff04 // ACOMMON, SCOMMON, SUNDEFINED
	}
	return false
}
