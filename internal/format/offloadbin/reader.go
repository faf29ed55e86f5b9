package offloadbin

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/goffload/goffload/internal/readerat"
	"github.com/klauspost/compress/zstd"
)

// ReadOption changes how binaries are read.
type ReadOption func(*readConfig)

type readConfig struct {
	v1Only bool
	// maxInflated bounds the decompressed size of a compressed v3 binary.
	maxInflated int64
	// overread is, with v1Only, the first binary whose fields LLVM 22 does
	// not check and that would make it read out of bounds (an image or
	// string past the binary's end): LLVM carries on there, with garbage
	// or a crash, and reports the next real parse error if there is one.
	// So do we: such a binary is skipped, and overread is the error only
	// when nothing after it fails.
	overread error
}

// errSkip tells readV1 that readEntry recorded an overread.
var errSkip = errors.New("offloadbin: binary skipped")

// beyond handles an error LLVM 22 does not check for (see overread).
func (c *readConfig) beyond(err error) error {
	if !c.v1Only {
		return err
	}
	if c.overread == nil {
		c.overread = err
	}
	return errSkip
}

// result returns err, or, when there is none, a recorded overread.
func (c *readConfig) result(err error) error {
	if err == nil {
		return c.overread
	}
	return err
}

// V1Only makes the reader behave like LLVM 22.1.8: only version 1 is
// accepted, binaries must follow each other with no gap or padding, and the
// checks (and their order) are LLVM 22's.
func V1Only() ReadOption { return func(c *readConfig) { c.v1Only = true } }

// MaxInflatedSize bounds the size a compressed (v3) binary may declare for
// its decompressed form (default 1 GiB).
func MaxInflatedSize(n int64) ReadOption { return func(c *readConfig) { c.maxInflated = n } }

func newConfig(opts []ReadOption) *readConfig {
	c := &readConfig{maxInflated: 1 << 30}
	for _, o := range opts {
		o(c)
	}
	return c
}

