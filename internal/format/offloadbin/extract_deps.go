package offloadbin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/format/bitcode"
)

// ErrBadBitcode wraps bitcode that cannot be read as a module; LLVM 22 says
// "Failed to create module".
var ErrBadBitcode = fmterr.Kind("Failed to create module", fmterr.ErrMalformed)

// BitcodeError reports host bitcode whose module cannot be read.
type BitcodeError struct{ Err error }

func (e *BitcodeError) Error() string   { return "reading host bitcode: " + e.Err.Error() }
func (e *BitcodeError) Unwrap() []error { return []error{ErrBadBitcode, e.Err} }

// LLVMMessage returns LLVM's text, ErrBadBitcode's.
func (e *BitcodeError) LLVMMessage() string { return ErrBadBitcode.Error() }

func bitcodeEmbeddedObjects(r io.ReaderAt, size int64) ([][]byte, error) {
	objs, err := bitcode.EmbeddedObjects(r, size)
	if err != nil {
		return nil, &BitcodeError{err}
	}
	return objs, nil
}

// extractArchive extracts from every member of an archive, in order, each
// member going through the same type detection as a top-level input.
func extractArchive(r io.ReaderAt, size int64, name string, cfg *readConfig, depth int) ([]Found, error) {
	ar, err := ar.NewReader(r, size, name)
	if err != nil {
		return nil, err
	}
	defer ar.Close()
	var out []Found
	for {
		m, err := ar.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		sr, err := m.Open()
		if err != nil {
			var errno syscall.Errno
			if m.Path() != "" && errors.As(err, &errno) {
				// LLVM names the thin member as stored: "'x.o': No such
				// file or directory".
				return nil, &ObjectError{fmt.Sprintf("'%s': %s", m.Name, capitalize(errno.Error()))}
			}
			return nil, err
		}
		var data io.ReaderAt = sr
		if m.Path() != "" {
			// A thin member's file is closed with the archive reader, but
			// the images found in it must outlive it: read it now (its
			// size is the file's, as it was when opened: bounded, unlike
			// io.ReadAll of a file that might have grown since).
			b := make([]byte, sr.Size())
			if _, err := io.ReadFull(sr, b); err != nil {
				return nil, err
			}
			data = bytes.NewReader(b)
		}
		f, err := extract(data, sr.Size(), m.Name, cfg, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, f...)
	}
}

// capitalize gives a Go errno text the C library's capital letter ("No such
// file or directory").
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
