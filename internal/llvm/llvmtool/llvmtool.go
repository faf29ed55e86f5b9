// Package llvmtool is the runtime LLVM's command-line tools share, as the
// drop-in commands must reproduce it: how a message names the program and
// tags itself ("<argv0>: error: ", colored or not), when tags are colored,
// LLVM's fatal errors ("LLVM ERROR: <msg>", exit status 1, no program name)
// and the output stream that remembers a failed write (raw_fd_ostream,
// reported as "IO failure on output stream: <errno text>"). The
// clang-offload-bundler command line (package internal/tool/bundler) and the
// llvm-offload-binary one (package internal/tool/packager) both use it; parsing
// their options is package llvmcl's job, errno texts package oserr's.
package llvmtool

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goffload/goffload/internal/llvm/llvmcl"
	"github.com/goffload/goffload/internal/llvm/oserr"
)

// Tag returns tag ("error: " or "warning: ") as LLVM's WithColor prints
// it: in bold red (errors) or bold magenta (warnings) when color is set.
func Tag(tag string, color bool) string {
	if !color {
		return tag
	}
	code := "31"
	if tag == "warning: " {
		code = "35"
	}
	return "\x1b[0;1;" + code + "m" + tag + "\x1b[0m"
}

// Error prints msg as LLVM's tools print an error: "<argv0>: error: <msg>"
// and a newline ("<argv0>: " left out when argv0 is empty).
func Error(w io.Writer, argv0 string, color bool, msg string) {
	fmt.Fprintln(w, llvmcl.Tagged(argv0, Tag("error: ", color), msg))
}

// Warning prints msg as LLVM's tools print a warning: "<argv0>: warning:
// <msg>" and a newline.
func Warning(w io.Writer, argv0 string, color bool, msg string) {
	fmt.Fprintln(w, llvmcl.Tagged(argv0, Tag("warning: ", color), msg))
}

// AutoColor reports whether LLVM colors the tags of messages written to w
// when no --color option decides: w is a terminal whose TERM names one
// that supports colors (checked against LLVM 22's tools under a
// pseudo-terminal: TERM=dumb, an unknown TERM or none turns colors off).
func AutoColor(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	switch term := os.Getenv("TERM"); {
	case term == "" || term == "dumb":
		return false
	case strings.HasPrefix(term, "xterm"), strings.HasPrefix(term, "vt100"), strings.HasPrefix(term, "screen"),
		strings.HasPrefix(term, "linux"), strings.HasPrefix(term, "ansi"), strings.HasPrefix(term, "rxvt"),
		strings.HasPrefix(term, "tmux"), strings.Contains(term, "color"), strings.HasPrefix(term, "cygwin"),
		strings.HasPrefix(term, "konsole"), strings.HasPrefix(term, "gnome"), strings.HasPrefix(term, "eterm"), term == "alacritty", term == "kitty":
		return true
	}
	return false
}

// FatalError is LLVM's report_fatal_error: printed as "LLVM ERROR: <Msg>"
// with no program name, and the tool exits with status 1.
type FatalError struct{ Msg string }

func (e *FatalError) Error() string { return e.Msg }

// Fatal prints msg as LLVM's report_fatal_error does and returns the exit
// status, 1.
func Fatal(w io.Writer, msg string) int {
	fmt.Fprintf(w, "LLVM ERROR: %s\n", msg)
	return 1
}

// IOFailure is LLVM's fatal error for a failed write to an output stream (a
// full disk, a device such as /dev/full, a closed standard output).
func IOFailure(err error) *FatalError {
	return &FatalError{Msg: "IO failure on output stream: " + oserr.Strerror(err)}
}

// TrackWriter is an output stream that remembers its first failed write,
// as LLVM's raw_fd_ostream does: LLVM reports it as a fatal IOFailure
// rather than as an error about a file.
type TrackWriter struct {
	w        io.Writer
	err      error
	deferred bool
}

// NewTrackWriter returns a TrackWriter writing to w.
func NewTrackWriter(w io.Writer) *TrackWriter { return &TrackWriter{w: w} }

// NewDeferringWriter returns a TrackWriter whose writes report success
// even when they fail, writing nothing more after the first failure, as
// raw_fd_ostream's do until it is closed: the caller finishes its work and
// what it prints (-verbose statistics) and reports Err after that.
func NewDeferringWriter(w io.Writer) *TrackWriter { return &TrackWriter{w: w, deferred: true} }

// Err returns the first error a write to the underlying writer returned,
// or nil.
func (t *TrackWriter) Err() error { return t.err }

func (t *TrackWriter) Write(p []byte) (int, error) {
	if t.deferred && t.err != nil {
		return len(p), nil
	}
	n, err := t.w.Write(p)
	if err != nil && t.err == nil {
		t.err = err
	}
	if t.deferred {
		return len(p), nil
	}
	return n, err
}

// ReadFrom keeps io.Copy's file-to-file fast path (copy_file_range) when
// the underlying writer is a file (an *os.File or a type embedding one): a
// failed file operation other than a read is then the output's failure.
// Over any other writer (a buffer, another TrackWriter) the copy goes
// through Write, which sees every failed write; so does a deferring one's.
func (t *TrackWriter) ReadFrom(r io.Reader) (int64, error) {
	if _, ok := t.w.(file); !ok || t.deferred {
		return io.Copy(writerOnly{t}, r)
	}
	n, err := io.Copy(t.w, r)
	var pe *os.PathError
	if err != nil && t.err == nil && errors.As(err, &pe) && pe.Op != "read" && pe.Op != "seek" {
		t.err = err
	}
	return n, err
}

// file is what an *os.File, and a type embedding one, has.
type file interface {
	io.ReaderFrom
	Fd() uintptr
}

// writerOnly hides TrackWriter's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }
