package hda

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// An error found after the members are read (a target without code
// objects, an output that cannot be written) leaves every existing output
// as it was (issue 14): LLVM 22 replaces the archives of the targets before
// it first.
func TestNoOutputReplacedOnError(t *testing.T) {
	in, err := os.ReadFile("testdata/libt.a")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		targets []string
		second  func(dir string) string
		want    string
	}{
		{"missing target", []string{"hip-amdgcn-amd-amdhsa--gfx906:xnack+", "hip-amdgcn-amd-amdhsa--gfx1100"},
			func(dir string) string { return filepath.Join(dir, "b.a") },
			"no compatible code object found for the target 'hip-amdgcn-amd-amdhsa--gfx1100' in heterogeneous archive library: libt.a"},
		{"unwritable output", []string{"hip-amdgcn-amd-amdhsa--gfx906:xnack+", "openmp-amdgcn-amd-amdhsa--gfx908"},
			func(dir string) string {
				p := filepath.Join(dir, "sub")
				os.Mkdir(p, 0o755)
				return p
			},
			"Is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a := filepath.Join(dir, "a.a")
			old := []byte("old content")
			os.WriteFile(a, old, 0o644)
			b := tc.second(dir)
			if fi, _ := os.Stat(b); fi == nil {
				os.WriteFile(b, old, 0o644)
			}
			err := Unbundle(Options{
				Archive: bytes.NewReader(in), ArchiveSize: int64(len(in)), ArchiveName: "libt.a",
				Targets: tc.targets, Outputs: []string{a, b}, HipOpenMP: true,
				Decompress: decompressInMemory(0),
			})
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			for _, p := range []string{a, b} {
				if fi, _ := os.Stat(p); fi != nil && fi.IsDir() {
					continue
				}
				if got, _ := os.ReadFile(p); !bytes.Equal(got, old) {
					t.Errorf("%s was replaced (%d bytes)", p, len(got))
				}
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if e.Name() != "a.a" && e.Name() != "b.a" && e.Name() != "sub" {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}
