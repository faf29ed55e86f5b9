package objfmt

import (
	"fmt"
	"io"
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
		return f.rewriteWithoutShdrs(w, add)
	}
	if err := f.objcopyCheck(); err != nil {
		return err
	}
	if err := f.checkSections(); err != nil {
		return err
	}
	if err := f.checkRelocLinks(); err != nil {
		return err
	}
	removed, err := f.removedSections(remove)
	if err != nil {
		return err
	}
	rw, err := f.renumber(removed, add)
	if err != nil {
		return err
	}
	rw.finishTables()
	for _, s := range rw.out[1:] {
		if err := f.renumberSection(s, rw); err != nil {
			return err
		}
	}
	for _, s := range rw.out[1:] {
		s.nameOff = rw.shstr.offset(s.name)
	}
	if err := f.setAddedFlags(rw.out, add); err != nil {
		return err
	}

	segs, err := f.segments()
	if err != nil {
		return err
	}
	shoff, err := f.layout(rw.out, segs)
	if err != nil {
		return err
	}
	return f.write(w, rw.out, segs, shoff, rw.newIdx[f.shstrndx])
}

// rewriteWithoutShdrs writes f, which has no section header table, with add
// appended.
func (f *elfFile) rewriteWithoutShdrs(w io.Writer, add []Section) error {
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

// removedSections returns, by input section index, the sections the
// rewrite drops: those for which remove is true, and the relocation
// sections and groups that go with them.
func (f *elfFile) removedSections(remove func(*elfSection) bool) ([]bool, error) {
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
	// A group whose members are all removed goes too (and with it the
	// symbols defined in it).
	for i := 1; i < n; i++ {
		s := &f.secs[i]
		if s.typ != shtGroup || removed[i] || s.size <= 4 || s.size%4 != 0 {
			continue
		}
		raw, err := f.readAt(s.off, s.size, "section group")
		if err != nil {
			return nil, err
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
		return nil, fmt.Errorf("objfmt: cannot remove the section name string table %q", f.secs[f.shstrndx].name)
	}
	return removed, nil
}

// checkRelocLinks refuses, as llvm-objcopy does, relocation sections whose
// sh_link is not a symbol table it can use; an allocated one (as in static
// glibc executables, .rela.plt) may only use the dynamic symbol table.
func (f *elfFile) checkRelocLinks() error {
	n := len(f.secs)
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
	return nil
}

// A renumbering is the output's sections and the tables rebuilt for their
// new indices.
type renumbering struct {
	removed []bool                 // input section index -> dropped
	newIdx  []uint32               // input section index -> output index
	out     []*outSection          // the output sections, from index 0
	shstr   *strtabBuilder         // the section name string table
	strtabs map[int]*strtabBuilder // rebuilt string tables by input index
	sym     *symbols               // the rewritten symbol table, or nil
}

// renumber numbers the output sections, rebuilds the section name string
// table and rewrites the symbol table for the new numbering.
func (f *elfFile) renumber(removed []bool, add []Section) (*renumbering, error) {
	rw := &renumbering{removed: removed}
	var err error
	// Twice at most: llvm-objcopy drops an SHT_SYMTAB_SHNDX section that
	// no symbol needs any more, which renumbers the sections after it.
	for range 2 {
		rw.newIdx, rw.out, err = f.numberSections(removed, add)
		if err != nil {
			return nil, err
		}
		rw.shstr = newStrtab()
		rw.strtabs = map[int]*strtabBuilder{f.shstrndx: rw.shstr}
		for _, s := range rw.out[1:] {
			rw.shstr.add(s.name)
		}
		rw.sym, err = f.rewriteSymbols(removed, rw.newIdx, rw.strtabs)
		if err != nil {
			return nil, err
		}
		if rw.sym == nil || rw.sym.shndxIndex < 0 || rw.sym.needXIndex {
			break
		}
		removed[rw.sym.shndxIndex] = true
	}
	return rw, nil
}

// finishTables lays out the rebuilt string tables and fills in the symbol
// table.
func (rw *renumbering) finishTables() {
	// Other non-allocated string tables are rebuilt too, empty.
	for _, s := range rw.out[1:] {
		if s.old >= 0 && s.typ == shtStrtab && s.flags&shfAlloc == 0 && rw.strtabs[s.old] == nil {
			rw.strtabs[s.old] = newStrtab()
		}
	}
	for _, b := range rw.strtabs {
		b.finalize()
	}
	if rw.sym != nil {
		rw.sym.fill()
	}
}

// renumberSection sets the contents and header fields of a kept section
// that depend on the new numbering.
func (f *elfFile) renumberSection(s *outSection, rw *renumbering) error {
	if s.old < 0 {
		return nil
	}
	n, newIdx, sym := len(f.secs), rw.newIdx, rw.sym
	if s.link != 0 && int64(s.link) < int64(n) {
		s.link = newIdx[s.link]
	}
	if (s.typ == shtRel || s.typ == shtRela || s.flags&shfInfoLink != 0) && s.info != 0 && int64(s.info) < int64(n) {
		s.info = newIdx[s.info]
	}
	if b, ok := rw.strtabs[s.old]; ok && s.typ == shtStrtab {
		s.data, s.size = b.data, b.size
		return nil
	}
	if sym == nil {
		if s.typ == shtGroup {
			return f.rewriteGroup(s, rw.removed, newIdx, nil)
		}
		return nil
	}
	switch {
	case s.old == sym.index:
		s.data, s.size, s.info = sym.data, uint64(len(sym.data)), sym.firstGlobal
	case s.old == sym.shndxIndex:
		s.data, s.size = sym.shndx, uint64(len(sym.shndx))
	case s.typ == shtGroup:
		return f.rewriteGroup(s, rw.removed, newIdx, sym)
	case !sym.changed:
	case (s.typ == shtRel || s.typ == shtRela) && int(f.secs[s.old].link) == sym.index:
		return f.rewriteRelocs(s, sym)
	case s.typ == shtLLVMAddrsig && int(f.secs[s.old].link) == sym.index:
		// llvm-objcopy keeps the old symbol indices and unlinks the
		// table, which tells linkers to ignore it.
		s.link = 0
	}
	return nil
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
