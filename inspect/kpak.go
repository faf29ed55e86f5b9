package inspect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/goffload/goffload/internal/objfile"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/goffload/goffload/inspect/internal/msgpack"
	"github.com/klauspost/compress/zstd"
)

// KPAK archives (rocm-kpack) hold the code objects of kpack'd HIP binaries,
// whose .hipFatBinSegment wrappers carry the magic HIPK and point at a
// .rocm_kpack_ref section instead of a bundle.
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
const kpakMagic = "KPAK"

const (
	kpakHeaderSize = 16
	kpakNone       = "none"
	kpakZstd       = "zstd-per-kernel"
	// maxKPAKTOC bounds the table of contents read into memory.
	maxKPAKTOC = 128 << 20
	// maxKpackRef bounds the .rocm_kpack_ref bytes decoded, as the kpack
	// loader does.
	maxKpackRef = 64 << 10
)

// A KpackRef is what a HIPK wrapper points to: the name under which the
// binary's code objects are filed in KPAK archives, and where to look.
// The table of contents files translation unit N (the wrapper's Reserved
// field) under KernelName + "#N"; a search path may hold @GFXARCH@, which
// the loader replaces with each GPU's processor.
type KpackRef struct {
	KernelName  string
	SearchPaths []string
}

func isKPAK(r io.ReaderAt, size int64) bool {
	h := head(r, 0, size, 8)
	return len(h) == 8 && string(h[:4]) == kpakMagic && binary.LittleEndian.Uint32(h[4:]) == 1
}

// kpakEntry is one code object named by a KPAK table of contents.
type kpakEntry struct {
	key, arch string
	ordinal   uint64
	size      int64 // original_size, or -1 when not given
}

// field names the entry in the table of contents, for errors.
func (e *kpakEntry) field(sub string) string {
	return fmt.Sprintf("toc[%q][%q].%s", e.key, e.arch, sub)
}

// kpakFrame is one frame of a zstd-per-kernel blob.
type kpakFrame struct {
	off, size int64 // of the frame itself, past its size word
	fcs       int64 // content size from the frame header, or -1
	err       error // the frame is not one a code object can be read from
}

// walkKPAK lists the code objects of the KPAK archive r[0:size].
func (w *walker) walkKPAK(r io.ReaderAt, size int64, p place) {
	var hdr [kpakHeaderSize]byte
	if size < kpakHeaderSize {
		w.fail(p, 0, "header", fmt.Errorf("%w: the %d-byte header is cut short at %d bytes", ErrTruncated, kpakHeaderSize, size))
		return
	}
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		w.fail(p, 0, "header", err)
		return
	}
	// isKPAK checked the magic and the version.
	tocOff := binary.LittleEndian.Uint64(hdr[8:])
	switch {
	case tocOff >= uint64(size):
		w.fail(p, 8, "TOC offset", fmt.Errorf("%w: %d is not inside the archive (%d bytes)", ErrTruncated, tocOff, size))
		return
	case tocOff < kpakHeaderSize:
		w.fail(p, 8, "TOC offset", fmt.Errorf("%w: %d lies inside the header", ErrMalformed, tocOff))
		return
	}
	toc, ok := w.kpakTOC(r, size, int64(tocOff), p)
	if !ok {
		return
	}
	tocAt := int64(tocOff)
	// Field errors are reported at the table of contents: the decoded
	// map does not keep where each value was.
	bad := func(q place, field string, err error) { w.fail(q, tocAt, field, err) }

	if v, ok := toc["format_version"]; ok {
		if u, ok := msgpack.Uint(v); !ok || u != 1 {
			bad(p, "format_version", fmt.Errorf("%w: %v (version 1 is known)", ErrMalformed, v))
			return
		}
	}
	scheme, err := kpakString(toc, "compression_scheme", kpakNone)
	if err != nil {
		bad(p, "compression_scheme", err)
		return
	}
	if scheme != kpakNone && scheme != kpakZstd {
		bad(p, "compression_scheme", fmt.Errorf("%w: %q is not %q or %q", ErrMalformed, scheme, kpakNone, kpakZstd))
		return
	}
	step := "KPAK"
	for _, k := range []string{"group_name", "gfx_arch_family"} {
		s, err := kpakString(toc, k, "")
		if err != nil {
			bad(p, k, err)
		}
		if s != "" {
			step += " " + s
		}
	}
	q := p.child(step + " (" + scheme + ")")

	entries := w.kpakEntries(toc, q, tocAt)
	if scheme == kpakNone {
		w.kpakBlobs(r, toc, entries, q, tocAt)
	} else {
		w.kpakZstdEntries(r, toc, entries, q, tocAt)
	}
}

