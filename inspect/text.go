package inspect

import (
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/textfmt"
)

// walkText lists a text bundle (.s, .ll, .hipi, ...) through textfmt.Scan,
// the streaming reader that finds what LLVM's bundler finds, so memory
// does not grow with the file. An END marker naming another entry and an
// entry without one are reported as damage.
func (w *walker) walkText(r io.ReaderAt, size int64, p place) {
	w.scanText(io.NewSectionReader(r, 0, size), r, p)
}

// scanText lists the text bundle src holds; its entries are read from r,
// or, inside compressed data (r nil), opened as p's other objects are;
// there, at most textfmt.MaxHeldEntries are listed (each is held until
// the facts of its CCOB's objects are read, and zstd packs millions of
// empty entries in kilobytes).
func (w *walker) scanText(src io.Reader, r io.ReaderAt, p place) {
	n := 0
	_, err := textfmt.Scan(src, "", func(s textfmt.Span) error {
		if n++; r == nil && n > textfmt.MaxHeldEntries {
			return &textfmt.FormatError{Offset: s.Start, Field: "START marker",
				Msg: fmt.Sprintf("more than %d entries in a compressed text bundle", textfmt.MaxHeldEntries), Err: fmterr.ErrLimit}
		}
		w.leaf(entryObject(s.ID, "text bundle entry"), r, s.Offset, s.Size, p)
		if s.EndID != s.ID {
			w.fail(p, s.Offset+s.Size+1, "END marker", fmt.Errorf("%w: entry %q ends with the END marker of %q", ErrMalformed, s.ID, s.EndID))
		}
		return nil
	})
	var fe *textfmt.FormatError
	switch {
	case errors.As(err, &fe) && errors.Is(err, fmterr.ErrLimit):
		w.fail(p, fe.Offset, fe.Field, err)
	case errors.As(err, &fe):
		w.fail(p, fe.Offset, fe.Field, &bareError{fe.Msg, fmt.Errorf("%w: %w", ErrTruncated, err)})
	case err != nil:
		w.fail(p, 0, "text", err)
	}
}
