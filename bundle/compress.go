package bundle

import (
	"fmt"
	"io"
	"time"

	"github.com/goffload/goffload/compress"
)

// decompressAll decodes a CCOB input, printing LLVM's verbose statistics.
// LLVM 22 reads exactly one CCOB; like newer LLVM we also read several
// back to back (with padding), returning each decompressed bundle. llvm
// reports whether LLVM 22 itself reads data (one CCOB, payload to the end).
func (j *job) decompressAll(data []byte) (parts [][]byte, llvm bool, err error) {
	start := time.Now()
	res, err := compress.Decompress(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s", compress.LLVMMessage(err))
	}
	elapsed := time.Since(start)
	out := make([][]byte, len(res))
	for i, r := range res {
		if j.Verbose {
			// LLVM's "Size before decompression" is every byte after the
			// header; for the CCOBs only we read, the member's payload.
			for _, l := range compress.FormatDecompressStats(r.Header, uint64(r.PayloadSize), elapsed, r.Computed()) {
				fmt.Fprintln(j.Stderr, l)
			}
		}
		out[i] = r.Data
	}
	llvm = len(res) == 1 && res[0].End() == int64(len(data))
	return out, llvm, nil
}

// decompress is decompressAll for one member of an archive.
func (j *job) decompress(data []byte) ([]byte, error) {
	parts, _, err := j.decompressAll(data)
	if err != nil {
		return nil, err
	}
	var all []byte
	for _, p := range parts {
		all = append(all, p...)
	}
	return all, nil
}

// compress writes data as a CCOB with the configured version, method and
// level, printing the verbose statistics.
func (j *job) compress(w io.Writer, data []byte) error {
	opt := compress.Options{Version: j.env.formatVersion, Level: j.Level, Zlib: j.env.method == "zlib"}
	start := time.Now()
	cw := &countWriter{w: w}
	h, err := compress.Compress(cw, data, opt)
	if err != nil {
		return errorf("%s", compress.LLVMMessage(err))
	}
	if j.Verbose {
		for _, l := range compress.FormatCompressStats(h, j.Level, uint64(cw.n-int64(h.Len())), time.Since(start)) {
			fmt.Fprintln(j.Stderr, l)
		}
	}
	return nil
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
