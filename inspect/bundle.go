package inspect

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goffload/goffload/compress"
	"github.com/goffload/goffload/magic"
)

// Limits on what a bundle header may declare before anything is read for
// it: an ID longer than this is damage, not a target.
const maxIDLen = 4096

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

// bundleEntry is one row of a binary bundle's entry table.
type bundleEntry struct {
	id           string
	offset, size int64
	bad          error // the entry's place is invalid
}

// readBundleTable reads a binary bundle's header from its start: magic,
// entry count, and the entry table. size is the bundle's data size (the
// rest of the section, or the decompressed size). Entries whose offset or
// size are impossible are returned with bad set; an error stops the table
// (the entries before it are returned, but callers list none of them:
// their fields may be another entry's bytes). tableEnd is where the table
// ended, or where the damaged field starts.
func readBundleTable(src io.Reader, size int64) (entries []bundleEntry, tableEnd int64, field string, err error) {
	br := bufio.NewReaderSize(src, 4096)
	var hdr [32]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, 0, "header", fmt.Errorf("%w: the 32-byte header is cut short (%v)", ErrTruncated, err)
	}
	if string(hdr[:24]) != magic.BundleMagic {
		return nil, 0, "magic", fmt.Errorf("%w: not a bundle (starts % x)", ErrMalformed, hdr[:8])
	}
	count := binary.LittleEndian.Uint64(hdr[24:])
	pos := int64(32)
	// Every entry takes at least 24 bytes of the table.
	if count > uint64(max(size-pos, 0))/24 {
		return nil, pos, "entry count", fmt.Errorf("%w: %d entries cannot fit in %d bytes", ErrTruncated, count, size)
	}
	var e [24]byte
	for i := uint64(0); i < count; i++ {
		f := fmt.Sprintf("entry %d", i)
		if _, err := io.ReadFull(br, e[:]); err != nil {
			return entries, pos, f, fmt.Errorf("%w: entry header cut short", ErrTruncated)
		}
		pos += 24
		eo, es, n := binary.LittleEndian.Uint64(e[0:]), binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])
		if n > maxIDLen || n > uint64(size-pos) {
			return entries, pos - 8, f + " ID length", fmt.Errorf("%w: %d bytes (limit %d, %d left in the bundle)", ErrMalformed, n, maxIDLen, size-pos)
		}
		id := make([]byte, n)
		if _, err := io.ReadFull(br, id); err != nil {
			return entries, pos, f + " ID", fmt.Errorf("%w: ID cut short", ErrTruncated)
		}
		pos += int64(n)
		be := bundleEntry{id: string(id), offset: int64(eo), size: int64(es)}
		switch {
		case eo > uint64(size) || es > uint64(size)-eo:
			be.bad = fmt.Errorf("%w: offset %d + size %d past the bundle's %d bytes", ErrTruncated, eo, es, size)
		case eo < 32 && es > 0:
			be.bad = fmt.Errorf("%w: offset %d lies inside the bundle header", ErrMalformed, eo)
		}
		entries = append(entries, be)
	}
	return entries, pos, "", nil
}

// binaryBundle lists one uncompressed binary bundle at r[0:size] and
// returns where it ends: past its table and its last payload.
func (w *walker) binaryBundle(r io.ReaderAt, size int64, p place) (int64, bool) {
	entries, end, field, err := readBundleTable(io.NewSectionReader(r, 0, size), size)
	if err != nil {
		// A header that does not hold its entry table: the entries read
		// before the damage are not to be trusted either (an ID that
		// claims more bytes than it has swallows the next entry's
		// fields), so none is listed, as LLVM lists none.
		w.fail(p, end, field, err)
		return end, false
	}
	for i, e := range entries {
		if e.bad != nil {
			w.fail(p, 24+int64(i)*24, fmt.Sprintf("entry %d (%s)", i, e.id), e.bad)
			continue
		}
		end = max(end, e.offset+e.size)
		w.leaf(entryObject(e.id, "bundle entry"), r, e.offset, e.size, p)
	}
	return end, true
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
		entries, tableEnd, field, err := readBundleTable(io.MultiReader(strings.NewReader(string(h)), cr), usize)
		if err != nil {
			// As for a plain bundle: no entry of a damaged table.
			w.fail(q, tableEnd, field, err)
			break
		}
		for i, e := range entries {
			if e.bad != nil {
				w.fail(q, 24+int64(i)*24, fmt.Sprintf("entry %d (%s)", i, e.id), e.bad)
				continue
			}
			w.leaf(entryObject(e.id, "bundle entry"), nil, e.offset, e.size, q)
		}
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
