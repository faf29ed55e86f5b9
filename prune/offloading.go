package prune

import (
	"io"

	"github.com/goffload/goffload/internal/objfile"
)

// shtLLVMOffloading is SHT_LLVM_OFFLOADING, the type of .llvm.offloading.
const shtLLVMOffloading = 0x6fff4c0b

// offloadingSection returns the index of a relocatable object's single
// OffloadBinary section (.llvm.offloading, by name or type), -1 when there
// is none, and refuses several.
func (f *elfFile) offloadingSection() (int, error) {
	idx := -1
	for i, s := range f.shdrs {
		if s.typ == shtLLVMOffloading || s.name == ".llvm.offloading" {
			if idx >= 0 {
				return -1, refuse("several OffloadBinary sections")
			}
			idx = i
		}
	}
	return idx, nil
}

// maxPadding bounds the zeros an alignment may add to a rewritten file.
const maxPadding = 1 << 30

// rewriteOffloading rewrites the OffloadBinaries of a relocatable object's
// .llvm.offloading section (a new-driver object) and lays out the rest of
// the file again: later sections move by a multiple of their largest
// alignment, down or up (a replacement may be larger). Nothing may point
// into the section but its start.
func (s *selector) rewriteOffloading(out Output, f *elfFile, idx int) error {
	sec := f.shdrs[idx]
	if sec.typ == shtNobits {
		return refuse("%s holds no data", sec.name)
	}
	for _, r := range f.shdrs {
		if (r.typ == shtRela || r.typ == shtRel) && int(r.info) == idx && r.size > 0 {
			return refuse("relocations apply to %s (%s)", sec.name, r.name)
		}
	}
	for i, st := range f.shdrs {
		if st.typ != shtSymtab {
			continue
		}
		err := f.o.Symbols(&f.osecs[i], func(sym objfile.Symbol) error {
			if int(sym.Shndx) == idx && sym.Value != 0 {
				return refuse("symbol %d points into %s", sym.Index, sec.name)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	w := &counter{w: out}
	if err := copyRange(w, f.r, 0, sec.off); err != nil {
		return err
	}
	if err := s.offloadBinaries(w, io.NewSectionReader(f.r, int64(sec.off), int64(sec.size)), int64(sec.size), int64(sec.off), sec.name+" › offload binary"); err != nil {
		return err
	}
	newSize := w.n - sec.off
	end := sec.off + sec.size
	tail, align := f.tailAfter(end)
	newEnd := sec.off + newSize
	// The tail moves to newTail: as far down as alignment allows, or up
	// when the section grew past it.
	var newTail uint64
	if newEnd <= tail {
		newTail = tail - alignDown(tail-newEnd, align)
	} else {
		newTail = tail + alignUp(newEnd-tail, align)
	}
	if newTail > w.n && newTail-w.n > maxPadding {
		// A damaged alignment must not make us write gigabytes of zeros.
		return refuse("%s: alignment %d would pad the output by %d bytes", sec.name, align, newTail-w.n)
	}
	if err := w.zeros(newTail); err != nil {
		return err
	}
	if err := copyRange(w, f.r, tail, uint64(f.size)); err != nil {
		return err
	}
	move := func(off uint64) uint64 {
		if off >= tail {
			return off - tail + newTail
		}
		return off
	}
	shoff := move(f.shoff)
	eh := f.ehdr
	le.PutUint64(eh[40:], shoff)
	if _, err := out.WriteAt(eh[:], 0); err != nil {
		return err
	}
	sh := make([]byte, len(f.shdrs)*shdrSize)
	for i, x := range f.shdrs {
		if i == idx {
			x.size = newSize
		} else if x.off >= tail {
			x.off = move(x.off)
		}
		encodeShdr(sh[i*shdrSize:], x)
	}
	if _, err := out.WriteAt(sh, int64(shoff)); err != nil {
		return err
	}
	s.report.SizeAft = int64(w.n)
	return nil
}
