//go:build unix

package packager_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/goffload/goffload/internal/tool/packager"
)

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Standard input, a pipe or a device is read into a temporary file, at most
// a cap: more is a clear error, with no output written (issue 14, item 1).
func TestStreamInputCapped(t *testing.T) {
	const limit = 1 << 20
	defer packager.SetMaxStreamInput(limit)()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	out := filepath.Join(dir, "out")
	want := fmt.Sprintf("the input is larger than %d bytes", limit)
	for _, c := range []struct {
		name string
		args []string
		fifo bool
	}{
		{"extract stdin", []string{"-", "--image=kind=hip,file=" + out}, false},
		{"extract fifo", []string{fifo, "--image=kind=hip,file=" + out}, true},
		{"pack stdin", []string{"-o", out, "--image=file=-,triple=amdgcn-amd-amdhsa,arch=gfx906"}, false},
		{"pack fifo", []string{"-o", out, "--image=file=" + fifo + ",triple=amdgcn-amd-amdhsa,arch=gfx906"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.fifo {
				// 8 times the cap: without one, read whole.
				go func() {
					f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
					if err != nil {
						return
					}
					defer f.Close()
					io.Copy(f, io.LimitReader(zeros{}, 8*limit))
				}()
			}
			var stdout, stderr bytes.Buffer
			env := packager.Env{Stdin: io.LimitReader(zeros{}, 8*limit), Stdout: &stdout, Stderr: &stderr}
			code := packager.Main(append([]string{"llvm-offload-binary"}, c.args...), env)
			if code == 0 || !strings.Contains(stderr.String(), want) {
				t.Errorf("exit %d, stderr %q; want an error saying %q", code, stderr.String(), want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}
