package bundler

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"time"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/fault"
	"github.com/goffload/goffload/internal/format/bundle"
	"github.com/goffload/goffload/internal/format/compress"
	"github.com/goffload/goffload/internal/llvm/oserr"
	"github.com/goffload/goffload/internal/spool"
)

// maxDecompressed caps the decompressed data of a compressed bundle, held
// in a temporary file. A variable for tests.
var maxDecompressed = spool.DefaultMax

// listHead is how much of a decompressed binary bundle -list keeps: the
// entry table is at its start. A variable for tests.
var listHead = 1 << 20

// inflate decompresses a CCOB input (package bundle: LLVM 22's reading of
// one CCOB, else several back to back with padding, as newer LLVM reads
// them), each bundle as a stream into a temporary file, or with headOnly
// keeping only its first listHead bytes in memory; memory stays bounded by
// the decoder's window whatever sizes the CCOB declares. It prints LLVM's
// verbose statistics.
func (j *job) inflate(in *input, headOnly bool) (*bundle.Inflated, error) {
	start := time.Now()
	// maxDecompressed caps each CCOB's bundle, each in its own temporary
	// file, as before package bundle had a total cap: none (MaxInt64).
	o := &bundle.Options{
		MaxInflated: maxDecompressed,
		MaxTotal:    math.MaxInt64,
		Hash:        j.Verbose,
		Scratch:     func() (bundle.Scratch, error) { return newScratch(in.path) },
	}
	if headOnly {
		o.KeepHead = int64(listHead)
	}
	inf, err := bundle.Inflate(in.r, in.size, o)
	if err != nil {
		return nil, inflateError(in.path, err)
	}
	if j.Verbose {
		j.reportDecompress(inf.CCOBs, time.Since(start))
	}
	return inf, nil
}

// newScratch is a decompressed bundle's temporary file. LLVM has no words
// for failing to create one: ours name the input.
func newScratch(path string) (bundle.Scratch, error) {
	f, err := spool.New()
	if err != nil {
		return nil, oserr.PathMessage(path, err)
	}
	return f.File, nil
}

// inflateError gives LLVM's words for a CCOB that does not decompress
// ("Failed to decompress input: " and LLVM's reason), and ours for one past
// the cap.
func inflateError(path string, err error) error {
	var ie *bundle.InflateError
	if errors.As(err, &ie) {
		return fmterr.Messagef("Failed to decompress input: %s", inflateReason(path, ie.Err))
	}
	return fmterr.Messagef("'%s': %w", path, tooLarge(err))
}

// inflateReason is LLVM's text for why a CCOB does not decompress, or ours
// for a bundle past the cap or a temporary file that cannot be made.
func inflateReason(path string, err error) string {
	if errors.Is(err, bundle.ErrTooLarge) {
		return fmt.Sprintf("'%s': %s", path, tooLarge(err).Error())
	}
	return fmterr.LLVMMessage(err)
}

// tooLarge gives the bundler's words for a decompressed bundle past
// maxDecompressed.
func tooLarge(err error) error {
	var tl *bundle.TooLargeError
	if errors.As(err, &tl) {
		return &spool.TooLargeError{What: "decompressed bundle", Max: tl.Max}
	}
	return err
}

// reportDecompress prints LLVM's -verbose statistics of the CCOBs read.
// LLVM's "Size before decompression" is every byte after the header; for
// the CCOBs only we read, the member's payload.
func (j *job) reportDecompress(ccobs []bundle.CCOB, elapsed time.Duration) {
	for _, c := range ccobs {
		for _, l := range formatDecompressStats(c.Header, uint64(c.PayloadSize), elapsed, c.Sum) {
			fmt.Fprintln(j.Stderr, l)
		}
	}
}

func isTooLarge(err error) bool {
	var tl *spool.TooLargeError
	return errors.As(err, &tl)
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
	if fe := (*fault.Error)(nil); errors.As(err, &fe) {
		return fe // for the caller, who knows the file
	}
	if err != nil {
		return fmterr.Messagef("%s", fmterr.LLVMMessage(err))
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
