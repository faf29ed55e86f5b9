package prune

import (
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/format/fatbin"
	"github.com/goffload/goffload/internal/objfile"
)

// Output is what a rewrite writes to: written in order, then patched in
// place (an *os.File). A rewrite that changes nothing writes the input
// over what it wrote and, where that was longer, shortens the output with
// its Truncate method (an Output without one fails there).
type Output interface {
	io.Writer
	io.WriterAt
}

// Discard is an Output that keeps nothing, for dry runs: every write and
// truncation succeeds.
type Discard struct{}

func (Discard) Write(p []byte) (int, error)            { return len(p), nil }
func (Discard) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }
func (Discard) Truncate(int64) error                   { return nil }

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n uint64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

func (c *counter) zeros(to uint64) error {
	var z [4096]byte
	for c.n < to {
		k := min(uint64(len(z)), to-c.n)
		if _, err := c.Write(z[:k]); err != nil {
			return err
		}
	}
	return nil
}

func copyRange(w io.Writer, r io.ReaderAt, off, end uint64) error {
	_, err := io.Copy(w, io.NewSectionReader(r, int64(off), int64(end-off)))
	return err
}

func alignUp(v, a uint64) uint64   { return (v + a - 1) / a * a }
func alignDown(v, a uint64) uint64 { return v / a * a }

// span is one bundle of .hip_fatbin, section-relative.
type span struct {
	start, end uint64
	ccob       bool
}

// findBundles splits .hip_fatbin into its bundles as fatbin.Runs finds
// them (the run scanner inspect lists with): binary bundles end after
// their table and last payload, CCOBs where their header says; zero
// padding between.
func findBundles(r io.ReaderAt, fat *shdr) ([]span, error) {
	sec := io.NewSectionReader(r, int64(fat.off), int64(fat.size))
	var spans []span
	err := fatbin.Runs(sec, int64(fat.size), func(it fatbin.Item) error {
		spans = append(spans, span{uint64(it.Offset), uint64(it.End), it.Compressed})
		return nil
	})
	var re *fatbin.Error
	switch {
	case errors.As(err, &re) && re.What == "bytes":
		return nil, refuse(".hip_fatbin offset %d: %v", re.Offset, re.Err)
	case errors.As(err, &re):
		return nil, fmt.Errorf(".hip_fatbin bundle %d: %w", re.Index, re.Err)
	case err != nil:
		return nil, err
	}
	if len(spans) == 0 {
		return nil, refuse(".hip_fatbin holds no bundle")
	}
	return spans, nil
}

// rewriteFatbin rewrites an ELF file's .hip_fatbin, keeping every virtual
// address: the bundles are laid out again from the section's start, each
// 4 KiB aligned; in a linked file the segment holding them is split in two
// around the freed space, whose file bytes are dropped; every pointer to a
// bundle is moved with it.
func (s *selector) rewriteFatbin(out Output, f *elfFile) error {
	fatIdx, fat := f.section(".hip_fatbin")
	if fat == nil {
		return refuse("no single .hip_fatbin section")
	}
	if fat.typ == shtNobits {
		return refuse(".hip_fatbin holds no data (kpack'd or stripped device code)")
	}
	spans, err := findBundles(f.r, fat)
	if err != nil {
		return err
	}
	ptrs, err := f.bundlePointers(fat, fatIdx, spans)
	if err != nil {
		return err
	}
	if f.phoff >= fat.off && len(f.phdrs) > 0 || f.shoff < fat.off+fat.size && f.shoff >= fat.off {
		return refuse("header tables lie inside or after .hip_fatbin in an unusual place")
	}

	// The prefix, then the new bundles.
	w := &counter{w: out}
	if err := copyRange(w, f.r, 0, fat.off); err != nil {
		return err
	}
	decided := len(s.report.Decisions)
	newStart, err := s.writeBundles(w, f, fat, fat.off, spans)
	if err != nil {
		return err
	}
	newSize := w.n - fat.off
	fatEnd := fat.off + fat.size
	if newSize > fat.size {
		if f.typ == etRel {
			return refuse("the new device code (%d bytes) is larger than .hip_fatbin (%d bytes): growing it in a relocatable object is not supported", newSize, fat.size)
		}
		// Written again, in a segment of its own (grow.go).
		s.report.Decisions = s.report.Decisions[:decided]
		return s.growFatbin(out, f, fat, fatIdx, spans, ptrs)
	}

	// Where the rest of the file starts, and how far it can move.
	tail, align := f.tailAfter(fatEnd)
	l := &fatbinLayout{phdrs: append([]phdr(nil), f.phdrs...), phoff: f.phoff, newEnd: fat.off + newSize, split: -1, align: align}
	if f.typ != etRel {
		if err := s.layoutSegments(f, fat, tail, l); err != nil {
			return err
		}
	}
	if tail < l.newEnd {
		return refuse("the new device code (%d bytes) does not fit where the old was (%d bytes)", newSize, tail-fat.off)
	}
	m := shift{fatOff: fat.off, tail: tail, delta: alignDown(tail-l.newEnd, l.align), room: l.room}

	// The moved sections, the gap, then the rest of the file.
	if l.room != nil {
		if err := l.room.write(w, out, f); err != nil {
			return err
		}
	}
	if err := w.zeros(tail - m.delta); err != nil {
		return err
	}
	if err := copyRange(w, f.r, tail, uint64(f.size)); err != nil {
		return err
	}

	// Patches: program headers, ELF header, section headers, pointers.
	if err := f.patchHeaders(out, l, m, fatIdx, newSize); err != nil {
		return err
	}
	base := fat.addr
	if f.typ == etRel {
		base = 0
	}
	if err := patchPointers(out, ptrs, newStart, base, m); err != nil {
		return err
	}
	if err := f.patchMoved(out, l.room, m); err != nil {
		return err
	}
	s.report.SizeAft = int64(w.n)
	return nil
}

