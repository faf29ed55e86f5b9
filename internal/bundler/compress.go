package bundler

import (
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"runtime/debug"
	"time"

	"github.com/goffload/goffload/compress"
	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/spool"
)

// maxDecompressed caps the decompressed data of a compressed bundle, held
// in a temporary file. A variable for tests.
var maxDecompressed = spool.DefaultMax

// listHead is how much of a decompressed binary bundle -list keeps: the
// entry table is at its start. A variable for tests.
var listHead = 1 << 20

// decompressInput decodes a CCOB input as a stream into temporary files
// (or, with headOnly, keeping only the first listHead bytes of each bundle
// in memory), printing LLVM's verbose statistics: memory stays bounded by
// the decoder's window whatever sizes the CCOB declares. LLVM 22 reads
// exactly one CCOB; like newer LLVM we also read several back to back
// (with padding), returning each decompressed bundle. llvm reports whether
// LLVM 22 itself reads the input (one CCOB, payload to the end).
func (j *job) decompressInput(in *input, headOnly bool) (parts []*input, llvm bool, err error) {
	defer func() {
		if err != nil {
			for _, p := range parts {
				p.close()
			}
			parts = nil
		}
	}()
	start := time.Now()
	type stat = decompressStat
	var stats []stat
	if !headOnly {
		// The common case, one zstd CCOB, inflates with its history on
		// disk; anything else, and any failure, goes the way LLVM 22 reads
		// it, for its errors.
		p, h, sum, ok, err := j.inflate(in)
		if err != nil {
			return nil, false, err
		}
		if ok {
			parts = append(parts, p)
			stats = append(stats, stat{h, in.size - int64(h.Len()), sum})
			return j.reportDecompress(parts, stats, start)
		}
	}
	rd, h, llvmErr := compress.NewLLVMReader(in.r, in.size)
	if llvmErr == nil {
		var p *input
		var sum uint64
		// A failed drain, a bundle past maxDecompressed included, is
		// reported below as "Failed to decompress input: ...".
		p, sum, llvmErr = j.drain(in.path, rd, headOnly)
		if llvmErr == nil {
			parts = append(parts, p)
			stats = append(stats, stat{h, in.size - int64(h.Len()), sum})
			llvm = true
		}
	}
	if llvmErr != nil {
		if errors.Is(llvmErr, compress.ErrNotCompressed) || errors.Is(llvmErr, compress.ErrHeaderTooSmall) || errors.Is(llvmErr, compress.ErrUnknownMethod) {
			return nil, false, decompressError(llvmErr)
		}
		// What LLVM 22 rejects: several CCOBs, padding.
		r := compress.NewReader(in.r, in.size)
		for {
			m, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return parts, false, decompressError(llvmErr)
			}
			p, sum, err := j.drain(in.path, r, headOnly)
			if err != nil {
				return parts, false, decompressError(llvmErr)
			}
			parts = append(parts, p)
			stats = append(stats, stat{m.Header, m.PayloadSize, sum})
			llvm = len(stats) == 1 && m.End() == in.size
		}
	}
	parts, _, err = j.reportDecompress(parts, stats, start)
	return parts, llvm, err
}

type decompressStat struct {
	h        compress.Header
	payload  int64
	computed uint64
}

// reportDecompress prints LLVM's -verbose statistics of the CCOBs read.
func (j *job) reportDecompress(parts []*input, stats []decompressStat, start time.Time) ([]*input, bool, error) {
	elapsed := time.Since(start)
	if j.Verbose {
		// LLVM's "Size before decompression" is every byte after the
		// header; for the CCOBs only we read, the member's payload.
		for _, st := range stats {
			for _, l := range formatDecompressStats(st.h, uint64(st.payload), elapsed, st.computed) {
				fmt.Fprintln(j.Stderr, l)
			}
		}
	}
	return parts, true, nil
}

// inflate decompresses an input that is one zstd CCOB into a spool file
// through compress.DecompressTo, which keeps the decoder's history in that
// file rather than in memory. It reports false, leaving nothing behind,
// for any other input or any failure but one: content past the spool's
// cap, which the other way would only meet again.
func (j *job) inflate(in *input) (*input, compress.Header, uint64, bool, error) {
	f, err := spool.New()
	if err != nil {
		return nil, compress.Header{}, 0, false, nil
	}
	var w io.Writer = f.Writer(maxDecompressed, "decompressed bundle")
	var h hash.Hash
	if j.Verbose {
		h = md5.New()
		w = io.MultiWriter(w, h)
	}
	hd, err := compress.DecompressTo(w, f, in.r, in.size)
	if err != nil {
		f.Close()
		if isTooLarge(err) {
			return nil, compress.Header{}, 0, false, errorf("'%s': %w", in.path, err)
		}
		return nil, compress.Header{}, 0, false, nil
	}
	var sum uint64
	if h != nil {
		sum = binary.LittleEndian.Uint64(h.Sum(nil))
	}
	return &input{path: in.path, r: f, size: f.Size, tmp: f}, hd, sum, true, nil
}

