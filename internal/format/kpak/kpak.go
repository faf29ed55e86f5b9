// Package kpak reads KPAK archives (rocm-kpack), which hold the code
// objects of kpack'd HIP binaries, and the .rocm_kpack_ref references
// those binaries carry: whose .hipFatBinSegment wrappers have the magic
// HIPK and point at a reference instead of a bundle.
//
// Header (16 bytes, little-endian): "KPAK", u32 version (1), u64 offset of
// the msgpack table of contents, which runs to the end of the file. The
// blobs sit between, the first at 64. The table of contents is a map:
//
//	format_version      1
//	group_name          "blas"
//	gfx_arch_family     "gfx110X"
//	gfx_arches          ["gfx1100", ...]
//	compression_scheme  "none" (the default) or "zstd-per-kernel"
//	blobs               for "none": [{offset, size}, ...] by ordinal,
//	                    offsets from the start of the archive
//	zstd_offset         for "zstd-per-kernel": where the zstd blob starts
//	zstd_size           and its size
//	toc                 {"<binary path>#<co_index>": {"<gfx arch>":
//	                      {type: "hsaco", ordinal, original_size}}}
//
// A zstd blob is u32 count, then count × (u32 frame size, zstd frame), the
// frames in ordinal order, each one code object.
//
// Reading is lenient: Read and Entries report each damaged field through a
// Reporter, with its file offset, and go on with what is healthy. Errors
// wrap fmterr's sentinels.
package kpak

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/kpak/internal/msgpack"
	"github.com/klauspost/compress/zstd"
)

const (
	// Magic starts every archive, followed by version 1.
	Magic = "KPAK"
	// HeaderSize is the size of the header.
	HeaderSize = 16
	// None and Zstd are the compression schemes.
	None = "none"
	Zstd = "zstd-per-kernel"
	// MaxTOC bounds the table of contents read into memory.
	MaxTOC = 128 << 20
	// MaxRef bounds the .rocm_kpack_ref bytes decoded, as the kpack
	// loader does.
	MaxRef = 64 << 10
)

// A Reporter receives a damaged part: its file offset, the field, and why.
type Reporter func(off int64, field string, err error)

// Is reports whether r[0:size] starts as a KPAK archive: the magic and
// version 1.
func Is(r io.ReaderAt, size int64) bool {
	var h [8]byte
	if size < int64(len(h)) {
		return false
	}
	if n, _ := r.ReadAt(h[:], 0); n < len(h) {
		return false
	}
	return string(h[:4]) == Magic && binary.LittleEndian.Uint32(h[4:]) == 1
}

// An Archive is a KPAK archive's header and table of contents.
type Archive struct {
	r    io.ReaderAt
	size int64
	// TOCOffset is where the table of contents starts; the blobs end there.
	TOCOffset int64
	// Scheme is None or Zstd.
	Scheme string
	// Group and Family are group_name and gfx_arch_family ("" if absent).
	Group, Family string
	toc           map[string]any
}

