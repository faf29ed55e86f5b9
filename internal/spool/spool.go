// Package spool holds the content of an input that cannot be read at random
// (standard input, a pipe, a device) or is produced on the fly (a
// decompressed bundle) in an unnamed temporary file, so that memory stays
// bounded whatever its size. The file is capped: reading stops with a
// *TooLargeError once the cap is passed, so that an endless source such as
// /dev/zero ends with a clear error instead of filling the disk.
package spool

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultMax is the cap the tools use: far above any real bundle or
// offload binary read from a pipe.
const DefaultMax int64 = 16 << 30

// TooLargeError reports a source larger than the cap.
type TooLargeError struct {
	What string // "input", "decompressed bundle", ...
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the %s is larger than %d bytes, the most goffload holds in a temporary file", e.What, e.Max)
}

// File is spooled content: an unnamed temporary file to read at random.
type File struct {
	*os.File
	Size int64
}

// New returns an empty spool file to write at most max bytes to through
// Writer. It is unlinked at once: closing it frees its space.
func New() (*File, error) {
	f, err := os.CreateTemp("", ".goffload-spool-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return &File{File: f}, nil
}

// Read copies r into a new spool file, failing with a *TooLargeError
// (what names the content) when r holds more than max bytes.
func Read(r io.Reader, max int64, what string) (*File, error) {
	f, err := New()
	if err != nil {
		return nil, err
	}
	w := f.Writer(max, what)
	if _, err := io.Copy(w, r); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Writer returns a writer appending to f that fails with a *TooLargeError
// once more than max bytes were written in all.
func (f *File) Writer(max int64, what string) io.Writer {
	return &capWriter{f: f, max: max, what: what}
}

type capWriter struct {
	f    *File
	max  int64
	what string
}

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.max-c.f.Size {
		return 0, &TooLargeError{What: c.what, Max: c.max}
	}
	n, err := c.f.File.Write(p)
	c.f.Size += int64(n)
	return n, err
}

// ErrDevice is a character device given as an input: /dev/zero and
// /dev/urandom never end, and a terminal waits for a person. /dev/null,
// which reads as empty (clang passes it as an empty host input), is not
// refused.
var ErrDevice = errors.New("a character device, not a file: goffload reads no devices (give a file, a pipe or -)")

// CheckDevice returns ErrDevice when fi is a character device other than
// /dev/null.
func CheckDevice(fi os.FileInfo) error {
	if fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return nil
	}
	return ErrDevice
}
