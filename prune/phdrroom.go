package prune

import (
	"slices"
	"sort"

	"github.com/goffload/goffload/internal/objfile"
)

// Splitting the segment that holds .hip_fatbin takes one more program
// header. Every ELF post-processor expects the program header table where
// the linkers write it, right after the ELF header at the start of the
// first PT_LOAD: GNU BFD (strip, objcopy) always lays it out there again and
// moves whatever overlaps it, and glibc needs PT_PHDR to find a PIE's load
// address. So the table stays where it is and grows by one entry; the
// sections that follow it (.interp, notes, the dynamic symbol and version
// tables, hashes, .dynstr, dynamic relocations: what lld and GNU ld put
// there, all reached through program headers, dynamic tags and section
// headers, never through code) move, as one block that keeps its inner
// layout, into the space the device code freed, after the new bundles:
// patchelf's way of making room, without moving any code or data a program
// refers to.

// A move is a run of sections that moves: input bytes [start, end) go to
// output offset to, and their addresses move by dva.
type move struct {
	start, end uint64
	secs       []int
	to         uint64
	vaddr, dva uint64 // the run's input address; how far it moves
}

func (m *move) contains(off uint64) bool { return off >= m.start && off < m.end }

// inVA reports whether address a lies in the run as the input has it.
func (m *move) inVA(a uint64) bool { return a >= m.vaddr && a < m.vaddr+(m.end-m.start) }

// room is what makes room for the grown program header table: the notes
// and .interp right after it (head) move up in place, by as much as the
// table grows, so that they still open the segment as BFD and the linkers
// have them; the run of dynamic-linking tables after them (block) moves
// out, after the new bundles, to free that space.
type room struct {
	head, block *move
	align       uint64 // the block's largest section alignment
}

func (r *room) moves() []*move {
	if r == nil {
		return nil
	}
	var ms []*move
	for _, m := range []*move{r.head, r.block} {
		if m != nil {
			ms = append(ms, m)
		}
	}
	return ms
}

// movePhdr moves a segment (not a PT_LOAD) that lies in a moved run, and
// reports whether it did.
func (r *room) movePhdr(p *phdr) bool {
	if p.typ == ptLoad || p.filesz == 0 {
		return false
	}
	mv := r.moving(p.off)
	if mv == nil {
		return false
	}
	p.off += mv.to - mv.start
	p.vaddr += mv.dva
	p.paddr += mv.dva
	return true
}

// moveShdr moves a section that lies in a moved run, and reports whether
// it did.
func (r *room) moveShdr(x *shdr) bool {
	if x.typ == shtNobits || x.size == 0 {
		return false
	}
	mv := r.moving(x.off)
	if mv == nil {
		return false
	}
	x.off += mv.to - mv.start
	x.addr += mv.dva
	return true
}

// conv maps an input offset inside a moved run to its output offset.
func (r *room) conv(off uint64) (uint64, bool) {
	if r == nil {
		return 0, false
	}
	for _, m := range r.moves() {
		if m.contains(off) {
			return off - m.start + m.to, true
		}
	}
	return 0, false
}

// moving returns the move a section or segment starting at off is part of.
func (r *room) moving(off uint64) *move {
	if r == nil {
		return nil
	}
	for _, m := range r.moves() {
		if m.contains(off) {
			return m
		}
	}
	return nil
}

// Section types the block may hold, each reached only through program
// headers, dynamic tags or section headers.
const (
	shtProgbits   = 1
	shtStrtab     = 3
	shtHash       = 5
	shtDynamic    = 6
	shtNote       = 7
	shtGnuHash    = 0x6ffffff6
	shtGnuVerdef  = 0x6ffffffd
	shtGnuVerneed = 0x6ffffffe
	shtGnuVersym  = 0x6fffffff
	shfAlloc      = 2
	shfWrite      = 1
	shfExec       = 4
)

func movable(s shdr) bool {
	if s.flags&shfAlloc == 0 || s.flags&(shfWrite|shfExec) != 0 {
		return false
	}
	switch s.typ {
	case shtNote, shtDynsym, shtHash, shtGnuHash, shtGnuVerdef, shtGnuVerneed, shtGnuVersym, shtRela, shtRelr:
		return true
	case shtStrtab:
		return s.name == ".dynstr"
	case shtProgbits:
		return s.name == ".interp"
	}
	return false
}

// Dynamic tags whose value is the address of a section the block may hold.
var addressTags = map[uint64]bool{
	4: true, 5: true, 6: true, 7: true, 17: true, 23: true, 36: true, // HASH STRTAB SYMTAB RELA REL JMPREL RELR
	0x6ffffef5: true, 0x6ffffff0: true, 0x6ffffffc: true, 0x6ffffffe: true, // GNU_HASH VERSYM VERDEF VERNEED
}

