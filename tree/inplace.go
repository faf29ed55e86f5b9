package tree

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"

	"github.com/goffload/goffload/internal/atomicfile"
	"github.com/goffload/goffload/internal/parallel"
	"github.com/goffload/goffload/prune"
	"github.com/goffload/goffload/targetid"
)

// PruneInPlace prunes the files of folder dir where they are: every file
// with device code rewritten into a temporary file beside it, and only
// once all are written (and the tree keeps some code object, unless
// AllowEmpty) each is renamed over its file; the other names of a hard
// link are pointed at the new file; family files of GPUs not kept are
// removed; every *.dist-info/RECORD in the tree gets the new hash and
// size of each changed file and loses the lines of removed ones (an
// installed Python package stays consistent for pip).
func PruneInPlace(dir string, o TreeOptions) (*TreeReport, error) {
	dir, err := filepath.EvalSymlinks(dir) // a folder named through a link: where it leads
	if err != nil {
		return nil, err
	}
	allowEmpty := o.AllowEmpty
	o.AllowEmpty = true
	type file struct {
		path  string
		fi    fs.FileInfo
		links []string
	}
	var files []*file
	var records []string
	byID := map[fileID]*file{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if d.Name() == "RECORD" && filepath.Ext(filepath.Dir(p)) == ".dist-info" {
			records = append(records, p)
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if id, ok := idOf(fi); ok {
			if f := byID[id]; f != nil {
				f.links = append(f.links, p)
				return nil
			}
			f := &file{path: p, fi: fi}
			byID[id] = f
			files = append(files, f)
			return nil
		}
		files = append(files, &file{path: p, fi: fi})
		return nil
	})
	if err != nil {
		return nil, err
	}
	type result struct {
		fr        FileReport
		unmatched []targetid.Target
		out       *atomicfile.File
		remove    bool
		err       error
	}
	results := make([]result, len(files))
	// Rewritten files wait open and unnamed (a process killed meanwhile
	// leaves nothing behind) while a quarter of the descriptors allow it;
	// beyond that each waits closed, named beside its file (Park).
	var open atomic.Int64
	budget := int64(openBudget())
	park := func() bool { return open.Add(1) > budget }
	parallel.For(len(files), o.Jobs, func(i int) {
		f := files[i]
		r := &results[i]
		rel, _ := filepath.Rel(dir, f.path)
		r.fr = FileReport{Path: rel, SizeBefore: f.fi.Size(), SizeAf: f.fi.Size(), Action: Copied}
		if kind, ok := familyLeftOut(f.path, o.Options); ok {
			r.fr.Action, r.fr.SizeAf, r.fr.Note, r.remove = Removed, 0, kind, true
			return
		}
		r.fr, r.unmatched, r.out, r.err = rewriteBeside(f.path, rel, f.fi, o, park)
		r.remove = r.fr.removedWhole()
	})
	abort := func() {
		for _, r := range results {
			if r.out != nil {
				r.out.Abort()
			}
		}
	}
	rep := &TreeReport{}
	used := make([]int, len(o.Keep)+len(o.Drop))
	all := append(append([]targetid.Target(nil), o.Keep...), o.Drop...)
	for i, r := range results {
		if r.err != nil {
			abort()
			return nil, r.err
		}
		rep.Files = append(rep.Files, r.fr)
		for _, l := range files[i].links {
			// Other names of the file that go (dry runs say so too).
			if kind, ok := removedName(l, &r.fr, o.Options); ok {
				rel, _ := filepath.Rel(dir, l)
				rep.Files = append(rep.Files, FileReport{Path: rel, Action: Removed, Note: kind})
			}
		}
		for k, t := range all {
			if r.fr.decided() && !containsTarget(r.unmatched, t) {
				used[k]++
			}
		}
	}
	for k, t := range all {
		if used[k] == 0 {
			rep.Unmatched = append(rep.Unmatched, t)
		}
	}
	if err := rep.keptNothing(dir, o.Keep, allowEmpty); err != nil {
		abort()
		return rep, err
	}
	if o.DryRun {
		abort()
		return rep, nil
	}
	// Everything is written: put it in place. Only names that are family
	// files of GPUs not kept are removed (another name of the same file
	// stays); the other names of a rewritten file are pointed at it
	// through a fresh temporary name each.
	changed := map[string]string{} // path -> "sha256=...,size", "" removed
	done := 0
	partial := func(err error) (*TreeReport, error) {
		abort()
		return rep, fmt.Errorf("%w (after %d of the files were put in place)", err, done)
	}
	for i, r := range results {
		f := files[i]
		names := append([]string{f.path}, f.links...)
		switch {
		case r.remove || r.out == nil:
			for _, p := range names {
				if _, ok := removedName(p, &r.fr, o.Options); ok {
					if err := os.Remove(p); err != nil {
						return partial(err)
					}
					changed[p] = ""
					done++
				}
			}
		default:
			if err := r.out.Commit(); err != nil {
				return partial(err)
			}
			results[i].out = nil
			done++
			for _, l := range f.links {
				if _, ok := removedName(l, &r.fr, o.Options); ok {
					if err := os.Remove(l); err != nil {
						return partial(err)
					}
					changed[l] = ""
					continue
				}
				tmp := fmt.Sprintf("%s.goffload-%d-%d", l, os.Getpid(), i)
				if err := os.Link(f.path, tmp); err != nil {
					return partial(err)
				}
				if err := os.Rename(tmp, l); err != nil {
					os.Remove(tmp)
					return partial(err)
				}
			}
			sum, err := recordHash(f.path)
			if err != nil {
				return partial(err)
			}
			for _, p := range names {
				if _, removed := changed[p]; !removed {
					changed[p] = sum
				}
			}
		}
	}
	for _, rec := range records {
		if err := updateRecord(rec, changed); err != nil {
			return partial(err)
		}
	}
	sort.Slice(rep.Files, func(a, b int) bool { return rep.Files[a].Path < rep.Files[b].Path })
	return rep, nil
}

