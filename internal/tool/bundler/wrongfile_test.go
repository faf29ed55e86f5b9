package bundler_test

import (
	"errors"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
)

// Errors LLVM's text would put on the wrong file name the file at fault.
// A text bundle entry without an END marker: LLVM 22 reads past its buffer,
// writes hundreds of kilobytes of memory to the output and dies with "IO
// failure on output stream: Bad address". We fail, naming the input, and
// leave no output.
func TestTextNoEndNamesInput(t *testing.T) {
	t.Parallel()
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

// Bundling into an ELF host on a full disk (here: past a file size limit).
// LLVM 22's llvm-objcopy is killed by SIGXFSZ and the bundler says
// "'llvm-objcopy' tool failed", leaving an empty output. We run no
// llvm-objcopy: the error names the output, with the system's reason, and
// no output is left.
func TestObjectOutputWriteFailureNamesOutput(t *testing.T) {
	t.Parallel()
	bin := ours.Path(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	objects := objectFiles(t)
	dir := t.TempDir()
	big := make([]byte, 300<<10)
	rand.New(rand.NewSource(1)).Read(big)
	os.WriteFile(filepath.Join(dir, "host.o"), objects["clang.o"], 0o644)
	os.WriteFile(filepath.Join(dir, "big"), big, 0o644)
	// ulimit -f counts 512-byte blocks (dash and bash alike): 100 KiB.
	cmd := exec.Command(sh, "-c", `ulimit -f 200 && exec "$0" "$@"`, bin, "-type=o",
		"-targets="+host+","+gfx906, "-input=host.o", "-input=big", "-output=fat.o")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, stderr %q", err, stderr.String())
	}
	want := "clang-offload-bundler: error: 'fat.o': File too large\n"
	if got := strings.ReplaceAll(stderr.String(), bin, "clang-offload-bundler"); got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != "host.o" && n != "big" {
			t.Errorf("left behind: %s", n)
		}
	}
}