// kpakTOC reads and decodes the table of contents at tocOff, which runs to
// the end of the archive.
func (w *walker) kpakTOC(r io.ReaderAt, size, tocOff int64, p place) (map[string]any, bool) {
	n := size - tocOff
	if n > maxKPAKTOC {
		w.fail(p, tocOff, "TOC", fmt.Errorf("%w: %d bytes (limit %d)", ErrLimit, n, maxKPAKTOC))
		return nil, false
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, tocOff); err != nil {
		w.fail(p, tocOff, "TOC", err)
		return nil, false
	}
	v, used, err := msgpack.Decode(buf)
	if err != nil {
		at := tocOff
		var me *msgpack.Error
		if errors.As(err, &me) {
			at += me.Offset
		}
		w.fail(p, at, "TOC", err)
		return nil, false
	}
	if used < len(buf) {
		w.fail(p, tocOff+int64(used), "TOC", fmt.Errorf("%w: %d bytes follow the table of contents", ErrMalformed, len(buf)-used))
	}
	toc, ok := v.(map[string]any)
	if !ok {
		w.fail(p, tocOff, "TOC", fmt.Errorf("%w: a msgpack %s, not a map", ErrMalformed, msgpack.TypeName(v)))
		return nil, false
	}
	return toc, true
}

// kpakEntries collects the code objects the toc map names, in ordinal
// order (the order of their bytes in the archive).
func (w *walker) kpakEntries(toc map[string]any, q place, tocAt int64) []*kpakEntry {
	bad := func(field string, err error) { w.fail(q, tocAt, field, err) }
	v, ok := toc["toc"]
	if !ok {
		bad("toc", fmt.Errorf("%w: missing", ErrMalformed))
		return nil
	}
	bins, ok := v.(map[string]any)
	if !ok {
		bad("toc", fmt.Errorf("%w: a msgpack %s, not a map", ErrMalformed, msgpack.TypeName(v)))
		return nil
	}
	var out []*kpakEntry
	for _, key := range sortedKeys(bins) {
		arches, ok := bins[key].(map[string]any)
		if !ok {
			bad(fmt.Sprintf("toc[%q]", key), fmt.Errorf("%w: a msgpack %s, not a map", ErrMalformed, msgpack.TypeName(bins[key])))
			continue
		}
		for _, arch := range sortedKeys(arches) {
			e := &kpakEntry{key: key, arch: arch, size: -1}
			m, ok := arches[arch].(map[string]any)
			if !ok {
				bad(fmt.Sprintf("toc[%q][%q]", key, arch), fmt.Errorf("%w: a msgpack %s, not a map", ErrMalformed, msgpack.TypeName(arches[arch])))
				continue
			}
			if _, err := kpakString(m, "type", ""); err != nil {
				bad(e.field("type"), err)
				continue
			}
			ord, ok := m["ordinal"]
			if !ok {
				bad(e.field("ordinal"), fmt.Errorf("%w: missing", ErrMalformed))
				continue
			}
			if e.ordinal, ok = msgpack.Uint(ord); !ok {
				bad(e.field("ordinal"), fmt.Errorf("%w: %v is not a non-negative integer", ErrMalformed, ord))
				continue
			}
			if v, ok := m["original_size"]; ok {
				u, ok := msgpack.Uint(v)
				if !ok || u > math.MaxInt64 {
					bad(e.field("original_size"), fmt.Errorf("%w: %v is not a size", ErrMalformed, v))
					continue
				}
				e.size = int64(u)
			}
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ordinal < out[j].ordinal })
	return out
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

// kpakString returns m[key] as a string, or def when it is missing.
func kpakString(m map[string]any, key, def string) (string, error) {
	v, ok := m[key]
	if !ok {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return def, fmt.Errorf("%w: a msgpack %s, not a string", ErrMalformed, msgpack.TypeName(v))
	}
	return s, nil
}

// kpakUint returns m[key] as a non-negative integer that fits an int64.
func kpakUint(m map[string]any, key string) (int64, error) {
	v, ok := m[key]
	if !ok {
		return 0, fmt.Errorf("%w: missing", ErrMalformed)
	}
	u, ok := msgpack.Uint(v)
	if !ok || u > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %v is not a non-negative integer", ErrMalformed, v)
	}
	return int64(u), nil
}

