package objcopy

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goffload/goffload/internal/format/objfmt"
	"github.com/goffload/goffload/internal/test/llvmref"
)

func TestFormatCommand(t *testing.T) {
	args := BundleArgs(
		[]string{objfmt.BundlePrefix + "host-x86_64-unknown-linux-gnu-", objfmt.BundlePrefix + "hip-amdgcn-amd-amdhsa--gfx906"},
		[]string{"/tmp/clang-offload-bundler-40aa41.tmp", "d1.bin"}, "host.o", "fat.o")
	got := FormatCommand("/usr/lib/llvm-22/bin/llvm-objcopy", args)
	want := `"/usr/lib/llvm-22/bin/llvm-objcopy" "--add-section=__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu-=/tmp/clang-offload-bundler-40aa41.tmp" "--set-section-flags=__CLANG_OFFLOAD_BUNDLE__host-x86_64-unknown-linux-gnu-=readonly,exclude" "--add-section=__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906=d1.bin" "--set-section-flags=__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx906=readonly,exclude" "--" "host.o" "fat.o"`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = FormatCommand("llvm-objcopy", StripArgs("fat.o", "/tmp/x.tmp"))
	want = `"llvm-objcopy" "--regex" "--remove-section=__CLANG_OFFLOAD_BUNDLE__.*" "--" "fat.o" "/tmp/x.tmp"`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestDryRunMatchesBundler compares the -### lines with the ones
// clang-offload-bundler 22 prints, temporary names aside.
func TestDryRunMatchesBundler(t *testing.T) {
	bundler := llvmref.Need(t, "clang-offload-bundler")
	dir := t.TempDir()
	for _, n := range []string{"host.o", "dev.bin"} {
		os.WriteFile(filepath.Join(dir, n), readFile(t, "../../../format/objfmt/testdata/clang-O1.host.o"), 0o666)
	}
	tmpRE := regexp.MustCompile(`/clang-offload-bundler-[0-9a-f]{6}\.tmp`)
	env := []string{"TMPDIR=" + dir}
	objcopy := filepath.Join(filepath.Dir(bundler), "llvm-objcopy")

	res := llvmref.Run(t, dir, env, nil, bundler, "-type=o", "-###",
		"-targets=hip-amdgcn-amd-amdhsa--gfx906,host-x86_64-unknown-linux-gnu",
		"-input=dev.bin", "-input=host.o", "-output=fat.o")
	line := FormatCommand(objcopy, BundleArgs(
		[]string{objfmt.BundlePrefix + "hip-amdgcn-amd-amdhsa--gfx906", objfmt.BundlePrefix + "host-x86_64-unknown-linux-gnu-"},
		[]string{"dev.bin", dir + "/clang-offload-bundler-000000.tmp"}, "host.o", "fat.o")) + "\n"
	if got, want := tmpRE.ReplaceAllString(line, "/T"), tmpRE.ReplaceAllString(string(res.Stderr), "/T"); got != want {
		t.Errorf("bundle -###:\n got %s\nwant %s", got, want)
	}

	os.WriteFile(filepath.Join(dir, "fat.o"), readFile(t, "../../../format/objfmt/testdata/clang-O1.fat.o"), 0o666)
	res = llvmref.Run(t, dir, env, nil, bundler, "-type=o", "-###", "-unbundle",
		"-targets=host-x86_64-unknown-linux-gnu", "-input=fat.o", "-output=out.o")
	line = FormatCommand(objcopy, StripArgs("fat.o", dir+"/clang-offload-bundler-000000.tmp")) + "\n"
	if got, want := tmpRE.ReplaceAllString(line, "/T"), tmpRE.ReplaceAllString(string(res.Stderr), "/T"); got != want {
		t.Errorf("unbundle -###:\n got %s\nwant %s", got, want)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fakebin")
	os.Mkdir(fake, 0o777)
	os.WriteFile(filepath.Join(fake, "llvm-objcopy"), []byte("#!/bin/sh\nexit 3\n"), 0o777)
	os.Symlink("/bin/true", filepath.Join(fake, "clang-offload-bundler"))
	p, err := Find(filepath.Join(fake, "clang-offload-bundler"))
	if err != nil || p != fake+"/llvm-objcopy" {
		t.Errorf("Find next to argv0 = %q, %v", p, err)
	}
	t.Setenv("PATH", fake)
	p, err = Find("clang-offload-bundler") // not a path: search $PATH
	if err != nil || p != fake+"/llvm-objcopy" {
		t.Errorf("Find through PATH = %q, %v", p, err)
	}
	t.Setenv("PATH", dir)
	if _, err := Find("clang-offload-bundler"); !errors.Is(err, ErrNotFound) || err.Error() != "unable to find 'llvm-objcopy' in path" {
		t.Errorf("Find with nothing to find: %v", err)
	}
}

func TestCreateTemp(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	f, err := CreateTemp()
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	f.Close()
	if ok, _ := regexp.MatchString(`^`+regexp.QuoteMeta(dir)+`/clang-offload-bundler-[0-9a-f]{6}\.tmp$`, f.Name()); !ok {
		t.Errorf("temp name %q", f.Name())
	}
	t.Setenv("TMPDIR", "/nonexistent")
	_, err = CreateTemp()
	var pe *os.PathError
	if !errors.As(err, &pe) || !strings.HasPrefix(pe.Path, "/nonexistent/clang-offload-bundler-") {
		t.Errorf("CreateTemp in a missing folder: %v", err)
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
