package tree

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/inspect"
	"github.com/goffload/goffload/prune"
)

// kpackInstall writes a kpack'd install into dir: a binary whose code is
// in KPAK archives, one archive per GPU (and a second name for gfx1030's),
// and an archive of code for two GPUs.
func kpackInstall(t *testing.T, dir string) {
	t.Helper()
	kp := "../inspect/testdata/"
	copyTo(t, dir, kp+"kpak-hipk.so:lib/libfoo.so", kp+"kpak-foo_gfx1100.kpack:.kpack/foo_gfx1100.kpack",
		kp+"kpak-foo_gfx1030.kpack:.kpack/foo_gfx1030.kpack", kp+"kpak-none.kpack:.kpack/a_mixed.kpack")
	if err := os.Link(filepath.Join(dir, ".kpack/foo_gfx1030.kpack"), filepath.Join(dir, ".kpack/foo_gfx1030-again.kpack")); err != nil {
		t.Fatal(err)
	}
}

// checkKpackPrune checks a kpack'd install pruned to gfx1100: gfx1030's
// archive is left out under both its names, gfx1100's is as it was, the
// archive of both GPUs is refused and kept, and the binary still finds its
// code for gfx1100.
func checkKpackPrune(t *testing.T, orig, dir string, rep *TreeReport) {
	t.Helper()
	actions := map[string]string{}
	dropped := 0
	for _, f := range rep.Files {
		actions[f.Path] = f.Action
		if f.Action == Removed && f.Note != wholeNote {
			t.Errorf("%s: %+v", f.Path, f)
		}
		dropped += f.Dropped
	}
	if dropped != 1 {
		t.Errorf("%d dropped (gfx1030's one code object, counted once): %+v", dropped, rep.Files)
	}
	want := map[string]string{".kpack/foo_gfx1030.kpack": Removed, ".kpack/foo_gfx1030-again.kpack": Removed,
		".kpack/foo_gfx1100.kpack": Unchanged, ".kpack/a_mixed.kpack": Refused, "lib/libfoo.so": Copied}
	for p, a := range want {
		if actions[p] != a {
			t.Errorf("%s: %q, want %q (%v)", p, actions[p], a, actions)
		}
	}
	for p, a := range want {
		got, err := os.ReadFile(filepath.Join(dir, p))
		was, _ := os.ReadFile(filepath.Join(orig, p))
		switch {
		case a == Removed && err == nil:
			t.Errorf("%s is still there", p)
		case a != Removed && !bytes.Equal(got, was):
			t.Errorf("%s: %d bytes, was %d (%v)", p, len(got), len(was), err)
		}
	}
	files, _ := Walk([]string{filepath.Join(dir, "lib")}, nil)
	if v := byFile(Check(files, gpus("gfx1100")))["libfoo.so"].Verdicts["gfx1100"]; v.Verdict != Exact {
		t.Errorf("gfx1100 after the prune: %+v", v)
	}
}

// Pruning a kpack'd install leaves out the KPAK archives of GPUs not kept
// (they were refused and copied), into a new folder and in place.
func TestPruneTreeKpack(t *testing.T) {
	in := filepath.Join(t.TempDir(), "install")
	kpackInstall(t, in)
	o := TreeOptions{Options: prune.Options{Keep: gpus("gfx1100")}}
	out := filepath.Join(filepath.Dir(in), "pruned")
	rep, err := PruneTree(in, out, o)
	if err != nil {
		t.Fatal(err)
	}
	checkKpackPrune(t, in, out, rep)

	orig := filepath.Join(t.TempDir(), "orig")
	kpackInstall(t, orig)
	rep, err = PruneInPlace(in, o)
	if err != nil {
		t.Fatal(err)
	}
	checkKpackPrune(t, orig, in, rep)
}

