//go:build linux || darwin || freebsd

package compress

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/goffload/goffload/internal/fault"
)

// TestCompressFault compresses a mapped file that another process
// truncated: Compress returns the fault as a *fault.Error (from the hash's
// goroutine or the encoder's), with zstd and with zlib.
func TestCompressFault(t *testing.T) {
	const n = 1 << 20
	path := filepath.Join(t.TempDir(), "in")
	for _, opt := range []Options{{}, {Level: 19}, {Zlib: true}} {
		if err := os.WriteFile(path, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_PRIVATE)
		f.Close()
		if err != nil {
			t.Skipf("mmap: %v", err)
		}
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		_, err = Compress(io.Discard, m, opt)
		var fe *fault.Error
		if !errors.As(err, &fe) {
			t.Errorf("%+v: Compress = %v, want a fault", opt, err)
		}
		syscall.Munmap(m)
	}
}
