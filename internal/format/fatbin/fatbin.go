// Package fatbin finds the bundles of a run: binary bundles and CCOBs
// between zero padding, as a .hip_fatbin section holds one per translation
// unit. It is the one scanner of runs under package inspect (which lists
// them) and package prune (which rewrites them).
package fatbin

import (
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/readerat"
)

// A Item is one bundle of a run: a binary bundle or a CCOB.
type Item struct {
	Index int
	// Offset and End place the bundle in the run: a binary bundle ends
	// after its entry table and its last payload, a CCOB where its header
	// says (a v1 zlib CCOB where its stream does).
	Offset, End int64
	Compressed  bool
	// Member is a CCOB's header, when Compressed.
	Member *compress.Member
	// Rows is a binary bundle's entry table, as binfmt.Scan read it.
	Rows []binfmt.Row
}

// A Error reports damage in a run of bundles: which bundle (Index, at
// Offset in the run) and what (What: "padding" when the run cannot be
// read, "bytes" for bytes that are neither a bundle, a CCOB nor padding,
// "bundle" for a binary bundle's table, "CCOB" for a CCOB's header),
// wrapping the format package's error, whose offsets are the bundle's own.
type Error struct {
	Index  int
	Offset int64
	What   string
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("fatbin: %s %d at offset %d in the run: %v", e.What, e.Index, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Runs visits the run of bundles in r[0:size]: binary bundles and CCOBs
// separated by zero padding, as a .hip_fatbin section holds one per
// translation unit (each 4 KiB aligned), or a bundle file one. It calls fn
// for each bundle in order and stops at the first error fn returns, or at
// damage, reported as a *Error: bytes that are neither a bundle, a CCOB
// nor padding, a binary bundle whose entry table cannot be read (binfmt.Scan's
// rules), a CCOB whose header cannot. Package inspect lists and package prune
// rewrites .hip_fatbin through it.
func Runs(r io.ReaderAt, size int64, fn func(Item) error) error {
	var off int64
	for n := 0; ; n++ {
		next, err := readerat.SkipZeros(r, off, size)
		if err != nil {
			return &Error{Index: n, Offset: off, What: "padding", Err: err}
		}
		if next >= size {
			return nil
		}
		it := Item{Index: n, Offset: next}
		var h [len(magic.BundleMagic)]byte
		k, _ := r.ReadAt(h[:min(int64(len(h)), size-next)], next)
		switch {
		case string(h[:k]) == magic.BundleMagic:
			rows, end, err := binaryEnd(io.NewSectionReader(r, next, size-next), size-next)
			if err != nil {
				return &Error{Index: n, Offset: next, What: "bundle", Err: err}
			}
			it.End, it.Rows = next+end, rows
		case compress.IsCompressed(h[:k]):
			it.Compressed = true
			cr := compress.NewReader(io.NewSectionReader(r, next, size-next), size-next)
			m, err := cr.Next()
			if err != nil {
				return &Error{Index: n, Offset: next, What: "CCOB", Err: err}
			}
			if m.PayloadSize < 0 {
				// A v1 zlib member ends where its stream does.
				if _, err := io.Copy(io.Discard, cr); err != nil && !errors.Is(err, compress.ErrHashMismatch) {
					return &Error{Index: n, Offset: next, What: "CCOB", Err: err}
				}
			}
			it.Member, it.End = m, next+m.End()
		default:
			return &Error{Index: n, Offset: next, What: "bytes", Err: fmt.Errorf("%w: bytes % x are neither a bundle, a CCOB nor zero padding", fmterr.ErrMalformed, h[:min(k, 8)])}
		}
		if err := fn(it); err != nil {
			return err
		}
		if it.End <= next {
			return nil
		}
		off = it.End
	}
}

// binaryEnd is where the binary bundle in r[0:size] ends: past its entry
// table and the last payload of its readable entries.
func binaryEnd(r io.ReaderAt, size int64) ([]binfmt.Row, int64, error) {
	rows, err := binfmt.Scan(io.NewSectionReader(r, 0, size), size)
	if err != nil {
		return nil, 0, err
	}
	end := int64(32) // the header of an empty table
	for _, e := range rows {
		end = max(end, e.At+24+int64(len(e.ID)))
		if e.Bad == nil {
			end = max(end, int64(e.Offset+e.Size))
		}
	}
	return rows, end, nil
}