// Other dynamic tags whose value is an address.
var pointerTags = map[uint64]bool{
	3: true, 12: true, 13: true, 21: true, 25: true, 26: true, 32: true, // PLTGOT INIT FINI DEBUG INIT_ARRAY FINI_ARRAY PREINIT_ARRAY
	0x6ffffef6: true, 0x6ffffef7: true, 0x6ffffef8: true, 0x6ffffef9: true, 0x6ffffefa: true, // TLSDESC_PLT/GOT GNU_CONFLICT GNU_LIBLIST CONFIG
	0x6ffffefb: true, 0x6ffffefc: true, 0x6ffffefd: true, 0x6ffffefe: true, 0x6ffffeff: true, // DEPAUDIT AUDIT PLTPAD MOVETAB SYMINFO
}

// makeRoom returns what moves so that a program header table of n
// entries fits at f.phoff, or nil when it fits already.
func (f *elfFile) makeRoom(n uint64) (*room, error) {
	need := f.phoff + n*phdrSize
	var l0 *phdr
	for i := range f.phdrs {
		if p := &f.phdrs[i]; p.typ == ptLoad && p.off <= f.phoff && f.phoff+uint64(len(f.phdrs))*phdrSize <= p.off+p.filesz {
			l0 = p
			break
		}
	}
	if l0 == nil {
		return nil, refuse("the program header table lies in no loadable segment")
	}
	var after []int // allocated sections with data after the table, by offset
	for i, s := range f.shdrs {
		if s.typ != shtNobits && s.size > 0 && s.flags&shfAlloc != 0 && s.off >= f.phoff {
			after = append(after, i)
		}
	}
	sort.SliceStable(after, func(a, b int) bool { return f.shdrs[after[a]].off < f.shdrs[after[b]].off })
	if need > l0.off+l0.filesz {
		return nil, refuse("the program header table would grow past the end of the segment holding it")
	}
	if len(after) == 0 || f.shdrs[after[0]].off >= need {
		return nil, nil
	}
	bias := l0.vaddr - l0.off
	r := &room{align: 8}
	// The head: notes and .interp, which move up by what the table grows.
	i := 0
	headAlign := uint64(1)
	for ; i < len(after) && shiftable(f.shdrs[after[i]]); i++ {
		s := f.shdrs[after[i]]
		if r.head == nil {
			r.head = &move{start: s.off}
		}
		r.head.secs = append(r.head.secs, after[i])
		r.head.end = max(r.head.end, s.off+s.size)
		headAlign = max(headAlign, s.align)
	}
	limit := need
	if h := r.head; h != nil {
		if h.start >= need {
			r.head = nil
			return nil, nil
		}
		shift := alignUp(need-h.start, max(headAlign, 1))
		h.to, h.vaddr, h.dva = h.start+shift, h.start+bias, shift
		limit = h.end + shift
		if limit > l0.off+l0.filesz {
			return nil, refuse("the notes after the program header table would move past the end of their segment")
		}
	}
	// The block: what follows, until the head's new end is free.
	b := &move{}
	for ; i < len(after); i++ {
		s := f.shdrs[after[i]]
		if s.off >= limit {
			break
		}
		if !movable(s) || s.off+s.size > l0.off+l0.filesz {
			return nil, refuse("section %s follows the program header table, which needs room for one more entry, and cannot be moved", s.name)
		}
		if len(b.secs) == 0 {
			b.start = s.off
		}
		b.secs = append(b.secs, after[i])
		b.end = max(b.end, s.off+s.size)
		r.align = max(r.align, s.align)
	}
	if len(b.secs) > 0 {
		b.vaddr = b.start + bias
		r.block = b
	}
	if h := r.head; h != nil && r.block == nil && i < len(after) && f.shdrs[after[i]].off < limit {
		return nil, refuse("no room to move the notes after the program header table")
	}
	// Every other segment lies wholly inside one run or outside all.
	for _, p := range f.phdrs {
		if p.typ == ptLoad || p.typ == ptPhdr || p.filesz == 0 {
			continue
		}
		inside := false
		for _, m := range r.moves() {
			inside = inside || p.off >= m.start && p.off+p.filesz <= m.end
		}
		overlaps := false
		for _, m := range r.moves() {
			overlaps = overlaps || p.off < m.end && p.off+p.filesz > m.start
		}
		if overlaps && !inside {
			return nil, refuse("segment type %#x overlaps the sections that must move to make room for a program header", p.typ)
		}
	}
	for j, s := range f.shdrs {
		if s.typ == shtNobits || s.size == 0 {
			continue
		}
		for _, m := range r.moves() {
			if s.off < m.end && s.off+s.size > m.start && !slices.Contains(m.secs, j) {
				return nil, refuse("section %s overlaps the sections that must move to make room for a program header", s.name)
			}
		}
	}
	return r, nil
}

