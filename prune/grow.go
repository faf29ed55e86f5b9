package prune

import "io"

// A replacement larger than what it replaces makes .hip_fatbin grow, and
// in a linked file nothing after it may move. The bundles then go, all of
// them, into a new read-only PT_LOAD past the end of the file and of the
// address space; .hip_fatbin's section header follows them there, every
// pointer to a bundle is patched, and the old bytes become zeros (the
// file grows by the new bundles). The new segment takes one more program
// header, made room for as for a split (phdrroom.go); the dynamic-linking
// tables that move for it go into the new segment after the bundles.

// growFatbin rewrites a linked file whose bundles no longer fit in
// .hip_fatbin (section fatIdx of f, split into spans; ptrs point at them).
func (s *selector) growFatbin(out Output, f *elfFile, fat *shdr, fatIdx int, spans []span, ptrs []pointer) error {
	page, vend := uint64(4096), uint64(0)
	last := -1
	for i, p := range f.phdrs {
		if p.typ == ptLoad {
			page = max(page, p.align)
			vend = max(vend, p.vaddr+p.memsz)
			last = i
		}
	}
	if last < 0 {
		return refuse("no loadable segment")
	}
	if f.shoff+uint64(len(f.shdrs))*shdrSize > uint64(f.size) {
		return refuse("the section header table runs past the end of the file")
	}
	vaddr := alignUp(vend, page)
	off := alignUp(uint64(f.size), page)
	rm, err := f.makeRoom(uint64(len(f.phdrs) + 1))
	if err != nil {
		return err
	}

	// The file as it was, .hip_fatbin's old bytes zeroed, written from
	// offset 0 over what the first try wrote (which ended sooner: the same
	// bundles, from .hip_fatbin's offset).
	w := &counter{w: io.NewOffsetWriter(out, 0)}
	if err := copyRange(w, f.r, 0, fat.off); err != nil {
		return err
	}
	if err := w.zeros(fat.off + fat.size); err != nil {
		return err
	}
	if err := copyRange(w, f.r, fat.off+fat.size, uint64(f.size)); err != nil {
		return err
	}
	// The new segment: the bundles, then what moved for its header.
	if err := w.zeros(off); err != nil {
		return err
	}
	newStart, err := s.writeBundles(w, f, fat, off, spans)
	if err != nil {
		return err
	}
	newSize := w.n - off
	end := w.n
	if rm != nil {
		end = rm.place(end, vaddr-off)
		if err := rm.write(w, out, f); err != nil {
			return err
		}
	}

	// Headers: one more PT_LOAD after the last, PT_PHDR grown, moved
	// segments and sections, .hip_fatbin at its new place.
	var phdrs []phdr
	for i, p := range f.phdrs {
		switch {
		case p.typ == ptPhdr:
			p.filesz, p.memsz = uint64(len(f.phdrs)+1)*phdrSize, uint64(len(f.phdrs)+1)*phdrSize
		default:
			rm.movePhdr(&p)
		}
		phdrs = append(phdrs, p)
		if i == last {
			phdrs = append(phdrs, phdr{typ: ptLoad, flags: 4, off: off, vaddr: vaddr, paddr: vaddr, filesz: end - off, memsz: end - off, align: page})
		}
	}
	err = f.writeHeaders(out, phdrs, f.phoff, f.shoff, func(i int, x *shdr) {
		if i == fatIdx {
			x.off, x.addr, x.size = off, vaddr, newSize
		} else {
			rm.moveShdr(x)
		}
	})
	if err != nil {
		return err
	}
	// Nothing moved but the runs of rm: offsets outside .hip_fatbin stay.
	m := shift{fatOff: fat.off, tail: fat.off + fat.size, room: rm}
	if err := patchPointers(out, ptrs, newStart, vaddr, m); err != nil {
		return err
	}
	if err := f.patchMoved(out, rm, m); err != nil {
		return err
	}
	s.report.SizeAft = int64(w.n)
	s.report.Notes = append(s.report.Notes, "the new device code is larger than .hip_fatbin: the bundles moved to a new segment at the end of the file")
	return nil
}
