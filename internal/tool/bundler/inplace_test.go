//go:build unix

package bundler_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// In a folder where the tool cannot create files, existing writable outputs
// can only be written in place. A failure known from the input (a target it
// lacks) is found before any output is touched, and no two outputs are
// written in place (issue 14, item 6): before, output 1 was overwritten,
// then target 2 failed.
func TestUnbundleReadOnlyFolder(t *testing.T) {
	var cred *syscall.Credential
	if os.Getuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534} // nobody: root ignores folder permissions
	}
	bin := ours.Path(t)
	top, err := os.MkdirTemp("", "goffload-inplace")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(top)
	os.Chmod(top, 0o755)
	// The binary where the other user can run it.
	exe := filepath.Join(top, "clang-offload-bundler")
	copyFile(t, bin, exe, 0o755)
	dir := filepath.Join(top, "ro")
	os.Mkdir(dir, 0o755)

	bundleFile := filepath.Join(dir, "in.bc")
	mk := exec.Command(bin, "-type=bc", "-targets="+host+","+gfx906, "-input=/dev/null", "-input=/dev/stdin", "-output="+bundleFile)
	mk.Stdin = strings.NewReader("DEVICE")
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	os.Chmod(bundleFile, 0o644)
	if cred == nil {
		// Not root: make the folder read-only for ourselves.
		defer os.Chmod(dir, 0o755)
	}
	run := func(t *testing.T, outs []string, targets string) (string, int) {
		t.Helper()
		for _, o := range outs {
			p := filepath.Join(dir, o)
			os.WriteFile(p, []byte("OLD "+o), 0o666)
			os.Chmod(p, 0o666)
		}
		if cred == nil {
			os.Chmod(dir, 0o555)
			defer os.Chmod(dir, 0o755)
		}
		args := []string{"-type=bc", "-unbundle", "-input=in.bc", "-targets=" + targets}
		for _, o := range outs {
			args = append(args, "-output="+o)
		}
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		return stderr.String(), cmd.ProcessState.ExitCode()
	}
	unchanged := func(t *testing.T, outs ...string) {
		t.Helper()
		for _, o := range outs {
			if b, _ := os.ReadFile(filepath.Join(dir, o)); string(b) != "OLD "+o {
				t.Errorf("%s was changed: %q", o, b)
			}
		}
	}
	if f, err := os.CreateTemp(dir, "probe"); err == nil && cred == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("the folder stays writable (privileged user without root's uid)")
	}

	t.Run("missing target", func(t *testing.T) {
		stderr, code := run(t, []string{"o1", "o2"}, gfx906+","+gfx908)
		if code != 1 || !strings.Contains(stderr, "Can't find bundles for "+gfx908) {
			t.Errorf("exit %d, %q", code, stderr)
		}
		unchanged(t, "o1", "o2")
	})
	t.Run("two in place", func(t *testing.T) {
		stderr, code := run(t, []string{"o1", "o2"}, host+","+gfx906)
		if code != 1 || !strings.Contains(stderr, "already has to be written in place") {
			t.Errorf("exit %d, %q", code, stderr)
		}
		unchanged(t, "o1", "o2")
	})
	t.Run("one in place", func(t *testing.T) {
		// As LLVM 22: the output is written in place.
		stderr, code := run(t, []string{"o1"}, gfx906)
		if b, _ := os.ReadFile(filepath.Join(dir, "o1")); code != 0 || string(b) != "DEVICE" {
			t.Errorf("exit %d, %q, output %q", code, stderr, b)
		}
	})
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
