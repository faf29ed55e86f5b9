package offloadbin

import (
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/fmterr"
)

// StringEntry is one key/value pair of an image's string map.
type StringEntry struct {
	Key, Value string
}

// Binary is one image read from a container: its metadata and where its
// bytes are. A v1 binary holds exactly one image; a v2 or v3 binary may hold
// several, each returned as its own Binary with the same Offset.
type Binary struct {
	Version uint32
	// Offset is where the binary's header starts in the buffer that was
	// walked; Size is the header's size field (bytes the binary occupies,
	// compressed size for compressed v3).
	Offset, Size int64
	// Index is the entry's position within its binary (always 0 in v1).
	Index       int
	ImageKind   ImageKind
	OffloadKind OffloadKind
	Flags       uint32
	// Strings holds the string entries in stored order (duplicates kept).
	Strings []StringEntry

	image *io.SectionReader
	buf   io.ReaderAt // the buffer walked, holding the binary's header
	at    int64       // the header's offset in buf
}

// String returns the value stored for key, or "" when there is none. When a
// key occurs more than once, the last entry wins, as in LLVM.
func (b *Binary) String(key string) string {
	v := ""
	for _, s := range b.Strings {
		if s.Key == key {
			v = s.Value
		}
	}
	return v
}

// Triple returns the "triple" string.
func (b *Binary) Triple() string { return b.String("triple") }

// Arch returns the "arch" string.
func (b *Binary) Arch() string { return b.String("arch") }

// BundleID is the bundle entry ID an image would have in an offload
// bundle, the one spelling every goffload package gives it:
// "<kind>-<triple>-<arch>", the triple padded to four components as
// bundle IDs have it ("hip-amdgcn-amd-amdhsa--gfx90a").
func (b *Binary) BundleID() string {
	t := strings.SplitN(b.Triple(), "-", 4)
	for len(t) < 4 {
		t = append(t, "")
	}
	return b.OffloadKind.String() + "-" + strings.Join(t, "-") + "-" + b.Arch()
}

// Image returns a reader over the image bytes (exact, unpadded).
func (b *Binary) Image() *io.SectionReader {
	return io.NewSectionReader(b.image, 0, b.image.Size())
}

// ImageSize returns the image's length in bytes.
func (b *Binary) ImageSize() int64 { return b.image.Size() }

// ImageAt returns where the image lies: the reader holding it and its
// offset there. That reader is the one the binary was read from or, for a
// compressed (v3) binary, its inflated bytes (inflated true), held in
// memory.
func (b *Binary) ImageAt() (r io.ReaderAt, off int64, inflated bool) {
	r, off, _ = b.image.Outer()
	return r, off, r != b.buf
}

// Nested reports whether the image is itself an OffloadBinary (clang nests
// them): the magic and a binary that reads behind it. An image of the magic
// and nothing readable is an image like any other, as LLVM 22 lists and
// extracts it.
func (b *Binary) Nested() bool {
	img := b.Image()
	if !hasMagicAt(img, 0, img.Size()) {
		return false
	}
	_, _, err := Read(img, 0, img.Size())
	return err == nil
}

// The two kinds of read failure LLVM distinguishes. Every error returned by
// the reader wraps one of them (errors.Is), so a drop-in tool can print
// LLVM's text while the error itself says what was wrong and where.
var (
	// ErrInvalid is LLVM's parse_failed: "Invalid data was encountered
	// while parsing the file".
	ErrInvalid = fmterr.Kind("Invalid data was encountered while parsing the file", fmterr.ErrMalformed)
	// ErrTruncated is LLVM's unexpected_eof: "The end of the file was
	// unexpectedly encountered".
	ErrTruncated = fmterr.Kind("The end of the file was unexpectedly encountered", fmterr.ErrTruncated)
)

// FormatError describes malformed input, in the shape package fmterr
// describes: at which offset, which field, what is wrong with it, and which
// of LLVM's two messages (Err: ErrInvalid or ErrTruncated; LLVM: its text,
// which LLVMMessage returns) the same input gets from LLVM 22.
type FormatError struct {
	Offset int64  // of the binary's header within the walked buffer
	Field  string // e.g. "header size", "string entry 3 key offset"
	Msg    string
	LLVM   string // LLVM 22's text: Err's
	Err    error  // ErrInvalid or ErrTruncated
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("offload binary at offset %#x: %s: %s", e.Offset, e.Field, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

// LLVMMessage returns the text LLVM 22 prints for the error.
func (e *FormatError) LLVMMessage() string { return e.LLVM }

// formatError builds a FormatError wrapping kind, ErrInvalid or
// ErrTruncated, whose text is LLVM's.
func formatError(off int64, field string, kind error, format string, a ...any) *FormatError {
	return &FormatError{Offset: off, Field: field, Msg: fmt.Sprintf(format, a...), LLVM: kind.Error(), Err: kind}
}