// kpakObject starts the Object of an entry.
func kpakObject(e *kpakEntry) *Object {
	return &Object{ID: e.key, TargetID: e.arch, Kind: "kpack", Container: "kpak entry"}
}

// kpakBlobs lists the entries of an archive stored without compression:
// blobs[ordinal] places each one in the archive.
func (w *walker) kpakBlobs(r io.ReaderAt, toc map[string]any, entries []*kpakEntry, q place, tocAt int64) {
	bad := func(field string, err error) { w.fail(q, tocAt, field, err) }
	v, ok := toc["blobs"]
	if !ok {
		bad("blobs", fmt.Errorf("%w: missing", ErrMalformed))
		return
	}
	blobs, ok := v.([]any)
	if !ok {
		bad("blobs", fmt.Errorf("%w: a msgpack %s, not an array", ErrMalformed, msgpack.TypeName(v)))
		return
	}
	for _, e := range entries {
		if e.ordinal >= uint64(len(blobs)) {
			bad(e.field("ordinal"), fmt.Errorf("%w: %d, but blobs has %d entries", ErrMalformed, e.ordinal, len(blobs)))
			continue
		}
		field := fmt.Sprintf("blobs[%d]", e.ordinal)
		b, ok := blobs[e.ordinal].(map[string]any)
		if !ok {
			bad(field, fmt.Errorf("%w: a msgpack %s, not a map", ErrMalformed, msgpack.TypeName(blobs[e.ordinal])))
			continue
		}
		off, err := kpakUint(b, "offset")
		if err != nil {
			bad(field+".offset", err)
			continue
		}
		n, err := kpakUint(b, "size")
		if err != nil {
			bad(field+".size", err)
			continue
		}
		switch {
		case off < kpakHeaderSize:
			bad(field+".offset", fmt.Errorf("%w: %d lies inside the header", ErrMalformed, off))
			continue
		case off > tocAt || n > tocAt-off:
			bad(field, fmt.Errorf("%w: offset %d + size %d runs past the blobs, which end at the table of contents (%d)", ErrTruncated, off, n, tocAt))
			continue
		}
		if e.size >= 0 && e.size != n {
			// Listed all the same: the runtime reads the blob's bytes.
			bad(e.field("original_size"), fmt.Errorf("%w: %d, but %s holds %d bytes", ErrMalformed, e.size, field, n))
		}
		w.leaf(kpakObject(e), r, off, n, q)
	}
}

