package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/format/fatbin"
	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/format/textfmt"
)

// headerWindow is how much of a CCOB's data listing may inflate: its
// bundle's entry table (32 bytes, then 24 bytes and an ID per entry) ends
// well before.
const headerWindow = 1 << 20

// maxCompressedText bounds the bytes the compressed text bundles of one
// file are scanned through for their entries, together (the drop-in
// bundler reads text bundles up to 1 GiB, plain or inflated); a variable
// for tests.
var maxCompressedText int64 = 1 << 30

// walkBundles lists the run of bundles in r[0:size], binary or
// compressed, separated by zero padding (the contents of a .hip_fatbin
// section, one bundle per translation unit, or of a bundle file), as
// fatbin.Runs finds them.
func (w *walker) walkBundles(r io.ReaderAt, size int64, p place, _ string) {
	err := fatbin.Runs(r, size, func(it fatbin.Item) error {
		if w.stop != nil {
			return w.stop // emit failed: nothing more is wanted
		}
		w.bundleStarts[bundleKey{p.file, p.rel + it.Offset}] = it.Index
		step := fmt.Sprintf("bundle %d", it.Index)
		if it.Compressed {
			w.ccob(r, it, size, p, step)
		} else {
			w.listRows(it.Rows, io.NewSectionReader(r, it.Offset, size-it.Offset), p.sub(it.Offset, step))
		}
		return nil
	})
	var re *fatbin.Error
	if !errors.As(err, &re) {
		return
	}
	step := fmt.Sprintf("bundle %d", re.Index)
	switch re.What {
	case "padding":
		w.fail(p, re.Offset, "padding", re.Err)
	case "CCOB":
		w.fail(p, re.Offset, step+" (CCOB)", re.Err)
	case "bundle":
		w.bundleStarts[bundleKey{p.file, p.rel + re.Offset}] = re.Index
		w.failTable(p.sub(re.Offset, step), re.Err)
	default:
		w.fail(p, re.Offset, step, re.Err)
	}
}

// bundleTable reads a binary bundle's entry table through binfmt.Scan,
// the lenient reader, and lists its entries under q (open reads the
// payloads: r, or nil inside a CCOB). It reports a damaged table at the
// field binfmt names, with no entry (their fields may be another entry's
// bytes, and LLVM lists none), and each entry whose payload cannot be
// where it says, listing the others. It returns where the table and the
// payloads end.
func (w *walker) bundleTable(src io.Reader, size int64, r io.ReaderAt, q place) {
	rows, err := binfmt.Scan(src, size)
	if err != nil {
		w.failTable(q, err)
		return
	}
	w.listRows(rows, r, q)
}

// listRows lists the entries of a binary bundle's table under q.
func (w *walker) listRows(rows []binfmt.Row, r io.ReaderAt, q place) {
	for _, e := range rows {
		if w.stop != nil {
			return
		}
		if e.Bad != nil {
			var fe *binfmt.FormatError
			errors.As(e.Bad, &fe)
			w.fail(q, e.At, fmt.Sprintf("entry %d (%s)", e.Index, e.ID), &bareError{fe.Msg, e.Bad})
			continue
		}
		w.leaf(entryObject(e.ID, "bundle entry"), r, int64(e.Offset), int64(e.Size), q)
	}
}

// failTable reports a damaged entry table at the field binfmt names.
func (w *walker) failTable(q place, err error) {
	var fe *binfmt.FormatError
	if !errors.As(err, &fe) {
		w.fail(q, 0, "entry table", err)
		return
	}
	w.fail(q, fe.Offset, fe.Field, &bareError{fe.Msg, err})
}

// bareError is a format package's error without the offset and field its
// own Error repeats (inspect.Error says them).
type bareError struct {
	msg string
	err error
}

func (e *bareError) Error() string { return e.msg }
func (e *bareError) Unwrap() error { return e.err }

// entryObject starts an Object for a bundle entry ID.
func entryObject(id, container string) *Object {
	o := &Object{ID: id, Container: container}
	o.Kind, o.Triple, o.TargetID = SplitID(id)
	o.Host = o.Kind == "host"
	return o
}

