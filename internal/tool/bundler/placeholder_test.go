package bundler_test

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Bundling into a non-ELF host hands llvm-objcopy a temporary file holding
// the host bundle's one NUL byte. When that byte cannot be written (here:
// a file size limit of 0), the bundler fails as LLVM's raw_fd_ostream does,
// instead of running objcopy with an empty host bundle and a wrong output.
func TestHostPlaceholderWriteFailure(t *testing.T) {
	bin := ours.Path(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	// A fake llvm-objcopy beside argv0, found before any real one; it
	// leaves a mark when it runs.
	fake := filepath.Join(dir, "fake")
	os.Mkdir(fake, 0o777)
	os.Symlink(bin, filepath.Join(fake, "clang-offload-bundler"))
	os.WriteFile(filepath.Join(fake, "llvm-objcopy"), []byte("#!/bin/sh\n: > \"$TMPDIR/objcopy-ran\"\n"), 0o777)
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o777)
	coff := make([]byte, 100) // an x86-64 COFF object without sections
	binary.LittleEndian.PutUint16(coff, 0x8664)
	os.WriteFile(filepath.Join(dir, "host.obj"), coff, 0o644)
	os.WriteFile(filepath.Join(dir, "dev"), []byte("DEVICE CODE"), 0o644)

	cmd := exec.Command(sh, "-c", `ulimit -f 0 && exec "$0" "$@"`, "fake/clang-offload-bundler", "-type=o",
		"-targets="+host+","+gfx906, "-input=host.obj", "-input=dev", "-output=fat.obj")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, stderr %q", err, stderr.String())
	}
	if got, want := stderr.String(), "LLVM ERROR: IO failure on output stream: File too large\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(tmp, "objcopy-ran")); err == nil {
		t.Errorf("llvm-objcopy ran")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "fat.obj")); err == nil {
		t.Errorf("output written")
	}
}
