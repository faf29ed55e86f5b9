package tree

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/prune"
)

// mkTree makes a small install: two libraries (one without gfx90a code),
// a symbolic and a hard link, a Tensile library/ for gfx90a and gfx1030,
// a file without device code; every file and folder with an old time.
func mkTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "install")
	copyTo(t, dir, targets+"/libmodes.so:lib/libmodes.so", targets+"/libk2.so:lib/libk2.so",
		"../testdata/inspect/gfx90a.co:lib/rocblas/library/TensileLibrary_gfx90a.co",
		"../testdata/inspect/gfx90a.co:lib/rocblas/library/TensileLibrary_gfx1030.co",
		targets+"/gen.sh:lib/rocblas/library/TensileLibrary.dat", targets+"/gen.sh:share/doc/README")
	os.Symlink("libmodes.so", filepath.Join(dir, "lib/libmodes.so.1"))
	os.Link(filepath.Join(dir, "lib/libk2.so"), filepath.Join(dir, "lib/libk2.so.1"))
	os.Chmod(filepath.Join(dir, "share/doc/README"), 0o640)
	old := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink == 0 {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	return dir
}

func TestPruneTree(t *testing.T) {
	in := mkTree(t)
	out := filepath.Join(filepath.Dir(in), "pruned")
	rep, err := PruneTree(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}})
	if err != nil {
		t.Fatal(err)
	}
	actions := actionsOf(rep)
	for p, want := range map[string]string{
		"lib/libmodes.so": Rewritten, "lib/libk2.so": HostOnly, "lib/libk2.so.1": Copied,
		"lib/rocblas/library/TensileLibrary_gfx1030.co": Removed, "lib/rocblas/library/TensileLibrary.dat": Copied,
		"share/doc/README": Copied,
	} {
		if actions[p] != want {
			t.Errorf("%s: %s, want %s", p, actions[p], want)
		}
	}
	if _, err := os.Lstat(filepath.Join(out, "lib/rocblas/library/TensileLibrary_gfx1030.co")); err == nil {
		t.Error("gfx1030's Tensile file is still there")
	}
	if l, err := os.Readlink(filepath.Join(out, "lib/libmodes.so.1")); err != nil || l != "libmodes.so" {
		t.Errorf("symbolic link: %q, %v", l, err)
	}
	a, _ := os.Stat(filepath.Join(out, "lib/libk2.so"))
	b, _ := os.Stat(filepath.Join(out, "lib/libk2.so.1"))
	if !os.SameFile(a, b) {
		t.Error("the hard link is two files")
	}
	fi, _ := os.Stat(filepath.Join(out, "share/doc/README"))
	if fi.Mode().Perm() != 0o640 || !fi.ModTime().Equal(time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("README: mode %v, time %v", fi.Mode(), fi.ModTime())
	}
	d, _ := os.Stat(filepath.Join(out, "lib"))
	if !d.ModTime().Equal(time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("lib/: time %v", d.ModTime())
	}
	orig, _ := os.ReadFile(filepath.Join(in, "share/doc/README"))
	if got, _ := os.ReadFile(filepath.Join(out, "share/doc/README")); !bytes.Equal(got, orig) {
		t.Error("README changed")
	}
	l, err := inspect.ReadFile(filepath.Join(out, "lib/libmodes.so"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, o := range l.Devices() {
		if o.Target().TargetID[:6] != "gfx90a" {
			t.Errorf("libmodes.so keeps %s", o.ID)
		}
	}
	if len(l.Devices()) != 2 {
		t.Errorf("libmodes.so keeps %d objects", len(l.Devices()))
	}
	// The output exists now: refused.
	if _, err := PruneTree(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}}); !errors.Is(err, ErrExists) {
		t.Errorf("existing output: %v", err)
	}
}

