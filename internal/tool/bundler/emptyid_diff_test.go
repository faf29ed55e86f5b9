package bundler_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goffload/goffload/internal/format/ar"
	"github.com/goffload/goffload/internal/test/difftest"
	"github.com/goffload/goffload/internal/test/llvmref"
)

// A section named exactly __CLANG_OFFLOAD_BUNDLE__ (an empty bundle ID) is
// no bundle to LLVM 22: identify_magic wants a byte after the prefix. It is
// not listed, the other bundles are unbundled, and the host object loses it
// with the other bundle sections; in an archive its member's other bundles
// are extracted. ELF (the section first and last), COFF and WebAssembly;
// archives of ELF and COFF members.
func TestDiffObjectEmptyBundleID(t *testing.T) {
	t.Parallel()
	ref, ours := tools(t)
	clang := llvmref.Need(t, "clang")
	objcopy := llvmref.Need(t, "llvm-objcopy")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "h.c"), []byte("int g = 1; int f(int x) { return x + g; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "d"), []byte("DEVICE"), 0o644)
	os.WriteFile(filepath.Join(dir, "e"), []byte("EMPTY ID"), 0o644)
	os.WriteFile(filepath.Join(dir, "nul"), []byte{0}, 0o644)
	const (
		emptyID = "--add-section=__CLANG_OFFLOAD_BUNDLE__=e"
		dev     = "--add-section=__CLANG_OFFLOAD_BUNDLE__" + gfx906 + "=d"
		hostSec = "--add-section=__CLANG_OFFLOAD_BUNDLE__" + host + "-=nul"
	)
	for _, argv := range [][]string{
		{clang, "-c", "-O1", "h.c", "-o", "h.o"},
		{clang, "-c", "--target=x86_64-pc-windows-msvc", "h.c", "-o", "h.obj"},
		{clang, "--target=wasm32", "-c", "h.c", "-o", "h.wasm"},
		{objcopy, emptyID, dev, hostSec, "h.o", "first.o"},
		{objcopy, dev, hostSec, emptyID, "h.o", "last.o"},
		{objcopy, emptyID, dev, "h.obj", "fat.obj"},
		{objcopy, emptyID, dev, hostSec, "h.wasm", "fat.wasm"},
	} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	files := map[string][]byte{}
	var ms []ar.NewMember
	for _, n := range []string{"first.o", "last.o", "fat.obj", "fat.wasm"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
		if n == "first.o" || n == "last.o" {
			ms = append(ms, ar.NewMember{Name: n, Data: bytes.NewReader(b), Size: int64(len(b))})
		}
	}
	var lib bytes.Buffer
	if err := ar.WriteGNU(&lib, ms); err != nil {
		t.Fatal(err)
	}
	files["lib.a"] = lib.Bytes()
	// Archives of COFF fat objects: LLVM 22 extracts their bundles too (our
	// archive writer does not take WebAssembly members).
	var other bytes.Buffer
	var oms []ar.NewMember
	for _, n := range []string{"fat.obj", "first.o"} {
		oms = append(oms, ar.NewMember{Name: n, Data: bytes.NewReader(files[n]), Size: int64(len(files[n]))})
	}
	if err := ar.WriteGNU(&other, oms); err != nil {
		t.Fatal(err)
	}
	files["other.a"] = other.Bytes()
	var cases []difftest.Case
	for _, f := range []string{"first.o", "last.o", "fat.obj", "fat.wasm"} {
		cases = append(cases,
			difftest.Case{Files: files, Args: []string{"-type=o", "-list", "-input=" + f}},
			difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-targets=" + gfx906, "-input=" + f, "-output=a"}},
			difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-allow-missing-bundles", "-targets=" + gfx908 + "," + gfx906, "-input=" + f, "-output=a", "-output=b"}},
		)
		if f != "fat.obj" {
			cases = append(cases,
				difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-targets=" + host, "-input=" + f, "-output=h"}},
				difftest.Case{Files: files, Args: []string{"-type=o", "-unbundle", "-targets=" + host + "," + gfx906, "-input=" + f, "-output=h", "-output=a"}})
		}
	}
	for _, ts := range []string{gfx906, host, gfx906 + "," + host} {
		args := []string{"-type=a", "-unbundle", "-targets=" + ts, "-input=lib.a", "-output=a"}
		if ts != gfx906 && ts != host {
			args = append(args, "-output=b")
		}
		cases = append(cases, difftest.Case{Files: files, Args: args})
	}
	cases = append(cases,
		difftest.Case{Files: files, Args: []string{"-type=a", "-unbundle", "-targets=" + gfx906, "-input=other.a", "-output=a"}},
		difftest.Case{Files: files, Args: []string{"-type=a", "-unbundle", "-allow-missing-bundles", "-targets=" + gfx908 + "," + gfx906, "-input=other.a", "-output=a", "-output=b"}},
		difftest.Case{Files: files, Args: []string{"-type=a", "-list", "-input=other.a"}})
	compare(t, ref, ours, cases)
}
