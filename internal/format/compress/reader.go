package compress

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/goffload/goffload/internal/readerat"
	"github.com/klauspost/compress/zstd"
)

// DecompressLLVM decompresses blob exactly as LLVM 22's bundler does: the
// whole blob is one CCOB, the payload is every byte after the header (the
// total-size field is ignored), the output may be shorter than the header's
// uncompressed size but not longer, and the hash is not checked. Errors are
// *FormatError values whose LLVMMessage is LLVM's message.
//
// Unlike LLVM, it never allocates the header's uncompressed size up front:
// the buffer grows with the data, so a lying header costs nothing.
func DecompressLLVM(blob []byte) ([]byte, Header, error) {
	h, err := ParseHeader(blob)
	if err != nil {
		return nil, Header{}, err
	}
	r := bytes.NewReader(blob)
	base := int64(h.Len())
	n := int64(len(blob)) - base
	if h.Method == Zstd && decodeWholeFrames {
		if out, ok := decodeWhole(blob[base:], h.UncompressedSize); ok {
			return out, h, nil
		}
	}
	src := payloadSource(r, base, n, 0, h, true)
	// make, not Buffer.Grow: Grow clears the new memory in one step the
	// garbage collector cannot interrupt, and for tens of megabytes a
	// collection started meanwhile spins until it ends.
	buf := bytes.NewBuffer(make([]byte, 0, preallocSize(h.UncompressedSize, n)))
	if _, err := buf.ReadFrom(src); err != nil {
		return nil, h, err
	}
	return buf.Bytes(), h, nil
}

// NewLLVMReader returns a reader of the data DecompressLLVM returns for
// r[0:size], decoded as it is read: memory stays bounded by the decoding
// window whatever the sizes, and the errors, met on reading, are
// DecompressLLVM's.
func NewLLVMReader(r io.ReaderAt, size int64) (io.Reader, Header, error) {
	h, err := readHeader(r, size)
	if err != nil {
		return nil, Header{}, err
	}
	base := int64(h.Len())
	return payloadSource(r, base, size-base, 0, h, true), h, nil
}

// readHeader reads and parses the CCOB header at the start of r[0:size].
func readHeader(r io.ReaderAt, size int64) (Header, error) {
	var buf [headerLenV3]byte
	k, err := r.ReadAt(buf[:min(int64(len(buf)), size)], 0)
	if err != nil && err != io.EOF {
		return Header{}, err
	}
	return ParseHeader(buf[:k])
}

var decodeWholeFrames = true // tests compare with the streaming path

// wholeRatio bounds the content size decodeWhole allocates for, per payload
// byte.
const wholeRatio = 256

// decodeWhole decodes a payload that is one complete zstd frame, without a
// checksum, whose recorded content size its blocks can produce and the
// header allows, in one step into a buffer of that size: the decoder then
// uses its output as its history, where streaming would copy every byte
// through a window of its own. It reports false for anything else, and for
// any failure, leaving the payload to the streaming reader, which knows
// libzstd's errors.
func decodeWhole(payload []byte, limit uint64) ([]byte, bool) {
	s := scanZstd(bytes.NewReader(payload), int64(len(payload)), true)
	if s.err != nil || len(s.frames) != 1 {
		return nil, false
	}
	f := s.frames[0]
	if f.skippable || !f.complete || f.checksum || len(f.oversized) > 0 || f.fcs < 0 ||
		f.end != int64(len(payload)) || uint64(f.fcs) > f.maxOut || uint64(f.fcs) > limit {
		return nil, false
	}
	// The buffer is allocated before decoding: only for content sizes
	// within a plausible ratio of the payload (real bundles compress 10-60
	// times), so that a small file cannot ask for gigabytes up front.
	if uint64(f.fcs) > uint64(len(payload))*wholeRatio+1<<20 {
		return nil, false
	}
	d := decoderPool.Get().(*zstd.Decoder)
	defer decoderPool.Put(d)
	out, err := d.DecodeAll(payload, make([]byte, 0, f.fcs))
	if err != nil || int64(len(out)) != f.fcs {
		return nil, false
	}
	return out, true
}