// No silent loss: keeping nothing anywhere writes nothing; a dry run
// writes nothing either.
func TestPruneTreeKeepsSomething(t *testing.T) {
	in := mkTree(t)
	out := filepath.Join(filepath.Dir(in), "none")
	rep, err := PruneTree(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx1100")}})
	if !errors.Is(err, prune.ErrEmpty) {
		t.Errorf("keep gfx1100: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("keep gfx1100 wrote the output")
	}
	if entries, _ := os.ReadDir(filepath.Dir(in)); len(entries) != 1 {
		t.Errorf("temporary folders left: %d entries", len(entries))
	}
	if rep == nil || len(rep.Unmatched) != 1 {
		t.Errorf("unmatched: %+v", rep)
	}
	if _, err := PruneTree(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx1100"), AllowEmpty: true}}); err != nil {
		t.Errorf("AllowEmpty: %v", err)
	}
	rep, err = PruneTree(in, "", TreeOptions{Options: prune.Options{Drop: gpus("gfx1030")}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, kept, dropped := rep.Totals(); kept != 3 || dropped != 2 { // the gfx90a Tensile code object is one
		t.Errorf("dry run: %d kept, %d dropped", kept, dropped)
	}
}

// A tree whose Keep matches only code in files refused (kept as they
// were) says so: "no code object fits" alone read as if the GPU kept were
// nowhere in it, when a refused KPAK archive holds it.
func TestPruneTreeKeepsOnlyRefused(t *testing.T) {
	in := t.TempDir()
	copyTo(t, in, "../testdata/inspect/coff-fat.obj", "../inspect/testdata/kpak-zstd.kpack")
	for _, inPlace := range []bool{false, true} {
		var err error
		if inPlace {
			_, err = PruneInPlace(in, TreeOptions{Options: prune.Options{Keep: gpus("gfx1030")}})
		} else {
			_, err = PruneTree(in, filepath.Join(t.TempDir(), "out"), TreeOptions{Options: prune.Options{Keep: gpus("gfx1030")}})
		}
		if !errors.Is(err, prune.ErrEmpty) || !strings.Contains(err.Error(), "2 file(s) of device code it cannot rewrite safely are not counted (coff-fat.obj, kpak-zstd.kpack)") {
			t.Errorf("in place %v: %v", inPlace, err)
		}
	}
}

// An output inside the input would be walked as input: refused.
func TestPruneTreeOutputInside(t *testing.T) {
	in := mkTree(t)
	if _, err := PruneTree(in, filepath.Join(in, "lib", "out"), TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}}); !errors.Is(err, ErrInside) {
		t.Errorf("output inside: %v", err)
	}
}

// Review findings: a folder named through a symbolic link is walked where
// it leads; hard links whose names differ in being family files; named
// pipes; check of bundles left with their host entry only, and of damage.
func TestReviewCases(t *testing.T) {
	in := mkTree(t)
	link := filepath.Join(filepath.Dir(in), "link")
	os.Symlink(in, link)
	files, err := Walk([]string{link}, nil)
	if err != nil || len(files) < 5 || !strings.HasPrefix(files[0].Path, link) {
		t.Fatalf("walk through a link: %d files, %v", len(files), err)
	}
	lib := filepath.Join(in, "lib/rocblas/library")
	os.Link(filepath.Join(lib, "TensileLibrary_gfx1030.co"), filepath.Join(lib, "AA.co"))
	os.Link(filepath.Join(lib, "TensileLibrary_gfx90a.co"), filepath.Join(lib, "TensileLibrary_gfx1100.co"))
	if err := mkfifo(filepath.Join(in, "share/fifo"), 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	out := filepath.Join(filepath.Dir(in), "out")
	rep, err := PruneTree(link, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"lib/rocblas/library/AA.co": true, "lib/rocblas/library/TensileLibrary_gfx1030.co": false,
		"lib/rocblas/library/TensileLibrary_gfx1100.co": false, "lib/rocblas/library/TensileLibrary_gfx90a.co": true} {
		if _, err := os.Stat(filepath.Join(out, name)); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", name, err == nil, want)
		}
	}
	if fi, err := os.Lstat(filepath.Join(out, "share/fifo")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("fifo: %v", err)
	}
	if len(rep.Files) == 0 {
		t.Error("empty report")
	}
	// In place, through the link: the same names go.
	if _, err := PruneInPlace(link, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"lib/rocblas/library/AA.co": true, "lib/rocblas/library/TensileLibrary_gfx1030.co": false,
		"lib/rocblas/library/TensileLibrary_gfx1100.co": false, "lib/rocblas/library/TensileLibrary_gfx90a.co": true} {
		if _, err := os.Stat(filepath.Join(in, name)); (err == nil) != want {
			t.Errorf("in place: %s: present %v, want %v", name, err == nil, want)
		}
	}
	// A bundle left with its host entry only has code for no GPU.
	pruned := filepath.Join(out, "lib/libk2.so")
	files, _ = Walk([]string{pruned}, nil)
	if r := Check(files, gpus("gfx1030"))[0]; r.Verdict != None {
		t.Errorf("host-only libk2.so for gfx1030: %s", r.Verdict)
	}
	// Damage is not a verdict to pass.
	data, _ := os.ReadFile("../testdata/inspect/libmulti-ccob.so")
	data = bytes.Clone(data)
	copy(data[0x2008:], "\xff\xff\xff\xff\xff\xff\xff\x7f")
	bad := filepath.Join(t.TempDir(), "bad.so")
	os.WriteFile(bad, data, 0o644)
	files, _ = Walk([]string{bad}, nil)
	if r := Check(files, gpus("gfx906"))[0]; r.Verdict != Unreadable || r.Err == nil {
		t.Errorf("damaged: %s %v", r.Verdict, r.Err)
	}
}

// TestPruneInPlaceManyFiles: an install with more rewritten files than
// the process may have open (RLIMIT_NOFILE lowered to 128) is pruned in
// place: each rewritten file waits closed until all are written. It had
// stopped at 512 files.
func TestPruneInPlaceManyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("600 files")
	}
	data, err := os.ReadFile("../testdata/inspect/libmulti.so")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const n = 600
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("lib%d", i%7))
		os.MkdirAll(sub, 0o755)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("libk%d.so", i)), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS == "linux" {
		defer lowerOpenFiles(128)()
	}
	rep, err := PruneInPlace(dir, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a:xnack+")}})
	if err != nil {
		t.Fatal(err)
	}
	rewritten := 0
	for _, f := range rep.Files {
		if f.Action == Rewritten {
			rewritten++
		}
	}
	files, _ := Walk([]string{dir}, nil)
	if rewritten != n || len(files) != n {
		t.Fatalf("%d of %d files rewritten, %d walked", rewritten, n, len(files))
	}
	if r := Check(files[:1], gpus("gfx906"))[0]; r.Verdict != None {
		t.Errorf("gfx906 after keeping gfx90a: %s", r.Verdict)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "lib0")); len(ents) != (n+6)/7 {
		t.Errorf("lib0 holds %d entries (temporary files left?)", len(ents))
	}
}

