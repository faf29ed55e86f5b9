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
	// Free is set when Max is not the caller's cap but what the space left
	// where temporary files go allowed (half of it when the writer began,
	// less whatever else has filled that file system since).
	Free bool
}

func (e *TooLargeError) Error() string {
	if e.Free {
		return fmt.Sprintf("the %s is larger than %d bytes, what the space left for temporary files in %s allows (half of it; set TMPDIR to a larger file system)", e.What, e.Max, os.TempDir())
	}
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
// once f holds more than max bytes, or once it has written half the space
// its file system had left when it began, or when that file system is
// down to a quarter of it (other writers, other spools): a source that
// never ends, or a huge one, stops well before the disk, or the memory of
// a tmpfs, is full. The bounds hold where the system tells the space left
// (Linux, macOS, FreeBSD); elsewhere max alone.
func (f *File) Writer(max int64, what string) io.Writer {
	c := &capWriter{f: f, max: max, what: what}
	if free, ok := freeSpace(f.File); ok {
		c.reserve, c.check = free/4, f.Size+recheck
		if f.Size+free/2 < max {
			c.max, c.free = f.Size+free/2, true
		}
	}
	return c
}

// recheck is how often a writer asks again for the space left.
var recheck int64 = 64 << 20

type capWriter struct {
	f       *File
	max     int64
	what    string
	free    bool  // max is the free-space bound
	reserve int64 // the space left below which the writer stops (0: none)
	check   int64 // the file size at which to ask for the space left again
}

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.max-c.f.Size {
		return 0, &TooLargeError{What: c.what, Max: c.max, Free: c.free}
	}
	if c.reserve > 0 && c.f.Size+int64(len(p)) >= c.check {
		c.check = c.f.Size + int64(len(p)) + recheck
		if free, ok := freeSpace(c.f.File); ok && free-int64(len(p)) < c.reserve {
			return 0, &TooLargeError{What: c.what, Max: c.f.Size, Free: true}
		}
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

// Tail is a region appended at the end of a File: it writes at the end,
// reads what it wrote (offsets from its start), and on Close gives the
// file back its size from before. A decompressed bundle inflated into a
// shared spool is one (package bundle's Scratch); Close is for a failed
// one, dropping what it wrote.
type Tail struct {
	f     *File
	start int64
}

// Tail starts a region at f's end. Only one is written at a time.
func (f *File) Tail() *Tail { return &Tail{f: f, start: f.Size} }

// Write appends p to the file.
func (t *Tail) Write(p []byte) (int, error) {
	n, err := t.f.File.Write(p)
	t.f.Size += int64(n)
	return n, err
}

// ReadAt reads the region from off, ending at the file's end.
func (t *Tail) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("spool: negative offset")
	}
	if off >= t.f.Size-t.start {
		return 0, io.EOF
	}
	if max := t.f.Size - t.start - off; int64(len(p)) > max {
		n, err := t.f.File.ReadAt(p[:max], t.start+off)
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	return t.f.File.ReadAt(p, t.start+off)
}

// Close truncates the file to where the region began. It only ever
// shrinks the file: regions closed oldest first (a failed run of several)
// leave it at the first one's start.
func (t *Tail) Close() error {
	if t.start >= t.f.Size {
		return nil
	}
	if err := t.f.File.Truncate(t.start); err != nil {
		return err
	}
	if _, err := t.f.File.Seek(t.start, io.SeekStart); err != nil {
		return err
	}
	t.f.Size = t.start
	return nil
}