// payloadSource returns a reader of the decompressed payload at r[base:
// base+n]. With llvm set, zstd follows ZSTD_decompress (every byte must be
// part of a frame) and zlib ignores bytes after the stream.
func payloadSource(r io.ReaderAt, base, n, member int64, h Header, all bool) io.Reader {
	if h.Method == Zlib {
		return newZlibReader(r, base, n, member, h.UncompressedSize)
	}
	return newZstdReader(r, base, member, scanZstd(io.NewSectionReader(r, base, n), n, all), h.UncompressedSize)
}

// ratioBound is the most data n payload bytes can decompress to.
func ratioBound(m Method, n int64) uint64 {
	if m == Zlib {
		return uint64(n)*maxZlibRatio + ratioSlack
	}
	return uint64(n)*maxZstdRatio + ratioSlack
}

// A Member is one CCOB found by a Reader.
type Member struct {
	Header
	Offset        int64 // of the CCOB in the input
	PayloadOffset int64
	// PayloadSize is the compressed size. For a v1 zlib member, whose end
	// is found by decoding, it is -1 until the member has been read to EOF.
	PayloadSize int64
}

// End is the offset just past the member (valid once PayloadSize is).
func (m *Member) End() int64 { return m.PayloadOffset + m.PayloadSize }

// A Reader reads a sequence of CCOBs, as found in real fat binaries: members
// back to back, possibly separated by zero padding (sections are aligned to
// 4 KiB). v2 and v3 members end where their total-size field says; a v1
// member's payload is the run of zstd frames (data or skippable) after its
// header, up to the first bytes that start no frame, or one zlib stream. Members are never
// found by searching for "CCOB", which can occur inside compressed data.
//
// Each member's data is streamed through Read, checked against the header's
// uncompressed size and hash at the end: a size mismatch is a *FormatError, a
// hash mismatch a *HashMismatchError returned instead of io.EOF (the data
// read is complete; callers that follow LLVM can treat it as io.EOF).
//
// The Reader is stricter than LLVM 22 about a single CCOB (total size must
// be right, the data must be exactly as long as the header says); see
// Decompress for LLVM's semantics with the Reader's extensions.
type Reader struct {
	r      io.ReaderAt
	size   int64
	limit  uint64 // LimitOutput; 0 for none
	noHash bool   // SkipHash
	next   int64  // where to look for the next member; -1 when unknown yet
	cur    *memberReader
	err    error
}

type memberReader struct {
	m   *Member
	src io.Reader
	zl  *zlibReader // for v1 zlib, to learn the end
	md5 hash.Hash
	n   uint64
	err error
}

// NewReader returns a Reader of the CCOBs in r[0:size].
func NewReader(r io.ReaderAt, size int64) *Reader {
	return &Reader{r: r, size: size}
}

// LimitOutput makes the members Next finds from now on decode at most n
// bytes each, with a decoding window no larger than that instead of one the
// size of the member's data: for a caller that needs only the start of the
// data, such as a bundle's entry table. Reading past n bytes of a member is
// an error; the hash and size checks at its end are then never reached.
// Version 1 zlib members, whose end is found only by decoding them whole,
// are not limited.
func (r *Reader) LimitOutput(n uint64) { r.limit = n }

// SkipHash makes the members Next finds from now on skip the MD5 check
// at their end, which LLVM 22 does not make either: for a caller that
// would ignore a mismatch anyway, the hash is a second pass over every
// byte inflated, longer than the inflation itself.
func (r *Reader) SkipHash() { r.noHash = true }

// Next advances to the next member, skipping the rest of the current one
// and any zero padding. It returns io.EOF when only zero bytes (or nothing)
// remain. Errors are sticky.
func (r *Reader) Next() (*Member, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.cur != nil {
		if r.cur.m.PayloadSize < 0 {
			if _, err := io.Copy(io.Discard, r); err != nil && !errors.Is(err, ErrHashMismatch) {
				r.err = err
				return nil, err
			}
		}
		r.next = r.cur.m.End()
		r.cur.release()
		r.cur = nil
	}
	off, err := readerat.SkipZeros(r.r, r.next, r.size)
	if err != nil {
		err = fmt.Errorf("reading at offset %d: %w", off, err)
	} else if off == r.size {
		err = io.EOF
	}
	if err != nil {
		r.err = err
		return nil, err
	}
	m, err := r.member(off)
	if err != nil {
		r.err = err
		return nil, err
	}
	return m, nil
}