// shiftable reports whether a section may move up in place with the
// program header table's growth: notes and .interp, reached through
// PT_NOTE, PT_GNU_PROPERTY and PT_INTERP only.
func shiftable(s shdr) bool {
	return s.flags&shfAlloc != 0 && s.flags&(shfWrite|shfExec) == 0 && (s.typ == shtNote || s.typ == shtProgbits && s.name == ".interp")
}

// place puts the block at the first output offset from at that keeps its
// sections' alignment, in the segment whose address bias (vaddr - offset)
// is bias, and returns where it ends.
func (r *room) place(at, bias uint64) uint64 {
	b := r.block
	if b == nil {
		return at
	}
	b.to = alignDown(at, r.align) + b.start%r.align
	if b.to < at {
		b.to += r.align
	}
	b.dva = b.to + bias - b.vaddr
	return b.to + (b.end - b.start)
}

// write writes the moved runs: the block through w (at its place, after
// the new bundles), the head over its new place; their old bytes become
// zeros (the grown program header table is written over them later).
func (r *room) write(w *counter, out Output, f *elfFile) error {
	if b := r.block; b != nil {
		if err := w.zeros(b.to); err != nil {
			return err
		}
		if err := copyRange(w, f.r, b.start, b.end); err != nil {
			return err
		}
	}
	lo, hi := uint64(0), uint64(0)
	for _, m := range r.moves() {
		if lo == 0 || m.start < lo {
			lo = m.start
		}
		hi = max(hi, m.end)
	}
	if _, err := out.WriteAt(make([]byte, hi-lo), int64(lo)); err != nil {
		return err
	}
	if h := r.head; h != nil {
		data, err := f.read(h.start, h.end-h.start, "notes")
		if err != nil {
			return err
		}
		if _, err := out.WriteAt(data, int64(h.to)); err != nil {
			return err
		}
	}
	return nil
}

// patchMoved writes what refers to the moved runs: dynamic tags, and
// symbols of the moved sections, in the output (conv maps input offsets).
func (f *elfFile) patchMoved(out Output, r *room, m shift) error {
	if r == nil {
		return nil
	}
	var v [8]byte
	put := func(off, val uint64) error {
		o, err := m.conv(off)
		if err != nil {
			return err
		}
		le.PutUint64(v[:], val)
		_, err = out.WriteAt(v[:], int64(o))
		return err
	}
	for i, s := range f.shdrs {
		os := &f.osecs[i]
		var err error
		switch s.typ {
		case shtDynamic:
			err = f.o.Dynamic(os, func(at int64, tag, val uint64) error {
				for _, mv := range r.moves() {
					if !mv.inVA(val) {
						continue
					}
					if !addressTags[tag] {
						if !pointerTags[tag] {
							continue // a size, a flag or a string offset
						}
						return refuse("dynamic tag %#x points at a section that must move to make room for a program header", tag)
					}
					if err := put(uint64(at)+8, val+mv.dva); err != nil {
						return err
					}
				}
				return nil
			})
		case shtSymtab, shtDynsym:
			err = f.o.Symbols(os, func(sym objfile.Symbol) error {
				for _, mv := range r.moves() {
					if slices.Contains(mv.secs, int(sym.Shndx)) {
						if err := put(uint64(f.o.ValueAt(sym)), sym.Value+mv.dva); err != nil {
							return err
						}
					}
				}
				return nil
			})
		case shtRelr:
			err = f.o.RelrPlaces(os, func(place uint64) error {
				for _, mv := range r.moves() {
					if mv.inVA(place) {
						return refuse("%s relocates a section that must move to make room for a program header", s.name)
					}
				}
				return nil
			})
		case shtRela:
			err = f.o.Relocations(os, func(rl objfile.Reloc) error {
				for _, mv := range r.moves() {
					if mv.inVA(rl.Place) {
						return refuse("relocation %d of %s applies to a section that must move to make room for a program header", rl.Index, s.name)
					}
					if rl.Type == relativeType(f.machine) && mv.inVA(rl.Addend) {
						return refuse("relocation %d of %s points at a section that must move to make room for a program header", rl.Index, s.name)
					}
				}
				return nil
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}
