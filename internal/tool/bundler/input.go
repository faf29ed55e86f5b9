package bundler

import (
	"fmt"
	"github.com/goffload/goffload/internal/llvm/oserr"
	"io"
	"os"
	"syscall"

	"github.com/goffload/goffload/internal/format/magic"
	"github.com/goffload/goffload/internal/spool"
)

// input is an input file opened for random access. Files are read in place;
// standard input, pipes and devices are copied to a temporary file first
// (spool), at most maxStreamInput bytes.
type input struct {
	path string
	r    io.ReaderAt
	size int64
	file *os.File
	// tmp is the spool file r reads, if any: not the input's path, which
	// LLVM's objcopy would read again.
	tmp *spool.File
	// compressed is set for a CCOB, to be decompressed (inflate).
	compressed bool
}

func (in *input) close() {
	if in.file != nil {
		in.file.Close()
	}
	if in.tmp != nil {
		in.tmp.Close()
	}
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
		return nil, oserr.PathMessage(path, err)
	}
	return &input{path: path, r: f, size: f.Size, tmp: f}, nil
}

// openRaw opens path ("-" is standard input) without decompressing.
func (j *job) openRaw(path string) (*input, error) {
	if path == "-" {
		return spoolInput(path, j.Stdin)
	}
	if path == "" {
		return nil, oserr.PathMessage(path, syscall.ENOENT)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, oserr.PathMessage(path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, oserr.PathMessage(path, err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, oserr.PathMessage(path, syscall.EISDIR)
	}
	if err := spool.CheckDevice(fi); err != nil {
		f.Close()
		return nil, oserr.PathMessage(path, err)
	}
	if !fi.Mode().IsRegular() {
		// Pipes: read them whole, as LLVM does, but into a temporary
		// file and only up to a cap.
		defer f.Close()
		return spoolInput(path, f)
	}
	return &input{path: path, r: f, size: fi.Size(), file: f}, nil
}

// openInput opens an input to list or unbundle, and says whether it is a
// CCOB (printing LLVM's verbose line when it is not).
func (j *job) openInput(path string) (*input, error) {
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
		return nil, oserr.PathMessage(path, err)
	}
	in.compressed = magic.Identify(head[:]) == magic.CompressedBundle
	if !in.compressed && j.Verbose {
		fmt.Fprintln(j.Stderr, "Uncompressed bundle.")
	}
	return in, nil
}
