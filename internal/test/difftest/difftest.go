// Package difftest runs the same command line with an LLVM 22 reference
// tool and with goffload's replacement, each in its own copy of a scratch
// folder, and compares everything a user could observe: exit status,
// standard output, standard error and every file left in the folder.
package difftest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

// A Command is a goffload command built once per test process, into a
// folder of its own that Cleanup removes (call it from TestMain).
type Command struct {
	Pkg string // e.g. "./cmd/clang-offload-bundler", relative to the module root
	// Beside lists LLVM 22 tools to link next to the binary, for commands
	// that look for helpers beside themselves as LLVM's do.
	Beside []string

	once sync.Once
	dir  string
	path string
}

// Path builds the command on first use and returns the binary's path,
// failing the test when the build fails.
func (c *Command) Path(t testing.TB) string {
	t.Helper()
	c.once.Do(func() {
		dir, err := os.MkdirTemp("", "goffload-"+filepath.Base(c.Pkg))
		if err != nil {
			return
		}
		c.dir = dir
		c.path = Build(t, c.Pkg, dir)
		for _, tool := range c.Beside {
			if p := llvmref.Path(tool); p != "" {
				os.Symlink(p, filepath.Join(dir, tool))
			}
		}
	})
	if c.path == "" {
		t.Fatalf("building %s failed", c.Pkg)
	}
	return c.path
}

// Cleanup removes the folder the command was built into.
func (c *Command) Cleanup() {
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

// Build compiles a goffload command (e.g. "./cmd/clang-offload-bundler",
// relative to the module root) into dir and returns the binary's path.
func Build(t testing.TB, pkg, dir string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// ModuleRoot returns the folder of go.mod above the current directory.
func ModuleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		p := filepath.Dir(d)
		if p == d {
			return "", fmt.Errorf("go.mod not found")
		}
		d = p
	}
}

// Case is one command line to compare.
type Case struct {
	Name  string
	Files map[string][]byte // scratch folder contents before the run
	Args  []string          // without argv[0]
	// Env is added to the scrubbed environment both tools run in (see
	// BaseEnv): KEY=value, as in os/exec.
	Env   []string
	Stdin []byte
	// Argv0 is the program name both tools see (default: the reference
	// tool's base name, so that messages agree).
	Argv0 string
}

// Outcome is what one run left behind.
type Outcome struct {
	Code           int
	Stdout, Stderr string
	Files          map[string][]byte
}

// Run runs bin with c in a fresh folder and collects the outcome.
func Run(t testing.TB, bin string, c Case) Outcome {
	t.Helper()
	o, err := run(t.TempDir(), bin, c)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// run runs bin with c in dir, an empty folder, and collects the outcome; it
// fails only when the case's files cannot be written or bin cannot be run.
// It may run on any goroutine.
func run(dir, bin string, c Case) (Outcome, error) {
	for name, data := range c.Files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return Outcome{}, err
		}
	}
	argv0 := c.Argv0
	if argv0 == "" {
		argv0 = filepath.Base(bin)
	}
	cmd := exec.Command(bin, c.Args...)
	cmd.Args[0] = argv0
	cmd.Dir = dir
	cmd.Env = append(BaseEnv(), c.Env...)
	cmd.Stdin = bytes.NewReader(c.Stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			return Outcome{}, fmt.Errorf("%s: %v", bin, err)
		}
		code = ee.ExitCode()
	}
	return Outcome{Code: code, Stdout: out.String(), Stderr: errb.String(), Files: ReadTree(dir)}, nil
}

// keptEnv lists the variables of the test's environment the tools see:
// where to find programs (LLVM's bundler looks for llvm-objcopy on PATH),
// libraries, and where temporary files go. Everything else (the caller's
// GOFFLOAD_*, OFFLOAD_BUNDLER_*, SYM64_THRESHOLD, locale, ...) could change
// one tool's behaviour and not the other's; cases set what they need in
// Case.Env.
var keptEnv = []string{"PATH", "LD_LIBRARY_PATH", "TMPDIR"}

// BaseEnv returns the environment both tools run in before Case.Env.
func BaseEnv() []string {
	var env []string
	for _, k := range keptEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// ReadTree returns every regular file below dir, by path relative to dir.
func ReadTree(dir string) map[string][]byte {
	files := map[string][]byte{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			files[rel] = b
		}
		return nil
	})
	return files
}

