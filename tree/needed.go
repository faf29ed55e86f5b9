package tree

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/goffload/goffload/internal/objfile"
)

// Loader says where the dynamic loader looks for a program's libraries,
// as glibc's does: DT_RPATH of the loading object and of those that
// loaded it (when the loading object has no DT_RUNPATH), LD_LIBRARY_PATH,
// DT_RUNPATH, the folders of /etc/ld.so.conf (and its includes), then the
// default folders; $ORIGIN is the loading object's folder.
type Loader struct {
	// Sysroot is prefixed to every absolute folder searched and to
	// /etc/ld.so.conf ("" for the running system).
	Sysroot string
	// LibraryPath is LD_LIBRARY_PATH's folders.
	LibraryPath []string
	conf        []string
	confRead    bool
}

// defaultDirs are glibc's trusted folders on Debian-like systems.
var defaultDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"}

// Closure returns, for each named ELF program or library, the libraries
// its DT_NEEDED entries reach, transitively, each once: found ones read
// like any file (File.LoadedBy names who needs it), missing ones with
// File.NotFound set. files are the named files, already read.
func (ld *Loader) Closure(files []*File, opts *Options) []*File {
	type need struct {
		name, by string
		dirs     []string // where to look: RPATHs, "\x00", RUNPATH
		chain    []string // the RPATHs of the loaders, for its own needs
	}
	seen := map[string]bool{}
	for _, f := range files {
		if abs, err := filepath.Abs(f.Path); err == nil {
			seen[abs] = true
		}
	}
	var queue []need
	// push queues the needs of the object at path; inherited are the
	// DT_RPATHs of the objects that loaded it.
	push := func(path string, inherited []string) {
		fh, err := os.Open(path)
		if err != nil {
			return
		}
		defer fh.Close()
		st, err := fh.Stat()
		if err != nil {
			return
		}
		ef, err := objfile.NewELF(fh, st.Size())
		if err != nil {
			return
		}
		libs, _ := ef.DynStrings(objfile.DTNeeded)
		rp, _ := ef.DynStrings(objfile.DTRPath)
		run, _ := ef.DynStrings(objfile.DTRunPath)
		origin := filepath.Dir(path)
		// glibc: the RPATHs of the object and of its loaders, unless the
		// object has a DT_RUNPATH (then none); its own RPATH joins the
		// chain its libraries inherit only when it has no RUNPATH.
		chain := inherited
		var rpath []string
		if len(run) == 0 {
			chain = append(ld.expand(rp, origin), inherited...)
			rpath = chain
		}
		dirs := append(append(append([]string(nil), rpath...), "\x00"), ld.expand(run, origin)...)
		for _, l := range libs {
			queue = append(queue, need{l, path, dirs, chain})
		}
	}
	for _, f := range files {
		if f.Listing != nil {
			push(f.Path, nil)
		}
	}
	var out []*File
	notFound := map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		path := ld.find(n.name, n.dirs)
		if path == "" {
			if !notFound[n.name] {
				notFound[n.name] = true
				out = append(out, &File{Path: n.name, LoadedBy: n.by, NotFound: true})
			}
			continue
		}
		abs, _ := filepath.Abs(path)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		f := read(path, path, optsOrZero(opts))
		f.LoadedBy = n.by
		out = append(out, f)
		push(path, n.chain)
	}
	return out
}

func optsOrZero(o *Options) Options {
	if o == nil {
		return Options{}
	}
	return *o
}

// expand splits colon-separated search paths, replaces $ORIGIN (the
// object's own folder, as found) and puts the other absolute folders
// under the sysroot.
func (ld *Loader) expand(paths []string, origin string) []string {
	var dirs []string
	for _, p := range paths {
		for _, d := range strings.Split(p, ":") {
			switch {
			case strings.Contains(d, "$ORIGIN") || strings.Contains(d, "${ORIGIN}"):
				d = strings.ReplaceAll(strings.ReplaceAll(d, "${ORIGIN}", origin), "$ORIGIN", origin)
			default:
				d = ld.root(d)
			}
			if d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// find looks for a needed library as the loader would; "" when missing.
func (ld *Loader) find(name string, dirs []string) string {
	if strings.Contains(name, "/") {
		if isFile(ld.root(name)) {
			return ld.root(name)
		}
		return ""
	}
	rpath, runpath := dirs, []string(nil)
	for i, d := range dirs {
		if d == "\x00" {
			rpath, runpath = dirs[:i], dirs[i+1:]
		}
	}
	var search []string
	search = append(search, rpath...)
	search = append(search, ld.LibraryPath...)
	search = append(search, runpath...)
	for _, d := range append(ld.confDirs(), defaultDirs...) {
		search = append(search, ld.root(d))
	}
	for _, d := range search {
		p := filepath.Join(d, name)
		if isFile(p) {
			return p
		}
	}
	return ""
}

// root puts an absolute path under the sysroot.
func (ld *Loader) root(p string) string {
	if ld.Sysroot != "" && filepath.IsAbs(p) {
		return filepath.Join(ld.Sysroot, p)
	}
	return p
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// confDirs reads /etc/ld.so.conf and the files it includes, once.
func (ld *Loader) confDirs() []string {
	if !ld.confRead {
		ld.confRead = true
		ld.conf = ld.readConf("/etc/ld.so.conf", 0)
	}
	return ld.conf
}

func (ld *Loader) readConf(path string, depth int) []string {
	if depth > 8 {
		return nil
	}
	f, err := os.Open(ld.root(path))
	if err != nil {
		return nil
	}
	defer f.Close()
	var dirs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "":
		case strings.HasPrefix(line, "include "):
			pat := strings.TrimSpace(strings.TrimPrefix(line, "include "))
			if !filepath.IsAbs(pat) {
				pat = filepath.Join(filepath.Dir(path), pat)
			}
			matches, _ := filepath.Glob(ld.root(pat))
			for _, m := range matches {
				if ld.Sysroot != "" {
					m = strings.TrimPrefix(m, filepath.Clean(ld.Sysroot))
				}
				dirs = append(dirs, ld.readConf(m, depth+1)...)
			}
		default:
			dirs = append(dirs, line)
		}
	}
	return dirs
}