// rewriteBeside rewrites one file into a temporary file beside it, kept
// (not yet in place) only when something changed: parked (closed) when
// park says so, else open.
func rewriteBeside(path, rel string, fi fs.FileInfo, o TreeOptions, park func() bool) (FileReport, []targetid.Target, *atomicfile.File, error) {
	fr := FileReport{Path: rel, SizeBefore: fi.Size(), SizeAf: fi.Size(), Action: Copied}
	in, err := os.Open(path)
	if err != nil {
		return fr, nil, nil, err
	}
	defer in.Close()
	var out prune.Output = prune.Discard{}
	var af *atomicfile.File
	if !o.DryRun {
		if af, err = atomicfile.CreateFile(path); err != nil {
			return fr, nil, nil, err
		}
		out = af
	}
	keep := false
	defer func() {
		if af != nil && !keep {
			af.Abort()
		}
	}()
	r, err := prune.Rewrite(out, in, fi.Size(), path, o.Options)
	if err := fr.outcome(r, err); err != nil {
		return fr, nil, nil, err
	}
	switch fr.Action {
	case Copied, Refused:
		return fr, nil, nil, nil
	case Removed:
		return fr, r.Unmatched, nil, nil
	}
	if !r.Changed() {
		return fr, r.Unmatched, nil, nil
	}
	if af != nil {
		if err := af.Chmod(modeBits(fi)); err != nil {
			return fr, nil, nil, err
		}
		if park() {
			if err := af.Park(); err != nil {
				return fr, nil, nil, err
			}
		}
	}
	keep = true
	return fr, r.Unmatched, af, nil
}

// recordHash is a file's RECORD entry: "sha256=<urlsafe base64>,<size>".
func recordHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", err
	}
	return recordEntry(h.Sum(nil), n), nil
}

// updateRecord rewrites an installed package's RECORD (paths relative to
// the folder holding its .dist-info) for the changed and removed files.
func updateRecord(rec string, changed map[string]string) error {
	data, err := os.ReadFile(rec)
	if err != nil {
		return err
	}
	base := filepath.Dir(filepath.Dir(rec))
	out, touched, err := rewriteRecord(data, func(p string) string {
		return filepath.Join(base, filepath.FromSlash(p))
	}, changed)
	if err != nil {
		return fmt.Errorf("%s: %w", rec, err)
	}
	if !touched {
		return nil
	}
	af, err := atomicfile.CreateFile(rec)
	if err != nil {
		return err
	}
	defer af.Abort()
	if _, err := af.Write(out); err != nil {
		return err
	}
	return af.Commit()
}

// removedName says whether the name p of a file whose report is fr goes,
// and why: every name of a file left out for what it holds, a family
// file's name of a GPU not kept.
func removedName(p string, fr *FileReport, o prune.Options) (string, bool) {
	if fr.removedWhole() {
		return wholeNote, true
	}
	return familyLeftOut(p, o)
}
