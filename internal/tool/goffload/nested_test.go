package goffloadcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A nested OffloadBinary (testdata/llvmtests/nested.bin, the shape of
// LLVM's nested-offload-binary.test) lists both levels, the outer image as
// the container of the inner ones, and extract takes either: the outer
// whole (as llvm-offload-binary does) by its triple or index, the inner
// ones by theirs; --all takes the code objects, not their containers.
func TestNestedOffloadBinary(t *testing.T) {
	input := filepath.Join("../../../testdata/llvmtests", "nested.bin")
	stdout, stderr, code := run(t, "list", input)
	if code != 0 || !strings.Contains(stdout, "openmp-a-b-c--none") || !strings.Contains(stdout, "OffloadBinary of 2 image(s)") ||
		!strings.Contains(stdout, "4 code object(s) for 2 target(s)") {
		t.Errorf("list: exit %d\n%s%s", code, stdout, stderr)
	}
	js, _, code := run(t, "list", "--json", input)
	doc := decode(t, []byte(js))
	if errs := validate(loadSchema(t), doc); code != 0 || len(errs) > 0 {
		t.Errorf("list --json: exit %d, schema violations:\n%s", code, strings.Join(errs, "\n"))
	}
	objs := doc.(map[string]any)["files"].([]any)[0].(map[string]any)["objects"].([]any)
	if len(objs) != 6 || objs[0].(map[string]any)["nested"] == nil || objs[1].(map[string]any)["outer"] == nil ||
		objs[4].(map[string]any)["outer"].(json.Number).String() != "3" {
		t.Errorf("list --json: nested/outer not set:\n%s", js)
	}
	out, stderr, code := run(t, "extract", "--triple", "a-b-c", "-o", "-", input)
	if code != 0 || len(out) != 272 || !strings.HasPrefix(out, "\x10\xff\x10\xad") {
		t.Errorf("extract --triple a-b-c: exit %d, %d bytes\n%s", code, len(out), stderr)
	}
	out2, _, code := run(t, "extract", "--index", "0", "-o", "-", input)
	if code != 0 || out2 != out {
		t.Errorf("extract --index 0: exit %d, %d bytes", code, len(out2))
	}
	dir := t.TempDir()
	stdout, stderr, code = run(t, "extract", "--all", "-o", dir, input)
	files, _ := os.ReadDir(dir)
	if code != 0 || len(files) != 4 {
		t.Errorf("extract --all: exit %d, %d files\n%s%s", code, len(files), stdout, stderr)
	}
	for _, f := range files {
		if strings.Contains(f.Name(), "none") {
			t.Errorf("extract --all took the outer image %s", f.Name())
		}
	}
}

// TestExtractTripleTrailingDash: a bundle ID stores the triple with an
// empty fourth component ("amdgcn-amd-amdhsa-"), an OffloadBinary without
// it; --triple takes either spelling for both.
func TestExtractTripleTrailingDash(t *testing.T) {
	for _, tc := range []struct{ file, triple string }{
		{"hip-nonrdc.o", "amdgcn-amd-amdhsa"},
		{"hip-nonrdc.o", "amdgcn-amd-amdhsa-"},
		{"newdriver.o", "amdgcn-amd-amdhsa-"},
		{"newdriver.o", "amdgcn-amd-amdhsa"},
	} {
		dir := t.TempDir()
		_, stderr, code := run(t, "extract", "--triple", tc.triple, "-o", dir, filepath.Join(realDir, tc.file))
		files, _ := os.ReadDir(dir)
		if code != 0 || len(files) == 0 {
			t.Errorf("%s --triple %s: exit %d, %d files\n%s", tc.file, tc.triple, code, len(files), stderr)
		}
	}
}