// bundlePointers finds every pointer to a bundle of .hip_fatbin (section
// fatIdx, split into spans): in a linked file by address, in a relocatable
// object by offset into the section.
func (f *elfFile) bundlePointers(fat *shdr, fatIdx int, spans []span) ([]pointer, error) {
	starts := map[uint64]int{}
	switch f.typ {
	case etDyn, etExec:
		if fat.off%4096 != fat.addr%4096 {
			return nil, refuse(".hip_fatbin's file offset and address disagree modulo 4096")
		}
		for i, sp := range spans {
			starts[fat.addr+sp.start] = i
		}
		return f.pointers(fat, fatIdx, starts)
	case etRel:
		for i, sp := range spans {
			starts[sp.start] = i
		}
		return f.relPointers(fatIdx, starts)
	}
	return nil, refuse("ELF type %d", f.typ)
}

// writeBundles writes the bundles of .hip_fatbin, rewritten, each at the
// next 4 KiB boundary from the new section's start at output offset dst
// (where w is), and returns where each starts in the new section.
func (s *selector) writeBundles(w *counter, f *elfFile, fat *shdr, dst uint64, spans []span) ([]uint64, error) {
	newStart := make([]uint64, len(spans))
	base := s.base
	defer func() { s.base = base }()
	for i, sp := range spans {
		if err := w.zeros(dst + alignUp(w.n-dst, 4096)); err != nil {
			return nil, err
		}
		newStart[i] = w.n - dst
		where := fmt.Sprintf("bundle %d", i)
		if fat.name != "" {
			where = fat.name + " › " + where
		}
		sr := io.NewSectionReader(f.r, int64(fat.off+sp.start), int64(sp.end-sp.start))
		var err error
		s.base = base + int64(fat.off+sp.start)
		if sp.ccob {
			_, err = s.rewriteCCOB(w, sr, sr.Size(), where)
		} else {
			err = s.rewriteBinary(w, sr, sr.Size(), where)
		}
		if err != nil {
			return nil, err
		}
	}
	return newStart, nil
}

// fatbinLayout is how a rewritten file's program headers and the part after
// .hip_fatbin are placed.
type fatbinLayout struct {
	room   *room  // sections moved to make room for a program header, or nil
	phdrs  []phdr // the new program headers
	phoff  uint64 // the new program header table's offset
	newEnd uint64 // where the new bundles (and a moved program header table) end
	split  int    // index of the segment split in two, or -1
	align  uint64 // the rest of the file moves by a multiple of it
}

