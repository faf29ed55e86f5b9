package compress

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
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
	// 22 act as 22; for zlib 0..9, or ZlibDefaultLevel (-1) for 6. See
	// ZstdEncoderLevel for how zstd levels map onto the Go encoder.
	Level int
	// FrameStarts cuts a zstd payload into independent frames starting at
	// these offsets of the input (strictly increasing, within the input;
	// for example the offsets of a bundle's entries). The frames are
	// compressed in parallel and concatenated, which LLVM 22 reads like a
	// single frame. Matches cannot cross frames, so the ratio is a little
	// worse. Ignored for zlib.
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
	sum := md5.Sum(src)
	copy(h.Hash[:], sum[:8])
	var payload []byte
	var err error
	if h.Method == Zlib {
		payload, err = compressZlib(src, opt.Level)
	} else {
		payload, err = compressZstd(src, opt.Level, opt.FrameStarts)
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

// ZstdEncoderLevel maps a zstd level as LLVM passes it (libzstd semantics:
// 0 is the default 3, negatives are the fast levels, above 22 is 22) onto
// the Go encoder's four levels. The mapping was chosen by measuring both on
// HIP fat binaries (NOTES.md): each level gets the fastest Go level whose
// ratio is at least libzstd's (with long-distance matching, as LLVM calls
// it) on every sample, or the strongest Go level. The Go encoder is weaker
// than libzstd at equal speed, so from level -1 up we trade speed for
// ratio; from level 7 up even its best level is 0.5-3% (levels 7-12) to
// 12-17% (level 19) larger than libzstd.
func ZstdEncoderLevel(level int) zstd.EncoderLevel {
	switch {
	case level == 0:
		return zstd.SpeedBestCompression // libzstd's default, 3
	case level <= -2:
		return zstd.SpeedFastest
	case level == -1:
		return zstd.SpeedBetterCompression
	default:
		return zstd.SpeedBestCompression
	}
}

// encoderWindow is the window for n input bytes: all of it, as LLVM's
// long-distance matching reaches across the whole input, up to
// maxEncodeWindow.
func encoderWindow(n int) int {
	w := 1 << 17
	for w < n && w < maxEncodeWindow {
		w <<= 1
	}
	return w
}

func compressZstd(src []byte, level int, starts []int64) ([]byte, error) {
	bounds, err := frameBounds(len(src), starts)
	if err != nil {
		return nil, err
	}
	largest := 0
	for i := range len(bounds) - 1 {
		largest = max(largest, int(bounds[i+1]-bounds[i]))
	}
	workers := max(min(runtime.GOMAXPROCS(0), len(bounds)-1), 1)
	lvl, window := ZstdEncoderLevel(level), encoderWindow(largest)
	if len(bounds) <= 2 && lvl > zstd.SpeedDefault && len(src) > largeInput {
		return compressLarge(src, level, lvl, window)
	}
	enc, err := encoderFor(lvl, window, workers)
	if err != nil {
		return nil, err
	}
	if len(bounds) <= 2 {
		return enc.EncodeAll(src, make([]byte, 0, len(src)/4+64)), nil
	}
	frames := make([][]byte, len(bounds)-1)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				part := src[bounds[i]:bounds[i+1]]
				frames[i] = enc.EncodeAll(part, make([]byte, 0, len(part)/4+64))
			}
		})
	}
	for i := range frames {
		next <- i
	}
	close(next)
	wg.Wait()
	return bytes.Join(frames, nil), nil
}

// compressLarge encodes one frame of an input over largeInput bytes. On
// such inputs (fat binaries with one code object per GPU) the Go encoder's
// default level reaches repeats across the whole window that its stronger
// levels miss (NOTES.md, "Large inputs"), in a fraction of the time. Up to
// level 6 it alone is used, which keeps us faster than libzstd; from level 7
// the stronger level is tried too and the smaller payload kept.
func compressLarge(src []byte, level int, lvl zstd.EncoderLevel, window int) ([]byte, error) {
	def, err := encoderFor(zstd.SpeedDefault, window, 1)
	if err != nil {
		return nil, err
	}
	out := def.EncodeAll(src, make([]byte, 0, len(src)/4+64))
	if level < 7 {
		return out, nil
	}
	enc, err := encoderFor(lvl, window, 1)
	if err != nil {
		return nil, err
	}
	if b := enc.EncodeAll(src, make([]byte, 0, len(out))); len(b) < len(out) {
		out = b
	}
	return out, nil
}

// largeInput is the size above which compressZstd also tries the default
// level (see NOTES.md, "Large inputs").
const largeInput = 1 << 20

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

type encoderKey struct {
	level   zstd.EncoderLevel
	window  int
	workers int
}

// encoders caches the last zstd encoder built: building one allocates its
// match tables (tens of MB for the best level), which would dominate small
// inputs. Only one is kept, so a long-lived process does not hold one per
// window size. An Encoder is safe for concurrent EncodeAll calls.
var encoders struct {
	sync.Mutex
	key encoderKey
	enc *zstd.Encoder
}

func encoderFor(level zstd.EncoderLevel, window, workers int) (*zstd.Encoder, error) {
	k := encoderKey{level, window, workers}
	encoders.Lock()
	defer encoders.Unlock()
	if encoders.enc != nil && encoders.key == k {
		return encoders.enc, nil
	}
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(level),
		zstd.WithWindowSize(window),
		zstd.WithEncoderCRC(false),
		zstd.WithZeroFrames(true),
		zstd.WithEncoderConcurrency(workers))
	if err != nil {
		return nil, fmt.Errorf("compress: %w", err)
	}
	encoders.key, encoders.enc = k, e
	return e, nil
}
