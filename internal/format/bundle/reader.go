package bundle

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/goffload/goffload/internal/format/magic"
	"io"
	"strings"
	"sync"

	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/format/textfmt"
	"github.com/goffload/goffload/internal/readerat"
	"github.com/goffload/goffload/targetid"
)

// A Bundle is an offload bundle read: one container, or several when it
// was inflated from CCOBs back to back (one per CCOB, read one after the
// other).
type Bundle struct {
	// Format is the format of the (first) container.
	Format Format
	// Inflated describes the CCOBs the bundle was inflated from, nil when
	// it was not compressed. Close releases it.
	Inflated *Inflated

	parts []*part
}

// part is one uncompressed container of a bundle.
type part struct {
	format Format
	r      io.ReaderAt // the container; for text, its bytes in memory
	size   int64
	input  io.ReaderAt // the input given to Read, when r's bytes are its own
	// entries are a binary bundle's or fat object's, in LLVM's order.
	entries []*Entry
	// tail is the damage a fat object's reading met after its last entry
	// (an *objfmt.LLVMError): Walker.Next returns it after the entries.
	tail error
	// text is a text bundle's reader, for its entries' payloads.
	text    *textfmt.Reader
	data    []byte
	comment string
}

// Open reads the bundle in r[0:size]: a CCOB (or several back to back) is
// inflated first (Inflate), then the container is read (Read). Close the
// Bundle to release what the inflation holds.
func Open(r io.ReaderAt, size int64, o *Options) (*Bundle, error) {
	if err := checkSize(size); err != nil {
		return nil, err
	}
	if !isCompressed(r, size) {
		b, err := Read(r, size, o)
		if err == nil && b.Format == Object && (o == nil || o.Type == "") {
			// An object with no bundle sections: a linked library's or a
			// non-RDC object's device code is elsewhere (.hip_fatbin,
			// .llvm.offloading), which package inspect reads.
			if entries, eerr := b.Entries(); eerr == nil && len(entries) == 0 {
				return nil, fmt.Errorf("%w: an object file without %s sections (its device code, if any, is in .hip_fatbin or .llvm.offloading: use package inspect)", ErrNotBundle, magic.BundleMagic)
			}
		}
		return b, err
	}
	inf, err := Inflate(r, size, o)
	if err != nil {
		return nil, err
	}
	b, err := inf.Bundle(o)
	if inf.Short() {
		inf.Close()
		full := o.config().Options
		full.KeepHead = 0
		return Open(r, size, &full)
	}
	if err != nil {
		inf.Close()
		return nil, err
	}
	return b, nil
}

// checkSize rejects a negative size.
func checkSize(size int64) error {
	if size < 0 {
		return fmt.Errorf("bundle: negative size %d", size)
	}
	return nil
}

// isCompressed reports whether r starts a CCOB as LLVM tells: at least
// compress.MinLen bytes starting with its magic.
func isCompressed(r io.ReaderAt, size int64) bool {
	if size < compress.MinLen {
		return false
	}
	var head [compress.MinLen]byte
	if n, _ := r.ReadAt(head[:], 0); n != len(head) {
		return false
	}
	return compress.IsCompressed(head[:])
}

// Read reads the uncompressed container in r[0:size], of the type
// Options.Type names or, without one, of the format it has. A binary
// bundle's entry table and a fat object's section headers are read; a
// text bundle is read into memory (at most Options.MaxText bytes).
// Payloads are read when an Entry is opened.
//
// Errors are the format packages': a *binfmt.FormatError for a bad entry
// table, objfmt's for a malformed object (except an *objfmt.LLVMError met
// after some entries, which Walker.Next and Entries return after them), a
// *TooLargeError for a text bundle past the cap, ErrUnknownType, and
// ErrNotBundle when no type was given and none fits. A negative size is
// an error (as for Open and Inflate).
func Read(r io.ReaderAt, size int64, o *Options) (*Bundle, error) {
	if err := checkSize(size); err != nil {
		return nil, err
	}
	c := o.config()
	p, err := readPart(r, size, &c)
	if err != nil {
		return nil, err
	}
	p.input = r
	return &Bundle{Format: p.format, parts: []*part{p}}, nil
}