// Read reads the header and the table of contents of the archive
// r[0:size], which Is accepted. It reports what is damaged; nil means
// nothing in the archive can be listed.
func Read(r io.ReaderAt, size int64, bad Reporter) *Archive {
	var hdr [HeaderSize]byte
	if size < HeaderSize {
		bad(0, "header", fmt.Errorf("%w: the %d-byte header is cut short at %d bytes", fmterr.ErrTruncated, HeaderSize, size))
		return nil
	}
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		bad(0, "header", err)
		return nil
	}
	tocOff := binary.LittleEndian.Uint64(hdr[8:])
	switch {
	case tocOff >= uint64(size):
		bad(8, "TOC offset", fmt.Errorf("%w: %d is not inside the archive (%d bytes)", fmterr.ErrTruncated, tocOff, size))
		return nil
	case tocOff < HeaderSize:
		bad(8, "TOC offset", fmt.Errorf("%w: %d lies inside the header", fmterr.ErrMalformed, tocOff))
		return nil
	}
	a := &Archive{r: r, size: size, TOCOffset: int64(tocOff)}
	if a.toc = readTOC(r, size, a.TOCOffset, bad); a.toc == nil {
		return nil
	}
	// Field errors are reported at the table of contents: the decoded
	// map does not keep where each value was.
	at := a.TOCOffset
	if v, ok := a.toc["format_version"]; ok {
		if u, ok := msgpack.Uint(v); !ok || u != 1 {
			bad(at, "format_version", fmt.Errorf("%w: %v (version 1 is known)", fmterr.ErrMalformed, v))
			return nil
		}
	}
	scheme, err := str(a.toc, "compression_scheme", None)
	if err != nil {
		bad(at, "compression_scheme", err)
		return nil
	}
	if scheme != None && scheme != Zstd {
		bad(at, "compression_scheme", fmt.Errorf("%w: %q is not %q or %q", fmterr.ErrMalformed, scheme, None, Zstd))
		return nil
	}
	a.Scheme = scheme
	for _, k := range []string{"group_name", "gfx_arch_family"} {
		s, err := str(a.toc, k, "")
		if err != nil {
			bad(at, k, err)
		}
		if k == "group_name" {
			a.Group = s
		} else {
			a.Family = s
		}
	}
	return a
}

// readTOC reads and decodes the table of contents at tocOff, which runs to
// the end of the archive.
func readTOC(r io.ReaderAt, size, tocOff int64, bad Reporter) map[string]any {
	n := size - tocOff
	if n > MaxTOC {
		bad(tocOff, "TOC", fmt.Errorf("%w: %d bytes (limit %d)", fmterr.ErrLimit, n, MaxTOC))
		return nil
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, tocOff); err != nil {
		bad(tocOff, "TOC", err)
		return nil
	}
	v, used, err := msgpack.Decode(buf)
	if err != nil {
		at := tocOff
		var me *msgpack.Error
		if errors.As(err, &me) {
			at += me.Offset
		}
		bad(at, "TOC", err)
		return nil
	}
	if used < len(buf) {
		bad(tocOff+int64(used), "TOC", fmt.Errorf("%w: %d bytes follow the table of contents", fmterr.ErrMalformed, len(buf)-used))
	}
	toc, ok := v.(map[string]any)
	if !ok {
		bad(tocOff, "TOC", fmt.Errorf("%w: a msgpack %s, not a map", fmterr.ErrMalformed, msgpack.TypeName(v)))
		return nil
	}
	return toc
}

// An Entry is one code object the table of contents names.
type Entry struct {
	Key, Arch string // toc[Key][Arch]
	Ordinal   uint64
	// Size is original_size: the code object's size (for a stored blob,
	// the blob's size when original_size is missing).
	Size int64
	// Offset is where the code object's bytes start in the archive:
	// the stored blob, or the zstd frame (past its size word).
	Offset int64
	// FrameSize is the zstd frame's size, 0 for a stored blob.
	FrameSize int64
}

// Field names the entry's field sub in the table of contents, for errors.
func (e *Entry) Field(sub string) string {
	return fmt.Sprintf("toc[%q][%q].%s", e.Key, e.Arch, sub)
}

// Entries returns the code objects of the archive in ordinal order (the
// order of their bytes), each placed in the archive, reporting those that
// cannot be.
func (a *Archive) Entries(bad Reporter) []Entry {
	entries := a.named(bad)
	if a.Scheme == None {
		return a.stored(entries, bad)
	}
	return a.framed(entries, bad)
}

