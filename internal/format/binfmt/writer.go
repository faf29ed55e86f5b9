package binfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/format/magic"
)

// Source is one entry to write: its (standardised) ID and its payload.
// R is read exactly Size bytes; passing an *os.File (or an *io.LimitedReader
// over one) lets io.Copy use copy_file_range when the output is a file.
type Source struct {
	ID   string
	R    io.Reader
	Size int64
}

// Layout computes where LLVM 22 puts each payload: after the header, each
// aligned to align. offsets are what the header records for each entry.
// padTo is where the writer pads to before each payload: LLVM looks those
// up by ID, so entries sharing an ID all pad to the offset of the last one
// (the file then disagrees with its own header, reproducibly).
func Layout(src []Source, align uint64) (offsets, padTo []int64, err error) {
	if align == 0 {
		return nil, nil, errors.New("bundle alignment must be at least 1")
	}
	hdr := uint64(entriesOff)
	for _, s := range src {
		hdr += entryFixed + uint64(len(s.ID))
	}
	last := make(map[string]int64, len(src))
	cur := hdr
	for _, s := range src {
		off := alignTo(cur, align)
		offsets = append(offsets, int64(off))
		last[s.ID] = int64(off)
		cur = off + uint64(s.Size)
	}
	for _, s := range src {
		padTo = append(padTo, last[s.ID])
	}
	return offsets, padTo, nil
}

func alignTo(v, a uint64) uint64 { return (v + a - 1) / a * a }

// Write writes a binary bundle of src, in order, with payloads aligned to
// align, streaming each payload from its reader.
func Write(w io.Writer, src []Source, align uint64) error {
	offsets, padTo, err := Layout(src, align)
	if err != nil {
		return err
	}
	var hdr []byte
	hdr = append(hdr, magic.BundleMagic...)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(src)))
	for i, s := range src {
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(offsets[i]))
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(s.Size))
		hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(s.ID)))
		hdr = append(hdr, s.ID...)
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	pos := int64(len(hdr))
	for i, s := range src {
		if pad := padTo[i] - pos; pad > 0 {
			if err := writeZeros(w, pad); err != nil {
				return err
			}
			pos += pad
		}
		n, err := io.Copy(w, io.LimitReader(s.R, s.Size))
		if err != nil {
			return err
		}
		if n != s.Size {
			return fmt.Errorf("bundle entry %s: payload is %d bytes, expected %d", s.ID, n, s.Size)
		}
		pos += n
	}
	return nil
}

var zeros [64 << 10]byte

func writeZeros(w io.Writer, n int64) error {
	for n > 0 {
		k := min(n, int64(len(zeros)))
		if _, err := w.Write(zeros[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}
