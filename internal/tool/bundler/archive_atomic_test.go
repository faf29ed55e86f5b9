package bundler_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/tool/bundler"
)

// -type=a: an error found after the members are read (a target without
// code objects, an output that cannot be written) leaves every existing
// output as it was (issue 14), and no temporary file behind: LLVM 22
// replaces the archives of the targets before it. The archives are made by
// package hda; where they go, and when, is the command line's.
func TestArchiveOutputsAtomic(t *testing.T) {
	lib, err := filepath.Abs("../../format/hda/testdata/libt.a")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		targets string
		second  func(dir string) string
		want    string
	}{
		{"missing target", "hip-amdgcn-amd-amdhsa--gfx906:xnack+,hip-amdgcn-amd-amdhsa--gfx1100",
			func(dir string) string { return filepath.Join(dir, "b.a") },
			"no compatible code object found for the target 'hip-amdgcn-amd-amdhsa--gfx1100' in heterogeneous archive library: " + lib},
		{"unwritable output", "hip-amdgcn-amd-amdhsa--gfx906:xnack+,openmp-amdgcn-amd-amdhsa--gfx908",
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
			var stderr bytes.Buffer
			code := bundler.Main([]string{"clang-offload-bundler", "-type=a", "-unbundle", "-hip-openmp-compatible",
				"-input=" + lib, "-targets=" + tc.targets, "-output=" + a, "-output=" + b}, nil, &stderr, &stderr)
			if code != 1 || !strings.HasSuffix(stderr.String(), "error: "+tc.want+"\n") {
				t.Errorf("exit %d, %q; want %q", code, stderr.String(), tc.want)
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
