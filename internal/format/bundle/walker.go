package bundle

import (
	"io"

	"github.com/goffload/goffload/internal/format/textfmt"
)

// A Walker visits a bundle's entries as clang-offload-bundler 22's
// unbundler does: in Entries' order, except in text bundles, where LLVM
// reads only the payloads it extracts. After an entry Take was called for,
// the search for the next START marker goes on after the entry's END line
// (as after listing it); after any other, right after its START line, so
// that a START line inside a payload skipped is an entry of its own.
type Walker struct {
	b    *Bundle
	p    int             // the container walked
	i    int             // the next entry of a binary or object container
	text *textfmt.Reader // the walk of a text container
	cur  *Entry
}

// Walk returns a Walker at the bundle's first entry.
func (b *Bundle) Walk() *Walker { return &Walker{b: b} }

// Next returns the next entry, io.EOF after the last, or the damage of a
// fat object met after its entries (an *objfmt.LLVMError, returned again
// by every later call).
func (w *Walker) Next() (*Entry, error) {
	w.cur = nil
	for w.p < len(w.b.parts) {
		p := w.b.parts[w.p]
		if e, ok := w.nextIn(p); ok {
			w.cur = e
			return e, nil
		}
		if p.tail != nil {
			return nil, p.tail
		}
		w.p, w.i, w.text = w.p+1, 0, nil
	}
	return nil, io.EOF
}

// nextIn returns the next entry of container p, or false at its end.
func (w *Walker) nextIn(p *part) (*Entry, bool) {
	if p.format != Text {
		if w.i >= len(p.entries) {
			return nil, false
		}
		w.i++
		return p.entries[w.i-1], true
	}
	if w.text == nil {
		w.text = textfmt.NewReader(p.data, p.comment)
	}
	id, ok := w.text.Next()
	if !ok {
		return nil, false
	}
	return &Entry{ID: id, part: p, r: p.r, off: int64(w.text.Offset()), size: -1}, true
}

// Take says that the entry Next returned last was extracted: in a text
// bundle, the walk goes on after its END line. It does nothing elsewhere,
// nor a second time.
func (w *Walker) Take() {
	if w.cur != nil && w.text != nil && w.cur.part.format == Text {
		w.text.SkipEnd()
	}
	w.cur = nil
}
