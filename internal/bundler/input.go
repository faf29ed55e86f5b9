package bundler

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/goffload/goffload/internal/spool"
	"github.com/goffload/goffload/magic"
)

// input is an input file opened for random access. Files are read in place;
// standard input, pipes and devices are copied to a temporary file first
// (spool), at most maxStreamInput bytes.
type input struct {
	path string
	r    io.ReaderAt
	size int64
	file *os.File
	// head is set when r holds only the start of a decompressed bundle
	// (-list of a binary bundle).
	head *headWriter
	// tmp is the spool file r reads, if any: not the input's path, which
	// LLVM's objcopy would read again.
	tmp *spool.File
	// more holds the further bundles of an input made of several CCOBs.
	more []*input
	// beyondLLVM marks the bundles of an input LLVM 22 cannot read (several
	// CCOBs, padding): no LLVM behaviour to follow, so a host object is made
	// from what we read rather than by re-reading the file as objcopy would.
	beyondLLVM bool
}

func (in *input) close() {
	if in.file != nil {
		in.file.Close()
	}
	if in.tmp != nil {
		in.tmp.Close()
	}
	for _, m := range in.more {
		m.close()
	}
}

// short reports whether a read went past the start kept of a decompressed
// bundle (input.head), in it or its further bundles.
func (in *input) short() bool {
	if in.head != nil && in.head.short {
		return true
	}
	for _, m := range in.more {
		if m.short() {
			return true
		}
	}
	return false
}

// maxStreamInput caps what is read from standard input, a pipe or a device
// (held in a temporary file): /dev/zero or an endless pipe ends with a clear
// error. A variable for tests.
var maxStreamInput = spool.DefaultMax

// spoolInput copies what r holds to a temporary file, failing with a clear
// error when it is more than maxStreamInput bytes.
func spoolInput(path string, r io.Reader) (*input, error) {
	f, err := spool.Read(r, maxStreamInput, "input")
	if err != nil {
		return nil, pathError(path, err)
	}
	return &input{path: path, r: f, size: f.Size, tmp: f}, nil
}

// bytes returns the whole content (reading it into memory if needed).
func (in *input) bytes() ([]byte, error) {
	if br, ok := in.r.(*bytes.Reader); ok {
		b := make([]byte, br.Len())
		_, err := br.ReadAt(b, 0)
		if err == io.EOF {
			err = nil
		}
		return b, err
	}
	b := make([]byte, in.size)
	_, err := in.r.ReadAt(b, 0)
	if err == io.EOF && int64(len(b)) == in.size {
		err = nil
	}
	return b, err
}

// openRaw opens path ("-" is standard input) without decompressing.
func (j *job) openRaw(path string) (*input, error) {
	if path == "-" {
		return spoolInput(path, j.Stdin)
	}
	if path == "" {
		return nil, pathError(path, syscall.ENOENT)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, pathError(path, err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, pathError(path, syscall.EISDIR)
	}
	if !fi.Mode().IsRegular() {
		// Pipes and devices: read them whole, as LLVM does, but into a
		// temporary file and only up to a cap.
		defer f.Close()
		return spoolInput(path, f)
	}
	return &input{path: path, r: f, size: fi.Size(), file: f}, nil
}

// openInput opens an input to list or unbundle and decompresses it when it
// is a CCOB, printing LLVM's verbose lines. With headOnly, only the start of
// a decompressed bundle is kept (see input.head).
func (j *job) openInput(path string, headOnly bool) (*input, error) {
	in, err := j.openRaw(path)
	if err != nil {
		return nil, err
	}
	if in.size < 8 {
		return in, nil
	}
	var head [4]byte
	if _, err := in.r.ReadAt(head[:], 0); err != nil {
		in.close()
		return nil, pathError(path, err)
	}
	if magic.Identify(head[:]) != magic.CompressedBundle {
		if j.Verbose {
			fmt.Fprintln(j.Stderr, "Uncompressed bundle.")
		}
		return in, nil
	}
	defer in.close()
	parts, llvm, err := j.decompressInput(in, headOnly)
	if err != nil {
		return nil, err
	}
	// Where LLVM 22 reads the CCOB, its objcopy later fails on the
	// compressed file; where it does not, there is nothing to match.
	beyond := !llvm && path != "-"
	for _, p := range parts {
		p.beyondLLVM = beyond
	}
	first := parts[0]
	first.more = parts[1:]
	return first, nil
}