// ccob lists the CCOB at r[off:] without inflating it all: the payload is
// decompressed only as far as the bundle's entry table reaches. It returns
// where the CCOB ends.
func (w *walker) ccob(r io.ReaderAt, it fatbin.Item, size int64, p place, step string) {
	off := it.Offset
	sec := io.NewSectionReader(r, off, size-off)
	cr := compress.NewReader(sec, size-off)
	// Only the bundle's entry table is inflated: a small window will do.
	cr.LimitOutput(headerWindow)
	defer cr.Close()
	m, err := cr.Next()
	if err != nil {
		w.fail(p, off, step+" (CCOB)", err)
		return
	}
	name := fmt.Sprintf("%s (CCOB v%d %s)", step, m.Version, m.Method)
	q := p.child(name)
	q.base = -1
	q.comp = &Compression{Format: "CCOB", Version: int(m.Version), Method: m.Method.String(),
		Offset: p.at(off), Size: m.PayloadSize + int64(m.Header.Len()), UncompressedSize: int64(m.UncompressedSize)}
	if m.PayloadSize < 0 {
		q.comp.Size = -1
	}
	// Every object opens its own decoder over the same bytes.
	// The stored hash is not checked (LLVM does not check it either): a
	// second pass over every inflated byte, which cost more than the
	// inflation itself for facts and extraction.
	q.open = func() (io.Reader, error) {
		cr := compress.NewReader(io.NewSectionReader(r, off, size-off), size-off)
		cr.SkipHash()
		if _, err := cr.Next(); err != nil {
			return nil, err
		}
		return cr, nil
	}
	usize := int64(m.UncompressedSize)
	h := make([]byte, textfmt.SniffLen)
	k, herr := io.ReadFull(cr, h)
	h = h[:k]
	switch {
	case bytes.HasPrefix(h, []byte(magic.BundleMagic)):
		w.bundleTable(io.MultiReader(bytes.NewReader(h), cr), usize, nil, q)
	case k == 0 && usize == 0:
		// An empty CCOB: nothing inside.
	case herr != nil && !errors.Is(herr, io.ErrUnexpectedEOF) && !errors.Is(herr, io.EOF):
		w.fail(q, 0, "payload", herr)
	case textfmt.Sniff(h): // the file rule (isTextBundle)
		// A text bundle (-type=s, ll, ii ... with -compress), found as
		// one is in a file (a START marker in its first 4 KiB): its
		// entries are where their markers are, so the whole payload is
		// scanned, streaming, as LLVM's bundler reads it.
		if usize > maxCompressedText-w.textInflated {
			// A bomb's claim or not, scanning it is unbounded work: at
			// most maxCompressedText for all the file's text CCOBs.
			w.fail(q, 0, "payload", fmt.Errorf("%w: a compressed text bundle of %d bytes, past the %d bytes the compressed text bundles of one file are scanned through", fmterr.ErrLimit, usize, maxCompressedText))
			break
		}
		w.textInflated += usize
		cr.Close() // its window is freed before the scan's decoder takes one
		src, err := q.open()
		if err != nil {
			w.fail(q, 0, "payload", err)
			break
		}
		// The header's size bounds the scan (a payload longer than it
		// claims is damage a reader of its entries finds), and
		// textfmt.MaxHeldEntries the entries held for their facts.
		w.scanText(io.LimitReader(src, usize), nil, q)
		if c, ok := src.(io.Closer); ok {
			c.Close()
		}
	default:
		// Not a bundle: a code object compressed by itself.
		o := &Object{Container: "compressed payload"}
		w.leaf(o, nil, 0, usize, q)
	}
	if m.PayloadSize < 0 {
		// A v1 zlib member ends where its stream does: fatbin.Runs read
		// it through.
		q.comp.Size = it.End - off
	}
}

// SplitID splits a bundle entry ID into its offload kind, triple and target
// ID: "<kind>-<arch>-<vendor>-<os>-<env>-<target ID>" as clang writes it
// today, or the 3-field triples of older releases: "host-x86_64-unknown-linux"
// and "hip-amdgcn-amd-amdhsa-gfx906" (a processor where the environment
// would be).
func SplitID(id string) (kind, triple, tid string) {
	// dash[i] is where the i+1th dash is: up to five, slicing id rather
	// than splitting it (a listing splits one ID per code object).
	var dash [5]int
	n := 0
	for i := 0; i < len(id) && n < len(dash); i++ {
		if id[i] == '-' {
			dash[n] = i
			n++
		}
	}
	if n == 0 {
		return id, "", ""
	}
	kind = id[:dash[0]]
	switch {
	case n == 5:
		return kind, id[dash[0]+1 : dash[4]], id[dash[4]+1:]
	case n == 4 && looksLikeProcessor(id[dash[3]+1:]):
		return kind, id[dash[0]+1 : dash[3]], id[dash[3]+1:]
	}
	return kind, id[dash[0]+1:], ""
}

// looksLikeProcessor reports whether s starts like a GPU processor name.
func looksLikeProcessor(s string) bool {
	return strings.HasPrefix(s, "gfx") || strings.HasPrefix(s, "sm_")
}
