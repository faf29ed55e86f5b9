// Package atomicfile writes output files the way every goffload command must:
// into a temporary file beside the target, renamed over it only when the
// whole content was written. On any error the temporary file is removed and
// an existing target is left untouched.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// File is an output being written. Write to it, then Commit or Abort.
// Abort after Commit is a no-op, so `defer f.Abort()` is always safe.
type File struct {
	*os.File
	target  string
	done    bool
	stdout  bool   // standard output: never closed
	direct  bool   // a non-regular file written in place
	unnamed bool   // an O_TMPFILE file: named at Commit
	parked  string // Park's temporary file, closed, or ""
	err     error  // why Park failed: Commit returns it
}

// Create starts writing target as LLVM's tools do when they open an output
// (raw_fd_ostream: open(2) with O_CREAT|O_TRUNC), only atomically: it
// needs write permission on an existing file, writes through a symbolic
// link (the link stays), and writes in place where no temp file can be
// made beside an existing file. The name "-" means standard output
// (written directly, since stdout cannot be renamed). New files get mode
// 0666 minus the umask, as LLVM's tools create them.
func Create(target string) (*File, error) {
	if target == "-" {
		return &File{File: os.Stdout, target: target, stdout: true}, nil
	}
	return create(target, true, true)
}

// ErrInPlace is wrapped by the error of CreateNoInPlace when target could
// only be written in place.
var ErrInPlace = errors.New("no temporary file can be created beside it to replace it atomically")

// CreateNoInPlace is Create without its in-place fallback: where Create
// would write an existing file in place (no temporary file can be made
// beside it), it fails with an error wrapping ErrInPlace and leaves target
// untouched. Devices and pipes are still written directly.
func CreateNoInPlace(target string) (*File, error) {
	if target == "-" {
		return Create(target)
	}
	return create(target, true, false)
}

// CreateFile starts writing target as LLVM writes a file it replaces
// (FileOutputBuffer, the archive writer): a temp file beside the name,
// renamed over it, so that a symbolic link or a read-only file is
// replaced. "-" is an ordinary name.
func CreateFile(target string) (*File, error) { return create(target, false, false) }

