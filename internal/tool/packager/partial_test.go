package packager

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/offloadbin"
)

// Extracting writes every output before it puts any in place: a later
// failure (an output that cannot be written, an --archive filter without
// file=) leaves existing outputs as they were (issue 14, item 6). LLVM 22
// replaces the outputs before the failure.
func TestExtractNoPartialOutputs(t *testing.T) {
	t.Chdir(t.TempDir())
	var buf bytes.Buffer
	for _, arch := range []string{"gfx906", "gfx90a"} {
		err := offloadbin.Write(&buf, offloadbin.Image{ImageKind: offloadbin.ImageObject, OffloadKind: offloadbin.OffloadHIP,
			Strings: []offloadbin.StringEntry{{Key: "arch", Value: arch}, {Key: "triple", Value: "amdgcn-amd-amdhsa"}},
			Data:    strings.NewReader("CODE-" + arch), Size: int64(len("CODE-" + arch))})
		if err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile("in.bin", buf.Bytes(), 0o644)
	os.Mkdir("dir", 0o755)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"later output is a folder", []string{"in.bin", "--image=file=o1,arch=gfx906", "--image=file=dir,arch=gfx90a"}},
		{"later archive filter without file=", []string{"in.bin", "--archive", "--image=file=o1,arch=gfx906", "--image=arch=gfx90a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile("o1", []byte("OLD"), 0o644)
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"llvm-offload-binary"}, c.args...), Env{Stdout: &stdout, Stderr: &stderr})
			if code != 1 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if b, _ := os.ReadFile("o1"); string(b) != "OLD" {
				t.Errorf("o1 became %q (stderr %q)", b, stderr.String())
			}
			if entries, _ := os.ReadDir("."); len(entries) != 3 {
				t.Errorf("left %d entries", len(entries))
			}
		})
	}
	// And when all succeed, all are in place.
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"llvm-offload-binary", "in.bin", "--image=file=o1,arch=gfx906", "--image=file=o2,arch=gfx90a"}, Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b1, _ := os.ReadFile("o1")
	b2, _ := os.ReadFile("o2")
	if string(b1) != "CODE-gfx906" || string(b2) != "CODE-gfx90a" {
		t.Errorf("outputs %q %q", b1, b2)
	}
}
