package compress

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"github.com/goffload/goffload/compress/internal/zenc"
	"github.com/goffload/goffload/internal/bigbuf"
)

// Options control Compress. The zero value is LLVM 22's default: version 3,
// zstd, level 3 (zstd's level 0 means its default, 3).
type Options struct {
	// Version is the header version: 2 or 3 (LLVM 22 writes either), or 1,
	// which LLVM 22 cannot write but older readers expect. 0 means 3.
	Version uint16
	// Zlib selects zlib (method 0) instead of zstd. LLVM 22's CLI cannot
	// write zlib; older and zstd-less builds did.
	Zlib bool
	// Level is the level as LLVM passes it to the library: for zstd 1..22,
	// 0 for the default (3), negative for zstd's fast levels, values above
	// 22 act as 22; for zlib 0..9, or ZlibDefaultLevel (-1) for 6. Our zstd
	// encoder (internal/zenc) maps each level onto its own settings,
	// chosen by measurement against libzstd's (NOTES.md).
	Level int
	// FrameStarts cuts a zstd payload into independent frames starting at
	// these offsets of the input (strictly increasing, within the input;
	// for example the offsets of a bundle's entries). The frames are
	// compressed in parallel and concatenated, which LLVM 22 reads like a
	// single frame. Matches cannot cross frames, so the ratio is worse; a
	// single frame is compressed in parallel too, so this is only for
	// readers that want frames. Ignored for zlib.
	FrameStarts []int64
}

// Compress writes src as one CCOB to dst and returns its header. The
// header comes first and records the compressed size, so the compressed
// payload is held in memory before it is written.
func Compress(dst io.Writer, src []byte, opt Options) (Header, error) {
	h := Header{Version: opt.Version, Method: Zstd, UncompressedSize: uint64(len(src))}
	if h.Version == 0 {
		h.Version = DefaultVersion
	}
	if h.Len() == 0 {
		return Header{}, fmt.Errorf("compress: unsupported CCOB version %d (want 1, 2 or 3)", h.Version)
	}
	if opt.Zlib {
		h.Method = Zlib
	}
	if err := checkV2(h.Version, h.UncompressedSize, 0); err != nil {
		return Header{}, err
	}
	// The hash is computed while the payload is compressed.
	hashed := make(chan [md5.Size]byte, 1)
	go func() { hashed <- hashMD5(src) }()
	var payload []byte
	var err error
	if h.Method == Zlib {
		payload, err = compressZlib(src, opt.Level)
	} else {
		payload, err = compressZstd(src, opt.Level, opt.FrameStarts)
	}
	sum := <-hashed
	copy(h.Hash[:], sum[:8])
	if err != nil {
		return Header{}, err
	}
	total := uint64(h.Len()) + uint64(len(payload))
	if h.Version >= 2 {
		h.TotalSize = total
	}
	if err := checkV2(h.Version, h.UncompressedSize, total); err != nil {
		return Header{}, err
	}
	hdr := h.AppendHeader(make([]byte, 0, headerLenV3))
	if _, err := dst.Write(hdr); err != nil {
		return Header{}, err
	}
	if _, err := dst.Write(payload); err != nil {
		return Header{}, err
	}
	return h, nil
}

// hashMD5 is md5.Sum(src) in 1 MiB steps. The assembly behind one Write
// cannot be interrupted, and a single Write of a large input would hold off
// the garbage collector's stack scan (and the encoder's goroutines with
// it) for as long as the hash takes.
func hashMD5(src []byte) [md5.Size]byte {
	h := md5.New()
	for len(src) > 0 {
		n := min(len(src), 1<<20)
		h.Write(src[:n])
		src = src[n:]
	}
	var sum [md5.Size]byte
	h.Sum(sum[:0])
	return sum
}