// named collects the entries the toc map names, in ordinal order; Size is
// original_size or -1.
func (a *Archive) named(bad Reporter) []Entry {
	at := a.TOCOffset
	v, ok := a.toc["toc"]
	if !ok {
		bad(at, "toc", fmt.Errorf("%w: missing", fmterr.ErrMalformed))
		return nil
	}
	bins, ok := v.(map[string]any)
	if !ok {
		bad(at, "toc", fmt.Errorf("%w: a msgpack %s, not a map", fmterr.ErrMalformed, msgpack.TypeName(v)))
		return nil
	}
	var out []Entry
	for _, key := range sortedKeys(bins) {
		arches, ok := bins[key].(map[string]any)
		if !ok {
			bad(at, fmt.Sprintf("toc[%q]", key), fmt.Errorf("%w: a msgpack %s, not a map", fmterr.ErrMalformed, msgpack.TypeName(bins[key])))
			continue
		}
		for _, arch := range sortedKeys(arches) {
			e := Entry{Key: key, Arch: arch, Size: -1}
			m, ok := arches[arch].(map[string]any)
			if !ok {
				bad(at, fmt.Sprintf("toc[%q][%q]", key, arch), fmt.Errorf("%w: a msgpack %s, not a map", fmterr.ErrMalformed, msgpack.TypeName(arches[arch])))
				continue
			}
			if _, err := str(m, "type", ""); err != nil {
				bad(at, e.Field("type"), err)
				continue
			}
			ord, ok := m["ordinal"]
			if !ok {
				bad(at, e.Field("ordinal"), fmt.Errorf("%w: missing", fmterr.ErrMalformed))
				continue
			}
			if e.Ordinal, ok = msgpack.Uint(ord); !ok {
				bad(at, e.Field("ordinal"), fmt.Errorf("%w: %v is not a non-negative integer", fmterr.ErrMalformed, ord))
				continue
			}
			if v, ok := m["original_size"]; ok {
				u, ok := msgpack.Uint(v)
				if !ok || u > math.MaxInt64 {
					bad(at, e.Field("original_size"), fmt.Errorf("%w: %v is not a size", fmterr.ErrMalformed, v))
					continue
				}
				e.Size = int64(u)
			}
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ordinal < out[j].Ordinal })
	return out
}

// stored places the entries of an archive stored without compression:
// blobs[ordinal] gives each one's bytes.
func (a *Archive) stored(entries []Entry, bad Reporter) []Entry {
	at := a.TOCOffset
	v, ok := a.toc["blobs"]
	if !ok {
		bad(at, "blobs", fmt.Errorf("%w: missing", fmterr.ErrMalformed))
		return nil
	}
	blobs, ok := v.([]any)
	if !ok {
		bad(at, "blobs", fmt.Errorf("%w: a msgpack %s, not an array", fmterr.ErrMalformed, msgpack.TypeName(v)))
		return nil
	}
	out := entries[:0]
	for _, e := range entries {
		if e.Ordinal >= uint64(len(blobs)) {
			bad(at, e.Field("ordinal"), fmt.Errorf("%w: %d, but blobs has %d entries", fmterr.ErrMalformed, e.Ordinal, len(blobs)))
			continue
		}
		field := fmt.Sprintf("blobs[%d]", e.Ordinal)
		b, ok := blobs[e.Ordinal].(map[string]any)
		if !ok {
			bad(at, field, fmt.Errorf("%w: a msgpack %s, not a map", fmterr.ErrMalformed, msgpack.TypeName(blobs[e.Ordinal])))
			continue
		}
		off, err := uintField(b, "offset")
		if err != nil {
			bad(at, field+".offset", err)
			continue
		}
		n, err := uintField(b, "size")
		if err != nil {
			bad(at, field+".size", err)
			continue
		}
		switch {
		case off < HeaderSize:
			bad(at, field+".offset", fmt.Errorf("%w: %d lies inside the header", fmterr.ErrMalformed, off))
			continue
		case off > at || n > at-off:
			bad(at, field, fmt.Errorf("%w: offset %d + size %d runs past the blobs, which end at the table of contents (%d)", fmterr.ErrTruncated, off, n, at))
			continue
		}
		if e.Size >= 0 && e.Size != n {
			// Listed all the same: the runtime reads the blob's bytes.
			bad(at, e.Field("original_size"), fmt.Errorf("%w: %d, but %s holds %d bytes", fmterr.ErrMalformed, e.Size, field, n))
		}
		e.Offset, e.Size = off, n
		out = append(out, e)
	}
	return out
}