func create(target string, likeOpen, inPlace bool) (*File, error) {
	if target == "" {
		// open("") fails so; a temp file in "." would fail only at rename.
		return nil, &os.PathError{Op: "open", Path: target, Err: syscall.ENOENT}
	}
	if strings.HasSuffix(target, "/") {
		// A name with a trailing slash can only be a folder, which cannot
		// be opened for writing: let the kernel say why (Linux: EISDIR,
		// whatever the name holds).
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return nil, err
		}
		f.Close()
		return nil, &os.PathError{Op: "open", Path: target, Err: syscall.EISDIR}
	}
	if inSystemFolder(target) {
		// /dev/stdout, /dev/fd/N, /proc/self/fd/N: links to open files
		// (a shell's redirection target) or devices. LLVM opens them;
		// replacing what they name would cut the caller's file off.
		return openDirect(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	}
	if li, err := os.Lstat(target); likeOpen && err == nil && li.Mode()&os.ModeSymlink != 0 {
		// LLVM writes through a symbolic link: replace the file it names
		// and keep the link. A dangling link is opened, which creates
		// its target, as open(2) does.
		resolved, err := filepath.EvalSymlinks(target)
		if err != nil || inSystemFolder(resolved) {
			return openDirect(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
		}
		target = resolved
	}
	fi, statErr := os.Stat(target)
	if statErr == nil {
		if fi.IsDir() {
			return nil, &os.PathError{Op: "open", Path: target, Err: syscall.EISDIR}
		}
		if !fi.Mode().IsRegular() {
			// A device, pipe or socket (/dev/null, /dev/stdout, a FIFO):
			// write to it directly; renaming over it would replace it.
			return openDirect(target, os.O_WRONLY)
		}
		// Opening an existing file for writing needs write permission on
		// it, which replacing it by rename would not check.
		if likeOpen {
			if err := checkWritable(target); err != nil {
				return nil, &os.PathError{Op: "open", Path: target, Err: err}
			}
		}
	}
	dir := filepath.Dir(target)
	if u, ok := openUnnamed(dir, filepath.Base(target)); ok {
		// Unnamed until Commit (O_TMPFILE): a process killed meanwhile
		// leaves no temporary file behind. Mode 0666 minus the umask.
		return &File{File: u, target: target, unnamed: true}, nil
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp*")
	if err != nil && statErr == nil && likeOpen {
		// No temp file can be made beside an existing, writable target
		// (a read-only folder): write the target in place, as LLVM does.
		if !inPlace {
			if g, gerr := os.OpenFile(target, os.O_WRONLY, 0); gerr == nil {
				g.Close()
				return nil, &os.PathError{Op: "open", Path: target, Err: fmt.Errorf("%w (%v)", ErrInPlace, unwrapPath(err))}
			}
		} else if g, gerr := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0); gerr == nil {
			return &File{File: g, target: target, direct: true}, nil
		}
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, &os.PathError{Op: "open", Path: target, Err: pe.Err}
		}
		return nil, err
	}
	track(f.Name())
	// CreateTemp uses 0600; LLVM's outputs get 0666 &^ umask.
	mask := umask()
	if err := f.Chmod(0o666 &^ mask); err != nil {
		f.Close()
		settle(func() error { return remove(f.Name()) })
		return nil, err
	}
	return &File{File: f, target: target}, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// openDirect opens target to be written in place.
func openDirect(target string, flag int) (*File, error) {
	f, err := os.OpenFile(target, flag, 0o666)
	if err != nil {
		return nil, err
	}
	return &File{File: f, target: target, direct: true}, nil
}

// inSystemFolder reports whether path is under /dev or /proc, where names
// are devices or links to open files, never files to replace.
func inSystemFolder(path string) bool {
	path, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return strings.HasPrefix(path, "/dev/") || strings.HasPrefix(path, "/proc/")
}

// Park finishes writing: it closes the file and keeps what was written in
// a temporary file beside the target (named, if it was not) until Commit
// renames it or Abort removes it. A caller that puts many outputs in place
// at once parks each when written, so that it holds no file descriptor for
// them. A process ended meanwhile by SIGINT, SIGTERM or SIGHUP removes the
// named temporary files first (on Unix); one killed outright leaves them.
// It does nothing to standard output or a file written in place. After a
// failed Park, Commit returns Park's error.
func (f *File) Park() error {
	if f.done || f.stdout || f.direct || f.parked != "" {
		return nil
	}
	name := f.File.Name()
	if f.unnamed {
		// Named and listed under the lock: a signal's cleanup sees it.
		err := settle(func() error {
			n, err := linkUnnamed(f.File)
			if err == nil {
				name = n
				pending.names[n] = true
			}
			return err
		})
		if err != nil {
			f.done, f.err = true, err
			f.File.Close()
			return err
		}
		f.unnamed = false
		watchSignals()
	}
	if err := f.File.Close(); err != nil {
		f.done, f.err = true, err
		settle(func() error { return remove(name) })
		return err
	}
	f.parked = name
	return nil
}

// Commit flushes the file and renames it over the target.
func (f *File) Commit() error {
	if f.done {
		return f.err
	}
	f.done = true
	if f.stdout {
		return nil
	}
	if f.parked != "" {
		return settle(func() error { return rename(f.parked, f.target) })
	}
	if f.direct {
		return f.File.Close()
	}
	if f.unnamed {
		// Named just before the rename, both under the lock a signal's
		// cleanup takes: a SIGKILL between the two leaves a temporary
		// file, nothing else.
		return settle(func() error {
			name, err := linkUnnamed(f.File)
			if err != nil {
				f.File.Close()
				return err
			}
			if err := f.File.Close(); err != nil {
				os.Remove(name)
				return err
			}
			return rename(name, f.target)
		})
	}
	name := f.File.Name()
	if err := f.File.Close(); err != nil {
		settle(func() error { return remove(name) })
		return err
	}
	return settle(func() error { return rename(name, f.target) })
}

// Abort discards the temporary file. It is a no-op after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.stdout {
		return
	}
	if f.direct {
		f.File.Close()
		return
	}
	if f.parked != "" {
		settle(func() error { return remove(f.parked) })
		return
	}
	name := f.File.Name()
	f.File.Close()
	if !f.unnamed {
		settle(func() error { return remove(name) })
	}
}

// pending lists the named temporary files not yet renamed or removed:
// CreateTemp's, and parked ones. A process interrupted by SIGINT, SIGTERM
// or SIGHUP removes them before it dies (watchSignals, on Unix).
var pending = struct {
	sync.Mutex
	names map[string]bool
}{names: map[string]bool{}}

// track lists name, and makes sure signals are watched.
func track(name string) {
	pending.Lock()
	pending.names[name] = true
	pending.Unlock()
	watchSignals()
}

// settle runs op, which renames or removes listed files (rename, remove),
// with the list locked: the cleanup of a signal never runs halfway
// through it.
func settle(op func() error) error {
	pending.Lock()
	defer pending.Unlock()
	return op()
}

// rename renames a listed file, removing it if that fails, and forgets
// it; pending must be locked.
func rename(name, target string) error {
	delete(pending.names, name)
	if err := os.Rename(name, target); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// remove removes a listed file and forgets it; pending must be locked.
func remove(name string) error {
	delete(pending.names, name)
	return os.Remove(name)
}

// removePending removes every listed file, for a process about to die of
// a signal: the list stays locked, so no output is renamed afterwards.
func removePending() {
	pending.Lock()
	for name := range pending.names {
		os.Remove(name)
	}
}

// Scratch creates a temporary file as os.CreateTemp(dir, pattern) does,
// which a SIGINT, SIGTERM or SIGHUP removes before the process dies (on
// Unix), as it removes pending outputs: a copy of a pipe or of standard
// input a command reads by name. Discard removes it.
func Scratch(dir, pattern string) (*os.File, error) {
	pending.Lock()
	defer pending.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	pending.names[f.Name()] = true
	watchSignals()
	return f, nil
}

// Discard removes a file Scratch made (an error when it is gone).
func Discard(name string) error { return settle(func() error { return remove(name) }) }
