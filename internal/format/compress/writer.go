package compress

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"github.com/goffload/goffload/internal/fault"
	"github.com/goffload/goffload/internal/format/compress/internal/zenc"
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
	// 22 act as 22; for zlib 1..9, 0 or ZlibDefaultLevel for the default
	// (6), ZlibStore for zlib's level 0 (no compression). Our zstd encoder
	// (internal/zenc) maps each level onto its own settings, chosen by
	// measurement against libzstd's (NOTES.md).
	Level int
}

// Compress writes src as one CCOB to dst and returns its header. The
// header comes first and records the compressed size, so the compressed
// payload is held in memory before it is written. src may be a mapped
// file: if it faults (truncated by another process), the error is a
// *fault.Error.
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
	// The hash is computed while the payload is compressed. src may be a
	// mapped file: a memory fault reading it (the file was truncated) is
	// an error, in either goroutine (package fault).
	type hash struct {
		sum [md5.Size]byte
		err error
	}
	hashed := make(chan hash, 1)
	go func() {
		var h hash
		h.err = fault.Catch(func() { h.sum = hashMD5(src) })
		hashed <- h
	}()
	var payload []byte
	var err error
	if ferr := fault.Catch(func() {
		if h.Method == Zlib {
			payload, err = compressZlib(src, opt.Level)
		} else {
			payload, err = compressZstd(src, opt.Level)
		}
	}); ferr != nil {
		err = ferr
	}
	sum := <-hashed
	copy(h.Hash[:], sum.sum[:8])
	if err == nil {
		err = sum.err
	}
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
	switch level {
	case 0:
		level = ZlibDefaultLevel
	case ZlibStore:
		level = 0
	}
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
// (internal/zenc). Every payload is decoded again and compared with src
// before it is used: should the encoder ever produce a frame that does not
// give src back, the payload comes from klauspost/compress's encoder
// instead.
func compressZstd(src []byte, level int) ([]byte, error) {
	// Room for half the input: fat binaries compress 3-40 times, and pages
	// of the room never written are never touched. A frame that outgrew
	// len(src)/8 was copied at every growth by a quarter, into fresh pages
	// each time: on R5 (25 MB, 3.1 times) a fifth of the bundler's CPU
	// time at level 1 went to those copies and their page faults (241 ->
	// 211 ms, 7 alternating runs; peak RSS 71 -> 44 MB).
	out := encodeZstd(make([]byte, 0, len(src)/2+64), src, level, 0)
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

// verifyZstd reports whether payload decodes to exactly want: zenc.Verify
// decodes it, comparing each literal and match with want where it lands
// instead of writing it, so checking needs no second copy of the input and
// touches no new memory.
func verifyZstd(payload, want []byte) bool {
	return zenc.Verify(payload, want) == nil
}

// encoderWindow is the window for n input bytes: all of it, up to
// maxEncodeWindow.
func encoderWindow(n int) int {
	w := 1 << 17
	for w < n && w < maxEncodeWindow {
		w <<= 1
	}
	return w
}

// checkV2 applies the 32-bit limits of versions 1 and 2, with LLVM's
// messages.
func checkV2(version uint16, uncompressed, total uint64) error {
	if version >= 3 {
		return nil
	}
	if uncompressed > math.MaxUint32 {
		return &FormatError{Field: "uncompressed size", Msg: fmt.Sprintf("%d bytes do not fit version %d's 32-bit field", uncompressed, version), LLVM: msgV2Uncompressed, Err: ErrLimit}
	}
	if total > math.MaxUint32 {
		return &FormatError{Field: "total size", Msg: fmt.Sprintf("%d bytes do not fit version %d's 32-bit field", total, version), LLVM: msgV2Total, Err: ErrLimit}
	}
	return nil
}