func compressZlib(src []byte, level int) ([]byte, error) {
	if level < ZlibDefaultLevel || level > 9 {
		return nil, fmt.Errorf("compress: zlib level %d out of range (-1..9)", level)
	}
	var buf bytes.Buffer
	w, err := zlib.NewWriterLevel(&buf, level)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// compressZstd encodes src as one zstd frame with our encoder
// (internal/zenc), or as one frame per part when starts cut it.
// Every payload is decoded again and compared with src before it is used:
// should the encoder ever produce a frame that does not give src back, the
// payload comes from klauspost/compress's encoder instead.
func compressZstd(src []byte, level int, starts []int64) ([]byte, error) {
	bounds, err := frameBounds(len(src), starts)
	if err != nil {
		return nil, err
	}
	var out []byte
	if len(bounds) <= 2 {
		out = encodeZstd(make([]byte, 0, len(src)/8+64), src, level, 0)
	} else {
		frames := make([][]byte, len(bounds)-1)
		var wg sync.WaitGroup
		for i := range frames {
			wg.Go(func() {
				part := src[bounds[i]:bounds[i+1]]
				frames[i] = encodeZstd(nil, part, level, 1)
			})
		}
		wg.Wait()
		out = bytes.Join(frames, nil)
	}
	if verifyZstd(out, src) {
		return out, nil
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault),
		zstd.WithWindowSize(encoderWindow(len(src))), zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true))
	if err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	defer enc.Close()
	out = enc.EncodeAll(src, make([]byte, 0, len(src)/4+64))
	if !verifyZstd(out, src) {
		return nil, fmt.Errorf("compress: zstd payload does not decode to its input")
	}
	return out, nil
}

// encodeZstd is our zstd encoder; tests replace it to exercise the
// fallback.
var encodeZstd = zenc.Encode

// verifyZstd reports whether payload decodes to exactly want. Up to
// verifyInMemory bytes are decoded in one piece into a buffer outside the
// Go heap (fast: the decoder uses its output as its history); larger
// payloads stream, the decoder keeping at most a window (2^27 bytes for our
// frames) of history, so checking a multi-gigabyte payload needs no second
// copy of it.
func verifyZstd(payload, want []byte) bool {
	d := decoderPool.Get().(*zstd.Decoder)
	defer func() {
		d.Reset(nil)
		decoderPool.Put(d)
	}()
	if len(want) <= verifyInMemory {
		buf := bigbuf.New(len(want) + 1)
		defer buf.Free()
		got, err := d.DecodeAll(payload, buf.Bytes())
		return err == nil && bytes.Equal(got, want)
	}
	if err := d.Reset(bytes.NewReader(payload)); err != nil {
		return false
	}
	buf := make([]byte, 1<<20)
	for {
		n, err := io.ReadFull(d, buf)
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false
		}
		want = want[n:]
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			return len(want) == 0
		default:
			return false
		}
	}
}

// verifyInMemory is the largest input whose payload is checked by decoding
// it whole; a variable so that tests reach the streaming check.
var verifyInMemory = 256 << 20

// encoderWindow is the window for n input bytes: all of it, up to
// maxEncodeWindow.
func encoderWindow(n int) int {
	w := 1 << 17
	for w < n && w < maxEncodeWindow {
		w <<= 1
	}
	return w
}

// frameBounds turns frame start offsets into [0, s1, s2, ..., n].
func frameBounds(n int, starts []int64) ([]int64, error) {
	b := []int64{0}
	for _, s := range starts {
		if s <= b[len(b)-1] || s >= int64(n) {
			if s == 0 && len(b) == 1 {
				continue
			}
			return nil, fmt.Errorf("compress: frame start %d out of order or outside the %d-byte input", s, n)
		}
		b = append(b, s)
	}
	return append(b, int64(n)), nil
}

// checkV2 applies the 32-bit limits of versions 1 and 2, with LLVM's
// messages.
func checkV2(version uint16, uncompressed, total uint64) error {
	if version >= 3 {
		return nil
	}
	if uncompressed > math.MaxUint32 {
		return &Error{Field: "uncompressed size", Detail: fmt.Sprintf("%d bytes do not fit version %d's 32-bit field", uncompressed, version), LLVM: msgV2Uncompressed, Err: ErrLimit}
	}
	if total > math.MaxUint32 {
		return &Error{Field: "total size", Detail: fmt.Sprintf("%d bytes do not fit version %d's 32-bit field", total, version), LLVM: msgV2Total, Err: ErrLimit}
	}
	return nil
}