func (r *Reader) member(off int64) (*Member, error) {
	var buf [headerLenV3]byte
	n := int(min(int64(len(buf)), r.size-off))
	if _, err := r.r.ReadAt(buf[:n], off); err != nil {
		return nil, fmt.Errorf("reading at offset %d: %w", off, err)
	}
	h, err := ParseHeader(buf[:n])
	if err != nil {
		var e *FormatError
		if errors.As(err, &e) {
			e.Offset = off
			if errors.Is(err, ErrNotCompressed) {
				e.Field, e.Err, e.LLVM = "data", ErrTrailingData, ""
				e.Msg = fmt.Sprintf("non-zero bytes %x are neither padding nor a CCOB", buf[:min(n, 8)])
			}
		}
		return nil, err
	}
	m := &Member{Header: h, Offset: off, PayloadOffset: off + int64(h.Len()), PayloadSize: -1}
	bad := func(field, format string, args ...any) (*Member, error) {
		return nil, &FormatError{Offset: off, Field: field, Msg: fmt.Sprintf(format, args...), Err: ErrSize}
	}
	avail := r.size - m.PayloadOffset
	if h.Version >= 2 {
		if h.TotalSize < uint64(h.Len()) {
			return bad("total size", "%d is smaller than the %d-byte header", h.TotalSize, h.Len())
		}
		if h.TotalSize-uint64(h.Len()) > uint64(avail) {
			return bad("total size", "%d runs past the end of the input (%d bytes from the member's start)", h.TotalSize, r.size-off)
		}
		avail = int64(h.TotalSize) - int64(h.Len())
	}
	if h.UncompressedSize > MaxUncompressedSize {
		return bad("uncompressed size", "%d exceeds the limit of %d", h.UncompressedSize, uint64(MaxUncompressedSize))
	}
	if b := ratioBound(h.Method, avail); h.UncompressedSize > b {
		return bad("uncompressed size", "%d cannot come from %d compressed bytes (at most %d)", h.UncompressedSize, avail, b)
	}
	mr := &memberReader{m: m}
	if !r.noHash {
		mr.md5 = md5.New()
	}
	limit := h.UncompressedSize
	if r.limit > 0 && r.limit < limit && !(h.Method == Zlib && h.Version < 2) {
		// (A v1 zlib member's end is found only by decoding it all.)
		limit = r.limit
	}
	switch {
	case h.Method == Zlib:
		mr.zl = newZlibReader(r.r, m.PayloadOffset, avail, off, limit)
		mr.src = mr.zl
		if h.Version >= 2 {
			m.PayloadSize = avail
		}
	case h.Version >= 2:
		m.PayloadSize = avail
		mr.src = newZstdReader(r.r, m.PayloadOffset, off, scanZstd(io.NewSectionReader(r.r, m.PayloadOffset, avail), avail, true), limit)
	default:
		s := scanZstd(io.NewSectionReader(r.r, m.PayloadOffset, avail), avail, false)
		if s.err != nil {
			e := s.err
			return nil, payloadError(off, e.code, "v1 member: "+e.detail)
		}
		if len(s.frames) == 0 && avail > 0 {
			// No frame at all: fine for an empty member followed by
			// padding or the next CCOB, corrupt otherwise.
			var b [4]byte
			k, _ := r.r.ReadAt(b[:], m.PayloadOffset)
			if b[0] != 0 && string(b[:k]) != string(Magic[:k]) {
				return nil, payloadError(off, zstdPrefixUnknown, fmt.Sprintf("v1 member: no zstd frame at payload offset 0 (bytes %x)", b[:k]))
			}
		}
		m.PayloadSize = s.end
		mr.src = newZstdReader(r.r, m.PayloadOffset, off, s, limit)
	}
	r.cur = mr
	return m, nil
}

// Close gives back the decoder of the member being read, which a reader
// left before the member's end would otherwise keep (a zstd decoder holds
// a window of up to the member's size). Reading after Close fails.
func (r *Reader) Close() error {
	if r.cur != nil {
		r.cur.release()
		r.cur = nil
	}
	if r.err == nil {
		r.err = errClosed
	}
	return nil
}

var errClosed = errors.New("compress: read after Close")

// release gives back the member's decoder; its reads fail afterwards.
func (mr *memberReader) release() {
	if z, ok := mr.src.(*zstdReader); ok {
		z.close() // read only through mr, whose error stops it
	}
	if mr.err == nil {
		mr.err = errClosed
	}
}