// A file whose device code prune does not rewrite (here .hip_fatbin under
// another name, listed by inspect through its bundles' magic) is refused
// and copied as it is, with the reason: not copied as a file without
// device code.
func TestPruneTreeRefusesUnrewrittenCode(t *testing.T) {
	obj, err := os.ReadFile("../testdata/inspect/newdriver-nonrdc.o")
	if err != nil {
		t.Fatal(err)
	}
	obj = bytes.ReplaceAll(obj, []byte(".hip_fatbin\x00"), []byte(".hip_fatbix\x00"))
	in := filepath.Join(t.TempDir(), "install")
	os.MkdirAll(filepath.Join(in, "lib"), 0o755)
	if err := os.WriteFile(filepath.Join(in, "lib/k.o"), obj, 0o644); err != nil {
		t.Fatal(err)
	}
	copyTo(t, in, targets+"/libmodes.so:lib/libmodes.so")
	out := filepath.Join(filepath.Dir(in), "pruned")
	rep, err := PruneTree(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}})
	if err != nil {
		t.Fatal(err)
	}
	var k *FileReport
	for i, f := range rep.Files {
		if f.Path == "lib/k.o" {
			k = &rep.Files[i]
		}
	}
	if k == nil || k.Action != Refused || !strings.Contains(k.Note, "does not rewrite") {
		t.Fatalf("%+v", rep.Files)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "lib/k.o")); !bytes.Equal(got, obj) {
		t.Error("the refused file is not copied as it is")
	}
}

// A dry run writes into an output that cannot be shortened. A host
// library's archive that llvm-ar would write again larger (with the symbol
// table it lacks) is copied, and a fat one kept whole is unchanged: neither
// fails the run ("the output cannot be shortened", as on LLVM's own
// libclang_rt archives, whose symbol table is empty).
func TestPruneTreeDryRunArchives(t *testing.T) {
	rdc, err := os.ReadFile("../testdata/inspect/rdc.o")
	if err != nil {
		t.Fatal(err)
	}
	var host bytes.Buffer
	if err := objfmt.StripBundles(&host, bytes.NewReader(rdc), int64(len(rdc))); err != nil {
		t.Fatal(err)
	}
	archive := func(members ...[]byte) []byte {
		b := []byte("!<arch>\n")
		for i, m := range members {
			b = fmt.Appendf(b, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", fmt.Sprintf("m%d.o/", i), "0", "0", "0", "644", len(m))
			b = append(b, m...)
			if len(m)%2 == 1 {
				b = append(b, '\n')
			}
		}
		return b
	}
	in := filepath.Join(t.TempDir(), "install")
	os.MkdirAll(filepath.Join(in, "lib"), 0o755)
	os.WriteFile(filepath.Join(in, "lib/libhost.a"), archive(host.Bytes()), 0o644)
	os.WriteFile(filepath.Join(in, "lib/libfat.a"), archive(rdc), 0o644)
	rep, err := PruneTree(in, "", TreeOptions{Options: prune.Options{Drop: gpus("gfx1030")}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	actions := actionsOf(rep)
	if actions["lib/libhost.a"] != Copied || actions["lib/libfat.a"] != Unchanged {
		t.Errorf("%v", actions)
	}
}

// actionsOf maps each file of a report to what was done to it.
func actionsOf(rep *TreeReport) map[string]string {
	actions := map[string]string{}
	for _, f := range rep.Files {
		actions[f.Path] = f.Action
	}
	return actions
}
