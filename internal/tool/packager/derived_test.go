package packager

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/offloadbin"
)

// Output names derived from an image's triple and arch (no file=) must be a
// single file name in the current folder (issue 14, item 7). LLVM 22
// writes "in-/../..-gfx.0.o" outside the folder (once "in-" exists) and
// puts newlines and control bytes into file names; we refuse, naming the
// image and the field, before any output is written.
func TestDerivedNameRefused(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(filepath.Join(work, "in-"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	bin := func(triple, arch string) []byte {
		var buf bytes.Buffer
		for _, s := range [][2]string{{"t", "ok"}, {triple, arch}} {
			err := offloadbin.Write(&buf, offloadbin.Image{
				ImageKind: offloadbin.ImageObject, OffloadKind: offloadbin.OffloadHIP,
				Strings: []offloadbin.StringEntry{{Key: "arch", Value: s[1]}, {Key: "triple", Value: s[0]}},
				Data:    strings.NewReader("ABC"), Size: 3,
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name, triple, arch, msg string
	}{
		{"triple escapes", "/../..", "gfx", `its triple "/../.." contains '/'`},
		{"arch escapes", "t", "/../../../x", `its arch "/../../../x" contains '/'`},
		{"absolute", "/tmp", "gfx", `its triple "/tmp" contains '/'`},
		{"newline", "t", "g\nx", `its arch "g\nx" contains control characters`},
		{"control byte", "t\x01", "gfx", `its triple "t\x01" contains control characters`},
		{"DEL", "t", "gfx\x7f", `contains control characters`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile("in.bin", bin(tc.triple, tc.arch), 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.Remove("in.bin")
			var stdout, stderr bytes.Buffer
			// The first filter's image is harmless: it must not be
			// written either.
			code := Main([]string{"llvm-offload-binary", "in.bin", "--image=arch=ok", "--image=arch=" + tc.arch}, Env{Stdout: &stdout, Stderr: &stderr})
			if code != 1 || !strings.Contains(stderr.String(), tc.msg) || !strings.Contains(stderr.String(), "image 0 matching '--image=arch=") || !strings.Contains(stderr.String(), "in 'in.bin'") {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), tc.msg)
			}
			var left []string
			filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
				if err == nil && !fi.IsDir() && filepath.Base(p) != "in.bin" {
					left = append(left, p)
				}
				return nil
			})
			if len(left) != 0 {
				t.Errorf("outputs written: %q", left)
			}
		})
	}
	// A safe name is still derived as LLVM derives it.
	if err := os.WriteFile("in.bin", bin("t", "gfx906:xnack+"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if code := Main([]string{"llvm-offload-binary", "in.bin", "--image=triple=t"}, Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{"in-t-ok.0.o", "in-t-gfx906:xnack+.1.o"} {
		if b, err := os.ReadFile(name); err != nil || string(b) != "ABC" {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
}