// ReadAll reads every binary of a buffer holding OffloadBinaries back to
// back (a raw packager output, an ELF or COFF offloading section, an archive
// member), in order. The next binary starts where the previous one's size
// field says it ends; anything that is not a binary there is an error. Only
// the headers and string maps are read; image bytes stay in r.
//
// By default versions 1 to 3 are accepted and, as newer LLVM does, a binary
// whose size is not a multiple of 8 may be followed by zero padding up to
// the next multiple of 8. With V1Only the reader behaves as LLVM 22.
func ReadAll(r io.ReaderAt, size int64, opts ...ReadOption) ([]*Binary, error) {
	var out []*Binary
	cfg := newConfig(opts)
	err := cfg.result(cfg.readAll(r, size, func(b *Binary) { out = append(out, b) }))
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (cfg *readConfig) readAll(r io.ReaderAt, size int64, yield func(*Binary)) error {
	return cfg.each(r, size, false, func(_ int, _ int64, bins []*Binary) error {
		for _, b := range bins {
			yield(b)
		}
		return nil
	})
}

// Walk reads the OffloadBinaries of r[0:size] back to back, as ReadAll
// does, for tools that list what they can: it calls fn with each binary's
// number, offset and images as it reads them, skips any run of zero bytes
// between binaries (sections of linked files may be aligned beyond 8
// bytes), and on damage stops with the error, the binaries before it
// given to fn already. An error fn returns stops the walk too.
func Walk(r io.ReaderAt, size int64, fn func(n int, off int64, bins []*Binary) error, opts ...ReadOption) error {
	cfg := newConfig(opts)
	return cfg.result(cfg.each(r, size, true, fn))
}

// each is the one loop over binaries back to back under ReadAll (LLVM's
// rule: a binary whose size is not a multiple of 8 may be followed by zero
// padding up to the next multiple, V1Only none) and Walk (lenient: any
// run of zero bytes).
func (cfg *readConfig) each(r io.ReaderAt, size int64, lenient bool, fn func(n int, off int64, bins []*Binary) error) error {
	off := int64(0)
	if lenient {
		off, _ = readerat.SkipZeros(r, 0, size) // a read error shows at the next read
	}
	for n := 0; off < size; n++ {
		bins, used, err := cfg.read(r, off, size-off)
		if err != nil {
			return &WalkError{Index: n, Offset: off, Err: err}
		}
		if err := fn(n, off, bins); err != nil {
			return err
		}
		off += used
		switch {
		case lenient:
			off, _ = readerat.SkipZeros(r, off, size)
		case !cfg.v1Only && off%Alignment != 0 && off < size && !hasMagicAt(r, off, size):
			off += Alignment - off%Alignment
		}
	}
	return nil
}

// A WalkError is damage at binary Index, which starts at Offset.
type WalkError struct {
	Index  int
	Offset int64
	Err    error
}

func (e *WalkError) Error() string { return e.Err.Error() }
func (e *WalkError) Unwrap() error { return e.Err }

// Read reads the binary that starts at offset off of r, where the readable
// data ends at end. It returns its images (one for v1, one per entry for
// v2 and v3) and the number of bytes the binary occupies (its size field).
func Read(r io.ReaderAt, off, end int64, opts ...ReadOption) ([]*Binary, int64, error) {
	if off < 0 || end < off {
		return nil, 0, fmt.Errorf("offloadbin: bad range [%d, %d)", off, end)
	}
	cfg := newConfig(opts)
	bins, n, err := cfg.read(r, off, end-off)
	if err = cfg.result(err); err != nil {
		return nil, 0, err
	}
	return bins, n, nil
}

func hasMagicAt(r io.ReaderAt, off, size int64) bool {
	if size-off < 4 {
		return false
	}
	var m [4]byte
	if _, err := r.ReadAt(m[:], off); err != nil {
		return false
	}
	return string(m[:]) == Magic
}

// header is the fixed part of a binary header (all versions).
type header struct {
	version      uint32
	size         uint64
	entryOffset  uint64
	entrySizeOrN uint64 // v1: entry size; v2+: entry count
	inflated     uint64 // v3
}

func (c *readConfig) read(r io.ReaderAt, off, avail int64) ([]*Binary, int64, error) {
	bins, n, err := c.readBinary(r, off, avail)
	for _, b := range bins {
		b.buf, b.at = r, off
	}
	return bins, n, err
}

func (c *readConfig) readBinary(r io.ReaderAt, off, avail int64) ([]*Binary, int64, error) {
	fail := func(kind error, field, format string, a ...any) ([]*Binary, int64, error) {
		return nil, 0, formatError(off, field, kind, format, a...)
	}
	minAvail := int64(headerSize)
	if c.v1Only {
		// LLVM 22 wants room for a header and an entry before it looks at
		// anything.
		minAvail = minBinarySizeV1
	}
	if avail < minAvail {
		return fail(ErrInvalid, "header", "only %d bytes left, need at least %d", avail, minAvail)
	}
	var hb [headerSizeV3]byte
	hn := min(avail, headerSizeV3)
	if _, err := readFull(r, hb[:hn], off); err != nil {
		return nil, 0, err
	}
	if string(hb[:4]) != Magic {
		return fail(ErrInvalid, "magic", "got % x, want % x", hb[:4], Magic)
	}
	le := binary.LittleEndian
	h := header{
		version:      le.Uint32(hb[offVersion:]),
		size:         le.Uint64(hb[offSize:]),
		entryOffset:  le.Uint64(hb[offEntryOffset:]),
		entrySizeOrN: le.Uint64(hb[offEntrySize:]),
	}
	switch {
	case h.version == Version1:
		return c.readV1(r, off, avail, &h)
	case c.v1Only || h.version == 0 || h.version > Version3:
		return fail(ErrInvalid, "version", "unsupported version %d", h.version)
	}
	if h.version >= Version3 {
		if hn < headerSizeV3 {
			return fail(ErrInvalid, "header", "only %d bytes left, a v3 header needs %d", avail, headerSizeV3)
		}
		h.inflated = le.Uint64(hb[offInflated:])
	}
	return c.readV2(r, off, avail, &h)
}

func (c *readConfig) readV1(r io.ReaderAt, off, avail int64, h *header) ([]*Binary, int64, error) {
	fail := func(kind error, field, format string, a ...any) ([]*Binary, int64, error) {
		return nil, 0, formatError(off, field, kind, format, a...)
	}
	// LLVM 22 checks the header twice: against the rest of the buffer, then
	// against a copy of exactly size bytes. Both must pass.
	if h.size > uint64(avail) {
		return fail(ErrTruncated, "size", "%d bytes but only %d left", h.size, avail)
	}
	if h.size < entrySize {
		return fail(ErrTruncated, "size", "%d bytes is too small", h.size)
	}
	size := int64(h.size)
	if h.entryOffset > h.size-entrySize || h.entrySizeOrN > h.size-headerSize {
		return fail(ErrTruncated, "entry", "offset %d / size %d past the binary's %d bytes", h.entryOffset, h.entrySizeOrN, h.size)
	}
	if c.v1Only && size < minBinarySizeV1 {
		return fail(ErrInvalid, "size", "%d bytes, need at least %d", size, minBinarySizeV1)
	}
	var eb [entrySize]byte
	if _, err := readFull(r, eb[:], off+int64(h.entryOffset)); err != nil {
		return nil, 0, err
	}
	b, err := c.readEntry(r, off, size, eb[:], stringEntrySize)
	if err == errSkip {
		return nil, size, nil
	}
	if err != nil {
		return nil, 0, err
	}
	b.Version = Version1
	b.Size = size
	return []*Binary{b}, size, nil
}

// readEntry decodes one 40-byte entry of the binary at off (size bytes,
// readable through r) and reads its string map.
func (c *readConfig) readEntry(r io.ReaderAt, off, size int64, eb []byte, strEntSize int64) (*Binary, error) {
	fail := func(kind error, field, format string, a ...any) (*Binary, error) {
		return nil, formatError(off, field, kind, format, a...)
	}
	le := binary.LittleEndian
	b := &Binary{
		Offset:      off,
		ImageKind:   ImageKind(le.Uint16(eb[entImageKind:])),
		OffloadKind: OffloadKind(le.Uint16(eb[entOffloadKind:])),
		Flags:       le.Uint32(eb[entFlags:]),
	}
	strOff := le.Uint64(eb[entStrOffset:])
	numStr := le.Uint64(eb[entNumStrings:])
	imgOff := le.Uint64(eb[entImageOffset:])
	imgSize := le.Uint64(eb[entImageSize:])
	usize := uint64(size)
	if imgOff > usize {
		return fail(ErrTruncated, "image offset", "%d past the binary's %d bytes", imgOff, size)
	}
	if strOff > usize {
		return fail(ErrTruncated, "string entries offset", "%d past the binary's %d bytes", strOff, size)
	}
	// Not checked by LLVM 22 (it reads out of bounds or crashes).
	beyond := func(field, format string, a ...any) (*Binary, error) {
		_, err := fail(ErrTruncated, field, format, a...)
		return nil, c.beyond(err)
	}
	if numStr > (usize-strOff)/uint64(strEntSize) {
		return beyond("string entries", "%d entries of %d bytes at %d do not fit in the binary's %d bytes", numStr, strEntSize, strOff, size)
	}
	if imgSize > usize-imgOff {
		return beyond("image size", "%d bytes at %d past the binary's %d bytes", imgSize, imgOff, size)
	}
	b.image = io.NewSectionReader(r, off+int64(imgOff), int64(imgSize))
	if numStr == 0 {
		return b, nil
	}
	raw := make([]byte, numStr*uint64(strEntSize))
	if _, err := readFull(r, raw, off+int64(strOff)); err != nil {
		return nil, err
	}
	st := &strReader{r: r, base: off, size: size}
	b.Strings = make([]StringEntry, numStr)
	for i := range b.Strings {
		e := raw[int64(i)*strEntSize:]
		k, err := st.cstring(le.Uint64(e[0:]))
		if err != nil {
			return beyond(fmt.Sprintf("string entry %d key", i), "%v", err)
		}
		var v string
		if strEntSize == stringEntrySize {
			v, err = st.cstring(le.Uint64(e[8:]))
		} else {
			v, err = st.bytes(le.Uint64(e[8:]), le.Uint64(e[16:]))
		}
		if err != nil {
			return beyond(fmt.Sprintf("string entry %d value", i), "%v", err)
		}
		b.Strings[i] = StringEntry{k, v}
	}
	return b, nil
}

func (c *readConfig) readV2(r io.ReaderAt, off, avail int64, h *header) ([]*Binary, int64, error) {
	fail := func(kind error, field, format string, a ...any) ([]*Binary, int64, error) {
		return nil, 0, formatError(off, field, kind, format, a...)
	}
	hsize := uint64(headerSize)
	if h.version >= Version3 {
		hsize = headerSizeV3
	}
	if h.size > uint64(avail) || h.size < hsize {
		return fail(ErrTruncated, "size", "%d bytes with %d left", h.size, avail)
	}
	onDisk := int64(h.size)
	if h.inflated != 0 {
		data, err := c.inflate(r, off, h)
		if err != nil {
			return nil, 0, err
		}
		bins, _, err := c.readV2(bytes.NewReader(data), 0, int64(len(data)), &header{
			version: h.version, size: uint64(len(data)), entryOffset: h.entryOffset, entrySizeOrN: h.entrySizeOrN,
		})
		if err != nil {
			return nil, 0, err
		}
		for _, b := range bins {
			b.Offset, b.Size = off, onDisk
		}
		return bins, onDisk, nil
	}
	n := h.entrySizeOrN
	if h.size < entrySize || n > (h.size-32)/entrySize || h.entryOffset > h.size-n*entrySize {
		return fail(ErrTruncated, "entries", "%d entries at %d do not fit in %d bytes", n, h.entryOffset, h.size)
	}
	raw := make([]byte, n*entrySize)
	if _, err := readFull(r, raw, off+int64(h.entryOffset)); err != nil {
		return nil, 0, err
	}
	bins := make([]*Binary, 0, n)
	for i := range int(n) {
		b, err := c.readEntry(r, off, onDisk, raw[i*entrySize:(i+1)*entrySize], stringEntryV2)
		if err != nil {
			return nil, 0, err
		}
		b.Version, b.Size, b.Index = h.version, onDisk, i
		bins = append(bins, b)
	}
	return bins, onDisk, nil
}

// inflate returns the uncompressed form of a compressed v3 binary: its
// header (with size set to the inflated size and the inflated size cleared)
// followed by the decompressed body.
func (c *readConfig) inflate(r io.ReaderAt, off int64, h *header) ([]byte, error) {
	fail := func(kind error, field, format string, a ...any) ([]byte, error) {
		return nil, formatError(off, field, kind, format, a...)
	}
	if h.entryOffset > h.size || h.inflated < h.entryOffset || h.entryOffset < headerSizeV3 {
		return fail(ErrTruncated, "inflated size", "%d with entries at %d in %d bytes", h.inflated, h.entryOffset, h.size)
	}
	if h.inflated > uint64(c.maxInflated) {
		return fail(ErrInvalid, "inflated size", "%d bytes exceeds the limit of %d", h.inflated, c.maxInflated)
	}
	body := io.NewSectionReader(r, off+int64(h.entryOffset), int64(h.size-h.entryOffset))
	var magic [4]byte
	body.ReadAt(magic[:], 0)
	var dec io.Reader
	if magic == [4]byte{0x28, 0xB5, 0x2F, 0xFD} {
		zr, err := zstd.NewReader(body, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return fail(ErrInvalid, "compressed body", "zstd: %v", err)
		}
		defer zr.Close()
		dec = zr
	} else {
		zr, err := zlib.NewReader(body)
		if err != nil {
			return fail(ErrInvalid, "compressed body", "zlib: %v", err)
		}
		defer zr.Close()
		dec = zr
	}
	want := int64(h.inflated - h.entryOffset)
	var buf bytes.Buffer
	buf.Grow(int(h.entryOffset))
	hdr := make([]byte, h.entryOffset)
	if _, err := readFull(r, hdr, off); err != nil {
		return nil, err
	}
	binary.LittleEndian.PutUint64(hdr[offSize:], h.inflated)
	binary.LittleEndian.PutUint64(hdr[offInflated:], 0)
	buf.Write(hdr)
	n, err := io.Copy(&buf, io.LimitReader(dec, want+1))
	if err != nil {
		return fail(ErrInvalid, "compressed body", "%v", err)
	}
	if n != want {
		return fail(ErrInvalid, "compressed body", "decompressed to %d bytes, header says %d", n, want)
	}
	return buf.Bytes(), nil
}

// readFull reads len(p) bytes at off, reporting a short read as truncation.
func readFull(r io.ReaderAt, p []byte, off int64) (int, error) {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return n, nil
	}
	if err == nil || err == io.EOF {
		return n, formatError(off, "data", ErrTruncated, "short read: %d of %d bytes", n, len(p))
	}
	return n, err
}

