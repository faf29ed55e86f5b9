package goffloadcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The same bytes and the same GPU name get the same answer from every
// command: cases where they did not.

// check judged each OffloadBinary of a file as a bundle: one holding
// another GPU's image made the file "none" for a GPU list, extract and
// prune find code for.
func TestCheckOffloadBinariesAgree(t *testing.T) {
	for _, c := range []struct{ file, gpu, want string }{
		{"packaged.bin", "gfx90a", "compatible"},
		{"packaged.bin", "gfx942:sramecc+:xnack-", "exact"},
		{"packaged.bin", "gfx1030", "none"},
		{"newdriver.o", "gfx906:xnack-", "compatible"},
	} {
		f := filepath.Join(realDir, c.file)
		out, _, code := run(t, "check", "--gpu", c.gpu, f)
		if !strings.HasPrefix(strings.Split(out, "\n")[1], c.want+" ") || (code == 0) != (c.want != "none") {
			t.Errorf("check --gpu %s %s: exit %d\n%s", c.gpu, c.file, code, out)
		}
		_, _, lcode := run(t, "list", "--target", c.gpu, f)
		if (lcode == 0) != (c.want != "none") {
			t.Errorf("list --target %s %s: exit %d, check says %s", c.gpu, c.file, lcode, c.want)
		}
	}
}

// check dropped the offload kind and triple of a GPU given as a bundle ID:
// an OpenMP GPU was "compatible" with HIP code that list, extract and prune
// say it cannot take.
func TestCheckKeepsTheKind(t *testing.T) {
	f := "../../../testdata/targets/modes.hipfb"
	for _, c := range []struct {
		gpu  string
		code int
	}{
		{"openmp-amdgcn-amd-amdhsa--gfx90a:xnack+", 1},
		{"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", 0},
	} {
		_, _, code := run(t, "check", "--gpu", c.gpu, f)
		_, _, lcode := run(t, "list", "--target", c.gpu, f)
		if code != c.code || lcode != c.code {
			t.Errorf("%s: check exit %d, list --target exit %d, want %d", c.gpu, code, lcode, c.code)
		}
	}
}

// Damage found is exit 1 for extract too (it wrote what it could read and
// exited 0), and check's verdict for each GPU of a damaged file is
// "unreadable", as its summary said (the row said "compatible").
func TestDamageAgrees(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realDir, "libmulti.so"))
	if err != nil {
		t.Fatal(err)
	}
	// The second bundle's first entry ID length, far past the data.
	i := strings.Index(string(data), "__CLANG_OFFLOAD_BUNDLE__")
	i = strings.Index(string(data[i+1:]), "__CLANG_OFFLOAD_BUNDLE__") + i + 1
	if i <= 0 {
		t.Fatal("no second bundle")
	}
	copy(data[i+24+8+8+8:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	dir := t.TempDir()
	f := filepath.Join(dir, "dmg.so")
	os.WriteFile(f, data, 0o644)
	_, _, lcode := run(t, "list", f)
	_, _, ecode := run(t, "extract", "--all", "-o", filepath.Join(dir, "x"), f)
	out, _, ccode := run(t, "check", "--gpu", "gfx90a:xnack+", "--json", f)
	if lcode != 1 || ecode != 1 || ccode != 1 {
		t.Errorf("exit: list %d, extract %d, check %d; want 1 each", lcode, ecode, ccode)
	}
	if !strings.Contains(out, `"unreadable"`) || strings.Contains(out, `"compatible"`) {
		t.Errorf("check --json:\n%s", out)
	}
}

// A kpack'd binary loads one code object per translation unit: extract
// --target took one per KPAK archive.
func TestExtractKpackPerUnit(t *testing.T) {
	dir := t.TempDir()
	out, _, code := run(t, "extract", "--target", "gfx1100", "-o", dir, "../../../inspect/testdata/kpak-foo_gfx1100.kpack")
	if code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