// kpakZstdEntries lists the entries of a zstd-per-kernel archive: each is
// the frame of its ordinal in the zstd blob.
func (w *walker) kpakZstdEntries(r io.ReaderAt, toc map[string]any, entries []*kpakEntry, q place, tocAt int64) {
	bad := func(field string, err error) { w.fail(q, tocAt, field, err) }
	zoff, err := kpakUint(toc, "zstd_offset")
	if err != nil {
		bad("zstd_offset", err)
		return
	}
	zsize, err := kpakUint(toc, "zstd_size")
	if err != nil {
		bad("zstd_size", err)
		return
	}
	switch {
	case zoff < kpakHeaderSize:
		bad("zstd_offset", fmt.Errorf("%w: %d lies inside the header", ErrMalformed, zoff))
		return
	case zoff >= tocAt:
		bad("zstd_offset", fmt.Errorf("%w: %d lies past the blobs, which end at the table of contents (%d)", ErrTruncated, zoff, tocAt))
		return
	}
	end := zoff + zsize
	if zsize > tocAt-zoff {
		bad("zstd_size", fmt.Errorf("%w: %d bytes from %d run past the blobs, which end at the table of contents (%d)", ErrTruncated, zsize, zoff, tocAt))
		end = tocAt // the frames up to there may still be whole
	}
	frames, cut := w.kpakFrames(r, zoff, end, q)
	var lost []*kpakEntry
	for _, e := range entries {
		if e.ordinal >= uint64(len(frames)) {
			if cut {
				lost = append(lost, e)
			} else {
				bad(e.field("ordinal"), fmt.Errorf("%w: %d, but the zstd blob holds %d frames", ErrMalformed, e.ordinal, len(frames)))
			}
			continue
		}
		f := frames[e.ordinal]
		switch {
		case f.err != nil:
			w.fail(q, f.off, fmt.Sprintf("%s (zstd frame %d)", e.field("ordinal"), e.ordinal), f.err)
			continue
		case e.size < 0:
			bad(e.field("original_size"), fmt.Errorf("%w: missing (a zstd-per-kernel entry needs it)", ErrMalformed))
			continue
		case f.fcs >= 0 && f.fcs != e.size:
			w.fail(q, f.off, e.field("original_size"), fmt.Errorf("%w: %d, but zstd frame %d holds %d bytes", ErrMalformed, e.size, e.ordinal, f.fcs))
			continue
		}
		eq := q
		eq.base = -1
		eq.comp = &Compression{Format: "KPAK", Version: 1, Method: "zstd", Offset: q.at(f.off), Size: f.size,
			UncompressedSize: e.size}
		o := kpakObject(e)
		w.leaf(o, nil, 0, e.size, eq)
		// leaf's opener would cut the decoded data at original_size;
		// this one also checks that the frame ends there.
		o.open = kpakFrameOpener(r, f.off, f.size, e.size, o.Where()+" for "+e.arch)
	}
	if len(lost) > 0 {
		ords := make([]string, 0, min(len(lost), 4))
		for _, e := range lost[:min(len(lost), 3)] {
			ords = append(ords, fmt.Sprintf("%s %s", e.key, e.arch))
		}
		if len(lost) > 3 {
			ords = append(ords, "...")
		}
		bad("toc", fmt.Errorf("%w: %s (%s) past the %s read before the damage",
			ErrTruncated, plural(len(lost), "entry has its ordinal", "entries have their ordinals"), strings.Join(ords, ", "),
			plural(len(frames), "frame", "frames")))
	}
}