// strReader reads strings of one binary (size bytes at base), caching a
// window of the data since the strings of a binary sit together.
type strReader struct {
	r          io.ReaderAt
	base, size int64
	win        []byte
	winOff     int64
}

const strWindow = 4096

// at returns the bytes from binary offset o to the end of the window that
// holds it.
func (s *strReader) at(o int64) ([]byte, error) {
	if s.win == nil || o < s.winOff || o >= s.winOff+int64(len(s.win)) {
		start := o &^ (strWindow - 1)
		n := min(strWindow, s.size-start)
		buf := make([]byte, n)
		if _, err := readFull(s.r, buf, s.base+start); err != nil {
			return nil, err
		}
		s.win, s.winOff = buf, start
	}
	return s.win[o-s.winOff:], nil
}

func (s *strReader) cstring(o uint64) (string, error) {
	if o >= uint64(s.size) {
		return "", fmt.Errorf("offset %d past the binary's %d bytes", o, s.size)
	}
	var out []byte
	for p := int64(o); p < s.size; {
		b, err := s.at(p)
		if err != nil {
			return "", err
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return string(append(out, b[:i]...)), nil
		}
		out = append(out, b...)
		p += int64(len(b))
	}
	return "", fmt.Errorf("string at %d has no NUL before the binary's end (%d)", o, s.size)
}

func (s *strReader) bytes(o, n uint64) (string, error) {
	if o > uint64(s.size) || n > uint64(s.size)-o {
		return "", fmt.Errorf("%d bytes at %d past the binary's %d bytes", n, o, s.size)
	}
	buf := make([]byte, n)
	if _, err := readFull(s.r, buf, s.base+int64(o)); err != nil {
		return "", err
	}
	return string(buf), nil
}
