package tree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/targetid"
)

const targets = "../testdata/targets"

// copyTo copies testdata files into dir (names: "src[:dst]").
func copyTo(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		src, dst, ok := strings.Cut(n, ":")
		if !ok {
			dst = filepath.Base(src)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, dst)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func gpus(s ...string) []targetid.Target {
	var ts []targetid.Target
	for _, x := range s {
		ts = append(ts, targetid.MustParseTarget(x))
	}
	return ts
}

func byFile(rs []*Result) map[string]*Result {
	m := map[string]*Result{}
	for _, r := range rs {
		m[filepath.Base(r.File)] = r
	}
	return m
}

// Each file once: hard links and symbolic links to files are one file,
// symbolic links to folders are not followed.
func TestWalkOnce(t *testing.T) {
	dir := t.TempDir()
	copyTo(t, dir, targets+"/libmodes.so:lib/libmodes.so", targets+"/generic.hipfb:data/generic.hipfb")
	os.Link(filepath.Join(dir, "lib/libmodes.so"), filepath.Join(dir, "lib/hard.so"))
	os.Symlink("libmodes.so", filepath.Join(dir, "lib/soft.so"))
	os.Symlink("../data", filepath.Join(dir, "lib/datalink"))
	os.WriteFile(filepath.Join(dir, "README"), []byte("no code"), 0o644)
	files, err := Walk([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimPrefix(f.Path, dir+"/"))
		if strings.HasSuffix(f.Path, "lib/hard.so") && len(f.Links) != 2 {
			t.Errorf("%s: links %v", f.Path, f.Links)
		}
	}
	if got := strings.Join(names, " "); got != "README data/generic.hipfb lib/hard.so" {
		t.Errorf("walked %s", got)
	}
	if _, err := Walk([]string{filepath.Join(dir, "missing")}, nil); err == nil {
		t.Error("a missing path walked")
	}
}

// Verdicts on real clang 22 outputs, GPU by GPU and mode by mode.
func TestCheckVerdicts(t *testing.T) {
	files, err := Walk([]string{targets + "/libmodes.so", targets + "/generic.hipfb", targets + "/anymode.hipfb", targets + "/gen.sh"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := byFile(Check(files, gpus("gfx90a", "gfx90a:xnack-", "gfx1031", "gfx900", "gfx1100", "gfx942:sramecc+")))
	for _, c := range []struct {
		file, gpu string
		want      Verdict
		mode, ov  string
	}{
		{"libmodes.so", "gfx90a", Compatible, "", ""},
		{"libmodes.so", "gfx90a:xnack-", Compatible, "", ""},
		{"libmodes.so", "gfx1031", Override, "", "HSA_OVERRIDE_GFX_VERSION=10.3.0"},
		{"libmodes.so", "gfx900", None, "", ""},
		{"generic.hipfb", "gfx900", Generic, "", ""},
		{"generic.hipfb", "gfx1031", Generic, "", ""},
		{"generic.hipfb", "gfx1100", None, "", ""},
		{"anymode.hipfb", "gfx1100", Exact, "", ""},
		{"anymode.hipfb", "gfx942:sramecc+", Compatible, "", ""},
		{"anymode.hipfb", "gfx1031", None, "", ""},
	} {
		v := rs[c.file].Verdicts[c.gpu]
		if v.Verdict != c.want || v.Mode != c.mode || v.Override != c.ov {
			t.Errorf("%s for %s: %+v, want %s %q %q", c.file, c.gpu, v, c.want, c.mode, c.ov)
		}
	}
	if r := rs["gen.sh"]; r.Verdict != NoCode {
		t.Errorf("gen.sh: %s", r.Verdict)
	}
	// A GPU whose modes differ in verdict reports the worst with its mode.
	files, _ = Walk([]string{targets + "/modes.hipfb", "../testdata/inspect/kernel.bc"}, nil)
	rs = byFile(Check(files, gpus("gfx90a", "gfx906")))
	if v := rs["kernel.bc"].Verdicts["gfx90a"]; v.Verdict != None || !strings.Contains(v.Mode, "xnack-") {
		t.Errorf("kernel.bc (gfx90a:xnack+ only) for gfx90a: %+v", v)
	}
	if v := rs["kernel.bc"].Verdicts["gfx906"]; v.Verdict != Compatible {
		t.Errorf("kernel.bc for gfx906: %+v", v)
	}
}

// A program is followed through the libraries it loads: one lacks gfx90a.
func TestCheckClosure(t *testing.T) {
	dir := t.TempDir()
	copyTo(t, dir, targets+"/app:bin/app", targets+"/libk2.so:bin/libk2.so", targets+"/libmodes.so:lib/libmodes.so")
	files, _ := Walk([]string{filepath.Join(dir, "bin/app")}, nil)
	ld := &Loader{Sysroot: t.TempDir(), LibraryPath: []string{filepath.Join(dir, "lib")}}
	all := append(files, ld.Closure(files, nil)...)
	rs := byFile(Check(all, gpus("gfx90a")))
	for name, want := range map[string]Verdict{"app": Compatible, "libk2.so": None, "libmodes.so": Compatible, "libamdhip64.so": NotFound, "libc.so.6": NotFound} {
		r := rs[name]
		if r == nil || r.Verdict != want {
			t.Errorf("%s: %+v, want %s", name, r, want)
			continue
		}
		if name != "app" && !strings.HasSuffix(r.LoadedBy, "bin/app") {
			t.Errorf("%s loaded by %q", name, r.LoadedBy)
		}
	}
}

// The loader's search: RUNPATH with $ORIGIN, LD_LIBRARY_PATH, ld.so.conf
// and its includes, under a sysroot.
func TestLoaderFind(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"etc/ld.so.conf.d", "opt/rocm/lib", "usr/lib/x86_64-linux-gnu"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "etc/ld.so.conf"), []byte("# comment\ninclude /etc/ld.so.conf.d/*.conf\n"), 0o644)
	os.WriteFile(filepath.Join(root, "etc/ld.so.conf.d/rocm.conf"), []byte("/opt/rocm/lib\n"), 0o644)
	for _, f := range []string{"opt/rocm/lib/librocm.so", "usr/lib/x86_64-linux-gnu/libc.so.6"} {
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
	ld := &Loader{Sysroot: root}
	if p := ld.find("librocm.so", nil); p != filepath.Join(root, "opt/rocm/lib/librocm.so") {
		t.Errorf("librocm.so: %q", p)
	}
	if p := ld.find("libc.so.6", nil); p != filepath.Join(root, "usr/lib/x86_64-linux-gnu/libc.so.6") {
		t.Errorf("libc.so.6: %q", p)
	}
	if p := ld.find("libnone.so", nil); p != "" {
		t.Errorf("libnone.so: %q", p)
	}
	if d := ld.expand([]string{"$ORIGIN/../lib:${ORIGIN}:/opt/rocm/lib"}, "/x/bin"); strings.Join(d, " ") != "/x/bin/../lib /x/bin "+filepath.Join(root, "opt/rocm/lib") {
		t.Errorf("expand: %v", d)
	}
}

// Tensile's library/ is one entry: a GPU needs every kind of file all the
// other GPUs have; MIOpen's kernel databases likewise.
func TestFamilies(t *testing.T) {
	dir := t.TempDir()
	co := "../testdata/inspect/gfx90a.co"
	copyTo(t, dir,
		co+":rocblas/library/TensileLibrary_gfx90a.co",
		co+":rocblas/library/TensileLibrary_gfx1030.co",
		co+":rocblas/library/TensileLibrary_gfx1100.co",
		co+":rocblas/library/Kernels.so-000-gfx90a-xnack+.hsaco",
		co+":rocblas/library/Kernels.so-000-gfx90a-xnack-.hsaco",
		co+":rocblas/library/Kernels.so-000-gfx1030.hsaco",
		co+":rocblas/library/Kernels.so-000-gfx1100.hsaco",
		targets+"/gen.sh:rocblas/library/TensileLibrary.dat",
		targets+"/gen.sh:rocblas/library/TensileLibrary_lazy_gfx90a.dat",
		targets+"/gen.sh:rocblas/library/TensileLibrary_lazy_gfx1100.dat",
		targets+"/gen.sh:miopen/db/gfx90a6e.kdb",
		targets+"/gen.sh:miopen/db/gfx1030_36.kdb",
		co+":hipblaslt/library/gfx90a/TensileLibrary_gfx90a.co",
		co+":hipblaslt/library/gfx942/TensileLibrary_gfx942.co",
	)
	files, _ := Walk([]string{dir}, nil)
	rs := Check(files, gpus("gfx90a:xnack-", "gfx1030", "gfx1031", "gfx942"))
	got := map[string]*Result{}
	for _, r := range rs {
		if r.Family != "" {
			got[r.Family] = r
		} else if r.Verdict != NoCode {
			t.Errorf("%s: a family file judged alone (%s)", r.File, r.Verdict)
		}
	}
	tl := got["tensile"]
	if tl == nil || !strings.HasSuffix(tl.File, "rocblas/library") {
		t.Fatalf("tensile: %+v", tl)
	}
	for g, want := range map[string]GPUVerdict{
		"gfx90a:xnack-": {Verdict: Exact},
		"gfx1030":       {Verdict: None, Missing: "TensileLibrary_lazy_gfx1030.dat"},
		"gfx1031":       {Verdict: Override, Override: "HSA_OVERRIDE_GFX_VERSION=10.3.0", Runs: "gfx1030"},
		"gfx942":        {Verdict: None},
	} {
		if v := tl.Verdicts[g]; v != want {
			t.Errorf("tensile for %s: %+v, want %+v", g, v, want)
		}
	}
	var newer *Result
	for _, r := range rs {
		if r.Family == "tensile" && strings.HasSuffix(r.File, "hipblaslt/library") {
			newer = r
		}
	}
	if newer == nil || newer.Verdicts["gfx90a:xnack-"].Verdict != Exact || newer.Verdicts["gfx1030"].Verdict != None {
		t.Errorf("hipblaslt library/<gfx>/: %+v", newer)
	}
	kdb := got["miopen-kdb"]
	if kdb == nil || kdb.Verdicts["gfx1030"].Verdict != Exact || kdb.Verdicts["gfx942"].Verdict != None {
		t.Errorf("miopen-kdb: %+v", kdb)
	}
}

func TestGFXVersionAndModes(t *testing.T) {
	for p, want := range map[string]string{"gfx1030": "10.3.0", "gfx90a": "9.0.10", "gfx942": "9.4.2", "gfx1100": "11.0.0", "gfx906": "9.0.6"} {
		if v, ok := GFXVersion(p); !ok || v != want {
			t.Errorf("GFXVersion(%s) = %s", p, v)
		}
	}
	if n := len(Modes(targetid.MustParseTarget("gfx90a"))); n != 4 {
		t.Errorf("gfx90a has %d modes", n)
	}
	if n := len(Modes(targetid.MustParseTarget("gfx90a:xnack+"))); n != 2 {
		t.Errorf("gfx90a:xnack+ has %d modes", n)
	}
	if n := len(Modes(targetid.MustParseTarget("gfx1030"))); n != 1 {
		t.Errorf("gfx1030 has %d modes", n)
	}
}

// The GPUs of a machine, from a fake KFD topology.
func TestMachineGPUs(t *testing.T) {
	sys := t.TempDir()
	for n, v := range map[string]int{"0": 0, "1": 90010, "2": 100300, "3": 90010} {
		d := filepath.Join(sys, "class/kfd/kfd/topology/nodes", n)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "properties"), []byte("cpu_cores_count 0\ngfx_target_version "+itoa(v)+"\nsimd_count 104\n"), 0o644)
	}
	g, err := MachineGPUs(sys)
	if err != nil || len(g) != 2 || g[0].Processor != "gfx1030" || g[1].Processor != "gfx90a" {
		t.Errorf("%v, %v", g, err)
	}
	if _, err := MachineGPUs(t.TempDir()); err == nil {
		t.Error("no topology accepted")
	}
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	s := ""
	for ; v > 0; v /= 10 {
		s = string(rune('0'+v%10)) + s
	}
	return s
}

