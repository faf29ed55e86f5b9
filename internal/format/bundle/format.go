package bundle

import (
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/format/textfmt"
)

// Format is the container format of an uncompressed offload bundle.
type Format int

const (
	// Binary is the binary bundle format (package binfmt), of -type=bc,
	// gch and ast, and of -type=o inputs that are not object files.
	Binary Format = iota + 1
	// Text is the text bundle format (package textfmt), of -type=i, ii,
	// cui, hipi, d, ll and s.
	Text
	// Object is a fat object (package objfmt): a host object file with
	// one section per entry, of -type=o.
	Object
	// OffloadBinary is not an offload bundle but the new offload driver's
	// container (package offloadbin, magic 0x10FF10AD), whose images Read
	// lists as entries when no type is given; Write does not write it
	// (offloadbin.Write does).
	OffloadBinary
)

// String returns the format's name: "binary", "text" or "object".
func (f Format) String() string {
	switch f {
	case Binary:
		return "binary"
	case Text:
		return "text"
	case Object:
		return "object"
	case OffloadBinary:
		return "OffloadBinary"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ErrUnknownType reports an Options.Type or WriteOptions.Type that
// clang-offload-bundler's -type does not name.
var ErrUnknownType = errors.New("bundle: unknown file type")

// ErrNotBundle reports, when no type was given, an input that is neither
// an object file, a binary bundle, a CCOB nor a text bundle.
var ErrNotBundle = fmterr.Kind("bundle: not an offload bundle", fmterr.ErrMalformed)

// style is how a file type is read and written: its format and, for text,
// its comment string. An Object style reads as Binary where the content is
// no object file, as LLVM does.
type style struct {
	format  Format
	comment string
}

// styleOf returns the style of clang-offload-bundler's -type value typ.
// "a" (a heterogeneous device archive) is read as "o", as LLVM's -list
// reads it: a fat object lists its entries, an archive none.
func styleOf(typ string) (style, error) {
	if c, ok := textfmt.Comment(typ); ok {
		return style{Text, c}, nil
	}
	switch typ {
	case "bc", "gch", "ast":
		return style{format: Binary}, nil
	case "o", "a":
		return style{format: Object}, nil
	}
	return style{}, fmt.Errorf("%w %q", ErrUnknownType, typ)
}

// sniffLen is how much of an input too large to read whole is searched for
// a text bundle's START marker when no type is given.
const sniffLen = 1 << 20

// detect finds the style of an uncompressed input without a type: an
// object file, a binary bundle, an OffloadBinary, else a text bundle of the
// comment style whose START marker comes first. data is the whole input when it was
// read (it fits maxText), else nil.
func detect(r io.ReaderAt, size, maxText int64) (style, []byte, error) {
	switch {
	case objfmt.IsObject(r, size):
		return style{format: Object}, nil, nil
	case binfmt.IsBundle(r, size):
		return style{format: Binary}, nil, nil
	case isOffloadBinary(r, size):
		return style{format: OffloadBinary}, nil, nil
	case isCompressed(r, size):
		return style{}, nil, fmt.Errorf("%w: a CCOB, which Open inflates", ErrNotBundle)
	}
	n := size
	if size > maxText {
		n = min(size, sniffLen)
	}
	data, err := readAll(r, n)
	if err != nil {
		return style{}, nil, err
	}
	c, ok := textfmt.Detect(data)
	if !ok {
		return style{}, nil, ErrNotBundle
	}
	if n < size {
		data = nil
	}
	return style{Text, c}, data, nil
}