// Diff describes how two outcomes differ, or returns "". When both runs
// failed, files that only LLVM left behind are not counted: LLVM's tools
// leave partial outputs on errors, goffload's leave none by design. Output
// and files that differ are reported with both lengths and the first
// differing offset.
func Diff(want, got Outcome) string {
	var b strings.Builder
	if want.Code != got.Code {
		fmt.Fprintf(&b, "exit status: LLVM %d, ours %d\n", want.Code, got.Code)
	}
	if want.Stdout != got.Stdout {
		fmt.Fprintf(&b, "stdout: %s:\nLLVM: %q\nours: %q\n", Describe([]byte(want.Stdout), []byte(got.Stdout)), want.Stdout, got.Stdout)
	}
	if want.Stderr != got.Stderr {
		fmt.Fprintf(&b, "stderr: %s:\nLLVM: %q\nours: %q\n", Describe([]byte(want.Stderr), []byte(got.Stderr)), want.Stderr, got.Stderr)
	}
	names := map[string]bool{}
	for n := range want.Files {
		names[n] = true
	}
	for n := range got.Files {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		w, inW := want.Files[n]
		g, inG := got.Files[n]
		switch {
		case !inW:
			fmt.Fprintf(&b, "file %s: only ours wrote it (%d bytes)\n", n, len(g))
		case !inG && want.Code != 0 && got.Code != 0:
			// LLVM leaves partial outputs behind on errors; we never do.
		case !inG:
			fmt.Fprintf(&b, "file %s: only LLVM wrote it (%d bytes)\n", n, len(w))
		case !bytes.Equal(w, g):
			fmt.Fprintf(&b, "file %s: contents differ: %s\n", n, Describe(w, g))
		}
	}
	return b.String()
}

// FirstDifference returns the offset of the first byte at which a and b
// differ: the shorter one's length when it is a prefix of the other, -1 when
// they are equal.
func FirstDifference(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) == len(b) {
		return -1
	}
	return n
}

// Describe says where LLVM's bytes (a) and ours (b) part: both lengths and
// the first differing offset, or "identical".
func Describe(a, b []byte) string {
	off := FirstDifference(a, b)
	if off < 0 {
		return fmt.Sprintf("identical (%d bytes)", len(a))
	}
	return fmt.Sprintf("LLVM %d bytes, ours %d bytes, first difference at offset %d (%#x)", len(a), len(b), off, off)
}

// A Normalizer rewrites an outcome before the comparison, to hide what
// legitimately differs between two runs: timings, random temporary names,
// the scratch folder's path. It sees each tool's outcome in turn.
type Normalizer func(*Outcome)

// Compare runs each case as a parallel subtest of t (named after Case.Name,
// or the arguments when it has none): with the reference tool ref and with
// ours, at the same time and each in a scratch folder of its own. Both
// outcomes go through the normalizers in order, and the subtest fails with
// Diff's report when they differ. A case without Argv0 runs under the
// reference tool's base name.
//
// The subtests run after t's function returns: the cases, their files and
// anything the normalizers use must not change after Compare returns, and
// must not be released by a deferred call in t's function (use t.Cleanup).
func Compare(t *testing.T, ref, ours string, cases []Case, norm ...Normalizer) {
	t.Helper()
	for _, c := range cases {
		name := c.Name
		if name == "" {
			name = strings.Join(c.Args, " ")
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			CompareCase(t, ref, ours, c, norm...)
		})
	}
}

// CompareCase is one case of Compare, run in t itself: both tools at the
// same time, normalized, compared.
func CompareCase(t testing.TB, ref, ours string, c Case, norm ...Normalizer) {
	t.Helper()
	if c.Argv0 == "" {
		c.Argv0 = filepath.Base(ref)
	}
	refDir, oursDir := t.TempDir(), t.TempDir()
	var want, got Outcome
	var wantErr, gotErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		want, wantErr = run(refDir, ref, c)
	}()
	got, gotErr = run(oursDir, ours, c)
	wg.Wait()
	if wantErr != nil || gotErr != nil {
		t.Fatal(errors.Join(wantErr, gotErr))
	}
	if want.Code < 0 {
		// The reference was killed by a signal: LLVM 22 crashed, so there
		// is nothing to match. Some of its crashes depend on the machine
		// (reading an unset value, as for malformed target IDs, crashes on
		// one build and environment and not on another). Ours must succeed
		// or fail with a message of its own, never crash.
		t.Logf("%q: the reference crashed; ours exited %d", c.Args, got.Code)
		if !Healthy(got) {
			t.Errorf("%q: ours crashed where the reference did (exit %d):\n%.2000s", c.Args, got.Code, got.Stderr)
		}
		return
	}
	for _, n := range norm {
		n(&want)
		n(&got)
	}
	if d := Diff(want, got); d != "" {
		t.Errorf("%q\n%s", c.Args, d)
	}
}

// Healthy tells whether o is an outcome of a tool that did not crash: it
// exited on its own, and a failure came with a message that is not a Go
// panic's.
func Healthy(o Outcome) bool {
	crashed := o.Code < 0 || strings.Contains(o.Stderr, "panic: ") || strings.Contains(o.Stderr, "goroutine ")
	silentFailure := o.Code > 0 && strings.TrimSpace(o.Stderr) == ""
	return !crashed && !silentFailure
}