// kpakFrames reads the frame index of the zstd blob at r[zoff:end]. cut
// reports that damage stopped it before the count the blob declares.
func (w *walker) kpakFrames(r io.ReaderAt, zoff, end int64, q place) (frames []kpakFrame, cut bool) {
	var buf [4 + zstd.HeaderMaxSize]byte
	if end-zoff < 4 {
		w.fail(q, zoff, "zstd blob", fmt.Errorf("%w: %d bytes, too few for the frame count", ErrTruncated, end-zoff))
		return nil, true
	}
	if _, err := r.ReadAt(buf[:4], zoff); err != nil {
		w.fail(q, zoff, "zstd blob", err)
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
			w.fail(q, pos, field, fmt.Errorf("%w: the zstd blob ends (at %d) before frame %d of %d", ErrTruncated, end, i, count))
			return frames, true
		}
		b := buf[:min(int64(len(buf)), end-pos)]
		if _, err := r.ReadAt(b, pos); err != nil {
			w.fail(q, pos, field, err)
			return frames, true
		}
		n := int64(binary.LittleEndian.Uint32(b))
		if n > end-pos-4 {
			w.fail(q, pos, field, fmt.Errorf("%w: %d bytes, but %d are left in the zstd blob", ErrTruncated, n, end-pos-4))
			return frames, true
		}
		f := kpakFrame{off: pos + 4, size: n, fcs: -1}
		var h zstd.Header
		switch err := h.Decode(b[4:min(int64(len(b)), 4+n)]); {
		case err != nil:
			f.err = fmt.Errorf("%w: not a zstd frame (%v)", ErrMalformed, err)
		case h.Skippable:
			f.err = fmt.Errorf("%w: a skippable zstd frame, which holds no code object", ErrMalformed)
		case h.DictionaryID != 0:
			f.err = fmt.Errorf("%w: the zstd frame needs dictionary %d, which KPAK archives do not carry", ErrMalformed, h.DictionaryID)
		case h.HasFCS && h.FrameContentSize <= math.MaxInt64:
			f.fcs = int64(h.FrameContentSize)
		}
		frames = append(frames, f)
		pos += 4 + n
	}
	if pos < end {
		w.fail(q, pos, "zstd_size", fmt.Errorf("%w: %d bytes follow the last of the %d frames", ErrMalformed, end-pos, count))
	}
	return frames, false
}

// kpakFrameOpener returns an opener of the n-byte zstd frame at r[off:],
// which must decode to exactly size bytes. Each call decodes afresh,
// streaming.
func kpakFrameOpener(r io.ReaderAt, off, n, size int64, what string) func() (io.Reader, error) {
	return func() (io.Reader, error) {
		dec, err := zstd.NewReader(io.NewSectionReader(r, off, n),
			zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, fmt.Errorf("%s: zstd: %w", what, err)
		}
		return &kpakFrameReader{dec: dec, left: size, size: size, what: what}, nil
	}
}

// kpakFrameReader reads a frame's size bytes and checks that the frame
// ends there.
type kpakFrameReader struct {
	dec        *zstd.Decoder
	left, size int64
	what       string
	err        error
}

