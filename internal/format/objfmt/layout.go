package objfmt

import (
	"cmp"
	"fmt"
	"slices"
)

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