// framed places the entries of a zstd-per-kernel archive: each is the
// frame of its ordinal in the zstd blob.
func (a *Archive) framed(entries []Entry, bad Reporter) []Entry {
	at := a.TOCOffset
	zoff, err := uintField(a.toc, "zstd_offset")
	if err != nil {
		bad(at, "zstd_offset", err)
		return nil
	}
	zsize, err := uintField(a.toc, "zstd_size")
	if err != nil {
		bad(at, "zstd_size", err)
		return nil
	}
	switch {
	case zoff < HeaderSize:
		bad(at, "zstd_offset", fmt.Errorf("%w: %d lies inside the header", fmterr.ErrMalformed, zoff))
		return nil
	case zoff >= at:
		bad(at, "zstd_offset", fmt.Errorf("%w: %d lies past the blobs, which end at the table of contents (%d)", fmterr.ErrTruncated, zoff, at))
		return nil
	}
	end := zoff + zsize
	if zsize > at-zoff {
		bad(at, "zstd_size", fmt.Errorf("%w: %d bytes from %d run past the blobs, which end at the table of contents (%d)", fmterr.ErrTruncated, zsize, zoff, at))
		end = at // the frames up to there may still be whole
	}
	frames, cut := readFrames(a.r, zoff, end, bad)
	var lost []Entry
	out := entries[:0]
	for _, e := range entries {
		if e.Ordinal >= uint64(len(frames)) {
			if cut {
				lost = append(lost, e)
			} else {
				bad(at, e.Field("ordinal"), fmt.Errorf("%w: %d, but the zstd blob holds %d frames", fmterr.ErrMalformed, e.Ordinal, len(frames)))
			}
			continue
		}
		f := frames[e.Ordinal]
		switch {
		case f.err != nil:
			bad(f.off, fmt.Sprintf("%s (zstd frame %d)", e.Field("ordinal"), e.Ordinal), f.err)
			continue
		case e.Size < 0:
			bad(at, e.Field("original_size"), fmt.Errorf("%w: missing (a zstd-per-kernel entry needs it)", fmterr.ErrMalformed))
			continue
		case f.fcs >= 0 && f.fcs != e.Size:
			bad(f.off, e.Field("original_size"), fmt.Errorf("%w: %d, but zstd frame %d holds %d bytes", fmterr.ErrMalformed, e.Size, e.Ordinal, f.fcs))
			continue
		}
		e.Offset, e.FrameSize = f.off, f.size
		out = append(out, e)
	}
	if len(lost) > 0 {
		ords := make([]string, 0, min(len(lost), 4))
		for _, e := range lost[:min(len(lost), 3)] {
			ords = append(ords, fmt.Sprintf("%s %s", e.Key, e.Arch))
		}
		if len(lost) > 3 {
			ords = append(ords, "...")
		}
		bad(at, "toc", fmt.Errorf("%w: %s (%s) past the %s read before the damage",
			fmterr.ErrTruncated, plural(len(lost), "entry has its ordinal", "entries have their ordinals"), strings.Join(ords, ", "),
			plural(len(frames), "frame", "frames")))
	}
	return out
}

// frame is one frame of a zstd-per-kernel blob.
type frame struct {
	off, size int64 // of the frame itself, past its size word
	fcs       int64 // content size from the frame header, or -1
	err       error // the frame is not one a code object can be read from
}