// Read reads the current member's decompressed data.
func (r *Reader) Read(p []byte) (int, error) {
	if r.cur == nil {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	return r.cur.read(p)
}

func (mr *memberReader) read(p []byte) (int, error) {
	if mr.err != nil {
		return 0, mr.err
	}
	n, err := mr.src.Read(p)
	if mr.md5 != nil {
		mr.md5.Write(p[:n])
	}
	mr.n += uint64(n)
	if err == io.EOF {
		err = mr.finish()
	}
	if err != nil {
		mr.err = err
	}
	return n, err
}

func (mr *memberReader) finish() error {
	m := mr.m
	if mr.zl != nil {
		used := mr.zl.consumed()
		if m.Version < 2 {
			m.PayloadSize = used
		} else if used != m.PayloadSize {
			return &FormatError{Offset: m.Offset, Field: "payload", Msg: fmt.Sprintf("zlib stream ends after %d of the member's %d payload bytes", used, m.PayloadSize), Err: ErrTrailingData}
		}
	}
	if mr.n != m.UncompressedSize {
		return &FormatError{Offset: m.Offset, Field: "uncompressed size", Msg: fmt.Sprintf("data is %d bytes, header says %d", mr.n, m.UncompressedSize), Err: ErrSize}
	}
	if mr.md5 == nil {
		return io.EOF
	}
	var sum [md5.Size]byte
	computed := binary.LittleEndian.Uint64(mr.md5.Sum(sum[:0]))
	if computed != m.HashValue() {
		return &HashMismatchError{Offset: m.Offset, Stored: m.HashValue(), Computed: computed}
	}
	return io.EOF
}

// A Result is one decompressed member returned by Decompress.
type Result struct {
	Member
	Data []byte
}

// Computed returns the HashValue view of MD5[0:8] of Data; it differs from
// Header.HashValue() when the stored hash is wrong, which LLVM ignores. It
// is computed on demand: LLVM hashes only in verbose mode, and MD5 costs
// as much as the decompression itself.
func (r Result) Computed() uint64 { return HashOf(r.Data) }

// Decompress is the decompression step of the drop-in tools. When LLVM 22
// reads blob (one CCOB, payload to the end), it returns LLVM's result as
// a single Result. Otherwise it reads blob as a sequence of CCOBs with
// padding (see Reader), which LLVM 22 rejects; a wrong hash is not an
// error there either. If both fail, the error is LLVM's (a *FormatError whose
// LLVM field holds LLVM's text).
func Decompress(blob []byte) ([]Result, error) {
	out, h, err := DecompressLLVM(blob)
	if err == nil {
		m := Member{Header: h, PayloadOffset: int64(h.Len()), PayloadSize: int64(len(blob) - h.Len())}
		return []Result{{Member: m, Data: out}}, nil
	}
	if errors.Is(err, ErrNotCompressed) || errors.Is(err, ErrHeaderTooSmall) || errors.Is(err, ErrUnknownMethod) {
		return nil, err
	}
	res, serr := decompressAll(blob)
	if serr != nil {
		return nil, err
	}
	return res, nil
}

func decompressAll(blob []byte) ([]Result, error) {
	r := NewReader(bytes.NewReader(blob), int64(len(blob)))
	var res []Result
	for {
		m, err := r.Next()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		data := make([]byte, 0, preallocSize(m.UncompressedSize, m.PayloadSize))
		buf := bytes.NewBuffer(data)
		_, err = buf.ReadFrom(r)
		var hm *HashMismatchError
		if err != nil && !errors.As(err, &hm) {
			return nil, err
		}
		res = append(res, Result{Member: *m, Data: buf.Bytes()})
	}
}

// HashOf returns the HashValue view of MD5[0:8] of data.
func HashOf(data []byte) uint64 {
	sum := md5.Sum(data)
	return binary.LittleEndian.Uint64(sum[:8])
}

// preallocSize is how much output buffer to allocate up front for a
// payload of n bytes whose header announces size: the announced size when
// it is plausible (a ratio up to 64), less when it is not; the buffer grows
// if the data is really that large.
func preallocSize(size uint64, n int64) uint64 {
	return min(size, uint64(max(n, 0))*64+1<<20)
}
