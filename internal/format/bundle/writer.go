package bundle

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/format/textfmt"
	"github.com/goffload/goffload/targetid"
)

// A Source is one entry to write: its bundle ID (written as given; the
// bundler writes standard IDs, targetid.ID.Standard) and its bytes,
// R[0:Size]. An *os.File is read through its file offset, from its start,
// so that io.Copy can let the kernel copy it when w is a file too.
type Source struct {
	ID   string
	R    io.ReaderAt
	Size int64
}

// WriteOptions control Write. nil, as the zero value, writes a binary
// bundle with payloads unaligned.
type WriteOptions struct {
	// Type names the file type as clang-offload-bundler's -type does (see
	// Options.Type): text types write a text bundle with their comment
	// string, "o" a fat object when the host's bytes are an ELF object
	// file (a binary bundle when they are no object file), anything else
	// known, and "", a binary bundle.
	Type string
	// Align aligns a binary bundle's payloads to a multiple of it (any
	// positive number, as LLVM's -bundle-align); 0 means 1.
	Align uint64
}

// ErrNoHost is a fat object asked of Write without a host entry, whose
// object the bundle sections are added to.
var ErrNoHost = errors.New("bundle: a fat object needs a host entry")

// ErrBadID is an entry ID Write refuses: empty or not of a bundle entry
// ID's shape.
var ErrBadID = fmterr.Kind("bundle: bad entry ID", fmterr.ErrMalformed)

// ErrNotELF is a fat object asked of Write whose host is an object file
// other than ELF: LLVM's bundler runs llvm-objcopy for those, which this
// package does not do.
var ErrNotELF = errors.New("bundle: writing a fat object needs an ELF host (other objects need llvm-objcopy)")

// Write writes the entries in order as one bundle to w, streaming each
// payload, byte for byte as clang-offload-bundler 22 writes it:
//
//   - a binary bundle (binfmt): header, entry table, payloads each aligned
//     to Align;
//   - a text bundle (textfmt): each payload between START and END comment
//     lines;
//   - a fat object (objfmt.AddSections, as llvm-objcopy lays it out): the
//     last host entry's object, with one section
//     "__CLANG_OFFLOAD_BUNDLE__<ID>" per entry, the host's holding one NUL
//     byte. Without a host the reference is the first entry (LLVM's rule
//     for HIP-only bundles), and when it is an object, ErrNoHost.
func Write(w io.Writer, src []Source, opts *WriteOptions) error {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	// The same ID twice is written twice, as LLVM 22's bundler does for
	// targets that standardise alike; an ID of no entry's shape is not.
	for _, s := range src {
		if _, ok := targetid.ParseStored(s.ID); !ok {
			return fmt.Errorf("%w: %q is not a bundle entry ID (<kind>-<triple>[-<target ID>])", ErrBadID, s.ID)
		}
	}
	st := style{format: Binary}
	if o.Type != "" {
		var err error
		if st, err = styleOf(o.Type); err != nil {
			return err
		}
	}
	switch st.format {
	case Text:
		return writeText(w, src, st.comment)
	case Object:
		if ref, ok := reference(src); ok && objfmt.IsObject(ref.R, ref.Size) {
			return writeObject(w, src)
		}
	}
	return writeBinary(w, src, max(o.Align, 1))
}

func writeBinary(w io.Writer, src []Source, align uint64) error {
	bs := make([]binfmt.Source, len(src))
	for i, s := range src {
		bs[i] = binfmt.Source{ID: s.ID, R: binaryReader(s, src), Size: s.Size}
	}
	return binfmt.Write(w, bs, align)
}

func writeText(w io.Writer, src []Source, comment string) error {
	ts := make([]textfmt.Source, len(src))
	for i, s := range src {
		ts[i] = textfmt.Source{ID: s.ID, R: &payload{s: s}}
	}
	return textfmt.Write(w, comment, ts)
}

