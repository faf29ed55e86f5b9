package zenc

import (
	"errors"
	"math/rand"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/goffload/goffload/internal/fault"
	"github.com/goffload/goffload/internal/test/maptest"
)

// TestEncodeFault encodes a mapped file that was truncated: the fault,
// whichever goroutine reads the missing pages first, comes back to the
// caller's fault.Catch, and every goroutine Encode started has ended.
func TestEncodeFault(t *testing.T) {
	defer smallSegments()()
	const n = 3 << 20 // several segments, parsed by two workers
	data := make([]byte, n)
	r := rand.New(rand.NewSource(1))
	for i := 0; i < n; i += 4096 {
		r.Read(data[i : i+64]) // compressible, with matches
	}
	page := int64(os.Getpagesize())
	for _, level := range []int{1, 9, 12, 19} {
		for _, keep := range []int64{0, n / 2, n - page} {
			m := maptest.Truncated(t, data, keep)
			before := runtime.NumGoroutine()
			err := fault.Catch(func() { Encode(nil, m, level, 2) })
			var fe *fault.Error
			if !errors.As(err, &fe) {
				t.Errorf("level %d, %d bytes left: Encode under Catch = %v, want a fault", level, keep, err)
			}
			// The goroutines end soon after Encode returns.
			for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
				time.Sleep(10 * time.Millisecond)
			}
			if g := runtime.NumGoroutine(); g > before {
				t.Errorf("level %d, %d bytes left: %d goroutines left behind", level, keep, g-before)
			}
		}
	}
}
