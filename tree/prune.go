package tree

import (
	"errors"
	"fmt"
	"github.com/goffload/goffload/internal/parallel"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/goffload/goffload/fmterr"
	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/prune"
	"github.com/goffload/goffload/targetid"
)

// What PruneTree did to a file.
const (
	Rewritten = "rewritten" // device code dropped or replaced
	Unchanged = "unchanged" // device code, all of it kept
	Copied    = "copied"    // no device code
	Removed   = "removed"   // a family file of a GPU not kept
	Refused   = "refused"   // device code that cannot be rewritten safely: kept as it was
	HostOnly  = "host-only" // rewritten, and left without device code
	Skipped   = "skipped"   // a device or socket: not a file to copy
)

// A FileReport says what a tree prune did to one file.
type FileReport struct {
	Path               string // relative to the tree
	Action             string
	SizeBefore, SizeAf int64
	Kept, Dropped      int
	Note               string // why refused; the family of a removed file
}

// A TreeReport says what a tree prune did.
type TreeReport struct {
	Files     []FileReport
	Unmatched []targetid.Target // Keep or Drop targets matching nothing anywhere
}

// keptNothing is the error of a tree prune whose Keep kept no code
// object (nil when it kept one, or AllowEmpty): prune.ErrEmpty, naming the
// files refused, which were kept as they were and may hold what is kept.
func (r *TreeReport) keptNothing(root string, keep []targetid.Target, allowEmpty bool) error {
	if _, _, kept, _ := r.Totals(); len(keep) == 0 || kept > 0 || allowEmpty {
		return nil
	}
	var refused []string
	for _, f := range r.Files {
		if f.Action == Refused {
			refused = append(refused, f.Path)
		}
	}
	names := make([]string, len(keep))
	for i, t := range keep {
		names[i] = t.String()
	}
	kept := strings.Join(names, ", ")
	n := len(refused)
	switch {
	case n == 0:
		return fmt.Errorf("%s: %w (%s)", root, prune.ErrEmpty, kept)
	case n > 3:
		refused = append(refused[:3], fmt.Sprintf("and %d more", n-3))
	}
	return fmt.Errorf("%s: %w (%s) in the files it can rewrite; %d file(s) of device code it cannot rewrite safely are not counted (%s)",
		root, prune.ErrEmpty, kept, n, strings.Join(refused, ", "))
}

// Totals sums the report: bytes before and after, code objects kept and
// dropped.
func (r *TreeReport) Totals() (before, after int64, kept, dropped int) {
	for _, f := range r.Files {
		before += f.SizeBefore
		after += f.SizeAf
		kept += f.Kept
		dropped += f.Dropped
	}
	return
}

// TreeOptions say how to prune a tree.
type TreeOptions struct {
	prune.Options
	// DryRun writes nothing and reports what would be done.
	DryRun bool
	// Jobs is how many files are rewritten at once (default: the CPUs).
	Jobs int
}

// ErrInside is an output folder inside the input folder.
var ErrInside = fmterr.Kind("tree: the output would be walked as input", fmterr.ErrInsecurePath)

// inside reports whether path (which need not exist) lies in folder dir,
// links resolved.
func inside(path, dir string) bool {
	d, err1 := filepath.EvalSymlinks(dir)
	p, err2 := filepath.EvalSymlinks(filepath.Dir(path))
	if err1 != nil || err2 != nil {
		return false
	}
	p, _ = filepath.Abs(filepath.Join(p, filepath.Base(path)))
	d, _ = filepath.Abs(d)
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// ErrExists is an output folder that exists already.
var ErrExists = errors.New("tree: the output exists")

// PruneTree prunes every file of the folder in into the new folder out,
// which mirrors it: folders, symbolic links (as they are), hard links,
// modes and times kept; files without device code copied unchanged (by
// the kernel where it can); files with device code rewritten by package
// prune, in parallel; files of data-file families (Tensile, MIOpen) for
// GPUs not kept left out, catalogs kept. A file that cannot be rewritten
// safely is copied as it was and reported. out is written as a temporary
// folder beside it and renamed at the end: on error nothing is left. A
// Keep that keeps no code object of the whole tree is an error wrapping
// prune.ErrEmpty, unless AllowEmpty. With out "" (and DryRun) nothing is
// written.
func PruneTree(in, out string, o TreeOptions) (*TreeReport, error) {
	fi, err := os.Stat(in)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		// A folder named through a symbolic link: the folder it leads to.
		if in, err = filepath.EvalSymlinks(in); err != nil {
			return nil, err
		}
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("tree: %s is not a folder", in)
	}
	tmp := ""
	if !o.DryRun {
		if _, err := os.Lstat(out); err == nil {
			return nil, fmt.Errorf("%w: %s", ErrExists, out)
		}
		if inside(out, in) {
			return nil, fmt.Errorf("%w: %s lies inside %s", ErrInside, out, in)
		}
		tmp, err = os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp) // after the rename, nothing is there
	}
	rep, err := pruneInto(in, tmp, o)
	if err != nil {
		return rep, err
	}
	if o.DryRun {
		return rep, nil
	}
	if err := fixRecords(tmp, rep); err != nil {
		return rep, err
	}
	if err := copyTimes(in, tmp); err != nil {
		return rep, err
	}
	return rep, os.Rename(tmp, out)
}

