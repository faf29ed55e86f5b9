package objfmt

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
)

// piece is a run of output bytes at a file offset.
type piece struct {
	off  uint64
	size uint64
	data []byte      // or
	src  io.ReaderAt // with srcAt
	at   int64
}

// write emits the file: header, segment contents, the sections laid out by
// layout and the section header table, with zeros in between.
func (f *elfFile) write(dst io.Writer, out []*outSection, segs []segment, shoff uint64, shstrndx uint32) error {
	// Buffered for the many small pieces; large copies go past the buffer
	// (bufio.Writer.ReadFrom hands them to dst when the buffer is empty).
	w := bufio.NewWriterSize(dst, 64<<10)
	var ps []piece
	ps = append(ps, piece{off: 0, data: f.ehdr(len(out), shoff, shstrndx)})
	if f.phnum > 0 {
		// llvm-objcopy writes the program header table over the
		// segment contents, where layout put it: its entries are the
		// input's, since segments keep their offsets.
		ps = append(ps, piece{off: f.outPhoff, size: uint64(f.phnum * f.phentsize), src: f.r, at: int64(f.phoff)})
	}
	for _, g := range segs {
		if g.end > g.off {
			ps = append(ps, piece{off: g.off, size: g.end - g.off, src: f.r, at: int64(g.off)})
		}
	}
	for _, s := range out[1:] {
		if s.fixed || s.typ == shtNobits || s.size == 0 {
			continue
		}
		if s.data != nil {
			ps = append(ps, piece{off: s.off, data: s.data})
		} else {
			ps = append(ps, piece{off: s.off, size: s.size, src: s.src, at: s.srcAt})
		}
	}
	if !f.noShdrs {
		ps = append(ps, piece{off: shoff, data: f.shdrs(out, shstrndx)})
	}
	for i := range ps {
		if ps[i].data != nil {
			ps[i].size = uint64(len(ps[i].data))
		}
	}
	slices.SortStableFunc(ps, func(a, b piece) int {
		switch {
		case a.off < b.off:
			return -1
		case a.off > b.off:
			return 1
		}
		return 0
	})
	buf := make([]byte, 64<<10)
	var cur uint64
	for _, p := range ps {
		end := p.off + p.size
		if end <= cur {
			continue
		}
		skip := uint64(0)
		if p.off < cur {
			skip = cur - p.off
		} else if err := writeZeros(w, buf, p.off-cur); err != nil {
			return err
		}
		if p.data != nil {
			if _, err := w.Write(p.data[skip:]); err != nil {
				return err
			}
		} else if err := copyRange(w, p.src, p.at+int64(skip), int64(p.size-skip)); err != nil {
			return err
		}
		cur = end
	}
	return w.Flush()
}

