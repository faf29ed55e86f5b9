package goffloadcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// modesLib copies testdata/targets/libmodes.so (k1.hip for gfx90a:xnack+,
// gfx90a:xnack- and gfx1030: Debian 12's rocRAND's shape) into a folder of
// its own.
func modesLib(t *testing.T) (lib, dir string) {
	t.Helper()
	data, err := os.ReadFile("../../../testdata/targets/libmodes.so")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	lib = filepath.Join(dir, "libmodes.so")
	if err := os.WriteFile(lib, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return lib, dir
}

func runIn(t *testing.T, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = Main(append([]string{"goffload"}, args...), bytes.NewReader(stdin), &o, &e)
	return o.String(), e.String(), code
}

// Every misspelling a user makes is a usage error that names the right
// spelling, and writes nothing: no name turns into "keep nothing".
func TestMisspelledTargets(t *testing.T) {
	lib, dir := modesLib(t)
	orig, _ := os.ReadFile(lib)
	out := filepath.Join(dir, "out.so")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"prune", "--keep", "GFX90A", "-o", out, lib}, "did you mean gfx90a?"},
		{[]string{"prune", "--keep", "GFX90A", "--in-place", lib}, "did you mean gfx90a?"},
		{[]string{"prune", "--keep", "gfx90a,gfx9O8", "-o", out, lib}, "did you mean gfx908?"},
		{[]string{"prune", "--keep", "gfx9999", "-o", out, lib}, `no GPU is called "gfx9999"`},
		{[]string{"prune", "--keep", "sm_80", "-o", out, lib}, "sm_80 is not an AMD GPU; goffload chooses among AMD GPU code objects; the input holds code for gfx1030, gfx90a"},
		{[]string{"prune", "--drop", "gfx90a:xnack", "-o", out, lib}, `feature "xnack" must end in + or - (gfx90a:xnack+ or gfx90a:xnack-)`},
		{[]string{"prune", "--keep", "gfx1030:xnack+", "-o", out, lib}, "gfx1030 has no xnack mode"},
		{[]string{"list", "--target", "GFX90A", lib}, "did you mean gfx90a?"},
		{[]string{"extract", "--target", "gfx90", "-o", dir, lib}, "did you mean gfx900?"},
		{[]string{"replace", "--target", "Gfx1030", "--with", lib, "-o", out, lib}, "did you mean gfx1030?"},
	} {
		_, stderr, code := run(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", c.args, out)
		}
	}
	if now, _ := os.ReadFile(lib); !bytes.Equal(now, orig) {
		t.Error("the input changed")
	}
}

// The spellings users copy from other tools all work.
func TestTargetSpellings(t *testing.T) {
	lib, dir := modesLib(t)
	for _, keep := range []string{"gfx90a:xnack-", "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"} {
		out := filepath.Join(dir, "out.so")
		stdout, stderr, code := run(t, "prune", "--keep", keep, "-o", out, lib)
		var kept []string
		for _, l := range strings.Split(stdout, "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "kept" && f[1] != "(host)" {
				kept = append(kept, f[1])
			}
		}
		if code != 0 || len(kept) != 1 || kept[0] != "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" {
			t.Errorf("--keep %s: exit %d: %s%s", keep, code, stdout, stderr)
		}
		os.Remove(out)
	}
}