// fixRecords updates every *.dist-info/RECORD of the new tree dst for the
// files the prune rewrote or left out, as an installed package's RECORD
// must say (pip checks it).
func fixRecords(dst string, rep *TreeReport) error {
	changed := map[string]string{}
	var records []string
	for _, f := range rep.Files {
		p := filepath.Join(dst, f.Path)
		switch f.Action {
		case Rewritten, HostOnly:
			sum, err := recordHash(p)
			if err != nil {
				return err
			}
			changed[p] = sum
		case Removed:
			changed[p] = ""
		}
		if filepath.Base(f.Path) == "RECORD" && filepath.Ext(filepath.Dir(f.Path)) == ".dist-info" {
			records = append(records, p)
		}
	}
	for _, rec := range records {
		if err := updateRecord(rec, changed); err != nil {
			return err
		}
	}
	return nil
}

// pruneInto does the work of PruneTree, writing into dst ("" for a dry run).
func pruneInto(in, dst string, o TreeOptions) (*TreeReport, error) {
	allowEmpty := o.AllowEmpty
	o.AllowEmpty = true // a file left with host code only is fine; the tree is checked below
	type job struct {
		rel  string
		fi   fs.FileInfo
		link string // for a hard link: the first path of the file
	}
	var jobs []job
	var dirs []string
	var special []FileReport
	first := map[fileID]string{}
	err := filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(in, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			if rel != "." {
				dirs = append(dirs, rel)
				if dst != "" {
					return os.Mkdir(filepath.Join(dst, rel), fi.Mode().Perm()|0o700)
				}
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			if dst != "" {
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				return os.Symlink(target, filepath.Join(dst, rel))
			}
		case fi.Mode()&fs.ModeNamedPipe != 0:
			special = append(special, FileReport{Path: rel, Action: Copied, Note: "named pipe, made again"})
			if dst != "" {
				return mkfifo(filepath.Join(dst, rel), fi.Mode())
			}
		case !fi.Mode().IsRegular():
			special = append(special, FileReport{Path: rel, Action: Skipped, Note: "a " + fi.Mode().Type().String() + " file, not copied"})
		case fi.Mode().IsRegular():
			j := job{rel: rel, fi: fi}
			if id, ok := idOf(fi); ok {
				if f, dup := first[id]; dup {
					j.link = f
				} else {
					first[id] = rel
				}
			}
			jobs = append(jobs, j)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep := &TreeReport{Files: make([]FileReport, len(jobs))}
	used := make([]int, len(o.Keep)+len(o.Drop))
	var mu sync.Mutex
	errs := make([]error, len(jobs))
	parallel.For(len(jobs), o.Jobs, func(i int) {
		j := jobs[i]
		if j.link != "" {
			// Made once every file is written, unless this name is a
			// family file of a GPU not kept.
			rep.Files[i] = FileReport{Path: j.rel, Action: Copied, Note: "hard link to " + j.link}
			if kind, ok := familyLeftOut(j.rel, o.Options); ok {
				rep.Files[i] = FileReport{Path: j.rel, Action: Removed, SizeBefore: j.fi.Size(), Note: kind}
			}
			return
		}
		fr, unmatched, err := pruneFile(filepath.Join(in, j.rel), dst, j.rel, j.fi, o)
		rep.Files[i], errs[i] = fr, err
		mu.Lock()
		for k, t := range append(append([]targetid.Target(nil), o.Keep...), o.Drop...) {
			if fr.decided() && !containsTarget(unmatched, t) {
				used[k]++
			}
		}
		mu.Unlock()
	})
	for _, e := range errs {
		if e != nil {
			return rep, e
		}
	}
	for i, j := range jobs {
		if j.link == "" || rep.Files[i].Action == Removed {
			continue
		}
		first := rep.Files[slices.IndexFunc(jobs, func(x job) bool { return x.rel == j.link })]
		if first.removedWhole() {
			// Left out for what it holds: under every name.
			rep.Files[i] = FileReport{Path: j.rel, Action: Removed, Note: wholeNote}
			continue
		}
		// The first name was left out (a family file of a GPU not kept)
		// while this one stays: a copy of the input, under this name.
		if first.Action == Removed {
			rep.Files[i].Note = ""
			if dst != "" {
				if err := copyFile(filepath.Join(in, j.rel), filepath.Join(dst, j.rel)); err != nil {
					return rep, err
				}
			}
			continue
		}
		if dst == "" {
			continue
		}
		if err := os.Link(filepath.Join(dst, j.link), filepath.Join(dst, j.rel)); err != nil {
			return rep, err
		}
	}
	for k, t := range append(append([]targetid.Target(nil), o.Keep...), o.Drop...) {
		if used[k] == 0 {
			rep.Unmatched = append(rep.Unmatched, t)
		}
	}
	if err := rep.keptNothing(in, o.Keep, allowEmpty); err != nil {
		return rep, err
	}
	rep.Files = append(rep.Files, special...)
	sort.Slice(rep.Files, func(a, b int) bool { return rep.Files[a].Path < rep.Files[b].Path })
	return rep, nil
}

func containsTarget(ts []targetid.Target, t targetid.Target) bool {
	for _, x := range ts {
		if x.String() == t.String() {
			return true
		}
	}
	return false
}

// pruneFile prunes one file into dst/rel ("" dst: a dry run).
func pruneFile(src, dst, rel string, fi fs.FileInfo, o TreeOptions) (FileReport, []targetid.Target, error) {
	fr := FileReport{Path: rel, SizeBefore: fi.Size(), SizeAf: fi.Size()}
	if kind, ok := familyLeftOut(src, o.Options); ok {
		fr.Action, fr.SizeAf, fr.Note = Removed, 0, kind
		return fr, nil, nil
	}
	in, err := os.Open(src)
	if err != nil {
		return fr, nil, err
	}
	defer in.Close()
	var out *atomicfile.File
	var w prune.Output = prune.Discard{}
	if dst != "" {
		if out, err = atomicfile.CreateFile(filepath.Join(dst, rel)); err != nil {
			return fr, nil, err
		}
		defer out.Abort()
		w = out
	}
	r, err := prune.Rewrite(w, in, fi.Size(), src, o.Options)
	if err := fr.outcome(r, err); err != nil {
		return fr, nil, err
	}
	if fr.Action == Removed {
		return fr, r.Unmatched, nil // out is left unwritten
	}
	var unmatched []targetid.Target
	if r != nil {
		unmatched = r.Unmatched
	}
	if fr.Action == Copied || fr.Action == Refused || fr.Action == Unchanged {
		if out != nil {
			// The input as it is: start over, copying file to file.
			out.Abort()
			if err := copyFile(src, filepath.Join(dst, rel)); err != nil {
				return fr, nil, err
			}
		}
		if fr.Action != Unchanged {
			unmatched = append(o.Keep, o.Drop...)
		}
	} else if out != nil {
		if err := out.Chmod(modeBits(fi)); err != nil {
			return fr, nil, err
		}
		if err := out.Commit(); err != nil {
			return fr, nil, err
		}
	}
	if dst != "" {
		t := fi.ModTime()
		if err := os.Chtimes(filepath.Join(dst, rel), atime(fi), t); err != nil {
			return fr, nil, err
		}
	}
	return fr, unmatched, nil
}

// wholeNote notes a file left out for what it holds: all its code is for
// GPUs not kept, in a file prune does not rewrite (a KPAK archive, a code
// object itself: prune.ErrRemovable).
const wholeNote = "all its code for GPUs not kept"

// outcome says what prune.Rewrite's report r and error err mean for a file
// of a tree or wheel: tallied when the rewrite went through; Copied (no
// device code), Removed (a file not rewritten whose code objects are all
// dropped) or Refused (kept as it was, with the reason); any other error
// is returned.
func (fr *FileReport) outcome(r *prune.Report, err error) error {
	switch {
	case err == nil:
		fr.tally(r)
	case errors.Is(err, prune.ErrNoDeviceCode):
		fr.Action = Copied
	case errors.Is(err, prune.ErrRemovable):
		fr.tally(r)
		fr.Action, fr.SizeAf, fr.Note = Removed, 0, wholeNote
	case errors.Is(err, prune.ErrRefused):
		fr.Action, fr.Note = Refused, err.Error()
	default:
		return err
	}
	return nil
}

// removedWhole says whether fr is a file left out for what it holds (not
// for its name): every name of it goes.
func (fr *FileReport) removedWhole() bool { return fr.Action == Removed && fr.Note == wholeNote }

// decided says whether prune decided on fr's code objects, whose targets
// then count as matched or not: not for a file without device code, one
// refused, or a family file left out by its name.
func (fr *FileReport) decided() bool {
	return fr.Action != Copied && fr.Action != Refused && (fr.Action != Removed || fr.removedWhole())
}

// tally counts what a rewrite kept and dropped, and says what it did to
// the file: Unchanged, Rewritten, or HostOnly.
func (fr *FileReport) tally(r *prune.Report) {
	fr.Action = Unchanged
	for _, d := range r.Decisions {
		switch d.Action {
		case prune.Kept, prune.Unknown, prune.Replaced:
			fr.Kept++
		case prune.Dropped:
			fr.Dropped++
		}
	}
	if r.Changed() {
		fr.Action, fr.SizeAf = Rewritten, r.SizeAft
		if fr.Kept == 0 {
			fr.Action = HostOnly
		}
	}
}

// familyLeftOut says whether the file at path is a data-family file of a
// GPU not kept (left out by its name), and of which family.
func familyLeftOut(path string, o prune.Options) (kind string, ok bool) {
	kind, gpu, _, ok := familyOf(path)
	return kind, ok && gpu != "" && !keepsFamilyFile(gpu, o)
}

// keepsFamilyFile says whether a family file for GPU token tok
// ("gfx90a", "gfx90a-xnack+") stays: by the rule code objects are kept by
// (a GPU kept could look it up).
func keepsFamilyFile(tok string, o prune.Options) bool {
	return o.Keeps(targetid.Code{TargetID: tokenTarget(tok)})
}

// tokenTarget turns a family file's GPU token into a target ID.
func tokenTarget(tok string) string {
	if p, m, ok := cutXnack(tok); ok {
		return p + ":xnack" + m
	}
	return tok
}

func cutXnack(tok string) (proc, mode string, ok bool) {
	for i := 0; i+6 < len(tok); i++ {
		if tok[i:i+6] == "-xnack" {
			return tok[:i], tok[i+6:], true
		}
	}
	return tok, "", false
}

// copyFile copies src to a new file dst with src's mode; io.Copy between
// files lets the kernel copy (copy_file_range).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := atomicfile.CreateFile(dst)
	if err != nil {
		return err
	}
	defer out.Abort()
	if _, err := io.Copy(out.File, in); err != nil {
		return err
	}
	if err := out.Chmod(modeBits(fi)); err != nil {
		return err
	}
	return out.Commit()
}

// copyTimes sets the folders' modes and times of dst as in src, deepest
// first (writing into a folder changes its time).
func copyTimes(src, dst string) error {
	var dirs []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		fi, err := os.Stat(dirs[i])
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, dirs[i])
		d := filepath.Join(dst, rel)
		if err := os.Chmod(d, modeBits(fi)); err != nil {
			return err
		}
		if err := os.Chtimes(d, atime(fi), fi.ModTime()); err != nil {
			return err
		}
	}
	return nil
}

// modeBits is a file's permission bits with setuid, setgid and sticky.
func modeBits(fi fs.FileInfo) fs.FileMode {
	return fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}