// A wheel's KPAK archive of a GPU not kept (AMD's device wheels hold one per
// target) is left out, and its RECORD line with it; it was copied as a
// member that holds no device code.
func TestPruneWheelKpack(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "pkg-1.0-py3-none-any.whl"), filepath.Join(dir, "out.whl")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	var record strings.Builder
	for _, m := range []string{"foo_gfx1100", "foo_gfx1030"} {
		data, err := os.ReadFile("../inspect/testdata/kpak-" + m + ".kpack")
		if err != nil {
			t.Fatal(err)
		}
		name := "pkg/.kpack/" + m + ".kpack"
		w, _ := zw.Create(name)
		w.Write(data)
		fmt.Fprintf(&record, "%s,%s,%d\n", name, digest(data), len(data))
	}
	record.WriteString("pkg-1.0.dist-info/RECORD,,\n")
	w, _ := zw.Create("pkg-1.0.dist-info/RECORD")
	w.Write([]byte(record.String()))
	zw.Close()
	f.Close()
	rep, err := PruneWheel(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx1100")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, kept, dropped := rep.Totals(); kept != 2 || dropped != 1 {
		t.Errorf("%d kept, %d dropped: %+v", kept, dropped, rep.Files)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	var rec []byte
	for _, f := range zr.File {
		names = append(names, f.Name)
		if strings.HasSuffix(f.Name, "RECORD") {
			rc, _ := f.Open()
			rec, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	if strings.Join(names, " ") != "pkg/.kpack/foo_gfx1100.kpack pkg-1.0.dist-info/RECORD" || strings.Contains(string(rec), "gfx1030") {
		t.Errorf("members %v, RECORD %q", names, rec)
	}
}

// Family files are kept by the rule code objects are: --exact compares
// their GPU as a target ID string (it used to take the runs-on rule
// whatever --exact said), and a Drop names them as it names code.
func TestFamilyFilesFollowTheTargetRule(t *testing.T) {
	for _, c := range []struct {
		tok  string
		o    prune.Options
		want bool
	}{
		{"gfx90a", prune.Options{Keep: gpus("gfx90a:xnack+")}, true},
		{"gfx90a", prune.Options{Keep: gpus("gfx90a:xnack+"), Exact: true}, false},
		{"gfx90a-xnack+", prune.Options{Keep: gpus("gfx90a:xnack+"), Exact: true}, true},
		{"gfx90a-xnack-", prune.Options{Keep: gpus("gfx90a")}, true},
		{"gfx90a-xnack-", prune.Options{Drop: gpus("gfx90a:xnack+")}, true},
		{"gfx90a-xnack+", prune.Options{Drop: gpus("gfx90a")}, false},
		{"gfx1030", prune.Options{Keep: gpus("gfx90a")}, false},
	} {
		if got := keepsFamilyFile(c.tok, c.o); got != c.want {
			t.Errorf("%s under keep %v drop %v exact %v: %v", c.tok, c.o.Keep, c.o.Drop, c.o.Exact, got)
		}
	}
}

// What the report says of a kpack'd install's prune: targets matched only
// by the code of a KPAK archive left out are matched, in every mode; a
// dry run names every name that goes, as the run does.
func TestPruneKpackReport(t *testing.T) {
	in := filepath.Join(t.TempDir(), "install")
	kpackInstall(t, in)
	drop := TreeOptions{Options: prune.Options{Drop: gpus("gfx1030")}}
	removed := func(rep *TreeReport) string {
		var r []string
		for _, f := range rep.Files {
			if f.Action == Removed {
				r = append(r, f.Path)
			}
		}
		return strings.Join(r, " ")
	}
	const want = ".kpack/foo_gfx1030-again.kpack .kpack/foo_gfx1030.kpack"
	for _, dry := range []bool{true, false} {
		o := drop
		o.DryRun = dry
		out := ""
		if !dry {
			out = filepath.Join(t.TempDir(), "out")
		}
		rep, err := PruneTree(in, out, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Unmatched) != 0 || removed(rep) != want {
			t.Errorf("tree (dry run %v): unmatched %v, removed %q", dry, rep.Unmatched, removed(rep))
		}
	}
	rep, err := PruneInPlace(in, TreeOptions{Options: drop.Options, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unmatched) != 0 || removed(rep) != want {
		t.Errorf("in place, dry run: unmatched %v, removed %q", rep.Unmatched, removed(rep))
	}
	if _, err := os.Stat(filepath.Join(in, ".kpack/foo_gfx1030.kpack")); err != nil {
		t.Error("the dry run removed a file")
	}
	rep, err = PruneInPlace(in, drop)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unmatched) != 0 || removed(rep) != want {
		t.Errorf("in place: unmatched %v, removed %q", rep.Unmatched, removed(rep))
	}
}

// A static archive's member that holds only code dropped (a KPAK archive
// here) is left out of it; the archive is not removed with the code it
// keeps.
func TestPruneTreeArchiveOfKpacks(t *testing.T) {
	var a bytes.Buffer
	a.WriteString("!<arch>\n")
	for i, m := range []string{"foo_gfx1100", "foo_gfx1030"} {
		data, err := os.ReadFile("../inspect/testdata/kpak-" + m + ".kpack")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&a, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", fmt.Sprintf("m%d.kpack/", i), "0", "0", "0", "644", len(data))
		a.Write(data)
		if len(data)%2 == 1 {
			a.WriteByte('\n')
		}
	}
	in := filepath.Join(t.TempDir(), "install")
	os.MkdirAll(in, 0o755)
	os.WriteFile(filepath.Join(in, "libk.a"), a.Bytes(), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	rep, err := PruneTree(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx1100")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 1 || rep.Files[0].Action != Rewritten || rep.Files[0].Kept != 2 || rep.Files[0].Dropped != 1 {
		t.Errorf("%+v", rep.Files)
	}
	l, err := inspect.ReadFile(filepath.Join(out, "libk.a"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var got []string
	for _, o := range l.Devices() {
		got = append(got, o.TargetID)
	}
	if strings.Join(got, " ") != "gfx1100 gfx1100" || len(l.Errors) > 0 {
		t.Errorf("the output archive lists %v %v", got, l.Errors)
	}
}

// A wheel prune names the targets no code object matched, a KPAK
// archive's left out included.
func TestPruneWheelKpackUnmatched(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "pkg-1.0-py3-none-any.whl")
	f, _ := os.Create(in)
	zw := zip.NewWriter(f)
	data, _ := os.ReadFile("../inspect/testdata/kpak-foo_gfx1030.kpack")
	w, _ := zw.Create("pkg/.kpack/foo_gfx1030.kpack")
	w.Write(data)
	zw.Close()
	f.Close()
	for _, c := range []struct {
		o    prune.Options
		want string
	}{
		{prune.Options{Drop: gpus("gfx1030")}, "[]"},
		{prune.Options{Keep: gpus("gfx1200"), AllowEmpty: true}, "[gfx1200]"},
	} {
		rep, err := PruneWheel(in, filepath.Join(dir, "out.whl"), TreeOptions{Options: c.o, DryRun: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(rep.Unmatched); got != c.want {
			t.Errorf("keep %v drop %v: unmatched %s, want %s", c.o.Keep, c.o.Drop, got, c.want)
		}
	}
}

// A folder of plain code objects: a prune keeps those of the GPUs kept
// (counted: no "nothing fits"), and leaves out the others. It said no code
// object fitted and copied them all.
func TestPruneTreeCodeObjects(t *testing.T) {
	co, err := os.ReadFile("../testdata/inspect/gfx90a.co")
	if err != nil {
		t.Fatal(err)
	}
	g1030 := bytes.Clone(co)
	g1030[48] = 0x36 // EF_AMDGPU_MACH: gfx1030
	in := filepath.Join(t.TempDir(), "cos")
	os.MkdirAll(in, 0o755)
	os.WriteFile(filepath.Join(in, "a.co"), co, 0o644)
	os.WriteFile(filepath.Join(in, "b.hsaco"), g1030, 0o644)
	out := filepath.Join(t.TempDir(), "out")
	rep, err := PruneTree(in, out, TreeOptions{Options: prune.Options{Keep: gpus("gfx90a")}})
	if err != nil {
		t.Fatal(err)
	}
	actions := actionsOf(rep)
	if actions["a.co"] != Unchanged || actions["b.hsaco"] != Removed {
		t.Errorf("%+v", rep.Files)
	}
	if _, err := os.Stat(filepath.Join(out, "b.hsaco")); err == nil {
		t.Error("gfx1030's code object is still there")
	}
	if got, _ := os.ReadFile(filepath.Join(out, "a.co")); !bytes.Equal(got, co) {
		t.Error("gfx90a's code object changed")
	}
}