// Where a GPU name leaves xnack open and the file holds only xnack+ and
// xnack- builds, list shows both (the GPU may run in either mode), and
// extract and replace stop and ask which, as LLVM's bundler and comgr find
// none for "gfx90a".
func TestOpenModes(t *testing.T) {
	lib, dir := modesLib(t)
	stdout, _, code := run(t, "list", "--target", "gfx90a", lib)
	if code != 0 || !strings.Contains(stdout, "gfx90a:xnack+") || !strings.Contains(stdout, "gfx90a:xnack-") || strings.Contains(stdout, "gfx1030  ") {
		t.Errorf("list --target gfx90a: exit %d\n%s", code, stdout)
	}
	ex := filepath.Join(dir, "ex")
	_, stderr, code := run(t, "extract", "--target", "gfx90a", "-o", ex, lib)
	want := "gfx90a leaves xnack open, and the code objects for it were built for gfx90a:xnack+, gfx90a:xnack- only: name the mode, e.g. gfx90a:xnack+"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("extract --target gfx90a: exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(ex); len(entries) != 0 {
		t.Errorf("extract wrote %d files", len(entries))
	}
	stdout, stderr, code = run(t, "extract", "--target", "gfx90a:sramecc+:xnack-", "-o", ex, lib)
	if code != 0 || !strings.Contains(stdout, "gfx90a_xnack-.co") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("extract --target gfx90a:sramecc+:xnack-: exit %d: %s%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "out.so")
	_, stderr, code = run(t, "replace", "--target", "gfx90a", "--with", lib, "-o", out, lib)
	if code != 1 || !strings.Contains(stderr, "gfx90a leaves xnack open") {
		t.Errorf("replace --target gfx90a: exit %d: %s", code, stderr)
	}
}

// replace checks what it puts in: text, another processor's code, the
// other mode's code are refused (naming both), unless --force.
func TestReplaceChecks(t *testing.T) {
	lib, dir := modesLib(t)
	ex := filepath.Join(dir, "ex")
	for _, tg := range []string{"gfx1030", "gfx90a:xnack+", "gfx90a:xnack-"} {
		if _, stderr, code := run(t, "extract", "--target", tg, "-o", ex, lib); code != 0 {
			t.Fatalf("extract %s: %s", tg, stderr)
		}
	}
	co := func(tid string) string {
		m, _ := filepath.Glob(filepath.Join(ex, "*"+tid+".co"))
		if len(m) != 1 {
			t.Fatalf("%s: %v", tid, m)
		}
		return m[0]
	}
	junk := filepath.Join(dir, "junk.txt")
	os.WriteFile(junk, []byte("hello world"), 0o644)
	out := filepath.Join(dir, "out.so")
	for _, c := range []struct {
		target, with, want string
	}{
		{"gfx1030", junk, "the replacement is unknown, not a code object"},
		{"gfx90a:xnack-", co("gfx1030"), "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack- is for gfx90a:xnack-, the replacement was built for gfx1030"},
		{"gfx90a:xnack-", co("gfx90a_xnack+"), "the replacement was built for gfx90a:xnack+ (built for xnack+, the target is xnack-)"},
	} {
		_, stderr, code := run(t, "replace", "--target", c.target, "--with", c.with, "-o", out, lib)
		if code != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--force") {
			t.Errorf("replace %s with %s: exit %d: %s", c.target, filepath.Base(c.with), code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("replace %s with %s: wrote the output", c.target, filepath.Base(c.with))
		}
	}
	if _, stderr, code := run(t, "replace", "--force", "--target", "gfx1030", "--with", junk, "-o", out, lib); code != 0 {
		t.Errorf("--force: exit %d: %s", code, stderr)
	}
	os.Remove(out)
	// The right code goes in, and comes out again byte for byte.
	if _, stderr, code := run(t, "replace", "--target", "gfx90a:xnack-", "--with", co("gfx90a_xnack-"), "-o", out, lib); code != 0 {
		t.Errorf("replace with the same code: exit %d: %s", code, stderr)
	}
}

// No silent loss: a --keep that keeps nothing writes nothing (exit 1)
// unless --allow-empty; a term matching nothing is noted; a prune that
// drops nothing writes the input byte for byte.
func TestPruneKeepsSomething(t *testing.T) {
	lib, dir := modesLib(t)
	orig, _ := os.ReadFile(lib)
	out := filepath.Join(dir, "out.so")
	_, stderr, code := run(t, "prune", "--keep", "gfx1100", "-o", out, lib)
	if code != 1 || !strings.Contains(stderr, "no code object of the input fits what is kept (gfx1100); it holds code for gfx1030, gfx90a:xnack+, gfx90a:xnack-") {
		t.Errorf("keep gfx1100: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("keep gfx1100 wrote the output")
	}
	if _, stderr, code := run(t, "prune", "--keep", "gfx1100", "--in-place", lib); code != 1 {
		t.Errorf("keep gfx1100 in place: exit %d: %s", code, stderr)
	}
	if now, _ := os.ReadFile(lib); !bytes.Equal(now, orig) {
		t.Error("keep gfx1100 --in-place changed the input")
	}
	if _, stderr, code := run(t, "prune", "--keep", "gfx1100", "--allow-empty", "-o", out, lib); code != 0 {
		t.Errorf("--allow-empty: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := run(t, "prune", "--keep", "gfx1030,gfx1100", "-o", out, lib)
	if code != 0 || !strings.Contains(stdout, "note: --keep gfx1100 matched no code object") {
		t.Errorf("keep gfx1030,gfx1100: exit %d: %s%s", code, stdout, stderr)
	}
	stdout, stderr, code = run(t, "prune", "--drop", "gfx942", "-o", out, lib)
	got, _ := os.ReadFile(out)
	if code != 0 || !bytes.Equal(got, orig) || !strings.Contains(stdout, "note: --drop gfx942 matched no code object") {
		t.Errorf("drop gfx942: exit %d, same bytes %v: %s%s", code, bytes.Equal(got, orig), stdout, stderr)
	}
}

// Inputs: - and pipes are read, folders and devices are usage errors, and
// the same bad path gives the same status in every command.
func TestInputs(t *testing.T) {
	lib, dir := modesLib(t)
	data, _ := os.ReadFile(lib)
	stdout, stderr, code := runIn(t, data, "list", "-")
	if code != 0 || !strings.Contains(stdout, "-: ELF shared object") || !strings.Contains(stdout, "gfx90a:xnack-") {
		t.Errorf("list -: exit %d: %s%s", code, stdout, stderr)
	}
	stdout, stderr, code = runIn(t, data, "extract", "--target", "gfx1030", "-o", "-", "-")
	if code != 0 || !strings.HasPrefix(stdout, "\x7fELF") {
		t.Errorf("extract from -: exit %d: %s", code, stderr)
	}
	missing := filepath.Join(dir, "missing.so")
	for _, args := range [][]string{
		{"list", "/dev/zero"}, {"list", missing},
		{"extract", "--all", "-o", filepath.Join(dir, "x"), dir},
		{"extract", "--all", "-o", filepath.Join(dir, "x"), "/dev/urandom"},
		{"extract", "--all", "-o", filepath.Join(dir, "x"), missing},
		{"prune", "--keep", "gfx90a", "-o", filepath.Join(dir, "o"), dir},
		{"prune", "--keep", "gfx90a", "-o", filepath.Join(dir, "o"), "/dev/zero"},
		{"prune", "--keep", "gfx90a", "-o", filepath.Join(dir, "o"), missing},
		{"prune", "--keep", "gfx90a", "-o", dir, lib},
		{"extract", "--all", "-o", lib, lib},
	} {
		_, stderr, code := run(t, args...)
		if code != 2 || strings.Contains(stderr, ".tmp") || strings.Contains(stderr, "d---------") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if _, stderr, _ := run(t, "list", "/dev/zero"); !strings.Contains(stderr, "character device") {
		t.Errorf("list /dev/zero: %s", stderr)
	}
	if _, stderr, _ := run(t, "extract", "--all", "-o", lib, lib); !strings.Contains(stderr, "-o -") {
		t.Errorf("extract -o FILE does not suggest -o -: %s", stderr)
	}
}

// Messages name the user's paths, not temporary files.
func TestExtractOntoFolder(t *testing.T) {
	lib, dir := modesLib(t)
	ex := filepath.Join(dir, "ex")
	os.MkdirAll(filepath.Join(ex, "libmodes.so-1-hipv4-amdgcn-amd-amdhsa--gfx1030.co"), 0o755)
	_, stderr, code := run(t, "extract", "--target", "gfx1030", "-o", ex, lib)
	if code != 1 || strings.Contains(stderr, ".tmp") || !strings.Contains(stderr, "gfx1030.co is a folder") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// replace --index and --bundle choose which translation units' code is
// replaced, plain and compressed.
func TestReplaceIndexBundle(t *testing.T) {
	for _, file := range []string{"libmulti.so", "libmulti-ccob.so"} {
		in := copyReal(t, file)
		dir := filepath.Dir(in)
		ex := filepath.Join(dir, "ex")
		// The smallest gfx942 code object goes in place of another
		// bundle's (a linked file's .hip_fatbin cannot grow).
		before := objects(t, in)
		var gfx942 []int
		small := -1
		for _, o := range before.Devices() {
			if strings.Contains(o.ID, "gfx942") {
				gfx942 = append(gfx942, o.Index)
				if small < 0 || o.Size < before.Objects[gfx942[small]].Size {
					small = len(gfx942) - 1
				}
			}
		}
		if _, stderr, code := run(t, "extract", "--index", strconv.Itoa(gfx942[small]), "-o", ex, in); code != 0 {
			t.Fatalf("%s: %s", file, stderr)
		}
		m, _ := filepath.Glob(filepath.Join(ex, "*"))
		with, _ := os.ReadFile(m[0])
		others := []int{(small + 1) % 3, (small + 2) % 3}
		for _, c := range []struct {
			args    []string
			changed int // index into gfx942
		}{
			{[]string{"--index", strconv.Itoa(gfx942[others[0]])}, others[0]},
			{[]string{"--bundle", strconv.Itoa(others[1]), "--target", "gfx942:sramecc+:xnack-"}, others[1]},
		} {
			out := filepath.Join(dir, "out")
			args := append(append([]string{"replace"}, c.args...), "--with", m[0], "-o", out, in)
			stdout, stderr, code := run(t, args...)
			if code != 0 || strings.Count(stdout, "\nreplaced ") != 1 {
				t.Fatalf("%s %v: exit %d: %s%s", file, c.args, code, stdout, stderr)
			}
			after := objects(t, out)
			for k, i := range gfx942 {
				got := bytesOf(t, after.Objects[i])
				want := bytesOf(t, before.Objects[i])
				if k == c.changed {
					want = with
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s %v: object #%d: %d bytes, want %d", file, c.args, i, len(got), len(want))
				}
			}
			os.Remove(out)
		}
		if _, stderr, code := run(t, "replace", "--index", "0", "--with", m[0], "-o", filepath.Join(dir, "o"), in); code != 2 {
			t.Errorf("%s: --index of the host entry: exit %d: %s", file, code, stderr)
		}
		if _, stderr, code := run(t, "replace", "--bundle", "9", "--target", "gfx942", "--with", m[0], "-o", filepath.Join(dir, "o"), in); code != 2 {
			t.Errorf("%s: --bundle 9: exit %d: %s", file, code, stderr)
		}
	}
}