func writeZeros(w io.Writer, buf []byte, n uint64) error {
	clear(buf)
	for n > 0 {
		k := min(n, uint64(len(buf)))
		if _, err := w.Write(buf[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// ehdr encodes the ELF header of the output.
func (f *elfFile) ehdr(nsec int, shoff uint64, shstrndx uint32) []byte {
	bo := f.bo
	b := make([]byte, f.ehdrSize())
	copy(b, f.ident[:9]) // magic, class, data, version, OS ABI, ABI version
	b[6] = 1
	bo.PutUint16(b[16:], f.typ)
	bo.PutUint16(b[18:], f.machine)
	bo.PutUint32(b[20:], f.version)
	phoff, phentsize := uint64(0), 0
	if f.phnum > 0 {
		phoff, phentsize = f.outPhoff, f.phentsize
	}
	shentsize := f.shdrSize()
	if f.noShdrs {
		nsec, shoff, shentsize = 0, 0, 0
	}
	shnum, strndx := uint16(nsec), uint16(shstrndx)
	if nsec >= shnLoReserve {
		shnum = 0
	}
	if shstrndx >= shnLoReserve {
		strndx = shnXIndex
	}
	if f.is64 {
		bo.PutUint64(b[24:], f.entry)
		bo.PutUint64(b[32:], phoff)
		bo.PutUint64(b[40:], shoff)
		bo.PutUint32(b[48:], f.flags)
		bo.PutUint16(b[52:], ehdrSize64)
		bo.PutUint16(b[54:], uint16(phentsize))
		bo.PutUint16(b[56:], uint16(f.phnum))
		bo.PutUint16(b[58:], uint16(shentsize))
		bo.PutUint16(b[60:], shnum)
		bo.PutUint16(b[62:], strndx)
	} else {
		bo.PutUint32(b[24:], uint32(f.entry))
		bo.PutUint32(b[28:], uint32(phoff))
		bo.PutUint32(b[32:], uint32(shoff))
		bo.PutUint32(b[36:], f.flags)
		bo.PutUint16(b[40:], ehdrSize32)
		bo.PutUint16(b[42:], uint16(phentsize))
		bo.PutUint16(b[44:], uint16(f.phnum))
		bo.PutUint16(b[46:], uint16(shentsize))
		bo.PutUint16(b[48:], shnum)
		bo.PutUint16(b[50:], strndx)
	}
	return b
}

// shdrs encodes the section header table of the output.
func (f *elfFile) shdrs(out []*outSection, shstrndx uint32) []byte {
	sz := f.shdrSize()
	b := make([]byte, len(out)*sz)
	null := elfSection{}
	if len(out) >= shnLoReserve {
		null.size = uint64(len(out))
	}
	if shstrndx >= shnLoReserve {
		null.link = shstrndx
	}
	f.encodeShdr(b, &null)
	for i, s := range out[1:] {
		f.encodeShdr(b[(i+1)*sz:], &s.elfSection)
	}
	return b
}

func (f *elfFile) encodeShdr(b []byte, s *elfSection) {
	bo := f.bo
	if f.is64 {
		bo.PutUint32(b[0:], s.nameOff)
		bo.PutUint32(b[4:], s.typ)
		bo.PutUint64(b[8:], s.flags)
		bo.PutUint64(b[16:], s.addr)
		bo.PutUint64(b[24:], s.off)
		bo.PutUint64(b[32:], s.size)
		bo.PutUint32(b[40:], s.link)
		bo.PutUint32(b[44:], s.info)
		bo.PutUint64(b[48:], s.align)
		bo.PutUint64(b[56:], s.entsize)
		return
	}
	bo.PutUint32(b[0:], s.nameOff)
	bo.PutUint32(b[4:], s.typ)
	bo.PutUint32(b[8:], uint32(s.flags))
	bo.PutUint32(b[12:], uint32(s.addr))
	bo.PutUint32(b[16:], uint32(s.off))
	bo.PutUint32(b[20:], uint32(s.size))
	bo.PutUint32(b[24:], s.link)
	bo.PutUint32(b[28:], s.info)
	bo.PutUint32(b[32:], uint32(s.align))
	bo.PutUint32(b[36:], uint32(s.entsize))
}

// copyRange copies n bytes at off in src to w. From an *os.File to a writer
// over an *os.File, large copies go through the file offset of src (which
// moves) so that the kernel can copy them (copy_file_range).
func copyRange(w *bufio.Writer, src io.ReaderAt, off, n int64) error {
	var r io.Reader = io.NewSectionReader(src, off, n)
	if f, ok := src.(*os.File); ok && n >= 1<<16 {
		if err := w.Flush(); err != nil {
			return err
		}
		if _, err := f.Seek(off, io.SeekStart); err == nil {
			r = io.LimitReader(f, n)
		}
	}
	m, err := io.Copy(w, r)
	if err != nil {
		return err
	}
	if m != n {
		return fmt.Errorf("objfmt: short read at offset %#x: %w", off+m, io.ErrUnexpectedEOF)
	}
	return nil
}