// layoutSegments lays out the segments of a linked file around the new
// bundles, which end at l.newEnd; tail is where the rest of the file starts.
// The segment holding .hip_fatbin gets shorter if .hip_fatbin ends it, or
// is split in two if enough is freed; else it is kept whole.
func (s *selector) layoutSegments(f *elfFile, fat *shdr, tail uint64, l *fatbinLayout) error {
	fatEnd := fat.off + fat.size
	li := -1
	for i, p := range f.phdrs {
		if p.typ == ptLoad {
			l.align = max(l.align, p.align)
			if p.vaddr <= fat.addr && fat.addr+fat.size <= p.vaddr+p.filesz {
				if li >= 0 || p.off+(fat.addr-p.vaddr) != fat.off {
					return refuse("the segment holding .hip_fatbin is not laid out as expected")
				}
				li = i
			}
		} else if p.filesz > 0 && p.off < fatEnd && p.off+p.filesz > fat.off && p.typ != ptPhdr {
			return refuse("segment %d (type %#x) overlaps .hip_fatbin", i, p.typ)
		}
	}
	if li < 0 {
		return refuse(".hip_fatbin is not inside one loadable segment")
	}
	L := f.phdrs[li]
	page := max(L.align, 4096)
	// The first section after .hip_fatbin in the same segment.
	next := uint64(0)
	for _, sh := range f.shdrs {
		if sh.addr >= fat.addr+fat.size && sh.addr < L.vaddr+L.memsz && sh.size > 0 && (next == 0 || sh.addr < next) {
			next = sh.addr
		}
	}
	if next == 0 {
		// .hip_fatbin ends the segment: it just gets shorter.
		if L.vaddr+L.filesz != fat.addr+fat.size || L.memsz != L.filesz {
			return refuse("the segment holding .hip_fatbin ends in an unexpected way")
		}
		l.phdrs[li].filesz = l.newEnd - L.off
		l.phdrs[li].memsz = l.newEnd - L.off
		return nil
	}
	o2 := L.off + (next - L.vaddr)
	if o2 != tail {
		return refuse("unexpected bytes between .hip_fatbin and the next section")
	}
	// The program header table stays where it is with one more entry;
	// the sections in its way move after the new bundles (phdrroom.go).
	rm, err := f.makeRoom(uint64(len(f.phdrs) + 1))
	if err != nil {
		return err
	}
	end := l.newEnd
	if rm != nil {
		end = rm.place(end, L.vaddr-L.off)
	}
	vEnd := L.vaddr + (end - L.off)
	if alignUp(vEnd, page) <= alignDown(next, page) && o2-end >= l.align {
		// Split: the first part ends after the new bundles (and the
		// moved sections); the second starts at the next section's
		// unchanged address, from a file offset moved down by a
		// multiple of the alignment.
		l.split = li
		l.room = rm
		l.newEnd = end
		L1 := L
		L1.filesz, L1.memsz = end-L.off, end-L.off
		L2 := L
		L2.vaddr, L2.paddr = next, L.paddr+(next-L.vaddr)
		L2.filesz, L2.memsz = L.off+L.filesz-o2, L.vaddr+L.memsz-next
		L2.off = o2 // moved with the rest below
		l.phdrs = append(append(append([]phdr(nil), l.phdrs[:li]...), L1, L2), l.phdrs[li+1:]...)
	} else {
		// Too little freed to unmap: keep the segment whole.
		l.newEnd = tail
		s.report.Notes = append(s.report.Notes, "the segment holding .hip_fatbin is not split (less than a page freed): the file keeps its size")
	}
	return nil
}

// shift maps the input file offsets outside .hip_fatbin to output ones:
// those before it stay, those from tail on move down by delta.
type shift struct {
	fatOff, tail, delta uint64
	room                *room
}

func (m shift) conv(off uint64) (uint64, error) {
	switch {
	case m.room.moving(off) != nil:
		o, _ := m.room.conv(off)
		return o, nil
	case off < m.fatOff:
		return off, nil
	case off >= m.tail:
		return off - m.delta, nil
	}
	return 0, refuse("a field to patch lies at offset %d, inside .hip_fatbin", off)
}

// patchHeaders writes the program headers of l, the ELF header and the
// section headers (.hip_fatbin, section fatIdx, now newSize bytes) over the
// rewritten file.
func (f *elfFile) patchHeaders(out Output, l *fatbinLayout, m shift, fatIdx int, newSize uint64) error {
	phdrs, split, phoff := l.phdrs, l.split, l.phoff
	for i := range phdrs {
		p := &phdrs[i]
		switch {
		case split >= 0 && i == split+1:
			p.off -= m.delta
		case split >= 0 && p.typ == ptPhdr:
			p.filesz, p.memsz = uint64(len(phdrs))*phdrSize, uint64(len(phdrs))*phdrSize
		case l.room.movePhdr(p):
		case i != split && p.off >= m.tail:
			p.off -= m.delta
		}
	}
	shoff, err := m.conv(f.shoff)
	if err != nil {
		return err
	}
	return f.writeHeaders(out, phdrs, phoff, shoff, func(i int, x *shdr) {
		switch {
		case l.room.moveShdr(x):
		case i == fatIdx:
			x.size = newSize
		case x.off >= m.tail:
			x.off -= m.delta
		}
	})
}

