//go:build unix

package bundler_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/goffload/goffload/internal/tool/bundler"
)

// feedFIFO makes a FIFO in dir that is fed n zero bytes each time it is
// opened for reading, until the test ends.
func feedFIFO(t *testing.T, dir string, n int64) string {
	t.Helper()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	done := make(chan struct{})
	go func() {
		for {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			io.Copy(f, io.LimitReader(zeros{}, n))
			f.Close()
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	t.Cleanup(func() {
		close(done)
		// Unblock the writer waiting for a reader.
		if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return p
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Standard input, a pipe or a device is read into a temporary file, at most
// a cap: more is a clear error, with no output written (issue 14, item 1).
func TestStreamInputCapped(t *testing.T) {
	const limit = 1 << 20
	defer bundler.SetMaxStreamInput(limit)()
	dir := t.TempDir()
	// 8 times the cap: without one, read whole (before the fix, endlessly).
	fifo := feedFIFO(t, dir, 8*limit)
	hb := filepath.Join(dir, "hb")
	os.WriteFile(hb, []byte("HOSTDATA"), 0o644)
	out := filepath.Join(dir, "out")
	targets := "-targets=" + host + "," + gfx906
	want := fmt.Sprintf("the input is larger than %d bytes", limit)
	for _, c := range []struct {
		name  string
		args  []string
		stdin bool
	}{
		{"list fifo", []string{"-type=bc", "-list", "-input=" + fifo}, false},
		{"list stdin", []string{"-type=bc", "-list", "-input=-"}, true},
		{"unbundle fifo", []string{"-type=bc", "-unbundle", targets, "-input=" + fifo, "-output=" + out, "-output=" + out + "2"}, false},
		{"unbundle object stdin", []string{"-type=o", "-unbundle", targets, "-input=-", "-output=" + out, "-output=" + out + "2"}, true},
		{"bundle fifo", []string{"-type=bc", targets, "-input=" + hb, "-input=" + fifo, "-output=" + out}, false},
		{"bundle text stdin", []string{"-type=i", targets, "-input=-", "-input=" + hb, "-output=" + out}, true},
		{"bundle object fifo", []string{"-type=o", targets, "-input=" + fifo, "-input=" + hb, "-output=" + out}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdin io.Reader = strings.NewReader("")
			if c.stdin {
				stdin = io.LimitReader(zeros{}, 8*limit)
			}
			var stdout, stderr bytes.Buffer
			code := bundler.Main(append([]string{"clang-offload-bundler"}, c.args...), stdin, &stdout, &stderr)
			if code == 0 || !strings.Contains(stderr.String(), want) {
				t.Errorf("exit %d, stderr %q; want an error saying %q", code, stderr.String(), want)
			}
			for _, p := range []string{out, out + "2"} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
		})
	}
}

// With the address space limited to 1 GB, 1.5 GB of zeros on standard input
// is read into a temporary file in bounded memory: before, the tool died
// with Go's "fatal error: out of memory".
func TestStreamInputUlimit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 1.5 GB to a temporary file")
	}
	bin := ours.Path(t)
	cmd := exec.Command("sh", "-c", `head -c 1500000000 /dev/zero | (ulimit -v 1000000 && exec "$0" -type=bc -list -input=-)`, bin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if strings.Contains(stderr.String(), "fatal error") || err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	// LLVM 22 lists nothing for zeros and exits 0, as we do.
	limit := int64(200 << 10) // KB
	if raceEnabled {
		limit *= 3 // the race detector's shadow memory
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && int64(ru.Maxrss) > limit {
		t.Errorf("peak RSS %d KB, want < %d KB", ru.Maxrss, limit)
	}
}

// A character device is refused at once, naming it (issue 19): /dev/zero
// and /dev/urandom never end. /dev/null, which clang passes as an empty
// host input, still reads as empty.
func TestDeviceInputRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	targets := "-targets=" + host + "," + gfx906
	for _, args := range [][]string{
		{"-type=bc", "-list", "-input=/dev/zero"},
		{"-type=bc", "-unbundle", targets, "-input=/dev/urandom", "-output=" + out, "-output=" + out + "2"},
		{"-type=o", targets, "-input=/dev/null", "-input=/dev/zero", "-output=" + out},
	} {
		var stdout, stderr bytes.Buffer
		code := bundler.Main(append([]string{"clang-offload-bundler"}, args...), strings.NewReader(""), &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "': a character device, not a file") {
			t.Errorf("%v: exit %d, %q", args, code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote the output", args)
		}
	}
	var stderr bytes.Buffer
	if code := bundler.Main([]string{"clang-offload-bundler", "-type=bc", "-targets=" + host, "-input=/dev/null", "-output=" + out}, strings.NewReader(""), io.Discard, &stderr); code != 0 {
		t.Errorf("/dev/null as the host: exit %d, %s", code, stderr.String())
	}
}