// writeObject adds a section per entry to the host's ELF object.
func writeObject(w io.Writer, src []Source) error {
	host := hostIndex(src)
	if host < 0 {
		return ErrNoHost
	}
	h := src[host]
	if !objfmt.IsELF(h.R, h.Size) {
		return ErrNotELF
	}
	secs := make([]objfmt.Section, len(src))
	for i, s := range src {
		secs[i] = objfmt.Section{Name: objfmt.BundlePrefix + s.ID, Data: s.R, Size: s.Size}
		if i == host {
			secs[i].Data, secs[i].Size = oneNUL{}, 1
		}
	}
	return objfmt.AddSections(w, h.R, h.Size, secs)
}

// hostIndex returns the index of the last host entry, or -1.
func hostIndex(src []Source) int {
	host := -1
	for i, s := range src {
		if id, ok := targetid.Parse(s.ID); ok && id.IsHost() {
			host = i
		}
	}
	return host
}

// reference returns the entry whose bytes decide whether a fat object is
// written: the last host entry, else the first.
func reference(src []Source) (Source, bool) {
	if i := hostIndex(src); i >= 0 {
		return src[i], true
	}
	if len(src) == 0 {
		return Source{}, false
	}
	return src[0], true
}

// binaryReader returns a reader of s's bytes for binfmt.Write, which
// reads exactly Size bytes through an *io.LimitedReader of its own: an
// *os.File that no other Source holds, from its start through its offset,
// so that io.Copy meets one *io.LimitedReader over the file, which it
// hands to copy_file_range; anything else through a payload, which seeks
// a file only when its turn comes.
func binaryReader(s Source, src []Source) io.Reader {
	if f, ok := s.R.(*os.File); ok && holders(f, src) == 1 {
		if _, err := f.Seek(0, io.SeekStart); err == nil {
			return f
		}
	}
	return &payload{s: s}
}

// holders counts the Sources reading f.
func holders(f *os.File, src []Source) int {
	n := 0
	for _, s := range src {
		if s.R == io.ReaderAt(f) {
			n++
		}
	}
	return n
}

// payload reads a Source's bytes, R[0:Size], opening them when first read:
// an *os.File from its start through its offset (seeked then, so that
// Sources sharing it each read it whole), anything else through a section
// reader. Its WriteTo hands io.Copy an *io.LimitedReader over the file,
// which it gives to copy_file_range when the output is a file too. Fewer
// than Size bytes are an error, as binfmt.Write says it.
type payload struct {
	s Source
	r io.Reader
	n int64 // bytes read
}

func (p *payload) open() io.Reader {
	if p.r == nil {
		p.r = io.NewSectionReader(p.s.R, 0, p.s.Size)
		if f, ok := p.s.R.(*os.File); ok {
			if _, err := f.Seek(0, io.SeekStart); err == nil {
				p.r = io.LimitReader(f, p.s.Size)
			}
		}
	}
	return p.r
}

func (p *payload) Read(b []byte) (int, error) {
	n, err := p.open().Read(b)
	p.n += int64(n)
	if err == io.EOF {
		err = p.short()
	}
	return n, err
}

func (p *payload) WriteTo(w io.Writer) (int64, error) {
	n, err := io.Copy(w, p.open())
	p.n += n
	if err == nil && p.short() != io.EOF {
		err = p.short()
	}
	return n, err
}

// short returns io.EOF when all Size bytes were read, else an error.
func (p *payload) short() error {
	if p.n < p.s.Size {
		return fmt.Errorf("bundle entry %s: payload is %d bytes, expected %d", p.s.ID, p.n, p.s.Size)
	}
	return io.EOF
}

// oneNUL is the host section's content: one NUL byte.
type oneNUL struct{}

func (oneNUL) ReadAt(p []byte, off int64) (int, error) {
	if off != 0 || len(p) == 0 {
		return 0, io.EOF
	}
	p[0] = 0
	if len(p) > 1 {
		return 1, io.EOF
	}
	return 1, nil
}
