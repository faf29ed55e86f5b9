// Package textfmt reads and writes clang-offload-bundler's text bundles, used
// for the preprocessed-source (i ii cui hipi), dependency (d), LLVM IR (ll)
// and assembly (s) types.
//
// A text bundle is a sequence of entries, each framed by comment lines:
//
//	"\n" C " __CLANG_OFFLOAD_BUNDLE____START__ " ID "\n"
//	payload bytes, verbatim
//	"\n" C " __CLANG_OFFLOAD_BUNDLE____END__ " ID "\n"
//
// where C is the comment string of the file type. Text outside the markers
// is ignored when reading.
package textfmt

import (
	"bytes"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/magic"
)

// Comment returns the comment string of a text bundle type, and false for
// types that are not text types.
func Comment(typ string) (string, bool) {
	switch typ {
	case "i", "ii", "cui", "hipi":
		return "//", true
	case "d", "s":
		return "#", true
	case "ll":
		return ";", true
	}
	return "", false
}

// ErrNoEnd reports an entry without an END marker (LLVM 22's behaviour
// there is undefined).
var ErrNoEnd = fmterr.Kind("no END marker", fmterr.ErrTruncated)

// FormatError reports a malformed text bundle, in the shape package fmterr
// describes: the Offset of the entry's payload, the Field ("END marker"),
// what is wrong (Msg), wrapping ErrNoEnd.
type FormatError struct {
	Offset int64
	Field  string
	Msg    string
	Err    error
}

func (e *FormatError) Error() string { return e.Msg }

func (e *FormatError) Unwrap() error { return e.Err }

func startMarker(c string) string { return "\n" + c + " " + magic.BundleMagic + "__START__ " }
func endMarker(c string) string   { return "\n" + c + " " + magic.BundleMagic + "__END__ " }

// Source is one entry to write.
type Source struct {
	ID string
	R  io.Reader
}

// Write writes the entries in order with the given comment string, streaming
// each payload.
func Write(w io.Writer, comment string, src []Source) error {
	start, end := startMarker(comment), endMarker(comment)
	for _, s := range src {
		if _, err := io.WriteString(w, start+s.ID+"\n"); err != nil {
			return err
		}
		if _, err := io.Copy(w, s.R); err != nil {
			return err
		}
		if _, err := io.WriteString(w, end+s.ID+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// Reader walks the entries of a text bundle held in memory, the way LLVM's
// bundler does: Next finds the next START line; then either Payload reads up
// to the END marker and skips the END line, SkipEnd skips past the END line
// without reading, or neither (the next search starts right after the START
// line, as LLVM's unbundler does for entries it does not want).
type Reader struct {
	data       []byte
	start, end []byte
	pos        int
}

// NewReader returns a reader of data with the given comment string.
func NewReader(data []byte, comment string) *Reader {
	return &Reader{data: data, start: []byte(startMarker(comment)), end: []byte(endMarker(comment))}
}

// Reset starts reading again from the first entry.
func (r *Reader) Reset() { r.pos = 0 }

// Next returns the ID of the next entry, or false when there is none.
func (r *Reader) Next() (string, bool) {
	i := bytes.Index(r.data[r.pos:], r.start)
	if i < 0 {
		r.pos = len(r.data)
		return "", false
	}
	idStart := r.pos + i + len(r.start)
	nl := bytes.IndexByte(r.data[idStart:], '\n')
	if nl < 0 {
		r.pos = len(r.data)
		return "", false
	}
	r.pos = idStart + nl + 1
	return string(r.data[idStart : idStart+nl]), true
}

// Payload returns the current entry's payload: the bytes up to the next END
// marker. It fails with a *FormatError wrapping ErrNoEnd when there is none
// (LLVM 22's behaviour there is undefined).
func (r *Reader) Payload() ([]byte, error) {
	p, err := r.PayloadAt(r.pos)
	if err != nil {
		return nil, err
	}
	r.skipLine(r.pos + len(p) + len(r.end))
	return p, nil
}

// Offset returns where the reader is in the data: after Next, where the
// current entry's payload starts.
func (r *Reader) Offset() int { return r.pos }

// PayloadAt returns the payload of the entry whose payload starts at off
// (Offset after Next returned it), without moving the reader: the bytes up
// to the next END marker, or a *FormatError wrapping ErrNoEnd.
func (r *Reader) PayloadAt(off int) ([]byte, error) {
	i := bytes.Index(r.data[off:], r.end)
	if i < 0 {
		return nil, &FormatError{Offset: int64(off), Field: "END marker", Msg: fmt.Sprintf("bundle entry starting at offset %d has no END marker", off), Err: ErrNoEnd}
	}
	return r.data[off : off+i], nil
}

// SniffLen is how far into a file, or a CCOB's inflated payload, a text
// bundle's first START marker is looked for: text bundles begin with an
// empty line and one.
const SniffLen = 4096

// Sniff reports whether head, the first bytes of a file or of a CCOB's
// payload, starts a text bundle: it has no magic of a known format (a code
// object with a START line in it is a code object) and a START marker in
// its first SniffLen bytes. goffload's readers (inspect, prune) find text
// bundles by this one rule.
func Sniff(head []byte) bool {
	if magic.Identify(head[:min(len(head), magic.Len)]) != magic.Unknown {
		return false
	}
	_, ok := Detect(head[:min(len(head), SniffLen)])
	return ok
}

// comments are the comment strings of the text bundle types.
var comments = [...]string{"//", "#", ";"}

// Detect returns the comment string of the text bundle in data: the one
// ("//", "#" or ";") whose START marker comes first, and false when data holds
// no START marker of any.
func Detect(data []byte) (string, bool) {
	best, found := -1, ""
	for _, c := range comments {
		if i := bytes.Index(data, []byte(startMarker(c))); i >= 0 && (best < 0 || i < best) {
			best, found = i, c
		}
	}
	return found, best >= 0
}

// SkipEnd moves past the current entry's END line, as LLVM does when listing.
func (r *Reader) SkipEnd() {
	i := bytes.Index(r.data[r.pos:], r.end)
	if i < 0 {
		r.pos = len(r.data)
		return
	}
	r.skipLine(r.pos + i + len(r.end))
}

func (r *Reader) skipLine(from int) {
	nl := bytes.IndexByte(r.data[from:], '\n')
	if nl < 0 {
		r.pos = len(r.data)
		return
	}
	r.pos = from + nl + 1
}

// List returns the IDs of every entry in file order.
func List(data []byte, comment string) []string {
	r := NewReader(data, comment)
	var ids []string
	for {
		id, ok := r.Next()
		if !ok {
			return ids
		}
		ids = append(ids, id)
		r.SkipEnd()
	}
}
