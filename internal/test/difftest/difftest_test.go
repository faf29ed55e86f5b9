package difftest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tools run in a scrubbed environment: a variable of the caller's that
// changes only one of them (GOFFLOAD_COMPRESSION_METHOD, OFFLOAD_BUNDLER_*)
// must not reach either; PATH and the case's own variables do.
func TestRunScrubsEnvironment(t *testing.T) {
	env, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env command")
	}
	t.Setenv("GOFFLOAD_COMPRESSION_METHOD", "zlib")
	t.Setenv("OFFLOAD_BUNDLER_COMPRESS", "1")
	out := Run(t, env, Case{Env: []string{"OFFLOAD_BUNDLER_VERBOSE=1"}})
	if out.Code != 0 {
		t.Fatalf("env: exit %d: %s", out.Code, out.Stderr)
	}
	vars := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out.Stdout), "\n") {
		k, _, _ := strings.Cut(l, "=")
		vars[k] = true
	}
	for _, k := range []string{"GOFFLOAD_COMPRESSION_METHOD", "OFFLOAD_BUNDLER_COMPRESS"} {
		if vars[k] {
			t.Errorf("%s reached the tool", k)
		}
	}
	for _, k := range []string{"PATH", "OFFLOAD_BUNDLER_VERBOSE"} {
		if !vars[k] {
			t.Errorf("%s did not reach the tool", k)
		}
	}
}

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", -1}, {"abc", "abc", -1}, {"abc", "abd", 2}, {"abc", "ab", 2}, {"", "x", 0}, {"xbc", "abc", 0},
	} {
		if got := FirstDifference([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("FirstDifference(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got, want := Describe([]byte("abcdef"), []byte("abcxef!")), "LLVM 6 bytes, ours 7 bytes, first difference at offset 3 (0x3)"; got != want {
		t.Errorf("Describe: %q, want %q", got, want)
	}
}

// recorder is a testing.TB that keeps the failures reported to it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// CompareCase reports every difference (exit status, stdout with both
// lengths and the first differing offset, a file's contents the same way),
// and none once a normalizer hides them.
func TestCompareCase(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	tool := func(name, script string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!"+sh+"\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ref := tool("ref", "printf 'abc\\n'; printf 'xy' > out\n")
	ours := tool("ours", "printf 'abd\\n'; printf 'xyz' > out; exit 1\n")
	c := Case{Files: map[string][]byte{"in": []byte("input")}, Args: []string{"-x"}}

	r := &recorder{TB: t}
	CompareCase(r, ref, ours, c)
	if len(r.errs) != 1 {
		t.Fatalf("%d failures reported, want 1: %q", len(r.errs), r.errs)
	}
	for _, want := range []string{
		`["-x"]`,
		"exit status: LLVM 0, ours 1\n",
		"stdout: LLVM 4 bytes, ours 4 bytes, first difference at offset 2 (0x2):\n",
		"file out: contents differ: LLVM 2 bytes, ours 3 bytes, first difference at offset 2 (0x2)\n",
	} {
		if !strings.Contains(r.errs[0], want) {
			t.Errorf("report lacks %q:\n%s", want, r.errs[0])
		}
	}
	if strings.Contains(r.errs[0], "file in") {
		t.Errorf("an input the tools did not change is reported:\n%s", r.errs[0])
	}

	r = &recorder{TB: t}
	same := func(o *Outcome) {
		o.Code, o.Stdout = 0, "same\n"
		delete(o.Files, "out")
	}
	CompareCase(r, ref, ours, c, same)
	if len(r.errs) != 0 {
		t.Errorf("differences left after normalizing: %q", r.errs)
	}
}

// Compare passes when both tools do the same, running each case as a
// subtest named after the case or its arguments.
func TestCompare(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	Compare(t, sh, sh, []Case{
		{Name: "named", Args: []string{"-c", "echo $0; cat in > out", "x"}, Files: map[string][]byte{"in": []byte("data")}},
		{Args: []string{"-c", "echo err >&2; exit 3"}, Stdin: []byte("ignored")},
	})
}

func TestHealthy(t *testing.T) {
	for _, c := range []struct {
		o    Outcome
		want bool
	}{
		{Outcome{Code: 0}, true},
		{Outcome{Code: 1, Stderr: "error: 'x': no such file\n"}, true},
		{Outcome{Code: -1}, false},
		{Outcome{Code: 1}, false},
		{Outcome{Code: 2, Stderr: "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\n"}, false},
		{Outcome{Code: 0, Stderr: "panic: recovered\n"}, false},
	} {
		if got := Healthy(c.o); got != c.want {
			t.Errorf("Healthy(%+v) = %v, want %v", c.o, got, c.want)
		}
	}
}
