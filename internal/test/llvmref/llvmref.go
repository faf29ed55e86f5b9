// Package llvmref finds LLVM 22's reference tools for differential tests and
// skips the calling test, with a clear message, when they are absent.
package llvmref

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Dir is where Debian's llvm-22 packages install the tools; GOFFLOAD_LLVM_DIR
// overrides it.
func Dir() string {
	if d := os.Getenv("GOFFLOAD_LLVM_DIR"); d != "" {
		return d
	}
	return "/usr/lib/llvm-22/bin"
}

// Path returns the full path of an LLVM 22 tool, or "" when it is absent.
func Path(tool string) string {
	p := filepath.Join(Dir(), tool)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return p
	}
	return ""
}

// Need returns the path of tool or skips the test when it is missing.
func Need(t testing.TB, tool string) string {
	t.Helper()
	p := Path(tool)
	if p == "" {
		t.Skipf("LLVM 22 reference tool %q not found in %s (install clang-22 lld-22 llvm-22, or set GOFFLOAD_LLVM_DIR); skipping differential test", tool, Dir())
	}
	return p
}

// Result is what one run of a command produced.
type Result struct {
	Stdout, Stderr []byte
	Code           int
}

// Run runs argv[0] with the rest as arguments in dir, with extra environment
// variables, and returns its output and exit status (never failing the test
// for a non-zero exit).
func Run(t testing.TB, dir string, env []string, stdin []byte, argv ...string) Result {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running %v: %v", argv, err)
		}
		code = ee.ExitCode()
	}
	return Result{Stdout: out.Bytes(), Stderr: errb.Bytes(), Code: code}
}
