package bundler_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// withFileLimit returns a script that runs bin (as argv0) with at most n
// open files: soft and hard limit, as Go programs raise their soft limit to
// the hard one when they start.
func withFileLimit(t *testing.T, bin, argv0 string, n int) string {
	t.Helper()
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to lower the open-file limit")
	}
	p := filepath.Join(t.TempDir(), filepath.Base(bin))
	script := fmt.Sprintf("#!%s\nulimit -n %d || exit 99\nexec -a %s %q \"$@\"\n", sh, n, argv0, bin)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A thin archive of 1,100 members unbundled with 256 files allowed (issue
// 14, item 10): LLVM 22 succeeds; we used to keep every member's file open
// and fail with "Too many open files".
func TestDiffThinArchiveManyMembers(t *testing.T) {
	ref, ours := tools(t)
	llvmAr := llvmref.Need(t, "llvm-ar")
	one := refMake(t, ref, "-type=o", "-targets="+host+","+gfx906, "-input=empty", "-input=b1")
	dir := t.TempDir()
	files := map[string][]byte{}
	args := []string{"rcT", "lib.a"}
	os.Mkdir(filepath.Join(dir, "m"), 0o755)
	for i := range 1100 {
		name := fmt.Sprintf("m/k%d.o", i)
		files[name] = one
		args = append(args, name)
		if err := os.WriteFile(filepath.Join(dir, name), one, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(llvmAr, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("llvm-ar: %v\n%s", err, out)
	}
	lib, err := os.ReadFile(filepath.Join(dir, "lib.a"))
	if err != nil {
		t.Fatal(err)
	}
	files["lib.a"] = lib
	compare(t, withFileLimit(t, ref, "clang-offload-bundler", 256), withFileLimit(t, ours, "clang-offload-bundler", 256), []difftest.Case{
		{Files: files, Args: []string{"-type=a", "-unbundle", "-targets=" + gfx906, "-input=lib.a", "-output=out.a"}},
		{Files: files, Args: []string{"-type=a", "-unbundle", "-targets=" + gfx906 + "," + gfx908, "-input=lib.a", "-output=o1.a", "-output=o2.a", "-allow-missing-bundles"}},
	})
}