// readFrames reads the frame index of the zstd blob at r[zoff:end]. cut
// reports that damage stopped it before the count the blob declares.
func readFrames(r io.ReaderAt, zoff, end int64, bad Reporter) (frames []frame, cut bool) {
	var buf [4 + zstd.HeaderMaxSize]byte
	if end-zoff < 4 {
		bad(zoff, "zstd blob", fmt.Errorf("%w: %d bytes, too few for the frame count", fmterr.ErrTruncated, end-zoff))
		return nil, true
	}
	if _, err := r.ReadAt(buf[:4], zoff); err != nil {
		bad(zoff, "zstd blob", err)
		return nil, true
	}
	count := binary.LittleEndian.Uint32(buf[:])
	pos := zoff + 4
	for i := uint32(0); i < count; i++ {
		field := fmt.Sprintf("zstd frame %d size", i)
		if end-pos < 4 {
			if pos == end {
				field = "zstd frame count" // the frames so far filled the blob
			}
			bad(pos, field, fmt.Errorf("%w: the zstd blob ends (at %d) before frame %d of %d", fmterr.ErrTruncated, end, i, count))
			return frames, true
		}
		b := buf[:min(int64(len(buf)), end-pos)]
		if _, err := r.ReadAt(b, pos); err != nil {
			bad(pos, field, err)
			return frames, true
		}
		n := int64(binary.LittleEndian.Uint32(b))
		if n > end-pos-4 {
			bad(pos, field, fmt.Errorf("%w: %d bytes, but %d are left in the zstd blob", fmterr.ErrTruncated, n, end-pos-4))
			return frames, true
		}
		f := frame{off: pos + 4, size: n, fcs: -1}
		var h zstd.Header
		switch err := h.Decode(b[4:min(int64(len(b)), 4+n)]); {
		case err != nil:
			f.err = fmt.Errorf("%w: not a zstd frame (%v)", fmterr.ErrMalformed, err)
		case h.Skippable:
			f.err = fmt.Errorf("%w: a skippable zstd frame, which holds no code object", fmterr.ErrMalformed)
		case h.DictionaryID != 0:
			f.err = fmt.Errorf("%w: the zstd frame needs dictionary %d, which KPAK archives do not carry", fmterr.ErrMalformed, h.DictionaryID)
		case h.HasFCS && h.FrameContentSize <= math.MaxInt64:
			f.fcs = int64(h.FrameContentSize)
		}
		frames = append(frames, f)
		pos += 4 + n
	}
	if pos < end {
		bad(pos, "zstd_size", fmt.Errorf("%w: %d bytes follow the last of the %d frames", fmterr.ErrMalformed, end-pos, count))
	}
	return frames, false
}

// OpenFrame returns a reader of the code object in the zstd frame of an
// Entry: exactly e.Size bytes, an error if the frame ends short of them or
// runs past them. what names the object in errors. Each call decodes
// afresh, streaming.
func OpenFrame(r io.ReaderAt, e *Entry, what string) (io.Reader, error) {
	dec, err := zstd.NewReader(io.NewSectionReader(r, e.Offset, e.FrameSize),
		zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, fmt.Errorf("%s: zstd: %w", what, err)
	}
	return &frameReader{dec: dec, left: e.Size, size: e.Size, what: what}, nil
}

// frameReader reads a frame's size bytes and checks that the frame ends
// there.
type frameReader struct {
	dec        *zstd.Decoder
	left, size int64
	what       string
	err        error
}

func (f *frameReader) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.left == 0 {
		var b [1]byte
		n, err := f.dec.Read(b[:])
		switch {
		case n > 0:
			err = fmt.Errorf("%s: the zstd frame decompresses to more than its original_size of %d bytes: %w", f.what, f.size, fmterr.ErrMalformed)
		case err == nil || err == io.EOF:
			err = io.EOF
		default:
			err = fmt.Errorf("%s: zstd: %w", f.what, err)
		}
		return 0, f.stop(err)
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.dec.Read(p)
	f.left -= int64(n)
	switch {
	case err == io.EOF && f.left > 0:
		err = f.stop(fmt.Errorf("%s: the zstd frame ends %d bytes short of its original_size of %d: %w", f.what, f.left, f.size, io.ErrUnexpectedEOF))
	case err == io.EOF:
		err = f.stop(io.EOF)
	case err != nil:
		err = f.stop(fmt.Errorf("%s: zstd: %w", f.what, err))
	}
	return n, err
}

func (f *frameReader) stop(err error) error {
	f.err = err
	f.dec.Close()
	return err
}

// A Ref is a .rocm_kpack_ref: the name under which a binary's code objects
// are filed in KPAK archives, and where to look. The table of contents
// files translation unit N (the wrapper's Reserved field) under
// KernelName + "#N"; a search path may hold @GFXARCH@, which the loader
// replaces with each GPU's processor.
type Ref struct {
	KernelName  string
	SearchPaths []string
}

// A RefError is a damaged reference: Offset is relative to the bytes
// given to ParseRef, Field is "" for the msgpack data itself.
type RefError struct {
	Offset int64
	Field  string
	Err    error
}

func (e *RefError) Error() string { return e.Err.Error() }

func (e *RefError) Unwrap() error { return e.Err }

// ParseRef decodes a reference, a msgpack map {kernel_name,
// kpack_search_paths}, from b; more says that the section holds more
// bytes than b (ParseRef is given MaxRef of them at most, as the loader
// reads).
func ParseRef(b []byte, more bool) (*Ref, error) {
	v, _, err := msgpack.Decode(b)
	if err != nil {
		at := int64(0)
		var me *msgpack.Error
		if errors.As(err, &me) {
			at = me.Offset
		}
		if more && errors.Is(err, msgpack.ErrTruncated) {
			err = fmt.Errorf("%w (only the first %d bytes are read, as the kpack loader does)", err, MaxRef)
		}
		return nil, &RefError{Offset: at, Err: err}
	}
	bad := func(field string, err error) (*Ref, error) { return nil, &RefError{Field: field, Err: err} }
	m, ok := v.(map[string]any)
	if !ok {
		return bad("", fmt.Errorf("%w: a msgpack %s, not a map", fmterr.ErrMalformed, msgpack.TypeName(v)))
	}
	name, ok := m["kernel_name"].(string)
	if !ok {
		if _, there := m["kernel_name"]; !there {
			return bad("kernel_name", fmt.Errorf("%w: missing", fmterr.ErrMalformed))
		}
		return bad("kernel_name", fmt.Errorf("%w: a msgpack %s, not a string", fmterr.ErrMalformed, msgpack.TypeName(m["kernel_name"])))
	}
	paths, ok := m["kpack_search_paths"].([]any)
	if !ok {
		if _, there := m["kpack_search_paths"]; !there {
			return bad("kpack_search_paths", fmt.Errorf("%w: missing", fmterr.ErrMalformed))
		}
		return bad("kpack_search_paths", fmt.Errorf("%w: a msgpack %s, not an array", fmterr.ErrMalformed, msgpack.TypeName(m["kpack_search_paths"])))
	}
	if len(paths) == 0 {
		return bad("kpack_search_paths", fmt.Errorf("%w: empty (the kpack loader refuses a reference without search paths)", fmterr.ErrMalformed))
	}
	ref := &Ref{KernelName: name}
	for i, v := range paths {
		s, ok := v.(string)
		if !ok {
			return bad(fmt.Sprintf("kpack_search_paths[%d]", i), fmt.Errorf("%w: a msgpack %s, not a string", fmterr.ErrMalformed, msgpack.TypeName(v)))
		}
		ref.SearchPaths = append(ref.SearchPaths, s)
	}
	return ref, nil
}

// plural returns n with the singular or the plural.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// str returns m[key] as a string, or def when it is missing.
func str(m map[string]any, key, def string) (string, error) {
	v, ok := m[key]
	if !ok {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return def, fmt.Errorf("%w: a msgpack %s, not a string", fmterr.ErrMalformed, msgpack.TypeName(v))
	}
	return s, nil
}

// uintField returns m[key] as a non-negative integer that fits an int64.
func uintField(m map[string]any, key string) (int64, error) {
	v, ok := m[key]
	if !ok {
		return 0, fmt.Errorf("%w: missing", fmterr.ErrMalformed)
	}
	u, ok := msgpack.Uint(v)
	if !ok || u > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %v is not a non-negative integer", fmterr.ErrMalformed, v)
	}
	return int64(u), nil
}