// readPart reads one container.
func readPart(r io.ReaderAt, size int64, c *config) (*part, error) {
	var st style
	var data []byte
	var err error
	if c.Type == "" {
		st, data, err = detect(r, size, c.MaxText)
	} else {
		st, err = styleOf(c.Type)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case st.format == Text:
		return readText(r, size, data, st.comment, c.MaxText)
	case st.format == Object && objfmt.IsObject(r, size):
		return readObject(r, size)
	case st.format == OffloadBinary:
		return readOffloadBinary(r, size, c)
	}
	return readBinary(r, size)
}

// readBinary reads a binary bundle's entry table as LLVM 22 reads it
// (binfmt.ReadTable): an entry whose payload lies outside the data because
// its offset plus size wraps is listed, and fails when opened.
func readBinary(r io.ReaderAt, size int64) (*part, error) {
	table, err := binfmt.ReadTable(r, size)
	if err != nil {
		return nil, err
	}
	p := &part{format: Binary, r: r, size: size}
	for _, e := range binfmt.VisitOrder(table) {
		p.entries = append(p.entries, &Entry{ID: e.ID, part: p, r: r, off: e.Offset, size: e.Size, err: e.Outside})
	}
	return p, nil
}

// readObject reads a fat object's bundle sections as LLVM 22's bundler
// does (objfmt.ScanBundles): a malformed section after some bundles ends
// the walk there with LLVM's words, a section whose contents lie outside
// the file fails when opened (objfmt.ErrTruncated).
func readObject(r io.ReaderAt, size int64) (*part, error) {
	bundles, err := objfmt.ScanBundles(r, size)
	var le *objfmt.LLVMError
	if err != nil && !errors.As(err, &le) {
		return nil, err
	}
	p := &part{format: Object, r: r, size: size, tail: err}
	for _, b := range bundles {
		e := &Entry{ID: b.ID, HostPlaceholder: b.HostPlaceholder, part: p, r: r, off: b.Offset, size: b.Size}
		if b.Truncated {
			e.err = objfmt.ErrTruncated
		}
		p.entries = append(p.entries, e)
	}
	return p, nil
}

// readText reads a text bundle into memory (data, when detect read it
// already).
func readText(r io.ReaderAt, size int64, data []byte, comment string, maxText int64) (*part, error) {
	if size > maxText {
		return nil, &TooLargeError{What: "text bundle", Size: size, Max: maxText}
	}
	if data == nil {
		var err error
		if data, err = readAll(r, size); err != nil {
			return nil, err
		}
	}
	return &part{format: Text, r: bytes.NewReader(data), size: int64(len(data)),
		text: textfmt.NewReader(data, comment), data: data, comment: comment}, nil
}

// readAll returns r[0:size] in memory; fewer bytes are
// io.ErrUnexpectedEOF.
func readAll(r io.ReaderAt, size int64) ([]byte, error) {
	b := make([]byte, size)
	n, err := r.ReadAt(b, 0)
	switch {
	case int64(n) == size:
		return b, nil
	case err == nil || err == io.EOF:
		return nil, io.ErrUnexpectedEOF
	}
	return nil, err
}

// Close releases what the inflation of a compressed bundle holds
// (Inflated.Close); entries cannot be read after it.
func (b *Bundle) Close() error {
	if b.Inflated == nil {
		return nil
	}
	return b.Inflated.Close()
}

// Entries returns the bundle's entries in the order clang-offload-bundler
// 22 -list prints them: file order for text bundles, section order for fat
// objects, LLVM's StringMap order for binary bundles (an ID stored twice
// listed once, with its last payload), container after container for
// several CCOBs. A fat object whose section headers are damaged after some
// entries gives those and the damage (an *objfmt.LLVMError, in LLVM's
// words).
func (b *Bundle) Entries() ([]*Entry, error) {
	var out []*Entry
	w := b.Walk()
	for {
		e, err := w.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		w.Take()
		out = append(out, e)
	}
}