// A kpack'd install: the binary's two translation units for gfx1100 in
// their archive, gfx1030's archive lacking one, an empty archive.
func TestCheckKpack(t *testing.T) {
	dir := t.TempDir()
	kp := "../inspect/testdata/"
	copyTo(t, dir, kp+"kpak-hipk.so:lib/libfoo.so", kp+"kpak-foo_gfx1100.kpack:.kpack/foo_gfx1100.kpack",
		kp+"kpak-foo_gfx1030.kpack:.kpack/foo_gfx1030.kpack")
	files, _ := Walk([]string{filepath.Join(dir, "lib")}, nil)
	rs := byFile(Check(files, gpus("gfx1100", "gfx1030", "gfx1101", "gfx90a")))
	r := rs["libfoo.so"]
	if r == nil || r.Family != "kpack" {
		t.Fatalf("libfoo.so: %+v", r)
	}
	for g, want := range map[string]Verdict{"gfx1100": Exact, "gfx1030": None, "gfx1101": Override, "gfx90a": None} {
		if v := r.Verdicts[g]; v.Verdict != want {
			t.Errorf("%s: %+v, want %s", g, v, want)
		}
	}
	if v := r.Verdicts["gfx1030"]; !strings.Contains(v.Missing, "lib/libfoo.so#1") {
		t.Errorf("gfx1030 names %q", v.Missing)
	}
	// An empty archive on the search path is a fault of its own.
	copyTo(t, dir, kp+"kpak-foo_empty.kpack:.kpack/foo_gfx1100.kpack")
	files, _ = Walk([]string{filepath.Join(dir, "lib")}, nil)
	rs = byFile(Check(files, gpus("gfx1100")))
	if v := rs["libfoo.so"].Verdicts["gfx1100"]; v.Verdict != None || !strings.Contains(v.Missing, "empty") {
		t.Errorf("empty archive: %+v", v)
	}
}
