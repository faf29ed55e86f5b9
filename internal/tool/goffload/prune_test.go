package goffloadcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func copyReal(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(realDir, name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// prune -o writes a smaller file listing only the kept targets, keeps the
// input's mode, and reports what it kept and dropped.
func TestPruneCommand(t *testing.T) {
	in := copyReal(t, "libmulti.so")
	orig, _ := os.ReadFile(in)
	out := filepath.Join(filepath.Dir(in), "pruned.so")
	stdout, stderr, code := run(t, "prune", "--keep", "gfx90a", "-o", out, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := map[string]int{}
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		for _, id := range f {
			if strings.Contains(id, "-") && (strings.HasPrefix(id, "hipv4") || strings.HasPrefix(id, "host-")) {
				rows[f[0]+" "+id]++
				if f[1] == "(host)" {
					rows["(host) "+id]++
				}
			}
		}
	}
	if rows["dropped hipv4-amdgcn-amd-amdhsa--gfx906"] != 3 || rows["kept hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"] != 3 ||
		rows["(host) host-x86_64-unknown-linux-gnu-"] != 3 {
		t.Errorf("report rows %v:\n%s", rows, stdout)
	}
	if !strings.Contains(stdout, "3 code object(s) kept, 6 dropped, 0 replaced (and 3 host entries kept)") || !strings.Contains(stdout, "(wrote)") {
		t.Errorf("report summary:\n%s", stdout)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= int64(len(orig)) || fi.Mode().Perm() != 0o755 {
		t.Errorf("output %d bytes (input %d), mode %v", fi.Size(), len(orig), fi.Mode())
	}
	if now, _ := os.ReadFile(in); !bytes.Equal(now, orig) {
		t.Error("input changed")
	}
	list, _, code := run(t, "list", out)
	if code != 0 || strings.Contains(list, "gfx906") || strings.Count(list, "gfx90a v6") != 3 {
		t.Errorf("list of the output: exit %d\n%s", code, list)
	}
}

// --dry-run writes nothing; --in-place replaces the input; refusals and
// usage errors leave no output and keep existing files.
func TestPruneModes(t *testing.T) {
	in := copyReal(t, "exe-nopie-bfd")
	orig, _ := os.ReadFile(in)
	dir := filepath.Dir(in)
	stdout, _, code := run(t, "prune", "--drop", "gfx906,gfx942", "--dry-run", in)
	if code != 0 || !strings.Contains(stdout, "(would write)") {
		t.Errorf("dry run: exit %d\n%s", code, stdout)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("dry run wrote files: %v", entries)
	}
	_, _, code = run(t, "prune", "--drop", "gfx906,gfx942", "--in-place", in)
	if now, _ := os.ReadFile(in); code != 0 || len(now) >= len(orig) {
		t.Errorf("in place: exit %d, %d bytes (was %d)", code, len(now), len(orig))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("in place left files: %v", entries)
	}

	pe := copyReal(t, "pe.dll")
	out := filepath.Join(filepath.Dir(pe), "out.dll")
	os.WriteFile(out, []byte("old"), 0o644)
	_, stderr, code := run(t, "prune", "--keep", "gfx90a", "-o", out, pe)
	if code != 1 || !strings.Contains(stderr, "COFF and PE files are not rewritten") || !strings.Contains(stderr, "nothing written") {
		t.Errorf("PE: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Error("existing output changed by a refused prune")
	}
	for _, args := range [][]string{
		{"prune", "-o", out, pe},
		{"prune", "--keep", "gfx90a", "--drop", "gfx906", "-o", out, pe},
		{"prune", "--keep", "gfx90a", pe},
		{"prune", "--keep", "gfx90a", "--dry-run", "-o", out, pe},
		{"prune", "--keep", "gfx90a", "-o", pe, pe},
		{"prune", "--keep", "gfx90a:xnack", "-o", out, pe},
	} {
		if _, stderr, code := run(t, args...); code != 2 && !(code == 1 && strings.Contains(stderr, "feature")) {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// replace puts a new code object in every bundle holding the target.
func TestReplaceCommand(t *testing.T) {
	in := copyReal(t, "libmulti.so")
	dir := filepath.Dir(in)
	co := filepath.Join(dir, "new.co")
	newCode := []byte("\x7fELF a new code object, shorter than the old")
	os.WriteFile(co, newCode, 0o644)
	out := filepath.Join(dir, "replaced.so")
	_, stderr, code := run(t, "replace", "--target", "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "--with", co, "-o", out, in)
	if code != 1 || !strings.Contains(stderr, "the replacement is not an AMDGPU code object (--force to replace anyway)") {
		t.Fatalf("a code object of no processor: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := run(t, "replace", "--force", "--target", "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "--with", co, "-o", out, in)
	if code != 0 || strings.Count(stdout, "\nreplaced ") != 3 || !strings.Contains(stdout, "the 3 code objects replaced differed from each other (3 distinct)") {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	l := objects(t, out)
	n := 0
	for _, o := range l.Objects {
		if strings.Contains(o.ID, "gfx942") {
			n++
			if got := bytesOf(t, o); !bytes.Equal(got, newCode) {
				t.Errorf("%s: %q", o.Where(), got)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d gfx942 objects after replacing", n)
	}
	_, stderr, code = run(t, "replace", "--target", "gfx1100", "--with", co, "-o", out+"2", in)
	if code != 1 || !strings.Contains(stderr, "no code object for gfx1100") {
		t.Errorf("missing target: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out + "2"); err == nil {
		t.Error("output written for a failed replace")
	}
}
