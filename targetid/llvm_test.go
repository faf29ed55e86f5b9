package targetid

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/test/llvmref"
)

// Differential-test helpers: run the LLVM 22 bundler and read golden tables.

var update = flag.Bool("update", false, "rewrite testdata golden tables from the LLVM 22 tools")

// readTable reads a golden table: one record per line, fields separated by
// tabs, '#' lines and blank lines ignored. Every record must have n fields.
func readTable(t *testing.T, name string, n int) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		r := strings.Split(s, "\t")
		if len(r) != n {
			t.Fatalf("testdata/%s:%d: %d fields, want %d", name, line, len(r), n)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		t.Fatalf("testdata/%s: empty", name)
	}
	return recs
}

// writeTable writes a golden table when the test runs with -update.
func writeTable(t *testing.T, name, header string, recs [][]string) {
	t.Helper()
	if !*update || t.Failed() {
		return
	}
	var b strings.Builder
	for _, l := range strings.Split(header, "\n") {
		b.WriteString("# " + l + "\n")
	}
	for _, r := range recs {
		b.WriteString(strings.Join(r, "\t") + "\n")
	}
	if err := os.WriteFile(filepath.Join("testdata", name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// bundler is a handle on the LLVM 22 clang-offload-bundler for one test.
type bundler struct {
	t    *testing.T
	path string
	dir  string
	in   string // a small input file
}

func needBundler(t *testing.T) *bundler {
	t.Helper()
	p := llvmref.Need(t, "clang-offload-bundler")
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, []byte("payload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &bundler{t: t, path: p, dir: dir, in: in}
}

// run runs the bundler with args and returns its result; the error prefix
// "<argv0>: error: " is stripped from stderr.
func (b *bundler) run(args ...string) (stdout, stderr string, code int) {
	b.t.Helper()
	res := llvmref.Run(b.t, b.dir, nil, nil, append([]string{b.path}, args...)...)
	stderr = strings.TrimPrefix(string(res.Stderr), b.path+": error: ")
	return string(res.Stdout), strings.TrimSuffix(stderr, "\n"), res.Code
}

// standardize bundles the given command-line targets (text format, so the
// list comes back in command-line order) and returns the IDs written. The
// targets must be valid and must not conflict; kinds are replaced by
// "openmp" and one host target is added, so any number can be probed at
// once. ok is false when the bundler refused the set.
func (b *bundler) standardize(targets []string) (std []string, msg string, ok bool) {
	b.t.Helper()
	const host = "host-x86_64-unknown-linux-gnu"
	all := []string{host}
	args := []string{"-type=i", "-input=" + b.in}
	for _, tg := range targets {
		_, rest, _ := strings.Cut(tg, "-")
		all = append(all, "openmp-"+rest)
		args = append(args, "-input="+b.in)
	}
	out := filepath.Join(b.dir, "std.i")
	args = append(args, "-targets="+strings.Join(all, ","), "-output="+out)
	if _, e, code := b.run(args...); code != 0 {
		return nil, e, false
	}
	so, e, code := b.run("-type=i", "-list", "-input="+out)
	if code != 0 {
		b.t.Fatalf("listing: %s", e)
	}
	lines := strings.Split(strings.TrimSuffix(so, "\n"), "\n")
	if len(lines) != len(all) {
		b.t.Fatalf("listed %d IDs for %d targets", len(lines), len(all))
	}
	for i, l := range lines[1:] {
		kind, _, _ := strings.Cut(targets[i], "-")
		std = append(std, kind+strings.TrimPrefix(l, "openmp"))
	}
	return std, "", true
}

// standardizeAll is standardize for targets that may conflict with each
// other: a refused set is split in halves until the conflicting targets are
// probed apart.
func (b *bundler) standardizeAll(targets []string) []string {
	b.t.Helper()
	std, msg, ok := b.standardize(targets)
	if ok {
		return std
	}
	if len(targets) == 1 {
		b.t.Fatalf("bundler refused %q: %s", targets[0], msg)
	}
	h := len(targets) / 2
	return append(b.standardizeAll(targets[:h]), b.standardizeAll(targets[h:])...)
}
