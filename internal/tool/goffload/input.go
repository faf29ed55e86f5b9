package goffloadcmd

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/spool"
	"github.com/goffload/goffload/targetid"
)

// maxStdin caps what is read from standard input or a pipe (held in an
// unnamed temporary file). A variable for tests.
var maxStdin = spool.DefaultMax

// openInput opens an input every command reads: a regular file as it is,
// "-" (standard input) and pipes copied to an unnamed temporary file up to
// maxStdin bytes. Folders and character devices are usage errors: they
// name no file to read.
func openInput(name string, stdin io.Reader) (*os.File, int64, error) {
	if name == "-" {
		s, err := spool.Read(stdin, maxStdin, "standard input")
		if err != nil {
			return nil, 0, problem("-: %v", err)
		}
		return s.File, s.Size, nil
	}
	f, fi, err := openFile(name)
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		defer f.Close()
		s, err := spool.Read(f, maxStdin, "input")
		if err != nil {
			return nil, 0, problem("%s: %v", name, err)
		}
		return s.File, s.Size, nil
	}
	return f, fi.Size(), nil
}

// openFile opens a named input: folders and character devices are usage
// errors (they name no file to read).
func openFile(name string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, usage("%v", err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = usage("%v", err)
	case fi.IsDir():
		err = usage("%s is a folder; name the files in it", name)
	case spool.CheckDevice(fi) != nil:
		err = usage("%s: %v", name, spool.ErrDevice)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// spoolNamed copies standard input ("-"), a pipe or a FIFO, read once,
// into a named temporary file, under the bounds of openInput's spool, for
// what reads inputs by path (check's walk); the caller removes it.
func spoolNamed(name string, stdin io.Reader) (string, error) {
	r := stdin
	if name != "-" {
		f, _, err := openFile(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	tmp, err := atomicfile.Scratch("", "goffload-input-*") // removed should a signal end the run
	if err != nil {
		return "", problem("%v", err)
	}
	sf := &spool.File{File: tmp}
	_, err = io.Copy(sf.Writer(maxStdin, "input"), r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		atomicfile.Discard(tmp.Name())
		return "", problem("%s: %v", name, err)
	}
	return tmp.Name(), nil
}

// readListing lists an input opened by openInput; Close closes both.
func readListing(name string, stdin io.Reader, opts *inspect.Options) (*listing, error) {
	f, size, err := openInput(name, stdin)
	if err != nil {
		return nil, err
	}
	return &listing{Listing: inspect.Read(f, size, name, opts), f: f}, nil
}

type listing struct {
	*inspect.Listing
	f *os.File
}

func (l *listing) Close() error {
	l.Listing.Close()
	return l.f.Close()
}

// parseTargets reads a target flag's values, comma-separated or repeated,
// in any spelling targetid.ParseTarget reads. A malformed one is a usage
// error.
func parseTargets(flag string, values ...string) ([]targetid.Target, error) {
	var ts []targetid.Target
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			t, err := targetid.ParseTarget(s)
			if err != nil {
				return nil, usage("--%s: %v", flag, strings.TrimPrefix(err.Error(), "targetid: "))
			}
			ts = append(ts, t)
		}
	}
	return ts, nil
}

// oneTarget reads a flag that names one target; nil when it is not set.
func oneTarget(c interface {
	IsSet(string) bool
	String(string) string
}, flag string) (*targetid.Target, error) {
	if !c.IsSet(flag) {
		return nil, nil
	}
	ts, err := parseTargets(flag, c.String(flag))
	if err != nil {
		return nil, err
	}
	if len(ts) != 1 {
		return nil, usage("--%s: give one target (got %d)", flag, len(ts))
	}
	return &ts[0], nil
}

// checkTargets makes an unknown processor or mode a usage error with a
// did-you-mean. present, called only when a name is not one LLVM 22
// knows, returns the processors of the input (newer GPUs' names are
// accepted when the input holds code for them).
func checkTargets(flag string, ts []targetid.Target, present func() []string) error {
	var have []string
	asked := false
	for _, t := range ts {
		if t.Check(nil) == nil {
			continue
		}
		if !asked {
			have, asked = present(), true
		}
		if err := t.Check(have); err != nil {
			return usage("--%s: %v", flag, strings.TrimPrefix(err.Error(), "targetid: unknown target: "))
		}
	}
	return nil
}

// targetProblem turns a target rule's error into goffload's message.
func targetProblem(err error) error {
	var a *targetid.AmbiguousError
	if errors.As(err, &a) {
		return problem("%s", strings.TrimPrefix(err.Error(), "targetid: "))
	}
	return err
}