func (f *kpakFrameReader) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.left == 0 {
		var b [1]byte
		n, err := f.dec.Read(b[:])
		switch {
		case n > 0:
			err = fmt.Errorf("%s: the zstd frame decompresses to more than its original_size of %d bytes: %w", f.what, f.size, ErrMalformed)
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

func (f *kpakFrameReader) stop(err error) error {
	f.err = err
	f.dec.Close()
	return err
}

// kpackRef reads the .rocm_kpack_ref a HIPK wrapper points to: the section
// holding address addr among refs or, in a relocatable object (where the
// address is set at link time), the first one's start. It is a msgpack map
// {kernel_name, kpack_search_paths}.
func (w *walker) kpackRef(f *elfFile, r io.ReaderAt, size int64, addr uint64, refs []*objfile.Section, p place) *KpackRef {
	var s *objfile.Section
	var rel uint64 // addr's offset in s
	switch {
	case len(refs) == 0:
		w.failOnce(p, hipSegmentOffset(f), secKpackRef, missingKpackRef(f, size))
		return nil
	case f.Type == etRel:
		s = refs[0]
	default:
		for _, c := range refs {
			if addr >= c.Addr && addr-c.Addr < c.Size {
				s, rel = c, addr-c.Addr
				break
			}
		}
		if s == nil {
			c := refs[0]
			w.failOnce(p, hipSegmentOffset(f), secHIPSegment, fmt.Errorf("%w: a HIPK wrapper points at %#x, outside %s (%#x, %d bytes)",
				ErrMalformed, addr, secKpackRef, c.Addr, c.Size))
			return nil
		}
	}
	// walkELF keeps only sections that lie inside the file.
	off := int64(s.Offset + rel)
	buf := make([]byte, min(s.Size-rel, maxKpackRef))
	if _, err := r.ReadAt(buf, off); err != nil {
		w.failOnce(p, off, secKpackRef, err)
		return nil
	}
	v, _, err := msgpack.Decode(buf)
	if err != nil {
		at := off
		var me *msgpack.Error
		if errors.As(err, &me) {
			at += me.Offset
		}
		if s.Size-rel > maxKpackRef && errors.Is(err, msgpack.ErrTruncated) {
			err = fmt.Errorf("%w (only the first %d bytes are read, as the kpack loader does)", err, maxKpackRef)
		}
		w.failOnce(p, at, secKpackRef, err)
		return nil
	}
	bad := func(field string, err error) *KpackRef {
		w.failOnce(p, off, strings.TrimSpace(secKpackRef+" "+field), err)
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return bad("", fmt.Errorf("%w: a msgpack %s, not a map", ErrMalformed, msgpack.TypeName(v)))
	}
	name, ok := m["kernel_name"].(string)
	if !ok {
		if _, there := m["kernel_name"]; !there {
			return bad("kernel_name", fmt.Errorf("%w: missing", ErrMalformed))
		}
		return bad("kernel_name", fmt.Errorf("%w: a msgpack %s, not a string", ErrMalformed, msgpack.TypeName(m["kernel_name"])))
	}
	paths, ok := m["kpack_search_paths"].([]any)
	if !ok {
		if _, there := m["kpack_search_paths"]; !there {
			return bad("kpack_search_paths", fmt.Errorf("%w: missing", ErrMalformed))
		}
		return bad("kpack_search_paths", fmt.Errorf("%w: a msgpack %s, not an array", ErrMalformed, msgpack.TypeName(m["kpack_search_paths"])))
	}
	if len(paths) == 0 {
		return bad("kpack_search_paths", fmt.Errorf("%w: empty (the kpack loader refuses a reference without search paths)", ErrMalformed))
	}
	ref := &KpackRef{KernelName: name}
	for i, v := range paths {
		s, ok := v.(string)
		if !ok {
			return bad(fmt.Sprintf("kpack_search_paths[%d]", i), fmt.Errorf("%w: a msgpack %s, not a string", ErrMalformed, msgpack.TypeName(v)))
		}
		ref.SearchPaths = append(ref.SearchPaths, s)
	}
	return ref
}

// missingKpackRef says why a file with HIPK wrappers has no usable
// .rocm_kpack_ref.
func missingKpackRef(f *elfFile, size int64) error {
	s := objfile.Lookup(f.secs, secKpackRef)
	switch {
	case s == nil:
		return fmt.Errorf("%w: HIPK wrappers but no %s section", ErrMalformed, secKpackRef)
	case s.Type == objfile.SHTNobits || s.Size == 0:
		return fmt.Errorf("%w: HIPK wrappers but %s holds no bytes", ErrMalformed, secKpackRef)
	}
	return fmt.Errorf("%w: %s at offset %d + size %d runs past the end of the file (%d bytes)", ErrTruncated, secKpackRef, s.Offset, s.Size, size)
}

// hipSegmentOffset is the file offset of .hipFatBinSegment, where errors
// about HIPK wrappers are reported.
func hipSegmentOffset(f *elfFile) int64 {
	if s := objfile.Lookup(f.secs, secHIPSegment); s != nil {
		return int64(s.Offset)
	}
	return 0
}

// failOnce reports an error unless the same one was reported already (every
// wrapper of a file points at the same .rocm_kpack_ref).
func (w *walker) failOnce(p place, off int64, field string, err error) {
	at := p.at(off)
	for _, e := range w.l.Errors {
		if e.Offset == at && e.Field == field && e.Err.Error() == err.Error() {
			return
		}
	}
	w.fail(p, off, field, err)
}
