// Package tree lists, checks and prunes the device code of whole installs:
// folders (a ROCm install, a virtual environment's site-packages), wheels
// and the programs and libraries a program loads. It walks files in
// parallel and asks package inspect what each holds, package targetid's
// one rule what a GPU loads, and package prune to rewrite them.
package tree

import (
	"errors"
	"fmt"
	"github.com/goffload/goffload/internal/parallel"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/goffload/goffload/inspect"
)

// A File is one file of a walk: a file named, a file found in a folder, or
// a library a program loads.
type File struct {
	// Path is the file as found: a named path, or one joined below a
	// named folder.
	Path string
	// Root is the named path the file was found from.
	Root string
	// Size is the file's size in bytes.
	Size int64
	// Listing is what the file holds (objects without their readers:
	// the file is closed), or nil when it could not be read (Err).
	Listing *inspect.Listing
	Err     error
	// LoadedBy names the program or library whose DT_NEEDED reached this
	// file, for files of a dependency closure.
	LoadedBy string
	// NotFound is set for a needed library that could not be found
	// (Path is then its name).
	NotFound bool
	// Links lists other paths of the same file (hard links, symbolic
	// links to it) that the walk met and did not read again.
	Links []string
}

// Devices returns the file's device code objects.
func (f *File) Devices() []*inspect.Object {
	if f.Listing == nil {
		return nil
	}
	return f.Listing.Devices()
}

// Options tune a walk.
type Options struct {
	// SkipHeaders reads no code object header (inspect.Options).
	SkipHeaders bool
	// TargetsOnly reads a code object's header only where its container
	// names no target ID (a plain code object file): what check needs,
	// without inflating compressed bundles for their facts.
	TargetsOnly bool
	// Jobs is how many files are read at once (default: the CPUs).
	Jobs int
}

// ErrNotFound is a named path that does not exist.
var ErrNotFound = errors.New("tree: no such file or folder")

// Walk lists every regular file of paths: files as named, folders
// recursively (symbolic links to folders are not followed below a named
// folder; a symbolic link to a file is read once, like a hard link, the
// other paths recorded in File.Links). Files are read in parallel and
// returned in path order. The error is for a named path that cannot be
// walked at all.
func Walk(paths []string, opts *Options) ([]*File, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	type job struct{ path, root string }
	var jobs []job
	seen := map[fileID]string{}
	links := map[string][]string{}
	add := func(path, root string, fi fs.FileInfo) {
		id, ok := idOf(fi)
		if ok {
			if first, dup := seen[id]; dup {
				links[first] = append(links[first], path)
				return
			}
			seen[id] = path
		}
		jobs = append(jobs, job{path, root})
	}
	for _, root := range paths {
		fi, err := os.Stat(root)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s", ErrNotFound, root)
			}
			return nil, err
		}
		if !fi.IsDir() {
			add(root, root, fi)
			continue
		}
		// A named folder that is a symbolic link (/opt/rocm) is walked
		// where it leads; paths are reported under the name given.
		real, err := filepath.EvalSymlinks(root)
		if err != nil {
			return nil, err
		}
		err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if rel, err := filepath.Rel(real, p); err == nil {
				p = filepath.Join(root, rel)
			}
			fi, err := os.Stat(p) // a link to a file counts as that file
			if err != nil || !fi.Mode().IsRegular() {
				return nil // a dangling link, a device, a socket
			}
			add(p, root, fi)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	files := make([][]*File, len(jobs))
	parallel.For(len(jobs), o.Jobs, func(i int) { files[i] = readMembers(jobs[i].path, jobs[i].root, o) })
	var all []*File
	for _, fs := range files {
		for _, f := range fs {
			f.Links = links[f.Path]
			all = append(all, f)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Path < all[j].Path })
	return all, nil
}

// readMembers reads a file, a wheel as one File per member with device
// code.
func readMembers(path, root string, o Options) []*File {
	f := read(path, root, o)
	if f.Listing == nil || f.Listing.Kind != "zip archive" {
		return []*File{f}
	}
	var out []*File
	for _, m := range SplitMembers(f.Listing) {
		out = append(out, &File{Path: m.File, Root: root, Listing: m})
	}
	if len(out) == 0 { // a wheel without device code
		return []*File{f}
	}
	return out
}

// read lists one file and closes it.
func read(path, root string, o Options) *File {
	f := &File{Path: path, Root: root}
	l, err := inspect.ReadFile(path, &inspect.Options{SkipHeaders: o.SkipHeaders || o.TargetsOnly})
	if err != nil {
		f.Err = err
		return f
	}
	if fi, err := os.Stat(path); err == nil {
		f.Size = fi.Size()
	}
	for _, obj := range l.Objects {
		if !o.SkipHeaders && (!o.TargetsOnly || obj.TargetID == "") {
			obj.Header() // read now: the file closes below
		}
	}
	l.Close()
	f.Listing = l
	return f
}

// A fileID identifies a file across its names.
type fileID struct{ dev, ino uint64 }
