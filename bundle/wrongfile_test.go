package bundle_test

import (
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/difftest"
)

// Errors LLVM's text would put on the wrong file name the file at fault.
// A text bundle entry without an END marker: LLVM 22 reads past its buffer,
// writes hundreds of kilobytes of memory to the output and dies with "IO
// failure on output stream: Bad address". We fail, naming the input, and
// leave no output.
func TestTextNoEndNamesInput(t *testing.T) {
	bin := ours.Path(t)
	files := map[string][]byte{"in.i": []byte("\n// __CLANG_OFFLOAD_BUNDLE____START__ " + gfx906 + "\nint x;\n")}
	got := difftest.Run(t, bin, difftest.Case{Files: files, Argv0: "clang-offload-bundler",
		Args: []string{"-type=i", "-unbundle", "-targets=" + gfx906, "-input=in.i", "-output=out.i"}})
	want := "clang-offload-bundler: error: 'in.i': bundle entry starting at offset 68 has no END marker\n"
	if got.Code != 1 || string(got.Stderr) != want {
		t.Errorf("exit %d, stderr %q; want exit 1, %q", got.Code, got.Stderr, want)
	}
	if _, ok := got.Files["out.i"]; ok {
		t.Errorf("output written")
	}
	if strings.Contains(string(got.Stderr), "out.i") {
		t.Errorf("the message names the output")
	}
}
