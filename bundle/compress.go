package bundle

import (
	"fmt"
	"io"
	"time"

	"github.com/goffload/goffload/compress"
)

// decompressAll decodes a CCOB input, printing LLVM's verbose statistics.
// LLVM 22 reads exactly one CCOB; like newer LLVM we also read several
// back to back (with padding), returning each decompressed bundle.
func (j *job) decompressAll(data []byte) ([][]byte, error) {
	start := time.Now()
	res, err := compress.Decompress(data)
	if err != nil {
		return nil, fmt.Errorf("%s", compress.LLVMMessage(err))
	}
	elapsed := time.Since(start)
	out := make([][]byte, len(res))
	for i, r := range res {
		if j.Verbose {
			payload := r.Header.TotalSize - uint64(r.Header.Len())
			if r.Header.Version < 2 || len(res) == 1 {
				payload = uint64(len(data) - r.Header.Len())
			}
			for _, l := range compress.FormatDecompressStats(r.Header, payload, elapsed, r.Computed()) {
				fmt.Fprintln(j.Stderr, l)
			}
		}
		out[i] = r.Data
	}
	return out, nil
}

// decompress is decompressAll for one member of an archive.
func (j *job) decompress(data []byte) ([]byte, error) {
	parts, err := j.decompressAll(data)
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