func decompressError(err error) error {
	return errorf("Failed to decompress input: %s", fmterr.LLVMMessage(err))
}

// isHashMismatch: a wrong hash is no error (LLVM 22 does not check it).
func isHashMismatch(err error) bool {
	var hm *compress.HashMismatchError
	return errors.As(err, &hm)
}

func isTooLarge(err error) bool {
	var tl *spool.TooLargeError
	return errors.As(err, &tl)
}

// drain reads one decompressed bundle from r into a temporary file, or with
// headOnly its first listHead bytes into memory, hashing it in verbose
// mode (the hash LLVM prints).
func (j *job) drain(path string, r io.Reader, headOnly bool) (*input, uint64, error) {
	var h hash.Hash
	tee := func(w io.Writer) io.Writer {
		if !j.Verbose {
			return w
		}
		h = md5.New()
		return io.MultiWriter(w, h)
	}
	sum := func() uint64 {
		if h == nil {
			return 0
		}
		return binary.LittleEndian.Uint64(h.Sum(nil))
	}
	if headOnly {
		hw := &headWriter{max: listHead}
		if _, err := io.Copy(tee(hw), r); err != nil && !isHashMismatch(err) {
			return nil, 0, err
		}
		return &input{path: path, r: hw, size: hw.total, head: hw}, sum(), nil
	}
	f, err := spool.New()
	if err != nil {
		return nil, 0, pathError(path, err)
	}
	if _, err := io.Copy(tee(f.Writer(maxDecompressed, "decompressed bundle")), r); err != nil && !isHashMismatch(err) {
		f.Close()
		var tl *spool.TooLargeError
		if errors.As(err, &tl) {
			return nil, 0, errorf("'%s': %w", path, err)
		}
		return nil, 0, err
	}
	return &input{path: path, r: f, size: f.Size, tmp: f}, sum(), nil
}

// headWriter keeps the first max bytes written to it and counts the rest;
// read at random, it holds only those bytes.
type headWriter struct {
	buf   []byte
	max   int
	total int64
	short bool // a read went past buf
}

func (w *headWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	w.total += int64(len(p))
	return len(p), nil
}

func (w *headWriter) ReadAt(p []byte, off int64) (int, error) {
	if off >= w.total {
		return 0, io.EOF
	}
	if off+int64(len(p)) > int64(len(w.buf)) && int64(len(w.buf)) < w.total {
		w.short = true
		return 0, errors.New("beyond the decompressed head")
	}
	n := copy(p, w.buf[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// compress writes data as a CCOB with the configured version, method and
// level, printing the verbose statistics.
func (j *job) compress(w io.Writer, data []byte) error {
	opt := compress.Options{Version: j.env.formatVersion, Level: j.Level, Zlib: j.env.method == "zlib"}
	if opt.Zlib && opt.Level == 0 {
		opt.Level = compress.ZlibStore // LLVM passes 0 to zlib: stored blocks
	}
	start := time.Now()
	cw := &countWriter{w: w}
	defer collectLess(len(data))()
	h, err := compress.Compress(cw, data, opt)
	if err != nil {
		return errorf("%s", fmterr.LLVMMessage(err))
	}
	if j.Verbose {
		for _, l := range formatCompressStats(h, j.Level, uint64(cw.n-int64(h.Len())), time.Since(start)) {
			fmt.Fprintln(j.Stderr, l)
		}
	}
	return nil
}

// collectLess turns the garbage collector off while n bytes are
// compressed, and returns the function restoring it. The encoder's garbage
// is small and short-lived (the input itself lives outside the Go heap),
// but a collection cycle costs each run a tenth of its CPU time, which a
// build running many bundler jobs pays. A memory limit far above what the
// encoder needs (its tables and a block's sequences) brings collection back
// should that ever be wrong.
func collectLess(n int) func() {
	percent := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(int64(1<<30) + int64(n)/2)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
