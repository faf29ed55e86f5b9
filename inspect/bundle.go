package inspect

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/binfmt"
	"github.com/goffload/goffload/compress"
	"github.com/goffload/goffload/magic"
)

// headerWindow is how much of a CCOB's data listing may inflate: its
// bundle's entry table (32 bytes, then 24 bytes and an ID per entry) ends
// well before.
const headerWindow = 1 << 20

// walkBundles reads r[0:size] as a run of bundles, binary or compressed,
// separated by zero padding: the contents of a .hip_fatbin section (one
// bundle per translation unit, each 4 KiB aligned) or of a bundle file.
func (w *walker) walkBundles(r io.ReaderAt, size int64, p place, _ string) {
	w.eachPadded(r, size, p, func(off int64, n int) (int64, bool) {
		w.bundleStarts[bundleKey{p.file, p.rel + off}] = n
		h := head(r, off, size, 8)
		step := fmt.Sprintf("bundle %d", n)
		switch {
		case string(h) == magic.BundleMagic[:8]:
			end, ok := w.binaryBundle(io.NewSectionReader(r, off, size-off), size-off, p.sub(off, step))
			return off + end, ok
		case compress.IsCompressed(h):
			return w.ccob(r, off, size, p, step)
		}
		w.fail(p, off, step, fmt.Errorf("%w: bytes % x are neither a bundle, a CCOB nor zero padding", ErrMalformed, h))
		return 0, false
	})
}

// eachPadded calls item for every item of a run of items separated by zero
// padding in r[0:size]: with the item's offset and number, it returns where
// the item ends, or false to stop.
func (w *walker) eachPadded(r io.ReaderAt, size int64, p place, item func(off int64, n int) (end int64, ok bool)) {
	var off int64
	for n := 0; ; n++ {
		next, err := skipZeros(r, off, size)
		if err != nil {
			w.fail(p, off, "padding", err)
			return
		}
		if next >= size {
			return
		}
		end, ok := item(next, n)
		if !ok || end <= next {
			return
		}
		off = end
	}
}

// skipZeros returns the offset of the first non-zero byte at or after off,
// or size.
func skipZeros(r io.ReaderAt, off, size int64) (int64, error) {
	var buf [4096]byte
	for off < size {
		n := int(min(int64(len(buf)), size-off))
		if _, err := r.ReadAt(buf[:n], off); err != nil && err != io.EOF {
			return off, err
		}
		for i, b := range buf[:n] {
			if b != 0 {
				return off + int64(i), nil
			}
		}
		off += int64(n)
	}
	return size, nil
}

// bundleTable reads a binary bundle's entry table through binfmt.Scan,
// the lenient reader, and lists its entries under q (open reads the
// payloads: r, or nil inside a CCOB). It reports a damaged table at the
// field binfmt names, with no entry (their fields may be another entry's
// bytes, and LLVM lists none), and each entry whose payload cannot be
// where it says, listing the others. It returns where the table and the
// payloads end.
func (w *walker) bundleTable(src io.Reader, size int64, r io.ReaderAt, q place) (int64, bool) {
	rows, err := binfmt.Scan(src, size)
	if err != nil {
		var fe *binfmt.FormatError
		errors.As(err, &fe)
		w.fail(q, fe.Offset, fe.Field, &bareError{fe.Msg, err})
		return fe.Offset, false
	}
	end := int64(32) // the header of an empty table
	for _, e := range rows {
		end = max(end, e.At+24+int64(len(e.ID)))
		if e.Bad != nil {
			var fe *binfmt.FormatError
			errors.As(e.Bad, &fe)
			w.fail(q, e.At, fmt.Sprintf("entry %d (%s)", e.Index, e.ID), &bareError{fe.Msg, e.Bad})
			continue
		}
		end = max(end, int64(e.Offset+e.Size))
		w.leaf(entryObject(e.ID, "bundle entry"), r, int64(e.Offset), int64(e.Size), q)
	}
	return end, true
}

// bareError is a format package's error without the offset and field its
// own Error repeats (inspect.Error says them).
type bareError struct {
	msg string
	err error
}

func (e *bareError) Error() string { return e.msg }
func (e *bareError) Unwrap() error { return e.err }

// binaryBundle lists one uncompressed binary bundle at r[0:size] and
// returns where it ends: past its table and its last payload.
func (w *walker) binaryBundle(r io.ReaderAt, size int64, p place) (int64, bool) {
	return w.bundleTable(io.NewSectionReader(r, 0, size), size, r, p)
}

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
func (w *walker) ccob(r io.ReaderAt, off, size int64, p place, step string) (int64, bool) {
	sec := io.NewSectionReader(r, off, size-off)
	cr := compress.NewReader(sec, size-off)
	// Only the bundle's entry table is inflated: a small window will do.
	cr.LimitOutput(headerWindow)
	m, err := cr.Next()
	if err != nil {
		w.fail(p, off, step+" (CCOB)", err)
		return 0, false
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
	q.open = func() (io.Reader, error) {
		cr := compress.NewReader(io.NewSectionReader(r, off, size-off), size-off)
		if _, err := cr.Next(); err != nil {
			return nil, err
		}
		return compress.HashTolerant(cr), nil
	}
	usize := int64(m.UncompressedSize)
	h := make([]byte, len(magic.BundleMagic))
	k, herr := io.ReadFull(cr, h)
	switch {
	case string(h[:k]) == magic.BundleMagic:
		w.bundleTable(io.MultiReader(strings.NewReader(string(h)), cr), usize, nil, q)
	case k == 0 && usize == 0:
		// An empty CCOB: nothing inside.
	case herr != nil && !errors.Is(herr, io.ErrUnexpectedEOF) && !errors.Is(herr, io.EOF):
		w.fail(q, 0, "payload", herr)
	default:
		// Not a bundle: a code object compressed by itself.
		o := &Object{Container: "compressed payload"}
		w.leaf(o, nil, 0, usize, q)
	}
	end := m.End()
	if m.PayloadSize < 0 {
		// A v1 zlib member ends where its stream does: read it through.
		if _, err := io.Copy(io.Discard, cr); err != nil && !errors.Is(err, compress.ErrHashMismatch) {
			w.fail(q, 0, "payload", err)
			return 0, false
		}
		end = m.End()
		q.comp.Size = end - m.Offset
	}
	return off + end, true
}

// SplitID splits a bundle entry ID into its offload kind, triple and target
// ID: "<kind>-<arch>-<vendor>-<os>-<env>-<target ID>" as clang writes it
// today, or the 3-field triples of older releases: "host-x86_64-unknown-linux"
// and "hip-amdgcn-amd-amdhsa-gfx906" (a processor where the environment
// would be).
func SplitID(id string) (kind, triple, tid string) {
	parts := strings.SplitN(id, "-", 6)
	kind = parts[0]
	switch {
	case len(parts) == 6:
		return kind, strings.Join(parts[1:5], "-"), parts[5]
	case len(parts) == 5 && looksLikeProcessor(parts[4]):
		return kind, strings.Join(parts[1:4], "-"), parts[4]
	case len(parts) > 1:
		return kind, strings.Join(parts[1:], "-"), ""
	}
	return kind, "", ""
}

// looksLikeProcessor reports whether s starts like a GPU processor name.
func looksLikeProcessor(s string) bool {
	return strings.HasPrefix(s, "gfx") || strings.HasPrefix(s, "sm_")
}