// writeHeaders writes the program header table phdrs at phoff, the ELF
// header (phoff, shoff, the number of program headers) and the section
// header table at shoff, each section header as edit leaves it.
func (f *elfFile) writeHeaders(out Output, phdrs []phdr, phoff, shoff uint64, edit func(i int, x *shdr)) error {
	ph := make([]byte, len(phdrs)*phdrSize)
	for i, p := range phdrs {
		encodePhdr(ph[i*phdrSize:], p)
	}
	if len(phdrs) > 0 {
		if _, err := out.WriteAt(ph, int64(phoff)); err != nil {
			return err
		}
	}
	eh := f.ehdr
	le.PutUint64(eh[32:], phoff)
	le.PutUint64(eh[40:], shoff)
	le.PutUint16(eh[56:], uint16(len(phdrs)))
	if _, err := out.WriteAt(eh[:], 0); err != nil {
		return err
	}
	sh := make([]byte, len(f.shdrs)*shdrSize)
	for i, x := range f.shdrs {
		edit(i, &x)
		encodeShdr(sh[i*shdrSize:], x)
	}
	_, err := out.WriteAt(sh, int64(shoff))
	return err
}

// patchPointers points each pointer at its bundle's new start (base plus
// the start's offset in .hip_fatbin, or the offset alone for a
// section-relative field).
func patchPointers(out Output, ptrs []pointer, newStart []uint64, base uint64, m shift) error {
	var v [8]byte
	for _, p := range ptrs {
		o, err := m.conv(p.off)
		if err != nil {
			return err
		}
		if p.secRel {
			le.PutUint64(v[:], newStart[p.bundle])
		} else {
			le.PutUint64(v[:], base+newStart[p.bundle])
		}
		if _, err := out.WriteAt(v[:], int64(o)); err != nil {
			return err
		}
	}
	return nil
}

// relPointers finds, in a relocatable object, the relocation addends and
// symbols that point at bundles of .hip_fatbin (section-relative offsets).
func (f *elfFile) relPointers(fatIdx int, starts map[uint64]int) ([]pointer, error) {
	var ptrs []pointer
	symtab := func(i int) (*objfile.Section, error) {
		if i <= 0 || i >= len(f.shdrs) || f.shdrs[i].typ != shtSymtab {
			return nil, refuse("relocation section linked to section %d, not a symbol table", i)
		}
		return &f.osecs[i], nil
	}
	for i, s := range f.shdrs {
		var err error
		switch s.typ {
		case shtSymtab:
			err = f.o.Symbols(&f.osecs[i], func(sym objfile.Symbol) error {
				if int(sym.Shndx) != fatIdx || sym.Info&0xf == 3 { // section symbols are 0
					return nil
				}
				b, ok := starts[sym.Value]
				if !ok {
					return refuse("symbol %d points into .hip_fatbin at %d, not at a bundle start", sym.Index, sym.Value)
				}
				ptrs = append(ptrs, pointer{uint64(f.o.ValueAt(sym)), b, false})
				return nil
			})
		case shtRel:
			if s.size > 0 {
				return nil, refuse("REL relocations (%s) are not rewritten", s.name)
			}
		case shtRela:
			if int(s.info) == fatIdx && s.size > 0 {
				return nil, refuse("relocations apply to .hip_fatbin itself (%s)", s.name)
			}
			st, serr := symtab(int(s.link))
			if serr != nil {
				return nil, serr
			}
			err = f.o.Relocations(&f.osecs[i], func(r objfile.Reloc) error {
				sym, ok := f.o.SymbolAt(st, r.Sym)
				if !ok {
					return refuse("relocation %d of %s names symbol %d past its table", r.Index, s.name, r.Sym)
				}
				if int(sym.Shndx) != fatIdx {
					return nil
				}
				if sym.Info&0xf != 3 { // not the section symbol: the symbol is patched
					if r.Addend != 0 {
						return refuse("relocation %d of %s points into a bundle (%s%+d)", r.Index, s.name, "symbol", int64(r.Addend))
					}
					return nil
				}
				b, ok := starts[r.Addend]
				if !ok {
					return refuse("relocation %d of %s points into .hip_fatbin at %d, not at a bundle start", r.Index, s.name, r.Addend)
				}
				ptrs = append(ptrs, pointer{uint64(f.o.AddendAt(r)), b, false})
				return nil
			})
		}
		if err != nil {
			return nil, err
		}
	}
	return ptrs, nil
}

// tailAfter returns where the part of the file after offset end starts (the
// first section, segment or the section header table at or past it) and
// the largest alignment in it, by which it may move (at least 8).
func (f *elfFile) tailAfter(end uint64) (tail, align uint64) {
	tail = uint64(f.size)
	for _, sh := range f.shdrs {
		if sh.typ != shtNobits && sh.size > 0 && sh.off >= end {
			tail = min(tail, sh.off)
		}
	}
	for _, p := range f.phdrs {
		if p.filesz > 0 && p.off >= end {
			tail = min(tail, p.off)
		}
	}
	if f.shoff >= end {
		tail = min(tail, f.shoff)
	}
	align = 8
	for _, sh := range f.shdrs {
		if sh.off >= tail && sh.align > align {
			align = sh.align
		}
	}
	return tail, align
}
