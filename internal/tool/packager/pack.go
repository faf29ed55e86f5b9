package packager

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/format/offloadbin"
	"github.com/goffload/goffload/internal/llvm/llvmhash"
	"github.com/goffload/goffload/internal/llvm/llvmtool"
	"github.com/goffload/goffload/internal/llvm/oserr"
	"github.com/goffload/goffload/internal/spool"
)

// ImageSpec is a parsed --image value: its distinct keys in first-use order
// with their values (a repeated key's values joined with ',').
type ImageSpec struct {
	Keys   []string
	Values map[string]string
	// Bare holds the keys given once, without '=' (LLVM keeps their value
	// as a null StringRef, which differs from "" in one place: a bare
	// "file" names no file at all, where "file=" names the empty path).
	Bare map[string]bool
}

// ParseImageSpec parses "k=v,k2=v2,...": split on every ',' (no escaping),
// each piece at its first '=' (no '=' means an empty value), a repeated key
// keeping its first position with its values joined by ','.
func ParseImageSpec(s string) ImageSpec {
	spec := ImageSpec{Values: map[string]string{}, Bare: map[string]bool{}}
	for _, piece := range strings.Split(s, ",") {
		k, v, hasEq := strings.Cut(piece, "=")
		if old, ok := spec.Values[k]; ok {
			spec.Values[k] = old + "," + v
			delete(spec.Bare, k)
			continue
		}
		spec.Keys = append(spec.Keys, k)
		spec.Values[k] = v
		if !hasEq {
			spec.Bare[k] = true
		}
	}
	return spec
}

// Has reports whether key was given.
func (s ImageSpec) Has(key string) bool {
	_, ok := s.Values[key]
	return ok
}

// StringEntries returns the pairs llvm-offload-binary 22 stores as an
// image's string entries: every key but "file" and "kind", in the iteration
// order of the LLVM DenseMap the tool collects them in.
func (s ImageSpec) StringEntries() []offloadbin.StringEntry {
	var out []offloadbin.StringEntry
	for _, k := range llvmhash.DenseMapOrder(s.Keys) {
		if k != "file" && k != "kind" {
			out = append(out, offloadbin.StringEntry{Key: k, Value: s.Values[k]})
		}
	}
	return out
}

// ImageKindOf decides an image's kind as LLVM 22 does: bitcode magic first,
// then the file name's extension.
func ImageKindOf(path string, head []byte) offloadbin.ImageKind {
	if offloadbin.IsBitcode(head) {
		return offloadbin.ImageBitcode
	}
	return offloadbin.ImageKindFromExtension(extension(path))
}

// input is one image file, open for reading at the end.
type input struct {
	r    io.ReaderAt
	size int64
	f    *os.File
}

func (t *tool) openInput(path string, stdinUsed *bool) (input, error) {
	if path == "-" {
		var r io.Reader = bytes.NewReader(nil)
		if !*stdinUsed && t.Stdin != nil {
			r = t.Stdin
		}
		*stdinUsed = true
		return spoolInput(r)
	}
	if path == "" {
		return input{}, syscall.ENOENT
	}
	f, err := os.Open(path)
	if err != nil {
		return input{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return input{}, err
	}
	if fi.IsDir() {
		f.Close()
		return input{}, syscall.EISDIR
	}
	if err := spool.CheckDevice(fi); err != nil {
		f.Close()
		return input{}, err
	}
	if !fi.Mode().IsRegular() {
		// Pipes cannot be read at random: read them now, into a
		// temporary file and only up to a cap.
		defer f.Close()
		return spoolInput(f)
	}
	return input{r: f, size: fi.Size(), f: f}, nil
}

// maxStreamInput caps what is read from standard input, a pipe or a device
// (held in a temporary file): /dev/zero or an endless pipe ends with a clear
// error. A variable for tests.
var maxStreamInput = spool.DefaultMax

// spoolInput copies r to a temporary file, whose *os.File the caller closes
// as it closes input files.
func spoolInput(r io.Reader) (input, error) {
	f, err := spool.Read(r, maxStreamInput, "input")
	if err != nil {
		return input{}, err
	}
	return input{r: f, size: f.Size, f: f.File}, nil
}

// pack is package mode: one v1 binary per file of each --image, written
// to output once everything was read.
func (t *tool) pack(output string, images []string) error {
	var imgs []offloadbin.Image
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	stdinUsed := false
	for _, v := range images {
		spec := ParseImageSpec(v)
		if !spec.Has("file") {
			return errors.New("'file' is a required image arguments")
		}
		strs := spec.StringEntries()
		kind := offloadbin.ParseOffloadKind(spec.Values["kind"])
		var paths []string
		if !spec.Bare["file"] { // a bare "file" gives no image at all
			paths = strings.Split(spec.Values["file"], ",")
		}
		for _, path := range paths {
			in, err := t.openInput(path, &stdinUsed)
			if err != nil {
				var tl *spool.TooLargeError
				if errors.As(err, &tl) {
					return fmt.Errorf("'%s': %s", path, tl)
				}
				return errors.New(oserr.Strerror(err))
			}
			if in.f != nil {
				files = append(files, in.f)
			}
			head := make([]byte, min(4, in.size))
			if _, err := in.r.ReadAt(head, 0); err != nil && err != io.EOF {
				return errors.New(oserr.Strerror(err))
			}
			imgs = append(imgs, offloadbin.Image{
				ImageKind:   ImageKindOf(path, head),
				OffloadKind: kind,
				Strings:     strs,
				Data:        in.r,
				Size:        in.size,
			})
		}
	}
	return t.writeOutput(output, true, func(w io.Writer) error {
		return offloadbin.Write(w, imgs...)
	})
}

// writeOutput writes an output file atomically ("-" is stdout when
// dashIsStdout); errors are reported as LLVM does, without the path.
func (t *tool) writeOutput(path string, dashIsStdout bool, write func(io.Writer) error) error {
	if path == "-" && dashIsStdout {
		tw := llvmtool.NewTrackWriter(t.Stdout)
		if err := write(tw); err != nil && tw.Err() == nil {
			return errors.New(oserr.Strerror(err))
		}
		// A failed write to stdout is reported at exit (Main).
		return nil
	}
	f, err := atomicfile.CreateFile(path)
	if err != nil {
		return errors.New(oserr.Strerror(err))
	}
	done := false
	defer func() {
		if !done {
			f.Abort()
		}
	}()
	w, tw := deviceWriter(path, f)
	if err := write(w); err != nil {
		if tw != nil && tw.Err() != nil {
			return llvmtool.IOFailure(tw.Err())
		}
		return fmt.Errorf("%s", oserr.Strerror(err))
	}
	done = true
	return t.finish(f)
}

// deviceWriter returns the writer for an output: for a device or pipe
// (written in place), one that tells a failed write, which LLVM 22 reports
// as a fatal "IO failure on output stream" (/dev/full); for a regular file,
// f itself, so that copies stay in the kernel.
func deviceWriter(path string, f io.Writer) (io.Writer, *llvmtool.TrackWriter) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		tw := llvmtool.NewTrackWriter(f)
		return tw, tw
	}
	return f, nil
}

func createArchiveFile(path string) (*atomicfile.File, error) { return atomicfile.CreateFile(path) }
