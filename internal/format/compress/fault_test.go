package compress

import (
	"errors"
	"io"
	"testing"

	"github.com/goffload/goffload/internal/fault"
	"github.com/goffload/goffload/internal/test/maptest"
)

// TestCompressFault compresses a mapped file that another process
// truncated: Compress returns the fault as a *fault.Error (from the hash's
// goroutine or the encoder's), with zstd and with zlib.
func TestCompressFault(t *testing.T) {
	for _, opt := range []Options{{}, {Level: 19}, {Zlib: true}} {
		m := maptest.Truncated(t, make([]byte, 1<<20), 0)
		_, err := Compress(io.Discard, m, opt)
		var fe *fault.Error
		if !errors.As(err, &fe) {
			t.Errorf("%+v: Compress = %v, want a fault", opt, err)
		}
	}
}
