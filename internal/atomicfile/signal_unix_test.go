//go:build unix

package atomicfile

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A process ended by SIGTERM while an output is parked removes the parked
// temporary file, leaves the target as it was, and dies of the signal.
func TestSignalRemovesParked(t *testing.T) {
	if dir := os.Getenv("ATOMICFILE_SIGNAL_CHILD"); dir != "" {
		f, err := Create(filepath.Join(dir, "out"))
		if err != nil {
			os.Exit(3)
		}
		f.WriteString("new")
		if err := f.Park(); err != nil {
			os.Exit(4)
		}
		os.Stdout.WriteString("parked\n")
		time.Sleep(time.Minute)
		os.Exit(5)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "out"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := startChild(t, "TestSignalRemovesParked", "ATOMICFILE_SIGNAL_CHILD="+dir, "parked")
	if names, _ := filepath.Glob(filepath.Join(dir, ".out.tmp*")); len(names) != 1 {
		t.Errorf("before the signal: %d parked files, want 1", len(names))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child: %v, want death by SIGTERM", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("child ended with %v, want death by SIGTERM", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "out" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left behind: %v, want only out", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out")); string(b) != "old" {
		t.Errorf("target holds %q, want the old content", b)
	}
}

// A scratch file (check's copy of a pipe) is removed when SIGTERM ends
// the process, and by Discard otherwise. (SIGTERM: a shell running the
// test in the background starts it with SIGINT ignored, which the watch
// then leaves alone.)
func TestSignalRemovesScratch(t *testing.T) {
	if dir := os.Getenv("ATOMICFILE_SCRATCH_CHILD"); dir != "" {
		f, err := Scratch(dir, "copy-*")
		if err != nil {
			os.Exit(3)
		}
		f.WriteString("data")
		os.Stdout.WriteString("made\n")
		time.Sleep(time.Minute)
		os.Exit(5)
	}
	dir := t.TempDir()
	cmd := startChild(t, "TestSignalRemovesScratch", "ATOMICFILE_SCRATCH_CHILD="+dir, "made")
	if names, _ := filepath.Glob(filepath.Join(dir, "copy-*")); len(names) != 1 {
		t.Errorf("before the signal: %d scratch files, want 1", len(names))
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %d files", len(entries))
	}
	dir = t.TempDir()
	f, err := Scratch(dir, "copy-*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := Discard(f.Name()); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Discard left %d files", len(entries))
	}
}

// startChild runs test in a child process of this test binary with env
// set, and waits for it to print the line want (its state is ready to be
// signalled).
func startChild(t *testing.T, test, env, want string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != want+"\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	return cmd
}
