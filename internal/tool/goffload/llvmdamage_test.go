package goffloadcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a bundle header that does not hold its entry table
// (testdata/llvmtests/offloading-fail.elf, the shape of LLVM's
// offloading-fail.test) list shows no entry and counts no target, and
// extract --all writes nothing and exits 1.
func TestDamagedBundleTable(t *testing.T) {
	input := filepath.Join("../../../testdata/llvmtests", "offloading-fail.elf")
	stdout, stderr, code := run(t, "list", input)
	if code != 1 || !strings.Contains(stdout, "no code object could be read") || !strings.Contains(stdout, "0 code object(s) for 0 target(s)") {
		t.Errorf("list: exit %d\n%s", code, stdout)
	}
	if !strings.Contains(stderr, "offloading-fail.elf → .hip_fatbin → bundle 0: offset 0x1066: entry 1 ID length: ") {
		t.Errorf("list: error does not name file, container, offset and field:\n%s", stderr)
	}
	dir := filepath.Join(t.TempDir(), "out")
	_, stderr, code = run(t, "extract", "--all", "-o", dir, input)
	if code != 1 || !strings.Contains(stderr, "no device code could be read") {
		t.Errorf("extract --all: exit %d\n%s", code, stderr)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("extract --all wrote %d files", len(files))
	}
}
