package llvmtool

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestMessages(t *testing.T) {
	var b bytes.Buffer
	Error(&b, "/bin/tool", false, "bad")
	Warning(&b, "tool", true, "odd")
	Error(&b, "", false, "no name")
	if got := Fatal(&b, "IO failure"); got != 1 {
		t.Errorf("Fatal returned %d", got)
	}
	want := "/bin/tool: error: bad\n" +
		"tool: \x1b[0;1;35mwarning: \x1b[0m" + "odd\n" +
		"error: no name\n" +
		"LLVM ERROR: IO failure\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if got := Tag("error: ", true); got != "\x1b[0;1;31merror: \x1b[0m" {
		t.Errorf("Tag = %q", got)
	}
	if AutoColor(&b) {
		t.Error("AutoColor of a buffer")
	}
}

func TestIOFailure(t *testing.T) {
	err := IOFailure(&os.PathError{Op: "write", Path: "/dev/full", Err: syscall.ENOSPC})
	if err.Error() != "IO failure on output stream: No space left on device" {
		t.Errorf("IOFailure = %q", err)
	}
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 0, errors.New("full") }

// TestTrackWriter: a failed write is remembered, through Write and through
// io.Copy, over a file and over any other writer; a failed read is not.
func TestTrackWriter(t *testing.T) {
	tw := NewTrackWriter(failWriter{})
	if _, err := io.Copy(tw, strings.NewReader("x")); err == nil || tw.Err() == nil {
		t.Errorf("io.Copy to a failing writer: %v, Err() = %v", err, tw.Err())
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer full.Close()
	tw = NewTrackWriter(full)
	if _, err := io.Copy(tw, io.LimitReader(zeros{}, 1<<16)); err == nil || !errors.Is(tw.Err(), syscall.ENOSPC) {
		t.Errorf("io.Copy to /dev/full: %v, Err() = %v", err, tw.Err())
	}
	// Through another TrackWriter (a tool's standard output), both see it.
	inner := NewTrackWriter(failWriter{})
	tw = NewTrackWriter(inner)
	if _, err := io.Copy(tw, strings.NewReader("x")); err == nil || tw.Err() == nil || inner.Err() == nil {
		t.Errorf("io.Copy through a TrackWriter: %v, Err() = %v, %v", err, tw.Err(), inner.Err())
	}
	var b bytes.Buffer
	tw = NewTrackWriter(&b)
	readErr := &os.PathError{Op: "read", Path: "in", Err: syscall.EIO}
	if _, err := io.Copy(tw, io.MultiReader(strings.NewReader("ab"), errReader{readErr})); err != readErr || tw.Err() != nil || b.String() != "ab" {
		t.Errorf("failed read: %v, Err() = %v, wrote %q", err, tw.Err(), b.String())
	}
}

// TestDeferringWriter: writes report success after a failure and write
// nothing more; Err reports the first failure.
func TestDeferringWriter(t *testing.T) {
	var b bytes.Buffer
	fails := &failAfter{w: &b, n: 1}
	tw := NewDeferringWriter(fails)
	for _, s := range []string{"a", "b", "c"} {
		if n, err := tw.Write([]byte(s)); n != 1 || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if n, err := io.Copy(tw, strings.NewReader("de")); n != 2 || err != nil {
		t.Fatalf("io.Copy = %d, %v", n, err)
	}
	if tw.Err() == nil || b.String() != "a" || fails.calls != 2 {
		t.Errorf("Err() = %v, wrote %q in %d calls", tw.Err(), b.String(), fails.calls)
	}
}

// failAfter writes n times, then fails.
type failAfter struct {
	w     io.Writer
	n     int
	calls int
}

func (f *failAfter) Write(p []byte) (int, error) {
	f.calls++
	if f.calls > f.n {
		return 0, errors.New("full")
	}
	return f.w.Write(p)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
