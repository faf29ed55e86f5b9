package bundler

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/binfmt"
	"github.com/goffload/goffload/internal/test/llvmref"
	"github.com/goffload/goffload/targetid"
)

// readInvalidTargets reads testdata/invalid-targets.txt: command-line
// targets and the error text LLVM 22 prints for each, '=' before each
// field ("" when LLVM accepts the target).
func readInvalidTargets(t *testing.T) [][2]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "invalid-targets.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs [][2]string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := sc.Text()
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		r := strings.Split(s, "\t")
		if len(r) != 2 {
			t.Fatalf("testdata/invalid-targets.txt:%d: %d fields, want 2", line, len(r))
		}
		recs = append(recs, [2]string{strings.TrimPrefix(r[0], "="), strings.TrimPrefix(r[1], "=")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		t.Fatal("testdata/invalid-targets.txt: empty")
	}
	return recs
}

func TestInvalidTargetMessage(t *testing.T) {
	id, _ := targetid.Parse("foo-bar-baz-qux-quux")
	want := "invalid target 'foo-bar-baz-qux-quux', unknown offloading kind 'foo', unknown target triple 'bar-baz-qux-quux'"
	if got := invalidTargetMessage("foo-bar-baz-qux-quux", id); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, r := range readInvalidTargets(t) {
		raw, want := r[0], r[1]
		id, ok := targetid.Parse(raw)
		if !ok {
			t.Fatalf("Parse(%q) failed", raw)
		}
		if got := invalidTargetMessage(raw, id); got != want {
			t.Errorf("invalidTargetMessage(%q) = %q, LLVM says %q", raw, got, want)
		}
	}
}

// llvmBundler runs LLVM 22's clang-offload-bundler in a scratch folder and
// returns its stderr without the "<argv0>: error: " prefix and its exit
// status.
func llvmBundler(t *testing.T) (dir string, run func(args ...string) (string, int)) {
	t.Helper()
	p := llvmref.Need(t, "clang-offload-bundler")
	dir = t.TempDir()
	return dir, func(args ...string) (string, int) {
		t.Helper()
		res := llvmref.Run(t, dir, nil, nil, append([]string{p}, args...)...)
		return strings.TrimSuffix(strings.TrimPrefix(string(res.Stderr), p+": error: "), "\n"), res.Code
	}
}

var updateInvalidTargets = flag.Bool("update", false, "rewrite testdata/invalid-targets.txt's messages from LLVM 22's clang-offload-bundler")

func TestInvalidTargetMessageLLVM(t *testing.T) {
	dir, run := llvmBundler(t)
	var updated bytes.Buffer
	updated.WriteString("# command-line target\tLLVM 22 error text without the '<argv0>: error: ' prefix ('=' prefixes each field)\n")
	in := filepath.Join(dir, "in")
	if err := os.WriteFile(in, []byte("payload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range readInvalidTargets(t) {
		raw := r[0]
		msg, code := run("-type=i", "-targets="+raw, "-input="+in, "-output="+filepath.Join(dir, "o.i"))
		want := ""
		if code != 0 && strings.HasPrefix(msg, "invalid target") {
			want = msg
		}
		fmt.Fprintf(&updated, "=%s\t=%s\n", raw, want)
		if *updateInvalidTargets {
			continue
		}
		if want != r[1] {
			t.Errorf("%q: LLVM says %q, testdata/invalid-targets.txt %q", raw, want, r[1])
		}
		id, _ := targetid.Parse(raw)
		if got := invalidTargetMessage(raw, id); got != want {
			t.Errorf("invalidTargetMessage(%q) = %q, LLVM says %q", raw, got, want)
		}
	}
	if *updateInvalidTargets {
		if err := os.WriteFile(filepath.Join("testdata", "invalid-targets.txt"), updated.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMissingMessage(t *testing.T) {
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{[]string{"b"}, "Can't find bundles for b"},
		{[]string{"b", "a"}, "Can't find bundles for a and b"},
		{[]string{"c", "a", "b"}, "Can't find bundles for a, b, and c"},
		{[]string{"hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx908",
			"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx1030"},
			"Can't find bundles for hip-amdgcn-amd-amdhsa--gfx1030, hip-amdgcn-amd-amdhsa--gfx908, hip-amdgcn-amd-amdhsa--gfx90a, and host-x86_64-unknown-linux-gnu-"},
	} {
		if got := missingMessage(c.ids); got != c.want {
			t.Errorf("missingMessage(%q) = %q, want %q", c.ids, got, c.want)
		}
	}
}

func TestMissingMessageLLVM(t *testing.T) {
	dir, run := llvmBundler(t)
	var b bytes.Buffer
	if err := binfmt.Write(&b, []binfmt.Source{{ID: "hip-amdgcn-amd-amdhsa--gfx1100", R: strings.NewReader("x"), Size: 1}}, 1); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "one.bc")
	if err := os.WriteFile(f, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	all := []string{"hip-amdgcn-amd-amdhsa-unknown-gfx90a", "host-x86_64--linux-gnu",
		"hip-amdgcn-amd-amdhsa--gfx908", "openmp-x86_64-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx1030"}
	for n := 1; n <= len(all); n++ {
		targets := all[:n]
		args := []string{"-type=bc", "-unbundle", "-input=" + f, "-targets=" + strings.Join(targets, ",")}
		var std []string
		for i, tg := range targets {
			args = append(args, fmt.Sprintf("-output=%s/o%d", dir, i))
			id, _ := targetid.Parse(tg)
			std = append(std, id.Standard())
		}
		msg, code := run(args...)
		if code == 0 {
			t.Fatalf("%v: unexpected success", targets)
		}
		if got := missingMessage(std); got != msg {
			t.Errorf("missingMessage(%q) = %q, LLVM says %q", std, got, msg)
		}
	}
}