// An Entry is one entry of a bundle: its ID and where its bytes are.
type Entry struct {
	// ID is the bundle ID as stored, "<kind>-<triple>[-<target ID>]"
	// ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+").
	ID string
	// HostPlaceholder is set for a fat object's section holding exactly one
	// NUL byte: the bundler stands the host object (the file without its
	// bundle sections, objfmt.StripBundles of Container) in for it.
	HostPlaceholder bool

	part      *part
	r         io.ReaderAt // where the bytes are: r[off:off+size]
	off, size int64       // a text entry's size is -1 until resolved
	err       error       // why the bytes cannot be read
	once      sync.Once
}

// ParseID splits ID as targetid.ParseStored does; false for an ID LLVM
// cannot read ("invalid bundle id read from the bundle").
func (e *Entry) ParseID() (targetid.ID, bool) { return targetid.ParseStored(e.ID) }

// Kind returns the offload kind ("host", "hip", "hipv4", "openmp", ...), or
// "" for an ID that does not parse.
func (e *Entry) Kind() string {
	id, _ := e.ParseID()
	return id.Kind
}

// Triple returns the target triple as stored ("amdgcn-amd-amdhsa-").
func (e *Entry) Triple() string {
	id, ok := e.ParseID()
	if !ok {
		return ""
	}
	return id.Triple()
}

// TargetID returns the target ID: the processor and its features
// ("gfx90a:xnack+"), "" for a host entry or an unknown processor.
func (e *Entry) TargetID() string {
	id, _ := e.ParseID()
	return id.TargetID
}

// Processor returns the target ID's processor ("gfx90a" of
// "gfx90a:xnack+").
func (e *Entry) Processor() string {
	p, _, _ := strings.Cut(e.TargetID(), ":")
	return p
}

// IsHost reports whether the entry is the host's.
func (e *Entry) IsHost() bool { return e.Kind() == "host" }

// resolve finds a text entry's payload: up to the next END marker.
func (e *Entry) resolve() {
	e.once.Do(func() {
		if e.part.format != Text || e.err != nil {
			return
		}
		p, err := e.part.text.PayloadAt(int(e.off))
		if err != nil {
			e.err = err
			return
		}
		e.size = int64(len(p))
	})
}

// Size returns the size of the entry's bytes, or -1 when they cannot be
// read (Open says why).
func (e *Entry) Size() int64 {
	e.resolve()
	if e.err != nil {
		return -1
	}
	return e.size
}

// Offset returns where the entry's bytes lie in the input given to Open or
// Read: the file offset package inspect reports for the same code object.
// It is -1 for an entry inside a CCOB's inflated bytes and for one whose
// bytes cannot be read (Open says why).
func (e *Entry) Offset() int64 {
	if e.part == nil || e.part.input == nil || e.Size() < 0 {
		return -1
	}
	if e.part.format == Text {
		return e.off // the text is the input's bytes, from its start
	}
	base, ok := readerat.OffsetIn(e.r, e.part.input)
	if !ok {
		return -1
	}
	return base + e.off
}

// Open returns a reader of the entry's bytes. It fails for an entry whose
// bytes lie outside the file (a *binfmt.FormatError or
// objfmt.ErrTruncated) and for a text entry without an END marker (a
// *textfmt.FormatError).
func (e *Entry) Open() (*io.SectionReader, error) {
	if e.part == nil || e.r == nil {
		return nil, errors.New("bundle: the entry was not read from a bundle (use Bundle.Entries)")
	}
	e.resolve()
	if e.err != nil {
		return nil, e.err
	}
	return io.NewSectionReader(e.r, e.off, e.size), nil
}

// Container returns the uncompressed container the entry was read from:
// the input, or the bundle a CCOB inflated to. A fat object's host entry
// (HostPlaceholder) stands for that object without its bundle sections.
func (e *Entry) Container() *io.SectionReader {
	return io.NewSectionReader(e.part.r, 0, e.part.size)
}
